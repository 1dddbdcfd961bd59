"""Arrays from and to host data in ``jax.numpy``: buffers, strings, files,
DLPack, functions of the indices, and packed bits (SPEC NPP-11 .. NPP-13).

As in JAX, most of these read the host data with NumPy and wrap the result
(``frombuffer``, ``fromstring``, ``load``), or are NumPy's own functions
(``save``, ``savez``, ``array_repr``, ``array_str``).  ``fromfile`` and
``fromiter`` are refused: reading a file or consuming an iterator is a side
effect that a traced function would perform only once.
"""
import numpy as np
from numpy import (  # noqa: F401 - JAX re-exports these
    array_repr, array_str, save, savez,
)

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.array import ArrayImpl
from refjax._src.lax import lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.mesh import Sharding
from refjax._src.numpy import creation, util
from refjax._src.numpy.lax_numpy import expand_dims, ravel, swapaxes
from refjax._src.numpy.padding import pad
from refjax._src.placement import device_put
from refjax._src.vmap_api import vmap

__all__ = [
    "ComplexWarning", "array_repr", "array_str", "from_dlpack", "frombuffer",
    "fromfile", "fromfunction", "fromiter", "fromstring", "load", "packbits",
    "save", "savez", "unpackbits",
]

ComplexWarning = np.exceptions.ComplexWarning


# ---------------------------------------------------------------------------
# Host data (SPEC NPP-11)
# ---------------------------------------------------------------------------

def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """``np.frombuffer`` as an Array (64-bit dtypes canonicalized); a
    concrete Array's bytes are a buffer too, as a JAX array's are
    (SPEC NPP-11)."""
    if isinstance(buffer, ArrayImpl):
        # JAX arrays export the buffer protocol, which a Python class
        # cannot before Python 3.12: read the host copy's buffer instead.
        buffer = np.ascontiguousarray(buffer._host())
    return creation.asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count,
                                          offset=offset))


def fromstring(string, dtype=float, count=-1, *, sep):
    """``np.fromstring`` (text mode: ``sep`` is required) as an Array
    (SPEC NPP-11)."""
    return creation.asarray(np.fromstring(string=string, dtype=dtype, count=count, sep=sep))


def _impure(name, what):
    return NotImplementedError(
        f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe "
        "for use with JIT and other JAX transformations. Consider using "
        f"jnp.asarray(np.{name}(...)) instead, although care should be taken if "
        f"np.{name} is used within a jax transformations because of its potential "
        f"side-effect of consuming the {what} object; for more information see "
        "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions")


def fromfile(*args, **kwargs):
    """Always NotImplementedError, as in JAX: reading a file is impure
    (SPEC NPP-11)."""
    raise _impure("fromfile", "file")


def fromiter(*args, **kwargs):
    """Always NotImplementedError, as in JAX: consuming an iterator is
    impure (SPEC NPP-11)."""
    raise _impure("fromiter", "iterable")


