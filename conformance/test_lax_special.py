"""Conformance: the special-function primitives of ``jax.lax``, their
``jax.scipy.special`` wrappers and ``jax.random.random_gamma_p``
(SPEC SPF-1 .. SPF-10).

Values are compared with ``scipy.special`` in float64 (and with float32
tolerances that real JAX's float32 kernels also meet; refjax's own float32
rounding is checked in ``tests/test_lax_special_kernels.py``).  Edge cases
are the conventions the SPEC states.
"""
import importlib
import re

import numpy as np
import pytest
import scipy.special as sp

nan, inf = np.nan, np.inf


@pytest.fixture(scope="module")
def lax(jax):
    return importlib.import_module(jax.__name__ + ".lax")


def close(got, want, rtol, atol=0.0):
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=rtol, atol=atol,
                               equal_nan=True)


def same(got, want):
    """Equal values, NaN where NaN, and the sign of zeros."""
    got = np.asarray(got, np.float64)
    want = np.broadcast_to(np.asarray(want, np.float64), got.shape)
    assert np.array_equal(got, want, equal_nan=True), (got, want)
    assert np.array_equal(np.signbit(got[got == 0]), np.signbit(want[want == 0]))


RNG = np.random.default_rng(22)
X_BESSEL = np.concatenate([RNG.uniform(-40, 40, 200), [-700., -25., 0.5, 24.9, 25.1, 1e4]])
A_GAMMA = 10 ** RNG.uniform(-2, 1.5, 300)
X_GAMMA = A_GAMMA * 10 ** RNG.uniform(-1.5, 0.7, 300)


# ---------------------------------------------------------------------------
# Values (SPF-2 .. SPF-6)
# ---------------------------------------------------------------------------

@pytest.mark.spec("SPF-2")
def test_bessel_values(jax, lax, x64):
    x = np.asarray(X_BESSEL)
    close(lax.bessel_i0e(x), sp.i0e(x), 1e-13)
    close(lax.bessel_i1e(x), sp.i1e(x), 1e-13)
    x32 = x.astype(np.float32)
    close(lax.bessel_i0e(x32), sp.i0e(x32.astype(np.float64)), 1e-6)
    close(lax.bessel_i1e(x32), sp.i1e(x32.astype(np.float64)), 1e-6)


@pytest.mark.spec("SPF-2")
def test_bessel_edges(lax, x64):
    x = np.array([-inf, -0.0, 0.0, inf, nan])
    same(lax.bessel_i0e(x), [0, 1, 1, 0, nan])
    same(lax.bessel_i1e(x), [-0.0, -0.0, 0.0, 0.0, nan])
    tiny = np.array([1e-300, -1e-300])
    close(lax.bessel_i1e(tiny), tiny / 2, 1e-15)


@pytest.mark.spec("SPF-3")
def test_igamma_values(lax, x64):
    a, x = A_GAMMA, X_GAMMA
    close(lax.igamma(a, x), sp.gammainc(a, x), 1e-11, 1e-300)
    close(lax.igammac(a, x), sp.gammaincc(a, x), 1e-11, 1e-300)
    a32, x32 = a.astype(np.float32), x.astype(np.float32)
    want = sp.gammainc(a32.astype(np.float64), x32.astype(np.float64))
    close(lax.igamma(a32, x32), want, 1e-4, 1e-6)


@pytest.mark.spec("SPF-3")
def test_igamma_edges(lax, x64):
    a = np.array([-1., 0., 0., 0., 2., 2., 2., 2., 2., nan, inf, inf, inf])
    x = np.array([1., 0., 0.5, 2., -1., 0., -0.0, inf, nan, 1., 2., inf, 0.])
    same(lax.igamma(a, x), [nan, nan, nan, 1, nan, 0, 0, 1, nan, nan, nan, 1, 0])
    same(lax.igammac(a, x), [nan, nan, 0, 0, nan, 1, 1, 0, nan, nan, nan, 0, 1])


def _sample_derivative(a, x):
    """dx/da at fixed quantile, by central differences of gammaincinv."""
    h = 1e-6 * a
    u = sp.gammainc(a, x)
    return (sp.gammaincinv(a + h, u) - sp.gammaincinv(a - h, u)) / (2 * h)


