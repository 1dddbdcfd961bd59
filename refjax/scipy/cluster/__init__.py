"""``refjax.scipy.cluster``: clustering, as ``jax.scipy.cluster``.

As in JAX, the package exposes its one submodule, ``vq``.
"""
from refjax.scipy.cluster import vq  # noqa: F401
