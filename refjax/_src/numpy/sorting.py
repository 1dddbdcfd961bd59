"""Sorting and searching in ``jax.numpy`` (SPEC NP-48 .. NP-51).

Split from ``lax_numpy.py``, whose conventions hold here: each function is
composed of ``lax`` primitives as JAX composes it, wrapped in a ``jit`` of
the same name where JAX wraps it.
"""
import collections
import math
import operator

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.lax import lax
from refjax._src.lax import reductions as lax_reductions
from refjax._src.lax import shapes
from refjax._src.lax import sorting as lax_sorting
from refjax._src.lax.sorting import top_k
from refjax._src.numpy import creation as creation
from refjax._src.numpy import lax_numpy, reductions, ufuncs, util
from refjax._src.numpy.lax_numpy import (
    _aval, _broadcast_to, _canonicalize_axis, _ensure, _zero, append, astype, moveaxis,
    nonzero, ravel, reshape, swapaxes, where,
)
from refjax._src.numpy.signal import diff

__all__ = [
    "compress",
    "argpartition", "argsort", "lexsort", "partition", "searchsorted", "sort",
    "unique", "unique_all", "unique_counts", "unique_inverse",
    "unique_values",
]


# ---------------------------------------------------------------------------
# Sorting and searching (SPEC NP-48 .. NP-51)
# ---------------------------------------------------------------------------

def _check_sort_args(fun_name, kind, order):
    if kind is not None:
        raise TypeError(f"'kind' argument to {fun_name} is not supported. Use "
                        "stable=True or stable=False to specify sort stability.")
    if order is not None:
        raise TypeError(f"'order' argument to {fun_name} is not supported.")


@jit(static_argnames=("axis", "kind", "order", "stable", "descending"))
def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """Sorted copy of ``a`` along ``axis`` (flattened when None); NaNs last,
    ``descending`` reverses the ascending result (SPEC NP-48)."""
    arr, = _ensure("sort", a)
    _check_sort_args("sort", kind, order)
    if axis is None:
        arr, axis = ravel(arr), 0
    dim = _canonicalize_axis(axis, _aval(arr).ndim)
    result = lax_sorting.sort(arr, dim, is_stable=stable)
    return shapes.rev(result, (dim,)) if descending else result


@jit(static_argnames=("axis", "kind", "order", "stable", "descending", "dtype"))
def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False,
            dtype=None):
    """Indices that sort ``a``: an ``iota`` sorted along with it.  A stable
    descending sort keeps equal elements in index order (SPEC NP-48)."""
    arr, = _ensure("argsort", a)
    _check_sort_args("argsort", kind, order)
    if axis is None:
        arr, axis = ravel(arr), 0
    dim = _canonicalize_axis(axis, _aval(arr).ndim)
    idx_dtype = (dtypes.check_user_dtype(dtype, "argsort") if dtype is not None
                 else dtypes.default_int_dtype())
    iota = shapes.broadcasted_iota(idx_dtype, _aval(arr).shape, dim)
    if descending and stable:
        arr, iota = shapes.rev(arr, (dim,)), shapes.rev(iota, (dim,))
    _, indices = lax_sorting.sort_key_val(arr, iota, dim, is_stable=stable)
    return shapes.rev(indices, (dim,)) if descending else indices


@jit(static_argnames=("axis",))
def lexsort(keys, axis=-1):
    """Indices sorting by the last key first, then the others (SPEC NP-48)."""
    keys = tuple(keys)
    util.check_arraylike("lexsort", *keys)
    if len(keys) == 0:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if len({_aval(k).shape for k in keys}) > 1:
        raise ValueError("all keys need to be the same shape")
    sh = _aval(keys[0]).shape
    if len(sh) == 0:
        return creation.zeros((), dtypes.default_int_dtype())
    axis = _canonicalize_axis(axis, len(sh))
    iota = shapes.broadcasted_iota(dtypes.default_int_dtype(), sh, axis)
    return lax_sorting.sort((*keys[::-1], iota), axis, num_keys=len(keys))[-1]


def _partition_setup(fun_name, a, kth, axis):
    arr, = _ensure("partition", a)
    if dtypes.issubdtype(_aval(arr).dtype, np.complexfloating):
        raise NotImplementedError(f"jnp.{fun_name} for complex dtype is not implemented.")
    axis = _canonicalize_axis(axis, _aval(arr).ndim)
    kth = _canonicalize_axis(kth, _aval(arr).shape[axis])
    return swapaxes(arr, axis, -1), kth, axis


