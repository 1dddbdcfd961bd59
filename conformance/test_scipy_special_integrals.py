"""Conformance: ``jax.scipy.special`` part 2 -- the Faddeeva family, the
exponential, sine/cosine and Fresnel integrals, Spence's function and the
spherical harmonics (SPEC SPC-30 .. SPC-38).

References come from SciPy in float64 (or from identities computed here);
float32 results are compared with a few units of float32 rounding.
"""

import numpy as np
import pytest
import scipy.special as osp

F32 = dict(rtol=2e-5, atol=1e-6)
F64 = dict(rtol=1e-12, atol=1e-14)


def f32(values):
    return np.asarray(values, np.float32)


def check(actual, expected, dtype, tol=F32):
    assert actual.dtype == dtype
    assert not actual.weak_type
    np.testing.assert_allclose(np.asarray(actual), expected, **tol)


REAL = f32([-7.5, -3.0, -0.4, 0.0, 0.3, 1.0, 2.9, 3.3, 5.0, 6.5, 12.0])


# -- SPC-30 ---------------------------------------------------------------------

@pytest.mark.spec("SPC-30")
def test_promotion_and_strong_results(jax, jnp, special):
    for name in ["dawsn", "erfcx", "expi", "exp1"]:
        fun = getattr(special, name)
        out = fun(1.0)
        assert out.dtype == np.float32 and not out.weak_type, name
        with pytest.raises(TypeError):
            fun([1.0])
    assert special.dawsn(2).dtype == special.erfcx(True).dtype == np.float32
    assert special.wofz(1.0).dtype == np.complex64
    assert special.wofz(np.int32(1)).dtype == np.complex64
    s, c = special.sici(2)
    assert s.dtype == c.dtype == np.float32 and not s.weak_type
    assert special.expn(3, [1.0]).shape == (1,)


@pytest.mark.spec("SPC-30")
def test_complex_rejected(special):
    z = np.complex64(1 + 1j)
    for name in ["dawsn", "expi", "exp1"]:
        with pytest.raises(ValueError, match=f"{name} does not support complex-valued"):
            getattr(special, name)(z)
    with pytest.raises(ValueError, match="expn does not support complex-valued"):
        special.expn(1, z)


@pytest.mark.spec("SPC-30")
def test_half_precision(jnp, special):
    x = np.array([0.5, 1.5, 3.0], np.float16)
    for name, ref in [("dawsn", osp.dawsn), ("erfcx", osp.erfcx)]:
        out = getattr(special, name)(x)
        assert out.dtype == np.float16
        np.testing.assert_allclose(np.asarray(out, np.float64), ref(x.astype(np.float64)),
                                   rtol=2e-3)
    bf = jnp.asarray(np.array([0.5, 2.0], np.float32)).astype(jnp.bfloat16)
    s, c = special.fresnel(bf)
    assert s.dtype == c.dtype == jnp.bfloat16
    ref_s, ref_c = osp.fresnel(np.array([0.5, 2.0]))
    np.testing.assert_allclose(np.asarray(s, np.float32), ref_s, rtol=1e-2)
    np.testing.assert_allclose(np.asarray(c, np.float32), ref_c, rtol=1e-2)


# -- SPC-31 ---------------------------------------------------------------------

Z = (np.array([0.3, -1.2, 2.5, -4.0, 0.0, 6.0, -0.7, 1.5])
     + 1j * np.array([0.2, 1.1, -0.8, -2.5, 3.0, 0.5, -0.1, 4.0]))


@pytest.mark.spec("SPC-31")
def test_wofz(jax, special):
    z = Z.astype(np.complex64)
    check(special.wofz(z), osp.wofz(Z), np.complex64, dict(rtol=2e-5, atol=0))
    check(special.wofz(REAL), osp.wofz(REAL.astype(np.float64)), np.complex64,
          dict(rtol=2e-5, atol=1e-7))
    jax.config.update("jax_enable_x64", True)
    check(special.wofz(Z), osp.wofz(Z), np.complex128, dict(rtol=1e-12, atol=0))


