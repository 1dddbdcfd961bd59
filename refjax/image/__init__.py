"""``refjax.image``: image resampling, as ``jax.image`` (SPEC IMG-1 .. IMG-13)."""
from refjax._src.image.resize import (  # noqa: F401
    ResizeMethod, resize, scale_and_translate,
)

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]
