"""Index helpers and functional puts in ``jax.numpy`` (SPEC IDX-27, IDX-28).

Split from ``lax_numpy.py``, whose conventions hold here: each function is
composed of ``lax`` primitives as JAX composes it, wrapped in a ``jit`` of
the same name where JAX wraps it.
"""
import builtins
import math
import operator

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.lax import lax, shapes
from refjax._src.numpy import creation as creation
from refjax._src.numpy import ufuncs, util
from refjax._src.numpy.contractions import _index_grids, tril, triu
from refjax._src.numpy.lax_numpy import (
    _aval, _canonicalize_axis, _index_dtype_for_dim, astype, nonzero, ravel, reshape,
    tile, where,
)

__all__ = [
    "diag_indices", "diag_indices_from", "ix_", "place", "put",
    "put_along_axis", "ravel_multi_index", "tril_indices",
    "tril_indices_from", "triu_indices", "triu_indices_from", "unravel_index",
]


# ---------------------------------------------------------------------------
# Index helpers and functional puts (SPEC IDX-27, IDX-28)
# ---------------------------------------------------------------------------

def ix_(*args):
    """Open-mesh index arrays: the i-th 1-d argument reshaped to lie along
    axis i, so ``x[jnp.ix_(rows, cols)]`` picks a cross product."""
    util.check_arraylike("ix", *args)
    args = [creation.asarray(a) for a in args]
    out = []
    for i, a in enumerate(args):
        if _aval(a).ndim != 1:
            raise ValueError("Arguments to jax.numpy.ix_ must be 1-dimensional, got "
                             f"shape {_aval(a).shape}")
        if _aval(a).dtype == np.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not "
                                      "implemented")
        shape_ = [1] * len(args)
        shape_[i] = _aval(a).shape[0]
        if _aval(a).size == 0:
            # NumPy gives empty index arrays an integer dtype.
            out.append(lax.full(shape_, np.zeros((), np.intp)))
        else:
            out.append(shapes.broadcast_in_dim(a, tuple(shape_), (i,)))
    return tuple(out)


def unravel_index(indices, shape):
    """The multi-index of each flat index into ``shape`` (C order); out of
    range flat indices clamp to the first or last position."""
    idx = util.ensure_arraylike("unravel_index", indices)
    try:
        shape = list(shape)
    except TypeError:
        shape = [shape]
    if builtins.any(np.ndim(s) != 0 for s in shape):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    out = [0] * len(shape)
    for i, s in reversed(list(enumerate(shape))):
        idx, out[i] = ufuncs.divmod(idx, s)
    oob_pos = idx > 0
    if dtypes.issubdtype(_aval(idx).dtype, np.unsignedinteger):
        oob_neg = creation.asarray(False)
    else:
        oob_neg = idx < -1
    return tuple(where(oob_pos, s - 1, where(oob_neg, 0, i)) for s, i in zip(shape, out))


def ravel_multi_index(multi_index, dims, mode="raise", order="C", *, dtype=None):
    """Flat indices of the multi-index ``multi_index`` into ``dims``;
    ``mode`` 'raise' (concrete indices only), 'wrap', 'clip' or 'ignore'.

    The result has ``dtype``, by default the indices' promoted type (a
    Python int counting as weak), which must be an integer type able to
    hold ``prod(dims) - 1``, else ValueError (SPEC NP-217)."""
    if len(multi_index) != len(dims):
        raise ValueError(f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
    dims = tuple(core.concrete_or_error(operator.index, d, "in `dims` argument of "
                                        "ravel_multi_index().") for d in dims)
    util.check_arraylike("ravel_multi_index", *multi_index)
    arrays = [creation.asarray(i) for i in multi_index]
    dtype = _ravel_dtype(arrays, dims, dtype)
    for index in arrays:
        if mode == "raise":
            core.concrete_or_error(
                None, index, "The error occurred because ravel_multi_index was "
                "jit-compiled with mode='raise'. Use mode='wrap' or mode='clip' instead.")
        if not dtypes.issubdtype(_aval(index).dtype, np.integer):
            raise TypeError("only int indices permitted")
    if mode == "raise":
        if builtins.any(np.any((np.asarray(i) < 0) | (np.asarray(i) >= d))
                        for i, d in zip(arrays, dims)):
            raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        arrays = [ufuncs.clip(i, 0, d - 1) for i, d in zip(arrays, dims)]
    elif mode == "wrap":
        arrays = [i % d for i, d in zip(arrays, dims)]
    elif mode != "ignore":
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', "
                         "or 'ignore'.")
    if order == "F":
        strides = np.cumprod((1,) + dims[:-1])
    elif order == "C":
        strides = np.cumprod((1,) + dims[1:][::-1])[::-1]
    else:
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    result = creation.array(0, dtype=dtype)
    for i, s in zip(arrays, strides):
        result = result + astype(i, dtype) * int(s)
    return result