@pytest.mark.spec("SPC-31")
def test_erfcx(jax, special):
    x = np.concatenate([REAL, f32([10.0, 20.0, 50.0, 100.0])])
    check(special.erfcx(x), osp.erfcx(x.astype(np.float64)), np.float32)
    edges = np.asarray(special.erfcx(f32([-np.inf, np.inf, np.nan])))
    assert edges[0] == np.inf and edges[1] == 0 and np.isnan(edges[2])
    check(special.erfcx(Z.astype(np.complex64)), osp.erfcx(Z), np.complex64,
          dict(rtol=2e-5, atol=0))
    jax.config.update("jax_enable_x64", True)
    x64 = np.array([-3.0, 0.1, 1.0, 5.0, 26.0, 27.0, 100.0, 500.0])
    check(special.erfcx(x64), osp.erfcx(x64), np.float64, F64)


# -- SPC-32 ---------------------------------------------------------------------

@pytest.mark.spec("SPC-32")
def test_dawsn(jax, special):
    x = np.concatenate([REAL, f32([-6.25, -3.25, 3.25, 6.25, 100.0])])
    check(special.dawsn(x), osp.dawsn(x.astype(np.float64)), np.float32)
    edges = np.asarray(special.dawsn(f32([np.inf, -np.inf, np.nan])))
    assert edges[0] == 0 and edges[1] == 0 and np.isnan(edges[2])
    jax.config.update("jax_enable_x64", True)
    x64 = np.array([-10.0, -1.0, 0.5, 3.2, 4.0, 7.0, 1e3])
    check(special.dawsn(x64), osp.dawsn(x64), np.float64, F64)


# -- SPC-33 ---------------------------------------------------------------------

@pytest.mark.spec("SPC-33")
def test_expi(jax, special):
    # One point in each interval of the approximation, and negative ones.
    x = f32([0.01, 1.0, 3.0, 6.0, 12.0, 24.0, 48.0, 80.0, -0.3, -2.0, -20.0])
    check(special.expi(x), osp.expi(x.astype(np.float64)), np.float32)
    assert np.isnan(np.asarray(special.expi(f32([0.0, np.inf, -np.inf, np.nan])))).all()
    jax.config.update("jax_enable_x64", True)
    x64 = np.array([0.5, 2.5, 5.0, 9.0, 20.0, 40.0, 90.0, -1.5])
    check(special.expi(x64), osp.expi(x64), np.float64, F64)


# -- SPC-34 ---------------------------------------------------------------------

@pytest.mark.spec("SPC-34")
def test_expn(jax, special):
    n = np.array([0, 1, 1, 2, 3, 4, 2, 5, 1])
    x = f32([0.5, 0.01, 0.9, 0.5, 1.5, 3.0, 7.0, 0.2, 20.0])
    check(special.expn(n, x), osp.expn(n, x.astype(np.float64)), np.float32)
    n_edge = np.array([-1, 2, 0, 1, 2, 3])
    x_edge = f32([1.0, -1.0, 0.0, 0.0, 0.0, 0.0])
    out = np.asarray(special.expn(n_edge, x_edge))
    np.testing.assert_array_equal(out[:4], f32([np.nan, np.nan, np.inf, np.inf]))
    if jax.__name__ == "refjax":
        # E_n(0) = 1/(n-1) as in SciPy; JAX 0.10.2 returns 1/n (SPEC SPC-34).
        np.testing.assert_array_equal(out[4:], osp.expn(n_edge[4:], 0.0))
    check(special.expn(6000, f32([0.5])), osp.expn(6000, [0.5]), np.float32)


@pytest.mark.spec("SPC-34")
def test_exp1_and_vmap(jax, special):
    x = f32([1e-3, 0.3, 1.0, 2.0, 15.0])
    check(special.exp1(x), osp.exp1(x.astype(np.float64)), np.float32)
    # (Alone: batched with x > 1, a tiny x makes JAX's continued fraction
    # iterate ~1/x times.)
    check(special.exp1(np.float32(1e-8)), osp.exp1(1e-8), np.float32)
    out = np.asarray(special.exp1(f32([0.0, np.inf, -1.0])))
    assert out[0] == np.inf and np.isnan(out[1:]).all()
    xs = f32([0.4, 2.5])
    batched = jax.vmap(lambda v: special.expn(2, v))(xs)
    np.testing.assert_allclose(np.asarray(batched),
                               [float(special.expn(2, v)) for v in xs], rtol=1e-5)
    jax.config.update("jax_enable_x64", True)
    x64 = np.array([0.05, 0.8, 3.0, 30.0])
    check(special.expn(3, x64), osp.expn(3, x64), np.float64, F64)


# -- SPC-35 ---------------------------------------------------------------------

