"""The remaining ``jax.lax.linalg`` operations (SPEC LIN-6..LIN-9).

Householder products (``householder_product``, ``ormqr``), the symmetric
product ``alpha A A^T + beta C``, the rank-1 Cholesky update, the pivots
of ``lu`` as a permutation, the QDWH polar decomposition (a composition of
``qr``, ``cholesky`` and ``triangular_solve``, as in JAX), and the
algorithm enums (defined in :mod:`refjax._src.lax.linalg`, whose ``svd``
and ``eigh`` read them).

None of these primitives has a derivative rule in JAX, and refjax adds
none: differentiating one raises JAX's ``NotImplementedError``.  Each
batches over leading axes, except ``cholesky_update``, which JAX refuses
to batch.
"""
import operator

import numpy as np

from refjax._src import api
from refjax._src import backend as _backend
from refjax._src import core, dtypes
from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import batching
from refjax._src.lax import lax, reductions
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax.control_flow import loops
from refjax._src.lax.lax import _xp
from refjax._src.lax.linalg_common import (
    _H, _T, _defbatch_leading, _eye, _matmul, _tril,
)
from refjax._src.lax.linalg_core import (
    EighImplementation, EigImplementation, SvdAlgorithm, cholesky, qr, triangular_solve,
)
from refjax._src.lax.linalg_eig import (
    check_arraylike, check_batch_sizes, check_dtypes, check_ranks, weak,
)

__all__ = [
    "EigImplementation", "EighImplementation", "SvdAlgorithm", "cholesky_update",
    "cholesky_update_p", "householder_product", "householder_product_p",
    "lu_pivots_to_permutation", "lu_pivots_to_permutation_p", "ormqr", "ormqr_p",
    "qdwh", "symmetric_product", "symmetric_product_p",
]

_float = (np.floating,)
_inexact = (np.floating, np.complexfloating)
_NO_JVP = "undefined in JAX: it has no derivative rule"


def _defbatch_all_front(prim):
    """Every operand gets the mapped axis in front (an unmapped one is
    broadcast): JAX's batching of its linalg primitives."""
    def rule(axis_data, vals, dims, **params):
        args = [batching.bdim_at_front(x, d, axis_data.size) for x, d in zip(vals, dims)]
        return prim.bind(*args, **params), 0
    prim.batch = rule


# ---------------------------------------------------------------------------
# householder_product
# ---------------------------------------------------------------------------

householder_product_p = Primitive("householder_product")


@householder_product_p.def_abstract_eval
def _householder_product_abstract_eval(a, taus):
    check_ranks("householder_product", [a, taus], (2, 1))
    m, n = a.shape[-2:]
    if m < n:
        raise ValueError("The first argument to householder_product must have at "
                         f"least as many rows as columns, got shape {a.shape[-2:]}")
    if taus.shape[-1] > min(m, n):
        raise ValueError("The second argument to householder_product must not have "
                         "more rows than the minimum of the first argument's rows "
                         "and columns.")
    check_dtypes("householder_product", [a, taus], _inexact)
    return ShapedArray(a.shape, a.dtype, weak([a, taus]))


@householder_product_p.def_impl
def _householder_product_impl(a, taus):
    """``Q[:, :n]`` for ``Q = H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H``
    with ``v_i`` the unit-diagonal column ``i`` of ``a`` below the
    diagonal: LAPACK's ``orgqr`` / ``ungqr`` (SPEC LIN-6)."""
    xp = _xp()
    check_batch_sizes([a, taus], (2, 1))
    m, n = a.shape[-2:]
    if a.size == 0:
        return xp.broadcast_to(xp.eye(m, n, dtype=a.dtype), a.shape).copy()
    orgqr = _backend.get().lapack("ungqr" if a.dtype.kind == "c" else "orgqr", a.dtype)
    if orgqr is None or taus.shape[-1] == 0:
        eye = xp.broadcast_to(xp.eye(m, n, dtype=a.dtype), a.shape)
        return _apply_reflectors(xp, a, taus, eye, left=True, transpose=False)
    flat_a = a.reshape((-1, m, n))
    flat_t = taus.reshape((-1, taus.shape[-1]))
    outs = []
    for x, t in zip(flat_a, flat_t):
        q, _, info = orgqr(x, t)
        outs.append(q if info == 0 else np.full((m, n), np.nan, a.dtype))
    return np.stack(outs).reshape(a.shape).astype(a.dtype, copy=False)


def _reflector(xp, a, i):
    """Column ``i`` of ``a`` as a Householder vector: zeros above the
    diagonal, a one on it."""
    v = a[..., :, i].copy()
    v[..., :i] = 0
    v[..., i] = 1
    return v


