"""The smaller ``jax.lax`` operations that have no module of their own
(SPEC LXM).

Shape helpers (``broadcast_shapes``, ``broadcast_like``, ``shape_as_value``,
``empty``, ``dtype``), ``unstack``, ``optimization_barrier``, ``mulhi``,
``stage``, ``dce_sink``, the total-order comparisons ``eq_to``/``le_to``/
``lt_to``, ``platform_dependent``, ``composite`` and the ``device_put``
primitive.  Each primitive's rules sit beside its definition, as in
:mod:`refjax._src.lax.lax`.
"""
import builtins
import functools
import operator

import numpy as np

from refjax._src import api, core, dtypes, tree_util
from refjax._src.array import Array
from refjax._src.core import Primitive, ShapedArray, Tracer
from refjax._src.errors import JaxRuntimeError, UnexpectedTracerError
from refjax._src.interpreters import ad, batching
from refjax._src.lax import lax, shapes
from refjax._src.lax.control_flow import common

_xp = lax._xp


def check_operands(name, *operands):
    """JAX's ``TypeError`` for an operand that is not a JAX value, checked
    before anything else (SPEC LXM-1)."""
    for i, x in enumerate(operands):
        if not core.is_array_like(x):
            raise TypeError(f"Error interpreting argument to {name} as a JAX value. The "
                            f"problematic value is of type {type(x)} and was passed to "
                            f"{name} at position {i}.")
        core.get_aval(x)        # a Python int out of range: OverflowError


# ---------------------------------------------------------------------------
# Shapes and dtypes (SPEC LXM-1)
# ---------------------------------------------------------------------------

def broadcast_shapes(*shapes):
    """The NumPy broadcast of ``shapes``, ranks promoted on the left; one
    shape comes back as given (SPEC LXM-1)."""
    if not shapes:
        raise AssertionError("broadcast_shapes needs at least one shape")
    shapes_in = shapes
    shapes = [_shape_of(s) for s in shapes]
    if len(shapes) == 1:
        return shapes_in[0]
    rank = builtins.max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + s for s in shapes]
    out = []
    for sizes in zip(*padded):
        big = {d for d in sizes if d != 1}
        if len(big) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
        out.append(big.pop() if big else 1)
    return tuple(out)


def _shape_of(s):
    """A shape as a tuple of ints; an int is a 1-d shape.  Anything else is
    JAX's ``TypeError`` (its sizes are not bounded here)."""
    try:
        dims = (operator.index(s),)
    except TypeError:
        try:
            dims = tuple(operator.index(d) for d in s)
        except TypeError as e:
            raise TypeError("Shapes must be 1D sequences of concrete values of integer "
                            f"type, got {s}.") from e
    if builtins.any(d < 0 for d in dims):
        raise TypeError("Only non-negative indices are allowed when broadcasting static "
                        f"shapes, but got shape {s}.")
    return dims


def broadcast_like(arr, like_arr):
    """``arr`` broadcast to the shape of ``like_arr``: new axes lead, and
    each existing axis must be 1 or the target size (SPEC LXM-1)."""
    aval = core.get_aval(arr)
    shape = core.get_aval(like_arr).shape
    if aval.shape == shape:
        return lax.convert_element_type(arr, aval.dtype) if not isinstance(
            arr, (Array, Tracer)) else arr
    nlead = len(shape) - len(aval.shape)
    if nlead < 0 or builtins.any(a not in (1, s) for a, s in zip(aval.shape, shape[nlead:])):
        want = ShapedArray(shape, aval.dtype).str_short()
        raise ValueError(f"Incompatible types for broadcasting: input "
                         f"type={aval.str_short()} and requested type={want}")
    return shapes.broadcast_in_dim(arr, shape, tuple(range(nlead, len(shape))))


_PY_SCALARS = {bool: np.dtype(bool), int: np.dtype(np.int64),
               float: np.dtype(np.float64), complex: np.dtype(np.complex128)}


