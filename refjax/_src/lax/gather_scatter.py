"""Gather and scatter (SPEC IDX-10, IDX-12 .. IDX-19).

Both read or write *windows* of an operand at start positions known only
at run time, and neither ever raises for an out-of-bounds position -- XLA
cannot raise inside compiled code.  What happens instead is part of each
operation's contract:

* ``gather``: ``GatherScatterMode.CLIP`` (and ``PROMISE_IN_BOUNDS``) clamp
  a window into the operand; ``FILL_OR_DROP`` returns ``fill_value`` for a
  window that does not fit entirely (IDX-14).
* ``scatter*``: ``CLIP`` clamps; ``FILL_OR_DROP`` and ``PROMISE_IN_BOUNDS``
  drop an update window that does not fit entirely (IDX-16).

Implementations work on backend buffers through ``_xp()`` and the backend's
scatter kernels; inputs are never modified.  The batching rules (``vmap``,
VMAP-50 .. VMAP-54) are at the end.  The dynamic slices, special cases of
both, are in ``dynamic_slice.py``.
"""
import enum
import functools
import operator
import weakref
from typing import NamedTuple

import numpy as np

from refjax._src import backend as _backend
from refjax._src import core, dtypes
from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import ad, batching
from refjax._src.interpreters import key_reuse as kr
from refjax._src.interpreters import partial_eval as pe
from refjax._src.lax import lax, shapes
from refjax._src.lax.lax import _xp


def _dtype_of(x):
    return core.get_aval(x).dtype


def _canonicalize_sizes(sizes):
    """A tuple of Python ints (``slice_sizes``); JAX's TypeError otherwise."""
    try:
        return tuple(operator.index(s) for s in sizes)
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of "
                        f"integer type, got {tuple(sizes)}.") from None


# ---------------------------------------------------------------------------
# Modes and dimension numbers (SPEC IDX-10)
# ---------------------------------------------------------------------------

class GatherScatterMode(enum.Enum):
    """What gather and scatter do with windows that do not fit (IDX-10).

    ``CLIP`` clamps starts so the window fits; ``FILL_OR_DROP`` fills a
    gathered window with ``fill_value`` / drops a scattered one;
    ``PROMISE_IN_BOUNDS`` promises the indices are valid (refjax, like
    XLA, clamps gathers and drops scatters); ``ONE_HOT`` is accepted by
    ``from_any`` but not implemented (JAX's gather rejects it too).
    """
    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()
    ONE_HOT = enum.auto()

    @staticmethod
    def from_any(s):
        """A mode from a mode, ``None`` (FILL_OR_DROP) or one of the strings
        ``'clip'``, ``'fill'``, ``'drop'``, ``'promise_in_bounds'``,
        ``'one_hot'``; ValueError otherwise."""
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        if s == "one_hot":
            return GatherScatterMode.ONE_HOT
        raise ValueError(f'Unknown gather mode "{s}"')


class GatherDimensionNumbers(NamedTuple):
    """How operand, start indices and output of a gather relate (IDX-12).

    The index vector is always the last axis of the start indices.
    ``offset_dims``: output axes holding the window; ``collapsed_slice_dims``:
    operand axes of window size 1 dropped from the output;
    ``start_index_map``: the operand axis each index component starts;
    ``operand_batching_dims`` / ``start_indices_batching_dims``: paired axes
    along which operand and indices are batched together.
    """
    offset_dims: tuple
    collapsed_slice_dims: tuple
    start_index_map: tuple
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()


class ScatterDimensionNumbers(NamedTuple):
    """How operand, scatter indices and updates of a scatter relate (IDX-15).

    ``update_window_dims``: update axes that are window axes;
    ``inserted_window_dims``: operand axes of window size 1 absent from the
    updates; ``scatter_dims_to_operand_dims``: the operand axis each index
    component starts; the batching pairs are as for gather.
    """
    update_window_dims: tuple
    inserted_window_dims: tuple
    scatter_dims_to_operand_dims: tuple
    operand_batching_dims: tuple = ()
    scatter_indices_batching_dims: tuple = ()


def _check_dnums(dnums, cls, op_name):
    """``dnums`` as ``cls`` with tuple fields; TypeError for anything else."""
    if not isinstance(dnums, cls):
        raise TypeError(f"{op_name} dimension_numbers must be a {cls.__name__}, "
                        f"got {dnums!r}.")
    if all(type(f) is tuple for f in dnums):
        return dnums
    try:
        return cls(*(tuple(operator.index(d) for d in f) for f in dnums))
    except TypeError:
        raise TypeError(f"{op_name} dimension_numbers fields must be sequences "
                        f"of integers, got {dnums!r}.") from None


# -- checks shared by the gather and scatter shape rules (JAX's messages) ---

def _is_sorted(dims, op_name, name):
    if list(dims) != sorted(dims):
        raise TypeError(f"{name} in {op_name} op must be sorted; got {dims}")


def _dims_in_range(dims, rank, op_name, name):
    for dim in dims:
        if dim < 0 or dim >= rank:
            raise TypeError(f"Invalid {name} set in {op_name} op; valid range is "
                            f"[0, {rank}); got: {dim}.")


def _sorted_dims_in_range(dims, rank, op_name, name):
    if not dims:
        return
    bad = dims[0] if dims[0] < 0 else dims[-1] if dims[-1] >= rank else None
    if bad:
        raise TypeError(f"Invalid {name} set in {op_name} op; valid range is "
                        f"[0, {rank}); got: {bad}.")


def _no_duplicate_dims(dims, op_name, name):
    if len(set(dims)) != len(dims):
        raise TypeError(f"{name} in {op_name} op must not repeat; got: {dims}.")


def _disjoint_dims(dims1, dims2, op_name, name1, name2):
    if not set(dims1).isdisjoint(dims2):
        raise TypeError(f"{name1} and {name2} in {op_name} op must be disjoint; "
                        f"got: {dims1} and {dims2}.")


def _check_index_dtype(indices):
    if not dtypes.issubdtype(indices.dtype, np.integer):
        raise ValueError("indices must have an integer type")


def _check_batching(op, operand, indices, operand_batching, indices_batching,
                    indices_name):
    """The batching-dimension checks gather and scatter share."""
    _no_duplicate_dims(indices_batching, op, f"{indices_name}_batching_dims")
    _dims_in_range(indices_batching, indices.ndim, op,
                   f"{indices_name}_batching_dims")
    if indices.ndim - 1 in indices_batching:
        raise TypeError(f"{op.capitalize()} op cannot have the index vector "
                        "dimension as a batching dimension; got "
                        f"{indices_batching}.")
    if len(operand_batching) != len(indices_batching):
        sep = "" if op == "gather" else " "
        raise TypeError(f"{op.capitalize()} op requires equal numbers of "
                        f"operand_batching_dims and {indices_name}_batching_dims, "
                        f"got {operand_batching} and{sep}{indices_batching}.")
    operand_batch = tuple(operand.shape[i] for i in operand_batching)
    indices_batch = tuple(indices.shape[i] for i in indices_batching)
    if operand_batch != indices_batch:
        raise TypeError(f"{op.capitalize()} op requires operand batching "
                        "dimensions and indices batching dimensions to have the "
                        f"same shape, got {operand_batch} and {indices_batch}.")
    return operand_batch


