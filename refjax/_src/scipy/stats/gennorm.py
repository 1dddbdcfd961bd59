"""``jax.scipy.stats.gennorm``: the generalized normal distribution
(SPEC STA-3)."""
from refjax._src.lax import lax
from refjax._src.lax import special as lax_special
from refjax._src.numpy import ufuncs
from refjax._src.scipy.stats._common import promote

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x, beta):
    """``log(beta / 2) - lgamma(1 / beta) - |x|**beta`` (SPEC STA-3)."""
    x, beta = promote("gennorm.logpdf", x, beta)
    log_normalizer = ufuncs.subtract(lax.log(ufuncs.multiply(0.5, beta)),
                                     lax.lgamma(ufuncs.true_divide(1, beta)))
    return ufuncs.subtract(log_normalizer, ufuncs.power(lax.abs(x), beta))


def pdf(x, beta):
    """``exp(logpdf)`` (SPEC STA-3)."""
    return lax.exp(logpdf(x, beta))


def cdf(x, beta):
    """``(1 + sign(x) P(1/beta, |x|**beta)) / 2`` (SPEC STA-3)."""
    x, beta = promote("gennorm.cdf", x, beta)
    tail = lax_special.igamma(ufuncs.true_divide(1, beta), ufuncs.power(lax.abs(x), beta))
    return ufuncs.multiply(0.5, ufuncs.add(1, ufuncs.multiply(lax.sign(x), tail)))
