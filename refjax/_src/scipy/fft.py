"""``jax.scipy.fft``: the type-2 discrete cosine transform and its inverse
(SPEC SIG-10, SIG-11).

A DCT-II of length ``N`` is one complex FFT of the samples reordered (even
indices ascending, then odd indices descending), each bin turned by the
quarter-sample phase ``exp(-i pi k / 2N)``, doubled and kept real.  The
inverse undoes the steps in reverse order.  As in JAX, only type 2 exists,
``norm`` is None, 'backward' or 'ortho', a complex input is transformed as
its real and imaginary parts, and the result's dtype is that of the FFT's
real part (float32 for integers and half precision, float64 under x64 for
64-bit inputs).
"""
import operator
from collections.abc import Sequence

import numpy as np

from refjax._src import core, dtypes
from refjax._src.lax import lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.numpy import creation
from refjax._src.numpy import fft as jnp_fft
from refjax._src.numpy import lax_numpy, ufuncs, util

__all__ = ["dct", "dctn", "idct", "idctn"]


def _aval(x):
    return core.get_aval(x)


def _check(name, type, norm):  # noqa: A002
    if type != 2:
        raise NotImplementedError("Only DCT type 2 is implemented.")
    if norm is not None and norm not in ("backward", "ortho"):
        raise ValueError(f"jax.scipy.fft.{name}: norm={norm!r} is not implemented")


def _is_complex(x):
    return dtypes.issubdtype(_aval(x).dtype, np.complexfloating)


def _static_length(n):
    """A transform length: a static integer.  As in JAX, an array is
    refused (it cannot be a padding parameter) and so is a float."""
    hash(n)             # TypeError: unhashable type, for arrays
    try:
        return operator.index(n)
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of integer "
                        f"type, got ({n!r},).") from None


def _resize(x, n, axis):
    """``x`` zero-padded (or cut, for a smaller ``n``) to length ``n``."""
    if n is None:
        return x
    n = _static_length(n)
    config = [(0, n - _aval(x).shape[axis] if a == axis else 0, 0)
              for a in range(_aval(x).ndim)]
    return lax_shapes.pad(x, lax._const(x, 0), config)


def _check_length(name, x, axis):
    if _aval(x).shape[axis] == 0:
        raise TypeError(f"jax.scipy.fft.{name}: the transformed axis {axis} has length 0.")


def _along(vector, axis, ndim):
    """A 1-d array laid along ``axis`` of an ``ndim``-d array."""
    return lax_shapes.expand_dims(vector, tuple(a for a in range(ndim) if a != axis))


def _twiddle(n, axis, ndim, dtype, sign):
    """``exp(sign * i pi k / 2n)`` for ``k = 0 .. n-1``, along ``axis``."""
    k = creation.arange(n, dtype=dtype)
    k, n_arr = util.promote_dtypes_complex(k, n)
    return _along(ufuncs.exp(sign * 0.5j * np.pi * k / n_arr), axis, ndim)


def _ortho_scale(x, axis):
    """Divides bin 0 by ``sqrt(4N)`` and the others by ``sqrt(2N)``."""
    n = _aval(x).shape[axis]
    dtype = _aval(x).dtype
    factor = lax_shapes.concatenate(
        [lax.full((1,), 4, dtype), lax.full((n - 1,), 2, dtype)], 0)
    return x / ufuncs.sqrt(_along(factor, axis, _aval(x).ndim) * n)


def _reorder(n):
    """The DCT's sample order: even indices ascending, odd descending."""
    return np.concatenate([np.arange(0, n, 2), np.arange(1, n, 2)[::-1]])


def _split_complex(fun, x, **kwargs):
    return lax.complex(fun(ufuncs.real(x), **kwargs), fun(ufuncs.imag(x), **kwargs))


# ---------------------------------------------------------------------------
# One axis (SPEC SIG-10)
# ---------------------------------------------------------------------------