@pytest.mark.spec("SPF-4")
def test_igamma_grad_a_and_random_gamma_grad(lax, x64):
    a = np.array([0.3, 0.8, 1.0, 2.5, 4.0, 7.5, 12.0, 30.0])
    x = np.array([0.1, 1.5, 0.7, 2.0, 6.0, 5.0, 14.0, 25.0])
    h = 1e-6 * a
    fd = (sp.gammainc(a + h, x) - sp.gammainc(a - h, x)) / (2 * h)
    close(lax.igamma_grad_a(a, x), fd, 1e-7, 1e-12)
    close(lax.random_gamma_grad(a, x), _sample_derivative(a, x), 1e-6)
    # Implicit differentiation: dx/da = -(dP/da) / (dP/dx).
    dpdx = np.exp((a - 1) * np.log(x) - x - sp.gammaln(a))
    close(lax.random_gamma_grad(a, x), -np.asarray(lax.igamma_grad_a(a, x)) / dpdx, 1e-12)


@pytest.mark.spec("SPF-4")
def test_gamma_derivative_edges(lax, x64):
    a = np.array([inf, 2., -1., 0., nan, 2., 2., inf])
    x = np.array([0., 0., 1., 1., 1., inf, -1., 1.])
    want = [0, 0, nan, nan, nan, nan, nan, nan]
    same(lax.igamma_grad_a(a, x), want)
    same(lax.random_gamma_grad(a, x), want)


@pytest.mark.spec("SPF-5")
def test_zeta_and_polygamma_values(lax, x64):
    s = RNG.uniform(1.05, 30, 200)
    q = 10 ** RNG.uniform(-2, 3, 200)
    close(lax.zeta(s, q), sp.zeta(s, q), 1e-12)
    m = RNG.integers(0, 7, 200).astype(np.float64)
    x = RNG.uniform(0.05, 40, 200)
    close(lax.polygamma(m, x), sp.polygamma(m.astype(int), x), 1e-12)
    # Negative non-integer q: zeta(s, q) = (q)^-s + ... + zeta(s, q + n).
    q = np.array([-2.5, -0.5, -7.25])
    n = np.array([3, 1, 8])
    direct = np.array([sum((qq + k) ** -4.0 for k in range(nn)) for qq, nn in zip(q, n)])
    close(lax.zeta(np.full(3, 4.0), q), direct + sp.zeta(4.0, q + n), 1e-7)


@pytest.mark.spec("SPF-5")
def test_zeta_and_polygamma_edges(lax, x64):
    s = np.array([1., 1., 0.5, 2.5, 2., 3., 2., 3., 2., inf, nan, 2.])
    q = np.array([nan, -1., 1., -1.5, 0., 0., -3., -0.0, inf, 1., 1., -inf])
    same(lax.zeta(s, q), [inf, inf, nan, nan, inf, nan, inf, nan, nan, nan, nan, inf])
    m = np.array([1.5, -1., nan, 0., 1., 2.])
    x = np.array([1., 1., 1., 1., 0., -1.])
    close(lax.polygamma(m, x), [nan, nan, nan, -np.euler_gamma, inf, nan], 1e-14)


@pytest.mark.spec("SPF-6")
def test_betainc_values(lax, x64):
    a = 10 ** RNG.uniform(-1.5, 1.3, 300)
    b = 10 ** RNG.uniform(-1.5, 1.3, 300)
    x = RNG.uniform(0, 1, 300)
    close(lax.betainc(a, b, x), sp.betainc(a, b, x), 1e-10, 1e-300)
    a32, b32, x32 = (v.astype(np.float32) for v in (a, b, x))
    want = sp.betainc(*(v.astype(np.float64) for v in (a32, b32, x32)))
    close(lax.betainc(a32, b32, x32), want, 1e-3, 1e-6)


@pytest.mark.spec("SPF-6")
def test_betainc_edges(lax, x64):
    a = np.array([0., 0., 1., 1., inf, 1., 0., -1., 1., 1., 2., 2., nan])
    b = np.array([1., 1., 0., 0., 1., inf, 0., 1., 1., 1., 3., 3., 1.])
    x = np.array([0., .5, .5, 1., .5, .5, .5, .5, -.1, 1.1, 0., 1., .5])
    same(lax.betainc(a, b, x), [0, 1, 0, 1, 0, 1, nan, nan, nan, nan, 0, 1, nan])


