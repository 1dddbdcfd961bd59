"""``jax.scipy.stats.multivariate_normal``: the multivariate normal
distribution (SPEC STA-5)."""
import numpy as np

from refjax._src.lax import lax
from refjax._src.lax import linalg as lax_linalg
from refjax._src.lax import shapes as lax_shapes
from refjax._src.numpy import contractions, lax_numpy, reductions, ufuncs
from refjax._src.numpy.vectorize import vectorize
from refjax._src.scipy.stats._common import promote_dtypes

__all__ = ["logpdf", "pdf"]


def _squared_norm(y):
    return contractions.einsum("...i,...i->...", y, y)


def _forward_solve(factor, y):
    """``factor^-1 y`` for a lower-triangular ``factor``; ``y`` is made a
    column so that the solve does not depend on how ``triangular_solve``
    shapes a vector right-hand side."""
    column = lax_shapes.expand_dims(y, (1,))
    out = lax_linalg.triangular_solve(factor, column, left_side=True, lower=True)
    return lax_shapes.squeeze(out, (1,))


def logpdf(x, mean, cov, allow_singular=None):
    """The log density of N(``mean``, ``cov``) at ``x`` (SPEC STA-5).

    A scalar ``mean`` is the univariate case (``cov`` a variance); a scalar
    ``cov`` with a vector ``mean`` is ``cov * I``; otherwise ``cov`` is
    ``(..., n, n)`` (ValueError if not) and the quadratic form is solved
    with its Cholesky factor ``L``: ``-|L^-1 (x - mean)|^2 / 2
    - n log(2 pi) / 2 - sum(log diag L)``.  Leading axes broadcast.
    ``allow_singular`` is JAX's NotImplementedError unless None.
    """
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = promote_dtypes(x, mean, cov)
    mean_shape, cov_shape = lax_numpy.shape(mean), lax_numpy.shape(cov)
    log_two_pi = ufuncs.log(2 * np.pi)
    if not mean_shape:
        quadratic = ufuncs.true_divide(ufuncs.square(ufuncs.subtract(x, mean)), cov)
        return ufuncs.subtract(ufuncs.multiply(-1 / 2, quadratic),
                               ufuncs.multiply(1 / 2, ufuncs.add(log_two_pi, ufuncs.log(cov))))
    n = mean_shape[-1]
    if not cov_shape:
        y = ufuncs.subtract(x, mean)
        quadratic = ufuncs.true_divide(ufuncs.multiply(-1 / 2, _squared_norm(y)), cov)
        return ufuncs.subtract(quadratic, ufuncs.multiply(n / 2, ufuncs.add(log_two_pi,
                                                                           ufuncs.log(cov))))
    if len(cov_shape) < 2 or cov_shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    factor = lax_linalg.cholesky(cov)
    y = vectorize(_forward_solve, signature="(n,n),(n)->(n)")(factor, ufuncs.subtract(x, mean))
    log_det = reductions.sum(ufuncs.log(contractions.diagonal(factor, axis1=-1, axis2=-2)),
                             axis=-1)
    return ufuncs.subtract(
        ufuncs.subtract(ufuncs.multiply(-1 / 2, _squared_norm(y)),
                        ufuncs.multiply(n / 2, log_two_pi)), log_det)


def pdf(x, mean, cov):
    """``exp(logpdf)`` (SPEC STA-5)."""
    return lax.exp(logpdf(x, mean, cov))
