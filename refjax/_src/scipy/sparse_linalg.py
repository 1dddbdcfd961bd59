"""``jax.scipy.sparse.linalg``: Krylov solvers for ``A x = b`` (SPEC SOP-11 ..
SOP-17).

``A`` (and the preconditioner ``M``) is a matrix, an object with
``__matmul__``, or a function computing ``A(x)``; ``b`` and ``x`` are
pytrees of arrays of any shape, treated as one long vector.  Each solver is
wrapped in ``lax.custom_linear_solve``, so ``jvp``/``grad`` differentiate
the *solution* implicitly (one more solve with the same method, transposed
for the cotangent) instead of the iterations, and ``vmap`` batches the solve.
The iterations themselves are ``while_loop``s, so everything works under
``jit``.
"""
import functools
import operator

import numpy as np

from refjax._src import api, core, dtypes, tree_util
from refjax._src.array import Array
from refjax._src.lax import lax
from refjax._src.lax import linalg as lax_linalg
from refjax._src.lax.control_flow.loops import while_loop
from refjax._src.lax.control_flow.scan import fori_loop
from refjax._src.lax.control_flow.solves import custom_linear_solve
from refjax._src.lax.dot import Precision
from refjax._src.numpy import contractions, creation, lax_numpy, padding, ufuncs

__all__ = ["bicgstab", "cg", "gmres"]

_dot = functools.partial(contractions.dot, precision=Precision.HIGHEST)
_vdot = functools.partial(contractions.vdot, precision=Precision.HIGHEST)
_einsum = functools.partial(contractions.einsum, precision=Precision.HIGHEST)


# ---------------------------------------------------------------------------
# Pytree vector algebra
# ---------------------------------------------------------------------------

def _add(x, y):
    return tree_util.tree_map(operator.add, x, y)


def _sub(x, y):
    return tree_util.tree_map(operator.sub, x, y)


def _scale(alpha, x):
    return tree_util.tree_map(lambda leaf: alpha * leaf, x)


def _vdot_real(x, y):
    """``Re(x^H y)`` of two arrays, without the cross terms: the solvers only
    take it of ``z^H M z`` with ``M`` Hermitian, which is real."""
    out = _vdot(x.real, y.real)
    if lax_numpy.iscomplexobj(x) or lax_numpy.iscomplexobj(y):
        out = out + _vdot(x.imag, y.imag)
    return out


def _vdot_real_tree(x, y):
    return sum(tree_util.tree_leaves(tree_util.tree_map(_vdot_real, x, y)))


def _vdot_tree(x, y):
    return sum(tree_util.tree_leaves(tree_util.tree_map(_vdot, x, y)))


def _norm(x):
    return ufuncs.sqrt(sum(_vdot_real(leaf, leaf) for leaf in tree_util.tree_leaves(x)))


def _leaves_type(x):
    """The promoted dtype of a tree's leaves and whether it is weak."""
    return dtypes.result_type(*tree_util.tree_leaves(x), return_weak_type_flag=True)


@tree_util.Partial
def _identity(x):
    return x


def _as_matvec(op):
    """``op`` as a function ``x -> op @ x`` (SPEC SOP-12)."""
    if callable(op):
        return op
    if isinstance(op, (np.ndarray, Array)):
        if op.ndim != 2 or op.shape[0] != op.shape[1]:
            raise ValueError(f"linear operator must be a square matrix, but has shape: "
                             f"{op.shape}")
        return functools.partial(_dot, op)
    if hasattr(op, "__matmul__"):
        shape = getattr(op, "shape", None)
        if shape is not None and (len(shape) != 2 or shape[0] != shape[1]):
            raise ValueError(f"linear operator must be a square matrix, but has shape: "
                             f"{shape}")
        return functools.partial(operator.matmul, op)
    raise TypeError(f"linear operator must be either a function or ndarray: {op}")


def _shapes(tree):
    return [np.shape(leaf) for leaf in tree_util.tree_leaves(tree)]


