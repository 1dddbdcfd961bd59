"""``refjax-conformance``: run the conformance suite and print a table.

    refjax-conformance [--impl NAME] [--reference NAME] [--examples N] [--seed S]
                       [--differential] [--report FILE.md] [--report-json FILE.json]
                       [--progress auto|live|plain|off] [-n auto|N]
                       [paths] [extra pytest arguments]

Runs ``conformance/`` (found in the current directory or next to the refjax
sources) against the implementation NAME (default ``refjax``; ``jax`` for real
JAX) and prints passed/failed/skipped per SPEC.md area.  While it runs, a
terminal shows a live table of the areas; logs and pipes get one line per
finished area and a progress line each minute (``--progress``).  ``-n auto``
(pytest-xdist) spreads the tests, the differential ones included, over every
core.  The differential tests compare NAME with ``--reference`` on
``--examples`` generated programs (seed ``--seed``); ``--differential`` runs
only those.  ``--report`` and ``--report-json`` write the results per area and
per SPEC clause, with the reproducer of each differential failure (SPEC
DIFF-14).  Exits non-zero if any test failed.
"""
import argparse
import collections
import importlib
import json
import os
import re
import subprocess
import sys

from refjax._src.conformance_progress import PROGRESS_MODES, AreaTally

PLUGIN = "refjax._src.conformance_progress"


def find_conformance_dir():
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for root in (os.getcwd(), here):
        candidate = os.path.join(root, "conformance")
        if os.path.isfile(os.path.join(candidate, "conftest.py")):
            return candidate
    raise SystemExit("refjax-conformance: no conformance/ directory found; run it "
                     "from a refjax source checkout.")


def spec_titles(spec_path):
    """Area titles ({'DT': 'Dtypes, promotion and weak types'}) and clause
    titles ({'DT-2': 'The promotion lattice'}) from SPEC.md headings."""
    areas, clauses = {}, {}
    if os.path.isfile(spec_path):
        with open(spec_path) as f:
            for line in f:
                m = re.match(r"(##|###) ([A-Z]+(?:-\d+)?): (.+)", line)
                if m:
                    (areas if m.group(1) == "##" else clauses)[m.group(2)] = m.group(3).strip()
    return areas, clauses


def area_titles(spec_path):
    """{'DT': 'Dtypes, promotion and weak types', ...} from SPEC.md headings."""
    return spec_titles(spec_path)[0]


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


def _clause_key(clause):
    area, _, n = clause.partition("-")
    return (area, int(n) if n.isdigit() else 0)


def _outcomes(counter):
    return {k: counter[k] for k in ("passed", "failed", "skipped")}


def report_data(tally, spec_path, impl, reference):
    """The report as a dict: outcomes per area and per clause, failures."""
    titles, clause_titles = spec_titles(spec_path)
    return {"impl": impl, "reference": reference,
            "areas": {a: {"title": titles.get(a, ""), **_outcomes(c)}
                      for a, c in sorted(tally.counts.items())},
            "clauses": {k: {"title": clause_titles.get(k, ""), **_outcomes(tally.clauses[k])}
                        for k in sorted(tally.clauses, key=_clause_key)},
            "failures": tally.failures}


def format_markdown(data):
    """The --report file: areas, clauses, then each failure's reproducer."""
    lines = [f"# Conformance of `{data['impl']}`", ""]
    if data["reference"]:
        lines += [f"Differential tests compared it with `{data['reference']}`.", ""]
    for heading, key in (("Areas", "areas"), ("Clauses", "clauses")):
        lines += [f"## {heading}", "", f"| {key[:-1]} | title | passed | failed | skipped |",
                  "| --- | --- | ---: | ---: | ---: |"]
        lines += [f"| {name} | {row['title']} | {row['passed']} | {row['failed']} "
                  f"| {row['skipped']} |" for name, row in data[key].items()]
        lines.append("")
    lines += ["## Failures", ""]
    if not data["failures"]:
        lines += ["None.", ""]
    for failure in data["failures"]:
        lines += [f"### {failure['clause']}: `{failure['test']}`", "", "```text",
                  failure["message"], "```", ""]
        if failure["reproducer"]:
            lines += ["Reproducer:", "", "```python", failure["reproducer"].rstrip(), "```", ""]
    return "\n".join(lines)


