"""``refjax.flatten_util``, as ``jax.flatten_util`` (SPEC OPS-3, OPS-4)."""
from refjax._src.flatten_util import ravel_pytree  # noqa: F401
