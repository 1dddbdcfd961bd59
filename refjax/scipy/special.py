"""``refjax.scipy.special``: special functions, as ``jax.scipy.special``.

This module holds the names; their rules live in ``refjax._src.scipy.special``.
"""
from refjax._src.scipy.special import (  # noqa: F401
    betaln, digamma, entr, erf, erfc, erfinv, expit, gamma, gammaln, gammasgn,
    log_ndtr, logit, logsumexp, ndtr, ndtri, xlog1py, xlogy,
)
