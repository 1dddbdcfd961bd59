"""Helpers shared by the ``jax.lax.linalg`` primitives (SPEC NP-62..NP-66).

Two kinds: running a backend routine on each matrix of a stack (a matrix
that fails gives NaNs, as in JAX), and building the differentiation rules
from lax operations on stacks of matrices (transposes, triangles,
identities, diagonals), which stay linear in the tangents.
"""
import math

import numpy as np

from refjax._src import backend as _backend
from refjax._src import core
from refjax._src.interpreters import batching
from refjax._src.lax import dot, lax, reductions
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax.lax import _xp


def _linalg_error():
    """The exception class the backend's ``xp.linalg`` raises on failure."""
    return getattr(_xp().linalg, "LinAlgError", np.linalg.LinAlgError)


_inexact = (np.floating, np.complexfloating)


def _check_matrix(name, aval, square=False):
    """Rank at least 2 (TypeError), a float/complex dtype (TypeError) and,
    for ``square``, equal last two axes (ValueError), in JAX's words."""
    if aval.ndim < 2:
        raise TypeError(f"Input 0 to {name} must have rank at least 2, but got "
                        f"shape={aval.shape}")
    lax._check_dtype(name, aval.dtype, _inexact, position=0)
    if square and aval.shape[-1] != aval.shape[-2]:
        raise ValueError(f"The input to {name} must be a square matrix or a "
                         f"batch of square matrices, got shape {aval.shape}")


def _real_dtype(dtype):
    return np.finfo(dtype).dtype if np.dtype(dtype).kind == "c" else np.dtype(dtype)


def _stack_of_matrices(x):
    """``x`` as one stack ``(batch, m, n)``; an explicit batch size, since a
    ``-1`` cannot be inferred when the matrices are empty (SPEC NP-71)."""
    return x.reshape((math.prod(x.shape[:-2]),) + x.shape[-2:])


def _per_matrix(fn, x, n_out, nan_shapes):
    """``fn`` on the stack ``x``; where the backend raises for the stack,
    retry matrix by matrix, a failing one giving NaN outputs of
    ``nan_shapes`` (the per-matrix output shapes)."""
    xp = _xp()
    try:
        with _backend.get().linalg_errors():
            return fn(x)
    except _linalg_error():
        pass
    batch = x.shape[:-2]
    flat = _stack_of_matrices(x)
    outs = [[] for _ in range(n_out)]
    for m in flat:
        try:
            with _backend.get().linalg_errors():
                res = fn(m)
        except _linalg_error():
            res = [xp.full(s, np.nan, dtype=dt) for s, dt in nan_shapes]
        for acc, r in zip(outs, res):
            acc.append(r)
    return [xp.stack(acc).reshape(batch + acc[0].shape) for acc in outs]


def _lapack_per_matrix(x, call, n_out):
    """``call`` (a SciPy LAPACK wrapper returning ``*outs, info``) on each
    matrix of the stack ``x``; a nonzero ``info`` raises the backend's
    ``LinAlgError`` so that ``_per_matrix`` gives that matrix NaN outputs."""
    flat = _stack_of_matrices(x)
    if not len(flat):
        # No matrix to factor: one zero matrix gives the outputs' shapes.
        *res, _ = call(np.zeros(x.shape[-2:], x.dtype))
        return [np.empty(x.shape[:-2] + np.shape(r), np.asarray(r).dtype) for r in res]
    outs = [[] for _ in range(n_out)]
    for m in flat:
        *res, info = call(m)
        if info != 0:
            raise _linalg_error()(f"LAPACK returned info={info}")
        for acc, r in zip(outs, res):
            acc.append(r)
    return [np.stack(acc).reshape(x.shape[:-2] + acc[0].shape) for acc in outs]


def _defbatch_leading(prim):
    """Batching of a primitive of one operand that maps over leading axes:
    the mapped axis moves to the front, and every output has it there
    (SPEC VMAP-63)."""
    def rule(axis_data, vals, dims, **params):
        (x,), (bdim,) = vals, dims
        outs = prim.bind(batching.moveaxis(x, bdim, 0), **params)
        return outs, [0] * len(outs) if prim.multiple_results else 0
    prim.batch = rule
    return rule


# ---------------------------------------------------------------------------
# Helpers for the differentiation rules (lax operations only)
# ---------------------------------------------------------------------------

def _T(x):
    nd = core.get_aval(x).ndim
    return lax_shapes.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def _is_complex(x):
    return core.get_aval(x).dtype.kind == "c"


def _H(x):
    """The conjugate transpose of a stack of matrices."""
    return lax.conj(_T(x)) if _is_complex(x) else _T(x)


