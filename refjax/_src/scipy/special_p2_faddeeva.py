"""The Faddeeva function and its real relatives: ``wofz``, ``erfcx`` and
``dawsn`` (SPEC SPC-31, SPC-32).

``wofz`` uses Weideman's rational approximation (J. A. C. Weideman, SIAM J.
Numer. Anal. 31, 1994) with N = 32 terms in the upper half-plane and the
reflection ``w(-z) = 2 exp(-z**2) - w(z)`` below it.  The coefficients are
computed here from Weideman's formula (an FFT of a sampled function), once,
with NumPy: they are constants, not array data.
"""
import math

import numpy as np

from refjax._src import dtypes
from refjax._src.custom_derivatives import custom_jvp
from refjax._src.lax import lax
from refjax._src.nn import numpy_ops as jnp
from refjax._src.numpy import ufuncs
from refjax._src.numpy import util as np_util
from refjax._src.scipy.special import promote_args_inexact
from refjax._src.scipy.special_p2_tables import (
    DAWSN_AD, DAWSN_AN, DAWSN_BD, DAWSN_BN, DAWSN_CD, DAWSN_CN,
)
from refjax._src.scipy.special_p2_util import (
    in_float32_if_half, polyval, reject_complex,
)

__all__ = ["dawsn", "erfcx", "wofz"]

_INV_SQRT_PI = 1 / math.sqrt(math.pi)


def _weideman_coefficients(n=32):
    """Weideman's ``L = sqrt(n / sqrt 2)`` and the ``n`` coefficients of
    ``w(z) = 2 p(Z) / (L - iz)**2 + 1 / (sqrt(pi) (L - iz))``,
    ``Z = (L + iz) / (L - iz)``, highest power first."""
    m = 2 * n
    scale = math.sqrt(n / math.sqrt(2))
    k = np.arange(-m + 1, m)
    t = scale * np.tan(k * np.pi / (2 * m))
    samples = np.concatenate([[0.0], np.exp(-t ** 2) * (scale ** 2 + t ** 2)])
    a = np.real(np.fft.fft(np.fft.fftshift(samples))) / (2 * m)
    return scale, tuple(a[1:n + 1][::-1])


_WEIDEMAN_L, _WEIDEMAN_C = _weideman_coefficients()


def wofz(z):
    """The Faddeeva function ``w(z) = exp(-z**2) erfc(-iz)``; real and
    integer inputs are promoted to complex (SPEC SPC-31)."""
    # JAX converts a Python int straight to the complex dtype, so one outside
    # the default integer's range is no error (SPEC SPC-30).
    info = np.iinfo(dtypes.default_int_dtype())
    if type(z) is int and not info.min <= z <= info.max:
        z = float(z)
    z, = np_util.promote_args_complex("wofz", z)
    return _wofz(z)


def _wofz_upper(z):
    """Weideman's approximation, accurate for ``Im(z) >= 0``."""
    re = lax.real(z)
    scale = lax.complex(jnp.const(re, _WEIDEMAN_L), jnp.const(re, 0))
    iz = lax.complex(lax.neg(lax.imag(z)), re)
    denom = scale - iz
    p = polyval(_WEIDEMAN_C, (scale + iz) / denom)
    inv_sqrt_pi = lax.complex(jnp.const(re, _INV_SQRT_PI), jnp.const(re, 0))
    return 2 * p / (denom * denom) + inv_sqrt_pi / denom


@custom_jvp
def _wofz(z):
    upper = lax.ge(lax.imag(z), jnp.const(lax.real(z), 0))
    w_upper = _wofz_upper(lax.select(upper, z, lax.neg(z)))
    # w(z) for Im z < 0 from w(-z), which lies in the upper half-plane.
    reflected = 2 * lax.exp(lax.neg(z * z)) - w_upper
    return lax.select(upper, w_upper, reflected)


def _wofz_derivative(g, ans, z):
    """``w'(z) = -2 z w(z) + 2i / sqrt(pi)``."""
    re = lax.real(z)
    two_i_over_sqrt_pi = lax.complex(jnp.const(re, 0), jnp.const(re, 2 * _INV_SQRT_PI))
    return g * (lax.neg(2 * z * ans) + two_i_over_sqrt_pi)


