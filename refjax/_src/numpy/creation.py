"""Array creation in ``refjax.numpy`` with JAX's dtype defaults (SPEC ARR-6).

Python scalars give weakly typed arrays; lists, NumPy arrays and explicit
dtypes give strong ones.  64-bit requests are canonicalized (and warn when
explicit) unless x64 is on.

Concrete inputs outside any transformation are built on the host.  While a
function is being traced, or when an input is a tracer, the same functions
are composed of ``lax`` operations the way JAX composes them, so that they
work on tracers and print the same equations (SPEC NP-30, NP-31).
"""
import functools
import inspect
import math
import operator
import warnings

import numpy as np

from refjax._src import backend as _backend
from refjax._src import core
from refjax._src import devices as _devices
from refjax._src import dispatch, dtypes, placement
from refjax._src.array import Array, ArrayImpl
from refjax._src.casting import convert, freeze
from refjax._src.core import canonicalize_shape  # noqa: F401 - jnp's helpers use it
from refjax._src.devices import Device
from refjax._src.lax import lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax.misc_ops import device_put_p
from refjax._src.mesh import (
    NamedSharding, PartitionSpec, SingleDeviceSharding, current_mesh,
)

__all__ = ["array", "asarray", "zeros", "ones", "full", "empty", "zeros_like",
           "ones_like", "full_like", "empty_like", "arange", "linspace", "eye",
           "identity"]


_devices.register_transfer_guard_site("array creation")


def _make(host, dtype, weak_type=False):
    """Wrap a NumPy array of ``dtype`` as a device array.

    The host data is copied unless it is a fresh array nobody else holds:
    the buffer is frozen, and a user's NumPy array must stay writable.
    """
    _devices.guard_host_to_device(                              # SPEC CFG-27
        lambda: core.ShapedArray(host.shape, dtype, weak_type))
    if not (host.flags.owndata and host.flags.writeable):
        host = np.array(host, copy=True)
    return ArrayImpl(freeze(_backend.get().asarray(host)), dtype, weak_type)


def _invalid_value(value, dt):
    # JAX quotes str(value), not its repr (SPEC ARR-6).
    return TypeError(f"Value '{value}' with dtype {dt} is not a valid JAX array "
                     "type. Only arrays of numeric types are supported by JAX.")


def _host_of(leaf):
    """A NumPy array of one leaf of array-like input (Array, NumPy or scalar)."""
    if isinstance(leaf, ArrayImpl):
        return leaf._host()
    return leaf


def _leaves(obj):
    if isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _leaves(item)
    else:
        yield obj


def _replace_arrays(obj):
    if isinstance(obj, (list, tuple)):
        return [_replace_arrays(item) for item in obj]
    return _host_of(obj)


def _python_scalar_to_host(value, dtype):
    """A Python scalar as a 0-d NumPy array of ``dtype`` (SPEC DT-8)."""
    if type(value) is int and dtypes.issubdtype(dtype, np.integer):
        try:
            return np.asarray(value, dtype=dtype)
        except OverflowError:
            raise OverflowError(
                f"Python int {value} too large to convert to {dtype}") from None
    return np.asarray(value, dtype=dtype)


def _infer(obj):
    """(host array, dtype, weak_type) for ``obj`` with no dtype requested."""
    if isinstance(obj, ArrayImpl):
        return obj._host(), obj.dtype, obj.weak_type
    if type(obj) in (bool, int, float, complex):
        dt, weak = dtypes.dtype_and_weak_type(obj)
        return _python_scalar_to_host(obj, dt), dt, weak
    if obj is None:
        raise ValueError("None is not a valid value for jnp.array")
    if isinstance(obj, (list, tuple)):
        leaves = list(_leaves(obj))
        if any(leaf is None for leaf in leaves):
            raise ValueError("None is not a valid value for jnp.array")
        named = _dtype_names(leaves)
        if named is not None:
            return _from_dtype_names(obj, leaves, named)
        for leaf in leaves:
            _check_leaf(leaf)
        dt = dtypes.result_type(*leaves) if leaves else dtypes.default_float_dtype()
        if any(isinstance(leaf, Array) for leaf in leaves):
            _stacked_shape(obj, dt)
        host = np.array(_replace_arrays(obj), dtype=_host_dtype_for(leaves, dt))
        return _cast_host(host, dt), dt, False
    if _dtype_names([obj]) is not None:
        return _from_dtype_names(obj, [obj], _dtype_names([obj]))
    host = np.array(obj)  # a copy: the buffer is frozen, the user's array is not
    if not _array_dtype(host.dtype):
        raise _invalid_value(obj, host.dtype)
    dt = dtypes.canonicalize_dtype(host.dtype)
    return _cast_host(host, dt), dt, False


def _dtype_names(leaves):
    """JAX infers an array's dtype from text as from the name of a dtype
    (``'float32'`` counts as float32, SPEC NP-74): the leaves with each text
    read so, or None when no leaf is text or some text names no JAX dtype
    (then it is an invalid string array, TypeError)."""
    if not any(_is_text_leaf(leaf) for leaf in leaves):
        return None
    named = []
    for leaf in leaves:
        if _is_text_leaf(leaf):
            try:
                with warnings.catch_warnings():     # NumPy's deprecated aliases ('a')
                    warnings.simplefilter("ignore", DeprecationWarning)
                    leaf = np.dtype(leaf) if isinstance(leaf, str) else np.result_type(leaf)
            except TypeError:
                return None
            if not _array_dtype(leaf):
                return None
            leaf = dtypes.canonicalize_dtype(leaf)     # no x64 warning, as in JAX
        named.append(leaf)
    return named


