"""``lax.fft``: the discrete Fourier transform primitive (SPEC NP-70).

One primitive over the trailing ``len(fft_lengths)`` axes, in four kinds
(``FftType``): complex to complex forward and inverse, real to half
spectrum (RFFT) and half spectrum to real (IRFFT).  The inverse kinds
include the ``1 / n`` scaling, as NumPy's default ``norm="backward"``.
Outputs follow the 32-bit defaults: float32 gives complex64 and back.
"""
import enum

import numpy as np

from refjax._src import api
from refjax._src import backend as _backend
from refjax._src import core, dtypes
from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import ad, batching
from refjax._src.lax import lax, shapes


class FftType(enum.IntEnum):
    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3

    def __str__(self):
        # Jaxprs print the kind as its number, as JAX 0.10.2 does.
        return str(int(self))


_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {c: r for r, c in _COMPLEX_OF.items()}

fft_p = Primitive("fft")


def _check_fft_operand(x, fft_type, fft_lengths):
    """JAX's checks of the operand's dtype and trailing axes (SPEC LXM-34):
    FFT, IFFT and RFFT transform axes of exactly ``fft_lengths``; IRFFT's
    last axis holds a half spectrum, so only the others are compared."""
    minor = x.shape[x.ndim - len(fft_lengths):]
    if fft_type == FftType.RFFT:
        if x.dtype not in _COMPLEX_OF:
            raise ValueError(f"RFFT input must be float32 or float64, got {x.dtype.name}")
        if minor != tuple(fft_lengths):
            raise ValueError(f"RFFT input shape {x.shape} minor dimensions must be "
                             f"equal to fft_lengths {fft_lengths}")
    elif fft_type == FftType.IRFFT:
        if fft_lengths and minor[:-1] != tuple(fft_lengths[:-1]):
            raise ValueError(f"IRFFT input shape {x.shape} minor dimensions must be "
                             "equal to all except the last fft_length, got "
                             f"fft_lengths={fft_lengths}")
    elif minor != tuple(fft_lengths):
        raise ValueError(f"{fft_type.name} input shape {x.shape} minor dimensions must "
                         f"be equal to fft_lengths {fft_lengths}")


@fft_p.def_abstract_eval
def _fft_abstract_eval(x, fft_type, fft_lengths):
    n = len(fft_lengths)
    if x.ndim < n:
        raise ValueError(f"FFT input shape {x.shape} must have at least as many "
                         f"input dimensions as fft_lengths {fft_lengths}.")
    _check_fft_operand(x, fft_type, fft_lengths)
    batch = x.shape[:x.ndim - n]
    if any(size < 0 for size in fft_lengths):
        raise ValueError(f"fft_lengths must be non-negative, got {fft_lengths}.")
    if fft_type in (FftType.RFFT, FftType.IRFFT) and not fft_lengths:
        raise ValueError(f"{fft_type.name} needs at least one axis to transform, got "
                         "fft_lengths=().")
    if fft_type == FftType.RFFT and fft_lengths[-1] == 0:
        raise ValueError("RFFT of a zero-length axis has no result (it would need "
                         f"one frequency bin): fft_lengths={fft_lengths}.")
    if fft_type == FftType.RFFT:
        return ShapedArray(batch + fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,),
                           _COMPLEX_OF[x.dtype])
    if fft_type == FftType.IRFFT:
        return ShapedArray(batch + tuple(fft_lengths), _REAL_OF[x.dtype])
    return ShapedArray(x.shape, x.dtype)


@fft_p.def_impl
def _fft_impl(x, fft_type, fft_lengths):
    xp = _backend.get().xp
    axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
    kernel = {FftType.FFT: xp.fft.fftn, FftType.IFFT: xp.fft.ifftn,
              FftType.RFFT: xp.fft.rfftn, FftType.IRFFT: xp.fft.irfftn}[fft_type]
    aval = _fft_abstract_eval(core.ShapedArray(x.shape, x.dtype), fft_type,
                              fft_lengths)
    if 0 in fft_lengths:
        # NumPy refuses zero-point transforms; JAX returns the empty result.
        return xp.zeros(aval.shape, aval.dtype)
    out = kernel(x, s=tuple(fft_lengths), axes=axes)
    return out.astype(aval.dtype)


