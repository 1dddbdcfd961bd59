"""``jax.scipy.stats.norm``: the normal distribution (SPEC STA-2)."""
import numpy as np

from refjax._src.lax import lax
from refjax._src.numpy import creation, ufuncs
from refjax._src.scipy import special
from refjax._src.scipy.stats._common import const, promote, standardize

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    """``-(log(2 pi scale**2) + ((x - loc) / scale)**2) / 2`` (SPEC STA-2)."""
    x, loc, scale = promote("norm.logpdf", x, loc, scale)
    variance = lax.square(scale)
    log_normalizer = lax.log(lax.mul(const(x, 2 * np.pi), variance))
    quadratic = lax.div(lax.square(lax.sub(x, loc)), variance)
    return lax.div(lax.add(log_normalizer, quadratic), const(x, -2))


def pdf(x, loc=0, scale=1):
    """``exp(logpdf)`` (SPEC STA-2)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``ndtr((x - loc) / scale)``; float16 is ``ndtr``'s TypeError (SPEC STA-2)."""
    x, loc, scale = promote("norm.cdf", x, loc, scale)
    return special.ndtr(standardize(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """``log_ndtr((x - loc) / scale)``, accurate in the lower tail (SPEC STA-2)."""
    x, loc, scale = promote("norm.logcdf", x, loc, scale)
    return special.log_ndtr(standardize(x, loc, scale))


def sf(x, loc=0, scale=1):
    """``cdf(-x, -loc, scale)``, accurate in the upper tail (SPEC STA-2)."""
    x, loc, scale = promote("norm.sf", x, loc, scale)
    return cdf(lax.neg(x), lax.neg(loc), scale)


def logsf(x, loc=0, scale=1):
    """``logcdf(-x, -loc, scale)`` (SPEC STA-2)."""
    x, loc, scale = promote("norm.logsf", x, loc, scale)
    return logcdf(lax.neg(x), lax.neg(loc), scale)


def ppf(q, loc=0, scale=1):
    """``ndtri(q) * scale + loc`` as an array of the default float dtype
    (float64 under x64 even for float32 ``q``; never weak), as JAX's
    ``asarray(..., float)`` makes it (SPEC STA-2)."""
    value = ufuncs.add(ufuncs.multiply(special.ndtri(q), scale), loc)
    return creation.asarray(value, float)


def isf(q, loc=0, scale=1):
    """``ppf(1 - q, loc, scale)`` (SPEC STA-2)."""
    return ppf(lax.sub(const(q, 1), q), loc, scale)
