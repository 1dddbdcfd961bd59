"""``refjax.scipy.spatial.transform``: 3-d rotations, as
``jax.scipy.spatial.transform``.

This module holds the names; their rules live in
``refjax._src.scipy.spatial_transform`` (SPEC SOP-21 .. SOP-27).
"""
from refjax._src.scipy.spatial_transform import Rotation, Slerp  # noqa: F401
