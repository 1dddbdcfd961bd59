"""Building and editing arrays in ``jax.numpy``: ``insert``, ``delete``,
``block``, ``resize``, ``extract``, ``fill_diagonal``, ``trim_zeros``,
``sort_complex`` and ``vander`` (SPEC NPE-12 .. NPE-17).

Arrays are immutable, so every "edit" builds a new array: insertions and
deletions are gathers and scatters at computed positions; a result whose
length depends on the values (boolean masks, ``trim_zeros``) needs those
values to be concrete.
"""
import builtins
import collections.abc
import math
import operator

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.array import Array
from refjax._src.lax import lax, shapes
from refjax._src.lax import sorting as lax_sorting
from refjax._src.numpy import creation, reductions, ufuncs, util
from refjax._src.numpy.index_tricks import _tile_to_size, diag_indices
from refjax._src.numpy.lax_numpy import (
    _aval, _canonicalize_axis, broadcast_shapes, concatenate, expand_dims, moveaxis,
    ravel, reshape, tile, where,
)
from refjax._src.numpy.sorting import argsort, compress, sort

__all__ = ["insert", "delete", "block", "resize", "extract", "fill_diagonal",
           "trim_zeros", "sort_complex", "vander"]


# -- insert and delete (SPEC NPE-12) ------------------------------------------

def insert(arr, obj, values, axis=None):
    """``values`` inserted before the positions ``obj`` (an int, a 1-d
    integer array or a slice) along ``axis`` (the flattened array when
    None), cast to ``arr``'s dtype (SPEC NPE-12).  Positions may be traced:
    the output length depends only on their count."""
    a, _, values_arr = util.ensure_arraylike(
        "insert", arr, 0 if isinstance(obj, slice) else obj, values)
    if axis is None:
        a, axis = ravel(a), 0
    axis = core.concrete_or_error(None, axis, "axis argument of jnp.insert()")
    axis = _canonicalize_axis(axis, _aval(a).ndim)
    n_input = _aval(a).shape[axis]
    if isinstance(obj, slice):
        indices = creation.arange(*obj.indices(n_input))
    else:
        indices = creation.asarray(obj)
    indices = _insert_indices(obj, indices)
    values_arr = creation.array(values_arr, ndmin=_aval(a).ndim, dtype=_aval(a).dtype,
                                copy=False)
    if _aval(indices).size == 1:
        # One position: every value goes there (a scalar position inserts
        # ``values`` as one slice along ``axis``).
        index = ravel(indices)[0]
        if _aval(indices).ndim == 0:
            values_arr = moveaxis(values_arr, 0, axis)
        indices = creation.full(_aval(values_arr).shape[axis], index)
    n_insert = broadcast_shapes(_aval(indices).shape, (_aval(values_arr).shape[axis],))[0]
    out_shape = list(_aval(a).shape)
    out_shape[axis] += n_insert
    out = creation.zeros_like(a, shape=tuple(out_shape))
    indices = ufuncs.clip(where(indices < 0, indices + n_input, indices), 0, n_input)
    # Each inserted value lands at its position plus the number of values
    # inserted before it; the old entries fill the remaining slots in order.
    values_at = indices.at[argsort(indices)].add(
        creation.arange(n_insert, dtype=_aval(indices).dtype))
    old_slots = creation.ones(n_input + n_insert, dtype=bool).at[values_at].set(False)
    old_at = where(old_slots, size=n_input)[0]
    lead = (slice(None),) * axis
    out = out.at[lead + (values_at,)].set(values_arr)
    return out.at[lead + (old_at,)].set(a)


