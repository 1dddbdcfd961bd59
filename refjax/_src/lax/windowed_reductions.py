"""Windowed reductions: ``lax.reduce_window`` and its primitives.

A window of ``window_dimensions`` slides over an operand that is first
dilated (``base_dilation - 1`` holes between elements) and padded; it
moves by ``window_strides`` and reads every ``window_dilation``-th element.
Each window is folded into one output element (SPEC WIN-4, WIN-5).

* ``reduce_window_sum``, ``reduce_window_max``, ``reduce_window_min``: the
  monoids JAX recognises (``add``/``max``/``min`` with their identity as
  initial value);
* ``reduce_window``: any computation, traced to a jaxpr, of one operand or
  a pytree of them.  Padding and holes are skipped by the fold, as XLA's
  CPU kernel skips them (SPEC WIN-5).

Differentiation follows JAX's structure (SPEC WIN-6): the sum is linear,
its transpose a sum over windows of the padded, dilated cotangent; the
JVP of max/min is ``select_and_gather_add`` (the tangent at the position
each window selects), whose transpose is ``select_and_scatter_add``, and
back.  ``select_and_scatter`` is the general primitive with select and
scatter jaxprs.  Kernels work on backend buffers: every window offset is a
strided slice of the padded operand.
"""
import builtins
import itertools
import math
import operator
import weakref

import numpy as np

from refjax._src import core, dtypes, lru, tree_util
from refjax._src.core import ClosedJaxpr, Primitive, ShapedArray
from refjax._src.interpreters import ad, batching
from refjax._src.lax import lax, shapes
from refjax._src.lax.convolution import _padding_name, padtype_to_pads
from refjax._src.lax.generic_reduce import (
    batched_computation, check_computation_outputs, concrete_scalar, max_identity,
    min_identity, reduction_jaxpr, split_operands_and_inits,
)
from refjax._src.lax.lax import _xp

# ---------------------------------------------------------------------------
# Shapes (SPEC WIN-4)
# ---------------------------------------------------------------------------

def _dilate_dim(d, dilation):
    """``max(0, 1 + dilation * (d - 1))``; a unit dilation keeps ``d``."""
    if dilation == 1:
        return d
    return builtins.max(0, 1 + dilation * (d - 1))


def _dilate_shape(shape, dilation):
    """Sizes after inserting ``dilation - 1`` holes; a non-positive
    dilation is JAX's TypeError, more dilations than axes ValueError.
    Missing leading dilations are 1."""
    if not np.all(np.greater(dilation, 0)):
        raise TypeError(f"All dilations must be positive, got {dilation}.")
    dilation = (1,) * (len(shape) - len(dilation)) + tuple(dilation)
    shape = list(shape)
    if len(dilation) != len(shape):
        raise ValueError(f"{len(dilation)} dilations given for {len(shape)} axes.")
    return tuple(_dilate_dim(s, d) for s, d in zip(shape, dilation))


def _zip_exact(what, *seqs):
    """``zip`` of sequences that must have one length (ValueError otherwise)."""
    lengths = [len(s) for s in seqs]
    if len(set(lengths)) > 1:
        raise ValueError(f"{what}: sequences of different lengths {lengths}.")
    return zip(*seqs)


def stride_dim(d, window, stride):
    """How many windows fit: ``max(0, (d - window) // stride + 1)``."""
    try:
        return builtins.max(0, (d - window) // stride + 1)
    except ZeroDivisionError:
        raise ValueError(f"window strides must be positive, got {stride}.") from None


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides,
                              padding, base_dilation=None, window_dilation=None):
    """The output shape of a windowed reduction (SPEC WIN-4):
    ``max(0, (padded - dilated_window) // stride + 1)`` per axis.  Checks
    come in JAX's order: dilations, then padding pairs, then lengths."""
    if base_dilation is not None:
        operand_shape = _dilate_shape(operand_shape, base_dilation)
    if window_dilation is not None:
        window_dimensions = _dilate_shape(window_dimensions, window_dilation)
    padded = [d + lo + hi for d, (lo, hi) in _zip_exact(
        "reduce_window operand shape and padding", operand_shape, padding)]
    return tuple(stride_dim(d, w, s) for d, w, s in _zip_exact(
        "reduce_window window", padded, window_dimensions, window_strides))


def _check_shapelike(name, arg, obj, positive):
    """A tuple of integers, each at least 1 (``positive``) or 0: JAX's TypeErrors."""
    if not isinstance(obj, (tuple, list, np.ndarray)):
        raise TypeError(f"{name} {arg} must be of type tuple/list/ndarray, got "
                        f"{type(obj)}.")
    if not len(obj):
        return
    try:
        [operator.index(d) for d in obj]
    except TypeError as e:
        raise TypeError(f"{name} {arg} must have every element be an integer type, "
                        f"got {tuple(map(type, obj))}.") from e
    bound, words = (1, "strictly positive") if positive else (0, "nonnegative")
    if not builtins.all(d >= bound for d in obj):
        raise TypeError(f"{name} {arg} must have every element be {words}, got {obj}.")


