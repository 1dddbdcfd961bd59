"""Dynamic slices: ``dynamic_slice`` and ``dynamic_update_slice`` (SPEC
IDX-2, IDX-11).

A window of an operand at start positions known only at run time.  A
position never raises (XLA cannot raise inside compiled code): every start
is clamped into ``[0, size - window]`` so the window fits (IDX-11).  Under
``vmap`` the two primitives batch as the gather and scatter they are
special cases of (``gather_scatter.py``, VMAP-50 .. VMAP-54).
"""
import operator
from collections.abc import Sequence

import numpy as np

from refjax._src import api, core, dtypes
from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import ad
from refjax._src.interpreters import key_reuse as kr
from refjax._src.lax import lax, shapes
from refjax._src.lax.gather_scatter import (
    GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers,
    _canonicalize_sizes, _dtype_of, _gather_batch, _scatter_batch, scatter_p,
)
from refjax._src.lax.lax import _xp

# ---------------------------------------------------------------------------
# Start indices of dynamic slices (SPEC IDX-11)
# ---------------------------------------------------------------------------

def _dynamic_slice_indices(operand, start_indices, allow_negative_indices):
    """One scalar start per axis, negative ones wrapped by the axis size.

    Static starts (Python or NumPy integers) are wrapped now and become
    int32 (or their own dtype) constants; array starts are wrapped in the
    program with ``select(i < 0, i + size, i)``.  Unsigned starts cannot be
    negative and pass through.  ``allow_negative_indices`` (a bool or one
    per axis) turns wrapping off, as JAX's indexing does after wrapping
    itself.
    """
    aval = core.get_aval(operand)
    if len(start_indices) != aval.ndim:
        raise ValueError("Length of slice indices must match number of operand "
                         f"dimensions ({len(start_indices)} vs {aval.shape})")
    if not isinstance(start_indices, Sequence):
        if core.get_aval(start_indices).ndim != 1:
            raise ValueError("Slice indices must be a 1D sequence, got "
                             f"{core.get_aval(start_indices).shape}")
        start_indices = list(start_indices)
    if isinstance(allow_negative_indices, bool):
        allow_negative_indices = [allow_negative_indices] * len(start_indices)
    return [_wrap_start(i, size, allow)
            for i, size, allow in zip(start_indices, aval.shape,
                                      allow_negative_indices)]


def _wrap_start(i, size, allow_negative):
    dtype = _dtype_of(i)
    if dtypes.issubdtype(dtype, np.unsignedinteger):
        return i
    if isinstance(i, (int, np.integer)):
        if i < 0 and not allow_negative:
            raise ValueError(f"Index {i} is out of bounds for dimension {size} if "
                             "allow_negative_indices=False")
        return lax.convert_element_type(i + size if i < 0 else i, dtype)
    if not allow_negative:
        return i
    size_arr = lax.convert_element_type(size, dtype)
    return lax.select(i < 0, i + size_arr, i)


def _const_like(example, value):
    """``value`` as a constant of ``example``'s dtype (a Python int for a
    Python int, so that it is converted like any static start)."""
    if type(example) is int:
        return int(value)
    return np.array(value, dtype=_dtype_of(example))


def _check_start_dtypes(name, starts, colon):
    """All starts integers of one dtype, or JAX's TypeError."""
    first = starts[0].dtype if starts else None
    if any(s.dtype != first or not dtypes.issubdtype(s.dtype, np.integer)
           for s in starts):
        got = ", ".join(s.dtype.name for s in starts)
        raise TypeError(f"index arguments to {name} must be integers of the same "
                        f"type, got{':' if colon else ''} {got}")


def _clamped_window(starts, shape, window):
    """Python slices of ``window`` at ``starts`` clamped into ``shape``."""
    out = []
    for start, size, want in zip(starts, shape, window):
        lo = min(max(int(start), 0), size - want)
        out.append(slice(lo, lo + want))
    return tuple(out)


# ---------------------------------------------------------------------------
# dynamic_slice (SPEC IDX-2, IDX-11)
# ---------------------------------------------------------------------------

dynamic_slice_p = Primitive("dynamic_slice")


