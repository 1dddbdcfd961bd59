"""``jax.scipy.special``: special functions (SPEC SPC-1 .. SPC-6).

Every function promotes its arguments like ``jax.numpy`` does (integers and
booleans become the default float, float16/bfloat16 are kept; SPEC SPC-1)
and then composes ``lax`` primitives; ``erf``, ``erfc``, ``erf_inv``,
``lgamma`` and ``digamma`` are primitives whose kernels come from the backend
(``Backend.special``).  Complex inputs are rejected by those primitives.

``logit``, ``xlogy``, ``xlog1py``, ``entr`` (through ``_xlogx``) and
``log_ndtr`` are ``custom_jvp`` functions, as in JAX, so that their
derivatives are defined where the formulas are guarded by ``where``
(SPEC AD-75).
"""
import math

import numpy as np

from refjax._src import core, dtypes, tree_util
from refjax._src.api import jit
from refjax._src.custom_derivatives import custom_jvp
from refjax._src.lax import lax
from refjax._src.nn import numpy_ops as jnp
from refjax._src.nn.logsumexp import logsumexp  # noqa: F401 - re-exported
from refjax._src.numpy import ufuncs
from refjax._src.numpy import util
from refjax._src.numpy import util as _np_util
from refjax._src.numpy.util import _const
from refjax._src.scipy.complex_gamma import complex_gamma

__all__ = [
    "betaln", "digamma", "entr", "erf", "erfc", "erfinv", "expit", "gamma",
    "gammaln", "gammasgn", "log_ndtr", "logit", "logsumexp", "ndtr", "ndtri",
    "xlog1py", "xlogy",
]


def promote_args_inexact(fun_name, *args):
    """jnp's ``promote_args_inexact``, except that a Python int too large for
    any integer type is taken as a float: these functions are not jitted in
    JAX, so ``erf(2**70)`` is ``erf(1.18e21)`` (SPEC SPC-1)."""
    return _np_util.promote_args_inexact(fun_name, *_np_util.huge_ints_as_floats(args))


# ---------------------------------------------------------------------------
# Error function family (SPEC SPC-2)
# ---------------------------------------------------------------------------

def erf(x):
    """``2/sqrt(pi) * integral_0^x exp(-t**2) dt`` (the ``erf`` primitive)."""
    x, = promote_args_inexact("erf", x)
    return lax.erf(x)


def erfc(x):
    """``1 - erf(x)``, accurate for large ``x`` (the ``erfc`` primitive)."""
    x, = promote_args_inexact("erfc", x)
    return lax.erfc(x)


def erfinv(x):
    """The inverse of ``erf``: ``±inf`` at ``±1``, NaN outside [-1, 1]."""
    x, = promote_args_inexact("erfinv", x)
    return lax.erf_inv(x)


# ---------------------------------------------------------------------------
# Gamma function family (SPEC SPC-3)
# ---------------------------------------------------------------------------

def gammaln(x):
    """``log|Gamma(x)|``; ``+inf`` at 0 and the negative integers."""
    x, = promote_args_inexact("gammaln", x)
    return lax.lgamma(x)


def digamma(x):
    """``d/dx log Gamma(x)``; NaN at 0 and the negative integers."""
    x, = promote_args_inexact("digamma", x)
    return lax.digamma(x)


@jit
def gammasgn(x):
    """The sign of ``Gamma(x)`` (SPEC SPC-3).

    NaN at the poles (negative integers), at ``-inf`` and for NaN; -1 on
    ``(-2k-1, -2k)`` intervals and at ``-0.0``; +1 elsewhere.
    """
    x, = promote_args_inexact("gammasgn", x)
    if dtypes.issubdtype(jnp.dtype_of(x), np.complexfloating):
        raise ValueError("gammasgn does not support complex-valued inputs.")
    floor_x = lax.floor(x)
    negative = lax.lt(x, jnp.const(x, 0))
    at_pole = lax.bitwise_and(negative, lax.eq(x, floor_x))
    undefined = lax.bitwise_or(at_pole, jnp.isnan(x))
    odd_interval = lax.bitwise_and(
        negative, lax.ne(lax.rem(floor_x, jnp.const(x, 2)), jnp.const(x, 0)))
    # At zero, 1/x is -inf exactly when x is -0.0.
    minus_zero = lax.bitwise_and(
        lax.eq(x, jnp.const(x, 0)),
        lax.lt(lax.div(jnp.const(x, 1), x), jnp.const(x, 0)))
    sign = jnp.where(lax.bitwise_or(odd_interval, minus_zero),
                     jnp.const(x, -1), jnp.const(x, 1))
    return jnp.where(undefined, jnp.const(x, np.nan), sign)


