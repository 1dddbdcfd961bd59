"""``jax.scipy.signal``'s spectral functions: ``stft``, ``csd``, ``welch``
and ``istft`` (SPEC SIG-6 .. SIG-9).

``_spectral_helper`` follows SciPy's function of that name as JAX computes
it: the signal is extended at its ends (``boundary``), padded to a whole
number of segments (``padded``), cut into overlapping segments, each
detrended, windowed and Fourier transformed.  Windows other than 'hann' or
an explicit array are built by SciPy's ``get_window`` (constants only; SciPy
is then required, as in JAX).
"""
import operator
import warnings

import numpy as np

from refjax._src import core, dtypes
from refjax._src.lax import lax
from refjax._src.numpy import creation
from refjax._src.numpy import fft as jnp_fft
from refjax._src.numpy import lax_numpy, padding, reductions, ufuncs, util
from refjax._src.scipy.signal import detrend

__all__ = ["csd", "istft", "stft", "welch"]


def _shape(x):
    return core.get_aval(x).shape


def _dtype(x):
    return core.get_aval(x).dtype


def _is_complex(x):
    return x is not None and dtypes.issubdtype(_dtype(x), np.complexfloating)


def _concrete_int(value, what):
    return core.concrete_or_error(int, value, what)


# ---------------------------------------------------------------------------
# Windows and boundary extensions
# ---------------------------------------------------------------------------

def _hann(n):
    """The periodic Hann window, in the default float dtype."""
    if n == 1:
        return creation.asarray([1.0])
    grid = creation.linspace(0, np.pi, n, endpoint=False)
    return lax.integer_pow(ufuncs.sin(grid), 2)


def _named_window(window, n):
    """A window given by name (or a (name, parameter) tuple)."""
    if isinstance(window, str) and window == "hann":
        return _hann(n)
    try:
        from scipy.signal import get_window
    except ImportError as err:
        raise ImportError(f"scipy must be available to use window={window!r}") from err
    return get_window(window, n)


def _window_and_length(window, nperseg, input_length, dtype):
    """The window array and the segment length, from ``window`` and
    ``nperseg`` as SciPy reads them (SPEC SIG-6)."""
    if isinstance(window, (str, tuple)):
        n = input_length if nperseg is None else int(nperseg)
        if n > input_length:
            warnings.warn(f"nperseg={n} is greater than input_length={input_length},"
                          f" using nperseg={input_length}")
            n = input_length
        return creation.array(_named_window(window, n), dtype=dtype), n
    win = creation.asarray(window, dtype=dtype)
    n = int(np.prod(_shape(win))) if nperseg is None else int(nperseg)
    if len(_shape(win)) != 1:
        raise ValueError("window must be 1-D")
    if input_length < _shape(win)[0]:
        raise ValueError("window is longer than input signal")
    if n != _shape(win)[0]:
        raise ValueError("value specified for nperseg is different from length of window")
    return win, n


def _odd_extension(x, n):
    """``x`` extended by ``n`` samples at each end of its last axis, each the
    point reflection of the signal about its end sample."""
    if n < 1:
        return x
    length = _shape(x)[-1]
    if n > length - 1:
        raise ValueError(f"The extension length n ({n}) is too big. It must not exceed "
                         f"x.shape[axis]-1, which is {length - 1}.")
    first, last = x[..., :1], x[..., -1:]
    left = lax_numpy.flip(x[..., 1:n + 1], -1)
    right = lax_numpy.flip(x[..., length - n - 1:length - 1], -1)
    return lax_numpy.concatenate((2 * first - left, x, 2 * last - right), -1)


def _padder(mode, **kwargs):
    def extend(x, n):
        widths = [(0, 0)] * (len(_shape(x)) - 1) + [(n, n)]
        return padding.pad(x, widths, mode, **kwargs)
    return extend


_BOUNDARIES = {
    "even": _padder("reflect"),
    "odd": _odd_extension,
    "constant": _padder("edge"),
    "zeros": _padder("constant", constant_values=0.0),
    None: lambda x, n: x,
}


