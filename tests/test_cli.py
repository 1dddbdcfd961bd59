"""The refjax-conformance console script prints a per-area table."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "refjax._src.conformance_cli", *args],
                          capture_output=True, text=True, cwd=ROOT)


@pytest.mark.spec("BE-3")
def test_table_counts_passes_per_area():
    result = _cli("-k", "promote_types or arrays_are_unhashable")
    assert result.returncode == 0, result.stdout[-3000:]
    lines = result.stdout.splitlines()
    start = lines.index("Conformance of 'refjax' (SPEC.md areas)")
    table = lines[start:]
    rows = {line.split()[0]: line.split() for line in table[1:] if line and line[0].isalpha()}
    assert rows["DT"][-3:] == ["3", "0", "0"]
    assert rows["ARR"][-3:] == ["1", "0", "0"]
    assert rows["total"][-3:] == ["4", "0", "0"]
    assert "Dtypes, promotion and weak types" in " ".join(rows["DT"])


@pytest.mark.spec("BE-3")
def test_unknown_implementation_is_reported():
    result = _cli("--impl", "no_such_module_xyz", "-k", "unhashable")
    assert result.returncode != 0
    assert "--impl=no_such_module_xyz: cannot import it" in result.stdout + result.stderr


@pytest.mark.spec("DIFF-14")
def test_differential_report_per_area_and_clause(tmp_path):
    """--differential with --report/--report-json: outcomes per area and per
    SPEC clause, naming the pair compared."""
    md, js = tmp_path / "report.md", tmp_path / "report.json"
    result = _cli("--differential", "--reference", "refjax", "--examples", "20", "--seed", "3",
                  "--report", str(md), "--report-json", str(js), "-k", "family_agrees")
    assert result.returncode == 0, result.stdout[-3000:]
    data = json.loads(js.read_text())
    assert data["impl"] == "refjax" and data["reference"] == "refjax"
    assert data["areas"]["DIFF"]["passed"] == 10 and data["areas"]["DIFF"]["failed"] == 0
    assert data["clauses"]["DIFF-7"] == dict(data["clauses"]["DIFF-7"], passed=1, failed=0)
    assert data["failures"] == []
    text = md.read_text()
    assert "| DIFF-13 |" in text and "compared it with `refjax`" in text
    assert "## Failures" in text and "None." in text


@pytest.mark.spec("BE-8")
def test_paths_narrow_the_run_and_the_table_names_what_ran():
    result = _cli("conformance/test_jaxsuite_api.py", "-k", "float0")
    assert result.returncode == 0, result.stdout[-3000:]
    lines = result.stdout.splitlines()
    assert any(line.startswith("conformance/test_jaxsuite_api.py ") for line in lines)
    table = lines[lines.index("Conformance of 'refjax' (SPEC.md areas)"):]
    rows = {line.split()[0]: line.split() for line in table[1:] if line and line[0].isalpha()}
    assert set(rows) >= {"DT", "total"} and rows["total"][-3:] == ["2", "0", "0"]
    from refjax._src.version import __version__
    about = table[-1]
    assert about.startswith(f"refjax {__version__}") and "implementation: refjax" in about
    assert "differential reference: jax" in about