def _is_text_leaf(leaf):
    return isinstance(leaf, str) or type(leaf) is bytes


def _from_dtype_names(obj, leaves, named):
    """The data of ``obj`` in the dtype its texts name: NumPy then converts
    each text to a number of that dtype (``'float32'``: ValueError; any
    text to bool: True), as in JAX."""
    dt = dtypes.result_type(*named)
    for leaf in leaves:
        if _is_text_leaf(leaf):
            np.asarray(leaf, dtype=dt)
    if any(isinstance(leaf, Array) for leaf in leaves):
        _stacked_shape(obj, dt)
    host = np.asarray(_replace_arrays(obj), dtype=dt)
    return host, dt, False


def _stacked_shape(obj, dt):
    """The shape of nested lists holding arrays, stacked as JAX stacks them:
    each item gets a leading axis and they are concatenated (16 at a time),
    so ragged items are concatenate's TypeError (SPEC NP-74).  A sublist
    without arrays is NumPy's, NumPy's ValueError included, as in JAX."""
    if not isinstance(obj, (list, tuple)):
        return np.shape(obj)
    if not any(isinstance(leaf, Array) for leaf in _leaves(obj)):
        return np.shape(np.asarray(_replace_arrays(obj)))
    if not obj:
        return (0,)
    avals = [core.ShapedArray((1,) + tuple(_stacked_shape(item, dt)), dt)
             for item in obj]
    while len(avals) > _CONCAT_GROUP:
        avals = [_concat_aval(avals[i:i + _CONCAT_GROUP])
                 for i in range(0, len(avals), _CONCAT_GROUP)]
    return _concat_aval(avals).shape


_CONCAT_GROUP = 16       # JAX concatenates wide lists in groups of this size


def _concat_aval(avals):
    return lax_shapes.concatenate_p.abstract_eval(*avals, dimension=0)


def _check_leaf(leaf):
    if type(leaf) in (bool, int, float, complex) or isinstance(leaf, Array):
        return
    dt = np.asarray(leaf).dtype
    if not _array_dtype(dt):
        raise _invalid_value(leaf, dt)


def _array_dtype(dt):
    """Whether JAX makes arrays of NumPy data of dtype ``dt``: not of text,
    objects, ``float128`` or ``complex256`` (SPEC NP-74)."""
    if dt.kind in "fc" and dt.itemsize > (8 if dt.kind == "f" else 16):
        return False
    return dtypes.is_valid_jax_dtype(dt)


def _host_dtype_for(leaves, dt):
    # Build wide first when some leaf is an array of a wider type (so that
    # casting follows JAX's rules below), else directly in the target dtype
    # so that NumPy rejects Python ints that do not fit.
    if all(type(leaf) in (bool, int, float, complex) for leaf in leaves):
        return dt
    return None


def _cast_host(host, dt):
    if host.dtype == dt:
        return host
    return convert(host, host.dtype, dt)


def array(object, dtype=None, *args, copy=True, order="K", ndmin=0, device=None,
          out_sharding=None):
    """Create an array; Python scalars give weak types (SPEC ARR-6, DT-3).

    A tracer is copied (the ``copy`` primitive) unless ``copy=False``; a
    list holding tracers is stacked with ``concatenate`` (SPEC NP-30).
    ``copy``, ``order`` and ``ndmin`` passed positionally still work, with
    a DeprecationWarning; ``device`` (placed by ``_with_device``) and
    ``out_sharding`` exclude each other (SPEC NP-222).
    """
    copy, order, ndmin = _positional_array_args(args, copy, order, ndmin)
    if hasattr(object, "__jax_array__"):    # converted explicitly here (TRC-8)
        object = object.__jax_array__()
    _check_order(order)                 # then dtype, the place, copy, as in JAX
    if dtype is not None and not dtypes.is_extended(dtype):
        dtype = dtypes.check_user_dtype(dtype, "array")
    if device is not None and out_sharding is not None:
        raise ValueError("Only one of `device` or `out_sharding` can be set. Got "
                         f"device={device!r} and out_sharding={out_sharding!r}")
    lax.check_out_sharding(out_sharding, "jnp.array")
    out = _array(object, dtype, bool(copy), order, ndmin)
    if out_sharding is None:
        return out
    if isinstance(out_sharding, PartitionSpec):
        out_sharding = NamedSharding(current_mesh(), out_sharding)
    return placement.device_put(out, out_sharding)


def _positional_array_args(args, copy, order, ndmin):
    """``(copy, order, ndmin)`` with any given positionally after ``dtype``:
    more than three is TypeError, as is one also given by keyword (with a
    value other than its default)."""
    if not args:
        return copy, order, ndmin
    if len(args) > 3:
        raise TypeError(f"array() takes at most 5 positional arguments but "
                        f"{len(args) + 2} were given")
    given, defaults = [copy, order, ndmin], [True, "K", 0]
    for i, name in enumerate(("copy", "order", "ndmin")[:len(args)]):
        if given[i] != defaults[i]:
            raise TypeError(f"array() got multiple values for argument '{name}'")
    warnings.warn("Passing the copy, order, and ndmin arguments to jnp.array "
                  "positionally is deprecated. Pass them by keyword instead.",
                  DeprecationWarning, stacklevel=4)
    return tuple(list(args) + given[len(args):])