def dtype(x):
    """JAX's dtype of ``x``, canonical for the current x64 mode: Python
    scalars and scalar types map to the default dtypes, NumPy types and
    dtype names are canonicalized (with a warning when that narrows them),
    arrays keep theirs (SPEC LXM-1)."""
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    if isinstance(x, type) and x in _PY_SCALARS:
        return dtypes.canonicalize_dtype(_PY_SCALARS[x])
    if type(x) in _PY_SCALARS:
        return dtypes.canonicalize_dtype(_PY_SCALARS[type(x)])
    if isinstance(x, (Array, Tracer)):
        return x.dtype
    if isinstance(x, (str, np.dtype)) or (isinstance(x, type) and hasattr(x, "dtype")) or \
            (isinstance(x, type) and issubclass(x, np.generic)):
        dt = dtypes.to_dtype(x)
        _check_jax_dtype(x, dt)
        return dtypes.check_user_dtype(dt, "dtype")
    dt = getattr(x, "dtype", None)
    if not isinstance(dt, np.dtype) and not dtypes.is_extended(dt):
        try:
            dt = np.result_type(x)
        except TypeError as err:
            raise TypeError(f"Cannot determine dtype of {x}") from err
    _check_jax_dtype(x, dt)
    return dtypes.canonicalize_dtype(dt, allow_extended_dtype=True)


def _check_jax_dtype(x, dt):
    if not dtypes.is_extended(dt) and not dtypes.is_valid_jax_dtype(dt):
        raise TypeError(f"Value '{x}' with dtype {dt} is not a valid JAX array "
                        "type. Only arrays of numeric types are supported by JAX.")


def shape_as_value(shape):
    """A static ``shape`` as a 1-d integer array (a NumPy array; the empty
    shape gives an empty array of the default int dtype) (SPEC LXM-1)."""
    dims = [operator.index(d) for d in shape]
    dt = np.int64 if builtins.any(d >= 2 ** 31 for d in dims) else np.int32
    if len(shape) == 0:
        return lax.full((0,), np.array(0, dtype=dtypes.canonicalize_dtype(dt)))
    return np.asarray(shape, dtype=dt)


empty_p = Primitive("empty")


@empty_p.def_abstract_eval
def _empty_abstract_eval(*, shape, dtype, out_sharding):
    return ShapedArray(shape, dtype)


@empty_p.def_impl
def _empty_impl(*, shape, dtype, out_sharding):
    # Values are unspecified (as XLA's); zeros are one valid choice.
    return _xp().zeros(shape, dtype)


def _pp_empty(params):
    return dict(params, dtype=_DtypeClassName(params["dtype"]))


class _DtypeClassName:
    """Prints a dtype as JAX's ``empty`` parameter does (its scalar class)."""

    def __init__(self, dt):
        self.dt = dt

    def __repr__(self):
        return f"<class 'jax.numpy.{np.dtype(self.dt).name}'>"


empty_p.pp_params = _pp_empty
ad.defjvp_zero(empty_p)
empty_p.batch = lambda axis_data, vals, dims, **params: (empty_p.bind(**params), None)


def empty(shape, dtype, *, out_sharding=None):
    """An array of ``shape`` and ``dtype`` whose values are unspecified
    (refjax fills zeros; SPEC LXM-2).  ``dtype=None`` is the default float."""
    lax.check_out_sharding(out_sharding, "lax.empty")
    shape = core.canonicalize_shape(shape if np.ndim(shape) else (shape,))
    dt = dtypes.check_user_dtype(dtype, "empty")
    dt = dtypes.default_float_dtype() if dt is None else dt
    return empty_p.bind(shape=shape, dtype=dt, out_sharding=out_sharding)


# ---------------------------------------------------------------------------
# unstack (SPEC LXM-3)
# ---------------------------------------------------------------------------

unstack_p = Primitive("unstack", multiple_results=True)


@unstack_p.def_abstract_eval
def _unstack_abstract_eval(x, *, axis):
    shape = x.shape[:axis] + x.shape[axis + 1:]
    return [ShapedArray(shape, x.dtype, x.weak_type) for _ in range(x.shape[axis])]


@unstack_p.def_impl
def _unstack_impl(x, *, axis):
    xp = _xp()
    return [xp.take(x, i, axis=axis) for i in range(x.shape[axis])]


