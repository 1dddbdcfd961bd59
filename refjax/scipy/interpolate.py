"""``refjax.scipy.interpolate``: interpolation, as ``jax.scipy.interpolate``.

This module holds the names; their rules live in
``refjax._src.scipy.interpolate``.
"""
from refjax._src.scipy.interpolate import RegularGridInterpolator  # noqa: F401
