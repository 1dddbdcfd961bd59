"""Convolution and differences in ``jax.numpy`` (SPEC NP-55, NP-43).

Split from ``lax_numpy.py``, whose conventions hold here: each function is
composed of ``lax`` primitives as JAX composes it, wrapped in a ``jit`` of
the same name where JAX wraps it.
"""
import builtins

import numpy as np

from refjax._src import dtypes
from refjax._src.api import jit
from refjax._src.lax import lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax.convolution import conv_general_dilated
from refjax._src.numpy import creation as creation
from refjax._src.numpy import util
from refjax._src.numpy.lax_numpy import (
    _aval, _canonicalize_axis, _ensure, _flip, _static_int, broadcast_to, concatenate,
    ravel,
)

__all__ = [
    "convolve", "correlate", "diff", "ediff1d",
]


# ---------------------------------------------------------------------------
# Convolution (SPEC NP-55) and differences (SPEC NP-43)
# ---------------------------------------------------------------------------

@jit(static_argnames=("mode", "op", "precision", "preferred_element_type"))
def _conv(x, y, mode, op, precision, preferred_element_type=None):
    if _aval(x).ndim != 1 or _aval(y).ndim != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:
        if _aval(x).shape[0] == 0 or _aval(y).shape[0] == 0:
            raise ValueError(f"{op}: inputs cannot be empty, got shapes "
                             f"{_aval(x).shape} and {_aval(y).shape}.")
        x, y = util.promote_dtypes_inexact(x, y)
    else:
        if _aval(x).shape[0] == 0 or _aval(y).shape[0] == 0:
            raise ValueError(f"{op}: inputs cannot be empty, got shapes "
                             f"{_aval(x).shape} and {_aval(y).shape}.")
        x, y = util.promote_dtypes(x, y)
    reverse = False
    if op == "correlate":
        if dtypes.issubdtype(_aval(y).dtype, np.complexfloating):
            y = lax.conj(y)
        if _aval(x).shape[0] < _aval(y).shape[0]:
            x, y, reverse = y, x, True
    else:
        if _aval(x).shape[0] < _aval(y).shape[0]:
            x, y = y, x
        y = _flip(y, 0)
    k = _aval(y).shape[0]
    if mode == "valid":
        padding = [(0, 0)]
    elif mode == "same":
        padding = [(k // 2, k - k // 2 - 1)]
    elif mode == "full":
        padding = [(k - 1, k - 1)]
    else:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    result = conv_general_dilated(lax_shapes.expand_dims(x, (0, 1)), lax_shapes.expand_dims(y, (0, 1)),
                                  (1,), padding, precision=precision,
                                  preferred_element_type=preferred_element_type)
    result = lax_shapes.squeeze(result, (0, 1))
    return lax_shapes.rev(result, (0,)) if reverse else result


@jit(static_argnames=("mode", "precision", "preferred_element_type"))
def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """1-d discrete convolution (inputs promoted to an inexact dtype), one
    ``conv_general_dilated`` with the shorter input flipped (SPEC NP-55)."""
    a, v = _ensure("convolve", a, v)
    return _conv(a, v, mode=mode, op="convolve", precision=precision,
                 preferred_element_type=preferred_element_type)


@jit(static_argnames=("mode", "precision", "preferred_element_type"))
def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """1-d cross-correlation (``v`` conjugated), 'valid' by default."""
    a, v = _ensure("correlate", a, v)
    return _conv(a, v, mode=mode, op="correlate", precision=precision,
                 preferred_element_type=preferred_element_type)


@jit(static_argnames=("n", "axis"))
def diff(a, n=1, axis=-1, prepend=None, append=None):
    """``n``-th discrete difference along ``axis`` (``!=`` for booleans),
    after joining ``prepend``/``append`` (scalars broadcast) (SPEC NP-43).
    ``n`` and ``axis`` are read as integers before anything else; ``n == 0``
    returns the input before ``n < 0`` or the rank is checked (SPEC NP-74)."""
    arr, = _ensure("diff", a)
    # JAX reads n and axis as integers first, then returns for n == 0.
    n = _static_int(n, "'n' argument of jnp.diff")
    axis = _static_int(axis, "'axis' argument of jnp.diff")
    if n == 0:
        return arr
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    nd = _aval(arr).ndim
    if nd == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = _canonicalize_axis(axis, nd)
    parts = [arr]
    if prepend is not None:
        parts.insert(0, _diff_edge(prepend, arr, axis))
    if append is not None:
        parts.append(_diff_edge(append, arr, axis))
    if len(parts) > 1:
        arr = concatenate(parts, axis)
    op = lax.ne if _aval(arr).dtype == np.bool_ else lax.sub
    for _ in range(n):
        arr = op(_static_slice(arr, axis, 1, None), _static_slice(arr, axis, 0, -1))
    return arr


def _diff_edge(extra, arr, axis):
    """``prepend``/``append`` of ``diff``: a scalar becomes a size-1 slab."""
    extra, = _ensure("diff", extra)
    if _aval(extra).ndim == 0:
        sh = list(_aval(arr).shape)
        sh[axis] = 1
        extra = broadcast_to(extra, tuple(sh))
    return extra


def _static_slice(x, axis, start, stop):
    """``x[..., start:stop, ...]`` (Python slice bounds) as one ``slice``
    with ``strides=None``."""
    sh = _aval(x).shape
    start, stop, _ = builtins.slice(start, stop).indices(sh[axis])
    starts = [0] * len(sh)
    limits = list(sh)
    starts[axis], limits[axis] = start, builtins.max(start, stop)
    return lax_shapes.slice(x, starts, limits)


@jit
def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened array, with optional values before/after."""
    arr = ravel(*_ensure("ediff1d", ary))
    result = lax.sub(_static_slice(arr, 0, 1, None), _static_slice(arr, 0, 0, -1))
    dt = _aval(arr).dtype
    if to_begin is not None:
        result = concatenate((ravel(creation.asarray(to_begin, dtype=dt)), result))
    if to_end is not None:
        result = concatenate((result, ravel(creation.asarray(to_end, dtype=dt))))
    return result
