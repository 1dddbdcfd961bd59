"""``refjax.interpreters``: ``jax.interpreters``, the rule tables and helpers
that libraries use to teach transformations about their own primitives
(SPEC EXT-1 .. EXT-5)."""
import os  # noqa: F401  (``jax.interpreters`` exposes ``os`` too)

from refjax.interpreters import (  # noqa: F401
    ad, batching, mlir, partial_eval, pxla, traceback_util, xla,
)

__all__ = [
    "ad", "batching", "mlir", "os", "partial_eval", "pxla", "traceback_util",
    "xla",
]
