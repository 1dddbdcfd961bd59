"""``jax.scipy.linalg``: factorisations and linear solvers (SPEC SLA-1..SLA-7).

SciPy's names over the primitives of :mod:`refjax._src.lax.linalg`: the
Cholesky, LU, SVD and Hermitian eigen decompositions and the solves built
on them.  Every function promotes its operands to an inexact dtype first
(integers to the default float, SPEC SLA-1) and accepts SciPy's
``overwrite_*`` and ``check_finite`` flags, which change nothing: JAX
arrays are immutable, and values are not inspected at run time.

Leading axes batch where JAX allows it; derivatives, ``jit`` and ``vmap``
come from the primitives' own rules.  QR lives in
:mod:`refjax._src.scipy.linalg_qr`, the Schur family in
:mod:`refjax._src.scipy.linalg_schur`, ``eigh_tridiagonal`` in
:mod:`refjax._src.scipy.linalg_tridiagonal`.
"""
import functools
import warnings

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.interpreters.ad import stop_gradient
from refjax._src.lax import dot, lax
from refjax._src.lax import linalg as lax_linalg
from refjax._src.lax import misc_ops
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax import sorting as lax_sorting
from refjax._src.lax.control_flow.solves import custom_linear_solve
from refjax._src.lax.linalg_extra import lu_pivots_to_permutation
from refjax._src.numpy import contractions, creation, lax_numpy
from refjax._src.numpy import linalg as np_linalg
from refjax._src.numpy import ufuncs, util
from refjax._src.numpy.vectorize import vectorize
from refjax._src.vmap_api import vmap

__all__ = [
    "cho_factor", "cho_solve", "cholesky", "det", "eigh", "inv", "lu", "lu_factor",
    "lu_solve", "solve", "solve_triangular", "svd",
]


def _shape(x):
    return core.get_aval(x).shape


def _inexact(*args):
    """``jnp.asarray`` of each operand (lists allowed, as in JAX), promoted
    together to an inexact dtype (SPEC SLA-1)."""
    arrays = [creation.asarray(a) for a in args]
    return util.promote_dtypes_inexact(*arrays)


def _mH(x):
    """Conjugate transpose of the last two axes (``x.mT``'s ValueError for
    fewer than two axes)."""
    return ufuncs.conj(lax_numpy.matrix_transpose(x))


_FIRST_ARG = {"cho_solve": "c_and_lower", "lu_solve": "lu_and_piv",
              "solve_triangular": "a"}


def _vector_signature(name, a_shape, b_shape, vector_sig, matrix_sig):
    """The gufunc signature of a solve: ``b`` 1-d is a vector; ``b`` one
    rank short of ``a`` whose last axis matches is (deprecated, with JAX's
    FutureWarning) a stack of vectors; anything else is a stack of
    matrices (SPEC SLA-4)."""
    if len(b_shape) == 1:
        return vector_sig
    if len(a_shape) == len(b_shape) + 1 and a_shape[-1] == b_shape[-1]:
        warnings.warn(
            f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are "
            "deprecated, and in the future will be treated as a batched 2D solve. "
            f"Use {name}({_FIRST_ARG[name]}, b[..., None]).squeeze(-1) to avoid "
            "this warning.",
            category=FutureWarning, stacklevel=4)
        return vector_sig
    return matrix_sig


def _left_solve(a, b, *, vector, **params):
    """``lax.linalg.triangular_solve`` from the left, ``b`` one vector or
    one matrix (a vector is solved as a one-column matrix)."""
    if vector:
        b = lax_shapes.expand_dims(b, (1,))
    x = lax_linalg.triangular_solve(a, b, left_side=True, **params)
    return lax_shapes.squeeze(x, (1,)) if vector else x


# ---------------------------------------------------------------------------
# Cholesky (SPEC SLA-2)
# ---------------------------------------------------------------------------

