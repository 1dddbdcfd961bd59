"""Shape manipulation, joining, sorting, contractions and the rest of
``jax.numpy`` (SPEC NP-30 .. NP-59).

Every function here is composed of ``lax`` primitives the way JAX composes
it, so results, dtypes and weak types match, and so do printed jaxprs:
where JAX wraps a function in ``jit`` (``jnp.where`` prints as
``jit[name=_where ...]``, ``jnp.sort`` as ``jit[name=sort ...]``), the
function here is wrapped in a ``jit`` of the same name with the same static
arguments.

The functions JAX builds on ``gather`` and ``scatter`` (``take``,
``take_along_axis``, ``repeat``, ``nonzero``/``bincount``, ``unique``,
``compress``, ``put``...) use them the same way, through NumPy indexing
and ``.at[]`` where JAX does (SPEC IDX-26 .. IDX-29).
"""
import builtins
import collections
import math
import operator
import warnings

import numpy as np

from refjax._src import core
from refjax._src import dtypes
from refjax._src import numpy_creation as creation
from refjax._src.api import jit
from refjax._src.array import Array
from refjax._src.lax import lax
from refjax._src.lax.convolution import conv_general_dilated
from refjax._src.lax.other import top_k
from refjax._src.numpy import reductions, ufuncs, util

__all__ = [
    # dtypes and metadata
    "astype", "shape", "ndim", "size", "isscalar", "iscomplexobj", "isrealobj",
    "copy",
    # shapes
    "reshape", "ravel", "transpose", "permute_dims", "matrix_transpose",
    "swapaxes", "moveaxis", "rollaxis", "expand_dims", "squeeze", "atleast_1d",
    "atleast_2d", "atleast_3d", "broadcast_to", "broadcast_arrays",
    "broadcast_shapes",
    # joining and splitting
    "concatenate", "concat", "stack", "unstack", "hstack", "vstack", "dstack",
    "column_stack", "append", "split", "array_split", "hsplit", "vsplit",
    "dsplit",
    # rearranging
    "tile", "repeat", "flip", "fliplr", "flipud", "roll", "rot90", "pad",
    # selection
    "where", "select", "choose", "nonzero", "argwhere", "flatnonzero", "take", "compress",
    "take_along_axis", "bincount", "put", "place", "put_along_axis", "ix_",
    "unravel_index", "ravel_multi_index", "diag_indices", "diag_indices_from",
    "tril_indices", "triu_indices", "tril_indices_from", "triu_indices_from",
    # sorting and searching
    "sort", "argsort", "lexsort", "partition", "argpartition", "searchsorted",
    "unique", "unique_values", "unique_counts", "unique_inverse", "unique_all",
    # contractions
    "dot", "matmul", "vdot", "vecdot", "inner", "outer", "tensordot", "einsum",
    "kron", "cross",
    # matrices and grids
    "trace", "diagonal", "diag", "diagflat", "tril", "triu", "tri",
    "meshgrid", "indices",
    # signals and differences
    "convolve", "correlate", "diff", "ediff1d",
    # comparisons of whole arrays
    "array_equal", "array_equiv", "allclose", "isclose",
]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def _aval(x):
    return core.get_aval(x)


def _ensure(fun_name, *args):
    """``check_arraylike`` then ``asarray`` (a no-op for tracers and arrays)."""
    util.check_arraylike(fun_name, *args)
    return [creation.asarray(a) for a in args]


def _canonicalize_axis(axis, ndim):
    return core.canonicalize_axis(axis, ndim)


def _axis_tuple(axis):
    """An int or a sequence of ints as a tuple of ints."""
    if isinstance(axis, (tuple, list)):
        return tuple(operator.index(a) for a in axis)
    return (operator.index(axis),)


def _static_int(value, context):
    """A Python int from a static argument; a tracer raises
    ``ConcretizationTypeError`` naming ``context``."""
    return core.concrete_or_error(operator.index, value, context)


def _zero(x):
    """A scalar zero of ``x``'s dtype (a literal in jaxprs)."""
    return np.zeros((), _aval(x).dtype)


# ---------------------------------------------------------------------------
# Dtypes (SPEC NP-33) and metadata (SPEC NP-42)
# ---------------------------------------------------------------------------

def astype(x, dtype, /, *, copy=False, device=None):
    """Convert ``x`` to ``dtype`` with XLA's rules (SPEC NP-33, DT-13).

    Float to int saturates, NaN gives 0; converting to the same dtype drops a
    weak type; complex to a real dtype keeps the real part and warns
    (``DeprecationWarning``); complex to bool is ``x != 0``.
    """
    x, = _ensure("astype", x)
    if dtype is None:
        dtype = dtypes.default_float_dtype()
    else:
        dtype = dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, "astype"))
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        if dtype.kind in "iuf" or dtype == dtypes.bfloat16:
            warnings.warn(
                "Casting from complex to real dtypes will soon raise a ValueError. "
                "Please first use jnp.real or jnp.imag to take the real/imaginary "
                "component of your input.", DeprecationWarning, stacklevel=2)
        elif dtype == np.bool_:
            x = lax.ne(x, _zero(x))
    result = lax._convert_element_type(x, dtype, weak_type=False)
    return lax.copy_p.bind(result) if copy else result


def _warn_nonarray(fun_name, a):
    if not core.is_array_like(a) and not hasattr(a, "shape"):
        warnings.warn(f"{fun_name} requires ndarray or scalar arguments, got "
                      f"{type(a)} at position 0. In a future JAX release this will "
                      "be an error.", DeprecationWarning, stacklevel=3)


def shape(a):
    """The shape of ``a`` as a tuple (lists work, with a DeprecationWarning)."""
    _warn_nonarray("shape", a)
    return tuple(a.shape) if hasattr(a, "shape") else np.shape(a)


def ndim(a):
    """The number of dimensions of ``a``."""
    _warn_nonarray("ndim", a)
    return len(a.shape) if hasattr(a, "shape") else np.ndim(a)


def size(a, axis=None):
    """The number of elements of ``a``, or of its ``axis`` axes."""
    _warn_nonarray("size", a)
    sh = tuple(a.shape) if hasattr(a, "shape") else np.shape(a)
    if axis is None:
        return math.prod(sh)
    return math.prod(sh[_canonicalize_axis(ax, len(sh))] for ax in _axis_tuple(axis))


def isscalar(element):
    """True for what ``np.isscalar`` accepts (Python/NumPy scalars, strings)
    and for 0-d arrays (JAX's rule, unlike NumPy's, SPEC NP-42)."""
    if np.isscalar(element):
        return True
    if isinstance(element, (np.ndarray, Array)):
        return element.ndim == 0
    if hasattr(element, "__jax_array__"):
        return creation.asarray(element).ndim == 0
    return False


def iscomplexobj(x):
    """Whether ``x`` has a complex dtype (lists are inspected)."""
    if x is None:
        return False
    dt = getattr(x, "dtype", None)
    if dt is None:
        dt = dtypes.result_type(*creation._leaves(x)) if isinstance(
            x, (list, tuple)) else np.asarray(x).dtype
    return dtypes.issubdtype(dt, np.complexfloating)


def isrealobj(x):
    return not iscomplexobj(x)


def copy(a, order=None):
    """A copy of ``a`` (the ``copy`` primitive under tracing)."""
    util.check_arraylike("copy", a)
    return creation.array(a, copy=True, order=order)


# ---------------------------------------------------------------------------
# Reshaping and transposing (SPEC NP-34, NP-35)
# ---------------------------------------------------------------------------

def _compute_newshape(arr_shape, newshape):
    """Resolve one ``-1`` entry of ``newshape`` against ``arr_shape``."""
    if isinstance(newshape, (list, tuple)):
        dims = tuple(newshape)
    else:
        dims = (newshape,)
    try:
        dims = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of integer "
                        f"type, got {dims}.") from None
    total = math.prod(arr_shape)
    if dims.count(-1) > 1:
        raise TypeError("can only specify one unknown axis size with a `-1` value, "
                        f"got {dims}")
    if -1 in dims:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or total % known:
            raise TypeError(
                f"cannot reshape array of shape {tuple(arr_shape)} (size {total}) "
                f"into shape {dims} because the product of specified axis sizes "
                f"({known}) does not evenly divide {total}")
        dims = tuple(total // known if d == -1 else d for d in dims)
    if math.prod(dims) != total or builtins.any(d < 0 for d in dims):
        raise TypeError(f"cannot reshape array of shape {tuple(arr_shape)} (size "
                        f"{total}) into shape {dims} (size {math.prod(dims)})")
    return dims


def reshape(a, shape, order="C", *, copy=None, out_sharding=None):
    """``a`` with a new shape; one entry may be ``-1`` (SPEC NP-34).

    ``order='F'`` reshapes in column-major order (a ``reshape`` with
    reversed ``dimensions`` then a ``transpose``); ``'A'`` is not
    implemented.  JAX 0.10 no longer accepts the ``newshape`` keyword.
    """
    util.check_arraylike("reshape", a)
    a = creation.asarray(a)
    dims = _compute_newshape(_aval(a).shape, shape)
    if order == "C":
        return lax.reshape(a, dims)
    if order == "F":
        nd = _aval(a).ndim
        out = lax.reshape(a, dims[::-1], tuple(range(nd - 1, -1, -1)))
        return lax.transpose(out, tuple(range(len(dims) - 1, -1, -1)))
    if order == "A":
        raise NotImplementedError("np.reshape order=A is not implemented.")
    raise ValueError(f"Unexpected value for 'order' argument: {order}.")


def ravel(a, order="C", *, out_sharding=None):
    """``a`` flattened to one dimension, in C or Fortran order."""
    a, = _ensure("ravel", a)
    if order == "K":
        raise NotImplementedError("Ravel not implemented for order='K'.")
    return reshape(a, (_aval(a).size,), order)


def transpose(a, axes=None):
    """Permute the axes of ``a`` (reversed by default) (SPEC NP-35)."""
    a, = _ensure("transpose", a)
    nd = _aval(a).ndim
    axes = tuple(range(nd))[::-1] if axes is None else axes
    return lax.transpose(a, tuple(_canonicalize_axis(i, nd) for i in axes))


def permute_dims(a, /, axes):
    """Array-API spelling of ``transpose`` with required ``axes``."""
    a, = _ensure("permute_dims", a)
    return transpose(a, axes)


def matrix_transpose(x, /):
    """Swap the last two axes of an array of at least two dimensions."""
    x, = _ensure("matrix_transpose", x)
    nd = _aval(x).ndim
    if nd < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; "
                         f"got ndim={nd}")
    return lax.transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def swapaxes(a, axis1, axis2):
    """Interchange two axes (one ``transpose``)."""
    a, = _ensure("swapaxes", a)
    nd = _aval(a).ndim
    perm = list(range(nd))
    axis1, axis2 = operator.index(axis1), operator.index(axis2)
    for ax in (axis1, axis2):
        if not -nd <= ax < nd:
            raise IndexError(f"index {ax} is out of bounds for axis 0 with size {nd}")
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return lax.transpose(a, perm)


def moveaxis(a, source, destination):
    """Move axes ``source`` to positions ``destination``; others keep order."""
    a, = _ensure("moveaxis", a)
    nd = _aval(a).ndim
    src = tuple(_canonicalize_axis(i, nd) for i in _axis_tuple(source))
    dst = tuple(_canonicalize_axis(i, nd) for i in _axis_tuple(destination))
    if len(src) != len(dst):
        raise ValueError("Inconsistent number of elements: "
                         f"{len(src)} vs {len(dst)}")
    perm = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return lax.transpose(a, perm)


