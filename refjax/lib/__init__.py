"""``jax.lib``: in JAX, the bridge to the compiled ``jaxlib`` runtime.

JAX 0.10.2's module exports no public names, only ``__version__`` (the
version of the runtime it loaded).  refjax has no compiled runtime: its
``__version__`` is refjax's own (SPEC API-35).  JAX's removed
submodules (``xla_bridge``, ``xla_client``, ``xla_extension``) do not
exist here either, so importing them fails as it does in JAX.
"""
from refjax._src.version import __version__ as _version

__version__ = _version
