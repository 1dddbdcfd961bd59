"""``jax.scipy.stats.poisson``: the Poisson distribution (SPEC STA-4)."""
import numpy as np

from refjax._src.api import jit
from refjax._src.lax import lax
from refjax._src.numpy import creation, lax_numpy, reductions, ufuncs, util
from refjax._src.scipy import special, special_lax
from refjax._src.scipy.stats._common import NEG_INF, const, either, promote, where

__all__ = ["cdf", "entropy", "logpmf", "pmf"]


def logpmf(k, mu, loc=0):
    """``xlogy(y, mu) - gammaln(y + 1) - mu``, ``y = k - loc``; ``-inf`` for
    ``y < 0`` or a non-integer ``k`` (SPEC STA-4)."""
    k, mu, loc = promote("poisson.logpmf", k, mu, loc)
    y = lax.sub(k, loc)
    value = ufuncs.subtract(ufuncs.subtract(special.xlogy(y, mu),
                                            special.gammaln(ufuncs.add(y, 1))), mu)
    not_integer = lax.ne(ufuncs.round(k), k)
    return where(either(lax.lt(y, const(k, 0)), not_integer), NEG_INF, value)


def pmf(k, mu, loc=0):
    """``exp(logpmf)`` (SPEC STA-4)."""
    return ufuncs.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """``gammaincc(floor(y + 1), mu)``, 0 for ``y < 0`` (SPEC STA-4)."""
    k, mu, loc = promote("poisson.logpmf", k, mu, loc)
    zero = const(k, 0)
    y = lax.sub(k, loc)
    value = special_lax.gammaincc(ufuncs.floor(ufuncs.add(1, y)), mu)
    return where(lax.lt(y, zero), zero, value)


@jit
def entropy(mu, loc=0):
    """The Shannon entropy of Poisson(``mu``), in ``mu``'s shape broadcast
    with ``loc``'s (``loc`` does not change it): 0 at ``mu == 0``; for
    ``mu < 10`` the sum of ``entr(pmf)`` over ``k < min(35, ceil(mu + 20))``;
    for ``mu < 100`` over ``k < min(250, ceil(mu + 10 sqrt(mu) + 20))``;
    beyond, ``log(2 pi e mu)/2 - 1/(12 mu)`` (SPEC STA-4)."""
    mu, loc = util.ensure_arraylike("poisson.entropy", mu, loc)
    mu, loc = util.promote_dtypes_inexact(mu, loc)
    out_shape = lax_numpy.broadcast_shapes(lax_numpy.shape(mu), lax_numpy.shape(loc))
    flat = lax_numpy.ravel(mu)
    small = _truncated_sum(flat, 35, ufuncs.add(flat, 20))
    medium = _truncated_sum(
        flat, 250, ufuncs.add(ufuncs.add(flat, ufuncs.multiply(10, ufuncs.sqrt(flat))), 20))
    log_term = ufuncs.log(ufuncs.multiply(2 * np.pi * np.e, flat))
    large = ufuncs.subtract(ufuncs.multiply(0.5, log_term),
                            ufuncs.true_divide(1.0, ufuncs.multiply(12, flat)))
    result = where(lax.lt(flat, const(flat, 10)), small,
                   where(lax.lt(flat, const(flat, 100)), medium, large))
    result = where(ufuncs.equal(flat, 0), creation.zeros_like(flat), result)
    return lax_numpy.broadcast_to(lax_numpy.reshape(result, lax_numpy.shape(mu)), out_shape)


def _truncated_sum(mu, max_k, bound):
    """``sum_k entr(pmf(k, mu))`` over ``0 <= k < min(max_k, ceil(bound))``."""
    k = lax_numpy.expand_dims(creation.arange(max_k, dtype=mu.dtype), 1)
    probs = pmf(k, mu, 0)
    keep = ufuncs.less(k, lax_numpy.expand_dims(ufuncs.ceil(bound), 0))
    return reductions.sum(special.entr(where(keep, probs, 0.0)), axis=0)
