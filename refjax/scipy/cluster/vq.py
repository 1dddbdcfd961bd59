"""``refjax.scipy.cluster.vq``: vector quantisation, as ``jax.scipy.cluster.vq``.

This module holds the names; their rules live in ``refjax._src.scipy.cluster``.
"""
from refjax._src.scipy.cluster import vq  # noqa: F401
