"""``jnp.float32`` and friends: dtype-carrying scalar types (SPEC DT-14).

Calling one makes a 0-d (or n-d) refjax Array of that dtype, never a NumPy
scalar; ``np.dtype(jnp.float32)`` and ``jnp.float32.dtype`` give the dtype;
``isinstance(v, jnp.float32)`` asks whether ``v`` is a NumPy scalar of it.
"""
import numpy as np

from refjax._src import dtypes


class _ScalarMeta(type):
    def __call__(cls, x):
        from refjax._src.numpy.creation import asarray
        return asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls.dtype.type)

    def __eq__(cls, other):
        # NumPy's rule for its scalar types: equal to the type and to its
        # dtype (``jnp.float32 == np.dtype('float32')``), SPEC DT-14.
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other):
        return not cls == other

    def __hash__(cls):
        return hash(cls.dtype.type)

    def __repr__(cls):
        return f"<class 'refjax.numpy.{cls.__name__}'>"


def _make_scalar_type(name, dtype):
    return _ScalarMeta(name, (object,), {"dtype": np.dtype(dtype),
                                         "__module__": "refjax.numpy"})


_NAMES = {
    "bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32,
    "int64": np.int64, "uint8": np.uint8, "uint16": np.uint16,
    "uint32": np.uint32, "uint64": np.uint64, "float16": np.float16,
    "float32": np.float32, "float64": np.float64, "complex64": np.complex64,
    "complex128": np.complex128, "bfloat16": dtypes.bfloat16,
}
for _dt in dtypes.small_float_dtypes + dtypes.narrow_int_dtypes:
    _NAMES[_dt.name] = _dt

scalar_types = {name: _make_scalar_type(name, dt) for name, dt in _NAMES.items()}

# Aliases JAX keeps (int_ etc. name the 64-bit types, canonicalized on use).
aliases = {
    "bool_": "bool", "int_": "int64", "uint": "uint64", "float_": "float64",
    "complex_": "complex128", "single": "float32", "double": "float64",
    "csingle": "complex64", "cdouble": "complex128",
}
for _alias, _target in aliases.items():
    scalar_types[_alias] = scalar_types[_target]
