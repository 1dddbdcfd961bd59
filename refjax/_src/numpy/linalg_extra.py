"""The rest of ``jax.numpy.linalg`` (SPEC LIN-10..LIN-13).

``eig`` and ``eigvals`` bind the general eigendecomposition primitive;
``cond``, ``lstsq``, ``multi_dot``, ``tensorinv`` and ``tensorsolve`` are
compositions of :mod:`refjax._src.numpy.linalg` and ``jax.numpy``
functions, as in JAX, so they differentiate and batch through those.
"""
import collections
import math
import operator

import numpy as np

from refjax._src import core, dtypes
from refjax._src.lax import linalg_eig as lax_linalg_eig
from refjax._src.numpy import (
    contractions, creation, lax_numpy, linalg, reductions, ufuncs, util,
)

__all__ = ["EigResult", "cond", "eig", "eigvals", "lstsq", "multi_dot", "tensorinv",
           "tensorsolve"]

EigResult = collections.namedtuple("EigResult", ["eigenvalues", "eigenvectors"])


def _shape(x):
    return core.get_aval(x).shape


def eig(a):
    """``EigResult(eigenvalues, eigenvectors)`` of square matrices: complex
    (complex64 from 32-bit input), eigenvectors as columns of unit norm
    (SPEC LIN-10)."""
    a = util.ensure_arraylike("jnp.linalg.eig", a)
    a, = util.promote_dtypes_inexact(a)
    w, v = lax_linalg_eig.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


def eigvals(a):
    """The eigenvalues of square matrices, complex (SPEC LIN-10)."""
    a = util.ensure_arraylike("jnp.linalg.eigvals", a)
    a, = util.promote_dtypes_inexact(a)
    return lax_linalg_eig.eig(a, compute_left_eigenvectors=False,
                              compute_right_eigenvectors=False)[0]


def cond(x, p=None):
    """Condition number ``norm(x, p) * norm(inv(x), p)``; for ``p`` None or
    2 (-2) the ratio of the largest (smallest) to the smallest (largest)
    singular value.  Where that is NaN but ``x`` holds no NaN the answer
    is ``inf`` (SPEC LIN-11)."""
    # JAX's cond is jitted with p static: jit refuses a string x, then
    # hashes p, and only then converts x.
    if isinstance(x, str):
        util.ensure_arraylike("cond", x)
    util.check_static(p)
    arr = util.ensure_arraylike("cond", x)
    shape = _shape(arr)
    if len(shape) < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got "
                         f"arr.shape={shape}")
    if shape[-1] == 0 or shape[-2] == 0:
        raise ValueError(f"jnp.linalg.cond: input array must not be empty; got "
                         f"arr.shape={shape}")
    if p is None or _is(p, 2):
        s = linalg.svdvals(arr)
        return ufuncs.divide(s[..., 0], s[..., -1])
    if _is(p, -2):
        s = linalg.svdvals(arr)
        r = ufuncs.divide(s[..., -1], s[..., 0])
    else:
        if shape[-2] != shape[-1]:
            raise ValueError(f"jnp.linalg.cond: for p={p!r}, array must be square; "
                             f"got arr.shape={shape}")
        r = ufuncs.multiply(linalg.norm(arr, ord=p, axis=(-2, -1)),
                            linalg.norm(linalg.inv(arr), ord=p, axis=(-2, -1)))
    nan_free = ufuncs.logical_not(reductions.any(ufuncs.isnan(arr), axis=(-2, -1)))
    return lax_numpy.where(ufuncs.logical_and(ufuncs.isnan(r), nan_free), np.inf, r)


def _is(p, value):
    return not isinstance(p, str) and p == value


def lstsq(a, b, rcond=None, *, numpy_resid=False):
    """Least squares ``(x, resid, rank, s)`` through the thin SVD of the 2-d
    ``a``: singular values below ``rcond`` times the largest (default
    ``eps * max(M, N)``; a negative ``rcond`` means ``eps``) count as zero.
    ``resid`` is always the squared residual norm per column, unless
    ``numpy_resid``, where (as NumPy) it is empty for a rank-deficient or
    non-tall ``a`` (SPEC LIN-12)."""
    a, b = util.ensure_arraylike("jnp.linalg.lstsq", a, b)
    # JAX reads the flag first, to pick its jitted or eager path.
    numpy_resid = True if numpy_resid else False
    a, b = util.promote_dtypes_inexact(a, b)
    if _shape(a)[:1] != _shape(b)[:1]:
        raise ValueError("Leading dimensions of input arrays must match")
    b_vector = len(_shape(b)) == 1
    if b_vector:
        b = b[:, None]
    if len(_shape(a)) != 2:
        raise TypeError(f"{len(_shape(a))}-dimensional array given. Array must be "
                        "two-dimensional")
    if len(_shape(b)) != 2:
        raise TypeError(f"{len(_shape(b))}-dimensional array given. Array must be one "
                        "or two-dimensional")
    m, n = _shape(a)
    dtype = core.get_aval(a).dtype
    if m == 0 or n == 0:
        s = creation.empty(0, dtype=dtype)
        rank = creation.array(0, dtype=int)
        x = creation.zeros((n,) + _shape(b)[1:], dtype=dtype)
    else:
        x, rank, s = _lstsq_svd(a, b, rcond, dtype)
    if numpy_resid and (rank < n or m <= n):
        resid = creation.asarray([])
    else:
        err = ufuncs.subtract(b, contractions.matmul(a, x))
        resid = ufuncs.square(linalg.norm(err, axis=0))
    if b_vector:
        x = lax_numpy.ravel(x)
    return x, resid, rank, s


