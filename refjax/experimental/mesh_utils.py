"""``jax.experimental.mesh_utils``: device arrays for meshes (SPEC SHD-6)."""
from refjax._src.mesh import create_device_mesh  # noqa: F401