def _ravel_dtype(arrays, dims, dtype):
    if dtype is None:
        dtype = dtypes.result_type(int, *arrays)
    else:
        dtype = dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, "ravel_multi_index"))
    if not dtypes.issubdtype(dtype, np.integer):
        raise ValueError(f"dtype={dtype!r} is not an integer type.")
    if math.prod(dims) - 1 > np.iinfo(dtype).max:
        raise ValueError(
            f"jnp.ravel_multi_index: dtype={dtype!r} not large enough to hold the "
            f"flattened index for dims={dims}. Pass a larger integer dtype with "
            "dtype= (e.g. dtype=np.min_scalar_type(prod(dims))).")
    return dtype


def diag_indices(n, ndim=2):
    """``ndim`` copies of ``arange(n)``: the indices of a main diagonal."""
    n = core.concrete_or_error(operator.index, n, "'n' argument of jnp.diag_indices()")
    ndim = core.concrete_or_error(operator.index, ndim,
                                  "'ndim' argument of jnp.diag_indices()")
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    dt = _index_dtype_for_dim(n)
    if dt == np.int32:
        dt = dtypes.default_int_dtype()
    return (shapes.iota(dt, n),) * ndim


def diag_indices_from(arr):
    """``diag_indices`` for a square ``arr`` (every axis the same length)."""
    arr = util.ensure_arraylike("diag_indices_from", arr)
    sh = _aval(arr).shape
    if len(sh) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(sh)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(sh[0], ndim=len(sh))


def _triu_size(n, m, k):
    """How many entries of an (n, m) matrix lie on or above diagonal k."""
    if k < 0:
        return n * m - _triu_size(m, n, 1 - k)
    if k >= m:
        return 0
    mk = builtins.min(n, m - k)
    return mk * (mk + 1) // 2 + mk * (m - k - mk)


def _tri_args(fun, n, k, m):
    n = core.concrete_or_error(operator.index, n, f"n argument of jnp.{fun}")
    k = core.concrete_or_error(operator.index, k, f"k argument of jnp.{fun}")
    if m is not None:
        m = core.concrete_or_error(operator.index, m, f"m argument of jnp.{fun}")
    return n, k, n if m is None else m


def triu_indices(n, k=0, m=None):
    """Row and column indices of the upper triangle (from diagonal ``k``) of
    an (n, m) matrix: ``nonzero`` of ``triu(ones)`` with a static size."""
    n, k, m = _tri_args("triu_indices", n, k, m)
    return nonzero(triu(creation.ones((n, m)), k=k), size=_triu_size(n, m, k))


def tril_indices(n, k=0, m=None):
    """Row and column indices of the lower triangle (up to diagonal ``k``)."""
    n, k, m = _tri_args("triu_indices", n, k, m)   # JAX names triu here too
    return nonzero(tril(creation.ones((n, m)), k=k), size=_triu_size(m, n, -k))


