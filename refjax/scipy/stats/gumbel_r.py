"""``refjax.scipy.stats.gumbel_r``, as ``jax.scipy.stats.gumbel_r``; the rules live in
``refjax._src.scipy.stats.gumbel_r``."""
from refjax._src.scipy.stats.gumbel_r import (  # noqa: F401
    cdf, logcdf, logpdf, logsf, pdf, ppf, sf,
)

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]