def _array(object, dtype, copy, order, ndmin):
    _check_order(order)
    _reject_masked(object, dtype, copy)
    # JAX's first test of ndmin (several values in an array: ValueError).
    plain = dtype is None and bool(ndmin == 0)
    if _involves_keys(object, dtype):
        return _with_ndmin(_keys_array(object, dtype, copy), ndmin, plain)
    if _holds_tracer(object):
        return _with_ndmin(_traced_array(object, dtype, copy), ndmin, plain)
    if isinstance(object, ArrayImpl) and dtype is None and not copy and plain:
        return object
    if dtype is None:
        host, dt, weak = _infer(object)
    else:
        dt = dtypes.check_user_dtype(dtype, "array")
        host, weak = _to_requested(object, dt), False
    extra = 0 if plain else _extra_axes(ndmin, host.ndim)
    return _make(host.reshape((1,) * extra + host.shape), dt, weak)


def _reject_masked(obj, dtype, copy):
    """A NumPy masked array taken without a copy or a dtype is JAX's
    ValueError (it would reach the device as is); copied, it loses its
    mask, as with ``np.array`` (SPEC NP-222)."""
    if isinstance(obj, np.ma.MaskedArray) and dtype is None and not copy:
        raise ValueError("numpy masked arrays are not supported as direct inputs to "
                         "JAX functions. Use arr.filled() to convert the value to a "
                         "standard numpy array.")


def _extra_axes(ndmin, ndim):
    """How many leading axes ``ndmin`` adds, read as JAX reads it:
    ``ndmin > ndim`` (a list, text or None: TypeError), then
    ``range(ndmin - ndim)`` (a float or a 1-element array above ``ndim``:
    TypeError); a float not above ``ndim`` adds none (SPEC NP-72, NP-75)."""
    return len(range(ndmin - ndim)) if ndmin > ndim else 0


def _with_ndmin(out, ndmin, plain):
    extra = 0 if plain else _extra_axes(ndmin, core.get_aval(out).ndim)
    return lax_shapes.expand_dims(out, tuple(range(extra))) if extra else out


def _check_order(order):
    """JAX arrays have no memory layout to choose: ``order`` other than
    ``None`` or ``'K'`` is NotImplementedError, as in JAX (SPEC NP-72)."""
    if order is not None and not (isinstance(order, str) and order == "K"):
        raise NotImplementedError("Only implemented for order='K'")


def _involves_keys(obj, dtype):
    """Whether ``array(obj, dtype)`` reads or makes PRNG keys (RNG-20)."""
    return dtypes.is_extended(dtype) or any(
        isinstance(leaf, Array) and dtypes.is_extended(leaf.dtype) for leaf in _leaves(obj))


def _keys_array(obj, dtype, copy):
    """``array`` where keys are involved, as JAX converts them (SPEC NP-74):
    an array (or tracer) goes through ``convert_element_type`` (keys only to
    their own dtype, else ValueError); lists holding arrays are converted
    item by item, given a leading axis and concatenated; numbers, or lists
    without arrays, cannot take a key dtype (NumPy's TypeError)."""
    if dtype is None:
        dtype = _keys_result_type(list(_leaves(obj)))
    if isinstance(obj, Array):
        out = lax._convert_element_type(obj, dtype)
        return lax_shapes.copy_p.bind(out) if copy and out is obj else out
    if not any(isinstance(leaf, Array) for leaf in _leaves(obj)):
        if dtypes.is_extended(dtype):
            raise TypeError(f"Cannot interpret '{dtype}' as a data type")
        return array(obj, dtype, copy=False)
    parts = [lax_shapes.expand_dims(_keys_array(item, dtype, False), (0,)) for item in obj]
    return lax_shapes.concatenate(parts, 0)


def _keys_result_type(leaves):
    """Keys of one dtype stack as that dtype; keys with anything else are
    type promotion's ValueError."""
    first = leaves[0].dtype
    if all(isinstance(leaf, Array) and leaf.dtype == first for leaf in leaves):
        return first
    return dtypes.result_type(*leaves)


def _holds_tracer(obj):
    if isinstance(obj, (list, tuple)):
        return any(_holds_tracer(item) for item in obj)
    return isinstance(obj, core.Tracer)


def _traced_array(obj, dtype, copy):
    """``array`` of a tracer or of a (nested) list holding tracers."""
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "array")
    if isinstance(obj, core.Tracer):
        out = lax_shapes.copy_p.bind(obj) if copy else obj
        if dtype is not None:
            out = lax._convert_element_type(out, dtype, weak_type=False)
    else:
        leaves = list(_leaves(obj))
        if any(leaf is None for leaf in leaves):
            raise ValueError("None is not a valid value for jnp.array")
        dt = dtype if dtype is not None else dtypes.result_type(*leaves)
        out = _stack_leaves(obj, dt)
    return out


