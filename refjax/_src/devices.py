"""Devices as JAX shows them (SPEC ARR-9).

A device is a place an array lives: one per physical device of the active
backend, or simulated CPU devices on NumPy, as many as the CPU backend
was given when it started (``jax_num_cpu_devices``, else ``XLA_FLAGS``;
``xla_bridge`` keeps that record, SPEC SHD-105).  The sharding layer
(Mesh, NamedSharding, pmap) builds on this list.
"""

import contextlib
import logging
import threading

from refjax._src import backend as _backend
from refjax._src import config as _config
from refjax._src import xla_bridge
from refjax._src.errors import JaxRuntimeError


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
        """The started backend this device belongs to (SPEC SHD-105)."""
        return xla_bridge._backends.get("cpu" if self.platform == "cpu" else "cuda")

    def __repr__(self):
        return f"{self._repr_name}(id={self.id})"

    def __str__(self):
        return f"{self._str_name}:{self.id}"

    def __eq__(self, other):
        return (isinstance(other, Device) and other.platform == self.platform
                and other.id == self.id)

    def __hash__(self):
        return hash((self.platform, self.id))


def _platform_key(be):
    return "cpu" if be.platform == "cpu" else "cuda"


def _start(be):
    """Start ``be``: fix its device count and make its devices."""
    if be.platform == "cpu":
        count, names = xla_bridge.cpu_device_count(), ("CpuDevice", "cpu")
    else:
        count, names = be.device_count(), ("CudaDevice", "cuda")
    made = tuple(Device(i, be.platform, be.device_kind(), *names)
                 for i in range(count))
    return xla_bridge.Client(be, made)


def client(be=None):
    """The started client of backend ``be`` (the active one by default),
    starting it on first use as JAX starts a backend."""
    be = be or _backend.get()
    found = xla_bridge._backends.get(_platform_key(be))
    if found is None or found.backend is not be:
        found = _start(be)
        xla_bridge._backends[_platform_key(be)] = found
        _config.mark_devices_in_use()
    return found


_backend._on_start.append(client)


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
    return list(client(be)._devices)


def first_device():
    """Device 0 of the active backend: where an array made without any
    ``jax_default_device`` setting lives."""
    return devices()[0]


_default_option = _config.states["jax_default_device"]


def default_device():
    """Where new uncommitted arrays go: ``jax_default_device`` (a Device,
    or a platform name standing for that platform's first device), else
    the first device (SPEC CFG-22)."""
    return creation_device() or first_device()


def creation_device():
    """The device ``jax_default_device`` names, or None when it names
    none (or the first device): the common case stays a single lookup."""
    value = _default_option.value
    if value is None:
        return None
    found = devices(value)[0] if isinstance(value, str) else value
    if found.id == 0:
        return None
    if found.platform != "cpu":
        # Only the simulated CPU devices share one memory: on a GPU backend
        # an array would have to be moved there, which refjax does not do.
        raise NotImplementedError(
            f"jax_default_device={value!r}: refjax creates arrays on the first "
            f"{found.platform} device only; place them with "
            "jax.device_put(x, device) instead")
    return found


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


# -- transfer guards (SPEC CFG-27) ---------------------------------------------

_logger = logging.getLogger("refjax.transfer_guard")
_GUARDS = {kind: _config.states[f"jax_transfer_guard_{kind.replace('-', '_')}"]
           for kind in ("host-to-device", "device-to-device", "device-to-host")}
_ALL_GUARD = _config.states["jax_transfer_guard"]


def guard_transfer(kind, explicit, describe):
    """Apply the transfer guard of ``kind`` ("host-to-device",
    "device-to-device") to one transfer.  'log' logs implicit transfers,
    'disallow' refuses them with JAX's ``JaxRuntimeError``; the
    ``_explicit`` variants do so for explicit ones (``device_put``) too.
    ``describe()`` gives the "aval=..., dst_sharding=..." text."""
    mode = _GUARDS[kind].value or _ALL_GUARD.value
    if mode is None or mode == "allow":
        return
    if explicit and not mode.endswith("_explicit"):
        return
    if mode.startswith("log"):
        _logger.warning("%s transfer: %s", kind, describe())
        return
    raise JaxRuntimeError(
        f"INVALID_ARGUMENT: Disallowed {kind} transfer: {describe()}")


class _Explicit(threading.local):
    active = False


_explicit = _Explicit()


@contextlib.contextmanager
def explicit_transfer():
    """Inside ``device_put``, which guards its transfers as explicit ones:
    the conversions it makes on the way are not implicit transfers."""
    old, _explicit.active = _explicit.active, True
    try:
        yield
    finally:
        _explicit.active = old


def guard_host_to_device(aval, explicit=False):
    """The host-to-device guard for one NumPy array or Python scalar becoming
    an Array on the default device; ``aval`` is its ShapedArray, or a
    function giving it (called only when a guard is set)."""
    if _GUARDS["host-to-device"].value is None and _ALL_GUARD.value is None:
        return
    if _explicit.active and not explicit:
        return

    def describe():
        shown = aval() if callable(aval) else aval
        return (f"aval={shown!r}, dst_sharding=SingleDeviceSharding("
                f"device={default_device()!r}, memory_kind=device)")
    guard_transfer("host-to-device", explicit, describe)


def register_transfer_guard_site(name):
    """Record that the host-to-device conversion ``name`` (one of
    ``config.TRANSFER_GUARD_SITES``) calls the guard."""
    _config.transfer_guard_sites.add(name)
