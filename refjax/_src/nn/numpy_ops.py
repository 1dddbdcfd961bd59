"""The ``jax.numpy`` operations that ``jax.nn`` and ``jax.scipy.special`` use.

``jax.nn`` is written with ``jnp.where``, ``jnp.max``, ``jnp.sum``,
``jnp.mean`` and friends.  The elementwise arithmetic comes from
``refjax._src.numpy.ufuncs``; the few operations below are written here on
``lax`` with ``util``'s promotion, composing the primitives in the order JAX
composes them, so that these modules do not depend on the rest of
``jax.numpy`` being finished.
"""
import builtins
import math

import numpy as np

from refjax._src import core
from refjax._src import dtypes
from refjax._src.array import Array
from refjax._src.lax import lax
from refjax._src.numpy import util


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------

def ensure_arraylike(fun_name, *args):
    """``check_arraylike`` then arrays: Python scalars become weak arrays."""
    util.check_arraylike(fun_name, *args)
    return [lax._convert_element_type(a, None, core.get_aval(a).weak_type)
            for a in args]


def asarray(x):
    """``jnp.asarray`` for what ``one_hot`` accepts (arrays, tracers, lists)."""
    if isinstance(x, Array):
        return x
    from refjax._src.numpy_creation import asarray as _asarray
    return _asarray(x)


def dtype_of(x):
    return core.get_aval(x).dtype


def ndim_of(x):
    return core.get_aval(x).ndim


def shape_of(x):
    return core.get_aval(x).shape


def const(x, value):
    """``value`` as a strongly typed scalar of ``x``'s dtype (like ``lax._const``)."""
    return lax._convert_element_type(value, dtype_of(x), False)


def full_like(x, value):
    """``lax.full_like(x, value)``: ``x``'s shape, dtype and weak type."""
    aval = core.get_aval(x)
    scalar = lax._convert_element_type(value, aval.dtype, aval.weak_type)
    return lax.broadcast_in_dim(scalar, aval.shape, ()) if aval.shape else scalar


def astype(x, dtype):
    """``x.astype(dtype)``: a strong ``convert_element_type``."""
    dt = dtypes.check_user_dtype(dtype, "astype")
    return lax._convert_element_type(x, dt, False)


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------

def broadcast_arrays(*args):
    """Broadcast to one shape (rank promotion then ``broadcast_in_dim``)."""
    shapes = [shape_of(a) for a in args]
    if builtins.all(s == shapes[0] for s in shapes):
        return list(args)
    shape = np.broadcast_shapes(*shapes)
    return [lax.broadcast_in_dim(a, shape, tuple(range(len(shape) - len(s), len(shape))))
            for a, s in zip(args, shapes)]


def where(condition, x, y):
    """``jnp.where(condition, x, y)``: promote ``x, y``, broadcast, ``select_n``."""
    condition, x, y = ensure_arraylike("where", condition, x, y)
    if dtype_of(condition) != dtypes.bool_:
        condition = lax.ne(condition, const(condition, 0))
    x, y = util.promote_dtypes(x, y)
    if ndim_of(condition) == 0:
        x, y = broadcast_arrays(x, y)
    else:
        condition, x, y = broadcast_arrays(condition, x, y)
    return lax.select_n(condition, y, x)


# The reductions below take a mask argument called ``where``, which hides
# this function inside them.
where_ = where


def abs(x):  # noqa: A001 - mirrors jnp.abs
    """``jnp.abs``: the ``abs`` primitive; unsigned and bool pass through."""
    x, = util.promote_args("abs", x)
    dt = dtype_of(x)
    if dt == dtypes.bool_ or dtypes.issubdtype(dt, np.unsignedinteger):
        return x
    return lax.abs(x)


def isnan(x):
    """``jnp.isnan``: ``x != x`` (never true for integers and booleans)."""
    x, = util.promote_args("isnan", x)
    return lax.ne(x, x)


def isfinite(x):
    """``jnp.isfinite`` for real floating ``x`` (the ``is_finite`` primitive)."""
    return lax.is_finite(x)