# ---------------------------------------------------------------------------
# Window arithmetic shared by the gather and scatter implementations
# ---------------------------------------------------------------------------

def _window_starts(indices, operand_shape, window, start_map, operand_batching,
                   indices_batching):
    """Per operand axis, the start of each window: int64 arrays of shape (N,).

    ``indices`` has shape ``(*batch, K)``; window n starts at
    ``indices[n, k]`` along ``start_map[k]``, at its own coordinate along
    the batch axis paired with an operand batching axis, and at 0 elsewhere.
    Also returns the in-bounds mask: a window is in bounds when every
    indexed start lies in ``[0, size - window]``.
    """
    xp = _xp()
    batch_shape = indices.shape[:-1]
    n = int(np.prod(batch_shape, dtype=np.int64))
    flat = indices.reshape(n, indices.shape[-1]).astype(np.int64)
    starts = [xp.zeros(n, dtype=np.int64) for _ in operand_shape]
    mask = xp.ones(n, dtype=bool)
    for k, d in enumerate(start_map):
        upper = operand_shape[d] - window[d]
        starts[d] = flat[:, k]
        mask &= (starts[d] >= 0) & (starts[d] <= upper)
    for d, b in zip(operand_batching, indices_batching):
        coords = xp.arange(batch_shape[b], dtype=np.int64).reshape(
            [-1 if j == b else 1 for j in range(len(batch_shape))])
        starts[d] = xp.broadcast_to(coords, batch_shape).reshape(n)
    return starts, mask


def _clamp_starts(starts, operand_shape, window):
    xp = _xp()
    return [xp.clip(s, 0, max(size - w, 0))
            for s, size, w in zip(starts, operand_shape, window)]


def _window_positions(starts, window):
    """Index arrays of shape ``(N, *window)``: every element of every window."""
    xp = _xp()
    rank = len(window)
    out = []
    for d, (s, w) in enumerate(zip(starts, window)):
        offsets = xp.arange(w, dtype=np.int64).reshape(
            [1] + [w if j == d else 1 for j in range(rank)])
        out.append(s.reshape([-1] + [1] * rank) + offsets)
    full = (int(starts[0].shape[0]) if starts else 0, *window)
    return tuple(xp.broadcast_to(p, full) for p in out)


# ---------------------------------------------------------------------------
# gather (SPEC IDX-12 .. IDX-14)
# ---------------------------------------------------------------------------

gather_p = Primitive("gather")


@gather_p.def_abstract_eval
def _gather_abstract_eval(operand, indices, *, dimension_numbers, slice_sizes,
                          unique_indices, indices_are_sorted, mode, fill_value):
    _check_index_dtype(indices)
    shape = _gather_shape_rule(operand, indices, dimension_numbers, slice_sizes)
    return ShapedArray(shape, operand.dtype, operand.weak_type)


def _gather_shape_rule(operand, indices, dnums, slice_sizes):
    """XLA's gather validation in JAX's words; the output shape (IDX-12)."""
    offset_dims = dnums.offset_dims
    collapsed = dnums.collapsed_slice_dims
    start_map = dnums.start_index_map
    batching = dnums.operand_batching_dims
    if indices.ndim < 1:
        raise TypeError("Gather index leaf dimension must be within [0, rank("
                        f"indices) + 1). rank(indices) is {indices.ndim} and "
                        f"gather index leaf dimension is {indices.ndim - 1}.")
    index_vector_dim = indices.ndim - 1
    _is_sorted(offset_dims, "gather", "offset_dims")
    _no_duplicate_dims(offset_dims, "gather", "offset_dims")
    out_rank = len(offset_dims) + indices.ndim - 1
    for i, dim in enumerate(offset_dims):
        if dim < 0 or dim >= out_rank:
            raise TypeError(f"Offset dimension {i} in gather op is out of bounds; "
                            f"got {dim}, but should have been in [0, {out_rank})")
    if len(start_map) != indices.shape[index_vector_dim]:
        raise TypeError(f"Gather op has {len(start_map)} elements in "
                        "start_index_map and the bound of dimension "
                        f"index_vector_dim={index_vector_dim} of indices is "
                        f"{indices.shape[index_vector_dim]}. These two numbers "
                        "must be equal.")
    for i, dim in enumerate(start_map):
        if dim < 0 or dim >= operand.ndim:
            raise TypeError(f"Invalid start_index_map; domain is [0, "
                            f"{operand.ndim}), got: {i}->{dim}.")
    _no_duplicate_dims(start_map, "gather", "start_index_map")
    _is_sorted(collapsed, "gather", "collapsed_slice_dims")
    _sorted_dims_in_range(collapsed, operand.ndim, "gather", "collapsed_slice_dims")
    _no_duplicate_dims(collapsed, "gather", "collapsed_slice_dims")
    _no_duplicate_dims(batching, "gather", "operand_batching_dims")
    _is_sorted(batching, "gather", "operand_batching_dims")
    _sorted_dims_in_range(batching, operand.ndim, "gather", "operand_batching_dims")
    _disjoint_dims(collapsed, batching, "gather", "collapsed_slice_dims",
                   "operand_batching_dims")
    _disjoint_dims(start_map, batching, "gather", "start_index_map",
                   "operand_batching_dims")
    _check_batching("gather", operand, indices, batching,
                    dnums.start_indices_batching_dims, "start_indices")
    if operand.ndim != len(slice_sizes):
        raise TypeError("Gather op must have one slice size for every input "
                        f"dimension; got: len(slice_sizes)={len(slice_sizes)}, "
                        f"input_shape.rank={operand.ndim}")
    if len(slice_sizes) != len(offset_dims) + len(collapsed) + len(batching):
        raise TypeError("All components of the offset index in a gather op must "
                        "either be a offset dimension or explicitly "
                        f"collapsed/batching; got len(slice_sizes)="
                        f"{len(slice_sizes)}, output_slice_sizes={offset_dims}, "
                        f"collapsed_slice_dims={collapsed}, operand_batching_dims="
                        f"{batching}.")
    indices_empty = 0 in indices.shape
    for i, (want, size) in enumerate(zip(slice_sizes, operand.shape)):
        if not indices_empty and not 0 <= want <= size:
            raise TypeError(f"Slice size at index {i} in gather op is out of "
                            f"range, must be within [0, {size} + 1), got {want}.")
    for i, dim in enumerate(collapsed):
        if slice_sizes[dim] != 1:
            raise TypeError("Gather op can only collapse slice dims with bound 1, "
                            f"but bound is {slice_sizes[dim]} for index {dim} at "
                            f"position {i}.")
    for i, dim in enumerate(batching):
        if slice_sizes[dim] > 1:
            raise TypeError("Gather op can only have operand batching dims with "
                            f"bound 0/1, but bound is {slice_sizes[dim]} for index "
                            f"{dim} at position {i}.")
    return _gather_output_shape(indices.shape, dnums, slice_sizes)


