"""``refjax.lax.linalg``: the linear-algebra primitives, as ``jax.lax.linalg``.

The rules live in :mod:`refjax._src.lax.linalg`.
"""
from refjax._src.lax.linalg import (  # noqa: F401
    cholesky, cholesky_p, eigh, eigh_p, lu, lu_p, qr, qr_p, svd, svd_p,
    symmetrize, triangular_solve, triangular_solve_p,
)
from refjax._src.lax.linalg_eig import (  # noqa: F401
    eig, eig_p, hessenberg, hessenberg_p, schur, schur_p, tridiagonal,
    tridiagonal_p, tridiagonal_solve, tridiagonal_solve_p,
)
from refjax._src.lax.linalg_extra import (  # noqa: F401
    EigImplementation, EighImplementation, SvdAlgorithm, cholesky_update,
    cholesky_update_p, householder_product, householder_product_p,
    lu_pivots_to_permutation, lu_pivots_to_permutation_p, ormqr, ormqr_p, qdwh,
    symmetric_product, symmetric_product_p,
)
