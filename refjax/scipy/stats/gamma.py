"""``refjax.scipy.stats.gamma``, as ``jax.scipy.stats.gamma``; the rules live in
``refjax._src.scipy.stats.gamma``."""
from refjax._src.scipy.stats.gamma import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, sf,
)

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]
