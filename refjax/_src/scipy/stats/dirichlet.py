"""``jax.scipy.stats.dirichlet``: the Dirichlet distribution (SPEC STA-5)."""
from refjax._src.lax import lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.numpy import lax_numpy, reductions, ufuncs
from refjax._src.scipy import special
from refjax._src.scipy.stats._common import NEG_INF, const, promote_dtypes, where

__all__ = ["logpdf", "pdf"]


def _on_simplex(x):
    """Positive entries along axis 0 that sum to 1 within 1e-6."""
    total = reductions.sum(x, axis=0)
    close = ufuncs.less(ufuncs.abs(ufuncs.subtract(total, 1)), 1e-6)
    return ufuncs.logical_and(reductions.all(ufuncs.greater(x, 0), axis=0), close)


def logpdf(x, alpha):
    """``sum((alpha - 1) log x) - (sum gammaln(alpha) - gammaln(sum alpha))``
    over axis 0, ``-inf`` off the simplex.  ``alpha`` is one-dimensional;
    ``x`` has ``len(alpha)`` entries on axis 0, or one fewer (the last is
    then ``1 - sum``); other shapes are ValueErrors, a scalar ``x`` an IndexError (SPEC STA-5)."""
    x, alpha = promote_dtypes(x, alpha)
    x_shape, alpha_shape = lax_numpy.shape(x), lax_numpy.shape(alpha)
    if len(alpha_shape) != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha_shape}")
    if not x_shape:
        # JAX reads x.shape[0] here: a scalar x is its IndexError.
        raise IndexError("tuple index out of range: `x` must have at least one dimension; "
                         f"got x.shape={x_shape}")
    if x_shape[0] not in (alpha_shape[0], alpha_shape[0] - 1):
        raise ValueError("`x` must have either the same number of entries as `alpha` or one "
                         f"entry fewer; got x.shape={x_shape}, alpha.shape={alpha_shape}")
    one = const(x, 1)
    if x_shape[0] != alpha_shape[0]:
        last = lax.sub(one, reductions.sum(x, axis=0, keepdims=True))
        x = lax_numpy.concatenate([x, last], axis=0)
    log_normalizer = ufuncs.subtract(reductions.sum(special.gammaln(alpha)),
                                     special.gammaln(reductions.sum(alpha)))
    ndim = len(lax_numpy.shape(x))
    if ndim > 1:
        alpha = lax_shapes.broadcast_in_dim(alpha, alpha_shape + (1,) * (ndim - 1), (0,))
    log_kernel = reductions.sum(special.xlogy(lax.sub(alpha, one), x), axis=0)
    return where(_on_simplex(x), lax.sub(log_kernel, log_normalizer), NEG_INF)


def pdf(x, alpha):
    """``exp(logpdf)`` (SPEC STA-5)."""
    return lax.exp(logpdf(x, alpha))
