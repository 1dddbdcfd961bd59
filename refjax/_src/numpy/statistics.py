"""Histograms, binning, interpolation, finite differences, integration,
phase unwrapping, ``piecewise`` and covariances in ``jax.numpy``
(SPEC NPE-5 .. NPE-11).

All of them are compositions of existing ``jax.numpy`` functions, jitted
under JAX's names where JAX jits them; the values are floating point
(``to_inexact_dtype`` of the inputs) except ``digitize``'s indices.
"""
import builtins
import math
import operator

import numpy as np

from refjax._src import core, dtypes
from refjax._src.api import jit
from refjax._src.lax import lax, shapes
from refjax._src.lax import sorting as lax_sorting
from refjax._src.lax.control_flow import conditionals
from refjax._src.numpy import creation, reductions, ufuncs, util
from refjax._src.numpy.contractions import diag, dot
from refjax._src.numpy.index_tricks import ix_, ravel_multi_index
from refjax._src.numpy.lax_numpy import (
    _aval, _axis_tuple, _canonicalize_axis, atleast_2d, bincount, concatenate, moveaxis,
    reshape, transpose, where,
)
from refjax._src.numpy.signal import diff
from refjax._src.numpy.sorting import searchsorted
from refjax._src.numpy.vectorize import vectorize

__all__ = [
    "histogram_bin_edges", "histogram", "histogram2d", "histogramdd", "digitize",
    "interp", "gradient", "trapezoid", "unwrap", "piecewise", "cov", "corrcoef",
]


# -- histograms (SPEC NPE-5) ---------------------------------------------------

def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """Bin edges: ``bins`` itself when it is 1-d, else ``bins + 1`` evenly
    spaced edges over ``range`` (default the data's min and max; an empty
    range is widened by 0.5 each way) (SPEC NPE-5).  ``weights`` is unused."""
    del weights          # only string bins would need them
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    util.check_arraylike("histogram_bin_edges", a, bins)
    arr = creation.asarray(a)
    dtype = util.to_inexact_dtype(_aval(arr).dtype)
    if np.ndim(bins) == 1:
        return creation.asarray(bins, dtype=dtype)
    nbins = core.concrete_or_error(operator.index, bins,
                                   "bins argument of histogram_bin_edges")
    if range is None:
        range = [reductions.min(arr), reductions.max(arr)]  # noqa: A001
    range = creation.asarray(range, dtype=dtype)  # noqa: A001
    if np.shape(range) != (2,):
        raise ValueError("`range` must be either None or a sequence of scalars, "
                         f"got {range}")
    empty = reductions.ptp(range) == 0
    lo = where(empty, range[0] - 0.5, range[0])
    hi = where(empty, range[1] + 0.5, range[1])
    return creation.linspace(lo, hi, nbins + 1, dtype=dtype)


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """Counts (or summed ``weights``) of ``a`` per bin, and the edges
    (SPEC NPE-5).  Bins are half-open ``[e_i, e_i+1)`` except the last,
    which includes its right edge; values outside are dropped.  ``density``
    divides by the bin widths and the total."""
    if weights is None:
        a, _ = util.ensure_arraylike("histogram", a, bins)
        a, = util.promote_dtypes_inexact(a)
        weights = creation.ones_like(a)
    else:
        a, _, weights = util.ensure_arraylike("histogram", a, bins, weights)
        if np.shape(a) != np.shape(weights):
            raise ValueError("weights should have the same shape as a.")
        a, weights = util.promote_dtypes_inexact(a, weights)
    edges = histogram_bin_edges(a, bins, range, weights)
    n_edges = _aval(edges).shape[0]
    idx = searchsorted(edges, a, side="right")
    idx = where(a == edges[-1], n_edges - 1, idx)
    counts = creation.zeros(n_edges, _aval(weights).dtype).at[idx].add(weights)[1:]
    if density:
        counts = counts / diff(edges) / reductions.sum(counts)
    return counts, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """``histogramdd`` of the points ``(x[i], y[i])``; one array of edges
    (neither a count nor a pair) serves both axes (SPEC NPE-5)."""
    x, y = util.ensure_arraylike("histogram2d", x, y)
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n not in (1, 2):
        edges = creation.asarray(bins)
        bins = [edges, edges]
    sample = transpose(creation.asarray([x, y]))
    hist, edges = histogramdd(sample, bins, range, weights, density)
    return hist, edges[0], edges[1]


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """Counts of the ``(N, D)`` points in a grid of bins, and the list of
    each dimension's edges (SPEC NPE-5).  Each coordinate is binned as in
    ``histogram``; the flat bin index is counted with ``bincount``."""
    if weights is None:
        sample = util.ensure_arraylike("histogramdd", sample)
        sample, = util.promote_dtypes_inexact(sample)
    else:
        sample, weights = util.ensure_arraylike("histogramdd", sample, weights)
        if np.shape(weights) != np.shape(sample)[:1]:
            raise ValueError("should have one weight for each sample.")
        sample, weights = util.promote_dtypes_inexact(sample, weights)
    n, d = np.shape(sample)
    if range is not None and (len(range) != d or builtins.any(
            r is not None and np.shape(r)[0] != 2 for r in range)):
        raise ValueError(f"For sample.shape={(n, d)}, range must be a sequence "
                         f"of {d} pairs or Nones; got range={range}")
    bins_per_dim = _bins_per_dimension(bins, d)
    indices, all_edges = [], []
    for i in builtins.range(d):
        coord = sample[:, i]
        edges = histogram_bin_edges(coord, bins_per_dim[i],
                                    None if range is None else range[i], weights)
        idx = searchsorted(edges, coord, side="right")
        indices.append(where(coord == edges[-1], idx - 1, idx))
        all_edges.append(edges)
    # One overflow bin each side of every dimension, cut off at the end.
    nbins = tuple(_aval(e).shape[0] + 1 for e in all_edges)
    flat = ravel_multi_index(tuple(indices), nbins, mode="clip")
    hist = reshape(bincount(flat, weights, length=math.prod(nbins)), nbins)
    hist = hist[(slice(1, -1),) * d]
    if density:
        hist = hist.astype(_aval(sample).dtype)
        hist = hist / reductions.sum(hist)
        for width in ix_(*[diff(e) for e in all_edges]):
            hist = hist / width
    return hist, all_edges


