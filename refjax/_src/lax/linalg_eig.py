"""Eigen-decompositions and reductions to condensed form (SPEC LIN-1..LIN-5).

``eig`` (general eigendecomposition), ``schur``, ``hessenberg``,
``tridiagonal`` and ``tridiagonal_solve``, each a primitive over stacks of
matrices as in :mod:`refjax._src.lax.linalg`.  The first four are LAPACK
routines in JAX on CPU (``geev``, ``gees``, ``gehrd``, ``sytrd``/``hetrd``);
refjax calls the same routines through the backend's ``lapack`` so that
eigenvector normalisation and ordering are LAPACK's.  A backend without
LAPACK gets ``xp.linalg.eig`` for right eigenvectors, a Thomas-algorithm
tridiagonal solve, and a ``NotImplementedError`` naming the routine for
the rest.  A factorisation that fails gives NaNs, as JAX's does.
"""
import warnings

import numpy as np

from refjax._src import backend as _backend
from refjax._src import core
from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import ad, batching
from refjax._src.lax import lax, reductions
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax.lax import _xp
from refjax._src.lax.linalg_common import (
    _H, _T, _defbatch_leading, _diagonal, _eye, _lapack_per_matrix, _matmul,
    _need_lapack, _per_matrix, _real_dtype,
)
from refjax._src.lax.linalg_core import (
    EigImplementation, _permutation_matrix, lu_p, triangular_solve_p,
)

_float = (np.floating,)
_inexact = (np.floating, np.complexfloating)
_NO_JVP = "undefined in JAX: it has no derivative rule"


# ---------------------------------------------------------------------------
# Checks shared by the primitives here and in linalg_extra
# ---------------------------------------------------------------------------

def check_arraylike(name, *args):
    """Lists and tuples are not arrays, as in JAX's ``bind`` (SPEC LIN-1)."""
    for i, x in enumerate(args):
        if isinstance(x, (list, tuple)):
            raise TypeError(
                f"Error interpreting argument to {name} as a JAX value. The "
                f"problematic value is of type {type(x)} and was passed to "
                f"{name} at position {i}.")


def check_ranks(name, avals, ranks, batching_ok=True):
    """Each operand has at least (or, without batching, exactly) its rank
    and all have as many batch axes, as JAX's linalg shape rule requires;
    returns the batch shape."""
    for i, (rank, aval) in enumerate(zip(ranks, avals)):
        if aval.ndim < rank:
            raise TypeError(f"Input {i} to {name} must have rank at least {rank}, "
                            f"but got shape={aval.shape}")
        if not batching_ok and aval.ndim != rank:
            raise TypeError(f"Input {i} to {name} must have a rank of exactly "
                            f"{rank}, but got shape={aval.shape}")
    nbatch = [a.ndim - r for a, r in zip(avals, ranks)]
    if any(b != nbatch[0] for b in nbatch):
        raise TypeError(f"All inputs to {name} must have the same number of batch "
                        f"dimensions, but got {nbatch} batch dimensions for the inputs.")
    return avals[0].shape[:nbatch[0]]


def check_batch_sizes(arrays, ranks):
    """Operands' batch axes must agree in size.  JAX's abstract evaluation
    only counts them; its LAPACK call then refuses, so refjax checks when
    the primitive runs, with that ValueError."""
    shapes = [x.shape[:x.ndim - r] for x, r in zip(arrays, ranks)]
    for d, sizes in enumerate(zip(*shapes)):
        if any(s != sizes[0] for s in sizes):
            other = next(s for s in sizes if s != sizes[0])
            raise ValueError(f"Batching dimension {d}_0 corresponds to two sizes: "
                             f"{sizes[0]} and {other}")


def check_dtypes(name, avals, classes, same=True):
    """Every operand's dtype in ``classes``, then (``same``) one dtype for
    all, in JAX's words (after the shape checks, as JAX orders them)."""
    for i, aval in enumerate(avals):
        lax._check_dtype(name, aval.dtype, classes, position=i)
    if same and any(a.dtype != avals[0].dtype for a in avals[1:]):
        got = ", ".join(a.dtype.name for a in avals)
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, "
                        f"got {got}.")