def _common_shape_rule(name, operand, window_dimensions, window_strides, padding,
                       base_dilation, window_dilation):
    """JAX's checks of the window parameters, in JAX's order, then the shape."""
    _check_shapelike(name, "window_dimensions", window_dimensions, True)
    _check_shapelike(name, "window_strides", window_strides, True)
    _check_shapelike(name, "base_dilation", base_dilation, False)
    _check_shapelike(name, "window_dilation", window_dilation, False)
    if operand.ndim != len(window_dimensions):
        raise TypeError(f"{name} got the wrong number of window_dimensions for "
                        f"operand: got operand shape {operand.shape} with "
                        f"window_dimensions {window_dimensions}.")
    for arg, value in (("window_strides", window_strides),
                       ("base_dilation", base_dilation),
                       ("window_dilation", window_dilation)):
        if len(value) != len(window_dimensions):
            raise TypeError(f"{name} got inconsistent {arg} and window_dimensions: "
                            f"got {arg} {value} and window_dimensions "
                            f"{window_dimensions}.")
    return reduce_window_shape_tuple(operand.shape, window_dimensions, window_strides,
                                     padding, base_dilation, window_dilation)


# ---------------------------------------------------------------------------
# Kernels: the windows of a padded, dilated operand
# ---------------------------------------------------------------------------

def _grow(xp, x, fill, padding, base_dilation):
    """``x`` dilated and padded by the non-negative part of ``padding``,
    holes and pads holding ``fill``; the slices placing ``x`` in it; and
    where the region kept by negative padding starts."""
    grown = [(builtins.max(lo, 0), builtins.max(hi, 0)) for lo, hi in padding]
    sizes = [_dilate_dim(n, d) for n, d in zip(x.shape, base_dilation)]
    out = xp.full([s + lo + hi for s, (lo, hi) in zip(sizes, grown)], fill, x.dtype)
    place = tuple(builtins.slice(lo, lo + s, d)
                  for s, d, (lo, _) in zip(sizes, base_dilation, grown))
    out[place] = x
    starts = [builtins.max(-lo, 0) for lo, _ in padding]
    return out, place, starts


def _window_slices(starts, offset, window_dilation, out_shape, strides):
    """The strided slice reading element ``offset`` of every window."""
    return tuple(builtins.slice(st + k * wd, st + k * wd + (m - 1) * s + 1, s)
                 if m else builtins.slice(0, 0)
                 for st, k, wd, m, s in zip(starts, offset, window_dilation,
                                            out_shape, strides))


def _offsets(window_dimensions):
    return itertools.product(*[range(int(w)) for w in window_dimensions])


def _windows(x, fill, out_shape, window_dimensions, window_strides, padding,
             base_dilation, window_dilation):
    """``(K, *out_shape)``: element ``k`` of every window, for each of the
    ``K`` window offsets in row-major order; and whether each is an operand
    element (not padding, not a hole)."""
    xp = _xp()
    grown, place, starts = _grow(xp, x, fill, padding, base_dilation)
    valid = xp.zeros(grown.shape, dtype=bool)
    valid[place] = True
    slices = [_window_slices(starts, k, window_dilation, out_shape, window_strides)
              for k in _offsets(window_dimensions)]
    return (xp.stack([grown[s] for s in slices]),
            xp.stack([valid[s] for s in slices]))


def _monoid_kernel(reduce_name, identity):
    def impl(x, *, window_dimensions, window_strides, padding, base_dilation,
             window_dilation):
        out_shape = reduce_window_shape_tuple(x.shape, window_dimensions,
                                              window_strides, padding, base_dilation,
                                              window_dilation)
        wins, _ = _windows(x, identity(x.dtype), out_shape, window_dimensions,
                           window_strides, padding, base_dilation, window_dilation)
        with np.errstate(all="ignore"):
            if reduce_name == "sum":
                return _xp().sum(wins, axis=0, dtype=x.dtype)
            return getattr(_xp(), reduce_name)(wins, axis=0)
    return impl


# ---------------------------------------------------------------------------
# reduce_window_sum / max / min (SPEC WIN-4, WIN-6)
# ---------------------------------------------------------------------------

def _monoid_primitive(name, accepts, identity, reduce_name):
    prim = Primitive(name)

    def abstract_eval(x, **params):
        if accepts == "number" and not dtypes.issubdtype(x.dtype, np.number):
            raise TypeError(f"operand to {name} must have a number dtype, got "
                            f"{x.dtype.name}")
        shape = _common_shape_rule("reduce_window", x, **params)
        return ShapedArray(shape, x.dtype, x.weak_type)

    prim.def_abstract_eval(abstract_eval)
    prim.def_impl(_monoid_kernel(reduce_name, identity))
    return prim


