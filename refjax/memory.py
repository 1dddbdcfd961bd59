"""``jax.memory``: the memory spaces an array can live in (SPEC API-13)."""
import enum

__all__ = ["Space"]


class MemorySpace(enum.Enum):
    """Device memory, host memory, or either (refjax holds all on the host)."""
    Device = enum.auto()
    Host = enum.auto()
    Any = enum.auto()

    def __repr__(self):
        return f"MemorySpace.{self.name}"

    __str__ = __repr__


Space = MemorySpace
