"""NumPy indexing of Arrays and the indexed updates behind ``.at[]``
(SPEC IDX-1 .. IDX-9, IDX-20 .. IDX-29).

``x[index]`` is lowered the way JAX lowers it, so jaxprs print alike:

1. The index is parsed into one entry per position (``_parse``): integers,
   slices, ``None``, ``Ellipsis``, integer arrays, boolean masks.  Lists at
   the top level and unsupported objects raise JAX's errors here.
2. If only static integers (in bounds), slices, ``None`` and ``Ellipsis``
   appear, one ``slice`` (+ ``rev``, ``squeeze``, ``broadcast_in_dim``) reads
   the result (``_static_slice``, SPEC IDX-1).
3. Otherwise, if every array index is a scalar and slices have unit steps,
   one ``dynamic_slice`` does (``_dynamic_slice``, SPEC IDX-2); its starts are
   clamped, so out-of-bounds integers read the nearest element.
4. Anything else becomes one ``gather`` (``_index_to_gather``, SPEC IDX-3):
   concrete boolean masks first turn into integer arrays, integer arrays are
   broadcast together and placed by NumPy's advanced-indexing rule.

A ``jax.ds(start, size, stride)`` entry (``Slice``, SPEC API-30) takes
step 3 when its stride is 1 and step 4 otherwise, its start possibly traced.

Indexed updates (``x.at[idx].add(y)``) reuse step 4 and bind the matching
``scatter`` primitive with the gather's dimension numbers transposed
(``scatter_update``, SPEC IDX-20).
"""
import enum
import operator
import warnings
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from refjax._src import config as _config
from refjax._src import core, dtypes, errors, tree_util
from refjax._src.array import Array
from refjax._src.lax import dynamic_slice as lax_dynamic_slice
from refjax._src.lax import gather_scatter, lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.numpy import creation as creation
from refjax._src.numpy import util

# ---------------------------------------------------------------------------
# Parsing (SPEC IDX-3, IDX-8)
# ---------------------------------------------------------------------------

class IndexType(enum.Enum):
    """What one entry of an index tuple is."""
    NONE = "none"
    SLICE = "slice"
    ELLIPSIS = "ellipsis"
    INTEGER = "integer"
    BOOLEAN = "boolean"
    ARRAY = "array"
    DYNAMIC_SLICE = "dynamic_slice"


@tree_util.register_pytree_node_class
class Slice:
    """``jax.ds(start, size, stride)``: ``size`` elements from ``start``
    (static or traced) every ``stride`` (static) (SPEC API-30).

    As a pytree, a traced or Array ``start``/``size`` is a child and a
    static one is part of the structure, as in JAX."""

    __slots__ = ("start", "size", "stride")
    __hash__ = None

    def __init__(self, start, size, stride=1):
        if stride < 0:
            raise ValueError("`stride` must be >= 0.")
        self.start, self.size, self.stride = start, size, stride

    def __repr__(self):
        return f"Slice(start={self.start}, size={self.size}, stride={self.stride})"

    def __eq__(self, other):
        if type(other) is not Slice:
            return NotImplemented
        return ((self.start, self.size, self.stride)
                == (other.start, other.size, other.stride))

    @staticmethod
    def _static(v):
        """Whether ``v`` is a concrete integer (as ``core.is_dim`` in JAX)."""
        if isinstance(v, core.Tracer):
            return False
        try:
            operator.index(v)
        except TypeError:
            return False
        return True

    def tree_flatten(self):
        parts = (self.start, self.size)
        children = tuple(None if self._static(v) else v for v in parts)
        aux = tuple(v if self._static(v) else None for v in parts)
        return children, aux + (self.stride,)

    @classmethod
    def tree_unflatten(cls, aux, children):
        start, size = (a if c is None else c for c, a in zip(children, aux[:2]))
        return cls(start, size, aux[2])


def ds(start, size=None, stride=None):
    """A ``Slice`` read like the builtin ``slice`` (SPEC API-30):
    ``ds(None)`` is ``:``, ``ds(j)`` is ``:j``, ``ds(i, n)`` is ``i:i+n``
    and ``ds(i, n, s)`` is ``i:i+n*s:s``, where ``i`` may be traced."""
    if start is None:
        return slice(None)
    if stride is None:
        stride = 1
    if not isinstance(stride, int):
        raise ValueError("Non-static stride in `dslice`")
    if size is None:
        start, size = 0, start
    return Slice(start, size, stride)


dslice = ds


class ParsedIndex(NamedTuple):
    """One index entry, its kind and the array axes it consumes."""
    index: object
    typ: IndexType
    consumed_axes: tuple


