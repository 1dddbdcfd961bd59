"""refjax-only checks of the special-function kernels
(``refjax/_src/lax/special_kernels.py``; SPEC SPF-1 .. SPF-6).

The conformance tests use tolerances that real JAX's float32 kernels also
meet; here refjax's own promise is checked: float64 values close to SciPy's,
and float32 results within one unit in the last place of SciPy's float64
value (they are float64 results rounded once).
"""
import functools

import numpy as np
import pytest
import scipy.special as sp

import refjax
from refjax import lax
from refjax._src.lax import special_kernels as kernels
from refjax._src.lax.special import random_gamma_grad_da

RNG = np.random.default_rng(5)


def ulps32(got, want):
    """Distance in float32 units in the last place at ``want``."""
    want32 = np.asarray(want, np.float64).astype(np.float32)
    spacing = np.spacing(np.abs(want32)).astype(np.float64)
    return np.abs(np.asarray(got, np.float64) - np.asarray(want, np.float64)) / spacing


def max_rel(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return np.max(np.abs(got - want) / np.abs(want))


@pytest.mark.spec("SPF-1")
def test_float32_results_are_rounded_float64():
    x = RNG.uniform(-40, 40, 500).astype(np.float32)
    wide = x.astype(np.float64)
    assert ulps32(lax.bessel_i0e(x), sp.i0e(wide)).max() <= 1
    assert ulps32(lax.bessel_i1e(x), sp.i1e(wide)).max() <= 1
    a = (10 ** RNG.uniform(-1, 1.5, 500)).astype(np.float32)
    t = (a * 10 ** RNG.uniform(-0.5, 0.5, 500)).astype(np.float32)
    a64, t64 = a.astype(np.float64), t.astype(np.float64)
    assert ulps32(lax.igamma(a, t), sp.gammainc(a64, t64)).max() <= 1
    assert ulps32(lax.igammac(a, t), sp.gammaincc(a64, t64)).max() <= 1
    b = (10 ** RNG.uniform(-1, 1, 500)).astype(np.float32)
    u = RNG.uniform(0.01, 0.99, 500).astype(np.float32)
    assert ulps32(lax.betainc(a, b, u), sp.betainc(a64, b.astype(np.float64),
                                                   u.astype(np.float64))).max() <= 1
    s = RNG.uniform(1.1, 20, 500).astype(np.float32)
    assert ulps32(lax.zeta(s, a), sp.zeta(s.astype(np.float64), a64)).max() <= 1


@pytest.mark.spec("SPF-1")
def test_half_precision_results():
    x = np.linspace(-5, 5, 41).astype(np.float16)
    got = lax.bessel_i0e(x)
    assert got.dtype == np.float16
    want = sp.i0e(x.astype(np.float64)).astype(np.float16)
    assert np.array_equal(np.asarray(got), want)


@pytest.mark.spec("SPF-2")
def test_bessel_float64_across_the_switch():
    x = np.concatenate([np.linspace(24, 26, 201), 10 ** RNG.uniform(-5, 5, 300)])
    assert max_rel(kernels.bessel_i0e(x), sp.i0e(x)) < 3e-15
    assert max_rel(kernels.bessel_i1e(x), sp.i1e(x)) < 3e-15


@pytest.mark.spec("SPF-3")
def test_igamma_float64():
    a = 10 ** RNG.uniform(-3, 2, 3000)
    x = a * 10 ** RNG.uniform(-2, 1, 3000)
    assert max_rel(kernels.igamma(a, x, np.float64), sp.gammainc(a, x)) < 1e-12
    assert max_rel(kernels.igammac(a, x, np.float64), sp.gammaincc(a, x)) < 1e-12
    # Tiny a: the series' factor uses lgamma(a + 1), with no cancellation.
    a = np.array([1e-10, 1e-6, 1e-3])
    assert max_rel(kernels.igamma(a, np.full(3, 0.5), np.float64),
                   sp.gammainc(a, 0.5)) < 1e-14


@pytest.mark.spec("SPF-3")
def test_igamma_underflow_keeps_the_first_term():
    """Where x^a e^-x / Gamma(a) underflows the computation dtype, the
    iterations are skipped, as in JAX: the series keeps its first term."""
    a, x = np.array([100.0]), np.array([1.0])
    log_factor = a * np.log(x) - x - sp.gammaln(a + 1)
    # float32 computation: underflows (-log(f32 max) is about -88.7).
    got = kernels.random_gamma_grad(a, x, np.float32)
    first = -(np.log(x) - sp.digamma(a + 1)) * x / a
    np.testing.assert_allclose(got, first, rtol=1e-15)
    # float64 computation: not below -709, so the whole series is summed.
    assert log_factor[0] > -709
    full = kernels.random_gamma_grad(a, x, np.float64)
    assert abs(full[0] - first[0]) > 1e-5


@pytest.mark.spec("SPF-4")
def test_random_gamma_grad_large_shape():
    """Converges where x is near a large a (many iterations, one element)."""
    a = np.array([1e5, 3.0])
    x = np.array([1e5, 2.0])
    got = kernels.random_gamma_grad(a, x, np.float64)
    h = 1e-4 * a
    u = sp.gammainc(a, x)
    fd = (sp.gammaincinv(a + h, u) - sp.gammaincinv(a - h, u)) / (2 * h)
    np.testing.assert_allclose(got, fd, rtol=1e-6)


@pytest.mark.spec("SPF-5")
def test_zeta_negative_q_exact():
    """Opposite-sign terms cancel without loss (compensated summation)."""
    q = np.array([-2.5, -0.5, -7.25, -100.5])
    n = np.array([3, 1, 8, 101])
    direct = np.array([sum((qq + k) ** -4.0 for k in range(nn)) for qq, nn in zip(q, n)])
    assert max_rel(kernels.zeta(np.full(4, 4.0), q), direct + sp.zeta(4.0, q + n)) < 1e-12
    # psi^(10)(-2.5) = psi^(10)(3.5): the terms below 3.5 cancel in pairs.
    got = kernels.polygamma(np.array([10.0]), np.array([-2.5]))
    assert max_rel(got, sp.polygamma(10, 3.5)) < 1e-13


@pytest.mark.spec("SPF-5")
def test_zeta_far_below_zero_is_nan():
    """Beyond 2**16 direct terms the value is not computed."""
    got = kernels.zeta(np.array([2.0, 2.0]), np.array([-1e7 - 0.5, 3.0]))
    assert np.isnan(got[0]) and np.isclose(got[1], sp.zeta(2.0, 3.0), rtol=1e-15)


@pytest.mark.spec("SPF-6")
def test_betainc_float64():
    a = 10 ** RNG.uniform(-2, 1.5, 3000)
    b = 10 ** RNG.uniform(-2, 1.5, 3000)
    x = RNG.uniform(0, 1, 3000)
    want = sp.betainc(a, b, x)
    ok = want > 1e-290
    assert max_rel(kernels.betainc(a, b, x)[ok], want[ok]) < 1e-11


@pytest.mark.spec("SPF-1")
def test_kernels_run_inside_jit_and_on_empty_arrays():
    f = refjax.jit(lambda a, x: lax.igamma(a, x) + lax.betainc(a, a, x / 10))
    a = np.array([0.5, 2.0], np.float32)
    np.testing.assert_allclose(f(a, a), sp.gammainc(a, a) + sp.betainc(a, a, a / 10),
                               rtol=1e-6)
    empty = np.zeros((0, 3), np.float32)
    for out in (lax.igamma(empty, empty), lax.zeta(empty, empty), lax.bessel_i1e(empty),
                lax.betainc(empty, empty, empty)):
        assert out.shape == (0, 3) and out.dtype == np.float32


# ---------------------------------------------------------------------------
# Derivatives of random_gamma_grad in a (SPEC SPF-12)
# ---------------------------------------------------------------------------

def _sampler_grid():
    """a from 1e-3 to 1e4 and x at Gamma(a) quantiles from 1e-6 to 1 - 1e-6."""
    a = np.array([1e-3, 0.05, 0.3, 1.0, 2.0, 2.5, 7.0, 30.0, 100.0, 1e3, 1e4])
    u = np.array([1e-6, 0.01, 0.3, 0.5, 0.7, 0.99, 1 - 1e-6])
    a, u = (v.ravel() for v in np.meshgrid(a, u))
    x = sp.gammaincinv(a, u)
    keep = x > 1e-280
    return a[keep], x[keep]


def _richardson(f, a, h):
    """f'(a) by central differences at h, h/2, h/4, extrapolated twice
    (error O(h^6))."""
    d = [(f(a + s) - f(a - s)) / (2 * s) for s in (h, h / 2, h / 4)]
    d = [(4 * d[1] - d[0]) / 3, (4 * d[2] - d[1]) / 3]
    return (16 * d[1] - d[0]) / 15


@pytest.mark.spec("SPF-12")
def test_random_gamma_grad_da_is_the_derivative_of_the_order_below():
    """Each order against extrapolated differences of the order below (the
    differences' own error, which grows with the order, sets the bounds;
    against 40-digit mpmath values order 1 is within 1e-12 here)."""
    a, x = _sampler_grid()
    step = 0.02 * np.where(a < 1, a, np.sqrt(a))
    below = kernels.random_gamma_grad
    for order, rtol in ((1, 1e-9), (2, 1e-7), (3, 1e-5)):
        got = kernels.random_gamma_grad_da(a, x, np.float64, order)
        want = _richardson(lambda b, f=below: f(b, x, np.float64), a, step)
        assert np.all(np.abs(got - want) <= rtol * np.abs(want)), order
        below = functools.partial(kernels.random_gamma_grad_da, order=order)


@pytest.mark.spec("SPF-12")
def test_fraction_derivatives_at_integer_a():
    """At a = 1 the fraction's value terminates (F = 1/x) but not its
    derivative: F'(1) = e^x E1(x) / x, and random_gamma_grad(1, x) =
    log x + e^x E1(x) + Euler's gamma."""
    x = np.array([1.001, 1.5, 3.0, 12.0, 80.0, 600.0])
    taylor = kernels._gamma_fraction(np.ones_like(x), x, 1)
    np.testing.assert_allclose(taylor[:, 0], 1 / x, rtol=1e-15)
    np.testing.assert_allclose(taylor[:, 1], sp.exp1(x) * np.exp(x) / x, rtol=1e-14)
    want = np.log(x) + sp.exp1(x) * np.exp(x) + np.euler_gamma
    np.testing.assert_allclose(kernels.random_gamma_grad(np.ones_like(x), x, np.float64),
                               want, rtol=1e-14)


@pytest.mark.spec("SPF-12")
def test_log_minus_digamma_without_cancellation():
    """D(b) = log b - psi(b) from its asymptotic series: D(b) - D(b + 1) =
    1/b - log1p(1/b) (psi(b + 1) = psi(b) + 1/b), and log x - psi(b) as
    scipy computes it where the two logarithms do not cancel."""
    b = np.array([8.0, 9.5, 120.0, 1e4, 1e7])
    d = kernels._log_minus_digamma(b, b)
    step = d - kernels._log_minus_digamma(b + 1, b + 1)
    t = 1 / b
    want = sum((-1) ** k * t ** k / k for k in range(2, 30))   # 1/b - log1p(1/b)
    assert np.all(np.abs(step - want) <= 8 * np.finfo(float).eps * d), (step, want)
    x = np.concatenate([2 * b, b / 3])
    bb = np.concatenate([b, b])
    np.testing.assert_allclose(kernels._log_minus_digamma(x, bb),
                               np.log(x) - sp.digamma(bb), rtol=1e-14)


@pytest.mark.spec("SPF-12")
def test_random_gamma_grad_da_underflow_differentiates_the_first_term():
    """Where the float32 computation skips the series, the first term
    -(log x - psi(a+1)) x / a is what is differentiated, as JAX does."""
    a, x = np.array([100.0]), np.array([1.0])
    got = kernels.random_gamma_grad_da(a, x, np.float32, 1)
    want = x * sp.polygamma(1, a + 1) / a + (np.log(x) - sp.digamma(a + 1)) * x / a ** 2
    np.testing.assert_allclose(got, want, rtol=1e-13)


@pytest.mark.spec("SPF-12")
def test_random_gamma_grad_da_primitive():
    a = np.array([0.3, 1.0, 2.5, 40.0], np.float32)
    x = np.array([0.2, 1.5, 2.0, 45.0], np.float32)
    for order in (1, 2):
        got = random_gamma_grad_da(a, x, order)
        want = kernels.random_gamma_grad_da(a.astype(np.float64), x.astype(np.float64),
                                            np.float32, order).astype(np.float32)
        assert got.dtype == np.float32 and np.array_equal(np.asarray(got), want)
        batched = refjax.vmap(lambda a, x, o=order: random_gamma_grad_da(a, x, o))(a, x)
        assert np.array_equal(np.asarray(batched), want)
    text = str(refjax.make_jaxpr(refjax.jacfwd(lax.random_gamma_grad))(2.5, 2.0))
    assert "e:f32[] = random_gamma_grad_da[order=1] b c" in text, text
    text = str(refjax.make_jaxpr(lambda a, x: random_gamma_grad_da(a, x, 3))(2.5, 2.0))
    assert "c:f32[] = random_gamma_grad_da[order=3] a b" in text, text
    for bad in (0, -1, 1.0, True):
        with pytest.raises(ValueError, match="order must be a positive int"):
            random_gamma_grad_da(a, x, bad)
    with pytest.raises(TypeError, match="requires arguments to have the same dtypes"):
        random_gamma_grad_da(a, x.astype(np.float16))


@pytest.mark.spec("SPF-12")
def test_random_gamma_grad_da_rules_against_finite_differences():
    from refjax.test_util import check_grads
    with refjax.enable_x64(True):
        for a, x in ((0.5, 0.3), (2.5, 1.7), (3.0, 6.0), (50.0, 55.0)):
            args = (np.float64(a), np.float64(x))
            check_grads(lambda a, x: random_gamma_grad_da(a, x, 2), args, order=1,
                        modes=["fwd", "rev"])
            check_grads(lax.random_gamma_grad, args, order=2, modes=["fwd", "rev"])
        check_grads(lax.random_gamma_grad, (np.float64(2.5), np.float64(1.7)), order=3,
                    modes=["fwd"])
