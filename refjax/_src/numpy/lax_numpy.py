"""Shape manipulation, joining, selection and the rest of ``jax.numpy``
(SPEC NP-30 .. NP-59); sorting, contractions, index helpers and
convolution live in ``sorting.py``, ``contractions.py``,
``index_tricks.py`` and ``signal.py`` beside this module, re-exported here.

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
import collections.abc
import math
import operator
import warnings

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.array import Array
from refjax._src.lax import dot as lax_dot
from refjax._src.lax import dynamic_slice as lax_dynamic_slice
from refjax._src.lax import gather_scatter, lax
from refjax._src.lax import reductions as lax_reductions
from refjax._src.lax import shapes as lax_shapes
from refjax._src.numpy import creation as creation
from refjax._src.numpy import reductions, ufuncs, util
from refjax._src.vmap_api import vmap

__all__ = [
    "astype", "shape", "ndim", "size", "isscalar", "iscomplexobj", "isrealobj", "copy",
    "reshape", "ravel", "transpose", "permute_dims", "matrix_transpose", "swapaxes",
    "moveaxis", "rollaxis", "expand_dims", "squeeze", "atleast_1d", "atleast_2d",
    "atleast_3d", "broadcast_to", "broadcast_arrays", "broadcast_shapes", "concatenate",
    "concat", "stack", "unstack", "hstack", "vstack", "dstack", "column_stack",
    "append", "split", "array_split", "hsplit", "vsplit", "dsplit", "tile", "repeat",
    "flip", "fliplr", "flipud", "roll", "rot90", "where", "select", "choose", "nonzero",
    "argwhere", "flatnonzero", "take", "take_along_axis", "bincount",
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
    """An int, or any iterable of ints (a dict gives its keys, ``''`` no
    axes, as in JAX), as a tuple of ints (SPEC NP-35, NP-72).  Arrays must be
    0-d integers."""
    if isinstance(axis, (tuple, list)):
        return tuple(operator.index(a) for a in axis)
    try:
        return (operator.index(axis),)
    except TypeError:
        if isinstance(axis, (Array, core.Tracer, np.ndarray)) or not isinstance(
                axis, collections.abc.Iterable):
            raise
    return tuple(operator.index(a) for a in axis)


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
    util.check_device(device)       # before the conversion, as in JAX
    result = lax._convert_element_type(x, dtype, weak_type=False)
    result = lax_shapes.copy_p.bind(result) if copy else result
    return util.place_on_device(result, device)


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
    """The number of elements of ``a``, or of its ``axis`` axes (an axis
    named twice is ValueError, SPEC NP-225)."""
    _warn_nonarray("size", a)
    sh = tuple(a.shape) if hasattr(a, "shape") else np.shape(a)
    if axis is None:
        return math.prod(sh)
    # Only a tuple or list is several axes here (a dict or set is a TypeError).
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    axes = tuple(_canonicalize_axis(operator.index(ax), len(sh)) for ax in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis: {axes}")
    return math.prod(sh[ax] for ax in axes)


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
    """Whether ``x`` has a complex dtype (SPEC NP-42, NP-72).

    ``None``, strings and Python scalars are answered from their type; any
    other object without a ``dtype`` is converted as ``jnp.asarray`` would,
    so what cannot be an array (a ragged list, ``...``, a dict) raises that
    conversion's error (``[]`` is an empty float array: not complex).
    """
    if x is None or isinstance(x, str):
        return False
    if isinstance(x, (bool, int, float, complex)):
        return isinstance(x, complex)
    dt = getattr(x, "dtype", None)
    if dt is None:
        dt = creation.asarray(x).dtype
    return dtypes.issubdtype(dt, np.complexfloating)


def isrealobj(x):
    return not iscomplexobj(x)


def copy(a, order=None):
    """A copy of ``a`` (the ``copy`` primitive under tracing)."""
    creation._check_order(order)   # before ``a``, as JAX (SPEC NP-72)
    util.check_arraylike("copy", a)
    return creation.array(a, copy=True, order=order)


# ---------------------------------------------------------------------------
# Reshaping and transposing (SPEC NP-34, NP-35)
# ---------------------------------------------------------------------------

def _index_or_iterable(value):
    """``(int,)`` of an integer, else the integers ``value`` iterates over
    (TypeError for a string or a non-integer entry)."""
    try:
        return (operator.index(value),)
    except TypeError:
        if isinstance(value, (str, bytes)):
            raise
    return tuple(operator.index(d) for d in value)


def _compute_newshape(arr_shape, newshape):
    """Resolve one ``-1`` entry of ``newshape`` against ``arr_shape``.

    ``newshape`` is an integer or any iterable of integers (a 1-d integer
    array too, as in JAX) (SPEC NP-34, NP-72)."""
    try:
        if isinstance(newshape, (list, tuple)):
            dims = tuple(operator.index(d) for d in newshape)
        else:
            dims = _index_or_iterable(newshape)
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of integer "
                        f"type, got {newshape}.") from None
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
    As in JAX, a NumPy array with no ``out_sharding`` is reshaped by its own
    method (a NumPy result, NumPy's errors); otherwise the new shape is
    checked before ``order``, then ``out_sharding`` (SPEC NP-72).  Text
    passes JAX's scalar check and fails in ``asarray`` (SPEC NP-75).
    """
    util.check_arraylike_unjitted("reshape", a)
    if isinstance(a, (np.ndarray, np.generic)) and out_sharding is None:
        return a.reshape(shape, order=order)
    a = creation.asarray(a)
    dims = _compute_newshape(_aval(a).shape, shape)
    util.check_hashable_params(out_sharding=out_sharding)
    if _order_is(order, "C"):
        lax.check_out_sharding(out_sharding, "reshape")
        return lax_shapes.reshape(a, dims)
    if _order_is(order, "F"):
        lax.check_out_sharding(out_sharding, "jnp.reshape")
        nd = _aval(a).ndim
        out = lax_shapes.reshape(a, dims[::-1], tuple(range(nd - 1, -1, -1)))
        return lax_shapes.transpose(out, tuple(range(len(dims) - 1, -1, -1)))
    if _order_is(order, "A"):
        raise NotImplementedError("np.reshape order=A is not implemented.")
    raise ValueError(f"Unexpected value for 'order' argument: {order}.")