@dynamic_slice_p.def_abstract_eval
def _dynamic_slice_abstract_eval(operand, *starts, slice_sizes):
    if len(slice_sizes) != operand.ndim:
        raise ValueError(f"dynamic_slice: slice_sizes {slice_sizes} must have one "
                         f"entry per operand dimension ({operand.ndim}).")
    if len(starts) != operand.ndim:
        raise ValueError("Length of slice indices must match number of operand "
                         f"dimensions ({len(starts)} vs {operand.shape})")
    if not all(want <= size for size, want in zip(operand.shape, slice_sizes)):
        raise TypeError("slice slice_sizes must be less than or equal to operand "
                        f"shape, got slice_sizes {slice_sizes} for operand shape "
                        f"{operand.shape}.")
    if not all(want >= 0 for want in slice_sizes):
        raise TypeError("slice slice_sizes must be greater than or equal to zero, "
                        f"got slice_sizes of {slice_sizes}.")
    if any(s.ndim for s in starts):
        raise TypeError("start_indices arguments to dynamic_slice must be scalars, "
                        f" got indices {starts}")
    _check_start_dtypes("dynamic_slice", starts, colon=True)
    return ShapedArray(slice_sizes, operand.dtype, operand.weak_type)


@dynamic_slice_p.def_impl
def _dynamic_slice_impl(operand, *starts, slice_sizes):
    if not operand.ndim:
        return operand.copy()
    window = _clamped_window(starts, operand.shape, slice_sizes)
    return _xp().ascontiguousarray(operand[window])


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    """The same window of the tangent; starts are integers, never
    differentiated (SPEC AD-30)."""
    operand, *starts = primals
    out = dynamic_slice_p.bind(operand, *starts, slice_sizes=slice_sizes)
    if type(tangents[0]) is ad.Zero:
        return out, ad.Zero.from_primal_value(out)
    return out, dynamic_slice_p.bind(tangents[0], *starts, slice_sizes=slice_sizes)


def _dynamic_slice_transpose(ct, operand, *starts, slice_sizes):
    """The window's cotangent written into zeros at the same starts: the
    update is clamped exactly as the slice was (SPEC AD-30)."""
    if type(ct) is ad.Zero:
        return ad.zero_cotangents([operand, *starts])
    zeros = lax.full(operand.aval.shape, 0, operand.aval.dtype)
    return [dynamic_update_slice_p.bind(zeros, ct, *starts)] + [None] * len(starts)


dynamic_slice_p.jvp = _dynamic_slice_jvp
dynamic_slice_p.transpose = _dynamic_slice_transpose


def dynamic_slice(operand, start_indices, slice_sizes, *,
                  allow_negative_indices=True):
    """The ``slice_sizes`` window of ``operand`` at ``start_indices``.

    Negative starts count from the end (unless ``allow_negative_indices``
    is False for that axis); then each start is clamped so the window fits:
    ``dynamic_slice(x, (8,), (4,))`` on 10 elements starts at 6 (IDX-11).
    """
    starts = _dynamic_slice_indices(operand, start_indices, allow_negative_indices)
    sizes = _canonicalize_sizes(slice_sizes)
    return dynamic_slice_p.bind(operand, *starts, slice_sizes=sizes)


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0, *,
                         allow_negative_indices=True):
    """``dynamic_slice`` along ``axis``, whole along the other axes."""
    aval = core.get_aval(operand)
    axis = shapes.in_dim_axis(axis, aval.ndim)
    starts = [_const_like(start_index, 0)] * aval.ndim
    sizes = list(aval.shape)
    allow = [False] * aval.ndim
    starts[axis], sizes[axis] = start_index, operator.index(slice_size)
    allow[axis] = allow_negative_indices
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow)


def _dynamic_index_in_dim(operand, index, axis=0, keepdims=True, *,
                          allow_negative_indices=True):
    out = dynamic_slice_in_dim(operand, index, 1, axis,
                               allow_negative_indices=allow_negative_indices)
    return out if keepdims else shapes.squeeze(out, (axis,))