def _apply_reflectors(xp, a, taus, c, *, left, transpose):
    """``Q c``, ``Q^H c``, ``c Q`` or ``c Q^H`` one reflector at a time,
    never forming ``Q``: ``Q c`` and ``c Q^H`` take the reflectors last to
    first."""
    k = taus.shape[-1]
    order = range(k - 1, -1, -1) if left != transpose else range(k)
    conj = transpose and a.dtype.kind == "c"
    c = c.copy()
    for i in order:
        v = _reflector(xp, a, i)
        tau = xp.conj(taus[..., i]) if conj else taus[..., i]
        if left:
            vhc = xp.einsum("...m,...mk->...k", xp.conj(v), c)
            c = c - tau[..., None, None] * v[..., :, None] * vhc[..., None, :]
        else:
            cv = xp.einsum("...rm,...m->...r", c, v)
            c = c - tau[..., None, None] * cv[..., :, None] * xp.conj(v)[..., None, :]
    return c.astype(c.dtype, copy=False)


_defbatch_all_front(householder_product_p)
householder_product_p.not_supported("jvp", _NO_JVP)


def householder_product(a, taus):
    """The orthogonal (unitary) product of the Householder reflectors stored
    below the diagonal of ``a`` with scale factors ``taus`` (SPEC LIN-6)."""
    check_arraylike("householder_product", a, taus)
    return householder_product_p.bind(a, taus)


# ---------------------------------------------------------------------------
# ormqr
# ---------------------------------------------------------------------------

ormqr_p = Primitive("ormqr")


@ormqr_p.def_abstract_eval
def _ormqr_abstract_eval(a, taus, c, *, left, transpose):
    check_ranks("ormqr", [a, taus, c], (2, 1, 2))
    m = a.shape[-2]
    if left and c.shape[-2] != m:
        raise ValueError(
            "ormqr with left=True expects c to have the same number of rows as "
            f"the Householder matrix a. Got a shape {a.shape[-2:]} and c shape "
            f"{c.shape[-2:]}.")
    if not left and c.shape[-1] != m:
        raise ValueError(
            "ormqr with left=False expects c to have the same number of columns as "
            f"the Householder matrix a has rows. Got a shape {a.shape[-2:]} and c "
            f"shape {c.shape[-2:]}.")
    if taus.shape[-1] > min(a.shape[-2:]):
        # JAX reads past the reflectors it has here; refjax refuses.
        raise ValueError("ormqr expects at most min(m, n) Householder scalars for "
                         f"a of shape {a.shape[-2:]}, got taus of shape "
                         f"{taus.shape[-1:]}.")
    check_dtypes("ormqr", [a, taus, c], _inexact)
    return ShapedArray(c.shape, c.dtype, weak([a, taus, c]))


@ormqr_p.def_impl
def _ormqr_impl(a, taus, c, *, left, transpose):
    """``Q c`` (``left``) or ``c Q``, with ``Q^H`` for ``transpose``, where
    ``Q`` is the product of ``a``'s reflectors (SPEC LIN-6)."""
    xp = _xp()
    check_batch_sizes([a, taus, c], (2, 1, 2))
    if c.size == 0 or taus.shape[-1] == 0:
        return c.copy()
    return _apply_reflectors(xp, a, taus, c, left=left, transpose=transpose)


_defbatch_all_front(ormqr_p)
ormqr_p.not_supported("jvp", _NO_JVP)


def ormqr(a, taus, c, *, left=True, transpose=False):
    """Multiply ``c`` by ``Q`` (or ``Q^H``) of a QR factorisation given as
    reflectors, without forming ``Q`` (SPEC LIN-6)."""
    check_arraylike("ormqr", a, taus, c)
    return ormqr_p.bind(a, taus, c, left=left, transpose=transpose)


# ---------------------------------------------------------------------------
# symmetric_product
# ---------------------------------------------------------------------------

symmetric_product_p = Primitive("symmetric_product")


@symmetric_product_p.def_abstract_eval
def _symmetric_product_abstract_eval(a, c, *, alpha, beta):
    check_ranks("symmetric_product", [a, c], (2, 2))
    if a.shape[-2] != c.shape[-1] or c.shape[-2] != c.shape[-1]:
        raise ValueError(
            "symmetric_update expects a rectangular matrix of shape (m, n) and a "
            f"square matrix of shape (n, n). Got shapes {a.shape[-2:]} and "
            f"{c.shape[-2:]}.")
    check_dtypes("symmetric_product", [a, c], _float)
    return ShapedArray(c.shape, c.dtype, weak([a, c]))


