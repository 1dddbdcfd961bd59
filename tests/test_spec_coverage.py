"""SPEC.md and the tests agree: every cited clause exists, every clause is
tested, every conformance test cites a clause (SPEC header)."""
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def spec_clauses():
    with open(os.path.join(ROOT, "SPEC.md")) as f:
        return re.findall(r"^### ([A-Z]+-\d+):", f.read(), flags=re.M)


@pytest.fixture(scope="module")
def citations(tmp_path_factory):
    out = tmp_path_factory.mktemp("spec") / "report.json"
    subprocess.run([sys.executable, "-m", "pytest", "tests", "conformance", "--collect-only",
                    "-q", "-p", "no:cacheprovider", f"--spec-report={out}"],
                   cwd=ROOT, check=True, capture_output=True)
    with open(out) as f:
        return json.load(f)


def test_clause_ids_are_unique():
    clauses = spec_clauses()
    assert len(clauses) == len(set(clauses)), sorted(c for c in clauses if clauses.count(c) > 1)


def test_every_cited_clause_exists(citations):
    known = set(spec_clauses())
    dangling = {test: cited for test, cited in citations.items()
                if set(cited) - known}
    assert not dangling, f"tests cite clauses missing from SPEC.md: {dangling}"


def test_every_clause_has_a_test(citations):
    cited = {c for clauses in citations.values() for c in clauses}
    untested = [c for c in spec_clauses() if c not in cited]
    assert not untested, f"SPEC.md clauses with no test: {untested}"


def test_every_conformance_test_cites_a_clause(citations):
    conformance = {t: c for t, c in citations.items() if t.startswith("conformance/")}
    assert conformance, "no conformance tests collected"
    uncited = [t for t, c in conformance.items() if not c]
    assert not uncited, uncited
