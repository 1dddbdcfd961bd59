"""``refjax.scipy.stats.geom``, as ``jax.scipy.stats.geom``; the rules live in
``refjax._src.scipy.stats.geom``."""
from refjax._src.scipy.stats.geom import logpmf, pmf  # noqa: F401

__all__ = ["logpmf", "pmf"]
