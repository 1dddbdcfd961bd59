"""``refjax.scipy.stats.nbinom``, as ``jax.scipy.stats.nbinom``; the rules live in
``refjax._src.scipy.stats.nbinom``."""
from refjax._src.scipy.stats.nbinom import logpmf, pmf  # noqa: F401

__all__ = ["logpmf", "pmf"]
