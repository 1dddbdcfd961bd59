"""``jax.scipy.linalg``: Schur and Hessenberg forms, the polar
decomposition and the Sylvester equation (SPEC SLA-10..SLA-13).

``schur`` and ``hessenberg`` bind the LAPACK-backed primitives of
:mod:`refjax._src.lax.linalg_eig`; ``rsf2csf`` rotates a real Schur form to
a complex one with Givens rotations in a ``fori_loop``; ``polar`` is QDWH
(:func:`refjax._src.lax.linalg_extra.qdwh`) or the SVD; ``solve_sylvester``
reduces ``A X + X B = C`` to a triangular system through Schur forms (or
eigendecompositions) of ``A`` and ``B``.  All batch over leading axes
(``jnp.vectorize``), as in JAX.
"""
import functools

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.lax import lax
from refjax._src.lax import linalg as lax_linalg
from refjax._src.lax import linalg_eig as lax_linalg_eig
from refjax._src.lax.control_flow.conditionals import cond
from refjax._src.lax.control_flow.scan import fori_loop, scan
from refjax._src.lax.dynamic_slice import (
    dynamic_slice, dynamic_slice_in_dim, dynamic_update_slice_in_dim,
)
from refjax._src.lax.linalg_extra import householder_product, qdwh
from refjax._src.numpy import contractions, creation, editing, lax_numpy
from refjax._src.numpy import linalg as np_linalg
from refjax._src.numpy import linalg_extra, reductions, ufuncs, util
from refjax._src.numpy.vectorize import vectorize

__all__ = ["hessenberg", "polar", "rsf2csf", "schur", "solve_sylvester"]


def _shape(x):
    return core.get_aval(x).shape


def _dtype(x):
    return core.get_aval(x).dtype


def _mH(x):
    return ufuncs.conj(lax_numpy.swapaxes(x, -1, -2))


# ---------------------------------------------------------------------------
# schur and hessenberg (SPEC SLA-10)
# ---------------------------------------------------------------------------

@functools.partial(jit, static_argnames=("output",))
def _schur(a, output):
    if output == "complex":
        a = lax.convert_element_type(a, util.to_complex_dtype(_dtype(a)))
    t, q = lax_linalg_eig.schur(a)
    return t, q


