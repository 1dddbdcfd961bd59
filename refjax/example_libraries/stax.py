"""``stax``: neural-network layers as ``(init_fun, apply_fun)`` pairs
(SPEC EXL-1 .. EXL-10).

A layer is a pair of functions.  ``init_fun(rng, input_shape)`` returns
``(output_shape, params)``; ``apply_fun(params, inputs, **kwargs)`` returns
the outputs (a layer that needs randomness takes ``rng=`` among the
keyword arguments).  Combinators (``serial``, ``parallel``,
``shape_dependent``) build layers from layers.  This is an example library
written on refjax's public API, as JAX's is written on JAX's.
"""
import functools
import math

import refjax.numpy as jnp
from refjax import lax, random
from refjax.nn import (  # noqa: F401 - re-exported names, as in JAX
    elu, gelu, leaky_relu, log_softmax, relu, selu, sigmoid, softmax, softplus,
    standardize,
)
from refjax.nn.initializers import glorot_normal, normal, ones, zeros

# Older names of the initializers and of log_softmax.
glorot = glorot_normal
randn = normal
logsoftmax = log_softmax


# ---------------------------------------------------------------------------
# Layers with parameters (SPEC EXL-1 .. EXL-3)
# ---------------------------------------------------------------------------

def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
    """Affine layer ``inputs @ W + b`` on the last axis; ``W`` is
    (in, out_dim), ``b`` is (out_dim,), drawn from two halves of the key
    (SPEC EXL-1)."""
    def init_fun(rng, input_shape):
        k_w, k_b = random.split(rng)
        params = (W_init(k_w, (input_shape[-1], out_dim)), b_init(k_b, (out_dim,)))
        return input_shape[:-1] + (out_dim,), params

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.dot(inputs, W) + b
    return init_fun, apply_fun


def _kernel_and_bias_shapes(dimension_numbers, out_chan, filter_shape, input_shape):
    """The kernel shape in ``rhs_spec`` order ('O' -> out_chan, 'I' -> the
    input's channels, spatial letters -> ``filter_shape`` in order) and the
    bias shape (out_chan on the output's 'C' axis, 1 elsewhere)."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    spatial = iter(filter_shape)
    kernel_shape = [out_chan if c == "O" else
                    input_shape[lhs_spec.index("C")] if c == "I" else next(spatial)
                    for c in rhs_spec]
    bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
    return kernel_shape, bias_shape


def _conv_layer(dimension_numbers, out_chan, filter_shape, strides, padding, W_init,
                b_init, output_shape_of, convolve):
    """The layer both convolution constructors build; the weight init
    defaults to Glorot normal with fan axes read from ``rhs_spec``."""
    rhs_spec = dimension_numbers[1]
    strides = strides or (1,) * len(filter_shape)
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def init_fun(rng, input_shape):
        kernel_shape, bias_shape = _kernel_and_bias_shapes(
            dimension_numbers, out_chan, filter_shape, input_shape)
        output_shape = output_shape_of(input_shape, kernel_shape, strides, padding,
                                       dimension_numbers)
        k_w, k_b = random.split(rng)
        return output_shape, (W_init(k_w, kernel_shape), b_init(k_b, bias_shape))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return convolve(inputs, W, strides) + b
    return init_fun, apply_fun


def GeneralConv(dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID",
                W_init=None, b_init=normal(1e-6)):
    """Convolution layer with ``dimension_numbers = (lhs_spec, rhs_spec,
    out_spec)`` strings, no dilation (SPEC EXL-2)."""
    ones_ = (1,) * len(filter_shape)

    def convolve(inputs, W, strides):
        return lax.conv_general_dilated(inputs, W, strides, padding, ones_, ones_,
                                        dimension_numbers=dimension_numbers)
    return _conv_layer(dimension_numbers, out_chan, filter_shape, strides, padding, W_init,
                       b_init, lax.conv_general_shape_tuple, convolve)


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))


def GeneralConvTranspose(dimension_numbers, out_chan, filter_shape, strides=None,
                         padding="VALID", W_init=None, b_init=normal(1e-6)):
    """Transposed-convolution layer (``lax.conv_transpose``) (SPEC EXL-2)."""
    def convolve(inputs, W, strides):
        return lax.conv_transpose(inputs, W, strides, padding,
                                  dimension_numbers=dimension_numbers)
    return _conv_layer(dimension_numbers, out_chan, filter_shape, strides, padding, W_init,
                       b_init, lax.conv_transpose_shape_tuple, convolve)


Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True, beta_init=zeros,
              gamma_init=ones):
    """Normalize over ``axis`` (``jax.nn.standardize``), then scale by
    ``gamma`` and shift by ``beta``, each of the shape of the axes kept;
    ``center``/``scale`` False drop ``beta``/``gamma`` (their params are
    ``()``) (SPEC EXL-3)."""
    axis = (axis,) if jnp.isscalar(axis) else axis

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k_beta, k_gamma = random.split(rng)
        beta = beta_init(k_beta, shape) if center else ()
        gamma = gamma_init(k_gamma, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        # Index with None on the normalized axes to broadcast beta and gamma.
        expand = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if scale:
            z = gamma[expand] * z
        if center:
            z = z + beta[expand]
        return z
    return init_fun, apply_fun


# ---------------------------------------------------------------------------
# Elementwise layers (SPEC EXL-4)
# ---------------------------------------------------------------------------

def elementwise(fun, **fun_kwargs):
    """A parameterless layer applying ``fun(inputs, **fun_kwargs)``
    (SPEC EXL-4)."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return fun(inputs, **fun_kwargs)
    return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


