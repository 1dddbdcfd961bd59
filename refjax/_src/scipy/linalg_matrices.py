"""``jax.scipy.linalg``'s special matrices (SPEC SLA-30 .. SLA-35).

Two families:

* Matrices built from vectors (``toeplitz``, ``hankel``, ``circulant``,
  ``leslie``, ``companion``, ``fiedler``, ``fiedler_companion``,
  ``convolution_matrix``, ``block_diag``).  The vector arguments may carry
  leading batch axes; the construction runs on one vector and
  ``jnp.vectorize`` maps it over those axes, as JAX does.
* Matrices of a given order ``n`` (``hilbert``, ``invhilbert``, ``pascal``,
  ``invpascal``, ``helmert``, ``hadamard``, ``dft``), jitted with ``n``
  static.  They are floating point throughout: binomial coefficients come
  from ``lgamma``, so large orders are approximate (SciPy's ``exact=`` is
  not offered, as in JAX).
"""
import functools
import math
import operator

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.lax import conv_extras, lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax.dot import Precision
from refjax._src.numpy import (
    contractions, creation, editing, lax_numpy, padding, ufuncs, util,
)
from refjax._src.numpy.vectorize import vectorize

__all__ = [
    "block_diag", "circulant", "companion", "convolution_matrix", "dft",
    "fiedler", "fiedler_companion", "hadamard", "hankel", "helmert",
    "hilbert", "invhilbert", "invpascal", "leslie", "pascal", "toeplitz",
]


def _gufunc(signature):
    return functools.partial(vectorize, signature=signature)


def _shape(x):
    return core.get_aval(x).shape


# ---------------------------------------------------------------------------
# Toeplitz and Hankel (SPEC SLA-30)
# ---------------------------------------------------------------------------

def _sliding_windows(v, width):
    """Row ``i`` is ``v[i:i + width]``.  The windows are read by a
    convolution with a one-hot kernel (``conv_general_dilated_patches``),
    as JAX does, so a NaN or infinity in ``v`` spreads along its row the
    way it does in JAX (``inf * 0`` is NaN)."""
    (size,) = _shape(v)
    windows = conv_extras.conv_general_dilated_patches(
        lax_numpy.reshape(v, (1, size, 1)), (width,), (1,), "VALID",
        dimension_numbers=("NTC", "IOT", "NTC"), precision=Precision.HIGHEST)
    return windows[0]


def toeplitz(c, r=None):
    """The Toeplitz matrix ``A[i, j] = c[i - j]`` for ``i >= j``, else
    ``r[j - i]`` (``r[0]`` is ignored).  Not jitted in JAX, so text passes
    the array check and fails in ``asarray``.  ``r`` defaults to ``conj(c)``;
    a scalar counts as a length-1 vector; leading axes of ``c`` and ``r``
    broadcast as batch axes (SPEC SLA-30)."""
    if r is None:
        util.check_arraylike_unjitted("toeplitz", c)
        r = ufuncs.conjugate(creation.asarray(c))
    else:
        util.check_arraylike_unjitted("toeplitz", c, r)
    return _toeplitz(lax_numpy.atleast_1d(creation.asarray(c)),
                     lax_numpy.atleast_1d(creation.asarray(r)))


@_gufunc("(m),(n)->(m,n)")
def _toeplitz(c, r):
    (rows,), (cols,) = _shape(c), _shape(r)
    if rows == 0 or cols == 0:
        dtype = dtypes.promote_types(core.get_aval(c).dtype, core.get_aval(r).dtype)
        return creation.empty((rows, cols), dtype=dtype)
    # Reading c backwards then r, window i starts at diagonal -(rows-1-i).
    diagonals = lax_numpy.concatenate((lax_numpy.flip(c), r[1:]))
    return lax_numpy.flip(_sliding_windows(diagonals, cols), axis=0)


