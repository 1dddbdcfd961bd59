"""``logsumexp``, shared by ``jax.nn`` and ``jax.scipy.special`` (SPEC NN-4)."""
import numpy as np

from refjax._src import api, dtypes
from refjax._src.interpreters.ad import stop_gradient
from refjax._src.lax import lax
from refjax._src.nn import numpy_ops as jnp
from refjax._src.numpy import util


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``log(sum(b * exp(a)))`` over ``axis`` without overflow (SPEC NN-4).

    The largest finite element is subtracted before ``exp`` and added back
    after ``log`` (an all ``-inf`` or empty reduction gives ``-inf``); masked
    elements and those with ``b == 0`` count as ``-inf``.  A negative sum gives
    NaN, or ``(log|sum|, sign)`` with ``return_sign=True``.

    The shift is held under ``stop_gradient``: derivatives flow through the
    sum of exponentials only, giving ``softmax`` weights (SPEC AD-76).
    """
    # keepdims is static in JAX's reductions: an unhashable one is JAX's
    # ValueError (found by the bad-input fuzz, FUZZ-3).
    api._Static(keepdims)
    if where is not None:
        a = jnp.where(where, a, 0)
    if b is not None:
        a, b = util.promote_args_inexact_unjitted("logsumexp", a, b)
        a = jnp.where(lax.ne(b, jnp.const(b, 0)), a, -np.inf)
    else:
        a, = util.promote_args_inexact_unjitted("logsumexp", a)
    ndim = jnp.ndim_of(a)
    axes = jnp.reduction_axes(a, axis)
    is_complex = dtypes.issubdtype(jnp.dtype_of(a), np.complexfloating)
    amax = jnp.max(lax.real(a) if is_complex else a, axes, keepdims=keepdims,
                   where=where, initial=-np.inf)
    # A non-finite maximum (all -inf, or an inf) is not subtracted.
    amax = stop_gradient(lax.select(jnp.isfinite(amax), amax, jnp.full_like(amax, 0)))
    amax_kept = amax if keepdims else jnp.keep_dims(amax, ndim, axes)
    exp_a = lax.exp(lax.sub(a, jnp.astype(amax_kept, jnp.dtype_of(a))))
    if b is not None:
        exp_a = lax.mul(exp_a, b)
    sumexp = jnp.sum(exp_a, axes, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    if return_sign or not is_complex:
        sumexp = lax.abs(sumexp)
    out = lax.add(lax.log(sumexp), jnp.astype(amax, jnp.dtype_of(sumexp)))
    if return_sign:
        return out, sign
    if b is not None and not is_complex:
        out = jnp.where(lax.lt(sign, jnp.const(sign, 0)),
                        jnp.const(out, np.nan), out)
    return out
