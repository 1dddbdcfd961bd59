"""``jax._src.xla_bridge``: which backends have started (SPEC SHD-105,
SHD-106).

JAX starts a backend (an XLA client) the first time anything needs a
device, and fixes its devices then: the CPU device count is
``jax_num_cpu_devices`` when set, else what ``XLA_FLAGS``'
``--xla_force_host_platform_device_count`` asks for, else one.  Libraries
look at the record: chex refuses to change the simulated CPU device count
once ``_backends`` holds ``"cpu"``.  The device layer (``devices.py``)
starts backends and files them here.
"""
import os
import re

from refjax._src import backend as _backend
from refjax._src import config as _config

# Each started backend's client, by JAX's platform name ("cpu", "cuda").
_backends = {}

num_cpu_devices = _config.num_cpu_devices


class Client:
    """A started backend: its platform and its devices, fixed when it
    started (SPEC SHD-105)."""

    def __init__(self, backend, devices):
        self.backend = backend
        self.platform = backend.platform
        self.platform_version = backend.platform     # JAX's CPU client: "cpu"
        self._devices = tuple(devices)

    def devices(self):
        return list(self._devices)

    local_devices = devices

    def device_count(self):
        return len(self._devices)

    local_device_count = device_count

    def process_index(self):
        return 0

    def __repr__(self):
        return f"<refjax {self.backend.name} client: {len(self._devices)} devices>"


def backends_are_initialized():
    """Whether any backend has started (SPEC SHD-105)."""
    return len(_backends) != 0


def default_backend():
    """The platform of the active backend (``"cpu"`` on NumPy)."""
    return _backend.get().platform


_FORCE_COUNT = re.compile(r"^--xla_force_host_platform_device_count=(.*)$")


def xla_flags_cpu_device_count():
    """The CPU device count ``XLA_FLAGS`` asks for with
    ``--xla_force_host_platform_device_count=N`` (the last such flag), or
    None.  XLA reads only the two-dash spelling (SPEC SHD-106)."""
    found = None
    for flag in os.environ.get("XLA_FLAGS", "").split():
        match = _FORCE_COUNT.match(flag)
        if match:
            found = match.group(1)
    if found is None:
        return None
    if not found.isdigit():
        raise RuntimeError(
            "Unable to initialize backend 'cpu': XLA_FLAGS has "
            f"--xla_force_host_platform_device_count={found}, which is not a "
            "number of devices; give a positive integer")
    return int(found)


def cpu_device_count():
    """How many CPU devices a CPU backend starting now gets:
    ``jax_num_cpu_devices`` when set (>= 0), else ``XLA_FLAGS``' forced
    host device count, else one (SPEC SHD-106)."""
    n = num_cpu_devices.value
    if n is None or n < 0:
        n = xla_flags_cpu_device_count()
    return 1 if n is None or n < 1 else n