def weak(avals):
    """An output is weakly typed when every operand is (JAX's standard rule)."""
    return all(a.weak_type for a in avals)


def complex_dtype(dtype):
    """The complex dtype of the same precision."""
    return np.result_type(dtype, np.complex64)


def _square(name, aval, message=None):
    if aval.shape[-1] != aval.shape[-2]:
        raise ValueError(message or f"The input to {name} must be a square matrix. "
                         f"Got shape {aval.shape[-2:]}.")


# ---------------------------------------------------------------------------
# eig
# ---------------------------------------------------------------------------

eig_p = Primitive("eig", multiple_results=True)


@eig_p.def_abstract_eval
def _eig_abstract_eval(x, *, compute_left_eigenvectors, compute_right_eigenvectors,
                       enable_eigvec_derivs, implementation):
    check_ranks("eig", [x], (2,))
    _square("eig", x)
    check_dtypes("eig", [x], _inexact)
    dtype = complex_dtype(x.dtype)
    count = int(compute_left_eigenvectors) + int(compute_right_eigenvectors)
    return ([ShapedArray(x.shape[:-1], dtype, x.weak_type)]
            + [ShapedArray(x.shape, dtype, x.weak_type)] * count)


@eig_p.def_impl
def _eig_impl(x, *, compute_left_eigenvectors, compute_right_eigenvectors,
              enable_eigvec_derivs, implementation):
    """LAPACK's ``geev``: eigenvalues in its order; each eigenvector of unit
    2-norm with its largest component real (SPEC LIN-1)."""
    if implementation is not None and implementation != EigImplementation.LAPACK:
        raise ValueError("Only the lapack implementation is supported on CPU.")
    xp = _xp()
    left, right = bool(compute_left_eigenvectors), bool(compute_right_eigenvectors)
    n = x.shape[-1]
    dtype = complex_dtype(x.dtype)
    shapes = [((n,), dtype)] + [((n, n), dtype)] * (left + right)
    if x.size == 0:
        return [xp.zeros(x.shape[:-2] + s, d) for s, d in shapes]
    geev = _backend.get().lapack("geev", x.dtype)
    if geev is None:
        fn = _eig_without_lapack(xp, left, right)
    else:
        fn = lambda a: _lapack_per_matrix(  # noqa: E731
            a, lambda m: _geev(geev, m, left, right), len(shapes))
    outs = _per_matrix(fn, x, len(shapes), shapes)
    return [o.astype(dtype, copy=False) for o in outs]


def _geev(geev, m, left, right):
    """One ``geev`` call; a real matrix's complex-conjugate pairs come
    packed as (real part, imaginary part) columns and are unpacked.  A
    matrix with a NaN or infinity is not handed to LAPACK: as in JAX, its
    outputs are all complex NaN."""
    if not np.isfinite(m).all():
        n = m.shape[-1]
        nan = np.array(complex(np.nan, np.nan), np.result_type(m.dtype, np.complex64))
        shapes = [(n,)] + [(n, n)] * (left + right)
        return [np.full(s, nan) for s in shapes] + [0]
    *w, vl, vr, info = geev(m, compute_vl=int(left), compute_vr=int(right))
    if len(w) == 2:
        wr, wi = w
        w = wr + 1j * wi
        vl = _unpack_pairs(wi, vl) if left else vl
        vr = _unpack_pairs(wi, vr) if right else vr
    else:
        w, = w
    return [w] + ([vl] if left else []) + ([vr] if right else []) + [info]


def _unpack_pairs(wi, v):
    """Columns ``j, j+1`` of a conjugate pair (``wi[j] > 0``) become
    ``v_j + i v_{j+1}`` and its conjugate."""
    out = v.astype(np.result_type(v.dtype, np.complex64))
    j = 0
    while j < len(wi):
        if wi[j] != 0 and j + 1 < len(wi):
            re, im = v[:, j], v[:, j + 1]
            out[:, j], out[:, j + 1] = re + 1j * im, re - 1j * im
            j += 2
        else:
            j += 1
    return out


def _eig_without_lapack(xp, left, right):
    if left or not hasattr(xp.linalg, "eig"):
        _need_lapack("geev", np.float32)

    def fn(a):
        w, v = xp.linalg.eig(a)
        return [w, v] if right else [w]
    return fn


