"""Batching rules of the dynamic slices, gather and scatter (SPEC VMAP-50 .. VMAP-56).

Kept beside ``slicing.py`` (which defines the primitives) to keep both
modules short; ``slicing.py`` imports this module last, so the rules are
set whenever the primitives exist.
"""
import numpy as np

from refjax._src.interpreters import batching
from refjax._src import core
from refjax._src.lax.slicing import (
    GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers, _lax,
    dynamic_slice_p, dynamic_update_slice_p, gather, gather_p, scatter_add_p,
    scatter_max_p, scatter_min_p, scatter_mul_p, scatter_p, scatter_sub_p,
)


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


def _batched_start_vector(starts, dims, size):
    """The scalar starts of a dynamic slice as gather / scatter indices.

    Unbatched: one vector ``(n,)`` (``broadcast`` + ``concatenate``), batch
    dim None.  Some batched: a ``(size, n)`` matrix, each start a column
    (broadcast along the batch where it is unbatched), batch dim 0.  All
    starts share one dtype (the primitive checked it)."""
    lax = _lax()
    if not starts:
        return np.zeros((0,), np.int32), None
    if all(d is None for d in dims):
        return lax.concatenate([lax.broadcast(s, (1,)) for s in starts], 0), None
    columns = [lax.broadcast_in_dim(s, (size, 1), () if d is None else (0,))
               for s, d in zip(starts, dims)]
    return lax.concatenate(columns, 1), 0


def _dynamic_slice_batch(axis_data, vals, dims, *, slice_sizes):
    """dynamic_slice under vmap is a gather in CLIP mode, which clamps each
    example's starts so its window fits, exactly as dynamic_slice does
    (SPEC VMAP-52).  The window covers every axis; the starts become the
    gather's index vector."""
    operand, *starts = vals
    operand_bdim, *start_dims = dims
    rank = len(slice_sizes)
    index, index_bdim = _batched_start_vector(starts, start_dims, axis_data.size)
    dn = GatherDimensionNumbers(offset_dims=tuple(range(rank)),
                                collapsed_slice_dims=(),
                                start_index_map=tuple(range(rank)))
    return _gather_batch(axis_data, [operand, index], [operand_bdim, index_bdim],
                         dimension_numbers=dn, slice_sizes=tuple(slice_sizes),
                         unique_indices=True, indices_are_sorted=True,
                         mode=GatherScatterMode.CLIP, fill_value=None)


dynamic_slice_p.batch = _dynamic_slice_batch


def _dynamic_update_slice_batch(axis_data, vals, dims):
    """dynamic_update_slice under vmap is a ``scatter`` in CLIP mode: the
    update is one window over every axis, clamped to fit as
    dynamic_update_slice clamps it (SPEC VMAP-53)."""
    operand, update, *starts = vals
    operand_bdim, update_bdim, *start_dims = dims
    rank = len(starts)
    index, index_bdim = _batched_start_vector(starts, start_dims, axis_data.size)
    dn = ScatterDimensionNumbers(update_window_dims=tuple(range(rank)),
                                 inserted_window_dims=(),
                                 scatter_dims_to_operand_dims=tuple(range(rank)))
    return _scatter_batch(scatter_p)(
        axis_data, [operand, index, update], [operand_bdim, index_bdim, update_bdim],
        dimension_numbers=dn, update_jaxpr=None, update_consts=(),
        indices_are_sorted=True, unique_indices=True, mode=GatherScatterMode.CLIP)


dynamic_update_slice_p.batch = _dynamic_update_slice_batch
