"""``refjax.scipy.signal``: convolutions and spectral analysis, as
``jax.scipy.signal``.

This module holds the names; their rules live in ``refjax._src.scipy.signal``
and ``refjax._src.scipy.signal_spectral``.
"""
from refjax._src.scipy.signal import (  # noqa: F401
    convolve, convolve2d, correlate, correlate2d, detrend, fftconvolve,
)
from refjax._src.scipy.signal_spectral import csd, istft, stft, welch  # noqa: F401