def _zero_pad_end(x, n):
    """``x`` with ``n`` zeros appended along its last axis."""
    if n == 0:
        return x
    zeros = creation.zeros((*_shape(x)[:-1], n), _dtype(x))
    return lax_numpy.concatenate((x, zeros), -1)


# ---------------------------------------------------------------------------
# Segments and their transforms
# ---------------------------------------------------------------------------

def _detrender(detrend_type, axis):
    """The function applied to the segments (last axis) before windowing."""
    if isinstance(detrend_type, str):
        return lambda d: detrend(d, type=detrend_type, axis=-1)
    if callable(detrend_type):
        # As in JAX: the canonical axis is never -1, so a callable always
        # sees the segments with ``axis`` moved last.
        def moved(d):
            d = lax_numpy.moveaxis(d, axis, -1)
            return lax_numpy.moveaxis(detrend_type(d), -1, axis)
        return moved if axis != -1 else detrend_type
    if not detrend_type:
        return lambda d: d
    raise ValueError(f"Unsupported detrend type: {detrend_type}")


def _segments(x, nperseg, noverlap):
    """``x``'s overlapping segments: shape ``(..., nseg, nperseg)``."""
    if nperseg == 1 and noverlap == 0:
        return x[..., None]
    starts = np.arange(0, _shape(x)[-1] - nperseg + 1, nperseg - noverlap)
    index = starts[:, None] + np.arange(nperseg)[None, :]
    return x[..., index]


def _segment_spectra(x, win, detrend_func, nperseg, noverlap, nfft, sides):
    """The FFT of each detrended, windowed segment of ``x``."""
    segs = detrend_func(_segments(x, nperseg, noverlap))
    if _is_complex(win):
        segs, = util.promote_dtypes_complex(segs)
    segs = lax_numpy.reshape(win, (1,) * (len(_shape(segs)) - 1) + (nperseg,)) * segs
    if sides == "twosided":
        return jnp_fft.fft(segs, n=nfft)
    return jnp_fft.rfft(ufuncs.real(segs), n=nfft)


def _scale(win, fs, scaling, mode):
    if scaling == "density":
        scale = 1.0 / (fs * reductions.sum(win * win))
    elif scaling == "spectrum":
        scale = 1.0 / reductions.sum(win) ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling}")
    if mode == "stft":
        scale = ufuncs.sqrt(scale)
    return util.promote_dtypes_complex(scale)[0]


# ---------------------------------------------------------------------------
# The shared helper (SPEC SIG-6)
# ---------------------------------------------------------------------------

def _check_inputs(x, y, axis, mode):
    """Promoted ``x`` (and ``y``) and the broadcast shape of their other axes."""
    if y is None:
        util.check_arraylike("spectral_helper", x)
        x, = util.promote_dtypes_inexact(*util.huge_ints_as_floats((x,)))
        outer = tuple(s for i, s in enumerate(_shape(x)) if i != axis)
        return x, None, outer
    if mode != "psd":
        raise ValueError("two-argument mode is available only when mode=='psd'")
    util.check_arraylike("spectral_helper", x, y)
    # Not jitted in JAX: a Python int too large for any integer is a float.
    x, y = util.promote_dtypes_inexact(*util.huge_ints_as_floats((x, y)))
    if len(_shape(x)) != len(_shape(y)):
        raise ValueError("two-arguments must have the same rank ({x.ndim} vs {y.ndim}).")
    try:
        outer = util.broadcast_shapes(
            tuple(s for i, s in enumerate(_shape(x)) if i != axis),
            tuple(s for i, s in enumerate(_shape(y)) if i != axis))
    except ValueError as err:
        raise ValueError("x and y cannot be broadcast together.") from err
    return x, y, outer


