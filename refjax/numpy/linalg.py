"""``refjax.numpy.linalg``: linear algebra, as ``jax.numpy.linalg``.

The functions live in :mod:`refjax._src.numpy.linalg`.
"""
from refjax._src.numpy.linalg import (  # noqa: F401
    EighResult, QRResult, SlogdetResult, SVDResult, cholesky, cross, det,
    diagonal, eigh, eigvalsh, inv, matmul, matrix_norm, matrix_power,
    matrix_rank, matrix_transpose, norm, outer, pinv, qr, slogdet, solve, svd,
    svdvals, tensordot, trace, vecdot, vector_norm,
)
from refjax._src.numpy.linalg_extra import (  # noqa: F401
    cond, eig, eigvals, lstsq, multi_dot, tensorinv, tensorsolve,
)