def _smallest(arr, k):
    """``top_k`` of the negated array: the k smallest, smallest first.
    Unsigned values are shifted by one so that 0 negates correctly."""
    if dtypes.issubdtype(_aval(arr).dtype, np.unsignedinteger):
        one = np.array(1, _aval(arr).dtype)
        vals, idx = top_k(lax.neg(lax.add(arr, one)), k)
        return lax.sub(lax.neg(vals), one), idx
    vals, idx = top_k(lax.neg(arr), k)
    return lax.neg(vals), idx


@jit(static_argnames=("kth", "axis"))
def partition(a, kth, axis=-1):
    """The ``kth`` element in its sorted place, smaller ones before it and
    larger ones after (each side in ``top_k`` order) (SPEC NP-49)."""
    arr, kth, axis = _partition_setup("partition", a, kth, axis)
    n = _aval(arr).shape[-1]
    bottom, _ = _smallest(arr, kth + 1)
    top = top_k(arr, n - kth - 1)[0]
    out = shapes.concatenate([bottom, top], _aval(arr).ndim - 1)
    return swapaxes(out, -1, axis)


@jit(static_argnames=("kth", "axis"))
def argpartition(a, kth, axis=-1):
    """Indices partitioning ``a`` about its ``kth`` element: those of the
    ``kth + 1`` smallest, then the rest in index order (SPEC NP-49)."""
    arr, kth, axis = _partition_setup("argpartition", a, kth, axis)
    sh = _aval(arr).shape
    _, bottom = _smallest(arr, kth + 1)
    # The remaining positions, in index order: top_k of a 0/1 proxy that is 0
    # at the positions already taken.
    full = sh[:-1] + (kth + 1, sh[-1])
    hit = lax.eq(shapes.broadcast_in_dim(bottom, full, tuple(range(len(sh)))),
                 shapes.broadcasted_iota(np.int32, full, len(sh)))
    taken = lax_reductions.reduce_or(hit, (len(sh) - 1,))
    proxy = lax.select(taken, creation.zeros(sh, np.float32), creation.ones(sh, np.float32))
    top = top_k(proxy, sh[-1] - kth - 1)[1]
    out = shapes.concatenate([bottom, top], len(sh) - 1)
    return swapaxes(out, -1, axis)


def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    """Insertion points of ``v`` in the sorted 1-d ``a`` (SPEC NP-50).

    Every method gives the same answer; refjax counts with one comparison
    of all pairs (JAX's 'compare_all'), in a total order where -0.0 == 0.0
    and NaNs sort last.
    """
    args = (a, v) if sorter is None else (a, v, sorter)
    util.check_arraylike("searchsorted", *args)   # before side and method (NP-72)
    if side not in ("left", "right"):
        raise ValueError(f"invalid argument side={side!r}, expected 'left' or 'right'")
    methods = ["compare_all", "scan", "scan_unrolled", "sort"]
    if method not in methods:
        raise ValueError(f"invalid argument method={method!r}, expected one of {methods}")
    return _searchsorted(*args, side=side, method=method)


def _searchsorted_body(a, v, sorter=None, *, side, method):
    a, v = _ensure("searchsorted", a, v)
    if _aval(a).ndim != 1:
        raise ValueError("a should be 1-dimensional")
    a, v = util.promote_dtypes(a, v)
    if sorter is not None:
        a = a[sorter]
    return _count_before(a, v, side)


_searchsorted_body.__name__ = "searchsorted"   # the name JAX's jit shows
_searchsorted = jit(_searchsorted_body, static_argnames=("side", "method"))


def _canonical_floats(x):
    """-0.0 as 0.0 and every NaN alike, for comparisons in a total order."""
    if not dtypes.issubdtype(_aval(x).dtype, np.floating):
        return x
    zero = _zero(x)
    x = lax.select(lax.eq(x, zero), _broadcast_to(zero, _aval(x).shape), x)
    return lax.select(lax.ne(x, x), _broadcast_to(np.array(np.nan, _aval(x).dtype),
                                                  _aval(x).shape), x)


def _count_before(a, v, side):
    """How many elements of ``a`` are < v ('left') or <= v ('right')."""
    a, v = _canonical_floats(a), _canonical_floats(v)
    n = _aval(a).shape[0]
    vsh = _aval(v).shape
    full = (n,) + vsh
    ab = shapes.broadcast_in_dim(a, full, (0,))
    vb = shapes.broadcast_in_dim(v, full, tuple(range(1, len(full))))
    less = _total_less(ab, vb, side == "right")
    index_dtype = _index_dtype(n)
    return lax_reductions.reduce_sum(lax.convert_element_type(less, index_dtype), (0,))


