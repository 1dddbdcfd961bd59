"""``refjax.scipy.stats.gennorm``, as ``jax.scipy.stats.gennorm``; the rules live in
``refjax._src.scipy.stats.gennorm``."""
from refjax._src.scipy.stats.gennorm import cdf, logpdf, pdf  # noqa: F401

__all__ = ["cdf", "logpdf", "pdf"]