_wofz.defjvps(_wofz_derivative)


def erfcx(x):
    """``exp(x**2) erfc(x)`` without overflow; a complex ``x`` gives
    ``w(ix)`` (SPEC SPC-31)."""
    x, = promote_args_inexact("erfcx", x)
    if ufuncs.iscomplexobj(x):
        return _wofz(lax.complex(lax.neg(lax.imag(x)), lax.real(x)))
    return _erfcx(x)


# Where the asymptotic series replaces exp(x**2) erfc(x): its first omitted
# term is far below the dtype's epsilon there (9 terms in float64, 5 else).
_ERFCX_TERMS = {np.dtype(np.float64): 9, np.dtype(np.float32): 5}


@custom_jvp
def _erfcx(x):
    return in_float32_if_half(
        lambda v: _erfcx_real(v, _ERFCX_TERMS[np.dtype(jnp.dtype_of(v))]), x)


_erfcx.defjvps(lambda g, ans, x: g * (2 * x * ans - jnp.const(x, 2 * _INV_SQRT_PI)))


def _erfcx_real(x, nterms):
    """The direct formula while ``exp(x**2)`` is finite, beyond it
    ``1 / (sqrt(pi) x) sum_k (-1)^k (2k-1)!! / (2 x**2)^k``."""
    threshold = math.sqrt(math.log(float(np.finfo(jnp.dtype_of(x)).max)))
    large = lax.gt(x, jnp.const(x, threshold))
    safe_x = lax.select(large, lax.full_like(x, 1), x)
    direct = lax.exp(lax.square(safe_x)) * lax.erfc(safe_x)
    series = [(-1) ** k * _double_factorial(2 * k - 1) / 2 ** k for k in range(nterms)]
    inv_x2 = jnp.const(x, 1) / lax.square(x)
    asymptotic = polyval(series[::-1], inv_x2) / (x * jnp.const(x, math.sqrt(math.pi)))
    return lax.select(large, asymptotic, direct)


def _double_factorial(n):
    return math.prod(range(n, 1, -2))


def dawsn(x):
    """Dawson's integral ``exp(-x**2) int_0^x exp(t**2) dt``; real only
    (SPEC SPC-32)."""
    x, = promote_args_inexact("dawsn", x)
    reject_complex("dawsn", x)
    return _dawsn(x)


@custom_jvp
def _dawsn(x):
    return in_float32_if_half(_dawsn_real, x)


_dawsn.defjvps(lambda g, ans, x: g * (jnp.const(x, 1) - jnp.const(x, 2) * x * ans))


def _dawsn_real(x):
    """Cody's three rational approximations on ``|x|``, odd symmetry for the
    sign.  Each region gets a harmless argument (1) outside its range so
    that the unused branches stay finite."""
    ax = lax.abs(x)
    one = lax.full_like(ax, 1)
    low = lax.lt(ax, jnp.const(x, 3.25))
    high = lax.ge(ax, jnp.const(x, 6.25))
    middle = lax.bitwise_and(lax.bitwise_not(low), lax.bitwise_not(high))

    a = lax.select(low, ax, one)
    a2 = lax.square(a)
    near = a * polyval(DAWSN_AN, a2) / polyval(DAWSN_AD, a2)
    mid = _dawsn_tail(lax.select(middle, ax, one), DAWSN_BN, DAWSN_BD)
    far = _dawsn_tail(lax.select(high, ax, one), DAWSN_CN, DAWSN_CD)
    return ufuncs.sign(x) * lax.select(low, near, lax.select(high, far, mid))


def _dawsn_tail(a, num, den):
    """``(1 + t P(t) / Q(t)) / (2a)`` with ``t = 1/a**2``."""
    t = jnp.const(a, 1) / lax.square(a)
    return (jnp.const(a, 0.5) / a) * (jnp.const(a, 1) + t * polyval(num, t) / polyval(den, t))