# ---------------------------------------------------------------------------
# Types, errors, batching and jaxprs (SPF-1)
# ---------------------------------------------------------------------------

UNARY = ["bessel_i0e", "bessel_i1e"]
BINARY = ["igamma", "igammac", "igamma_grad_a", "polygamma", "zeta", "random_gamma_grad"]


def _call(lax, name, *args):
    if name == "betainc":
        return lax.betainc(*args)
    return getattr(lax, name)(*args)


@pytest.mark.spec("SPF-1")
@pytest.mark.parametrize("name", UNARY + BINARY + ["betainc"])
def test_dtypes_and_weak_types(jnp, lax, name):
    arity = 1 if name in UNARY else 3 if name == "betainc" else 2
    args = [0.5] * arity
    if name != "random_gamma_grad":    # JAX's fails on Python scalars
        out = _call(lax, name, *args)
        assert out.dtype == np.float32 and out.weak_type
    strong = [np.float32(0.5)] * arity
    out = _call(lax, name, *strong)
    assert out.dtype == np.float32 and not out.weak_type
    out = _call(lax, name, *[np.float16(0.5)] * arity)
    assert out.dtype == np.float16
    out = _call(lax, name, *[jnp.ones((2, 3), jnp.bfloat16)] * arity)
    assert out.dtype == jnp.bfloat16 and out.shape == (2, 3)


@pytest.mark.spec("SPF-1")
@pytest.mark.parametrize("name", UNARY + BINARY[:-1] + ["betainc"])
def test_integer_operands_rejected(lax, name):
    arity = 1 if name in UNARY else 3 if name == "betainc" else 2
    prim = "regularized_incomplete_beta" if name == "betainc" else name
    where = "" if arity == 1 else " at position 0"
    msg = (f"{prim} does not accept dtype int32{where}. Accepted dtypes{where} are "
           "subtypes of floating.")
    with pytest.raises(TypeError, match=re.escape(msg)):
        _call(lax, name, *[np.int32(1)] * arity)


@pytest.mark.spec("SPF-1")
def test_mixed_dtypes_and_shapes(lax):
    with pytest.raises(TypeError, match=re.escape(
            "lax.igamma requires arguments to have the same dtypes, got float32, float16.")):
        lax.igamma(np.float32(1), np.float16(2))
    with pytest.raises(TypeError, match="incompatible shapes for broadcasting"):
        lax.zeta(np.ones(3, np.float32), np.ones(2, np.float32))
    with pytest.raises(TypeError):
        lax.random_gamma_grad(np.ones(3, np.float32), np.ones((2, 3), np.float32))
    out = lax.random_gamma_grad(np.ones((2, 1), np.float32), np.ones((2, 3), np.float32))
    assert out.shape == (2, 3)
    assert lax.igamma(np.ones((2, 1), np.float32), np.ones((1, 3), np.float32)).shape == (2, 3)


@pytest.mark.spec("SPF-1")
@pytest.mark.parametrize("name", UNARY + BINARY + ["betainc"])
def test_vmap_matches_loop(jax, lax, name, x64):
    arity = 1 if name in UNARY else 3 if name == "betainc" else 2
    rows = [np.array([0.5, 1.5, 3.0]), np.array([1.0, 2.0, 0.25]), np.array([0.2, 0.5, 0.9])]
    args = rows[:arity]
    fn = lambda *a: _call(lax, name, *a)  # noqa: E731
    got = jax.vmap(fn)(*args)
    want = [np.asarray(fn(*(a[i] for a in args))) for i in range(3)]
    close(got, want, 1e-13)
    if arity == 1:
        return
    # One operand unbatched.
    got = jax.vmap(fn, in_axes=(None,) + (0,) * (arity - 1))(*args)
    want = [np.asarray(fn(args[0], *(a[i] for a in args[1:]))) for i in range(3)]
    close(got, want, 1e-13)


