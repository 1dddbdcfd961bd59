"""Conformance: ``jax.scipy.special`` (SPEC SPC-*).

References come from the ``math`` module, from identities (recurrences,
reflection, inverse round trips), or from float64 bisection written here;
results are compared with float32 tolerance.  SciPy is not used.
"""
import math

import ml_dtypes
import numpy as np
import pytest

F32 = dict(rtol=2e-6, atol=1e-7)
EULER_GAMMA = 0.57721566490153286061


def f32(jnp, values):
    return jnp.asarray(np.asarray(values, np.float32))


def host(x):
    a = np.asarray(x)
    if a.dtype == ml_dtypes.bfloat16:
        a = a.astype(np.float32)
    return a.astype(np.float64)


def exact(values):
    """float32-rounded inputs as float64, so references see the same input."""
    return np.asarray(values, np.float32).astype(np.float64)


def vmath(fn, values):
    return np.array([fn(v) for v in exact(values).ravel()]).reshape(np.shape(values))


# ---------------------------------------------------------------------------
# SPC-1: promotion
# ---------------------------------------------------------------------------

UNARY = ["erf", "erfc", "erfinv", "gammaln", "digamma", "expit", "logit", "entr",
         "gamma", "gammasgn"]
BINARY = ["xlogy", "xlog1py", "betaln"]


@pytest.mark.spec("SPC-1")
@pytest.mark.parametrize("name", UNARY + BINARY)
def test_integers_and_bools_promote_to_float32(special, jnp, name):
    fn = getattr(special, name)
    nargs = 2 if name in BINARY else 1
    for x in (jnp.asarray(np.array([1, 2, 3], np.int32)),
              jnp.asarray(np.array([1, 2, 3], np.uint8)),
              jnp.asarray(np.array([True, False]))):
        out = fn(*[x] * nargs)
        assert out.dtype == np.float32 and not out.weak_type


@pytest.mark.spec("SPC-1")
@pytest.mark.parametrize("name", UNARY + BINARY)
def test_python_scalars_give_weak_float32(special, name):
    fn = getattr(special, name)
    out = fn(*[0.5] * (2 if name in BINARY else 1))
    assert out.dtype == np.float32 and out.shape == ()
    if name in ("gamma", "gammasgn"):
        assert not out.weak_type  # gammasgn selects between strong constants
    elif name != "logit":  # logit's weak type comes from its custom JVP rule
        assert out.weak_type


@pytest.mark.spec("SPC-1")
@pytest.mark.parametrize("name", ["erf", "erfc", "erfinv", "gammaln", "digamma", "expit",
                                  "logit", "xlogy", "xlog1py", "entr"])
@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16], ids=["float16", "bfloat16"])
def test_half_precision_is_kept(special, jnp, name, dtype):
    x = jnp.asarray(np.asarray([0.25, 0.5, 0.75], dtype))
    out = getattr(special, name)(*[x] * (2 if name in BINARY else 1))
    assert out.dtype == np.dtype(dtype)


@pytest.mark.spec("SPC-1")
def test_binary_functions_promote_and_broadcast_together(special, jnp):
    x = jnp.asarray(np.array([1., 2.], np.float16))
    assert special.xlogy(x, 2).dtype == np.float16
    assert special.xlogy(x, f32(jnp, 2.)).dtype == np.float32
    out = special.xlogy(f32(jnp, np.ones((2, 1))), f32(jnp, [1., 2., 3.]))
    assert out.shape == (2, 3)
    np.testing.assert_allclose(host(out), np.log([[1., 2., 3.]] * 2), **F32)


@pytest.mark.spec("SPC-1")
@pytest.mark.parametrize("name,prim", [("erf", "erf"), ("erfc", "erfc"), ("erfinv", "erf_inv"),
                                       ("gammaln", "lgamma"), ("digamma", "digamma")])
def test_complex_inputs_are_rejected(special, jnp, name, prim):
    with pytest.raises(TypeError, match=f"{prim} does not accept dtype complex64. Accepted "
                       "dtypes are subtypes of floating."):
        getattr(special, name)(jnp.asarray(np.array([1 + 1j], np.complex64)))


