"""``jax.scipy.stats.vonmises``: the von Mises distribution on the circle
(SPEC STA-3)."""
import numpy as np

from refjax._src.lax import lax
from refjax._src.lax import special as lax_special
from refjax._src.numpy import ufuncs
from refjax._src.scipy.stats._common import NAN, const, promote, where

__all__ = ["logpdf", "pdf"]


def logpdf(x, kappa):
    """``kappa (cos x - 1) - log(2 pi i0e(kappa))``; NaN where
    ``kappa <= 0`` (SPEC STA-3)."""
    x, kappa = promote("vonmises.logpdf", x, kappa)
    value = ufuncs.subtract(
        ufuncs.multiply(kappa, ufuncs.subtract(ufuncs.cos(x), 1)),
        ufuncs.log(ufuncs.multiply(2 * np.pi, lax_special.bessel_i0e(kappa))))
    return where(lax.gt(kappa, const(kappa, 0)), value, NAN)


def pdf(x, kappa):
    """``exp(logpdf)`` (SPEC STA-3)."""
    return lax.exp(logpdf(x, kappa))