def _index_dtype(n):
    """int32 insertion points, or int64 when ``a`` has more elements than
    int32 holds: an explicit request, which with x64 off warns (or raises)
    as any other; the count ``n`` must then fit the dtype granted, else
    NumPy's OverflowError, as in JAX (SPEC NP-218)."""
    if n <= np.iinfo(np.int32).max:
        return np.dtype(np.int32)
    dt = dtypes.check_user_dtype(np.int64, "searchsorted")
    if n > np.iinfo(dt).max:
        raise OverflowError(f"Python integer {n} out of bounds for {dt}")
    return dt


def _total_less(x, y, or_equal):
    """``x < y`` (or ``<=``) with NaN above everything (lexicographic for complex)."""
    if dtypes.issubdtype(_aval(x).dtype, np.complexfloating):
        xr, yr = lax.real(x), lax.real(y)
        tie = lax.eq(xr, yr)
        return lax.bitwise_or(lax.lt(xr, yr), lax.bitwise_and(
            tie, _total_less(lax.imag(x), lax.imag(y), or_equal)))
    base = lax.le(x, y) if or_equal else lax.lt(x, y)
    if not dtypes.issubdtype(_aval(x).dtype, np.floating):
        return base
    y_nan = lax.ne(y, y)
    nan_rule = y_nan if or_equal else lax.bitwise_and(y_nan, lax.eq(x, x))
    return lax.bitwise_or(base, nan_rule)


# -- unique -------------------------------------------------------------------

UniqueAllResult = collections.namedtuple(
    "_UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = collections.namedtuple("_UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = collections.namedtuple(
    "_UniqueInverseResult", ["values", "inverse_indices"])


_UNIQUE_SIZE_HINT = ("To make jnp.unique() compatible with JIT and other transforms, "
                     "you can specify a concrete value for the size argument, which "
                     "will determine the output size.")


def unique(ar, return_index=False, return_inverse=False, return_counts=False,
           axis=None, *, equal_nan=True, size=None, fill_value=None, sorted=True):
    """Sorted unique elements (or slices along ``axis``) (SPEC NP-51, IDX-26).

    A stable lexicographic sort, then a mask of the entries that differ
    from their predecessor (NaNs are equal when ``equal_nan``); the values
    are gathered at the mask's ``nonzero`` positions.  The input must be
    concrete unless ``size`` is given; padding repeats the smallest value
    (or ``fill_value``) and its index, with count 0.
    """
    arr = util.ensure_arraylike("unique", ar)
    if size is None:
        arr = core.concrete_or_error(
            None, arr, "The error arose for the first argument of jnp.unique(). "
            + _UNIQUE_SIZE_HINT)
    else:
        size = core.concrete_or_error(
            operator.index, size, "The error arose for the size argument of "
            "jnp.unique(). " + _UNIQUE_SIZE_HINT)
    arr_shape = _aval(arr).shape
    if axis is None:
        axis_int, arr = 0, ravel(arr)
    else:
        axis_int = _canonicalize_axis(axis, _aval(arr).ndim)
    result = _unique(arr, axis_int, return_index, return_inverse, return_counts,
                     equal_nan=equal_nan, size=size, fill_value=fill_value)
    if return_inverse and axis is None:
        # NumPy 2: the inverse of a flattened unique has the input's shape.
        i = 2 if return_index else 1
        result = (*result[:i], reshape(result[i], arr_shape), *result[i + 1:])
    return result


@jit(static_argnames=("axis", "equal_nan"))
def _unique_sorted_mask(ar, axis, equal_nan):
    """The entries along ``axis`` sorted (lexicographically), the mask of
    those that start a new value, and the sorting permutation."""
    aux = moveaxis(ar, axis, 0)
    if dtypes.issubdtype(_aval(aux).dtype, np.complexfloating):
        # Any NaN component makes one NaN value, as in NumPy.
        aux = where(ufuncs.isnan(aux), util._const(aux, np.nan), aux)
    size, *rest = _aval(aux).shape
    if math.prod(rest) == 0:
        size, perm = 1, creation.zeros(1, dtype=dtypes.default_int_dtype())
    else:
        perm = lexsort(reshape(aux, (size, math.prod(rest))).T[::-1])
    aux = aux[perm]
    if not _aval(aux).size:
        return aux, creation.zeros(size, dtype=bool), perm
    if dtypes.issubdtype(_aval(aux).dtype, np.inexact) and equal_nan:
        def neq(x, y):
            return lax.ne(x, y) & ~(ufuncs.isnan(x) & ufuncs.isnan(y))
    else:
        neq = lax.ne
    first = creation.ones(size, dtype=bool)   # (made first, as JAX orders it)
    differs = reductions.any(neq(aux[1:], aux[:-1]), tuple(range(1, _aval(aux).ndim)))
    return aux, first.at[1:].set(differs), perm


def _unique(ar, axis, return_index=False, return_inverse=False, return_counts=False,
            equal_nan=True, size=None, fill_value=None):
    axis = _canonicalize_axis(axis, _aval(ar).ndim)
    if _aval(ar).shape[axis] == 0 and size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")
    aux, mask, perm = _unique_sorted_mask(ar, axis, equal_nan)
    if size is None:
        ind = core.concrete_or_error(None, mask, "The error arose in jnp.unique(). "
                                     + _UNIQUE_SIZE_HINT)
    else:
        ind = nonzero(mask, size=size)[0]
    result = aux[ind] if _aval(aux).size else aux
    if size is not None and fill_value is not None:
        fill = astype(creation.asarray(fill_value), _aval(result).dtype)
        if _aval(result).shape[0]:
            valid = shapes.expand_dims(creation.arange(size) < reductions.sum(mask),
                                    tuple(range(1, _aval(result).ndim)))
            result = where(valid, result, fill)
        else:
            # jnp's full_like: an array fill value broadcasts (SPEC NP-74).
            result = creation.full_like(result, fill, shape=(size, *_aval(result).shape[1:]))
    out = [moveaxis(result, 0, axis)]
    int_ = dtypes.default_int_dtype()
    if return_index:
        out.append(perm[ind] if _aval(aux).size else perm)
    if return_inverse:
        if _aval(aux).size:
            imask = reductions.cumsum(mask) - 1
            out.append(creation.zeros(_aval(mask).shape, dtype=int_).at[perm].set(imask))
        else:
            out.append(creation.zeros(_aval(ar).shape[axis], dtype=int_))
    if return_counts:
        out.append(_unique_counts(mask, size, _aval(aux).size, _aval(ar).shape[axis]))
    return out[0] if len(out) == 1 else tuple(out)


def _unique_counts(mask, size, aux_size, axis_size):
    """Run lengths: differences of the run starts (and the total length)."""
    int_ = dtypes.default_int_dtype()
    if aux_size:
        n = _aval(mask).size
        if size is None:
            idx = append(nonzero(mask)[0], n)
        else:
            idx = nonzero(mask, size=size + 1)[0]
            idx = idx.at[1:].set(where(idx[1:], idx[1:], n))
        return diff(idx)
    if axis_size:
        return creation.full((1,), axis_size, dtype=int_)
    return creation.empty(0, dtype=int_)


def unique_values(x, /, *, size=None, fill_value=None):
    """Array-API: the sorted unique values of ``x``."""
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def unique_counts(x, /, *, size=None, fill_value=None):
    """Array-API: unique values and their counts."""
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False,
                                      size=size, fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    """Array-API: unique values and the inverse map (shaped like ``x``)."""
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False,
                                       size=size, fill_value=fill_value))