def _gather_output_shape(indices_shape, dnums, slice_sizes):
    """Offset axes take the kept window sizes in order, the others the
    batch sizes of the indices in order."""
    dropped = set(dnums.collapsed_slice_dims) | set(dnums.operand_batching_dims)
    kept = iter([s for i, s in enumerate(slice_sizes) if i not in dropped])
    batch = iter(indices_shape[:-1])
    rank = len(dnums.offset_dims) + len(indices_shape) - 1
    return tuple(next(kept) if i in dnums.offset_dims else next(batch)
                 for i in range(rank))


def _batch_to_output_perm(out_rank, offset_dims):
    """The transpose taking ``(*batch, *offsets)`` to the output layout."""
    batch_axes = iter(range(out_rank - len(offset_dims)))
    n_batch = out_rank - len(offset_dims)
    return tuple(n_batch + offset_dims.index(p) if p in offset_dims
                 else next(batch_axes) for p in range(out_rank))


@gather_p.def_impl
def _gather_impl(operand, indices, *, dimension_numbers, slice_sizes,
                 unique_indices, indices_are_sorted, mode, fill_value):
    """Clamp (CLIP, PROMISE_IN_BOUNDS) or mask (FILL_OR_DROP) each window's
    starts, read every window with one advanced index, then lay the batch
    and offset axes out as the dimension numbers say (IDX-13, IDX-14)."""
    xp = _xp()
    dnums = dimension_numbers
    out_shape = _gather_output_shape(indices.shape, dnums, slice_sizes)
    if mode == GatherScatterMode.ONE_HOT:
        raise NotImplementedError("refjax does not implement gather with "
                                  "GatherScatterMode.ONE_HOT")
    if any(w > s for w, s in zip(slice_sizes, operand.shape)) or (
            0 in slice_sizes and 0 not in out_shape):
        # Only reachable with empty indices or size-0 batching windows:
        # nothing is read.
        return xp.zeros(out_shape, dtype=operand.dtype)
    starts, in_bounds = _window_starts(
        indices, operand.shape, slice_sizes, dnums.start_index_map,
        dnums.operand_batching_dims, dnums.start_indices_batching_dims)
    starts = _clamp_starts(starts, operand.shape, slice_sizes)
    n = int(np.prod(indices.shape[:-1], dtype=np.int64))
    windows = (operand[_window_positions(starts, slice_sizes)] if operand.ndim
               else xp.broadcast_to(operand, (n,)))
    dropped = set(dnums.collapsed_slice_dims) | set(dnums.operand_batching_dims)
    offset_sizes = [w for d, w in enumerate(slice_sizes) if d not in dropped]
    batch_shape = indices.shape[:-1]
    perm = _batch_to_output_perm(len(out_shape), tuple(dnums.offset_dims))
    out = xp.transpose(windows.reshape((*batch_shape, *offset_sizes)), perm)
    if mode == GatherScatterMode.FILL_OR_DROP:
        mask = xp.transpose(in_bounds.reshape((*batch_shape, *[1] * len(offset_sizes))),
                            perm)
        fill = xp.asarray(np.array(fill_value).astype(operand.dtype))
        out = xp.where(mask, out, fill)
    return out.copy()  # C order; ascontiguousarray would make 0-d 1-d


def _default_fill_value(dtype):
    """The fill of a FILL_OR_DROP gather: NaN for inexact dtypes, the
    minimum for signed and the maximum for unsigned integers, True for
    bool (IDX-14)."""
    if dtypes.issubdtype(dtype, np.inexact):
        return np.nan
    if dtypes.issubdtype(dtype, np.signedinteger):
        return int(dtypes.iinfo(dtype).min)
    if dtypes.issubdtype(dtype, np.unsignedinteger):
        return int(dtypes.iinfo(dtype).max)
    if dtype == dtypes.bool_:
        return True
    if dtypes.is_extended(dtype):
        # Key data of all ones bits, as JAX fills uint32 (RNG-107).
        return int(np.iinfo(np.uint32).max)
    raise ValueError(f"Unsupported dtype for gather fill_value {dtype}")


def gather(operand, start_indices, dimension_numbers, slice_sizes, *,
           unique_indices=False, indices_are_sorted=False, mode=None,
           fill_value=None):
    """Windows of ``operand`` starting at ``start_indices`` (IDX-12).

    ``mode=None`` means ``PROMISE_IN_BOUNDS`` here (unlike scatter);
    ``fill_value`` is used only by ``FILL_OR_DROP``, defaulting per dtype
    (IDX-14), and is recorded as ``None`` otherwise.
    """
    if mode is None:
        mode = GatherScatterMode.PROMISE_IN_BOUNDS
    parsed = GatherScatterMode.from_any(mode)
    if parsed == GatherScatterMode.FILL_OR_DROP:
        dtype = _dtype_of(operand)
        if fill_value is None:
            fill_value = _default_fill_value(dtype)
        elif np.iscomplexobj(fill_value) and dtype.kind != "c":
            raise TypeError(f"gather fill_value {fill_value!r} is complex and "
                            f"cannot fill an array of dtype {dtype.name}.")
    else:
        fill_value = None
    dnums = _check_dnums(dimension_numbers, GatherDimensionNumbers, "gather")
    return gather_p.bind(
        operand, start_indices, dimension_numbers=dnums,
        slice_sizes=_canonicalize_sizes(slice_sizes),
        unique_indices=bool(unique_indices),
        indices_are_sorted=bool(indices_are_sorted),
        mode=parsed, fill_value=fill_value)


def _scatter_dnums_of(dnums):
    """The scatter that writes back where a gather with ``dnums`` reads."""
    return ScatterDimensionNumbers(
        update_window_dims=dnums.offset_dims,
        inserted_window_dims=dnums.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dnums.start_index_map,
        operand_batching_dims=dnums.operand_batching_dims,
        scatter_indices_batching_dims=dnums.start_indices_batching_dims)


def _gather_jvp(primals, tangents, *, dimension_numbers, slice_sizes,
                unique_indices, indices_are_sorted, mode, fill_value):
    """The same windows of the tangent, filled with 0 where the primal is
    filled (SPEC AD-31)."""
    operand, indices = primals
    params = dict(dimension_numbers=dimension_numbers, slice_sizes=slice_sizes,
                  unique_indices=unique_indices,
                  indices_are_sorted=indices_are_sorted, mode=mode)
    out = gather_p.bind(operand, indices, fill_value=fill_value, **params)
    if type(tangents[0]) is ad.Zero:
        return out, ad.Zero.from_primal_value(out)
    tangent_fill = 0 if mode == GatherScatterMode.FILL_OR_DROP else None
    return out, gather_p.bind(tangents[0], indices, fill_value=tangent_fill, **params)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes,
                      unique_indices, indices_are_sorted, mode, fill_value):
    """A scatter-add of the cotangent into zeros, with the same dimension
    numbers and mode: windows read twice get their cotangents summed,
    filled windows are dropped (SPEC AD-31)."""
    if type(ct) is ad.Zero:
        return [ad.Zero(operand.aval), None]
    zeros = lax.full(operand.aval.shape, 0, _dtype_of(ct))
    out = scatter_add(zeros, indices, ct, _scatter_dnums_of(dimension_numbers),
                      indices_are_sorted=indices_are_sorted,
                      unique_indices=unique_indices, mode=mode)
    return [out, None]