_dynamic_index_in_dim.__name__ = "dynamic_index_in_dim"


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True, *,
                         allow_negative_indices=True):
    """Element ``index`` (maybe traced) of ``axis``; a ``jit`` call as in JAX."""
    return _jitted("dynamic_index_in_dim")(
        operand, index, axis, keepdims,
        allow_negative_indices=allow_negative_indices)


# ---------------------------------------------------------------------------
# dynamic_update_slice (SPEC IDX-11)
# ---------------------------------------------------------------------------

dynamic_update_slice_p = Primitive("dynamic_update_slice")


@dynamic_update_slice_p.def_abstract_eval
def _dynamic_update_slice_abstract_eval(operand, update, *starts):
    if operand.ndim != update.ndim:
        raise TypeError("dynamic_update_slice update must have the same rank as "
                        f"operand, got update shape {update.shape} for operand "
                        f"shape {operand.shape}.")
    if operand.ndim != len(starts):
        raise TypeError("dynamic_update_slice start_indices must have length "
                        f"equal to the rank of operand, got indices {starts} for "
                        f"operand shape {operand.shape}.")
    if not all(u <= o for o, u in zip(operand.shape, update.shape)):
        raise TypeError("dynamic_update_slice update shape must be smaller than "
                        f"operand shape, got update shape {update.shape} for "
                        f"operand shape {operand.shape}.")
    if any(s.ndim for s in starts):
        raise TypeError("start_indices arguments to dynamic_update_slice must be "
                        f"scalars, got indices {starts}")
    if operand.dtype != update.dtype:
        raise TypeError("lax.dynamic_update_slice requires arguments to have the "
                        f"same dtypes, got {operand.dtype.name}, "
                        f"{update.dtype.name}.")
    _check_start_dtypes("dynamic_update_slice", starts, colon=False)
    weak = all(a.weak_type for a in (operand, update, *starts))
    return ShapedArray(operand.shape, operand.dtype, weak)


@dynamic_update_slice_p.def_impl
def _dynamic_update_slice_impl(operand, update, *starts):
    out = operand.copy()
    if not operand.ndim:
        return update.copy()
    out[_clamped_window(starts, operand.shape, update.shape)] = update
    return out


def _dynamic_update_slice_jvp(primals, tangents):
    """Linear in operand and update jointly: the tangent update written into
    the tangent operand at the same starts (SPEC AD-30)."""
    operand, update, *starts = primals
    out = dynamic_update_slice_p.bind(operand, update, *starts)
    t_operand, t_update = tangents[:2]
    if type(t_operand) is ad.Zero and type(t_update) is ad.Zero:
        return out, ad.Zero.from_primal_value(out)
    t_out = dynamic_update_slice_p.bind(ad.instantiate_zeros(t_operand),
                                        ad.instantiate_zeros(t_update), *starts)
    return out, t_out


def _dynamic_update_slice_transpose(ct, operand, update, *starts):
    """The operand gets the cotangent with the overwritten window zeroed;
    the update gets that window (SPEC AD-30)."""
    if type(ct) is ad.Zero:
        return ad.zero_cotangents([operand, update, *starts])
    update_aval = (update.aval if ad.is_undefined_primal(update)
                   else core.get_aval(update))
    ct_operand = ct_update = None
    if ad.is_undefined_primal(operand):
        zeros = lax.full(update_aval.shape, 0, _dtype_of(ct))
        ct_operand = dynamic_update_slice_p.bind(ct, zeros, *starts)
    if ad.is_undefined_primal(update):
        ct_update = dynamic_slice_p.bind(ct, *starts, slice_sizes=update_aval.shape)
    return [ct_operand, ct_update] + [None] * len(starts)


dynamic_update_slice_p.jvp = _dynamic_update_slice_jvp
dynamic_update_slice_p.transpose = _dynamic_update_slice_transpose


def dynamic_update_slice(operand, update, start_indices, *,
                         allow_negative_indices=True):
    """``operand`` with ``update`` written at ``start_indices``.

    Starts are wrapped and clamped as in :func:`dynamic_slice` so the whole
    update lands inside ``operand`` (IDX-11).
    """
    starts = _dynamic_slice_indices(operand, start_indices, allow_negative_indices)
    return dynamic_update_slice_p.bind(operand, update, *starts)


