"""``jax.numpy.fft`` (SPEC NP-70).

Every transform is one ``lax.fft`` over the requested axes, moved to the
end: inputs are first promoted (to complex for the complex transforms, to
a real float for ``rfft*``), each axis is cut or zero-padded to the length
asked for, and ``norm`` scales the result.  The dtypes follow the 32-bit
defaults: float32 and integers give complex64, as JAX does.
"""
import operator

import numpy as np

from refjax._src import core, dtypes
from refjax._src.lax import lax, shapes
from refjax._src.lax.fft import FftType
from refjax._src.lax.fft import fft as lax_fft
from refjax._src.numpy import creation as creation
from refjax._src.numpy import lax_numpy, ufuncs, util

__all__ = ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

_NORMS = (None, "backward", "ortho", "forward")


def _check_norm(norm):
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward",'
                         '"ortho" or "forward".')


def _promote(func_name, a, fft_type):
    a = util.ensure_arraylike(func_name, a)
    if fft_type == FftType.RFFT:
        if dtypes.issubdtype(a.dtype, np.complexfloating):
            raise ValueError("only real valued inputs supported for rfft")
        a, = util.promote_dtypes_inexact(a)
        return a
    a, = util.promote_dtypes_complex(a)
    return a


def _resize(a, axis, n):
    """``a`` cut or zero-padded to length ``n`` along ``axis``."""
    size = a.shape[axis]
    if n < size:
        return shapes.slice_in_dim(a, 0, n, axis=axis)
    if n > size:
        config = [(0, 0, 0)] * a.ndim
        config[axis] = (0, n - size, 0)
        return shapes.pad(a, lax._const(a, 0), config)
    return a


def _axes_and_lengths(func_name, a, s, axes, fft_type):
    if s is not None:
        s = [operator.index(n) for n in s]   # lengths before axes, as JAX
    if axes is None:
        axes = tuple(range(a.ndim)) if s is None else tuple(range(-len(s), 0))
    elif len({operator.index(ax) for ax in axes}) != len(axes):
        # The axes as given are checked (SPEC LXM-35); axes repeated only
        # once normalized (1 and -1) fail below.
        raise ValueError(f"jax.numpy.fft.{func_name} does not support repeated axes. "
                         f"Got axes {axes}.")
    axes = tuple(core.canonicalize_axis(operator.index(ax), a.ndim) for ax in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"jax.numpy.fft functions require unique axes, got {axes}")
    if s is None:
        # Empty axes transform to empty results (SPEC NP-71).
        s = [a.shape[ax] for ax in axes]
        if fft_type == FftType.IRFFT and axes:
            s[-1] = max(2 * (a.shape[axes[-1]] - 1), 0)
    elif len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    elif any(operator.index(n) <= 0 for n in s):
        raise ValueError("Shape should be positive.")
    return axes, tuple(operator.index(n) for n in s)


def _scale(out, norm, lengths, inverse):
    """NumPy's ``norm``: 'backward' scales only the inverse (which lax.fft
    already does), 'forward' only the forward transform, 'ortho' both by
    ``1 / sqrt(n)``."""
    n = float(np.prod(lengths))
    if norm in (None, "backward"):
        return out
    if norm == "ortho":
        factor = np.sqrt(n) if inverse else 1 / np.sqrt(n)
    else:
        factor = n if inverse else 1 / n
    return lax.mul(out, lax._const(out, factor))


def _fftn(func_name, fft_type, a, s, axes, norm):
    # JAX's order: the input is an array, then the lengths and axes, then
    # its dtype, then ``norm`` (SPEC NP-72).
    a = util.ensure_arraylike(func_name, a)
    axes, lengths = _axes_and_lengths(func_name, a, s, axes, fft_type)
    a = _promote(func_name, a, fft_type)
    _check_norm(norm)
    last = len(axes) - 1
    for i, (ax, n) in enumerate(zip(axes, lengths)):
        # The half spectrum of IRFFT's last axis holds n // 2 + 1 bins.
        want = n // 2 + 1 if (fft_type == FftType.IRFFT and i == last) else n
        a = _resize(a, ax, want)
    ends = tuple(range(a.ndim - len(axes), a.ndim))
    moved = lax_numpy.moveaxis(a, axes, ends)
    out = lax_fft(moved, fft_type, lengths)
    out = lax_numpy.moveaxis(out, ends, axes)
    return _scale(out, norm, lengths, fft_type in (FftType.IFFT, FftType.IRFFT))


def _one_axis(func_name, fft_type, a, n, axis, norm):
    """A 1-D transform along ``axis``; ``axis=None`` means the N-D transform's
    default axes, as in JAX (all of them, or the last when ``n`` is given)."""
    _check_one_axis(func_name, axis)
    return _fftn(func_name, fft_type, a, None if n is None else [n],
                 None if axis is None else [axis], norm)


def _check_one_axis(func_name, axis):
    """A 1-D transform takes one axis: a sequence is a ValueError naming the
    N-D function to use instead (SPEC NP-72)."""
    if isinstance(axis, (tuple, list)) or np.ndim(axis) > 0:
        raise ValueError(f"jax.numpy.fft.{func_name} does not support multiple axes. "
                         f"Please use jax.numpy.fft.{func_name}n. Got axis = {axis}.")


def fft(a, n=None, axis=-1, norm=None):
    """The 1-D discrete Fourier transform (SPEC NP-70)."""
    return _one_axis("fft", FftType.FFT, a, n, axis, norm)


