"""``refjax.scipy.stats.poisson``, as ``jax.scipy.stats.poisson``; the rules live in
``refjax._src.scipy.stats.poisson``."""
from refjax._src.scipy.stats.poisson import cdf, entropy, logpmf, pmf  # noqa: F401

__all__ = ["cdf", "entropy", "logpmf", "pmf"]
