"""Array creation in ``refjax.numpy`` with JAX's dtype defaults (SPEC ARR-6).

Python scalars give weakly typed arrays; lists, NumPy arrays and explicit
dtypes give strong ones.  64-bit requests are canonicalized (and warn when
explicit) unless x64 is on.
"""
import operator

import numpy as np

from refjax._src import backend as _backend
from refjax._src import dtypes
from refjax._src.array import Array, ArrayImpl
from refjax._src.casting import convert, freeze

__all__ = ["array", "asarray", "zeros", "ones", "full", "empty", "zeros_like",
           "ones_like", "full_like", "empty_like", "arange", "linspace", "eye",
           "identity"]


def _make(host, dtype, weak_type=False):
    """Wrap a NumPy array of ``dtype`` as a device array.

    The host data is copied unless it is a fresh array nobody else holds:
    the buffer is frozen, and a user's NumPy array must stay writable.
    """
    if not (host.flags.owndata and host.flags.writeable):
        host = np.array(host, copy=True)
    return ArrayImpl(freeze(_backend.get().asarray(host)), dtype, weak_type)


def _invalid_value(value, dt):
    return TypeError(f"Value {value!r} with dtype {dt} is not a valid JAX array "
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
        for leaf in leaves:
            if leaf is None:
                raise ValueError("None is not a valid value for jnp.array")
            _check_leaf(leaf)
        dt = dtypes.result_type(*leaves) if leaves else dtypes.default_float_dtype()
        host = np.array(_replace_arrays(obj), dtype=_host_dtype_for(leaves, dt))
        return _cast_host(host, dt), dt, False
    host = np.array(obj)  # a copy: the buffer is frozen, the user's array is not
    if not dtypes.is_valid_jax_dtype(host.dtype):
        raise _invalid_value(obj, host.dtype)
    dt = dtypes.canonicalize_dtype(host.dtype)
    return _cast_host(host, dt), dt, False


def _check_leaf(leaf):
    if type(leaf) in (bool, int, float, complex) or isinstance(leaf, Array):
        return
    dt = np.asarray(leaf).dtype
    if not dtypes.is_valid_jax_dtype(dt):
        raise _invalid_value(leaf, dt)


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


def array(object, dtype=None, copy=True, order="K", ndmin=0):
    """Create an array; Python scalars give weak types (SPEC ARR-6, DT-3)."""
    if isinstance(object, ArrayImpl) and dtype is None and not copy and ndmin <= object.ndim:
        return object
    if dtype is None:
        host, dt, weak = _infer(object)
    else:
        dt = dtypes.check_user_dtype(dtype, "array")
        host, weak = _to_requested(object, dt), False
    if ndmin > host.ndim:
        host = host.reshape((1,) * (ndmin - host.ndim) + host.shape)
    return _make(host, dt, weak)


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
    host, _, _ = _infer(obj)
    return _cast_host(host, dt)


def _python_scalars_only(obj):
    return all(type(v) in (bool, int, float, complex) for v in _leaves(obj))


def asarray(a, dtype=None, order=None, *, copy=None, device=None):
    """Like ``array`` but returns ``a`` itself when nothing needs to change."""
    if dtype is None:
        if isinstance(a, ArrayImpl) and copy is not True:
            return a
        return array(a, copy=bool(copy))
    dt = dtypes.check_user_dtype(dtype, "asarray")
    if isinstance(a, ArrayImpl) and copy is not True and dt == a.dtype and not a.weak_type:
        return a
    return _make(_to_requested(a, dt), dt, False)


# -- shapes ----------------------------------------------------------------

def canonicalize_shape(shape, context="Shapes"):
    """A tuple of non-negative ints, or TypeError as JAX gives (SPEC ARR-6)."""
    if not isinstance(shape, (tuple, list)):
        shape = (shape,)
    dims = []
    for d in shape:
        try:
            dims.append(operator.index(d))
        except TypeError:
            raise TypeError("Shapes must be 1D sequences of concrete values of "
                            f"integer type, got {tuple(shape)}.") from None
    dims = tuple(dims)
    if any(d < 0 for d in dims):
        raise TypeError("broadcast_in_dim shape must have every element be "
                        f"nonnegative, got {dims}.")
    return dims


def _default_or(dtype, fun_name, default):
    return default() if dtype is None else dtypes.check_user_dtype(dtype, fun_name)


def _filled(shape, value, dt, weak=False):
    xp = _backend.get().xp
    buf = xp.full(shape, value, dtype=dt) if dt not in _ml else \
        xp.full(shape, value, dtype=np.float32).astype(dt)
    return ArrayImpl(freeze(buf), dt, weak)


_ml = frozenset(dtypes.small_float_dtypes + dtypes.narrow_int_dtypes + (dtypes.bfloat16,))


def zeros(shape, dtype=None, *, device=None):
    shape = canonicalize_shape(shape)
    return _filled(shape, 0, _default_or(dtype, "zeros", dtypes.default_float_dtype))


def ones(shape, dtype=None, *, device=None):
    shape = canonicalize_shape(shape)
    return _filled(shape, 1, _default_or(dtype, "ones", dtypes.default_float_dtype))


def empty(shape, dtype=None, *, device=None):
    """Zeros: refjax buffers are always initialized, like JAX's."""
    shape = canonicalize_shape(shape)
    return _filled(shape, 0, _default_or(dtype, "empty", dtypes.default_float_dtype))


def full(shape, fill_value, dtype=None, *, device=None):
    """``fill_value`` broadcast to ``shape``; a Python scalar stays weak."""
    shape = canonicalize_shape(shape)
    if dtype is None:
        host, dt, weak = _infer(fill_value)
    else:
        dt = dtypes.check_user_dtype(dtype, "full")
        host, weak = _cast_host(np.asarray(_host_of(fill_value)), dt), False
    host = np.broadcast_to(host, shape)
    return _make(np.array(host), dt, weak)


def _like_dtype(a, dtype, fun_name):
    if dtype is not None:
        return dtypes.check_user_dtype(dtype, fun_name), False
    if isinstance(a, ArrayImpl):
        return a.dtype, a.weak_type
    if type(a) in (bool, int, float, complex) or isinstance(a, (np.ndarray, np.generic)):
        return dtypes.dtype_and_weak_type(a)
    raise TypeError(f"{fun_name} requires ndarray or scalar arguments, got "
                    f"{type(a)} at position 0.")


def _like_shape(a, shape):
    return canonicalize_shape(shape) if shape is not None else tuple(np.shape(a))


def zeros_like(a, dtype=None, shape=None, *, device=None):
    dt, weak = _like_dtype(a, dtype, "zeros_like")
    return _filled(_like_shape(a, shape), 0, dt, weak)


def ones_like(a, dtype=None, shape=None, *, device=None):
    dt, weak = _like_dtype(a, dtype, "ones_like")
    return _filled(_like_shape(a, shape), 1, dt, weak)


def empty_like(prototype, dtype=None, shape=None, *, device=None):
    dt, weak = _like_dtype(prototype, dtype, "empty_like")
    return _filled(_like_shape(prototype, shape), 0, dt, weak)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None):
    dt, weak = _like_dtype(a, dtype, "full_like")
    host = _cast_host(np.asarray(_host_of(fill_value)), dt)
    return _make(np.array(np.broadcast_to(host, _like_shape(a, shape))), dt, weak)


