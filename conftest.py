"""Repository-wide pytest options and hooks.

``--impl`` lives here (not in conformance/conftest.py) so that it is known
whichever directory pytest is pointed at.  ``--spec-report=FILE`` writes the
SPEC.md clauses each collected test cites, as JSON (used by
tests/test_spec_coverage.py).
"""
import json


def pytest_addoption(parser):
    parser.addoption(
        "--impl",
        default="refjax",
        help="module implementing the JAX API that conformance tests run "
        "against: refjax (default), jax, or any importable module name",
    )
    parser.addoption("--spec-report", default=None,
                     help="write {test id: [cited SPEC clauses]} as JSON here")
    # Differential testing (conformance/test_differential.py, SPEC DIFF-*).
    parser.addoption("--reference", default=None,
                     help="module the differential tests compare --impl with "
                     "(default: jax when importable and --impl is not jax, "
                     "else refjax; the same module as --impl compares jit with eager)")
    parser.addoption("--diff-examples", type=int, default=None,
                     help="generated programs per differential run, spread "
                     "over the program families (default 200)")
    parser.addoption("--diff-seed", type=int, default=None,
                     help="seed of the differential program generator (default 0)")


def pytest_collection_finish(session):
    path = session.config.getoption("--spec-report")
    if path:
        report = {item.nodeid: [m.args[0] for m in item.iter_markers("spec")]
                  for item in session.items}
        with open(path, "w") as f:
            json.dump(report, f, indent=1)


# -- the CuPy backend (SPEC BE-4, BE-5) ------------------------------------
# REFJAX_CUPY_STANDIN=1 puts the NumPy-backed stand-in for CuPy
# (tests/cupy_standin, not a GPU) first on sys.path, before refjax can load
# a backend.  It is done at import time: hooks run too late for that.
import os as _os
import sys as _sys

if _os.environ.get("REFJAX_CUPY_STANDIN") == "1":
    _STANDIN = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)),
                             "tests", "cupy_standin")
    _sys.path.insert(0, _STANDIN)
    # Subprocesses started by tests import refjax afresh: they need it too.
    _os.environ["PYTHONPATH"] = _os.pathsep.join(
        p for p in (_STANDIN, _os.environ.get("PYTHONPATH")) if p)


def _cupy_unavailable_reason():
    """Why the requested CuPy backend cannot run here, or None.

    Asked only when REFJAX_BACKEND=cupy: loading the backend raises the
    RuntimeError that names what is missing (CuPy, or a visible GPU).
    """
    if _os.environ.get("REFJAX_BACKEND") != "cupy":
        return None
    from refjax._src import backend
    try:
        backend.get()
    except RuntimeError as e:
        return f"REFJAX_BACKEND=cupy requested but unavailable: {e}"
    return None


# Conformance modules whose every test runs on the 8-device session
# (conformance/conftest.py NUM_DEVICES; SPEC SHD-1).
_EIGHT_DEVICE_MODULES = ("test_sharding_api.py", "test_sharding_jit.py",
                         "test_shard_map.py", "test_pmap.py")


def _too_few_gpus_reason():
    """Why the 8-device conformance modules cannot run on the CuPy backend
    here (it has one device per GPU, not 8 simulated ones), or None."""
    if _os.environ.get("REFJAX_BACKEND") != "cupy":
        return None
    from refjax._src import backend
    count = backend.get().device_count()
    if count >= 8:
        return None
    return (f"needs 8 devices (SPEC SHD-1); REFJAX_BACKEND=cupy has one per "
            f"visible GPU and sees {count}")


def pytest_collection_modifyitems(config, items):
    """With the CuPy backend requested but unusable, skip every test with
    its reason rather than run it on NumPy; on fewer than 8 GPUs, skip the
    8-device modules with theirs (SPEC BE-5)."""
    import pytest
    reason = _cupy_unavailable_reason()
    if reason is not None:
        for item in items:
            item.add_marker(pytest.mark.skip(reason=reason))
        return
    few = _too_few_gpus_reason()
    if few is not None:
        for item in items:
            if item.nodeid.split("::")[0].endswith(_EIGHT_DEVICE_MODULES):
                item.add_marker(pytest.mark.skip(reason=few))
