"""``jax.experimental.compilation_cache`` (SPEC EXT-8)."""
from refjax.experimental.compilation_cache import compilation_cache  # noqa: F401

__all__ = ["compilation_cache"]
