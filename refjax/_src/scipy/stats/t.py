"""``jax.scipy.stats.t``: Student's t distribution (SPEC STA-3)."""
import numpy as np

from refjax._src.lax import lax
from refjax._src.scipy.stats._common import const, promote, standardize

__all__ = ["logpdf", "pdf"]


def logpdf(x, df, loc=0, scale=1):
    """``lgamma((df+1)/2) - lgamma(df/2) - log(pi df scale**2)/2
    - (df+1)/2 log1p(z**2/df)`` (SPEC STA-3)."""
    x, df, loc, scale = promote("t.logpdf", x, df, loc, scale)
    two = const(x, 2)
    z = standardize(x, loc, scale)
    half_df = lax.div(df, two)
    half_df_plus = lax.add(half_df, const(x, 0.5))
    scale_term = lax.mul(lax.mul(scale, scale), const(x, np.pi))
    log_scale = lax.div(lax.log(lax.mul(scale_term, df)), two)
    normalizer = lax.sub(lax.add(lax.lgamma(half_df), log_scale), lax.lgamma(half_df_plus))
    quadratic = lax.div(lax.mul(z, z), df)
    return lax.neg(lax.add(normalizer, lax.mul(half_df_plus, lax.log1p(quadratic))))


def pdf(x, df, loc=0, scale=1):
    """``exp(logpdf)`` (SPEC STA-3)."""
    return lax.exp(logpdf(x, df, loc, scale))
