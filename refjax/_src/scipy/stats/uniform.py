"""``jax.scipy.stats.uniform``: the uniform distribution on
``[loc, loc + scale]`` (SPEC STA-2)."""
import numpy as np

from refjax._src.lax import lax
from refjax._src.numpy import creation, lax_numpy, ufuncs
from refjax._src.scipy.stats._common import (
    NAN, NEG_INF, bad_probability, outside, promote, where,
)

__all__ = ["cdf", "logpdf", "pdf", "ppf"]


def logpdf(x, loc=0, scale=1):
    """``-log(scale)`` on ``[loc, loc + scale]``, ``-inf`` outside (SPEC STA-2)."""
    x, loc, scale = promote("uniform.logpdf", x, loc, scale)
    return where(outside(x, loc, lax.add(loc, scale)), NEG_INF, lax.neg(lax.log(scale)))


def pdf(x, loc=0, scale=1):
    """``exp(logpdf)`` (SPEC STA-2)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """0 below ``loc``, 1 above ``loc + scale``, ``(x - loc) / scale`` on the
    interval, 0 where no case holds (NaN arguments); never weakly typed
    (SPEC STA-2)."""
    x, loc, scale = promote("uniform.cdf", x, loc, scale)
    dtype = np.dtype(creation.asarray(x).dtype)
    zero, one = creation.array(0, dtype), creation.array(1, dtype)
    high = lax.add(loc, scale)
    inside = ufuncs.logical_and(lax.ge(x, loc), lax.le(x, high))
    return lax_numpy.select([lax.lt(x, loc), lax.gt(x, high), inside],
                            [zero, one, lax.div(lax.sub(x, loc), scale)])


def ppf(q, loc=0, scale=1):
    """``loc + scale q``; NaN for ``q`` outside [0, 1] or NaN (SPEC STA-2)."""
    q, loc, scale = promote("uniform.ppf", q, loc, scale)
    return where(bad_probability(q), NAN, lax.add(loc, lax.mul(scale, q)))
