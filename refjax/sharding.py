"""``jax.sharding``: meshes, partition specs and shardings (SPEC SHD-6 .. SHD-12)."""
from refjax._src.mesh import (  # noqa: F401
    AxisType, Mesh, NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding,
    set_mesh,
)
from refjax._src.placement import reshard  # noqa: F401
