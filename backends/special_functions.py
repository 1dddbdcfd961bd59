"""Special functions on NumPy arrays without SciPy (``Backend.special``).

NumPy has no ``erf`` or ``lgamma``; these evaluate them elementwise in
float64 with the standard library (``math.erf``, ``math.lgamma``) or with
classic series, then return the input's dtype.  They are the reference's
slow-but-exact path; the CuPy backend uses ``cupyx.scipy.special`` instead.
"""
import math

import numpy as np


def _elementwise(fn):
    vec = np.vectorize(fn, otypes=[np.float64])

    def apply(x):
        x = np.asarray(x)
        out = vec(x.astype(np.float64)) if x.size else x.astype(np.float64)
        return np.asarray(out).astype(x.dtype)
    return apply


def _erfinv(y):
    """Inverse of erf: a rational start refined by Newton's method on erf."""
    if math.isnan(y) or y < -1 or y > 1:
        return math.nan
    if y in (-1.0, 1.0):
        return math.copysign(math.inf, y)
    # Giles' single-precision approximation as a starting point.
    w = -math.log((1.0 - y) * (1.0 + y))
    if w < 5.0:
        w -= 2.5
        p = 2.81022636e-08
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):
            p = c + p * w
    else:
        w = math.sqrt(w) - 3.0
        p = -0.000200214257
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                  -0.0076224613, 0.00943887047, 1.00167406, 2.83297682):
            p = c + p * w
    x = p * y
    for _ in range(3):
        err = math.erf(x) - y
        x -= err / (2.0 / math.sqrt(math.pi) * math.exp(-x * x))
    return x


def _digamma(x):
    """psi(x): reflection for x < 0.5, recurrence up to 6, asymptotic series."""
    if math.isnan(x):
        return math.nan
    if x <= 0 and x == math.floor(x):
        return math.nan
    if x < 0.5:
        return _digamma(1.0 - x) - math.pi / math.tan(math.pi * x)
    acc = 0.0
    while x < 6.0:
        acc -= 1.0 / x
        x += 1.0
    inv = 1.0 / (x * x)
    series = inv * (1 / 12 - inv * (1 / 120 - inv * (1 / 252 - inv * (
        1 / 240 - inv * (1 / 132)))))
    return acc + math.log(x) - 0.5 / x - series


def _gammaln(x):
    if math.isnan(x):
        return math.nan
    if x <= 0 and x == math.floor(x):
        return math.inf
    return math.lgamma(x)


FUNCTIONS = {
    "erf": _elementwise(math.erf),
    "erfc": _elementwise(math.erfc),
    "erfinv": _elementwise(_erfinv),
    "gammaln": _elementwise(_gammaln),
    "digamma": _elementwise(_digamma),
}