@pytest.mark.spec("SPC-1")
@pytest.mark.parametrize("name", UNARY)
def test_lists_are_rejected(special, name):
    with pytest.raises(TypeError, match=f"{name} requires ndarray or scalar arguments, got "
                       r"<class 'list'> at position 0\."):
        getattr(special, name)([0.5])


# ---------------------------------------------------------------------------
# SPC-2: erf, erfc, erfinv
# ---------------------------------------------------------------------------

@pytest.mark.spec("SPC-2")
def test_erf_and_erfc_values(special, jnp):
    x = np.concatenate([np.linspace(-6, 6, 49), [0.001, -0.001, 1e-20]])
    np.testing.assert_allclose(host(special.erf(f32(jnp, x))), vmath(math.erf, x),
                               rtol=2e-6, atol=1e-30)
    tail = np.linspace(-6, 9, 61)
    # erfc keeps relative accuracy deep in the upper tail (erfc(9) ~ 4e-37).
    np.testing.assert_allclose(host(special.erfc(f32(jnp, tail))), vmath(math.erfc, tail),
                               rtol=1e-5)


@pytest.mark.spec("SPC-2")
def test_erf_special_values(special, jnp):
    out = host(special.erf(f32(jnp, [0., -0., np.inf, -np.inf, np.nan])))
    assert out[0] == 0 and math.copysign(1, out[1]) == -1
    assert out[2:4].tolist() == [1., -1.] and np.isnan(out[4])
    out = host(special.erfc(f32(jnp, [np.inf, -np.inf, np.nan])))
    assert out[:2].tolist() == [0., 2.] and np.isnan(out[2])


def _erfinv_reference(y):
    """Solve erf(x) = y by bisection, on erfc when |y| > 1/2 (no cancellation)."""
    if abs(y) <= 0.5:
        above = lambda x: math.erf(x) > abs(y)  # noqa: E731
    else:
        above = lambda x: math.erfc(x) < 1.0 - abs(y)  # noqa: E731
    lo, hi = 0.0, 10.0
    for _ in range(1100):
        mid = (lo + hi) / 2
        if above(mid):
            hi = mid
        else:
            lo = mid
    return math.copysign((lo + hi) / 2, y)


@pytest.mark.spec("SPC-2")
def test_erfinv_values(special, jnp):
    y = np.concatenate([np.linspace(-0.99, 0.99, 45), [1e-30, 0.999999, -0.9999999,
                                                       1 - 2 ** -23, -(1 - 2 ** -24)]])
    out = host(special.erfinv(f32(jnp, y)))
    np.testing.assert_allclose(out, vmath(_erfinv_reference, y), rtol=4e-6, atol=1e-37)
    assert out[-2] == pytest.approx(3.7439211627768, rel=2e-6)


@pytest.mark.spec("SPC-2")
def test_erfinv_special_values(special, jnp):
    out = host(special.erfinv(f32(jnp, [1., -1., 0., -0., 1.5, -2., np.nan])))
    assert out[:2].tolist() == [np.inf, -np.inf]
    assert out[2] == 0 and math.copysign(1, out[3]) == -1
    assert np.isnan(out[4:]).all()


@pytest.mark.spec("SPC-2")
def test_erf_of_erfinv_round_trips(special, jnp):
    y = np.linspace(-0.95, 0.95, 39)
    back = special.erf(special.erfinv(f32(jnp, y)))
    np.testing.assert_allclose(host(back), exact(y), rtol=1e-6, atol=1e-7)


# ---------------------------------------------------------------------------
# SPC-3: gammaln, digamma, gamma, gammasgn, betaln
# ---------------------------------------------------------------------------

def _lgamma(x):
    if x <= 0 and x == math.floor(x):
        return math.inf
    return math.lgamma(x)


