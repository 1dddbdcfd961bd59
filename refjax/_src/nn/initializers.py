"""``jax.nn.initializers``: functions that make weight arrays from a key
and a shape (SPEC OPS-5 .. OPS-8).

An initializer is called as ``init(key, shape, dtype=None,
out_sharding=None)``; ``dtype`` defaults to the default float dtype (or
the one the builder was given).  The random ones draw with ``jax.random``
in JAX's order, so a key gives the same weights as in JAX, and scale the
draw in the target dtype.
"""
import math
import typing

import numpy as np

from refjax._src import core, dtypes
from refjax._src.numpy import creation, lax_numpy, ufuncs
from refjax._src.placement import reshard
from refjax._src.random import basic as random
from refjax._src.random import continuous

# The standard deviations of a standard normal truncated to (-2, 2), and of
# a complex standard normal whose modulus is truncated to 2.
_TRUNCATED_STD = .87962566103423978
_COMPLEX_TRUNCATED_STD = .95311164380491208


@typing.runtime_checkable
class Initializer(typing.Protocol):
    """What every initializer is: ``init(key, shape, dtype=None,
    out_sharding=None) -> Array`` (SPEC OPS-5)."""

    def __call__(self, key, shape, dtype=None, out_sharding=None):
        raise NotImplementedError


def _dtype(dtype):
    return dtypes.default_float_dtype() if dtype is None else dtype


def _placed(x, out_sharding):
    return x if out_sharding is None else reshard(x, out_sharding)


def zeros(key, shape, dtype=None, out_sharding=None):
    """An array of zeros; ``key`` is ignored (SPEC OPS-5)."""
    return _placed(creation.zeros(shape, _dtype(dtype)), out_sharding)


def ones(key, shape, dtype=None, out_sharding=None):
    """An array of ones; ``key`` is ignored (SPEC OPS-5)."""
    return _placed(creation.ones(shape, _dtype(dtype)), out_sharding)


def constant(value, dtype=None):
    """An initializer filling arrays with ``value`` (SPEC OPS-5)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        return _placed(creation.full(shape, value, dtype=_dtype(dtype)), out_sharding)
    return init


def uniform(scale=1e-2, dtype=None):
    """An initializer drawing uniformly from ``[0, scale)`` (SPEC OPS-6)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _dtype(dtype)
        draw = random.uniform(key, shape, dtype)
        return _placed(ufuncs.multiply(draw, creation.array(scale, dtype)), out_sharding)
    return init


def normal(stddev=1e-2, dtype=None):
    """An initializer drawing from a normal with mean 0 and standard
    deviation ``stddev`` (SPEC OPS-6)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _dtype(dtype)
        draw = random.normal(key, shape, dtype)
        return _placed(ufuncs.multiply(draw, creation.array(stddev, dtype)), out_sharding)
    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    """An initializer drawing a standard normal truncated to ``(lower,
    upper)``, then multiplied by ``stddev`` (no variance correction)
    (SPEC OPS-6)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _dtype(dtype)
        draw = continuous.truncated_normal(key, lower, upper, shape, dtype)
        return _placed(ufuncs.multiply(draw, creation.array(stddev, dtype)), out_sharding)
    return init


def _size(shape, axes):
    return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)


