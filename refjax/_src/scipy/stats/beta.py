"""``jax.scipy.stats.beta``: the beta distribution on
``[loc, loc + scale]`` (SPEC STA-3)."""
from refjax._src.lax import lax
from refjax._src.numpy import ufuncs
from refjax._src.scipy import special, special_lax
from refjax._src.scipy.stats._common import (
    NAN, NEG_INF, const, either, outside, promote, standardize, where,
)

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, b, loc=0, scale=1):
    """``xlogy(a-1, y) + xlog1py(b-1, -y) - betaln(a, b) - log(scale)``,
    ``y = (x - loc) / scale``: ``-inf`` outside the support, NaN where
    ``a``, ``b`` or ``scale`` is not positive (SPEC STA-3)."""
    x, a, b, loc, scale = promote("beta.logpdf", x, a, b, loc, scale)
    one = const(x, 1)
    y = standardize(x, loc, scale)
    log_kernel = lax.add(special.xlogy(lax.sub(a, one), y),
                         special.xlog1py(lax.sub(b, one), lax.neg(y)))
    value = lax.sub(lax.add(lax.neg(special.betaln(a, b)), log_kernel), lax.log(scale))
    value = where(outside(x, loc, lax.add(loc, scale)), NEG_INF, value)
    zero = const(a, 0)
    bad = either(either(lax.le(a, zero), lax.le(b, zero)), lax.le(scale, zero))
    return where(bad, NAN, value)


def pdf(x, a, b, loc=0, scale=1):
    """``exp(logpdf)`` (SPEC STA-3)."""
    return lax.exp(logpdf(x, a, b, loc, scale))


def _unit(x, loc, scale):
    """``(x - loc) / scale`` clamped to [0, 1]."""
    return lax.clamp(const(x, 0), standardize(x, loc, scale), const(x, 1))


def cdf(x, a, b, loc=0, scale=1):
    """``betainc(a, b, y)`` with ``y`` clamped to [0, 1] (SPEC STA-3)."""
    x, a, b, loc, scale = promote("beta.cdf", x, a, b, loc, scale)
    return special_lax.betainc(a, b, _unit(x, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    """``log(cdf)`` (SPEC STA-3)."""
    return lax.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    """``betainc(b, a, 1 - y)`` (SPEC STA-3)."""
    x, a, b, loc, scale = promote("beta.sf", x, a, b, loc, scale)
    return special_lax.betainc(b, a, ufuncs.subtract(1, _unit(x, loc, scale)))


def logsf(x, a, b, loc=0, scale=1):
    """``log(sf)`` (SPEC STA-3)."""
    return lax.log(sf(x, a, b, loc, scale))