@pytest.mark.spec("SPF-1")
def test_jaxprs(jax, lax):
    def fn(a, b, x):
        return (lax.igamma(a, x), lax.igammac(a, x), lax.igamma_grad_a(a, x),
                lax.polygamma(a, x), lax.zeta(a, x), lax.betainc(a, b, x),
                lax.bessel_i0e(x), lax.bessel_i1e(x))
    text = str(jax.make_jaxpr(fn)(1., 2., 3.))
    for line in ["d:f32[] = igamma a c", "e:f32[] = igammac a c",
                 "f:f32[] = igamma_grad_a a c", "g:f32[] = polygamma a c",
                 "h:f32[] = zeta a c", "i:f32[] = regularized_incomplete_beta a b c",
                 "j:f32[] = bessel_i0e c", "k:f32[] = bessel_i1e c"]:
        assert line in text, text
    assert lax.regularized_incomplete_beta_p.name == "regularized_incomplete_beta"
    assert lax.bessel_i0e_p.name == "bessel_i0e" and lax.zeta_p.name == "zeta"


# ---------------------------------------------------------------------------
# Derivatives (SPF-7)
# ---------------------------------------------------------------------------

@pytest.mark.spec("SPF-7")
def test_jvps_against_finite_differences(jax, lax, x64):
    from importlib import import_module
    check_grads = import_module(jax.__name__ + ".test_util").check_grads
    for x in (-3.0, -0.4, 0.7, 2.5, 30.0):
        check_grads(lax.bessel_i0e, (x,), order=2, modes=["fwd", "rev"])
        check_grads(lax.bessel_i1e, (x,), order=2, modes=["fwd", "rev"])
    for a, x in ((0.5, 0.3), (2.5, 1.7), (3.0, 6.0)):
        a, x = np.float64(a), np.float64(x)
        check_grads(lax.igamma, (a, x), order=1, modes=["fwd", "rev"])
        check_grads(lax.igammac, (a, x), order=1, modes=["fwd", "rev"])
        check_grads(lambda x: lax.random_gamma_grad(a, x), (x,), order=1, modes=["fwd"])
    check_grads(lambda x: lax.polygamma(2.0, x), (1.7,), order=1, modes=["fwd", "rev"])
    check_grads(lambda x: lax.betainc(2.0, 3.5, x), (0.3,), order=1, modes=["fwd", "rev"])


@pytest.mark.spec("SPF-7")
def test_jvp_values(jax, lax, x64):
    grad_a, grad_x = jax.grad(lax.igamma, (0, 1))(2.5, 1.5)
    close(grad_a, lax.igamma_grad_a(2.5, 1.5), 1e-15)
    close(grad_x, np.exp(1.5 * np.log(1.5) - 1.5 - sp.gammaln(2.5)), 1e-13)
    close(jax.grad(lax.bessel_i1e)(0.0), 0.5, 0)
    close(jax.grad(lax.polygamma, 1)(1.0, 2.5), sp.polygamma(2, 2.5), 1e-12)


@pytest.mark.spec("SPF-7")
def test_refused_derivatives(jax, lax):
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'zeta'"):
        jax.grad(lax.zeta)(2.5, 1.0)
    with pytest.raises(NotImplementedError, match="igamma_grad_a"):
        jax.grad(lax.igamma_grad_a)(2.5, 1.0)
    with pytest.raises(ValueError, match="polygamma gradient with respect to m"):
        jax.grad(lax.polygamma)(1.0, 2.0)
    with pytest.raises(ValueError, match="Betainc gradient with respect to a and b"):
        jax.grad(lax.betainc)(1.0, 2.0, 0.5)
    with pytest.raises(ValueError, match="Betainc gradient with respect to a and b"):
        jax.grad(lax.betainc, 1)(1.0, 2.0, 0.5)


# ---------------------------------------------------------------------------
# jax.scipy.special (SPF-8, SPF-9)
# ---------------------------------------------------------------------------

@pytest.mark.spec("SPF-8")
def test_scipy_wrappers_values(special, x64):
    x = np.array([-30., -2.5, 0., 0.1, 3.0, 50.0])
    close(special.i0e(x), sp.i0e(x), 1e-13)
    close(special.i1e(x), sp.i1e(x), 1e-13)
    close(special.i0(x), sp.i0(x), 1e-13)
    close(special.i1(x), sp.i1(x), 1e-13)
    close(special.gammainc(2.5, x[2:]), sp.gammainc(2.5, x[2:]), 1e-13)
    close(special.gammaincc(2.5, x[2:]), sp.gammaincc(2.5, x[2:]), 1e-13)
    close(special.betainc(2.0, 3.0, np.array([0.1, 0.7])), sp.betainc(2.0, 3.0, [0.1, 0.7]),
          1e-13)
    close(special.polygamma(np.array([0, 1, 3]), 2.5), sp.polygamma([0, 1, 3], 2.5), 1e-12)
    close(special.zeta(3.0, np.array([0.5, 2.0])), sp.zeta(3.0, [0.5, 2.0]), 1e-13)
    assert float(special.i0(800.0)) == inf


