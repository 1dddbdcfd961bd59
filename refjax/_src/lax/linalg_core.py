"""The core primitives of ``jax.lax.linalg`` (SPEC NP-62..NP-66, LIN-40..LIN-43):
``triangular_solve``, ``cholesky``, ``lu``, ``svd``, ``eigh`` and ``qr``.

Each primitive works on stacks of matrices: its operands' last two axes are
the matrix, the leading axes batch.  As in :mod:`refjax._src.lax.lax`, each
has an abstract evaluation with JAX's errors, an implementation on backend
buffers (through the backend's ``xp.linalg``, never NumPy directly), and
differentiation rules written with lax operations that are linear in the
tangents, so reverse mode comes from transposing them (SPEC AD-20).

A factorisation that fails (a non-positive-definite Cholesky, an SVD of
NaNs) yields NaNs, as JAX's does, instead of raising.

Under ``vmap`` the mapped axis becomes one more leading batch axis
(SPEC VMAP-62, VMAP-63).
"""
import enum
import operator

import numpy as np

from refjax._src import backend as _backend
from refjax._src import core
from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import ad, batching
from refjax._src.lax import dot, lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax.lax import _xp
from refjax._src.lax.linalg_common import (
    _H, _T, _block, _check_lapack_dtype, _check_matrix, _col, _defbatch_leading,
    _diag_matrix, _diagonal, _eye, _is_complex, _lapack_per_matrix, _linalg_error,
    _matmul, _pad_matrix, _per_matrix, _real_dtype, _row, _safe_reciprocal_offdiag,
    _stack_of_matrices, _tril, _triu,
)


class EigImplementation(enum.Enum):
    """Who computes a general eigendecomposition (SPEC LIN-1): on CPU only
    ``LAPACK`` (or None) runs."""
    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"


class EighImplementation(enum.Enum):
    """Algorithm of ``eigh`` (SPEC LIN-9): on CPU only ``QR`` (or None)."""
    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


class SvdAlgorithm(enum.Enum):
    """Algorithm of ``svd`` (SPEC LIN-9): on CPU ``DEFAULT`` and
    ``DIVIDE_AND_CONQUER`` are LAPACK's ``gesdd``, ``QR`` its ``gesvd``."""
    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


# ---------------------------------------------------------------------------
# triangular_solve
# ---------------------------------------------------------------------------

triangular_solve_p = Primitive("triangular_solve")


@triangular_solve_p.def_abstract_eval
def _triangular_solve_abstract_eval(a, b, left_side, lower, transpose_a,
                                    conjugate_a, unit_diagonal):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or a.ndim != b.ndim:
        raise ValueError("Incompatible shapes for arguments to triangular_solve: "
                         f"{a.shape} and {b.shape}.")
    common = b.shape[-2] if left_side else b.shape[-1]
    if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != common:
        raise ValueError("Incompatible shapes for arguments to triangular_solve: "
                         f"{a.shape} and {b.shape}.")
    lax._check_dtype("triangular_solve", a.dtype, (np.floating, np.complexfloating),
                     position=0)
    lax._check_same_dtypes("triangular_solve", [a, b])
    return ShapedArray(b.shape, b.dtype, a.weak_type and b.weak_type)


def _op_a(xp, a, lower, transpose_a, conjugate_a, unit_diagonal):
    """The matrix ``op(A)`` that the solve uses: the named triangle of
    ``a``, its diagonal ones if ``unit_diagonal``, then conjugated and/or
    transposed."""
    tri = xp.tril(a) if lower else xp.triu(a)
    if unit_diagonal:
        n = a.shape[-1]
        # Replaced, not multiplied away: an inf or NaN on the diagonal is
        # ignored, as LAPACK ignores it.
        tri = xp.where(xp.eye(n, dtype=bool), xp.ones((), a.dtype), tri)
    if conjugate_a:
        tri = xp.conj(tri)
    if transpose_a:
        tri = xp.swapaxes(tri, -1, -2)
    return tri


@triangular_solve_p.def_impl
def _triangular_solve_impl(a, b, left_side, lower, transpose_a, conjugate_a,
                           unit_diagonal):
    """``op(A) X = B`` (``left_side``) or ``X op(A) = B``; a right-side
    solve is the left-side solve of the transposed system."""
    xp = _xp()
    op = _op_a(xp, a, lower, transpose_a, conjugate_a, unit_diagonal)
    if b.size == 0:
        return xp.zeros(b.shape, b.dtype)
    if b.dtype.itemsize < 4:
        # float16 and bfloat16 are solved in float32 and rounded back (XLA
        # solves them too; LAPACK has no half precision).
        out = _triangular_solve_impl_solve(xp, op.astype(np.float32),
                                           b.astype(np.float32), left_side)
        return out.astype(b.dtype)
    return _triangular_solve_impl_solve(xp, op, b, left_side).astype(b.dtype, copy=False)


def _triangular_solve_impl_solve(xp, op, b, left_side):
    with np.errstate(all="ignore"):
        if left_side:
            return _solve_or_nan(xp, op, b)
        return xp.swapaxes(_solve_or_nan(xp, xp.swapaxes(op, -1, -2),
                                         xp.swapaxes(b, -1, -2)), -1, -2)


