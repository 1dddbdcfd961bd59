"""``jax.sharding``: meshes, partition specs and shardings (SPEC SHD-6 .. SHD-12)."""
from refjax._src.mesh import (  # noqa: F401
    AxisType, Mesh, NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding,
    set_mesh,
)
from refjax._src.placement import reshard  # noqa: F401
from refjax._src.mesh import (  # noqa: F401
    AbstractDevice, AbstractMesh, get_abstract_mesh, get_mesh,
    make_single_device_sharding, use_abstract_mesh,
)
from refjax._src.mesh import ManualAxisType  # noqa: F401
from refjax._src.placement import auto_axes, explicit_axes  # noqa: F401