gather_p.jvp = _gather_jvp
gather_p.transpose = _gather_transpose


def index_take(src, idxs, axes):
    """``src`` indexed by one integer array per axis in ``axes`` (taken
    modulo the axis size), the other axes kept whole, via ``gather``."""
    indices = shapes.concatenate([shapes.expand_dims(i, (1,)) for i in idxs], 1)
    src_shape = core.get_aval(src).shape
    ndim = core.get_aval(indices).ndim
    bounds = shapes.expand_dims(np.array([src_shape[ax] for ax in axes]),
                             tuple(range(ndim - 1)))
    indices = indices % bounds
    slice_sizes = list(src_shape)
    for ax in axes:
        slice_sizes[ax] = 1
    n_idx = core.get_aval(indices).shape[1]
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(range(1, len(src_shape) - n_idx + 1)),
        collapsed_slice_dims=tuple(axes), start_index_map=tuple(axes))
    return gather(src, indices, dimension_numbers=dnums,
                  slice_sizes=tuple(slice_sizes))


# ---------------------------------------------------------------------------
# scatter and its reductions (SPEC IDX-15 .. IDX-18)
# ---------------------------------------------------------------------------

def _scatter_abstract_eval(operand, indices, updates, *, update_jaxpr,
                           update_consts, dimension_numbers, indices_are_sorted,
                           unique_indices, mode):
    _check_index_dtype(indices)
    if operand.dtype != updates.dtype:
        raise TypeError("lax.scatter requires arguments to have the same dtypes, "
                        f"got {operand.dtype.name}, {updates.dtype.name}.")
    _scatter_shape_rule(operand, indices, updates, dimension_numbers)
    return ShapedArray(operand.shape, operand.dtype, operand.weak_type)


def _scatter_shape_rule(operand, indices, updates, dnums):
    """XLA's scatter validation in JAX's words (IDX-15)."""
    window_dims = dnums.update_window_dims
    inserted = dnums.inserted_window_dims
    batching = dnums.operand_batching_dims
    to_operand = dnums.scatter_dims_to_operand_dims
    if indices.ndim < 1:
        raise TypeError("Scatter index leaf dimension must be within [0, "
                        f"rank(indices) + 1). rank(indices) is {indices.ndim} "
                        f"and scatter index leaf dimension is {indices.ndim - 1}.")
    index_vector_dim = indices.ndim - 1
    expected_rank = indices.ndim - 1 + len(window_dims)
    if updates.ndim != expected_rank:
        raise TypeError(f"Updates tensor must be of rank {expected_rank}; "
                        f"got {updates.ndim}.")
    _is_sorted(window_dims, "scatter", "update_window_dims")
    _no_duplicate_dims(window_dims, "scatter", "update_window_dims")
    _sorted_dims_in_range(window_dims, updates.ndim, "scatter", "update_window_dims")
    _is_sorted(inserted, "scatter", "inserted_window_dims")
    _no_duplicate_dims(inserted, "scatter", "inserted_window_dims")
    _sorted_dims_in_range(inserted, operand.ndim, "scatter", "inserted_window_dims")
    _is_sorted(batching, "scatter", "operand_batching_dims")
    _no_duplicate_dims(batching, "scatter", "operand_batching_dims")
    _sorted_dims_in_range(batching, operand.ndim, "scatter", "operand_batching_dims")
    _disjoint_dims(inserted, batching, "scatter", "inserted_window_dims",
                   "operand_batching_dims")
    _disjoint_dims(to_operand, batching, "scatter", "scatter_dims_to_operand_dims",
                   "operand_batching_dims")
    operand_batch = _check_batching("scatter", operand, indices, batching,
                                    dnums.scatter_indices_batching_dims,
                                    "scatter_indices")
    scatter_axes = [d for d in range(updates.ndim) if d not in window_dims]
    updates_batch = tuple(updates.shape[scatter_axes[i]]
                          for i in dnums.scatter_indices_batching_dims)
    if operand_batch != updates_batch:
        raise TypeError("Scatter op requires operand batching dimensions and "
                        "updates batching dimensions to have the same shape, got "
                        f"{operand_batch} and {updates_batch}.")
    window_size = len(window_dims) + len(inserted) + len(batching)
    if operand.ndim != window_size:
        raise TypeError(f"Scatter op has window of size {window_size}; doesn't "
                        f"match operand of rank {operand.ndim}.")
    if len(to_operand) != indices.shape[index_vector_dim]:
        raise TypeError(f"Scatter op has {len(to_operand)} elements in "
                        "scatter_dims_to_operand_dims and the bound of dimension "
                        f"index_vector_dim={index_vector_dim} of indices is "
                        f"{indices.shape[index_vector_dim]}. These two numbers "
                        "must be equal")
    for i, dim in enumerate(to_operand):
        if dim < 0 or dim >= operand.ndim:
            raise TypeError("Invalid scatter_dims_to_operand_dims mapping; domain "
                            f"is [0, {operand.ndim}), got: {i}->{dim}.")
    _no_duplicate_dims(to_operand, "scatter", "scatter_dims_to_operand_dims")
    max_sizes = [operand.shape[i] for i in range(operand.ndim)
                 if i not in inserted and i not in batching]
    for i, dim in enumerate(window_dims):
        if max_sizes[i] < updates.shape[dim]:
            raise TypeError("Bounds of the window dimensions of updates must not "
                            "exceed the bounds of the corresponding dimensions of "
                            f"operand. For dimension {dim}, updates bound is "
                            f"{updates.shape[dim]}, operand bound is "
                            f"{max_sizes[i]}.")
    for axis, size in zip(scatter_axes, indices.shape[:-1]):
        if updates.shape[axis] != size:
            raise TypeError("Bounds of the scatter dimensions of updates must be "
                            "the same as the bounds of the corresponding "
                            "dimensions of scatter indices. For scatter dimension "
                            f"{axis}, updates bound is {updates.shape[axis]}, "
                            f"indices bound is {size}.")


def _scatter_targets(operand, indices, updates, dnums, mode):
    """The flat operand positions and update values a scatter writes.

    Updates are rearranged to ``(N, *window)`` with size-1 axes at the
    inserted and batching axes; windows are clamped (CLIP) or, if they do
    not fit entirely, dropped (FILL_OR_DROP, PROMISE_IN_BOUNDS) (IDX-16).
    Returns (index tuple, values), both in window order.
    """
    xp = _xp()
    window_dims = tuple(dnums.update_window_dims)
    scatter_axes = [d for d in range(updates.ndim) if d not in window_dims]
    n = int(np.prod(indices.shape[:-1], dtype=np.int64))
    ordered = xp.transpose(updates, scatter_axes + list(window_dims))
    window, pos = [], 0
    for d in range(operand.ndim):
        if d in dnums.inserted_window_dims or d in dnums.operand_batching_dims:
            window.append(1)
        else:
            window.append(updates.shape[window_dims[pos]])
            pos += 1
    values = ordered.reshape((n, *window))
    starts, in_bounds = _window_starts(
        indices, operand.shape, window, dnums.scatter_dims_to_operand_dims,
        dnums.operand_batching_dims, dnums.scatter_indices_batching_dims)
    if mode == GatherScatterMode.CLIP:
        starts = _clamp_starts(starts, operand.shape, window)
    else:
        keep = xp.nonzero(in_bounds)[0]
        starts = [s[keep] for s in starts]
        values = values[keep]
    positions = _window_positions(starts, window)
    return tuple(p.reshape(-1) for p in positions), values.reshape(-1)


