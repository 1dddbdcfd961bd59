"""``refjax.scipy.special``: special functions, as ``jax.scipy.special``.

This module holds the names; their rules live in ``refjax._src.scipy.special``
(``logsumexp`` in ``refjax._src.nn.logsumexp``, shared with ``jax.nn``).
"""
from refjax._src.nn.logsumexp import logsumexp  # noqa: F401
from refjax._src.scipy.special import (  # noqa: F401
    betaln, digamma, entr, erf, erfc, erfinv, expit, gamma, gammaln, gammasgn,
    log_ndtr, logit, ndtr, ndtri, xlog1py, xlogy,
)
from refjax._src.scipy.special_lax import (  # noqa: F401
    betainc, gammainc, gammaincc, i0, i0e, i1, i1e, polygamma, zeta,
)