@symmetric_product_p.def_impl
def _symmetric_product_impl(a, c, *, alpha, beta):
    """``alpha a a^T + beta c``, the whole matrix (SPEC LIN-7)."""
    xp = _xp()
    dt = c.dtype
    full = a.shape[:-1] + a.shape[-2:-1]
    if full != c.shape:
        # JAX computes this with lax operations: its add refuses the shapes.
        raise TypeError(f"add got incompatible shapes for broadcasting: {full}, "
                        f"{c.shape}.")
    prod = xp.matmul(a, xp.swapaxes(a, -1, -2))
    return (xp.asarray(alpha, dt) * prod + xp.asarray(beta, dt) * c).astype(dt, copy=False)


_defbatch_all_front(symmetric_product_p)
symmetric_product_p.not_supported("jvp", _NO_JVP)


def symmetric_product(a_matrix, c_matrix, *, alpha=1., beta=0., symmetrize_output=False):
    """``alpha A A^T + beta C``; with ``symmetrize_output`` the upper
    triangle is rebuilt from the lower one (SPEC LIN-7)."""
    check_arraylike("symmetric_product", a_matrix, c_matrix)
    result = symmetric_product_p.bind(a_matrix, c_matrix, alpha=alpha, beta=beta)
    if symmetrize_output:
        result = lax.add(_tril(result), _T(_tril(result, -1)))
    return result


# ---------------------------------------------------------------------------
# cholesky_update
# ---------------------------------------------------------------------------

cholesky_update_p = Primitive("cholesky_update")


@cholesky_update_p.def_abstract_eval
def _cholesky_update_abstract_eval(r, w):
    check_ranks("cholesky_update", [r, w], (2, 1), batching_ok=False)
    if r.shape[0] != r.shape[1] or w.shape[0] != r.shape[1]:
        raise ValueError(
            "Rank-1 update to Cholesky decomposition takes a square matrix "
            f"and a vector of the same size as input. Got shapes {r.shape} and "
            f"{w.shape} instead")
    check_dtypes("cholesky_update", [r, w], _float)
    return ShapedArray(r.shape, r.dtype, weak([r, w]))


@cholesky_update_p.def_impl
def _cholesky_update_impl(r, w):
    """Givens rotations that fold ``w`` into the rows of ``R`` one by one:
    the upper factor of ``R^T R + w w^T`` (SPEC LIN-8)."""
    xp = _xp()
    R = r.copy()
    z = w.copy()
    with np.errstate(all="ignore"):
        for k in range(z.shape[0]):
            c, s = _givens(xp, R[k, k], z[k])
            R[k, :], z = c * R[k, :] - s * z, c * z + s * R[k, :]
    return R


cholesky_update_p.not_supported("jvp", _NO_JVP)
cholesky_update_p.not_supported(
    "batch", "undefined in JAX: cholesky_update takes exactly one matrix")


def _givens(xp, x, y):
    """``(c, s)`` rotating ``(x, y)`` onto the first axis, scaled to avoid
    overflow; ``(1, 0)`` when ``y`` is already zero."""
    dt = x.dtype
    if y == 0:
        return dt.type(1), dt.type(0)
    den = abs(x) if abs(x) > abs(y) else abs(y)
    x, y = x / den, y / den
    rh = dt.type(1) / xp.sqrt(x * x + y * y)
    return x * rh, -y * rh


def cholesky_update(r_matrix, w_vector):
    """The upper Cholesky factor of ``R^T R + w w^T`` from ``R`` in
    ``O(n^2)`` (SPEC LIN-8)."""
    check_arraylike("cholesky_update", r_matrix, w_vector)
    return cholesky_update_p.bind(r_matrix, w_vector)


# ---------------------------------------------------------------------------
# lu_pivots_to_permutation
# ---------------------------------------------------------------------------

lu_pivots_to_permutation_p = Primitive("lu_pivots_to_permutation")


@lu_pivots_to_permutation_p.def_abstract_eval
def _lu_pivots_abstract_eval(pivots, *, permutation_size):
    check_ranks("lu_pivots_to_permutation", [pivots], (1,))
    k = pivots.shape[-1]
    if not permutation_size >= k:
        raise ValueError(
            f"Output permutation size {permutation_size} has to exceed the "
            f"trailing dimension of the pivots. Got pivots size {k}")
    check_dtypes("lu_pivots_to_permutation", [pivots], (np.int32,))
    return ShapedArray(pivots.shape[:-1] + (permutation_size,), np.dtype(np.int32),
                       pivots.weak_type)


