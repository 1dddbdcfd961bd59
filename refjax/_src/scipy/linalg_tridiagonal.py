"""``jax.scipy.linalg.eigh_tridiagonal`` (SPEC SLA-14).

Eigenvalues of a Hermitian tridiagonal matrix by bisection on Sturm
sequence counts, all wanted eigenvalues searched in parallel; eigenvectors
by inverse iteration from random starting vectors (a PRNG ``key``, by
default ``key(42)``), solving the shifted tridiagonal systems with
``tridiagonal_solve(perturb_singular=True)`` and re-orthonormalising each
cluster of close eigenvalues with a QR factorisation after every step.
Everything is ``lax`` control flow, so it runs under ``jit`` and ``vmap``.
"""
import functools

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.lax import lax
from refjax._src.lax.control_flow.loops import while_loop
from refjax._src.lax.control_flow.scan import fori_loop
from refjax._src.lax.dynamic_slice import dynamic_slice, dynamic_update_slice
from refjax._src.lax.linalg_eig import tridiagonal_solve
from refjax._src.numpy import creation, lax_numpy
from refjax._src.numpy import linalg as np_linalg
from refjax._src.numpy import padding, reductions, ufuncs
from refjax._src.random import basic as random

__all__ = ["eigh_tridiagonal"]

_SUPPORTED = tuple(np.dtype(t) for t in (np.float32, np.float64, np.complex64,
                                         np.complex128))


def _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, x):
    """For each shift in ``x``: how many eigenvalues lie below it, the
    number of non-positive pivots of ``T - x I``'s LDL^T factorisation
    (pivots within ``pivmin`` of zero are pushed to ``-pivmin``)."""
    n = core.get_aval(alpha).shape[0]
    q = alpha[0] - x
    count = lax.convert_element_type(q < 0, np.int32)
    q = lax_numpy.where(alpha[0] == x, alpha0_perturbation, q)

    def step(i, state):
        q, count = state
        q = alpha[i] - beta_sq[i - 1] / q - x
        small = q <= pivmin
        count = lax_numpy.where(small, count + np.int32(1), count)
        return lax_numpy.where(small, ufuncs.minimum(q, -pivmin), q), count
    _, count = fori_loop(1, n, step, (q, count))
    return count


def _target_counts(select, select_range, n):
    if select == "a":
        return creation.arange(n, dtype=np.int32)
    if select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        return creation.arange(select_range[0], select_range[1] + 1, dtype=np.int32)
    if select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not "
                                  "implemented")
    raise ValueError("'select must have a value in {'a', 'i', 'v'}.")


def _bisect(alpha, beta_abs, beta_sq, targets, tol):
    """The eigenvalues of ranks ``targets``, bisecting from a slightly
    widened Gershgorin interval until every bracket is within the absolute
    tolerance (at most one step per mantissa bit)."""
    n = core.get_aval(alpha).shape[0]
    dt = core.get_aval(alpha).dtype
    finfo = np.finfo(dt)
    row_sums = lax_numpy.concatenate(
        [beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]], axis=0)
    est_max = reductions.amax(alpha + row_sums)
    est_min = reductions.amin(alpha - row_sums)
    t_norm = ufuncs.maximum(ufuncs.abs(est_min), ufuncs.abs(est_max))
    one = np.ones([], dtype=dt)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * ufuncs.maximum(1, reductions.amax(beta_sq))
    alpha0_perturbation = ufuncs.square(finfo.eps * beta_abs[0])
    abs_tol = finfo.eps * t_norm
    if tol is not None:
        abs_tol = ufuncs.maximum(tol, abs_tol)
    fudge = 2.1
    slack = np.array(n, dt) * fudge * finfo.eps * t_norm
    shape = core.get_aval(targets).shape
    lower = lax_numpy.broadcast_to(est_min - slack - 2 * fudge * pivmin, shape)
    upper = lax_numpy.broadcast_to(est_max + slack + fudge * pivmin, shape)
    pivmin = lax_numpy.broadcast_to(pivmin, shape)
    alpha0_perturbation = lax_numpy.broadcast_to(alpha0_perturbation, shape)

    def cond(state):
        i, lower, _, upper = state
        return ufuncs.logical_and(i < finfo.nmant + 1,
                                  abs_tol < reductions.amax(upper - lower))

    def body(state):
        i, lower, mid, upper = state
        counts = _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, mid)
        lower = lax_numpy.where(counts <= targets, mid, lower)
        upper = lax_numpy.where(counts > targets, mid, upper)
        return i + 1, lower, 0.5 * (lower + upper), upper
    _, _, mid, _ = while_loop(cond, body, (0, lower, 0.5 * (upper + lower), upper))
    return mid


def _clusters(eigvals):
    """Start and end (exclusive) of each run of eigenvalues closer than
    ``sqrt(eps) * |T|`` to the next, padded to ``k // 2 + 1`` runs, and the
    number of runs."""
    k = core.get_aval(eigvals).shape[0]
    eps = np.finfo(core.get_aval(eigvals).dtype).eps
    t_norm = ufuncs.maximum(ufuncs.abs(eigvals[0]), ufuncs.abs(eigvals[-1]))
    close = (eigvals[1:] - eigvals[:-1]) < np.sqrt(eps) * t_norm
    left_close = padding.pad(close, (1, 0), constant_values=False)
    right_close = padding.pad(close, (0, 1), constant_values=False)
    starts = ufuncs.logical_and(ufuncs.logical_not(left_close), right_close)
    ends = ufuncs.logical_and(left_close, ufuncs.logical_not(right_close))
    size = k // 2 + 1
    return (lax_numpy.nonzero(starts, size=size)[0],
            lax_numpy.nonzero(ends, size=size)[0] + 1,
            reductions.sum(starts))


