"""``refjax.scipy.stats.bernoulli``, as ``jax.scipy.stats.bernoulli``; the rules live in
``refjax._src.scipy.stats.bernoulli``."""
from refjax._src.scipy.stats.bernoulli import cdf, logpmf, pmf, ppf  # noqa: F401

__all__ = ["cdf", "logpmf", "pmf", "ppf"]
