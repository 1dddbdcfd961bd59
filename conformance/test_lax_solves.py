"""Conformance: ``lax.custom_linear_solve`` and ``lax.custom_root``
(SPEC LXM-11..13).

References are NumPy's ``linalg.solve`` and closed-form derivatives of the
solution (``d(A^-1 b) = A^-1 (db - dA x)``; ``d sqrt(a) = 1 / (2 sqrt a)``).
"""
import numpy as np
import pytest

A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], np.float32)
ASYM = np.array([[3.0, 1.0], [0.5, 2.0]], np.float32)
TOL = dict(rtol=1e-5, atol=1e-5)


def _solver(jnp, a):
    return lambda matvec, b: jnp.linalg.solve(a, b)


def _lsolve(jax, jnp, a, b, **kw):
    return jax.lax.custom_linear_solve(lambda x: a @ x, b, _solver(jnp, a), **kw)


@pytest.mark.spec("LXM-11")
def test_custom_linear_solve_values_and_pytrees(jax, jnp):
    b = np.array([1.0, 2.0, 3.0], np.float32)
    x = _lsolve(jax, jnp, jnp.asarray(A), jnp.asarray(b))
    np.testing.assert_allclose(x, np.linalg.solve(A, b), **TOL)
    assert x.dtype == np.float32
    # A pytree right-hand side: two independent 1-d systems in a dict.
    tree = {"u": jnp.asarray(b[:2]), "v": jnp.asarray(b)}

    def matvec(t):
        return {"u": jnp.asarray(ASYM) @ t["u"], "v": jnp.asarray(A) @ t["v"]}

    def solve(_, t):
        return {"u": jnp.linalg.solve(ASYM, t["u"]), "v": jnp.linalg.solve(A, t["v"])}
    out = jax.lax.custom_linear_solve(matvec, tree, solve)
    np.testing.assert_allclose(out["u"], np.linalg.solve(ASYM, b[:2]), **TOL)
    np.testing.assert_allclose(out["v"], np.linalg.solve(A, b), **TOL)


@pytest.mark.spec("LXM-11")
def test_custom_linear_solve_has_aux_and_errors(jax, jnp):
    b = jnp.asarray(np.array([1.0, 2.0], np.float32))
    x, aux = jax.lax.custom_linear_solve(
        lambda x: ASYM @ x, b, lambda m, c: (jnp.linalg.solve(ASYM, c), {"n": jnp.int32(3)}),
        has_aux=True)
    np.testing.assert_allclose(x, np.linalg.solve(ASYM, np.asarray(b)), **TOL)
    assert int(aux["n"]) == 3
    with pytest.raises(ValueError, match="output shapes must match b"):
        jax.lax.custom_linear_solve(lambda x: 2 * x, b, lambda m, c: c[0])
    with pytest.raises(TypeError, match="output pytree structure must match b"):
        jax.lax.custom_linear_solve(lambda x: 2 * x, b, lambda m, c: [c])
    with pytest.raises(ValueError, match="output shapes must match b"):
        jax.lax.custom_linear_solve(lambda x: 2 * x, b, lambda m, c: (c, c))
    with pytest.raises(ValueError):
        jax.lax.custom_linear_solve(lambda x: 2 * x, b, lambda m, c: c / 2, has_aux=True)


@pytest.mark.spec("LXM-12")
def test_custom_linear_solve_derivatives(jax, jnp):
    b = np.array([1.0, -2.0, 0.5], np.float32)
    a_inv = np.linalg.inv(A.astype(np.float64))
    # d x / d b = A^-1 (forward and reverse; symmetric A).
    jac = jax.jacfwd(lambda b: _lsolve(jax, jnp, jnp.asarray(A), b))(jnp.asarray(b))
    np.testing.assert_allclose(jac, a_inv, **TOL)
    jac_r = jax.jacrev(lambda b: _lsolve(jax, jnp, jnp.asarray(A), b, symmetric=True))(
        jnp.asarray(b))
    np.testing.assert_allclose(jac_r, a_inv, **TOL)
    # In the matrix: d x = -A^-1 dA x, so grad of sum(x) wrt A is -(A^-T 1) x^T.
    x = a_inv @ b
    want = -np.outer(np.linalg.solve(ASYM.T.astype(np.float64), np.ones(2)),
                     np.linalg.solve(ASYM.astype(np.float64), b[:2]))
    grad = jax.grad(lambda a: _lsolve(
        jax, jnp, a, jnp.asarray(b[:2]),
        transpose_solve=lambda m, c: jnp.linalg.solve(a.T, c)).sum())(jnp.asarray(ASYM))
    np.testing.assert_allclose(grad, want, rtol=1e-4, atol=1e-5)
    jt = jax.jacfwd(lambda a: _lsolve(jax, jnp, a, jnp.asarray(b)))(jnp.asarray(A))
    np.testing.assert_allclose(np.einsum("ijk,jk->i", np.asarray(jt), np.eye(3)),
                               -a_inv @ x, rtol=1e-4, atol=1e-5)


@pytest.mark.spec("LXM-12")
def test_custom_linear_solve_transpose_needs_transpose_solve(jax, jnp):
    with pytest.raises(TypeError, match="transpose_solve required"):
        jax.grad(lambda b: jax.lax.custom_linear_solve(
            lambda x: 2 * x, b, lambda m, c: c / 2))(1.0)