reduce_window_sum_p = _monoid_primitive(
    "reduce_window_sum", "number", lambda d: np.array(0, d), "sum")
reduce_window_max_p = _monoid_primitive("reduce_window_max", "any", max_identity, "max")
reduce_window_min_p = _monoid_primitive("reduce_window_min", "any", min_identity, "min")


def _window_params(window_dimensions, window_strides, padding, base_dilation,
                   window_dilation):
    n = len(window_dimensions)
    return dict(window_dimensions=tuple(window_dimensions),
                window_strides=tuple(window_strides),
                padding=tuple(tuple(p) for p in padding),
                base_dilation=(1,) * n if base_dilation is None else tuple(base_dilation),
                window_dilation=((1,) * n if window_dilation is None
                                 else tuple(window_dilation)))


def _reduce_window_sum(operand, window_dimensions, window_strides, padding,
                       base_dilation=None, window_dilation=None):
    return reduce_window_sum_p.bind(operand, **_window_params(
        window_dimensions, window_strides, padding, base_dilation, window_dilation))


def _reduce_window_max(operand, window_dimensions, window_strides, padding,
                       base_dilation=None, window_dilation=None):
    return reduce_window_max_p.bind(operand, **_window_params(
        window_dimensions, window_strides, padding, base_dilation, window_dilation))


def _reduce_window_min(operand, window_dimensions, window_strides, padding,
                       base_dilation=None, window_dilation=None):
    return reduce_window_min_p.bind(operand, **_window_params(
        window_dimensions, window_strides, padding, base_dilation, window_dilation))


def conv_vjp_lhs_padding(in_shape, window_dimensions, window_strides, out_shape,
                         padding, lhs_dilation, rhs_dilation):
    """Pads of the cotangent, dilated by the strides, so that a window sum
    over it gives back the operand's shape (NumPy integers, as JAX's)."""
    lhs = np.array(_dilate_shape(in_shape, lhs_dilation), dtype=np.int64)
    rhs = np.array(_dilate_shape(window_dimensions, rhs_dilation), dtype=np.int64)
    out = np.array(_dilate_shape(out_shape, window_strides), dtype=np.int64)
    before = rhs - np.array([lo for lo, _ in padding], dtype=np.int64) - 1
    after = lhs + rhs - 1 - out - before
    return list(zip(before, after))


def _reduce_window_sum_transpose(ct, operand, *, window_dimensions, window_strides,
                                 padding, base_dilation, window_dilation):
    """Every operand element gets the sum of the cotangents of the windows
    reading it: the cotangent dilated by the strides and padded, summed over
    windows stepping by the base dilation (SPEC WIN-6)."""
    in_shape = operand.aval.shape
    ct_aval = core.get_aval(ct)
    pads = conv_vjp_lhs_padding(in_shape, window_dimensions, window_strides,
                                ct_aval.shape, padding, base_dilation, window_dilation)
    config = [(lo, hi, s - 1) for (lo, hi), s in zip(pads, window_strides)]
    padded = shapes.pad(ct, lax._const(ct, 0), config)
    ones = (1,) * len(in_shape)
    return [_reduce_window_sum(padded, window_dimensions, base_dilation,
                               [(0, 0)] * len(in_shape), base_dilation=ones,
                               window_dilation=window_dilation)]


ad.deflinear(reduce_window_sum_p, _reduce_window_sum_transpose)


def _chooser_jvp(select_prim):
    def jvp(g, operand, *, window_dimensions, window_strides, padding, base_dilation,
            window_dilation):
        return _select_and_gather_add(g, operand, select_prim, window_dimensions,
                                      window_strides, padding, base_dilation,
                                      window_dilation)
    return jvp


ad.defjvp(reduce_window_max_p, _chooser_jvp(lax.ge_p))
ad.defjvp(reduce_window_min_p, _chooser_jvp(lax.le_p))


def _insert_unit_window(params, bdim):
    """Window parameters of a per-example reduction extended over a batch
    axis at ``bdim``: a window of one element, stride one, no padding."""
    new = dict(params)
    for name in ("window_dimensions", "window_strides", "base_dilation",
                 "window_dilation"):
        if name in params:
            new[name] = tuple(params[name][:bdim]) + (1,) + tuple(params[name][bdim:])
    new["padding"] = tuple(params["padding"][:bdim]) + ((0, 0),) + tuple(
        params["padding"][bdim:])
    return new


def _monoid_batcher(prim):
    """The batch axis stays where it is, with a unit window (SPEC WIN-7)."""
    def rule(axis_data, vals, dims, **params):
        (x,), (bdim,) = vals, dims
        return prim.bind(x, **_insert_unit_window(params, bdim)), bdim
    prim.batch = rule