def _scatter_replace(target, where, values, update_jaxpr, update_consts):
    """``scatter``: the last update to a position wins (NumPy's assignment
    order; JAX leaves the order unspecified).  With an ``update_jaxpr``
    (``scatter_apply``) it is applied once per update, in order."""
    if update_jaxpr is None:
        target[where] = values
        return target
    aval = ShapedArray((), target.dtype)
    with core.set_current_trace(core.eval_trace):
        for k in range(int(values.shape[0])):
            spot = tuple(int(w[k]) for w in where)
            old = core.wrap_buffer(target[spot], aval)
            new = core.wrap_buffer(values[k], aval)
            out, = core.eval_jaxpr(update_jaxpr, update_consts, old, new)
            target[spot] = core.to_buffer(out)
    return target


def _scatter_kernel(kind):
    """The impl of the scatter primitive ``kind``: copy, then combine."""
    def impl(operand, indices, updates, *, update_jaxpr, update_consts,
             dimension_numbers, indices_are_sorted, unique_indices, mode):
        if mode == GatherScatterMode.ONE_HOT:
            raise NotImplementedError("refjax does not implement scatter with "
                                      "GatherScatterMode.ONE_HOT")
        xp = _xp()
        target = xp.array(operand, copy=True)
        if target.size == 0 or updates.size == 0:
            return target
        where, values = _scatter_targets(operand, indices, updates,
                                         dimension_numbers, mode)
        if not operand.ndim:
            # Every update hits the one element: scatter into a 1-vector.
            flat = _combine(kind, target.reshape(1),
                            (xp.zeros(values.shape[0], dtype=np.int64),),
                            values, update_jaxpr, update_consts)
            return flat.reshape(())
        return _combine(kind, target, where, values, update_jaxpr, update_consts)
    return impl


def _combine(kind, target, where, values, update_jaxpr, update_consts):
    """Apply ``values`` at ``where`` to ``target`` in place, all of them."""
    backend = _backend.get()
    if kind == "scatter":
        return _scatter_replace(target, where, values, update_jaxpr, update_consts)
    if kind == "scatter-sub":
        # x - y is x + (-y) exactly, also modulo 2**n for integers.
        return backend.scatter_add(target, where, -values)
    return getattr(backend, kind.replace("-", "_"))(target, where, values)


def _scatter_primitive(name):
    prim = Primitive(name)
    prim.def_abstract_eval(_scatter_abstract_eval)
    prim.def_impl(_scatter_kernel(name))
    return prim


scatter_p = _scatter_primitive("scatter")
scatter_add_p = _scatter_primitive("scatter-add")
scatter_sub_p = _scatter_primitive("scatter-sub")
scatter_mul_p = _scatter_primitive("scatter-mul")
scatter_min_p = _scatter_primitive("scatter-min")
scatter_max_p = _scatter_primitive("scatter-max")

@functools.lru_cache(maxsize=4096)
def _reduction_jaxpr(op, dtype):
    """The jaxpr of ``op`` on two strong scalars of ``dtype`` and its consts.

    Cached, so every scatter-add on float32 shares one jaxpr object (JAX
    prints it once, as ``let jaxpr = ...``).  Tracing ``op`` raises its own
    dtype errors (``add`` on bool) as in JAX; ``op`` must return an array
    and may not close over tracers (IDX-17).
    """

    def body(x, y):
        result = op(x, y)
        if not core.is_array_like(result):
            raise ValueError(
                f"Invalid return type from reduction function: {type(result)}\n"
                "Reduction functions should only return an array.\n"
                f"Full return value: {result}")
        return [result]

    aval = ShapedArray((), dtype)
    closed = pe.trace_to_jaxpr(body, [aval, aval])
    if any(isinstance(c, core.Tracer) for c in closed.consts):
        raise NotImplementedError(
            "Reduction computations can't close over Tracers. Please open an "
            "issue at https://github.com/jax-ml/jax.")
    return closed.jaxpr, tuple(closed.consts)


def _bind_scatter(prim, op, operand, indices, updates, dnums, indices_are_sorted,
                  unique_indices, mode):
    # JAX's order of checks: the operand's dtype, the mode, the numbers.
    if op is None:
        jaxpr, consts = None, ()
    else:
        jaxpr, consts = _reduction_jaxpr(op, _dtype_of(operand))
    mode = GatherScatterMode.from_any(mode)
    dnums = _check_dnums(dnums, ScatterDimensionNumbers, "scatter")
    return prim.bind(operand, indices, updates, update_jaxpr=jaxpr,
                     update_consts=consts, dimension_numbers=dnums,
                     indices_are_sorted=indices_are_sorted,
                     unique_indices=unique_indices, mode=mode)


def _scatter_function(name, primitive, combine, doc):
    """The public function binding one scatter primitive; ``combine`` joins
    an operand element with an update (None: the update replaces it)."""
    def scatter_fn(operand, scatter_indices, updates, dimension_numbers, *,
                   indices_are_sorted=False, unique_indices=False, mode=None):
        if combine is not None and operand is None:
            raise lax._none_operand()   # JAX reads its dtype first (LAX-12)
        return _bind_scatter(primitive, combine, operand, scatter_indices, updates,
                             dimension_numbers, indices_are_sorted, unique_indices,
                             mode)
    scatter_fn.__name__ = scatter_fn.__qualname__ = name
    scatter_fn.__doc__ = doc
    return scatter_fn


scatter = _scatter_function("scatter", scatter_p, None, """\
``operand`` with ``updates`` written at ``scatter_indices`` (IDX-17).

Out-of-bounds windows are dropped (``mode=None`` is FILL_OR_DROP); among
duplicate positions refjax keeps the last update, JAX leaves it unspecified.""")
scatter_add = _scatter_function(
    "scatter_add", scatter_add_p, lax.add,
    "``operand`` plus ``updates`` at ``scatter_indices``; duplicates all add (IDX-17).")
scatter_sub = _scatter_function(
    "scatter_sub", scatter_sub_p, lax.sub,
    "``operand`` minus ``updates`` at ``scatter_indices`` (IDX-17).")
scatter_mul = _scatter_function(
    "scatter_mul", scatter_mul_p, lax.mul,
    "``operand`` times ``updates`` at ``scatter_indices`` (IDX-17).")
