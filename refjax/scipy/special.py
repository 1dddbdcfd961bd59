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
from refjax._src.scipy.special_hyp import (  # noqa: F401
    hyp1f1, hyp2f1,
)
from refjax._src.scipy.special_more import (  # noqa: F401
    bernoulli, beta, boxcox, boxcox1p, comb, factorial, kl_div, log_softmax, loggamma,
    multigammaln, poch, rel_entr, softmax,
)
from refjax._src.scipy.special_p1_owens_bessel import (  # noqa: F401
    bessel_jn, owens_t,
)
from refjax._src.scipy.special_integrals import (  # noqa: F401
    exp1, expi, expn, spence,
)
from refjax._src.scipy.special_p2_faddeeva import (  # noqa: F401
    dawsn, erfcx, wofz,
)
from refjax._src.scipy.special_p2_trig import (  # noqa: F401
    fresnel, sici,
)
from refjax._src.scipy.special_sph import (  # noqa: F401
    sph_harm_y,
)
# -- issue 23 additions end --
