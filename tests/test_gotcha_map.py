"""conformance/gotcha_map.txt maps every rule of shared/gotchas.md to the SPEC.md
clauses that cover it: each mapped clause exists, names the rule and is cited
by a conformance test, and the map lists exactly the rules of gotchas.md."""
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAP_PATH = os.path.join(ROOT, "conformance", "gotcha_map.txt")
GOTCHA_ID = re.compile(r"\bG-[A-Z]+-\d+\b")


def read_map(path=MAP_PATH):
    """[(gotcha ID, [clause, ...])] in file order; comments and blanks skipped."""
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            m = re.fullmatch(r"(G-[A-Z]+-\d+)\s+([A-Z]+-\d+(?:\s*,\s*[A-Z]+-\d+)*)", line)
            assert m, f"{path}:{n}: malformed line {line!r}"
            rows.append((m.group(1), re.split(r"\s*,\s*", m.group(2))))
    return rows


def spec_clause_texts():
    """{clause ID: its text, heading to the next heading}."""
    with open(os.path.join(ROOT, "SPEC.md")) as f:
        spec = f.read()
    texts = {}
    for part in re.split(r"^(?=#{2,3} )", spec, flags=re.M):
        m = re.match(r"### ([A-Z]+-\d+):", part)
        if m:
            texts[m.group(1)] = part
    return texts


IDS_PATH = os.path.join(ROOT, "conformance", "gotcha_ids.txt")


def catalog_paths():
    """Where the rule IDs are read from: the list kept in the repository, and
    the catalog itself when it is present beside the checkout."""
    catalog = os.environ.get("REFJAX_GOTCHAS") or os.path.normpath(
        os.path.join(ROOT, "..", "shared", "gotchas.md"))
    return [IDS_PATH] + ([catalog] if os.path.exists(catalog) else [])


@pytest.fixture(scope="module")
def gotcha_map():
    return read_map()


@pytest.fixture(scope="module")
def conformance_citations(tmp_path_factory):
    """{test node id: [cited clauses]} of the conformance suite, from the
    same collection report tests/test_spec_coverage.py reads."""
    out = tmp_path_factory.mktemp("gotchas") / "report.json"
    subprocess.run([sys.executable, "-m", "pytest", "conformance", "--collect-only",
                    "-q", "-p", "no:cacheprovider", f"--spec-report={out}"],
                   cwd=ROOT, check=True, capture_output=True)
    with open(out) as f:
        return json.load(f)


def test_gotcha_ids_are_unique(gotcha_map):
    ids = [g for g, _ in gotcha_map]
    assert len(ids) == len(set(ids)), sorted({g for g in ids if ids.count(g) > 1})


def test_mapped_clauses_exist_and_name_the_gotcha(gotcha_map):
    texts = spec_clause_texts()
    missing = {g: c for g, clauses in gotcha_map for c in clauses if c not in texts}
    assert not missing, f"clauses missing from SPEC.md: {missing}"
    silent = {g: c for g, clauses in gotcha_map for c in clauses
              if g not in GOTCHA_ID.findall(texts[c])}
    assert not silent, f"clauses whose text does not name the gotcha: {silent}"


def test_clauses_naming_a_gotcha_are_mapped(gotcha_map):
    # The reverse direction: a clause that names a rule is listed for it, so
    # the map does not go stale when SPEC.md gains a Gotchas: entry.
    mapped = {(g, c) for g, clauses in gotcha_map for c in clauses}
    unmapped = sorted((g, c) for c, text in spec_clause_texts().items()
                      for g in set(GOTCHA_ID.findall(text)) if (g, c) not in mapped)
    assert not unmapped, f"SPEC.md names these (gotcha, clause) pairs, the map does not: {unmapped}"


def test_mapped_clauses_are_tested(gotcha_map, conformance_citations):
    cited = {c for clauses in conformance_citations.values() for c in clauses}
    untested = {g: c for g, clauses in gotcha_map for c in clauses if c not in cited}
    assert not untested, f"mapped clauses no conformance test cites: {untested}"


@pytest.mark.parametrize("path", catalog_paths(), ids=os.path.basename)
def test_map_lists_exactly_the_gotchas(gotcha_map, path):
    with open(path) as f:
        expected = set(GOTCHA_ID.findall(f.read()))
    listed = {g for g, _ in gotcha_map}
    assert not expected - listed, f"rules missing from the map: {sorted(expected - listed)}"
    assert not listed - expected, f"IDs not in {path}: {sorted(listed - expected)}"
