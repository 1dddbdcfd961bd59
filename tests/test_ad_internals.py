"""refjax's autodiff machinery (SPEC AD-1 .. AD-5, AD-14): symbolic zeros,
partial evaluation, transposition, and differentiating ``jit`` calls."""
import numpy as np
import pytest

import refjax as jax
import refjax.numpy as jnp
from refjax._src.interpreters import ad


def _prims(closed):
    return [e.primitive.name for e in closed.jaxpr.eqns]


@pytest.mark.spec("AD-1")
def test_vjp_is_the_transpose_of_linearize():
    f = lambda x: jnp.sin(x) * x
    x = jnp.arange(3.0)
    _, f_jvp = jax.linearize(f, x)
    _, f_vjp = jax.vjp(f, x)
    ct = jnp.array([1.0, -2.0, 0.5])
    (by_transpose,) = jax.linear_transpose(f_jvp, x)(ct)
    np.testing.assert_allclose(by_transpose, f_vjp(ct)[0], rtol=1e-6)


@pytest.mark.spec("AD-2")
def test_zero_tangents_are_never_materialised():
    # Differentiating in x only: nothing about y's tangent is staged.
    outs, closed, in_linear, out_zero = ad.linearize_flat(
        lambda x, y: [jnp.sin(x) * y, jnp.cos(y)], [jnp.ones(3), jnp.int32(2)])
    assert in_linear == [True, False] and out_zero == [False, True]
    assert "broadcast_in_dim" not in _prims(closed)
    assert _prims(closed) == ["mul", "mul"]


@pytest.mark.spec("AD-4")
def test_linearize_runs_primal_work_now_and_stages_only_tangents():
    def f(x):
        return [jnp.exp(x) * 2.0]
    outs, closed, _, _ = ad.linearize_flat(f, [jnp.ones(2)])
    assert _prims(closed) == ["mul", "mul"]          # t * exp(x), then * 2
    assert len(closed.consts) == 1                    # the residual exp(x)
    np.testing.assert_allclose(closed.consts[0], np.exp(np.ones(2)), rtol=1e-6)
    np.testing.assert_allclose(outs[0], 2 * np.exp(np.ones(2)), rtol=1e-6)


@pytest.mark.spec("AD-5")
def test_backward_pass_sums_cotangents_of_shared_values():
    _, closed, _, _ = ad.linearize_flat(lambda x: [x * 3.0 + x * 4.0], [jnp.float32(1)])
    args = [ad.UndefinedPrimal(v.aval) for v in closed.jaxpr.invars]
    (ct,) = ad.backward_pass(closed.jaxpr, closed.consts, args, [jnp.float32(1)])
    assert float(ct) == 7.0
    jaxpr = jax.make_jaxpr(jax.grad(lambda x: x * 3.0 + x * 4.0))(1.0)
    assert "add_any" in [e.primitive.name for e in jaxpr.eqns]


@pytest.mark.spec("AD-5")
def test_zero_cotangents_skip_transpose_rules():
    outs, closed, _, _ = ad.linearize_flat(lambda x: [x * 2.0, jnp.sin(x)], [jnp.float32(1)])
    args = [ad.UndefinedPrimal(v.aval) for v in closed.jaxpr.invars]
    (ct,) = ad.backward_pass(closed.jaxpr, closed.consts, args,
                             [ad.Zero(closed.out_avals[0]), jnp.float32(1)])
    np.testing.assert_allclose(ct, np.cos(1.0), rtol=1e-6)


@pytest.mark.spec("AD-14")
def test_jit_derivatives_are_cached_per_jaxpr():
    f = jax.jit(lambda x: jnp.sin(x) * x)
    jax.grad(f)(1.0)
    closed = f._entry_for((1.0,), {})[0].traced.closed
    first = ad.jvp_jaxpr(closed, [True])
    assert ad.jvp_jaxpr(closed, [True]) is first
    jax.grad(f)(2.0)
    assert ad.jvp_jaxpr(closed, [True]) is first