def _segment_lengths(window, nperseg, noverlap, nfft, length, dtype):
    if nperseg is not None:
        nperseg = _concrete_int(nperseg, "nperseg of windowed-FFT")
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
    win, nperseg = _window_and_length(window, nperseg, length, dtype)
    noverlap = (nperseg // 2 if noverlap is None
                else _concrete_int(noverlap, "noverlap of windowed-FFT"))
    nfft = nperseg if nfft is None else _concrete_int(nfft, "nfft of windowed-FFT")
    return win, nperseg, noverlap, nfft


def _match_lengths(x, y):
    """``x`` and ``y`` zero-padded to the longer one's last-axis length."""
    nx, ny = _shape(x)[-1], _shape(y)[-1]
    return _zero_pad_end(x, max(ny - nx, 0)), _zero_pad_end(y, max(nx - ny, 0))


def _spectral_helper(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None,
                     nfft=None, detrend_type="constant", return_onesided=True,
                     scaling="density", axis=-1, mode="psd", boundary=None,
                     padded=False):
    """Frequencies, segment times and the (cross) spectra of each segment."""
    if mode not in ("psd", "stft"):
        raise ValueError(f"Unknown value for mode {mode}, must be one of: ('psd', 'stft')")
    if boundary not in _BOUNDARIES:
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                         f"{list(_BOUNDARIES)}")
    axis = core.concrete_or_error(operator.index, axis, "axis of windowed-FFT")
    util.check_arraylike("spectral_helper", x)
    axis = core.canonicalize_axis(axis, len(core.get_aval(x).shape))
    x, y, outer = _check_inputs(x, y, axis, mode)
    result_dtype = util.to_complex_dtype(_dtype(x))
    freq_dtype = np.finfo(result_dtype).dtype
    win, nperseg, noverlap, nfft = _segment_lengths(
        window, nperseg, noverlap, nfft, _shape(x)[axis], _dtype(x))

    if 0 in _shape(x) or (y is not None and 0 in _shape(y)):
        shape = _shape(x) if y is None else (
            outer[:axis] + (min(_shape(x)[axis], _shape(y)[axis]),) + outer[axis:])
        return (creation.zeros(shape, freq_dtype), creation.zeros(shape, freq_dtype),
                creation.zeros(shape, result_dtype))

    x = lax_numpy.moveaxis(x, axis, -1)
    if y is not None:
        if len(_shape(y)) > 1:
            y = lax_numpy.moveaxis(y, axis, -1)
        x, y = _match_lengths(x, y)
    if nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    nstep = nperseg - noverlap

    x, y = _extend(x, y, boundary, padded, nperseg, nstep)
    detrend_func = _detrender(detrend_type, axis)
    scale = _scale(win, fs, scaling, mode)
    sides = "twosided"
    if return_onesided:
        if _is_complex(x) or _is_complex(y):
            warnings.warn("Input data is complex, switching to return_onesided=False")
        else:
            sides = "onesided"
    freqs = (jnp_fft.fftfreq if sides == "twosided" else jnp_fft.rfftfreq)(
        nfft, 1 / fs, dtype=freq_dtype)

    result = _segment_spectra(x, win, detrend_func, nperseg, noverlap, nfft, sides)
    if y is not None:
        other = _segment_spectra(y, win, detrend_func, nperseg, noverlap, nfft, sides)
        result = ufuncs.conjugate(result) * other
    elif mode == "psd":
        result = ufuncs.conjugate(result) * result
    result = result * scale
    if sides == "onesided" and mode == "psd":
        result = _double_inner_frequencies(result, nfft)

    time = creation.arange(nperseg / 2, _shape(x)[-1] - nperseg / 2 + 1, nstep,
                           dtype=freq_dtype) / fs
    if boundary is not None:
        time = time - (nperseg / 2) / fs
    result = result.astype(result_dtype)
    if y is None and mode != "stft":
        result = ufuncs.real(result)
    return freqs, time, lax_numpy.moveaxis(result, -1, axis)


