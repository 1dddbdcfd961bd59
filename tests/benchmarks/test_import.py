"""``import refjax`` time, next to ``import numpy``, ``autograd`` and ``jax``.

Each round starts a fresh interpreter running ``python -c "import MODULE"``
(so no module is cached in-process; it also prints where the module came
from, which the test checks); the timing therefore includes the
interpreter's own start-up.  A warm-up round writes refjax's bytecode
cache (as ``pip install`` would have), so that every module is timed
loading its ``.pyc``.  Just before the rounds, the test times
``python -c pass`` a few times and stores the median in
``extra_info["startup_s"]``: the import time is the benchmark's median minus
that (report.py does the subtraction).  refjax's goal (<= 0.3 s) is tracked
in ``extra_info``, not asserted.  The child runs in the repository root, so
it imports this checkout's refjax.
"""
import os
import statistics
import subprocess
import sys
import time

import pytest
from bench_impls import available, tag

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULES = {"numpy": "numpy", "autograd": "autograd", "refjax": "refjax", "jax": "jax"}


# Imports are timed with compiled bytecode available, as after `pip install`
# (which compiles every module) or any earlier import: an environment with
# PYTHONDONTWRITEBYTECODE set would otherwise recompile refjax's sources in
# every round while the installed numpy, autograd and jax load their .pyc.
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _python(code):
    """Run ``code`` in a fresh interpreter; its stdout."""
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True,
                          capture_output=True, text=True, env=_ENV).stdout


def _startup_s(runs=5):
    """Median wall time of an interpreter that imports nothing."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        _python("pass")
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@pytest.mark.parametrize("name", available())
def test_import_time(benchmark, name):
    """``python -c "import MODULE"`` in a fresh process, several rounds."""
    module = MODULES[name]
    tag(benchmark, "import", "import time (fresh interpreter, minus `python -c pass`)", name,
        goal={"max_s": 0.3} if name == "refjax" else None)
    benchmark.extra_info["startup_s"] = _startup_s()
    where = benchmark.pedantic(_python, args=(f"import {module}; print({module}.__file__)",),
                               rounds=3 if name == "jax" else 5, iterations=1,
                               warmup_rounds=1).strip()
    assert os.path.basename(where) == "__init__.py", where
    if name == "refjax":  # the checkout under test, not some installed copy
        assert where == os.path.join(ROOT, "refjax", "__init__.py"), where
