"""``jax.Array``: immutable arrays on a device (SPEC ARR-1 .. ARR-9).

``Array`` is the public base class (``isinstance(x, jax.Array)``); tracers
will derive from it too.  ``ArrayImpl`` is the concrete array: a backend
buffer plus the JAX-level facts NumPy does not track (weak type, device,
deletion).  Its buffer is never written after creation.
"""
import math
import sys
from typing import NamedTuple

import numpy as np

from refjax._src import backend as _backend
from refjax._src import config as _config
from refjax._src import devices as _devices
from refjax._src import dtypes
from refjax._src import mesh as _sharding
from refjax._src.casting import freeze

_default_device = _config.states["jax_default_device"]


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


dtypes.array_types.append(Array)     # an Array is never a dtype (SPEC NP-71)


class ArrayImpl(Array):
    """A concrete array: an immutable backend buffer with JAX's metadata."""

    # An array lives either on one device (``_buffer``, on ``_device`` or
    # the default device) or, placed with a NamedSharding, as one buffer per
    # device in ``_shards`` (``_buffer`` is then None and ``_shape`` holds
    # the global shape; SPEC SHD-14).
    # ``_sig``: (shape, dtype, weak type) of a plain uncommitted array, the
    # key of eager dispatch plans (SPEC PERF-1); None until first needed,
    # and for committed, sharded or deleted arrays.
    # ``_npy``: the read-only NumPy view handed out by ``__array__`` and the
    # buffer paths, made once (SPEC ARR-11); None until first asked for.
    # ``_tb``: the Traceback of the array's creation, when tracebacks are
    # being collected (``set_tracebacks_enabled``), else None.
    __slots__ = ("_buffer", "_dtype", "weak_type", "_device", "_committed",
                 "_shape", "_sharding", "_shards", "_sig", "_npy", "_tb",
                 "__weakref__")
    __hash__ = None  # unhashable, as in JAX (SPEC ARR-3)

    def __init__(self, buffer, dtype, weak_type=False, device=None,
                 committed=False):
        self._buffer = buffer
        self._dtype = dtype
        self.weak_type = weak_type
        if device is None and not committed and (_default_device._global is not None
                                                 or _config._overrides.values):
            # Uncommitted arrays go where jax_default_device says (CFG-22);
            # read through two attributes when it is unset: every array
            # passes here.
            device = _devices.creation_device()
        self._device = device
        self._committed = committed
        self._tb = Traceback.capture() if _tracebacks[0] else None
        self._sharding = None
        self._shards = None
        self._sig = None
        self._npy = None

    @classmethod
    def _from_shards(cls, shards, shape, dtype, weak_type, sharding):
        """An array held as per-device ``shards`` under ``sharding``."""
        x = cls(None, dtype, weak_type, None, True)
        x._shape = tuple(shape)
        x._sharding = sharding
        x._shards = tuple(shards)
        return x

    # -- data access -------------------------------------------------------
    @property
    def _value(self):
        """The backend buffer; raises RuntimeError once the array is deleted."""
        buf = self._buffer
        if buf is None:
            if self._shards is not None:
                return self._assemble()
            dims = ",".join(map(str, self._shape))
            raise RuntimeError(
                f"Array has been deleted with shape={self._dtype.name}[{dims}].")
        return buf

    def _assemble(self):
        """The global value of a sharded array, gathered from its shards
        into a fresh buffer (shards are never merged in place: SHD-14)."""
        shards, sharding = self._shards, self._sharding
        if len(shards) == 1 or sharding.is_fully_replicated:
            return shards[0]
        indices = sharding._indices(self._shape)
        first = sharding._device_assignment[0].id   # gathered where shard 0 lives
        return _backend.get().assemble(self._shape, self._dtype, zip(indices, shards),
                                       first)

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
        return tuple(buf.shape) if buf is not None else self._shape

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        if self._buffer is None:
            self._value  # raises once deleted
            return math.prod(self._shape)
        return int(self._buffer.size)

    @property
    def itemsize(self):
        return self._dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self._dtype.itemsize

    @property
    def committed(self):
        return self._committed

    @property
    def format(self):
        """The memory layout (row-major, as every refjax buffer) and the
        sharding, as a ``Format`` (SPEC API-36)."""
        self._value
        return _sharding.Format(_sharding.row_major_layout(self.ndim), self.sharding)

    @property
    def traceback(self):
        """Where the array was made: a ``Traceback`` while tracebacks are
        collected, else None -- JAX's value with collection off (SPEC
        API-37).  refjax collects none by default: walking the stack would
        cost as much as the eager operation itself."""
        return self._tb

    def devices(self):
        """The set of devices holding this array."""
        if self._sharding is not None:
            return self._sharding.device_set
        return {self._device or _devices.first_device()}

    @property
    def device(self):
        if self._sharding is not None:
            return self._sharding
        return self._device or _devices.first_device()

    @property
    def sharding(self):
        """Where the array lives (SHD-9, SHD-10)."""
        if self._sharding is not None:
            return self._sharding
        return _sharding.SingleDeviceSharding(self.device)

    @property
    def addressable_shards(self):
        """One ``Shard`` per device: its device, index, replica id and the
        buffer that device holds (SHD-14)."""
        sharding = self.sharding
        shape = self.shape
        shards = self._shards if self._shards is not None else (self._value,)
        replica = (sharding.replica_ids(len(shape)) if self._sharding is not None
                   else [0])
        return [_sharding.Shard(d, idx, r, ArrayImpl(buf, self._dtype, self.weak_type, d, True))
                for d, idx, r, buf in zip(sharding._device_assignment,
                                          sharding._indices(shape), replica, shards)]

    @property
    def global_shards(self):
        return self.addressable_shards

    @property
    def is_fully_replicated(self):
        return self.sharding.is_fully_replicated

    @property
    def is_fully_addressable(self):
        return True

    def is_deleted(self):
        return self._buffer is None and self._shards is None

    def delete(self):
        """Free the buffer; later use raises RuntimeError (SPEC ARR-8)."""
        if self._buffer is not None:
            self._shape = tuple(self._buffer.shape)
            self._buffer = None
        self._shards = None
        self._sig = None
        self._npy = None

    def block_until_ready(self):
        _backend.get().block_until_ready(self._value)
        return self

    # -- runtime queries (SPEC API-15) ----------------------------------------
    def is_ready(self):
        """Whether the value is computed: always, refjax running eagerly."""
        self._value                          # RuntimeError once deleted
        return True

    def copy_to_host_async(self):
        """Start copying to the host: a no-op, the value is already there."""
        self._value
        return None

    def addressable_data(self, index):
        """The block device ``index`` (of ``addressable_shards``) holds."""
        self._value
        return self.addressable_shards[index].data

    def on_device_size_in_bytes(self):
        """Bytes one device holds for this array (its shard)."""
        return self.addressable_data(0).nbytes

    def platform(self):
        """The platform of the devices holding the array (``'cpu'``)."""
        return next(iter(self.devices())).platform

    def clone(self):
        """A new array with the same value, placement and weak type."""
        if self._shards is not None:
            return ArrayImpl._from_shards(self._shards, self._shape, self._dtype,
                                          self.weak_type, self._sharding)
        return ArrayImpl(self._value, self._dtype, self.weak_type, self._device,
                         self._committed)

    def unsafe_buffer_pointer(self):
        """The address of the host buffer's first element."""
        return self._exported().ctypes.data

    @property
    def device_buffer(self):
        raise AttributeError("arr.device_buffer has been deprecated. Use "
                             "arr.addressable_data(0)")

    @property
    def device_buffers(self):
        raise AttributeError("arr.device_buffers has been deprecated. Use "
                             "[x.data for x in arr.addressable_shards]")

    # -- conversions (concrete values only) ---------------------------------
    def _exported(self):
        """The values as a NumPy array nobody can make writeable: the view
        every NumPy, buffer-protocol and DLPack path shares (SPEC ARR-11)."""
        view = self._npy
        if view is None:
            view = self._npy = readonly_view(_backend.get().to_host(self._value))
        return view

    def __array__(self, dtype=None, copy=None):
        """NumPy's conversion hook, with NumPy 2's ``copy`` keyword: a
        read-only view unless a copy is asked for or the dtype differs
        (``copy=False`` then raises ValueError; SPEC ARR-11)."""
        # A fresh view each time: a caller may reshape the one it gets in
        # place (``v.shape = ...``) without touching anyone else's.
        view = self._exported().view()
        if dtype is not None and np.dtype(dtype) != view.dtype:
            if copy is False:
                raise ValueError(
                    f"Unable to avoid copy while converting an Array of dtype "
                    f"{view.dtype} to {np.dtype(dtype)}: pass copy=None (or use "
                    f"np.asarray) to allow the conversion to copy.")
            return view.astype(dtype)
        if copy:
            return view.copy()
        return view

    def __buffer__(self, flags):
        """The buffer protocol, read-only (``memoryview(x)``; PEP 688, so
        Python 3.12 or later; SPEC ARR-11)."""
        try:
            view = self._exported()
        except RuntimeError as e:   # deleted
            raise BufferError(str(e)) from None
        try:
            return memoryview(view)
        except ValueError:
            raise BufferError(
                f"Arrays of dtype {self._dtype} cannot be exported through the "
                f"Python buffer protocol; convert with np.asarray(x) "
                f"instead.") from None

    def tobytes(self, order="C"):
        """The raw bytes of the values in ``order`` (SPEC ARR-11)."""
        if order not in ("C", "F", "A", "K"):
            raise ValueError(
                f"order must be one of 'C', 'F', 'A' or 'K', got {order!r}")
        return self._exported().tobytes(order)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None,
                   copy=None):
        """A DLPack capsule of the values, flagged read-only (SPEC ARR-11).

        A consumer that asks for no ``max_version`` speaks DLPack 0.x,
        which cannot say "read-only"; it gets a private copy instead, so
        what it writes never reaches this array."""
        view = self._exported()
        if max_version is None or max_version[0] < 1:
            return view.copy().__dlpack__(stream=stream)
        return view.__dlpack__(stream=stream, max_version=max_version,
                               dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        """``(device type, device id)`` of the memory ``__dlpack__`` exports."""
        return self._exported().__dlpack_device__()

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
        # NumPy's rule, as in JAX: only the empty spec formats an array.
        return format(self._host(), spec)

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce__(self):
        return (_unpickle, (self._host(), self._dtype))

    # -- printing (SPEC ARR-5) ---------------------------------------------
    def __repr__(self):
        return array_repr(self._host(), self._dtype, self.weak_type)

    def __str__(self):
        return str(self._host())


# -- creation tracebacks (SPEC API-37) ---------------------------------------

_tracebacks = [False]


def set_tracebacks_enabled(enabled):
    """Collect (or stop collecting) a Traceback for each new array."""
    _tracebacks[0] = bool(enabled)


def tracebacks_enabled():
    return _tracebacks[0]


class Frame(NamedTuple):
    """One Python frame of a Traceback."""
    file_name: str
    function_name: str
    function_start_line: int
    line_num: int

    def __str__(self):
        return f"{self.function_name};{self.file_name}:{self.line_num}"


class Traceback:
    """The Python stack at one moment, innermost frame first; kept as
    (code, line) pairs so that no frame, and none of its locals, stays
    alive."""

    __slots__ = ("_raw",)

    def __init__(self, raw):
        self._raw = tuple(raw)

    @classmethod
    def capture(cls, skip=2):
        frame, raw = sys._getframe(skip), []
        while frame is not None:
            raw.append((frame.f_code, frame.f_lineno))
            frame = frame.f_back
        return cls(raw)

    @property
    def frames(self):
        return [Frame(c.co_filename, c.co_qualname, c.co_firstlineno, line)
                for c, line in self._raw]

    def __str__(self):
        return "\n".join(f"{f.file_name}:{f.line_num} ({f.function_name})"
                         for f in self.frames)

    def __eq__(self, other):
        return isinstance(other, Traceback) and self._raw == other._raw

    def __hash__(self):
        return hash(self._raw)


def check_truth_value_size(size):
    """``bool(x)`` needs exactly one element, as in NumPy (SPEC ARR-4)."""
    if size == 0:
        raise ValueError("The truth value of an empty array is ambiguous. "
                         "Use `array.size > 0` to check that an array is "
                         "not empty.")
    if size > 1:
        raise ValueError("The truth value of an array with more than one "
                         "element is ambiguous. Use a.any() or a.all()")


def readonly_view(host):
    """``host`` (a NumPy array) as a view that can never be made writeable
    (SPEC ARR-2, ARR-11).

    A read-only flag alone is not enough: NumPy lets ``setflags(write=True)``
    succeed whenever the memory's owner is writeable.  The view returned
    here rests on a read-only ``memoryview``, which NumPy cannot turn
    writeable.  Contiguous arrays are wrapped without a copy;
    non-contiguous ones are laid out in row-major order first, as JAX's
    host arrays always are."""
    try:
        memory = memoryview(host)
    except ValueError:
        # The buffer protocol has no format for bfloat16 and the other
        # ml_dtypes types: export raw bytes and reinterpret them.
        flat = np.ascontiguousarray(host).reshape(-1)
        raw = memoryview(flat.view(np.uint8)).toreadonly()
        return np.frombuffer(raw, host.dtype).reshape(host.shape)
    if not memory.c_contiguous:
        memory = memoryview(np.ascontiguousarray(host))
    return np.asarray(memory.toreadonly())


def array_repr(host, dtype, weak_type):
    """``Array([...], dtype=..., weak_type=True)`` laid out as JAX prints it."""
    suffix = f"dtype={dtype.name}" + (", weak_type=True" if weak_type else "")
    if host.size == 0:
        return f"Array([], shape={host.shape}, {suffix})"
    prefix = "Array("
    body = np.array2string(host, prefix=prefix, suffix=",", separator=", ")
    return f"{prefix}{body}, {suffix})"


def _unpickle(host, dtype):
    """The Array a pickle holds: its host data on the default device."""
    return ArrayImpl(freeze(_backend.get().asarray(np.array(host, dtype=dtype))), dtype)
