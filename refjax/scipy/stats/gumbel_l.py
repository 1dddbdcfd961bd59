"""``refjax.scipy.stats.gumbel_l``, as ``jax.scipy.stats.gumbel_l``; the rules live in
``refjax._src.scipy.stats.gumbel_l``."""
from refjax._src.scipy.stats.gumbel_l import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, ppf, sf,
)

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