@lu_pivots_to_permutation_p.def_impl
def _lu_pivots_impl(pivots, *, permutation_size):
    """Apply the swaps ``i <-> pivots[i]`` in order to ``0..m-1``.  As in
    JAX's loop of indexed updates, a negative pivot counts from the end,
    the read is clamped into range and an out-of-range write is dropped
    (SPEC LIN-8)."""
    xp = _xp()
    m = permutation_size
    batch = pivots.shape[:-1]
    perm = xp.broadcast_to(xp.arange(m, dtype=np.int32), batch + (m,)).copy()
    if m == 0:
        return perm
    flat = perm.reshape((-1, m))
    rows = xp.arange(flat.shape[0])
    swaps = pivots.reshape((-1, pivots.shape[-1])).astype(np.int64)
    for i in range(swaps.shape[-1]):
        j = xp.where(swaps[:, i] < 0, swaps[:, i] + m, swaps[:, i])
        x = flat[:, i].copy()
        y = flat[rows, xp.clip(j, 0, m - 1)]
        flat[:, i] = y
        ok = (j >= 0) & (j < m)
        flat[rows[ok], j[ok]] = x[ok]
    return flat.reshape(batch + (m,))


_defbatch_leading(lu_pivots_to_permutation_p)
lu_pivots_to_permutation_p.not_supported(
    "jvp", "integer-only: int32 pivots in, an int32 permutation out")


def lu_pivots_to_permutation(pivots, permutation_size):
    """The permutation of ``0..permutation_size-1`` that the row swaps
    ``pivots`` (int32, as ``lu`` returns them) make (SPEC LIN-8)."""
    check_arraylike("lu_pivots_to_permutation", pivots)
    return lu_pivots_to_permutation_p.bind(
        pivots, permutation_size=operator.index(permutation_size))


# ---------------------------------------------------------------------------
# qdwh
# ---------------------------------------------------------------------------

_CHOLESKY_CUTOFF = 100


def qdwh(x, *, is_hermitian=False, max_iterations=None, eps=None, dynamic_shape=None):
    """Polar decomposition ``x = u h`` of a full-rank ``M x N`` matrix,
    ``M >= N``, by QR-based dynamically weighted Halley iteration: returns
    ``(u, h, num_iters, is_converged)``.  ``dynamic_shape=(m, n)`` treats
    ``x`` as its top-left ``m x n`` block padded with zeros (SPEC LIN-9)."""
    check_arraylike("qdwh", x)
    aval = core.get_aval(x)
    if not dtypes.issubdtype(aval.dtype, np.inexact):
        raise ValueError(f"data type {aval.dtype.type!r} not inexact")
    if aval.ndim != 2:
        raise ValueError(f"too many values to unpack (expected 2): qdwh takes one "
                         f"matrix of shape M x N, got shape {aval.shape}")
    M, N = aval.shape
    if M < N:
        raise ValueError('The input matrix of shape M x N must have M >= N.')
    is_hermitian = bool(is_hermitian)
    max_iterations = 10 if max_iterations is None else operator.index(max_iterations)
    if dynamic_shape is not None:
        m, n = (operator.index(d) for d in dynamic_shape)
        if (m, n) != (M, N):
            return _qdwh_padded(x, m, n, max_iterations, eps)
    return _qdwh_jit(x, is_hermitian=is_hermitian, max_iterations=max_iterations,
                     eps=eps)


def _qdwh_padded(x, m, n, max_iterations, eps):
    """The decomposition of the block, padded back with zeros (``u`` to
    ``M x N``, ``h`` to ``N x N``)."""
    M, N = core.get_aval(x).shape
    block = lax_shapes.slice(x, (0, 0), (m, n))
    u, h, k, ok = _qdwh_jit(block, is_hermitian=False, max_iterations=max_iterations,
                            eps=eps)
    zero = lax.convert_element_type(0, core.get_aval(x).dtype)
    u = lax_shapes.pad(u, zero, [(0, M - m, 0), (0, N - n, 0)])
    h = lax_shapes.pad(h, zero, [(0, N - n, 0), (0, N - n, 0)])
    return u, h, k, ok


def _qdwh_coefficients(eps, max_iterations):
    """The Halley weights ``(a, b, c)`` of each step, from the lower bound
    ``l`` on the smallest singular value (it starts at ``eps``)."""
    l, tol_l = eps, 10.0 * eps / 2.0
    coefs = []
    while l + tol_l < 1 and len(coefs) < max_iterations:
        l2 = l * l
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1.0 + dd) ** (1 / 2)
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** (1 / 2)
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        l = l * (a + b * l2) / (1 + c * l2)
        coefs.append((a, b, c))
    return coefs