_LIST_INDEX_MSG = (
    "Using a non-tuple sequence for multidimensional indexing is not allowed; "
    "use `arr[{}(seq)]` instead of `arr[seq]`. "
    "See https://github.com/jax-ml/jax/issues/4564 for more information.")


def _as_tuple(index):
    """The index as a tuple; a top-level list (or other non-tuple sequence)
    raises ``TypeError``, as in JAX (NumPy's list heuristics are not kept)."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, Sequence) and not isinstance(index, (Array, np.ndarray, str)):
        # Entries that NumPy would read as a multidimensional index suggest
        # ``tuple(seq)``; anything else suggests ``array(seq)``.
        multi = any(isinstance(e, (Sequence, slice)) or e is None or e is Ellipsis
                    or (isinstance(e, (Array, np.ndarray)) and np.ndim(e) != 0)
                    for e in index)
        raise TypeError(_LIST_INDEX_MSG.format("tuple" if multi else "array"))
    return (index,)


def _is_integer_index(e):
    return isinstance(e, (int, np.integer)) and not isinstance(e, (bool, np.bool_))


def _is_scalar(e):
    return np.isscalar(e) or (isinstance(e, (np.ndarray, Array)) and np.ndim(e) == 0)


def _is_boolean_index(e):
    """A boolean array, scalar or a non-empty list of boolean scalars."""
    if isinstance(e, list):
        return bool(e) and all(_is_scalar(v) and dtypes.dtype_and_weak_type(v)[0]
                               == np.bool_ for v in e)
    try:
        return core.get_aval(e).dtype == np.bool_
    except TypeError:
        return False


def _index_type(e):
    """The ``IndexType`` of one entry, or JAX's error for an invalid one."""
    if e is None:
        return IndexType.NONE
    if e is Ellipsis:
        return IndexType.ELLIPSIS
    if isinstance(e, slice):
        return IndexType.SLICE
    if isinstance(e, Slice):
        return IndexType.DYNAMIC_SLICE
    if _is_integer_index(e):
        return IndexType.INTEGER
    if _is_boolean_index(e):
        return IndexType.BOOLEAN
    if isinstance(e, (Array, np.ndarray)):
        if dtypes.issubdtype(e.dtype, np.integer):
            return IndexType.ARRAY
        raise TypeError("Indexer must have integer or boolean type, got indexer "
                        f"with type {e.dtype}")
    if isinstance(e, str):
        raise TypeError(f"JAX does not support string indexing; got idx={e!r}")
    if isinstance(e, Sequence):
        return _sequence_index_type(e)
    if isinstance(e, (float, complex, np.generic)):
        raise TypeError("Indexer must have integer or boolean type, got indexer "
                        f"with type {np.dtype(type(e))}")
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), newaxis (`None`)"
                     f" and integer or boolean arrays are valid indices. Got {e}")


def _sequence_index_type(seq):
    """A nested sequence inside an index tuple is read as an array."""
    if not seq:
        return IndexType.ARRAY
    try:
        dt = creation.asarray(seq).dtype
    except ValueError:
        # JAX stacks the rows and fails on their lengths: a TypeError (IDX-38).
        raise TypeError(f"Index entry {seq!r} is a ragged sequence: its rows have "
                        "different lengths. Use a rectangular nested list or an "
                        "integer array.") from None
    if dt == np.bool_:
        return IndexType.BOOLEAN
    if dtypes.issubdtype(dt, np.integer):
        return IndexType.ARRAY
    raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {dt}")


def _parse(index, shape):
    """One ``ParsedIndex`` per entry of ``index`` (SPEC IDX-8).

    An entry consumes one axis (integers, slices, integer arrays), as many
    as its rank (boolean masks) or none (``None``, ``Ellipsis``: that one
    consumes whatever the others leave).
    """
    entries = _as_tuple(index)
    types = [_index_type(e) for e in entries]
    counts = [np.ndim(e) if t is IndexType.BOOLEAN else
              0 if t in (IndexType.NONE, IndexType.ELLIPSIS) else 1
              for e, t in zip(entries, types)]
    ellipses = [i for i, t in enumerate(types) if t is IndexType.ELLIPSIS]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(counts)
    if used > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, "
                         f"but {used} were indexed")
    if ellipses:
        counts[ellipses[0]] = len(shape) - used
    parsed, axis = [], 0
    for e, t, n in zip(entries, types, counts):
        parsed.append(ParsedIndex(e, t, tuple(range(axis, axis + n))))
        axis += n
    return parsed