def _stack_leaves(obj, dt):
    """Nested lists as one array: each item converted to ``dt``, given a
    leading axis and concatenated."""
    if not isinstance(obj, (list, tuple)):
        if isinstance(obj, core.Tracer):
            return lax._convert_element_type(obj, dt, weak_type=False)
        return asarray(obj, dtype=dt)
    if not obj:
        return asarray(np.zeros((0,)), dtype=dt)
    parts = [lax_shapes.expand_dims(_stack_leaves(item, dt), (0,)) for item in obj]
    return lax_shapes.concatenate(parts, 0)


def _to_requested(obj, dt):
    """Host data of ``obj`` converted to the requested dtype ``dt``.

    Python ints go straight into an integer dtype, so that NumPy rejects
    those that do not fit (DT-8); everything else converts with JAX's
    casting rules (DT-13).
    """
    if _python_scalars_only(obj):
        if any(type(v) is complex for v in _leaves(obj)) and dt.kind != "c":
            raise TypeError("float() argument must be a string or a real "
                            "number, not 'complex'")
        if dtypes.issubdtype(dt, np.integer) and all(
                type(v) in (bool, int) for v in _leaves(obj)):
            return np.asarray(obj, dtype=dt)
        return _cast_host(np.asarray(obj), dt)
    if any(_is_text(v) for v in _leaves(obj)):
        # Text is parsed into the requested dtype ('1.5' -> 1.5); text that
        # is no number is NumPy's ValueError, as in JAX (SPEC NP-72).
        return np.asarray(_replace_arrays(obj), dtype=dt)
    if isinstance(obj, (np.ndarray, np.generic)) and obj.dtype.kind in "fc":
        return _cast_host(np.asarray(obj), dt)     # float128 too, as in JAX
    host, _, _ = _infer(obj)
    return _cast_host(host, dt)


def _is_text(leaf):
    return isinstance(leaf, (str, bytes)) or (
        isinstance(leaf, np.ndarray) and leaf.dtype.kind in "US")


def _python_scalars_only(obj):
    return all(type(v) in (bool, int, float, complex) for v in _leaves(obj))


def asarray(a, dtype=None, order=None, *, copy=None, device=None):
    """Like ``array`` but returns ``a`` itself when nothing needs to change
    (for a tracer: no equation at all, SPEC NP-30)."""
    _check_order(order)
    if hasattr(a, "__jax_array__"):         # converted explicitly here (TRC-8)
        a = a.__jax_array__()
    if _involves_keys(a, dtype):
        return _keys_array(a, dtype, bool(copy))
    if isinstance(a, core.Tracer) or (isinstance(a, (list, tuple)) and _holds_tracer(a)):
        return _traced_array(a, dtype, bool(copy))
    if dtype is None:
        if isinstance(a, ArrayImpl) and copy is not True:
            return a
        return array(a, copy=bool(copy))
    dt = dtypes.check_user_dtype(dtype, "asarray")
    if isinstance(a, ArrayImpl) and copy is not True and dt == a.dtype and not a.weak_type:
        return a
    return _make(_to_requested(a, dt), dt, False)


# -- shapes ----------------------------------------------------------------

def _default_or(dtype, fun_name, default, allow_extended=False):
    if dtype is None:
        return default()
    return dtypes.check_user_dtype(dtype, fun_name, allow_extended=allow_extended)


def _staging():
    """Whether a transformation is recording operations (jit, make_jaxpr)."""
    return core.current_trace() is not core.eval_trace


def _filled(shape, value, dt, weak=False):
    # A size NumPy cannot index is a ValueError of ours (SPEC NP-71).
    biggest = np.iinfo(np.intp).max
    if max(shape, default=0) > biggest or math.prod(shape) > biggest:
        raise ValueError(f"An array of shape {tuple(shape)} is too large: its "
                         f"dimensions and size must be at most {biggest}.")
    if dtypes.is_extended(dt):      # keys: the dtype's own rule (SPEC RNG-104)
        return dt.full(shape, value)
    if _staging():
        return _lax_full(shape, value, dt, weak)
    xp = _backend.get().xp
    try:
        buf = xp.full(shape, value, dtype=dt) if dt not in _ml else \
            xp.full(shape, value, dtype=np.float32).astype(dt)
    except MemoryError as e:
        raise dispatch.out_of_memory(e) from None
    return ArrayImpl(freeze(buf), dt, weak)


_ml = frozenset(dtypes.small_float_dtypes + dtypes.narrow_int_dtypes + (dtypes.bfloat16,))


def _lax_full(shape, fill_value, dt, weak=False):
    """``fill_value`` converted then broadcast to ``shape`` (lax.full).

    A concrete scalar is converted at trace time, so the equation shows it
    as a literal: ``broadcast_in_dim 0.0:f32[]`` (SPEC NP-31).
    """
    value = lax._convert_element_type(fill_value, dt, weak)
    vshape = core.get_aval(value).shape
    if vshape == tuple(shape):
        return value
    if len(vshape) > len(shape) or any(
            v not in (1, n) for v, n in zip(vshape[::-1], shape[::-1])):
        raise ValueError(f"Incompatible shapes for broadcasting: {vshape} and "
                         f"requested shape {tuple(shape)}")
    lead = len(shape) - len(vshape)
    return lax_shapes.broadcast_in_dim(value, shape, tuple(range(lead, len(shape))))


# The shape arguments of jnp's creation functions: a value NumPy sees as
# 0-d (``b'ab'``, ``{}``) is one dimension, as in JAX (SPEC ARR-6).
_jnp_shape = core.canonicalize_jnp_shape


