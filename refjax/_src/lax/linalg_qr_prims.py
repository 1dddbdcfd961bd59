"""LAPACK-form QR primitives ``geqrf`` and ``geqp3`` (SPEC SLA-8, LIN-42).

``geqrf`` is Householder QR as LAPACK stores it: ``R`` on and above the
diagonal, the reflectors below it, and their scale factors ``taus``.
``geqp3`` is the same with column pivoting; its ``jpvt`` operand marks
columns (nonzero entries) that stay in front, in order, as LAPACK's
``geqp3`` reads it; the result's ``jpvt`` is the column order, 1-based,
with ``a[:, jpvt - 1] = Q R``.

Both run the backend's LAPACK routine matrix by matrix (a matrix that
fails gives NaNs), batch over leading axes and, as in JAX, have no
derivative rule.  JAX keeps them in ``jax._src.lax.linalg`` without making
them public; refjax re-exports them from :mod:`refjax._src.lax.linalg`.
"""
import numpy as np

from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import batching
from refjax._src.lax import lax
from refjax._src.lax.lax import _xp
from refjax._src.lax.linalg_common import (
    _check_matrix, _defbatch_leading, _lapack_per_matrix, _need_lapack, _per_matrix,
    _stack_of_matrices,
)

__all__ = ["geqp3", "geqp3_p", "geqrf", "geqrf_p"]

_NO_JVP = "undefined in JAX: it has no derivative rule"

geqrf_p = Primitive("geqrf", multiple_results=True)
geqp3_p = Primitive("geqp3", multiple_results=True)


@geqrf_p.def_abstract_eval
def _geqrf_abstract_eval(a):
    _check_matrix("geqrf", a)
    m, n = a.shape[-2:]
    return [ShapedArray(a.shape, a.dtype, a.weak_type),
            ShapedArray(a.shape[:-2] + (min(m, n),), a.dtype, a.weak_type)]


@geqp3_p.def_abstract_eval
def _geqp3_abstract_eval(a, jpvt, *, use_magma):
    """JAX's checks, in its order: ranks (2 and 1), equal numbers of batch
    axes, then dtypes (inexact ``a``, integer ``jpvt``)."""
    _check_matrix("geqp3", a)
    if jpvt.ndim < 1:
        raise TypeError(f"Input 1 to geqp3 must have rank at least 1, but got "
                        f"shape={jpvt.shape}")
    if a.ndim - 2 != jpvt.ndim - 1:
        raise TypeError("All inputs to geqp3 must have the same number of batch "
                        f"dimensions, but got {[a.ndim - 2, jpvt.ndim - 1]} batch "
                        "dimensions for the inputs.")
    lax._check_dtype("geqp3", jpvt.dtype, (np.integer,), position=1)
    if jpvt.shape[-1] != a.shape[-1]:
        raise ValueError(f"geqp3 needs one pivot entry per column: a has shape "
                         f"{a.shape}, jpvt has shape {jpvt.shape}")
    m, n = a.shape[-2:]
    weak = a.weak_type and jpvt.weak_type
    return [ShapedArray(a.shape, a.dtype, weak),
            ShapedArray(jpvt.shape, jpvt.dtype, weak),
            ShapedArray(a.shape[:-2] + (min(m, n),), a.dtype, weak)]


def _lapack_factor(a, name, n_out, call, shapes):
    """``call`` (one matrix -> outputs and LAPACK's ``info``) on every
    matrix of ``a``; a failing matrix gives NaNs."""
    routine = _need_lapack(name, a.dtype)
    outs = _per_matrix(lambda x: _lapack_per_matrix(x, lambda m: call(routine, m), n_out),
                       a, n_out, shapes)
    return [o.astype(d, copy=False) for o, (_, d) in zip(outs, shapes)]


@geqrf_p.def_impl
def _geqrf_impl(a):
    """LAPACK's ``geqrf`` (SPEC SLA-8)."""
    xp = _xp()
    m, n = a.shape[-2:]
    k = min(m, n)
    if a.size == 0:
        return [a.copy(), xp.zeros(a.shape[:-2] + (k,), a.dtype)]

    def call(geqrf, x):
        packed, taus, _, info = geqrf(x)
        return packed, taus, info
    return _lapack_factor(a, "geqrf", 2, call, [((m, n), a.dtype), ((k,), a.dtype)])


