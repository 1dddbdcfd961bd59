"""``refjax.scipy.stats.truncnorm``, as ``jax.scipy.stats.truncnorm``; the rules live in
``refjax._src.scipy.stats.truncnorm``."""
from refjax._src.scipy.stats.truncnorm import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, sf,
)

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]