def _bins_per_dimension(bins, d):
    try:
        per_dim = list(bins)
    except TypeError:
        return d * [bins]        # one count for every dimension
    if len(per_dim) != d:
        raise ValueError("should be a bin for each dimension.")
    return per_dim


# -- binning and interpolation (SPEC NPE-6) -----------------------------------

@jit(static_argnames=("right", "method"))
def digitize(x, bins, right=False, *, method=None):
    """The bin index of each ``x`` in monotonic ``bins`` (increasing or
    decreasing): ``searchsorted`` with the opposite ``side`` (SPEC NPE-6)."""
    x, bins_arr = util.ensure_arraylike("digitize", x, bins)
    right = core.concrete_or_error(bool, right, "right argument of jnp.digitize()")
    if _aval(bins_arr).ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    n = _aval(bins_arr).shape[0]
    if n == 0:
        return creation.zeros_like(x, dtype=np.int32)
    side = "left" if right else "right"
    kwds = {} if method is None else {"method": method}
    increasing = bins_arr[-1] >= bins_arr[0]
    rising = searchsorted(bins_arr, x, side=side, **kwds)
    falling = n - searchsorted(bins_arr[::-1], x, side=side, **kwds)
    return where(increasing, rising, falling)


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of ``(xp, fp)`` at ``x`` (SPEC NPE-6).

    Outside ``xp`` the result is ``fp``'s end value (or ``left``/``right``;
    'extrapolate' extends the end segments).  With ``period`` the abscissas
    wrap.  A string or None ``left``/``right`` and a None ``period`` are
    static arguments of the jit.
    """
    static = [name for name, value in (("left", left), ("right", right))
              if isinstance(value, str) or value is None]
    if period is None:
        static.append("period")
    return jit(_interp, static_argnames=static)(x, xp, fp, left, right, period)


def _extrapolates(side, value):
    if not isinstance(value, str):
        return False
    if value != "extrapolate":
        raise ValueError(f"the only valid string value of `{side}` is "
                         f"'extrapolate', but got: {value!r}")
    return True


def _interp(x, xp, fp, left=None, right=None, period=None):
    x, xp, fp = util.ensure_arraylike("interp", x, xp, fp)
    if np.shape(xp) != np.shape(fp) or np.ndim(xp) != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    x_arr, xp_arr = util.promote_dtypes_inexact(x, xp)
    fp_arr, = util.promote_dtypes_inexact(fp)
    extend_left = _extrapolates("left", left)
    extend_right = _extrapolates("right", right)
    if dtypes.issubdtype(_aval(x_arr).dtype, np.complexfloating):
        raise ValueError("jnp.interp: complex x values not supported.")
    if period is not None:
        x_arr, xp_arr, fp_arr = _periodic(x_arr, xp_arr, fp_arr, period)
    n = _aval(xp_arr).shape[0]
    i = ufuncs.clip(searchsorted(xp_arr, x_arr, side="right"), 1, n - 1)
    df = fp_arr[i] - fp_arr[i - 1]
    dx = xp_arr[i] - xp_arr[i - 1]
    delta = x_arr - xp_arr[i - 1]
    # A zero-width segment takes its left value (and keeps gradients finite).
    eps = np.spacing(np.finfo(_aval(xp_arr).dtype).eps)
    flat = lax.abs(dx) <= eps
    f = where(flat, fp_arr[i - 1], fp_arr[i - 1] + (delta / where(flat, 1, dx)) * df)
    if not extend_left and period is None:
        f = where(x_arr < xp_arr[0], fp_arr[0] if left is None else left, f)
    if not extend_right and period is None:
        f = where(x_arr > xp_arr[-1], fp_arr[-1] if right is None else right, f)
    return f


def _periodic(x, xp, fp, period):
    """Everything modulo ``period``, ``xp`` sorted, one wrapped point added
    at each end."""
    if np.ndim(period) != 0:
        raise ValueError(f"period must be a scalar; got {period}")
    period = ufuncs.abs(period)
    x, xp = x % period, xp % period
    xp, fp = lax_sorting.sort_key_val(xp, fp, 0)
    xp = concatenate([xp[-1:] - period, xp, xp[:1] + period])
    fp = concatenate([fp[-1:], fp, fp[:1]])
    return x, xp, fp


# -- differences, integrals and phases (SPEC NPE-7, NPE-8) --------------------

@jit(static_argnames=("axis", "edge_order"))
def gradient(f, *varargs, axis=None, edge_order=None):
    """Central differences inside, one-sided at the edges, along each
    ``axis`` (SPEC NPE-7).  Spacings are scalars or 1-d coordinates (one
    for all axes, or one per axis); one axis gives one array, else a list."""
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is "
                                  "not supported.")
    a, *spacing = util.promote_dtypes_inexact(f, *varargs)
    ndim = _aval(a).ndim
    axes = (tuple(builtins.range(ndim)) if axis is None
            else tuple(_canonicalize_axis(i, ndim) for i in _axis_tuple(axis)))
    if not axes:
        return []
    if builtins.min(_aval(a).shape[i] for i in axes) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, "
                         "at least 2 elements are required.")
    if not spacing:
        dx = [1.0] * len(axes)
    elif len(spacing) == 1:
        dx = spacing * len(axes)
    elif len(spacing) == len(axes):
        dx = spacing
    else:
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for "
                        f"axis={axis}")
    grads = [_gradient_along(a, h, ax) for ax, h in zip(axes, dx)]
    return grads[0] if len(axes) == 1 else grads


def _gradient_along(a, h, axis):
    def part(x, start, stop):
        return shapes.slice_in_dim(x, start, stop, axis=axis)
    first = part(a, 1, 2) - part(a, 0, 1)
    last = part(a, -1, None) - part(a, -2, -1)
    if np.ndim(h) == 0:
        inner = (part(a, 2, None) - part(a, None, -2)) * 0.5 / h
        last, first = last / h, first / h      # (in JAX's order)
        return concatenate((first, inner, last), axis=axis)
    if np.ndim(h) != 1:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    if len(h) != _aval(a).shape[axis]:
        raise ValueError("Spacing arrays must have the same length as the "
                         "dimension along which the gradient is calculated.")
    h_shape = [1] * _aval(a).ndim
    h_shape[axis] = len(h)
    h = reshape(h, h_shape)
    first = first / (part(h, 1, 2) - part(h, 0, 1))
    last = last / (part(h, -1, None) - part(h, -2, -1))
    # Second-order differences on an uneven grid (weights of three points).
    dx1 = part(h, 1, -1) - part(h, 0, -2)
    dx2 = part(h, 2, None) - part(h, 1, -1)
    w0 = -dx2 / (dx1 * (dx1 + dx2))
    w1 = (dx2 - dx1) / (dx1 * dx2)
    w2 = dx1 / (dx2 * (dx1 + dx2))
    inner = w0 * part(a, 0, -2) + w1 * part(a, 1, -1) + w2 * part(a, 2, None)
    return concatenate((first, inner, last), axis=axis)


@jit(static_argnames=("axis",))
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The trapezoidal-rule integral of ``y`` along ``axis``, at points
    ``x`` or at spacing ``dx`` (SPEC NPE-8)."""
    if x is None:
        y = util.ensure_arraylike("trapezoid", y)
        y_arr, = util.promote_dtypes_inexact(y)
        dx_arr = creation.asarray(dx)
        if _aval(dx_arr).ndim > 0:
            dx_arr = shapes.expand_dims(
                dx_arr, tuple(builtins.range(_aval(y_arr).ndim - _aval(dx_arr).ndim)))
            dx_arr = moveaxis(dx_arr, axis, -1)
    else:
        y, x = util.ensure_arraylike("trapezoid", y, x)
        y_arr, x_arr = util.promote_dtypes_inexact(y, x)
        if _aval(x_arr).ndim == 1:
            dx_arr = diff(x_arr)
        else:
            dx_arr = moveaxis(diff(x_arr, axis=axis), axis, -1)
    y_arr = moveaxis(y_arr, axis, -1)
    if _aval(dx_arr).ndim == 0 or _aval(dx_arr).shape[-1] == 1:
        # One spacing: the sum less half of each end value, times it.
        step = dx_arr if _aval(dx_arr).ndim == 0 else dx_arr[..., 0]
        return step * (reductions.sum(y_arr, -1) - 0.5 * (y_arr[..., 0] + y_arr[..., -1]))
    return 0.5 * reductions.sum(dx_arr * (y_arr[..., 1:] + y_arr[..., :-1]), -1)