def _solve_or_nan(xp, a, b):
    """``solve(a, b)``; a singular matrix gives NaNs (as XLA's does)."""
    errors = _backend.get().linalg_errors
    try:
        with errors():
            return xp.linalg.solve(a, b)
    except _linalg_error():
        pass
    flat_a = _stack_of_matrices(a)
    flat_b = _stack_of_matrices(b)
    outs = []
    for m, r in zip(flat_a, flat_b):
        try:
            with errors():
                outs.append(xp.linalg.solve(m, r))
        except _linalg_error():
            outs.append(xp.full(r.shape, np.nan, dtype=r.dtype))
    return xp.stack(outs).reshape(b.shape)


def _triangular_solve_jvp_a(g, ans, a, b, *, left_side, lower, transpose_a,
                            conjugate_a, unit_diagonal):
    """``d(op(A)^-1 B) = -op(A)^-1 op(dA) X``: the tangent of ``a``
    restricted to the triangle that is read (its diagonal too unless unit),
    then solved like ``b``."""
    k = -1 if unit_diagonal else 0
    g = _tril(g, k) if lower else _triu(g, -k)
    if conjugate_a and _is_complex(g):
        g = lax.conj(g)
    if transpose_a:
        g = _T(g)
    # At full precision, as JAX: the products feed a solve that amplifies
    # their rounding error.
    highest = dot.Precision.HIGHEST
    rhs = lax.neg(_matmul(g, ans, highest) if left_side else _matmul(ans, g, highest))
    return triangular_solve_p.bind(a, rhs, left_side=left_side, lower=lower,
                                   transpose_a=transpose_a, conjugate_a=conjugate_a,
                                   unit_diagonal=unit_diagonal)


def _triangular_solve_jvp_b(g, ans, a, b, **params):
    return triangular_solve_p.bind(a, g, **params)


ad.defjvp2(triangular_solve_p, _triangular_solve_jvp_a, _triangular_solve_jvp_b)


def _triangular_solve_transpose(ct, a, b, *, left_side, lower, transpose_a,
                                conjugate_a, unit_diagonal):
    """Linear in ``b``: the cotangent is solved with ``op(A)`` transposed
    (not conjugated: this is the linear transpose)."""
    if ad.is_undefined_primal(a):
        raise NotImplementedError("triangular_solve is not linear in its "
                                  "first operand")
    if type(ct) is ad.Zero:
        return [None, ad.Zero(b.aval)]
    ct_b = triangular_solve_p.bind(a, ct, left_side=left_side, lower=lower,
                                   transpose_a=not transpose_a,
                                   conjugate_a=conjugate_a,
                                   unit_diagonal=unit_diagonal)
    return [None, ct_b]


triangular_solve_p.transpose = _triangular_solve_transpose


def _triangular_solve_batch_rule(axis_data, vals, dims, **params):
    """With ``a`` mapped, both operands get the mapped axis in front (an
    unmapped ``b`` is broadcast).  With only ``b`` mapped, its examples are
    independent right-hand sides of the one ``a``: columns of a left-side
    solve, rows of a right-side one, so the mapped axis folds into that
    axis and ``a`` is not copied (SPEC VMAP-62)."""
    (a, b), (a_dim, b_dim) = vals, dims
    if a_dim is not None:
        a = batching.bdim_at_front(a, a_dim, axis_data.size)
        b = batching.bdim_at_front(b, b_dim, axis_data.size)
        return triangular_solve_p.bind(a, b, **params), 0
    ndim = np.ndim(b)
    # The folded axis sits inside the columns (left) or rows (right).
    b_dim_out = ndim - 1 if params["left_side"] else ndim - 2
    b = batching.moveaxis(b, b_dim, b_dim_out)
    shape = np.shape(b)
    folded = shape[:b_dim_out - 1] + (shape[b_dim_out - 1] * shape[b_dim_out],)
    folded += shape[b_dim_out + 1:]
    out = triangular_solve_p.bind(a, lax_shapes.reshape(b, folded), **params)
    return lax_shapes.reshape(out, shape), b_dim_out


triangular_solve_p.batch = _triangular_solve_batch_rule


def triangular_solve(a, b, *, left_side=False, lower=False, transpose_a=False,
                     conjugate_a=False, unit_diagonal=False):
    """Solve ``op(a) x = b`` (``left_side``) or ``x op(a) = b`` for a
    triangular ``a`` (SPEC NP-64).  A ``b`` with one dimension fewer than
    ``a`` is a single vector: a column on the left side, a row on the right."""
    b_ndim = core.get_aval(b).ndim
    a_ndim = core.get_aval(a).ndim
    vector = b_ndim == a_ndim - 1
    if vector:
        b = lax_shapes.expand_dims(b, (b_ndim if left_side else b_ndim - 1,))
    out = triangular_solve_p.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                  transpose_a=bool(transpose_a),
                                  conjugate_a=bool(conjugate_a),
                                  unit_diagonal=bool(unit_diagonal))
    if vector:
        out = lax_shapes.squeeze(out, (b_ndim if left_side else b_ndim - 1,))
    return out


# ---------------------------------------------------------------------------
# cholesky
# ---------------------------------------------------------------------------

cholesky_p = Primitive("cholesky")


