"""``jax.scipy.stats.truncnorm``: the normal distribution truncated to
``[a, b]`` in standardized units (SPEC STA-6)."""
from refjax._src.api import jit
from refjax._src.lax import lax
from refjax._src.nn.logsumexp import logsumexp
from refjax._src.numpy import creation, lax_numpy, ufuncs
from refjax._src.scipy import special
from refjax._src.scipy.stats import norm
from refjax._src.scipy.stats._common import NAN, NEG_INF, promote, standardize, where

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _log_diff(x, y):
    """``log(exp(x) - exp(y))`` as a signed ``logsumexp``."""
    weights = creation.array([creation.ones_like(x), ufuncs.negative(creation.ones_like(y))])
    return logsumexp(creation.array([x, y]), b=weights, axis=0)


def _log_gauss_mass(a, b):
    """``log(ndtr(b) - ndtr(a))``: from the tail nearer zero when ``[a, b]``
    lies on one side of 0 (mirrored when ``a > 0``), else as
    ``log1p(-ndtr(a) - ndtr(-b))``, so that no case cancels."""
    a, b = lax_numpy.broadcast_arrays(creation.array(a), creation.array(b))
    left = ufuncs.less_equal(b, 0)
    right = ufuncs.greater(a, 0)
    central = ufuncs.logical_not(ufuncs.logical_or(left, right))
    a_tail = where(right, ufuncs.negative(b), a)
    b_tail = where(right, ufuncs.negative(a), b)
    tail = _log_diff(special.log_ndtr(b_tail), special.log_ndtr(a_tail))
    middle = ufuncs.log1p(ufuncs.subtract(ufuncs.negative(special.ndtr(a)),
                                          special.ndtr(ufuncs.negative(b))))
    return where(central, middle, tail)


@jit
def logpdf(x, a, b, loc=0, scale=1):
    """``norm.logpdf(x, loc, scale) - log(ndtr(b) - ndtr(a))``; ``-inf`` for
    ``(x - loc) / scale`` outside ``[a, b]``; NaN where ``a >= b``
    (SPEC STA-6)."""
    x, a, b, loc, scale = promote("truncnorm.logpdf", x, a, b, loc, scale)
    value = lax.sub(norm.logpdf(x, loc, scale), _log_gauss_mass(a, b))
    z = standardize(x, loc, scale)
    value = where(ufuncs.logical_or(ufuncs.less(z, a), ufuncs.greater(z, b)), NEG_INF, value)
    return where(ufuncs.greater_equal(a, b), NAN, value)


def pdf(x, a, b, loc=0, scale=1):
    """``exp(logpdf)`` (SPEC STA-6)."""
    return lax.exp(logpdf(x, a, b, loc, scale))


@jit
def logcdf(x, a, b, loc=0, scale=1):
    """``log mass(a, z) - log mass(a, b)``; where that is above -0.1 it is
    ``log1p(-exp(log mass(z, b) - log mass(a, b)))`` instead; 0 for
    ``z >= b``, ``-inf`` for ``z <= a``; NaN where ``a >= b`` (SPEC STA-6)."""
    x, a, b, loc, scale = promote("truncnorm.logcdf", x, a, b, loc, scale)
    x, a, b = lax_numpy.broadcast_arrays(x, a, b)
    z = standardize(x, loc, scale)
    log_total = _log_gauss_mass(a, b)
    log_below = ufuncs.subtract(_log_gauss_mass(a, z), log_total)
    log_above = ufuncs.subtract(_log_gauss_mass(z, b), log_total)
    value = lax_numpy.select(
        [ufuncs.greater_equal(z, b), ufuncs.less_equal(z, a),
         ufuncs.greater(log_below, -0.1), ufuncs.greater(z, a)],
        [0, NEG_INF, ufuncs.log1p(ufuncs.negative(ufuncs.exp(log_above))), log_below])
    return where(ufuncs.greater_equal(a, b), NAN, value)


@jit
def cdf(x, a, b, loc=0, scale=1):
    """``exp(logcdf)`` (SPEC STA-6)."""
    return lax.exp(logcdf(x, a, b, loc, scale))


@jit
def logsf(x, a, b, loc=0, scale=1):
    """``logcdf(-x, -b, -a, -loc, scale)`` (SPEC STA-6)."""
    x, a, b, loc, scale = promote("truncnorm.logsf", x, a, b, loc, scale)
    return logcdf(lax.neg(x), lax.neg(b), lax.neg(a), lax.neg(loc), scale)


@jit
def sf(x, a, b, loc=0, scale=1):
    """``exp(logsf)`` (SPEC STA-6)."""
    return lax.exp(logsf(x, a, b, loc, scale))