# ---------------------------------------------------------------------------
# Pooling (SPEC EXL-5)
# ---------------------------------------------------------------------------

def _with_unit_axes(window, strides, spec):
    """Window and strides over all axes: 1 on the batch and channel axes
    (the first and last, or 'N' and 'C' of ``spec``)."""
    if spec is None:
        unit_axes = (0, len(window) + 1)
    else:
        unit_axes = (spec.index("N"), spec.index("C"))
    for i in sorted(unit_axes):
        window = window[:i] + (1,) + window[i:]
        strides = strides[:i] + (1,) + strides[i:]
    return window, strides


def _pooling_layer(reducer, init_val, rescaler=None):
    """A pooling layer constructor reducing windows with ``reducer`` from
    ``init_val``; ``rescaler`` (if any) post-processes the pooled output."""
    def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):
        """A pooling layer over ``window_shape`` (SPEC EXL-5)."""
        strides = strides or (1,) * len(window_shape)
        rescale = rescaler(window_shape, strides, padding) if rescaler else None
        window_shape, strides = _with_unit_axes(window_shape, strides, spec)

        def init_fun(rng, input_shape):
            pads = lax.padtype_to_pads(input_shape, window_shape, strides, padding)
            unit = (1,) * len(window_shape)
            return lax.reduce_window_shape_tuple(input_shape, window_shape, strides,
                                                 pads, unit, unit), ()

        def apply_fun(params, inputs, **kwargs):
            out = lax.reduce_window(inputs, init_val, reducer, window_shape, strides,
                                    padding)
            return rescale(out, inputs, spec) if rescale else out
        return init_fun, apply_fun
    return PoolingLayer


MaxPool = _pooling_layer(lax.max, -jnp.inf)
SumPool = _pooling_layer(lax.add, 0.)


def _normalize_by_window_size(dims, strides, padding):
    """The rescaler of ``AvgPool``: divide each pooled value by the number
    of input pixels its (padded) window covered."""
    def rescale(outputs, inputs, spec):
        if spec is None:
            unit_axes = (0, inputs.ndim - 1)
        else:
            unit_axes = (spec.index("N"), spec.index("C"))
        spatial_shape = tuple(d for i, d in enumerate(inputs.shape) if i not in unit_axes)
        counts = lax.reduce_window(jnp.ones(spatial_shape, dtype=inputs.dtype), 0.,
                                   lax.add, dims, strides, padding)
        for i in sorted(unit_axes):
            counts = jnp.expand_dims(counts, i)
        return outputs / counts
    return rescale


AvgPool = _pooling_layer(lax.add, 0., _normalize_by_window_size)


# ---------------------------------------------------------------------------
# Shape layers and dropout (SPEC EXL-6, EXL-7)
# ---------------------------------------------------------------------------

