"""``refjax.scipy.stats.expon``, as ``jax.scipy.stats.expon``; the rules live in
``refjax._src.scipy.stats.expon``."""
from refjax._src.scipy.stats.expon import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, ppf, sf,
)

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
