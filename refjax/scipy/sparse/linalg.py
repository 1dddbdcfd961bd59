"""``refjax.scipy.sparse.linalg``: iterative linear solvers, as
``jax.scipy.sparse.linalg``.

This module holds the names; their rules live in
``refjax._src.scipy.sparse_linalg`` (SPEC SOP-11 .. SOP-17).
"""
from refjax._src.scipy.sparse_linalg import bicgstab, cg, gmres  # noqa: F401