# -- ranges ----------------------------------------------------------------

def arange(start, stop=None, step=None, dtype=None, *, device=None):
    """Evenly spaced values; int32 for integer bounds, else float (strong)."""
    bounds = [b for b in (start, stop, step) if b is not None]
    for b in bounds:
        if isinstance(b, Array) and b.ndim:
            raise TypeError("arange: arguments must be scalars, got an array "
                            f"of shape {b.shape}")
    if dtype is None:
        dt = dtypes.result_type(*bounds)
        if dtypes.issubdtype(dt, np.integer) or dt == dtypes.bool_:
            dt = dtypes.default_int_dtype() if all(
                type(b) in (int, bool) for b in bounds) else dtypes.canonicalize_dtype(dt)
    else:
        dt = dtypes.check_user_dtype(dtype, "arange")
    values = [b.item() if isinstance(b, Array) else b for b in bounds]
    if len(values) == 3 and values[2] == 0:
        raise ZeroDivisionError("division by zero")
    host = np.arange(*values)
    return _make(_cast_host(host, dt), dt)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None,
             axis=0, *, device=None):
    """``num`` evenly spaced samples; float32 by default."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dt = _default_or(dtype, "linspace", lambda: dtypes.canonicalize_dtype(
        dtypes.result_type(start, stop, float)))
    compute = np.float64 if dt.kind != "c" else np.complex128
    host, step = np.linspace(np.asarray(_host_of(start), compute),
                             np.asarray(_host_of(stop), compute), num,
                             endpoint=endpoint, retstep=True, axis=axis)
    if dtypes.issubdtype(dt, np.integer):
        host = np.floor(host)
    out = _make(_cast_host(host, dt), dt)
    if retstep:
        return out, _make(_cast_host(np.asarray(step), dt), dt)
    return out


def eye(N, M=None, k=0, dtype=None, *, device=None):
    dt = _default_or(dtype, "eye", dtypes.default_float_dtype)
    n, m = canonicalize_shape((N, N if M is None else M))
    return _make(_cast_host(np.eye(n, m, k), dt), dt)


def identity(n, dtype=None):
    return eye(n, dtype=dtype)