def hankel(c, r=None):
    """The Hankel matrix ``H[i, j] = v[i + j]`` with
    ``v = concatenate([c, r[1:]])`` (``r[0]`` is ignored; ``r`` defaults
    to zeros).  ``c`` and ``r`` must be at least 1-D; leading axes
    broadcast as batch axes (SPEC SLA-30)."""
    if r is None:
        util.check_arraylike_unjitted("hankel", c)
        c = creation.asarray(c)
        r = creation.zeros_like(c)
    else:
        util.check_arraylike_unjitted("hankel", c, r)
        c, r = creation.asarray(c), creation.asarray(r)
    if c.ndim == 0:
        raise ValueError("hankel: c must be at least 1-dimensional, got a scalar.")
    if r.ndim == 0:
        raise ValueError("hankel: r must be at least 1-dimensional, got a scalar.")
    # Equal ranks, so that vectorize needs no implicit rank promotion.
    if c.ndim < r.ndim:
        c = lax_shapes.expand_dims(c, tuple(range(r.ndim - c.ndim)))
    elif r.ndim < c.ndim:
        r = lax_shapes.expand_dims(r, tuple(range(c.ndim - r.ndim)))
    return _hankel(c, r)


@_gufunc("(m),(n)->(m,n)")
def _hankel(c, r):
    (rows,), (cols,) = _shape(c), _shape(r)
    if rows == 0 or cols == 0:
        dtype = dtypes.result_type(c, r)
        return creation.empty((rows, cols), dtype=dtype)
    return _sliding_windows(lax_numpy.concatenate((c, r[1:])), cols)


# ---------------------------------------------------------------------------
# Circulant, Leslie, companion and Fiedler matrices (SPEC SLA-31)
# ---------------------------------------------------------------------------

def circulant(c):
    """``A[i, j] = c[(i - j) mod n]``: each column is the previous one
    rotated down by one (SPEC SLA-31)."""
    util.check_arraylike_unjitted("circulant", c)
    return _circulant(lax_numpy.atleast_1d(creation.asarray(c)))


@_gufunc("(n)->(n,n)")
def _circulant(c):
    (n,) = _shape(c)
    offsets = (np.arange(n)[:, None] - np.arange(n)[None, :]) % n
    return c[offsets]


def leslie(f, s):
    """The Leslie matrix: fecundities ``f`` (length ``N >= 2``) in the first
    row, survival rates ``s`` (length ``N - 1``) on the first
    sub-diagonal, zeros elsewhere; ``f`` and ``s`` promote together
    (SPEC SLA-31)."""
    util.check_arraylike_unjitted("leslie", f, s)
    f, s = lax_numpy.atleast_1d(f), lax_numpy.atleast_1d(s)
    if f.shape[-1] < 2:
        raise ValueError("The length of f along the last axis must be at least 2; "
                         f"got shape {f.shape}.")
    if s.shape[-1] != f.shape[-1] - 1:
        raise ValueError(
            "Incorrect lengths for f and s. The length of s along the last axis "
            f"must be one less than the length of f; got f shape {f.shape} "
            f"and s shape {s.shape}.")
    return _leslie(f, s)


@_gufunc("(n),(m)->(n,n)")
def _leslie(f, s):
    f, s = util.promote_dtypes(f, s)
    return contractions.diag(s, k=-1).at[0].set(f)


def companion(a):
    """The companion matrix of the polynomial with coefficients ``a``
    (highest power first, ``N >= 2`` of them): first row ``-a[1:] / a[0]``,
    ones on the first sub-diagonal.  Inexact output; ``a[0] == 0`` is not
    checked and gives infinities or NaNs (SPEC SLA-31)."""
    a, = util.promote_args_inexact_unjitted("companion", a)
    a = lax_numpy.atleast_1d(a)
    if a.shape[-1] < 2:
        raise ValueError("The length of `a` along the last axis must be at least 2; "
                         f"got shape {a.shape}.")
    return _companion(a)


@_gufunc("(n)->(m,m)")
def _companion(a):
    first_row = ufuncs.negative(a[1:]) / a[0]
    m = _shape(a)[0] - 1
    ones_below = creation.eye(m, m, k=-1, dtype=core.get_aval(first_row).dtype)
    return ones_below.at[0].set(first_row)