def _check_shape_tuple(name, shape, dtype):
    """``zeros(2, 3)``: an int where the dtype goes is TypeError with a hint
    to pass the shape as one tuple, as in JAX (SPEC NP-223)."""
    if isinstance(shape, int) and isinstance(dtype, int):
        raise TypeError(
            f"Cannot interpret '{dtype}' as a data type.\n\nDid you accidentally "
            f"write `jax.numpy.{name}({shape}, {dtype})` when you meant "
            f"`jax.numpy.{name}(({shape}, {dtype}))`, i.e. with a single tuple "
            "argument for the shape?")


def zeros(shape, dtype=None, *, device=None):
    _check_shape_tuple("zeros", shape, dtype)
    dt = _default_or(dtype, "zeros", dtypes.default_float_dtype, allow_extended=True)
    return _filled(_jnp_shape(shape), 0, dt)


def ones(shape, dtype=None, *, device=None):
    _check_shape_tuple("ones", shape, dtype)
    shape = _jnp_shape(shape)
    dt = _default_or(dtype, "ones", dtypes.default_float_dtype, allow_extended=True)
    return _filled(shape, 1, dt)


def empty(shape, dtype=None, *, device=None):
    """Zeros: refjax buffers are always initialized, like JAX's."""
    _check_shape_tuple("empty", shape, dtype)
    shape = _jnp_shape(shape)
    dt = _default_or(dtype, "empty", dtypes.default_float_dtype, allow_extended=True)
    return _filled(shape, 0, dt)


def full(shape, fill_value, dtype=None, *, device=None):
    """``fill_value`` broadcast to ``shape``; a Python scalar stays weak.

    The checks come in JAX's order (SPEC NP-71): ``dtype``, the fill value,
    then for a scalar fill the shape, for an array fill the shape, ``device``
    and the broadcast as ``jnp.broadcast_to`` checks them."""
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "full", allow_extended=True)
    _check_fill("full", fill_value, 0)
    if dtypes.is_extended(dtype) or _is_key(fill_value):
        return _fill_keys(_jnp_shape(shape), fill_value, dtype or fill_value.dtype)
    if np.ndim(fill_value) == 0:
        if dtype is not None:       # converted before the sizes are checked
            lax.check_python_complex(fill_value, dtype, False)
        shape = _jnp_shape(shape)
    else:
        shape = _broadcast_target(_fill_aval(fill_value, dtype), shape, device)
    if _staging() or isinstance(fill_value, core.Tracer):
        if dtype is None:
            dt, weak = dtypes.result_type(fill_value, return_weak_type_flag=True)
        else:
            dt, weak = dtype, False
        return _lax_full(shape, fill_value, dt, weak)
    if dtype is None:
        host, dt, weak = _infer(fill_value)
    else:
        dt = dtype
        lax.check_python_complex(fill_value, dt, False)
        host, weak = _cast_host(np.asarray(_host_of(fill_value)), dt), False
    host = _broadcast_fill(host, shape)
    return _make(np.array(host), dt, weak)


def _broadcast_target(fill_aval, shape, device):
    """``shape`` for an array fill value, checked as JAX's ``broadcast_to``
    checks it (SPEC NP-71), with ``device`` in the place of its
    ``out_sharding``: a Device or SingleDeviceSharding is placed afterwards,
    anything else must be an ``out_sharding`` (else TypeError)."""
    shape = broadcast_shape_arg(shape)
    if device is not None and not isinstance(device, (Device, SingleDeviceSharding)):
        lax.check_out_sharding(device, "jnp.broadcast_to")
    return check_broadcast_to(fill_aval, shape)


def _fill_aval(fill_value, dtype):
    """The type of an array fill value once converted to ``dtype``."""
    aval = core.get_aval(fill_value)
    return aval if dtype is None else aval.update(dtype=dtype, weak_type=False)


def broadcast_shape_arg(shape):
    """The ``shape`` of ``jnp.broadcast_to``: a value NumPy sees as 0-d is
    one dimension; only the types are checked here, since JAX compares the
    ranks and dimensions (``check_broadcast_to``) before it rejects a
    negative one (SPEC NP-71)."""
    if not isinstance(shape, tuple) and np.ndim(shape) == 0:
        shape = (shape,)
    return canonicalize_shape(shape, nonnegative=False)


def check_broadcast_to(aval, shape):
    """``shape`` once an array of type ``aval`` is known to broadcast to it:
    fewer dimensions, or a dimension neither 1 nor equal, is ValueError; a
    negative dimension left over is the TypeError of ``broadcast_in_dim``."""
    if len(shape) < aval.ndim:
        raise ValueError("Cannot broadcast to shape with fewer dimensions: "
                         f"arr_shape={aval.shape} shape={shape}")
    tail = shape[len(shape) - aval.ndim:]
    if any(d not in (1, n) for d, n in zip(aval.shape, tail)):
        raise ValueError("Incompatible types for broadcasting: input type="
                         f"{aval.str_short()} and requested type="
                         f"{aval.update(shape=shape).str_short()}")
    return canonicalize_shape(shape)