for _p in (reduce_window_sum_p, reduce_window_max_p, reduce_window_min_p):
    _monoid_batcher(_p)


# ---------------------------------------------------------------------------
# select_and_gather_add: the tangent of each window's chosen element
# ---------------------------------------------------------------------------

select_and_gather_add_p = Primitive("select_and_gather_add")

_SELECT_KERNELS = {"ge": "greater_equal", "le": "less_equal"}


def _select_kernel(select_prim):
    name = _SELECT_KERNELS.get(getattr(select_prim, "name", None))
    if name is None:
        raise ValueError(f"select_prim must be lax.ge_p or lax.le_p, got {select_prim}")
    return getattr(_xp(), name)


@select_and_gather_add_p.def_abstract_eval
def _select_and_gather_add_abstract_eval(tangents, operand, *, select_prim,
                                         window_dimensions, window_strides, padding,
                                         base_dilation, window_dilation):
    if tangents.shape != operand.shape:
        raise TypeError("select_and_gather_add tangents and operand shapes must "
                        f"match, got {tangents.shape} and {operand.shape}.")
    shape = _common_shape_rule("reduce_window", operand, window_dimensions,
                               window_strides, padding, base_dilation, window_dilation)
    return ShapedArray(shape, tangents.dtype, tangents.weak_type and operand.weak_type)


@select_and_gather_add_p.def_impl
def _select_and_gather_add_impl(tangents, operand, *, select_prim, window_dimensions,
                                window_strides, padding, base_dilation,
                                window_dilation):
    """Each window is scanned in order from (identity, 0): an element
    replaces the pair unless ``select(kept, element)`` holds; padding and
    holes are skipped.  The first of equal maxima wins (SPEC WIN-6)."""
    xp = _xp()
    select = _select_kernel(select_prim)
    identity = (max_identity if select_prim.name == "ge" else min_identity)(operand.dtype)
    params = (window_dimensions, window_strides, padding, base_dilation,
              window_dilation)
    out_shape = reduce_window_shape_tuple(operand.shape, *params[:3], *params[3:])
    keys, valid = _windows(operand, identity, out_shape, *params)
    vals, _ = _windows(tangents, np.array(0, tangents.dtype), out_shape, *params)
    kept_key = xp.full(out_shape, identity, operand.dtype)
    kept_val = xp.zeros(out_shape, tangents.dtype)
    with np.errstate(all="ignore"):
        for k in range(keys.shape[0]):
            take = valid[k] & ~select(kept_key, keys[k])
            kept_key = xp.where(take, keys[k], kept_key)
            kept_val = xp.where(take, vals[k], kept_val)
    return kept_val


def _select_and_gather_add(tangents, operand, select_prim, window_dimensions,
                           window_strides, padding, base_dilation, window_dilation):
    return select_and_gather_add_p.bind(
        tangents, operand, select_prim=select_prim, **_window_params(
            window_dimensions, window_strides, padding, base_dilation, window_dilation))


def _select_and_gather_add_jvp(primals, tangents, *, select_prim, **params):
    """Linear in the tangents operand; the operand only chooses."""
    (source, operand), (g_source, _) = primals, tangents
    out = select_and_gather_add_p.bind(source, operand, select_prim=select_prim,
                                       **params)
    if type(g_source) is ad.Zero:
        return out, ad.Zero.from_primal_value(out)
    return out, select_and_gather_add_p.bind(g_source, operand,
                                             select_prim=select_prim, **params)


def _select_and_gather_add_transpose(ct, tangents, operand, *, select_prim,
                                     window_dimensions, window_strides, padding,
                                     base_dilation, window_dilation):
    """Each window's cotangent goes back to the element it chose
    (``select_and_scatter_add``); holes of a base dilation are filled with
    the identity so that they are never chosen, then stepped over.  Window
    dilation is JAX's NotImplementedError (SPEC WIN-6)."""
    if ad.is_undefined_primal(operand):
        raise NotImplementedError("select_and_gather_add is not linear in its "
                                  "operand")
    if builtins.any(d != 1 for d in window_dilation):
        raise NotImplementedError(
            "VJP not implemented for select_and_gather (MaxPool) with window "
            f"dilation, got window_dilation={window_dilation}.")
    if type(ct) is ad.Zero:
        return [ad.Zero(tangents.aval), None]
    dilated = builtins.any(d != 1 for d in base_dilation)
    if dilated:
        aval = core.get_aval(operand)
        identity = (max_identity if select_prim.name == "ge" else min_identity)(aval.dtype)
        operand = shapes.pad(operand, identity,
                             tuple((0, 0, d - 1) for d in base_dilation))
    result = _select_and_scatter_add(ct, operand, select_prim, window_dimensions,
                                     window_strides, padding)
    if dilated:
        shape = core.get_aval(result).shape
        result = shapes.slice(result, (0,) * len(shape), shape, base_dilation)
    return [result, None]