def _expand_ellipsis(parsed, shape):
    """The entries with ``Ellipsis`` and the implicit trailing axes spelled
    out as full slices."""
    out, used = [], 0
    for p in parsed:
        used += len(p.consumed_axes)
        if p.typ is IndexType.ELLIPSIS:
            out.extend(ParsedIndex(slice(None), IndexType.SLICE, (a,))
                       for a in p.consumed_axes)
        else:
            out.append(p)
    out.extend(ParsedIndex(slice(None), IndexType.SLICE, (a,))
               for a in range(used, len(shape)))
    return out


def _is_concrete(x):
    return not isinstance(x, core.Tracer)


def _expand_bool_indices(parsed, shape):
    """Concrete boolean masks become one integer array per masked axis
    (``np.nonzero``); traced masks raise ``NonConcreteBooleanIndexError``
    (SPEC IDX-5).  Scalar booleans stay (see ``_expand_scalar_bools``)."""
    out = []
    for position, p in enumerate(parsed):
        if p.typ is not IndexType.BOOLEAN:
            out.append(p)
            continue
        if not _is_concrete(p.index):
            raise errors.NonConcreteBooleanIndexError(
                "Array boolean indices must be concrete; got "
                f"{core.get_aval(p.index).str_short()}\n")
        if np.ndim(p.index) == 0:
            out.append(ParsedIndex(bool(p.index), p.typ, ()))
            continue
        got = np.shape(p.index)
        want = [shape[a] for a in p.consumed_axes]
        if not all(g in (0, w) for g, w in zip(got, want)):
            raise IndexError("boolean index did not match shape of indexed array in "
                             f"index {position}: got {got}, expected {want}")
        hits = np.nonzero(np.asarray(p.index))
        out.extend(ParsedIndex(h, IndexType.ARRAY, (a,))
                   for h, a in zip(hits, p.consumed_axes))
    return out


def _check_static_slices(parsed):
    """Slice bounds must be static (IndexError otherwise, SPEC IDX-8)."""
    for position, p in enumerate(parsed):
        if p.typ is IndexType.SLICE and not all(
                v is None or _is_concrete(v)
                for v in (p.index.start, p.index.stop, p.index.step)):
            raise IndexError("Slice entries must be static integers. "
                             f"Got {p.index} at position {position}")


def _parse_mode(mode):
    return gather_scatter.GatherScatterMode.from_any(mode)


def _index_dtype(shape):
    """int32, or int64 for an axis too long for int32 (as JAX picks)."""
    return np.dtype(np.int64 if any(d > np.iinfo(np.int32).max for d in shape)
                    else np.int32)


# ---------------------------------------------------------------------------
# x[index] (SPEC IDX-1 .. IDX-3)
# ---------------------------------------------------------------------------

def getitem(arr, index):
    """``arr[index]`` (``Array.__getitem__``)."""
    return rewriting_take(arr, index)


def rewriting_take(arr, index, *, indices_are_sorted=False, unique_indices=False,
                   mode=None, fill_value=None, normalize_indices=True):
    """``arr[index]`` by the first strategy that applies: a static ``slice``,
    a ``dynamic_slice``, else a ``gather`` (SPEC IDX-3)."""
    shape = core.get_aval(arr).shape
    parsed = _parse(index, shape)
    if _config.states["jax_check_static_indices"].value and (
            mode is None or _parse_mode(mode)
            is gather_scatter.GatherScatterMode.PROMISE_IN_BOUNDS):
        # SPEC CFG-24: static integers out of bounds raise IndexError.
        _check_static_ints_in_bounds(parsed, shape, normalize_indices)
    try:
        plan = _static_slice_plan(parsed, shape, mode, normalize_indices)
    except (TypeError, ValueError, IndexError):
        pass
    else:
        return _static_slice(arr, shape, plan)
    try:
        plan = _dynamic_slice_plan(parsed, shape, mode)
    except (TypeError, ValueError, IndexError):
        pass
    else:
        return _dynamic_slice(arr, plan, normalize_indices)
    parsed = _expand_bool_indices(parsed, shape)
    return _gather(arr, parsed, shape, indices_are_sorted=indices_are_sorted,
                   unique_indices=unique_indices, mode=mode, fill_value=fill_value,
                   normalize_indices=normalize_indices)


# -- static slices (SPEC IDX-1) ---------------------------------------------

class _StaticPlan(NamedTuple):
    starts: list
    limits: list
    strides: object
    rev_axes: list
    squeeze_axes: list
    newaxis_dims: list