def rollaxis(a, axis, start=0):
    """Roll ``axis`` backwards until it lies before ``start``."""
    a, = _ensure("rollaxis", a)
    nd = _aval(a).ndim
    axis = _canonicalize_axis(axis, nd)
    if not -nd <= start <= nd:
        raise ValueError(f"start={start} must satisfy {-nd}<=start<={nd}")
    start = start + nd if start < 0 else start
    if start > axis:
        start -= 1
    return moveaxis(a, axis, start)


def expand_dims(a, axis):
    """Insert size-1 axes at positions ``axis`` (``broadcast_in_dim``)."""
    a, = _ensure("expand_dims", a)
    return lax.expand_dims(a, _axis_tuple(axis))


def squeeze(a, axis=None):
    """Remove size-1 axes: all of them, or those in ``axis`` (SPEC NP-35)."""
    a, = _ensure("squeeze", a)
    shape_ = _aval(a).shape
    if axis is None:
        axes = tuple(i for i, d in enumerate(shape_) if d == 1)
    else:
        axes = tuple(_canonicalize_axis(i, len(shape_)) for i in _axis_tuple(axis))
    return lax.squeeze(a, axes)


def _atleast(name, arys, nd):
    def one(x):
        x, = _ensure(name, x)
        have = _aval(x).ndim
        if have >= nd:
            return x
        if nd == 3 and have == 1:       # (n,) -> (1, n, 1)
            return lax.expand_dims(x, (0, 2))
        if nd == 3 and have == 2:       # (m, n) -> (m, n, 1)
            return lax.expand_dims(x, (2,))
        return lax.broadcast_to_rank(x, nd) if have else lax.expand_dims(
            x, tuple(range(nd)))
    if len(arys) == 1:
        return one(arys[0])
    return [one(x) for x in arys]


@jit
def atleast_1d(*arys):
    """Each argument with at least one dimension (a list for several)."""
    return _atleast("atleast_1d", arys, 1)


@jit
def atleast_2d(*arys):
    """Each argument with at least two dimensions (leading axes added)."""
    return _atleast("atleast_2d", arys, 2)


@jit
def atleast_3d(*arys):
    """At least three dimensions: (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    return _atleast("atleast_3d", arys, 3)


# ---------------------------------------------------------------------------
# Broadcasting (SPEC NP-36)
# ---------------------------------------------------------------------------

def broadcast_shapes(*shapes):
    """The NumPy broadcast of ``shapes`` (ints count as 1-d shapes)."""
    if not shapes:
        return ()
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    return _broadcast_shapes(shapes)


def _broadcast_shapes(shapes):
    rank = builtins.max(len(s) for s in shapes)
    out = []
    for sizes in zip(*[(1,) * (rank - len(s)) + tuple(s) for s in shapes]):
        big = {d for d in sizes if d != 1}
        if len(big) > 1:
            raise ValueError("Incompatible shapes for broadcasting: "
                             f"shapes={[tuple(s) for s in shapes]}")
        out.append(big.pop() if big else 1)
    return tuple(out)


def _broadcast_to(x, shape_):
    """``broadcast_in_dim`` of ``x`` to ``shape_``, trailing axes aligned."""
    aval = _aval(x)
    if aval.shape == tuple(shape_):
        return x
    lead = len(shape_) - aval.ndim
    return lax.broadcast_in_dim(x, shape_, tuple(range(lead, len(shape_))))


def _broadcast_arrays(*args):
    shapes = [_aval(a).shape for a in args]
    if builtins.all(s == shapes[0] for s in shapes):
        return list(args)
    result = _broadcast_shapes(shapes)
    return [_broadcast_to(a, result) for a in args]


def broadcast_to(array, shape, *, out_sharding=None):
    """``array`` broadcast to ``shape`` with NumPy's rules."""
    array, = _ensure("broadcast_to", array)
    shape_ = creation.canonicalize_shape(shape)
    aval = _aval(array)
    if len(shape_) < aval.ndim:
        raise ValueError("Cannot broadcast to shape with fewer dimensions: "
                         f"arr_shape={aval.shape} shape={shape_}")
    tail = shape_[len(shape_) - aval.ndim:]
    if builtins.any(d not in (1, n) for d, n in zip(aval.shape, tail)):
        raise ValueError("Incompatible types for broadcasting: input type="
                         f"{aval.str_short()} and requested type="
                         f"{aval.update(shape=shape_).str_short()}")
    return _broadcast_to(array, shape_)


def broadcast_arrays(*args):
    """The arguments broadcast to their common shape (a list)."""
    args = _ensure("broadcast_arrays", *args)
    return _broadcast_arrays(*args)


# ---------------------------------------------------------------------------
# Joining and splitting (SPEC NP-37, NP-38)
# ---------------------------------------------------------------------------

def _arrays_in(fun_name, arrays):
    """The operands of a joining function: a sequence of array-likes, or the
    sub-arrays of one array along its first axis."""
    if isinstance(arrays, (np.ndarray, Array)):
        return list(arrays)
    arrays = list(arrays)
    util.check_arraylike(fun_name, *arrays)
    return arrays


def concatenate(arrays, axis=0, dtype=None):
    """Join arrays along an existing axis (``axis=None`` flattens first).

    Operands are promoted to a common dtype (or converted to ``dtype``)
    before one ``concatenate`` (SPEC NP-37).
    """
    if isinstance(arrays, (np.ndarray, Array)):
        return _concatenate_array(arrays, axis, dtype)
    arrays = _arrays_in("concatenate", arrays)
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return concatenate([ravel(a) for a in arrays], 0, dtype)
    if _aval(arrays[0]).ndim == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = _canonicalize_axis(axis, _aval(arrays[0]).ndim)
    if dtype is None:
        arrays = util.promote_dtypes(*arrays)
    else:
        arrays = [creation.asarray(a, dtype=dtype) for a in arrays]
    return lax.concatenate(arrays, axis)


def _concatenate_array(arr, axis, dtype):
    """Concatenating the sub-arrays of one array is a reshape."""
    arr = creation.asarray(arr, dtype=dtype)
    sh = _aval(arr).shape
    if len(sh) == 0 or sh[0] == 0:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return lax.reshape(arr, (math.prod(sh),))
    if len(sh) == 1:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = _canonicalize_axis(axis, len(sh) - 1)
    new = sh[1:axis + 1] + (sh[0] * sh[axis + 1],) + sh[axis + 2:]
    dims = [*range(1, axis + 1), 0, *range(axis + 1, len(sh))]
    return lax.reshape(arr, new, dims)


def concat(arrays, /, *, axis=0):
    """Array-API spelling of ``concatenate``."""
    util.check_arraylike("concat", *arrays)
    return concatenate(arrays, axis=axis)


def stack(arrays, axis=0, out=None, dtype=None):
    """Join equally shaped arrays along a new axis (the ``stack`` primitive)."""
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
    if isinstance(arrays, (np.ndarray, Array)):
        axis = _canonicalize_axis(axis, np.ndim(arrays))
        return concatenate(expand_dims(arrays, axis + 1), axis=axis, dtype=dtype)
    arrays = _arrays_in("stack", arrays)
    if dtype is not None:
        arrays = [creation.asarray(a, dtype=dtype) for a in arrays]
    else:
        arrays = util.promote_dtypes(*arrays)
    return lax.stack(arrays, axis)


def unstack(x, /, *, axis=0):
    """The sub-arrays of ``x`` along ``axis``, as a tuple."""
    x, = _ensure("unstack", x)
    nd = _aval(x).ndim
    if nd == 0:
        raise ValueError("Unstack requires arrays with rank > 0, however a scalar "
                         "array was passed.")
    axis = _canonicalize_axis(axis, nd)
    n = _aval(x).shape[axis]
    return tuple(lax.index_in_dim(x, i, axis, keepdims=False) for i in range(n))


def hstack(tup, dtype=None):
    """Concatenate along axis 1 (axis 0 for 1-d inputs)."""
    if isinstance(tup, (np.ndarray, Array)):
        arrs = atleast_1d(tup)
        return concatenate(arrs, 0 if _aval(arrs).ndim == 1 else 1, dtype)
    arrs = [atleast_1d(m) for m in _arrays_in("hstack", tup)]
    if not arrs:
        raise ValueError("Need at least one array to concatenate.")
    axis = 0 if _aval(arrs[0]).ndim == 1 else 1
    return concatenate(arrs, axis, dtype)


def vstack(tup, dtype=None):
    """Concatenate along axis 0 after making inputs at least 2-d."""
    if isinstance(tup, (np.ndarray, Array)):
        return concatenate(atleast_2d(tup), 0, dtype)
    return concatenate([atleast_2d(m) for m in _arrays_in("vstack", tup)], 0, dtype)


def dstack(tup, dtype=None):
    """Concatenate along axis 2 after making inputs at least 3-d."""
    if isinstance(tup, (np.ndarray, Array)):
        return concatenate(atleast_3d(tup), 2, dtype)
    return concatenate([atleast_3d(m) for m in _arrays_in("dstack", tup)], 2, dtype)


def column_stack(tup):
    """1-d inputs become columns; 2-d inputs are joined along axis 1."""
    if isinstance(tup, (np.ndarray, Array)):
        arrs = list(tup)
    else:
        arrs = _arrays_in("column_stack", tup)
    cols = []
    for a in arrs:
        a, = _ensure("column_stack", a)
        cols.append(a if _aval(a).ndim > 1 else lax.transpose(atleast_2d(a), (1, 0)))
    return concatenate(cols, 1)


def append(arr, values, axis=None):
    """``arr`` with ``values`` appended (both flattened when ``axis`` is None)."""
    arr, values = _ensure("append", arr, values)
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


def _split(op, ary, indices_or_sections, axis):
    """Sizes of the pieces (static), then one ``split`` primitive (SPEC NP-38).

    The sizes are NumPy int64s, as JAX passes them, so the equation prints
    ``sizes=(np.int64(1), ...)`` like JAX's.
    """
    ary, = _ensure(op, ary)
    axis = _static_int(axis, f"in jax.numpy.{op} argument `axis`")
    size_ = _aval(ary).shape[_canonicalize_axis(axis, _aval(ary).ndim)]
    if isinstance(indices_or_sections, (tuple, list)) or (
            isinstance(indices_or_sections, (np.ndarray, Array))
            and np.ndim(indices_or_sections) > 0):
        points = [0] + [_static_int(i, f"in jax.numpy.{op} argument 1")
                        for i in indices_or_sections] + [size_]
        # Like JAX (unlike NumPy) indices are not clipped: decreasing or
        # out-of-range ones give negative sizes, which ``split`` rejects.
        sizes = [hi - lo for lo, hi in zip(points[:-1], points[1:])]
    else:
        sections = core.concrete_or_error(int, indices_or_sections,
                                          f"in jax.numpy.{op} argument 1")
        part, rest = divmod(size_, sections)
        if rest == 0:
            sizes = [part] * sections
        elif op == "array_split":
            sizes = [part + 1] * rest + [part] * (sections - rest)
        else:
            raise ValueError("array split does not result in an equal division: "
                             f"rest is {rest}")
    return list(lax.split(ary, [np.int64(s) for s in sizes], axis=axis))


def split(ary, indices_or_sections, axis=0):
    """Split into equal sections, or at the given indices."""
    return _split("split", ary, indices_or_sections, axis)


def array_split(ary, indices_or_sections, axis=0):
    """Like ``split``; sections need not divide the axis (early ones are longer)."""
    return _split("array_split", ary, indices_or_sections, axis)


