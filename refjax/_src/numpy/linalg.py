"""``jax.numpy.linalg`` (SPEC NP-60..NP-68, NP-200..NP-205).

Norms are compositions of ``jax.numpy`` reductions; the factorisations
bind the primitives of :mod:`refjax._src.lax.linalg`, and ``det``,
``slogdet``, ``solve``, ``inv`` are built on the LU decomposition and
triangular solves.  Derivatives come from those primitives' rules, so
every function here is differentiable where the math is smooth; ``det``,
``slogdet`` and ``pinv`` have custom JVPs, as in JAX, which stay finite
at singular (rank-deficient) inputs.

Inputs are promoted to an inexact dtype first (integers to the default
float), as JAX does; leading axes are batch axes.
"""
import collections
import operator
from functools import partial

import numpy as np

from refjax._src import core, dtypes
from refjax._src.custom_derivatives import custom_jvp
from refjax._src.lax import lax
from refjax._src.lax import linalg as lax_linalg
from refjax._src.lax import shapes as lax_shapes
from refjax._src.numpy import contractions
from refjax._src.numpy import creation as creation
from refjax._src.numpy import lax_numpy, reductions, sorting, ufuncs, util

__all__ = [
    "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv",
    "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose",
    "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
    "tensordot", "trace", "vecdot", "vector_norm",
]

SVDResult = collections.namedtuple("SVDResult", ["U", "S", "Vh"])
EighResult = collections.namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = collections.namedtuple("QRResult", ["Q", "R"])
SlogdetResult = collections.namedtuple("SlogdetResult", ["sign", "logabsdet"])


def _inexact(fun_name, x):
    x = util.ensure_arraylike(fun_name, x)
    x, = util.promote_dtypes_inexact(x)
    return x


def _shape(x):
    return core.get_aval(x).shape


def _H(x):
    return ufuncs.conj(lax_numpy.swapaxes(x, -1, -2))


# ---------------------------------------------------------------------------
# Norms
# ---------------------------------------------------------------------------