def gamma(x):
    """``Gamma(x)`` as ``gammasgn(x) * exp(gammaln(x))`` (SPEC SPC-3);
    complex ``x`` by Lanczos' approximation and reflection (SPEC SPC-7)."""
    x, = promote_args_inexact("gamma", x)
    if dtypes.issubdtype(jnp.dtype_of(x), np.complexfloating):
        return complex_gamma(x)
    return ufuncs.multiply(gammasgn(x), lax.exp(lax.lgamma(x)))


def betaln(a, b):
    """``log|B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b)`` (SPEC SPC-3).

    With ``a <= b``: for ``b < 8`` the three ``lgamma`` terms are used
    directly; for ``b >= 8`` the difference ``gammaln(b) - gammaln(a + b)``
    is written with Stirling's formula so that the large terms cancel
    analytically instead of in floating point.
    """
    a, b = promote_args_inexact("betaln", a, b)
    a, b = ufuncs.minimum(a, b), ufuncs.maximum(a, b)
    small_b = ufuncs.add(lax.lgamma(a),
                         ufuncs.subtract(lax.lgamma(b), lax.lgamma(ufuncs.add(a, b))))
    large_b = ufuncs.add(lax.lgamma(a), _lgamma_difference(a, b))
    return jnp.where(ufuncs.less(b, 8), small_b, large_b)


def _lgamma_difference(a, b):
    """``gammaln(b) - gammaln(a + b)`` for ``b >= 8`` (``a <= b``).

    Stirling: ``gammaln(x) = (x - 1/2) log x - x + log(2 pi)/2 + r(x)``, so the
    difference is ``-(a + b - 1/2) log1p(a/b) - a (log b - 1) + r(b) - r(a+b)``.
    """
    a_over_b = ufuncs.true_divide(a, b)
    u = ufuncs.multiply(ufuncs.subtract(ufuncs.add(a, b), 0.5), ufuncs.log1p(a_over_b))
    v = ufuncs.multiply(a, ufuncs.subtract(ufuncs.log(b), 1.0))
    remainder = ufuncs.subtract(_stirling_remainder(b), _stirling_remainder(ufuncs.add(a, b)))
    return ufuncs.subtract(ufuncs.subtract(remainder, u), v)


def _stirling_remainder(x):
    """``r(x) = 1/(12x) - 1/(360x^3) + 1/(1260x^5) - 1/(1680x^7)`` (x >= 8)."""
    inv = ufuncs.true_divide(1.0, x)
    inv2 = ufuncs.multiply(inv, inv)
    series = ufuncs.subtract(1 / 1260, ufuncs.multiply(inv2, 1 / 1680))
    series = ufuncs.subtract(1 / 360, ufuncs.multiply(inv2, series))
    series = ufuncs.subtract(1 / 12, ufuncs.multiply(inv2, series))
    return ufuncs.multiply(inv, series)


# ---------------------------------------------------------------------------
# Logistic functions (SPEC SPC-4)
# ---------------------------------------------------------------------------

def expit(x):
    """``1 / (1 + exp(-x))`` (``lax.logistic``); integers become floats."""
    x, = promote_args_inexact("expit", x)
    return lax.logistic(x)


@custom_jvp
def logit(x):
    """``log(x / (1 - x))``: ``±inf`` at 1 and 0, NaN outside [0, 1].

    The constant 1 is weak for a weak scalar ``x`` (``lax._const``), so a
    Python scalar gives a weakly typed result.  Its derivative is
    ``1 / (x (1 - x))`` (SPEC AD-75).
    """
    x, = promote_args_inexact("logit", x)
    return lax.log(lax.div(x, lax.sub(_const(x, 1), x)))


logit.defjvps(lambda g, ans, x: lax.div(g, lax.mul(x, lax.sub(_const(x, 1), x))))


# ---------------------------------------------------------------------------
# x log y and entropy (SPEC SPC-5)
# ---------------------------------------------------------------------------

