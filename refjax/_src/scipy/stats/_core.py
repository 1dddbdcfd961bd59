"""``jax.scipy.stats.mode``, ``rankdata`` and ``sem`` (SPEC STA-7).

All three are jitted with their options static, as in JAX; JAX cannot look
at the data to honour ``nan_policy='raise'`` (or ``'omit'`` for ``mode``
and ``rankdata``), so those are its NotImplementedError.
"""
import collections
import math

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.lax import lax
from refjax._src.lax import sorting as lax_sorting
from refjax._src.lax.control_flow.conditionals import cond
from refjax._src.numpy import creation, lax_numpy, reductions, sorting, ufuncs, util
from refjax._src.numpy.vectorize import apply_along_axis
from refjax._src.scipy.stats._common import dtype_of, promote
from refjax._src.vmap_api import vmap

__all__ = ["ModeResult", "mode", "rankdata", "sem"]

ModeResult = collections.namedtuple("ModeResult", ["mode", "count"])

_NAN_POLICIES = ("propagate", "omit", "raise")


def _check_nan_policy(name, nan_policy):
    if nan_policy not in _NAN_POLICIES:
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy == "omit":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if nan_policy == "raise":
        raise NotImplementedError(
            f"In order to best JIT compile `{name}`, we cannot know whether `x` contains "
            f"nans. Please check if nans exist in `x` outside of the `{name}` function.")


def _mode_shape(shape, axis, keepdims):
    if axis is None:
        return tuple(1 for _ in shape) if keepdims else ()
    if keepdims:
        return tuple(1 if i == axis else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i != axis)


def _mode_of_column(column):
    """The smallest most frequent value of a 1-D array and its count; NaN
    and 0 (default float) when it is empty."""
    size = core.get_aval(column).shape[0]
    if size == 0:
        float_dtype = dtypes.default_float_dtype()
        return creation.array(np.nan, float_dtype), creation.array(0, float_dtype)
    values, counts = sorting.unique(column, return_counts=True, size=size)
    return values[reductions.argmax(counts)], reductions.max(counts)


@jit(static_argnames=("axis", "nan_policy", "keepdims"))
def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """The most frequent value along ``axis`` (all of ``a`` for None) and
    its count, as ``ModeResult(mode, count)``; ties go to the smallest
    value; ``a`` is made at least 1-D (SPEC STA-7)."""
    util.check_arraylike("mode", a)
    x = lax_numpy.atleast_1d(a)
    _check_nan_policy("mode", nan_policy)
    shape = lax_numpy.shape(x)
    if axis is not None:
        axis = core.canonicalize_axis(axis, len(shape))
    out_shape = _mode_shape(shape, axis, keepdims)
    if axis is None:
        axis, x = 0, lax_numpy.ravel(x)
    x = lax_numpy.moveaxis(x, axis, 0)
    rows = lax_numpy.shape(x)
    x = lax_numpy.reshape(x, (rows[0], math.prod(rows[1:])))
    values, counts = vmap(_mode_of_column, in_axes=1)(x)
    return ModeResult(lax_numpy.reshape(values, out_shape), lax_numpy.reshape(counts, out_shape))


_RANK_METHODS = ("average", "min", "max", "dense", "ordinal")


@jit(static_argnames=("method", "axis", "nan_policy"))
def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """Ranks from 1, in the default float dtype: ties get the average,
    lowest or highest of their positions, consecutive ranks (``dense``) or
    their order of appearance (``ordinal``).  Without ``axis`` ``a`` is
    flattened; with it each 1-D slice is ranked.  Any NaN makes the whole
    result NaN (SPEC STA-7)."""
    util.check_arraylike("rankdata", a)
    _check_nan_policy("rankdata", nan_policy)
    if method not in _RANK_METHODS:
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        return apply_along_axis(rankdata, axis, a, method)
    a = lax_numpy.ravel(a)
    out_dtype = dtypes.default_float_dtype()
    has_nan = reductions.any(ufuncs.isnan(a))
    return cond(has_nan, lambda v: creation.full_like(v, np.nan, out_dtype),
                lambda v: _ranks(v, method, out_dtype), a)


def _ranks(a, method, out_dtype):
    """The ranks of a 1-D NaN-free array, from a stable sort."""
    size = lax_numpy.shape(a)[0]
    ordered, order = lax_sorting.sort_key_val(a, creation.arange(size))
    position = creation.empty_like(order).at[order].set(creation.arange(size, dtype=order.dtype))
    if method == "ordinal":
        return lax.convert_element_type(ufuncs.add(position, 1), out_dtype)
    starts = lax_numpy.concatenate([creation.array([True]),
                                    ufuncs.not_equal(ordered[1:], ordered[:-1])])
    dense = reductions.cumsum(starts)[position]
    if method == "dense":
        return lax.convert_element_type(dense, out_dtype)
    # bounds[j]: the sorted position where the j-th group of ties starts;
    # bounds[number of groups] is the size.
    bounds = lax_numpy.nonzero(starts, size=size + 1, fill_value=size)[0]
    bounds = lax.convert_element_type(bounds, out_dtype)
    if method == "max":
        return bounds[dense]
    if method == "min":
        return ufuncs.add(bounds[ufuncs.subtract(dense, 1)], 1)
    return ufuncs.multiply(0.5, ufuncs.add(ufuncs.add(bounds[dense],
                                                      bounds[ufuncs.subtract(dense, 1)]), 1))


@jit(static_argnames=("axis", "nan_policy", "keepdims"))
def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """The standard error of the mean, ``std(a, ddof) / sqrt(n)`` along
    ``axis`` (all of ``a`` for None); with ``nan_policy='omit'`` NaNs are
    left out of both (``nanstd`` and the count of the others); ``'raise'``
    or anything else is a ValueError (SPEC STA-7)."""
    b, = promote("sem", a)
    out_dtype = dtype_of(b)
    if nan_policy == "propagate":
        shape = lax_numpy.shape(b)
        size = math.prod(shape) if axis is None else shape[axis]
        spread = reductions.std(b, axis, ddof=ddof, keepdims=keepdims)
        return ufuncs.true_divide(spread, lax_numpy.astype(ufuncs.sqrt(size), out_dtype))
    if nan_policy == "omit":
        count = reductions.sum(ufuncs.logical_not(ufuncs.isnan(b)), axis, keepdims=keepdims)
        spread = reductions.nanstd(b, axis, ddof=ddof, keepdims=keepdims)
        return ufuncs.true_divide(spread, lax_numpy.astype(ufuncs.sqrt(count), out_dtype))
    raise ValueError(f"{nan_policy} is not supported")