@cholesky_p.def_abstract_eval
def _cholesky_abstract_eval(x):
    _check_matrix("cholesky", x, square=True)
    return ShapedArray(x.shape, x.dtype, x.weak_type)


@cholesky_p.def_impl
def _cholesky_impl(x):
    """Lower Cholesky factor from the lower triangle; NaNs for a matrix
    that is not positive definite."""
    xp = _xp()
    _check_lapack_dtype(x.dtype)
    if x.size == 0:
        return xp.zeros(x.shape, x.dtype)
    lower = xp.tril(x)
    sym = lower + xp.conj(xp.swapaxes(xp.tril(x, -1), -1, -2))
    out, = _per_matrix(lambda m: [xp.linalg.cholesky(m)], sym, 1,
                       [(x.shape[-2:], x.dtype)])
    return out.astype(x.dtype, copy=False)


def _cholesky_jvp(primals, tangents):
    """``dL = L phi(L^-1 dA L^-H)`` where ``phi`` keeps the strict lower
    triangle and half the diagonal."""
    x, = primals
    dx, = tangents
    L = cholesky_p.bind(x)
    if type(dx) is ad.Zero:
        return L, ad.Zero.from_primal_value(L)
    right = triangular_solve_p.bind(L, dx, left_side=False, lower=True,
                                    transpose_a=True, conjugate_a=True,
                                    unit_diagonal=False)
    inner = triangular_solve_p.bind(L, right, left_side=True, lower=True,
                                    transpose_a=False, conjugate_a=False,
                                    unit_diagonal=False)
    half_diag = lax.mul(inner, lax.mul(_eye(core.get_aval(inner).dtype,
                                            core.get_aval(inner).shape),
                                       lax._const(inner, 0.5)))
    phi = lax.add(_tril(inner, -1), half_diag)
    return L, _matmul(L, phi, dot.Precision.HIGHEST)


cholesky_p.jvp = _cholesky_jvp
_defbatch_leading(cholesky_p)


def cholesky(x, *, symmetrize_input=True):
    """Lower Cholesky factor of Hermitian positive-definite matrices; with
    ``symmetrize_input`` the input is first replaced by ``(x + x^H)/2``
    (SPEC NP-64)."""
    if symmetrize_input:
        x = symmetrize(x)
    return _tril(cholesky_p.bind(x))


def symmetrize(x):
    """``(x + x^H) / 2``."""
    return lax.div(lax.add(x, _H(x)), lax._const(x, 2))


# ---------------------------------------------------------------------------
# lu
# ---------------------------------------------------------------------------

lu_p = Primitive("lu", multiple_results=True)


@lu_p.def_abstract_eval
def _lu_abstract_eval(x):
    _check_matrix("lu", x)
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    return [ShapedArray(x.shape, x.dtype, x.weak_type),
            ShapedArray(batch + (min(m, n),), np.int32),
            ShapedArray(batch + (m,), np.int32)]


@lu_p.def_impl
def _lu_impl(x):
    """Gaussian elimination with partial pivoting, LAPACK's ``getrf``
    order, vectorised over the batch: column ``j`` picks the row of largest
    magnitude at or below ``j`` (the first on ties), swaps it up, and
    eliminates below it.  A zero pivot leaves its column unscaled."""
    xp = _xp()
    _check_lapack_dtype(x.dtype)
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    a = _stack_of_matrices(x).copy()
    nb = a.shape[0]
    k = min(m, n)
    rows = xp.arange(nb)
    pivots = xp.zeros((nb, k), np.int32)
    perm = xp.broadcast_to(xp.arange(m, dtype=np.int32), (nb, m)).copy()
    with np.errstate(all="ignore"):
        for j in range(k):
            p = j + xp.argmax(xp.abs(a[:, j:, j]), axis=1)
            pivots[:, j] = p
            row_j, row_p = a[rows, j].copy(), a[rows, p].copy()
            a[rows, j], a[rows, p] = row_p, row_j
            perm_j, perm_p = perm[rows, j].copy(), perm[rows, p].copy()
            perm[rows, j], perm[rows, p] = perm_p, perm_j
            pivot = a[:, j, j]
            scale = xp.where(pivot == 0, 1, pivot)
            a[:, j + 1:, j] = a[:, j + 1:, j] / scale[:, None]
            a[:, j + 1:, j + 1:] -= a[:, j + 1:, j, None] * a[:, j, None, j + 1:]
    return [a.reshape(x.shape).astype(x.dtype, copy=False),
            pivots.reshape(batch + (k,)), perm.reshape(batch + (m,))]


