"""Integrals of trigonometric functions: ``sici`` (sine and cosine
integrals) and ``fresnel`` (SPEC SPC-36, SPC-37).

Both follow Cephes (``sici.c``, ``fresnl.c``; tables in
``special_p2_tables``): rational functions of ``x**2`` for small
arguments, auxiliary functions ``f``, ``g`` of ``1/x**2`` times
``sin``/``cos`` beyond, and the leading asymptotic term (or the limit) far
out.  Both are ``custom_jvp`` functions with the exact derivatives.
"""
import math

import numpy as np

from refjax._src import dtypes
from refjax._src.api import jit
from refjax._src.custom_derivatives import custom_jvp
from refjax._src.nn import numpy_ops as jnp
from refjax._src.numpy import lax_numpy, ufuncs
from refjax._src.scipy import special_p2_tables as tables
from refjax._src.scipy.special import promote_args_inexact
from refjax._src.scipy.special_p2_util import polyval, reject_complex

__all__ = ["fresnel", "sici"]

_HALF_PI = math.pi / 2


# ---------------------------------------------------------------------------
# Sine and cosine integrals (SPEC SPC-36)
# ---------------------------------------------------------------------------

@custom_jvp
@jit
def sici(x):
    """``(Si(x), Ci(x))``: ``Si = int_0^x sin t / t dt`` (odd),
    ``Ci = gamma + log|x| + int_0^|x| (cos t - 1)/t dt`` (even; NaN at
    ``-inf``).  Real only: complex ``x`` is JAX's ``ValueError``
    (SPEC SPC-36)."""
    x, = promote_args_inexact("sici", x)
    reject_complex("sici", x, "Argument `x` to sici must be real-valued. "
                   f"Got dtype {jnp.dtype_of(x)}.")
    ax = ufuncs.abs(x)
    small = ax <= 4
    middle = (ax > 4) & (ax <= 1e9)
    pieces = [_sici_small(ax), _sici_auxiliary(ax), _sici_far(ax)]
    si = lax_numpy.select([small, middle], [p[0] for p in pieces[:2]], pieces[2][0])
    ci = lax_numpy.select([small, middle], [p[1] for p in pieces[:2]], pieces[2][1])
    return ufuncs.sign(x) * si, lax_numpy.where(ufuncs.isneginf(x), np.nan, ci)


@sici.defjvp
@jit
def _sici_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return sici(x), (ufuncs.sinc(x / np.pi) * t, ufuncs.cos(x) / x * t)


def _sici_small(x):
    """``Si = x P(x**2)/Q(x**2)``, ``Ci = gamma + log x + x**2 P'/Q'`` for
    ``0 <= x <= 4`` (``Si(0) = 0``, ``Ci(0) = -inf``)."""
    t = x * x
    si = x * polyval(tables.SI_P, t) / polyval(tables.SI_Q, t)
    ci = np.euler_gamma + ufuncs.log(x) + t * polyval(tables.CI_P, t) / polyval(tables.CI_Q, t)
    at_zero = x == 0
    return lax_numpy.where(at_zero, 0.0, si), lax_numpy.where(at_zero, -np.inf, ci)


def _sici_auxiliary(x):
    """``Si = pi/2 - f cos x - g sin x``, ``Ci = f sin x - g cos x`` with
    Cephes' ``f``, ``g`` on ``(4, 8)`` and ``[8, 1e9]``."""
    s, c = ufuncs.sin(x), ufuncs.cos(x)
    z = 1.0 / (x * x)

    def aux(fn, fd, gn, gd):
        return (polyval(fn, z) / (x * polyval(fd, z)),
                z * polyval(gn, z) / polyval(gd, z))
    f4, g4 = aux(tables.AUX_FN4, tables.AUX_FD4, tables.AUX_GN4, tables.AUX_GD4)
    f8, g8 = aux(tables.AUX_FN8, tables.AUX_FD8, tables.AUX_GN8, tables.AUX_GD8)
    near = x < 8.0
    f, g = lax_numpy.where(near, f4, f8), lax_numpy.where(near, g4, g8)
    return _HALF_PI - f * c - g * s, f * s - g * c


def _sici_far(x):
    """The leading terms beyond ``1e9``; the limits ``pi/2`` and ``0`` at ``inf``."""
    si = _HALF_PI - ufuncs.cos(x) / x
    ci = ufuncs.sin(x) / x
    at_inf = ufuncs.isposinf(x)
    return lax_numpy.where(at_inf, _HALF_PI, si), lax_numpy.where(at_inf, 0.0, ci)


# ---------------------------------------------------------------------------
# Fresnel integrals (SPEC SPC-37)
# ---------------------------------------------------------------------------