@custom_jvp
def xlogy(x, y):
    """``x * log(y)``, defined as 0 where ``x == 0`` unless ``y`` is NaN.

    Differentiated as ``x_dot * log(y) + y_dot * x / y`` everywhere, also
    where the value was defined by the ``where`` (SPEC AD-75).
    """
    x, y = promote_args_inexact("xlogy", x, y)
    keep = ufuncs.bitwise_or(ufuncs.not_equal(x, 0.), jnp.isnan(y))
    return jnp.where(keep, lax.mul(x, lax.log(y)), jnp.full_like(x, 0))


@xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    result = xlogy(x, y)
    return result, _sum_of_products(x_dot, lax.log(y), y_dot, x, y, result)


@custom_jvp
def xlog1py(x, y):
    """``x * log1p(y)``, defined as 0 where ``x == 0`` unless ``y`` is NaN.

    Differentiated as ``x_dot * log1p(y) + y_dot * x / (1 + y)``
    (SPEC AD-75).
    """
    x, y = promote_args_inexact("xlog1py", x, y)
    keep = ufuncs.bitwise_or(ufuncs.not_equal(x, 0.), jnp.isnan(y))
    return jnp.where(keep, lax.mul(x, lax.log1p(y)), jnp.full_like(x, 0))


@xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    result = xlog1py(x, y)
    return result, _sum_of_products(x_dot, lax.log1p(y), y_dot, x,
                                    ufuncs.add(1, y), result)


def _sum_of_products(x_dot, log_term, y_dot, x, denominator, result):
    """``x_dot * log_term + y_dot * x / denominator`` in ``result``'s dtype."""
    tangent = ufuncs.add(ufuncs.multiply(x_dot, log_term),
                         ufuncs.true_divide(ufuncs.multiply(y_dot, x), denominator))
    return jnp.astype(tangent, jnp.dtype_of(result))


@custom_jvp
def _xlogx(x):
    """``x log x`` (0 at 0), with the derivative ``log(x) + 1``: ``-inf`` at 0
    rather than the NaN of ``xlogy``'s rule (SPEC AD-75)."""
    return xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _xlogx(x), ufuncs.multiply(x_dot, ufuncs.add(lax.log(x), 1))


def entr(x):
    """``-x log x`` for ``x > 0``, ``0`` at ``0``, ``-inf`` for ``x < 0``."""
    x, = promote_args_inexact("entr", x)
    if dtypes.issubdtype(jnp.dtype_of(x), np.complexfloating):
        raise ValueError("entr does not support complex-valued inputs.")
    return lax.select(lax.lt(x, jnp.const(x, 0)), jnp.full_like(x, -np.inf),
                      lax.neg(_xlogx(x)))


# ---------------------------------------------------------------------------
# The normal distribution function (SPEC SPC-6)
# ---------------------------------------------------------------------------

def _check_float32_or_64(x, message):
    # The dtype x would have, read without converting it: a Python int too
    # large for int32 is an int (TypeError here), not an OverflowError.
    dtype, _ = dtypes.dtype_and_weak_type(x)
    if dtype not in (np.float32, np.float64):
        raise TypeError(message.format(dtype))


def ndtr(x):
    """``P[N(0, 1) < x] = erfc(-x / sqrt(2)) / 2``; float32/float64 only.

    ``1 + erf(w)`` is used near 0 and ``2 - erfc(|w|)`` / ``erfc(|w|)``
    in the tails, so that neither tail cancels.
    """
    x = jnp.asarray(x)
    _check_float32_or_64(
        x, "x.dtype={} is not supported, see docstring for supported types.")
    return _ndtr(x)


def _ndtr(x):
    half_sqrt_2 = jnp.const(x, 0.5 * math.sqrt(2.0))
    w = lax.mul(x, half_sqrt_2)
    z = lax.abs(w)
    # Staged in JAX's order: the outer test first, then each branch.
    near_zero = lax.lt(z, half_sqrt_2)
    central = lax.add(jnp.const(x, 1), lax.erf(w))
    upper = lax.gt(w, jnp.const(x, 0))
    tails = lax.select(upper, lax.sub(jnp.const(x, 2), lax.erfc(z)), lax.erfc(z))
    return lax.mul(jnp.const(x, 0.5), lax.select(near_zero, central, tails))


