"""``jax.scipy.interpolate.RegularGridInterpolator`` (SPEC SIG-15).

Interpolation on a rectilinear grid, as SciPy's class of that name with
methods 'linear' and 'nearest'.  The interpolator is a pytree whose leaves
are the grid, the values and the fill value, so it can cross ``jit`` and
``vmap``; ``bounds_error=True`` cannot be honoured under ``jit`` and is
refused, as in JAX.
"""
import itertools

import numpy as np

from refjax._src import core, dtypes, tree_util
from refjax._src.numpy import creation, lax_numpy, sorting, util

__all__ = ["RegularGridInterpolator"]

_METHODS = ("linear", "nearest")


def _check_method(method):
    if method not in _METHODS:
        raise ValueError(f"method {method!r} is not defined")


def _shape(x):
    return core.get_aval(x).shape


def _points_array(points, ndim):
    """The query points as one array whose last axis holds the coordinates:
    a tuple of arrays is broadcast and stacked (in the default float
    dtype); a 1-d array is a list of points of ``ndim`` coordinates."""
    if isinstance(points, tuple) and len(points) == 1:
        points = points[0]
    if isinstance(points, tuple):
        parts = lax_numpy.broadcast_arrays(*points)
        float_dtype = dtypes.default_float_dtype()
        return lax_numpy.stack([creation.asarray(p).astype(float_dtype) for p in parts],
                               axis=-1)
    util.check_arraylike("_ndim_coords_from_arrays", points)
    points = creation.asarray(points)
    if len(_shape(points)) == 1:
        points = lax_numpy.reshape(points, (-1, 1 if ndim is None else ndim))
    return points


class RegularGridInterpolator:
    """Interpolates ``values`` given on the grid ``points`` (one increasing
    1-d array per leading axis of ``values``) at query points; a point
    outside the grid gives ``fill_value``, or is extrapolated when that is
    None (SPEC SIG-15)."""

    def __init__(self, points, values, method="linear", bounds_error=False,
                 fill_value=np.nan):
        _check_method(method)
        self.method = method
        self.bounds_error = bounds_error
        if bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        util.check_arraylike("RegularGridInterpolator", values)
        ndim = len(_shape(values))
        if len(points) > ndim:
            raise ValueError(f"there are {len(points)} point arrays, but values has "
                             f"{ndim} dimensions")
        values, = util.promote_dtypes_inexact(values)
        if fill_value is not None:
            util.check_arraylike("RegularGridInterpolator", fill_value)
            fill_value = creation.asarray(fill_value)
            if not dtypes.can_cast(core.get_aval(fill_value).dtype,
                                   core.get_aval(values).dtype, casting="same_kind"):
                raise ValueError("fill_value must be either 'None' or of a type "
                                 "compatible with values")
        self.fill_value = fill_value
        util.check_arraylike("RegularGridInterpolator", *points)
        self.grid = tuple(creation.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi, method=None):
        """The interpolated values at ``xi`` (points on the last axis, or a
        tuple of coordinate arrays), shaped ``xi``'s batch shape followed by
        the trailing axes of ``values`` (SPEC SIG-15)."""
        method = self.method if method is None else method
        _check_method(method)
        ndim = len(self.grid)
        xi = _points_array(xi, ndim)
        xi_shape = _shape(xi)
        if xi_shape[-1] != ndim:
            raise ValueError(f"the requested sample points xi have dimension {xi_shape[1]}, "
                             f"but this RegularGridInterpolator has dimension {ndim}")
        flat = lax_numpy.reshape(xi, (-1, xi_shape[-1]))
        indices, distances, outside = self._find_indices(lax_numpy.transpose(flat))
        if method == "linear":
            result = self._evaluate_linear(indices, distances)
        else:
            result = self._evaluate_nearest(indices, distances)
        if self.fill_value is not None:
            mask_shape = _shape(result)[:1] + (1,) * (len(_shape(result)) - 1)
            result = lax_numpy.where(lax_numpy.reshape(outside, mask_shape),
                                     self.fill_value, result)
        return lax_numpy.reshape(result, xi_shape[:-1] + _shape(self.values)[ndim:])

    def _find_indices(self, xi):
        """Per axis: the grid cell of each point (its lower index, clipped to
        the grid), the point's position within the cell in [0, 1] (beyond
        it outside the grid), and whether any coordinate is off the grid."""
        indices, distances = [], []
        outside = creation.zeros((_shape(xi)[1],), dtype=bool)
        for x, g in zip(xi, self.grid):
            last_cell = _shape(g)[0] - 2
            i = sorting.searchsorted(g, x) - 1
            i = lax_numpy.where(i < 0, 0, i)
            i = lax_numpy.where(i > last_cell, last_cell, i)
            indices.append(i)
            distances.append((x - g[i]) / (g[i + 1] - g[i]))
            outside = outside | (x < g[0]) | (x > g[-1])
        return indices, distances, outside

    def _evaluate_linear(self, indices, distances):
        """The sum over the cell's corners of the corner value times the
        product of the per-axis weights (``1 - t`` below, ``t`` above)."""
        trailing = (slice(None),) + (None,) * (len(_shape(self.values)) - len(indices))
        total = creation.asarray(0.0)
        for corner in itertools.product(*[(i, i + 1) for i in indices]):
            weight = creation.asarray(1.0)
            for index, lower, t in zip(corner, indices, distances):
                weight = weight * (1 - t if index is lower else t)
            total = total + self.values[corner] * weight[trailing]
        return total

    def _evaluate_nearest(self, indices, distances):
        nearest = [lax_numpy.where(t <= 0.5, i, i + 1) for i, t in zip(indices, distances)]
        return self.values[tuple(nearest)]


tree_util.register_pytree_node(
    RegularGridInterpolator,
    lambda obj: ((obj.grid, obj.values, obj.fill_value), (obj.method, obj.bounds_error)),
    lambda aux, children: RegularGridInterpolator(*children[:2], *aux, *children[2:]),
)