@jit
def _sin_cos_half_pi_square(x):
    """``sin(pi x**2 / 2)`` and ``cos(pi x**2 / 2)`` with the argument reduced
    exactly: with ``s = |x| mod 2``, ``x**2 / 2 = s (|x| - s/2) (mod 2)``,
    so the large product ``x**2`` is never formed."""
    x = ufuncs.abs(x)
    s = ufuncs.fmod(x, 2.0)
    r = ufuncs.fmod(s * (x - s / 2), 2.0)
    sin = lax_numpy.where(
        r < 0.5, ufuncs.sin(np.pi * r),
        lax_numpy.where(r > 1.5, ufuncs.sin(np.pi * (r - 2.0)),
                        -ufuncs.sin(np.pi * (r - 1.0))))
    cos = lax_numpy.where(
        r == 0.5, 0.0,
        lax_numpy.where(r < 1.0, -ufuncs.sin(np.pi * (r - 0.5)),
                        ufuncs.sin(np.pi * (r - 1.5))))
    return sin, cos


def fresnel(x):
    """``(S(x), C(x)) = (int_0^x sin(pi t**2/2) dt, int_0^x cos(pi t**2/2) dt)``,
    both odd, ``1/2`` at ``inf`` (SPEC SPC-37).  float32 uses Cephes'
    single-precision polynomials (float16/bfloat16 are computed in float32
    and rounded back), float64 the double-precision rational functions;
    complex inputs raise ``NotImplementedError`` as in JAX.  As JAX's
    ``custom_jvp`` function it first reads a Python int as the default
    integer (``OverflowError`` if it does not fit)."""
    if type(x) is int:
        dtypes.check_python_int(x, dtypes.default_int_dtype())
    return _fresnel(x)


def _fresnel_body(x):
    x, = promote_args_inexact("fresnel", x)
    dtype = jnp.dtype_of(x)
    if dtypes.issubdtype(dtype, np.complexfloating):
        raise NotImplementedError("Support for complex-valued inputs is not implemented yet.")
    if dtype == np.float64:
        s, c = _fresnel_parts(x, single=False)
    elif dtype in (np.float32, np.float16, dtypes.bfloat16):
        s, c = _fresnel_parts(x.astype(np.float32), single=True)
    else:
        raise NotImplementedError(f"Support for {dtype} dtype is not implemented yet.")
    negative = x < 0.0
    s, c = lax_numpy.where(negative, -s, s), lax_numpy.where(negative, -c, c)
    return s.astype(dtype), c.astype(dtype)


def _fresnel_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    sin, cos = _sin_cos_half_pi_square(x)
    return _fresnel(x), (sin * x_dot, cos * x_dot)


_fresnel_body.__name__ = "fresnel"          # the name jaxprs show, as in JAX
_fresnel = custom_jvp(_fresnel_body)
_fresnel.defjvp(_fresnel_jvp)


def _fresnel_parts(x_signed, single):
    """``S(|x|)``, ``C(|x|)``: series for ``x**2 < 2.5625``, the auxiliary
    functions up to ``36974``, beyond that the limit (single precision) or
    its first correction (double precision)."""
    x = ufuncs.abs(x_signed)
    x2 = x * x
    sin, cos = _sin_cos_half_pi_square(x)
    s_small, c_small = _fresnel_small(x, x2, single)
    if single:
        s_large = c_large = 0.5
    else:
        c_large = 0.5 + 1 / (np.pi * x) * sin
        s_large = 0.5 - 1 / (np.pi * x) * cos
    f, g = _fresnel_auxiliary(x2, single)
    t = np.pi * x
    c_mid = 0.5 + (f * sin - g * cos) / t
    s_mid = 0.5 - (f * cos + g * sin) / t
    infinite = ufuncs.isinf(x_signed)
    small, large = x2 < 2.5625, x > 36974.0

    def pick(v_small, v_large, v_mid):
        return lax_numpy.where(infinite, 0.5, lax_numpy.where(
            small, v_small, lax_numpy.where(large, v_large, v_mid)))
    return pick(s_small, s_large, s_mid), pick(c_small, c_large, c_mid)


def _fresnel_small(x, x2, single):
    t = x2 * x2
    if single:
        return (x * x2 * polyval(tables.FRESNEL32_SN, t),
                x * polyval(tables.FRESNEL32_CN, t))
    return (x * x2 * polyval(tables.FRESNEL64_SN, t) / polyval(tables.FRESNEL64_SD, t),
            x * polyval(tables.FRESNEL64_CN, t) / polyval(tables.FRESNEL64_CD, t))


def _fresnel_auxiliary(x2, single):
    """Cephes' ``f`` and ``g`` in ``u = 1/(pi x**2)**2``."""
    t = np.pi * x2
    u = 1.0 / (t * t)
    t = 1.0 / t
    if single:
        return (1.0 - u * polyval(tables.FRESNEL32_FN, u),
                t * polyval(tables.FRESNEL32_GN, u))
    return (1.0 - u * polyval(tables.FRESNEL64_FN, u) / polyval(tables.FRESNEL64_FD, u),
            t * polyval(tables.FRESNEL64_GN, u) / polyval(tables.FRESNEL64_GD, u))
