"""The gamma function of complex arguments, for ``jax.scipy.special.gamma``
(SPEC SPC-7).

Lanczos' approximation (g = 7, nine terms) gives ``log Gamma(w)`` on the
half-plane ``Re(w) >= 1/2``; Euler's reflection formula
``Gamma(z) = pi / (sin(pi z) Gamma(1 - z))`` covers the rest.  Working in
logarithms keeps large arguments from overflowing before the final ``exp``.
"""
import math

import numpy as np

from refjax._src.numpy import lax_numpy, ufuncs

# Lanczos coefficients for g = 7, n = 9 (C. Lanczos, SIAM J. Numer. Anal. B 1,
# 1964; the published values also used by GSL and Numerical Recipes).
_G = 7.0
_COEFFS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028,
           771.32342877765313, -176.61502916214059, 12.507343278686905,
           -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def complex_gamma(z):
    """``Gamma(z)`` for a complex array ``z``: ``nan+nanj`` at the poles
    (non-positive integers) and where a component is NaN, as SciPy."""
    re = ufuncs.real(z)
    pole = (ufuncs.imag(z) == 0) & (re == ufuncs.floor(re)) & (re <= 0)
    bad = pole | ufuncs.isnan(z)
    z = lax_numpy.where(bad, 1, z)           # finite on both branches below
    reflect = ufuncs.real(z) < 0.5
    log_right = _log_gamma_right(lax_numpy.where(reflect, 1 - z, z))
    z_left = lax_numpy.where(reflect, z, 0.5)   # sin(pi z) != 0 off the poles
    log_left = math.log(math.pi) - ufuncs.log(ufuncs.sin(math.pi * z_left)) - log_right
    out = ufuncs.exp(lax_numpy.where(reflect, log_left, log_right))
    return lax_numpy.where(bad, complex(np.nan, np.nan), out)


def _log_gamma_right(w):
    """Lanczos' ``log Gamma(w)`` for ``Re(w) >= 1/2``."""
    x = w - 1
    series = _COEFFS[0]
    for k, c in enumerate(_COEFFS[1:], start=1):
        series = series + c / (x + k)
    t = x + (_G + 0.5)
    return _HALF_LOG_2PI + (x + 0.5) * ufuncs.log(t) - t + ufuncs.log(series)