def _insert_indices(obj, indices):
    if _aval(indices).ndim > 1:
        raise ValueError("jnp.insert(): obj must be a slice, a one-dimensional "
                         f"array, or a scalar; got {obj}")
    if not np.issubdtype(_aval(indices).dtype, np.integer):
        if _aval(indices).size == 0 and not isinstance(obj, Array):
            return indices.astype(int)
        raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
    return indices


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    """``arr`` without the entries ``obj`` (an int, a slice, integer indices
    or a boolean mask) along ``axis`` (flattened when None) (SPEC NPE-12).

    Traced indices need ``assume_unique_indices=True`` (each kept position
    is then computed from the sorted deleted ones); otherwise ``obj`` must
    be concrete.
    """
    a = util.ensure_arraylike("delete", arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _canonicalize_axis(axis, _aval(a).ndim)
    n = _aval(a).shape[axis]
    lead = (slice(None),) * axis
    try:
        index = operator.index(obj)
    except TypeError:
        pass
    else:
        index = _canonicalize_axis(index, n)
        return concatenate([a[lead + (slice(0, index),)],
                            a[lead + (slice(index + 1, None),)]], axis=axis)
    if isinstance(obj, slice):
        obj = creation.arange(n)[obj]
        assume_unique_indices = True
    util.check_arraylike("delete", a, obj)
    if hasattr(obj, "__jax_array__"):
        obj = obj.__jax_array__()
    if dtypes.issubdtype(_aval(obj).dtype, np.integer) and assume_unique_indices:
        return a[lead + (_kept_positions(creation.asarray(obj), n),)]
    host = core.concrete_or_error(np.asarray, obj, "'obj' array argument of jnp.delete()")
    return a[lead + (_kept_mask(host, n),)]


def _kept_positions(obj, n):
    """The positions left when the unique indices ``obj`` are removed: the
    k-th kept position is k plus the number of removed ones at or before it."""
    removed = ravel(obj)
    removed = ufuncs.clip(where(removed < 0, removed + n, removed), 0, n)
    removed = sort(removed)
    removed = removed - creation.arange(_aval(removed).size, dtype=_aval(removed).dtype)
    kept = creation.arange(n - _aval(removed).size, dtype=_aval(removed).dtype)
    return kept + reductions.sum(kept[None, :] >= removed[:, None], 0,
                                 dtype=_aval(kept).dtype)


def _kept_mask(host, n):
    """The mask of kept positions for concrete integer indices or a mask."""
    if np.issubdtype(host.dtype, np.integer):
        mask = np.ones(n, dtype=bool)
        mask[host] = False
        return mask
    if host.dtype == bool:
        if host.shape != (n,):
            raise ValueError("np.delete(arr, obj): for boolean indices, obj must be "
                             "one-dimensional with length matching specified axis.")
        return ~host
    raise ValueError(f"np.delete(arr, obj): got obj.dtype={host.dtype}; must be "
                     "integer or bool.")


# -- block and resize (SPEC NPE-13) --------------------------------------------

def _block(xs):
    """The assembled array and the nesting depth of ``xs``."""
    if isinstance(xs, tuple):
        raise ValueError(f"jax.numpy.block does not allow tuples, got {xs}")
    if not isinstance(xs, list):
        return creation.asarray(xs), 1
    if len(xs) == 0:
        raise ValueError("jax.numpy.block does not allow empty list arguments")
    parts, depths = zip(*[_block(x) for x in xs])
    if builtins.any(d != depths[0] for d in depths[1:]):
        raise ValueError("Mismatched list depths in jax.numpy.block")
    rank = builtins.max(depths[0], builtins.max(np.ndim(x) for x in parts))
    parts = tuple(_atleast_nd(x, rank) for x in parts)
    # The innermost lists join along the last axis, the outer ones before it.
    return concatenate(parts, axis=-depths[0]), depths[0] + 1


def _atleast_nd(x, n):
    m = np.ndim(x)
    return shapes.broadcast(x, (1,) * (n - m)) if m < n else creation.asarray(x)


@jit
def block(arrays):
    """An array assembled from nested lists of blocks: the innermost lists
    are concatenated along the last axis, each outer level along the axis
    before; blocks gain leading axes to a common rank (SPEC NPE-13)."""
    return _block(arrays)[0]


@jit(static_argnames=("new_shape",))
def resize(a, new_shape):
    """``a`` flattened, repeated cyclically and cut to ``new_shape``
    (zeros when either is empty) (SPEC NPE-13)."""
    util.check_arraylike("resize", a)
    new_shape = _index_tuple(new_shape)
    if builtins.any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    arr = ravel(a)
    new_size = math.prod(new_shape)
    if _aval(arr).size == 0 or new_size == 0:
        return creation.zeros_like(arr, shape=new_shape)
    repeats = -(-new_size // _aval(arr).size)
    return reshape(tile(arr, repeats)[:new_size], new_shape)


def _index_tuple(x):
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(operator.index(d) for d in x)


# -- extract and fill_diagonal (SPEC NPE-14) ---------------------------------

def extract(condition, arr, *, size=None, fill_value=0):
    """The elements of the flattened ``arr`` where the flattened
    ``condition`` is true: ``compress`` (``size`` pads with ``fill_value``)
    (SPEC NPE-14)."""
    util.check_arraylike("extract", condition, arr, fill_value)
    return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """A copy of ``a`` (all axes of equal length, or 2-d) with its main
    diagonal set to ``val`` (a scalar, or values repeated cyclically).
    ``inplace=False`` is required and ``wrap`` unsupported (SPEC NPE-14)."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    a, val = util.ensure_arraylike("fill_diagonal", a, val)
    shape = _aval(a).shape
    if len(shape) < 2:
        raise ValueError("array must be at least 2-d")
    if len(shape) > 2 and not builtins.all(d == shape[0] for d in shape[1:]):
        raise ValueError("All dimensions of input must be of equal length")
    n = builtins.min(shape)
    idx = diag_indices(n, len(shape))
    return a.at[idx].set(val if _aval(val).ndim == 0 else _tile_to_size(ravel(val), n))


# -- trim_zeros, sort_complex and vander (SPEC NPE-15 .. NPE-17) -------------

def trim_zeros(filt, trim="fb", axis=None):
    """``filt`` without its leading ('f') and/or trailing ('b') all-zero
    slices along each axis in ``axis`` (default all); ``filt`` must be
    concrete (SPEC NPE-15)."""
    filt = util.ensure_arraylike("trim_zeros", filt)
    core.concrete_or_error(None, filt, "Error arose in the `filt` argument of trim_zeros()")
    ndim = _aval(filt).ndim
    if axis is None:
        axes = set(builtins.range(ndim))
    else:
        # A sequence lists axes; anything else is one axis (a dict is an error).
        listed = axis if isinstance(axis, collections.abc.Sequence) else (axis,)
        axes = {_canonicalize_axis(i, ndim) for i in listed}
    if not axes or ("f" not in trim.lower() and "b" not in trim.lower()):
        return filt             # (a 0-d array never reads ``trim``)
    trim = trim.lower()
    return filt[tuple(_trimmed(filt, ax, trim) if ax in axes else slice(None)
                      for ax in builtins.range(ndim))]


def _trimmed(x, ax, trim):
    """The slice of axis ``ax`` between the first and last nonzero slices."""
    others = tuple(i for i in builtins.range(_aval(x).ndim) if i != ax)
    mask = reductions.any(x, axis=others)
    if not reductions.any(mask):
        return slice(0, 0)
    start = int(reductions.argmax(mask)) if "f" in trim else None
    stop = (_aval(x).shape[ax] - int(reductions.argmax(mask[::-1]))
            if "b" in trim else None)
    return slice(start, stop)


@jit
def sort_complex(a):
    """``a`` sorted along its last axis (real part first, then imaginary),
    as a complex array (SPEC NPE-16)."""
    a = util.ensure_arraylike("sort_complex", a)
    # lax.sort in refjax accepts a scalar; JAX's rejects it (no axis -1).
    a = lax_sorting.sort(a, _canonicalize_axis(-1, _aval(a).ndim))
    return lax.convert_element_type(a, util.to_complex_dtype(_aval(a).dtype))


@jit(static_argnames=("N", "increasing"))
def vander(x, N=None, increasing=False):  # noqa: N803 - NumPy's name
    """The Vandermonde matrix of the 1-d ``x``: column j is ``x**(N-1-j)``
    (``x**j`` when ``increasing``), in ``x``'s dtype (SPEC NPE-17)."""
    x = util.ensure_arraylike("vander", x)
    if _aval(x).ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = (_aval(x).shape[0] if N is None  # noqa: N806
         else core.concrete_or_error(operator.index, N, "'N' argument of jnp.vander()"))
    if N < 0:
        raise ValueError("N must be nonnegative")
    powers = shapes.iota(_aval(x).dtype, N)
    if not increasing:
        powers = lax.sub(lax._const(powers, N - 1), powers)
    return ufuncs.power(x[..., None], expand_dims(powers, tuple(builtins.range(_aval(x).ndim))))