@pytest.mark.spec("SPC-3")
def test_gammaln_values(special, jnp):
    x = np.concatenate([np.linspace(0.1, 30, 60), [-0.5, -1.5, -2.5, -3.25, 1e-3, 1e4, 1e30]])
    out = host(special.gammaln(f32(jnp, x)))
    ref = vmath(_lgamma, x)
    # Near the zeros of lgamma (x = 1, 2) only absolute accuracy is meaningful.
    np.testing.assert_allclose(out, ref, rtol=2e-6, atol=2e-6)


@pytest.mark.spec("SPC-3")
def test_gammaln_poles_and_infinities(special, jnp):
    out = host(special.gammaln(f32(jnp, [0., -0., -1., -2., np.inf, -np.inf, np.nan])))
    assert out[:6].tolist() == [np.inf] * 6 and np.isnan(out[6])


@pytest.mark.spec("SPC-3")
def test_digamma_identities(special, jnp):
    values = host(special.digamma(f32(jnp, [1., 2., 3., 10., 0.5])))
    harmonic = [0., 1., 1.5, sum(1 / k for k in range(1, 10))]
    np.testing.assert_allclose(values[:4], np.array(harmonic) - EULER_GAMMA, rtol=2e-6)
    assert values[4] == pytest.approx(-EULER_GAMMA - 2 * math.log(2), rel=2e-6)
    # psi(x + 1) = psi(x) + 1/x and, for non-integers, psi(1 - x) - psi(x) = pi cot(pi x).
    x = exact(np.linspace(0.15, 6.15, 25))
    lhs = host(special.digamma(f32(jnp, x + 1)))
    rhs = host(special.digamma(f32(jnp, x))) + 1 / x
    np.testing.assert_allclose(lhs, rhs, rtol=1e-5, atol=1e-5)
    x = exact([-2.25, -1.75, -0.5, -0.25, 0.25, 0.75])
    reflected = host(special.digamma(f32(jnp, 1 - x))) - host(special.digamma(f32(jnp, x)))
    np.testing.assert_allclose(reflected, np.pi / np.tan(np.pi * x), rtol=1e-5, atol=1e-5)


@pytest.mark.spec("SPC-3")
def test_digamma_large_argument_and_poles(special, jnp):
    x = exact([50., 1e3, 1e6])
    ref = np.log(x) - 1 / (2 * x) - 1 / (12 * x ** 2)
    np.testing.assert_allclose(host(special.digamma(f32(jnp, x))), ref, rtol=2e-6)
    out = host(special.digamma(f32(jnp, [0., -1., -3., -np.inf, np.nan, np.inf])))
    assert np.isnan(out[:5]).all() and out[5] == np.inf


@pytest.mark.spec("SPC-3")
def test_gamma_and_gammasgn(special, jnp):
    x = [-2.5, -1.5, -0.5, 0.5, 1., 3.5, 10., 30.]
    # exp(gammaln(x)) turns an absolute error of gammaln (~70 * 2**-24 at
    # x = 30) into a relative error of gamma.
    np.testing.assert_allclose(host(special.gamma(f32(jnp, x))), vmath(math.gamma, x),
                               rtol=2e-5)
    out = host(special.gamma(f32(jnp, [0., -0., -1., -np.inf, np.inf, np.nan, 40.])))
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2])
    assert np.isnan(out[3]) and out[4] == np.inf and np.isnan(out[5]) and out[6] == np.inf
    sign = host(special.gammasgn(f32(jnp, [-2.5, -1.5, -0.5, -0., 0., 0.5, 7., np.inf,
                                           -1., -np.inf, np.nan])))
    np.testing.assert_array_equal(sign[:8], [-1., 1., -1., -1., 1., 1., 1., 1.])
    assert np.isnan(sign[8:]).all()