def _parameterless(output_shape_of, apply):
    def init_fun(rng, input_shape):
        return output_shape_of(input_shape), ()

    def apply_fun(params, inputs, **kwargs):
        return apply(inputs)
    return init_fun, apply_fun


def Flatten():
    """Reshape to (batch, everything else) (SPEC EXL-6)."""
    return _parameterless(lambda s: (s[0], math.prod(s[1:])),
                          lambda x: jnp.reshape(x, (x.shape[0], -1)))


Flatten = Flatten()


def Identity():
    """The identity layer (SPEC EXL-6)."""
    return _parameterless(lambda s: s, lambda x: x)


Identity = Identity()


def FanOut(num):
    """``num`` copies of the input, as a list (SPEC EXL-6)."""
    return _parameterless(lambda s: [s] * num, lambda x: [x] * num)


def FanInSum():
    """The sum of a list of inputs (Python ``sum``) (SPEC EXL-6)."""
    return _parameterless(lambda shapes: shapes[0], lambda xs: sum(xs))


FanInSum = FanInSum()


def FanInConcat(axis=-1):
    """A list of inputs concatenated along ``axis`` (SPEC EXL-6)."""
    def output_shape(shapes):
        ax = axis % len(shapes[0])
        size = sum(s[ax] for s in shapes)
        return shapes[0][:ax] + (size,) + shapes[0][ax + 1:]
    return _parameterless(output_shape, lambda xs: jnp.concatenate(xs, axis))


def Dropout(rate, mode="train"):
    """In ``'train'`` mode keep each input with probability ``rate`` (note:
    ``rate`` is the *keep* probability, as in JAX) and divide the kept ones
    by ``rate``; other modes are the identity.  ``apply_fun`` needs
    ``rng=`` (``ValueError`` otherwise) (SPEC EXL-7)."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get("rng", None)
        if rng is None:
            raise ValueError(
                "Dropout layer requires apply_fun to be called with a PRNG key "
                "argument. That is, instead of `apply_fun(params, inputs)`, call "
                "it like `apply_fun(params, inputs, rng)` where `rng` is a "
                "PRNG key (e.g. from `jax.random.key`).")
        if mode != "train":
            return inputs
        keep = random.bernoulli(rng, rate, inputs.shape)
        return jnp.where(keep, inputs / rate, 0)
    return init_fun, apply_fun


# ---------------------------------------------------------------------------
# Combinators (SPEC EXL-8 .. EXL-10)
# ---------------------------------------------------------------------------

def _layer_rngs(rng, count):
    """One key per sublayer from ``rng``, or ``None`` for each without one."""
    return random.split(rng, count) if rng is not None else (None,) * count


def serial(*layers):
    """Layers applied one after another (SPEC EXL-8).  ``init_fun`` splits
    off a fresh key for each layer in turn and returns the list of their
    params; ``apply_fun`` splits ``rng`` (if given) into one key per layer
    and passes the other keyword arguments to every layer."""
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, p = init(layer_rng, input_shape)
            params.append(p)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rngs = _layer_rngs(kwargs.pop("rng", None), len(layers))
        for apply, p, r in zip(apply_funs, params, rngs):
            inputs = apply(p, inputs, rng=r, **kwargs)
        return inputs
    return init_fun, apply_fun


def parallel(*layers):
    """Layers applied side by side to a sequence of inputs, one each
    (SPEC EXL-9).  ``init_fun`` returns the (lazy, as in JAX) pair
    ``zip(output_shapes, params)``; ``apply_fun`` returns a list."""
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, len(layers))
        return zip(*[init(r, s) for init, r, s in zip(init_funs, rngs, input_shape)])

    def apply_fun(params, inputs, **kwargs):
        rngs = _layer_rngs(kwargs.pop("rng", None), len(layers))
        return [apply(p, x, rng=r, **kwargs)
                for apply, p, x, r in zip(apply_funs, params, inputs, rngs)]
    return init_fun, apply_fun


def shape_dependent(make_layer):
    """A layer built by ``make_layer(input_shape)`` once the shape is known,
    at init and at every apply (SPEC EXL-10)."""
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)
    return init_fun, apply_fun