@pytest.mark.spec("SPF-8")
def test_scipy_wrappers_promotion(jnp, special):
    for fn, args in ((special.i0e, (1,)), (special.i1, (True,)),
                     (special.gammainc, (1, 2)), (special.gammaincc, (1, 2)),
                     (special.betainc, (1, 2, 0)), (special.zeta, (2, 3)),
                     (special.polygamma, (1, 2))):
        out = fn(*args)
        assert out.dtype == np.float32, fn
    assert special.i0e(1.5).weak_type
    assert not special.i0e(jnp.arange(3)).weak_type
    assert special.gammainc(np.float16(1), np.float16(2)).dtype == np.float16
    assert special.gammainc(1, np.float16(2)).dtype == np.float16


@pytest.mark.spec("SPF-8")
def test_scipy_wrappers_promotion_x64(jnp, special, x64):
    assert special.i0(1).dtype == np.float64
    assert special.gammainc(1, np.float32(2)).dtype == np.float32
    assert special.polygamma(1, 2).dtype == np.float64


@pytest.mark.spec("SPF-8")
def test_scipy_wrappers_errors(special):
    with pytest.raises(ValueError, match="Argument `n` to polygamma must be of integer "
                       "type. Got dtype float32."):
        special.polygamma(1.0, 2.5)
    with pytest.raises(ValueError, match="polygamma does not support complex-valued"):
        special.polygamma(1, 2.5j)
    with pytest.raises(ValueError, match="betainc does not support complex-valued"):
        special.betainc(1, 2, 0.5j)
    for fn in (special.i0e, special.i1e, special.i0, special.i1):
        with pytest.raises(TypeError, match="complex64"):
            fn(1j)
    with pytest.raises(TypeError, match="complex64"):
        special.gammainc(1j, 2.0)
    with pytest.raises(NotImplementedError, match="Riemann zeta function not implemented"):
        special.zeta(2.0)
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
        special.gammainc([1.0], 2.0)


@pytest.mark.spec("SPF-9")
def test_scipy_zeta_derivatives(jax, special, x64):
    s, q, h = 2.5, 1.5, 1e-6
    ds = (sp.zeta(s + h, q) - sp.zeta(s - h, q)) / (2 * h)
    dq = (sp.zeta(s, q + h) - sp.zeta(s, q - h)) / (2 * h)
    close(jax.grad(special.zeta)(s, q), ds, 1e-8)
    close(jax.grad(special.zeta, 1)(s, q), dq, 1e-8)
    value, tangent = jax.jvp(special.zeta, (s, q), (1.0, 0.0))
    close(value, sp.zeta(s, q), 1e-12)
    close(tangent, ds, 1e-8)
    text = str(jax.make_jaxpr(special.zeta)(2.0, 3.0))
    assert "custom_jvp_call[" in text and "name=zeta" in text and "jvp=jvp" in text
    assert "zeta d e" in text


@pytest.mark.spec("SPF-8")
def test_scipy_wrappers_derivatives(jax, special, x64):
    close(jax.grad(special.i0)(2.5), sp.i1(2.5), 1e-12)
    close(jax.grad(special.i1)(-2.5), sp.i0(-2.5) - sp.i1(-2.5) / -2.5, 1e-12)
    close(jax.grad(special.betainc, 2)(2.0, 3.0, 0.4),
          0.4 * 0.6 ** 2 / sp.beta(2.0, 3.0), 1e-12)


# ---------------------------------------------------------------------------
# random_gamma_p (SPF-10)
# ---------------------------------------------------------------------------

@pytest.mark.spec("SPF-10")
def test_random_gamma_primitive_in_jaxprs(jax):
    assert jax.random.random_gamma_p.name == "random_gamma"
    key = jax.random.key(0)
    text = str(jax.make_jaxpr(lambda k, a: jax.random.gamma(k, a))(key, 1.0))
    assert "name=_gamma" in text and "random_gamma[log_space=False] a d" in text
    text = str(jax.make_jaxpr(lambda k, a: jax.random.loggamma(k, a, (3,)))(key, 1.0))
    assert "broadcast_in_dim" in text and "random_gamma[log_space=True]" in text