scatter_min = _scatter_function(
    "scatter_min", scatter_min_p, lax.min,
    "Elementwise minimum of ``operand`` and every update (IDX-17).")
scatter_max = _scatter_function(
    "scatter_max", scatter_max_p, lax.max,
    "Elementwise maximum of ``operand`` and every update (IDX-17).")


# ---------------------------------------------------------------------------
# Derivatives of the scatters (SPEC AD-32 .. AD-35)
#
# Indices are integers: their tangents are float0 zeros and they are never
# linear inputs of a transpose.  Reading back "the operand element each
# update element lands on" is the gather inverse to the scatter.
# ---------------------------------------------------------------------------

def _gather_dnums_of(dnums):
    """The gather that reads where a scatter with ``dnums`` writes."""
    return GatherDimensionNumbers(
        offset_dims=dnums.update_window_dims,
        collapsed_slice_dims=dnums.inserted_window_dims,
        start_index_map=dnums.scatter_dims_to_operand_dims,
        operand_batching_dims=dnums.operand_batching_dims,
        start_indices_batching_dims=dnums.scatter_indices_batching_dims)


def _update_slice_sizes(rank, updates_shape, dnums):
    """Window sizes of that gather: 1 along inserted and batching axes, the
    update window sizes along the others, in order."""
    window = iter(updates_shape[d] for d in dnums.update_window_dims)
    singleton = set(dnums.inserted_window_dims) | set(dnums.operand_batching_dims)
    return tuple(1 if d in singleton else next(window) for d in range(rank))


def _read_back(x, indices, updates_shape, dnums, mode, fill_value=None):
    """For every update element, the element of ``x`` (shaped like the
    operand) that it is scattered onto: a gather of update shape."""
    sizes = _update_slice_sizes(core.get_aval(x).ndim, updates_shape, dnums)
    return gather(x, indices, _gather_dnums_of(dnums), sizes, mode=mode,
                  fill_value=fill_value)


def _shape_of(x):
    return x.aval.shape if ad.is_undefined_primal(x) else core.get_aval(x).shape


def _scatter_addsub_jvp(prim):
    """scatter-add and scatter-sub are linear in (operand, updates): the
    same scatter applied to the tangents (SPEC AD-32)."""
    def jvp(primals, tangents, **params):
        operand, indices, updates = primals
        out = prim.bind(operand, indices, updates, **params)
        t_operand, _, t_updates = tangents
        if type(t_operand) is ad.Zero and type(t_updates) is ad.Zero:
            return out, ad.Zero.from_primal_value(out)
        t_out = prim.bind(ad.instantiate_zeros(t_operand), indices,
                          ad.instantiate_zeros(t_updates), **params)
        return out, t_out
    return jvp


def _scatter_addsub_transpose(prim):
    """The operand's cotangent passes through; each update element gets the
    cotangent of the position it was added to (negated for scatter-sub), 0
    if it was dropped (SPEC AD-32)."""
    def transpose(ct, operand, indices, updates, *, dimension_numbers, mode,
                  **unused):
        if type(ct) is ad.Zero:
            return ad.zero_cotangents([operand, indices, updates])
        ct_operand = ct if ad.is_undefined_primal(operand) else None
        ct_updates = None
        if ad.is_undefined_primal(updates):
            ct_updates = _read_back(ct, indices, updates.aval.shape,
                                    dimension_numbers, mode, fill_value=0)
            if prim is scatter_sub_p:
                ct_updates = lax.neg(ct_updates)
        return [ct_operand, None, ct_updates]
    return transpose


scatter_add_p.jvp = _scatter_addsub_jvp(scatter_add_p)
scatter_add_p.transpose = _scatter_addsub_transpose(scatter_add_p)
scatter_sub_p.jvp = _scatter_addsub_jvp(scatter_sub_p)
scatter_sub_p.transpose = _scatter_addsub_transpose(scatter_sub_p)


_SCATTER_MUL_UNIQUE = ("scatter_mul gradients are only implemented if "
                       "`unique_indices=True`")


def _scatter_mul_jvp(primals, tangents, **params):
    """Linear in the operand (its tangent is multiplied by the same updates).
    In the updates only with ``unique_indices=True``, where each touched
    element is ``operand * update``: ``operand`` times the tangent updates
    scattered into zeros; NotImplementedError otherwise (SPEC AD-33)."""
    operand, indices, updates = primals
    out = scatter_mul_p.bind(operand, indices, updates, **params)
    t_operand, _, t_updates = tangents
    t_out = ad.Zero.from_primal_value(out)
    if type(t_operand) is not ad.Zero:
        t_out = scatter_mul_p.bind(t_operand, indices, updates, **params)
    if type(t_updates) is not ad.Zero:
        if not params["unique_indices"]:
            raise NotImplementedError(_SCATTER_MUL_UNIQUE)
        spread = scatter_add(
            lax.full(core.get_aval(operand).shape, 0, _dtype_of(t_updates)),
            indices, t_updates, params["dimension_numbers"],
            indices_are_sorted=params["indices_are_sorted"],
            unique_indices=True, mode=params["mode"])
        t_out = ad.add_tangents(t_out, lax.mul(operand, spread))
    return out, t_out


def _scatter_mul_transpose(ct, operand, indices, updates, **params):
    """Operand: the cotangent multiplied by the updates at their positions.
    Updates (``unique_indices=True`` only): ``ct * operand`` read back at
    each update element (SPEC AD-33)."""
    if ad.is_undefined_primal(updates) and not params["unique_indices"]:
        raise NotImplementedError(_SCATTER_MUL_UNIQUE)
    if type(ct) is ad.Zero:
        return ad.zero_cotangents([operand, indices, updates])
    ct_operand = ct_updates = None
    if ad.is_undefined_primal(operand):
        ct_operand = scatter_mul_p.bind(ct, indices, updates, **params)
    if ad.is_undefined_primal(updates):
        ct_updates = _read_back(lax.mul(ct, operand), indices,
                                updates.aval.shape, params["dimension_numbers"],
                                params["mode"], fill_value=0)
    return [ct_operand, None, ct_updates]


scatter_mul_p.jvp = _scatter_mul_jvp
scatter_mul_p.transpose = _scatter_mul_transpose


def _scatter_extremum_jvp(prim):
    """scatter-min / scatter-max: each output element's tangent is the mean
    of the tangents of everything that ties with the result there -- the
    operand element if it equals the result, and every update equal to it
    (SPEC AD-34).  The tangent is a linear combination of the operand and
    update tangents whose coefficients are computed from the primals."""
    def jvp(primals, tangents, **params):
        operand, indices, updates = primals
        out = prim.bind(operand, indices, updates, **params)
        t_operand, _, t_updates = tangents
        if type(t_operand) is ad.Zero and type(t_updates) is ad.Zero:
            return out, ad.Zero.from_primal_value(out)
        operand_coef, updates_coef = _extremum_weights(operand, indices, updates,
                                                       out, params)
        t_out = lax.mul(ad.instantiate_zeros(t_operand), operand_coef)
        t_out = _scatter_like(scatter_add_p, t_out, indices,
                              lax.mul(ad.instantiate_zeros(t_updates), updates_coef),
                              params)
        return out, t_out
    return jvp


