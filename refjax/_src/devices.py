"""Devices as JAX shows them (SPEC ARR-9).

A device is a place an array lives: one per physical device of the active
backend, or ``jax_num_cpu_devices`` simulated CPU devices on NumPy.  The
sharding layer (Mesh, NamedSharding, pmap) builds on this list.
"""

from refjax._src import backend as _backend
from refjax._src import config as _config

_cache = {}


class Device:
    """One device; compares by (platform, id) and prints as JAX does."""

    __slots__ = ("id", "platform", "device_kind", "process_index", "_repr_name",
                 "_str_name")

    def __init__(self, id, platform, device_kind, repr_name, str_name=None):
        self.id = id
        self.platform = platform
        self.device_kind = device_kind
        self.process_index = 0
        self._repr_name = repr_name
        # JAX prints a GPU as CudaDevice(id=0) and cuda:0, its platform "gpu".
        self._str_name = str_name or platform

    @property
    def client(self):
        return None

    def __repr__(self):
        return f"{self._repr_name}(id={self.id})"

    def __str__(self):
        return f"{self._str_name}:{self.id}"

    def __eq__(self, other):
        return (isinstance(other, Device) and other.platform == self.platform
                and other.id == self.id)

    def __hash__(self):
        return hash((self.platform, self.id))


def _device_count(be):
    if be.platform == "cpu":
        n = _config.num_cpu_devices.value
        return 1 if n is None or n < 1 else n
    return be.device_count()


def _platform_names(platform):
    """The names ``jax.devices(backend)`` accepts for ``platform``."""
    return {"cpu", "gpu", "cuda"} if platform == "gpu" else {platform}


def _check_backend(backend, be):
    """``backend`` must name the active platform (or be None); otherwise
    JAX's ``RuntimeError`` listing what is available (SHD-95)."""
    if backend is None:
        return
    if not isinstance(backend, str):
        raise TypeError("backend must be a platform name such as 'cpu' or None; "
                        f"got {backend!r} of type {type(backend).__name__}")
    if backend == "":
        return
    if backend in _platform_names(be.platform):
        return
    if backend == "gpu":
        raise RuntimeError(
            "Unknown backend: 'gpu' requested, but no platforms that are instances "
            f"of gpu are present. Platforms present are: {be.platform}")
    raise RuntimeError(f"Unknown backend {backend}. Available backends are "
                       f"{[be.platform]}")


def devices(backend=None):
    """All devices of the active backend, in id order."""
    be = _backend.get()
    _check_backend(backend, be)
    key = (be.name, _device_count(be))
    found = _cache.get(key)
    if found is None:
        names = ("CpuDevice", "cpu") if be.platform == "cpu" else ("CudaDevice", "cuda")
        found = [Device(i, be.platform, be.device_kind(), *names)
                 for i in range(key[1])]
        _cache[key] = found
    _config.mark_devices_in_use()
    return list(found)


def default_device():
    return devices()[0]


def local_devices(process_index=None, backend=None):
    """This process's devices: all of them, refjax being process 0 of one.

    ``process_index`` is compared as JAX compares it (SHD-103): an
    unhashable one (a list, an array) or one that is not a number raises
    ``TypeError``, a number outside ``[0, 1)`` ``ValueError``, and a
    fraction inside it (0.5) names no process, so no devices."""
    try:
        hash(process_index)
        in_range = process_index is None or 0 <= process_index < 1
    except TypeError:
        raise TypeError("local_devices: process_index must be an int (or None); "
                        f"got {process_index!r} of type "
                        f"{type(process_index).__name__}") from None
    if not in_range:
        raise ValueError(f"Unknown process_index {process_index}")
    found = devices(backend)
    if process_index is None:
        return found
    return [d for d in found if d.process_index == process_index]


def device_count(backend=None):
    return len(devices(backend))


def local_device_count(backend=None):
    return device_count(backend)


def process_index(backend=None):
    _check_backend(backend, _backend.get())
    return 0


def process_count(backend=None):
    _check_backend(backend, _backend.get())
    return 1


def default_backend():
    return _backend.get().platform
