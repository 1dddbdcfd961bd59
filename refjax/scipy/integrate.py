"""``refjax.scipy.integrate``: numerical integration, as ``jax.scipy.integrate``.

This module holds the names; their rules live in ``refjax._src.scipy.integrate``.
"""
from refjax._src.scipy.integrate import trapezoid  # noqa: F401
