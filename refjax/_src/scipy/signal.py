"""``jax.scipy.signal``: convolutions and ``detrend`` (SPEC SIG-1 .. SIG-5).

The direct convolutions are one ``conv_general_dilated`` each, with the
smaller operand flipped, as JAX computes them; ``fftconvolve`` multiplies
real (or complex) FFTs of the zero-padded inputs.  Inputs are promoted to an
inexact dtype first (integers and booleans become the default float).  The
spectral functions (``stft``, ``csd``, ``welch``, ``istft``) live in
``signal_spectral``.
"""
import operator

import numpy as np

from refjax._src import core, dtypes
from refjax._src.lax import lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax.convolution import conv_general_dilated
from refjax._src.lax.dot import Precision
from refjax._src.lax.dynamic_slice import dynamic_slice
from refjax._src.numpy import contractions, creation
from refjax._src.numpy import fft as jnp_fft
from refjax._src.numpy import lax_numpy, linalg_extra, reductions, util
from refjax._src.vmap_api import vmap

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "detrend", "fftconvolve"]

_MODES = ("full", "same", "valid")


def _shape(x):
    return core.get_aval(x).shape


def _arrays(fun_name, *args):
    """The operands as Arrays; a list or other non-array is a TypeError."""
    util.check_arraylike(fun_name, *args)
    return [util.asarray(a) for a in args]


def _given_shape(fun_name, x):
    """The shape an operand declares (arrays, tracers, shape structs); a
    list or other non-array is a TypeError."""
    if hasattr(x, "shape"):
        return tuple(x.shape)
    util.check_arraylike(fun_name, x)
    return ()


def _flip_all(x):
    return lax_shapes.rev(x, tuple(range(len(_shape(x)))))


# ---------------------------------------------------------------------------
# Direct convolution (SPEC SIG-1)
# ---------------------------------------------------------------------------

def _padding(mode, kernel_shape, orig_kernel_shape):
    """The ``conv_general_dilated`` padding for ``mode``.  'same' centres the
    output on the first input as SciPy does, measured from the operand that
    was passed second (before any swap)."""
    if mode == "valid":
        return [(0, 0) for _ in kernel_shape]
    if mode == "same":
        return [(s - 1 - (o - 1) // 2, s - o + (o - 1) // 2)
                for s, o in zip(kernel_shape, orig_kernel_shape)]
    return [(s - 1, s - 1) for s in kernel_shape]


def _convolve_nd(fun_name, in1, in2, mode, precision):
    """N-d convolution of same-rank arrays: the smaller one, flipped, is the
    kernel of one ``conv_general_dilated`` (SPEC SIG-1)."""
    if mode not in _MODES:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    # Shapes are checked before the operands are read as arrays, as in JAX.
    shape1, shape2 = _given_shape(fun_name, in1), _given_shape(fun_name, in2)
    if len(shape1) != len(shape2):
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if 0 in shape1 or 0 in shape2:
        raise ValueError("zero-size arrays not supported in convolutions, got "
                         f"shapes {shape1} and {shape2}.")
    in1, in2 = util.promote_dtypes_inexact(*_arrays(fun_name, in1, in2))
    no_swap = all(a >= b for a, b in zip(shape1, shape2))
    swap = all(a <= b for a, b in zip(shape1, shape2))
    if not (no_swap or swap):
        raise ValueError("One input must be smaller than the other in every dimension.")
    if swap:
        in1, in2 = in2, in1
    padding = _padding(mode, _shape(in2), shape2)
    out = conv_general_dilated(
        lax_shapes.expand_dims(in1, (0, 1)), lax_shapes.expand_dims(_flip_all(in2), (0, 1)),
        (1,) * len(shape1), padding, precision=precision)
    return lax_shapes.squeeze(out, (0, 1))


def convolve(in1, in2, mode="full", method="auto", precision=None):
    """N-d convolution of two arrays of the same rank, SciPy's modes
    ('full', 'same', 'valid'); ``method`` 'auto'/'direct' is one
    ``conv_general_dilated``, 'fft' is ``fftconvolve`` (SPEC SIG-1)."""
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method not in ("direct", "auto"):
        raise ValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.")
    return _convolve_nd("convolve", in1, in2, mode, precision)


def correlate(in1, in2, mode="full", method="auto", precision=None):
    """Cross-correlation: the convolution of ``in1`` with ``in2`` conjugated
    and flipped along every axis (SPEC SIG-1)."""
    in2 = _arrays("correlate", in2)[0]
    return convolve(in1, _flip_all(_conj(in2)), mode, method=method,
                    precision=precision)


def _conj(x):
    """``x.conj()``: the identity on real dtypes."""
    if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating):
        return lax.conj(x)
    return x


def _check_2d(name, in1, in2, boundary, fillvalue):
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError(f"{name}() only supports 2-dimensional inputs.")
    return _arrays(name, in1, in2)


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """2-d convolution; only zero filling at the boundary is supported, as
    in JAX (NotImplementedError otherwise) (SPEC SIG-2)."""
    in1, in2 = _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve_nd("convolve2d", in1, in2, mode, precision)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """2-d cross-correlation, computed as JAX does: a convolution of the
    flipped first input with the conjugated second (the operands exchanged
    when the second is the larger), flipped back (SPEC SIG-2)."""
    in1, in2 = _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    shape1, shape2 = _shape(in1), _shape(in2)
    swap = all(a <= b for a, b in zip(shape1, shape2))
    if mode == "valid":
        exchange = swap and shape1 != shape2
    else:
        exchange = swap and mode != "same"
    if not exchange:
        return _flip_all(_convolve_nd("correlate2d", _flip_all(in1), _conj(in2), mode,
                                      precision))
    out = _convolve_nd("correlate2d", _flip_all(in2), _conj(in1), mode, precision)
    return out if mode == "valid" else _conj(out)


