"""``refjax.experimental``: the parts of ``jax.experimental`` refjax provides."""
from refjax._src.debugging import io_callback  # noqa: F401
from refjax.experimental import mesh_utils, shard_map  # noqa: F401
