"""Weak types are part of every cache key (SPEC JIT-2, DT-3).

A jitted function or an eager operation first called with weakly typed
arrays and then with strongly typed ones of the same shape and dtype must
give each call its own weak type.  Found by the mutation tool
(tests/mutation: jit-fast-key-weak, jit-eager-sig-weak).
"""
import numpy as np
import pytest


def _weak(jax, jnp, shape):
    """A weakly typed float32 array of ``shape``."""
    w = jax.lax.broadcast(jnp.asarray(1.5), shape)
    assert w.weak_type and w.dtype == jnp.float32
    return w


def _strong(jnp, shape):
    s = jnp.full(shape, 1.5, dtype=jnp.float32)
    assert not s.weak_type
    return s


@pytest.mark.spec("JIT-2")
@pytest.mark.parametrize("weak_first", [True, False])
def test_jit_retraces_for_a_new_weak_type(jax, jnp, weak_first):
    f = jax.jit(lambda x: x * 2.0)
    w, s = _weak(jax, jnp, (3, 11)), _strong(jnp, (3, 11))
    order = [(w, True), (s, False)] if weak_first else [(s, False), (w, True)]
    for x, weak in order + order:
        out = f(x)
        assert out.weak_type is weak and out.dtype == jnp.float32
        np.testing.assert_array_equal(np.asarray(out), np.full((3, 11), 3.0, np.float32))
    assert f._cache_size() == 2


@pytest.mark.spec("DT-3")
@pytest.mark.parametrize("weak_first", [True, False])
def test_eager_operations_keep_each_calls_weak_type(jax, jnp, weak_first):
    shape = (5, 13) if weak_first else (7, 13)   # fresh signatures per case
    w, s = _weak(jax, jnp, shape), _strong(jnp, shape)
    order = [(w, True), (s, False)] if weak_first else [(s, False), (w, True)]
    for x, weak in order + order:
        for op in (jax.lax.add, jax.lax.mul, jax.lax.max):
            assert op(x, x).weak_type is weak, op
        assert jax.lax.neg(x).weak_type is weak


@pytest.mark.spec("DT-3")
@pytest.mark.parametrize("weak_first", [True, False])
def test_eager_operations_on_fresh_scalars(jax, jnp, weak_first):
    """Scalars straight from ``asarray`` (a Python float is weak, a NumPy
    scalar strong) alternate through the same operations."""
    fresh = [(lambda: jnp.asarray(1.5), True), (lambda: jnp.asarray(np.float32(1.5)), False)]
    if not weak_first:
        fresh.reverse()
    for make, weak in fresh + fresh:
        for op in (jax.lax.add, jax.lax.sub, jax.lax.mul):
            x = make()
            assert x.weak_type is weak
            out = op(x, make())
            assert out.weak_type is weak and out.dtype == jnp.float32, op
