"""The refjax-conformance console script prints a per-area table."""
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _cli(*args, **env):
    return subprocess.run([sys.executable, "-m", "refjax._src.conformance_cli", *args],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, **env})


def _table(stdout):
    """{area: [cells...]} of the final per-area table."""
    lines = stdout.splitlines()
    table = lines[lines.index("Conformance of 'refjax' (SPEC.md areas)"):]
    return {line.split()[0]: line.split() for line in table[1:] if line and line[0].isalpha()}


def _pytest(*args):
    # Not as an xdist worker, even when this test runs in one (pytest-benchmark
    # reads the worker's environment and would not time anything).
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", *args],
                          capture_output=True, text=True, cwd=ROOT, env=env)


TWO_FILES = ("conformance/test_dtypes.py", "conformance/test_arrays.py")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


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
@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_differential_report_per_area_and_clause(tmp_path, workers):
    """--differential with --report/--report-json: outcomes per area and per
    SPEC clause, naming the pair compared; the same with xdist's workers."""
    md, js = tmp_path / "report.md", tmp_path / "report.json"
    result = _cli("--differential", "--reference", "refjax", "--examples", "20", "--seed", "3",
                  "--report", str(md), "--report-json", str(js), "-k", "family_agrees",
                  *workers)
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


@pytest.fixture(scope="module")
def serial_run():
    """Two conformance files, run without xdist; stdout is a pipe."""
    result = _cli(*TWO_FILES)
    assert result.returncode == 0, result.stdout[-3000:]
    return result.stdout


@pytest.mark.spec("BE-10")
def test_a_log_gets_a_plain_line_per_finished_area(serial_run):
    rows = _table(serial_run)
    dt = rows["DT"][-3:]
    assert (f"] area DT done: {dt[0]} passed, {dt[1]} failed, {dt[2]} skipped"
            in serial_run), serial_run[-3000:]
    assert not ANSI.search(serial_run)      # no live table, no colours in a pipe
    # pytest's own file lines stay whole around it.
    assert any(line.startswith("conformance/test_arrays.py .") for line in serial_run.splitlines())


@pytest.mark.spec("BE-9")
def test_a_terminal_gets_a_live_table_per_area():
    result = _cli(TWO_FILES[0], "--progress", "live", COLUMNS="100")
    assert result.returncode == 0, result.stdout[-3000:]
    rows = _table(result.stdout)
    live = ANSI.sub("", result.stdout.split("Conformance of 'refjax'")[0])
    passed = rows["DT"][-3]
    assert re.search(rf"DT +Dtypes, promotion and weak types +━+ +\d+/{passed} ", live), live
    assert re.search(rf"{passed}/{passed} tests +{passed} passed, 0 failed, 0 skipped", live)
    assert "[refjax-conformance" not in live
    assert rows["total"][-3:] == [passed, "0", "0"]


@pytest.mark.spec("BE-9")
def test_a_narrow_terminal_drops_the_titles():
    result = _cli(TWO_FILES[0], "--progress", "live", COLUMNS="80")
    assert result.returncode == 0, result.stdout[-3000:]
    live = ANSI.sub("", result.stdout.split("Conformance of 'refjax'")[0])
    assert re.search(r"\n DT +━+ +\d+/\d+ ", live) and "…" not in live.split("tests")[0]


@pytest.mark.spec("BE-14")
def test_progress_off_prints_only_pytest_and_the_table():
    result = _cli(TWO_FILES[0], "--progress", "off")
    assert result.returncode == 0, result.stdout[-3000:]
    assert "[refjax-conformance" not in result.stdout and not ANSI.search(result.stdout)
    assert _table(result.stdout)["DT"][-2:] == ["0", "0"]


@pytest.mark.spec("BE-11")
def test_xdist_workers_give_the_same_table(serial_run):
    result = _cli(*TWO_FILES, "-n", "2")
    assert result.returncode == 0, result.stdout[-3000:]
    assert "2 workers [" in result.stdout
    assert _table(result.stdout) == _table(serial_run)


@pytest.mark.spec("DIFF-16")
def test_differential_shards_are_tests_of_their_own():
    result = _pytest("conformance/test_differential.py", "--collect-only", "-q",
                     "--diff-examples", "1000", "--diff-seed", "4", "-k", "family_agrees")
    assert result.returncode == 0, result.stdout[-3000:]
    ids = [line.split("[")[1].rstrip("]") for line in result.stdout.splitlines()
           if "::test_family_agrees_with_reference[" in line]
    # 1000 programs: 100 per family, in two shards of 50.
    assert len(ids) == 20 and "control-1of2" in ids and "control-2of2" in ids


@pytest.mark.spec("BE-12")
def test_plain_pytest_runs_refjax_own_tests_only():
    result = _pytest("--collect-only", "-q")
    assert result.returncode == 0, result.stdout[-3000:]
    ids = [line for line in result.stdout.splitlines() if "::" in line]
    assert ids and all(line.startswith("tests/") for line in ids)
    assert any(line.startswith("tests/benchmarks/") for line in ids)


@pytest.mark.spec("BE-13")
def test_benchmarks_run_untimed_unless_asked():
    plain = _pytest("tests/benchmarks/test_dispatch.py", "-k", "numpy")
    assert plain.returncode == 0, plain.stdout[-3000:]
    assert "passed" in plain.stdout and "(time in " not in plain.stdout
    timed = _pytest("tests/benchmarks/test_dispatch.py", "-k", "numpy", "--benchmark-enable")
    assert timed.returncode == 0, timed.stdout[-3000:]
    assert "(time in " in timed.stdout