def _shape_of_2d(fun, arr):
    if not hasattr(arr, "shape"):
        arr = util.ensure_arraylike(fun, arr)
    if len(arr.shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return arr.shape


def triu_indices_from(arr, k=0):
    """``triu_indices`` for the shape of the 2-d ``arr``."""
    n, m = _shape_of_2d("triu_indices_from", arr)
    return triu_indices(n, k=k, m=m)


def tril_indices_from(arr, k=0):
    """``tril_indices`` for the shape of the 2-d ``arr``."""
    n, m = _shape_of_2d("tril_indices_from", arr)
    return tril_indices(n, k=k, m=m)


def _tile_to_size(arr, size):
    """The 1-d ``arr`` repeated and cut to exactly ``size`` entries."""
    n = _aval(arr).size
    if n < size:
        arr = tile(arr, int(np.ceil(size / n)))
    return arr[:size] if _aval(arr).size > size else arr


def put(a, ind, v, mode=None, *, inplace=True):
    """``a`` with the flat positions ``ind`` set to ``v`` (repeated to fit),
    returned as a new array; ``inplace=True`` (NumPy's only behaviour)
    raises (SPEC IDX-28).  ``mode``: None drops out-of-range indices,
    'clip' clamps, 'wrap' wraps, 'raise' is not supported."""
    if inplace:
        raise ValueError(
            "jax.numpy.put cannot modify arrays in-place, because JAX arrays are "
            "immutable. Pass inplace=False to instead return an updated array.")
    arr, ind, _ = util.ensure_arraylike("put", a, ind, v)
    ind = ravel(ind)
    values = ravel(v)
    n = _aval(arr).size
    if not n or not _aval(ind).size or not _aval(values).size:
        return arr
    values = _tile_to_size(values, _aval(ind).size)
    if mode is None:
        scatter_mode = "drop"
    elif mode == "clip":
        ind, scatter_mode = ufuncs.clip(ind, 0, n - 1), "promise_in_bounds"
    elif mode == "wrap":
        ind, scatter_mode = ind % n, "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    return arr.at[unravel_index(ind, _aval(arr).shape)].set(values, mode=scatter_mode)


def place(arr, mask, vals, *, inplace=True):
    """``arr`` with the entries where ``mask`` holds replaced, in order, by
    ``vals`` (repeated to fit), as a new array (SPEC IDX-28)."""
    data, mask, vals = util.ensure_arraylike("place", arr, mask, vals)
    vals = ravel(vals)
    if inplace:
        raise ValueError(
            "jax.numpy.place cannot modify arrays in-place, because JAX arrays are "
            "immutable. Pass inplace=False to instead return an updated array.")
    if _aval(data).size != _aval(mask).size:
        raise ValueError("place: arr and mask must be the same size")
    if not _aval(vals).size:
        raise ValueError("Cannot place values from an empty array")
    if not _aval(data).size:
        return data
    n = _aval(mask).size
    positions = where(ravel(mask), size=n, fill_value=n)[0]
    vals = _tile_to_size(vals, _aval(positions).shape[0])
    return reshape(ravel(data).at[positions].set(vals, mode="drop"), _aval(data).shape)


@jit(static_argnames=("axis", "inplace", "mode"))
def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """The functional form of ``np.put_along_axis``: ``values`` written where
    ``take_along_axis`` would read (SPEC IDX-28)."""
    if inplace:
        raise ValueError(
            "jax.numpy.put_along_axis cannot modify arrays in-place, because JAX "
            "arrays are immutable. Pass inplace=False to instead return an updated "
            "array.")
    arr, indices, values = util.ensure_arraylike("put_along_axis", arr, indices, values)
    original_shape, original_axis = _aval(arr).shape, axis
    if axis is None:
        arr, axis = ravel(arr), 0
    if _aval(arr).ndim != _aval(indices).ndim:
        raise ValueError("put_along_axis arguments 'arr' and 'indices' must have same "
                         f"ndim. Got arr.ndim={_aval(arr).ndim} and "
                         f"indices.ndim={_aval(indices).ndim}.")
    try:
        values = util._broadcast_to(values, _aval(indices).shape)
    except ValueError:
        raise ValueError("put_along_axis argument 'values' must be broadcastable to "
                         f"'indices'. Got values.shape={_aval(values).shape} and "
                         f"indices.shape={_aval(indices).shape}.") from None
    axis = _canonicalize_axis(axis, _aval(arr).ndim)
    idx = list(_index_grids(_aval(arr).shape, sparse=True))
    idx[axis] = indices
    result = arr.at[tuple(idx)].set(values, mode=mode)
    return reshape(result, original_shape) if original_axis is None else result