def _static_slice_plan(parsed, shape, mode, normalize_indices):
    """The ``slice`` covering a static index, or an error if there is none.

    In the default mode an out-of-bounds integer raises here, so it is read
    with a (clamped) ``dynamic_slice`` instead; ``mode='clip'`` clamps it
    statically.
    """
    parsed_mode = (gather_scatter.GatherScatterMode.PROMISE_IN_BOUNDS if mode is None
                   else _parse_mode(mode))
    if parsed_mode not in (gather_scatter.GatherScatterMode.PROMISE_IN_BOUNDS,
                           gather_scatter.GatherScatterMode.CLIP):
        raise ValueError("static_slice requires mode='promise_in_bounds' or mode='clip'")
    if parsed_mode is gather_scatter.GatherScatterMode.PROMISE_IN_BOUNDS:
        _check_static_ints_in_bounds(parsed, shape, normalize_indices)
    _check_static_slices(parsed)
    for position, p in enumerate(parsed):
        if p.typ in (IndexType.ARRAY, IndexType.BOOLEAN, IndexType.DYNAMIC_SLICE):
            raise TypeError("static_slice: indices must be static scalars or slices. "
                            f"Got index of type {type(p.index)} at position {position}")
    plan = _StaticPlan([], [], [], [], [], [])
    for p in _expand_ellipsis(parsed, shape):
        if p.typ is IndexType.NONE:
            # Positions count in the result after squeezing, including the
            # new axes already inserted.
            plan.newaxis_dims.append(len(plan.starts) - len(plan.squeeze_axes)
                                     + len(plan.newaxis_dims))
            continue
        axis, = p.consumed_axes
        size = shape[axis]
        if p.typ is IndexType.INTEGER:
            if size == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            i = int(p.index)
            if normalize_indices and i < 0:
                i += size
            i = min(max(i, 0), size - 1)
            plan.starts.append(i)
            plan.limits.append(i + 1)
            plan.strides.append(1)
            plan.squeeze_axes.append(axis)
        else:
            start, stop, step = p.index.indices(size)
            if step < 0:
                # The same elements read forwards, then reversed.
                low = min(size, stop + 1 + abs(start - stop - 1) % -step)
                plan.starts.append(low)
                plan.limits.append(max(low, start + 1))
                plan.strides.append(-step)
                plan.rev_axes.append(axis)
            else:
                plan.starts.append(start)
                plan.limits.append(max(start, stop))
                plan.strides.append(step)
    if all(s == 1 for s in plan.strides):
        plan = plan._replace(strides=None)
    return plan


def _check_static_ints_in_bounds(parsed, shape, normalize_indices):
    for p in parsed:
        if p.typ is IndexType.INTEGER:
            i = operator.index(p.index)
            axis, = p.consumed_axes
            size = shape[axis]
            normed = i + size if normalize_indices and i < 0 else i
            if not 0 <= normed < size:
                raise IndexError(f"index {i} out of bounds for axis {axis} with size "
                                 f"{size} (normalize_indices={normalize_indices})")


def _static_slice(arr, shape, plan):
    out = arr
    trivial = plan.strides is None and len(plan.starts) == len(shape) and all(
        (lo, hi) == (0, n) for lo, hi, n in zip(plan.starts, plan.limits, shape))
    if not trivial:
        out = lax_shapes.slice(out, plan.starts, plan.limits, plan.strides)
    return _reverse_squeeze_expand(out, plan)


def _reverse_squeeze_expand(out, plan):
    """The steps after a (dynamic) slice: reverse negative-step axes, drop
    integer-indexed axes, insert ``None`` axes -- in JAX's order."""
    if plan.rev_axes:
        out = lax_shapes.rev(out, plan.rev_axes)
    if plan.squeeze_axes:
        out = lax_shapes.squeeze(out, plan.squeeze_axes)
    if plan.newaxis_dims:
        out = lax_shapes.expand_dims(out, plan.newaxis_dims)
    return out


# -- dynamic slices (SPEC IDX-2) --------------------------------------------

class _DynamicPlan(NamedTuple):
    starts: list
    sizes: list
    rev_axes: list
    squeeze_axes: list
    newaxis_dims: list
    trivial: bool