def resolve_reference(directory, impl, reference):
    """The reference the differential tests use, named in the report."""
    if reference:
        return reference
    sys.path.insert(0, os.path.dirname(directory))
    try:
        from conformance.differential import default_reference
    except ImportError:
        return None
    return default_reference(impl)


def split_paths(extra):
    """Test files, directories and node ids among the extra arguments (they
    narrow the run, SPEC BE-8); the rest are pytest options."""
    paths, options = [], []
    for i, arg in enumerate(extra):
        after_option = i > 0 and extra[i - 1] in ("-k", "-m", "-p", "-n", "--deselect")
        target = arg.split("::")[0]
        if not arg.startswith("-") and not after_option and os.path.exists(target) and (
                target.endswith(".py") or os.path.isdir(target)):
            paths.append(arg)
        else:
            options.append(arg)
    return paths, options


def _version_of(module_name):
    try:
        return getattr(importlib.import_module(module_name), "__version__", "?")
    except Exception:               # the table is printed whatever happens
        return "not importable"


def _commit(directory):
    try:
        out = subprocess.run(["git", "-C", directory, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def describe_run(directory, impl, reference):
    """What was tested: refjax's version and commit, the implementation and
    its version, the reference of the differential rows (SPEC BE-8)."""
    from refjax._src.version import __version__
    commit = _commit(directory)
    line = f"refjax {__version__}" + (f" (commit {commit})" if commit else "")
    line += f"; implementation: {impl} {_version_of(impl)}"
    if reference:
        line += f"; differential reference: {reference} {_version_of(reference)}"
    return line


def pytest_options(args):
    options = [f"--impl={args.impl}"]
    if args.reference:
        options.append(f"--reference={args.reference}")
    if args.examples is not None:
        options.append(f"--diff-examples={args.examples}")
    if args.seed is not None:
        options.append(f"--diff-seed={args.seed}")
    return options


def main(argv=None):
    import pytest

    parser = argparse.ArgumentParser(prog="refjax-conformance", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--impl", default="refjax",
                        help="module to test: refjax (default), jax, or any module name")
    parser.add_argument("--reference", default=None,
                        help="module the differential tests compare it with (default: jax, "
                        "or refjax when --impl=jax)")
    parser.add_argument("--examples", type=int, default=None,
                        help="generated programs for the differential tests (default 200)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the differential program generator (default 0)")
    parser.add_argument("--differential", action="store_true",
                        help="run only the differential tests")
    parser.add_argument("--report", default=None, metavar="FILE.md",
                        help="write results per area and SPEC clause, with reproducers")
    parser.add_argument("--report-json", default=None, metavar="FILE.json",
                        help="the same report as JSON")
    parser.add_argument("--progress", choices=PROGRESS_MODES, default="auto",
                        help="while running: a live table per area (live), a line per "
                        "finished area and each minute (plain), nothing (off); auto: live "
                        "on a terminal, else plain")
    args, extra = parser.parse_known_args(argv)
    directory = find_conformance_dir()
    paths, extra = split_paths(extra)
    target = os.path.join(directory, "test_differential.py") if args.differential else directory
    spec_path = os.path.join(os.path.dirname(directory), "SPEC.md")
    titles = area_titles(spec_path)
    tally = AreaTally(titles, args.progress)
    # Not -q: pytest names each file with its progress, so the long
    # differential stretch does not look like a hang.  The plugin goes by
    # -p too, so that xdist's workers tag their reports (SPEC BE-11).
    code = pytest.main([*(paths or [target]), *pytest_options(args), "-p", "no:cacheprovider",
                        "-p", PLUGIN, *extra], plugins=[tally])
    reference = resolve_reference(directory, args.impl, args.reference)
    print()
    print(format_table(tally.counts, titles, args.impl))
    print(describe_run(directory, args.impl, reference))
    if args.report or args.report_json:
        data = report_data(tally, spec_path, args.impl, reference)
        if args.report:
            with open(args.report, "w") as f:
                f.write(format_markdown(data))
        if args.report_json:
            with open(args.report_json, "w") as f:
                json.dump(data, f, indent=1)
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