def _front_batcher(prim):
    """Both operands batched along axis 0 (moved or broadcast there), with a
    unit window over it (SPEC WIN-7)."""
    def rule(axis_data, vals, dims, **params):
        vals = [batching.bdim_at_front(v, d, axis_data.size) for v, d in zip(vals, dims)]
        return prim.bind(*vals, **_insert_unit_window(params, 0)), 0
    prim.batch = rule


select_and_gather_add_p.jvp = _select_and_gather_add_jvp
select_and_gather_add_p.transpose = _select_and_gather_add_transpose
_front_batcher(select_and_gather_add_p)


# ---------------------------------------------------------------------------
# select_and_scatter_add: each window's source value added at its choice
# ---------------------------------------------------------------------------

select_and_scatter_add_p = Primitive("select_and_scatter_add")


@select_and_scatter_add_p.def_abstract_eval
def _select_and_scatter_add_abstract_eval(source, operand, *, select_prim,
                                          window_dimensions, window_strides, padding):
    ones = (1,) * len(window_dimensions)
    shape = _common_shape_rule("select_and_scatter_add", operand, window_dimensions,
                               window_strides, padding, ones, ones)
    if source.shape != shape:
        raise TypeError("select_and_scatter_add source must have the shape of the "
                        f"windows, {shape}, got {source.shape}.")
    if source.dtype != operand.dtype:
        raise TypeError("select_and_scatter_add source and operand dtypes must "
                        f"match, got {source.dtype.name} and {operand.dtype.name}.")
    return ShapedArray(operand.shape, source.dtype, source.weak_type)


def _selected_offsets(keys, valid, select):
    """For each window, the offset of the element it selects, scanning in
    order (a later element is taken when ``select(kept, it)`` fails; the
    first valid element starts the scan); and whether it has one."""
    xp = _xp()
    shape = keys.shape[1:]
    chosen = xp.zeros(shape, dtype=np.int64)
    found = xp.zeros(shape, dtype=bool)
    kept = keys[0]
    with np.errstate(all="ignore"):
        for k in range(keys.shape[0]):
            take = valid[k] & (~found | ~select(kept, keys[k]))
            kept = xp.where(take, keys[k], kept)
            chosen = xp.where(take, k, chosen)
            found = found | valid[k]
    return chosen, found


@select_and_scatter_add_p.def_impl
def _select_and_scatter_add_impl(source, operand, *, select_prim, window_dimensions,
                                 window_strides, padding):
    """The operand is padded with the selection's identity (as JAX does on
    CPU); each window's source value is added at the element it selects
    (SPEC WIN-6)."""
    xp = _xp()
    identity = (max_identity if select_prim.name == "ge" else min_identity)(operand.dtype)
    ones = (1,) * len(window_dimensions)
    grown, place, starts = _grow(xp, operand, identity, padding, ones)
    out_shape = source.shape
    slices = [_window_slices(starts, k, ones, out_shape, window_strides)
              for k in _offsets(window_dimensions)]
    keys = xp.stack([grown[s] for s in slices])
    chosen, _ = _selected_offsets(keys, xp.ones(keys.shape, dtype=bool),
                                  _select_kernel(select_prim))
    total = xp.zeros(grown.shape, source.dtype)
    with np.errstate(all="ignore"):
        for k, s in enumerate(slices):
            total[s] += xp.where(chosen == k, source, np.array(0, source.dtype))
    return total[place]


def _select_and_scatter_add(source, operand, select_prim, window_dimensions,
                            window_strides, padding):
    return select_and_scatter_add_p.bind(
        source, operand, select_prim=select_prim,
        window_dimensions=tuple(window_dimensions),
        window_strides=tuple(window_strides),
        padding=tuple(tuple(p) for p in padding))


def _select_and_scatter_add_jvp(primals, tangents, *, select_prim, **params):
    (source, operand), (g_source, _) = primals, tangents
    out = select_and_scatter_add_p.bind(source, operand, select_prim=select_prim,
                                        **params)
    if type(g_source) is ad.Zero:
        return out, ad.Zero.from_primal_value(out)
    return out, select_and_scatter_add_p.bind(g_source, operand,
                                              select_prim=select_prim, **params)


def _select_and_scatter_add_transpose(ct, source, operand, *, select_prim,
                                      window_dimensions, window_strides, padding):
    """Each window reads back the cotangent at the element it chose."""
    if ad.is_undefined_primal(operand):
        raise NotImplementedError("select_and_scatter_add is not linear in its "
                                  "operand")
    if type(ct) is ad.Zero:
        return [ad.Zero(source.aval), None]
    ones = (1,) * len(window_dimensions)
    return [_select_and_gather_add(ct, operand, select_prim, window_dimensions,
                                   window_strides, padding, ones, ones), None]


