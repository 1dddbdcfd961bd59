"""``refjax.scipy.stats.t``, as ``jax.scipy.stats.t``; the rules live in
``refjax._src.scipy.stats.t``."""
from refjax._src.scipy.stats.t import logpdf, pdf  # noqa: F401

__all__ = ["logpdf", "pdf"]
