"""``jax.Array``: immutable arrays on a device (SPEC ARR-1 .. ARR-9).

``Array`` is the public base class (``isinstance(x, jax.Array)``); tracers
will derive from it too.  ``ArrayImpl`` is the concrete array: a backend
buffer plus the JAX-level facts NumPy does not track (weak type, device,
deletion).  Its buffer is never written after creation.
"""
import numpy as np

from refjax._src import backend as _backend
from refjax._src import devices as _devices
from refjax._src import dtypes


class Array:
    """The type of every refjax array (``refjax.Array``, ``jnp.ndarray``)."""

    __slots__ = ()
    # NumPy defers binary operators to us when an Array is on either side.
    __array_priority__ = 100

    def __setitem__(self, index, value):
        raise TypeError(
            "JAX arrays are immutable and do not support in-place item "
            "assignment. Instead of x[idx] = y, use x = x.at[idx].set(y) or "
            "another .at[] method: "
            "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")

    def __delitem__(self, index):
        # JAX 0.10.2 raises AttributeError('__delitem__') here; refjax keeps
        # TypeError, as for assignment, with the functional spelling
        # (SPEC IDX-24).
        raise TypeError(
            "JAX arrays are immutable and do not support item deletion. "
            "Instead of del x[idx], build a new array: select the entries to "
            "keep (e.g. x = x[mask]) or use x = x.at[idx].set(y) to overwrite "
            "entries: "
            "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


class ArrayImpl(Array):
    """A concrete array: an immutable backend buffer with JAX's metadata."""

    __slots__ = ("_buffer", "_dtype", "weak_type", "_device", "_committed",
                 "_deleted_shape", "__weakref__")
    __hash__ = None  # unhashable, as in JAX (SPEC ARR-3)

    def __init__(self, buffer, dtype, weak_type=False, device=None,
                 committed=False):
        self._buffer = buffer
        self._dtype = dtype
        self.weak_type = weak_type
        self._device = device
        self._committed = committed

    # -- data access -------------------------------------------------------
    @property
    def _value(self):
        """The backend buffer; raises RuntimeError once the array is deleted."""
        buf = self._buffer
        if buf is None:
            dims = ",".join(map(str, self._deleted_shape))
            raise RuntimeError(
                f"Array has been deleted with shape={self._dtype.name}[{dims}].")
        return buf

    def _host(self):
        """The contents as a read-only NumPy array (SPEC ARR-3)."""
        host = _backend.get().to_host(self._value)
        if host.flags.writeable:
            host.flags.writeable = False
        return host

    # -- metadata ----------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        # Still known after delete(), as in JAX.
        buf = self._buffer
        return tuple(buf.shape if buf is not None else self._deleted_shape)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(self._value.size)

    @property
    def itemsize(self):
        return self._dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self._dtype.itemsize

    @property
    def committed(self):
        return self._committed

    def devices(self):
        """The set of devices holding this array."""
        return {self._device or _devices.default_device()}

    @property
    def device(self):
        return self._device or _devices.default_device()

    def is_deleted(self):
        return self._buffer is None

    def delete(self):
        """Free the buffer; later use raises RuntimeError (SPEC ARR-8)."""
        if self._buffer is not None:
            self._deleted_shape = self._buffer.shape
            self._buffer = None

    def block_until_ready(self):
        _backend.get().block_until_ready(self._value)
        return self

    # -- conversions (concrete values only) ---------------------------------
    def __array__(self, dtype=None, copy=None):
        host = self._host()
        if dtype is not None and np.dtype(dtype) != host.dtype:
            return host.astype(dtype)
        if copy:
            return host.copy()
        return host

    def item(self, *args):
        if args:
            return self._host().item(*args)
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self._host().item()

    def tolist(self):
        return self._host().tolist()

    def _scalar(self, kind):
        if self.ndim:
            raise TypeError("Only scalar arrays can be converted to Python "
                            f"scalars; got arr.ndim={self.ndim}")
        return kind(self._host()[()])

    def __int__(self):
        return self._scalar(int)

    def __float__(self):
        return self._scalar(float)

    def __complex__(self):
        return self._scalar(complex)

    def __index__(self):
        if self.ndim or not dtypes.issubdtype(self._dtype, np.integer):
            raise TypeError("Only integer scalar arrays can be converted to a "
                            "scalar index.")
        return int(self._host()[()])

    def __bool__(self):
        check_truth_value_size(self.size)
        return bool(self._host().reshape(()))

    def __len__(self):
        if not self.ndim:
            raise TypeError("len() of unsized object")
        return self._value.shape[0]

    def __iter__(self):
        if not self.ndim:
            raise TypeError("iteration over a 0-d array")
        value = self._value
        return (ArrayImpl(value[i], self._dtype, self.weak_type, self._device,
                          self._committed) for i in range(value.shape[0]))

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self._host()[()], spec)
        return format(str(self), spec)

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce__(self):
        from refjax._src.numpy_creation import array as _array
        return (_array, (self._host(), self._dtype))

    # -- printing (SPEC ARR-5) ---------------------------------------------
    def __repr__(self):
        return array_repr(self._host(), self._dtype, self.weak_type)

    def __str__(self):
        return str(self._host())


def check_truth_value_size(size):
    """``bool(x)`` needs exactly one element, as in NumPy (SPEC ARR-4)."""
    if size == 0:
        raise ValueError("The truth value of an empty array is ambiguous. "
                         "Use `array.size > 0` to check that an array is "
                         "not empty.")
    if size > 1:
        raise ValueError("The truth value of an array with more than one "
                         "element is ambiguous. Use a.any() or a.all()")


def array_repr(host, dtype, weak_type):
    """``Array([...], dtype=..., weak_type=True)`` laid out as JAX prints it."""
    suffix = f"dtype={dtype.name}" + (", weak_type=True" if weak_type else "")
    if host.size == 0:
        return f"Array([], shape={host.shape}, {suffix})"
    prefix = "Array("
    body = np.array2string(host, prefix=prefix, suffix=",", separator=", ")
    return f"{prefix}{body}, {suffix})"
