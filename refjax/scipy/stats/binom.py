"""``refjax.scipy.stats.binom``, as ``jax.scipy.stats.binom``; the rules live in
``refjax._src.scipy.stats.binom``."""
from refjax._src.scipy.stats.binom import logpmf, pmf  # noqa: F401

__all__ = ["logpmf", "pmf"]