def dynamic_update_slice_in_dim(operand, update, start_index, axis, *,
                                allow_negative_indices=True):
    """``dynamic_update_slice`` with a start along ``axis`` only."""
    ndim = core.get_aval(operand).ndim
    axis = shapes.in_dim_axis(axis, ndim)
    starts = [_const_like(start_index, 0)] * ndim
    starts[axis] = start_index
    allow = [False] * ndim
    allow[axis] = allow_negative_indices
    return dynamic_update_slice(operand, update, starts,
                                allow_negative_indices=allow)


def _dynamic_update_index_in_dim(operand, update, index, axis, *,
                                 allow_negative_indices=True):
    axis = shapes.in_dim_axis(axis, core.get_aval(operand).ndim)
    if core.get_aval(update).ndim != core.get_aval(operand).ndim:
        update = shapes.expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(
        operand, update, index, axis,
        allow_negative_indices=allow_negative_indices)


_dynamic_update_index_in_dim.__name__ = "dynamic_update_index_in_dim"


def dynamic_update_index_in_dim(operand, update, index, axis, *,
                                allow_negative_indices=True):
    """Write ``update`` (with or without the ``axis`` dimension) at ``index``."""
    return _jitted("dynamic_update_index_in_dim")(
        operand, update, index, axis,
        allow_negative_indices=allow_negative_indices)


_JITTED = {}
_JIT_SPECS = {
    "dynamic_index_in_dim": (_dynamic_index_in_dim,
                             ("axis", "keepdims", "allow_negative_indices")),
    "dynamic_update_index_in_dim": (_dynamic_update_index_in_dim,
                                    ("axis", "allow_negative_indices")),
}


def _jitted(name):
    """JAX wraps these helpers in ``jit`` (they print as ``jit[name=...]``);
    built on first use because ``api`` imports this package."""
    fn = _JITTED.get(name)
    if fn is None:
        body, static = _JIT_SPECS[name]
        fn = _JITTED[name] = api.jit(body, static_argnames=static)
    return fn


def _batched_start_vector(starts, dims, size):
    """The scalar starts of a dynamic slice as gather / scatter indices.

    Unbatched: one vector ``(n,)`` (``broadcast`` + ``concatenate``), batch
    dim None.  Some batched: a ``(size, n)`` matrix, each start a column
    (broadcast along the batch where it is unbatched), batch dim 0.  All
    starts share one dtype (the primitive checked it)."""
    if not starts:
        return np.zeros((0,), np.int32), None
    if all(d is None for d in dims):
        return shapes.concatenate([shapes.broadcast(s, (1,)) for s in starts], 0), None
    columns = [shapes.broadcast_in_dim(s, (size, 1), () if d is None else (0,))
               for s, d in zip(starts, dims)]
    return shapes.concatenate(columns, 1), 0


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


def _zero_starts(starts, aval):
    """Start indices 0 for the key-data axes (SPEC RNG-20)."""
    like = starts[0] if starts else np.int32(0)
    return [_xp().zeros((), dtype=getattr(like, "dtype", np.int32))] * len(aval.dtype.data_shape)


def _dynamic_slice_physical(b, ai, ao, *, slice_sizes):
    operand, *starts = b
    return dynamic_slice_p.impl(operand, *starts, *_zero_starts(starts, ai[0]),
                                slice_sizes=tuple(slice_sizes) + ai[0].dtype.data_shape)


dynamic_slice_p.physical = _dynamic_slice_physical
dynamic_slice_p.key_reuse = kr.FORWARD   # SPEC RNG-66


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


def _dynamic_update_slice_physical(b, ai, ao):
    operand, update, *starts = b
    return dynamic_update_slice_p.impl(operand, update, *starts, *_zero_starts(starts, ai[0]))


dynamic_update_slice_p.physical = _dynamic_update_slice_physical
# The update is consumed; the result is the operand's keys (RNG-66).
dynamic_update_slice_p.key_reuse = kr.KeyReuseSignature(kr.Sink(1), kr.Forward(0, 0))
