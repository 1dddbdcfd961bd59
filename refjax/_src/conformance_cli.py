"""``refjax-conformance``: run the conformance suite and print a table.

    refjax-conformance [--impl NAME] [extra pytest arguments]

Runs ``conformance/`` (found in the current directory or next to the refjax
sources) against the implementation NAME (default ``refjax``; ``jax`` for real
JAX) and prints passed/failed/skipped per SPEC.md area.  Exits non-zero if any
test failed.
"""
import argparse
import collections
import os
import re
import sys


def find_conformance_dir():
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for root in (os.getcwd(), here):
        candidate = os.path.join(root, "conformance")
        if os.path.isfile(os.path.join(candidate, "conftest.py")):
            return candidate
    raise SystemExit("refjax-conformance: no conformance/ directory found; run it "
                     "from a refjax source checkout.")


def area_titles(spec_path):
    """{'DT': 'Dtypes, promotion and weak types', ...} from SPEC.md headings."""
    titles = {}
    if os.path.isfile(spec_path):
        with open(spec_path) as f:
            for line in f:
                m = re.match(r"## ([A-Z]+): (.+)", line)
                if m:
                    titles[m.group(1)] = m.group(2).strip()
    return titles


class AreaTally:
    """A pytest plugin counting outcomes per SPEC area of each test."""

    def __init__(self):
        self.area_of = {}
        self.counts = collections.defaultdict(collections.Counter)

    def pytest_collection_modifyitems(self, items):
        for item in items:
            marker = item.get_closest_marker("spec")
            clause = marker.args[0] if marker else "UNCITED"
            self.area_of[item.nodeid] = clause.split("-")[0]

    def pytest_runtest_logreport(self, report):
        # One count per test: its call, or the setup/teardown that stopped it.
        if report.when == "call" or (report.when != "call" and report.outcome != "passed"):
            self.counts[self.area_of.get(report.nodeid, "?")][report.outcome] += 1


def format_table(counts, titles, impl):
    rows = [("area", "", "passed", "failed", "skipped")]
    total = collections.Counter()
    for area in sorted(counts):
        c = counts[area]
        total.update(c)
        rows.append((area, titles.get(area, ""), str(c["passed"]), str(c["failed"]),
                     str(c["skipped"])))
    rows.append(("total", "", str(total["passed"]), str(total["failed"]),
                 str(total["skipped"])))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = [f"Conformance of {impl!r} (SPEC.md areas)"]
    for i, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) if j < 2 else cell.rjust(w)
                               for j, (cell, w) in enumerate(zip(row, widths))))
        if i == 0 or i == len(rows) - 2:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv=None):
    import pytest

    parser = argparse.ArgumentParser(prog="refjax-conformance", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--impl", default="refjax",
                        help="module to test: refjax (default), jax, or any module name")
    args, extra = parser.parse_known_args(argv)
    directory = find_conformance_dir()
    tally = AreaTally()
    code = pytest.main([directory, f"--impl={args.impl}", "-q", "-p", "no:cacheprovider",
                        *extra], plugins=[tally])
    titles = area_titles(os.path.join(os.path.dirname(directory), "SPEC.md"))
    print()
    print(format_table(tally.counts, titles, args.impl))
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