def logaddexp(x1, x2):
    """``jnp.logaddexp``: ``max + log1p(exp(-|x1 - x2|))`` (NaN-safe select).

    Where ``x1 - x2`` is NaN (a NaN operand, or two infinities of the same
    sign) the answer is ``x1 + x2``, which is that NaN or that infinity.
    """
    x1, x2 = util.promote_args_inexact("logaddexp", x1, x2)
    amax = lax.max(x1, x2)
    delta = lax.sub(x1, x2)
    return lax.select(lax.ne(delta, delta), lax.add(x1, x2),
                      lax.add(amax, lax.log1p(lax.exp(lax.neg(lax.abs(delta))))))


def clip(x, lo=None, hi=None):
    """``jnp.clip``: ``maximum(lo, x)`` then ``minimum(hi, x)``, promoting."""
    from refjax._src.numpy import ufuncs
    util.check_arraylike("clip", x)
    if lo is not None:
        x = ufuncs.maximum(lo, x)
    if hi is not None:
        x = ufuncs.minimum(hi, x)
    return x


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

def reduction_axes(x, axis):
    """Canonical, duplicate-free axes of ``x`` for ``axis`` (None: all)."""
    ndim = ndim_of(x)
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    canonical = tuple(core.canonicalize_axis(a, ndim) for a in axes)
    if len(set(canonical)) != len(canonical):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return canonical


def _check_where(fun_name, where):
    """A mask must be an array (a list is rejected naming the reduction)."""
    if where is not None:
        util.check_arraylike(fun_name, where)


def keep_dims(result, ndim, axes):
    """Reinsert the reduced ``axes`` as size-1 axes (``keepdims=True``)."""
    kept = [d for d in range(ndim) if d not in axes]
    shape = [1] * ndim
    for d, size in zip(kept, shape_of(result)):
        shape[d] = size
    return lax.broadcast_in_dim(result, tuple(shape), tuple(kept))


def _upcast_dtype(dt):
    """Half-precision floats are summed in float32, as JAX does."""
    return np.dtype(np.float32) if dt in (dtypes.float16, dtypes.bfloat16) else dt


def max(x, axis=None, keepdims=False, where=None, initial=None):  # noqa: A001
    """``jnp.max``: masked elements become ``-inf`` (floats) before reducing."""
    x, = ensure_arraylike("max", x)
    _check_where("max", where)
    axes = reduction_axes(x, axis)
    if where is not None:
        x = where_(where, x, _lowest(dtype_of(x)))
    out = lax.reduce_max(x, axes)
    if initial is not None:
        out = lax.max(lax._convert_element_type(initial, dtype_of(out), False), out)
    return keep_dims(out, ndim_of(x), axes) if keepdims else out


def _lowest(dt):
    if dtypes.issubdtype(dt, np.floating):
        return -np.inf
    return dtypes.iinfo(dt).min if dt != dtypes.bool_ else False


def sum(x, axis=None, keepdims=False, where=None):  # noqa: A001
    """``jnp.sum`` of an inexact ``x``; float16/bfloat16 accumulate in float32."""
    x, = ensure_arraylike("sum", x)
    _check_where("sum", where)
    axes = reduction_axes(x, axis)
    dt = dtype_of(x)
    if where is not None:
        x = where_(where, x, 0)
    x = lax._convert_element_type(x, _upcast_dtype(dt), core.get_aval(x).weak_type)
    out = lax.reduce_sum(x, axes)
    if keepdims:
        out = keep_dims(out, ndim_of(x), axes)
    return lax._convert_element_type(out, dt, core.get_aval(out).weak_type)


def mean(x, axis=None, keepdims=False, where=None):
    """``jnp.mean``: the sum in float (float32 for halves) over the count."""
    x, = util.promote_args_inexact("mean", x)
    _check_where("mean", where)
    axes = reduction_axes(x, axis)
    dt = dtype_of(x)
    compute = _upcast_dtype(dt)
    if where is None:
        count = math.prod(shape_of(x)[a] for a in axes)
        count = lax._convert_element_type(float(count), compute, False)
    else:
        mask = broadcast_arrays(*ensure_arraylike("mean", where, x))[0]
        mask = astype(astype(mask, dtypes.default_int_dtype()), compute)
        count = lax.reduce_sum(mask, axes)
        if keepdims:
            count = keep_dims(count, ndim_of(x), axes)
        x = where_(where, x, 0)
    total = lax.reduce_sum(lax._convert_element_type(x, compute, False), axes)
    if keepdims:
        total = keep_dims(total, ndim_of(x), axes)
    return lax._convert_element_type(lax.div(total, count), dt,
                                     core.get_aval(x).weak_type)