def _check_x0(x0, b, check_shapes=True):
    if tree_util.tree_structure(x0) != tree_util.tree_structure(b):
        raise ValueError("x0 and b must have matching tree structure: "
                         f"{tree_util.tree_structure(x0)} vs {tree_util.tree_structure(b)}")
    if check_shapes and _shapes(x0) != _shapes(b):
        raise ValueError(f"arrays in x0 and b must have matching shapes: {_shapes(x0)} vs "
                         f"{_shapes(b)}")


def _prepare(A, b, x0, M, maxiter, gmres=False):
    """Operators as functions, ``x0`` defaulting to zeros, every leaf an
    Array, ``maxiter`` defaulting to ten times the size of ``b`` (SciPy's).
    ``gmres`` checks the operators before the vectors, and not the shapes
    of ``x0``."""
    if x0 is None:
        x0 = tree_util.tree_map(creation.zeros_like, b)
    if gmres:
        A, M = _as_operators(A, M)
    b, x0 = api.device_put((b, x0))
    size = sum(leaf.size for leaf in tree_util.tree_leaves(b))
    if maxiter is None:
        maxiter = 10 * size
    if not gmres:
        A, M = _as_operators(A, M)
    _check_x0(x0, b, check_shapes=not gmres)
    return A, b, x0, M, maxiter, size


def _as_operators(A, M):
    return _as_matvec(A), (_identity if M is None else _as_matvec(M))


def _squared_tolerance(b, tol, atol):
    """``max(tol * |b|, atol) ** 2``: SciPy's non-legacy stopping rule."""
    return ufuncs.maximum(ufuncs.square(tol) * _vdot_real_tree(b, b), ufuncs.square(atol))


# ---------------------------------------------------------------------------
# Conjugate gradients and BiCGSTAB
# ---------------------------------------------------------------------------

def _cg_solve(A, b, x0=None, *, maxiter, tol=1e-5, atol=0.0, M=_identity):
    """Preconditioned conjugate gradients from ``x0``."""
    threshold = _squared_tolerance(b, tol, atol)
    r0 = _sub(b, A(x0))
    z0 = M(r0)
    dtype = dtypes.result_type(*tree_util.tree_leaves(z0))
    gamma0 = _vdot_real_tree(r0, z0).astype(dtype)

    def not_done(state):
        _, r, gamma, _, k = state
        # Unpreconditioned, gamma already is |r|^2.
        residual = gamma.real if M is _identity else _vdot_real_tree(r, r)
        return (residual > threshold) & (k < maxiter)

    def step(state):
        x, r, gamma, p, k = state
        Ap = A(p)
        alpha = gamma / _vdot_real_tree(p, Ap).astype(dtype)
        x = _add(x, _scale(alpha, p))
        r = _sub(r, _scale(alpha, Ap))
        z = M(r)
        gamma_next = _vdot_real_tree(r, z).astype(dtype)
        p = _add(z, _scale(gamma_next / gamma, p))
        return x, r, gamma_next, p, k + 1

    return while_loop(not_done, step, (x0, r0, gamma0, z0, 0))[0]