def load(file, *args, **kwargs):
    """``np.load``, with bfloat16 data (which NumPy saves as ``V2``)
    recovered, and an array of a JAX dtype wrapped as an Array; anything
    else (``npz`` archives, strings, pickles) is NumPy's result (SPEC NPP-11)."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == "V2":
            out = out.view(dtypes.bfloat16)
        try:
            out = creation.asarray(out)
        except TypeError:       # not a JAX dtype (strings, objects)
            pass
    return out


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """``function`` applied to index grids of ``shape`` (``arange`` of
    ``dtype`` along each axis), by nesting ``vmap`` once per axis, so
    ``function`` sees scalars (SPEC NPP-11)."""
    shape = core.canonicalize_shape(shape, context="shape argument of jnp.fromfunction()",
                                    allow_0d_array=False)
    for i in range(len(shape)):
        in_axes = [0 if i == j else None for j in range(len(shape))]
        function = vmap(function, in_axes=tuple(in_axes[::-1]))
    return function(*(creation.arange(s, dtype=dtype) for s in shape), **kwargs)


# ---------------------------------------------------------------------------
# DLPack (SPEC NPP-12)
# ---------------------------------------------------------------------------

_DLPACK_CPU = 1


def _single_device(device):
    if isinstance(device, Sharding):
        device_set = device.device_set
        if len(device_set) > 1:
            raise ValueError(
                "from_dlpack can only unpack a dlpack tensor onto a singular device, "
                f"but a Sharding with {len(device_set)} devices was provided.")
        device, = device_set
    return device


def from_dlpack(x, /, *, device=None, copy=None):
    """An Array of a DLPack-exporting host array (one with ``__dlpack__``
    and ``__dlpack_device__``), dtype canonicalized, placed on ``device``
    when given (SPEC NPP-12)."""
    device = _single_device(device)
    if not hasattr(x, "__dlpack__") or not hasattr(x, "__dlpack_device__"):
        raise TypeError("The array passed to from_dlpack must have __dlpack__ and "
                        "__dlpack_device__ methods.")
    dl_device_type, _ = x.__dlpack_device__()
    if dl_device_type != _DLPACK_CPU:
        raise TypeError("Array passed to from_dlpack is on unsupported device type "
                        f"(DLDeviceType: {dl_device_type}, array: {x}")
    out = creation.asarray(np.from_dlpack(x, copy=copy))
    return out if device is None else device_put(out, device)


# ---------------------------------------------------------------------------
# Packed bits (SPEC NPP-13)
# ---------------------------------------------------------------------------

def _check_bitorder(bitorder):
    if bitorder not in ["little", "big"]:
        raise ValueError("'order' must be either 'little' or 'big'")


def _bit_weights(bitorder):
    """The uint8 exponents 0..7 of each bit in a byte, in ``bitorder``."""
    bits = creation.arange(8, dtype="uint8")
    return bits[::-1] if bitorder == "big" else bits


@jit(static_argnames=("axis", "bitorder"))
def packbits(a, axis=None, bitorder="big"):
    """Nonzero elements of ``a`` as bits packed 8 to a uint8 along ``axis``
    (the flattened array when None), the last byte zero-padded
    (SPEC NPP-13)."""
    arr = util.ensure_arraylike("packbits", a)
    if not (dtypes.issubdtype(arr.dtype, np.integer)
            or dtypes.issubdtype(arr.dtype, np.bool_)):
        raise TypeError("Expected an input array of integer or boolean data type")
    _check_bitorder(bitorder)
    arr = lax.ne(arr, lax._const(arr, 0)).astype("uint8")
    bits = _bit_weights(bitorder)
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    remainder = arr.shape[-1] % 8
    if remainder:
        arr = lax_shapes.pad(arr, np.uint8(0),
                             (arr.ndim - 1) * [(0, 0, 0)] + [(0, 8 - remainder, 0)])
    arr = arr.reshape(arr.shape[:-1] + (arr.shape[-1] // 8, 8))
    bits = expand_dims(bits, tuple(range(arr.ndim - 1)))
    packed = (arr << bits).sum(-1).astype("uint8")
    return swapaxes(packed, axis, -1)


@jit(static_argnames=("axis", "count", "bitorder"))
def unpackbits(a, axis=None, count=None, bitorder="big"):
    """The bits of a uint8 array as 0/1 uint8 elements along ``axis``,
    8 per byte, cut or zero-padded to ``count`` when given (SPEC NPP-13)."""
    arr = util.ensure_arraylike("unpackbits", a)
    if arr.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    _check_bitorder(bitorder)
    bits = creation.asarray(1) << creation.arange(8, dtype="uint8")
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    unpacked = ((arr[..., None] & expand_dims(bits, tuple(range(arr.ndim)))) > 0).astype("uint8")
    unpacked = unpacked.reshape(unpacked.shape[:-2] + (-1,))
    if count is not None:
        if count > unpacked.shape[-1]:
            unpacked = pad(unpacked, [(0, 0)] * (unpacked.ndim - 1)
                           + [(0, count - unpacked.shape[-1])])
        else:
            unpacked = unpacked[..., :count]
    return swapaxes(unpacked, axis, -1)