def _order_is(order, name):
    """``order == name`` as JAX tests it: a JAX array equals no name, a
    NumPy array compares elementwise (several elements: NumPy's ValueError)."""
    if isinstance(order, (Array, core.Tracer)):
        return False
    return bool(order == name)


def ravel(a, order="C", *, out_sharding=None):
    """``a`` flattened to one dimension, in C or Fortran order.  ``order``
    and ``out_sharding`` are static: unhashable ones are JAX's ValueError
    (SPEC NP-72)."""
    a, = _ensure("ravel", a)
    util.check_static(order, out_sharding)
    if order == "K":
        raise NotImplementedError("Ravel not implemented for order='K'.")
    util.check_method_order(order)
    return reshape(a, (_aval(a).size,), order, out_sharding=out_sharding)


def transpose(a, axes=None):
    """Permute the axes of ``a`` (reversed by default) (SPEC NP-35)."""
    a, = _ensure("transpose", a)
    nd = _aval(a).ndim
    axes = tuple(range(nd))[::-1] if axes is None else axes
    return lax_shapes.transpose(a, tuple(_canonicalize_axis(i, nd) for i in axes))


def permute_dims(a, /, axes):
    """Array-API spelling of ``transpose``: ``axes`` is required and goes to
    ``lax.transpose`` as is (None is its TypeError, a negative axis its
    error), as in JAX (SPEC NP-35)."""
    a, = _ensure("permute_dims", a)
    return lax_shapes.transpose(a, axes)


def matrix_transpose(x, /):
    """Swap the last two axes of an array of at least two dimensions."""
    x, = _ensure("matrix_transpose", x)
    nd = _aval(x).ndim
    if nd < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; "
                         f"got ndim={nd}")
    return lax_shapes.transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def swapaxes(a, axis1, axis2):
    """Interchange two axes (one ``transpose``) (SPEC NP-35, NP-72).

    The axes are static: an unhashable one is JAX's ValueError before
    anything else looks at it.  Two ``None`` axes swap nothing (JAX returns
    ``a`` unchanged).
    """
    a, = _ensure("swapaxes", a)
    util.check_static(axis1, axis2)
    if axis1 is None and axis2 is None:
        return a
    nd = _aval(a).ndim
    perm = list(range(nd))
    if any(ax is None or ax is Ellipsis for ax in (axis1, axis2)):
        # JAX indexes a NumPy permutation with the axes: None or ... with
        # an integer selects a row, which cannot be stored (SPEC NP-75).
        raise ValueError(f"setting an array element with a sequence: swapaxes takes "
                         f"two integer axes, got {axis1!r} and {axis2!r}.")
    if np.ndim(axis1) or np.ndim(axis2):    # JAX's class for a sequence
        raise ValueError(f"swapaxes takes two integer axes, got {axis1!r} and {axis2!r}.")
    axis1, axis2 = operator.index(axis1), operator.index(axis2)
    for ax in (axis1, axis2):
        if not -nd <= ax < nd:
            raise IndexError(f"index {ax} is out of bounds for axis 0 with size {nd}")
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return lax_shapes.transpose(a, perm)


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
    return lax_shapes.transpose(a, perm)


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
    return lax_shapes.expand_dims(a, _axis_tuple(axis))