def _dynamic_slice_plan(parsed, shape, mode):
    """The ``dynamic_slice`` reading an index of scalars and unit-step
    slices, or an error if there is none."""
    if mode is not None and _parse_mode(mode) not in (
            gather_scatter.GatherScatterMode.PROMISE_IN_BOUNDS, gather_scatter.GatherScatterMode.CLIP):
        raise ValueError("dynamic_slice requires mode='promise_in_bounds' or mode='clip'")
    for position, p in enumerate(parsed):
        bad = (p.typ is IndexType.BOOLEAN
               or p.typ is IndexType.SLICE and p.index.step not in (None, 1, -1)
               or p.typ is IndexType.DYNAMIC_SLICE and p.index.stride != 1
               or p.typ is IndexType.ARRAY and (isinstance(p.index, Sequence)
                                                or np.shape(p.index) != ()))
        if bad:
            raise TypeError("dynamic_slice: only scalar indices and unit-step slices "
                            f"allowed. Got index of type {type(p.index)} at position "
                            f"{position}")
    plan = _DynamicPlan([], [], [], [], [], True)
    trivial = True
    for p in _expand_ellipsis(parsed, shape):
        if p.typ is IndexType.NONE:
            plan.newaxis_dims.append(len(plan.starts) - len(plan.squeeze_axes)
                                     + len(plan.newaxis_dims))
            continue
        axis, = p.consumed_axes
        size = shape[axis]
        if p.typ in (IndexType.INTEGER, IndexType.ARRAY):
            trivial = False
            if size == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            plan.starts.append(creation.asarray(p.index))
            plan.sizes.append(1)
            plan.squeeze_axes.append(axis)
            continue
        if p.typ is IndexType.DYNAMIC_SLICE:
            trivial = False
            start = p.index.start
            # A static start stays a Python int, as JAX keeps it.
            plan.starts.append(start if Slice._static(start) and not isinstance(
                start, Array) else creation.asarray(start))
            plan.sizes.append(_static_size(p.index.size))
            continue
        if p.index != slice(None):
            trivial = False
        start, stop, step = p.index.indices(size)
        if step < 0:
            low = stop + 1
            plan.starts.append(low)
            plan.sizes.append(max(0, start + 1 - low))
            plan.rev_axes.append(axis)
        else:
            plan.starts.append(start)
            plan.sizes.append(max(0, stop - start))
    if len(plan.starts) > 1:
        # dynamic_slice needs one dtype for all its start indices.
        dt = _index_dtype(shape)
        plan.starts[:] = [lax.convert_element_type(s, dt) for s in plan.starts]
    return plan._replace(trivial=trivial)


def _static_size(size):
    """A ``Slice``'s size, which shapes the result, must be static."""
    if isinstance(size, core.Tracer):
        raise TypeError(
            "Shapes must be 1D sequences of concrete values of integer type, got "
            f"[{size}].\nIf using `jit`, try using `static_argnums` or applying "
            "`jit` to smaller subfunctions.")
    return operator.index(size)


def _dynamic_slice(arr, plan, normalize_indices):
    out = arr
    if not plan.trivial:
        out = lax_dynamic_slice.dynamic_slice(arr, plan.starts, plan.sizes,
                                    allow_negative_indices=normalize_indices)
    return _reverse_squeeze_expand(out, plan)


# -- gather (SPEC IDX-3, IDX-4) ----------------------------------------------

class _GatherPlan(NamedTuple):
    slice_shape: list         # shape of arr[index]
    gather_slice_shape: list  # slice_sizes of the gather
    indices: object           # the gather's start indices
    dnums: object             # GatherDimensionNumbers
    unique_indices: bool      # true when no advanced index is present
    indices_are_sorted: bool
    reversed_y_dims: list     # result axes read backwards (negative steps)
    newaxis_dims: list        # axes added by None
    scalar_bool_dims: list    # axes added for scalar boolean indices


def _gather(arr, parsed, shape, *, indices_are_sorted, unique_indices, mode,
            fill_value, normalize_indices):
    """``arr[index]`` as one ``gather``, then ``rev`` and new axes."""
    plan = _index_to_gather(parsed, shape, normalize_indices)
    if fill_value is not None:
        core.concrete_or_error(None, fill_value, "fill_value argument to indexed get()")
        if np.ndim(fill_value) != 0:
            raise ValueError("fill_value argument to indexed get() must be a scalar")
        if isinstance(fill_value, np.ndarray):
            fill_value = fill_value.item()
    y = arr
    if plan.scalar_bool_dims:
        y = lax_shapes.expand_dims(y, plan.scalar_bool_dims)
    if 0 in plan.slice_shape:
        return lax.full_like(y, 0, shape=tuple(plan.slice_shape))
    if 0 not in np.shape(plan.indices):
        y = gather_scatter.gather(y, plan.indices, plan.dnums, tuple(plan.gather_slice_shape),
                           unique_indices=unique_indices or plan.unique_indices,
                           indices_are_sorted=indices_are_sorted or plan.indices_are_sorted,
                           mode=mode, fill_value=fill_value)
    if plan.reversed_y_dims:
        y = lax_shapes.rev(y, plan.reversed_y_dims)
    return lax_shapes.expand_dims(y, plan.newaxis_dims) if plan.newaxis_dims else y


