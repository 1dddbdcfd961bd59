"""Conformance: derivatives and edge cases of jnp.linalg's det, slogdet,
pinv and qr (SPEC NP-200 .. NP-205).

Values are compared with NumPy; derivatives with the implementation's own
``check_grads`` (numerical differences) and, at singular matrices, with the
adjugate computed here from cofactors in NumPy.
"""

import numpy as np
import pytest

R = np.random.RandomState(11)
SQ4 = R.randn(2, 4, 4) + 2 * np.eye(4)
CSQ4 = SQ4 + 1j * R.randn(2, 4, 4)


@pytest.fixture
def rank_raise(jax):
    old = jax.config.jax_numpy_rank_promotion
    jax.config.update("jax_numpy_rank_promotion", "raise")
    try:
        yield
    finally:
        jax.config.update("jax_numpy_rank_promotion", old)


def adjugate(a):
    """Transposed cofactor matrix, from minors (no division by det)."""
    n = a.shape[-1]
    cof = np.empty_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, axis=0), j, axis=1)
            cof[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return cof.T


@pytest.mark.spec("NP-200")
def test_no_implicit_rank_promotion(jax, jnp, x64, rank_raise):
    a = jnp.asarray(SQ4)
    np.testing.assert_allclose(jnp.linalg.det(a), np.linalg.det(SQ4), rtol=1e-10)
    sign, logdet = jnp.linalg.slogdet(a)
    want_sign, want_logdet = np.linalg.slogdet(SQ4)
    np.testing.assert_allclose(sign, want_sign)
    np.testing.assert_allclose(logdet, want_logdet, rtol=1e-10)
    np.testing.assert_allclose(jnp.linalg.inv(a), np.linalg.inv(SQ4), rtol=1e-8)
    g = jax.grad(lambda x: jnp.linalg.det(x).sum())(a)
    want = np.linalg.det(SQ4)[:, None, None] * np.swapaxes(np.linalg.inv(SQ4), -1, -2)
    np.testing.assert_allclose(g, want, rtol=1e-8)
    g = jax.grad(lambda x: jnp.linalg.slogdet(x)[1].sum())(a)
    np.testing.assert_allclose(g, np.swapaxes(np.linalg.inv(SQ4), -1, -2), rtol=1e-8)


@pytest.mark.spec("NP-201")
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_det_grads_nonsingular(jax, jnp, x64, test_util, n):
    a = jnp.asarray(SQ4[:, :n, :n])
    test_util.check_grads(jnp.linalg.det, (a,), 2, atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(jnp.linalg.det(a), np.linalg.det(SQ4[:, :n, :n]),
                               rtol=1e-10)


@pytest.mark.spec("NP-201")
@pytest.mark.parametrize("a", [
    [[1., 2.], [2., 4.]],
    [[50., -30., 45.], [-30., 90., -81.], [45., -81., 81.]],
    [[1., 2., 3., 4.], [2., 4., 6., 8.], [0., 1., 5., 2.], [3., 1., 0., 7.]],
])
def test_det_grad_corank1_is_adjugate(jax, jnp, x64, a):
    a = np.array(a)
    assert np.linalg.matrix_rank(a) == a.shape[-1] - 1
    g = jax.grad(jnp.linalg.det)(jnp.asarray(a))
    np.testing.assert_allclose(g, adjugate(a).T, atol=1e-8)


@pytest.mark.spec("NP-201")
@pytest.mark.parametrize("n", [2, 3, 5])
def test_det_grad_corank2_is_zero(jax, jnp, n):
    zeros = np.zeros((n, n), np.float32)
    rank1 = np.outer(np.arange(1., n + 1), np.arange(2., n + 2)).astype(np.float32)
    for a in (zeros, rank1) if n > 2 else (zeros,):
        g = jax.grad(jnp.linalg.det)(jnp.asarray(a))
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, np.zeros((n, n)), atol=1e-3)


@pytest.mark.spec("NP-201")
def test_det_jit_vmap_zero_size(jax, jnp):
    a = jnp.asarray(SQ4.astype(np.float32))
    f = jax.grad(lambda x: jnp.linalg.det(x))
    looped = np.stack([np.asarray(f(x)) for x in a])
    np.testing.assert_allclose(jax.vmap(f)(a), looped, rtol=1e-5)
    np.testing.assert_allclose(jax.jit(f)(a[0]), looped[0], rtol=1e-5)
    assert jnp.linalg.det(jnp.zeros((2, 0, 0))).tolist() == [1.0, 1.0]


@pytest.mark.spec("NP-202")
@pytest.mark.parametrize("n", [1, 2, 4])
@pytest.mark.parametrize("kind", ["real", "complex"])
def test_slogdet_grads(jax, jnp, x64, test_util, n, kind):
    a = (SQ4 if kind == "real" else CSQ4)[:, :n, :n]
    test_util.check_grads(jnp.linalg.slogdet, (jnp.asarray(a),), 2,
                          atol=1e-5, rtol=1e-5)
    sign, logdet = jnp.linalg.slogdet(jnp.asarray(a))
    want_sign, want_logdet = np.linalg.slogdet(a)
    np.testing.assert_allclose(sign, want_sign, rtol=1e-10)
    np.testing.assert_allclose(logdet, want_logdet, rtol=1e-10)


@pytest.mark.spec("NP-202")
def test_slogdet_tangent_formulas(jax, jnp, x64):
    a, da = CSQ4[0], R.randn(4, 4) + 1j * R.randn(4, 4)
    (sign, _), (sign_dot, logdet_dot) = jax.jvp(
        jnp.linalg.slogdet, (jnp.asarray(a),), (jnp.asarray(da),))
    tr = np.trace(np.linalg.solve(a, da))
    np.testing.assert_allclose(logdet_dot, tr.real, rtol=1e-10)
    np.testing.assert_allclose(sign_dot, 1j * tr.imag * np.asarray(sign), rtol=1e-10)
    _, (sign_dot, _) = jax.jvp(jnp.linalg.slogdet, (jnp.asarray(SQ4[0]),),
                               (jnp.asarray(da.real),))
    assert float(sign_dot) == 0.0


@pytest.mark.spec("NP-202")
def test_slogdet_qr_method(jax, jnp, x64):
    sign, logdet = jnp.linalg.slogdet(jnp.asarray(SQ4), method="qr")
    want_sign, want_logdet = np.linalg.slogdet(SQ4)
    np.testing.assert_allclose(sign, want_sign)
    np.testing.assert_allclose(logdet, want_logdet, rtol=1e-10)
    with pytest.raises(NotImplementedError, match="not implemented for complex"):
        jnp.linalg.slogdet(jnp.asarray(CSQ4), method="qr")
    with pytest.raises(ValueError, match="must have shape"):
        jnp.linalg.slogdet(jnp.ones((2, 3)), method="bad")


@pytest.mark.spec("NP-203")
def test_error_order(jax, jnp):
    sds = jax.ShapeDtypeStruct((2,), np.float32)
    for fun, msg in [(jnp.linalg.det, r"Argument to _det\(\) must have shape"),
                     (jnp.linalg.slogdet, r"Argument to slogdet\(\) must have shape"),
                     (jnp.linalg.inv, r"Argument to inv must have shape")]:
        with pytest.raises(ValueError, match=msg):
            fun(sds)
        with pytest.raises(TypeError):
            fun(jax.ShapeDtypeStruct((2, 2), np.float32))
    key = jax.random.key(0)
    keys = jax.random.split(key, 4).reshape(2, 2)
    for fun in (jnp.linalg.det, jnp.linalg.slogdet):
        for k in (key, keys):
            with pytest.raises(TypeError):
                fun(k)
    with pytest.raises(ValueError, match=r"must have shape \[..., n, n\], got \(\)\."):
        jnp.linalg.inv(key)
    with pytest.raises(ValueError, match="Cannot convert_element_type"):
        jnp.linalg.inv(keys)


@pytest.mark.spec("NP-204")
def test_pinv_grad_rank_deficient(jax, jnp):
    def f(p):
        a = jnp.array([[0., 0.], [-p, 1.]], jnp.float32) / (1 + p ** 2)
        return jnp.linalg.pinv(a)
    j = jax.jacobian(f)(jnp.float32(2.))
    np.testing.assert_allclose(j, [[0., -1.], [0., 0.]], atol=1e-5)
    j = jax.jacobian(jnp.linalg.pinv)(jnp.eye(2, dtype=jnp.float32))
    want = -np.einsum("ik,jl->ijkl", np.eye(2), np.eye(2))
    np.testing.assert_allclose(j, want, atol=1e-5)


@pytest.mark.spec("NP-204")
@pytest.mark.parametrize("shape, hermitian", [((3, 3), False), ((4, 2), False),
                                             ((2, 4), False), ((3, 3), True)])
def test_pinv_grads(jax, jnp, x64, test_util, shape, hermitian):
    a = R.randn(*shape) + np.eye(*shape)
    if hermitian:
        a = a + a.T + 3 * np.eye(shape[0])
    f = lambda x: jnp.linalg.pinv(x, hermitian=hermitian)
    test_util.check_grads(f, (jnp.asarray(a),), 1, atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(f(jnp.asarray(a)), np.linalg.pinv(a), rtol=1e-8)
    with pytest.raises(TypeError):
        jnp.linalg.pinv(jnp.asarray(a), rtol="x")


@pytest.mark.spec("NP-205")
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (3, 3), (2, 3, 2)])
def test_qr_raw(jax, jnp, shape):
    a = R.randn(*shape).astype(np.float32)
    h, tau = jnp.linalg.qr(jnp.asarray(a), mode="raw")
    want_h, want_tau = np.linalg.qr(a.astype(np.float64), mode="raw")
    assert h.shape == want_h.shape and tau.shape == want_tau.shape
    assert h.dtype == tau.dtype == np.float32
    np.testing.assert_allclose(h, want_h, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(tau, want_tau, rtol=1e-4, atol=1e-5)
    h2, tau2 = jax.jit(lambda x: jnp.linalg.qr(x, mode="raw"))(jnp.asarray(a))
    np.testing.assert_allclose(h2, h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tau2, tau, rtol=1e-5, atol=1e-6)