@jit(static_argnames=("axis",))
def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """``p`` with every jump larger than ``discont`` (default half the
    period) along ``axis`` reduced modulo ``period`` (SPEC NPE-8)."""
    p = util.ensure_arraylike("unwrap", p)
    p, period = util.promote_dtypes(p, period)
    if dtypes.issubdtype(_aval(p).dtype, np.complexfloating):
        raise ValueError("jnp.unwrap does not support complex inputs.")
    if _aval(p).shape[axis] == 0:
        return p
    if discont is None:
        discont = period / 2
    integer = dtypes.issubdtype(_aval(p).dtype, np.integer)
    half = period // 2 if integer else period / 2
    dd = diff(p, axis=axis)
    ddmod = ufuncs.mod(dd + half, period) - half
    # A jump of exactly +half stays +half (NumPy's convention).
    ddmod = where((ddmod == -half) & (dd > 0), half, ddmod)
    correction = where(ufuncs.abs(dd) < discont, 0, ddmod - dd)
    head = shapes.slice_in_dim(p, 0, 1, axis=axis)
    tail = (shapes.slice_in_dim(p, 1, None, axis=axis)
            + reductions.cumsum(correction, axis=axis))
    return concatenate((head, tail), axis=axis)


# -- piecewise (SPEC NPE-9) ----------------------------------------------------

