"""Basic (static) NumPy indexing of Arrays (SPEC IDX-1).

Integers, slices, ``None`` and ``Ellipsis`` are static: they lower to one
``slice`` (with strides when a step is not 1), a ``rev`` for negative steps,
a ``squeeze`` for integer positions and a ``broadcast_in_dim`` for new axes,
exactly the equations JAX records for them.  Array and traced indices need
the ``gather`` primitive and are not supported yet.
"""
import operator

import numpy as np

from refjax._src import core
from refjax._src.lax import lax


def getitem(arr, index):
    """``arr[index]``: static indices, or scalar integer array indices."""
    aval = core.get_aval(arr)
    entries = _expand(index, aval.ndim)
    if any(_is_dynamic_int(e) for e in entries):
        return _dynamic_getitem(arr, aval, entries)
    starts, limits, strides, reversed_, squeezed = [], [], [], [], []
    kept_axes = 0
    for axis, entry in enumerate(e for e in entries if e is not None):
        size = aval.shape[axis]
        if isinstance(entry, slice):
            lo, hi, step, flip = _slice_bounds(entry, size)
            if flip:
                reversed_.append(axis)
        else:
            i = _static_int(entry, axis, size)
            lo, hi, step = i, i + 1, 1
            squeezed.append(axis)
        starts.append(lo)
        limits.append(hi)
        strides.append(step)
        kept_axes += 1
    out = arr
    if starts and (starts != [0] * len(starts) or limits != list(aval.shape)
                   or any(s != 1 for s in strides)):
        out = lax.slice(out, starts, limits,
                        None if all(s == 1 for s in strides) else strides)
    if reversed_:
        out = lax.rev(out, reversed_)
    if squeezed:
        out = lax.squeeze(out, squeezed)
    if any(e is None for e in entries):
        out = _insert_new_axes(out, entries)
    return out


def _is_dynamic_int(e):
    """A scalar integer array (traced or concrete) used as an index."""
    if isinstance(e, (core.Tracer, core.ArrayImpl, np.ndarray)):
        return np.ndim(e) == 0 if not isinstance(e, core.Tracer) else e.ndim == 0
    return False


def _dynamic_getitem(arr, aval, entries):
    """Scalar integer array indices with unit-step slices (SPEC IDX-2).

    Lowered as JAX lowers them: indices lose their weak type, each start is
    wrapped once (``select_n(i < 0, i, i + size)``), one ``dynamic_slice``
    reads the window and a ``squeeze`` drops the integer-indexed axes.
    """
    if any(e is None for e in entries) or any(
            isinstance(e, slice) and e.step not in (None, 1) for e in entries):
        raise NotImplementedError(
            "refjax does not yet combine traced indices with None or strided "
            "slices (that needs gather, which arrives with the indexing issue).")
    dynamic = {k: lax._convert_element_type(e, None, False)
               for k, e in enumerate(entries) if _is_dynamic_int(e)}
    starts, sizes, squeezed = [], [], []
    for axis, (e, size) in enumerate(zip(entries, aval.shape)):
        if isinstance(e, slice):
            lo, hi, _ = e.indices(size)
            start, width = np.int32(lo), max(hi - lo, 0)
        else:
            start, width = dynamic.get(axis, np.int32(operator.index(e) if axis not in dynamic else 0)), 1
            squeezed.append(axis)
        dt = core.get_aval(start).dtype
        wrapped = lax.select_n(lax.lt(start, np.array(0, dt)), start,
                               lax.add(start, np.array(size, dt)))
        starts.append(wrapped)
        sizes.append(width)
    from refjax._src.lax.slicing import dynamic_slice
    out = dynamic_slice(arr, starts, sizes)
    return lax.squeeze(out, squeezed) if squeezed else out


def _expand(index, ndim):
    """The index as a tuple with Ellipsis expanded into full slices."""
    entries = list(index) if isinstance(index, tuple) else [index]
    for e in entries:
        _check_static(e)
    if sum(e is Ellipsis for e in entries) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(e is not None and e is not Ellipsis for e in entries)
    if used > ndim:
        raise IndexError(f"Too many indices: array is {ndim}-dimensional, but "
                         f"{used} were indexed")
    fill = [slice(None)] * (ndim - used)
    if Ellipsis in [e for e in entries if not _is_array_like(e)]:
        at = next(i for i, e in enumerate(entries) if e is Ellipsis)
        return entries[:at] + fill + entries[at + 1:]
    return entries + fill


def _is_array_like(e):
    return isinstance(e, (np.ndarray, core.Array))


def _check_static(entry):
    if entry is None or entry is Ellipsis or isinstance(entry, slice):
        if isinstance(entry, slice):
            for part in (entry.start, entry.stop, entry.step):
                if part is not None:
                    _static_part(part)
        return
    if isinstance(entry, core.Tracer) or _is_array_like(entry) or isinstance(entry, (list, bool)):
        if _is_dynamic_int(entry) and np.dtype(entry.dtype).kind in "iu":
            return
        raise NotImplementedError(
            "refjax indexes only with static integers, slices, None and "
            f"Ellipsis so far; got an index of type {type(entry).__name__}. "
            "Array, boolean and traced indices need the gather primitive, which "
            "is not implemented yet.")
    try:
        operator.index(entry)
    except TypeError:
        raise IndexError(
            "Indexer must be a static integer, slice, None or Ellipsis; got "
            f"{entry!r} of type {type(entry).__name__}.") from None


def _static_part(part):
    if isinstance(part, core.Tracer):
        raise NotImplementedError(
            "refjax does not support traced slice bounds yet (they need "
            "dynamic_slice); use static Python integers.")
    return operator.index(part)


def _static_int(entry, axis, size):
    """A static integer index; out-of-bounds ones clamp, as JAX's reads do.

    (JAX lowers those to a clamped ``dynamic_slice``; refjax gives the same
    values with a static ``slice`` until issue 4 brings dynamic slices.)
    """
    i = operator.index(entry)
    if i < 0:
        i += size
    return min(max(i, 0), size - 1)


def _slice_bounds(s, size):
    """(start, limit, stride, reversed) of the forward slice covering ``s``."""
    start, stop, step = slice(*(None if p is None else _static_part(p)
                                for p in (s.start, s.stop, s.step))).indices(size)
    if step > 0:
        return start, max(start, stop), step, False
    count = len(range(start, stop, step))
    if count == 0:
        return 0, 0, 1, False
    low = start + (count - 1) * step
    return low, start + 1, -step, True


def _insert_new_axes(out, entries):
    """Add the size-1 axes asked for by ``None`` entries."""
    shape, dims, src = [], [], 0
    old_shape = core.get_aval(out).shape
    for e in entries:
        if e is None:
            shape.append(1)
        elif isinstance(e, slice):
            dims.append(len(shape))
            shape.append(old_shape[src])
            src += 1
    return lax.broadcast_in_dim(out, tuple(shape), tuple(dims))