def _bicgstab_solve(A, b, x0=None, *, maxiter, tol=1e-5, atol=0.0, M=_identity):
    """Preconditioned BiCGSTAB from ``x0``; the counter turns negative on a
    breakdown (``rho == 0``: -10, ``omega`` or ``alpha == 0``: -11), which
    stops the loop."""
    threshold = _squared_tolerance(b, tol, atol)
    r0 = _sub(b, A(x0))
    one = lax._convert_element_type(1, *_leaves_type(b))

    def not_done(state):
        r, k = state[1], state[-1]
        return (_vdot_real_tree(r, r) > threshold) & (k < maxiter) & (k >= 0)

    def step(state):
        x, r, rhat, alpha, omega, rho, p, q, k = state
        rho_next = _vdot_tree(rhat, r)
        beta = rho_next / rho * alpha / omega
        p = _add(r, _scale(beta, _sub(p, _scale(omega, q))))
        phat = M(p)
        q = A(phat)
        alpha = rho_next / _vdot_tree(rhat, q)
        s = _sub(r, _scale(alpha, q))
        # Stop at the half step when it already meets the tolerance.
        half_step_done = _vdot_real_tree(s, s) < threshold
        shat = M(s)
        t = A(shat)
        omega = _vdot_tree(t, s) / _vdot_tree(t, t)
        x_half = _add(x, _scale(alpha, phat))
        x_full = _add(x, _add(_scale(alpha, phat), _scale(omega, shat)))
        x = tree_util.tree_map(functools.partial(lax_numpy.where, half_step_done),
                               x_half, x_full)
        r = tree_util.tree_map(functools.partial(lax_numpy.where, half_step_done),
                               s, _sub(s, _scale(omega, t)))
        k = lax_numpy.where((omega == 0) | (alpha == 0), -11, k + 1)
        k = lax_numpy.where(rho_next == 0, -10, k)
        return x, r, rhat, alpha, omega, rho_next, p, q, k

    state = (x0, r0, r0, one, one, one, r0, r0, 0)
    return while_loop(not_done, step, state)[0]


def _isolve(solve, A, b, x0, *, tol, atol, maxiter, M, check_symmetric):
    A, b, x0, M, maxiter, _ = _prepare(A, b, x0, M, maxiter)
    bound = functools.partial(solve, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    # A real positive-definite operator is symmetric, so its transposed solve
    # is the solve itself.
    symmetric = check_symmetric and all(
        not dtypes.issubdtype(core.get_aval(leaf).dtype, np.complexfloating)
        for leaf in tree_util.tree_leaves(b))
    x = custom_linear_solve(A, b, solve=bound, transpose_solve=bound, symmetric=symmetric)
    return x, None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Conjugate gradients for Hermitian positive-definite ``A``; returns
    ``(x, None)``; stops when ``|r| <= max(tol |b|, atol)`` or after
    ``maxiter`` steps (default ``10 * size(b)``) (SPEC SOP-13)."""
    return _isolve(_cg_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                   check_symmetric=True)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """BiCGSTAB for general (non-symmetric) ``A``; returns ``(x, None)``;
    stopping as :func:`cg` (SPEC SOP-14)."""
    return _isolve(_bicgstab_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                   check_symmetric=False)


# ---------------------------------------------------------------------------
# GMRES
# ---------------------------------------------------------------------------

def _safe_normalize(x, thresh=None):
    """``(x / |x|, |x|)``, or zeros and 0 when ``|x| <= thresh`` (default:
    the dtype's epsilon)."""
    norm = _norm(x)
    dtype, weak_type = _leaves_type(x)
    if thresh is None:
        thresh = dtypes.finfo(norm.dtype).eps
    thresh = creation.asarray(thresh).astype(dtype).real
    keep = norm > thresh
    divisor = lax._convert_element_type(norm, dtype, weak_type)
    unit = tree_util.tree_map(lambda leaf: lax_numpy.where(keep, leaf / divisor, 0.0), x)
    return unit, lax_numpy.where(keep, norm, 0.0)


def _project(Q, v):
    """``Q^H v``, summed over the leaves (each leaf of ``Q`` holds the
    Krylov vectors along its last axis)."""
    parts = tree_util.tree_map(lambda X, y: _einsum("...n,...->n", X.conj(), y), Q, v)
    return functools.reduce(operator.add, tree_util.tree_leaves(parts))


def _orthogonalize(Q, v):
    """One classical Gram-Schmidt pass of ``v`` against the columns of
    ``Q``: the remainder and the overlaps."""
    h = _project(Q, v)
    return _sub(v, tree_util.tree_map(lambda X: _dot(X, h), Q)), h


def _kth_arnoldi_iteration(k, A, M, V, H):
    """Arnoldi step ``k``: the next Krylov vector ``M(A(V[..., k]))``,
    orthonormalized into ``V[..., k + 1]``, its overlaps into ``H[k, :]``;
    also whether the space stopped growing (an invariant subspace)."""
    dtype, _ = _leaves_type(V)
    eps = dtypes.finfo(dtype).eps
    v = M(A(tree_util.tree_map(lambda X: X[..., k], V)))
    _, norm_before = _safe_normalize(v)
    v, h = _orthogonalize(V, v)
    unit, norm_after = _safe_normalize(v, thresh=eps * norm_before)
    V = tree_util.tree_map(lambda X, u: X.at[..., k + 1].set(u), V, unit)
    h = h.at[k + 1].set(norm_after.astype(dtype))
    return V, H.at[k, :].set(h), norm_after == 0.


def _givens(a, b):
    """``(c, s)`` of the plane rotation taking ``(a, b)`` to ``(r, 0)``;
    the larger of the two is divided by, to avoid overflow."""
    b_zero = ufuncs.abs(b) == 0
    swap = ufuncs.abs(a) < ufuncs.abs(b)
    t = -lax_numpy.where(swap, a, b) / lax_numpy.where(swap, b, a)
    r = lax.rsqrt(1 + ufuncs.abs(t) ** 2).astype(t.dtype)
    c = lax_numpy.where(b_zero, 1, lax_numpy.where(swap, r * t, r))
    s = lax_numpy.where(b_zero, 0, lax_numpy.where(swap, r, r * t))
    return c, s


def _rotate(v, i, c, s):
    """The Givens rotation ``(c, s)`` applied to entries ``i, i + 1``."""
    x, y = v[i], v[i + 1]
    return v.at[i].set(c.conj() * x - s.conj() * y).at[i + 1].set(s * x + c * y)


def _triangularize_row(row, givens, k):
    """Row ``k`` of the Hessenberg matrix through the ``k`` earlier
    rotations, then a new rotation zeroing its entry ``k + 1``."""
    row = fori_loop(0, k, lambda i, r: _rotate(r, i, givens[i, 0], givens[i, 1]), row)
    c, s = _givens(row[k], row[k + 1])
    return _rotate(row, k, c, s), givens.at[k, :].set(lax_numpy.stack([c, s]))


def _krylov_basis(unit_residual, restart):
    """``restart + 1`` columns per leaf, the first being the residual."""
    return tree_util.tree_map(
        lambda x: padding.pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)),
        unit_residual)