@pytest.mark.spec("SPC-3")
def test_betaln(special, jnp):
    a = [0.5, 1., 2., 1e-3, 100., 1e5, 7.5, 8., 3.]
    b = [0.5, 1., 3., 1e3, 200., 1e-5, 8.5, 8., 1e6]
    ref = [math.lgamma(p) + math.lgamma(q) - math.lgamma(p + q)
           for p, q in zip(exact(a), exact(b))]
    out = host(special.betaln(f32(jnp, a), f32(jnp, b)))
    np.testing.assert_allclose(out, ref, rtol=2e-5, atol=2e-6)
    assert float(special.betaln(2., 3.)) == pytest.approx(math.log(1 / 12), rel=1e-6)


# ---------------------------------------------------------------------------
# SPC-4: expit and logit
# ---------------------------------------------------------------------------

@pytest.mark.spec("SPC-4")
def test_expit_and_logit(special, jnp):
    x = np.linspace(-20, 20, 41)
    np.testing.assert_allclose(host(special.expit(f32(jnp, x))), 1 / (1 + np.exp(-exact(x))),
                               **F32)
    np.testing.assert_array_equal(host(special.expit(f32(jnp, [-1e4, 1e4]))), [0., 1.])
    p = np.linspace(0.02, 0.98, 49)
    np.testing.assert_allclose(host(special.logit(f32(jnp, p))),
                               np.log(exact(p) / (1 - exact(p))), rtol=2e-5, atol=2e-6)
    edges = host(special.logit(f32(jnp, [0., 1., -0.5, 1.5, np.nan])))
    assert edges[:2].tolist() == [-np.inf, np.inf] and np.isnan(edges[2:]).all()