@pytest.mark.spec("SPF-10")
def test_random_gamma_primitive_samples(jax, jnp):
    key = jax.random.key(7)
    a = jnp.asarray(np.array([0.4, 1.0, 3.5], np.float32))
    bound = jax.random.random_gamma_p.bind(key, a, log_space=False)
    same(bound, jax.random.gamma(key, a))
    logs = jax.random.random_gamma_p.bind(key, a, log_space=True)
    same(logs, jax.random.loggamma(key, a))
    # A key array leading a's shape: each key is split over its own row.
    keys = jax.random.split(key, 2)
    rows = jnp.asarray(np.array([[0.5, 2.0], [1.5, 4.0]], np.float32))
    got = jax.random.random_gamma_p.bind(keys, rows, log_space=False)
    same(got, [np.asarray(jax.random.random_gamma_p.bind(keys[i], rows[i], log_space=False))
               for i in range(2)])
    same(jax.vmap(lambda k, r: jax.random.gamma(k, r))(keys, rows), got)


@pytest.mark.spec("SPF-10")
def test_random_gamma_derivative(jax, lax, x64):
    key = jax.random.key(3)
    a = np.array([0.3, 1.0, 2.5, 9.0])
    sample = np.asarray(jax.random.gamma(key, a))
    grad = jax.grad(lambda a: jax.random.gamma(key, a).sum())(a)
    close(grad, lax.random_gamma_grad(a, sample), 1e-14)
    close(grad, _sample_derivative(a, sample), 1e-6)
    log_grad = jax.grad(lambda a: jax.random.loggamma(key, a).sum())(a)
    log_sample = np.exp(np.asarray(jax.random.loggamma(key, a)))
    close(log_grad, np.asarray(lax.random_gamma_grad(a, log_sample)) / log_sample, 1e-12)


# ---------------------------------------------------------------------------
# Python ints and argument checks (SPF-11)
# ---------------------------------------------------------------------------

@pytest.mark.spec("SPF-11")
def test_scipy_wrappers_large_python_ints(special):
    out = special.i0e(2**62)
    assert out.dtype == np.float32 and out.weak_type
    close(out, sp.i0e(2.0**62), 1e-6)
    close(special.gammainc(2**40, np.ones(2, np.float32)), [0.0, 0.0], 0)
    assert special.polygamma(2**62, np.ones(2, np.float32)).shape == (2,)
    with pytest.raises(OverflowError, match="too large to convert to int32"):
        special.zeta(2**40, 1.0)


@pytest.mark.spec("SPF-11")
def test_scipy_wrappers_argument_checks(special):
    with pytest.raises(ValueError, match="Invalid argument to dtype: None."):
        special.polygamma(None, 1.0)
    with pytest.raises(ValueError, match="Got dtype float32"):
        special.polygamma("float32", np.ones(2, np.float32))
    with pytest.raises(TypeError):
        special.zeta("abc")
    for arg in (None, ()):
        with pytest.raises(NotImplementedError, match="Riemann zeta function"):
            special.zeta(arg)


# ---------------------------------------------------------------------------
# Derivatives of random_gamma_grad in a (SPF-12)
# ---------------------------------------------------------------------------

def _quantile_derivatives(a, x, rel):
    """d^2 x/da^2 and d^3 x/da^3 of the Gamma(a) quantile through ``x``, by
    central differences of gammaincinv (steps ``rel`` a and 10 ``rel`` a)."""
    u = sp.gammainc(a, x)
    h2, h3 = rel * a, 10 * rel * a

    def at(h, t):
        return sp.gammaincinv(a + t * h, u)
    second = (at(h2, 1) - 2 * at(h2, 0) + at(h2, -1)) / h2 ** 2
    third = (at(h3, 2) - 2 * at(h3, 1) + 2 * at(h3, -1) - at(h3, -2)) / (2 * h3 ** 3)
    return second, third


SHAPES = (0.3, 1.0, 2.5, 10.0, 100.0)


@pytest.mark.spec("SPF-12")
def test_gamma_sample_second_derivative_float32(jax):
    for k in range(3):
        def sample(a, k=k):
            return jax.random.gamma(jax.random.key(k), a)
        second = jax.jacfwd(jax.jacfwd(sample))
        for a in SHAPES:
            a32 = np.float32(a)
            got = second(a32)
            assert got.dtype == np.float32 and got.shape == ()
            x = float(sample(a32))
            want, _ = _quantile_derivatives(float(a32), x, 1e-3)
            # Both libraries round float32 terms that cancel more as a grows.
            close(got, want, 3e-4 * max(1.0, a))


