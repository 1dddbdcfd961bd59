"""``refjax.scipy.stats.betabinom``, as ``jax.scipy.stats.betabinom``; the rules live in
``refjax._src.scipy.stats.betabinom``."""
from refjax._src.scipy.stats.betabinom import logpmf, pmf  # noqa: F401

__all__ = ["logpmf", "pmf"]