def _extend(x, y, boundary, padded, nperseg, nstep):
    """The signals extended at both ends, then zero-padded to whole segments."""
    if boundary is not None:
        extend = _BOUNDARIES[boundary]
        x = extend(x, nperseg // 2)
        if y is not None:
            y = extend(y, nperseg // 2)
    if padded:
        nadd = (-(_shape(x)[-1] - nperseg) % nstep) % nperseg
        x = _zero_pad_end(x, nadd)
        if y is not None:
            y = _zero_pad_end(y, nadd)
    return x, y


def _double_inner_frequencies(result, nfft):
    """A one-sided spectrum's power: every bin but DC (and Nyquist, for even
    ``nfft``) counts its negative-frequency twin, so it is doubled."""
    nbins = _shape(result)[-1]
    stop = nbins if nfft % 2 else nbins - 1
    if stop <= 1:
        return result
    return lax_numpy.concatenate(
        (result[..., :1], result[..., 1:stop] * 2, result[..., stop:]), -1)


# ---------------------------------------------------------------------------
# Public functions (SPEC SIG-7 .. SIG-9)
# ---------------------------------------------------------------------------

def stft(x, fs=1.0, window="hann", nperseg=256, noverlap=None, nfft=None,
         detrend=False, return_onesided=True, boundary="zeros", padded=True,
         axis=-1):
    """Short-time Fourier transform: frequencies, segment times and the
    spectrum of each segment, 'spectrum' scaled (SPEC SIG-7)."""
    return _spectral_helper(x, None, fs, window, nperseg, noverlap, nfft, detrend,
                            return_onesided, scaling="spectrum", axis=axis,
                            mode="stft", boundary=boundary, padded=padded)


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1,
        average="mean"):
    """Cross power spectral density by Welch's method: the segments' cross
    spectra averaged by 'mean' or bias-corrected 'median' (SPEC SIG-8)."""
    freqs, _, pxy = _spectral_helper(x, y, fs, window, nperseg, noverlap, nfft,
                                     detrend, return_onesided, scaling, axis, mode="psd")
    if y is not None:
        pxy = pxy + 0j     # a cross spectrum is complex even for x is y
    shape = _shape(pxy)
    if len(shape) >= 2 and 0 not in shape:
        if shape[-1] > 1:
            pxy = _average(pxy, average)
        else:
            pxy = lax_numpy.reshape(pxy, shape[:-1])
    return freqs, pxy


def _average(pxy, average):
    """The mean or the bias-corrected median over the segments (last axis)."""
    if average == "mean":
        return reductions.mean(pxy, axis=-1)
    if average != "median":
        raise ValueError(f'average must be "median" or "mean", got {average}')
    bias = _median_bias(_shape(pxy)[-1]).astype(_dtype(pxy))
    if _is_complex(pxy):
        med = (reductions.median(ufuncs.real(pxy), axis=-1)
               + 1j * reductions.median(ufuncs.imag(pxy), axis=-1))
    else:
        med = reductions.median(pxy, axis=-1)
    return med / bias


def _median_bias(n):
    """The ratio of the median of ``n`` periodograms (chi-squared with two
    degrees of freedom) to their mean: ``1 + sum_k (1/(2k+1) - 1/(2k))``."""
    even = creation.arange(2.0, n, 2)
    return 1 + reductions.sum(1.0 / (even + 1) - 1.0 / even)


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1,
          average="mean"):
    """Power spectral density by Welch's method: the real part of
    ``csd(x, None, ...)`` (SPEC SIG-8)."""
    freqs, pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg,
                     noverlap=noverlap, nfft=nfft, detrend=detrend,
                     return_onesided=return_onesided, scaling=scaling, axis=axis,
                     average=average)
    return freqs, ufuncs.real(pxx)