@pytest.mark.spec("SPC-35")
def test_spence(jax, special):
    x = f32([0.0, 0.1, 0.4, 0.5, 0.9, 1.0, 1.2, 1.6, 2.0, 2.5, 10.0, 1e4])
    check(special.spence(x), osp.spence(x.astype(np.float64)), np.float32)
    assert np.isnan(np.asarray(special.spence(f32([-1.0, -1e-3, np.inf])))).all()
    check(special.spence([0.5, 3.0]), osp.spence([0.5, 3.0]), np.float32)
    for bad in [np.int32(2), np.float16(0.5), np.complex64(1)]:
        with pytest.raises(TypeError, match="is not supported, see docstring"):
            special.spence(bad)
    jax.config.update("jax_enable_x64", True)
    x64 = np.array([0.05, 0.7, 1.3, 1.8, 4.0, 100.0])
    check(special.spence(x64), osp.spence(x64), np.float64, F64)


# -- SPC-36 ---------------------------------------------------------------------

@pytest.mark.spec("SPC-36")
def test_sici(jax, special):
    x = f32([0.5, 2.0, 4.0, 4.5, 7.9, 8.0, 30.0, 1e3, 2e9])
    si, ci = special.sici(x)
    ref_si, ref_ci = osp.sici(x.astype(np.float64))
    check(si, ref_si, np.float32)
    check(ci, ref_ci, np.float32)
    si_neg, ci_neg = special.sici(-x)
    np.testing.assert_allclose(np.asarray(si_neg), -ref_si, **F32)
    np.testing.assert_allclose(np.asarray(ci_neg), ref_ci, **F32)   # even in x
    si_e, ci_e = special.sici(f32([0.0, np.inf, -np.inf]))
    np.testing.assert_allclose(np.asarray(si_e), [0.0, np.pi / 2, -np.pi / 2], rtol=1e-7)
    ci_e = np.asarray(ci_e)
    assert ci_e[0] == -np.inf and ci_e[1] == 0 and np.isnan(ci_e[2])
    with pytest.raises(ValueError, match="Argument `x` to sici must be real-valued."):
        special.sici(np.complex64(1))
    jax.config.update("jax_enable_x64", True)
    x64 = np.array([0.1, 3.0, 5.0, 12.0, 1e5])
    si64, ci64 = special.sici(x64)
    check(si64, osp.sici(x64)[0], np.float64, F64)
    check(ci64, osp.sici(x64)[1], np.float64, F64)


# -- SPC-37 ---------------------------------------------------------------------

@pytest.mark.spec("SPC-37")
def test_fresnel(jax, special):
    x = f32([-3.5, -0.2, 0.0, 0.7, 1.5, 1.7, 5.0, 25.0, 4e4])
    s, c = special.fresnel(x)
    ref_s, ref_c = osp.fresnel(x.astype(np.float64))
    check(s, ref_s, np.float32)
    check(c, ref_c, np.float32)
    s_e, c_e = special.fresnel(f32([np.inf, -np.inf]))
    np.testing.assert_array_equal(np.asarray(s_e), [0.5, -0.5])
    np.testing.assert_array_equal(np.asarray(c_e), [0.5, -0.5])
    with pytest.raises(NotImplementedError, match="complex-valued inputs"):
        special.fresnel(np.complex64(1))
    jax.config.update("jax_enable_x64", True)
    x64 = np.array([0.3, 1.5, 2.0, 7.5, 100.0, 5e4])
    s64, c64 = special.fresnel(x64)
    check(s64, osp.fresnel(x64)[0], np.float64, F64)
    check(c64, osp.fresnel(x64)[1], np.float64, F64)


# -- SPC-38 ---------------------------------------------------------------------