def _is_unsigned(index_array):
    return dtypes.issubdtype(index_array.dtype, np.unsignedinteger)


def _normalize_array_indices(parsed, shape):
    """Negative integers (static or in arrays) counted from the end."""
    out = []
    for p in parsed:
        if p.typ is IndexType.INTEGER and not isinstance(p.index, np.unsignedinteger):
            size = shape[p.consumed_axes[0]]
            out.append(p._replace(index=p.index + size if p.index < 0 else p.index))
        elif p.typ is IndexType.ARRAY and not _is_unsigned(p.index):
            i = p.index
            size = util._const(i, shape[p.consumed_axes[0]])
            # NumPy arrays compare with NumPy, as in JAX: the mask is a constant.
            out.append(p._replace(index=lax.select(i < 0, lax.add(i, size), i)))
        else:
            out.append(p)
    return out


def _expand_scalar_bools(parsed, shape):
    """``x[True]``/``x[False]``: a new size-1 axis indexed by ``arange(1)``
    or ``arange(0)``.  Returns the new entries and the widened shape."""
    shape, out, axis = list(shape), [], 0
    for i, p in enumerate(parsed):
        if p.typ is IndexType.BOOLEAN:
            shape.insert(i, 1)
            out.append(ParsedIndex(np.arange(int(p.index)), IndexType.ARRAY, (axis,)))
            axis += 1
        else:
            n = len(p.consumed_axes)
            out.append(p._replace(consumed_axes=tuple(range(axis, axis + n))))
            axis += n
    return out, tuple(shape)


def _advanced_axes_are_contiguous(parsed):
    """NumPy's placement rule: advanced indices (arrays and integers, when any
    array is present) that sit next to each other put their broadcast shape
    where they stand; separated ones put it first."""
    positions = [i for i, p in enumerate(parsed)
                 if p.typ in (IndexType.ARRAY, IndexType.INTEGER)]
    return all(b - a == 1 for a, b in zip(positions, positions[1:]))


def _index_to_gather(parsed, shape, normalize_indices=True):
    """The gather (and the fix-ups after it) that reads ``arr[index]``.

    Every integer, integer array and non-trivial slice contributes columns
    of the gather's start indices; full unit-step slices and ``None`` are
    windows (``offset_dims``) or new axes (SPEC IDX-3, IDX-4).
    """
    _check_static_slices(parsed)
    parsed = [p._replace(index=creation.asarray(p.index))
              if isinstance(p.index, Sequence) else p for p in parsed]
    contiguous = _advanced_axes_are_contiguous(parsed)
    parsed = _expand_ellipsis(parsed, shape)
    scalar_bool_dims = [n for n, p in enumerate(parsed) if p.typ is IndexType.BOOLEAN]
    parsed, shape = _expand_scalar_bools(parsed, shape)
    if normalize_indices:
        parsed = _normalize_array_indices(parsed, shape)

    advanced = []   # (array, position in index, axis of x)
    if any(p.typ is IndexType.ARRAY and np.ndim(p.index) > 0 for p in parsed):
        without_none = [(i, p) for i, p in enumerate(parsed) if p.typ is not IndexType.NONE]
        advanced = [(creation.asarray(p.index), i, j)
                    for j, (i, p) in enumerate(without_none)
                    if p.typ in (IndexType.ARRAY, IndexType.INTEGER)]
    advanced_positions = [i for _, i, _ in advanced]

    index_dtype = _index_dtype(shape)
    st = _GatherState()
    for position, p in enumerate(parsed):
        if advanced and position == (advanced_positions[0] if contiguous else 0):
            _add_advanced(st, advanced, index_dtype)
        if position in advanced_positions:
            st.x_axis += 1
            st.gather_slice_shape.append(1)
            continue
        if p.typ in (IndexType.INTEGER, IndexType.ARRAY):   # scalar
            if type(p.index) is int:
                # A Python int that cannot be an index is an overflow, even
                # on an empty axis (SPEC IDX-38, DT-8).
                dtypes.check_python_int(p.index, index_dtype)
            if shape[st.x_axis] == 0:
                raise IndexError(f"index is out of bounds for axis {st.x_axis} with size 0")
            st.columns.append((lax.convert_element_type(p.index, index_dtype),
                               len(st.indices_shape)))
            st.collapsed.append(st.x_axis)
            st.gather_slice_shape.append(1)
            st.start_index_map.append(st.x_axis)
            st.x_axis += 1
        elif p.typ is IndexType.NONE:
            st.slice_shape.append(1)
            st.newaxis_dims.append(st.y_axis)
            st.y_axis += 1
        elif p.typ is IndexType.SLICE:
            _add_slice(st, p.index, shape[st.x_axis], index_dtype)
        elif p.typ is IndexType.DYNAMIC_SLICE:
            s = p.index
            _add_window(st, s.start, s.stride, _static_size(s.size),
                        shape[st.x_axis], index_dtype)
        else:
            raise IndexError(f"Got unsupported indexer at position {position}: {p!r}")

    dnums = gather_scatter.GatherDimensionNumbers(
        offset_dims=tuple(st.offset_dims), collapsed_slice_dims=tuple(sorted(st.collapsed)),
        start_index_map=tuple(st.start_index_map))
    return _GatherPlan(
        slice_shape=st.slice_shape, gather_slice_shape=st.gather_slice_shape,
        indices=_stack_columns(st, index_dtype), dnums=dnums,
        unique_indices=not advanced, indices_are_sorted=not advanced,
        reversed_y_dims=st.reversed_y_dims, newaxis_dims=st.newaxis_dims,
        scalar_bool_dims=scalar_bool_dims)


