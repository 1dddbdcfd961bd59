"""``refjax.scipy.stats.uniform``, as ``jax.scipy.stats.uniform``; the rules live in
``refjax._src.scipy.stats.uniform``."""
from refjax._src.scipy.stats.uniform import cdf, logpdf, pdf, ppf  # noqa: F401

__all__ = ["cdf", "logpdf", "pdf", "ppf"]
