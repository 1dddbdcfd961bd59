"""Dispatch micro-benchmarks: refjax next to NumPy and (when installed) JAX.

Three measurements, each run for every available implementation in the same
session and grouped (``benchmark.group``) so that the ratios are visible:

* eager ``jnp.sin`` on 8 float32 values (refjax goal: <= 5 us per call);
* a call of a warmed-up ``jit(lambda x: x * 2 + 1)`` on 8 values (goal: <= 8 us);
* the first call (trace + compile + run) of a 3-layer MLP, with caches
  cleared and a fresh ``jit`` every round.

The goals are recorded in ``extra_info`` and tracked, never asserted: a
benchmark fails only if its result is wrong.  Rounds are fixed
(``benchmark.pedantic``) so that the whole directory takes a few seconds.
See README.md in this directory.
"""
import importlib.util

import numpy as np
import pytest


class NumpyImpl:
    """The same work written directly in NumPy: the floor for refjax."""

    name = "numpy"
    jnp = np

    @staticmethod
    def asarray(x):
        return np.asarray(x)

    @staticmethod
    def jit(fun):
        return fun  # nothing to compile

    @staticmethod
    def clear_caches():
        pass

    @staticmethod
    def block(x):
        return x


class JaxLikeImpl:
    """refjax or JAX: ``jax.numpy``, ``jax.jit`` and ``block_until_ready``."""

    def __init__(self, module_name):
        self.name = module_name
        self.jax = importlib.import_module(module_name)
        self.jnp = importlib.import_module(module_name + ".numpy")
        self.jit = self.jax.jit
        self.clear_caches = self.jax.clear_caches

    def asarray(self, x):
        return self.jnp.asarray(x)

    @staticmethod
    def block(x):
        return x.block_until_ready()


def _available():
    impls = ["refjax", "numpy"]
    if importlib.util.find_spec("jax") is not None:
        impls.append("jax")
    return impls


@pytest.fixture(params=_available(), scope="module")
def impl(request):
    if request.param == "numpy":
        return NumpyImpl()
    return JaxLikeImpl(request.param)


# Goals for refjax, in microseconds per call (tracked, not asserted).
GOALS_US = {"eager_sin": 5.0, "jit_call": 8.0}

X8 = np.linspace(-2, 2, 8, dtype=np.float32)


def _tag(benchmark, impl, group, goal_key=None):
    benchmark.group = group
    benchmark.extra_info["implementation"] = impl.name
    if goal_key is not None and impl.name == "refjax":
        benchmark.extra_info["goal_us"] = GOALS_US[goal_key]


def test_eager_sin(benchmark, impl):
    """(a) One eager elementwise op: the per-primitive dispatch cost."""
    _tag(benchmark, impl, "eager sin, 8 x float32", "eager_sin")
    x = impl.asarray(X8)
    sin = impl.jnp.sin
    block = impl.block
    result = benchmark.pedantic(lambda: block(sin(x)), rounds=100, iterations=20,
                                warmup_rounds=5)
    np.testing.assert_allclose(np.asarray(result), np.sin(X8), rtol=1e-6)


def test_jit_call(benchmark, impl):
    """(b) Calling an already-compiled function: the jit cache-hit path."""
    _tag(benchmark, impl, "jit call, x * 2 + 1 on 8 x float32", "jit_call")
    x = impl.asarray(X8)
    f = impl.jit(lambda x: x * 2 + 1)
    block = impl.block
    block(f(x))  # trace and compile outside the measurement
    result = benchmark.pedantic(lambda: block(f(x)), rounds=100, iterations=20,
                                warmup_rounds=5)
    np.testing.assert_allclose(np.asarray(result), X8 * 2 + 1, rtol=1e-6)


def _mlp_params(rng):
    sizes = [(32, 64), (64, 64), (64, 32)]
    return [(rng.standard_normal(shape).astype(np.float32) / np.sqrt(shape[0]),
             rng.standard_normal(shape[1]).astype(np.float32) * 0.1) for shape in sizes]


def _mlp(jnp, params, x):
    """dense -> tanh -> dense -> relu -> dense."""
    (w1, b1), (w2, b2), (w3, b3) = params
    h = jnp.tanh(jnp.dot(x, w1) + b1)
    h = jnp.maximum(jnp.dot(h, w2) + b2, 0)
    return jnp.dot(h, w3) + b3


def test_mlp_first_call(benchmark, impl):
    """(c) Trace + compile + run of a fresh jit of a 3-layer MLP, each round."""
    _tag(benchmark, impl, "first call of jit(3-layer MLP), 8 x 32 -> 64 -> 64 -> 32")
    rng = np.random.default_rng(0)
    host_params = _mlp_params(rng)
    host_x = rng.standard_normal((8, 32)).astype(np.float32)
    params = [(impl.asarray(w), impl.asarray(b)) for w, b in host_params]
    x = impl.asarray(host_x)
    jnp = impl.jnp
    block = impl.block

    def fresh_function():
        impl.clear_caches()
        return (impl.jit(lambda p, x: _mlp(jnp, p, x)),), {}

    result = benchmark.pedantic(lambda f: block(f(params, x)), setup=fresh_function,
                                rounds=5, iterations=1, warmup_rounds=1)
    expected = _mlp(np, [(w.astype(np.float64), b.astype(np.float64)) for w, b in host_params],
                    host_x.astype(np.float64))
    np.testing.assert_allclose(np.asarray(result), expected, rtol=2e-4, atol=2e-5)
