"""``jax.scipy.stats.betabinom``: the beta-binomial distribution
(SPEC STA-4)."""
from refjax._src.api import jit
from refjax._src.lax import lax
from refjax._src.scipy import special
from refjax._src.scipy.stats._common import (
    NAN, NEG_INF, both, const, either, promote, where,
)

__all__ = ["logpmf", "pmf"]


@jit
def logpmf(k, n, a, b, loc=0):
    """``-log1p(n) - betaln(n - y + 1, y + 1) + betaln(y + a, n - y + b)
    - betaln(a, b)`` with ``y = floor(k) - loc``; 0 at ``y == n == 0``;
    ``-inf`` for ``y < -loc``, ``y > n`` or ``y + a <= 0``; NaN for
    ``n < 0``, ``a <= 0`` or ``b <= 0``.  Jitted, as in JAX (SPEC STA-4)."""
    k, n, a, b, loc = promote("betabinom.logpmf", k, n, a, b, loc)
    y = lax.sub(lax.floor(k), loc)
    one, zero = const(y, 1), const(y, 0)
    n_minus_y = lax.sub(n, y)
    log_comb = lax.neg(lax.add(lax.log1p(n), special.betaln(lax.add(n_minus_y, one),
                                                              lax.add(y, one))))
    log_beta_ratio = lax.sub(special.betaln(lax.add(y, a), lax.add(n_minus_y, b)),
                             special.betaln(a, b))
    value = lax.add(log_comb, log_beta_ratio)
    value = where(both(lax.eq(y, zero), lax.eq(n, zero)), 0.0, value)
    outside = either(either(lax.lt(y, lax.neg(loc)), lax.gt(y, n)),
                     lax.le(lax.add(y, a), zero))
    value = where(outside, NEG_INF, value)
    bad = either(either(lax.lt(n, zero), lax.le(a, zero)), lax.le(b, zero))
    return where(bad, NAN, value)


def pmf(k, n, a, b, loc=0):
    """``exp(logpmf)`` (SPEC STA-4)."""
    return lax.exp(logpmf(k, n, a, b, loc))
