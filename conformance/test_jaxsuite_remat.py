"""Conformance: what ``jax.checkpoint`` recomputes when linearized, its trace
cache, and the residuals of linearized ``jit`` calls (SPEC AD-97..AD-102).

Recomputation is observed by counting primitives in the jaxpr of the
linearized (or VJP) function; every derivative is also checked against
NumPy or against the same function without ``checkpoint``.
"""
import contextlib
import importlib
import io
from functools import partial

import numpy as np
import pytest

TOL = dict(rtol=1e-5, atol=1e-6)


def _lin_text(jax, f, x, t=1.0):
    return str(jax.make_jaxpr(jax.linearize(f, x)[1])(t))


def _count(text, name):
    return text.count(f" {name} ")


def _save_cos(prim, *_, **__):
    return str(prim) == "cos"


@pytest.mark.spec("AD-97")
def test_unused_primal_work_is_not_recomputed(jax, jnp):
    f = jax.checkpoint(lambda x: (jnp.sin(x), jnp.exp(x)))
    text = _lin_text(jax, f, 0.7)
    assert _count(text, "sin") == 0
    assert _count(text, "cos") == 1 and _count(text, "exp") == 1
    _, f_jvp = jax.linearize(f, 0.7)
    dsin, dexp = f_jvp(2.0)
    np.testing.assert_allclose(float(dsin), 2 * np.cos(0.7), **TOL)
    np.testing.assert_allclose(float(dexp), 2 * np.exp(0.7), **TOL)


@pytest.mark.spec("AD-97")
def test_needed_chain_is_recomputed_and_grads_agree(jax, jnp):
    f = lambda x: jnp.sin(jnp.sin(x))  # noqa: E731
    text = _lin_text(jax, jax.checkpoint(f), 0.3)
    assert _count(text, "sin") == 1 and _count(text, "cos") == 2
    for order in (1, 2):
        g, h = jax.checkpoint(f), f
        for _ in range(order):
            g, h = jax.grad(g), jax.grad(h)
        np.testing.assert_allclose(float(g(0.3)), float(h(0.3)), **TOL)


@pytest.mark.spec("AD-98")
@pytest.mark.spec("AD-99")
def test_cond_branch_outputs_not_needed_are_pruned(jax, jnp):
    lax = jax.lax
    pair = lambda c: (jnp.sin(c), jnp.sin(c))  # noqa: E731
    f = jax.checkpoint(lambda x: lax.cond(x > 0.0, pair, pair, x))
    text = _lin_text(jax, f, 4.0)
    assert _count(text, "sin") == 0 and _count(text, "cos") > 0
    _, f_jvp = jax.linearize(f, 4.0)
    a, b = f_jvp(1.0)
    np.testing.assert_allclose([float(a), float(b)], [np.cos(4.0)] * 2, **TOL)


@pytest.mark.spec("AD-98")
def test_policy_applies_inside_cond(jax, jnp):
    lax = jax.lax
    f = jax.checkpoint(lambda x: lax.cond(x > 0, jnp.sin, lambda x: x, x),
                       policy=_save_cos)
    text = _lin_text(jax, f, 4.0)
    assert _count(text, "sin") == 0 and _count(text, "cos") == 0
    np.testing.assert_allclose(float(jax.grad(f)(4.0)), np.cos(4.0), **TOL)
    np.testing.assert_allclose(float(jax.grad(f)(-4.0)), 1.0, **TOL)


@pytest.mark.spec("AD-98")
def test_policy_applies_inside_scan(jax, jnp):
    lax = jax.lax
    body = lambda c, _: (jnp.sin(c), jnp.sin(c))  # noqa: E731
    scan3 = lambda x: lax.scan(body, x, None, length=3)  # noqa: E731
    text = _lin_text(jax, jax.checkpoint(scan3, policy=_save_cos), 0.5)
    assert _count(text, "sin") == 0 and _count(text, "cos") == 0
    # Saving nothing, the carry chain is recomputed: one sin stays for it
    # (the sin computing the ys is not needed), and both tangents need a cos.
    text = _lin_text(jax, jax.checkpoint(scan3), 0.5)
    assert _count(text, "sin") == 1 and _count(text, "cos") == 2
    want = jax.grad(lambda x: scan3(x)[0])(0.5)
    got = jax.grad(lambda x: jax.checkpoint(scan3, policy=_save_cos)(x)[0])(0.5)
    np.testing.assert_allclose(float(got), float(want), **TOL)
    c1 = np.sin(0.5)
    c2 = np.sin(c1)
    np.testing.assert_allclose(float(got), np.cos(c2) * np.cos(c1) * np.cos(0.5), **TOL)


