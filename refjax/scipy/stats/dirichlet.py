"""``refjax.scipy.stats.dirichlet``, as ``jax.scipy.stats.dirichlet``; the rules live in
``refjax._src.scipy.stats.dirichlet``."""
from refjax._src.scipy.stats.dirichlet import logpdf, pdf  # noqa: F401

__all__ = ["logpdf", "pdf"]