@geqp3_p.def_impl
def _geqp3_impl(a, jpvt, *, use_magma):
    """LAPACK's ``geqp3`` on each matrix, its ``jpvt`` read as LAPACK
    reads it: columns with a nonzero entry are moved to the front, in
    order, and factored first; the others are pivoted (SPEC LIN-42).  A
    matrix LAPACK fails on gives NaNs."""
    xp = _xp()
    m, n = a.shape[-2:]
    k = min(m, n)
    if jpvt.shape[:-1] != a.shape[:-2]:
        sizes = next(s for s in zip(a.shape[:-2], jpvt.shape[:-1]) if s[0] != s[1])
        axis = next(i for i, s in enumerate(zip(a.shape[:-2], jpvt.shape[:-1]))
                    if s[0] != s[1])
        raise ValueError(f"Batching dimension {axis}_0 corresponds to two sizes: "
                         f"{sizes[0]} and {sizes[1]}")
    if a.size == 0:
        order = xp.broadcast_to(xp.arange(1, n + 1, dtype=jpvt.dtype), jpvt.shape)
        return [a.copy(), order.copy(), xp.zeros(a.shape[:-2] + (k,), a.dtype)]
    geqp3 = _need_lapack("geqp3", a.dtype)
    outs = [[], [], []]
    for x, fixed in zip(_stack_of_matrices(a), (jpvt != 0).reshape(-1, n)):
        *res, info = _geqp3_one(geqp3, x, fixed)
        if info != 0:
            res = [np.full((m, n), np.nan, a.dtype), np.arange(1, n + 1),
                   np.full((k,), np.nan, a.dtype)]
        for acc, r in zip(outs, res):
            acc.append(r)
    shapes = [a.shape, jpvt.shape, a.shape[:-2] + (k,)]
    dts = [a.dtype, jpvt.dtype, a.dtype]
    return [np.stack(o).reshape(s).astype(d, copy=False) for o, s, d in zip(outs, shapes, dts)]


def _geqp3_one(geqp3, a, fixed):
    """One matrix: with no fixed column, LAPACK's ``geqp3`` itself.
    Otherwise the fixed columns go first and get plain Householder QR; the
    rows below them, reduced by those reflectors, are pivoted by ``geqp3``
    (what LAPACK's ``geqp3`` does internally)."""
    if not fixed.any():
        packed, jpvt, taus, _, info = geqp3(a)
        return packed, jpvt, taus, info
    m, n = a.shape
    order = np.concatenate([np.flatnonzero(fixed), np.flatnonzero(~fixed)])
    a = a[:, order]
    f = int(fixed.sum())
    kf = min(m, f)
    head, taus, _, info = _need_lapack("geqrf", a.dtype)(a[:, :f])
    packed = a.copy()
    packed[:, :f] = head
    if f < n:
        # The free columns, as the fixed columns' reflectors leave them.
        ormqr = _need_lapack("unmqr" if a.dtype.kind == "c" else "ormqr", a.dtype)
        trans = "C" if a.dtype.kind == "c" else "T"
        packed[:, f:], _, info2 = ormqr("L", trans, head[:, :kf], taus, a[:, f:],
                                        lwork=max(1, n))
        info = info or info2
    if f < n and f < m:
        tail, tail_jpvt, tail_taus, _, info3 = geqp3(packed[f:, f:])
        packed[:f, f:] = packed[:f, f:][:, tail_jpvt - 1]
        packed[f:, f:] = tail
        order[f:] = order[f:][tail_jpvt - 1]
        taus = np.concatenate([taus, tail_taus])
        info = info or info3
    return packed, order + 1, taus, info


def _geqp3_batch(axis_data, vals, dims, *, use_magma):
    """Both operands get the mapped axis in front (an unmapped one is
    broadcast), as JAX batches its linalg primitives."""
    a, jpvt = (batching.bdim_at_front(x, d, axis_data.size) for x, d in zip(vals, dims))
    return geqp3_p.bind(a, jpvt, use_magma=use_magma), [0, 0, 0]


_defbatch_leading(geqrf_p)
geqp3_p.batch = _geqp3_batch
for _prim in (geqrf_p, geqp3_p):
    _prim.not_supported("jvp", _NO_JVP)


def geqrf(a):
    """``(a, taus)``: Householder QR in LAPACK's packed form (SPEC SLA-8)."""
    return tuple(geqrf_p.bind(a))


def geqp3(a, jpvt, *, use_magma=None):
    """``(a, jpvt, taus)``: column-pivoted Householder QR in LAPACK's packed
    form; nonzero entries of the input ``jpvt`` fix their columns in
    front; the output ``jpvt`` is 1-based with ``a[:, jpvt - 1] = Q R``
    (SPEC SLA-8, LIN-42)."""
    return tuple(geqp3_p.bind(a, jpvt, use_magma=use_magma))
