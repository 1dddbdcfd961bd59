"""Activation functions, softmax and friends of ``jax.nn`` (SPEC NN-1 .. NN-7).

Each function is the same composition of ``jax.numpy`` operations as JAX's,
under ``jit`` where JAX jits it, so values, dtypes and weak types agree:
``relu`` of an integer array stays integer; functions built on ``exp`` or
``log`` promote integers to the default float; float16/bfloat16 stay as they
are.  Derivatives follow JAX too: ``relu`` and ``relu6`` carry custom JVP
rules that are 0 at their kinks, and the normalizations shift by a maximum
held under ``stop_gradient`` (SPEC AD-70, AD-76).
"""
import functools
import operator

import numpy as np

from refjax._src import config, core, dtypes
from refjax._src.api import jit
from refjax._src.custom_derivatives import custom_jvp
from refjax._src.interpreters.ad import stop_gradient
from refjax._src.lax import lax, shapes
from refjax._src.nn import numpy_ops as jnp
from refjax._src.nn.logsumexp import logsumexp  # noqa: F401 - re-exported
from refjax._src.numpy import ufuncs, util

__all__ = [
    "celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish",
    "hard_tanh", "identity", "leaky_relu", "log_sigmoid", "log_softmax",
    "logsumexp", "one_hot", "relu", "relu6", "selu", "sigmoid", "silu",
    "soft_sign", "softmax", "softplus", "sparse_plus", "sparse_sigmoid",
    "standardize", "swish",
]


# ---------------------------------------------------------------------------
# Piecewise-linear activations (SPEC NN-1): integer inputs stay integer
# ---------------------------------------------------------------------------

@jit
def identity(x):
    """``x`` unchanged, as an array."""
    return jnp.ensure_arraylike("identity", x)[0]


def _pass_where(mask, g):
    """The tangent ``g`` where ``mask`` holds, 0 elsewhere."""
    return lax.select(mask, g, lax.full_like(g, 0))


@custom_jvp
@jit
def relu(x):
    """``max(x, 0)``; integer and bool inputs give integers (SPEC NN-1).

    Its derivative is 1 where ``x > 0`` and 0 elsewhere, the kink included
    (SPEC AD-70), rather than the 1/2 that ``maximum``'s tie rule would give.
    """
    return ufuncs.maximum(x, 0)


relu.defjvps(lambda g, ans, x: _pass_where(ufuncs.greater(x, 0), g))


@custom_jvp
@jit
def relu6(x):
    """``min(max(x, 0), 6.)``: the float bound makes integers float (SPEC NN-1).

    Its derivative is 1 strictly inside (0, 6) and 0 elsewhere, both kinks
    included (SPEC AD-70).
    """
    return ufuncs.minimum(ufuncs.maximum(x, 0), 6.)


relu6.defjvps(lambda g, ans, x: _pass_where(
    ufuncs.bitwise_and(ufuncs.greater(x, 0), ufuncs.less(x, 6)), g))


@jit
def hard_tanh(x):
    """``x`` clipped to [-1, 1]; integers stay integers (SPEC NN-1)."""
    x, = jnp.ensure_arraylike("hard_tanh", x)
    return jnp.where(ufuncs.greater(x, 1), 1,
                     jnp.where(ufuncs.less(x, -1), -1, x))


@jit
def leaky_relu(x, negative_slope=1e-2):
    """``x`` where ``x >= 0``, else ``negative_slope * x`` (SPEC NN-1)."""
    x, = jnp.ensure_arraylike("leaky_relu", x)
    return jnp.where(ufuncs.greater_equal(x, 0), x,
                     ufuncs.multiply(negative_slope, x))


@jit
def hard_sigmoid(x):
    """``relu6(x + 3) / 6`` (SPEC NN-1)."""
    return ufuncs.true_divide(relu6(ufuncs.add(x, 3.)), 6.)


@jit
def hard_silu(x):
    """``x * hard_sigmoid(x)``; ``hard_swish`` is the same function (SPEC NN-1)."""
    x, = jnp.ensure_arraylike("hard_silu", x)
    return ufuncs.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


@jit
def sparse_plus(x):
    """0 for ``x <= -1``, ``x`` for ``x >= 1``, ``(x + 1)**2 / 4`` between."""
    x, = jnp.ensure_arraylike("sparse_plus", x)
    quadratic = ufuncs.true_divide(lax.integer_pow(ufuncs.add(x, 1.0), 2), 4)
    return jnp.where(ufuncs.less_equal(x, -1.0), 0.0,
                     jnp.where(ufuncs.greater_equal(x, 1.0), x, quadratic))


@jit
def sparse_sigmoid(x):
    """``0.5 * clip(x + 1, 0, 2)``: the derivative of ``sparse_plus``."""
    return ufuncs.multiply(0.5, jnp.clip(ufuncs.add(x, 1.0), 0.0, 2.0))


# ---------------------------------------------------------------------------
# Smooth activations (SPEC NN-1)
# ---------------------------------------------------------------------------