def piecewise(x, condlist, funclist, *args, **kw):
    """Each element of ``x`` through the function (or constant) of the last
    true condition, or the default (the extra last function, else 0)
    (SPEC NPE-9).  Results are cast to ``x``'s dtype; the choice is a
    vectorized ``lax.switch``."""
    x_arr = util.ensure_arraylike("piecewise", x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funclist = funclist[-1:] + funclist[:-1]
    elif nf == nc:
        funclist = [0] + list(funclist)
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions "
                         f"are expected; got {nf}")
    consts = {i: c for i, c in enumerate(funclist) if not callable(c)}
    funcs = frozenset((i, f) for i, f in enumerate(funclist) if callable(f))
    return _piecewise(x_arr, creation.asarray(condlist, dtype=bool), consts, funcs,
                      *args, **kw)


@jit(static_argnames=("funcs",))
def _piecewise(x, condlist, consts, funcs, *args, **kw):
    funcdict = dict(funcs)
    choices = [consts.get(i, funcdict.get(i)) for i in builtins.range(len(condlist) + 1)]
    # Branch 0 is the default; a later true condition wins.
    guarded = concatenate([creation.zeros_like(condlist[:1]), condlist], 0)
    which = reductions.argmax(reductions.cumsum(guarded, 0), 0)
    dtype = _aval(x).dtype

    def branch(choice):
        if callable(choice):
            return lambda v: creation.asarray(choice(v, *args, **kw)).astype(dtype)
        return lambda v: creation.array(choice, dtype=dtype)
    branches = [branch(c) for c in choices]
    return vectorize(conditionals.switch, excluded=(1,))(which, branches, x)