_EIGVEC_DERIVS_MSG = (
    'Derivatives of non-symmetric eigenvectors are only valid under '
    'assumptions on the input that JAX cannot check (see the '
    'enable_eigvec_derivs argument to jax.lax.linalg.eig). Pass '
    'enable_eigvec_derivs=True to jax.lax.linalg.eig to opt in. See '
    'https://github.com/jax-ml/jax/issues/2748 for discussion.')


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors,
             compute_right_eigenvectors, enable_eigvec_derivs, implementation):
    """With ``A = V diag(w) V^-1`` and ``P = V^-1 dA V``: ``dw = diag(P)``.
    Eigenvector tangents (only with ``enable_eigvec_derivs``) are ``V (F * P)``
    plus the multiple of each ``v_j`` that keeps LAPACK's normalisation
    (unit norm, largest component real); left eigenvectors are those of
    ``A^H`` (SPEC LIN-1)."""
    a, = primals
    da, = tangents
    left = bool(compute_left_eigenvectors)
    vectors = left or compute_right_eigenvectors
    if vectors and not enable_eigvec_derivs:
        raise NotImplementedError(_EIGVEC_DERIVS_MSG)
    outs = eig_p.bind(a, compute_left_eigenvectors=left, compute_right_eigenvectors=True,
                      enable_eigvec_derivs=enable_eigvec_derivs,
                      implementation=implementation)
    w, vr = outs[0], outs[-1]
    primal_out = [w] + ([outs[1]] if left else []) + ([vr] if compute_right_eigenvectors
                                                      else [])
    if type(da) is ad.Zero:
        return primal_out, [ad.Zero.from_primal_value(o) for o in primal_out]
    da = lax.convert_element_type(da, core.get_aval(vr).dtype)
    if not vectors:
        dw = reductions.reduce_sum(lax.mul(_solve(vr, da), _T(vr)),
                                   (core.get_aval(vr).ndim - 1,))
        return primal_out, [dw]
    dw, dvr = _eig_vec_jvp(w, vr, da)
    tangent_out = [dw]
    if left:
        tangent_out.append(_eig_vec_jvp(lax.conj(w), outs[1], _H(da))[1])
    if compute_right_eigenvectors:
        tangent_out.append(dvr)
    return primal_out, tangent_out


def _solve(v, b):
    """``v^-1 b`` through ``v``'s LU factors: linear in ``b``."""
    lu, _, perm = lu_p.bind(v)
    pb = _matmul(_permutation_matrix(perm, core.get_aval(v).dtype), b)
    y = triangular_solve_p.bind(lu, pb, left_side=True, lower=True, transpose_a=False,
                                conjugate_a=False, unit_diagonal=True)
    return triangular_solve_p.bind(lu, y, left_side=True, lower=False,
                                   transpose_a=False, conjugate_a=False,
                                   unit_diagonal=False)


def _along_rows(w, shape):
    """``w`` (..., n) broadcast to ``shape`` (..., n, n) as ``w[..., None, :]``."""
    nd = len(shape)
    return lax_shapes.broadcast_in_dim(w, shape, tuple(range(nd - 2)) + (nd - 1,))


def _along_cols(w, shape):
    """``w`` (..., n) broadcast as ``w[..., :, None]``."""
    nd = len(shape)
    return lax_shapes.broadcast_in_dim(w, shape, tuple(range(nd - 2)) + (nd - 2,))


def _eig_vec_jvp(w, v, da):
    aval = core.get_aval(v)
    shape, dtype, nd = aval.shape, aval.dtype, aval.ndim
    eye = _eye(dtype, shape)
    gaps = lax.sub(lax.add(eye, _along_rows(w, shape)), _along_cols(w, shape))
    F = lax.sub(lax.div(lax._ones(gaps), gaps), eye)
    P = _matmul(_solve(v, da), v)
    dw = _diagonal(P)
    U = _matmul(v, lax.mul(F, P))
    # Pin the free multiple of each v_j: Re(v_j^H dv_j) = 0 keeps the
    # norm, and the largest component's imaginary part stays 0.
    k = reductions.argmax(lax.abs(v), nd - 2, np.int32)
    rows = lax_shapes.broadcasted_iota(np.int32, shape, nd - 2)
    mask = lax.convert_element_type(lax.eq(rows, _along_rows(k, shape)), dtype)
    col_sum = lambda x: reductions.reduce_sum(x, (nd - 2,))  # noqa: E731
    re = lax.neg(lax.real(col_sum(lax.mul(lax.conj(v), U))))
    im = lax.div(lax.neg(lax.imag(col_sum(lax.mul(mask, U)))),
                 lax.real(col_sum(lax.mul(mask, v))))
    c = lax.complex(re, im)
    return dw, lax.add(U, lax.mul(v, _along_rows(c, shape)))


