"""``jax._src.lax.linalg``: every linear-algebra primitive and its wrapper.

JAX keeps them in one module; refjax defines them in several, by family,
and gathers them here (the name other modules and JAX's own tests import):

* :mod:`refjax._src.lax.linalg_core`: ``triangular_solve``, ``cholesky``,
  ``lu``, ``svd``, ``eigh``, ``qr`` and the algorithm enums
  (SPEC NP-62..NP-66, LIN-40..LIN-43);
* :mod:`refjax._src.lax.linalg_qr_prims`: the LAPACK-form ``geqrf`` and
  ``geqp3`` (SPEC LIN-42);
* :mod:`refjax._src.lax.linalg_eig`: ``eig``, ``schur``, ``hessenberg``,
  ``tridiagonal``, ``tridiagonal_solve`` (SPEC LIN-1..LIN-5, LIN-44);
* :mod:`refjax._src.lax.linalg_extra`: Householder products, ``ormqr``,
  ``symmetric_product``, ``cholesky_update``, ``lu_pivots_to_permutation``,
  ``qdwh`` (SPEC LIN-6..LIN-9);
* :mod:`refjax._src.lax.linalg_common`: the helpers they share.
"""
from refjax._src.lax.linalg_core import (
    EighImplementation, EigImplementation, SvdAlgorithm, cholesky, cholesky_p, eigh,
    eigh_p, lu, lu_p, qr, qr_p, svd, svd_p, symmetrize, triangular_solve,
    triangular_solve_p,
)
from refjax._src.lax.linalg_eig import (
    eig, eig_p, hessenberg, hessenberg_p, schur, schur_p, tridiagonal, tridiagonal_p,
    tridiagonal_solve, tridiagonal_solve_p,
)
from refjax._src.lax.linalg_extra import (
    cholesky_update, cholesky_update_p, householder_product, householder_product_p,
    lu_pivots_to_permutation, lu_pivots_to_permutation_p, ormqr, ormqr_p, qdwh,
    symmetric_product, symmetric_product_p,
)
from refjax._src.lax.linalg_qr_prims import geqp3, geqp3_p, geqrf, geqrf_p

__all__ = [
    "EigImplementation", "EighImplementation", "SvdAlgorithm", "cholesky",
    "cholesky_p", "cholesky_update", "cholesky_update_p", "eig", "eig_p", "eigh",
    "eigh_p", "geqp3", "geqp3_p", "geqrf", "geqrf_p", "hessenberg", "hessenberg_p",
    "householder_product", "householder_product_p", "lu", "lu_p",
    "lu_pivots_to_permutation", "lu_pivots_to_permutation_p", "ormqr", "ormqr_p",
    "qdwh", "qr", "qr_p", "schur", "schur_p", "svd", "svd_p", "symmetric_product",
    "symmetric_product_p", "symmetrize", "triangular_solve", "triangular_solve_p",
    "tridiagonal", "tridiagonal_p", "tridiagonal_solve", "tridiagonal_solve_p",
]
