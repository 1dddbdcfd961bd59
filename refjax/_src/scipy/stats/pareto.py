"""``jax.scipy.stats.pareto``: the Pareto distribution, support
``x >= loc + scale`` (SPEC STA-3)."""
from refjax._src.lax import lax
from refjax._src.scipy.stats._common import (
    NAN, NEG_INF, bad_probability, const, promote, standardize, where,
)

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def _below(x, loc, scale):
    return lax.lt(x, lax.add(loc, scale))


def logpdf(x, b, loc=0, scale=1):
    """``log(b / scale) - (b + 1) log y``, ``-inf`` below ``loc + scale``
    (SPEC STA-3)."""
    x, b, loc, scale = promote("pareto.logpdf", x, b, loc, scale)
    y = standardize(x, loc, scale)
    normalizer = lax.log(lax.div(scale, b))
    value = lax.neg(lax.add(normalizer, lax.mul(lax.add(b, const(x, 1)), lax.log(y))))
    return where(_below(x, loc, scale), NEG_INF, value)


def pdf(x, b, loc=0, scale=1):
    """``exp(logpdf)`` (SPEC STA-3)."""
    return lax.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    """``1 - y**-b``, 0 below the support (SPEC STA-3)."""
    x, b, loc, scale = promote("pareto.cdf", x, b, loc, scale)
    y = standardize(x, loc, scale)
    value = lax.sub(const(x, 1), lax.pow(y, lax.neg(b)))
    return where(_below(x, loc, scale), const(x, 0), value)


def logcdf(x, b, loc=0, scale=1):
    """``log1p(-y**-b)``, ``-inf`` below the support (SPEC STA-3)."""
    x, b, loc, scale = promote("pareto.logcdf", x, b, loc, scale)
    y = standardize(x, loc, scale)
    value = lax.log1p(lax.neg(lax.pow(y, lax.neg(b))))
    return where(_below(x, loc, scale), NEG_INF, value)


def logsf(x, b, loc=0, scale=1):
    """``-b log y``, 0 below the support (SPEC STA-3)."""
    x, b, loc, scale = promote("pareto.logsf", x, b, loc, scale)
    y = standardize(x, loc, scale)
    return where(_below(x, loc, scale), const(x, 0), lax.neg(lax.mul(b, lax.log(y))))


def sf(x, b, loc=0, scale=1):
    """``exp(logsf)`` (SPEC STA-3)."""
    return lax.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
    """``loc + scale (1 - q)**(-1/b)``; NaN for ``q`` outside [0, 1] or NaN
    (SPEC STA-3)."""
    q, b, loc, scale = promote("pareto.ppf", q, b, loc, scale)
    one = const(q, 1)
    value = lax.add(loc, lax.mul(scale, lax.pow(lax.sub(one, q), lax.neg(lax.div(one, b)))))
    return where(bad_probability(q), NAN, value)