@functools.partial(jit, static_argnames=("lower",))
def _cholesky(a, lower):
    a, = _inexact(a)
    L = lax_linalg.cholesky(a if lower else _mH(a), symmetrize_input=False)
    return L if lower else _mH(L)


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of Hermitian positive-definite matrices: upper
    ``U`` with ``a = U^H U`` by default, lower ``L`` with ``a = L L^H`` when
    ``lower``.  Only the named triangle of ``a`` is read; a matrix that is
    not positive definite gives NaNs (SPEC SLA-2)."""
    del overwrite_a, check_finite
    return _cholesky(a, lower)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """``(c, lower)``: the Cholesky factor and its triangle, the input of
    ``cho_solve``.  Unlike SciPy the unused triangle of ``c`` is zero
    (SPEC SLA-2)."""
    del overwrite_a, check_finite
    return (cholesky(a, lower=lower), lower)


@functools.partial(jit, static_argnames=("lower",))
def _cho_solve(c, b, lower):
    c, b = _inexact(c, b)
    sig = _vector_signature("cho_solve", _shape(c), _shape(b),
                            "(n,n),(n)->(n)", "(n,n),(n,k)->(n,k)")
    vector = sig.endswith("(n)")
    # Two triangular solves: with L (L^H x = y after L y = b), or with U.
    first = functools.partial(_left_solve, vector=vector, lower=lower,
                              transpose_a=not lower, conjugate_a=not lower)
    second = functools.partial(_left_solve, vector=vector, lower=lower,
                               transpose_a=lower, conjugate_a=lower)
    y = vectorize(first, signature=sig)(c, b)
    return vectorize(second, signature=sig)(c, y)


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """``x`` with ``a x = b`` from ``cho_factor(a)``'s ``(c, lower)``; ``b``
    is a vector ``(n,)`` or a stack ``(..., n, k)`` whose batch axes
    broadcast against ``c``'s (SPEC SLA-2, SLA-4)."""
    del overwrite_b, check_finite
    c, lower = c_and_lower
    return _cho_solve(c, b, lower)


# ---------------------------------------------------------------------------
# SVD, determinant, inverse, eigh (SPEC SLA-3)
# ---------------------------------------------------------------------------

@functools.partial(jit, static_argnames=("full_matrices", "compute_uv"))
def _svd(a, *, full_matrices, compute_uv):
    a, = _inexact(a)
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
        lapack_driver="gesdd"):
    """``(u, s, vh)`` with ``a = u[..., :k] * s @ vh[..., :k, :]``, singular
    values descending and real; ``s`` alone when not ``compute_uv``.
    ``lapack_driver`` is ignored, as in JAX (SPEC SLA-3)."""
    del overwrite_a, check_finite, lapack_driver
    return _svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def det(a, overwrite_a=False, check_finite=True):
    """Determinants of square matrices, ``jnp.linalg.det`` (SPEC SLA-3)."""
    del overwrite_a, check_finite
    return np_linalg.det(a)


def inv(a, overwrite_a=False, check_finite=True):
    """Inverses of square matrices, ``jnp.linalg.inv`` (SPEC SLA-3)."""
    del overwrite_a, check_finite
    return np_linalg.inv(a)


@functools.partial(jit, static_argnames=("lower", "eigvals_only", "eigvals", "type"))
def _eigh(a, b, lower, eigvals_only, eigvals, type):
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    a, = _inexact(a)
    v, w = lax_linalg.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False,
         overwrite_b=False, turbo=True, eigvals=None, type=1, check_finite=True):
    """``(w, v)`` of Hermitian matrices read from the ``lower`` (or upper)
    triangle, eigenvalues ascending and real, eigenvectors as columns;
    ``w`` alone with ``eigvals_only``.  The generalized problem (``b``),
    ``type != 1`` and an ``eigvals`` subset are JAX's NotImplementedError
    (SPEC SLA-3)."""
    del overwrite_a, overwrite_b, turbo, check_finite
    return _eigh(a, b, lower, eigvals_only, eigvals, type)


# ---------------------------------------------------------------------------
# LU (SPEC SLA-5, SLA-6)
# ---------------------------------------------------------------------------

@functools.partial(jit, static_argnames=("overwrite_a", "check_finite"))
def lu_factor(a, overwrite_a=False, check_finite=True):
    """``(lu, piv)``: ``L`` (unit diagonal, not stored) and ``U`` packed in
    one matrix, and LAPACK's int32 pivots: row ``i`` was swapped with row
    ``piv[i]``.  Batches over leading axes (SPEC SLA-5)."""
    del overwrite_a, check_finite
    a, = _inexact(a)
    lu_, pivots, _ = lax_linalg.lu(a)
    return lu_, pivots


