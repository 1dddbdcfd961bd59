"""Helpers shared by the ``jax.scipy.stats`` conformance files (SPEC STA)."""
import importlib

import numpy as np
import pytest

F32 = dict(rtol=2e-4, atol=1e-6)


@pytest.fixture(scope="module")
def stats(jax):
    return importlib.import_module(jax.__name__ + ".scipy.stats")


def f32(values):
    return np.asarray(values, np.float32)


def close(actual, expected, **tol):
    np.testing.assert_allclose(np.asarray(actual, np.float64), expected,
                               **(tol or F32), equal_nan=True)


def check_against_scipy(jax, stats, module, fn, reference, args):
    """``module.fn(*args)`` (float32 arrays) against ``reference`` on the
    same float32 values in float64.  Called under ``jit``: one compilation
    instead of one per operation keeps the file fast on JAX (STA-9 checks
    that ``jit`` changes nothing)."""
    function = getattr(getattr(stats, module), fn)
    got = jax.jit(function)(*[f32(a) for a in args])
    assert got.dtype == np.float32
    expected = reference(*[f32(a).astype(np.float64) for a in args])
    close(got, expected)