def squeeze(a, axis=None):
    """Remove size-1 axes: all of them, or those in ``axis`` (SPEC NP-35)."""
    a, = _ensure("squeeze", a)
    shape_ = _aval(a).shape
    if axis is None:
        axes = tuple(i for i, d in enumerate(shape_) if d == 1)
    else:
        axes = tuple(_canonicalize_axis(i, len(shape_)) for i in _axis_tuple(axis))
    return lax_shapes.squeeze(a, axes)


def _atleast(name, arys, nd):
    def one(x):
        x, = _ensure(name, x)
        have = _aval(x).ndim
        if have >= nd:
            return x
        if nd == 3 and have == 1:       # (n,) -> (1, n, 1)
            return lax_shapes.expand_dims(x, (0, 2))
        if nd == 3 and have == 2:       # (m, n) -> (m, n, 1)
            return lax_shapes.expand_dims(x, (2,))
        return lax_shapes.broadcast_to_rank(x, nd) if have else lax_shapes.expand_dims(
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
    """The NumPy broadcast of ``shapes`` (ints count as 1-d shapes).  A
    shape that is not a sequence of integers (a string, None, floats) is a
    TypeError, a negative size too (SPEC NP-71)."""
    if not shapes:
        return ()
    shapes = [(s,) if np.ndim(s) == 0 and not isinstance(s, str) else s for s in shapes]
    dims = _broadcast_shapes([_static_shape(s) for s in shapes])
    return _sizes_as_given(dims, [tuple(s) for s in shapes])


def _sizes_as_given(dims, shapes):
    """Each broadcast size as the caller gave it: a size given as a 0-d
    array (``broadcast_shapes(jnp.arange(3))``) comes back as that array, as
    in JAX; Python ints stay ints (SPEC NP-72)."""
    rank = len(dims)
    out = []
    for i, d in enumerate(dims):
        given = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        size = next((g for g in given if operator.index(g) == d), d)
        out.append(d if isinstance(size, int) else size)
    return tuple(out)


def _static_shape(shape):
    try:
        if isinstance(shape, str):
            raise TypeError
        dims = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of integer "
                        f"type, got {shape!r}.") from None
    if any(d < 0 for d in dims):
        raise TypeError("Only non-negative indices are allowed when broadcasting "
                        f"static shapes, but got shape {dims}.")
    return dims


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
    return lax_shapes.broadcast_in_dim(x, shape_, tuple(range(lead, len(shape_))))


def _broadcast_arrays(*args):
    shapes = [_aval(a).shape for a in args]
    if builtins.all(s == shapes[0] for s in shapes):
        return list(args)
    result = _broadcast_shapes(shapes)
    return [_broadcast_to(a, result) for a in args]


def broadcast_to(array, shape, *, out_sharding=None):
    """``array`` broadcast to ``shape`` with NumPy's rules; the shape's
    types, ``out_sharding``, then the dimensions are checked, in JAX's order
    (SPEC NP-71)."""
    array, = _ensure("broadcast_to", array)
    util.check_hashable_params(out_sharding=out_sharding)
    shape_ = creation.broadcast_shape_arg(shape)
    lax.check_out_sharding(out_sharding, "jnp.broadcast_to")
    shape_ = creation.check_broadcast_to(_aval(array), shape_)
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
    return lax_shapes.concatenate(arrays, axis)


def _concatenate_array(arr, axis, dtype):
    """Concatenating the sub-arrays of one array is a reshape."""
    arr = creation.asarray(arr, dtype=dtype)
    sh = _aval(arr).shape
    if len(sh) == 0 or sh[0] == 0:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return lax_shapes.reshape(arr, (math.prod(sh),))
    if len(sh) == 1:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = _canonicalize_axis(axis, len(sh) - 1)
    new = sh[1:axis + 1] + (sh[0] * sh[axis + 1],) + sh[axis + 2:]
    dims = [*range(1, axis + 1), 0, *range(axis + 1, len(sh))]
    return lax_shapes.reshape(arr, new, dims)


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
    return lax_shapes.stack(arrays, axis)


