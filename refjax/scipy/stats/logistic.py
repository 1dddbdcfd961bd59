"""``refjax.scipy.stats.logistic``, as ``jax.scipy.stats.logistic``; the rules live in
``refjax._src.scipy.stats.logistic``."""
from refjax._src.scipy.stats.logistic import (  # noqa: F401
    cdf, isf, logpdf, pdf, ppf, sf,
)

__all__ = ["cdf", "isf", "logpdf", "pdf", "ppf", "sf"]