select_and_scatter_add_p.jvp = _select_and_scatter_add_jvp
select_and_scatter_add_p.transpose = _select_and_scatter_add_transpose
_front_batcher(select_and_scatter_add_p)


# ---------------------------------------------------------------------------
# select_and_scatter: select and scatter given as jaxprs
# ---------------------------------------------------------------------------

select_and_scatter_p = Primitive("select_and_scatter")
select_and_scatter_p.not_supported(
    "jvp", "undefined in JAX: select_and_scatter only appears in lowerings, "
    "never under differentiation")
select_and_scatter_p.not_supported(
    "batch", "undefined in JAX: select_and_scatter only appears in lowerings, "
    "never under vmap")

_closed_cache = lru.register(weakref.WeakKeyDictionary())


def _closed(jaxpr, consts):
    """The ``ClosedJaxpr`` of a jaxpr parameter and its consts, one object
    per pair so that its batched, compiled form is reused."""
    key = tuple(id(c) for c in consts)
    return lru.cached_per(_closed_cache, jaxpr, key,
                          lambda j, k: ClosedJaxpr(j, list(consts)))


@select_and_scatter_p.def_abstract_eval
def _select_and_scatter_abstract_eval(operand, source, init_value, *, select_jaxpr,
                                      select_consts, scatter_jaxpr, scatter_consts,
                                      window_dimensions, window_strides, padding):
    _check_shapelike("select_and_scatter", "window_dimensions", window_dimensions,
                     False)
    _check_shapelike("select_and_scatter", "window_strides", window_strides, False)
    if len(window_dimensions) != len(window_strides):
        raise TypeError("select_and_scatter got inconsistent window_strides and "
                        f"window_dimensions: got window_strides {window_strides} and "
                        f"window_dimensions {window_dimensions}.")
    ones = (1,) * len(window_dimensions)
    shape = _common_shape_rule("select_and_scatter", operand, window_dimensions,
                               window_strides, padding, ones, ones)
    if source.shape != shape or init_value.shape != ():
        raise TypeError("select_and_scatter needs a source of the windows' shape "
                        f"{shape} and a scalar init_value, got {source.shape} and "
                        f"{init_value.shape}.")
    return ShapedArray(operand.shape, operand.dtype, operand.weak_type)


@select_and_scatter_p.def_impl
def _select_and_scatter_impl(operand, source, init_value, *, select_jaxpr,
                             select_consts, scatter_jaxpr, scatter_consts,
                             window_dimensions, window_strides, padding):
    """The result starts as ``init_value`` everywhere; each window selects
    an element with the select jaxpr (padding is never selected) and the
    scatter jaxpr combines the result there with the window's source value,
    windows in row-major order (SPEC WIN-6)."""
    xp = _xp()
    ones = (1,) * len(window_dimensions)
    out_shape = source.shape
    keys, valid = _windows(operand, np.array(0, operand.dtype), out_shape,
                           window_dimensions, window_strides, padding, ones, ones)
    size = math.prod(out_shape)
    select_fn = _batched_binary(_closed(select_jaxpr, select_consts), size)
    chosen, found = _selected_offsets(
        keys.reshape((keys.shape[0], size)), valid.reshape((keys.shape[0], size)),
        select_fn)
    grown, place, starts = _grow(xp, xp.full(operand.shape, init_value, operand.dtype),
                                 np.array(0, operand.dtype), padding, ones)
    scatter_fn = _batched_binary(_closed(scatter_jaxpr, scatter_consts), size)
    flat_source = source.reshape(size)
    for k in _offsets(window_dimensions):
        s = _window_slices(starts, k, ones, out_shape, window_strides)
        index = int(np.ravel_multi_index(k, window_dimensions))
        here = grown[s].reshape(size)
        hit = found & (chosen == index)
        grown[s] = xp.where(hit, scatter_fn(here, flat_source), here).reshape(out_shape)
    return grown[place]


def _batched_binary(closed, size):
    """A binary scalar jaxpr applied to ``size`` pairs at once."""
    if size == 0:
        return lambda x, y: x
    run = batched_computation(closed, size)
    return lambda x, y: run(x, y)[0]


# ---------------------------------------------------------------------------
# reduce_window: any computation (SPEC WIN-5)
# ---------------------------------------------------------------------------

reduce_window_p = Primitive("reduce_window", multiple_results=True)