@jit(inline=True)
def sigmoid(x):
    """``1 / (1 + exp(-x))``: ``lax.logistic``, which rejects integers (SPEC NN-1)."""
    return lax.logistic(x)


@jit
def softplus(x):
    """``log(1 + exp(x))`` as ``logaddexp(x, 0)``: finite for large ``|x|``."""
    return jnp.logaddexp(x, 0)


@jit
def log_sigmoid(x):
    """``-softplus(-x)`` (SPEC NN-1)."""
    x, = jnp.ensure_arraylike("log_sigmoid", x)
    return ufuncs.negative(softplus(ufuncs.negative(x)))


@jit
def soft_sign(x):
    """``x / (|x| + 1)`` (SPEC NN-1)."""
    x, = jnp.ensure_arraylike("soft_sign", x)
    return ufuncs.true_divide(x, ufuncs.add(jnp.abs(x), 1))


@jit
def silu(x):
    """``x * sigmoid(x)``; ``swish`` is the same function (SPEC NN-1)."""
    x, = jnp.ensure_arraylike("silu", x)
    return ufuncs.multiply(x, sigmoid(x))


swish = silu


@jit
def elu(x, alpha=1.0):
    """``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)`` (SPEC NN-1).

    The inner ``where`` keeps ``expm1`` away from large positive ``x``.
    """
    x, = jnp.ensure_arraylike("elu", x)
    positive = ufuncs.greater(x, 0)
    return jnp.where(positive, x,
                     ufuncs.multiply(alpha, ufuncs.expm1(jnp.where(positive, 0., x))))


