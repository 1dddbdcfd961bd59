"""``jax.scipy.stats.laplace``: the Laplace distribution (SPEC STA-2)."""
from refjax._src.lax import lax
from refjax._src.scipy.stats._common import const, promote, standardize

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x, loc=0, scale=1):
    """``-|x - loc| / scale - log(2 scale)`` (SPEC STA-2)."""
    x, loc, scale = promote("laplace.logpdf", x, loc, scale)
    linear = lax.div(lax.abs(lax.sub(x, loc)), scale)
    return lax.neg(lax.add(linear, lax.log(lax.mul(const(x, 2), scale))))


def pdf(x, loc=0, scale=1):
    """``exp(logpdf)`` (SPEC STA-2)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``exp(z) / 2`` for ``z <= 0``, ``1 - exp(-z) / 2`` above (SPEC STA-2)."""
    x, loc, scale = promote("laplace.cdf", x, loc, scale)
    half = const(x, 0.5)
    z = standardize(x, loc, scale)
    lower = lax.mul(half, lax.exp(z))
    upper = lax.sub(const(x, 1), lax.mul(half, lax.exp(lax.neg(z))))
    return lax.select(lax.le(z, const(x, 0)), lower, upper)