def _broadcast_fill(host, shape):
    """A host fill value broadcast to ``shape``; one that does not broadcast
    is the ValueError of ``lax.full`` (SPEC NP-71)."""
    try:
        return np.broadcast_to(host, shape)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: {host.shape} and "
                         f"requested shape {tuple(shape)}") from None


def _fill_keys(shape, fill_value, dt):
    """An array of a key dtype (the dtype's own rule), or keys filling a
    numeric dtype, JAX's ValueError (SPEC RNG-104)."""
    if not dtypes.is_extended(dt):
        raise ValueError(f"Cannot convert_element_type from "
                         f"{fill_value.dtype.name} to {dt.name}")
    return dt.full(shape, fill_value)


def _check_fill(fun_name, fill_value, position):
    """Fill values are arrays or scalars, not lists (as in JAX)."""
    if not core.is_array_like(fill_value):
        raise TypeError(f"{fun_name} requires ndarray or scalar arguments, got "
                        f"{type(fill_value)} at position {position}.")


def _like_dtype(a, dtype, fun_name):
    """The (dtype, weak type) of a ``*_like`` result (SPEC NP-71): ``a`` is an
    array, a scalar, or any object with ``shape`` and ``dtype`` attributes
    (``jax.ShapeDtypeStruct``); a NumPy array of strings or objects is a
    TypeError, as in JAX."""
    if isinstance(a, np.ndarray) and not dtypes.is_valid_jax_dtype(a.dtype):
        raise TypeError(f"Value '{a}' with dtype {a.dtype} is not a valid JAX array "
                        "type. Only arrays of numeric types are supported by JAX.")
    if dtype is not None:
        return dtypes.check_user_dtype(dtype, fun_name), False
    if isinstance(a, Array):
        return a.dtype, a.weak_type
    if type(a) in (bool, int, float, complex) or isinstance(a, (np.ndarray, np.generic)):
        return dtypes.dtype_and_weak_type(a)
    if _is_shape_dtype(a):
        return dtypes.canonicalize_dtype(a.dtype), bool(getattr(a, "weak_type", False))
    raise TypeError(f"{fun_name} requires ndarray or scalar arguments, got "
                    f"{type(a)} at position 0.")


def _is_shape_dtype(a):
    """Duck-typed ``ShapeDtypeStruct``-like prototypes (optax passes them)."""
    return hasattr(a, "shape") and isinstance(getattr(a, "dtype", None), np.dtype)


def _like_shape(a, shape):
    if shape is not None:
        return _jnp_shape(shape)
    if _is_shape_dtype(a) and not isinstance(a, (Array, np.ndarray, np.generic)):
        return tuple(a.shape)
    return tuple(np.shape(a))


def zeros_like(a, dtype=None, shape=None, *, device=None):
    if dtype is None and isinstance(a, Array) and dtypes.is_extended(a.dtype):
        return _zero_keys(a, shape)
    dt, weak = _like_dtype(a, dtype, "zeros_like")
    return _like_place(a, shape, _filled(_like_shape(a, shape), 0, dt, weak))


def _zero_keys(keys, shape):
    """Keys whose data is all zeros, as JAX gives for ``zeros_like`` (RNG-20)."""
    from refjax._src.random import prng
    impl = keys.dtype._impl
    shape = keys.shape if shape is None else _jnp_shape(shape)
    data = zeros(tuple(shape) + impl.key_shape, dtypes.uint32)
    return prng.random_wrap(data, impl)


def ones_like(a, dtype=None, shape=None, *, device=None):
    dt, weak = _like_dtype(a, dtype, "ones_like")
    return _like_place(a, shape, _filled(_like_shape(a, shape), 1, dt, weak))


def empty_like(prototype, dtype=None, shape=None, *, device=None):
    dt, weak = _like_dtype(prototype, dtype, "empty_like")
    return _like_place(prototype, shape,
                       _filled(_like_shape(prototype, shape), 0, dt, weak))


def full_like(a, fill_value, dtype=None, shape=None, *, device=None):
    """Like ``full``; an array fill value is broadcast (and ``device``
    checked) as ``jnp.broadcast_to`` does (SPEC NP-71)."""
    dt, weak = _like_dtype(a, dtype, "full_like")
    _check_fill("full_like", fill_value, 1)
    if dtypes.is_extended(dt) or _is_key(fill_value):
        return _fill_keys(_like_shape(a, shape), fill_value, dt)
    if np.ndim(fill_value) == 0:    # converted before the sizes are checked
        lax.check_python_complex(fill_value, dt, weak)
    given_shape, shape = shape, _like_shape(a, shape)
    if np.ndim(fill_value) != 0:
        shape = _broadcast_target(_fill_aval(fill_value, dt), shape, device)
    if _staging() or isinstance(fill_value, core.Tracer):
        return _lax_full(shape, fill_value, dt, weak)
    host = _cast_host(np.asarray(_host_of(fill_value)), dt)
    return _like_place(a, given_shape, _make(np.array(_broadcast_fill(host, shape)), dt, weak))


def _like_place(a, shape, out):
    """A committed array's ``*_like`` (no new shape) stays where it is (NP-226)."""
    if shape is None and type(a) is ArrayImpl and a.committed and type(out) is ArrayImpl:
        return placement.device_put(out, a.sharding)
    return out


# -- ranges ----------------------------------------------------------------

