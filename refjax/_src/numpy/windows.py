"""Window functions, the Bessel function ``i0``, and geometrically spaced
sequences in ``jax.numpy`` (SPEC NPP-6 .. NPP-8).

Windows are computed from an ``iota`` in the default float dtype
(float32, float64 under x64) whatever the arguments' dtypes, as in JAX;
``M`` must be concrete because it is the output's length.
"""
import operator

import numpy as np

from refjax._src import core, dtypes
from refjax._src.ad_api import jvp
from refjax._src.api import jit
from refjax._src.custom_derivatives import custom_jvp
from refjax._src.lax import lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.numpy import creation, ufuncs, util
from refjax._src.numpy.lax_numpy import _where

__all__ = [
    "bartlett", "blackman", "geomspace", "hamming", "hanning", "i0", "kaiser",
    "logspace",
]


# ---------------------------------------------------------------------------
# i0 (SPEC NPP-6)
# ---------------------------------------------------------------------------

def _bessel_i0e(x):
    """``lax.bessel_i0e`` (imported when used: it lives with the special
    functions of ``lax``)."""
    from refjax._src.lax import special as lax_special
    return lax_special.bessel_i0e(x)


@custom_jvp
def _i0(x):
    # i0 is even: exp(|x|) * i0e(|x|) avoids overflow in i0e's scaling.
    abs_x = lax.abs(x)
    return lax.mul(lax.exp(abs_x), _bessel_i0e(abs_x))


@_i0.defjvp
def _i0_jvp(primals, tangents):
    # The rule of the body, except at 0 where |x| has no derivative: there
    # i0'(0) = 0 (i1(0)), so the tangent is set to zero.
    primal_out, tangent_out = jvp(_i0.fun, primals, tangents)
    return primal_out, _where(primals[0] == 0, 0.0, tangent_out)


@jit
def i0(x):
    """The modified Bessel function of the first kind, order 0, of a real
    argument (inexact dtype; complex input is a ValueError).  Its
    derivative is ``i1``, and exactly 0 at 0 (SPEC NPP-6)."""
    x, = util.promote_args_inexact("i0", x)
    if not dtypes.issubdtype(x.dtype, np.floating):
        raise ValueError(f"Unsupported input type to jax.numpy.i0: {x.dtype}")
    return _i0(x)


# ---------------------------------------------------------------------------
# Windows (SPEC NPP-7)
# ---------------------------------------------------------------------------

def _window_grid(M, name):
    """``M`` read as a static int, the default float dtype, and the sample
    indices ``0 .. M-1`` (None when ``M <= 1``: the window is all ones)."""
    M = core.concrete_or_error(int, M, f"M argument of jnp.{name}")
    dtype = dtypes.default_float_dtype()
    if M <= 1:
        return M, dtype, None
    return M, dtype, lax_shapes.iota(dtype, M)


def _ones(M, dtype):
    return lax.full((M,), 1, dtype)


def blackman(M):
    """The Blackman window of ``M`` points (SPEC NPP-7)."""
    M, dtype, n = _window_grid(M, "blackman")
    if n is None:
        return _ones(M, dtype)
    return (0.42 - 0.5 * ufuncs.cos(2 * np.pi * n / (M - 1))
            + 0.08 * ufuncs.cos(4 * np.pi * n / (M - 1)))


def bartlett(M):
    """The Bartlett (triangular) window of ``M`` points (SPEC NPP-7)."""
    M, dtype, n = _window_grid(M, "bartlett")
    if n is None:
        return _ones(M, dtype)
    return 1 - ufuncs.abs(2 * n + 1 - M) / (M - 1)


def hamming(M):
    """The Hamming window of ``M`` points (SPEC NPP-7)."""
    M, dtype, n = _window_grid(M, "hamming")
    if n is None:
        return _ones(M, dtype)
    return 0.54 - 0.46 * ufuncs.cos(2 * np.pi * n / (M - 1))


def hanning(M):
    """The Hann window of ``M`` points (SPEC NPP-7)."""
    M, dtype, n = _window_grid(M, "hanning")
    if n is None:
        return _ones(M, dtype)
    return 0.5 * (1 - ufuncs.cos(2 * np.pi * n / (M - 1)))


def kaiser(M, beta):
    """The Kaiser window of ``M`` points and shape ``beta`` (which may be
    traced): ``i0(beta * sqrt(1 - ((n - a) / a)**2)) / i0(beta)`` with
    ``a = (M - 1) / 2`` (SPEC NPP-7)."""
    M, dtype, n = _window_grid(M, "kaiser")
    if n is None:
        return _ones(M, dtype)
    alpha = 0.5 * (M - 1)
    return i0(beta * ufuncs.sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(beta)


# ---------------------------------------------------------------------------
# logspace and geomspace (SPEC NPP-8)
# ---------------------------------------------------------------------------

def _spacing_dtypes(start, stop, dtype, fun_name):
    """The result dtype and the inexact dtype the samples are computed in."""
    if dtype is None:
        dtype = util.to_inexact_dtype(dtypes.result_type(start, stop))
    else:
        dtype = dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, fun_name))
    return dtype, util.to_inexact_dtype(dtype)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)`` (SPEC NPP-8)."""
    num = core.concrete_or_error(operator.index, num, "'num' argument of jnp.logspace")
    axis = core.concrete_or_error(operator.index, axis, "'axis' argument of jnp.logspace")
    return _logspace(start, stop, num, endpoint, base, dtype, axis)


@jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def _logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    dtype, comp = _spacing_dtypes(start, stop, dtype, "logspace")
    start, stop = util.ensure_arraylike("logspace", start, stop)
    lin = creation.linspace(start.astype(comp), stop.astype(comp), num,
                            endpoint=endpoint, retstep=False, dtype=None, axis=axis)
    return lax.convert_element_type(ufuncs.power(base, lin), dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` samples from ``start`` to ``stop`` evenly spaced on a log
    scale, keeping the sign of ``start`` (SPEC NPP-8)."""
    num = core.concrete_or_error(operator.index, num, "'num' argument of jnp.geomspace")
    axis = core.concrete_or_error(operator.index, axis, "'axis' argument of jnp.geomspace")
    return _geomspace(start, stop, num, endpoint, dtype, axis)


@jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def _geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    dtype, comp = _spacing_dtypes(start, stop, dtype, "geomspace")
    start, stop = util.ensure_arraylike("geomspace", start, stop)
    start, stop = start.astype(comp), stop.astype(comp)
    sign = ufuncs.sign(start)
    res = sign * logspace(ufuncs.log10(start / sign), ufuncs.log10(stop / sign),
                          num, endpoint=endpoint, base=10.0, dtype=comp, axis=0)
    axis = core.canonicalize_axis(axis, res.ndim)
    if axis != 0:
        res = lax_shapes.transpose(res, (*range(1, axis + 1), 0, *range(axis + 1, res.ndim)))
    return lax.convert_element_type(res, dtype)