def _lu_solve_one(lu_, perm, b, trans):
    """``A x = b`` (``trans`` 0), ``A^T x = b`` (1) or ``A^H x = b`` (2) for
    one ``A[perm] = L U`` and a matrix ``b``."""
    m = _shape(lu_)[0]
    x = lax_shapes.reshape(b, (m, int(np.prod(_shape(b)[1:], dtype=int))))
    if trans == 0:
        x = lax_numpy.take_along_axis(x, perm[:, None], axis=0)
        x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True,
                                        unit_diagonal=True)
        x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=False)
    elif trans in (1, 2):
        conj = trans == 2
        x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=False,
                                        transpose_a=True, conjugate_a=conj)
        x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True,
                                        unit_diagonal=True, transpose_a=True,
                                        conjugate_a=conj)
        # Undo the row permutation: its inverse is the argsort of perm.
        iota = lax_shapes.iota(np.int32, m)
        _, inverse = lax_sorting.sort_key_val(perm, iota)
        x = lax_numpy.take_along_axis(x, inverse[:, None], axis=0)
    else:
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    return lax_shapes.reshape(x, _shape(b))


@functools.partial(jit, static_argnames=("trans", "overwrite_b", "check_finite"))
def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """``x`` with ``op(A) x = b`` from ``lu_factor(A)``'s ``(lu, piv)``:
    ``trans`` 0, 1, 2 for ``A``, ``A^T``, ``A^H``.  ``b`` is a vector
    ``(n,)`` or a stack ``(..., n, k)``; batch axes broadcast (SPEC SLA-6)."""
    del overwrite_b, check_finite
    lu_, pivots = lu_and_piv
    lu_, b = _inexact(lu_, b)
    if trans not in (0, 1, 2):
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    shape = _shape(lu_)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError("last two dimensions of LU decomposition must be equal, "
                         f"got shape {shape}")
    perm = lu_pivots_to_permutation(creation.asarray(pivots), shape[-2])
    sig = _vector_signature("lu_solve", shape, _shape(b), "(n,n),(n),(n)->(n)",
                            "(n,n),(n),(n,k)->(n,k)")
    vector = sig.endswith("(n)")

    def one(lu1, perm1, b1):
        x = _lu_solve_one(lu1, perm1, b1[:, None] if vector else b1, trans)
        return x[:, 0] if vector else x
    return vectorize(one, signature=sig)(lu_, perm, b)


def _permutation_matrix(perm, m, dtype):
    """``P`` with ``P[i, j] = (perm[j] == i)``, so that ``a = P L U``."""
    rows = lax_shapes.broadcasted_iota(np.int32, (m, m), 0)
    cols = lax_shapes.broadcast_in_dim(perm, (m, m), (1,))
    return lax.convert_element_type(lax.eq(cols, rows), dtype)


@functools.partial(jit, static_argnums=(1,))
def _lu(a, permute_l):
    a, = _inexact(a)
    lu_, _, perm = lax_linalg.lu(a)
    shape = _shape(a)
    if len(shape) != 2:
        raise ValueError(f"too many values to unpack (expected 2): jax.scipy.linalg.lu "
                         f"takes one matrix (use vmap to batch), got shape {shape}")
    m, n = shape
    k = min(m, n)
    dtype = core.get_aval(a).dtype
    # The permutation matrix is real even for complex a, as in JAX.
    p = _permutation_matrix(perm, m, dtypes.finfo(dtype).dtype)
    L = lax.add(contractions.tril(lu_, -1)[:, :k], creation.eye(m, k, dtype=dtype))
    U = contractions.triu(lu_)[:k, :]
    if permute_l:
        return contractions.matmul(p, L, precision=dot.Precision.HIGHEST), U
    return p, L, U


@functools.partial(jit, static_argnames=("permute_l", "overwrite_a", "check_finite"))
def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """``(p, l, u)`` with ``a = p @ l @ u`` for one ``m x n`` matrix: ``p``
    a permutation matrix of ``a``'s real dtype (SPEC SLA-15), ``l``
    ``m x k`` unit lower, ``u`` ``k x n`` upper, ``k = min(m, n)``;
    ``(p @ l, u)`` with ``permute_l`` (SPEC SLA-5)."""
    del overwrite_a, check_finite
    return _lu(a, permute_l)


