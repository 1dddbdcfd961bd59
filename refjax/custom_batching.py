"""``refjax.custom_batching``, as ``jax.custom_batching``."""
from refjax._src.custom_batching import custom_vmap, sequential_vmap  # noqa: F401
