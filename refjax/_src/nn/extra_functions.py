"""The activations and reductions of ``jax.nn`` added in JAX 0.4.3x-0.10:
``squareplus``, ``mish``, ``log1mexp``, ``logmeanexp`` and ``tanh``
(SPEC NN-8 .. NN-11).

Like the rest of ``jax.nn`` they are compositions of ``jax.numpy``
operations under ``jit``, in JAX's order, so values, dtypes, weak types
and jaxprs agree.
"""
import numpy as np

from refjax._src.api import jit
from refjax._src.custom_derivatives import custom_jvp
from refjax._src.nn import numpy_ops as jnp
from refjax._src.nn.functions import softplus
from refjax._src.nn.logsumexp import logsumexp
from refjax._src.numpy import reductions, ufuncs

# ``jax.nn.tanh`` is ``jax.numpy.tanh`` itself (SPEC NN-8).
tanh = ufuncs.tanh


@jit
def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``, a smooth ReLU (SPEC NN-8)."""
    x, b = jnp.ensure_arraylike("squareplus", x, b)
    return ufuncs.true_divide(ufuncs.add(x, ufuncs.sqrt(ufuncs.add(ufuncs.square(x), b))), 2)


@jit
def mish(x):
    """``x * tanh(softplus(x))`` (SPEC NN-8)."""
    x, = jnp.ensure_arraylike("mish", x)
    return ufuncs.multiply(x, ufuncs.tanh(softplus(x)))


@custom_jvp
@jit
def log1mexp(x):
    """``log(1 - exp(-x))`` for ``x >= 0`` without cancellation (SPEC NN-9).

    Below ``log 2`` the value is ``log(-expm1(-x))``, above it
    ``log1p(-exp(-x))``; 0 gives ``-inf`` and negative inputs NaN.  Its
    derivative is ``1 / expm1(x)``.
    """
    x, = jnp.ensure_arraylike("log1mexp", x)
    switch = ufuncs.log(2.0)
    return jnp.where(ufuncs.less(x, switch),
                     ufuncs.log(ufuncs.negative(ufuncs.expm1(ufuncs.negative(x)))),
                     ufuncs.log1p(ufuncs.negative(ufuncs.exp(ufuncs.negative(x)))))


log1mexp.defjvps(lambda g, ans, x: ufuncs.true_divide(g, ufuncs.expm1(x)))


@jit(static_argnames=("axis", "keepdims"))
def logmeanexp(x, axis=None, where=None, keepdims=False):
    """``logsumexp(x) - log(n)``, n the number of (selected) elements
    (SPEC NN-10)."""
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    count = reductions._count(x, axis, keepdims, where, np.dtype(lse.dtype))
    return ufuncs.subtract(lse, ufuncs.log(count))