def _matmul(a, b, precision=None):
    """Batched ``a @ b`` for stacks of matrices of equal batch shape."""
    nd = core.get_aval(a).ndim
    batch = tuple(range(nd - 2))
    return dot.dot_general(a, b, (((nd - 1,), (nd - 2,)), (batch, batch)), precision=precision)


def _tri_mask(shape, k, lower):
    """Boolean mask of the entries on or below (``lower``) / above the
    ``k``-th diagonal of matrices of ``shape``."""
    nd = len(shape)
    row = lax_shapes.broadcasted_iota(np.int32, shape, nd - 2)
    col = lax_shapes.broadcasted_iota(np.int32, shape, nd - 1)
    if lower:
        return lax.ge(lax.add(row, np.int32(k)), col)
    return lax.le(lax.add(row, np.int32(k)), col)


def _tril(x, k=0):
    return lax.select(_tri_mask(core.get_aval(x).shape, k, True), x, lax._zeros(x))


def _triu(x, k=0):
    return lax.select(_tri_mask(core.get_aval(x).shape, k, False), x, lax._zeros(x))


def _eye(dtype, shape):
    """Identity matrices of ``dtype`` broadcast to ``shape`` (..., n, n)."""
    nd = len(shape)
    eq = lax.eq(lax_shapes.broadcasted_iota(np.int32, shape, nd - 2),
                lax_shapes.broadcasted_iota(np.int32, shape, nd - 1))
    return lax.convert_element_type(eq, dtype)


def _diagonal(x):
    """The main diagonal of square matrices, linear in ``x``."""
    aval = core.get_aval(x)
    masked = lax.mul(x, _eye(aval.dtype, aval.shape))
    return reductions.reduce_sum(masked, (aval.ndim - 1,))


def _diag_matrix(d, dtype):
    """Square diagonal matrices with ``d`` (..., n) on the diagonal."""
    aval = core.get_aval(d)
    shape = aval.shape + aval.shape[-1:]
    rows = lax_shapes.broadcast_in_dim(lax.convert_element_type(d, dtype), shape,
                                tuple(range(aval.ndim - 1)) + (aval.ndim,))
    return lax.mul(rows, _eye(dtype, shape))


def _row(v, dtype):
    """``v`` (..., n) as (..., 1, n) of ``dtype``: scales columns."""
    aval = core.get_aval(v)
    return lax_shapes.expand_dims(lax.convert_element_type(v, dtype), (aval.ndim - 1,))


def _col(v, dtype):
    """``v`` (..., n) as (..., n, 1) of ``dtype``: scales rows."""
    aval = core.get_aval(v)
    return lax_shapes.expand_dims(lax.convert_element_type(v, dtype), (aval.ndim,))


def _safe_reciprocal_offdiag(d):
    """``1/d`` off the diagonal and 0 on it, for matrices ``d`` whose
    diagonal is zero (differences of eigen/singular values)."""
    eye = _eye(core.get_aval(d).dtype, core.get_aval(d).shape)
    return lax.sub(lax.div(lax._ones(d), lax.add(d, eye)), eye)


def _need_lapack(name, dtype):
    """The backend's LAPACK routine ``name`` for ``dtype``; a backend
    without it gets a NotImplementedError naming the routine."""
    routine = _backend.get().lapack(name, dtype)
    if routine is None:
        raise NotImplementedError(
            f"refjax computes this with LAPACK's {name}, which the backend "
            f"{_backend.get().name!r} does not provide")
    return routine


def _block(x, rows, cols):
    """``x[..., rows[0]:rows[1], cols[0]:cols[1]]`` (a ``None`` bound: the
    whole axis), a static slice of a stack of matrices."""
    shape = core.get_aval(x).shape
    nd = len(shape)
    r0, r1 = rows if rows is not None else (0, shape[-2])
    c0, c1 = cols if cols is not None else (0, shape[-1])
    return lax_shapes.slice(x, (0,) * (nd - 2) + (r0, c0), shape[:-2] + (r1, c1))


def _pad_matrix(x, rows, cols):
    """``x`` with ``rows`` zero rows and ``cols`` zero columns appended."""
    nd = core.get_aval(x).ndim
    config = [(0, 0, 0)] * (nd - 2) + [(0, rows, 0), (0, cols, 0)]
    zero = lax.convert_element_type(0, core.get_aval(x).dtype)
    return lax_shapes.pad(x, zero, config) if (rows or cols) else x


_LAPACK_DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.complex64,
                                             np.complex128))


def _check_lapack_dtype(dtype):
    """LAPACK has single and double precision only: JAX's CPU kernels
    refuse other inexact dtypes (float16, bfloat16) when they run."""
    if np.dtype(dtype) not in _LAPACK_DTYPES:
        raise NotImplementedError(f"Unsupported dtype {np.dtype(dtype).name}.")
