"""``jax.extend.mlir``: StableHLO serialization and passes (SPEC EXT-6).
refjax has no MLIR: each raises ``NotImplementedError`` naming why."""
from refjax._src.extension import mlir_unavailable as _fn

__all__ = [
    "deserialize_portable_artifact", "hlo_to_stablehlo",
    "lower_with_sharding_in_types", "refine_polymorphic_shapes",
    "serialize_portable_artifact",
]

deserialize_portable_artifact = _fn("deserialize_portable_artifact")
hlo_to_stablehlo = _fn("hlo_to_stablehlo")
lower_with_sharding_in_types = _fn("lower_with_sharding_in_types")
refine_polymorphic_shapes = _fn("refine_polymorphic_shapes")
serialize_portable_artifact = _fn("serialize_portable_artifact")
