"""The differential runner finds planted faults (SPEC DIFF-15).

Each test copies refjax (``refjax/`` and ``backends/``) into a temporary
directory as the package ``refjax_faulty``, plants one fault by a textual
patch, and runs ``python -m conformance.differential --impl=refjax_faulty
--reference=refjax`` at its default budget and seed: the run must fail and
report a disagreement of the kind the fault causes.
"""
import json
import os
import subprocess
import sys

import pytest

from tests.mutation.planting import copy_refjax, plant

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (file under refjax/, text, replacement, what the report must mention)
FAULTS = {
    # A Python int with a uint8 array gives int16: a wrong promotion rule.
    "promotion": ("_src/dtypes.py", "int: [uint8, int8, *narrow_int_dtypes]",
                  "int: [int8, *narrow_int_dtypes]", "dtype"),
    # Clamped dynamic_slice/dynamic_update_slice windows stop one short of the end.
    "clamp": ("_src/lax/dynamic_slice.py",
              "lo = min(max(int(start), 0), size - want)",
              "lo = min(max(int(start), 0), max(size - want - 1, 0))",
              "values differ"),
    # The tangent of x*y along x taken as t*x instead of t*y: a wrong JVP
    # rule (the transpose rule stays right).
    "jvp": ("_src/lax/lax.py", 'div_p, div = _binary("div"',
            "ad.defjvp(mul_p, lambda t, x, y, **p: mul_p.bind(t, x, **p),\n"
            "          lambda t, x, y, **p: mul_p.bind(x, t, **p))\n"
            'div_p, div = _binary("div"',
            "differ"),
}


def faulty_copy(tmp_path, fault):
    """refjax as ``refjax_faulty`` with ``fault`` planted; returns its parent."""
    target = copy_refjax(str(tmp_path), "refjax_faulty")
    where, old, new, _ = FAULTS[fault]
    plant(target, where, old, new, fault)
    return tmp_path


@pytest.mark.spec("DIFF-15")
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_runner_reports_planted_fault(tmp_path, fault):
    parent = faulty_copy(tmp_path, fault)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(parent), ROOT]),
               OPENBLAS_NUM_THREADS="1")
    # Default budget and seed; shrinking is cut short, only finding counts here.
    result = subprocess.run(
        [sys.executable, "-m", "conformance.differential", "--impl=refjax_faulty",
         "--reference=refjax", "--shrink-seconds=1"], capture_output=True, text=True,
        cwd=ROOT, env=env, timeout=600)
    out = result.stdout + result.stderr
    assert result.returncode == 1, out[-4000:]
    assert "DISAGREE" in out and "Reproducer" in out, out[-4000:]
    assert FAULTS[fault][3] in out, out[-4000:]


@pytest.mark.spec("DIFF-15")
def test_unpatched_copy_agrees(tmp_path):
    """The renamed copy without a fault agrees, so the faults alone are found."""
    parent = faulty_copy(tmp_path, "promotion")
    (parent / "refjax_faulty" / FAULTS["promotion"][0]).write_text(
        (parent / "refjax_faulty" / FAULTS["promotion"][0]).read_text().replace(
            FAULTS["promotion"][2], FAULTS["promotion"][1]))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(parent), ROOT]),
               OPENBLAS_NUM_THREADS="1")
    result = subprocess.run(
        [sys.executable, "-m", "conformance.differential", "--impl=refjax_faulty",
         "--reference=refjax", "--examples=50"], capture_output=True, text=True, cwd=ROOT,
        env=env, timeout=600)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]


@pytest.mark.spec("DIFF-14")
def test_report_lists_the_failure_with_its_reproducer(tmp_path):
    """refjax-conformance --report on a faulty library: the failing clause,
    the disagreement and a reproducer that runs."""
    parent = faulty_copy(tmp_path, "jvp")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(parent), ROOT]),
               OPENBLAS_NUM_THREADS="1")
    md, js = tmp_path / "r.md", tmp_path / "r.json"
    result = subprocess.run(
        [sys.executable, "-m", "refjax._src.conformance_cli", "--differential",
         "--impl=refjax_faulty", "--reference=refjax", "--report", str(md),
         "--report-json", str(js), "-k", "autodiff"],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert result.returncode == 1, result.stdout[-3000:]
    data = json.loads(js.read_text())
    assert data["clauses"]["DIFF-11"]["failed"] == 1
    [failure] = data["failures"]
    assert failure["clause"] == "DIFF-11" and "differ" in failure["message"]
    assert failure["reproducer"].startswith("import jax\n") and "jax." in failure["reproducer"]
    text = md.read_text()
    assert "### DIFF-11:" in text and "```python\nimport jax" in text
    # The reproducer runs as a script on either library.
    script = failure["reproducer"].replace("import jax\n", "import refjax as jax\n", 1)
    script = script.replace("import jax.numpy as jnp", "import refjax.numpy as jnp")
    script = script.replace("from jax import lax", "from refjax import lax")
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert ran.returncode == 0 and ran.stdout.strip(), ran.stderr[-2000:]