# Boundaries of log_ndtr's three regimes, per dtype.
_LOG_NDTR_SEGMENTS = {np.dtype(np.float32): (-10.0, 5.0),
                      np.dtype(np.float64): (-20.0, 8.0)}


def log_ndtr(x, series_order=3):
    """``log(ndtr(x))`` accurate in both tails; float32/float64 only.

    Above ``upper`` (5 for float32, 8 for float64) it is ``-ndtr(-x)``
    (``log(1 - t) ~ -t``); at or below ``lower`` (-10, -20) it is the
    asymptotic series ``log(exp(-x**2/2) / (-x sqrt(2 pi)) * (1 + S))``,
    ``S = sum_{n=1}^{series_order} (-1)^n (2n-1)!! / x^(2n)``; in between,
    ``log(ndtr(x))``.  Differentiated as ``pdf(x) / ndtr(x)``, computed as
    ``exp(log pdf(x) - log_ndtr(x))`` (SPEC AD-75).  As JAX's ``custom_jvp``
    function, ``x``'s leaves are read as JAX values before ``series_order``
    is checked (SPEC NP-74).
    """
    for leaf in tree_util.tree_leaves(x):
        core.get_aval(leaf)          # a string: TypeError, 2**70: OverflowError
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    return _log_ndtr(x, series_order)


def _log_ndtr_body(x, series_order):
    """What ``log_ndtr`` computes, for the ``custom_jvp`` function below.

    The public function checks ``series_order`` first and passes it by
    position, as the non-differentiated argument of the ``custom_jvp``.
    """
    x = jnp.asarray(x)
    dtype = jnp.dtype_of(x)
    if dtype not in _LOG_NDTR_SEGMENTS:
        raise TypeError(f"x.dtype={np.dtype(dtype)} is not supported.")
    lower, upper = (np.array(v, dtype) for v in _LOG_NDTR_SEGMENTS[dtype])
    above = lax.gt(x, upper)
    # One ndtr evaluation serves both upper regimes; clamping keeps the
    # unused branches finite.
    ndtr_value = _ndtr(jnp.where(above, lax.neg(x), lax.max(x, lower)))
    return jnp.where(above, lax.neg(ndtr_value),
                     jnp.where(lax.gt(x, lower), lax.log(ndtr_value),
                               _log_ndtr_lower(lax.min(x, lower), series_order)))


# Named like the public function, as JAX's jaxprs show ``name=log_ndtr``.
_log_ndtr_body.__name__ = "log_ndtr"
_log_ndtr = custom_jvp(_log_ndtr_body, nondiff_argnums=(1,))


@_log_ndtr.defjvp
def _log_ndtr_jvp(series_order, primals, tangents):
    (x,), (t,) = primals, tangents
    ans = _log_ndtr(x, series_order)
    return ans, lax.mul(t, lax.exp(lax.sub(_norm_logpdf(x), ans)))


def _norm_logpdf(x):
    """``log`` of the standard normal density."""
    return lax.sub(lax.mul(_const(x, -0.5), lax.square(x)),
                   _const(x, 0.5 * math.log(2 * math.pi)))


def _log_ndtr_lower(x, series_order):
    """The asymptotic series of ``log(ndtr(x))`` for ``x << -1``."""
    log_scale = lax.sub(
        lax.sub(lax.mul(jnp.const(x, -0.5), lax.square(x)), lax.log(lax.neg(x))),
        jnp.const(x, 0.5 * math.log(2 * math.pi)))
    return lax.add(log_scale, lax.log(_log_ndtr_series(x, series_order)))


def _log_ndtr_series(x, series_order):
    """``1 + S``, the even and odd terms of ``S`` summed apart."""
    if series_order <= 0:
        return jnp.const(x, 1)
    x_sq = lax.square(x)
    sums = [jnp.full_like(x, 0), jnp.full_like(x, 0)]  # even n, odd n
    power = x_sq
    for n in range(1, series_order + 1):
        term = lax.div(jnp.const(x, _double_factorial(2 * n - 1)), power)
        sums[n % 2] = lax.add(sums[n % 2], term)
        power = lax.mul(power, x_sq)
    return lax.sub(lax.add(jnp.const(x, 1), sums[0]), sums[1])


def _double_factorial(n):
    return math.prod(range(n, 1, -2))


