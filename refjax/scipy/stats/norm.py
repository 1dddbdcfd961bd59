"""``refjax.scipy.stats.norm``, as ``jax.scipy.stats.norm``; the rules live in
``refjax._src.scipy.stats.norm``."""
from refjax._src.scipy.stats.norm import (  # noqa: F401
    cdf, isf, logcdf, logpdf, logsf, pdf, ppf, sf,
)

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
