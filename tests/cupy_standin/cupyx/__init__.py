"""``cupyx`` of the stand-in (see ``cupy/__init__.py``): the scatter kernels."""
import numpy as _np

from cupy._standin import _unwrap, ndarray


def _scatter(ufunc):
    def scatter(a, slices, value):
        if not isinstance(a, ndarray):
            raise TypeError(f"Unsupported type {type(a)}")
        ufunc.at(a._a, _unwrap(slices, host_ok=True), _unwrap(value))
    scatter.__name__ = f"scatter_{ufunc.__name__[:3]}"
    return scatter


scatter_add = _scatter(_np.add)
scatter_max = _scatter(_np.maximum)
scatter_min = _scatter(_np.minimum)


class errstate:
    """``cupyx.errstate``: only under ``linalg="raise"`` do cuSOLVER
    failures raise LinAlgError; by default CuPy returns whatever the solver
    left, which the stand-in models as NaNs."""

    def __init__(self, *, linalg=None):
        if linalg not in (None, "ignore", "raise"):
            raise ValueError(f"linalg={linalg!r}")
        self._linalg = linalg

    def __enter__(self):
        from cupy import linalg
        self._saved = linalg._mode[0]
        if self._linalg is not None:
            linalg._mode[0] = self._linalg
        return self

    def __exit__(self, *exc):
        from cupy import linalg
        linalg._mode[0] = self._saved
        return False