eig_p.jvp = _eig_jvp
_defbatch_leading(eig_p)


def eig(x, *, compute_left_eigenvectors=True, compute_right_eigenvectors=True,
        enable_eigvec_derivs=False, implementation=None, use_magma=None):
    """General eigendecomposition ``[w, vl?, vr?]`` of square matrices,
    complex outputs (SPEC LIN-1).  ``use_magma`` is deprecated, as in JAX:
    it warns and picks the MAGMA (True) or LAPACK implementation."""
    check_arraylike("eig", x)
    if use_magma is not None:
        warnings.warn("use_magma is deprecated, please use"
                      " implementation=EigImplementation.MAGMA instead.",
                      DeprecationWarning, stacklevel=2)
        implementation = (EigImplementation.MAGMA if use_magma
                          else EigImplementation.LAPACK)
    return eig_p.bind(x, compute_left_eigenvectors=compute_left_eigenvectors,
                      compute_right_eigenvectors=compute_right_eigenvectors,
                      enable_eigvec_derivs=enable_eigvec_derivs,
                      implementation=implementation)


# ---------------------------------------------------------------------------
# schur
# ---------------------------------------------------------------------------

schur_p = Primitive("schur", multiple_results=True)


@schur_p.def_abstract_eval
def _schur_abstract_eval(x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    check_ranks("schur", [x], (2,))
    _square("schur", x)
    check_dtypes("schur", [x], _inexact)
    out = ShapedArray(x.shape, x.dtype, x.weak_type)
    return [out, out] if compute_schur_vectors else [out]


@schur_p.def_impl
def _schur_impl(x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    """LAPACK's ``gees``: ``x = Q T Q^H`` with ``T`` upper (quasi-)triangular
    (2x2 blocks for a real matrix's complex pairs) (SPEC LIN-2)."""
    if sort_eig_vals:
        raise NotImplementedError(
            "The sort feature of LAPACK's gees routine is not implemented.")
    xp = _xp()
    n_out = 2 if compute_schur_vectors else 1
    if x.size == 0:
        return [xp.zeros(x.shape, x.dtype) for _ in range(n_out)]
    gees = _need_lapack("gees", x.dtype)

    def call(m):
        t, _, *rest = gees(lambda *_: 0, m, compute_v=int(compute_schur_vectors))
        return [t, rest[-3], rest[-1]]
    n = x.shape[-1]
    fn = lambda a: _lapack_per_matrix(a, call, 2)  # noqa: E731
    outs = _per_matrix(fn, x, 2, [((n, n), x.dtype)] * 2)
    return [o.astype(x.dtype, copy=False) for o in outs[:n_out]]


_defbatch_leading(schur_p)
schur_p.not_supported("jvp", _NO_JVP)


def schur(x, *, compute_schur_vectors=True, sort_eig_vals=False, select_callable=None):
    """Schur form ``T`` and vectors ``Q`` with ``x = Q T Q^H``; ``T`` alone
    without ``compute_schur_vectors`` (SPEC LIN-2)."""
    check_arraylike("schur", x)
    outs = schur_p.bind(x, compute_schur_vectors=compute_schur_vectors,
                        sort_eig_vals=sort_eig_vals, select_callable=select_callable)
    return outs


# ---------------------------------------------------------------------------
# hessenberg
# ---------------------------------------------------------------------------

hessenberg_p = Primitive("hessenberg", multiple_results=True)


@hessenberg_p.def_abstract_eval
def _hessenberg_abstract_eval(a):
    check_ranks("hessenberg", [a], (2,))
    _square("hessenberg", a, "Argument to Hessenberg reduction must have shape "
            f"[..., n, n], got shape {a.shape[-2:]}")
    if a.shape[-1] == 0:
        # JAX's abstract evaluation gives taus a negative size and its
        # compilation fails; refjax says why instead.
        raise ValueError("Argument to Hessenberg reduction must have shape "
                         f"[..., n, n] with n > 0, got shape {a.shape}")
    check_dtypes("hessenberg", [a], _inexact)
    return [ShapedArray(a.shape, a.dtype, a.weak_type),
            ShapedArray(a.shape[:-2] + (a.shape[-1] - 1,), a.dtype, a.weak_type)]


@hessenberg_p.def_impl
def _hessenberg_impl(a):
    """LAPACK's ``gehrd``: the Hessenberg matrix on and above the first
    subdiagonal, the reflectors below it, and their scale factors
    (SPEC LIN-3)."""
    gehrd = _need_lapack("gehrd", a.dtype)
    n = a.shape[-1]
    fn = lambda x: _lapack_per_matrix(  # noqa: E731
        x, lambda m: (lambda h, tau, info: [h, tau[:n - 1], info])(*gehrd(m)), 2)
    h, taus = _per_matrix(fn, a, 2, [((n, n), a.dtype), ((n - 1,), a.dtype)])
    return [h.astype(a.dtype, copy=False), taus.astype(a.dtype, copy=False)]


_defbatch_leading(hessenberg_p)
hessenberg_p.not_supported("jvp", _NO_JVP)


def hessenberg(a):
    """``(a, taus)``: upper Hessenberg form and Householder reflectors
    (SPEC LIN-3)."""
    check_arraylike("hessenberg", a)
    return hessenberg_p.bind(a)


# ---------------------------------------------------------------------------
# tridiagonal
# ---------------------------------------------------------------------------

tridiagonal_p = Primitive("tridiagonal", multiple_results=True)


@tridiagonal_p.def_abstract_eval
def _tridiagonal_abstract_eval(a, *, lower):
    check_ranks("tridiagonal", [a], (2,))
    if a.shape[-1] != a.shape[-2] or a.shape[-1] == 0:
        raise ValueError("The input to tridiagonal must be a square matrix. Got "
                         f"shape {a.shape[-2:]}.")
    check_dtypes("tridiagonal", [a], _inexact)
    batch, n = a.shape[:-2], a.shape[-1]
    real = _real_dtype(a.dtype)
    w = a.weak_type
    return [ShapedArray(a.shape, a.dtype, w), ShapedArray(batch + (n,), real, w),
            ShapedArray(batch + (n - 1,), real, w),
            ShapedArray(batch + (n - 1,), a.dtype, w)]


@tridiagonal_p.def_impl
def _tridiagonal_impl(a, *, lower):
    """LAPACK's ``sytrd`` / ``hetrd`` on the ``lower`` (or upper) triangle
    (SPEC LIN-4)."""
    trd = _need_lapack("hetrd" if a.dtype.kind == "c" else "sytrd", a.dtype)
    n = a.shape[-1]
    real = _real_dtype(a.dtype)
    fn = lambda x: _lapack_per_matrix(  # noqa: E731
        x, lambda m: trd(m, lower=int(lower)), 4)
    outs = _per_matrix(fn, a, 4, [((n, n), a.dtype), ((n,), real), ((n - 1,), real),
                                  ((n - 1,), a.dtype)])
    return [o.astype(d, copy=False) for o, d in zip(outs, (a.dtype, real, real, a.dtype))]


_defbatch_leading(tridiagonal_p)
tridiagonal_p.not_supported("jvp", _NO_JVP)


def tridiagonal(a, *, lower=True):
    """``(a, d, e, taus)``: a Hermitian matrix reduced to tridiagonal form,
    ``d`` its diagonal and ``e`` its off-diagonal (real), the reflectors
    stored in ``a`` with scale factors ``taus`` (SPEC LIN-4)."""
    if isinstance(a, (list, tuple)):
        raise TypeError(f"asarray: expected ArrayLike, got {a} of type {type(a)}.")
    return tridiagonal_p.bind(a, lower=lower)


# ---------------------------------------------------------------------------
# tridiagonal_solve
# ---------------------------------------------------------------------------

tridiagonal_solve_p = Primitive("tridiagonal_solve")


@tridiagonal_solve_p.def_abstract_eval
def _tridiagonal_solve_abstract_eval(dl, d, du, b, *, perturb_singular):
    avals = [dl, d, du, b]
    check_ranks("tridiagonal_solve", avals, (1, 1, 1, 2))
    if dl.shape != d.shape or dl.shape != du.shape:
        raise TypeError("tridiagonal_solve requires that all diagonal arguments "
                        "have the same shape.")
    if dl.shape != b.shape[:-1]:
        raise TypeError("tridiagonal_solve requires that the leading ndim-1 "
                        "dimensions of b equal the dimensions of the diagonal "
                        "arguments.")
    check_dtypes("tridiagonal_solve", avals, _inexact)
    return ShapedArray(b.shape, b.dtype, weak(avals))


@tridiagonal_solve_p.def_impl
def _tridiagonal_solve_impl(dl, d, du, b, *, perturb_singular):
    """``A x = b`` with ``A[i, i-1] = dl[i]``, ``A[i, i] = d[i]``,
    ``A[i, i+1] = du[i]`` (``dl[0]`` and ``du[-1]`` unused): LAPACK's
    ``gtsv`` (partial pivoting; NaNs for a singular matrix), or with
    ``perturb_singular`` JAX's elimination whose tiny pivots are nudged to
    stay finite (SPEC LIN-5, LIN-44)."""
    xp = _xp()
    check_batch_sizes([dl, d, du, b], (1, 1, 1, 2))
    if b.size == 0:
        return xp.zeros(b.shape, b.dtype)
    if perturb_singular:
        return _perturbed_solve(xp, dl, d, du, b)
    gtsv = _backend.get().lapack("gtsv", b.dtype)
    if gtsv is None:
        return _thomas(xp, dl, d, du, b)
    m = b.shape[-2]
    flat = [x.reshape((-1,) + x.shape[-1:]) for x in (dl, d, du)]
    flat_b = b.reshape((-1,) + b.shape[-2:])
    outs = []
    for i in range(flat_b.shape[0]):
        *_, x, info = gtsv(flat[0][i][1:], flat[1][i], flat[2][i][:m - 1], flat_b[i])
        outs.append(x if info == 0 else np.full(flat_b[i].shape, np.nan, b.dtype))
    return np.stack(outs).reshape(b.shape).astype(b.dtype, copy=False)


def _thomas(xp, dl, d, du, b):
    """The Thomas algorithm (no pivoting), vectorised over the batch: JAX's
    solve where no LAPACK is at hand."""
    m = b.shape[-2]
    with np.errstate(all="ignore"):
        cp = [du[..., 0] / d[..., 0]]
        dp = [b[..., 0, :] / d[..., 0, None]]
        for i in range(1, m):
            denom = d[..., i] - dl[..., i] * cp[-1]
            cp.append(du[..., i] / denom)
            dp.append((b[..., i, :] - dl[..., i, None] * dp[-1]) / denom[..., None])
        x = [dp[-1]]
        for i in range(m - 2, -1, -1):
            x.append(dp[i] - cp[i][..., None] * x[-1])
    return xp.stack(x[::-1], axis=-2).astype(b.dtype, copy=False)


def _perturbed_solve(xp, dl, d, du, b):
    """JAX's perturbed solve (its CPU kernel, after LAPACK's ``xLAGTF`` and
    ``xLAGTS``), one system at a time: Gaussian elimination with row
    interchanges chosen on scaled pivots, then back substitution where a
    pivot so small that dividing by it would overflow is moved away from
    zero (SPEC LIN-5, LIN-44)."""
    out = xp.empty(b.shape, b.dtype)
    flat = [x.reshape((-1,) + x.shape[-1:]) for x in (dl, d, du)]
    flat_b, flat_out = b.reshape((-1,) + b.shape[-2:]), out.reshape((-1,) + b.shape[-2:])
    with np.errstate(all="ignore"):
        for i in range(flat_b.shape[0]):
            flat_out[i] = _perturbed_one(flat[0][i], flat[1][i], flat[2][i], flat_b[i])
    return out


def _perturbed_one(dl, d, du, b):
    n = d.shape[0]
    eps = np.finfo(_real_dtype(b.dtype)).eps
    if n == 1:
        p, row = _nudge_pivot(eps * abs(d[0]), d[0], b[0].copy())
        return (row / p)[None]
    u, x, max_abs_u = _eliminate(dl, d, du, b)
    perturb = eps * max_abs_u
    one = np.ones((), b.dtype)
    for k in range(n - 1, -1, -1):
        row = x[k].copy()
        if k + 1 < n:
            row -= u[k, 1] * x[k + 1]
        if k + 2 < n:
            row -= u[k, 2] * x[k + 2]
        p, row = _nudge_pivot(perturb, u[k, 0], row)
        x[k] = row * (one / p)
    return x


def _eliminate(dl, d, du, b):
    """Row-interchanging elimination of the band, applied to ``b`` as it
    goes: ``U``'s three diagonals (columns of ``u``), the reduced right
    side, and the largest ``|U|`` entry.  A row swap happens when the
    subdiagonal entry is the larger relative to its row's size."""
    n = d.shape[0]
    u = np.zeros((n, 3), b.dtype)
    x = b.copy()
    u[0, 0], u[0, 1] = d[0], du[0]
    max_abs_u = max(abs(u[0, 0]), abs(u[0, 1]))
    scale1 = abs(u[0, 0]) + abs(u[0, 1])
    for k in range(n - 1):
        u[k + 1, 0] = d[k + 1]
        scale2 = abs(dl[k + 1]) + abs(u[k + 1, 0]) + (abs(du[k + 1]) if k < n - 2 else 0)
        piv1 = 0 if u[k, 0] == 0 else abs(u[k, 0]) / scale1
        if dl[k + 1] == 0 or abs(dl[k + 1]) / scale2 <= piv1:
            if dl[k + 1] != 0:
                factor = dl[k + 1] / u[k, 0]
                u[k + 1, 0] -= factor * u[k, 1]
                x[k + 1] = b[k + 1] - factor * x[k]
            scale1 = scale2
            u[k + 1, 1] = du[k + 1]
            u[k, 2] = 0
        else:
            factor = u[k, 0] / dl[k + 1]
            u[k, 0], u[k + 1, 0], u[k, 1] = dl[k + 1], u[k, 1] - factor * d[k + 1], d[k + 1]
            if k < n - 2:
                u[k, 2] = du[k + 1]
                u[k + 1, 1] = -factor * du[k + 1]
            x[k + 1] = x[k] - factor * b[k + 1]
            x[k] = b[k + 1]
            scale1 = abs(u[k + 1, 0]) + abs(u[k + 1, 1])
        if k < n - 2:
            max_abs_u = max(max_abs_u, *np.abs(u[k]))
    return u, x, max(max_abs_u, abs(u[n - 1, 0]))


def _nudge_pivot(perturb, pivot, row):
    """A pivot under 1 in size is moved by a real step (at least the
    smallest safe number, doubling each time, on ``real(pivot)``'s side)
    while ``row / pivot`` would overflow; a tiny pivot that can be scaled
    safely is scaled, with ``row``, instead."""
    real = np.finfo(_real_dtype(row.dtype))
    safemin = real.tiny if 1 / real.max < real.tiny else (1 / real.max) * (1 + real.eps)
    safemin, bignum = real.dtype.type(safemin), real.dtype.type(1 / safemin)
    size = abs(pivot)
    if size >= 1:
        return pivot, row
    step = np.copysign(max(abs(perturb), safemin), np.real(pivot)).astype(real.dtype)
    largest = np.abs(row).max()
    while size < 1:
        if size < safemin and size != 0 and largest * safemin <= size:
            return pivot * bignum, row * bignum
        if size >= safemin and largest <= size * bignum:
            break
        pivot = pivot + step
        step = step * 2
        size = abs(pivot)
    return pivot, row


def _tridiagonal_product(dl, d, du, x):
    """``A @ x`` for the band ``(dl, d, du)``: linear in the bands and in ``x``."""
    shape = core.get_aval(x).shape
    m = shape[-2]
    y = lax.mul(_along_cols(d, shape), x)
    if m > 1:
        nd = len(shape)
        lo = lax.mul(_along_cols(dl, shape), _shift(x, 1, nd))
        hi = lax.mul(_along_cols(du, shape), _shift(x, -1, nd))
        y = lax.add(y, lax.add(lo, hi))
    return y


def _shift(x, k, nd):
    """Rows moved down by ``k`` (up for negative ``k``), zeros entering."""
    zero = lax.convert_element_type(0, core.get_aval(x).dtype)
    config = [(0, 0, 0)] * nd
    config[nd - 2] = (k, -k, 0)
    return lax_shapes.pad(x, zero, config)


def _tridiagonal_solve_jvp(primals, tangents, *, perturb_singular):
    """``d(A^-1 b) = A^-1 (db - dA x)`` (SPEC LIN-5)."""
    dl, d, du, b = primals
    *band_dots, b_dot = tangents
    ans = tridiagonal_solve_p.bind(*primals, perturb_singular=perturb_singular)
    if all(type(t) is ad.Zero for t in tangents):
        return ans, ad.Zero.from_primal_value(ans)
    if all(type(t) is ad.Zero for t in band_dots):
        rhs = b_dot
    else:
        bands = [ad.instantiate_zeros(t) for t in band_dots]
        rhs = lax.neg(_tridiagonal_product(*bands, ans))
        if type(b_dot) is not ad.Zero:
            rhs = lax.add(b_dot, rhs)
    return ans, tridiagonal_solve_p.bind(dl, d, du, rhs, perturb_singular=perturb_singular)


def _tridiagonal_solve_transpose(ct, dl, d, du, b, *, perturb_singular):
    """Linear in ``b`` only: the cotangent is solved with ``A^T``, whose
    sub-diagonal is ``du`` moved down one and super-diagonal ``dl`` moved up."""
    if any(ad.is_undefined_primal(x) for x in (dl, d, du)):
        raise NotImplementedError("tridiagonal_solve is not linear in its "
                                  "diagonals")
    if type(ct) is ad.Zero:
        return [None, None, None, ad.Zero(b.aval)]
    nd = core.get_aval(du).ndim
    dl_t = _shift_vec(du, 1, nd)
    du_t = _shift_vec(dl, -1, nd)
    return [None, None, None, tridiagonal_solve_p.bind(
        dl_t, d, du_t, ct, perturb_singular=perturb_singular)]


def _shift_vec(v, k, nd):
    zero = lax.convert_element_type(0, core.get_aval(v).dtype)
    config = [(0, 0, 0)] * nd
    config[nd - 1] = (k, -k, 0)
    return lax_shapes.pad(v, zero, config)


def _tridiagonal_solve_batch(axis_data, vals, dims, *, perturb_singular):
    """With only ``b`` mapped, its examples are more right-hand sides
    (folded into its columns); otherwise every operand gets the mapped axis
    in front (SPEC LIN-5)."""
    dl, d, du, b = vals
    if all(bd is None for bd in dims[:3]):
        b = batching.moveaxis(b, dims[3], -2)
        shape = core.get_aval(b).shape
        flat = lax_shapes.reshape(b, shape[:-3] + (shape[-3], shape[-2] * shape[-1]))
        out = tridiagonal_solve_p.bind(dl, d, du, flat, perturb_singular=perturb_singular)
        return lax_shapes.reshape(out, shape), len(shape) - 2
    size = axis_data.size
    args = [batching.bdim_at_front(x, bd, size) for x, bd in zip(vals, dims)]
    return tridiagonal_solve_p.bind(*args, perturb_singular=perturb_singular), 0


tridiagonal_solve_p.jvp = _tridiagonal_solve_jvp
tridiagonal_solve_p.transpose = _tridiagonal_solve_transpose
tridiagonal_solve_p.batch = _tridiagonal_solve_batch


def tridiagonal_solve(dl, d, du, b, *, perturb_singular=False):
    """Solve the tridiagonal system ``A x = b`` for matrices ``b``
    (..., m, k) (SPEC LIN-5)."""
    check_arraylike("tridiagonal_solve", dl, d, du, b)
    return tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=perturb_singular)
