"""Element type conversion with XLA's semantics on CPU (SPEC DT-13).

NumPy's ``astype`` wraps out-of-range floats around; JAX (XLA's
ConvertElementType) saturates them to the integer range and sends NaN to 0.
Float to bool is ``x != 0`` (NaN is True).  Complex to real keeps the real
part (``astype`` also warns, as JAX does).
"""
import warnings

import numpy as np

from refjax._src import backend as _backend
from refjax._src import dtypes


def convert(value, old_dtype, new_dtype, warn_complex=False):
    """Convert ``value`` from ``old_dtype`` to ``new_dtype``: a backend buffer,
    or a host NumPy array (array creation converts on the host first)."""
    xp = np if isinstance(value, np.ndarray) else _backend.get().xp
    if old_dtype == new_dtype:
        return value.copy()
    old_complex = old_dtype.kind == "c"
    if old_complex and new_dtype.kind != "c":
        if warn_complex:
            warnings.warn(
                "Casting from complex to real dtypes will soon raise a "
                "ValueError. Please first use jnp.real or jnp.imag to take the "
                "real/imaginary component of your input.",
                DeprecationWarning, stacklevel=3)
        if new_dtype == dtypes.bool_:
            return freeze(value != 0)
        value = xp.real(value)
    if new_dtype == dtypes.bool_:
        return freeze(value != 0)
    if _is_float(value.dtype) and dtypes.issubdtype(new_dtype, np.integer):
        return freeze(_saturating_float_to_int(xp, value, new_dtype))
    return freeze(value.astype(new_dtype))


def _is_float(dt):
    return dtypes.issubdtype(dt, np.floating)


def _saturating_float_to_int(xp, value, new_dtype):
    info = dtypes.iinfo(new_dtype)
    wide = value.astype(np.float64)
    wide = xp.where(xp.isnan(wide), 0.0, wide)
    clipped = xp.clip(wide, float(info.min), float(info.max))
    with np.errstate(invalid="ignore", over="ignore"):
        out = clipped.astype(new_dtype)
    # float64 cannot hold int64's max exactly; pin the ends explicitly.
    out = xp.where(wide >= float(info.max), info.max, out).astype(new_dtype)
    return xp.where(wide <= float(info.min), info.min, out).astype(new_dtype)


def freeze(buffer):
    """Mark a fresh NumPy buffer read-only (other backends lack the flag)."""
    flags = getattr(buffer, "flags", None)
    if flags is not None and hasattr(flags, "writeable"):
        try:
            buffer.flags.writeable = False
        except (AttributeError, ValueError):
            pass
    return buffer
