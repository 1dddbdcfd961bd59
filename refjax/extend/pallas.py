"""``jax.extend.pallas``: hooks of the Pallas kernel language (SPEC EXT-6).

Pallas compiles kernels through Triton or Mosaic; refjax has neither, so
these raise ``NotImplementedError`` naming that reason."""
__all__ = ["GridMapping", "register_lowering_rule"]


def _refuse(what):
    raise NotImplementedError(
        f"{what}: Pallas kernels compile through Triton/Mosaic, which refjax "
        "(a NumPy interpreter without XLA) does not have.")


class GridMapping:
    """A Pallas kernel grid; cannot be built in refjax."""

    def __init__(self, *args, **kwargs):
        _refuse("pallas.GridMapping")


def register_lowering_rule(*args, **kwargs):
    """Register a Pallas lowering rule: not possible in refjax."""
    _refuse("pallas.register_lowering_rule")
