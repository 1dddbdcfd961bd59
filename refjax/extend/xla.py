"""``jax.extend.xla``: hooks that rewrite XLA HLO modules (SPEC EXT-6).
refjax compiles nothing to HLO: registering raises ``NotImplementedError``,
clearing does nothing."""
import enum as _enum

from refjax._src.extension import mlir_unavailable as _fn

__all__ = ["PipelineStage", "clear_hlo_module_transformation",
           "register_hlo_module_transformation"]


class PipelineStage(_enum.Enum):
    """Where in XLA's pipeline a transformation would run."""
    PRE_SCHEDULER = 0
    POST_SCHEDULER = 1


register_hlo_module_transformation = _fn("register_hlo_module_transformation")


def clear_hlo_module_transformation(name, stage=PipelineStage.PRE_SCHEDULER,
                                    platforms=None):
    """Whether a transformation named ``name`` was removed: never, none can
    be registered in refjax."""
    return False