def _overlap_add(frames, step):
    """Frames ``(..., nframes, length)`` summed into one signal, frame ``f``
    starting at sample ``f * step`` (a scatter-add)."""
    *batch, nframes, length = _shape(frames)
    size = step * (nframes - 1) + length
    flat = lax_numpy.reshape(frames, (-1, nframes, length))
    index = np.arange(nframes)[:, None] * step + np.arange(length)[None, :]
    out = creation.zeros((_shape(flat)[0], size), _dtype(frames)).at[:, index].add(flat)
    return lax_numpy.reshape(out, (*batch, size))


def _istft_lengths(zxx, nperseg, noverlap, nfft, input_onesided, freq_axis):
    n_default = (2 * (_shape(zxx)[freq_axis] - 1) if input_onesided
                 else _shape(zxx)[freq_axis])
    nperseg = _concrete_int(nperseg or n_default, "nperseg: segment length of STFT")
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        nfft_int = n_default + (1 if input_onesided and nperseg == n_default + 1 else 0)
    else:
        nfft_int = _concrete_int(nfft, "nfft of STFT")
    if nfft_int < nperseg:
        raise ValueError(f"FFT length ({nfft_int}) must be longer than nperseg ({nperseg}).")
    noverlap = _concrete_int(noverlap or nperseg // 2, "noverlap of STFT")
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    return nperseg, noverlap


def _istft_window(window, nperseg, dtype):
    if isinstance(window, (str, tuple)):
        return creation.array(_named_window(window, nperseg), dtype=dtype)
    win = creation.asarray(window)
    if len(_shape(win)) != 1:
        raise ValueError("window must be 1-D")
    if _shape(win)[0] != nperseg:
        raise ValueError(f"window must have length of {nperseg}")
    return win


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,  # noqa: N803
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2):
    """Inverse short-time Fourier transform: each segment's inverse FFT,
    windowed and overlap-added, divided by the overlap-added squared window
    where that exceeds 1e-10 (SPEC SIG-9)."""
    zxx = util.ensure_arraylike("istft", Zxx)
    ndim = len(_shape(zxx))
    if ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    freq_axis = core.canonicalize_axis(freq_axis, ndim)
    time_axis = core.canonicalize_axis(time_axis, ndim)
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    zxx = creation.asarray(zxx, dtype=util.to_complex_dtype(_dtype(zxx)))
    nperseg, noverlap = _istft_lengths(zxx, nperseg, noverlap, nfft, input_onesided,
                                       freq_axis)
    if time_axis != ndim - 1 or freq_axis != ndim - 2:
        outer = tuple(i for i in range(ndim) if i not in (time_axis, freq_axis))
        zxx = lax_numpy.transpose(zxx, outer + (freq_axis, time_axis))

    # As JAX: the inverse transform's length is the ``nfft`` given (or the
    # transform's default), cut to ``nperseg``.
    inverse = jnp_fft.irfft if input_onesided else jnp_fft.ifft
    xsubs = inverse(zxx, axis=-2, n=nfft)[..., :nperseg, :]
    win = _istft_window(window, nperseg, _dtype(xsubs))
    xsubs = xsubs * reductions.sum(win)      # undoes the 'spectrum' scaling
    win = lax_numpy.expand_dims(win, (*range(len(_shape(xsubs)) - 2), -1))
    x = _overlap_add(lax_numpy.swapaxes(xsubs * win, -2, -1), nperseg - noverlap)
    win_squared = lax_numpy.repeat(win * win, _shape(xsubs)[-1], axis=-1)
    norm = _overlap_add(lax_numpy.swapaxes(win_squared, -2, -1), nperseg - noverlap)
    if boundary:
        half = nperseg // 2
        x, norm = x[..., half:-half], norm[..., half:-half]
    x = x / lax_numpy.where(norm > 1e-10, norm, 1.0)
    if len(_shape(x)) > 1 and time_axis != ndim - 1:
        if freq_axis < time_axis:
            time_axis -= 1
        x = lax_numpy.moveaxis(x, -1, time_axis)
    time = creation.arange(_shape(x)[0], dtype=np.finfo(_dtype(x)).dtype) / fs
    return time, x