def _sum_of_squares_root(x, axis, keepdims):
    """``sqrt(sum(|x|^2))``, written so that its gradient at 0 is NaN as
    JAX's is (SPEC NP-60)."""
    return ufuncs.sqrt(reductions.sum(ufuncs.real(ufuncs.multiply(x, ufuncs.conj(x))),
                                      axis=axis, keepdims=keepdims))


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """Vector ``ord``-norm over ``axis`` (all axes by default): 2 (the
    default, or None), inf / -inf (largest / smallest magnitude), 0 (count
    of non-zeros), 1, or any other number ``p`` as ``sum(|x|^p)^(1/p)``
    (SPEC NP-60)."""
    util.check_jit_arrays("jnp.linalg.vector_norm", x)
    util.check_static(keepdims)
    x = util.ensure_arraylike("jnp.linalg.vector_norm", x)
    if ord is None or _is_number(ord, 2):
        return _sum_of_squares_root(x, axis, keepdims)
    if _is_number(ord, np.inf):
        return reductions.amax(ufuncs.abs(x), axis=axis, keepdims=keepdims, initial=0)
    if _is_number(ord, -np.inf):
        return reductions.amin(ufuncs.abs(x), axis=axis, keepdims=keepdims)
    if _is_number(ord, 0):
        dt = dtypes.finfo(util.to_inexact_dtype(core.get_aval(x).dtype)).dtype
        return reductions.sum(ufuncs.not_equal(x, 0), dtype=dt, axis=axis,
                              keepdims=keepdims)
    if _is_number(ord, 1):
        return reductions.sum(ufuncs.abs(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        msg = f"Invalid order '{ord}' for vector norm."
        if ord == "inf":
            msg += "Use 'jax.numpy.inf' instead."
        if ord == "-inf":
            msg += "Use '-jax.numpy.inf' instead."
        raise ValueError(msg)
    abs_x = ufuncs.abs(x)
    p = lax._const(abs_x, ord)
    total = reductions.sum(ufuncs.power(abs_x, p), axis=axis, keepdims=keepdims)
    return ufuncs.power(total, lax._const(abs_x, 1. / p))


def _is_number(ord, value):
    """``ord == value`` for a numeric ``ord`` (strings never equal)."""
    return not isinstance(ord, str) and ord == value


def _matrix_norm_of(x, ord, row, col, keepdims):
    """The matrix ``ord``-norm over axes ``row`` and ``col`` (SPEC NP-61)."""
    if ord is None or ord in ("f", "fro"):
        return _sum_of_squares_root(x, (row, col), keepdims)
    if ord in ("nuc", 2, -2) and not isinstance(ord, bool):
        return _singular_value_norm(x, ord, (row, col), keepdims)
    if _is_number(ord, 1) or _is_number(ord, -1):
        summed, reduce_axis = row, col
    elif _is_number(ord, np.inf) or _is_number(ord, -np.inf):
        summed, reduce_axis = col, row
    else:
        raise ValueError(f"Invalid order '{ord}' for matrix norm.")
    if not keepdims and reduce_axis > summed:
        reduce_axis -= 1
    sums = reductions.sum(ufuncs.abs(x), axis=summed, keepdims=keepdims)
    if ord > 0:
        return reductions.amax(sums, axis=reduce_axis, keepdims=keepdims, initial=0)
    return reductions.amin(sums, axis=reduce_axis, keepdims=keepdims)


def _singular_value_norm(x, ord, axes, keepdims):
    """Largest (2), smallest (-2) or sum ('nuc') of the singular values."""
    s = svd(lax_numpy.moveaxis(x, axes, (-2, -1)), compute_uv=False)
    if ord == 2:
        y = reductions.amax(s, axis=-1, initial=0)
    elif ord == -2:
        y = reductions.amin(s, axis=-1)
    else:
        y = reductions.sum(s, axis=-1)
    return lax_numpy.expand_dims(y, axes) if keepdims else y


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector norm over one axis, matrix norm over two.  With ``axis=None``
    and ``ord=None`` the 2-norm of all entries of an array of any rank;
    with ``axis=None`` and an ``ord``, the array must be 1-d or 2-d
    (SPEC NP-60, NP-61)."""
    util.check_jit_arrays("jnp.linalg.norm", x)
    util.check_static(ord, axis, keepdims)
    x = _inexact("jnp.linalg.norm", x)
    ndim = len(_shape(x))
    if axis is None:
        if ord is None:
            return _sum_of_squares_root(x, None, keepdims)
        axis = tuple(range(ndim))
    elif isinstance(axis, tuple):
        axis = tuple(core.canonicalize_axis(a, ndim) for a in axis)
    else:
        axis = (core.canonicalize_axis(axis, ndim),)
    if len(axis) == 1:
        return vector_norm(x, ord=2 if ord is None else ord, axis=axis,
                           keepdims=keepdims)
    if len(axis) == 2:
        if axis[0] == axis[1]:
            raise ValueError(f"duplicate value in 'axis': {axis}")
        return _matrix_norm_of(x, ord, axis[0], axis[1], keepdims)
    raise ValueError(f"Improper number of axes for norm: axis={axis}. Pass one "
                     "axis to compute a vector-norm, or two axes to compute a "
                     "matrix-norm.")


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """``norm`` over the last two axes (SPEC NP-61)."""
    x = util.ensure_arraylike("jnp.linalg.matrix_norm", x)
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))


# ---------------------------------------------------------------------------
# Singular values and eigenvalues
# ---------------------------------------------------------------------------

def svd(a, full_matrices=True, compute_uv=True, hermitian=False,
        subset_by_index=None):
    """``SVDResult(U, S, Vh)`` with ``a == U[..., :k] * S @ Vh[..., :k, :]``
    and ``S`` descending, or ``S`` alone when not ``compute_uv``.  With
    ``hermitian`` the factors come from ``eigh`` (SPEC NP-62)."""
    util.check_jit_arrays("jnp.linalg.svd", a)
    util.check_static(full_matrices, compute_uv, hermitian, subset_by_index)
    a = _inexact("jnp.linalg.svd", a)
    if hermitian:
        return _hermitian_svd(a, compute_uv)
    out = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                         subset_by_index=subset_by_index)
    return SVDResult(*out) if compute_uv else out


def _hermitian_svd(a, compute_uv):
    """Singular values are the eigenvalues' magnitudes, sorted descending;
    ``Vh`` is ``U^H`` with rows flipped where the eigenvalue is negative."""
    v, w = lax_linalg.eigh(a)
    s = ufuncs.abs(w)
    order = lax_numpy.flip(sorting.argsort(s, axis=-1), axis=-1)
    s = lax_numpy.take_along_axis(s, order, axis=-1)
    if not compute_uv:
        return s
    signs = lax_numpy.take_along_axis(ufuncs.sign(w), order, axis=-1)
    u = lax_numpy.take_along_axis(v, order[..., None, :], axis=-1)
    vh = ufuncs.multiply(_H(u), lax.convert_element_type(signs[..., :, None],
                                                         core.get_aval(u).dtype))
    return SVDResult(u, s, vh)


def svdvals(x, /):
    """Singular values, descending (SPEC NP-62)."""
    x = _inexact("jnp.linalg.svdvals", x)
    return svd(x, compute_uv=False, hermitian=False)


def matrix_rank(M, rtol=None, *, hermitian=False, tol=None):
    """Number of singular values above ``rtol`` (default: the largest
    times ``max(M, N) * eps``); nonzero-ness for rank < 2 (SPEC NP-62)."""
    util.check_jit_arrays("jnp.linalg.matrix_rank", M, rtol, tol)
    util.check_static(hermitian)
    M = util.ensure_arraylike("jnp.linalg.matrix_rank", M)
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    M, = util.promote_dtypes_inexact(M)
    if len(_shape(M)) < 2:
        return lax.convert_element_type(reductions.any(ufuncs.not_equal(M, 0)),
                                        np.int32)
    S = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    s_dtype = core.get_aval(S).dtype
    if rtol is None:
        scale = max(_shape(M)[-2:]) * dtypes.finfo(s_dtype).eps
        rtol = ufuncs.multiply(reductions.amax(S, axis=-1), np.array(scale, s_dtype))
    rtol = lax_numpy.expand_dims(rtol, np.ndim(rtol))
    return reductions.sum(ufuncs.greater(S, rtol), axis=-1)


def _check_uplo(UPLO):
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    return UPLO != "U"


def eigh(a, UPLO=None, symmetrize_input=True):
    """``EighResult(eigenvalues, eigenvectors)`` of Hermitian matrices,
    eigenvalues ascending, eigenvectors as columns (SPEC NP-65)."""
    util.check_jit_arrays("jnp.linalg.eigh", a)
    util.check_static(UPLO, symmetrize_input)
    a = _inexact("jnp.linalg.eigh", a)
    lower = _check_uplo(UPLO)
    v, w = lax_linalg.eigh(a, lower=lower, symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a, UPLO="L", *, symmetrize_input=True):
    """Eigenvalues of Hermitian matrices, ascending (SPEC NP-65)."""
    a = _inexact("jnp.linalg.eigvalsh", a)
    return eigh(a, UPLO, symmetrize_input=symmetrize_input).eigenvalues


# ---------------------------------------------------------------------------
# Factorisations
# ---------------------------------------------------------------------------

def cholesky(a, *, upper=False, symmetrize_input=True):
    """Lower (or, with ``upper``, upper) Cholesky factor; NaNs for a
    matrix that is not positive definite (SPEC NP-64)."""
    util.check_jit_arrays("jnp.linalg.cholesky", a)
    util.check_static(upper, symmetrize_input)
    a = _inexact("jnp.linalg.cholesky", a)
    L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return _H(L) if upper else L


def qr(a, mode="reduced"):
    """``QRResult(Q, R)``: ``mode`` 'reduced' (k = min(M, N) columns of
    ``Q``) or 'complete' (square ``Q``); 'r' returns ``R`` alone; 'raw'
    returns LAPACK's Householder form ``(h, tau)`` as NumPy does, ``h``
    being the transposed ``geqrf`` matrix (SPEC NP-66, NP-205)."""
    a = _inexact("jnp.linalg.qr", a)
    if mode == "raw":
        h, taus = lax_linalg.geqrf(a)
        return QRResult(lax_numpy.swapaxes(h, -1, -2), taus)
    if mode in ("reduced", "r", "full"):
        full_matrices = False
    elif mode == "complete":
        full_matrices = True
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(a, pivoting=False, full_matrices=full_matrices)
    return r if mode == "r" else QRResult(q, r)


# ---------------------------------------------------------------------------
# Determinants (SPEC NP-63, NP-200..NP-203)
# ---------------------------------------------------------------------------

def _dtype(x):
    return core.get_aval(x).dtype


def _is_complex(dtype):
    return np.dtype(dtype).kind == "c"


def _real(dtype):
    return np.finfo(dtype).dtype if _is_complex(dtype) else np.dtype(dtype)


def _check_square(fun_name, shape, end=""):
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"Argument to {fun_name} must have shape [..., n, n], "
                         f"got {shape}{end}")


def _square_first(fun_name, a):
    """JAX runs these functions under jit, which traces a
    ``ShapeDtypeStruct`` abstractly: its shape is checked (ValueError)
    before the call is refused for it not being an array.  (A NumPy array
    of strings is refused first.)  (SPEC NP-203)"""
    if hasattr(a, "shape") and hasattr(a, "dtype") and not isinstance(a, np.ndarray):
        try:
            core.get_aval(a)
        except TypeError:
            _check_square(fun_name, tuple(a.shape))
    return a


def _pivot_parity_sign(pivots, dtype):
    """``-1`` for an odd number of row swaps, else ``1``.  The row indices
    get ``pivots``' rank explicitly: library code never relies on implicit
    rank promotion, which the user may have set to raise (SPEC NP-200)."""
    batch_rank = len(_shape(pivots)) - 1
    rows = creation.arange(_shape(pivots)[-1], dtype=_dtype(pivots))
    rows = lax_numpy.expand_dims(rows, tuple(range(batch_rank)))
    swaps = reductions.sum(ufuncs.not_equal(pivots, rows), axis=-1)
    odd = ufuncs.not_equal(ufuncs.remainder(swaps, 2), 0)
    return lax_numpy.where(odd, np.array(-1, dtype), np.array(1, dtype))


def slogdet(a, *, method=None):
    """``SlogdetResult(sign, logabsdet)``: by default from the LU
    decomposition (closed forms for n = 1, 2), with ``method='qr'`` from
    the Householder QR (real input only); a singular matrix gives
    ``(0, -inf)``.  Derivatives: ``d logabsdet = Re tr(a^-1 da)``, and
    ``d sign`` is zero for real input, ``i Im tr(a^-1 da) sign`` for
    complex (SPEC NP-63, NP-202)."""
    util.check_static(method)
    a = _inexact("jnp.linalg.slogdet", _square_first("slogdet()", a))
    shape = _shape(a)
    _check_square("slogdet()", shape)
    if method is None or method == "lu":
        out = _slogdet_small(a) if shape[-1] in (1, 2) else _slogdet_lu(a)
    elif method == "qr":
        out = _slogdet_qr(a)
    else:
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods "
                         "are 'lu' (`None`), and 'qr'.")
    return SlogdetResult(*out)


def _det_small(a):
    """The closed-form determinant of 1x1 and 2x2 matrices."""
    if _shape(a)[-1] == 1:
        return a[..., 0, 0]
    return ufuncs.subtract(ufuncs.multiply(a[..., 0, 0], a[..., 1, 1]),
                           ufuncs.multiply(a[..., 0, 1], a[..., 1, 0]))


def _sign_and_log(d):
    return ufuncs.sign(d), ufuncs.real(ufuncs.log(ufuncs.abs(d)))


@custom_jvp
def _slogdet_small(a):
    return _sign_and_log(_det_small(a))


@_slogdet_small.defjvp
def _slogdet_small_jvp(primals, tangents):
    """``tr(a^-1 da)`` written out with the adjugate, so no solve is
    needed for n = 1, 2."""
    (x,), (g,) = primals, tangents
    d = _det_small(x)
    if _shape(x)[-1] == 1:
        ans_dot = ufuncs.divide(g[..., 0, 0], d)
    else:
        ans_dot = ufuncs.divide(
            g[..., 0, 0] * x[..., 1, 1] - g[..., 0, 1] * x[..., 1, 0]
            - g[..., 1, 0] * x[..., 0, 1] + g[..., 1, 1] * x[..., 0, 0], d)
    # the primal through the custom rule, so that second derivatives of
    # the complex sign use this rule too
    return _slogdet_with_tangents(_slogdet_small(x), ans_dot)


def _slogdet_with_tangents(primal, ans_dot):
    """Tangents of ``(sign, logabsdet)`` from ``tr(a^-1 da)``."""
    sign, ans = primal
    if _is_complex(_dtype(ans_dot)):
        imag_part = ufuncs.subtract(ans_dot, lax.convert_element_type(
            ufuncs.real(ans_dot), _dtype(ans_dot)))
        return (sign, ans), (ufuncs.multiply(imag_part, sign), ufuncs.real(ans_dot))
    return (sign, ans), (creation.zeros_like(sign), ans_dot)


@custom_jvp
def _slogdet_lu(a):
    shape, dtype = _shape(a), _dtype(a)
    if shape[-1] == 0:
        return creation.ones(shape[:-2], dtype), creation.zeros(shape[:-2], _real(dtype))
    lu, pivots, _ = lax_linalg.lu(a)
    diag = contractions.diagonal(lu, axis1=-2, axis2=-1)
    is_zero = reductions.any(ufuncs.equal(diag, 0), axis=-1)
    parity = _pivot_parity_sign(pivots, dtype)
    sign = ufuncs.multiply(parity, reductions.prod(ufuncs.sign(diag), axis=-1))
    logdet = reductions.sum(ufuncs.log(ufuncs.abs(diag)), axis=-1)
    sign = lax_numpy.where(is_zero, np.array(0, dtype), sign)
    logdet = lax_numpy.where(is_zero, np.array(-np.inf, _real(dtype)), logdet)
    return sign, logdet


@custom_jvp
def _slogdet_qr(a):
    """Each Householder reflector actually applied (``tau != 0``) has
    determinant -1; ``R``'s diagonal gives the rest."""
    if _is_complex(_dtype(a)):
        raise NotImplementedError("slogdet method='qr' not implemented for complex "
                                  "inputs")
    n = _shape(a)[-1]
    h, taus = lax_linalg.geqrf(a)
    diag = contractions.diagonal(h, axis1=-2, axis2=-1)
    logdet = reductions.sum(ufuncs.log(ufuncs.abs(diag)), axis=-1)
    reflected = ufuncs.not_equal(taus[..., :max(n - 1, 0)], 0)
    flips = lax_numpy.where(reflected, np.array(-1, _dtype(a)), np.array(1, _dtype(a)))
    sign = ufuncs.multiply(reductions.prod(ufuncs.sign(diag), axis=-1),
                           reductions.prod(flips, axis=-1))
    return sign, logdet


def _slogdet_solve_jvp(fun):
    def jvp(primals, tangents):
        (x,), (g,) = primals, tangents
        ans_dot = contractions.trace(solve(x, g), axis1=-2, axis2=-1)
        return _slogdet_with_tangents(fun(x), ans_dot)
    return jvp


_slogdet_lu.defjvp(_slogdet_solve_jvp(_slogdet_lu))
_slogdet_qr.defjvp(_slogdet_solve_jvp(_slogdet_qr))


def det(a):
    """Determinant: closed forms for 2x2 and 3x3 matrices, else the
    product of ``U``'s diagonal times the pivot parity.  Its derivative
    is ``tr(adj(a) da)``, finite for singular matrices: the adjugate is
    computed from the LU factors without dividing by ``det(a)``
    (SPEC NP-63, NP-201)."""
    a = _inexact("jnp.linalg.det", _square_first("_det()", a))
    shape = _shape(a)
    _check_square("_det()", shape)
    if shape[-1] == 2:
        return _det_small(a)
    if shape[-1] == 3:
        return _det_3x3(a)
    return _det_lu(a)


def _det_3x3(a):
    """Rule of Sarrus."""
    def term(i, j, k):
        return ufuncs.multiply(ufuncs.multiply(a[..., 0, i], a[..., 1, j]), a[..., 2, k])
    plus = ufuncs.add(ufuncs.add(term(0, 1, 2), term(1, 2, 0)), term(2, 0, 1))
    minus = ufuncs.add(ufuncs.add(term(2, 1, 0), term(0, 2, 1)), term(1, 0, 2))
    return ufuncs.subtract(plus, minus)


@custom_jvp
def _det_lu(a):
    shape, dtype = _shape(a), _dtype(a)
    if shape[-1] == 0:
        return creation.ones(shape[:-2], dtype)
    lu, pivots, _ = lax_linalg.lu(a)
    diag = contractions.diagonal(lu, axis1=-2, axis2=-1)
    return ufuncs.multiply(_pivot_parity_sign(pivots, dtype),
                           reductions.prod(diag, axis=-1))


@_det_lu.defjvp
def _det_lu_jvp(primals, tangents):
    (x,), (g,) = primals, tangents
    y, z = _cofactor_solve(x, g)
    return y, contractions.trace(z, axis1=-2, axis2=-1)


def _cofactor_solve(a, b):
    """``(det(a), adj(a) @ b)`` for square ``a`` and ``b`` of ``a``'s shape,
    well defined when ``a`` is singular (SPEC NP-201).

    With ``P a = L U``, ``adj(a) b = det(a) U^-1 L^-1 P b``.  For rank
    ``n-1`` the zero pivot sits in ``U``'s last corner (partial pivoting):
    replacing it by ``1 / prod(u_ii, i < n)`` turns the last row's division
    into the product of the other pivots, and scaling the other rows by
    ``det(a)`` (zero) gives the exact rank-one adjugate.  When any other
    pivot is zero (rank below ``n-1``, where the adjugate vanishes) the
    modified ``U`` is still singular; its solve shows NaN or inf and the
    result is set to zero.
    """
    shape, dtype = _shape(a), _dtype(a)
    n = shape[-1]
    if n == 0:
        return creation.ones(shape[:-2], dtype), b
    if n == 1:
        return a[..., 0, 0], b
    lu, pivots, perm = lax_linalg.lu(a)
    diag = contractions.diagonal(lu, axis1=-2, axis2=-1)
    sign = _pivot_parity_sign(pivots, dtype)
    partial_det = ufuncs.multiply(reductions.cumprod(diag, axis=-1), sign[..., None])
    full_det = partial_det[..., -1]
    corner = ufuncs.divide(np.array(1, dtype), partial_det[..., -2])
    u = lax_numpy.concatenate(
        [lu[..., :-1, :],
         lax_numpy.concatenate([lu[..., -1:, :-1], corner[..., None, None]], axis=-1)],
        axis=-2)
    probe = lax_linalg.triangular_solve(u, creation.ones(shape[:-1] + (1,), dtype),
                                        left_side=True, lower=False)
    low_rank = reductions.any(ufuncs.logical_not(ufuncs.isfinite(probe)),
                              axis=(-2, -1), keepdims=True)
    x = lax_numpy.where(low_rank, np.array(0, dtype), b)
    x = lax_numpy.take_along_axis(x, perm[..., :, None], axis=-2)
    # L's solve reads only the strict lower triangle: the unmodified
    # factors keep a possibly infinite corner out of it
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True,
                                    unit_diagonal=True)
    x = lax_numpy.concatenate(
        [ufuncs.multiply(x[..., :-1, :], full_det[..., None, None]), x[..., -1:, :]],
        axis=-2)
    x = lax_linalg.triangular_solve(u, x, left_side=True, lower=False)
    return full_det, lax_numpy.where(low_rank, np.array(0, dtype), x)


def _lu_solve(lu, perm, b):
    """``A^-1 b`` for ``A[perm] = L U`` and matrices ``b`` (..., n, k)."""
    b = lax_numpy.take_along_axis(b, perm[..., :, None], axis=-2)
    y = lax_linalg.triangular_solve(lu, b, left_side=True, lower=True,
                                    unit_diagonal=True)
    return lax_linalg.triangular_solve(lu, y, left_side=True, lower=False)


def _looks_like_batched_vectors(a_shape, b_shape):
    """``b`` one rank short of ``a`` whose last axis, not its second to
    last, matches ``a``: before JAX 0.5 a stack of vectors, now an error.
    (A stack of matrices one rank short, e.g. under ``vmap`` with ``a``
    mapped and ``b`` not, is a broadcast solve.)"""
    return (len(b_shape) > 1 and len(a_shape) == len(b_shape) + 1
            and a_shape[-1] == b_shape[-1] and a_shape[-1] != b_shape[-2])


def solve(a, b):
    """``x`` with ``a @ x == b``: ``b`` is a vector (..., n) if 1-d, else
    a stack of matrices (..., n, k); batch axes broadcast (SPEC NP-63)."""
    a, b = util.ensure_arraylike("jnp.linalg.solve", a, b)
    a, b = util.promote_dtypes_inexact(a, b)
    a_shape, b_shape = _shape(a), _shape(b)
    vector = len(b_shape) == 1
    sig = "(m,m),(m)->(m)" if vector else "(m,m),(m,n)->(m,n)"
    if len(a_shape) < 2:
        raise ValueError("left hand array must be at least two dimensional; "
                         f"got a.shape={a_shape}")
    if not b_shape:
        raise ValueError(f"input with shape {b_shape} does not have enough dimensions "
                         "for all core dimensions ('m', 'n') on vectorized function "
                         f"with excluded=frozenset() and signature='{sig}'")
    if _looks_like_batched_vectors(a_shape, b_shape):
        raise ValueError(
            f"Invalid shapes for solve: {a_shape}, {b_shape}. Prior to JAX v0.5.0, "
            "this would have been treated as a batched 1-dimensional solve. To "
            "recover this behavior, use solve(a, b[..., None]).squeeze(-1).")
    m = a_shape[-2]
    for size in (a_shape[-1], b_shape[-1] if vector else b_shape[-2]):
        if size != m:
            raise ValueError(f"inconsistent size for core dimension 'm': {size} vs "
                             f"{m} on vectorized function with excluded=frozenset() "
                             f"and signature='{sig}'")
    if vector:
        b = b[:, None]
    batch = util.broadcast_shapes(a_shape[:-2], _shape(b)[:-2])
    a = lax_numpy.broadcast_to(a, batch + a_shape[-2:])
    b = lax_numpy.broadcast_to(b, batch + _shape(b)[-2:])
    lu, _, perm = lax_linalg.lu(a)
    x = _lu_solve(lu, perm, b)
    return x[..., 0] if vector else x


def inv(a):
    """Inverse of square matrices: ``solve(a, I)``.  The shape is checked
    before the dtype (SPEC NP-63, NP-203)."""
    _square_first("inv", a)
    a = util.ensure_arraylike("jnp.linalg.inv", a)
    shape = _shape(a)
    _check_square("inv", shape, end=".")
    if dtypes.is_extended(_dtype(a)):
        # JAX builds the identity in the input's dtype, which a key refuses
        raise ValueError(f"Cannot convert_element_type from bool to {_dtype(a)}")
    a = _inexact("jnp.linalg.inv", a)
    eye = creation.eye(shape[-1], dtype=_dtype(a))
    return solve(a, lax_numpy.broadcast_to(eye, shape))


def pinv(a, rtol=None, hermitian=False, *, rcond=None):
    """Moore-Penrose pseudo-inverse from the SVD: singular values at most
    ``rtol`` times the largest (default ``10 * max(M, N) * eps``) count as
    zero (SPEC NP-66).  Its derivative is Golub and Pereyra's formula for
    a pseudo-inverse of locally constant rank, not the SVD's (SPEC NP-204)."""
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    util.check_jit_arrays("jnp.linalg.pinv", a, rtol)
    util.check_static(hermitian)
    a = _inexact("jnp.linalg.pinv", a)
    return _pinv(a, rtol, hermitian)


@partial(custom_jvp, nondiff_argnums=(1, 2))
def _pinv(a, rtol, hermitian):
    shape = _shape(a)
    m, n = shape[-2:]
    dtype = _dtype(a)
    if m == 0 or n == 0:
        return creation.zeros(shape[:-2] + (n, m), dtype)
    a = ufuncs.conj(a)
    if rtol is None:
        rtol = np.array(10. * max(m, n) * dtypes.finfo(dtype).eps, _real(dtype))
    rtol = util.asarray(rtol)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    rtol = lax_numpy.expand_dims(rtol[..., None],
                                 tuple(range(len(_shape(s)) - len(_shape(rtol)) - 1)))
    cutoff = ufuncs.multiply(rtol, s[..., 0:1])
    s = lax_numpy.where(ufuncs.greater(s, cutoff), s, np.inf)
    s = lax.convert_element_type(s, _dtype(u))
    res = contractions.matmul(lax_numpy.swapaxes(vh, -1, -2),
                              ufuncs.divide(lax_numpy.swapaxes(u, -1, -2), s[..., None]))
    return lax.convert_element_type(res, dtype)


@_pinv.defjvp
def _pinv_jvp(rtol, hermitian, primals, tangents):
    """``dP = -P da P + (P P^H) da^H (I - a P) + (I - P a) da^H (P^H P)``,
    with the products ordered by which side of ``a`` is shorter."""
    (a,), (a_dot,) = primals, tangents
    p = _pinv(a, rtol, hermitian)
    if hermitian:
        # the Hermitian SVD reads only the symmetrised input
        a, a_dot = _symmetrize(a), _symmetrize(a_dot)
    mm = contractions.matmul
    m, n = _shape(a)[-2:]
    if m >= n:
        s = mm(mm(p, _H(p)), _H(a_dot))
        t = mm(mm(_H(a_dot), _H(p)), p)
        p_dot = (-mm(mm(p, a_dot), p) + s - mm(mm(s, a), p) + t - mm(mm(p, a), t))
    else:
        s = mm(p, mm(_H(p), _H(a_dot)))
        t = mm(_H(a_dot), mm(_H(p), p))
        p_dot = (-mm(p, mm(a_dot, p)) + s - mm(s, mm(a, p)) + t - mm(p, mm(a, t)))
    return p, p_dot


def _symmetrize(x):
    return ufuncs.divide(ufuncs.add(x, _H(x)), lax._const(x, 2))


def matrix_power(a, n):
    """``a`` multiplied by itself ``n`` times by repeated squaring; ``n = 0``
    gives identities, negative ``n`` powers of ``inv(a)`` (SPEC NP-67)."""
    a = util.ensure_arraylike("jnp.linalg.matrix_power", a)
    shape = _shape(a)
    if len(shape) < 2:
        raise TypeError(f"{len(shape)}-dimensional array given. Array must be at "
                        "least two-dimensional")
    if shape[-2] != shape[-1]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n}") from err
    if n == 0:
        eye = creation.eye(shape[-2], dtype=core.get_aval(a).dtype)
        return lax_numpy.broadcast_to(eye, shape)
    if n < 0:
        a, n = inv(a), -n
    result, power = None, a
    while True:
        n, bit = divmod(n, 2)
        if bit:
            result = power if result is None else contractions.matmul(result, power)
        if not n:
            return result
        power = contractions.matmul(power, power)