# -- covariance and correlation (SPEC NPE-10, NPE-11) -------------------------

def _check_inexact(name, dtype):
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"{name}: dtype must be a subclass of float or complex; "
                         f"got dtype={dtype}")


@jit(static_argnames=("rowvar", "bias", "ddof", "dtype"))
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """The covariance matrix of the variables in ``m``'s rows (columns when
    not ``rowvar``), with ``y``'s appended, optionally weighted by integer
    ``fweights`` and real ``aweights`` (SPEC NPE-10).  The normalizer is
    ``N - ddof`` (default ddof 1, or 0 with ``bias``); one variable gives a
    scalar."""
    if y is not None:
        m, y = util.promote_args_inexact("cov", m, y)
        if _aval(y).ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    else:
        m, = util.promote_args_inexact("cov", m)
    if _aval(m).ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    _check_inexact("cov", dtype)
    X = atleast_2d(m)
    if not rowvar and _aval(m).ndim != 1:
        X = X.T
    if _aval(X).shape[0] == 0:
        return reshape(creation.array([]), (0, 0))
    if y is not None:
        y2 = atleast_2d(y)
        if not rowvar and _aval(y2).shape[0] != 1:
            y2 = y2.T
        X = concatenate((X, y2), axis=0)
    nvar, nobs = _aval(X).shape
    if nobs == 0:
        return creation.full(() if nvar == 1 else (nvar, nvar), np.nan,
                             dtype=_aval(X).dtype)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    w, aweights = _cov_weights(fweights, aweights, nobs)
    if dtype is not None:
        X = X.astype(dtype)
        w = w.astype(dtype) if w is not None else w
    avg, w_sum = reductions.average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        norm = nobs - ddof
    elif ddof == 0:
        norm = w_sum
    elif aweights is None:
        norm = w_sum - ddof
    else:
        norm = w_sum - ddof * reductions.sum(w * aweights) / w_sum
    X = X - avg[:, None]
    X_T = X.T if w is None else (X * shapes.broadcast_to_rank(w, 2)).T
    return ufuncs.true_divide(dot(X, ufuncs.conj(X_T)), norm).squeeze()


def _cov_weights(fweights, aweights, nobs):
    """The combined weights (absolute values), and the checked aweights."""
    w = None
    if fweights is not None:
        fweights = util.ensure_arraylike("cov", fweights)
        _check_weights("fweights", fweights, nobs)
        if not dtypes.issubdtype(_aval(fweights).dtype, np.integer):
            raise TypeError("fweights must be integer.")
        w = ufuncs.abs(fweights)
    if aweights is not None:
        aweights = util.ensure_arraylike("cov", aweights)
        _check_weights("aweights", aweights, nobs)
        aweights = ufuncs.abs(aweights)
        w = creation.asarray(aweights if w is None else w * aweights)
    return w, aweights


def _check_weights(name, weights, nobs):
    if np.ndim(weights) > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if np.shape(weights)[0] != nobs:
        raise RuntimeError(f"incompatible numbers of samples and {name}")


@jit(static_argnames=("rowvar", "dtype"))
def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlations: ``cov`` divided by the outer product of the
    standard deviations, each part clipped to [-1, 1] (SPEC NPE-11)."""
    util.check_arraylike("corrcoef", x)
    _check_inexact("corrcoef", dtype)
    c = cov(x, y, rowvar, dtype=dtype)
    if len(np.shape(c)) == 0:
        return ufuncs.divide(c, c)       # 1, or NaN for a degenerate variable
    d = diag(c)
    stddev = ufuncs.sqrt(ufuncs.real(d)).astype(_aval(c).dtype)
    c = c / stddev[:, None] / stddev[None, :]
    real = ufuncs.clip(ufuncs.real(c), -1, 1)
    if dtypes.issubdtype(_aval(c).dtype, np.complexfloating):
        return lax.complex(real, ufuncs.clip(ufuncs.imag(c), -1, 1))
    return real