@pytest.mark.spec("SPC-38")
def test_sph_harm_y(jax, jnp, special):
    m = np.array([0, -1, 2, -3, 3, 1], np.int32)
    n = np.array([0, 2, 2, 3, 5, 4], np.int32)
    theta = np.linspace(0.2, 2.9, 6)
    phi = np.linspace(-1.0, 5.0, 6)
    out = special.sph_harm_y(n, m, theta, phi)
    check(out, osp.sph_harm_y(n, m, theta, phi), np.complex64, dict(rtol=1e-5, atol=1e-6))
    jitted = jax.jit(special.sph_harm_y, static_argnames="n_max")(n, m, theta, phi, n_max=5)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(out), rtol=1e-6, atol=1e-7)
    # A scalar theta is one point for every (n, m), and n_max clips the degrees.
    scalar = special.sph_harm_y(n[:1], m[:1], 0.7, phi[:1])
    np.testing.assert_allclose(np.asarray(scalar), osp.sph_harm_y(0, 0, 0.7, phi[0]),
                               rtol=1e-6)
    clipped = special.sph_harm_y(np.array([4]), np.array([1]), theta[:1], phi[:1], n_max=2)
    np.testing.assert_allclose(np.asarray(clipped), osp.sph_harm_y(2, 1, theta[0], phi[0]),
                               rtol=1e-5)
    with pytest.raises(NotImplementedError, match="diff_n"):
        special.sph_harm_y(n, m, theta, phi, diff_n=1)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(special.sph_harm_y)(n, m, theta, phi)
    jax.config.update("jax_enable_x64", True)
    out64 = special.sph_harm_y(n, m, theta, phi)
    check(out64, osp.sph_harm_y(n, m, theta, phi), np.complex128, F64)


# -- derivatives (SPC-31 .. SPC-37) ---------------------------------------------

@pytest.mark.spec("SPC-31")
def test_faddeeva_derivatives(jax, special, test_util):
    z = np.complex64(0.4 + 0.6j)
    _, tangent = jax.jvp(special.wofz, (z,), (np.complex64(1),))
    expected = -2 * complex(z) * osp.wofz(complex(z)) + 2j / np.sqrt(np.pi)
    np.testing.assert_allclose(complex(tangent), expected, rtol=1e-5)
    x = f32([-1.5, 0.3, 2.0, 12.0])
    grad = jax.vmap(jax.grad(special.erfcx))(x)
    expected = 2 * x * osp.erfcx(x.astype(np.float64)) - 2 / np.sqrt(np.pi)
    np.testing.assert_allclose(np.asarray(grad), expected, rtol=1e-5, atol=1e-6)
    grad = jax.vmap(jax.grad(special.dawsn))(x)
    np.testing.assert_allclose(np.asarray(grad), 1 - 2 * x * osp.dawsn(x.astype(np.float64)),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.spec("SPC-33")
def test_expi_expn_derivatives(jax, special, test_util):
    x = f32([-2.0, 0.5, 3.0, 20.0])
    grad = jax.vmap(jax.grad(special.expi))(x)
    np.testing.assert_allclose(np.asarray(grad), np.exp(x.astype(np.float64)) / x, rtol=1e-5)
    grad = jax.vmap(jax.grad(lambda v: special.expn(3, v)))(f32([0.5, 2.0]))
    np.testing.assert_allclose(np.asarray(grad), -osp.expn(2, [0.5, 2.0]), rtol=1e-5)
    jax.config.update("jax_enable_x64", True)
    test_util.check_grads(special.exp1, (np.array([0.7, 2.5]),), order=1, modes=["fwd", "rev"])


@pytest.mark.spec("SPC-36")
def test_sici_fresnel_derivatives(jax, special):
    x = f32([0.5, 3.0, 9.0])
    d_si = jax.vmap(jax.grad(lambda v: special.sici(v)[0]))(x)
    d_ci = jax.vmap(jax.grad(lambda v: special.sici(v)[1]))(x)
    np.testing.assert_allclose(np.asarray(d_si), np.sin(x) / x, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(np.asarray(d_ci), np.cos(x) / x, rtol=1e-5, atol=1e-7)


@pytest.mark.spec("SPC-37")
def test_fresnel_derivatives(jax, special):
    x = f32([0.5, 1.3, 3.7])
    d_s = jax.vmap(jax.grad(lambda v: special.fresnel(v)[0]))(x)
    d_c = jax.vmap(jax.grad(lambda v: special.fresnel(v)[1]))(x)
    arg = np.pi * x.astype(np.float64) ** 2 / 2
    np.testing.assert_allclose(np.asarray(d_s), np.sin(arg), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(d_c), np.cos(arg), rtol=1e-5, atol=1e-6)


# -- SPC-39 ---------------------------------------------------------------------

@pytest.mark.spec("SPC-39")
def test_huge_python_ints(special):
    np.testing.assert_allclose(float(special.dawsn(2**70)), osp.dawsn(2.0**70), rtol=1e-6)
    np.testing.assert_allclose(complex(special.wofz(2**40)), osp.wofz(2.0**40), rtol=1e-6)
    for fun in [special.fresnel, special.sici, special.expi, special.spence,
                lambda v: special.expn(1, v)]:
        with pytest.raises(OverflowError):
            fun(2**70)