@reduce_window_p.def_abstract_eval
def _reduce_window_abstract_eval(*avals, jaxpr, consts, window_dimensions,
                                 window_strides, padding, base_dilation,
                                 window_dilation):
    ops, inits = split_operands_and_inits(avals)
    if builtins.any(o.dtype != i.dtype for o, i in zip(ops, inits)):
        raise TypeError("reduce_window got inconsistent dtypes for operands and "
                        f"init_values: got operand dtypes {[o.dtype for o in ops]} "
                        f"and init_value dtypes {[i.dtype for i in inits]}.")
    if builtins.any(i.shape != () for i in inits):
        raise TypeError("reduce_window expected init_values to be scalars but "
                        f"init_values have shapes {[i.shape for i in inits]}.")
    if builtins.any(o.shape != ops[0].shape for o in ops):
        raise ValueError("reduce_window operands must all have the same shape, got "
                         f"{[o.shape for o in ops]}.")
    shape = _common_shape_rule("reduce_window", ops[0], window_dimensions,
                               window_strides, padding, base_dilation, window_dilation)
    check_computation_outputs("reduce_window", ClosedJaxpr(jaxpr, list(consts)), inits)
    return [ShapedArray(shape, o.dtype) for o in ops]


@reduce_window_p.def_impl
def _reduce_window_impl(*buffers, jaxpr, consts, window_dimensions, window_strides,
                        padding, base_dilation, window_dilation):
    """Each window folds its operand elements in row-major order from the
    initial values; padding and holes are skipped (SPEC WIN-5)."""
    xp = _xp()
    ops, inits = split_operands_and_inits(buffers)
    params = (window_dimensions, window_strides, padding, base_dilation,
              window_dilation)
    out_shape = reduce_window_shape_tuple(ops[0].shape, *params[:3], *params[3:])
    size = math.prod(out_shape)
    rows, valid = [], None
    for o, i in zip(ops, inits):
        wins, valid = _windows(o, i, out_shape, *params)
        rows.append(wins.reshape((wins.shape[0], size)))
    accs = [xp.full((size,), i, dtype=o.dtype) for o, i in zip(ops, inits)]
    closed = _closed(jaxpr, consts)
    valid = valid.reshape((valid.shape[0], size))
    if size == 0:
        return [a.reshape(out_shape) for a in accs]
    run = batched_computation(closed, size)
    with np.errstate(all="ignore"):
        for k in range(valid.shape[0]):
            new = run(*accs, *[r[k] for r in rows])
            accs = [xp.where(valid[k], xp.asarray(n).astype(a.dtype), a)
                    for n, a in zip(new, accs)]
    return [a.reshape(out_shape) for a in accs]


def _reduce_window_jvp(primals, tangents, *, jaxpr, consts, **params):
    """A reduce_window of (operands, tangents) whose computation is the
    JVP of the original one; initial values must have zero tangents
    (JAX's TypeError otherwise) (SPEC WIN-6)."""
    ops, inits = split_operands_and_inits(primals)
    t_ops, t_inits = split_operands_and_inits(tangents)
    if not builtins.all(type(t) is ad.Zero for t in t_inits):
        raise TypeError("reduce_window jvp does not support non-zero "
                        "init_value_tangent.")
    if builtins.all(type(t) is ad.Zero for t in t_ops):
        outs = reduce_window_p.bind(*ops, *inits, jaxpr=jaxpr, consts=consts, **params)
        return outs, [ad.Zero.from_primal_value(o) for o in outs]
    n = len(ops)
    reducer = core.jaxpr_as_fun(_closed(jaxpr, consts))

    def jvp_computation(left, right):
        outs, touts = ad.jvp_flat(reducer, [*left[:n], *right[:n]],
                                  [*left[n:], *right[n:]])
        return [*outs, *map(ad.instantiate_zeros, touts)]

    t_ops = [ad.instantiate_zeros(t) for t in t_ops]
    t_inits = [ad.instantiate_zeros(t) for t in t_inits]
    both = _reduce_window([*ops, *t_ops], [*inits, *t_inits], jvp_computation,
                          **params)
    return both[:n], both[n:]


def _reduce_window_batch(axis_data, vals, dims, *, jaxpr, consts, **params):
    """Operands batched along axis 0 with a unit window there; a batched
    initial value is JAX's NotImplementedError (SPEC WIN-7)."""
    ops, inits = split_operands_and_inits(vals)
    op_dims, init_dims = split_operands_and_inits(dims)
    if builtins.any(d is not None for d in init_dims):
        raise NotImplementedError("reduce_window batching is not implemented for "
                                  "initial values")
    ops = [batching.bdim_at_front(x, d, axis_data.size) for x, d in zip(ops, op_dims)]
    outs = reduce_window_p.bind(*ops, *inits, jaxpr=jaxpr, consts=consts,
                                **_insert_unit_window(params, 0))
    return outs, [0] * len(outs)


def _reduce_window_transpose(cts, *args, **params):
    """The JVP computes primals and tangents in one ``reduce_window``, so
    reverse mode cannot split them: JAX's ValueError (SPEC WIN-6)."""
    raise ValueError(
        "Linearization failed to produce known values for all output primals. "
        "This is typically caused by attempting to differentiate a function "
        "uses an operation that does not support reverse-mode autodiff: a "
        "reduce_window with a general computation has forward-mode derivatives "
        "only (use reduce_window with add, max or min for reverse mode).")