def _lu_jvp(primals, tangents):
    """For ``A[perm] = L U`` (De Hoog, Anderssen and Lukas): ``L`` padded
    to a unit lower (m, m) matrix and ``U`` to an upper (n, n) one (ones
    below the diagonal's end), ``X = L^-1 dA[perm] U^-1``, then
    ``dL = L tril(X, -1)`` and ``dU = triu(X) U``, packed as ``lu`` is, for
    every shape.  Pivots and permutation are integers (float0 tangents)
    (SPEC LIN-41)."""
    x, = primals
    dx, = tangents
    lu_, pivots, perm = lu_p.bind(x)
    zeros = [ad.Zero.from_primal_value(pivots), ad.Zero.from_primal_value(perm)]
    if type(dx) is ad.Zero:
        return [lu_, pivots, perm], [ad.Zero.from_primal_value(lu_), *zeros]
    L, U = _lu_square_factors(lu_)
    dtype = core.get_aval(x).dtype
    dx_p = _matmul(_permutation_matrix(perm, dtype), dx)
    left = triangular_solve_p.bind(L, dx_p, left_side=True, lower=True,
                                   transpose_a=False, conjugate_a=False,
                                   unit_diagonal=True)
    X = triangular_solve_p.bind(U, left, left_side=False, lower=False,
                                transpose_a=False, conjugate_a=False,
                                unit_diagonal=False)
    highest = dot.Precision.HIGHEST
    dlu = lax.add(_matmul(L, _tril(X, -1), highest), _matmul(_triu(X), U, highest))
    return [lu_, pivots, perm], [dlu, *zeros]


def _lu_square_factors(lu_):
    """The packed (m, n) ``lu`` as a unit lower ``L`` (m, m) and an upper
    ``U`` (n, n), each padded with the identity past ``k = min(m, n)``."""
    aval = core.get_aval(lu_)
    m, n = aval.shape[-2:]
    k = min(m, n)
    batch = aval.shape[:-2]
    L = _pad_matrix(_tril(_block(lu_, None, (0, k)), -1), 0, m - k)
    L = lax.add(L, _eye(aval.dtype, batch + (m, m)))
    U = _pad_matrix(_triu(_block(lu_, (0, k), None)), n - k, 0)
    if n > k:
        eye_n = _eye(aval.dtype, batch + (n, n))
        corner = _tri_corner(eye_n, k)
        U = lax.add(U, corner)
    return L, U


def _tri_corner(eye, k):
    """The identity ``eye`` with its first ``k`` diagonal entries zeroed."""
    shape = core.get_aval(eye).shape
    row = lax_shapes.broadcasted_iota(np.int32, shape, len(shape) - 2)
    return lax.select(lax.ge(row, np.int32(k)), eye, lax._zeros(eye))


def _permutation_matrix(perm, dtype):
    """``P`` with ``P @ A == A[perm]``: row ``i`` is one-hot at ``perm[i]``."""
    aval = core.get_aval(perm)
    shape = aval.shape + aval.shape[-1:]
    cols = lax_shapes.broadcasted_iota(np.int32, shape, aval.ndim)
    picked = lax_shapes.broadcast_in_dim(perm, shape, tuple(range(aval.ndim)))
    return lax.convert_element_type(lax.eq(picked, cols), dtype)


lu_p.jvp = _lu_jvp
_defbatch_leading(lu_p)


def lu(x):
    """LU decomposition with partial pivoting: ``(lu, pivots, permutation)``
    with ``x[..., permutation, :] == L @ U`` (SPEC NP-64)."""
    return lu_p.bind(x)


# ---------------------------------------------------------------------------
# subset_by_index (svd and eigh)
# ---------------------------------------------------------------------------

def _check_subset(subset):
    """``subset_by_index`` is a static parameter: it must hash, as JAX's
    parameters must (a list is a TypeError) (SPEC LIN-43)."""
    if subset is not None:
        hash(subset)
    return subset


def _subset_size(subset):
    """``end - start`` of the pair ``subset`` (anything else: TypeError)."""
    start, end = (operator.index(i) for i in subset)
    if end < start:
        raise ValueError(f"subset_by_index must have start <= end, got {subset}")
    return end - start


def _whole_range(subset, n):
    """True for no subset or the whole ``(0, n)``: all that CPU runs."""
    return subset is None or subset == (0, n)


# ---------------------------------------------------------------------------
# svd
# ---------------------------------------------------------------------------

svd_p = Primitive("svd", multiple_results=True)


@svd_p.def_abstract_eval
def _svd_abstract_eval(x, full_matrices, compute_uv, subset_by_index, algorithm):
    _check_matrix("svd", x)
    m, n = x.shape[-2:]
    k = min(m, n)
    if subset_by_index is not None:
        if full_matrices and subset_by_index != (0, k):
            raise ValueError("full_matrices and subset_by_index cannot both be set")
        k = min(k, _subset_size(subset_by_index))
    batch = x.shape[:-2]
    s = ShapedArray(batch + (k,), _real_dtype(x.dtype), x.weak_type)
    if not compute_uv:
        return [s]
    um, vn = (m, n) if full_matrices else (k, k)
    return [s, ShapedArray(batch + (m, um), x.dtype, x.weak_type),
            ShapedArray(batch + (vn, n), x.dtype, x.weak_type)]