class _GatherState:
    """Bookkeeping while walking the index: positions in x and in the
    result, and the pieces of the gather being built."""

    def __init__(self):
        self.x_axis = 0             # current axis of x
        self.y_axis = 0             # current axis of the result, new axes included
        self.collapsed_y_axis = 0   # ... without the new axes
        self.offset_dims, self.collapsed, self.start_index_map = [], [], []
        self.columns = []           # (index array, first axis in the indices)
        self.indices_shape = []     # batch shape of the gather indices
        self.slice_shape, self.gather_slice_shape = [], []
        self.newaxis_dims, self.reversed_y_dims = [], []


def _add_advanced(st, advanced, index_dtype):
    """The advanced indices, broadcast together, as gather columns."""
    arrays = util._broadcast_arrays(*(a for a, _, _ in advanced))
    shape = core.get_aval(arrays[0]).shape
    start = len(st.indices_shape)
    st.columns.extend((lax.convert_element_type(a, index_dtype), start) for a in arrays)
    st.indices_shape += shape
    x_axes = [j for _, _, j in advanced]
    st.start_index_map.extend(x_axes)
    st.collapsed.extend(x_axes)
    st.slice_shape.extend(shape)
    st.y_axis += len(shape)
    st.collapsed_y_axis += len(shape)


def _add_slice(st, s, size, index_dtype):
    """A unit-step slice is a window (with a start column unless it is
    the whole axis); a strided one gathers ``start + step * iota``."""
    start, step, length = _canonicalize_slice(s, size)
    _add_window(st, start, step, length, size, index_dtype)


def _add_window(st, start, step, length, size, index_dtype):
    """``length`` positions from ``start`` (static, or traced for a
    ``jax.ds`` Slice) every ``step`` along the current axis."""
    st.slice_shape.append(length)
    if step == 1:
        if length != size:
            st.columns.append((lax.convert_element_type(start, index_dtype),
                               len(st.indices_shape)))
            st.start_index_map.append(st.x_axis)
        st.gather_slice_shape.append(length)
        st.offset_dims.append(st.collapsed_y_axis)
    else:
        # JAX copies the start into an array of the index dtype.
        first = creation.array(start, dtype=index_dtype)
        positions = lax.add(first, lax.mul(
            np.array(step, index_dtype), lax_shapes.iota(index_dtype, length)))
        if step < 0:
            st.reversed_y_dims.append(st.collapsed_y_axis)
            positions = lax_shapes.rev(positions, (0,))
        st.gather_slice_shape.append(1)
        st.columns.append((positions, len(st.indices_shape)))
        st.start_index_map.append(st.x_axis)
        st.indices_shape.append(length)
        st.collapsed.append(st.x_axis)
    st.collapsed_y_axis += 1
    st.y_axis += 1
    st.x_axis += 1


def _canonicalize_slice(s, size):
    """(first position read, step, count) of ``s`` on an axis of ``size``.
    Bounds must be integers (``operator.index``'s TypeError otherwise)."""
    s = slice(*(None if v is None else operator.index(v) for v in (s.start, s.stop, s.step)))
    start, stop, step = s.indices(size)
    return start, step, len(range(start, stop, step))


