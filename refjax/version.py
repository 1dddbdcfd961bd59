"""``jax.version``: the version of refjax (SPEC API-13)."""
from refjax._src.version import __version__ as _version

__version__ = _version
__version_info__ = tuple(int(p) for p in _version.split("."))
