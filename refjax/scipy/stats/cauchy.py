"""``refjax.scipy.stats.cauchy``, as ``jax.scipy.stats.cauchy``; the rules live in
``refjax._src.scipy.stats.cauchy``."""
from refjax._src.scipy.stats.cauchy import (  # noqa: F401
    cdf, isf, logcdf, logpdf, logsf, pdf, ppf, sf,
)

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
