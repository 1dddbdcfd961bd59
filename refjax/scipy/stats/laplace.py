"""``refjax.scipy.stats.laplace``, as ``jax.scipy.stats.laplace``; the rules live in
``refjax._src.scipy.stats.laplace``."""
from refjax._src.scipy.stats.laplace import cdf, logpdf, pdf  # noqa: F401

__all__ = ["cdf", "logpdf", "pdf"]
