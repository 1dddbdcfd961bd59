"""``jax.scipy.stats.gumbel_l``: the left-skewed Gumbel distribution
(SPEC STA-2).  Every function is NaN where ``scale <= 0``."""
from refjax._src.lax import lax
from refjax._src.scipy import special
from refjax._src.scipy.stats._common import NAN, const, promote, standardize, where

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def _valid(scale):
    return lax.gt(scale, const(scale, 0))


def logpdf(x, loc=0, scale=1):
    """``-log(scale) + z - exp(z)`` (SPEC STA-2)."""
    x, loc, scale = promote("gumbel_l.logpdf", x, loc, scale)
    z = standardize(x, loc, scale)
    value = lax.add(special.xlogy(-1, scale), lax.sub(z, lax.exp(z)))
    return where(_valid(scale), value, NAN)


def pdf(x, loc=0, scale=1):
    """``exp(logpdf)`` (SPEC STA-2)."""
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """``log(1 - exp(-exp(z)))`` through ``expm1`` (SPEC STA-2)."""
    x, loc, scale = promote("gumbel_l.logcdf", x, loc, scale)
    z = standardize(x, loc, scale)
    value = lax.log(lax.neg(lax.expm1(lax.neg(lax.exp(z)))))
    return where(_valid(scale), value, NAN)


def cdf(x, loc=0, scale=1):
    """``exp(logcdf)`` (SPEC STA-2)."""
    return lax.exp(logcdf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """``-exp(z)`` (SPEC STA-2)."""
    x, loc, scale = promote("gumbel_l.logsf", x, loc, scale)
    z = standardize(x, loc, scale)
    return where(_valid(scale), lax.neg(lax.exp(z)), NAN)


def sf(x, loc=0, scale=1):
    """``exp(logsf)`` (SPEC STA-2)."""
    return lax.exp(logsf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """``loc + scale log(-log1p(-p))`` for ``0 < p < 1``, NaN elsewhere
    (SPEC STA-2)."""
    p, loc, scale = promote("gumbel_l.ppf", p, loc, scale)
    inside = lax.bitwise_and(lax.gt(p, const(p, 0)), lax.lt(p, const(p, 1)))
    value = lax.add(loc, lax.mul(scale, lax.log(special.xlog1py(-1, lax.neg(p)))))
    return where(inside, value, NAN)
