"""``jax.extend.backend``: the runtime backends (SPEC EXT-6).

refjax has one process and one kind of backend, its array library (NumPy,
or CuPy with ``refjax_backend``), presented as platform ``"cpu"``.  It has
no XLA client: ``backend_xla_version`` is None, and compile options and
backend factories, which configure XLA, raise ``NotImplementedError``.
"""
import types as _types

from refjax._src import devices as _devices
from refjax._src.extension import mlir_unavailable as _unavailable

__all__ = [
    "backend_xla_version", "backends", "clear_backends",
    "clear_in_memory_compilation_cache", "get_backend", "get_compile_options",
    "get_default_device", "ifrt_proxy", "register_backend_cache",
    "register_backend_factory",
]


class _Backend:
    """The one backend: its platform, version and devices."""

    platform = "cpu"
    platform_version = "refjax (no XLA)"

    def devices(self):
        return _devices.devices()

    def local_devices(self):
        return _devices.local_devices()

    def device_count(self):
        return _devices.device_count()

    def local_device_count(self):
        return _devices.local_device_count()

    def process_index(self):
        return _devices.process_index()

    def __repr__(self):
        return "<refjax cpu backend>"


_BACKEND = _Backend()
_caches = []


def backends():
    """``{platform: backend}``: only ``"cpu"``."""
    return {"cpu": _BACKEND}


def get_backend(platform=None):
    """The backend for ``platform`` (None or ``"cpu"``); ``RuntimeError``
    naming the platform otherwise, as JAX raises for one it lacks."""
    if platform not in (None, "cpu"):
        raise RuntimeError(f"Unknown backend {platform}")
    return _BACKEND


def get_default_device():
    """The default device (``jax.devices()[0]``)."""
    return _devices.default_device()


def backend_xla_version(platform=None):
    """The XLA version of the backend: None, refjax has no XLA."""
    get_backend(platform)
    return None


def register_backend_cache(cache, name, util=None):
    """Remember a cache (with ``cache_clear``) to empty in ``clear_backends``."""
    _caches.append(cache)


def clear_backends():
    """Empty refjax's trace and compile caches and the registered caches."""
    from refjax._src.api import clear_caches
    clear_caches()
    for cache in _caches:
        cache.cache_clear()


def clear_in_memory_compilation_cache():
    """Empty refjax's trace and compile caches."""
    from refjax._src.api import clear_caches
    clear_caches()


get_compile_options = _unavailable("get_compile_options")
register_backend_factory = _unavailable("register_backend_factory")
ifrt_proxy = _types.SimpleNamespace(
    get_client=_unavailable("ifrt_proxy.get_client"))