def _restart_result(A, b, M, x0, V, y):
    x = _add(x0, tree_util.tree_map(lambda X: _dot(X[..., :-1], y), V))
    unit, norm = _safe_normalize(M(_sub(b, A(x))))
    return x, unit, norm


def _gmres_incremental(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One GMRES cycle that QR-factors the Hessenberg matrix with Givens
    rotations as it grows, so the residual is known at every step and the
    cycle ends as soon as it is below ``ptol``."""
    V = _krylov_basis(unit_residual, restart)
    dtype = dtypes.result_type(*tree_util.tree_leaves(b))
    # Rows not reached stay those of the identity: R stays invertible.
    R = creation.eye(restart, restart + 1, dtype=dtype)
    givens = creation.zeros((restart, 2), dtype=dtype)
    rhs = creation.zeros(restart + 1, dtype=dtype).at[0].set(residual_norm.astype(dtype))

    def not_done(state):
        k, err = state[:2]
        return (k < restart) & (err > ptol)

    def step(state):
        k, _, V, R, rhs, givens = state
        V, H, _ = _kth_arnoldi_iteration(k, A, M, V, R)
        row, givens = _triangularize_row(H[k, :], givens, k)
        rhs = _rotate(rhs, k, givens[k, 0], givens[k, 1])
        return k + 1, ufuncs.abs(rhs[k + 1]), V, R.at[k, :].set(row), rhs, givens

    _, _, V, R, rhs, _ = while_loop(not_done, step, (0, residual_norm, V, R, rhs, givens))
    # R's rows are the columns of the upper-triangular factor.
    y = lax_linalg.triangular_solve(R[:, :-1].T, rhs[:-1, None], left_side=True,
                                    lower=False)[:, 0]
    return _restart_result(A, b, M, x0, V, y)


def _normal_equations_solve(a, b):
    """Least squares ``a y ~ b`` through ``a^H a y = a^H b`` (Cholesky)."""
    gram = _dot(a.T.conj(), a)
    rhs = _dot(a.T.conj(), b)[:, None]
    lower = lax_linalg.cholesky(gram, symmetrize_input=False)
    y = lax_linalg.triangular_solve(lower, rhs, left_side=True, lower=True)
    y = lax_linalg.triangular_solve(lower, y, left_side=True, lower=True,
                                    transpose_a=True, conjugate_a=True)
    return y[:, 0]


def _gmres_batched(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One GMRES cycle that builds the whole Krylov space (unless it stops
    growing) and then solves the small least-squares problem."""
    del ptol  # the cycle always runs to the end
    V = _krylov_basis(unit_residual, restart)
    dtype, weak_type = _leaves_type(b)
    H = lax._convert_element_type(creation.eye(restart, restart + 1, dtype=dtype),
                                  weak_type=weak_type)

    def not_done(state):
        _, _, breakdown, k = state
        return (k < restart) & ufuncs.logical_not(breakdown)

    def step(state):
        V, H, _, k = state
        V, H, breakdown = _kth_arnoldi_iteration(k, A, M, V, H)
        return V, H, breakdown, k + 1

    V, H, _, _ = while_loop(not_done, step, (V, H, False, 0))
    rhs = creation.zeros_like(H, shape=(restart + 1,)).at[0].set(residual_norm.astype(dtype))
    y = _normal_equations_solve(H.T, rhs)
    return _restart_result(A, b, M, x0, V, y)


def _gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, cycle):
    """Restarted GMRES: cycles from the latest iterate until the
    preconditioned residual is below ``atol`` or ``maxiter`` cycles ran."""
    unit, norm = _safe_normalize(M(_sub(b, A(x0))))

    def not_done(state):
        _, k, _, norm = state
        return (k < maxiter) & (norm > atol)

    def step(state):
        x, k, unit, norm = state
        x, unit, norm = cycle(A, b, x, unit, norm, ptol, restart, M)
        return x, k + 1, unit, norm

    return while_loop(not_done, step, (x0, 0, unit, norm))[0]


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None,
          solve_method="batched"):
    """Restarted GMRES for general ``A``: ``maxiter`` cycles (default
    ``10 * size(b)``) of a Krylov space of dimension ``restart`` (at most
    ``size(b)``); ``solve_method`` ``'batched'`` or ``'incremental'``.
    Returns ``(x, info)``, ``info`` an int32 array: -1 when ``x`` has a NaN,
    else 0 (SPEC SOP-15)."""
    A, b, x0, M, maxiter, size = _prepare(A, b, x0, M, maxiter, gmres=True)
    restart = min(restart, size)
    b_norm = _norm(b)
    atol = ufuncs.maximum(tol * b_norm, atol)
    ptol = _norm(M(b)) * ufuncs.minimum(1.0, atol / b_norm)
    if isinstance(solve_method, str) and solve_method == "incremental":
        cycle = _gmres_incremental
    elif isinstance(solve_method, str) and solve_method == "batched":
        cycle = _gmres_batched
    else:
        raise ValueError(f"invalid solve_method {solve_method}, must be either "
                         "'incremental' or 'batched'")

    def solve(A, b):
        return _gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, cycle)

    x = custom_linear_solve(A, b, solve=solve, transpose_solve=solve)
    info = lax_numpy.where(ufuncs.isnan(_norm(x)), -1, 0)
    return x, info
