"""``jax.scipy.stats.wrapcauchy``: the wrapped Cauchy distribution on
``[0, 2 pi]`` (SPEC STA-3)."""
import numpy as np

from refjax._src.lax import lax
from refjax._src.numpy import ufuncs
from refjax._src.scipy.stats._common import NAN, NEG_INF, both, const, promote, where

__all__ = ["logpdf", "pdf"]


def logpdf(x, c):
    """``log(1 - c**2) - log(2 pi) - log(1 + c**2 - 2 c cos x)`` for
    ``0 <= x <= 2 pi``, ``-inf`` outside; NaN unless ``0 < c < 1``
    (SPEC STA-3)."""
    x, c = promote("wrapcauchy.logpdf", x, c)
    c_sq = ufuncs.multiply(c, c)
    denominator = ufuncs.subtract(ufuncs.add(1, c_sq),
                                  ufuncs.multiply(ufuncs.multiply(2, c), ufuncs.cos(x)))
    value = ufuncs.subtract(ufuncs.subtract(ufuncs.log(ufuncs.subtract(1, c_sq)),
                                            ufuncs.log(2 * np.pi)),
                            ufuncs.log(denominator))
    in_support = both(lax.ge(x, const(x, 0)), lax.le(x, const(x, 2 * np.pi)))
    valid_c = both(lax.gt(c, const(c, 0)), lax.lt(c, const(c, 1)))
    return where(valid_c, where(in_support, value, NEG_INF), NAN)


def pdf(x, c):
    """``exp(logpdf)`` (SPEC STA-3)."""
    return lax.exp(logpdf(x, c))