@svd_p.def_impl
def _svd_impl(x, full_matrices, compute_uv, subset_by_index, algorithm):
    """Singular values in descending order (and the vectors); NaNs where
    the backend cannot factor a matrix (e.g. one holding NaN)."""
    xp = _xp()
    m, n = x.shape[-2:]
    k = min(m, n)
    if not _whole_range(subset_by_index, k):
        raise NotImplementedError("subset_by_index not implemented for CPU and GPU")
    _check_lapack_dtype(x.dtype)
    real = _real_dtype(x.dtype)
    routine = _svd_routine(algorithm)
    if x.size == 0:
        return _empty_svd(xp, x, full_matrices, compute_uv)
    gesdd = _backend.get().lapack(routine, x.dtype)
    if not compute_uv:
        fn = (lambda a: [xp.linalg.svd(a, compute_uv=False)]) if gesdd is None else (
            lambda a: _lapack_per_matrix(a, lambda v: gesdd(v, compute_uv=0)[1:], 1))
        s, = _per_matrix(fn, x, 1, [((k,), real)])
        return [s.astype(real, copy=False)]
    um, vn = (m, n) if full_matrices else (k, k)
    if gesdd is None:
        fn = lambda a: list(xp.linalg.svd(a, full_matrices=full_matrices))  # noqa: E731
    else:
        fn = lambda a: _lapack_per_matrix(  # noqa: E731
            a, lambda v: gesdd(v, compute_uv=1, full_matrices=int(full_matrices)), 3)
    u, s, vt = _per_matrix(fn, x, 3, [((m, um), x.dtype), ((k,), real), ((vn, n), x.dtype)])
    return [s.astype(real, copy=False), u.astype(x.dtype, copy=False),
            vt.astype(x.dtype, copy=False)]


def _svd_routine(algorithm):
    """The LAPACK driver for ``algorithm``; Jacobi, polar (or anything not
    an ``SvdAlgorithm``) are not available on CPU (SPEC LIN-9)."""
    if algorithm is None or algorithm in (SvdAlgorithm.DEFAULT,
                                          SvdAlgorithm.DIVIDE_AND_CONQUER):
        return "gesdd"
    if algorithm == SvdAlgorithm.QR:
        return "gesvd"
    raise NotImplementedError(
        "The SVD Jacobi and Polar algorithms are not implemented on CPU.")


def _empty_svd(xp, x, full_matrices, compute_uv):
    """An SVD of matrices with no entries: no singular values, identity
    factors for the non-empty side of ``full_matrices``."""
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    k = min(m, n)
    s = xp.zeros(batch + (k,), _real_dtype(x.dtype))
    if not compute_uv:
        return [s]
    um, vn = (m, n) if full_matrices else (k, k)
    u = xp.broadcast_to(xp.eye(m, um, dtype=x.dtype), batch + (m, um)).copy()
    vt = xp.broadcast_to(xp.eye(vn, n, dtype=x.dtype), batch + (vn, n)).copy()
    return [s, u, vt]


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index,
             algorithm):
    """Tangents of a thin SVD ``A = U diag(s) V^H``.

    With ``dS = U^H dA V``: ``ds = real(diag(dS))``.  The vectors' tangents
    use ``F_ij = 1/(s_j^2 - s_i^2)`` (0 on the diagonal); for non-square
    ``A`` the part of ``dA`` outside the span of ``U`` (or ``V``) is added.
    Full non-square factors are not differentiable, as in JAX."""
    x, = primals
    dx, = tangents
    aval = core.get_aval(x)
    m, n = aval.shape[-2:]
    outs = svd_p.bind(x, full_matrices=full_matrices, compute_uv=compute_uv,
                      subset_by_index=subset_by_index, algorithm=algorithm)
    if type(dx) is ad.Zero:
        return outs, [ad.Zero.from_primal_value(o) for o in outs]
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError(
            "Singular value decomposition JVP not implemented for full matrices")
    s, U, Vt = svd_p.bind(x, full_matrices=False, compute_uv=True,
                          subset_by_index=subset_by_index, algorithm=algorithm)
    V = _H(Vt)
    dS = _matmul(_matmul(_H(U), dx), V)
    ds = _diagonal(lax.real(dS) if _is_complex(dS) else dS)
    if not compute_uv:
        return outs, [ds]
    dU, dV = _svd_vector_tangents(s, U, V, dx, dS, m, n, aval.dtype)
    return outs, [ds, dU, _H(dV)]


def _svd_vector_tangents(s, U, V, dx, dS, m, n, dtype):
    s_row = _row(s, core.get_aval(s).dtype)
    s_col = _T(s_row)
    F = lax.convert_element_type(
        _safe_reciprocal_offdiag(lax.mul(lax.add(s_row, s_col),
                                         lax.sub(s_row, s_col))), dtype)
    dSS = lax.mul(_row(s, dtype), dS)
    SdS = lax.mul(_col(s, dtype), dS)
    s_zero = lax.convert_element_type(lax.eq(s, lax._zeros(s)), core.get_aval(s).dtype)
    s_inv = lax.sub(lax.div(lax._ones(s), lax.add(s, s_zero)), s_zero)
    skew = lax.mul(lax.mul(lax.sub(dS, _H(dS)), lax._const(dS, 0.5)),
                   _diag_matrix(s_inv, dtype))
    dU = _matmul(U, lax.add(lax.mul(F, lax.add(dSS, _H(dSS))), skew))
    dV = _matmul(V, lax.mul(F, lax.add(SdS, _H(SdS))))
    if m > n:
        dAV = _matmul(dx, V)
        extra = lax.sub(dAV, _matmul(U, _matmul(_H(U), dAV)))
        dU = lax.add(dU, lax.div(extra, _row(s, dtype)))
    if n > m:
        dAHU = _matmul(_H(dx), U)
        extra = lax.sub(dAHU, _matmul(V, _matmul(_H(V), dAHU)))
        dV = lax.add(dV, lax.div(extra, _row(s, dtype)))
    return dU, dV