def vsplit(ary, indices_or_sections):
    """``split`` along axis 0 (1-d arrays are accepted, as in JAX)."""
    return _split("vsplit", ary, indices_or_sections, 0)


def hsplit(ary, indices_or_sections):
    """``split`` along axis 1 (axis 0 for 1-d arrays)."""
    a, = _ensure("hsplit", ary)
    return _split("hsplit", a, indices_or_sections, 0 if _aval(a).ndim == 1 else 1)


def dsplit(ary, indices_or_sections):
    """``split`` along axis 2."""
    return _split("dsplit", ary, indices_or_sections, 2)


# ---------------------------------------------------------------------------
# Tiling, repeating, flipping, rolling, padding (SPEC NP-39, NP-40, NP-41, NP-44)
# ---------------------------------------------------------------------------

def tile(A, reps):
    """Repeat ``A`` ``reps`` times per axis (the ``tile`` primitive).

    ``reps`` shorter than ``A.ndim`` is padded with leading 1s; a longer
    ``reps`` gives ``A`` leading axes first (SPEC NP-39).
    """
    A, = _ensure("tile", A)
    try:
        reps = tuple(reps)
    except TypeError:
        reps = (reps,)
    reps = tuple(operator.index(r) for r in reps)
    nd = _aval(A).ndim
    reps = (1,) * (nd - len(reps)) + reps
    if len(reps) > nd:
        A = lax.broadcast_to_rank(A, len(reps))
    return lax.tile(A, reps)


def repeat(a, repeats, axis=None, *, total_repeat_length=None, out_sharding=None):
    """Repeat each element ``repeats`` times along ``axis`` (SPEC NP-40).

    A scalar ``repeats`` is a ``broadcast_in_dim`` and a ``reshape``.  Per
    element repeats must be concrete unless ``total_repeat_length`` is
    given; that length then pads with the last element or truncates.
    Either way the output is a ``gather`` of the input (``_repeat_gather``).
    """
    util.check_arraylike("repeat", a, repeats)
    a = creation.asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _static_int(axis, "'axis' argument of jnp.repeat()")
    if total_repeat_length is None:
        repeats = core.concrete_or_error(
            None, repeats,
            "When jit-compiling jnp.repeat, the total number of repeats must be static. "
            "To fix this, either specify a static value for `repeats`, or pass a static "
            "value to `total_repeat_length`.")
        if np.ndim(repeats) == 0 and _aval(a).ndim != 0:
            return _repeat_scalar(a, operator.index(repeats), axis)
        repeats = np.ravel(repeats)
        if _aval(a).ndim:
            repeats = np.broadcast_to(repeats, (_aval(a).shape[axis],))
        total_repeat_length = int(np.sum(repeats))
    else:
        repeats = ravel(repeats)
        if _aval(a).ndim:
            repeats = broadcast_to(repeats, (_aval(a).shape[axis],))
    return _repeat_gather(a, repeats, axis, operator.index(total_repeat_length))


def _repeat_scalar(a, repeats, axis):
    sh = _aval(a).shape
    axis = _canonicalize_axis(axis, len(sh))
    aux = list(sh)
    aux.insert(axis + 1, repeats)
    kept = tuple(i for i in range(len(aux)) if i != axis + 1)
    out = lax.broadcast_in_dim(a, tuple(aux), kept)
    result = list(sh)
    result[axis] *= repeats
    return reshape(out, tuple(result))


def _repeat_gather(a, repeats, axis, total):
    """Output position j reads element ``#{k : start_k <= j} - 1`` where
    ``start`` are the exclusive cumulative repeats: ones scattered at the
    starts, a cumulative sum, and a ``take``."""
    if _aval(a).ndim == 0:
        if np.shape(repeats) != (1,):
            raise ValueError("`repeat` with a scalar parameter `a` is only "
                             "implemented for scalar values of the parameter `repeats`.")
        return creation.full((total,), a)
    if total == 0:
        shape_ = list(_aval(a).shape)
        shape_[axis] = 0
        return reshape(creation.array([], dtype=_aval(a).dtype), shape_)
    if _aval(a).shape[axis] == 0:
        return a
    exclusive = roll(repeats, shift=1).at[0].set(0)
    starts = reductions.cumsum(exclusive)
    markers = creation.zeros((total,), dtype="int32").at[starts].add(1)
    return take(a, reductions.cumsum(markers) - 1, axis=axis)


@jit(static_argnames=("axis",))
def _flip(m, axis=None):
    nd = _aval(m).ndim
    axes = tuple(range(nd)) if axis is None else tuple(
        _canonicalize_axis(ax, nd) for ax in _axis_tuple(axis))
    return lax.rev(m, axes)


def flip(m, axis=None):
    """Reverse the order of elements along ``axis`` (all axes by default)."""
    m, = _ensure("flip", m)
    if axis is not None and not isinstance(axis, int):
        axis = _axis_tuple(axis)
    return _flip(m, axis)


def fliplr(m):
    """Reverse axis 1."""
    m, = _ensure("fliplr", m)
    return _flip(m, 1)


def flipud(m):
    """Reverse axis 0."""
    m, = _ensure("flipud", m)
    return _flip(m, 0)


@jit(static_argnums=(1, 2))
def _roll_static(a, shift, axis):
    for ax, s in zip(*np.broadcast_arrays(axis, shift)):
        n = _aval(a).shape[ax]
        if n == 0:
            continue
        i = int((-s) % n)
        a = lax.concatenate([lax.slice_in_dim(a, i, n, axis=int(ax)),
                             lax.slice_in_dim(a, 0, i, axis=int(ax))], int(ax))
    return a


def roll(a, shift, axis=None):
    """Shift elements cyclically along ``axis`` (flattened when None).

    Static shifts are two slices and a ``concatenate`` per axis (SPEC NP-41);
    a traced shift reads a ``dynamic_slice`` of the axis concatenated with
    itself.
    """
    a = util.ensure_arraylike("roll", a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), _aval(a).shape)
    nd = _aval(a).ndim
    axis = tuple(_canonicalize_axis(ax, nd) for ax in _axis_tuple(axis))
    try:
        shift = _axis_tuple(shift)
    except TypeError:
        return _roll_dynamic(a, creation.asarray(shift), axis)
    return _roll_static(a, shift, axis)


@jit(static_argnums=(2,))
def _roll_dynamic(a, shift, axis):
    from refjax._src.lax import slicing
    b_shape = _broadcast_shapes([_aval(shift).shape, np.shape(axis)])
    if len(b_shape) != 1:
        raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D "
                         "arrays")
    for s, ax in zip(broadcast_to(shift, b_shape), np.broadcast_to(axis, b_shape)):
        ax = int(ax)
        n = creation.array(_aval(a).shape[ax], dtype=np.int32)
        s = ufuncs.remainder(lax.convert_element_type(s, np.int32),
                             lax.max(n, np.int32(1)))
        doubled = lax.concatenate((a, a), ax)
        a = slicing.dynamic_slice_in_dim(doubled, n - s, _aval(a).shape[ax], axis=ax)
    return a