def _orthonormalize_clusters(v, starts, ends, num_clusters):
    """Replace each cluster's rows of ``v`` by an orthonormal basis of
    their span (the ``Q`` of a QR factorisation)."""
    k, n = core.get_aval(v).shape
    arange_k = creation.arange(k)

    def one(i, v):
        start, end = starts[i], ends[i]
        padded = padding.pad(v, ((0, k), (0, 0)))
        block = dynamic_slice(padded, (start, 0), (k, n))
        mask = lax.convert_element_type(arange_k < end - start, core.get_aval(v).dtype)
        q, _ = np_linalg.qr(lax_numpy.swapaxes(block * mask[:, None], 0, 1))
        qt = lax_numpy.swapaxes(q, 0, 1) * mask[:, None]
        zeros = creation.zeros((2 * k, n), core.get_aval(v).dtype)
        update = dynamic_update_slice(zeros, qt, (start, 0))[:k, :]
        inside = ufuncs.logical_and(arange_k >= start, arange_k < end)
        return lax_numpy.where(inside[:, None], update, v)
    return fori_loop(0, num_clusters, one, v)


def _eigenvectors(alpha, beta, eigvals, key):
    """Inverse iteration: at most 5 steps (LAPACK's ``stein``), stopping
    once no vector's norm grows by 10% or more; rows of the result are the
    eigenvectors."""
    n = core.get_aval(alpha).shape[0]
    k = core.get_aval(eigvals).shape[0]
    dl = padding.pad(ufuncs.conj(beta), (1, 0))
    du = padding.pad(beta, (0, 1))
    starts, ends, num_clusters = _clusters(eigvals)
    solve_dtype = np.result_type(core.get_aval(alpha).dtype, core.get_aval(beta).dtype)
    base_dtype = np.finfo(solve_dtype).dtype
    v = random.normal(key, (k, n), dtype=base_dtype).astype(solve_dtype)
    v = v / np_linalg.norm(v, axis=-1, keepdims=True).astype(solve_dtype)
    shifted = (alpha[None, :] - eigvals[:, None]).astype(solve_dtype)
    dl_k = lax_numpy.broadcast_to(dl[None, :], (k, n)).astype(solve_dtype)
    du_k = lax_numpy.broadcast_to(du[None, :], (k, n)).astype(solve_dtype)

    def step(state):
        i, v, norm, _ = state
        new = tridiagonal_solve(dl_k, shifted, du_k, v[:, :, None].astype(solve_dtype),
                                perturb_singular=True)[..., 0]
        new_norm = np_linalg.norm(new, axis=-1, keepdims=True)
        new = new / new_norm.astype(core.get_aval(new).dtype)
        new = _orthonormalize_clusters(new, starts, ends, num_clusters)
        return i + 1, new, new_norm[:, 0], norm

    def going(state):
        i, _, norm, old_norm = state
        return ufuncs.logical_and(i < 5, reductions.any(norm >= 1.1 * old_norm))
    real = core.get_aval(eigvals).dtype
    _, v, _, _ = while_loop(going, step, (0, v, creation.ones(k, real),
                                          creation.zeros(k, real)))
    return v


def _check_dtypes(alpha, beta):
    a_dt, b_dt = core.get_aval(alpha).dtype, core.get_aval(beta).dtype
    if a_dt != b_dt:
        raise TypeError("diagonal and off-diagonal values must have same dtype, "
                        f"got {a_dt} and {b_dt}")
    if a_dt not in _SUPPORTED or b_dt not in _SUPPORTED:
        raise TypeError("Only float32 and float64 inputs are supported as inputs to "
                        f"jax.scipy.linalg.eigh_tridiagonal, got {a_dt} and {b_dt}")


@functools.partial(jit, static_argnames=("eigvals_only", "select", "select_range"))
def eigh_tridiagonal(d, e, *, eigvals_only=False, select="a", select_range=None,
                     tol=None, key=None):
    """Eigenvalues (ascending, real) of the Hermitian tridiagonal matrix
    with diagonal ``d`` and off-diagonal ``e``; with eigenvectors (columns)
    unless ``eigvals_only``.  ``select`` 'a' (all) or 'i' (ranks
    ``select_range[0]..select_range[1]``); 'v' is JAX's
    NotImplementedError.  ``tol`` bounds the bisection's absolute error
    from below; ``key`` seeds inverse iteration (SPEC SLA-14)."""
    if not eigvals_only and key is None:
        key = random.key(42)
    alpha, beta = creation.asarray(d), creation.asarray(e)
    _check_dtypes(alpha, beta)
    n = core.get_aval(alpha).shape[0]
    if n <= 1:
        w = ufuncs.real(alpha)
        eye = creation.eye(n, dtype=core.get_aval(alpha).dtype)
        return w if eigvals_only else (w, eye)
    if dtypes.issubdtype(core.get_aval(alpha).dtype, np.complexfloating):
        alpha = ufuncs.real(alpha)
        beta_sq = ufuncs.real(beta * ufuncs.conj(beta))
        beta_abs = ufuncs.sqrt(beta_sq)
    else:
        beta_abs = ufuncs.abs(beta)
        beta_sq = ufuncs.square(beta)
    targets = _target_counts(select, select_range, n)
    w = _bisect(alpha, beta_abs, beta_sq, targets, tol)
    if eigvals_only:
        return w
    return w, lax_numpy.swapaxes(_eigenvectors(alpha, beta, w, key), 0, 1)