@pytest.mark.spec("SPC-4")
def test_logit_inverts_expit(special, jnp):
    x = np.linspace(-8, 8, 33)
    np.testing.assert_allclose(host(special.logit(special.expit(f32(jnp, x)))), exact(x),
                               rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------
# SPC-5: xlogy, xlog1py, entr
# ---------------------------------------------------------------------------

@pytest.mark.spec("SPC-5")
def test_xlogy_zero_cases(special, jnp):
    assert float(special.xlogy(0, 0)) == 0.0
    out = host(special.xlogy(f32(jnp, [0., 0., 0., 1., 2., -1.]),
                             f32(jnp, [0., np.nan, 5., 0., 3., 2.])))
    assert out[0] == 0 and np.isnan(out[1]) and out[2] == 0 and out[3] == -np.inf
    assert out[4] == pytest.approx(2 * math.log(3), rel=1e-6)
    assert out[5] == pytest.approx(-math.log(2), rel=1e-6)


@pytest.mark.spec("SPC-5")
def test_xlog1py_zero_cases(special, jnp):
    assert float(special.xlog1py(0, -1)) == 0.0
    out = host(special.xlog1py(f32(jnp, [0., 0., 1., 2., 3.]),
                               f32(jnp, [-1., np.nan, -1., 1e-10, 2.])))
    assert out[0] == 0 and np.isnan(out[1]) and out[2] == -np.inf
    # log1p keeps the accuracy that log(1 + y) loses for tiny y.
    assert out[3] == pytest.approx(2e-10, rel=1e-6)
    assert out[4] == pytest.approx(3 * math.log(3), rel=1e-6)


@pytest.mark.spec("SPC-5")
def test_entr(special, jnp):
    x = np.linspace(0.05, 5, 34)
    np.testing.assert_allclose(host(special.entr(f32(jnp, x))), -exact(x) * np.log(exact(x)),
                               rtol=2e-6, atol=1e-7)
    out = host(special.entr(f32(jnp, [-1., -1e-30, 0., np.nan])))
    assert out[:2].tolist() == [-np.inf, -np.inf] and out[2] == 0 and np.isnan(out[3])


# ---------------------------------------------------------------------------
# SPC-6: ndtr, ndtri, log_ndtr
# ---------------------------------------------------------------------------

def _ndtr(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


@pytest.mark.spec("SPC-6")
def test_ndtr(special, jnp):
    x = np.linspace(-12, 8, 81)
    np.testing.assert_allclose(host(special.ndtr(f32(jnp, x))), vmath(_ndtr, x), rtol=1e-5)
    assert float(special.ndtr(1.0)) == pytest.approx(_ndtr(1.0), rel=1e-6)


@pytest.mark.spec("SPC-6")
def test_ndtri(special, jnp):
    p = np.concatenate([[1e-30, 1e-10, 1e-4, 0.01, 0.025, 0.1, 0.13, 0.2, 0.5, 0.8, 0.87,
                         0.9, 0.975, 0.99, 0.9999]])
    x = host(special.ndtri(f32(jnp, p)))
    # ndtr(ndtri(p)) = p, measured on the smaller tail.
    back = vmath(_ndtr, x)
    small = np.minimum(exact(p), 1 - exact(p))
    np.testing.assert_allclose(np.minimum(back, 1 - back), small, rtol=2e-5)
    assert x[4] == pytest.approx(-1.959963984540054, rel=2e-6)
    assert x[12] == pytest.approx(1.959963984540054, rel=2e-6)
    assert x[8] == 0
    edges = host(special.ndtri(f32(jnp, [0., 1., -0.1, 1.5, np.nan])))
    assert edges[:2].tolist() == [-np.inf, np.inf] and np.isnan(edges[2:]).all()


@pytest.mark.spec("SPC-6")
def test_log_ndtr_tails(special, jnp):
    x = np.array([-30., -20., -10.5, -10., -9.5, -5., -1., 0., 1., 3., 4.99])
    ref = [math.log(_ndtr(v)) for v in exact(x)]
    # log(ndtr(x)) for x in (3, 5] inherits ndtr's absolute float32 rounding.
    np.testing.assert_allclose(host(special.log_ndtr(f32(jnp, x))), ref, rtol=5e-6, atol=1e-7)
    upper = np.array([5.01, 6., 8.])
    # log(1 - t) ~ -t: the upper tail is -ndtr(-x), tiny but not zero.
    ref = [-_ndtr(-v) for v in exact(upper)]
    np.testing.assert_allclose(host(special.log_ndtr(f32(jnp, upper))), ref, rtol=1e-5)


@pytest.mark.spec("SPC-6")
def test_log_ndtr_series_order(special, jnp):
    x = f32(jnp, [-15., 1.])
    ref = [math.log(_ndtr(-15.)), math.log(_ndtr(1.))]
    np.testing.assert_allclose(host(special.log_ndtr(x, series_order=5)), ref, rtol=2e-6)
    with pytest.raises(TypeError, match="series_order must be a Python integer."):
        special.log_ndtr(x, series_order=1.0)
    with pytest.raises(ValueError, match="series_order must be non-negative."):
        special.log_ndtr(x, series_order=-1)
    with pytest.raises(ValueError, match="series_order must be <= 30."):
        special.log_ndtr(x, series_order=31)


@pytest.mark.spec("SPC-6")
def test_normal_functions_accept_only_float32_and_float64(special, jnp):
    ints = jnp.asarray(np.array([1, 2], np.int32))
    halves = jnp.asarray(np.array([0.5], np.float16))
    for name in ("ndtr", "ndtri"):
        with pytest.raises(TypeError, match=r"x.dtype=int32 is not supported, see docstring "
                           "for supported types."):
            getattr(special, name)(ints)
        with pytest.raises(TypeError, match="x.dtype=float16 is not supported"):
            getattr(special, name)(halves)
    with pytest.raises(TypeError, match=r"^x\.dtype=int32 is not supported\.(?!,)"):
        special.log_ndtr(ints)


@pytest.mark.spec("SPC-6")
def test_normal_functions_in_x64(special, jnp, x64):
    x = jnp.asarray(np.array([-30., -3., 0.5, 7.]))
    assert special.ndtr(x).dtype == np.float64
    np.testing.assert_allclose(host(special.ndtr(x)), [_ndtr(v) for v in (-30., -3., .5, 7.)],
                               rtol=1e-12)
    p = jnp.asarray(np.array([1e-100, 0.3, 0.999]))
    back = [_ndtr(v) for v in host(special.ndtri(p))]
    np.testing.assert_allclose(back, [1e-100, 0.3, 0.999], rtol=1e-12)
