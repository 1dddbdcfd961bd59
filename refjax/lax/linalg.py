"""``refjax.lax.linalg``: the linear-algebra primitives, as ``jax.lax.linalg``.

The rules live in :mod:`refjax._src.lax.linalg`.
"""
from refjax._src.lax.linalg import (  # noqa: F401
    cholesky, cholesky_p, eigh, eigh_p, lu, lu_p, qr, qr_p, svd, svd_p,
    symmetrize, triangular_solve, triangular_solve_p,
)
