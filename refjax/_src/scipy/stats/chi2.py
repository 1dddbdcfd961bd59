"""``jax.scipy.stats.chi2``: the chi-squared distribution (SPEC STA-3)."""
import numpy as np

from refjax._src.lax import lax
from refjax._src.scipy import special_lax
from refjax._src.scipy.stats._common import NEG_INF, const, promote, standardize, where

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, df, loc=0, scale=1):
    """``(df/2 - 1) log y - y/2 - lgamma(df/2) - df log(2)/2 - log(scale)``,
    ``-inf`` below ``loc`` (SPEC STA-3)."""
    x, df, loc, scale = promote("chi2.logpdf", x, df, loc, scale)
    one, two = const(x, 1), const(x, 2)
    y = standardize(x, loc, scale)
    half_df = lax.div(df, two)
    kernel = lax.sub(lax.mul(lax.sub(half_df, one), lax.log(y)), lax.div(y, two))
    normalizer = lax.neg(lax.add(lax.lgamma(half_df),
                                 lax.div(lax.mul(lax.log(two), df), two)))
    value = lax.add(lax.sub(normalizer, lax.log(scale)), kernel)
    return where(lax.lt(x, loc), NEG_INF, value)


def pdf(x, df, loc=0, scale=1):
    """``exp(logpdf)`` (SPEC STA-3)."""
    return lax.exp(logpdf(x, df, loc, scale))


def _half_y(x, loc, scale):
    """``(x - loc) / (2 scale)`` clamped to ``[0, inf]``."""
    two = const(scale, 2)
    return lax.clamp(const(x, 0), lax.div(lax.sub(x, loc), lax.mul(scale, two)),
                     const(x, np.inf))


def cdf(x, df, loc=0, scale=1):
    """``gammainc(df/2, y/2)`` (SPEC STA-3)."""
    x, df, loc, scale = promote("chi2.cdf", x, df, loc, scale)
    return special_lax.gammainc(lax.div(df, const(scale, 2)), _half_y(x, loc, scale))


def logcdf(x, df, loc=0, scale=1):
    """``log(cdf)`` (SPEC STA-3)."""
    return lax.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    """``gammaincc(df/2, y/2)`` (SPEC STA-3)."""
    x, df, loc, scale = promote("chi2.sf", x, df, loc, scale)
    return special_lax.gammaincc(lax.div(df, const(scale, 2)), _half_y(x, loc, scale))


def logsf(x, df, loc=0, scale=1):
    """``log(sf)`` (SPEC STA-3)."""
    return lax.log(sf(x, df, loc, scale))
