"""``refjax.scipy.linalg``: SciPy's linear algebra, as ``jax.scipy.linalg``.

This module holds the names; their rules live in ``refjax._src.scipy``
(SPEC SLA).
"""
from refjax._src.scipy.linalg import (  # noqa: F401
    cho_factor, cho_solve, cholesky, det, eigh, inv, lu, lu_factor, lu_solve, solve,
    solve_triangular, svd,
)
from refjax._src.scipy.linalg_qr import qr, qr_multiply  # noqa: F401
from refjax._src.scipy.linalg_schur import (  # noqa: F401
    hessenberg, polar, rsf2csf, schur, solve_sylvester,
)
from refjax._src.scipy.linalg_tridiagonal import eigh_tridiagonal  # noqa: F401
from refjax._src.scipy.linalg_matfuncs import (  # noqa: F401
    expm, expm_frechet, funm, sqrtm,
)
from refjax._src.scipy.linalg_matrices import (  # noqa: F401
    block_diag, circulant, companion, convolution_matrix, dft, fiedler, fiedler_companion,
    hadamard, hankel, helmert, hilbert, invhilbert, invpascal, leslie, pascal, toeplitz,
)
# -- issue 23 additions end --