@jit(static_argnames=("k", "axes"))
def rot90(m, k=1, axes=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``."""
    m, = _ensure("rot90", m)
    nd = _aval(m).ndim
    if nd < 2:
        raise ValueError("rot90 requires its first argument to have ndim at least "
                         f"two, but got first argument of shape {_aval(m).shape}, "
                         f"which has ndim {nd}")
    ax1, ax2 = axes
    ax1, ax2 = _canonicalize_axis(ax1, nd), _canonicalize_axis(ax2, nd)
    if ax1 == ax2:
        raise ValueError("Axes must be different")
    k = k % 4
    if k == 0:
        return m
    if k == 2:
        return _flip(_flip(m, ax1), ax2)
    perm = list(range(nd))
    perm[ax1], perm[ax2] = ax2, ax1
    if k == 1:
        return lax.transpose(_flip(m, ax2), perm)
    return _flip(lax.transpose(m, perm), ax2)


# -- pad ----------------------------------------------------------------------

def _pairs(values, nd, name):
    """``values`` broadcast to ``nd`` (before, after) pairs, as jnp.pad reads them."""
    arr = np.asarray(values)
    if arr.dtype == object:
        raise TypeError(f"`{name}` entries must be the same shape: {values}")
    if arr.shape == (nd, 2):
        return tuple((arr[i, 0], arr[i, 1]) for i in range(nd))
    if arr.shape == (1, 2):
        return tuple((arr[0, 0], arr[0, 1]) for _ in range(nd))
    if arr.shape == (2,):
        return tuple((arr[0], arr[1]) for _ in range(nd))
    if arr.shape == (1,):
        return tuple((arr[0], arr[0]) for _ in range(nd))
    if arr.shape == ():
        return tuple((arr[()], arr[()]) for _ in range(nd))
    raise ValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {arr.shape}. "
                     f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")


_PAD_KWARGS = {"constant": ("constant_values",), "edge": (), "wrap": (), "empty": (),
               "reflect": ("reflect_type",), "symmetric": ("reflect_type",)}


def pad(array, pad_width, mode="constant", **kwargs):
    """Pad ``array`` (SPEC NP-44): modes 'constant' (``constant_values``, a
    scalar or per-axis pairs), 'edge', 'wrap', 'reflect', 'symmetric' (with
    ``reflect_type`` 'even' or 'odd') and 'empty' (zeros)."""
    array, = _ensure("pad", array)
    nd = _aval(array).ndim
    pad_width = core.concrete_or_error(None, pad_width,
                                       "pad_width argument of jnp.pad")
    pairs = _pairs(pad_width, nd, "pad_width")
    if pairs and not builtins.all(np.issubdtype(np.asarray(p).dtype, np.integer)
                                  for pair in pairs for p in pair):
        raise TypeError("`pad_width` must be of integral type.")
    if mode not in _PAD_KWARGS:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    unsupported = set(kwargs) - set(_PAD_KWARGS[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': "
                         f"{unsupported}")
    return _pad(array, tuple(pairs), mode, kwargs.get("constant_values", 0),
                kwargs.get("reflect_type", "even"))


@jit(static_argnums=(1, 2, 4))
def _pad(array, pad_width, mode, constant_values, reflect_type):
    nd = _aval(array).ndim
    if nd == 0:
        return array
    if builtins.any(p < 0 for pair in pad_width for p in pair):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        return _pad_constant(array, pad_width, creation.asarray(constant_values))
    if mode == "wrap":
        return _pad_wrap(array, pad_width)
    if mode in ("reflect", "symmetric"):
        return _pad_reflect(array, pad_width, mode, reflect_type)
    if mode == "edge":
        return _pad_edge(array, pad_width)
    return _pad_empty(array, pad_width)


def _pad_constant(array, pad_width, values):
    aval = _aval(array)
    values = lax._convert_element_type(values, aval.dtype, aval.weak_type)
    vnd = _aval(values).ndim
    if vnd == 0:
        return lax.pad(array, values, [(lo, hi, 0) for lo, hi in pad_width])
    if vnd == 1 and _aval(values).shape[-1] == 1:
        return lax.pad(array, squeeze(values), [(lo, hi, 0) for lo, hi in pad_width])
    if vnd == 1 and _aval(values).shape[-1] != 2:
        raise ValueError("jnp.pad: constant_values has unsupported shape "
                         f"{_aval(values).shape}. If the shape is 1D or 2D, the last "
                         "dimension must be of size 1 or 2.")
    values = broadcast_to(values, (aval.ndim, 2))
    for i in range(aval.ndim):
        for side in (0, 1):
            if pad_width[i][side] != 0:
                widths = [(0, 0, 0)] * aval.ndim
                widths[i] = (pad_width[i][0], 0, 0) if side == 0 else (0, pad_width[i][1], 0)
                value = lax.squeeze(lax.slice(values, (i, side), (i + 1, side + 1)), (0, 1))
                array = lax.pad(array, value, widths)
    return array


def _no_padding_on_empty(pair, mode):
    if pair[0] > 0 or pair[1] > 0:
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")


def _pad_wrap(array, pad_width):
    for i in range(_aval(array).ndim):
        n = _aval(array).shape[i]
        if n == 0:
            _no_padding_on_empty(pad_width[i], "wrap")
            continue
        left_reps, left_rem = divmod(int(pad_width[i][0]), n)
        right_reps, right_rem = divmod(int(pad_width[i][1]), n)
        parts = []
        if left_rem > 0:
            parts.append(lax.slice_in_dim(array, n - left_rem, n, axis=i))
        parts += (left_reps + right_reps + 1) * [array]
        if right_rem > 0:
            parts.append(lax.slice_in_dim(array, 0, right_rem, axis=i))
        array = lax.concatenate(parts, i)
    return array


def _pad_reflect(array, pad_width, mode, reflect_type):
    """Mirror images of the array, without ('reflect') or with ('symmetric')
    the edge element, repeated while padding remains; 'odd' reflects about
    the edge value (``2 * edge - x``)."""
    for i in range(_aval(array).ndim):
        n = _aval(array).shape[i]
        if n == 0:
            _no_padding_on_empty(pad_width[i], mode)
            continue
        if pad_width[i][0] == 0 and pad_width[i][1] == 0:
            continue
        for before, padding in ((True, int(pad_width[i][0])), (False, int(pad_width[i][1]))):
            array = _reflect_side(array, i, n, padding, before, mode, reflect_type)
    return array


def _reflect_side(array, i, n, padding, before, mode, reflect_type):
    edge = (lax.slice_in_dim(array, 0, 1, axis=i) if before
            else lax.slice_in_dim(array, -1, None, axis=i))
    offset = 1 if (mode == "reflect" and n > 1) else 0
    while padding > 0:
        cur = builtins.min(padding, n - offset)
        padding -= cur
        if before:
            start, stop = offset, offset + cur
        else:
            start = -(cur + offset)
            stop = None if (mode == "symmetric" or n == 1) else -1
        x = _flip(lax.slice_in_dim(array, start, stop, axis=i), i)
        if reflect_type == "odd":
            x = lax.sub(lax.mul(_two_like(edge), edge), x)
            if n > 1:
                edge = (lax.slice_in_dim(x, 0, 1, axis=i) if before
                        else lax.slice_in_dim(x, -1, None, axis=i))
        array = lax.concatenate([x, array] if before else [array, x], i)
    return array


def _two_like(x):
    aval = _aval(x)
    return lax._convert_element_type(2, aval.dtype, aval.weak_type)


def _pad_edge(array, pad_width):
    for i in range(_aval(array).ndim):
        n = _aval(array).shape[i]
        if n == 0:
            _no_padding_on_empty(pad_width[i], "edge")
            continue
        before = repeat(lax.slice_in_dim(array, 0, 1, axis=i), int(pad_width[i][0]), axis=i)
        after = repeat(lax.slice_in_dim(array, n - 1, n, axis=i), int(pad_width[i][1]),
                       axis=i)
        array = lax.concatenate([before, array, after], i)
    return array


def _pad_empty(array, pad_width):
    """'empty' padding is zeros (refjax buffers are always initialized)."""
    for i in range(_aval(array).ndim):
        sh = _aval(array).shape
        before = creation.zeros_like(array, shape=sh[:i] + (int(pad_width[i][0]),) + sh[i + 1:])
        after = creation.zeros_like(array, shape=sh[:i] + (int(pad_width[i][1]),) + sh[i + 1:])
        array = lax.concatenate([before, array, after], i)
    return array


# ---------------------------------------------------------------------------
# Selection (SPEC NP-45, NP-46, NP-53)
# ---------------------------------------------------------------------------

def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """``x`` where ``condition`` else ``y``, broadcast and promoted; with one
    argument, ``nonzero(condition)`` (SPEC NP-45)."""
    if x is None and y is None:
        util.check_arraylike("where", condition)
        return nonzero(condition, size=size, fill_value=fill_value)
    util.check_arraylike("where", condition, x, y)
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value arguments cannot be used in three-term "
                         "where function.")
    return _where(condition, x, y)


@jit
def _where(condition, x, y):
    """Promote ``x`` and ``y``, broadcast (the condition too unless it is a
    scalar), then ``select_n(condition, y, x)``."""
    if _aval(condition).dtype != np.bool_:
        condition = lax.ne(condition, _zero(condition))
    x, y = util.promote_dtypes(x, y)
    if _aval(condition).ndim == 0:
        x, y = _broadcast_arrays(x, y)
    else:
        condition, x, y = _broadcast_arrays(condition, x, y)
    if _aval(x).size == 0:
        return x
    return lax.select(condition, x, y)


def select(condlist, choicelist, default=0):
    """The choice of the first true condition, elementwise; ``default`` where
    none holds (an ``argmax`` over the stacked conditions, then ``select_n``)."""
    if len(condlist) != len(choicelist):
        raise ValueError("condlist must have length equal to choicelist "
                         f"({len(condlist)} vs {len(choicelist)})")
    if len(condlist) == 0:
        raise ValueError("condlist must be non-empty")
    util.check_arraylike("select", *condlist, *choicelist, default)
    choices = util.promote_dtypes(default, *choicelist)
    # The default goes first with a False condition: argmax returns 0 when
    # no condition holds.
    conditions = stack(_broadcast_arrays(creation.asarray(False), *condlist))
    if _aval(conditions).dtype != np.bool_:
        conditions = lax.convert_element_type(conditions, np.bool_)
    idx = lax.argmax(conditions, 0, np.int32)
    return lax.select_n(*_broadcast_arrays(idx, *choices))


def choose(a, choices, out=None, mode="raise"):
    """``choices[a]`` elementwise, all broadcast together; ``mode`` 'wrap'
    or 'clip' handles out-of-range ``a`` ('raise' needs a concrete ``a``)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    util.check_arraylike("choose", a, *choices)
    a = creation.asarray(a)
    if not dtypes.issubdtype(_aval(a).dtype, np.integer):
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        host = core.concrete_or_error(
            np.asarray, a, "The error occurred because jnp.choose was jit-compiled "
            "with mode='raise'. Use mode='wrap' or mode='clip' instead.")
        if np.any((host < 0) | (host >= n)):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = lax.rem(lax.add(lax.rem(a, _scalar_as(a, n)), _scalar_as(a, n)), _scalar_as(a, n))
    elif mode == "clip":
        a = lax.clamp(_scalar_as(a, 0), a, _scalar_as(a, n - 1))
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', "
                         "or 'clip'")
    choices = util.promote_dtypes(*choices)
    a, *choices = _broadcast_arrays(a, *choices)
    return lax.select_n(lax.convert_element_type(a, np.int32), *choices)


def _scalar_as(x, value):
    return np.array(value, _aval(x).dtype)


# -- take (gather) --------------------------------------------------------------

def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """Elements of ``a`` at ``indices`` along ``axis`` (flattened when None),
    as one ``gather`` inside ``jit[name=_take]`` (SPEC NP-53, IDX-25).

    ``mode`` None/'fill': negative indices count from the end, others out of
    range read ``fill_value`` (NaN, INT_MIN, UINT_MAX or True by default);
    'clip' clamps; 'wrap' wraps (``remainder``); 'raise' is not supported.
    """
    return _take(a, indices, None if axis is None else operator.index(axis), out,
                 mode, unique_indices=unique_indices,
                 indices_are_sorted=indices_are_sorted, fill_value=fill_value)


@jit(static_argnames=("axis", "mode", "unique_indices", "indices_are_sorted",
                      "fill_value"))
def _take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
          indices_are_sorted=False, fill_value=None):
    from refjax._src.lax import slicing
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    a, indices = util.ensure_arraylike("take", a, indices)
    if axis is None:
        a, axis = ravel(a), 0
    else:
        axis = _canonicalize_axis(axis, _aval(a).ndim)
    n = _aval(a).shape[axis]
    if mode is None or mode == "fill":
        gather_mode = slicing.GatherScatterMode.FILL_OR_DROP
        # gather itself does not wrap negative indices.
        indices = util._where(indices < 0, indices + n, indices)
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    elif mode == "wrap":
        indices = ufuncs.mod(indices, util._const(indices, n))
        gather_mode = slicing.GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode == "clip":
        gather_mode = slicing.GatherScatterMode.CLIP
    else:
        raise ValueError(f"Invalid mode '{mode}' for np.take")
    a_shape, i_shape = _aval(a).shape, _aval(indices).shape
    if n == 0:
        if math.prod(i_shape) != 0:
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return a
    if math.prod(i_shape) == 0:
        return lax.full_like(a, 0, shape=a_shape[:axis] + i_shape + a_shape[axis + 1:])
    nd_i = len(i_shape)
    dnums = slicing.GatherDimensionNumbers(
        offset_dims=tuple(range(axis)) + tuple(range(axis + nd_i, len(a_shape) + nd_i - 1)),
        collapsed_slice_dims=(axis,), start_index_map=(axis,))
    slice_sizes = a_shape[:axis] + (1,) + a_shape[axis + 1:]
    return slicing.gather(a, lax.expand_dims(indices, (nd_i,)), dnums, slice_sizes,
                          mode=gather_mode, unique_indices=unique_indices,
                          indices_are_sorted=indices_are_sorted, fill_value=fill_value)


def _normalize_index(index, axis_size):
    """``index + axis_size`` where negative (unsigned indices pass through)."""
    if dtypes.issubdtype(_aval(index).dtype, np.unsignedinteger):
        return index
    return lax.select(index < 0, lax.add(index, util._const(index, axis_size)), index)


def _index_dtype_for_dim(size):
    return np.dtype(np.int64 if size > np.iinfo(np.int32).max else np.int32)


@jit(static_argnames=("axis", "mode", "fill_value", "wrap_negative_indices"))
def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
    """``arr`` indexed by ``indices`` along ``axis``, the other axes matched
    (or broadcast) between the two: one ``gather`` whose matched axes are
    batching dimensions (SPEC NP-53, IDX-25).

    ``mode`` is the gather's (default 'fill'); negative indices wrap unless
    ``mode='promise_in_bounds'`` or ``wrap_negative_indices=False``.
    """
    from refjax._src.lax import slicing
    a, indices = util.ensure_arraylike("take_along_axis", arr, indices)
    i_shape = _aval(indices).shape
    if not dtypes.issubdtype(_aval(indices).dtype, np.integer):
        raise TypeError("take_along_axis indices must be of integer type, got "
                        f"{_aval(indices).dtype}")
    if axis is None:
        if len(i_shape) != 1:
            raise ValueError("take_along_axis indices must be 1D if axis=None, got "
                             f"shape {i_shape}")
        a, axis = ravel(a), 0
    rank = _aval(a).ndim
    if rank != len(i_shape):
        raise ValueError("indices and arr must have the same number of dimensions; "
                         f"{len(i_shape)} vs. {rank}")
    axis = _canonicalize_axis(axis, rank)
    axis_size = _aval(a).shape[axis]
    arr_shape = _aval(a).shape[:axis] + (1,) + _aval(a).shape[axis + 1:]
    out_shape = _broadcast_shapes([i_shape, arr_shape])
    if axis_size == 0:
        return lax.full(out_shape, 0, _aval(a).dtype)
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != "promise_in_bounds"
    if wrap_negative_indices:
        indices = lax.convert_element_type(indices, _index_dtype_for_dim(axis_size))
        indices = _normalize_index(indices, axis_size)
    if mode == "one_hot":
        return _take_along_axis_one_hot(a, indices, axis, axis_size)
    index_dims = [i for i, d in enumerate(i_shape) if i == axis or d != 1]
    gather_indices = lax.reshape(indices, tuple(out_shape[i] for i in index_dims) + (1,))
    dn = _along_axis_dnums(a, i_shape, arr_shape, axis)
    a = lax.squeeze(a, dn["squeeze"]) if dn["squeeze"] else a
    dnums = slicing.GatherDimensionNumbers(
        offset_dims=tuple(dn["offset"]), collapsed_slice_dims=tuple(dn["collapsed"]),
        start_index_map=tuple(dn["start"]), operand_batching_dims=tuple(dn["batch_a"]),
        start_indices_batching_dims=tuple(dn["batch_i"]))
    return slicing.gather(a, gather_indices, dnums, tuple(dn["sizes"]),
                          mode="fill" if mode is None else mode, fill_value=fill_value)