svd_p.jvp = _svd_jvp
_defbatch_leading(svd_p)


def svd(x, *, full_matrices=True, compute_uv=True, subset_by_index=None,
        algorithm=None):
    """Singular value decomposition: ``(u, s, vh)``, or ``s`` alone when
    not ``compute_uv``; singular values descending (SPEC NP-62).  A
    ``subset_by_index`` other than every value (which ``full_matrices``
    forbids) shapes the result but, as on JAX's CPU, does not run
    (SPEC LIN-43)."""
    subset_by_index = _check_subset(subset_by_index)
    outs = svd_p.bind(x, full_matrices=bool(full_matrices),
                      compute_uv=bool(compute_uv), subset_by_index=subset_by_index,
                      algorithm=algorithm)
    if not compute_uv:
        return outs[0]
    s, u, vt = outs
    return u, s, vt


# ---------------------------------------------------------------------------
# eigh
# ---------------------------------------------------------------------------

eigh_p = Primitive("eigh", multiple_results=True)


@eigh_p.def_abstract_eval
def _eigh_abstract_eval(x, lower, sort_eigenvalues, subset_by_index, algorithm):
    _check_matrix("eigh", x, square=True)
    n = x.shape[-1]
    d = n if subset_by_index is None else _subset_size(subset_by_index)
    return [ShapedArray(x.shape[:-1] + (d,), x.dtype, x.weak_type),
            ShapedArray(x.shape[:-2] + (d,), _real_dtype(x.dtype), x.weak_type)]


@eigh_p.def_impl
def _eigh_impl(x, lower, sort_eigenvalues, subset_by_index, algorithm):
    """Eigenvalues ascending and orthonormal eigenvectors (columns) of the
    Hermitian matrix read from the ``lower`` (or upper) triangle."""
    xp = _xp()
    n = x.shape[-1]
    real = _real_dtype(x.dtype)
    if not _whole_range(subset_by_index, n):
        raise NotImplementedError("subset_by_index not supported on CPU and GPU")
    _check_lapack_dtype(x.dtype)
    if algorithm == EighImplementation.QDWH:
        raise NotImplementedError("QDWH implementation is only supported on TPU")
    if algorithm == EighImplementation.JACOBI:
        raise NotImplementedError("Jacobi implementation is not supported on CPU")
    if x.size == 0:
        return [xp.zeros(x.shape, x.dtype), xp.zeros(x.shape[:-1], real)]
    uplo = "L" if lower else "U"
    evd = _backend.get().lapack("heevd" if x.dtype.kind == "c" else "syevd", x.dtype)
    if evd is None:
        fn = lambda a: list(xp.linalg.eigh(a, UPLO=uplo))  # noqa: E731
    else:
        fn = lambda a: _lapack_per_matrix(  # noqa: E731
            a, lambda m: evd(m, compute_v=1, lower=int(lower)), 2)
    w, v = _per_matrix(fn, x, 2, [((n,), real), ((n, n), x.dtype)])
    return [v.astype(x.dtype, copy=False), w.astype(real, copy=False)]


def _eigh_jvp(primals, tangents, *, lower, sort_eigenvalues, subset_by_index,
              algorithm):
    """With ``M = V^H dA V``: ``dw = real(diag(M))`` and
    ``dV = V (F * M)``, ``F_ij = 1/(w_j - w_i)`` off the diagonal."""
    x, = primals
    dx, = tangents
    if not _whole_range(subset_by_index, core.get_aval(x).shape[-1]):
        raise NotImplementedError(
            "Derivatives not defined for partial eigen decomposition.")
    v, w = eigh_p.bind(x, lower=lower, sort_eigenvalues=sort_eigenvalues,
                       subset_by_index=subset_by_index, algorithm=algorithm)
    if type(dx) is ad.Zero:
        return [v, w], [ad.Zero.from_primal_value(v), ad.Zero.from_primal_value(w)]
    dtype = core.get_aval(x).dtype
    w_row = _row(w, dtype)
    F = _safe_reciprocal_offdiag(lax.sub(w_row, _T(w_row)))
    M = _matmul(_matmul(_H(v), dx), v)
    dv = _matmul(v, lax.mul(F, M))
    dw = _diagonal(lax.real(M) if _is_complex(M) else M)
    return [v, w], [dv, dw]


eigh_p.jvp = _eigh_jvp
_defbatch_leading(eigh_p)


def eigh(x, *, lower=True, symmetrize_input=True, sort_eigenvalues=True,
         subset_by_index=None, implementation=None):
    """Eigenvectors and eigenvalues ``(v, w)`` of Hermitian matrices,
    eigenvalues ascending (SPEC NP-65); ``implementation`` (an
    ``EighImplementation``) is the primitive's ``algorithm`` (SPEC LIN-9).
    A ``subset_by_index`` ``(start, end)`` other than ``(0, n)`` gives
    ``end - start`` eigenpairs' shapes but, as on JAX's CPU, does not run
    (SPEC LIN-43)."""
    if symmetrize_input:
        x = symmetrize(x)
    subset_by_index = _check_subset(subset_by_index)
    v, w = eigh_p.bind(x, lower=bool(lower), sort_eigenvalues=bool(sort_eigenvalues),
                       subset_by_index=subset_by_index, algorithm=implementation)
    return v, w


