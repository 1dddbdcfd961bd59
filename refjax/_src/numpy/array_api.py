"""The Python array API metadata of ``jax.numpy`` (SPEC NPP-14).

``jnp.__array_api_version__`` names the standard's revision JAX follows;
``jnp.__array_namespace_info__()`` describes capabilities, devices and
dtypes as JAX does; ``x.__array_namespace__()`` returns the ``jax.numpy``
namespace (bound when ``array_methods.install`` runs).
"""
from refjax._src import devices as _devices
from refjax._src import dtypes

__all__ = ["ArrayNamespaceInfo", "__array_api_version__", "__array_namespace_info__"]

__array_api_version__ = "2024.12"

# The dtypes of the standard that JAX offers; the 64-bit ones only under x64.
_API_DTYPE_NAMES = ("bool", "int8", "int16", "int32", "uint8", "uint16", "uint32",
                    "float32", "complex64")
_API_X64_DTYPE_NAMES = ("int64", "uint64", "float64", "complex128")

# The kinds as ``jnp.isdtype`` names them, each with its array-API dtypes.
_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "integral": ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
    "numeric": ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float32", "float64", "complex64", "complex128"),
}


def namespace_method(jnp):
    """The ``Array.__array_namespace__`` method returning ``jnp``."""
    def __array_namespace__(self, *, api_version=None):
        """The ``jax.numpy`` namespace; ``api_version`` must be None or
        ``'2024.12'`` (else ValueError) (SPEC NPP-14)."""
        if api_version is not None and api_version != __array_api_version__:
            raise ValueError(f"{api_version=!r} is not available; "
                             f"available versions are: {[__array_api_version__]}")
        return jnp
    return __array_namespace__


def __array_namespace_info__():
    """An :class:`ArrayNamespaceInfo` (SPEC NPP-14)."""
    return ArrayNamespaceInfo()


class ArrayNamespaceInfo:
    """The array API's inspection object for ``jax.numpy`` (SPEC NPP-14)."""

    _capabilities = {
        # Neither works inside transformations, where shapes must be static.
        "boolean indexing": False,
        "data-dependent shapes": False,
        "max dimensions": 64,
    }

    def capabilities(self):
        return self._capabilities

    def default_device(self):
        """None: arrays are uncommitted unless placed explicitly."""
        return None

    def devices(self):
        """None (uncommitted) followed by every device."""
        return [None, *_devices.devices()]

    def default_dtypes(self, *, device=None):
        del device  # the same dtypes on every device
        return {
            "real floating": dtypes.default_float_dtype(),
            "complex floating": dtypes.default_complex_dtype(),
            "integral": dtypes.default_int_dtype(),
            "indexing": dtypes.default_int_dtype(),
        }

    def dtypes(self, *, device=None, kind=None):
        """Name -> dtype of the array-API dtypes of ``kind`` (a kind name
        or a tuple of them; None: numeric and bool).  An unknown kind is
        the KeyError JAX raises."""
        del device
        if kind is None:
            return self._of_kind("numeric") | self._of_kind("bool")
        if isinstance(kind, tuple):
            out = {}
            for k in kind:
                out |= self._of_kind(k)
            return out
        return self._of_kind(kind)

    @staticmethod
    def _of_kind(kind):
        if kind not in _KINDS:
            raise KeyError(kind)
        allowed = _API_DTYPE_NAMES + (_API_X64_DTYPE_NAMES if dtypes.x64_enabled() else ())
        return {name: dtypes.to_dtype(name) for name in _KINDS[kind] if name in allowed}