def _fft_transpose(ct, x, *, fft_type, fft_lengths):
    """The DFT matrix is symmetric, so FFT and IFFT are their own
    transposes; the real kinds go through the complex transform."""
    if fft_type in (FftType.FFT, FftType.IFFT):
        return [fft_p.bind(ct, fft_type=fft_type, fft_lengths=fft_lengths)]
    if fft_type == FftType.RFFT:
        return [_rfft_transpose(ct, fft_lengths)]
    return [_irfft_transpose(ct, fft_lengths)]


def _rfft_transpose(ct, fft_lengths):
    """RFFT is ``real -> complex``, a full FFT, then keeping the first
    ``n // 2 + 1`` bins; transposed: zero-pad, FFT, real part."""
    n, kept = fft_lengths[-1], ct.shape[-1]
    padding = [(0, 0, 0)] * (ct.ndim - 1) + [(0, n - kept, 0)]
    padded = shapes.pad(ct, lax._const(ct, 0), padding)
    full = fft_p.bind(padded, fft_type=FftType.FFT, fft_lengths=fft_lengths)
    return lax.real(full)


def _irfft_transpose(ct, fft_lengths):
    """IRFFT reads each interior bin twice (it and its mirror image) and
    scales by ``1 / N``; transposed: RFFT, weights 1, 2, ..., 2 (1 for the
    Nyquist bin of an even length), the scale, then ``conj`` for JAX's
    convention on cotangents of complex values (SPEC AD-3)."""
    spectrum = fft_p.bind(ct, fft_type=FftType.RFFT, fft_lengths=fft_lengths)
    n, bins = fft_lengths[-1], spectrum.shape[-1]
    weights = np.full(bins, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    weights = weights / np.prod(fft_lengths)
    # The weights vary along the last axis only; lax.mul needs equal shapes.
    weights = np.broadcast_to(np.asarray(weights, spectrum.dtype), np.shape(spectrum))
    scaled = lax.mul(spectrum, weights)
    return lax.conj(scaled)


ad.deflinear(fft_p, _fft_transpose)


def _fft_batch(axis_data, vals, dims, **params):
    """The transform acts on trailing axes: the mapped axis goes to the front
    (SPEC VMAP-63)."""
    (x,), (bdim,) = vals, dims
    return fft_p.bind(batching.moveaxis(x, bdim, 0), **params), 0


fft_p.batch = _fft_batch


def fft(x, fft_type, fft_lengths):
    """The DFT of kind ``fft_type`` (an ``FftType`` or its name, either
    case) over the trailing ``len(fft_lengths)`` axes of ``x``: ``x`` is
    first converted to the complex dtype of its precision (RFFT: to its
    real inexact dtype; a complex ``x`` is ValueError) (SPEC NP-70)."""
    if isinstance(fft_type, str):
        fft_type = _fft_type_named(fft_type)
    elif not isinstance(fft_type, FftType):
        raise TypeError(f"Unknown FFT type value '{fft_type}'")
    dtype = core.get_aval(x).dtype
    if fft_type == FftType.RFFT:
        if dtypes.issubdtype(dtype, np.complexfloating):
            raise ValueError("only real valued inputs supported for rfft")
        x = lax.convert_element_type(x, _inexact_dtype(dtype))
    else:
        x = lax.convert_element_type(x, _complex_dtype(dtype))
    if len(fft_lengths) == 0:
        return x                # nothing to transform
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=tuple(fft_lengths))


def _inexact_dtype(dtype):
    """``dtype`` if inexact, else its join with float64, canonicalized
    (int32 gives float32, or float64 under x64)."""
    if dtypes.issubdtype(dtype, np.inexact):
        return dtype
    return dtypes.canonicalize_dtype(dtypes.promote_types(dtype, dtypes.float64))


def _complex_dtype(dtype):
    wide = _inexact_dtype(dtype) in (dtypes.float64, dtypes.complex128)
    return dtypes.canonicalize_dtype(dtypes.complex128 if wide else dtypes.complex64)


def _fft_type_named(name):
    for kind in FftType:
        if name in (kind.name, kind.name.lower()):
            return kind
    raise ValueError(f"Unknown FFT type '{name}'")


# Jitted with static ``fft_type`` and ``fft_lengths``, as in JAX: ``x`` must
# be a JAX value and the static arguments hashable before anything else,
# and jaxprs show ``jit[name=fft]`` around the equations (SPEC NP-70).
fft = api.jit(fft, static_argnums=(1, 2))