def schur(a, output="real"):
    """``(T, Z)`` with ``a = Z T Z^H``: ``T`` upper quasi-triangular (2x2
    blocks for a real matrix's complex pairs) for ``output='real'``,
    triangular for ``'complex'`` (``a`` is first made complex)
    (SPEC SLA-10)."""
    if output not in ("real", "complex"):
        raise ValueError(
            f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
    return _schur(a, output)


@functools.partial(jit, static_argnames=("calc_q", "check_finite", "overwrite_a"))
def hessenberg(a, *, calc_q=False, overwrite_a=False, check_finite=True):
    """Upper Hessenberg ``h`` with ``a = q h q^H``; ``(h, q)`` with
    ``calc_q``.  ``q`` is the product of LAPACK's reflectors, whose first
    row and column are those of the identity (SPEC SLA-10)."""
    del overwrite_a, check_finite
    n = _shape(a)[-1]
    if n == 0:
        zeros = creation.zeros_like(a)
        return (zeros, creation.zeros_like(a)) if calc_q else zeros
    packed, taus = lax_linalg_eig.hessenberg(a)
    h = contractions.triu(packed, -1)
    if not calc_q:
        return h
    q = householder_product(packed[..., 1:, :-1], taus)
    batch, dt = _shape(packed)[:-2], _dtype(packed)
    q = editing.block([[creation.ones(batch + (1, 1), dt),
                        creation.zeros(batch + (1, n - 1), dt)],
                       [creation.zeros(batch + (n - 1, 1), dt), q]])
    return h, q


# ---------------------------------------------------------------------------
# rsf2csf (SPEC SLA-11)
# ---------------------------------------------------------------------------

def _givens_step(m, T, Z):
    """Zero ``T[m, m-1]`` with the rotation ``G`` built from the 2x2 block's
    first eigenvalue, applied to rows ``m-1, m`` (right of the block's
    first column), to columns ``m-1, m`` (above its last row), and to
    ``Z``'s columns."""
    N = _shape(T)[0]
    dt = _dtype(T)
    mu = linalg_extra.eigvals(dynamic_slice(T, (m - 1, m - 1), (2, 2))) - T[m, m]
    r = lax.convert_element_type(
        np_linalg.norm(lax_numpy.stack([mu[0], T[m, m - 1]])), dt)
    c = mu[0] / r
    s = T[m, m - 1] / r
    G = lax_numpy.stack([lax_numpy.stack([ufuncs.conj(c), s]),
                         lax_numpy.stack([-s, c])]).astype(dt)
    GH = _mH(G)
    rows = dynamic_slice_in_dim(T, m - 1, 2, axis=0)
    col_mask = creation.arange(N) >= m - 1
    new_rows = lax_numpy.where(col_mask, contractions.matmul(
        G, lax_numpy.where(col_mask, rows, 0)), rows)
    T = dynamic_update_slice_in_dim(T, new_rows, m - 1, axis=0)
    cols = dynamic_slice_in_dim(T, m - 1, 2, axis=1)
    row_mask = (creation.arange(N) < m + 1)[:, None]
    new_cols = lax_numpy.where(row_mask, contractions.matmul(
        lax_numpy.where(row_mask, cols, 0), GH), cols)
    T = dynamic_update_slice_in_dim(T, new_cols, m - 1, axis=1)
    z_cols = contractions.matmul(dynamic_slice_in_dim(Z, m - 1, 2, axis=1), GH)
    Z = dynamic_update_slice_in_dim(Z, z_cols, m - 1, axis=1)
    return T, Z


def rsf2csf_2d(T, Z):
    """``rsf2csf`` of one matrix (shared with ``funm``)."""
    T, Z = util.promote_dtypes_complex(T, Z)
    N = _shape(T)[0]
    if N == 1:
        return T, Z
    eps = dtypes.finfo(_dtype(T)).eps

    def body(i, TZ):
        T, Z = TZ
        m = N - i
        big = ufuncs.abs(T[m, m - 1]) > eps * (ufuncs.abs(T[m - 1, m - 1])
                                               + ufuncs.abs(T[m, m]))
        T, Z = cond(big, _givens_step, lambda m, T, Z: (T, Z), m, T, Z)
        return T.at[m, m - 1].set(0.0), Z
    return fori_loop(1, N, body, (T, Z))


@functools.partial(jit, static_argnames=("check_finite",))
def rsf2csf(T, Z, check_finite=True):
    """The complex Schur form ``(T, Z)`` from a real one: each 2x2 block
    on ``T``'s diagonal whose subdiagonal entry is not negligible is
    rotated to triangular form, and ``Z`` with it (SPEC SLA-11)."""
    del check_finite
    T, Z = creation.asarray(T), creation.asarray(Z)
    ts, zs = _shape(T), _shape(Z)
    if len(ts) < 2 or ts[-1] != ts[-2]:
        raise ValueError("Input 'T' must be square.")
    if len(zs) < 2 or zs[-1] != zs[-2]:
        raise ValueError("Input 'Z' must be square.")
    if ts[-1] != zs[-1]:
        raise ValueError(f"Input array shapes must match: Z: {zs} vs. T: {ts}")
    return vectorize(rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)")(T, Z)


# ---------------------------------------------------------------------------
# polar (SPEC SLA-12)
# ---------------------------------------------------------------------------

def _polar_2d(a, side, method, eps, max_iterations):
    m, n = _shape(a)
    if method == "qdwh":
        if m >= n and side == "right":
            u, p, _, _ = qdwh(a, is_hermitian=False, eps=eps)
        elif m < n and side == "left":
            u, p, _, _ = qdwh(_mH(a), is_hermitian=False, eps=eps)
            u, p = _mH(u), _mH(p)
        else:
            raise NotImplementedError(
                "method='qdwh' only supports mxn matrices where m < n where "
                f"side='right' and m >= n side='left', got {(m, n)} with {side=}")
    elif method == "svd":
        u_svd, s, vh = lax_linalg.svd(a, full_matrices=False)
        s = lax.convert_element_type(s, _dtype(u_svd))
        u = contractions.matmul(u_svd, vh)
        if side == "right":
            p = contractions.matmul(_mH(vh) * s[None, :], vh)
        else:
            p = contractions.matmul(u_svd * s[None, :], _mH(u_svd))
    else:
        raise ValueError(f"Unknown polar decomposition method {method}.")
    return u, p


@functools.partial(jit, static_argnames=("side", "method"))
def polar(a, side="right", *, method="qdwh", eps=None, max_iterations=None):
    """``(u, p)``: ``a = u p`` (``side='right'``, ``p`` ``n x n``) or
    ``a = p u`` (``'left'``, ``p`` ``m x m``), ``u`` with orthonormal
    columns (rows) and ``p`` Hermitian positive semi-definite.  ``method``
    'qdwh' needs ``m >= n`` on the right and ``m < n`` on the left; 'svd'
    takes any shape.  ``max_iterations`` is unused, as in JAX
    (SPEC SLA-12)."""
    arr = creation.asarray(a)
    if len(_shape(arr)) < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ("right", "left"):
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    sig = "(m,n)->(m,n),(n,n)" if side == "right" else "(m,n)->(m,n),(m,m)"
    fn = functools.partial(_polar_2d, side=side, method=method, eps=eps,
                           max_iterations=max_iterations)
    return vectorize(fn, signature=sig)(arr)


# ---------------------------------------------------------------------------
# solve_sylvester (SPEC SLA-13)
# ---------------------------------------------------------------------------

def _triangular_sylvester(R, S, F):
    """``Y`` with ``R Y + Y S = F``, ``R`` upper and ``S`` lower triangular:
    column ``j`` only needs the columns right of it, so the columns are
    solved right to left, each an upper-triangular solve with
    ``R + S[j, j] I``."""
    m, n = _shape(F)
    eye = creation.eye(m, dtype=_dtype(R))

    def step(Y, j):
        # Columns <= j of Y are still zero, so Y @ S[:, j] sums over k > j.
        rhs = F[:, j] - contractions.matmul(Y, S[:, j])
        shifted = R + S[j, j] * eye
        y = lax_linalg.triangular_solve(shifted, rhs[:, None], left_side=True,
                                        lower=False)
        return dynamic_update_slice_in_dim(Y, y, j, axis=1), None
    Y, _ = scan(step, creation.zeros((m, n), _dtype(F)),
                creation.arange(n - 1, -1, -1))
    return Y


def _sylvester_schur(A, B, C):
    R, U = schur(A, output="complex")
    S, V = schur(_mH(B), output="complex")
    F = contractions.matmul(contractions.matmul(_mH(U), C.astype(_dtype(R))), V)
    Y = _triangular_sylvester(R, _mH(S), F)
    return contractions.matmul(contractions.matmul(U, Y), _mH(V))


def _sylvester_eigen(A, B, C):
    ra, ua = linalg_extra.eig(A)
    rb, ub = linalg_extra.eig(B)
    F = np_linalg.solve(ua, contractions.matmul(C.astype(_dtype(ra)), ub))
    Y = F / (ra[:, None] + rb[None, :])
    return contractions.matmul(contractions.matmul(ua, Y), np_linalg.inv(ub))


def _solve_sylvester_2d(A, B, C, *, method, tol):
    if method == "schur":
        X = _sylvester_schur(A, B, C)
    elif method == "eigen":
        X = _sylvester_eigen(A, B, C)
    else:
        raise ValueError(f'Unrecognized method {method}. The two valid methods are '
                         'either "schur" or "eigen".')
    if not dtypes.issubdtype(_dtype(C), np.complexfloating):
        X = ufuncs.real(X)
    # No (unique) solution when an eigenvalue of A and one of B sum to ~0.
    sums = (linalg_extra.eigvals(A)[:, None] + linalg_extra.eigvals(B)[None, :])
    singular = reductions.any(ufuncs.abs(sums) < tol)
    return lax_numpy.where(singular, np.nan, X).astype(_dtype(X))


@functools.partial(jit, static_argnames=("method",))
def solve_sylvester(A, B, C, *, method="schur", tol=1e-8):
    """``X`` with ``A X + X B = C`` (``A`` ``m x m``, ``B`` ``n x n``), by
    ``method`` 'schur' (Bartels-Stewart) or 'eigen'.  Where some
    ``|eig(A)_i + eig(B)_j| < tol`` the result is all NaN.  Batch axes
    broadcast (SPEC SLA-13)."""
    A, B, C = util.promote_dtypes_inexact(creation.asarray(A), creation.asarray(B),
                                          creation.asarray(C))
    m, n = _shape(C)[-2:]
    if _shape(A)[-2:] != (m, m) or _shape(B)[-2:] != (n, n):
        raise ValueError(f"Incompatible shapes for Sylvester equation:\nA: "
                         f"{_shape(A)}\nB: {_shape(B)}\nC: {_shape(C)}")
    fn = functools.partial(_solve_sylvester_2d, method=method, tol=tol)
    return vectorize(fn, signature="(m,m),(n,n),(m,n)->(m,n)")(A, B, C)
