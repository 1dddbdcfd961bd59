"""``refjax.scipy.stats.wrapcauchy``, as ``jax.scipy.stats.wrapcauchy``; the rules live in
``refjax._src.scipy.stats.wrapcauchy``."""
from refjax._src.scipy.stats.wrapcauchy import logpdf, pdf  # noqa: F401

__all__ = ["logpdf", "pdf"]
