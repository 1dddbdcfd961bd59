"""``jax.scipy.stats.multinomial``: the multinomial distribution
(SPEC STA-5)."""
import numpy as np

from refjax._src import dtypes
from refjax._src.lax import lax
from refjax._src.numpy import reductions, ufuncs, util
from refjax._src.scipy import special
from refjax._src.scipy.stats._common import NEG_INF, dtype_of, promote, where

__all__ = ["logpmf", "pmf"]


def logpmf(x, n, p):
    """``gammaln(n + 1) + sum(xlogy(x, p) - gammaln(x + 1), axis=-1)``;
    ``-inf`` unless the sum of all of ``x`` equals ``n``.  ``x`` and ``n``
    must be integers (ValueError), and are broadcast together (SPEC STA-5)."""
    p, = promote("multinomial.logpmf", p)
    x, n = util.promote_args_numeric("multinomial.logpmf", x, n)
    x_dtype = dtype_of(x)
    if not dtypes.issubdtype(x_dtype, np.integer):
        raise ValueError("x and n must be of integer type; got "
                         f"x.dtype={x_dtype}, n.dtype={dtype_of(n)}")
    p_dtype = dtype_of(p)
    x = lax.convert_element_type(x, p_dtype)
    n = lax.convert_element_type(n, p_dtype)
    terms = ufuncs.subtract(special.xlogy(x, p), special.gammaln(ufuncs.add(x, 1)))
    value = ufuncs.add(special.gammaln(ufuncs.add(n, 1)), reductions.sum(terms, axis=-1))
    return where(ufuncs.equal(reductions.sum(x), n), value, NEG_INF)


def pmf(x, n, p):
    """``exp(logpmf)`` (SPEC STA-5)."""
    return lax.exp(logpmf(x, n, p))
