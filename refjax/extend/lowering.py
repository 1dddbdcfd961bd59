"""``jax.extend.lowering``: MLIR lowering contexts (SPEC EXT-6).  refjax has
no MLIR: constructing these raises ``NotImplementedError``."""
from refjax._src.extension import mlir_unavailable as _fn
from refjax._src.extension import mlir_unavailable_class as _cls

__all__ = ["JaxIrContext", "LoweringRuleContext", "upstream_dialects"]

JaxIrContext = _cls("JaxIrContext")
LoweringRuleContext = _cls("LoweringRuleContext")
upstream_dialects = _fn("upstream_dialects")
