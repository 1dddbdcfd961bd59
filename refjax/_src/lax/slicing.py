"""Dynamic slicing: ``dynamic_slice`` (SPEC IDX-2).

Start indices are traced scalars; the window size is static.  Starts are
clamped so the window lies inside the operand (``[0, size - slice_size]``),
so reading never fails, as in XLA.  (``dynamic_update_slice``, ``gather``
and ``scatter`` arrive with the indexing issue.)
"""
import operator

import numpy as np

from refjax._src import backend as _backend
from refjax._src import core
from refjax._src.core import Primitive, ShapedArray

dynamic_slice_p = Primitive("dynamic_slice")


@dynamic_slice_p.def_abstract_eval
def _dynamic_slice_abstract_eval(operand, *starts, slice_sizes):
    if len(starts) != operand.ndim or len(slice_sizes) != operand.ndim:
        raise TypeError("dynamic_slice: the number of start indices and slice sizes "
                        f"must equal the operand rank {operand.ndim}, got "
                        f"{len(starts)} start indices and slice_sizes {slice_sizes}.")
    for s in starts:
        if s.shape != () or s.dtype.kind not in "iu":
            raise TypeError("dynamic_slice start_indices must be scalar integers, "
                            f"got {s.str_short()}.")
    for size, want in zip(operand.shape, slice_sizes):
        if not 0 <= want <= size:
            raise TypeError("slice slice_sizes must be less than or equal to operand "
                            f"shape, got slice_sizes {slice_sizes} for operand shape "
                            f"{operand.shape}.")
    return ShapedArray(slice_sizes, operand.dtype, operand.weak_type)


@dynamic_slice_p.def_impl
def _dynamic_slice_impl(operand, *starts, slice_sizes):
    window = []
    for start, size, want in zip(starts, operand.shape, slice_sizes):
        lo = min(max(int(start), 0), size - want)
        window.append(slice(lo, lo + want))
    return _backend.get().xp.ascontiguousarray(operand[tuple(window)]) \
        if operand.ndim else operand.copy()


def dynamic_slice(operand, start_indices, slice_sizes):
    """The ``slice_sizes`` window of ``operand`` at (clamped) ``start_indices``."""
    sizes = tuple(operator.index(s) for s in slice_sizes)
    return dynamic_slice_p.bind(operand, *start_indices, slice_sizes=sizes)


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0):
    """``dynamic_slice`` along one axis, whole along the others."""
    aval = core.get_aval(operand)
    axis = core.canonicalize_axis(axis, aval.ndim)
    starts = [np.int32(0)] * aval.ndim
    sizes = list(aval.shape)
    starts[axis], sizes[axis] = start_index, slice_size
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True):
    """Element ``index`` (traced) of axis ``axis``."""
    from refjax._src.lax import lax
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    if keepdims:
        return out
    return lax.squeeze(out, (core.canonicalize_axis(axis, core.get_aval(operand).ndim),))
