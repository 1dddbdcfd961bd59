"""``cupy.fft`` of the stand-in: NumPy's FFTs behind CuPy's names."""
import numpy as _np

from cupy._standin import _kernel

for _name in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft",
              "rfft2", "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq",
              "rfftfreq", "fftshift", "ifftshift"):
    globals()[_name] = _kernel(getattr(_np.fft, _name))
