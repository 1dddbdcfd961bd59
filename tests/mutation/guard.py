"""pytest plugin loaded by the mutation runner (``-p tests.mutation.guard``).

It proves the tests ran against the mutated copy: before collection the
``refjax`` that ``import refjax`` would load, and after the session every
loaded ``refjax`` module, must lie under ``$REFJAX_MUTATION_COPY``;
otherwise pytest exits with WRONG_COPY.  It also appends the node id of
each failing test to ``$REFJAX_MUTATION_FAILURES`` when that is set (the
runner's baseline run uses it).  Without those variables it does nothing.
"""
import importlib.util
import os
import sys

import pytest

WRONG_COPY = 64


def _copy_root():
    root = os.environ.get("REFJAX_MUTATION_COPY")
    return os.path.realpath(root) + os.sep if root else None


def _outside(root):
    """Loaded (or, before any is loaded, findable) refjax modules whose file
    is not under ``root``."""
    loaded = {name: getattr(mod, "__file__", None) for name, mod in list(sys.modules.items())
              if name == "refjax" or name.startswith("refjax.")}
    if not loaded:
        spec = importlib.util.find_spec("refjax")
        loaded = {"refjax": spec.origin if spec else None}
    return {name: f for name, f in loaded.items()
            if f is not None and not os.path.realpath(f).startswith(root)}


def _check(root, when):
    bad = _outside(root)
    if bad:
        listing = "\n  ".join(f"{n}: {f}" for n, f in sorted(bad.items()))
        pytest.exit(f"mutation guard ({when}): refjax modules outside the copy "
                    f"{root}:\n  {listing}", returncode=WRONG_COPY)


def pytest_configure(config):
    root = _copy_root()
    if root:
        _check(root, "before collection")


def pytest_runtest_logreport(report):
    path = os.environ.get("REFJAX_MUTATION_FAILURES")
    if path and report.failed:
        with open(path, "a") as f:
            f.write(report.nodeid + "\n")


def pytest_collectreport(report):
    pytest_runtest_logreport(report)


def pytest_sessionfinish(session, exitstatus):
    root = _copy_root()
    if root and _outside(root):
        listing = ", ".join(sorted(_outside(root).values()))
        print(f"\nmutation guard: refjax modules outside the copy {root}: {listing}")
        session.exitstatus = WRONG_COPY
