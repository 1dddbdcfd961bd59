"""``jax.scipy.linalg.qr`` and ``qr_multiply`` (SPEC SLA-8, SLA-9).

Both build on the lax layer: ``qr`` on the ``qr`` primitive (pivoted or
not, differentiable as that primitive is), ``qr_multiply`` on the
LAPACK-form ``geqrf``/``geqp3`` primitives of
:mod:`refjax._src.lax.linalg_qr_prims` and ``ormqr``, applying the
reflectors without forming ``Q`` (not differentiable, as in JAX).
"""
import functools

import numpy as np

from refjax._src import core
from refjax._src.api import jit
from refjax._src.lax import linalg as lax_linalg
from refjax._src.lax.linalg_extra import ormqr
from refjax._src.lax.linalg_qr_prims import geqp3, geqrf
from refjax._src.numpy import contractions, creation, lax_numpy, util

__all__ = ["qr", "qr_multiply"]


def _shape(x):
    return core.get_aval(x).shape


# ---------------------------------------------------------------------------
# qr (SPEC SLA-8)
# ---------------------------------------------------------------------------

@functools.partial(jit, static_argnames=("mode", "pivoting"))
def _qr(a, mode, pivoting):
    if mode in ("full", "r"):
        full_matrices = True
    elif mode == "economic":
        full_matrices = False
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    a, = util.promote_dtypes_inexact(creation.asarray(a))
    q, r, *p = lax_linalg.qr(a, pivoting=pivoting, full_matrices=full_matrices)
    if mode == "r":
        return (r, *p)
    return (q, r, *p)


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False,
       check_finite=True):
    """QR decomposition: ``mode`` 'full' (``q`` ``m x m``, ``r`` ``m x n``),
    'economic' (``k = min(m, n)`` columns of ``q``, ``k`` rows of ``r``) or
    'r' (a 1-tuple ``(r,)`` of the full ``r``).  With ``pivoting`` an int32
    column order ``p`` comes last, ``a[:, p] = q @ r`` (SPEC SLA-8)."""
    del overwrite_a, lwork, check_finite
    return _qr(a, mode, pivoting)


# ---------------------------------------------------------------------------
# qr_multiply (SPEC SLA-9)
# ---------------------------------------------------------------------------

def _check_multiply_shapes(a_shape, c_shape, mode):
    m, n = a_shape[-2:]
    k = min(m, n)
    if mode == "left" and c_shape[-2] != k:
        raise ValueError(
            f"Array shapes are not compatible for Q @ c operation: a has shape "
            f"{tuple(a_shape)} so Q has {k} columns, but c has {c_shape[-2]} rows "
            f"(expected {k}).")
    if mode == "right" and c_shape[-1] != m:
        raise ValueError(
            f"Array shapes are not compatible for c @ Q operation: a has shape "
            f"{tuple(a_shape)} so Q has {m} rows, but c has {c_shape[-1]} columns "
            f"(expected {m}).")


def qr_multiply(a, c, mode="right", pivoting=False, conjugate=False,
                overwrite_a=False, overwrite_c=False):
    """``(c @ Q, r)`` (``mode`` 'right') or ``(Q @ c, r)`` ('left'), ``Q``
    the economic factor of ``a``'s QR decomposition applied as reflectors,
    never formed; ``conjugate`` uses ``conj(Q)``; a 1-d ``c`` gives a 1-d
    result; ``r`` is the economic ``k x n`` factor, and with ``pivoting``
    the column order comes last.  Batch axes broadcast.  Not
    differentiable, as in JAX (SPEC SLA-9)."""
    del overwrite_a, overwrite_c
    a, c = util.promote_dtypes_inexact(creation.asarray(a), creation.asarray(c))
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    onedim = len(_shape(c)) == 1
    if onedim:
        c = c[:, None] if mode == "left" else c[None, :]
    _check_multiply_shapes(_shape(a), _shape(c), mode)
    m, n = _shape(a)[-2:]
    k = min(m, n)
    batch = lax_numpy.broadcast_shapes(_shape(a)[:-2], _shape(c)[:-2])
    a = lax_numpy.broadcast_to(a, batch + (m, n))
    c = lax_numpy.broadcast_to(c, batch + _shape(c)[-2:])
    if pivoting:
        r, p, taus = geqp3(a, creation.zeros(_shape(a)[:-2] + (n,), np.int32))
        p = p - np.int32(1)
    else:
        r, taus = geqrf(a)
    if m > n and mode == "left":
        zeros = creation.zeros(_shape(c)[:-2] + (m - k,) + _shape(c)[-1:], c.dtype)
        c = lax_numpy.concatenate([c, zeros], axis=-2)
    if conjugate:
        # (c^T Q^H)^T = conj(Q) c: transposing c swaps the side.
        c = lax_numpy.swapaxes(c, -1, -2)
    left = (mode == "left") != conjugate
    cq = ormqr(r, taus, c, left=left, transpose=conjugate)
    if conjugate:
        cq = lax_numpy.swapaxes(cq, -1, -2)
    if mode == "right":
        cq = cq[..., :k]
    if onedim:
        cq = lax_numpy.ravel(cq)
    r = contractions.triu(r[..., :k, :])
    return (cq, r, p) if pivoting else (cq, r)