def _along_axis_dnums(a, i_shape, arr_shape, axis):
    """Gather dimensions for take_along_axis: the indexed axis is collapsed;
    an axis where ``indices`` has size 1 is a whole window; an axis where
    ``arr`` has size 1 (and ``indices`` not) is squeezed away; the others are
    batching dimensions of both operands."""
    dn = {k: [] for k in ("sizes", "offset", "start", "collapsed", "batch_a",
                          "batch_i", "squeeze")}
    new_i = j = 0   # axis of the squeezed operand, axis of the indices
    for i in range(len(i_shape)):
        if i == axis:
            dn["sizes"].append(1)
            dn["start"].append(new_i)
            dn["collapsed"].append(new_i)
            new_i, j = new_i + 1, j + 1
        elif i_shape[i] == 1:
            dn["offset"].append(i)
            dn["sizes"].append(arr_shape[i])
            new_i += 1
        elif arr_shape[i] == 1:
            dn["squeeze"].append(i)
            j += 1
        else:
            dn["sizes"].append(0 if arr_shape[i] == 0 else 1)
            dn["batch_a"].append(new_i)
            dn["batch_i"].append(j)
            new_i, j = new_i + 1, j + 1
    return dn


def _take_along_axis_one_hot(a, indices, axis, axis_size):
    """``mode='one_hot'``: a one-hot mask contracted with ``a`` (einsum)."""
    import string
    from refjax._src.nn.functions import one_hot
    hot = one_hot(indices, axis_size, dtype=np.bool_)
    dt = _aval(a).dtype
    if _aval(a).ndim == 1:
        return einsum("...b,b->...", hot, a, preferred_element_type=dt)
    if axis > len(string.ascii_letters) - 2:
        raise ValueError("One Hot indexing is only supported for up to 50 leading "
                         "dimensions.")
    labels = string.ascii_letters[:axis]
    return einsum(f"{labels}y...z,{labels}z...->{labels}y...", hot, a,
                  precision=lax.Precision.HIGHEST, preferred_element_type=dt)


# -- nonzero and the other size-dependent selections (SPEC IDX-26) ------------

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
    condition = astype(condition, bool)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    if _aval(condition).ndim != 1:
        raise ValueError("condition must be a 1D array")
    if axis is None:
        axis, arr = 0, ravel(arr)
    else:
        arr = moveaxis(arr, axis, 0)
    n = _aval(arr).shape[0]
    condition, extra = condition[:n], condition[n:]
    arr = arr[:_aval(condition).shape[0]]
    if size is None:
        if reductions.any(extra):
            raise ValueError("condition contains entries that are out of bounds")
        result = arr[condition]
    elif not 0 <= size <= _aval(arr).shape[0]:
        raise ValueError(_COMPRESS_SIZE_ERR.format(size, _aval(arr).shape[0]))
    else:
        mask = expand_dims(condition, tuple(range(1, _aval(arr).ndim)))
        arr = where(mask, arr, creation.array(fill_value, dtype=_aval(arr).dtype))
        result = arr[argsort(condition, stable=True, descending=True)][:size]
    return moveaxis(result, 0, axis)


def bincount(x, weights=None, minlength=0, *, length=None):
    """How often each value ``0 .. length-1`` occurs in the non-negative
    integer array ``x`` (summing ``weights`` if given): a ``scatter-add``
    into zeros, larger values dropped (SPEC IDX-26).  ``length`` must be
    static; without it ``x`` must be concrete."""
    x = util.ensure_arraylike("bincount", x)
    if _aval(x).dtype == np.bool_:
        x = lax.convert_element_type(x, np.int32)
    if not dtypes.issubdtype(_aval(x).dtype, np.integer):
        raise TypeError("x argument to bincount must have an integer type; got "
                        f"{_aval(x).dtype}")
    if _aval(x).ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = core.concrete_or_error(
        operator.index, minlength,
        "The error occurred because of argument 'minlength' of jnp.bincount.")
    if length is None:
        host = core.concrete_or_error(
            np.asarray, x, "The error occurred because of argument 'x' of jnp.bincount. "
            "To avoid this error, pass a static `length` argument.")
        length = builtins.max(minlength, host.size and int(builtins.max(0, host.max())) + 1)
    else:
        length = core.concrete_or_error(
            operator.index, length,
            "The error occurred because of argument 'length' of jnp.bincount.")
    if weights is None:
        weights = np.array(1, dtype=dtypes.default_int_dtype())
    elif np.shape(x) != np.shape(weights):
        raise ValueError("type of weights must match type of x. Got "
                         f"typeof(x)={_aval(x).str_short()} and "
                         f"typeof(weights)={_aval(weights).str_short()}")
    zeros = creation.zeros(length, _aval(weights).dtype)
    return zeros.at[ufuncs.clip(x, 0)].add(weights, mode="drop")