@pytest.mark.spec("SPF-12")
def test_gamma_sample_higher_derivatives_x64(jax, x64):
    for k in range(3):
        def sample(a, k=k):
            return jax.random.gamma(jax.random.key(k), a)
        second = jax.jacfwd(jax.jacfwd(sample))
        third = jax.jacfwd(second)
        for a in SHAPES:
            want2, want3 = _quantile_derivatives(a, float(sample(a)), 1e-3)
            close(second(a), want2, 3e-6)
            close(third(a), want3, 3e-3)


@pytest.mark.spec("SPF-12")
def test_random_gamma_grad_derivatives_in_a(jax, lax, x64):
    from importlib import import_module
    check_grads = import_module(jax.__name__ + ".test_util").check_grads
    for a, x in ((0.5, 0.3), (3.0, 6.0), (1.0, 2.0)):
        check_grads(lax.random_gamma_grad, (np.float64(a), np.float64(x)), order=2,
                    modes=["fwd"])
    # d/da by central differences of random_gamma_grad itself.
    a = np.array([0.01, 0.3, 1.0, 2.0, 7.5, 120.0, 3000.0])
    x = np.array([1e-40, 0.2, 1.5, 1.0, 9.0, 110.0, 3050.0])
    h = 1e-5 * a
    fd = (np.asarray(lax.random_gamma_grad(a + h, x))
          - np.asarray(lax.random_gamma_grad(a - h, x))) / (2 * h)
    got = jax.vmap(jax.jacfwd(lax.random_gamma_grad))(a, x)
    close(got, fd, 1e-7)


@pytest.mark.spec("SPF-12")
def test_random_gamma_grad_derivative_edges(jax, lax):
    a = np.array([-1., 0., 1., 2., inf, nan, 1., 2., -inf, nan], np.float32)
    x = np.array([1., 1., 0., -1., 1., 1., inf, nan, 1., inf], np.float32)
    want = [0, 0, 0, 0, nan, 0, nan, 0, 0, 0]
    for argnums in (0, 1):
        got = jax.vmap(jax.jacfwd(lax.random_gamma_grad, argnums))(a, x)
        same(got, want)
    got = jax.vmap(jax.jacfwd(jax.jacfwd(lax.random_gamma_grad)))(a, x)
    same(got, want)


@pytest.mark.spec("SPF-12")
def test_gamma_sample_second_derivative_vmap_and_weak(jax, jnp):
    key = jax.random.key(5)
    a = np.array([0.3, 2.5, 10.0], np.float32)

    def second(a):
        return jax.jacfwd(jax.jacfwd(lambda a: jax.random.gamma(key, a)))(a)
    batched = jax.vmap(second)(a)
    # JAX's float32 series under vmap and per example differ by ~1e-5 (with
    # CI's XLA flags): the check is that batching computes the same thing.
    close(batched, [np.asarray(second(v)) for v in a], 1e-4)
    lax_ = importlib.import_module(jax.__name__ + ".lax")
    weak_a, weak_x = jnp.asarray(2.5), jnp.asarray(2.0)   # weakly typed
    for argnums in (0, 1):
        out = jax.jacfwd(lax_.random_gamma_grad, argnums)(weak_a, weak_x)
        assert out.dtype == np.float32 and out.weak_type


@pytest.mark.spec("SPF-12")
def test_gamma_sample_second_derivative_reverse_mode(jax):
    def sample(a):
        return jax.random.gamma(jax.random.key(0), a)
    forward = jax.jacfwd(jax.jacfwd(sample))(2.5)
    for reverse in (jax.grad(jax.grad(sample)), jax.jacrev(jax.jacfwd(sample))):
        try:
            got = reverse(2.5)
        except ValueError as e:   # JAX: its while loops have no transpose
            assert "Reverse-mode differentiation does not work for lax.while_loop" in str(e)
        else:                     # refjax: closed-form rules
            close(got, np.asarray(forward), 1e-6)
    close(jax.jacfwd(jax.grad(sample))(2.5), np.asarray(forward), 1e-6)