def _concrete_bound(value, name):
    """A Python/NumPy scalar for an ``arange`` bound; tracers cannot be."""
    value = core.concrete_or_error(
        None, value, f"It arose in the jnp.arange argument '{name}'")
    if value is not None and np.ndim(value) != 0:
        raise ValueError(f"jax.numpy.arange: arguments must be scalars; got "
                         f"{name}={value}")
    if isinstance(value, Array):
        return value.dtype.type(value.item())
    return value


def _is_key(value):
    return isinstance(value, (Array, core.Tracer)) and dtypes.is_extended(value.dtype)


def _reject_keys(*values):
    """PRNG keys are not numbers: a ValueError, as JAX's type promotion
    gives, rather than a failure inside NumPy (SPEC NP-71)."""
    for value in values:
        if _is_key(value):
            raise ValueError(f"dtype={value.dtype} is not a valid dtype for JAX type "
                             "promotion.")


def arange(start, stop=None, step=None, dtype=None, *, device=None):
    """Evenly spaced values from concrete bounds (SPEC NP-32).

    The result is ``start + step * iota`` computed in the result dtype (in
    float32 for narrower floats), as JAX computes it; its dtype is that of
    the bounds (Python ints give the default int).  A traced bound raises
    ``ConcretizationTypeError`` naming the argument.
    """
    if dtype is not None:
        dtype = dtypes.check_user_dtype(dtype, "arange")
    if start is None:
        raise TypeError("jnp.arange needs a number for its first argument, got None.")
    for b in (start, stop, step):
        if b is not None and not core.is_array_like(b):
            raise TypeError("arange requires ndarray or scalar arguments, got "
                            f"{type(b)} at position 0.")
    if stop is None and step is None and _is_key(start):
        raise TypeError("JAX array with PRNGKey dtype cannot be converted to a NumPy "
                        "array. Use jax.random.key_data(arr) if you wish to extract "
                        "the underlying integer array.")
    _reject_keys(start, stop, step)
    first = "stop" if stop is None and step is None else "start"
    start = _concrete_bound(start, first)
    stop = _concrete_bound(stop, "stop")
    step = _concrete_bound(step, "step")
    bounds = [b for b in (start, stop, step) if b is not None]
    if dtype is None:
        dtype = dtypes.result_type(*bounds)
    if any(np.iscomplexobj(b) for b in bounds):
        raise ValueError("Passing complex start/stop/step to jnp.arange is no longer "
                         "supported starting in JAX v0.10.0.")
    if stop is None:
        start, stop = 0, start
    if step is not None:
        return _arange_stepped(start, stop, step, dtype)
    if start == 0:
        return lax_shapes.iota(dtype, max(0, int(np.ceil(stop))))
    size = max(0, int(np.ceil(stop - start)))
    return lax.add(lax.convert_element_type(start, dtype), lax_shapes.iota(dtype, size))


def _arange_stepped(start, stop, step, dtype):
    if step == 0:
        raise ZeroDivisionError("division by zero")
    narrow = dtypes.issubdtype(dtype, np.floating) and dtype.itemsize < 4
    work = np.dtype(np.float32) if narrow else dtype
    size = max(0, int(np.ceil((stop - start) / step)))
    out = lax.add(lax.convert_element_type(start, work),
                  lax.mul(lax.convert_element_type(step, work), lax_shapes.iota(work, size)))
    return lax.convert_element_type(out, dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None,
             axis=0, *, device=None):
    """``num`` evenly spaced samples from ``start`` to ``stop`` (SPEC NP-32).

    Computed as JAX does, ``start * (1 - t) + stop * t`` for ``t = i / div``
    in the (inexact) result dtype, so the endpoints are exact; ``start`` and
    ``stop`` may be traced.
    """
    num = core.concrete_or_error(operator.index, num, "'num' argument of jnp.linspace")
    axis = core.concrete_or_error(operator.index, axis, "'axis' argument of jnp.linspace")
    return _linspace(start, stop, num, endpoint, retstep, dtype, axis)


def _linspace_impl(start, stop, num, endpoint, retstep, dtype, axis):
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    for pos, v in enumerate((start, stop)):
        if not core.is_array_like(v):
            raise TypeError("linspace requires ndarray or scalar arguments, got "
                            f"{type(v)} at position {pos}.")
    _reject_keys(start, stop)
    if dtype is None:
        dtype = _to_inexact(dtypes.result_type(start, stop))
    else:
        dtype = dtypes.canonicalize_dtype(dtypes.check_user_dtype(dtype, "linspace"))
    comp = _to_inexact(dtype)
    start = lax._convert_element_type(start, comp, weak_type=False)
    stop = lax._convert_element_type(stop, comp, weak_type=False)
    bounds = _broadcast_shapes(core.get_aval(start).shape, core.get_aval(stop).shape)
    start, stop = _lax_full(bounds, start, comp), _lax_full(bounds, stop, comp)
    axis = len(bounds) + axis + 1 if axis < 0 else axis
    shape = list(bounds)
    shape.insert(axis, 1)
    div = num - 1 if endpoint else num
    if num > 1:
        delta = lax.div(lax.sub(stop, start), np.array(div, comp))
        real = np.finfo(comp).dtype if comp.kind == "c" else comp
        iota_shape = [1] * len(shape)
        iota_shape[axis] = div
        t = lax.div(lax_shapes.reshape(lax_shapes.iota(real, div), iota_shape), np.array(div, real))
        t = lax._convert_element_type(t, comp)
        out = lax.add(lax.mul(lax_shapes.reshape(start, shape), lax.sub(np.array(1, comp), t)),
                      lax.mul(lax_shapes.reshape(stop, shape), t))
        if endpoint:
            out = lax_shapes.concatenate([out, lax_shapes.expand_dims(stop, (axis,))], axis)
    elif num == 1:
        delta = (_lax_full((), np.nan, comp) if endpoint else lax.sub(stop, start))
        out = lax_shapes.reshape(start, shape)
    else:
        delta = _lax_full((), np.nan, comp)
        shape[axis] = 0
        out = _lax_full(shape, 0, dtype)
    if dtypes.issubdtype(dtype, np.integer) and not dtypes.issubdtype(
            core.get_aval(out).dtype, np.integer):
        out = lax.floor(out)
    result = lax._convert_element_type(out, dtype, weak_type=False)
    return (result, delta) if retstep else result


