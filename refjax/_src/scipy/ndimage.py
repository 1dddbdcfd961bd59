"""``jax.scipy.ndimage.map_coordinates`` (SPEC SIG-14).

Each output value interpolates ``input`` at one point: the nearest sample
(``order=0``, rounding halves away from zero) or the multilinear blend of
the ``2**ndim`` surrounding samples (``order=1``).  ``mode`` says how an
index outside the array is brought back inside; with 'constant' such a
sample counts as ``cval`` instead.
"""
import functools
import itertools
import operator

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.lax import lax
from refjax._src.numpy import creation, lax_numpy, ufuncs

__all__ = ["map_coordinates"]


def _mirror(index, size):
    """Reflection about the edge samples (a triangle wave of period
    ``2 (size - 1)``): ``-1 -> 1``, ``size -> size - 2``."""
    half = size - 1
    return ufuncs.abs((index + half) % (2 * half) - half)


def _reflect(index, size):
    """Reflection about the array's edges: ``-1 -> 0``, ``size -> size - 1``."""
    return ufuncs.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


_INDEX_FIXERS = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: ufuncs.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _is_integer(x):
    return dtypes.issubdtype(core.get_aval(x).dtype, np.integer)


def _round_half_away(x):
    return x if _is_integer(x) else lax.round(x)


def _nearest(coordinate):
    """One node: the nearest index, with weight one (a NumPy scalar of the
    coordinate's dtype, so not weakly typed)."""
    weight = np.dtype(core.get_aval(coordinate).dtype).type(1)
    return [(_round_half_away(coordinate).astype(np.int32), weight)]


def _linear(coordinate):
    """Two nodes: the index below and the one above, weighted by nearness."""
    lower = ufuncs.floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(np.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


_ORDERS = {0: _nearest, 1: _linear}


@functools.partial(jit, static_argnums=(2, 3, 4))
def _map_coordinates(input, coordinates, order, mode, cval):  # noqa: A002
    image = creation.asarray(input)
    coords = [creation.asarray(c) for c in coordinates]
    cval = creation.asarray(cval, core.get_aval(image).dtype)
    shape = core.get_aval(image).shape
    if len(coords) != len(shape):
        raise ValueError("coordinates must be a sequence of length input.ndim, but "
                         f"{len(coords)} != {len(shape)}")
    fixer = _INDEX_FIXERS.get(mode)
    if fixer is None:
        raise NotImplementedError(
            f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. "
            f"Currently supported modes are {set(_INDEX_FIXERS)}.")
    nodes_of = _ORDERS.get(order)
    if nodes_of is None:
        raise NotImplementedError(
            "jax.scipy.ndimage.map_coordinates currently requires order<=1")

    per_axis = []
    for coordinate, size in zip(coords, shape):
        per_axis.append([
            (fixer(index, size), (0 <= index) & (index < size) if mode == "constant" else None,
             weight)
            for index, weight in nodes_of(coordinate)])
    terms = []
    for corner in itertools.product(*per_axis):
        indices, valid, weights = zip(*corner)
        value = image[tuple(indices)]
        if mode == "constant":
            value = lax_numpy.where(functools.reduce(operator.and_, valid), value, cval)
        terms.append(functools.reduce(operator.mul, weights) * value)
    result = functools.reduce(operator.add, terms)
    if _is_integer(image):
        result = _round_half_away(result)
    return result.astype(core.get_aval(image).dtype)


def map_coordinates(input, coordinates, order, mode="constant", cval=0.0):  # noqa: A002
    """``input`` interpolated at ``coordinates`` (one array per axis, all of
    the output's shape) with spline ``order`` 0 or 1 and boundary ``mode``
    'constant', 'nearest', 'wrap', 'mirror' or 'reflect'; integer inputs
    are rounded half away from zero (SPEC SIG-14)."""
    return _map_coordinates(input, coordinates, order, mode, cval)