# ---------------------------------------------------------------------------
# Array-API helpers
# ---------------------------------------------------------------------------

def matrix_transpose(x, /):
    """Swap the last two axes (SPEC NP-68)."""
    x = util.ensure_arraylike("jnp.linalg.matrix_transpose", x)
    ndim = len(_shape(x))
    if ndim < 2:
        raise ValueError(f"matrix_transpose requires at least 2 dimensions; got ndim={ndim}")
    return lax_shapes.transpose(x, (*range(ndim - 2), ndim - 1, ndim - 2))


def outer(x1, x2, /):
    """Outer product of two 1-d arrays (SPEC NP-68)."""
    x1, x2 = util.ensure_arraylike("jnp.linalg.outer", x1, x2)
    n1, n2 = len(_shape(x1)), len(_shape(x2))
    if n1 != 1 or n2 != 1:
        raise ValueError("Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={n1} x2.ndim={n2}")
    return contractions.outer(x1, x2)


def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-vectors along ``axis`` (SPEC NP-68)."""
    x1, x2 = util.ensure_arraylike("jnp.linalg.cross", x1, x2)
    s1 = _shape(x1)[axis] if _shape(x1) else None
    s2 = _shape(x2)[axis] if _shape(x2) else None
    if s1 != 3 or s2 != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, "
                         f"but they have x1.shape[axis]={s1} and x2.shape[axis]={s2}")
    return contractions.cross(x1, x2, axis=axis)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """``jnp.vecdot`` (SPEC NP-68)."""
    return contractions.vecdot(x1, x2, axis=axis, precision=precision,
                            preferred_element_type=preferred_element_type)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """``jnp.matmul`` (SPEC NP-68)."""
    return contractions.matmul(x1, x2, precision=precision,
                            preferred_element_type=preferred_element_type)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None):
    """``jnp.tensordot`` with keyword-only ``axes`` (SPEC NP-68)."""
    return contractions.tensordot(x1, x2, axes=axes, precision=precision,
                               preferred_element_type=preferred_element_type)


def diagonal(x, /, *, offset=0):
    """Diagonals of the last two axes (SPEC NP-68)."""
    x = util.ensure_arraylike("jnp.linalg.diagonal", x)
    return contractions.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset=0, dtype=None):
    """Traces of the last two axes (SPEC NP-68)."""
    x = util.ensure_arraylike("jnp.linalg.trace", x)
    return contractions.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)