# Cephes' rational approximations for ndtri (S. L. Moshier, Cephes Math
# Library): numerator and denominator coefficients, highest power first.
# Central region |p - 1/2| <= 1/2 - exp(-2), in w = p - 1/2:
_NDTRI_P0 = (-5.99633501014107895267E1, 9.80010754185999661536E1,
             -5.66762857469070293439E1, 1.39312609387279679503E1,
             -1.23916583867381258016E0)
_NDTRI_Q0 = (1.0, 1.95448858338141759834E0, 4.67627912898881538453E0,
             8.63602421390890590575E1, -2.25462687854119370527E2,
             2.00260212380060660359E2, -8.20372256168333339912E1,
             1.59056225126211695515E1, -1.18331621121330003142E0)
# Tails, in 1/z with z = sqrt(-2 log p): for 2 <= z < 8 ...
_NDTRI_P1 = (4.05544892305962419923E0, 3.15251094599893866154E1,
             5.71628192246421288162E1, 4.40805073893200834700E1,
             1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2,
             -8.57456785154685413611E-4)
_NDTRI_Q1 = (1.0, 1.57799883256466749731E1, 4.53907635128879210584E1,
             4.13172038254672030440E1, 1.50425385692907503408E1,
             2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4)
# ... and for z >= 8.
_NDTRI_P2 = (3.23774891776946035970E0, 6.91522889068984211695E0,
             3.93881025292474443415E0, 1.33303460815807542389E0,
             2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6,
             6.23974539184983293730E-9)
_NDTRI_Q2 = (1.0, 6.02427039364742014255E0, 3.67983563856160859403E0,
             1.37702099489081330271E0, 2.16236993594496635890E-1,
             1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9)


def ndtri(p):
    """The inverse of ``ndtr``: ``-inf`` at 0, ``inf`` at 1, NaN outside.

    Cephes' method: a rational function of ``w = p - 1/2`` in the middle;
    in the tails (``p`` or ``1 - p`` below ``exp(-2)``), ``z - log(z)/z``
    minus a rational correction in ``1/z``, ``z = sqrt(-2 log p)``.
    float32/float64 only.  A list is refused (TypeError), as in JAX.
    """
    util.check_arraylike("ndtri", p)
    _check_float32_or_64(
        p, "x.dtype={} is not supported, see docstring for supported types.")
    p = jnp.asarray(p)
    c = lambda v: jnp.const(p, v)  # noqa: E731 - a scalar of p's dtype
    tail_edge = math.exp(-2.0)
    upper = lax.gt(p, c(1 - tail_edge))
    # Work with the smaller of p and 1 - p; the sign is restored at the end.
    q = jnp.where(upper, lax.sub(c(1.0), p), p)
    q = jnp.where(lax.eq(q, c(0.0)), c(0.5), q)  # keep the unused branches finite
    w = lax.sub(q, c(0.5))
    ww = lax.mul(w, w)
    central = lax.add(w, lax.mul(lax.mul(w, ww),
                                 lax.div(_polyval(_NDTRI_P0, ww), _polyval(_NDTRI_Q0, ww))))
    central = lax.mul(central, c(-math.sqrt(2 * math.pi)))
    z = lax.sqrt(lax.mul(c(-2.0), lax.log(q)))
    inv_z = lax.div(c(1.0), z)
    first = lax.sub(z, lax.div(lax.log(z), z))
    near = lax.div(lax.div(_polyval(_NDTRI_P1, inv_z), _polyval(_NDTRI_Q1, inv_z)), z)
    far = lax.div(lax.div(_polyval(_NDTRI_P2, inv_z), _polyval(_NDTRI_Q2, inv_z)), z)
    tail = lax.sub(first, jnp.where(lax.ge(z, c(8.0)), far, near))
    x = jnp.where(lax.gt(q, c(tail_edge)), central, tail)
    x = jnp.where(upper, x, lax.neg(x))
    return jnp.where(lax.eq(p, c(0.0)), c(-np.inf),
                     jnp.where(lax.eq(p, c(1.0)), c(np.inf), x))


def _polyval(coefs, x):
    """Horner's rule with Python-float coefficients in ``x``'s dtype."""
    acc = jnp.full_like(x, 0)
    for coef in coefs:
        acc = lax.add(lax.mul(acc, x), jnp.const(x, coef))
    return acc

