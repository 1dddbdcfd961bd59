"""``refjax.scipy.stats.chi2``, as ``jax.scipy.stats.chi2``; the rules live in
``refjax._src.scipy.stats.chi2``."""
from refjax._src.scipy.stats.chi2 import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, sf,
)

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]