# ---------------------------------------------------------------------------
# Solves (SPEC SLA-4, SLA-7)
# ---------------------------------------------------------------------------

def _check_solve_shapes(a, b):
    a_shape, b_shape = _shape(a), _shape(b)
    nd = len(a_shape)
    if not (nd >= 2 and len(b_shape) in (nd, nd - 1)
            and a_shape[-1] == a_shape[-2] == b_shape[nd - 2]):
        raise ValueError("The arguments to solve must have shapes a=[..., m, m] and "
                         f"b=[..., m, k] or b=[..., m]; got a={a_shape} and "
                         f"b={b_shape}")


def _broadcasted_matvec(a, x):
    """``a @ x`` for matrices ``(..., n, m)`` and vectors ``(..., m)``,
    batch axes broadcast."""
    batch = misc_ops.broadcast_shapes(_shape(a)[:-2], _shape(x)[:-1])
    a = lax_numpy.broadcast_to(a, batch + _shape(a)[-2:])
    x = lax_numpy.broadcast_to(x, batch + _shape(x)[-1:])
    nb = len(batch)
    dims = (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb))))
    return dot.dot_general(a, x, dims, precision=dot.Precision.HIGHEST)


@functools.partial(jit, static_argnames=("assume_a", "lower"))
def _solve(a, b, assume_a, lower):
    if assume_a != "pos":
        return np_linalg.solve(a, b)
    a, b = _inexact(a, b)
    _check_solve_shapes(a, b)
    # The factorisation is computed once; derivatives are further solves
    # with it (a symmetric custom_linear_solve), not derivatives of it.
    factors = cho_factor(stop_gradient(a), lower=lower)
    custom_solve = functools.partial(
        custom_linear_solve, lambda x: _broadcasted_matvec(a, x),
        solve=lambda _, x: cho_solve(factors, x), symmetric=True)
    a_nd, b_nd = len(_shape(a)), len(_shape(b))
    if a_nd == b_nd + 1:
        return custom_solve(b)
    return vmap(custom_solve, b_nd - 1, max(a_nd, b_nd) - 1)(b)


_ASSUME_A = ["gen", "sym", "her", "pos"]


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, debug=False,
          check_finite=True, assume_a="gen"):
    """``x`` with ``a x = b``.  ``assume_a``: 'gen', 'sym', 'her' solve
    through LU (``jnp.linalg.solve``); 'pos' through the Cholesky factor of
    the ``lower`` (or upper) triangle, differentiated as a linear solve
    (SPEC SLA-7)."""
    del overwrite_a, overwrite_b, debug, check_finite
    if assume_a not in _ASSUME_A:
        raise ValueError(f"Expected assume_a to be one of {_ASSUME_A}; "
                         f"got {assume_a!r}")
    return _solve(a, b, assume_a, lower)


_TRANS = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False),
          2: (True, True), "C": (True, True)}


@functools.partial(jit, static_argnames=("trans", "lower", "unit_diagonal"))
def _solve_triangular(a, b, trans, lower, unit_diagonal):
    try:
        transpose_a, conjugate_a = _TRANS[trans]
    except (KeyError, TypeError):
        raise ValueError(f"Invalid 'trans' value {trans}") from None
    a, b = _inexact(a, b)
    sig = _vector_signature("solve_triangular", _shape(a), _shape(b),
                            "(n,n),(n)->(n)", "(n,n),(n,k)->(n,k)")
    fn = functools.partial(_left_solve, vector=sig.endswith("(n)"), lower=lower,
                           transpose_a=transpose_a, conjugate_a=conjugate_a,
                           unit_diagonal=unit_diagonal)
    return vectorize(fn, signature=sig)(a, b)


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False,
                     overwrite_b=False, debug=None, check_finite=True):
    """``x`` with ``op(a) x = b`` for triangular ``a`` (only the ``lower``
    or upper triangle is read, and with ``unit_diagonal`` not its
    diagonal): ``trans`` 0/'N', 1/'T', 2/'C' for ``a``, ``a^T``, ``a^H``.
    Differentiable in both operands (SPEC SLA-4)."""
    del overwrite_b, debug, check_finite
    return _solve_triangular(a, b, trans, lower, unit_diagonal)