def fiedler(a):
    """The symmetric Fiedler matrix ``F[i, j] = |a[i] - a[j]|`` (SPEC SLA-31)."""
    util.check_arraylike_unjitted("fiedler", a)
    a = lax_numpy.atleast_1d(a)
    return ufuncs.abs(ufuncs.subtract(a[..., :, None], a[..., None, :]))


def fiedler_companion(a):
    """The pentadiagonal Fiedler companion matrix of the polynomial with
    coefficients ``a`` (highest power first), whose eigenvalues are its
    roots; ``(N - 1, N - 1)``, empty for ``N == 1``; a zero-length ``a`` is
    a ValueError (SPEC SLA-31)."""
    a, = util.promote_args_inexact_unjitted("fiedler_companion", a)
    a = lax_numpy.atleast_1d(a)
    if a.shape[-1] == 0:
        raise ValueError(
            "fiedler_companion requires the last axis of 'a' to have nonzero "
            f"length, but got an array of shape {a.shape}.")
    return _fiedler_companion(a)


@_gufunc("(n)->(m,m)")
def _fiedler_companion(a):
    n = _shape(a)[0] - 1
    dtype = core.get_aval(a).dtype
    if n == 0:
        return creation.zeros((0, 0), dtype)
    a = a / a[0]
    if n == 1:
        return lax_numpy.reshape(ufuncs.negative(a[1:]), (1, 1))
    # SciPy's layout: -a[1], 1 down the first column; -a[2], -a[4], ... just
    # above the diagonal in the even rows, -a[3], -a[5], ... just below it,
    # and ones two places off the diagonal.
    out = creation.zeros((n, n), dtype)
    out = out.at[np.arange(3, n, 2), np.arange(1, n - 2, 2)].set(1)
    out = out.at[np.arange(2, n, 2), np.arange(1, n - 1, 2)].set(-a[3::2])
    out = out.at[np.arange(0, n - 2, 2), np.arange(2, n, 2)].set(1)
    out = out.at[np.arange(0, n - 1, 2), np.arange(1, n, 2)].set(-a[2::2])
    out = out.at[0, 0].set(-a[1])
    return out.at[1, 0].set(1)


# ---------------------------------------------------------------------------
# Convolution matrices and block diagonals (SPEC SLA-32)
# ---------------------------------------------------------------------------

def _trim(m, n, mode):
    """Rows of the full convolution dropped at the (start, end) for
    ``mode``."""
    if mode == "same":
        dropped = min(m, n) - 1
        return dropped // 2, dropped - dropped // 2
    if mode == "valid":
        return min(m, n) - 1, min(m, n) - 1
    return 0, 0


