"""``jax.scipy.stats.expon``: the exponential distribution (SPEC STA-2)."""
from refjax._src.lax import lax
from refjax._src.numpy import creation
from refjax._src.scipy.stats._common import (
    NAN, NEG_INF, bad_probability, promote, where,
)

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    """``-(x - loc) / scale - log(scale)`` for ``x >= loc``, else ``-inf``
    (SPEC STA-2)."""
    x, loc, scale = promote("expon.logpdf", x, loc, scale)
    linear = lax.div(lax.sub(x, loc), scale)
    return where(lax.lt(x, loc), NEG_INF, lax.neg(lax.add(linear, lax.log(scale))))


def pdf(x, loc=0, scale=1):
    """``exp(logpdf)`` (SPEC STA-2)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``-expm1(-(x - loc) / scale)``, 0 below ``loc`` (SPEC STA-2)."""
    x, loc, scale = promote("expon.cdf", x, loc, scale)
    neg_z = lax.div(lax.sub(loc, x), scale)
    return where(lax.lt(x, loc), creation.zeros_like(neg_z), lax.neg(lax.expm1(neg_z)))


def logsf(x, loc=0, scale=1):
    """``-(x - loc) / scale``, 0 below ``loc`` (SPEC STA-2)."""
    x, loc, scale = promote("expon.sf", x, loc, scale)
    neg_z = lax.div(lax.sub(loc, x), scale)
    return where(lax.lt(x, loc), creation.zeros_like(neg_z), neg_z)


def sf(x, loc=0, scale=1):
    """``exp(logsf)`` (SPEC STA-2)."""
    return lax.exp(logsf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """``log1p(-sf)`` (SPEC STA-2)."""
    return lax.log1p(lax.neg(sf(x, loc, scale)))


def ppf(q, loc=0, scale=1):
    """``loc - scale log1p(-q)``; NaN for ``q`` outside [0, 1] or NaN
    (SPEC STA-2)."""
    q, loc, scale = promote("expon.ppf", q, loc, scale)
    return where(bad_probability(q), NAN, lax.sub(loc, lax.mul(scale, lax.log1p(lax.neg(q)))))
