"""Index-trick objects of ``jax.numpy``: ``mgrid``, ``ogrid``, ``r_`` and
``c_``, and ``mask_indices`` (SPEC NPE-18 .. NPE-20).

The objects are used by indexing: ``jnp.mgrid[0:3, 0:4]``.  Each slice
``start:stop:step`` stands for ``arange(start, stop, step)``, or, when the
step is imaginary (``0:1:5j``), for ``linspace(start, stop, 5)``; its
bounds must be concrete.
"""
import numpy as np

from refjax._src import config as _config
from refjax._src import core
from refjax._src.numpy import creation, util
from refjax._src.numpy.contractions import meshgrid
from refjax._src.numpy.lax_numpy import (
    _aval, concatenate, expand_dims, nonzero, stack, transpose,
)

__all__ = ["mgrid", "ogrid", "r_", "c_", "mask_indices"]


def _grid_from_slice(s, op_name):
    """The 1-d array a slice stands for: ``arange``, or ``linspace`` with
    ``abs(step)`` points for a complex step."""
    start = core.concrete_or_error(None, s.start, f"slice start of jnp.{op_name}") or 0
    stop = core.concrete_or_error(None, s.stop, f"slice stop of jnp.{op_name}")
    step = core.concrete_or_error(None, s.step, f"slice step of jnp.{op_name}") or 1
    if np.iscomplex(step):
        return creation.linspace(start, stop, int(abs(step)))
    return creation.arange(start, stop, step)


def _promoted_grids(key, op_name):
    grids = [_grid_from_slice(k, op_name) for k in key]
    # The axes share one dtype, whatever the promotion mode (as in JAX).
    with _config.numpy_dtype_promotion("standard"):
        return util.promote_dtypes(*grids)


class _Mgrid:
    """``mgrid[s0, s1, ...]``: the dense grid, one stacked coordinate
    array per slice, indexed 'ij' (SPEC NPE-18)."""

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_from_slice(key, "mgrid")
        grids = meshgrid(*_promoted_grids(key, "mgrid"), indexing="ij", sparse=False)
        if len(grids) == 0:
            return creation.arange(0)
        return stack(grids, 0)


class _Ogrid:
    """``ogrid[s0, s1, ...]``: the open grid, a list of arrays each varying
    along its own axis (SPEC NPE-18)."""

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_from_slice(key, "ogrid")
        return meshgrid(*_promoted_grids(key, "ogrid"), indexing="ij", sparse=True)


mgrid = _Mgrid()
ogrid = _Ogrid()


class _AxisConcat:
    """Concatenation by indexing (SPEC NPE-19).

    Items are arrays, scalars or slices (grids as above), joined along
    ``axis`` after being raised to ``ndmin`` dimensions.  A leading string
    directive changes the defaults: 'r' or 'c' make a 1-d result a row or a
    column matrix; 'axis[,ndmin[,trans1d]]' sets the concatenation axis, the
    minimum rank and where the original axes of a raised item go.
    """
    axis: int
    ndmin: int
    trans1d: int
    op_name: str

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        if isinstance(items[0], str):
            params = _directive(items[0], params)
            items = items[1:]
        axis, ndmin, trans1d, matrix = params
        parts = [self._item(item, ndmin, trans1d) for item in items]
        out = concatenate(tuple(parts), axis=axis)
        if matrix != -1 and _aval(out).ndim == 1:
            out = expand_dims(out, matrix)
        return out

    def _item(self, item, ndmin, trans1d):
        if isinstance(item, slice):
            arr, item_ndim = _grid_from_slice(item, self.op_name), 0
        elif isinstance(item, str):
            raise ValueError("string directive must be placed at the beginning")
        else:
            arr = creation.array(item, copy=False)
            item_ndim = _aval(arr).ndim
        arr = creation.array(arr, copy=False, ndmin=ndmin)
        if trans1d != -1 and ndmin - item_ndim > 0:
            # Rotate the axes so that the item's own axes end at trans1d.
            order = tuple(range(ndmin))
            shift = ndmin - abs(ndmin + trans1d + 1) % ndmin
            arr = transpose(arr, order[shift:] + order[:shift])
        return arr

    def __len__(self):
        return 0


def _directive(directive, params):
    """The parameters [axis, ndmin, trans1d, matrix] a string sets."""
    if directive == "r":
        return params[:3] + [0]
    if directive == "c":
        return params[:3] + [1]
    parts = directive.split(",")
    # Up to three integers; anything after the third is ignored.
    parts = parts + params[len(parts):] if len(parts) < 4 else parts[:3] + [params[-1]]
    try:
        return [int(p) for p in parts]
    except ValueError as err:
        raise ValueError(f"could not understand directive {directive!r}") from err


class RClass(_AxisConcat):
    """``r_[...]``: concatenation along the first axis (SPEC NPE-19)."""
    axis = 0
    ndmin = 1
    trans1d = -1
    op_name = "r_"


class CClass(_AxisConcat):
    """``c_[...]``: 1-d items become columns, joined along the last axis
    (SPEC NPE-19)."""
    axis = -1
    ndmin = 2
    trans1d = 0
    op_name = "c_"


r_ = RClass()
c_ = CClass()


def mask_indices(n, mask_func, k=0, *, size=None):
    """The (row, column) indices where ``mask_func(ones((n, n)), k)`` is
    nonzero; ``size`` fixes their count, as in ``nonzero`` (SPEC NPE-20)."""
    i, j = nonzero(mask_func(creation.ones((n, n)), k), size=size)
    return i, j
