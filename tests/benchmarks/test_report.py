"""report.py turns a benchmark JSON into the README's table: checked on a
synthetic JSON whose verdicts are known, so a goal evaluated the wrong way
round, or an import time left with the interpreter's start-up in it, fails."""
import importlib.util
import json
import os

import pytest

spec = importlib.util.spec_from_file_location(
    "refjax_bench_report", os.path.join(os.path.dirname(__file__), "report.py"))
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)


def _result(bench, impl, median, variant=None, goal=None, **extra):
    info = {"bench": bench, "implementation": impl, "device": "cpu", **extra}
    if variant:
        info["variant"] = variant
    if goal:
        info["goal"] = goal
    return {"group": f"group {bench}", "name": f"test_{bench}[{impl}]", "extra_info": info,
            "stats": {"median": median, "min": median / 2, "mean": median}}


def _data(*results):
    return {"datetime": "2026-01-02T03:04:05+00:00", "commit_info": {"id": "abc", "dirty": True},
            "machine_info": {"refjax_bench": {
                "cpu_model": "Test CPU 3 GHz", "cores": 2, "os": "TestOS", "python": "3.11",
                "versions": {"numpy": "2.0", "jax": "0.10.2"}, "refjax_backend": "numpy",
                "refjax_device": "cpu", "jax_device": "cpu", "command": "pytest tests/benchmarks"}},
            "benchmarks": list(results)}


def _rows(table):
    """``{first cell: [cells]}`` of a markdown table's body."""
    lines = table.splitlines()[2:]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    return {c[0]: c[1:] for c in cells}


def test_goals_ratios_and_import_startup():
    data = _data(
        _result("mlp_step", "numpy", 4e-3), _result("mlp_step", "autograd", 8e-3),
        _result("mlp_step", "refjax", 5e-3, goal={"max_ratio_to_numpy": 1.15,
                                                  "faster_than": "autograd"}),
        _result("eager_sin", "numpy", 4e-7),
        _result("eager_sin", "refjax", 2e-6, goal={"max_s": 3e-6}),
        _result("import", "refjax", 0.5, goal={"max_s": 0.3}, startup_s=0.25),
        _result("per_example", "numpy", 1e-3, variant="einsum"),
        _result("per_example", "refjax", 2e-3, variant="vmap",
                goal={"min_speedup_over_loop": 10}),
        _result("per_example", "refjax", 30e-3, variant="loop"))
    rows = _rows(report.table(data, "median"))
    numpy, autograd, jax, refjax, goal = rows[report.TITLES["mlp_step"]]
    assert refjax == "5.00 ms (1.25× NumPy)" and jax == "—"
    assert goal == "≤ 1.15× NumPy: **not met** (1.250×); faster than autograd: met"
    assert rows[report.TITLES["eager_sin"]][-1] == "≤ 3 µs: met"
    assert rows[report.TITLES["import"]][3] == "250 ms"  # 0.5 s minus 0.25 s start-up
    assert rows[report.TITLES["import"]][-1] == "≤ 0.3 s: met"
    per = rows[report.TITLES["per_example"]]
    assert per[3] == "vmap 2.00 ms (2.00× NumPy); loop 30.0 ms (30× NumPy)"
    assert per[-1] == "vmap ≥ 10× faster than the loop: met (15×)"


def test_missing_reference_row_is_said():
    data = _data(_result("mlp_step", "numpy", 4e-3),
                 _result("mlp_step", "refjax", 3e-3, goal={"faster_than": "autograd"}))
    assert _rows(report.table(data, "min"))[report.TITLES["mlp_step"]][-1] == (
        "faster than autograd: no autograd row")


def test_main_prints_header_and_table(tmp_path, capsys):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(_data(_result("jit_call", "refjax", 6e-6, goal={"max_s": 5e-6}))))
    assert report.main(["--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Test CPU 3 GHz, 2 cores, TestOS, Python 3.11; numpy 2.0, jax 0.10.2." in out
    assert "ran `pytest tests/benchmarks`" in out and "commit abc with uncommitted" in out
    assert "| NumPy 2.0 | autograd | JAX 0.10.2 (CPU) | refjax (numpy) |" in out
    assert "≤ 5 µs: **not met**" in out


@pytest.mark.parametrize("text", ["", '{"benchmarks": []}'])
def test_no_results_is_an_error(tmp_path, text):
    path = tmp_path / "run.json"
    path.write_text(text)
    assert report.main(["--json", str(path)]) == 1