def _to_inexact(dt):
    return dt if dtypes.issubdtype(dt, np.inexact) else dtypes.default_float_dtype()


def _broadcast_shapes(a, b):
    nd = max(len(a), len(b))
    a, b = (1,) * (nd - len(a)) + tuple(a), (1,) * (nd - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={[a, b]}")
        out.append(y if x == 1 else x)
    return tuple(out)


def _make_linspace():
    from refjax._src.api import jit
    _linspace_impl.__name__ = "_linspace"    # the name JAX's jit shows
    return jit(_linspace_impl, static_argnames=("num", "endpoint", "retstep", "dtype",
                                                "axis"))


_linspace = _make_linspace()


def eye(N, M=None, k=0, dtype=None, *, device=None):
    """Ones on the ``k``-th diagonal: ``iota(0) + k == iota(1)`` converted
    to ``dtype`` (SPEC NP-31); ``k`` may be traced (SPEC NP-216)."""
    dt = _default_or(dtype, "eye", dtypes.default_float_dtype)
    k = _eye_offset(k)                      # checked before the sizes, as in JAX
    n = canonicalize_shape((N,), nonnegative=False)[0]
    m = n if M is None else canonicalize_shape((M,), nonnegative=False)[0]
    if n < 0 or m < 0:
        raise ValueError(f"negative dimensions are not allowed, got {N} and {M}")
    shape = canonicalize_shape((n, m))
    it = dtypes.canonicalize_dtype(core.get_aval(k).dtype)
    rows = lax_shapes.broadcasted_iota(it, shape, 0)
    cols = lax_shapes.broadcasted_iota(it, shape, 1)
    k = lax._convert_element_type(k, it, weak_type=False)
    diag = lax.eq(lax.add(rows, k), cols)
    return lax.convert_element_type(diag, dt)


def _eye_offset(k):
    """``eye``'s ``k`` as a scalar integer array, which may be traced: a
    Python int is first clipped to the int32 range (a far diagonal is all
    zeros anyway); anything else must be a 0-d integer array, else
    ValueError, as in JAX (SPEC NP-216)."""
    if isinstance(k, int):
        k = np.int32(max(np.iinfo(np.int32).min, min(int(k), np.iinfo(np.int32).max)))
    if not core.is_array_like(k):
        raise TypeError(f"eye requires ndarray or scalar arguments, got {type(k)} "
                        "at position 0.")
    aval = core.get_aval(k)
    if aval.shape != () or not dtypes.issubdtype(aval.dtype, np.integer):
        raise ValueError(f"k must be a scalar integer; got {k}")
    return k


def identity(n, dtype=None):
    return eye(n, dtype=dtype)


# -- device= (SPEC SHD-94) ---------------------------------------------------

def _with_device(fun):
    """``fun`` taking ``device=``: a Device or Sharding the result is placed
    on (committed, as by ``jax.device_put``); anything else, a platform name
    such as ``'cpu'`` included, raises ``ValueError``."""
    sig = inspect.signature(fun)
    takes_device = "device" in sig.parameters   # to check it in JAX's order

    @functools.wraps(fun)
    def placed(*args, device=None, **kwargs):
        out = fun(*args, device=device, **kwargs) if takes_device else fun(*args, **kwargs)
        if device is None:
            return out
        if isinstance(out, core.Tracer) and fun.__name__ in _STAGED_DEVICE_PUT:
            return _staged_device_put(out, device)
        return placement.device_put(out, device)
    if not takes_device:                    # a function without it gains it here
        device = inspect.Parameter("device", inspect.Parameter.KEYWORD_ONLY, default=None)
        placed.__signature__ = sig.replace(parameters=[*sig.parameters.values(), device])
    return placed


# Traced with a ``device``, these end with a ``device_put`` equation, as
# in JAX's jaxprs (SPEC NP-224).
_STAGED_DEVICE_PUT = frozenset({"arange", "eye"})


def _staged_device_put(x, device):
    placement.check_place(device)
    out, = device_put_p.bind(x, devices=(device,), srcs=(None,),
                             copy_semantics=("REUSE_INPUT",))
    return out


for _name in ("array", "asarray", "zeros", "ones", "empty", "full", "zeros_like",
              "ones_like", "empty_like", "full_like", "arange", "linspace", "eye"):
    globals()[_name] = _with_device(globals()[_name])
del _name
