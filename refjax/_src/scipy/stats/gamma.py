"""``jax.scipy.stats.gamma``: the gamma distribution (SPEC STA-3)."""
import numpy as np

from refjax._src.lax import lax
from refjax._src.scipy import special, special_lax
from refjax._src.scipy.stats._common import NEG_INF, const, promote, standardize, where

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, loc=0, scale=1):
    """``xlogy(a - 1, y) - y - gammaln(a) - log(scale)``, ``-inf`` below
    ``loc``; ``y`` is replaced by 1 there so that no NaN reaches the
    gradient (SPEC STA-3)."""
    x, a, loc, scale = promote("gamma.logpdf", x, a, loc, scale)
    ok = lax.ge(x, loc)
    one = const(x, 1)
    y = where(ok, standardize(x, loc, scale), one)
    log_kernel = lax.sub(special.xlogy(lax.sub(a, one), y), y)
    value = lax.sub(log_kernel, lax.add(special.gammaln(a), lax.log(scale)))
    return where(ok, value, NEG_INF)


def pdf(x, a, loc=0, scale=1):
    """``exp(logpdf)`` (SPEC STA-3)."""
    return lax.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    """``gammainc(a, y)``, ``y`` clamped to ``[0, inf]`` (SPEC STA-3)."""
    x, a, loc, scale = promote("gamma.cdf", x, a, loc, scale)
    y = lax.clamp(const(x, 0), standardize(x, loc, scale), const(x, np.inf))
    return special_lax.gammainc(a, y)


def logcdf(x, a, loc=0, scale=1):
    """``log(cdf)`` (SPEC STA-3)."""
    return lax.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    """``gammaincc(a, y)``; 1 below ``loc`` (SPEC STA-3)."""
    x, a, loc, scale = promote("gamma.sf", x, a, loc, scale)
    y = standardize(x, loc, scale)
    return where(lax.lt(y, const(y, 0)), 1, special_lax.gammaincc(a, y))


def logsf(x, a, loc=0, scale=1):
    """``log(sf)`` (SPEC STA-3)."""
    return lax.log(sf(x, a, loc, scale))
