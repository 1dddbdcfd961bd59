"""``jax.scipy.stats.logistic``: the logistic distribution (SPEC STA-2)."""
from refjax._src.lax import lax
from refjax._src.numpy import ufuncs
from refjax._src.scipy import special
from refjax._src.scipy.stats._common import const, promote, standardize

__all__ = ["cdf", "isf", "logpdf", "pdf", "ppf", "sf"]


def logpdf(x, loc=0, scale=1):
    """``-2 logaddexp(z/2, -z/2) - log(scale)``, overflow-free in both
    tails (SPEC STA-2)."""
    x, loc, scale = promote("logistic.logpdf", x, loc, scale)
    z = standardize(x, loc, scale)
    two = const(z, 2)
    half_z = lax.div(z, two)
    return lax.sub(lax.mul(lax.neg(two), ufuncs.logaddexp(half_z, lax.neg(half_z))),
                   lax.log(scale))


def pdf(x, loc=0, scale=1):
    """``exp(logpdf)`` (SPEC STA-2)."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """``expit(z)`` (SPEC STA-2)."""
    x, loc, scale = promote("logistic.cdf", x, loc, scale)
    return special.expit(standardize(x, loc, scale))


def sf(x, loc=0, scale=1):
    """``expit(-z)`` (SPEC STA-2)."""
    x, loc, scale = promote("logistic.sf", x, loc, scale)
    return special.expit(lax.neg(standardize(x, loc, scale)))


def ppf(x, loc=0, scale=1):
    """``loc + scale logit(q)``: NaN outside [0, 1] (SPEC STA-2)."""
    x, loc, scale = promote("logistic.ppf", x, loc, scale)
    return lax.add(lax.mul(special.logit(x), scale), loc)


def isf(x, loc=0, scale=1):
    """``loc - scale logit(q)`` (SPEC STA-2)."""
    x, loc, scale = promote("logistic.isf", x, loc, scale)
    return lax.add(lax.mul(lax.neg(special.logit(x)), scale), loc)