def nonzero(a, *, size=None, fill_value=None):
    """Indices of the nonzero elements, one array per axis (SPEC NP-46, IDX-26).

    Without ``size`` the count must be concrete; with it the result has
    exactly ``size`` entries, truncated or padded with 0 (or
    ``fill_value``), which works under ``jit``.  The flat positions are
    ``cumsum(bincount(cumsum(mask), length=size))``: the j-th nonzero sits
    after every element whose running count is at most j.
    """
    arr = util.ensure_arraylike("nonzero", a)
    sh = _aval(arr).shape
    if len(sh) == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "jnp.atleast_1d(scalar).nonzero() instead.")
    mask = arr if _aval(arr).dtype == np.bool_ else arr != 0
    size = core.concrete_or_error(
        operator.index, reductions.sum(mask) if size is None else size,
        "The size argument of jnp.nonzero must be statically specified "
        "to use jnp.nonzero within JAX transformations.")
    int_ = dtypes.default_int_dtype()
    if math.prod(sh) == 0 or size == 0:
        return tuple(creation.zeros(size, int_) for _ in sh)
    flat = reductions.cumsum(bincount(reductions.cumsum(mask), length=size))
    strides = (np.cumprod(sh[::-1])[::-1] // sh).astype(_aval(flat).dtype)
    out = tuple((flat // stride) % n for stride, n in zip(strides, sh))
    if fill_value is None:
        return out
    fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * len(sh)
    if builtins.any(np.shape(f) != () for f in fills):
        raise ValueError(f"fill_value must be a scalar or a tuple of length {len(sh)}; "
                         f"got {fill_value}")
    padding = creation.arange(size) >= reductions.sum(mask)
    return tuple(where(padding, f, o) for f, o in zip(fills, out))


def argwhere(a, *, size=None, fill_value=None):
    """Indices of nonzero elements as an ``(N, a.ndim)`` array."""
    a = util.ensure_arraylike("argwhere", a)
    result = transpose(vstack(nonzero(atleast_1d(a), size=size, fill_value=fill_value)))
    if _aval(a).ndim == 0:
        return reshape(result[:0], (_aval(result).shape[0], 0))
    return reshape(result, (_aval(result).shape[0], _aval(a).ndim))


def flatnonzero(a, *, size=None, fill_value=None):
    """Indices of nonzero elements of the flattened ``a``."""
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


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
    result = lax.sort(arr, dim, is_stable=stable)
    return lax.rev(result, (dim,)) if descending else result


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
    iota = lax.broadcasted_iota(idx_dtype, _aval(arr).shape, dim)
    if descending and stable:
        arr, iota = lax.rev(arr, (dim,)), lax.rev(iota, (dim,))
    _, indices = lax.sort_key_val(arr, iota, dim, is_stable=stable)
    return lax.rev(indices, (dim,)) if descending else indices


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
    iota = lax.broadcasted_iota(dtypes.default_int_dtype(), sh, axis)
    return lax.sort((*keys[::-1], iota), axis, num_keys=len(keys))[-1]


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
    out = lax.concatenate([bottom, top], _aval(arr).ndim - 1)
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
    hit = lax.eq(lax.broadcast_in_dim(bottom, full, tuple(range(len(sh)))),
                 lax.broadcasted_iota(np.int32, full, len(sh)))
    taken = lax.reduce_or(hit, (len(sh) - 1,))
    proxy = lax.select(taken, creation.zeros(sh, np.float32), creation.ones(sh, np.float32))
    top = top_k(proxy, sh[-1] - kth - 1)[1]
    out = lax.concatenate([bottom, top], len(sh) - 1)
    return swapaxes(out, -1, axis)


def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    """Insertion points of ``v`` in the sorted 1-d ``a`` (SPEC NP-50).

    Every method gives the same answer; refjax counts with one comparison
    of all pairs (JAX's 'compare_all'), in a total order where -0.0 == 0.0
    and NaNs sort last.
    """
    if side not in ("left", "right"):
        raise ValueError(f"invalid argument side={side!r}, expected 'left' or 'right'")
    methods = ["compare_all", "scan", "scan_unrolled", "sort"]
    if method not in methods:
        raise ValueError(f"invalid argument method={method!r}, expected one of {methods}")
    args = (a, v) if sorter is None else (a, v, sorter)
    util.check_arraylike("searchsorted", *args)
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
    ab = lax.broadcast_in_dim(a, full, (0,))
    vb = lax.broadcast_in_dim(v, full, tuple(range(1, len(full))))
    less = _total_less(ab, vb, side == "right")
    return lax.reduce_sum(lax.convert_element_type(less, np.int32), (0,))


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
            valid = lax.expand_dims(creation.arange(size) < reductions.sum(mask),
                                    tuple(range(1, _aval(result).ndim)))
            result = where(valid, result, fill)
        else:
            result = lax.full_like(result, fill, shape=(size, *_aval(result).shape[1:]))
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


# ---------------------------------------------------------------------------
# Contractions (SPEC NP-47)
# ---------------------------------------------------------------------------

def _result_dtype(fun_name, preferred_element_type, *args):
    """(dtype, weak) of a contraction: the promoted type, or the requested one."""
    if preferred_element_type is None:
        return dtypes.result_type(*args, return_weak_type_flag=True)
    dt = dtypes.check_user_dtype(preferred_element_type, fun_name)
    return dtypes.canonicalize_dtype(dt), False


def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """NumPy's ``dot``: the last axis of ``a`` against the second-to-last of
    ``b`` (its only axis when 1-d); a scalar operand multiplies.

    One ``dot_general`` with ``preferred_element_type`` set to the promoted
    dtype, so mixed operand dtypes need no conversion (SPEC NP-47).
    """
    a, b = _ensure("dot", a, b)
    pet, weak = _result_dtype("dot", preferred_element_type, a, b)
    an, bn = _aval(a).ndim, _aval(b).ndim
    if an == 0 or bn == 0:
        contract = ((), ())
    elif bn == 1:
        contract = ((an - 1,), (0,))
    else:
        contract = ((an - 1,), (bn - 2,))
    out = lax.dot_general(a, b, (contract, ((), ())), precision, pet)
    return lax._convert_element_type(out, pet, weak)


def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """Matrix product with broadcast batch axes; 1-d operands act as a row
    (``a``) or column (``b``) vector whose axis is removed (SPEC NP-47).

    Batch axes of size 1 facing a larger one are squeezed out of that
    operand and become free axes of the other; equal batch axes become
    ``dot_general`` batch dimensions; a transpose restores NumPy's order.
    """
    a, b = _ensure("matmul", a, b)
    for i, x in enumerate((a, b)):
        if _aval(x).ndim < 1:
            raise ValueError(f"matmul input operand {i} must have ndim at least 1, "
                             f"but it has ndim {_aval(x).ndim}")
    pet, weak = _result_dtype("matmul", preferred_element_type, a, b)
    plan = _matmul_plan(_aval(a), _aval(b))
    a = lax.squeeze(a, plan["a_squeeze"])
    b = lax.squeeze(b, plan["b_squeeze"])
    an, bn = _aval(a).ndim, _aval(b).ndim
    contract = ((an - 1,), (bn - 1 - int(plan["b_is_mat"]),))
    out = lax.dot_general(a, b, (contract, (plan["a_batch"], plan["b_batch"])),
                          precision, pet)
    out = lax.transpose(out, plan["perm"])
    if plan["both_squeeze"]:
        out = lax.expand_dims(out, plan["both_squeeze"])
    return lax._convert_element_type(out, pet, weak)


def _matmul_plan(a, b):
    """Which batch axes to squeeze, batch or keep free, and the final order."""
    a_is_mat, b_is_mat = a.ndim > 1, b.ndim > 1
    a_bat = a.shape[:-2] if a_is_mat else ()
    b_bat = b.shape[:-2] if b_is_mat else ()
    nb = builtins.max(len(a_bat), len(b_bat))
    a_bat = (None,) * (nb - len(a_bat)) + a_bat
    b_bat = (None,) * (nb - len(b_bat)) + b_bat
    a_sq, b_sq, both_sq, a_batch, b_batch = [], [], [], [], []
    idx_batch, idx_a, idx_b = [], [], []
    for i, (ba, bb) in enumerate(zip(a_bat, b_bat)):
        if ba is None:
            idx_b.append(i)
        elif bb is None:
            idx_a.append(i)
        elif ba == 1 and bb == 1:
            a_sq.append(len(idx_batch) + len(idx_a) + len(a_sq))
            b_sq.append(len(idx_batch) + len(idx_b) + len(b_sq))
            both_sq.append(i)
        elif ba == 1:
            idx_b.append(i)
            a_sq.append(len(idx_batch) + len(idx_a) + len(a_sq))
        elif bb == 1:
            idx_a.append(i)
            b_sq.append(len(idx_batch) + len(idx_b) + len(b_sq))
        elif ba == bb:
            a_batch.append(len(idx_batch) + len(idx_a))
            b_batch.append(len(idx_batch) + len(idx_b))
            idx_batch.append(i)
        else:
            raise ValueError("Incompatible types for matmul arguments: "
                             f"{a.str_short()} and {b.str_short()}")
    if a_is_mat:
        idx_a.append(nb)
    if b_is_mat:
        idx_b.append(nb + a_is_mat)
    perm = tuple(int(p) for p in np.argsort(idx_batch + idx_a + idx_b))
    return {"a_squeeze": tuple(a_sq), "b_squeeze": tuple(b_sq),
            "both_squeeze": tuple(both_sq), "a_batch": tuple(a_batch),
            "b_batch": tuple(b_batch), "perm": perm, "b_is_mat": b_is_mat}


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product of the flattened arrays, conjugating ``a``."""
    a, b = _ensure("vdot", a, b)
    if dtypes.issubdtype(_aval(a).dtype, np.complexfloating):
        a = lax.conj(a)
    return dot(ravel(a), ravel(b), precision=precision,
               preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """Conjugated dot product along ``axis``, the other axes broadcast."""
    x1, x2 = _ensure("vecdot", x1, x2)
    n1, n2 = _aval(x1).ndim, _aval(x2).ndim
    if _aval(x1).shape[_canonicalize_axis(axis, n1)] != \
            _aval(x2).shape[_canonicalize_axis(axis, n2)]:
        raise ValueError("axes must match; got shapes "
                         f"{_aval(x1).shape} and {_aval(x2).shape} with axis={axis}")
    x1 = moveaxis(x1, axis, -1)
    x2 = moveaxis(x2, axis, -1)
    if dtypes.issubdtype(_aval(x1).dtype, np.complexfloating):
        x1 = lax.conj(x1)
    batch = _broadcast_shapes([_aval(x1).shape[:-1], _aval(x2).shape[:-1]])
    x1 = _broadcast_to(x1, batch + _aval(x1).shape[-1:])
    x2 = _broadcast_to(x2, batch + _aval(x2).shape[-1:])
    pet, weak = _result_dtype("vecdot", preferred_element_type, x1, x2)
    nb = len(batch)
    dims = (((nb,), (nb,)), (tuple(range(nb)), tuple(range(nb))))
    return lax._convert_element_type(lax.dot_general(x1, x2, dims, precision, pet),
                                     pet, weak)


def inner(a, b, *, precision=None, preferred_element_type=None):
    """Contraction of the last axes of ``a`` and ``b``; a scalar multiplies."""
    a, b = _ensure("inner", a, b)
    if _aval(a).ndim == 0 or _aval(b).ndim == 0:
        if preferred_element_type is not None:
            a = astype(a, preferred_element_type)
            b = astype(b, preferred_element_type)
        return _multiply(a, b)
    return tensordot(a, b, (-1, -1), precision=precision,
                     preferred_element_type=preferred_element_type)


def _multiply(a, b):
    """``jnp.multiply``: booleans multiply as ``and`` (SPEC NP-29)."""
    from refjax._src.numpy.ufuncs import multiply
    return multiply(a, b)


def outer(a, b, out=None):
    """Products of every element of ``a`` with every element of ``b``."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
    a, b = _ensure("outer", a, b)
    a, b = util.promote_dtypes(a, b)
    return _multiply(lax.expand_dims(ravel(a), (1,)), lax.expand_dims(ravel(b), (0,)))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None,
              out_sharding=None):
    """Sum over the given axes: an int (last ``axes`` of ``a`` with first of
    ``b``), a pair of ints, or a pair of axis sequences."""
    a, b = _ensure("tensordot", a, b)
    an, bn = _aval(a).ndim, _aval(b).ndim
    pet, weak = _result_dtype("tensordot", preferred_element_type, a, b)
    if type(axes) is int:
        if axes > builtins.min(an, bn):
            raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks "
                            f"({_aval(a).shape} and {_aval(b).shape})")
        contract = (tuple(range(an - axes, an)), tuple(range(axes)))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax1, ax2 = axes
        if isinstance(ax1, int) and isinstance(ax2, int):
            contract = ((_canonicalize_axis(ax1, an),), (_canonicalize_axis(ax2, bn),))
        elif isinstance(ax1, (tuple, list)) and isinstance(ax2, (tuple, list)):
            if len(ax1) != len(ax2):
                raise TypeError("tensordot requires axes lists to have equal length, "
                                f"got {ax1} and {ax2}.")
            contract = (tuple(_canonicalize_axis(i, an) for i in ax1),
                        tuple(_canonicalize_axis(i, bn) for i in ax2))
        else:
            raise TypeError("tensordot requires both axes lists to be either ints, "
                            f"tuples or lists, got {ax1} and {ax2}")
    else:
        raise TypeError("tensordot axes argument must be an int, a pair of ints, or a "
                        "pair of lists/tuples of ints.")
    out = lax.dot_general(a, b, (contract, ((), ())), precision, pet)
    return lax._convert_element_type(out, pet, weak)


@jit
def kron(a, b):
    """Kronecker product: ``a`` and ``b`` interleaved on alternate axes,
    multiplied, then merged pairwise."""
    a, b = util.promote_dtypes(*_ensure("kron", a, b))
    na, nb = _aval(a).ndim, _aval(b).ndim
    if na < nb:
        a = lax.expand_dims(a, tuple(range(nb - na)))
    elif nb < na:
        b = lax.expand_dims(b, tuple(range(na - nb)))
    nd = _aval(a).ndim
    a_r = lax.expand_dims(a, tuple(range(1, 2 * nd, 2)))
    b_r = lax.expand_dims(b, tuple(range(0, 2 * nd, 2)))
    shape_ = tuple(x * y for x, y in zip(_aval(a).shape, _aval(b).shape))
    return lax.reshape(lax.mul(a_r, b_r), shape_)


@jit(static_argnames=("axisa", "axisb", "axisc", "axis"))
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 2- or 3-vectors along the given axes; a 2-vector
    has a zero third component, and two 2-vectors give a scalar."""
    a, b = util.promote_dtypes(*_ensure("cross", a, b))
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    na, nb = _aval(a).shape[-1], _aval(b).shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    a0, a1, a2 = _components(a)
    b0, b1, b2 = _components(b)
    if na == 2 and nb == 2:
        return _arith(lax.sub, _arith(lax.mul, a0, b1), _arith(lax.mul, a1, b0))
    parts = [_arith(lax.sub, _arith(lax.mul, a1, b2), _arith(lax.mul, a2, b1)),
             _arith(lax.sub, _arith(lax.mul, a2, b0), _arith(lax.mul, a0, b2)),
             _arith(lax.sub, _arith(lax.mul, a0, b1), _arith(lax.mul, a1, b0))]
    nd = _aval(parts[0]).ndim
    c = lax.concatenate([lax.expand_dims(p, (nd,)) for p in parts], nd)
    return moveaxis(c, -1, axisc)


def _components(v):
    """``v[..., 0]``, ``v[..., 1]`` and ``v[..., 2]`` (a zero scalar for 2-vectors)."""
    last = _aval(v).ndim - 1
    comps = [lax.squeeze(_static_slice(v, last, i, i + 1), (last,))
             for i in range(_aval(v).shape[-1])]
    return comps + [np.zeros((), _aval(v).dtype)] * (3 - len(comps))


def _arith(op, x, y):
    """A binary jnp operator: promotion and rank promotion, then ``op``."""
    x, y = util.promote_args(op.__name__, x, y)
    return op(x, y)


# -- einsum -------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _dot_general=None, out_sharding=None):
    """Einstein summation (SPEC NP-47).

    Subscripts may use ``...`` and may omit the output (then it is the
    labels used once, sorted).  Operands are contracted pairwise from the
    left, each pair with one ``dot_general`` (labels only one side needs
    are summed first, repeated labels are taken on their diagonal); the
    result has the promoted dtype of all operands.
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved_subscripts(subscripts, operands)
    operands = _ensure("einsum", *operands)
    inputs, output = _parse_subscripts(subscripts, [_aval(o) for o in operands])
    _check_label_sizes(inputs, operands)
    pet, weak = _result_dtype("einsum", preferred_element_type, *operands)
    ops, names = list(operands), list(inputs)
    if len(ops) == 1:
        result, rnames = _einsum_single(ops[0], names[0], output, pet)
        return lax._convert_element_type(_to_order(result, rnames, output), pet, weak)
    while len(ops) > 1:
        # Contract the first two (popped as JAX's contraction paths do:
        # index 1 is the lhs) into labels still needed afterwards.
        rhs, lhs = ops.pop(0), ops.pop(0)
        rhs_names, lhs_names = names.pop(0), names.pop(0)
        later = output if not ops else output + "".join(names)
        kept = "".join(dict.fromkeys(c for c in lhs_names + rhs_names if c in later))
        result_names = output if not ops else kept
        ops.append(_einsum_pair(lhs, lhs_names, rhs, rhs_names, result_names,
                                precision, pet))
        names.append(result_names)
    return lax._convert_element_type(ops[0], pet, weak)


def _interleaved_subscripts(first, rest):
    """einsum(op0, sub0, op1, sub1, ..., [out]) as a subscript string."""
    args = [first, *rest]
    out = args.pop() if len(args) % 2 else None   # a trailing output sublist
    ops, subs = args[0::2], args[1::2]

    def term(sub):
        return "".join("..." if s is Ellipsis else _LETTERS[operator.index(s)]
                       for s in sub)
    text = ",".join(term(s) for s in subs)
    if out is not None:
        text += "->" + term(out)
    return text, ops


def _parse_subscripts(subscripts, avals):
    """Input label strings (ellipses expanded) and the output labels."""
    spec = subscripts.replace(" ", "")
    explicit = "->" in spec
    lhs, out = spec.split("->") if explicit else (spec, None)
    terms = lhs.split(",")
    if len(terms) != len(avals):
        raise ValueError(f"Number of einsum subscripts, {len(terms)}, must be equal to "
                         f"the number of operands, {len(avals)}.")
    used = set(c for c in spec if c.isalpha())
    free = [c for c in _LETTERS if c not in used]
    n_ell = 0
    for t, a in zip(terms, avals):
        if "..." in t:
            n_ell = builtins.max(n_ell, a.ndim - (len(t) - 3))
    ell = "".join(free[:n_ell])
    inputs = []
    for i, (t, a) in enumerate(zip(terms, avals)):
        if "..." in t:
            k = builtins.max(a.ndim - (len(t) - 3), 0)
            t = t.replace("...", ell[n_ell - k:] if k else "")
        if len(t) != a.ndim:
            raise ValueError(f"Einstein sum subscript '{terms[i]}' does not contain the "
                             f"correct number of indices for operand {i}.")
        inputs.append(t)
    if out is None:
        counts = collections.Counter("".join(inputs))
        out = ell + "".join(sorted(c for c in counts if counts[c] == 1 and c not in ell))
    else:
        out = out.replace("...", ell)
        for c in out:
            if c not in "".join(inputs):
                raise ValueError(f"Output character '{c}' did not appear in the input")
    return inputs, out


def _check_label_sizes(inputs, operands):
    sizes = {}
    for i, (t, op) in enumerate(zip(inputs, operands)):
        for c, d in zip(t, _aval(op).shape):
            prev = sizes.get(c)
            if prev is not None and d != prev and 1 not in (d, prev):
                # The sizes are reported in this order by JAX (opt_einsum).
                raise ValueError(f"Size of label '{c}' for operand {i} ({prev}) does not "
                                 f"match previous terms ({d}).")
            if prev is None or prev == 1:
                sizes[c] = d


def _einsum_sum(x, axes, pet):
    if dtypes.result_type(x, pet) != _aval(x).dtype:
        x = astype(x, pet)
    if _aval(x).dtype == np.bool_:
        return lax.reduce_or(x, tuple(axes))
    return lax.reduce_sum(x, tuple(axes))


def _delta(shape_, axes):
    """Boolean mask of ``shape_``: true where the ``axes`` indices are equal."""
    base = tuple(shape_[a] for a in axes)
    iotas = [lax.broadcasted_iota(np.uint32, base, i) for i in range(len(base))]
    eyes = [lax.eq(i1, i2) for i1, i2 in zip(iotas[:-1], iotas[1:])]
    mask = eyes[0]
    for e in eyes[1:]:
        mask = lax.bitwise_and(mask, e)
    return lax.broadcast_in_dim(mask, tuple(shape_), tuple(axes))


def _sum_uniques(x, names, uniques, pet):
    if uniques:
        x = _einsum_sum(x, [names.index(c) for c in uniques], pet)
        names = "".join(c for c in names if c not in uniques)
    return x, names


def _sum_repeats(x, names, keep, pet):
    """Take repeated labels on their diagonal; sum them away unless kept."""
    for c, count in collections.Counter(names).items():
        if count < 2:
            continue
        axes = [i for i, n in enumerate(names) if n == c]
        x = lax.select(_delta(_aval(x).shape, axes), x, creation.zeros_like(x))
        if c not in keep:
            x = _einsum_sum(x, axes, pet)
            names = names.replace(c, "")
        else:
            x = _einsum_sum(x, axes[:-1], pet)
            names = names.replace(c, "", count - 1)
    return x, names


def _einsum_single(x, names, result, pet):
    counts = collections.Counter(names)
    uniques = [c for c in sorted(set(names) - set(result)) if counts[c] == 1]
    x, names = _sum_uniques(x, names, uniques, pet)
    return _sum_repeats(x, names, result, pet)


def _filter_singletons(x, names, other_shape, other_names):
    """Squeeze size-1 axes whose label has a larger size in the other operand."""
    sh = _aval(x).shape
    keep = []
    for i, c in enumerate(names):
        j = other_names.find(c)
        keep.append(sh[i] != 1 or j == -1 or other_shape[j] == 1)
    drop = tuple(i for i, k in enumerate(keep) if not k)
    return lax.squeeze(x, drop), "".join(c for c, k in zip(names, keep) if k)


def _einsum_pair(lhs, lhs_names, rhs, rhs_names, result, precision, pet):
    contracted = sorted((set(lhs_names) | set(rhs_names)) - set(result))
    lhs, lhs_names = _filter_singletons(lhs, lhs_names, _aval(rhs).shape, rhs_names)
    rhs, rhs_names = _filter_singletons(rhs, rhs_names, _aval(lhs).shape, lhs_names)
    lc, rc = collections.Counter(lhs_names), collections.Counter(rhs_names)
    lhs, lhs_names = _sum_uniques(lhs, lhs_names, [c for c in contracted if lc[c] == 1
                                                   and rc[c] == 0], pet)
    rhs, rhs_names = _sum_uniques(rhs, rhs_names, [c for c in contracted if rc[c] == 1
                                                   and lc[c] == 0], pet)
    lhs, lhs_names = _sum_repeats(lhs, lhs_names, result + rhs_names, pet)
    rhs, rhs_names = _sum_repeats(rhs, rhs_names, result + lhs_names, pet)
    contracted = [c for c in contracted if c in lhs_names or c in rhs_names]
    both = set(lhs_names) & set(rhs_names)
    batch = "".join(c for c in result if c in both)
    lb = tuple(lhs_names.find(c) for c in batch)
    rb = tuple(rhs_names.find(c) for c in batch)
    lcon = tuple(lhs_names.index(c) for c in contracted)
    rcon = tuple(rhs_names.index(c) for c in contracted)
    gone = batch + "".join(contracted)
    l_rest = "".join(c for c in lhs_names if c not in gone)
    r_rest = "".join(c for c in rhs_names if c not in gone)
    # Of the two operand orders, prefer the one needing no transpose.
    names = batch + r_rest + l_rest
    if names == result:
        out = lax.dot_general(rhs, lhs, ((rcon, lcon), (rb, lb)), precision, pet)
    else:
        names = batch + l_rest + r_rest
        out = lax.dot_general(lhs, rhs, ((lcon, rcon), (lb, rb)), precision, pet)
    return _to_order(out, names, result)


def _to_order(x, names, result):
    if names == result:
        return x
    return lax.transpose(x, tuple(names.index(c) for c in result))


# ---------------------------------------------------------------------------
# Diagonals, triangles and grids (SPEC NP-52)
# ---------------------------------------------------------------------------

def _eye_bool(n, m, k):
    """``iota(0) + k == iota(1)`` over an (n, m) grid; ``k`` may be traced."""
    rows = lax.broadcasted_iota(np.int32, (n, m), 0)
    cols = lax.broadcasted_iota(np.int32, (n, m), 1)
    if isinstance(k, core.Tracer):
        k = lax._convert_element_type(k, np.int32, weak_type=False)
    else:
        k = np.int32(operator.index(k))
    return lax.eq(lax.add(rows, k), cols)


def _sum_dtype(dt):
    """The accumulation dtype of ``jnp.sum``: small ints and bool widen."""
    default_int = dtypes.default_int_dtype()
    if dt == np.bool_:
        return default_int
    if dtypes.issubdtype(dt, np.signedinteger) and dt.itemsize < default_int.itemsize:
        return default_int
    if dtypes.issubdtype(dt, np.unsignedinteger):
        default_uint = np.dtype(f"uint{dtypes.default_int_dtype().itemsize * 8}")
        if dt.itemsize < default_uint.itemsize:
            return default_uint
    return dt


@jit(static_argnames=("axis1", "axis2", "dtype", "out"))
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum of the ``offset`` diagonal over ``axis1``/``axis2``: the other
    entries are masked with ``where`` and everything summed (SPEC NP-52)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    a, = _ensure("trace", a)
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    n, m = _aval(a).shape[-2:]
    a = _where(_eye_bool(n, m, offset), a, creation.zeros_like(a))
    acc = (_sum_dtype(_aval(a).dtype) if dtype is None else
           dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, "trace")))
    if acc != _aval(a).dtype:
        a = lax.convert_element_type(a, acc)
    nd = _aval(a).ndim
    return lax.reduce_sum(a, (nd - 2, nd - 1))