# ---------------------------------------------------------------------------
# FFT convolution (SPEC SIG-3)
# ---------------------------------------------------------------------------

def _index_tuple(axes):
    try:
        return (operator.index(axes),)
    except TypeError:
        return tuple(operator.index(a) for a in axes)


def fftconvolve(in1, in2, mode="full", axes=None):
    """Convolution by FFT: the product of the inputs' (real) FFTs over the
    full output shape, cut to ``mode``.  With ``axes``, the other axes are
    mapped over (their sizes must agree) (SPEC SIG-3)."""
    util.check_arraylike("fftconvolve", in1, in2)
    # Not jitted in JAX: a Python int too large for any integer is a float.
    in1, in2 = util.promote_dtypes_inexact(*util.huge_ints_as_floats((in1, in2)))
    if len(_shape(in1)) != len(_shape(in2)):
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode not in _MODES:
        raise ValueError("mode must be one of ['same', 'full', 'valid']")

    def conv(a, b):
        return _fftconvolve_unbatched(a, b, mode)
    if axes is None:
        return conv(in1, in2)
    ndim = len(_shape(in1))
    axes = tuple(core.canonicalize_axis(ax, ndim) for ax in _index_tuple(axes))
    mapped = sorted(set(range(ndim)) - set(axes))
    if any(_shape(in1)[i] != _shape(in2)[i] for i in mapped):
        raise ValueError(f"mapped axes must have same shape; got in1.shape={_shape(in1)} "
                         f"in2.shape={_shape(in2)} axes={axes}")
    for ax in mapped:
        conv = vmap(conv, in_axes=ax, out_axes=ax)
    return conv(in1, in2)


def _fftconvolve_unbatched(in1, in2, mode):
    shape1, shape2 = _shape(in1), _shape(in2)
    full_shape = tuple(a + b - 1 for a, b in zip(shape1, shape2))
    if mode == "valid":
        no_swap = all(a >= b for a, b in zip(shape1, shape2))
        swap = all(a <= b for a, b in zip(shape1, shape2))
        if not (no_swap or swap):
            raise ValueError("For 'valid' mode, One input must be at least as "
                             "large as the other in every dimension.")
        if swap:
            in1, in2 = in2, in1
            shape1, shape2 = shape2, shape1
    if all(a == 1 or b == 1 for a, b in zip(shape1, shape2)):
        # Nothing overlaps: the convolution is the broadcast product.
        conv = in1 * in2
    else:
        complex_in = dtypes.issubdtype(core.get_aval(in1).dtype, np.complexfloating)
        forward, inverse = ((jnp_fft.fftn, jnp_fft.ifftn) if complex_in
                            else (jnp_fft.rfftn, jnp_fft.irfftn))
        conv = inverse(forward(in1, full_shape) * forward(in2, full_shape), full_shape)
    if mode == "full":
        out_shape = full_shape
    elif mode == "same":
        out_shape = shape1
    else:
        out_shape = tuple(a - b + 1 for a, b in zip(shape1, shape2))
    starts = tuple((f - o) // 2 for f, o in zip(full_shape, out_shape))
    return dynamic_slice(conv, starts, out_shape)


# ---------------------------------------------------------------------------
# Detrending (SPEC SIG-4)
# ---------------------------------------------------------------------------

def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=None):  # noqa: A002
    """``data`` less its mean ('constant') or less a least-squares line fitted
    on each piece between the breakpoints ``bp`` ('linear') along ``axis``
    (SPEC SIG-4)."""
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    data, = util.promote_dtypes_inexact(creation.asarray(data))
    if type == "constant":
        return data - reductions.mean(data, axis, keepdims=True)
    axis = core.canonicalize_axis(axis, len(_shape(data)))
    n = _shape(data)[axis]
    breaks = np.sort(np.unique(np.r_[0, bp, n]))
    if not np.issubdtype(breaks.dtype, np.integer):
        raise TypeError(f"detrend: breakpoints must be integers, got {bp!r}")
    if breaks[0] < 0 or breaks[-1] > n:
        raise ValueError("Breakpoints must be non-negative and less than length of "
                         "data along given axis.")
    moved = lax_numpy.moveaxis(data, axis, 0)
    flat = lax_numpy.reshape(moved, (n, -1))
    pieces = [_remove_line(flat[int(lo):int(hi)], int(hi) - int(lo))
              for lo, hi in zip(breaks[:-1], breaks[1:])]
    if pieces:
        flat = lax_numpy.concatenate(pieces, 0)
    return lax_numpy.moveaxis(lax_numpy.reshape(flat, _shape(moved)), 0, axis)


def _remove_line(piece, npts):
    """``piece`` (rows are samples) less its least-squares fit by
    ``a + b * t`` with ``t = (1 .. npts) / npts``."""
    dtype = core.get_aval(piece).dtype
    # The abscissae are rounded as a division in the data's dtype would be
    # (half precision through float32, as the CPU divides it).
    host = dtype if np.dtype(dtype).itemsize >= 4 else np.float32
    t = np.arange(1, npts + 1, dtype=host) / np.asarray(npts, host)
    design = np.stack([np.ones(npts, host), t], axis=1)
    design = creation.asarray(design.astype(dtype))
    coef = linalg_extra.lstsq(design, piece)[0]
    return piece - contractions.matmul(design, coef, precision=Precision.HIGHEST)
