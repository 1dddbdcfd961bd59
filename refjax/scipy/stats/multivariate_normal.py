"""``refjax.scipy.stats.multivariate_normal``, as JAX's; the rules live in
``refjax._src.scipy.stats.multivariate_normal``."""
from refjax._src.scipy.stats.multivariate_normal import logpdf, pdf  # noqa: F401

__all__ = ["logpdf", "pdf"]
