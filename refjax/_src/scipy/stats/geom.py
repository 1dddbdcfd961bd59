"""``jax.scipy.stats.geom``: the geometric distribution on 1, 2, ...
(SPEC STA-4)."""
from refjax._src.lax import lax
from refjax._src.numpy import ufuncs
from refjax._src.scipy import special
from refjax._src.scipy.stats._common import NEG_INF, const, promote, where

__all__ = ["logpmf", "pmf"]


def logpmf(k, p, loc=0):
    """``xlog1py(y - 1, -p) + log(p)``, ``y = k - loc``; ``-inf`` for
    ``y <= 0`` (SPEC STA-4)."""
    k, p, loc = promote("geom.logpmf", k, p, loc)
    y = lax.sub(k, loc)
    value = ufuncs.add(special.xlog1py(lax.sub(y, const(k, 1)), ufuncs.negative(p)),
                       lax.log(p))
    return where(lax.le(y, const(k, 0)), NEG_INF, value)


def pmf(k, p, loc=0):
    """``exp(logpmf)`` (SPEC STA-4)."""
    return ufuncs.exp(logpmf(k, p, loc))