@jit(static_argnames=("n", "mode"))
def convolution_matrix(a, n, mode="full"):
    """The Toeplitz matrix ``A`` (``n`` columns) with
    ``A @ v == convolve(a, v, mode)``: ``m + n - 1`` rows for ``'full'``,
    ``max(m, n)`` for ``'same'``, ``max - min + 1`` for ``'valid'``;
    ``a`` may carry batch axes (SPEC SLA-32)."""
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    util.check_arraylike("convolution_matrix", a)
    a = creation.asarray(a)
    if a.ndim == 0:
        raise ValueError(
            "convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = a.shape[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {a.shape}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    # Full-convolution row i, column j holds a[i - j] (zero outside a).
    # The kept rows start at `start`; the first column is a (zero padded)
    # from there, the first row is a reversed, read backwards from a[start].
    start, end = _trim(m, n, mode)
    pad = [(0, 0)] * (a.ndim - 1) + [(0, n - 1)]
    full_length = m + n - 1
    column = padding.pad(a, pad)[..., start:full_length - end]
    reversed_a = padding.pad(lax_numpy.flip(a, axis=-1), pad)
    row = reversed_a[..., m - 1 - start:m - 1 - start + n]
    return toeplitz(column, row)


@jit
def block_diag(*arrs):
    """The arrays (each at most 2-D; scalars and vectors count as one row)
    on the diagonal of a zero matrix of their promoted dtype; no arguments
    give a ``(1, 0)`` float matrix (SPEC SLA-32)."""
    if len(arrs) == 0:
        arrs = (creation.zeros((1, 0)),)
    arrs = util.promote_dtypes(*arrs)
    too_big = [i for i, x in enumerate(arrs) if np.ndim(x) > 2]
    if too_big:
        raise ValueError("Arguments to jax.scipy.linalg.block_diag must have at "
                         f"most 2 dimensions, got {arrs[too_big[0]]} at argument "
                         f"{too_big[0]}.")
    blocks = [lax_numpy.atleast_2d(x) for x in arrs]
    dtype = core.get_aval(blocks[0]).dtype
    total_cols = sum(_shape(b)[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        cols = _shape(b)[1]
        config = ((0, 0, 0), (left, total_cols - left - cols, 0))
        rows.append(lax_shapes.pad(b, np.zeros((), dtype), config))
        left += cols
    return lax_numpy.concatenate(rows, axis=0)


# ---------------------------------------------------------------------------
# Hilbert and Pascal matrices (SPEC SLA-33)
# ---------------------------------------------------------------------------

def _binom(n, k):
    """``n choose k`` as ``exp(lgamma(n+1) - lgamma(n-k+1) - lgamma(k+1))``;
    NaN or 0 outside ``0 <= k <= n`` (the callers mask those entries)."""
    one = lax.full((), 1.0, core.get_aval(n).dtype)
    return lax.exp(lax.lgamma(n + one) - lax.lgamma(n - k + one) - lax.lgamma(k + one))


def _comb(n, k):
    """``_binom`` that is 0 unless ``0 <= k <= n``."""
    valid = (k <= n) & (n >= 0) & (k >= 0)
    safe_n = lax_numpy.where(valid, n, 0.0)
    safe_k = lax_numpy.where(valid, k, 0.0)
    return lax_numpy.where(valid, _binom(safe_n, safe_k), 0.0)


def _sign_of_parity(s):
    """``(-1) ** s`` for integer-valued float ``s``."""
    return 1.0 - 2.0 * ufuncs.remainder(s, 2.0)


def _check_fits_default_int(n):
    """JAX computes with ``n`` as a weakly typed integer: one beyond the
    default integer's range is its ``OverflowError`` before any shape is
    built (SPEC SLA-35)."""
    creation.asarray(n)


def _grid(n, dtype):
    a = creation.arange(n, dtype=dtype)
    return a[:, None], a[None, :]


@jit(static_argnames=("n",))
def hilbert(n):
    """The Hilbert matrix ``H[i, j] = 1 / (i + j + 1)`` in the default float
    dtype (SPEC SLA-33)."""
    a = lax_shapes.broadcasted_iota(dtypes.default_float_dtype(), (n, 1), 0)
    return 1 / (a + lax_numpy.matrix_transpose(a) + 1)


@jit(static_argnames=("n",))
def invhilbert(n):
    """The inverse of ``hilbert(n)`` from its closed form
    ``(-1)^(i+j) (i+j+1) C(n+i, n-j-1) C(n+j, n-i-1) C(i+j, i)^2``, in the
    default float dtype (SPEC SLA-33)."""
    _check_fits_default_int(n)
    i, j = _grid(n, dtypes.default_float_dtype())
    s = i + j
    return (_sign_of_parity(s) * (s + 1.0) * _comb(n + i, n - j - 1)
            * _comb(n + j, n - i - 1) * _comb(s, i) ** 2)


_KINDS = ["symmetric", "lower", "upper"]


@jit(static_argnames=("n", "kind"))
def pascal(n, kind=None):
    """The Pascal matrix: ``'lower'`` ``L[i, j] = C(i, j)``, ``'upper'``
    its transpose, ``'symmetric'`` (the default) ``L @ L.T``; always
    float32, as in JAX (SPEC SLA-33)."""
    kind = "symmetric" if kind is None else kind
    if kind not in _KINDS:
        # JAX 0.10.2's wording, "on of" included.
        raise ValueError(f"Expected kind to be on of: {_KINDS}; got {kind}")
    i, j = _grid(n, np.float32)
    lower = _binom(i, j)
    return _by_kind(lower, kind, upper_first=False)


@jit(static_argnames=("n", "kind"))
def invpascal(n, kind=None):
    """The inverse of ``pascal(n, kind)``: ``L^-1[i, j] = (-1)^(i-j) C(i, j)``,
    its transpose for ``'upper'`` and ``L^-T L^-1`` for ``'symmetric'``,
    in the default float dtype (SPEC SLA-33)."""
    kind = "symmetric" if kind is None else kind
    if kind not in _KINDS:
        raise ValueError(f"Expected kind to be one of: {_KINDS}; got {kind}")
    i, j = _grid(n, dtypes.default_float_dtype())
    lower = _sign_of_parity(i - j) * _binom(i, j)
    return _by_kind(lower, kind, upper_first=True)


def _by_kind(lower, kind, upper_first):
    """``lower``, its transpose, or their product (``upper @ lower`` when
    ``upper_first``, else ``lower @ upper``)."""
    upper = lax_numpy.matrix_transpose(lower)
    if kind == "lower":
        return lower
    if kind == "upper":
        return upper
    return contractions.dot(upper, lower) if upper_first else contractions.dot(lower, upper)


# ---------------------------------------------------------------------------
# Helmert, Hadamard and DFT matrices (SPEC SLA-34)
# ---------------------------------------------------------------------------

@jit(static_argnames=("n", "full"))
def helmert(n, full=False):
    """The ``(n - 1, n)`` Helmert contrasts: row ``k - 1`` is
    ``(1, ..., 1, -k, 0, ...) / sqrt(k (k + 1))`` with ``k`` ones; ``full``
    prepends the row ``1 / sqrt(n)``.  Default float dtype; ``n < 1`` is a
    ValueError (SPEC SLA-34)."""
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    i = creation.arange(n - 1)[:, None]
    j = creation.arange(n)[None, :]
    k = (i + 1).astype(dtypes.default_float_dtype())
    norm = ufuncs.sqrt(k * (k + 1))
    zero = creation.zeros_like(norm)
    out = lax_numpy.where(j <= i, 1.0 / norm,
                          lax_numpy.where(j == i + 1, -k / norm, zero))
    if full:
        first = creation.full((1, n), 1.0 / ufuncs.sqrt(n), dtype=out.dtype)
        out = lax_numpy.concatenate([first, out], axis=0)
    return out


@jit(static_argnames=("n", "dtype"))
def hadamard(n, dtype=int):
    """Sylvester's Hadamard matrix of order ``n`` (a positive power of 2):
    ``H_1 = [[1]]``, ``H_2m = [[H, H], [H, -H]]``; ``dtype`` defaults to
    the default int (SPEC SLA-34)."""
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    out = creation.ones((1, 1), dtype=dtype)
    for _ in range(int(math.log2(n))):
        negated = ufuncs.negative(out)
        # Refuse an unallocatable size before building it (SPEC FUZZ-3).
        core.check_array_size((2 * out.shape[0],) * 2, out.dtype.itemsize)
        out = editing.block([[out, out], [out, negated]])
    return out


_DFT_SCALES = (None, "sqrtn", "n")


@jit(static_argnames=("n", "scale", "dtype"))
def dft(n, scale=None, *, dtype=None):
    """The DFT matrix ``W[i, j] = exp(-2 pi 1j i j / n)``, divided by
    ``sqrt(n)`` for ``scale='sqrtn'`` or ``n`` for ``'n'``; ``dtype`` must
    be complex (default: the default complex dtype) (SPEC SLA-34)."""
    if scale not in _DFT_SCALES:
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    if dtype is None:
        dtype = dtypes.default_complex_dtype()
    else:
        dtype = dtypes.check_user_dtype(dtype, "dft")
        if not dtypes.issubdtype(dtype, np.complexfloating):
            raise ValueError(f"dtype must be a complex floating-point type; got {dtype}.")
    _check_fits_default_int(n)
    i, j = _grid(n, dtype)
    out = ufuncs.exp(-2j * np.pi * i * j / n)
    if scale == "sqrtn":
        return out / ufuncs.sqrt(n)
    if scale == "n":
        return out / n
    return out
