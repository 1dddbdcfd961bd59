"""``refjax.experimental``: the parts of ``jax.experimental`` refjax provides."""
from refjax._src.debugging import io_callback  # noqa: F401