def unstack(x, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple (SPEC LXM-3)."""
    ndim = core.get_aval(x).ndim
    axis = core.canonicalize_axis(axis, ndim)
    return tuple(unstack_p.bind(x, axis=axis))


def _unstack_transpose(cts, x, *, axis):
    """The slices' cotangents stacked back, zeros for unused slices."""
    aval = x.aval
    piece = ShapedArray(aval.shape[:axis] + aval.shape[axis + 1:], aval.dtype)
    cts = [ad.zeros_like_aval(piece) if type(c) is ad.Zero else c for c in cts]
    if not cts:
        return [ad.zeros_like_aval(aval)]
    return [shapes.stack(cts, axis)]


ad.deflinear(unstack_p, _unstack_transpose)


def _unstack_batch(axis_data, vals, dims, *, axis):
    """Unstack along the renumbered axis; the slices keep the batch axis,
    one lower when it came after ``axis``."""
    (x,), (bdim,) = vals, dims
    shifted = batching.shift_axis_param(axis, bdim)
    outs = unstack_p.bind(x, axis=shifted)
    out_dim = bdim if bdim < shifted else bdim - 1
    return outs, [out_dim] * len(outs)


unstack_p.batch = _unstack_batch


# ---------------------------------------------------------------------------
# optimization_barrier (SPEC LXM-4)
# ---------------------------------------------------------------------------

optimization_barrier_p = Primitive("optimization_barrier", multiple_results=True)
optimization_barrier_p.def_abstract_eval(lambda *avals: list(avals))
optimization_barrier_p.def_impl(lambda *xs: list(xs))


def optimization_barrier(operand, /):
    """The pytree ``operand`` unchanged; the barrier only constrains a
    compiler's scheduling, which refjax does not reorder (SPEC LXM-4)."""
    leaves, tree = tree_util.tree_flatten(operand)
    return tree_util.tree_unflatten(tree, optimization_barrier_p.bind(*leaves))


def _barrier_jvp(primals, tangents):
    """The primals through one barrier, the tangents through another."""
    out = optimization_barrier_p.bind(*primals)
    if not tangents:
        return out, []
    return out, optimization_barrier_p.bind(*map(ad.instantiate_zeros, tangents))


def _barrier_transpose(cts, *args):
    cts = [ad.instantiate_zeros(c) if type(c) is not ad.Zero else ad.zeros_like_aval(c.aval)
           for c in cts]
    outs = optimization_barrier_p.bind(*cts) if cts else []
    return [o if ad.is_undefined_primal(a) else None for o, a in zip(outs, args)]


def _barrier_batch(axis_data, vals, dims):
    return optimization_barrier_p.bind(*vals), list(dims)


optimization_barrier_p.jvp = _barrier_jvp
optimization_barrier_p.transpose = _barrier_transpose
optimization_barrier_p.batch = _barrier_batch


# ---------------------------------------------------------------------------
# mulhi (SPEC LXM-5)
# ---------------------------------------------------------------------------

def _mulhi_kernel(x, y):
    """The upper half of each 2N-bit product of N-bit integers."""
    xp = _xp()
    x, y = xp.broadcast_arrays(x, y)
    dt = x.dtype
    bits = dt.itemsize * 8
    if bits < 64:
        wide = np.dtype(f"{dt.kind}{2 * dt.itemsize}")
        return ((x.astype(wide) * y.astype(wide)) >> bits).astype(dt)
    return _mulhi64(xp, x, y).astype(dt)


def _mulhi64(xp, x, y):
    """64-bit ``mulhi`` from 32-bit halves (products then fit 64 bits),
    corrected for signed operands."""
    u = np.uint64
    xu, yu = x.astype(u), y.astype(u)
    lo, sh = u(0xFFFFFFFF), u(32)
    x_lo, x_hi, y_lo, y_hi = xu & lo, xu >> sh, yu & lo, yu >> sh
    ll, lh, hl, hh = x_lo * y_lo, x_lo * y_hi, x_hi * y_lo, x_hi * y_hi
    mid = (lh & lo) + (hl & lo) + (ll >> sh)
    high = hh + (lh >> sh) + (hl >> sh) + (mid >> sh)
    if x.dtype.kind == "i":
        # signed high = unsigned high - (x<0 ? y : 0) - (y<0 ? x : 0), mod 2**64
        high = high - xp.where(x < 0, yu, u(0)) - xp.where(y < 0, xu, u(0))
    return high


mulhi_p, mulhi = lax._binary("mulhi", lax._int, _mulhi_kernel)
ad.defjvp_zero(mulhi_p)
mulhi.__doc__ = ("Elementwise multiply-high: the upper N bits of the 2N-bit "
                 "product of N-bit integers (SPEC LXM-5).")


# ---------------------------------------------------------------------------
# Total-order comparisons (SPEC LXM-6)
# ---------------------------------------------------------------------------

def _total_order_key(x):
    """Integers ordering floats as IEEE totalOrder does: -NaN < -inf < ...
    < -0.0 < +0.0 < ... < inf < +NaN (each NaN by its bits)."""
    if x.dtype.kind not in "f" and x.dtype not in (dtypes.bfloat16,):
        if x.dtype.kind == "c":
            raise JaxRuntimeError(
                "FAILED_PRECONDITION: Expected comparison type FLOAT.\n"
                f"actual: TOTALORDER\noperand: {x.dtype}")
        return x
    xp = _xp()
    width = x.dtype.itemsize
    signed = np.dtype(f"i{width}")
    bits = x.view(signed) if hasattr(x, "view") else xp.asarray(x).view(signed)
    flip = np.array(np.iinfo(signed).max, signed)
    return xp.where(bits < 0, bits ^ flip, bits)


def _total_compare(op):
    def kernel(x, y):
        return op(_total_order_key(x), _total_order_key(y))
    return kernel


eq_to_p, _ = lax._binary("eq_to", lax._any, _total_compare(operator.eq),
                         result_dtype=lax._to_bool)
le_to_p, _ = lax._binary("le_to", lax._ordered, _total_compare(operator.le),
                         result_dtype=lax._to_bool)
lt_to_p, _ = lax._binary("lt_to", lax._ordered, _total_compare(operator.lt),
                         result_dtype=lax._to_bool)
for _p in (eq_to_p, le_to_p, lt_to_p):
    ad.defjvp_zero(_p)


# ---------------------------------------------------------------------------
# stage and dce_sink (SPEC LXM-7)
# ---------------------------------------------------------------------------

stage_p = Primitive("stage")


@stage_p.def_abstract_eval
def _stage_abstract_eval(x):
    return x


stage_p.def_impl(lambda x: x)
batching.defvectorized(stage_p)
ad.deflinear(stage_p, lambda ct, x: [ct])


def stage(x, /):
    """``x`` as a value of the innermost trace: a tracer stays itself (no
    equation is recorded), any other array-like becomes an array, staged
    as a constant when tracing (SPEC LXM-7)."""
    if isinstance(x, Tracer):
        return x
    if not core.is_array_like(x):
        raise TypeError("Error interpreting argument to stage as a JAX value. The "
                        f"problematic value is of type {type(x)} and was passed to "
                        "stage at position 0.")
    if isinstance(x, Array):
        return x
    return stage_p.bind(x) if core.current_trace() is core.eval_trace else x


dce_sink_p = Primitive("dce_sink", multiple_results=True)
# An equation without outputs that dead-code elimination must keep.
dce_sink_p.effectful = True
dce_sink_p.def_abstract_eval(lambda x, **_: [])
dce_sink_p.def_impl(lambda x, **_: [])
ad.deflinear(dce_sink_p, lambda cts, x, **_: [None])
dce_sink_p.batch = lambda axis_data, vals, dims, **_: ([], [])


def dce_sink(val, *, prevent_mlir_dce=False):
    """Mark every leaf of ``val`` as used, so that the computation producing
    it is not eliminated; returns None (SPEC LXM-7)."""
    for leaf in tree_util.tree_leaves(val):
        dce_sink_p.bind(leaf, prevent_mlir_dce=prevent_mlir_dce)


# ---------------------------------------------------------------------------
# platform_dependent (SPEC LXM-8)
# ---------------------------------------------------------------------------

_KNOWN_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")


def platform_dependent(*args, default=None, **per_platform):
    """Call the function given for the platform refjax runs on (``cpu``),
    else ``default``; with neither, JAX's ``NotImplementedError`` for a
    missing lowering.  The choice is made when the call is traced, so the
    jaxpr holds only the chosen branch (SPEC LXM-8)."""
    if "gpu" in per_platform:
        raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
    branch = per_platform.get("cpu", default)
    if branch is None:
        names = tuple((p,) for p in per_platform)
        raise NotImplementedError(
            "MLIR translation rule for primitive 'platform_index(platforms="
            f"{names})' not found for platform cpu")
    return branch(*args)


# ---------------------------------------------------------------------------
# composite (SPEC LXM-9)
# ---------------------------------------------------------------------------

composite_p = Primitive("composite", multiple_results=True)
api.def_call(composite_p, "jaxpr")


@composite_p.def_abstract_eval
def _composite_abstract_eval(*avals, jaxpr, **_):
    return jaxpr.out_avals


def _composite_jvp(primals, tangents, **_):
    raise ValueError(
        "JVP rule for composite not implemented. You can use `jax.custom_jvp` to "
        "add support. See "
        "https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html")


def _composite_transpose(cts, *args, **_):
    raise ValueError(
        "Transpose rule for composite not implemented. You can use"
        "`jax.custom_jvp` or `jax.custom_vjp` to add support. See "
        "https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html")


composite_p.jvp = _composite_jvp
composite_p.transpose = _composite_transpose
composite_p.not_supported("batch", "undefined in JAX: composite has no batching rule")


def composite(decomposition, name, version=0):
    """Wrap ``decomposition`` as a named composite operation: calling the
    result runs ``decomposition`` (keyword arguments become static
    attributes) inside one ``composite`` equation.  Like JAX, it has no
    JVP, transpose or batching rule (SPEC LXM-9)."""
    @functools.wraps(decomposition)
    def wrapped(*args, **kwargs):
        if builtins.any(isinstance(v, Tracer) for v in tree_util.tree_leaves(kwargs)):
            raise UnexpectedTracerError(
                "Found a JAX Tracer as an attribute in the decomposition for the "
                f"composite op '{name}'. This means that the decomposition function "
                "closes over a value that is involved in a JAX transformation. "
                "Any values that aren't explicitly known at compile time must be "
                "explicitly passed as arguments to the composite."
                "\n\nNote: If you are passing jax arrays as attributes, use numpy "
                "arrays instead.")
        leaves, in_tree = tree_util.tree_flatten(args)
        avals = [core.get_aval(x) for x in leaves]
        closed, consts, out_tree = common.trace_to_jaxpr(
            functools.partial(decomposition, **kwargs), in_tree, avals, name)
        if builtins.any(isinstance(c, Tracer) for c in consts):
            raise UnexpectedTracerError(    # SPEC LXM-33
                "Found a JAX Tracer as a constant in the decomposition for the "
                f"composite op '{name}'. This means that the decomposition function "
                "closes over a value that is involved in a JAX transformation. "
                "Any values that aren't explicitly known at compile time must be "
                "explicitly passed as arguments to the composite.")
        attributes = tuple((k, tuple(tree_util.tree_leaves(v)), tree_util.tree_structure(v))
                           for k, v in kwargs.items())
        outs = composite_p.bind(*consts, *leaves, name=name, attributes=attributes,
                                version=version, jaxpr=closed)
        return tree_util.tree_unflatten(out_tree, outs)
    return wrapped


# ---------------------------------------------------------------------------
# device_put as a primitive (SPEC LXM-10)
# ---------------------------------------------------------------------------

device_put_p = Primitive("device_put", multiple_results=True)


@device_put_p.def_abstract_eval
def _device_put_abstract_eval(*avals, devices, srcs, copy_semantics):
    return list(avals)


device_put_p.def_impl(lambda *xs, **_: list(xs))


def _device_put_transpose(cts, *args, devices, srcs, copy_semantics):
    """Linear: cotangents go back to the sources (here: unchanged)."""
    return [ad.instantiate_zeros(c) if ad.is_undefined_primal(a) else None
            for c, a in zip(cts, args)]


ad.deflinear(device_put_p, _device_put_transpose)
device_put_p.batch = lambda axis_data, vals, dims, **p: (
    device_put_p.bind(*vals, **p), list(dims))