def ifft(a, n=None, axis=-1, norm=None):
    """The inverse of ``fft`` (SPEC NP-70)."""
    return _one_axis("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a, n=None, axis=-1, norm=None):
    """The ``n // 2 + 1`` non-negative frequencies of a real signal (SPEC NP-70)."""
    return _one_axis("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a, n=None, axis=-1, norm=None):
    """The real signal of a half spectrum; ``n`` defaults to ``2 * (m - 1)`` (SPEC NP-70)."""
    return _one_axis("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a, n=None, axis=-1, norm=None):
    """The real spectrum of a Hermitian-symmetric signal: ``irfft`` of the
    conjugate, scaled the other way (SPEC NP-70)."""
    a = _promote("hfft", a, FftType.FFT)
    swapped = {None: "forward", "backward": "forward", "forward": "backward",
               "ortho": "ortho"}
    _check_hermitian_args("hfft", a, n, axis, norm)
    return irfft(lax.conj(a), n, axis, swapped[norm])


def ihfft(a, n=None, axis=-1, norm=None):
    """The inverse of ``hfft``: the conjugate of a forward-scaled ``rfft`` (SPEC NP-70)."""
    a = util.ensure_arraylike("ihfft", a)
    swapped = {None: "forward", "backward": "forward", "forward": "backward",
               "ortho": "ortho"}
    _check_hermitian_args("ihfft", a, n, axis, norm)
    return lax.conj(rfft(a, n, axis, swapped[norm]))


def _check_hermitian_args(func_name, a, n, axis, norm):
    """``hfft``/``ihfft`` check that one axis is given, then ``n``, then the
    axis (an integer axis of ``a``), then ``norm``, JAX's order (SPEC NP-72)."""
    _check_one_axis(func_name, axis)
    if n is not None:
        operator.index(n)
    if axis is None:
        raise TypeError(f"jax.numpy.fft.{func_name} needs an integer axis, got None.")
    core.canonicalize_axis(operator.index(axis), np.ndim(a))
    _check_norm(norm)


def fftn(a, s=None, axes=None, norm=None):
    """The N-D transform over ``axes`` (all by default) (SPEC NP-70)."""
    return _fftn("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    return _fftn("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    return _fftn("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    return _fftn("irfftn", FftType.IRFFT, a, s, axes, norm)


def _two_axes(func_name, axes):
    """The 2-D transforms need their two axes spelled out: None or a single
    int is a TypeError, checked before ``norm``, as in JAX (SPEC NP-71)."""
    if axes is None or not hasattr(axes, "__len__"):
        raise TypeError(f"jnp.fft.{func_name} needs a sequence of two axes, got {axes!r}.")
    if len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{func_name} only supports 2 axes. "
                         f"Got axes = {axes!r}; use jax.numpy.fft.{func_name[:-1]}n "
                         "for other numbers of axes.")
    return axes


def fft2(a, s=None, axes=(-2, -1), norm=None):
    return _fftn("fft2", FftType.FFT, a, s, _two_axes("fft2", axes), norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    return _fftn("ifft2", FftType.IFFT, a, s, _two_axes("ifft2", axes), norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    return _fftn("rfft2", FftType.RFFT, a, s, _two_axes("rfft2", axes), norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    return _fftn("irfft2", FftType.IRFFT, a, s, _two_axes("irfft2", axes), norm)


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """Sample frequencies ``[0, 1, ..., -1] / (d * n)``, default float (SPEC NP-70)."""
    n = _frequency_count("fftfreq", n)
    _check_spacing("fftfreq", d)
    k = np.concatenate([np.arange((n + 1) // 2), np.arange(-(n // 2), 0)])
    return _frequencies(k, n, d, dtype)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The non-negative frequencies of ``rfft`` (SPEC NP-70)."""
    n = _frequency_count("rfftfreq", n)
    _check_spacing("rfftfreq", d)
    return _frequencies(np.arange(n // 2 + 1), n, d, dtype)


def _check_spacing(name, d):
    """A list or tuple ``d`` is JAX's ValueError; an array broadcasts
    (SPEC LXM-35)."""
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single "
                         f"value. Got d = {list(d)}.")


def _frequency_count(name, n):
    """The ``n`` of ``fftfreq``/``rfftfreq`` as a Python int (SPEC NP-72).

    A sequence or array is JAX's ValueError; a whole-number float
    (``1.0``) counts as that int, as JAX accepts it; NaN and infinity fail
    as ``int()`` does (ValueError, OverflowError).
    """
    if np.ndim(n) != 0 or isinstance(n, (complex, np.complexfloating)):
        shown = n.tolist() if hasattr(n, "tolist") else n
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an "
                         f"int. Got n = {shown}.")
    if isinstance(n, (float, np.floating)) and (not np.isfinite(n) or float(n).is_integer()):
        return int(n)
    return operator.index(n)


def _frequencies(k, n, d, dtype):
    dtype = dtypes.default_float_dtype() if dtype is None else dtype
    # jnp arithmetic, so that an array ``d`` broadcasts as in JAX.
    return ufuncs.divide(creation.asarray(k, dtype=dtype),
                         ufuncs.multiply(creation.asarray(d, dtype=dtype),
                                         creation.asarray(n, dtype=dtype)))


def fftshift(x, axes=None):
    """Rolls the zero frequency to the centre (SPEC NP-70)."""
    return _shift("fftshift", x, axes, lambda n: n // 2)


def ifftshift(x, axes=None):
    """The inverse of ``fftshift`` (SPEC NP-70)."""
    return _shift("ifftshift", x, axes, lambda n: -(n // 2))


def _shift(func_name, x, axes, amount):
    x = util.ensure_arraylike(func_name, x)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, int):
        axes = (axes,)
    return lax_numpy.roll(x, tuple(amount(x.shape[ax]) for ax in axes), tuple(axes))