@jit
def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)`` (SPEC NN-1)."""
    negative_part = ufuncs.true_divide(ufuncs.minimum(x, 0.0), alpha)
    return ufuncs.add(ufuncs.maximum(x, 0.0),
                      ufuncs.multiply(alpha, ufuncs.expm1(negative_part)))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@jit
def selu(x):
    """``scale * elu(x, alpha)`` with the self-normalizing constants (SPEC NN-1)."""
    return ufuncs.multiply(_SELU_SCALE, elu(x, _SELU_ALPHA))


def gelu(x, approximate=True):
    """Gaussian error linear unit (SPEC NN-2).

    ``approximate=True``: ``x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x**3)))``;
    ``approximate=False``: ``x/2 * erfc(-x / sqrt(2))``.  Integers promote to
    the default float; the constants take ``x``'s dtype.  Not jitted (as in JAX).
    """
    x, = util.promote_args_inexact_unjitted("gelu", x)
    dtype = jnp.dtype_of(x)
    if approximate:
        sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(dtype)
        inner = ufuncs.add(x, ufuncs.multiply(0.044715, lax.integer_pow(x, 3)))
        cdf = ufuncs.multiply(0.5, ufuncs.add(
            1.0, ufuncs.tanh(ufuncs.multiply(sqrt_2_over_pi, inner))))
        return ufuncs.multiply(x, cdf)
    sqrt_half = np.sqrt(0.5).astype(dtype)
    scaled = ufuncs.multiply(ufuncs.negative(x), sqrt_half)
    out = ufuncs.multiply(ufuncs.multiply(0.5, x), lax.erfc(scaled))
    return jnp.astype(out, dtype)


@jit(static_argnames=("axis",))
def glu(x, axis=-1):
    """``first_half * sigmoid(second_half)``, halves taken along ``axis`` (SPEC NN-7).

    An odd ``axis`` size fails with AssertionError, as in JAX.
    """
    x, = jnp.ensure_arraylike("glu", x)
    size = jnp.shape_of(x)[axis]
    assert size % 2 == 0, "axis size must be divisible by 2"
    axis = core.canonicalize_axis(axis, jnp.ndim_of(x))
    first = shapes.slice_in_dim(x, 0, size // 2, axis=axis)
    second = shapes.slice_in_dim(x, size // 2, size, axis=axis)
    return ufuncs.multiply(first, sigmoid(second))


# ---------------------------------------------------------------------------
# Normalizations (SPEC NN-3, NN-6)
# ---------------------------------------------------------------------------

def softmax(x, axis=-1, where=None):
    """``exp(x - max) / sum(exp(x - max))`` along ``axis`` (SPEC NN-3).

    ``axis`` is an int, a tuple or None (all axes).  Masked-out elements
    (``where`` False) give 0 and do not count in the sum; a ``+inf`` input
    or an all ``-inf`` slice makes the slice NaN.  Not jitted (as in JAX).

    The maximum only guards against overflow: it is held under
    ``stop_gradient``, so derivatives flow through ``exp`` and the sum alone
    (SPEC AD-76); the jaxpr is JAX's equation for equation (JXP-1).  With
    ``jax_softmax_custom_jvp`` on, the derivative is the rule
    ``y * (dx - sum(y * dx))``, whose only residual is ``y`` (SPEC NN-16).
    """
    if config.softmax_custom_jvp.value:
        return _softmax_custom(x, axis, where)
    return _softmax(x, axis, where)


def _softmax(x, axis, where):
    x_max = jnp.max(x, axis, keepdims=True, where=where, initial=-np.inf)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    unnormalized = ufuncs.exp(ufuncs.subtract(x_safe, stop_gradient(x_max)))
    total = jnp.sum(unnormalized, axis, keepdims=True, where=where)
    result = ufuncs.true_divide(unnormalized, total)
    if where is not None:
        result = jnp.where(where, result, 0)
    return result


@functools.partial(custom_jvp, nondiff_argnums=(1,))
def _softmax_custom(x, axis, where):
    return _softmax(x, axis, where)


@_softmax_custom.defjvp
def _softmax_custom_jvp(axis, primals, tangents):
    (x, where), (x_dot, _) = primals, tangents
    y = _softmax_custom(x, axis, where)
    y_dot = jnp.sum(ufuncs.multiply(y, x_dot), axis, keepdims=True, where=where)
    return y, ufuncs.multiply(y, ufuncs.subtract(x_dot, y_dot))


@jit(static_argnames=("axis",))
def log_softmax(x, axis=-1, where=None):
    """``x - max - log(sum(exp(x - max)))`` along ``axis`` (SPEC NN-3).

    Masked-out elements give ``-inf``.  The maximum is held under
    ``stop_gradient`` (SPEC AD-76).
    """
    x, = jnp.ensure_arraylike("log_softmax", x)
    x_max = jnp.max(x, axis, keepdims=True, where=where, initial=-np.inf)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    shifted = ufuncs.subtract(x_safe, stop_gradient(x_max))
    shifted_logsumexp = ufuncs.log(
        jnp.sum(ufuncs.exp(shifted), axis, keepdims=True, where=where))
    result = ufuncs.subtract(shifted, shifted_logsumexp)
    if where is not None:
        return jnp.where(where, result, -np.inf)
    return result


@jit(static_argnames=("axis", "algorithm"))
def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None,
                *, algorithm="fast"):
    """``(x - mean) / sqrt(variance + epsilon)`` along ``axis`` (SPEC NN-6).

    Missing statistics are computed over the unmasked elements: the mean,
    and the variance as ``mean(x**2) - mean**2`` clipped at 0
    (``algorithm="fast"``) or as ``mean((x - mean)**2)`` (``"stable"``, no
    cancellation; SPEC NN-15).  The output has ``x``'s full shape (masked
    elements are standardized too).
    """
    util.check_arraylike("standardize", x)
    for arg in (mean, variance, where):
        if arg is not None:
            util.check_arraylike("standardize", arg)
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True, where=where)
    if variance is None and algorithm not in ("fast", "stable"):
        # Checked only when the variance is computed, as in JAX.
        raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    if variance is None and algorithm == "stable":
        variance = jnp.mean(_square(ufuncs.subtract(x, mean)), axis, keepdims=True,
                            where=where)
    elif variance is None:
        mean_sq = jnp.mean(_square(x), axis, keepdims=True, where=where)
        variance = jnp.clip(ufuncs.subtract(mean_sq, _square(mean)), 0)
    scale = lax.rsqrt(ufuncs.add(variance, epsilon))
    return ufuncs.multiply(ufuncs.subtract(x, mean), scale)


def _square(x):
    x, = util.promote_args_numeric("square", x)
    return lax.integer_pow(x, 2)


# ---------------------------------------------------------------------------
# one_hot (SPEC NN-5)
# ---------------------------------------------------------------------------

def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """Compare ``x`` with ``0 .. num_classes-1`` along a new ``axis`` (SPEC NN-5).

    Indices outside ``[0, num_classes)`` give all zeros.  The comparison is
    made in ``x``'s dtype (``iota`` of that dtype), the result cast to
    ``dtype`` (default: the default float).  Non-integer ``x`` warns.
    """
    num_classes = core.concrete_or_error(
        operator.index, num_classes,
        "The error arose in jax.nn.one_hot argument `num_classes`.")
    x = jnp.asarray(x)
    if not dtypes.issubdtype(jnp.dtype_of(x), np.integer):
        import warnings
        warnings.warn("jax.nn.one_hot input should be integer-typed; got "
                      f"dtype={jnp.dtype_of(x)}", DeprecationWarning, stacklevel=2)
    dtype = dtypes.default_float_dtype() if dtype is None else dtype
    return _one_hot(x, num_classes, dtype=dtype, axis=axis)


@jit(static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x, num_classes, *, dtype, axis):
    out_axis = core.canonicalize_axis(axis, jnp.ndim_of(x) + 1)
    lhs = shapes.expand_dims(x, (axis,))
    rhs_shape = [1] * jnp.ndim_of(x)
    rhs_shape.insert(out_axis, num_classes)
    rhs = shapes.broadcasted_iota(jnp.dtype_of(x), rhs_shape, out_axis)
    return jnp.astype(lax.eq(lhs, rhs), dtype)
