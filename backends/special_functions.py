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
    """Inverse of erf: a rational start refined by Newton's method.

    Near |y| = 1, ``erf(x) - y`` cancels catastrophically (erf(x) rounds to
    1 for x > 5.9), so for |y| > 0.5 Newton solves ``log erfc(x) = log(1 - |y|)``
    instead: ``1 - |y|`` is exact there (Sterbenz) and the logarithm makes
    the equation nearly linear, so even a poor start converges quickly.
    """
    if math.isnan(y) or y < -1 or y > 1:
        return math.nan
    if y in (-1.0, 1.0):
        return math.copysign(math.inf, y)
    x = _erfinv_start(y)
    if abs(y) <= 0.5:
        for _ in range(3):
            x -= (math.erf(x) - y) / _erf_slope(x)
        return x
    log_target, x = math.log1p(-abs(y)), abs(x)
    for _ in range(20):
        tail = math.erfc(x)
        # d/dx log erfc(x) = -erf'(x) / erfc(x), hence the plus sign.
        step = (math.log(tail) - log_target) * tail / _erf_slope(x)
        x += step
        if abs(step) <= 1e-16 * x:
            break
    return math.copysign(x, y)


def _erf_slope(x):
    return 2.0 / math.sqrt(math.pi) * math.exp(-x * x)


def _erfinv_start(y):
    """Giles' single-precision approximation of erfinv(y)."""
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
    return p * y


def _digamma(x):
    """psi(x): reflection for x < 0.5, recurrence up to 10, asymptotic series.

    Poles (0 and the negative integers) and -inf give NaN, +inf gives +inf,
    as XLA's digamma does.
    """
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x == math.inf:
        return math.inf
    if x <= 0 and x == math.floor(x):
        return math.nan
    if x < 0.5:
        # psi(1 - x) - psi(x) = pi / tan(pi x); tan has period pi, so reduce
        # x by its nearest integer first (exactly) to keep pi * x accurate.
        frac = x - round(x)
        return _digamma(1.0 - x) - math.pi / math.tan(math.pi * frac)
    acc = 0.0
    while x < 10.0:
        acc -= 1.0 / x
        x += 1.0
    # ln x - 1/(2x) - sum B_2k / (2k x^2k), Bernoulli numbers B_2 .. B_14.
    inv = 1.0 / (x * x)
    series = inv * (1 / 12 - inv * (1 / 120 - inv * (1 / 252 - inv * (
        1 / 240 - inv * (1 / 132 - inv * (691 / 32760 - inv / 12))))))
    return acc + math.log(x) - 0.5 / x - series


def _gammaln(x):
    """log|Gamma(x)|; +inf at the poles and at both infinities (as XLA)."""
    if math.isnan(x):
        return math.nan
    if math.isinf(x) or (x <= 0 and x == math.floor(x)):
        return math.inf
    return math.lgamma(x)


FUNCTIONS = {
    "erf": _elementwise(math.erf),
    "erfc": _elementwise(math.erfc),
    "erfinv": _elementwise(_erfinv),
    "gammaln": _elementwise(_gammaln),
    "digamma": _elementwise(_digamma),
}
