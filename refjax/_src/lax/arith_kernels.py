"""NumPy kernels of lax's division, remainder and rounding, with XLA's CPU
answers where they differ from NumPy's (SPEC LAX-11, LXM-38, LXM-39)."""
import enum

import numpy as np

from refjax._src import backend as _backend


def _xp():
    return _backend.get().xp


class RoundingMethod(enum.IntEnum):
    """How ``lax.round`` breaks ties (``round[rounding_method=0]``)."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1

    def __str__(self):
        return str(int(self))


def round_kernel(x, rounding_method):
    """``lax.round``: ties to even, or away from zero as C's ``round``."""
    xp = _xp()
    if int(rounding_method) == RoundingMethod.TO_NEAREST_EVEN:
        return xp.round(x)
    # Half away from zero as C's round does: exact (x - trunc(x) has no
    # rounding error) and keeping the sign of zero (round(-0.3) is -0.0).
    whole = xp.trunc(x)
    with np.errstate(invalid="ignore"):
        return xp.where(xp.abs(x - whole) >= x.dtype.type(0.5), whole + xp.sign(x), whole)


_RECIPROCAL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def div_kernel(x, y):
    """Integers: C-style division truncating toward zero, XLA's answers for
    y == 0.  Floats: true division, except as XLA rewrites it (below)."""
    xp = _xp()
    if x.dtype.kind not in "iu":
        if x.dtype in _RECIPROCAL_DTYPES and y.ndim == 0 and x.ndim > 0:
            # XLA rewrites a division by a broadcast scalar as a product with
            # its reciprocal: x / 7 is x * (1/7), eagerly and under jit (LXM-39).
            return x * (x.dtype.type(1) / y)
        return x / y
    zero = y == 0
    safe = xp.where(zero, 1, y).astype(x.dtype)
    q = xp.floor_divide(x, safe)
    if x.dtype.kind == "i":
        fix = (xp.remainder(x, safe) != 0) & ((x < 0) != (safe < 0))
        q = q + fix.astype(x.dtype)
    return xp.where(zero, xp.asarray(-1).astype(x.dtype), q).astype(x.dtype)


def rem_kernel(x, y):
    """C's ``fmod`` for floats; integers keep ``x`` where ``y == 0`` (XLA)."""
    xp = _xp()
    if x.dtype.kind not in "iu":
        return xp.fmod(x, y)
    zero = y == 0
    safe = xp.where(zero, 1, y).astype(x.dtype)
    return xp.where(zero, x, xp.fmod(x, safe)).astype(x.dtype)
