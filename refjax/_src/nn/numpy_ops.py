"""The ``jax.numpy`` operations that ``jax.nn`` and ``jax.scipy.special`` use.

``jax.nn`` is written with ``jnp.where``, ``jnp.max``, ``jnp.sum``,
``jnp.mean`` and friends.  The elementwise arithmetic comes from
``refjax._src.numpy.ufuncs`` and the reductions from
``refjax._src.numpy.reductions``; the few operations below gather what
these modules need under the names JAX's source uses, composing the
primitives in the order JAX composes them so that jaxprs and derivatives
agree.
"""
import builtins

import numpy as np

from refjax._src import core, dtypes
from refjax._src.array import Array
from refjax._src.lax import lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.numpy import reductions, ufuncs, util

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
    from refjax._src.numpy.creation import asarray as _asarray
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
    return lax_shapes.broadcast_in_dim(scalar, aval.shape, ()) if aval.shape else scalar


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
    return [lax_shapes.broadcast_in_dim(a, shape, tuple(range(len(shape) - len(s), len(shape))))
            for a, s in zip(args, shapes)]


def where(condition, x, y):
    """``jnp.where(condition, x, y)``: promote ``x, y``, broadcast, ``select_n``.

    This is ``jax.numpy``'s jitted ``_where``, so jaxprs show
    ``jit[name=_where ...]`` where JAX's do.
    """
    return util._where(condition, x, y)


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
    """``jnp.logaddexp``, with its custom JVP rule (SPEC NP-25, AD-74)."""
    return ufuncs.logaddexp(x1, x2)


def clip(x, lo=None, hi=None):
    """``jnp.clip`` unjitted: complex values are refused as there (SPEC NP-23;
    ``nn.sparse_sigmoid`` of a complex array, found by the bad-input fuzz)."""
    return ufuncs._clip(x, lo, hi)


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


def keep_dims(result, ndim, axes):
    """Reinsert the reduced ``axes`` as size-1 axes (``keepdims=True``)."""
    kept = [d for d in range(ndim) if d not in axes]
    shape = [1] * ndim
    for d, size in zip(kept, shape_of(result)):
        shape[d] = size
    return lax_shapes.broadcast_in_dim(result, tuple(shape), tuple(kept))


def max(x, axis=None, keepdims=False, where=None, initial=None):  # noqa: A001
    """``jnp.max``: masked elements are left out of the reduction."""
    return reductions.max(x, axis=axis, keepdims=keepdims, where=where, initial=initial)


def sum(x, axis=None, keepdims=False, where=None):  # noqa: A001
    """``jnp.sum``; float16/bfloat16 accumulate in float32."""
    return reductions.sum(x, axis=axis, keepdims=keepdims, where=where)


def mean(x, axis=None, keepdims=False, where=None):
    """``jnp.mean``: the sum in float (float32 for halves) over the count."""
    return reductions.mean(x, axis=axis, keepdims=keepdims, where=where)