def _fans(shape, in_axis, out_axis, batch_axis):
    """(fan_in, fan_out) of a weight shape: the input and output sizes times
    the receptive field, the product of the axes that are none of the
    three (SPEC OPS-7)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(
            f"Can't compute input and output sizes of a {len(shape)}-dimensional weights "
            "tensor with default in_axis. Must be at least 2D or specify in_axis "
            "explicitly.")
    in_size, out_size = _size(shape, in_axis), _size(shape, out_axis)
    receptive = math.prod(shape) / in_size / out_size / _size(shape, batch_axis)
    return in_size * receptive, out_size * receptive


def _denominator(mode, fan_in, fan_out):
    if mode == "fan_in":
        return fan_in
    if mode == "fan_out":
        return fan_out
    if mode == "fan_avg":
        return (fan_in + fan_out) / 2
    if mode == "fan_geo_avg":
        return (fan_in * fan_out) ** 0.5
    raise ValueError(f"invalid mode for variance scaling initializer: {mode}")


def _complex_parts(key, shape, dtype):
    """Uniform draws for a complex sample's modulus and angle, and the
    complex dtype they build."""
    key_r, key_theta = random.split(key)
    real = np.array(0, dtype).real.dtype
    cdtype = dtypes.canonicalize_dtype(
        np.complex128 if real == np.float64 else np.complex64)
    u_r = random.uniform(key_r, shape, real).astype(cdtype)
    theta = ufuncs.multiply(2 * np.pi, random.uniform(key_theta, shape, real).astype(cdtype))
    return u_r, ufuncs.exp(ufuncs.multiply(1j, theta)), cdtype


def _complex_uniform(key, shape, dtype):
    """Uniform on the disk of the complex plane with unit variance."""
    u_r, phase, _ = _complex_parts(key, shape, dtype)
    return ufuncs.multiply(ufuncs.sqrt(ufuncs.multiply(2, u_r)), phase)


def _complex_truncated_normal(key, upper, shape, dtype):
    """A complex normal of unit variance whose modulus is cut at ``upper``."""
    u_r, phase, cdtype = _complex_parts(key, shape, dtype)
    top = ufuncs.subtract(1, ufuncs.exp(creation.array(-(upper ** 2), cdtype)))
    t = ufuncs.multiply(top, u_r)
    return ufuncs.multiply(ufuncs.sqrt(ufuncs.negative(ufuncs.log(ufuncs.subtract(1, t)))),
                           phase)


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None):
    """An initializer whose draws have variance ``scale / n``, n the fan
    chosen by ``mode`` ('fan_in', 'fan_out', 'fan_avg', 'fan_geo_avg'),
    from ``distribution`` 'truncated_normal' (cut at two standard
    deviations, then rescaled), 'normal' or 'uniform' (an interval, or a
    disk for complex dtypes) (SPEC OPS-7)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        shape = core.canonicalize_shape(shape)
        dtype = _dtype(dtype)
        fan_in, fan_out = _fans(shape, in_axis, out_axis, batch_axis)
        variance = creation.array(scale / _denominator(mode, fan_in, fan_out), dtype=dtype)
        floating = dtypes.issubdtype(dtype, np.floating)
        if distribution == "truncated_normal":
            std = _TRUNCATED_STD if floating else _COMPLEX_TRUNCATED_STD
            stddev = ufuncs.true_divide(ufuncs.sqrt(variance), creation.array(std, dtype))
            draw = (continuous.truncated_normal(key, -2, 2, shape, dtype) if floating
                    else _complex_truncated_normal(key, 2, shape, dtype))
            out = ufuncs.multiply(draw, stddev)
        elif distribution == "normal":
            out = ufuncs.multiply(random.normal(key, shape, dtype), ufuncs.sqrt(variance))
        elif distribution == "uniform":
            if floating:
                out = ufuncs.multiply(random.uniform(key, shape, dtype, -1),
                                      ufuncs.sqrt(ufuncs.multiply(3, variance)))
            else:
                out = ufuncs.multiply(_complex_uniform(key, shape, dtype),
                                      ufuncs.sqrt(variance))
        else:
            raise ValueError("invalid distribution for variance scaling initializer: "
                             f"{distribution}")
        return _placed(out, out_sharding)
    return init


def _named(scale, mode, distribution):
    """A builder of ``variance_scaling(scale, mode, distribution, ...)``."""
    def builder(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
        return variance_scaling(scale, mode, distribution, in_axis=in_axis,
                                out_axis=out_axis, batch_axis=batch_axis, dtype=dtype)
    return builder


# The named variance-scaling schemes (SPEC OPS-7).
glorot_uniform = xavier_uniform = _named(1.0, "fan_avg", "uniform")
glorot_normal = xavier_normal = _named(1.0, "fan_avg", "truncated_normal")
lecun_uniform = _named(1.0, "fan_in", "uniform")
lecun_normal = _named(1.0, "fan_in", "truncated_normal")
he_uniform = kaiming_uniform = _named(2.0, "fan_in", "uniform")
he_normal = kaiming_normal = _named(2.0, "fan_in", "truncated_normal")
for _f, _name in ((glorot_uniform, "glorot_uniform"), (glorot_normal, "glorot_normal"),
                  (lecun_uniform, "lecun_uniform"), (lecun_normal, "lecun_normal"),
                  (he_uniform, "he_uniform"), (he_normal, "he_normal")):
    _f.__name__ = _f.__qualname__ = _name


def _no_sharding(out_sharding):
    if out_sharding is not None:
        raise NotImplementedError(
            "orthogonal initializers do not take out_sharding (as in JAX); place the "
            "result with jax.device_put or jax.reshard instead.")


def orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An initializer of (scaled) matrices with orthonormal rows or columns,
    whichever are fewer, along ``column_axis``; the other axes are
    flattened into rows (SPEC OPS-8)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        _no_sharding(out_sharding)
        dtype = _dtype(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if 0 in shape:
            return creation.zeros(shape, dtype=dtype)
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        q = continuous.orthogonal(key, n_rows, (), dtype, n_cols)
        rest = tuple(np.delete(np.array(shape), column_axis))
        q = lax_numpy.moveaxis(lax_numpy.reshape(q, rest + (n_cols,)), -1, column_axis)
        return ufuncs.multiply(creation.array(scale, dtype), q)
    return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An initializer of 3D-5D convolution kernels that are zero except an
    orthogonal matrix at the spatial centre (SPEC OPS-8)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        _no_sharding(out_sharding)
        dtype = _dtype(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return creation.zeros(shape, dtype=dtype).at[centre].set(matrix)
    return init
