"""``jnp.pad`` and its modes (SPEC NP-44).

Split from ``lax_numpy.py``, whose conventions hold here: each mode is
composed of ``lax`` primitives as JAX composes it, inside one ``jit`` named
``_pad`` as in JAX.
"""
import builtins

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.lax import lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.numpy import creation as creation
from refjax._src.numpy import reductions, ufuncs
from refjax._src.numpy.lax_numpy import (
    _aval, _ensure, _flip, broadcast_to, repeat, squeeze,
)
from refjax._src.numpy.vectorize import apply_along_axis

__all__ = ["pad"]


def _pairs(values, nd, name):
    """``values`` broadcast to ``nd`` (before, after) pairs, as jnp.pad reads them."""
    arr = np.asarray(values)
    if arr.dtype == object:
        raise TypeError(f"`{name}` entries must be the same shape: {values}")
    if arr.shape == (nd, 2):
        return tuple((arr[i, 0], arr[i, 1]) for i in range(nd))
    if arr.shape == (1, 2):
        return tuple((arr[0, 0], arr[0, 1]) for _ in range(nd))
    if arr.shape == (2,):
        return tuple((arr[0], arr[1]) for _ in range(nd))
    if arr.shape == (1,):
        return tuple((arr[0], arr[0]) for _ in range(nd))
    if arr.shape == ():
        return tuple((arr[()], arr[()]) for _ in range(nd))
    raise ValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {arr.shape}. "
                     f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")


_PAD_KWARGS = {"constant": ("constant_values",), "edge": (), "wrap": (), "empty": (),
               "reflect": ("reflect_type",), "symmetric": ("reflect_type",),
               "linear_ramp": ("end_values",), "maximum": ("stat_length",),
               "minimum": ("stat_length",), "mean": ("stat_length",),
               "median": ("stat_length",)}