def unstack(x, /, *, axis=0):
    """The sub-arrays of ``x`` along ``axis``, as a tuple."""
    x, = _ensure("unstack", x)
    util.check_static(axis)              # a static argument in JAX (SPEC NP-75)
    nd = _aval(x).ndim
    axis = _canonicalize_axis(axis, nd)  # None: TypeError; rank 0: ValueError
    n = _aval(x).shape[axis]
    return tuple(lax_shapes.index_in_dim(x, i, axis, keepdims=False) for i in range(n))


def _rows_at_least(name, tup, atleast):
    """An array ``tup`` passed to a stacking function stands for the sequence
    of its rows: ``atleast`` (``atleast_2d``...) is mapped over the rows and
    the results restacked (SPEC NP-71).  A 0-d array has no rows: a
    ValueError."""
    arr = creation.asarray(tup)
    if not _aval(arr).ndim:
        raise ValueError(f"jnp.{name} needs a sequence of arrays or an array of "
                         "rank at least 1, got a 0-d array.")
    return vmap(atleast)(arr)


def hstack(tup, dtype=None):
    """Concatenate along axis 1 (axis 0 for 1-d inputs)."""
    if isinstance(tup, (np.ndarray, Array)):
        rows = _rows_at_least("hstack", tup, atleast_1d)
        return concatenate(rows, 0 if _aval(rows).ndim == 2 else 1, dtype)
    arrs = [atleast_1d(m) for m in _arrays_in("hstack", tup)]
    if not arrs:
        raise ValueError("Need at least one array to concatenate.")
    axis = 0 if _aval(arrs[0]).ndim == 1 else 1
    return concatenate(arrs, axis, dtype)


def vstack(tup, dtype=None):
    """Concatenate along axis 0 after making inputs at least 2-d."""
    if isinstance(tup, (np.ndarray, Array)):
        return concatenate(_rows_at_least("vstack", tup, atleast_2d), 0, dtype)
    return concatenate([atleast_2d(m) for m in _arrays_in("vstack", tup)], 0, dtype)


def dstack(tup, dtype=None):
    """Concatenate along axis 2 after making inputs at least 3-d."""
    if isinstance(tup, (np.ndarray, Array)):
        return concatenate(_rows_at_least("dstack", tup, atleast_3d), 2, dtype)
    return concatenate([atleast_3d(m) for m in _arrays_in("dstack", tup)], 2, dtype)


