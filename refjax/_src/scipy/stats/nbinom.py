"""``jax.scipy.stats.nbinom``: the negative binomial distribution
(SPEC STA-4)."""
from refjax._src.lax import lax
from refjax._src.scipy import special
from refjax._src.scipy.stats._common import NEG_INF, const, promote, where

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """``gammaln(y + n) - gammaln(n) - gammaln(y + 1) + xlogy(n, p)
    + xlogy(y, 1 - p)``, ``y = k - loc``; ``-inf`` below ``loc``
    (SPEC STA-4)."""
    k, n, p, loc = promote("nbinom.logpmf", k, n, p, loc)
    one = const(k, 1)
    y = lax.sub(k, loc)
    comb = lax.sub(lax.sub(special.gammaln(lax.add(y, n)), special.gammaln(n)),
                   special.gammaln(lax.add(y, one)))
    linear = lax.add(special.xlogy(n, p), special.xlogy(y, lax.sub(one, p)))
    return where(lax.lt(k, loc), NEG_INF, lax.add(comb, linear))


def pmf(k, n, p, loc=0):
    """``exp(logpmf)`` (SPEC STA-4)."""
    return lax.exp(logpmf(k, n, p, loc))