# ---------------------------------------------------------------------------
# qr
# ---------------------------------------------------------------------------

qr_p = Primitive("qr", multiple_results=True)


@qr_p.def_abstract_eval
def _qr_abstract_eval(x, pivoting, full_matrices, use_magma):
    """``q`` (m, k) and ``r`` (k, n), ``k = m`` with ``full_matrices`` and
    ``min(m, n)`` without; pivoting adds the int32 column order (n,)."""
    _check_matrix("qr", x)
    m, n = x.shape[-2:]
    k = m if full_matrices else min(m, n)
    batch = x.shape[:-2]
    outs = [ShapedArray(batch + (m, k), x.dtype, x.weak_type),
            ShapedArray(batch + (k, n), x.dtype, x.weak_type)]
    if pivoting:
        outs.append(ShapedArray(batch + (n,), np.dtype(np.int32)))
    return outs


@qr_p.def_impl
def _qr_impl(x, pivoting, full_matrices, use_magma):
    """Householder QR as JAX's CPU lowering computes it: LAPACK's
    ``geqrf`` (or, pivoting, ``geqp3`` with every column free, its order
    made 0-based), then ``orgqr`` for ``q``; ``xp.linalg.qr`` where the
    backend has no LAPACK (SPEC NP-66, LIN-42)."""
    xp = _xp()
    _check_lapack_dtype(x.dtype)
    m, n = x.shape[-2:]
    k = m if full_matrices else min(m, n)
    batch = x.shape[:-2]
    if x.size == 0:
        q = xp.broadcast_to(xp.eye(m, k, dtype=x.dtype), batch + (m, k)).copy()
        empty = [q, xp.zeros(batch + (k, n), x.dtype)]
        return empty + ([xp.zeros(batch + (n,), np.int32)] if pivoting else [])
    lapack = _backend.get().lapack
    factor = lapack("geqp3" if pivoting else "geqrf", x.dtype)
    orgqr = lapack("ungqr" if x.dtype.kind == "c" else "orgqr", x.dtype)
    if factor is None or orgqr is None:
        if pivoting:
            raise NotImplementedError("refjax's pivoted qr needs LAPACK's geqp3, "
                                      f"which the backend {_backend.get().name!r} "
                                      "does not provide")
        q, r = xp.linalg.qr(x, mode="complete" if full_matrices else "reduced")
        return [q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)]
    n_out = 3 if pivoting else 2
    outs = _lapack_per_matrix(
        x, lambda a: _householder_qr(factor, orgqr, a, k, pivoting), n_out)
    q, r = (o.astype(x.dtype, copy=False) for o in outs[:2])
    if not pivoting:
        return [q, r]
    return [q, r, (outs[2] - 1).astype(np.int32)]


def _householder_qr(factor, orgqr, a, k, pivoting):
    """One matrix: ``factor`` (``geqrf``/``geqp3``: ``R`` above the
    diagonal, reflectors below), then ``orgqr`` on the reflectors
    zero-padded to ``k`` columns; returns ``q, r[, jpvt], info``."""
    m, n = a.shape
    res = factor(a)
    factored, taus, info = res[0], res[-3], res[-1]
    if info != 0:
        return (None,) * (3 if pivoting else 2) + (info,)
    reflectors = np.zeros((m, k), a.dtype)
    reflectors[:, :min(n, k)] = factored[:, :min(n, k)]
    q, _, info = orgqr(reflectors, taus)
    out = (q, np.triu(factored[:k]))
    return out + ((res[1],) if pivoting else ()) + (info,)


def _thin_qr_tangents(q, r, dx):
    """For ``A = Q R`` with ``Q`` (m, n) and square ``R`` (m >= n): with
    ``C = Q^H dA R^-1`` and ``Ω`` the skew-Hermitian matrix built from
    ``C``'s strict lower triangle (plus ``C``'s imaginary diagonal),
    ``dQ = Q (Ω - C) + dA R^-1`` and ``dR = (C - Ω) R``."""
    dx_rinv = triangular_solve_p.bind(r, dx, left_side=False, lower=False,
                                      transpose_a=False, conjugate_a=False,
                                      unit_diagonal=False)
    C = _matmul(_H(q), dx_rinv)
    low = _tril(C, -1)
    omega = lax.sub(low, _H(low))
    if _is_complex(C):
        im_diag = lax.complex(lax._zeros(lax.real(C)), lax.imag(C))
        omega = lax.add(omega, lax.mul(im_diag, _eye(core.get_aval(C).dtype,
                                                     core.get_aval(C).shape)))
    dq = lax.add(_matmul(q, lax.sub(omega, C)), dx_rinv)
    dr = _matmul(lax.sub(C, omega), r)
    return dq, dr


