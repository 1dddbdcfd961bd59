"""Dispatch micro-benchmarks: what one call costs, before any real work.

* eager ``sin`` on 8 float32 values (refjax goal: <= 3 us per call); the
  autograd row is ``autograd.numpy.sin`` outside a trace, i.e. its wrapper's
  check for boxed arguments before NumPy's ``sin``;
* a call of a warmed-up ``jit(lambda x: x * 2 + 1)`` on 8 values (goal:
  <= 5 us).  autograd compiles nothing, so it has no row here; NumPy's row is
  the plain function, the floor.

The goals are recorded in ``extra_info`` and tracked, never asserted: a
benchmark fails only if its result is wrong.  Rounds are fixed
(``benchmark.pedantic``) so that the whole directory takes seconds.
See README.md in this directory.
"""
import numpy as np
import pytest
from bench_impls import available, load, tag

X8 = np.linspace(-2, 2, 8, dtype=np.float32)


@pytest.mark.parametrize("name", available())
def test_eager_sin(benchmark, name):
    """One eager elementwise op: the per-primitive dispatch cost."""
    impl = load(name)
    tag(benchmark, "eager_sin", "eager sin, 8 x float32", impl,
        goal={"max_s": 3e-6} if name == "refjax" else None)
    x = impl.asarray(X8)
    sin, block = impl.xnp.sin, impl.block
    result = benchmark.pedantic(lambda: block(sin(x)), rounds=100, iterations=20,
                                warmup_rounds=5)
    np.testing.assert_allclose(np.asarray(result), np.sin(X8), rtol=1e-6)


@pytest.mark.parametrize("name", available("numpy", "refjax", "jax"))
def test_jit_call(benchmark, name):
    """Calling an already-compiled function: the jit cache-hit path."""
    impl = load(name)
    tag(benchmark, "jit_call", "jit call, x * 2 + 1 on 8 x float32", impl,
        goal={"max_s": 5e-6} if name == "refjax" else None)
    x = impl.asarray(X8)
    f, block = impl.jit(lambda x: x * 2 + 1), impl.block
    block(f(x))  # trace and compile outside the measurement
    result = benchmark.pedantic(lambda: block(f(x)), rounds=100, iterations=20,
                                warmup_rounds=5)
    np.testing.assert_allclose(np.asarray(result), X8 * 2 + 1, rtol=1e-6)