def _scatter_like(prim, operand, indices, updates, params):
    """``prim`` with the dimension numbers, flags and mode of ``params``."""
    jaxpr, consts = (None, ()) if prim is scatter_p else _reduction_jaxpr(
        lax.add, _dtype_of(operand))
    return prim.bind(operand, indices, updates, update_jaxpr=jaxpr,
                     update_consts=consts,
                     dimension_numbers=params["dimension_numbers"],
                     indices_are_sorted=params["indices_are_sorted"],
                     unique_indices=params["unique_indices"], mode=params["mode"])


def _extremum_weights(operand, indices, updates, out, params):
    """(operand coefficient, updates coefficient): ``1 / n`` for each of the
    ``n`` values tying with the result at a position, 0 for the others, and
    1 for operand elements no update reaches.  A NaN result ties with
    nothing: its tangent is 0."""
    dtype = _dtype_of(out)
    dnums, mode = params["dimension_numbers"], params["mode"]
    updates_shape = core.get_aval(updates).shape

    def ones_like(x):
        return lax.full(core.get_aval(x).shape, 1, dtype)

    def zeros_like(x):
        return lax.full(core.get_aval(x).shape, 0, dtype)

    operand_ties = lax.eq(operand, out)
    update_ties = lax.eq(updates, _read_back(out, indices, updates_shape, dnums, mode))
    reached = lax.gt(_scatter_like(scatter_add_p, zeros_like(operand), indices,
                                   ones_like(updates), params), zeros_like(operand))
    ties = _scatter_like(scatter_add_p,
                         lax.convert_element_type(operand_ties, dtype), indices,
                         lax.convert_element_type(update_ties, dtype), params)
    share = lax.div(ones_like(operand),
                    lax.select(lax.gt(ties, zeros_like(ties)), ties, ones_like(ties)))
    operand_coef = lax.select(
        reached, lax.select(operand_ties, share, zeros_like(share)), ones_like(share))
    updates_coef = lax.select(
        update_ties, _read_back(share, indices, updates_shape, dnums, mode),
        zeros_like(updates))
    return operand_coef, updates_coef


scatter_min_p.jvp = _scatter_extremum_jvp(scatter_min_p)
scatter_max_p.jvp = _scatter_extremum_jvp(scatter_max_p)


def _scatter_jvp(primals, tangents, **params):
    """``scatter`` (overwrite).  With ``unique_indices=True`` every position
    is written at most once: the same scatter on the tangents.  Otherwise
    the operand element or update element that *won* each position is
    found by scattering update ids, and the tangent is a scatter-add of the
    winners' tangents only (SPEC AD-35).  ``scatter_apply`` (an
    ``update_jaxpr``) has no JVP, as in JAX."""
    if params["update_jaxpr"] is not None:
        raise NotImplementedError("scatter_apply JVP not implemented")
    operand, indices, updates = primals
    out = scatter_p.bind(operand, indices, updates, **params)
    t_operand, _, t_updates = tangents
    if type(t_operand) is ad.Zero and type(t_updates) is ad.Zero:
        return out, ad.Zero.from_primal_value(out)
    t_operand = ad.instantiate_zeros(t_operand)
    t_updates = ad.instantiate_zeros(t_updates)
    if params["unique_indices"]:
        return out, scatter_p.bind(t_operand, indices, t_updates, **params)
    operand_kept, update_won = _scatter_winners(operand, indices, updates, params)
    kept = lax.select(operand_kept, t_operand, lax.full_like(t_operand, 0))
    won = lax.select(update_won, t_updates, lax.full_like(t_updates, 0))
    return out, _scatter_like(scatter_add_p, kept, indices, won, params)


def _scatter_winners(operand, indices, updates, params):
    """(operand elements not overwritten, update elements that were written
    and not overwritten), as boolean masks.

    Every update window gets an id from 1 (its elements share it); scattering
    the ids into zeros with the same scatter leaves at each position the id
    that won it, or 0.  An update element won if reading back its position
    gives its own id."""
    dnums = params["dimension_numbers"]
    updates_shape = core.get_aval(updates).shape
    scatter_axes = tuple(d for d in range(len(updates_shape))
                         if d not in dnums.update_window_dims)
    ids_shape = tuple(updates_shape[d] for d in scatter_axes)
    n = int(np.prod(ids_shape, dtype=np.int64))
    id_dtype = next(np.dtype(t) for t in (np.uint8, np.uint16, np.uint32)
                    if n < np.iinfo(t).max)
    ids = lax.add(shapes.iota(id_dtype, n), lax.full((n,), 1, id_dtype))
    ids = shapes.broadcast_in_dim(shapes.reshape(ids, ids_shape), updates_shape,
                               scatter_axes)
    operand_shape = core.get_aval(operand).shape
    placed = _scatter_like(scatter_p, lax.full(operand_shape, 0, id_dtype),
                           indices, ids, params)
    operand_kept = lax.eq(placed, lax.full(operand_shape, 0, id_dtype))
    update_won = lax.eq(ids, _read_back(placed, indices, updates_shape, dnums,
                                        params["mode"]))
    return operand_kept, update_won


def _scatter_transpose(ct, operand, indices, updates, **params):
    """Only with ``unique_indices=True`` (NotImplementedError otherwise, as
    in JAX): the operand gets the cotangent with written positions zeroed,
    each update element the cotangent of its position (SPEC AD-35)."""
    if not params["unique_indices"]:
        raise NotImplementedError("scatter transpose is only implemented where "
                                  "unique_indices=True")
    if type(ct) is ad.Zero:
        return ad.zero_cotangents([operand, indices, updates])
    ct_operand = ct_updates = None
    updates_shape = _shape_of(updates)
    if ad.is_undefined_primal(operand):
        zeros = lax.full(updates_shape, 0, _dtype_of(ct))
        ct_operand = scatter_p.bind(ct, indices, zeros, **params)
    if ad.is_undefined_primal(updates):
        ct_updates = _read_back(ct, indices, updates_shape,
                                params["dimension_numbers"], params["mode"],
                                fill_value=0)
    return [ct_operand, None, ct_updates]


scatter_p.jvp = _scatter_jvp
scatter_p.transpose = _scatter_transpose


def _scatter_physical(b, ai, ao, *, dimension_numbers, **params):
    """Keys (SPEC RNG-20): updates are whole keys."""
    dnums = dimension_numbers._replace(
        update_window_dims=tuple(dimension_numbers.update_window_dims)
        + lax.data_axes(len(ai[2].shape), ai[0]))
    return scatter_p.impl(*b, dimension_numbers=dnums, **params)


scatter_p.physical = _scatter_physical
scatter_p.key_reuse = kr.KeyReuseSignature(kr.Sink(2), kr.Forward(0, 0))   # RNG-66


_apply_wrappers = weakref.WeakKeyDictionary()


