"""``jax.dlpack``: exchanging arrays through DLPack (SPEC API-13)."""
import numpy as np

from refjax._src import dtypes
from refjax._src.numpy.host_io import from_dlpack  # noqa: F401

__all__ = ["from_dlpack", "is_supported_dtype"]

# The dtypes JAX can exchange through DLPack (not the 4- and 8-bit floats).
_SUPPORTED = frozenset(np.dtype(t) for t in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float16", "float32", "float64", "complex64", "complex128",
)) | {np.dtype(dtypes.bfloat16)}


def is_supported_dtype(dtype):
    """Whether arrays of ``dtype`` can go through DLPack."""
    return dtypes.to_dtype(dtype) in _SUPPORTED