def _qr_step(u, a, b, c):
    """One step through a QR factorisation of ``[sqrt(c) u; I]`` (stable
    while ``c`` is large)."""
    M, N = core.get_aval(u).shape
    dt = core.get_aval(u).dtype
    e = b / c
    sqrt_c = c ** 0.5
    y = lax_shapes.concatenate([lax.mul(u, _scalar(sqrt_c, dt)), _eye(dt, (N, N))], 0)
    q, _ = qr(y, full_matrices=False)
    q1 = lax_shapes.slice(q, (0, 0), (M, N))
    q2 = _H(lax_shapes.slice(q, (M, 0), (M + N, N)))
    return lax.add(lax.mul(_scalar(e, dt), u),
                   lax.mul(_scalar((a - e) / sqrt_c, dt), _matmul(q1, q2)))


def _cholesky_step(u, a, b, c):
    """One step through a Cholesky factorisation of ``c u^H u + I``."""
    N = core.get_aval(u).shape[1]
    dt = core.get_aval(u).dtype
    e = b / c
    gram = lax.add(lax.mul(_scalar(c, dt), _matmul(_H(u), u)), _eye(dt, (N, N)))
    y = cholesky(gram, symmetrize_input=False)
    z = triangular_solve(y, _T(u), left_side=True, lower=True, conjugate_a=True)
    z = lax.conj(z) if dtypes.issubdtype(dt, np.complexfloating) else z
    z = _H(triangular_solve(y, z, left_side=True, lower=True, transpose_a=True,
                            conjugate_a=True))
    return lax.add(lax.mul(_scalar(e, dt), u), lax.mul(_scalar(a - e, dt), z))


def _scalar(value, dtype):
    return np.array(value, dtype)


def _fro_norm(x):
    ax = lax.abs(x)
    return lax.sqrt(reductions.reduce_sum(lax.mul(ax, ax), (0, 1)))


def _qdwh_body(x, *, is_hermitian, max_iterations, eps):
    aval = core.get_aval(x)
    dt = aval.dtype
    real = np.finfo(dt).dtype
    if eps is None:
        eps = float(np.finfo(dt).eps)
    ax = lax.abs(x)
    one_norm = reductions.reduce_max(reductions.reduce_sum(ax, (0,)), (0,))
    inf_norm = reductions.reduce_max(reductions.reduce_sum(ax, (1,)), (0,))
    alpha_inv = lax.mul(lax.rsqrt(one_norm), lax.rsqrt(inf_norm))
    alpha_inv = lax.select(lax.eq(one_norm, _scalar(0, real)), _scalar(1, real), alpha_inv)
    u = lax.mul(x, lax.convert_element_type(alpha_inv, dt))
    tol_norm = _scalar(np.cbrt(10.0 * eps / 2.0), real)
    coefs = _qdwh_coefficients(eps, max_iterations)
    not_converged = np.array(True)
    for a, b, c in coefs:
        u_prev = u
        if c > _CHOLESKY_CUTOFF:
            u = _qr_step(u, a, b, c)
        else:
            u = _cholesky_step(u, a, b, c)
            not_converged = lax.gt(_fro_norm(lax.sub(u, u_prev)), tol_norm)

    # Once l has converged, plain Halley steps (a, b, c) = (3, 1, 3) until
    # the iterate stops moving.
    def cond(state):
        k, _, flag = state
        return lax.bitwise_and(flag, lax.lt(k, lax._const(k, max_iterations)))

    def body(state):
        k, u, _ = state
        new = _cholesky_step(u, 3.0, 1.0, 3.0)
        moved = lax.gt(_fro_norm(lax.sub(new, u)), tol_norm)
        return lax.add(k, lax._const(k, 1)), new, moved

    k, u, not_converged = loops.while_loop(cond, body, (len(coefs), u, not_converged))
    # A Newton-Schulz step polishes the orthogonality of u.
    u = lax.sub(lax.mul(_scalar(1.5, dt), u),
                lax.mul(_scalar(0.5, dt), _matmul(u, _matmul(_H(u), u))))
    h = _matmul(_H(u), x)
    h = lax.div(lax.add(h, _H(h)), _scalar(2, dt))
    return u, h, k, lax.bitwise_not(not_converged)


_qdwh_body.__name__ = "qdwh"
_qdwh_jit = api.jit(_qdwh_body, static_argnames=("is_hermitian", "max_iterations", "eps"))
