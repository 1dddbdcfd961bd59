"""``refjax.scipy.stats.pareto``, as ``jax.scipy.stats.pareto``; the rules live in
``refjax._src.scipy.stats.pareto``."""
from refjax._src.scipy.stats.pareto import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, ppf, sf,
)

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