@pytest.mark.spec("AD-98")
def test_policy_applies_inside_inner_jit(jax, jnp):
    @jax.custom_jvp
    def sin(x):
        return jnp.sin(x)

    @sin.defjvp
    def sin_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        y, c = jax.jit(lambda: (jnp.sin(x), jnp.cos(x)))()
        return y, c * t

    f = jax.checkpoint(sin, policy=_save_cos)
    text = _lin_text(jax, f, 1.2)
    assert _count(text, "sin") == 0 and _count(text, "cos") == 0
    f = jax.checkpoint(sin, policy=lambda prim, *_, **__: str(prim) == "sin")
    text = _lin_text(jax, f, 1.2)
    assert _count(text, "sin") == 0 and _count(text, "cos") == 1
    np.testing.assert_allclose(float(jax.grad(f)(1.2)), np.cos(1.2), **TOL)


@pytest.mark.spec("AD-98")
def test_checkpoint_dots_inside_cond(jax, jnp):
    lax = jax.lax
    x = jnp.ones((5,))
    hi = lax.Precision.HIGHEST

    def layers(W):
        def body(v):
            for _ in range(3):
                v = jnp.sin(jnp.dot(v, W, precision=hi))
            return v
        return lax.cond(x.sum() > 0, body, lambda v: v, x)

    f = jax.checkpoint(layers, policy=jax.checkpoint_policies.checkpoint_dots)
    W = jnp.asarray(np.linspace(-0.3, 0.3, 25, dtype=np.float32).reshape(5, 5))
    y, f_vjp = jax.vjp(f, W)
    text = str(jax.make_jaxpr(f_vjp)(y))
    assert _count(text, "sin") == 2 and _count(text, "cos") == 3
    assert text.count(" dot_") == 5
    ct = jnp.ones((5,))
    want = jax.vjp(layers, W)[1](ct)[0]
    np.testing.assert_allclose(np.asarray(f_vjp(ct)[0]), np.asarray(want), **TOL)


@pytest.mark.spec("AD-100")
def test_checkpoint_traces_once_per_signature(jax, jnp):
    calls = []

    @jax.checkpoint
    def g(x):
        calls.append(1)
        return jnp.sin(x) * 2.0

    for _ in range(4):
        np.testing.assert_allclose(float(g(0.5)), 2 * np.sin(0.5), **TOL)
    assert len(calls) == 1
    g(jnp.ones(3))             # a new shape is a new trace
    assert len(calls) == 2
    jax.grad(g)(0.5)           # the same signature under grad: no new trace
    assert len(calls) == 2


@pytest.mark.spec("AD-100")
def test_checkpoint_static_argnums_trace_cache(jax, jnp):
    calls = []

    @partial(jax.checkpoint, static_argnums=(1,))
    def g(x, n):
        calls.append(n)
        return x ** n

    for _ in range(3):
        assert float(g(2.0, 3)) == 8.0
    assert calls == [3]
    assert float(g(2.0, 2)) == 4.0
    assert calls == [3, 2]


def _residual_lines(jax, f, *args):
    ckpt = importlib.import_module(jax.__name__ + ".ad_checkpoint")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        ckpt.print_saved_residuals(f, *args)
    return [line for line in buf.getvalue().splitlines() if line.strip()]


@pytest.mark.spec("AD-101")
def test_jit_residuals_keep_their_origin(jax, jnp):
    @jax.jit
    def f(x, y):
        return jnp.sin(x) * y * np.array([3.0], np.float32)

    lines = _residual_lines(jax, f, 2.0, 4.0)
    assert any(line.endswith("from the argument y") for line in lines)
    assert any(line.startswith("f32[1] from a constant") for line in lines)
    assert not any("from the argument x" in line for line in lines)


@pytest.mark.spec("AD-101")
def test_remat_of_jits_saves_one_residual(jax, jnp):
    @partial(jax.checkpoint, policy=lambda *_, **__: True)
    def f(x):
        y = jnp.ones(2, "float32")
        x = jax.jit(lambda: x * y)()
        return jax.jit(lambda: x * y)()

    lines = _residual_lines(jax, f, jnp.float32(3.0))
    assert len(lines) == 1 and lines[0].startswith("f32[2] output of broadcast_in_dim")
    np.testing.assert_allclose(np.asarray(jax.jacfwd(f)(jnp.float32(3.0))), [1.0, 1.0])


@pytest.mark.spec("AD-102")
def test_linearized_function_is_a_pytree_of_residuals(jax, jnp):
    x = jnp.full((3,), 0.8, np.float32)
    _, f_jvp = jax.linearize(lambda x: jnp.sin(x) * x, x)
    leaves = jax.tree_util.tree_leaves(f_jvp)
    assert len(leaves) >= 1 and all(leaf.shape == (3,) for leaf in leaves)
    lin = jax.jit(lambda x: jax.linearize(jnp.sin, x)[1])(0.8)
    np.testing.assert_allclose(float(lin(2.0)), 2 * np.cos(0.8), **TOL)
    want = np.cos(0.8) * 0.8 + np.sin(0.8)
    np.testing.assert_allclose(np.asarray(f_jvp(jnp.ones(3))), [want] * 3, **TOL)
    jaxpr = jax.make_jaxpr(lambda x: jax.linearize(jnp.sin, x)[1])(0.8)
    assert len(jaxpr.jaxpr.outvars) >= 1
