"""``refjax.extend``: ``jax.extend``, the interfaces for libraries that
build on JAX's internals (SPEC EXT-4, EXT-6)."""
from refjax.extend import (  # noqa: F401
    backend, core, linear_util, lowering, mlir, pallas, random, sharding,
    source_info_util, xla,
)

__all__ = [
    "backend", "core", "linear_util", "lowering", "mlir", "pallas", "random",
    "sharding", "source_info_util", "xla",
]