def _apply_once(func):
    """``lambda x, _: func(x)``, one per ``func`` (weakly cached, as in JAX)
    so repeated ``scatter_apply`` calls share one traced update jaxpr."""
    def apply(x, _):
        return func(x)
    try:
        return _apply_wrappers.setdefault(func, apply)
    except TypeError:   # not weakly referenceable: a fresh wrapper each time
        return apply


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *,
                  update_shape=(), indices_are_sorted=False, unique_indices=False,
                  mode=None):
    """``operand`` with ``func`` applied at ``scatter_indices``, once per
    occurrence of a position (a ``scatter`` with an ``update_jaxpr``)."""
    unused = lax.full(update_shape, 0, _dtype_of(operand))
    return _bind_scatter(scatter_p, _apply_once(func), operand, scatter_indices,
                         unused, dimension_numbers, indices_are_sorted,
                         unique_indices, mode)


# ---------------------------------------------------------------------------
# Batching rules (SPEC VMAP-50 .. VMAP-54)
#
# Every rule is one primitive on the batched values, whatever the batch
# size.  gather and scatter batch by widening their dimension numbers: a
# batched operand gets a new window axis (or an operand batching axis), a
# batched index array a new batch axis (or an indices batching axis).  The
# dynamic slices batch as the gather / scatter they are special cases of.
# ---------------------------------------------------------------------------

def _shift(dims):
    """Axis numbers after one axis was inserted in front of them all.

    ``np.add`` makes them NumPy integers, which is what JAX's rules record:
    printed dimension numbers then read ``np.int64(1)`` exactly as JAX's."""
    return tuple(np.add(1, dims))


def _gather_batch(axis_data, vals, dims, *, dimension_numbers, slice_sizes,
                  unique_indices, indices_are_sorted, mode, fill_value):
    """gather under vmap: one wider gather, batch dim first in the result
    (SPEC VMAP-50).

    * operand batched only: the batch axis becomes a whole-size window axis
      (an extra offset dim), so every example reads the same positions;
    * indices batched only: the batch axis is one more batch axis of the
      indices; examples may now read the same positions, so the unique and
      sorted promises are dropped;
    * both: the two batch axes are paired as operand / indices batching
      dims, so example ``b`` reads only its own operand.

    The mode and fill value are kept: each example clamps or fills exactly
    as it would alone (SPEC VMAP-54)."""
    operand, indices = vals
    operand_bdim, indices_bdim = dims
    dn = dimension_numbers
    params = dict(mode=mode, fill_value=fill_value)
    if indices_bdim is None:
        operand = batching.moveaxis(operand, operand_bdim, 0)
        new = GatherDimensionNumbers(
            offset_dims=(0,) + _shift(dn.offset_dims),
            collapsed_slice_dims=_shift(dn.collapsed_slice_dims),
            start_index_map=_shift(dn.start_index_map),
            operand_batching_dims=_shift(dn.operand_batching_dims),
            start_indices_batching_dims=dn.start_indices_batching_dims)
        sizes = (core.get_aval(operand).shape[0],) + tuple(slice_sizes)
        return gather(operand, indices, new, sizes, unique_indices=unique_indices,
                      indices_are_sorted=indices_are_sorted, **params), 0
    if operand_bdim is None:
        indices = batching.moveaxis(indices, indices_bdim, 0)
        new = dn._replace(
            # Plain ints here, as JAX records them.
            offset_dims=tuple(d + 1 for d in dn.offset_dims),
            start_indices_batching_dims=_shift(dn.start_indices_batching_dims))
        return gather(operand, indices, new, slice_sizes, unique_indices=False,
                      indices_are_sorted=False, **params), 0
    operand = batching.moveaxis(operand, operand_bdim, 0)
    indices = batching.moveaxis(indices, indices_bdim, 0)
    new = GatherDimensionNumbers(
        offset_dims=_shift(dn.offset_dims),
        collapsed_slice_dims=_shift(dn.collapsed_slice_dims),
        start_index_map=_shift(dn.start_index_map),
        operand_batching_dims=(0,) + _shift(dn.operand_batching_dims),
        start_indices_batching_dims=(0,) + _shift(dn.start_indices_batching_dims))
    # The batching axis is read one element at a time (none at all when the
    # batch is empty: a window of 1 would not fit in 0).
    sizes = (min(1, core.get_aval(operand).shape[0]),) + tuple(slice_sizes)
    return gather(operand, indices, new, sizes, unique_indices=unique_indices,
                  indices_are_sorted=indices_are_sorted, **params), 0


gather_p.batch = _gather_batch


def _gather_physical(b, ai, ao, *, dimension_numbers, slice_sizes, **params):
    """Keys (SPEC RNG-20): each gathered slice takes whole keys."""
    dnums = dimension_numbers._replace(
        offset_dims=tuple(dimension_numbers.offset_dims) + lax.data_axes(len(ao.shape), ai[0]))
    return gather_p.impl(b[0], b[1], dimension_numbers=dnums,
                         slice_sizes=tuple(slice_sizes) + ai[0].dtype.data_shape, **params)


gather_p.physical = _gather_physical
gather_p.key_reuse = kr.FORWARD   # SPEC RNG-66


def _scatter_batch(prim):
    """A scatter primitive under vmap: one wider scatter into an operand
    batched along axis 0 (broadcast first if only the indices or updates
    are batched), result batched along axis 0 (SPEC VMAP-51).

    With unbatched indices the batch axis is a window axis of the updates
    covering the whole operand batch axis; with batched indices the batch
    axes of operand and indices are paired as batching dims, so example
    ``b``'s updates land in example ``b``'s operand only.  Mode, reduction
    jaxpr and flags are kept: each example clips or drops as alone
    (SPEC VMAP-54)."""
    def rule(axis_data, vals, dims, *, dimension_numbers, **params):
        operand, indices, updates = vals
        operand_bdim, indices_bdim, updates_bdim = dims
        size = axis_data.size
        operand = batching.bdim_at_front(operand, operand_bdim, size)
        updates = batching.bdim_at_front(updates, updates_bdim, size)
        dn = dimension_numbers
        if indices_bdim is None:
            new = ScatterDimensionNumbers(
                update_window_dims=(0,) + _shift(dn.update_window_dims),
                inserted_window_dims=_shift(dn.inserted_window_dims),
                scatter_dims_to_operand_dims=_shift(dn.scatter_dims_to_operand_dims),
                operand_batching_dims=_shift(dn.operand_batching_dims),
                scatter_indices_batching_dims=dn.scatter_indices_batching_dims)
        else:
            indices = batching.bdim_at_front(indices, indices_bdim, size)
            new = ScatterDimensionNumbers(
                update_window_dims=_shift(dn.update_window_dims),
                inserted_window_dims=_shift(dn.inserted_window_dims),
                scatter_dims_to_operand_dims=_shift(dn.scatter_dims_to_operand_dims),
                operand_batching_dims=(0,) + _shift(dn.operand_batching_dims),
                scatter_indices_batching_dims=(0,) + _shift(
                    dn.scatter_indices_batching_dims))
        return prim.bind(operand, indices, updates, dimension_numbers=new,
                         **params), 0
    return rule


for _prim in (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p,
              scatter_min_p, scatter_max_p):
    _prim.batch = _scatter_batch(_prim)