def _wide_qr_tangents(x, q, r, dx):
    """``m < n``: ``X = [X1 X2]``, ``R = [R1 R2]`` with square ``X1 = Q R1``
    giving ``dQ`` and ``dR1``; ``R2 = Q^H X2`` gives
    ``dR2 = dQ^H X2 + Q^H dX2``."""
    m, n = core.get_aval(x).shape[-2:]
    dq, dr1 = _thin_qr_tangents(q, _block(r, None, (0, m)), _block(dx, None, (0, m)))
    x2, dx2 = _block(x, None, (m, n)), _block(dx, None, (m, n))
    dr2 = lax.add(_matmul(_H(dq), x2), _matmul(_H(q), dx2))
    return dq, lax_shapes.concatenate([dr1, dr2], core.get_aval(dr1).ndim - 1)


def _full_tall_qr_tangents(q, dq_mn, dr_nn):
    """``full_matrices`` with ``m > n``: the thin tangents ``dQ1`` (m, n)
    extended to the square ``Q = [Q1 Q2]``, with ``Q1 = [Q_nn; Q_pn]``
    split after ``n`` rows and ``Z = Q_pn (Q_nn - I)^-1`` (Roberts and
    Roberts, arXiv 2409.13374, eqs. 32-33):
    ``dQ2 = dQ1 Z^H - (Q1 + Q2 Z)(dQ_pn - Z dQ_nn)^H``; ``dR`` is ``dR_nn``
    over zero rows."""
    m = core.get_aval(q).shape[-1]
    n = core.get_aval(dr_nn).shape[-1]
    q1, q2 = _block(q, None, (0, n)), _block(q, None, (n, m))
    q_nn, q_pn = _block(q1, (0, n), None), _block(q1, (n, m), None)
    z_h = _solve_adjoint(lax.sub(q_nn, _eye(core.get_aval(q_nn).dtype,
                                            core.get_aval(q_nn).shape)), _H(q_pn))
    z = _H(z_h)
    dq_nn, dq_pn = _block(dq_mn, (0, n), None), _block(dq_mn, (n, m), None)
    inner = _H(lax.sub(dq_pn, _matmul(z, dq_nn)))
    dq2 = lax.sub(_matmul(dq_mn, z_h), _matmul(lax.add(q1, _matmul(q2, z)), inner))
    nd = core.get_aval(q).ndim
    return (lax_shapes.concatenate([dq_mn, dq2], nd - 1),
            _pad_matrix(dr_nn, m - n, 0))


def _solve_adjoint(a, b):
    """``a^H x = b`` for square ``a``, through ``a``'s LU factors:
    ``a[perm] = L U`` gives ``x = P^T L^-H U^-H b``."""
    lu_, _, perm = lu_p.bind(a)
    solve = dict(left_side=True, transpose_a=True, conjugate_a=True)
    y = triangular_solve_p.bind(lu_, b, lower=False, unit_diagonal=False, **solve)
    z = triangular_solve_p.bind(lu_, y, lower=True, unit_diagonal=True, **solve)
    return _matmul(_T(_permutation_matrix(perm, core.get_aval(a).dtype)), z)


def _qr_jvp(primals, tangents, *, pivoting, full_matrices, use_magma):
    """Tangents of ``q`` and ``r`` for every shape, as JAX's: the thin rule
    for ``m >= n``, extended to a square ``q`` with ``full_matrices``, and
    the square-block rule for wide matrices.  Pivoting permutes ``dA``'s
    columns as ``A``'s (the order is constant: a float0 tangent)
    (SPEC LIN-40, LIN-42)."""
    x, = primals
    dx, = tangents
    outs = qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices,
                     use_magma=use_magma)
    if type(dx) is ad.Zero:
        return outs, [ad.Zero.from_primal_value(o) for o in outs]
    q, r = outs[:2]
    m, n = core.get_aval(x).shape[-2:]
    if pivoting:
        # dA[..., :, p]: columns picked by the transposed permutation matrix.
        P = _permutation_matrix(outs[2], core.get_aval(x).dtype)
        dx = _matmul(dx, _T(P), dot.Precision.HIGHEST)
        x = _matmul(x, _T(P), dot.Precision.HIGHEST)
    if m < n:
        dq, dr = _wide_qr_tangents(x, q, r, dx)
    elif not full_matrices or m == n:
        dq, dr = _thin_qr_tangents(q, r, dx)
    else:
        dq_mn, dr_nn = _thin_qr_tangents(_block(q, None, (0, n)), _block(r, (0, n), None), dx)
        dq, dr = _full_tall_qr_tangents(q, dq_mn, dr_nn)
    extra = [ad.Zero.from_primal_value(outs[2])] if pivoting else []
    return outs, [dq, dr] + extra


qr_p.jvp = _qr_jvp
_defbatch_leading(qr_p)


def qr(x, *, pivoting=False, full_matrices=True, use_magma=None):
    """QR decomposition ``(q, r)``, or ``(q, r, p)`` with ``pivoting``:
    ``x[..., :, p] = q @ r``, ``p`` int32 chosen by LAPACK's ``geqp3`` so
    that ``|diag(r)|`` does not increase; ``full_matrices`` gives a square
    ``q`` (SPEC NP-66, LIN-42)."""
    outs = qr_p.bind(x, pivoting=bool(pivoting), full_matrices=bool(full_matrices),
                     use_magma=use_magma)
    return tuple(outs)