def _lstsq_svd(a, b, rcond, dtype):
    eps = float(dtypes.finfo(dtype).eps)
    if rcond is None:
        rcond = eps * max(_shape(a))
    else:
        rcond = lax_numpy.where(ufuncs.less(rcond, 0), eps, rcond)
    u, s, vt = linalg.svd(a, full_matrices=False)
    s_dtype = core.get_aval(s).dtype
    cutoff = ufuncs.multiply(creation.array(rcond, dtype=s_dtype), s[0])
    mask = ufuncs.logical_and(ufuncs.greater(s, 0), ufuncs.greater_equal(s, cutoff))
    rank = reductions.sum(mask)
    safe_s = lax_numpy.where(mask, s, 1).astype(dtype)
    s_inv = lax_numpy.where(mask, ufuncs.divide(1, safe_s), 0)[:, None]
    uTb = contractions.matmul(ufuncs.conj(u).T, b)
    x = contractions.matmul(ufuncs.conj(vt).T, ufuncs.multiply(s_inv, uTb))
    return x, rank, s


def multi_dot(arrays, *, precision=None):
    """``arrays[0] @ arrays[1] @ ...`` in the cheapest order (an einsum with
    ``optimize='auto'``); the first and last may be vectors, the others
    must be matrices (SPEC LIN-13)."""
    arrs = list(util.ensure_arraylike("jnp.linalg.multi_dot", *arrays))
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got "
                         f"len(arrays)={len(arrs)}")
    shapes = [_shape(x) for x in arrs]
    if not (len(shapes[0]) in (1, 2) and len(shapes[-1]) in (1, 2)
            and all(len(s) == 2 for s in shapes[1:-1])):
        raise ValueError("multi_dot: input arrays must all be two-dimensional, except "
                         "for the first and last array which may be 1 or 2 "
                         f"dimensional. Got array shapes {shapes}")
    if any(s[-1] != t[0] for s, t in zip(shapes[:-1], shapes[1:])):
        raise ValueError("multi_dot: last dimension of each array must match first "
                         "dimension of following array. Got array shapes "
                         f"{shapes}")
    # Axis i sits between arrays i-1 and i.
    letters = [_letter(i) for i in range(len(arrs) + 1)]
    terms = [letters[i] + letters[i + 1] for i in range(len(arrs))]
    if len(shapes[0]) == 1:
        terms[0] = terms[0][1:]
    if len(shapes[-1]) == 1:
        terms[-1] = terms[-1][:1]
    out = (letters[0] if len(shapes[0]) == 2 else "") + (
        letters[-1] if len(shapes[-1]) == 2 else "")
    return contractions.einsum(",".join(terms) + "->" + out, *arrs, optimize="auto",
                               precision=precision)


def _letter(i):
    return "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[i]


def tensorinv(a, ind=2):
    """The inverse of ``tensordot(a, ., ind)``: shape
    ``a.shape[ind:] + a.shape[:ind]`` (SPEC LIN-13)."""
    arr = util.ensure_arraylike("tensorinv", a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer; got ind={ind}")
    shape = _shape(arr)
    contracting, batch = shape[:ind], shape[ind:]
    rows, cols = math.prod(contracting), math.prod(batch)
    if rows != cols:
        raise ValueError("tensorinv is only possible when the product of the first"
                         " `ind` dimensions equals that of the remaining dimensions."
                         f" got arr.shape={shape} with ind={ind}.")
    inv = linalg.inv(lax_numpy.reshape(arr, (rows, cols)))
    return lax_numpy.reshape(inv, batch + contracting)


def tensorsolve(a, b, axes=None):
    """``x`` with ``tensordot(a, x, x.ndim) == b``, after moving ``axes`` of
    ``a`` to the end (SPEC LIN-13)."""
    a, b = util.ensure_arraylike("tensorsolve", a, b)
    if axes is not None:
        nd = len(_shape(a))
        a = lax_numpy.moveaxis(a, axes, len(axes) * (nd - 1,))
    a_shape, b_shape = _shape(a), _shape(b)
    out_shape = a_shape[len(b_shape):]
    if a_shape[:len(b_shape)] != b_shape:
        raise ValueError("After moving axes to end, leading shape of a must match "
                         f"shape of b. got a.shape={a_shape}, b.shape={b_shape}")
    b_size = math.prod(b_shape)
    if b_size != math.prod(out_shape):
        raise ValueError("Input arrays must have prod(a.shape[:b.ndim]) == "
                         f"prod(a.shape[b.ndim:]); got a.shape={a_shape}, "
                         f"b.ndim={len(b_shape)}.")
    a = lax_numpy.reshape(a, (b_size, math.prod(out_shape)))
    return lax_numpy.reshape(linalg.solve(a, lax_numpy.ravel(b)), out_shape)
