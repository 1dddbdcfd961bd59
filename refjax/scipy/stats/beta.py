"""``refjax.scipy.stats.beta``, as ``jax.scipy.stats.beta``; the rules live in
``refjax._src.scipy.stats.beta``."""
from refjax._src.scipy.stats.beta import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, sf,
)

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]
