"""``jax.ShapeDtypeStruct``: a shape, dtype, weak type and sharding standing
in for an array (SPEC JIT-8, API-15, API-38)."""
import warnings

import numpy as np

from refjax._src import core, dtypes, mesh
from refjax._src.array import ArrayImpl


class ShapeDtypeStruct:
    """A shape, dtype and weak type standing in for an array (SPEC JIT-8).

    The dtype is kept as given (``float64`` stays ``float64`` in the repr
    even with x64 off); it is canonicalized where the struct is used as an
    argument, as JAX does.
    """

    __slots__ = ("shape", "dtype", "weak_type", "sharding", "manual_axis_type",
                 "is_ref", "_layout")

    def __init__(self, shape, dtype, *, weak_type=False, sharding=None,
                 manual_axis_type=None, is_ref=False):
        # JAX's order: the shape, then the dtype, then the sharding (FUZZ-3).
        shape = tuple(shape)
        if dtype is None:
            raise ValueError("ShapeDtypeStruct: dtype must be specified, "
                             "e.g. jnp.float32.")
        if isinstance(dtype, ArrayImpl) and not dtypes.is_extended(dtype.dtype):
            # JAX's np.dtype(x) reads a jax.Array's dtype, with a warning.
            warnings.warn("Implicit conversion of an array to a dtype is "
                          "deprecated; rather than dtype=arr use dtype=arr.dtype.",
                          DeprecationWarning, stacklevel=2)
            dtype = dtype.dtype
        dtype = dtype if dtypes.is_extended(dtype) else dtypes.to_dtype(dtype)
        layout = None
        if isinstance(sharding, mesh.Format):
            # A Format gives the layout and the sharding (SPEC API-38).
            if isinstance(sharding.layout, mesh._AutoLayout):
                raise TypeError("`Layout.AUTO` cannot be used in place of a device-local "
                                f"layout in a `ShapeDtypeStruct`. Got {sharding}")
            layout, sharding = sharding.layout, sharding.sharding
        if sharding is not None and not isinstance(
                sharding, (mesh.Sharding, mesh.PartitionSpec)):
            raise ValueError(
                "sharding should be an instance of `jax.sharding.Sharding` or "
                f"`jax.sharding.PartitionSpec`. Got {sharding} of type "
                f"{type(sharding)}.")
        self.shape = shape
        self.dtype = dtype
        self.weak_type = bool(weak_type)
        self.sharding = sharding
        self.manual_axis_type = manual_axis_type
        self.is_ref = bool(is_ref)
        self._layout = layout

    @property
    def format(self):
        """The layout (None unless given through a ``Format``) and the
        sharding, as a ``Format`` (SPEC API-38)."""
        sharding = self.sharding if isinstance(self.sharding, mesh.Sharding) else None
        return mesh.Format(self._layout, sharding)

    def update(self, **changes):
        """A copy with the given fields (shape, dtype, weak_type, sharding,
        manual_axis_type, is_ref) replaced (SPEC API-15)."""
        fields = {"shape": self.shape, "dtype": self.dtype,
                  "weak_type": self.weak_type, "sharding": self.sharding,
                  "manual_axis_type": self.manual_axis_type, "is_ref": self.is_ref}
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"ShapeDtypeStruct.update got unexpected fields "
                            f"{sorted(unknown)}")
        fields.update(changes)
        shape, dtype = fields.pop("shape"), fields.pop("dtype")
        return ShapeDtypeStruct(shape, dtype, **fields)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    @classmethod
    def like(cls, x):
        """The struct of a value's type, keeping a committed sharding (RNG-108)."""
        aval = x if isinstance(x, cls) else core.get_aval(x)
        keep = getattr(x, "committed", isinstance(x, cls))
        return cls(aval.shape, aval.dtype, weak_type=aval.weak_type,
                   sharding=x.sharding if keep else None)

    def __len__(self):
        """The leading dimension, as for an array; a 0-d has none (JIT-8)."""
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        ref = ", is_ref=True" if self.is_ref else ""
        return (f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}"
                f"{weak}{ref})")

    def __eq__(self, other):
        return (isinstance(other, ShapeDtypeStruct) and
                (self.shape, self.dtype, self.weak_type) ==
                (other.shape, other.dtype, other.weak_type))

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))


def _shape_dtype_struct(aval):
    return ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=aval.weak_type)
