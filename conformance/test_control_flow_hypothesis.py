"""Every control-flow construct against a plain-Python reference, on
hypothesis-drawn inputs: eagerly, under ``jit``, under ``vmap`` (batched and
unbatched predicates and bounds) and under ``jvp``/``grad``, checked with
``jax.test_util.check_grads`` where differentiable (SPEC CF-84).

Each case is a function ``f(x, p)`` of a float32 vector ``x`` and a scalar
``p`` (a predicate, index or trip count), a NumPy reference ``ref(x, p)``
written with Python control flow, and the derivative modes JAX supports
for it.  Functions are built once per implementation (real JAX compiles per
function object).
"""
import functools
import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


def _ref_while(x, n):
    i, v = 0, x
    while i < n:
        v, i = v * 0.9 + 0.1, i + 1
    return v


def _ref_fori(x, n):
    v = x
    for _ in range(n):
        v = v * 0.5 + np.sin(v)
    return v


def _ref_scan(x, p):
    c, ys = np.float32(p), []
    for xi in x:
        c, y = c * 0.5 + xi, c * xi
        ys.append(y)
    return c + np.sum(ys)


def _cases(jax, jnp):
    """name -> (f, ref, kind of p, derivative modes)."""
    lax = jax.lax
    branches = [jnp.sin, jnp.cos, lambda v: v * 2.0]
    return {
        "cond": (lambda x, p: lax.cond(p > 0, lambda v: jnp.sin(v) * p, lambda v: jnp.cos(v) - p, x),
                 lambda x, p: np.sin(x) * p if p > 0 else np.cos(x) - p, "float", ("fwd", "rev")),
        "switch": (lambda x, k: lax.switch(k, branches, x),
                   lambda x, k: [np.sin, np.cos, lambda v: v * 2.0][min(max(k, 0), 2)](x),
                   "index", ("fwd", "rev")),
        "while_loop": (lambda x, n: lax.while_loop(
                           lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 0.9 + 0.1), (0, x))[1],
                       _ref_while, "count", ("fwd",)),
        "fori_loop_traced": (lambda x, n: lax.fori_loop(0, n, lambda i, v: v * 0.5 + jnp.sin(v), x),
                             _ref_fori, "count", ("fwd",)),
        "fori_loop_static": (lambda x, p: lax.fori_loop(0, 3, lambda i, v: v * 0.5 + jnp.sin(v), x) * p,
                             lambda x, p: _ref_fori(x, 3) * p, "float", ("fwd", "rev")),
        "scan": (lambda x, p: (lambda cy: cy[0] + jnp.sum(cy[1]))(
                     lax.scan(lambda c, xi: (c * 0.5 + xi, c * xi), p, x)),
                 _ref_scan, "float", ("fwd", "rev")),
        "map": (lambda x, p: lax.map(lambda v: v ** 2 * p + 1.0, x),
                lambda x, p: np.array([v ** 2 * p + 1.0 for v in x]), "float", ("fwd", "rev")),
        "associative_scan": (lambda x, p: lax.associative_scan(jnp.add, x * p),
                             lambda x, p: np.cumsum(x * p), "float", ("fwd", "rev")),
    }


@functools.lru_cache(maxsize=None)
def _built(jax):
    jnp = jax.numpy
    cases = _cases(jax, jnp)
    return {name: (f, jax.jit(f), ref, kind, modes) for name, (f, ref, kind, modes) in cases.items()}


NAMES = ["cond", "switch", "while_loop", "fori_loop_traced", "fori_loop_static", "scan",
         "map", "associative_scan"]
VECTORS = st.lists(st.floats(-2, 2, width=32), min_size=3, max_size=3).map(
    lambda v: np.array(v, np.float32))


def _param(kind, draw_float, draw_int):
    if kind == "float":
        return np.float32(draw_float if abs(draw_float) > 0.1 else 0.5)
    if kind == "index":
        return np.int32(draw_int - 1)      # -1 .. 4: out of range is clamped
    return np.int32(draw_int)             # 0 .. 5 iterations


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float32),
                               rtol=2e-5, atol=2e-5)


@pytest.mark.spec("CF-84")
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=4, deadline=None)
@given(x=VECTORS, pf=st.floats(-1.5, 1.5), pi=st.integers(0, 5))
def test_matches_python_eagerly_and_under_jit(jax, name, x, pf, pi):
    f, jf, ref, kind, _ = _built(jax)[name]
    p = _param(kind, pf, pi)
    want = ref(x, p)
    _close(f(x, p), want)
    _close(jf(x, p), want)


@pytest.mark.spec("CF-84")
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("p_batched", [False, True])
@settings(max_examples=3, deadline=None)
@given(xs=st.lists(VECTORS, min_size=2, max_size=2),
       pfs=st.lists(st.floats(-1.5, 1.5), min_size=2, max_size=2),
       pis=st.lists(st.integers(0, 5), min_size=2, max_size=2))
def test_matches_python_under_vmap(jax, name, p_batched, xs, pfs, pis):
    f, _, ref, kind, _ = _built(jax)[name]
    ps = [_param(kind, a, b) for a, b in zip(pfs, pis)]
    if not p_batched:
        ps = [ps[0]] * len(ps)
    batched_p = np.array(ps) if p_batched else ps[0]
    got = jax.vmap(f, in_axes=(0, 0 if p_batched else None))(np.stack(xs), batched_p)
    _close(got, np.stack([ref(x, p) for x, p in zip(xs, ps)]))


@pytest.mark.spec("CF-84")
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=2, deadline=None)
@given(x=VECTORS, pf=st.floats(-1.5, 1.5), pi=st.integers(0, 5))
def test_derivatives_check_grads(jax, name, x, pf, pi):
    f, jf, _, kind, modes = _built(jax)[name]
    p = _param(kind, pf, pi)
    # cond's predicate must not flip inside the finite-difference step.
    check_grads = importlib.import_module(jax.__name__ + ".test_util").check_grads
    check_grads(lambda v: jf(v, p), (x.astype(np.float32),), order=1,
                              modes=modes, atol=5e-2, rtol=5e-2, eps=1e-3)
