"""``jax.ops``: segment reductions (SPEC OPS-1, OPS-2).

``segment_<op>(data, segment_ids, num_segments)`` combines the rows of
``data`` that share a segment id: row ``i`` goes to output row
``segment_ids[i]``.  The result starts from the operation's identity (0
for sums, 1 for products, the lowest value for maxima, the highest for
minima), so an empty segment holds the identity, and is filled with one
scatter, exactly as ``x.at[segment_ids].add(data)`` would (ids out of
range are dropped unless ``mode`` says otherwise, negative ones too).
"""
import operator

import numpy as np

from refjax._src import core, dtypes
from refjax._src.lax import gather_scatter
from refjax._src.numpy import creation, indexing, lax_numpy, reductions, util


def _identity(kind, dtype):
    """The starting value of a segment: the reduction's identity."""
    if kind == "add":
        return 0
    if kind == "mul":
        return 1
    if dtype == np.bool_:
        return kind == "min"
    if dtypes.issubdtype(dtype, np.inexact):
        return -np.inf if kind == "max" else np.inf
    info = dtypes.iinfo(dtype)
    return info.min if kind == "max" else info.max


_SCATTER = {"add": gather_scatter.scatter_add, "mul": gather_scatter.scatter_mul,
            "max": gather_scatter.scatter_max, "min": gather_scatter.scatter_min}
_REDUCE = {"add": reductions.sum, "mul": reductions.prod,
           "max": reductions.max, "min": reductions.min}


def _num_segments(name, segment_ids, num_segments):
    """``num_segments`` as an int: the given one, else ``max(ids) + 1``,
    which needs concrete ids (a ConcretizationTypeError under ``jit``)."""
    if num_segments is None:
        top = core.concrete_or_error(
            None, reductions.max(segment_ids) if segment_ids.size else -1,
            f"{name}() `num_segments` argument.")
        num_segments = int(np.asarray(top)) + 1
    num_segments = operator.index(num_segments)
    if num_segments < 0:
        raise ValueError("num_segments must be non-negative.")
    return num_segments


def _segment(name, kind, data, segment_ids, num_segments, indices_are_sorted,
             unique_indices, bucket_size, mode):
    data, segment_ids = util.ensure_arraylike(name, data, segment_ids)
    num_segments = _num_segments(name, segment_ids, num_segments)
    rest = data.shape[segment_ids.ndim:]
    start = _identity(kind, np.dtype(data.dtype))
    # Negative ids are out of range, not counted from the end: indices are
    # not normalized.
    options = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                   mode=mode, normalize_indices=False)
    if bucket_size is None:
        out = creation.full((num_segments,) + rest, start, dtype=data.dtype)
        return indexing.scatter_update(out, segment_ids, data, _SCATTER[kind], **options)
    # Rows are reduced within buckets of ``bucket_size`` first, then the
    # per-bucket results are combined: the same values, summed in a
    # different order.
    buckets = -(-segment_ids.size // bucket_size)
    bucket_of = lax_numpy.reshape(
        creation.arange(segment_ids.size) // bucket_size, segment_ids.shape)
    out = creation.full((buckets, num_segments) + rest, start, dtype=data.dtype)
    out = indexing.scatter_update(out, (bucket_of, segment_ids), data, _SCATTER[kind],
                                  **options)
    return _REDUCE[kind](out, axis=0).astype(data.dtype)


def _segment_function(name, kind, what):
    def segment(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
        out = _segment(name, kind, data, segment_ids, num_segments, indices_are_sorted,
                       unique_indices, bucket_size, mode)
        if out_sharding is not None:
            from refjax._src.placement import reshard
            out = reshard(out, out_sharding)
        return out
    segment.__name__ = segment.__qualname__ = name
    segment.__doc__ = (
        f"The {what} of the rows of ``data`` in each segment (SPEC OPS-1).\n\n"
        "``segment_ids`` (integers, the leading shape of ``data``) names each "
        "row's segment; ``num_segments`` defaults to ``max(segment_ids) + 1`` "
        "(concrete ids only).  Empty segments hold the identity; out-of-range "
        "ids are dropped (``mode`` as in ``.at[]``).  ``bucket_size`` reduces "
        "in buckets of rows first (SPEC OPS-2).")
    return segment


segment_sum = _segment_function("segment_sum", "add", "sum")
segment_prod = _segment_function("segment_prod", "mul", "product")
segment_max = _segment_function("segment_max", "max", "maximum")
segment_min = _segment_function("segment_min", "min", "minimum")