@pytest.mark.spec("LXM-12")
def test_custom_linear_solve_check_grads_and_vmap(jax, jnp):
    from importlib import import_module
    check_grads = import_module(jax.__name__ + ".test_util").check_grads
    b = jnp.asarray(np.array([1.0, 2.0, 3.0], np.float32))
    check_grads(lambda b: _lsolve(jax, jnp, jnp.asarray(A), b, symmetric=True), (b,),
                order=2, modes=["fwd", "rev"], atol=1e-2, rtol=1e-2)
    bs = np.stack([np.arange(3.0), np.ones(3)]).astype(np.float32)
    out = jax.vmap(lambda b: _lsolve(jax, jnp, jnp.asarray(A), b))(jnp.asarray(bs))
    np.testing.assert_allclose(out, [np.linalg.solve(A, r) for r in bs], **TOL)
    mats = np.stack([A, 2 * A])
    out = jax.vmap(lambda a: _lsolve(jax, jnp, a, b))(jnp.asarray(mats))
    np.testing.assert_allclose(out, [np.linalg.solve(m, np.asarray(b)) for m in mats], **TOL)


@pytest.mark.spec("LXM-12")
def test_custom_linear_solve_jaxpr(jax, jnp):
    text = str(jax.make_jaxpr(lambda b: jax.lax.custom_linear_solve(
        lambda x: 2 * x, b, lambda m, c: c / 2, symmetric=True))(1.0))
    assert ("const_lengths=_LinearSolveTuple(matvec=0, vecmat=0, solve=0, "
            "transpose_solve=0)") in text
    assert ("jaxprs=_LinearSolveTuple(matvec={ lambda ; a:f32[]. let b:f32[] = mul 2.0:f32[] "
            "a in (b,) }, vecmat={ lambda ; a:f32[]. let b:f32[] = mul 2.0:f32[] a in (b,) }, "
            "solve={ lambda ; a:f32[]. let b:f32[] = div a 2.0:f32[] in (b,) }") in text
    # A concrete matrix closed over becomes an operand (a const of the outer jaxpr).
    a = jnp.asarray(ASYM)
    jaxpr = jax.make_jaxpr(lambda b: jax.lax.custom_linear_solve(
        lambda x: a @ x, b, lambda m, c: c / 2, transpose_solve=lambda m, c: c / 3))(
        jnp.ones(2))
    text = str(jaxpr)
    assert "const_lengths=_LinearSolveTuple(matvec=1, vecmat=1, solve=0" in text
    assert text.startswith("{ lambda a:f32[2,2]; b:f32[2]. let")
    assert jax.lax.linear_solve_p.name == "custom_linear_solve"


def _sqrt_root(jax, jnp, a):
    def f(x):
        return x ** 2 - a

    def solve(g, y):
        return jax.lax.fori_loop(0, 30, lambda i, x: x - g(x) / (2 * x), y)
    return jax.lax.custom_root(f, 1.0, solve, lambda g, y: y / g(1.0))


@pytest.mark.spec("LXM-13")
def test_custom_root_values_and_derivatives(jax, jnp):
    np.testing.assert_allclose(_sqrt_root(jax, jnp, 2.0), np.sqrt(2.0), rtol=1e-6)
    g = jax.grad(lambda a: _sqrt_root(jax, jnp, a))(2.0)
    np.testing.assert_allclose(g, 0.5 / np.sqrt(2.0), rtol=1e-5)
    np.testing.assert_allclose(jax.jacfwd(lambda a: _sqrt_root(jax, jnp, a))(4.0), 0.25,
                               rtol=1e-5)
    out = jax.vmap(lambda a: _sqrt_root(jax, jnp, a))(jnp.asarray([4.0, 9.0]))
    np.testing.assert_allclose(out, [2.0, 3.0], rtol=1e-6)


@pytest.mark.spec("LXM-13")
def test_custom_root_jaxpr_and_errors(jax, jnp):
    text = str(jax.make_jaxpr(lambda a: _sqrt_root(jax, jnp, a))(2.0))
    assert "custom_jvp_call[\n      name=_custom_root" in text
    assert "jvp=_root_jvp" in text and "symbolic_zeros=False" in text
    with pytest.raises(TypeError, match="output pytree structure must match"):
        jax.lax.custom_root(lambda x: (x, x), 1.0, lambda f, x: x, lambda g, y: y)
    with pytest.raises(TypeError, match="output pytree structure must match"):
        jax.lax.custom_root(lambda x: x, 1.0, lambda f, x: (x, x), lambda g, y: y)
    with pytest.raises(ValueError, match="has_aux was set to True"):
        jax.lax.custom_root(lambda x: x, 1.0, lambda f, x: x, lambda g, y: y, has_aux=True)


@pytest.mark.spec("LXM-13")
def test_custom_root_has_aux(jax, jnp):
    def solve(f, x0):
        x = jax.lax.fori_loop(0, 30, lambda i, x: x - f(x) / (2 * x), x0)
        return x, jnp.float32(30)
    root = lambda a: jax.lax.custom_root(  # noqa: E731
        lambda x: x ** 2 - a, 1.0, solve, lambda g, y: y / g(1.0), has_aux=True)
    x, n = root(9.0)
    np.testing.assert_allclose(x, 3.0, rtol=1e-6)
    assert float(n) == 30
    np.testing.assert_allclose(jax.grad(lambda a: root(a)[0])(9.0), 1 / 6, rtol=1e-5)
