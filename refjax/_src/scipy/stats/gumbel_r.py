"""``jax.scipy.stats.gumbel_r``: the right-skewed Gumbel distribution
(SPEC STA-2).  Every function is NaN where ``scale <= 0``."""
from refjax._src.lax import lax
from refjax._src.nn.extra_functions import log1mexp
from refjax._src.scipy import special
from refjax._src.scipy.stats._common import NAN, const, promote, standardize, where

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def _valid(scale):
    return lax.gt(scale, const(scale, 0))


def logpdf(x, loc=0, scale=1):
    """``-log(scale) - (z + exp(-z))`` (SPEC STA-2)."""
    x, loc, scale = promote("gumbel_r.logpdf", x, loc, scale)
    z = standardize(x, loc, scale)
    value = lax.add(special.xlogy(-1, scale), lax.neg(lax.add(z, lax.exp(lax.neg(z)))))
    return where(_valid(scale), value, NAN)


def pdf(x, loc=0, scale=1):
    """``exp(logpdf)`` (SPEC STA-2)."""
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """``-exp(-z)`` (SPEC STA-2)."""
    x, loc, scale = promote("gumbel_r.logcdf", x, loc, scale)
    z = standardize(x, loc, scale)
    return where(_valid(scale), lax.neg(lax.exp(lax.neg(z))), NAN)


def cdf(x, loc=0, scale=1):
    """``exp(logcdf)`` (SPEC STA-2)."""
    return lax.exp(logcdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    """``1 - exp(-exp(-z))`` (SPEC STA-2)."""
    x, loc, scale = promote("gumbel_r.sf", x, loc, scale)
    neg_z = lax.div(lax.sub(loc, x), scale)
    value = lax.sub(const(x, 1), lax.exp(lax.neg(lax.exp(neg_z))))
    return where(_valid(scale), value, NAN)


def logsf(x, loc=0, scale=1):
    """``log1mexp(exp(-z))`` = ``log(1 - exp(-exp(-z)))`` (SPEC STA-2)."""
    x, loc, scale = promote("gumbel_r.logsf", x, loc, scale)
    neg_z = lax.div(lax.sub(loc, x), scale)
    return where(_valid(scale), log1mexp(lax.exp(neg_z)), NAN)


def ppf(p, loc=0, scale=1):
    """``loc - scale log(-log p)`` for ``0 < p < 1``, NaN elsewhere (also at
    0 and 1) (SPEC STA-2)."""
    p, loc, scale = promote("gumbel_r.ppf", p, loc, scale)
    inside = lax.bitwise_and(lax.gt(p, const(p, 0)), lax.lt(p, const(p, 1)))
    value = lax.sub(loc, lax.mul(scale, lax.log(special.xlogy(-1, p))))
    return where(inside, value, NAN)
