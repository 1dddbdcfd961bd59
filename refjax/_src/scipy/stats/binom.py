"""``jax.scipy.stats.binom``: the binomial distribution (SPEC STA-4)."""
from refjax._src.lax import lax
from refjax._src.numpy import ufuncs
from refjax._src.scipy import special
from refjax._src.scipy.stats._common import NEG_INF, both, const, either, promote, where

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """``log C(n, y) + xlogy(y, p) + xlog1py(n - y, -p)``, ``y = k - loc``;
    0 where ``y == n == 0`` or the linear term is 0; ``-inf`` unless
    ``loc <= k < loc + n + 1`` (SPEC STA-4)."""
    k, n, p, loc = promote("binom.logpmf", k, n, p, loc)
    y = lax.sub(k, loc)
    zero = const(y, 0)
    comb = lax.sub(special.gammaln(ufuncs.add(n, 1)),
                   lax.add(special.gammaln(ufuncs.add(y, 1)),
                           special.gammaln(ufuncs.add(ufuncs.subtract(n, y), 1))))
    linear = lax.add(special.xlogy(y, p), special.xlog1py(lax.sub(n, y), lax.neg(p)))
    value = lax.add(comb, linear)
    certain = either(both(lax.eq(y, zero), lax.eq(n, zero)), lax.eq(linear, zero))
    value = where(certain, 0.0, value)
    in_support = both(lax.ge(k, loc), lax.lt(k, ufuncs.add(ufuncs.add(loc, n), 1)))
    return where(in_support, value, NEG_INF)


def pmf(k, n, p, loc=0):
    """``exp(logpmf)`` (SPEC STA-4)."""
    return lax.exp(logpmf(k, n, p, loc))