def column_stack(tup):
    """1-d inputs become columns; 2-d inputs are joined along axis 1."""
    if isinstance(tup, (np.ndarray, Array)):
        arrs = list(_rows_at_least("column_stack", tup, atleast=lambda row: row))
    else:
        arrs = _arrays_in("column_stack", tup)
    cols = []
    for a in arrs:
        a, = _ensure("column_stack", a)
        cols.append(a if _aval(a).ndim > 1 else lax_shapes.transpose(atleast_2d(a), (1, 0)))
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
    return list(lax_shapes.split(ary, [np.int64(s) for s in sizes], axis=axis))


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
    if any(r < 0 for r in reps):
        raise ValueError(f"jnp.tile needs non-negative repetitions, got reps={reps}.")
    nd = _aval(A).ndim
    reps = (1,) * (nd - len(reps)) + reps
    if len(reps) > nd:
        A = lax_shapes.broadcast_to_rank(A, len(reps))
    return lax_shapes.tile(A, reps)


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
    out = lax_shapes.broadcast_in_dim(a, tuple(aux), kept)
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
    return lax_shapes.rev(m, axes)


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
        a = lax_shapes.concatenate([lax_shapes.slice_in_dim(a, i, n, axis=int(ax)),
                             lax_shapes.slice_in_dim(a, 0, i, axis=int(ax))], int(ax))
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
    b_shape = _broadcast_shapes([_aval(shift).shape, np.shape(axis)])
    if len(b_shape) != 1:
        raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D "
                         "arrays")
    for s, ax in zip(broadcast_to(shift, b_shape), np.broadcast_to(axis, b_shape)):
        ax = int(ax)
        n = creation.array(_aval(a).shape[ax], dtype=np.int32)
        s = ufuncs.remainder(lax.convert_element_type(s, np.int32),
                             lax.max(n, np.int32(1)))
        doubled = lax_shapes.concatenate((a, a), ax)
        a = lax_dynamic_slice.dynamic_slice_in_dim(doubled, n - s, _aval(a).shape[ax], axis=ax)
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
        return lax_shapes.transpose(_flip(m, ax2), perm)
    return _flip(lax_shapes.transpose(m, perm), ax2)


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
    idx = lax_reductions.argmax(conditions, 0, np.int32)
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
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    a, indices = util.ensure_arraylike("take", a, indices)
    if axis is None:
        a, axis = ravel(a), 0
    else:
        axis = _canonicalize_axis(axis, _aval(a).ndim)
    n = _aval(a).shape[axis]
    if mode is None or mode == "fill":
        gather_mode = gather_scatter.GatherScatterMode.FILL_OR_DROP
        # gather itself does not wrap negative indices.
        indices = util._where(indices < 0, indices + n, indices)
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    elif mode == "wrap":
        indices = ufuncs.mod(indices, util._const(indices, n))
        gather_mode = gather_scatter.GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode == "clip":
        gather_mode = gather_scatter.GatherScatterMode.CLIP
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
    dnums = gather_scatter.GatherDimensionNumbers(
        offset_dims=tuple(range(axis)) + tuple(range(axis + nd_i, len(a_shape) + nd_i - 1)),
        collapsed_slice_dims=(axis,), start_index_map=(axis,))
    slice_sizes = a_shape[:axis] + (1,) + a_shape[axis + 1:]
    return gather_scatter.gather(a, lax_shapes.expand_dims(indices, (nd_i,)), dnums, slice_sizes,
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
    gather_indices = lax_shapes.reshape(indices, tuple(out_shape[i] for i in index_dims) + (1,))
    dn = _along_axis_dnums(a, i_shape, arr_shape, axis)
    a = lax_shapes.squeeze(a, dn["squeeze"]) if dn["squeeze"] else a
    dnums = gather_scatter.GatherDimensionNumbers(
        offset_dims=tuple(dn["offset"]), collapsed_slice_dims=tuple(dn["collapsed"]),
        start_index_map=tuple(dn["start"]), operand_batching_dims=tuple(dn["batch_a"]),
        start_indices_batching_dims=tuple(dn["batch_i"]))
    return gather_scatter.gather(a, gather_indices, dnums, tuple(dn["sizes"]),
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
    from refjax._src.numpy.contractions import einsum
    hot = one_hot(indices, axis_size, dtype=np.bool_)
    dt = _aval(a).dtype
    if _aval(a).ndim == 1:
        return einsum("...b,b->...", hot, a, preferred_element_type=dt)
    if axis > len(string.ascii_letters) - 2:
        raise ValueError("One Hot indexing is only supported for up to 50 leading "
                         "dimensions.")
    labels = string.ascii_letters[:axis]
    return einsum(f"{labels}y...z,{labels}z...->{labels}y...", hot, a,
                  precision=lax_dot.Precision.HIGHEST, preferred_element_type=dt)


# -- nonzero and the other size-dependent selections (SPEC IDX-26) ------------

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
# Whole-array comparisons (SPEC NP-54)
# ---------------------------------------------------------------------------

def _all(x):
    """``jnp.all``: a strong bool, reduced over every axis."""
    x = lax._convert_element_type(x, np.bool_, weak_type=False)
    return lax_reductions.reduce_and(x, tuple(range(_aval(x).ndim)))


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
    """Whether the arrays are equal after broadcasting: False when
    ``equal`` finds the ranks' shapes incompatible (ValueError); shapes of
    one rank that differ are ``lax.eq``'s TypeError, as in JAX (SPEC NP-75)."""
    a1, a2 = creation.asarray(a1), creation.asarray(a2)
    try:
        x, y = util.promote_args("equal", a1, a2)
    except ValueError:
        return creation.array(False)
    return _all(lax.eq(x, y))


@jit(static_argnames=("equal_nan",))
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|a - b| <= atol + rtol * |b|`` (or equal), elementwise, in the
    promoted inexact dtype; infinities must match exactly (SPEC NP-54).
    Keys of one dtype are close when equal (SPEC RNG-110)."""
    a, b = util.promote_args("isclose", a, b)
    if dtypes.is_extended(_aval(a).dtype):
        return lax.eq(a, b)
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
