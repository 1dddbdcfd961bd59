"""``refjax.scipy.optimize``: unconstrained minimization, as
``jax.scipy.optimize``.

This module holds the names; their rules live in
``refjax._src.scipy.optimize`` (SPEC SOP-1 .. SOP-7).
"""
from refjax._src.scipy.optimize import OptimizeResults, minimize  # noqa: F401