def _stack_columns(st, index_dtype):
    """The gather's start indices: the columns broadcast to the batch shape
    and concatenated along a new last axis."""
    if not st.columns:
        return np.zeros((0,), index_dtype)
    if len(st.columns) == 1:
        g, _ = st.columns[0]
        return lax_shapes.expand_dims(g, (np.ndim(g),))
    batch = tuple(st.indices_shape) + (1,)
    return lax_shapes.concatenate(
        [lax_shapes.broadcast_in_dim(g, batch, tuple(range(i, i + np.ndim(g))))
         for g, i in st.columns], len(st.indices_shape))


# ---------------------------------------------------------------------------
# Indexed updates (SPEC IDX-20 .. IDX-25)
# ---------------------------------------------------------------------------

def _safe_to_cast(value, dtype):
    """Whether promotion would keep ``dtype`` (else updates are truncated)."""
    if dtypes.dtype_and_weak_type(value)[0] == dtype:
        return True
    return dtypes.result_type(value, dtype) == dtype


def scatter_update(x, index, y, scatter_op, *, indices_are_sorted=False,
                   unique_indices=False, mode=None, normalize_indices=True):
    """The value of ``x`` after NumPy's ``x[index] op= y``, computed by one
    ``scatter_op`` (``lax.scatter``, ``scatter_add``, ...) without touching
    ``x`` (SPEC IDX-20).

    ``y`` is broadcast to the shape of ``x[index]``; the scatter runs in the
    promoted dtype of ``x`` and ``y`` and the result is cast back to ``x``'s
    dtype (a float update into an int array truncates, with a
    ``FutureWarning``, SPEC IDX-23).
    """
    x = creation.asarray(x)
    _reject_dtype_name_update(y)
    info = np.iinfo(x.dtype) if dtypes.issubdtype(x.dtype, np.integer) else None
    if isinstance(y, int) and not isinstance(y, bool) and info is not None \
            and info.min <= y <= info.max:
        y = creation.asarray(y, dtype=x.dtype)
    else:
        y = creation.asarray(y)
    shape = x.shape
    parsed = _expand_bool_indices(_parse(index, shape), shape)
    dtype, weak_type = x.dtype, x.weak_type
    if not _safe_to_cast(y, dtype):
        warnings.warn(
            "scatter inputs have incompatible types: cannot safely cast value "
            f"from dtype={y.dtype} to dtype={dtype} with "
            "jax_numpy_dtype_promotion=standard. In future JAX releases this will "
            "result in an error.", FutureWarning, stacklevel=3)
    plan = _index_to_gather(parsed, shape, normalize_indices)
    if 0 in plan.slice_shape:
        return x
    x, y = util.promote_dtypes(x, y)
    y = _broadcast_updates(y, tuple(plan.slice_shape))
    if plan.newaxis_dims:
        y = lax_shapes.squeeze(y, plan.newaxis_dims)
    if plan.reversed_y_dims:
        y = lax_shapes.rev(y, plan.reversed_y_dims)
    if plan.scalar_bool_dims:
        x = lax_shapes.expand_dims(x, plan.scalar_bool_dims)
    dnums = gather_scatter.ScatterDimensionNumbers(
        update_window_dims=plan.dnums.offset_dims,
        inserted_window_dims=plan.dnums.collapsed_slice_dims,
        scatter_dims_to_operand_dims=plan.dnums.start_index_map)
    indices_are_sorted = plan.indices_are_sorted or indices_are_sorted
    unique_indices = plan.unique_indices or unique_indices
    # The flags become scatter parameters, which must hash (SPEC IDX-38).
    util.check_hashable_params(indices_are_sorted=indices_are_sorted,
                               unique_indices=unique_indices)
    out = scatter_op(x, plan.indices, y, dnums, indices_are_sorted=indices_are_sorted,
                     unique_indices=unique_indices, mode=mode)
    if plan.scalar_bool_dims:
        out = lax_shapes.squeeze(out, plan.scalar_bool_dims)
    return lax._convert_element_type(out, dtype, weak_type)


def _reject_dtype_name_update(y):
    """An update given as the name of a dtype (``'float32'``) is read, as in
    JAX, as a value of that dtype, and the text is no number: NumPy's
    ValueError (SPEC IDX-38).  Other strings are the TypeError of a value
    that is no array."""
    if not isinstance(y, str):
        return
    try:
        named = dtypes.to_dtype(y)
    except TypeError:
        return
    if dtypes.is_valid_jax_dtype(named):
        creation.asarray(y, dtype=named)


def _broadcast_updates(y, shape):
    """``jnp.broadcast_to(y, shape)``: shapes that do not broadcast raise
    ``ValueError`` (SPEC IDX-23)."""
    from refjax._src.numpy.lax_numpy import broadcast_to
    return broadcast_to(y, shape)
