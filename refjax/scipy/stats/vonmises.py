"""``refjax.scipy.stats.vonmises``, as ``jax.scipy.stats.vonmises``; the rules live in
``refjax._src.scipy.stats.vonmises``."""
from refjax._src.scipy.stats.vonmises import logpdf, pdf  # noqa: F401

__all__ = ["logpdf", "pdf"]
