"""``jax.extend.sharding``: XLA (GSPMD) sharding protos (SPEC EXT-6).
refjax has no XLA client: each raises ``NotImplementedError``."""
from refjax._src.extension import mlir_unavailable as _fn
from refjax._src.extension import mlir_unavailable_class as _cls

__all__ = [
    "GSPMDSharding", "get_hlo_sharding_from_serialized_proto",
    "get_op_sharding_from_serialized_proto",
    "get_serialized_proto_from_hlo_sharding", "xla_client",
]

GSPMDSharding = _cls("GSPMDSharding")
get_hlo_sharding_from_serialized_proto = _fn("get_hlo_sharding_from_serialized_proto")
get_op_sharding_from_serialized_proto = _fn("get_op_sharding_from_serialized_proto")
get_serialized_proto_from_hlo_sharding = _fn("get_serialized_proto_from_hlo_sharding")
xla_client = None      # jaxlib's XLA client module: absent in refjax