@jit(static_argnames=("offset", "axis1", "axis2"))
def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal over ``axis1``/``axis2``, as the last axis.

    Taken as a strided ``slice`` of the flattened matrices (SPEC NP-52).
    """
    a, = _ensure("diagonal", a)
    if _aval(a).ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    offset = operator.index(offset)
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    *batch, n, m = _aval(a).shape
    if offset >= 0:
        start, length = offset, builtins.max(0, builtins.min(n, m - offset))
    else:
        start, length = -offset * m, builtins.max(0, builtins.min(n + offset, m))
    flat = lax.reshape(a, tuple(batch) + (n * m,))
    stop = start + (length - 1) * (m + 1) + 1 if length else start
    return lax.slice_in_dim(flat, start, stop, m + 1, axis=len(batch))


def diag(v, k=0):
    """The ``k`` diagonal of a matrix, or a matrix with ``v`` on it."""
    v, = _ensure("diag", v)
    k = _static_int(k, "'k' argument of jnp.diag")
    return _diag(v, k)


@jit(static_argnames=("k",))
def _diag(v, k):
    nd = _aval(v).ndim
    if nd == 2:
        return diagonal(v, k)
    if nd != 1:
        raise ValueError("diag input must be 1d or 2d")
    n = _aval(v).shape[0] + builtins.abs(k)
    zero = _zero(v)
    v = lax.pad(v, zero, ((builtins.max(0, -k), builtins.max(0, k), 0),))
    return _where(_eye_bool(n, n, k), lax.expand_dims(v, (1,)), zero)


def diagflat(v, k=0):
    """A matrix with the flattened ``v`` on its ``k`` diagonal."""
    v, = _ensure("diagflat", v)
    return diag(ravel(v), k)


def tri(N, M=None, k=0, dtype=None):
    """Ones at and below the ``k`` diagonal (float32 by default, as in JAX)."""
    dt = np.dtype(np.float32) if dtype is None else dtypes.canonicalize_dtype(
        dtypes.check_user_dtype(dtype, "tri"))
    M = N if M is None else M
    return lax.convert_element_type(_tri_bool(N, M, k), dt)


def _tri_bool(n, m, k):
    shape_ = creation.canonicalize_shape((n, m))
    return lax.ge(lax.add(lax.broadcasted_iota(np.int32, shape_, 0), np.int32(k)),
                  lax.broadcasted_iota(np.int32, shape_, 1))


@jit(static_argnames=("k",))
def tril(m, k=0):
    """Zeros above the ``k`` diagonal of the last two axes."""
    m, = _ensure("tril", m)
    sh = _aval(m).shape
    if len(sh) < 2:
        raise ValueError("Argument to jax.numpy.tril must be at least 2D")
    which = lax.broadcast(_tri_bool(sh[-2], sh[-1], k), sh[:-2])
    return lax.select(which, m, creation.zeros_like(m))


@jit(static_argnames=("k",))
def triu(m, k=0):
    """Zeros below the ``k`` diagonal of the last two axes."""
    m, = _ensure("triu", m)
    sh = _aval(m).shape
    if len(sh) < 2:
        raise ValueError("Argument to jax.numpy.triu must be at least 2D")
    which = lax.broadcast(_tri_bool(sh[-2], sh[-1], k - 1), sh[:-2])
    return lax.select(which, creation.zeros_like(m), m)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from 1-d vectors; 'xy' swaps the first two axes."""
    args = _ensure("meshgrid", *xi)
    if builtins.any(_aval(a).ndim != 1 for a in args):
        raise ValueError("Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                         f"{[_aval(a).shape for a in args]}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    if indexing == "xy" and len(args) >= 2:
        args[0], args[1] = args[1], args[0]
    sizes = [_aval(a).shape[0] for a in args]

    def target(i):
        if not sparse:
            return tuple(sizes)
        return tuple(sizes[i] if j == i else 1 for j in range(len(sizes)))
    output = [lax.broadcast_in_dim(a, target(i), (i,)) for i, a in enumerate(args)]
    if indexing == "xy" and len(args) >= 2:
        output[0], output[1] = output[1], output[0]
    return output


def indices(dimensions, dtype=None, sparse=False):
    """Index grids over ``dimensions``: stacked, or a tuple when ``sparse``
    (one ``iota`` broadcast per axis)."""
    dt = dtypes.default_int_dtype() if dtype is None else dtypes.canonicalize_dtype(
        dtypes.check_user_dtype(dtype, "indices"))
    dimensions = tuple(operator.index(d) for d in dimensions)
    out = []
    for i, d in enumerate(dimensions):
        shape_ = ((1,) * i + (d,) + (1,) * (len(dimensions) - i - 1)) if sparse else dimensions
        out.append(lax.broadcast_in_dim(lax.iota(dt, d), shape_, (i,)))
    if sparse:
        return tuple(out)
    return stack(out, 0) if out else creation.zeros((0,), dt)


_index_grids = indices   # for functions whose ``indices`` argument shadows it


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
            out.append(lax.broadcast_in_dim(a, tuple(shape_), (i,)))
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


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Flat indices of the multi-index ``multi_index`` into ``dims``;
    ``mode`` 'raise' (concrete indices only), 'wrap', 'clip' or 'ignore'."""
    if len(multi_index) != len(dims):
        raise ValueError(f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
    dims = tuple(core.concrete_or_error(operator.index, d, "in `dims` argument of "
                                        "ravel_multi_index().") for d in dims)
    util.check_arraylike("ravel_multi_index", *multi_index)
    arrays = [creation.asarray(i) for i in multi_index]
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
    result = creation.array(0, dtype=dtypes.default_int_dtype())
    for i, s in zip(arrays, strides):
        result = result + astype(i, dtypes.default_int_dtype()) * int(s)
    return result


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
    return (lax.iota(dt, n),) * ndim


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


# ---------------------------------------------------------------------------
# Convolution (SPEC NP-55) and differences (SPEC NP-43)
# ---------------------------------------------------------------------------

@jit(static_argnames=("mode", "op", "precision", "preferred_element_type"))
def _conv(x, y, mode, op, precision, preferred_element_type=None):
    if _aval(x).ndim != 1 or _aval(y).ndim != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:
        if _aval(x).shape[0] == 0 or _aval(y).shape[0] == 0:
            raise ValueError(f"{op}: inputs cannot be empty, got shapes "
                             f"{_aval(x).shape} and {_aval(y).shape}.")
        x, y = util.promote_dtypes_inexact(x, y)
    else:
        if _aval(x).shape[0] == 0 or _aval(y).shape[0] == 0:
            raise ValueError(f"{op}: inputs cannot be empty, got shapes "
                             f"{_aval(x).shape} and {_aval(y).shape}.")
        x, y = util.promote_dtypes(x, y)
    reverse = False
    if op == "correlate":
        if dtypes.issubdtype(_aval(y).dtype, np.complexfloating):
            y = lax.conj(y)
        if _aval(x).shape[0] < _aval(y).shape[0]:
            x, y, reverse = y, x, True
    else:
        if _aval(x).shape[0] < _aval(y).shape[0]:
            x, y = y, x
        y = _flip(y, 0)
    k = _aval(y).shape[0]
    if mode == "valid":
        padding = [(0, 0)]
    elif mode == "same":
        padding = [(k // 2, k - k // 2 - 1)]
    elif mode == "full":
        padding = [(k - 1, k - 1)]
    else:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    result = conv_general_dilated(lax.expand_dims(x, (0, 1)), lax.expand_dims(y, (0, 1)),
                                  (1,), padding, precision=precision,
                                  preferred_element_type=preferred_element_type)
    result = lax.squeeze(result, (0, 1))
    return lax.rev(result, (0,)) if reverse else result


@jit(static_argnames=("mode", "precision", "preferred_element_type"))
def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """1-d discrete convolution (inputs promoted to an inexact dtype), one
    ``conv_general_dilated`` with the shorter input flipped (SPEC NP-55)."""
    a, v = _ensure("convolve", a, v)
    return _conv(a, v, mode=mode, op="convolve", precision=precision,
                 preferred_element_type=preferred_element_type)


@jit(static_argnames=("mode", "precision", "preferred_element_type"))
def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """1-d cross-correlation (``v`` conjugated), 'valid' by default."""
    a, v = _ensure("correlate", a, v)
    return _conv(a, v, mode=mode, op="correlate", precision=precision,
                 preferred_element_type=preferred_element_type)


@jit(static_argnames=("n", "axis"))
def diff(a, n=1, axis=-1, prepend=None, append=None):
    """``n``-th discrete difference along ``axis`` (``!=`` for booleans),
    after joining ``prepend``/``append`` (scalars broadcast) (SPEC NP-43)."""
    arr, = _ensure("diff", a)
    n = _static_int(n, "'n' argument of jnp.diff")
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if n == 0:
        return arr
    nd = _aval(arr).ndim
    if nd == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = _canonicalize_axis(axis, nd)
    parts = [arr]
    if prepend is not None:
        parts.insert(0, _diff_edge(prepend, arr, axis))
    if append is not None:
        parts.append(_diff_edge(append, arr, axis))
    if len(parts) > 1:
        arr = concatenate(parts, axis)
    op = lax.ne if _aval(arr).dtype == np.bool_ else lax.sub
    for _ in range(n):
        arr = op(_static_slice(arr, axis, 1, None), _static_slice(arr, axis, 0, -1))
    return arr


def _diff_edge(extra, arr, axis):
    """``prepend``/``append`` of ``diff``: a scalar becomes a size-1 slab."""
    extra, = _ensure("diff", extra)
    if _aval(extra).ndim == 0:
        sh = list(_aval(arr).shape)
        sh[axis] = 1
        extra = broadcast_to(extra, tuple(sh))
    return extra


def _static_slice(x, axis, start, stop):
    """``x[..., start:stop, ...]`` (Python slice bounds) as one ``slice``
    with ``strides=None``."""
    sh = _aval(x).shape
    start, stop, _ = builtins.slice(start, stop).indices(sh[axis])
    starts = [0] * len(sh)
    limits = list(sh)
    starts[axis], limits[axis] = start, builtins.max(start, stop)
    return lax.slice(x, starts, limits)


@jit
def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened array, with optional values before/after."""
    arr = ravel(*_ensure("ediff1d", ary))
    result = lax.sub(_static_slice(arr, 0, 1, None), _static_slice(arr, 0, 0, -1))
    dt = _aval(arr).dtype
    if to_begin is not None:
        result = concatenate((ravel(creation.asarray(to_begin, dtype=dt)), result))
    if to_end is not None:
        result = concatenate((result, ravel(creation.asarray(to_end, dtype=dt))))
    return result


# ---------------------------------------------------------------------------
# Whole-array comparisons (SPEC NP-54)
# ---------------------------------------------------------------------------

def _all(x):
    """``jnp.all``: a strong bool, reduced over every axis."""
    x = lax._convert_element_type(x, np.bool_, weak_type=False)
    return lax.reduce_and(x, tuple(range(_aval(x).ndim)))


def _isnan(x):
    return lax.ne(x, x)


def array_equal(a1, a2, equal_nan=False):
    """Whether the arrays have equal shapes and elements (a concrete False
    for different shapes); NaNs match each other when ``equal_nan``."""
    a1, a2 = creation.asarray(a1), creation.asarray(a2)
    if _aval(a1).shape != _aval(a2).shape:
        return creation.array(False, dtype=bool)
    x, y = util.promote_args("equal", a1, a2)
    eq = lax.eq(x, y)
    if equal_nan and dtypes.issubdtype(_aval(x).dtype, np.inexact):
        eq = lax.bitwise_or(eq, lax.bitwise_and(_isnan(x), _isnan(y)))
    return _all(eq)


def array_equiv(a1, a2):
    """Whether the arrays are equal after broadcasting (False if they cannot be)."""
    a1, a2 = creation.asarray(a1), creation.asarray(a2)
    try:
        _broadcast_shapes([_aval(a1).shape, _aval(a2).shape])
    except ValueError:
        return creation.array(False)
    x, y = util.promote_args("equal", a1, a2)
    return _all(lax.eq(x, y))


@jit(static_argnames=("equal_nan",))
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|a - b| <= atol + rtol * |b|`` (or equal), elementwise, in the
    promoted inexact dtype; infinities must match exactly (SPEC NP-54)."""
    a, b = util.promote_args_inexact("isclose", a, b)
    dt = _aval(a).dtype
    real = np.finfo(dt).dtype if dt.kind == "c" else dt
    rtol = lax._convert_element_type(rtol, real, weak_type=False)
    atol = lax._convert_element_type(atol, real, weak_type=False)
    both_nan = lax.bitwise_and(_isnan(a), _isnan(b))
    if dt.kind == "c":
        finite = lax.bitwise_and(lax.is_finite(lax.real(b)), lax.is_finite(lax.imag(b)))
    else:
        finite = lax.is_finite(b)
    close = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    out = lax.bitwise_or(lax.eq(a, b), lax.bitwise_and(finite, close))
    if equal_nan:
        out = lax.bitwise_or(out, both_nan)
    return out


@jit(static_argnames=("equal_nan",))
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether ``isclose`` holds everywhere."""
    return _all(isclose(a, b, rtol, atol, equal_nan))