def dct(x, type=2, n=None, axis=-1, norm=None):  # noqa: A002
    """DCT-II along ``axis``: ``y[k] = 2 sum_n x[n] cos(pi k (2n+1) / 2N)``,
    after padding or cutting to ``n``; 'ortho' makes it orthonormal
    (SPEC SIG-10)."""
    x = util.ensure_arraylike("dct", x)
    _check("dct", type, norm)
    if _is_complex(x):
        return _split_complex(dct, x, type=type, n=n, axis=axis, norm=norm)
    axis = core.canonicalize_axis(axis, _aval(x).ndim)
    x = _resize(x, n, axis)
    _check_length("dct", x, axis)
    length, ndim = _aval(x).shape[axis], _aval(x).ndim
    spectrum = jnp_fft.fft(lax_numpy.take(x, _reorder(length), axis=axis), axis=axis)
    real_dtype = _aval(ufuncs.real(spectrum)).dtype
    turned = spectrum * _twiddle(length, axis, ndim, real_dtype, -1)
    out = 2 * ufuncs.real(turned)
    return _ortho_scale(out, axis) if norm == "ortho" else out


def idct(x, type=2, n=None, axis=-1, norm=None):  # noqa: A002
    """The inverse of ``dct`` (a scaled DCT-III) along ``axis``, after
    padding or cutting to ``n`` (SPEC SIG-10)."""
    x = util.ensure_arraylike("idct", x)
    _check("idct", type, norm)
    if _is_complex(x):
        return _split_complex(idct, x, type=type, n=n, axis=axis, norm=norm)
    axis = core.canonicalize_axis(axis, _aval(x).ndim)
    x = _resize(x, n, axis)
    _check_length("idct", x, axis)
    length, ndim = _aval(x).shape[axis], _aval(x).ndim
    x, = util.promote_dtypes_inexact(x)
    # 'backward' coefficients carry the 'ortho' scale twice over.
    if norm != "ortho":
        x = _ortho_scale(x, axis)
    x = _ortho_scale(x, axis)
    twiddle = _twiddle(length, axis, ndim, _aval(x).dtype, +1)
    x = x.astype(_aval(twiddle).dtype) * twiddle * (2 * length)
    samples = ufuncs.real(jnp_fft.ifft(x, axis=axis))
    return lax_numpy.take(samples, np.argsort(_reorder(length)), axis=axis)


# ---------------------------------------------------------------------------
# Several axes (SPEC SIG-11)
# ---------------------------------------------------------------------------

def _lengths_and_axes(x, s, axes):
    """``s`` as a list (an int is one length) and the canonical axes."""
    ndim = _aval(x).ndim
    if s is not None:
        try:
            s = list(s)
        except TypeError:           # one length, for one axis
            s = [operator.index(s)]
        if len(s) > ndim:
            raise ValueError(f"s must have at most x.ndim ({ndim}) elements, got {len(s)}")
    if axes is None:
        axes = tuple(range(ndim - len(s), ndim)) if s is not None else tuple(range(ndim))
    elif isinstance(axes, Sequence):
        axes = tuple(core.canonicalize_axis(a, ndim) for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError(f"repeated axis: {axes}")
    else:
        axes = (core.canonicalize_axis(axes, ndim),)
    return s, axes


def _resize_axes(x, s, axes):
    if s is None:
        return x
    lengths = dict(zip(axes, map(_static_length, s)))
    config = [(0, lengths[a] - _aval(x).shape[a] if a in lengths else 0, 0)
              for a in range(_aval(x).ndim)]
    return lax_shapes.pad(x, lax._const(x, 0), config)


def _transform_axes(name, one_axis, x, type, s, axes, norm):  # noqa: A002
    x = util.ensure_arraylike(name, x)
    _check(name, type, norm)
    if _is_complex(x):
        return _split_complex(
            lambda part: _transform_axes(name, one_axis, part, type, s, axes, norm), x)
    s, axes = _lengths_and_axes(x, s, axes)
    if len(axes) == 1:
        return one_axis(x, n=s[0] if s is not None else None, axis=axes[0], norm=norm)
    x = _resize_axes(x, s, axes)
    for axis in axes:
        x = one_axis(x, axis=axis, norm=norm)
    return x


def dctn(x, type=2, s=None, axes=None, norm=None):  # noqa: A002
    """The DCT-II along each of ``axes`` (default: the last ``len(s)`` axes,
    or all), each padded or cut to its length in ``s`` (SPEC SIG-11)."""
    return _transform_axes("dctn", dct, x, type, s, axes, norm)


def idctn(x, type=2, s=None, axes=None, norm=None):  # noqa: A002
    """The inverse of ``dctn`` (SPEC SIG-11)."""
    return _transform_axes("idctn", idct, x, type, s, axes, norm)
