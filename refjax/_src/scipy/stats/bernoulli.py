"""``jax.scipy.stats.bernoulli``: the Bernoulli distribution (SPEC STA-4)."""
from refjax._src.lax import lax
from refjax._src.numpy import lax_numpy, ufuncs
from refjax._src.scipy import special
from refjax._src.scipy.stats._common import (
    NAN, NEG_INF, both, const, either, promote, where,
)

__all__ = ["cdf", "logpmf", "pmf", "ppf"]


def logpmf(k, p, loc=0):
    """``xlogy(y, p) + xlog1py(1 - y, -p)``, ``y = k - loc``; ``-inf``
    outside [0, 1] (a non-integer ``y`` inside is not checked, as in JAX)
    (SPEC STA-4)."""
    k, p, loc = promote("bernoulli.logpmf", k, p, loc)
    zero, one = const(k, 0), const(k, 1)
    y = lax.sub(k, loc)
    value = ufuncs.add(special.xlogy(y, p), special.xlog1py(lax.sub(one, y), ufuncs.negative(p)))
    return where(either(lax.lt(y, zero), lax.gt(y, one)), NEG_INF, value)


def pmf(k, p, loc=0):
    """``exp(logpmf)`` (SPEC STA-4)."""
    return ufuncs.exp(logpmf(k, p, loc))


def _bad_p(p):
    nan_or_outside = either(ufuncs.isnan(p), ufuncs.less(p, 0))
    return either(nan_or_outside, ufuncs.greater(p, 1))


def cdf(k, p):
    """0 below 0, ``1 - p`` on [0, 1), 1 from 1 on; NaN for NaN ``k``/``p``
    or ``p`` outside [0, 1] (SPEC STA-4)."""
    k, p = promote("bernoulli.cdf", k, p)
    zero, one = const(k, 0), const(k, 1)
    conditions = [either(ufuncs.isnan(k), _bad_p(p)), lax.lt(k, zero),
                  both(lax.ge(k, zero), lax.lt(k, one)), lax.ge(k, one)]
    return lax_numpy.select(conditions, [NAN, zero, ufuncs.subtract(one, p), one])


def ppf(q, p):
    """0 for ``q <= 1 - p``, else 1; NaN for NaN or out-of-range ``q``/``p``
    (SPEC STA-4)."""
    q, p = promote("bernoulli.ppf", q, p)
    zero, one = const(q, 0), const(q, 1)
    bad = either(either(ufuncs.isnan(q), _bad_p(p)),
                 either(ufuncs.less(q, zero), ufuncs.greater(q, one)))
    return where(bad, NAN, where(lax.le(q, ufuncs.subtract(one, p)), zero, one))