def unique_all(x, /, *, size=None, fill_value=None):
    """Array-API: values, first indices, inverse map and counts."""
    return UniqueAllResult(*unique(x, return_index=True, return_inverse=True,
                                   return_counts=True, equal_nan=False, size=size,
                                   fill_value=fill_value))


# -- compress: a selection whose sized form is a stable argsort (SPEC NP-53) --

_COMPRESS_SIZE_ERR = ("size must be positive and not greater than the size of the "
                      "array axis; got size={} for a.shape[axis]={}")


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """Entries of ``a`` along ``axis`` where ``condition`` is true (SPEC NP-53).

    ``condition`` must be concrete (its true count sets the output shape),
    unless ``size`` fixes that shape: then the selected entries come first
    (a stable descending ``argsort`` of the condition) and the rest are
    ``fill_value``.
    """
    condition, arr, fill_value = util.ensure_arraylike("compress", condition, a,
                                                       fill_value)
    condition = lax_numpy.astype(condition, bool)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    if lax_numpy._aval(condition).ndim != 1:
        raise ValueError("condition must be a 1D array")
    if axis is None:
        axis, arr = 0, lax_numpy.ravel(arr)
    else:
        arr = lax_numpy.moveaxis(arr, axis, 0)
    n = lax_numpy._aval(arr).shape[0]
    condition, extra = condition[:n], condition[n:]
    arr = arr[:lax_numpy._aval(condition).shape[0]]
    if size is None:
        if reductions.any(extra):
            raise ValueError("condition contains entries that are out of bounds")
        result = arr[condition]
    elif not 0 <= size <= lax_numpy._aval(arr).shape[0]:
        raise ValueError(_COMPRESS_SIZE_ERR.format(size, lax_numpy._aval(arr).shape[0]))
    else:
        mask = lax_numpy.expand_dims(condition, tuple(range(1, lax_numpy._aval(arr).ndim)))
        arr = lax_numpy.where(mask, arr, creation.array(fill_value, dtype=lax_numpy._aval(arr).dtype))
        result = arr[argsort(condition, stable=True, descending=True)][:size]
    return lax_numpy.moveaxis(result, 0, axis)
