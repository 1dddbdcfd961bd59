"""``refjax.scipy.ndimage``: image interpolation, as ``jax.scipy.ndimage``.

This module holds the names; their rules live in ``refjax._src.scipy.ndimage``.
"""
from refjax._src.scipy.ndimage import map_coordinates  # noqa: F401