def pad(array, pad_width, mode="constant", **kwargs):
    """Pad ``array`` (SPEC NP-44): modes 'constant' (``constant_values``, a
    scalar or per-axis pairs), 'edge', 'wrap', 'reflect', 'symmetric' (with
    ``reflect_type`` 'even' or 'odd'), 'linear_ramp' (``end_values``), the
    statistics 'maximum', 'minimum', 'mean', 'median' (over ``stat_length``
    edge elements, or the whole axis), 'empty' (zeros), or a function
    ``mode(vector, (before, after), axis, kwargs)`` applied along each axis."""
    array, = _ensure("pad", array)
    nd = _aval(array).ndim
    pad_width = core.concrete_or_error(None, pad_width,
                                       "pad_width argument of jnp.pad")
    pairs = _pairs(pad_width, nd, "pad_width")
    if pairs and not builtins.all(np.issubdtype(np.asarray(p).dtype, np.integer)
                                  for pair in pairs for p in pair):
        raise TypeError("`pad_width` must be of integral type.")
    if callable(mode):
        return _pad_func(array, tuple(pairs), mode, **kwargs)
    if mode not in _PAD_KWARGS:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    unsupported = set(kwargs) - set(_PAD_KWARGS[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': "
                         f"{unsupported}")
    stat_length = kwargs.get("stat_length")
    if stat_length is not None:
        stat_length = _pairs(stat_length, nd, "stat_length")
    return _pad(array, tuple(pairs), mode, kwargs.get("constant_values", 0),
                kwargs.get("reflect_type", "even"), stat_length,
                _pairs(kwargs.get("end_values", 0), nd, "end_values"))


_STATS = {"maximum": reductions.amax, "minimum": reductions.amin,
          "mean": reductions.mean, "median": reductions.median}


@jit(static_argnums=(1, 2, 4, 5, 6))
def _pad(array, pad_width, mode, constant_values, reflect_type, stat_length,
         end_values):
    nd = _aval(array).ndim
    if nd == 0:
        return array
    if builtins.any(p < 0 for pair in pad_width for p in pair):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        return _pad_constant(array, pad_width, creation.asarray(constant_values))
    if mode == "wrap":
        return _pad_wrap(array, pad_width)
    if mode in ("reflect", "symmetric"):
        return _pad_reflect(array, pad_width, mode, reflect_type)
    if mode == "edge":
        return _pad_edge(array, pad_width)
    if mode == "linear_ramp":
        return _pad_linear_ramp(array, pad_width, end_values)
    if mode in _STATS:
        return _pad_stats(array, pad_width, stat_length, _STATS[mode])
    return _pad_empty(array, pad_width)


def _pad_constant(array, pad_width, values):
    aval = _aval(array)
    values = lax._convert_element_type(values, aval.dtype, aval.weak_type)
    vnd = _aval(values).ndim
    if vnd == 0:
        return lax_shapes.pad(array, values, [(lo, hi, 0) for lo, hi in pad_width])
    if vnd == 1 and _aval(values).shape[-1] == 1:
        return lax_shapes.pad(array, squeeze(values), [(lo, hi, 0) for lo, hi in pad_width])
    if vnd == 1 and _aval(values).shape[-1] != 2:
        raise ValueError("jnp.pad: constant_values has unsupported shape "
                         f"{_aval(values).shape}. If the shape is 1D or 2D, the last "
                         "dimension must be of size 1 or 2.")
    values = broadcast_to(values, (aval.ndim, 2))
    for i in range(aval.ndim):
        for side in (0, 1):
            if pad_width[i][side] != 0:
                widths = [(0, 0, 0)] * aval.ndim
                widths[i] = (pad_width[i][0], 0, 0) if side == 0 else (0, pad_width[i][1], 0)
                value = lax_shapes.squeeze(lax_shapes.slice(values, (i, side), (i + 1, side + 1)), (0, 1))
                array = lax_shapes.pad(array, value, widths)
    return array


def _no_padding_on_empty(pair, mode):
    if pair[0] > 0 or pair[1] > 0:
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")


def _pad_wrap(array, pad_width):
    for i in range(_aval(array).ndim):
        n = _aval(array).shape[i]
        if n == 0:
            _no_padding_on_empty(pad_width[i], "wrap")
            continue
        left_reps, left_rem = divmod(int(pad_width[i][0]), n)
        right_reps, right_rem = divmod(int(pad_width[i][1]), n)
        parts = []
        if left_rem > 0:
            parts.append(lax_shapes.slice_in_dim(array, n - left_rem, n, axis=i))
        parts += (left_reps + right_reps + 1) * [array]
        if right_rem > 0:
            parts.append(lax_shapes.slice_in_dim(array, 0, right_rem, axis=i))
        array = lax_shapes.concatenate(parts, i)
    return array


def _pad_reflect(array, pad_width, mode, reflect_type):
    """Mirror images of the array, without ('reflect') or with ('symmetric')
    the edge element, repeated while padding remains; 'odd' reflects about
    the edge value (``2 * edge - x``)."""
    for i in range(_aval(array).ndim):
        n = _aval(array).shape[i]
        if n == 0:
            _no_padding_on_empty(pad_width[i], mode)
            continue
        if pad_width[i][0] == 0 and pad_width[i][1] == 0:
            continue
        for before, padding in ((True, int(pad_width[i][0])), (False, int(pad_width[i][1]))):
            array = _reflect_side(array, i, n, padding, before, mode, reflect_type)
    return array


def _reflect_side(array, i, n, padding, before, mode, reflect_type):
    edge = (lax_shapes.slice_in_dim(array, 0, 1, axis=i) if before
            else lax_shapes.slice_in_dim(array, -1, None, axis=i))
    offset = 1 if (mode == "reflect" and n > 1) else 0
    while padding > 0:
        cur = builtins.min(padding, n - offset)
        padding -= cur
        if before:
            start, stop = offset, offset + cur
        else:
            start = -(cur + offset)
            stop = None if (mode == "symmetric" or n == 1) else -1
        x = _flip(lax_shapes.slice_in_dim(array, start, stop, axis=i), i)
        if reflect_type == "odd":
            x = lax.sub(lax.mul(_two_like(edge), edge), x)
            if n > 1:
                edge = (lax_shapes.slice_in_dim(x, 0, 1, axis=i) if before
                        else lax_shapes.slice_in_dim(x, -1, None, axis=i))
        array = lax_shapes.concatenate([x, array] if before else [array, x], i)
    return array


def _two_like(x):
    aval = _aval(x)
    return lax._convert_element_type(2, aval.dtype, aval.weak_type)


def _pad_edge(array, pad_width):
    for i in range(_aval(array).ndim):
        n = _aval(array).shape[i]
        if n == 0:
            _no_padding_on_empty(pad_width[i], "edge")
            continue
        before = repeat(lax_shapes.slice_in_dim(array, 0, 1, axis=i), int(pad_width[i][0]), axis=i)
        after = repeat(lax_shapes.slice_in_dim(array, n - 1, n, axis=i), int(pad_width[i][1]),
                       axis=i)
        array = lax_shapes.concatenate([before, array, after], i)
    return array


def _pad_empty(array, pad_width):
    """'empty' padding is zeros (refjax buffers are always initialized)."""
    for i in range(_aval(array).ndim):
        sh = _aval(array).shape
        before = creation.zeros_like(array, shape=sh[:i] + (int(pad_width[i][0]),) + sh[i + 1:])
        after = creation.zeros_like(array, shape=sh[:i] + (int(pad_width[i][1]),) + sh[i + 1:])
        array = lax_shapes.concatenate([before, array, after], i)
    return array


def _pad_linear_ramp(array, pad_width, end_values):
    """Each side a ramp from its end value towards the edge element
    (excluded), computed by ``linspace`` in the array's dtype."""
    aval = _aval(array)
    for i in range(aval.ndim):
        sides = []
        for side, edge in ((0, lax_shapes.slice_in_dim(array, 0, 1, axis=i)),
                           (1, lax_shapes.slice_in_dim(array, -1, None, axis=i))):
            ramp = creation.linspace(end_values[i][side], lax_shapes.squeeze(edge, (i,)),
                                     num=int(pad_width[i][side]), endpoint=False,
                                     dtype=aval.dtype, axis=i)
            ramp = lax._convert_element_type(ramp, aval.dtype, aval.weak_type)
            sides.append(ramp if side == 0 else _flip(ramp, i))
        array = lax_shapes.concatenate([sides[0], array, sides[1]], i)
    return array


def _pad_stats(array, pad_width, stat_length, stat):
    """Each side filled with ``stat`` of the ``stat_length`` elements next to
    it (all of the axis when None), rounded for integer arrays."""
    aval = _aval(array)
    for i in range(aval.ndim):
        n = _aval(array).shape[i]
        if stat_length is None:
            parts = (array, array)
        else:
            before, after = (builtins.min(int(k), n) for k in stat_length[i])
            if int(stat_length[i][0]) == 0 or int(stat_length[i][1]) == 0:
                raise ValueError("stat_length of 0 yields no value for padding")
            parts = (lax_shapes.slice_in_dim(array, 0, before, axis=i),
                     lax_shapes.slice_in_dim(array, n - after, n, axis=i))
        fills = []
        for part, width in zip(parts, pad_width[i]):
            value = stat(part, axis=i, keepdims=True)
            if dtypes.issubdtype(aval.dtype, np.integer):
                value = ufuncs.round(value)
            value = lax._convert_element_type(value, aval.dtype, aval.weak_type)
            fills.append(repeat(value, int(width), axis=i))
        array = lax_shapes.concatenate([fills[0], array, fills[1]], i)
    return array


def _pad_func(array, pad_width, func, **kwargs):
    """A user function filling the padding of each 1-D vector along each
    axis in turn, starting from zero padding (NumPy's callable mode)."""
    padded = _pad_constant(array, pad_width, creation.asarray(0))
    for axis in range(_aval(padded).ndim):
        padded = apply_along_axis(func, axis, padded, pad_width[axis], axis, kwargs)
    return padded
