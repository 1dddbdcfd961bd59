"""``jax.scipy.stats.cauchy``: the Cauchy distribution (SPEC STA-2)."""
import numpy as np

from refjax._src.lax import lax
from refjax._src.scipy.stats._common import const, promote, standardize

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    """``-log(pi scale) - log1p(z**2)``, ``z = (x - loc) / scale`` (SPEC STA-2)."""
    x, loc, scale = promote("cauchy.logpdf", x, loc, scale)
    z = standardize(x, loc, scale)
    log_normalizer = lax.log(lax.mul(const(x, np.pi), scale))
    return lax.neg(lax.add(log_normalizer, lax.log1p(lax.mul(z, z))))


def pdf(x, loc=0, scale=1):
    """``exp(logpdf)`` (SPEC STA-2)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``1/2 + atan(z) / pi`` (SPEC STA-2)."""
    x, loc, scale = promote("cauchy.cdf", x, loc, scale)
    z = standardize(x, loc, scale)
    return lax.add(const(x, 0.5), lax.mul(lax.div(const(x, 1.0), const(x, np.pi)), lax.atan(z)))


def logcdf(x, loc=0, scale=1):
    """``log(cdf)`` (SPEC STA-2)."""
    return lax.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    """``cdf(-x, -loc, scale)`` (SPEC STA-2)."""
    x, loc, scale = promote("cauchy.sf", x, loc, scale)
    return cdf(lax.neg(x), lax.neg(loc), scale)


def logsf(x, loc=0, scale=1):
    """``logcdf(-x, -loc, scale)`` (SPEC STA-2)."""
    x, loc, scale = promote("cauchy.logsf", x, loc, scale)
    return logcdf(lax.neg(x), lax.neg(loc), scale)


def _quantile(q, loc, scale, sign):
    # tan(sign * (pi q - pi/2)): the lower quantile for sign 1, the upper for -1.
    angle = lax.sub(lax.mul(const(q, np.pi), q), const(q, np.pi / 2))
    if sign < 0:
        angle = lax.sub(const(q, np.pi / 2), lax.mul(const(q, np.pi), q))
    return lax.add(lax.mul(lax.tan(angle), scale), loc)


def ppf(q, loc=0, scale=1):
    """``loc + scale tan(pi q - pi/2)``; no check that ``q`` is in [0, 1]
    (SPEC STA-2)."""
    q, loc, scale = promote("cauchy.ppf", q, loc, scale)
    return _quantile(q, loc, scale, 1)


def isf(q, loc=0, scale=1):
    """``loc + scale tan(pi/2 - pi q)`` (SPEC STA-2)."""
    q, loc, scale = promote("cauchy.isf", q, loc, scale)
    return _quantile(q, loc, scale, -1)