reduce_window_p.jvp = _reduce_window_jvp
reduce_window_p.transpose = _reduce_window_transpose
reduce_window_p.batch = _reduce_window_batch


# ---------------------------------------------------------------------------
# The public function
# ---------------------------------------------------------------------------

def _canonical_padding(padding, shape, window_dimensions, window_strides,
                       window_dilation):
    """``padding`` as (low, high) pairs: a string is resolved against the
    dilated window ('SAME' needs strides), a sequence must hold pairs."""
    if isinstance(padding, str):
        window = (window_dimensions if window_dilation is None
                  else _dilate_shape(window_dimensions, window_dilation))
        if window_strides is None and padding.upper() != "VALID":
            _padding_name(padding)                        # a bad name first
            raise ValueError(f"reduce_window with padding={padding!r} needs "
                             "window_strides; got None.")
        strides = (1,) * len(window) if window_strides is None else window_strides
        return tuple((int(lo), int(hi)) for lo, hi in
                     padtype_to_pads(shape, window, strides, padding))
    try:
        pairs = [tuple(p) for p in padding]
    except TypeError as e:
        raise TypeError("reduce_window padding must be a string or a sequence of "
                        f"(low, high) pairs, got {padding!r}.") from e
    if builtins.any(len(p) != 2 for p in pairs):
        raise ValueError("reduce_window padding must be a sequence of (low, high) "
                         f"pairs, got {padding!r}.")
    return tuple((operator.index(lo), operator.index(hi)) for lo, hi in pairs)


def _monoid_window_reducer(computation, inits):
    """``reduce_window_sum``/``max``/``min`` when ``computation`` is
    ``add``/``max``/``min`` of one operand with its identity (SPEC WIN-4)."""
    if len(inits) != 1:
        return None
    value = concrete_scalar(inits[0])
    if value is None:
        return None
    dtype = core.get_aval(inits[0]).dtype
    for op, reducer, identity in ((lax.add, _reduce_window_sum, lambda d: 0),
                                  (lax.max, _reduce_window_max, max_identity),
                                  (lax.min, _reduce_window_min, min_identity)):
        if computation is op:
            return reducer if np.asarray(value) == identity(dtype) else None
    return None


def _reduce_window(operand, init_value, computation, window_dimensions,
                   window_strides, padding, base_dilation=None, window_dilation=None):
    flat_ops, op_tree = tree_util.tree_flatten(operand)
    flat_inits, init_tree = tree_util.tree_flatten(init_value)
    if op_tree != init_tree:
        raise ValueError("Operands must have the same tree structure as init_values:"
                         f" {op_tree} vs. {init_tree}")
    if len(flat_ops) != len(flat_inits):
        raise ValueError("Must have same total number of operands as init_values: "
                         f" {len(flat_ops)} vs. {len(flat_inits)}")
    if not flat_ops:
        raise ValueError("reduce_window must have at least one operand.")
    shape = core.get_aval(flat_ops[0]).shape
    padding = _canonical_padding(padding, shape, window_dimensions, window_strides,
                                 window_dilation)
    if window_strides is None:
        window_strides = (1,) * len(window_dimensions)
    params = _window_params(window_dimensions, window_strides, padding, base_dilation,
                            window_dilation)
    monoid = _monoid_window_reducer(computation, flat_inits)
    if monoid is not None:
        return monoid(flat_ops[0], **params)
    init_avals = [core.get_aval(v) for v in flat_inits]
    closed, out_tree = reduction_jaxpr(computation, init_avals, init_tree,
                                       "reduce_window")
    if op_tree != out_tree:
        raise ValueError("reduce_window output must have the same tree structure as "
                         f"the operands {op_tree} vs. {out_tree}")
    outs = reduce_window_p.bind(*flat_ops, *flat_inits, jaxpr=closed.jaxpr,
                                consts=tuple(closed.consts), **params)
    return tree_util.tree_unflatten(out_tree, outs)


def reduce_window(operand, init_value, computation, window_dimensions,
                  window_strides=None, padding="VALID", base_dilation=None,
                  window_dilation=None):
    """Fold ``computation`` over every window of ``operand`` (an array or a
    pytree of arrays), from ``init_value`` (SPEC WIN-4, WIN-5).

    ``padding`` is 'VALID', 'SAME', 'SAME_LOWER' or (low, high) pairs;
    strides and dilations default to 1.  ``add``/``max``/``min`` with their
    identity bind ``reduce_window_sum``/``max``/``min``."""
    return _reduce_window(operand, init_value, computation, window_dimensions,
                          window_strides, padding, base_dilation, window_dilation)
