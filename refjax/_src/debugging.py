"""``jax.debug.print``, ``jax.debug.callback`` and host callbacks (SPEC DBG-1..).

Each is a primitive whose implementation calls back into Python.  Traced
under ``jit`` it becomes an equation, so it runs at every execution of the
compiled program, in program order, with the runtime values; Python's own
``print`` runs only while tracing.  Eagerly, the implementation runs at once.
"""
import copy
import logging
import string

import numpy as np

from refjax._src import core, errors, tree_util
from refjax._src.array import Array, ArrayImpl, readonly_view
from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import batching
from refjax._src.interpreters import key_reuse as kr
from refjax._src.lax import shapes as lax_shapes


def _host(buffer):
    from refjax._src import backend
    return backend.get().to_host(buffer)


class DebugEffect:
    """The effect of an unordered debug callback, printed as
    ``debug_callback[effect=Debug ...]`` (SPEC DBG-16)."""

    def __str__(self):
        return "Debug"

    __repr__ = __str__


class OrderedDebugEffect:
    """The effect of an ordered one (``ordered=True``): such callbacks run
    in program order.  Not a subclass of :class:`DebugEffect`, as in JAX."""

    def __str__(self):
        return "OrderedDebug"

    __repr__ = __str__


debug_effect = DebugEffect()
ordered_debug_effect = OrderedDebugEffect()
logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# jax.debug.print
# ---------------------------------------------------------------------------

debug_print_p = Primitive("debug_print", multiple_results=True)
debug_print_p.effectful = True


@debug_print_p.def_abstract_eval
def _debug_print_abstract_eval(*avals, **params):
    return []


@debug_print_p.def_impl
def _debug_print_impl(*buffers, fmt, in_tree, static_args, np_printoptions,
                      has_placeholders, logging_record, **unused):
    """Format with ``str.format`` on ``jax.Array`` values, as JAX does (DBG-2).

    0-d values format like Python scalars (``0.9092974066734314`` for a
    float32), as NumPy's 0-d ``__format__`` does; ``{0[5]}`` indexes the
    Array, so an index out of bounds clamps (DBG-9).
    """
    dynamic = iter([ArrayImpl(b, np.dtype(b.dtype)) for b in buffers])
    statics = dict(static_args)
    leaves = [statics[i] if i in statics else next(dynamic)
              for i in range(in_tree.num_leaves)]
    args, kwargs = tree_util.tree_unflatten(in_tree, leaves)
    if has_placeholders:
        with np.printoptions(**dict(np_printoptions)):
            msg = fmt.format(*args, **kwargs)
    else:
        # A template without fields (its check skipped): the values follow it.
        msg = " ".join((fmt, *(str(a) for a in args)))
    if logging_record is not None:
        record = copy.copy(logging_record)
        record.msg = msg
        logger.handle(record)
    else:
        print(msg, flush=True)
    return []


def _callback_failed(err):
    """The error a compiled program raises when a host callback in it fails:
    JAX's ``JaxRuntimeError``, the callback's exception chained as its cause
    (DBG-10)."""
    return errors.JaxRuntimeError(
        f"INTERNAL: CpuCallback error calling callback: {type(err).__name__}: "
        f"{err}\n(The exception the callback raised is chained below as this "
        "error's __cause__; fix the callback.)")


def _run_callback(run, *args, **kwargs):
    """``run(*args, **kwargs)``, a failure raised as ``_callback_failed``."""
    try:
        return run(*args, **kwargs)
    except errors.JaxRuntimeError:
        raise
    except (Exception, SystemExit) as err:  # noqa: BLE001 -- any failure of user
        # code; a compiled program turns even sys.exit() into its error (DBG-18).
        raise _callback_failed(err) from err


def _compiled_kernel(prim):
    """``prim``'s kernel in compiled programs (its ``specialize`` rule, which
    only compiled programs use for these primitives: their params, a
    callback or a tree, are never plain data, so eager dispatch calls
    ``impl``).  Inside ``jit`` (and the ``cond``/``scan``/``while_loop``
    bodies it compiles) a failing callback or format raises
    ``JaxRuntimeError``; eagerly, under ``vmap`` or ``grad`` without
    ``jit``, the exception itself (DBG-10)."""
    def specialize(avals_in, avals_out, **params):
        return lambda *buffers: _run_callback(prim.impl, *buffers, **params)
    return specialize


def _primal_only_jvp(prim):
    """Run once on the primal values; there are no outputs, so no tangents
    (SPEC AD-38).  Under ``grad`` the primal work runs once, so the
    effect happens once."""
    def jvp(primals, tangents, **params):
        return prim.bind(*primals, **params), []
    return jvp


def _no_cotangents(ct, *args, **params):
    """Nothing flows back through an effect without outputs (SPEC AD-38)."""
    return [None] * len(args)


debug_print_p.jvp = _primal_only_jvp(debug_print_p)
debug_print_p.specialize = _compiled_kernel(debug_print_p)
debug_print_p.transpose = _no_cotangents


def _is_dynamic(leaf):
    return isinstance(leaf, (core.Tracer, ArrayImpl, np.ndarray, np.generic)) or (
        type(leaf) in core._SCALAR_TYPES)


def debug_print(fmt=None, *args, ordered=False, partitioned=False,
                skip_format_check=False, _use_logging=False, **kwargs):
    """Print ``fmt.format(*args, **kwargs)`` with runtime values (DBG-1).

    The fields are checked against the arguments now, so a missing name
    raises ``KeyError`` at trace time as in JAX.  Called with options only
    (``fmt`` omitted) it returns the printing function (SPEC DBG-14).
    """
    def print_now(fmt, *args, **kwargs):
        if not isinstance(fmt, str):
            raise TypeError(f"jax.debug.print expects a string format, got {type(fmt)}")
        if not skip_format_check:
            _check_fields(fmt, args, kwargs)
        leaves, in_tree = tree_util.tree_flatten((args, kwargs))
        # Non-array leaves (strings, None...) travel as (position, value) params.
        statics = tuple((i, x) for i, x in enumerate(leaves) if not _is_dynamic(x))
        dynamic = [x for x in leaves if _is_dynamic(x)]
        has_placeholders = any(field is not None
                               for _, field, _, _ in string.Formatter().parse(fmt))
        record = _logging_record(logging.INFO) if _use_logging else None
        debug_print_p.bind(*dynamic, fmt=fmt, has_placeholders=has_placeholders,
                           in_tree=in_tree, logging_record=record,
                           np_printoptions=tuple(np.get_printoptions().items()),
                           ordered=bool(ordered), partitioned=bool(partitioned),
                           static_args=statics)

    if fmt is not None:
        print_now(fmt, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError("debug_print received unexpected arguments in the two-call "
                        f"form: {args=} {kwargs=}")
    return print_now


def debug_log(fmt=None, *args, ordered=False, partitioned=False,
              skip_format_check=False, **kwargs):
    """``debug_print``, but the message goes to the ``logging`` logger of
    this module at level INFO, its record naming the caller's file and
    line, instead of to stdout (SPEC DBG-14)."""
    return debug_print(fmt, *args, ordered=ordered, partitioned=partitioned,
                       skip_format_check=skip_format_check, _use_logging=True,
                       **kwargs)


def _logging_record(level):
    """A record for the user's call site, made at trace time; the message
    is filled in each time the print runs."""
    where = core.current_source_info()
    file_name, line_no = "(unknown file)", 0
    if where is not None:
        file_name, line_no = where.code.co_filename, where.lineno
    return logger.makeRecord(logger.name, level, file_name, line_no, "", (), None)


class _FieldChecker(string.Formatter):
    """Resolves every field of a template against the real arguments (so
    ``{d[p]}`` and ``{a.shape}`` work on tracers) without formatting any,
    and refuses arguments no field uses, as JAX does (DBG-4)."""

    def format_field(self, value, format_spec):
        return ""

    def check_unused_args(self, used_args, args, kwargs):
        unused = [a for i, a in enumerate(args) if i not in used_args]
        if unused:
            raise ValueError(
                f"Unused positional arguments to `jax.debug.print`: {unused}")
        unused = [k for k in kwargs if k not in used_args]
        if unused:
            raise ValueError(
                f"Unused keyword arguments to `jax.debug.print`: {unused}. You may "
                f"be passing an f-string (i.e, `f\"{{x}}\"`) into `jax.debug.print` "
                f"and instead should pass in a regular string.")


def _check_fields(fmt, args, kwargs):
    """Resolve the template's fields now, so a bad one fails at trace time
    (DBG-4)."""
    _FieldChecker().format(fmt, *args, **kwargs)


# ---------------------------------------------------------------------------
# jax.debug.callback
# ---------------------------------------------------------------------------

debug_callback_p = Primitive("debug_callback", multiple_results=True)
debug_callback_p.effectful = True
debug_callback_p.key_reuse = kr.NO_KEYS   # callbacks consume no key (RNG-66)


@debug_callback_p.def_abstract_eval
def _debug_callback_abstract_eval(*avals, callback, effect, partitioned):
    return []


@debug_callback_p.def_impl
def _debug_callback_impl(*buffers, callback, effect, partitioned):
    try:
        callback(*buffers)
    except BaseException:
        # As JAX does, a failing debug callback (even one that exits, like a
        # breakpoint reading the end of stdin) is logged before it raises
        # (SPEC DBG-18).
        logger.exception("jax.debug.callback failed")
        raise
    return []


debug_callback_p.jvp = _primal_only_jvp(debug_callback_p)
debug_callback_p.specialize = _compiled_kernel(debug_callback_p)
debug_callback_p.transpose = _no_cotangents


def debug_callback(callback, *args, ordered=False, partitioned=False, **kwargs):
    """Call ``callback(*args, **kwargs)`` with runtime values; returns None.

    The callback receives concrete ``jax.Array`` values (DBG-5).
    """
    if not callable(callback):
        raise TypeError(f"first argument to jax.debug.callback must be callable, "
                        f"got {callback!r}")
    leaves, tree = tree_util.tree_flatten((args, kwargs))
    # Leaves that are no arrays (a string, a class) reach the callback as
    # they are, as in JAX (DBG-5).
    dynamic = [x for x in leaves if _is_dynamic(x) or isinstance(x, Array)]

    def _flat_callback(*flat_buffers):
        arrays = iter([ArrayImpl(b, core.get_aval(b).dtype) if not isinstance(b, Array)
                       else b for b in _rewrap(flat_buffers, dynamic)])
        values = [next(arrays) if _is_dynamic(x) or isinstance(x, Array) else x
                  for x in leaves]
        a, k = tree_util.tree_unflatten(tree, values)
        callback(*a, **k)

    debug_callback_p.bind(*dynamic, callback=_flat_callback,
                          effect=ordered_debug_effect if ordered else debug_effect,
                          partitioned=bool(partitioned))


def _rewrap(buffers, leaves):
    """Buffers back into Arrays with the weak types of the original leaves."""
    out = []
    for b, leaf in zip(buffers, leaves):
        aval = core.get_aval(leaf)
        if core.dtypes.is_extended(aval.dtype):
            # A key travels as its key data; the callback sees the key (DBG-5).
            out.append(core.wrap_buffer(b, aval))
            continue
        dt = np.dtype(b.dtype)
        out.append(ArrayImpl(b, dt, aval.weak_type and dt == aval.dtype))
    return out


# ---------------------------------------------------------------------------
# jax.pure_callback and jax.experimental.io_callback
# ---------------------------------------------------------------------------

_WIDE = frozenset(np.dtype(t) for t in (np.int64, np.uint64, np.float64, np.complex128))
# NumPy dtype kinds no JAX array has: objects, strings, bytes, datetimes.
_NOT_JAX_KINDS = "OUSMm"


def _result_avals(result_shape_dtypes):
    """The declared results' avals; with ``jax_enable_x64`` off a 64-bit
    dtype is refused with ``ValueError``, not narrowed (SPEC DBG-12)."""
    leaves, tree = tree_util.tree_flatten(result_shape_dtypes)
    if not core.dtypes.x64_enabled() and any(
            np.dtype(x.dtype) in _WIDE for x in leaves
            if not core.dtypes.is_extended(x.dtype)):
        raise ValueError(
            "result_shape_dtypes cannot specify 64-bit types when `jax_enable_x64` "
            "is disabled; declare the 32-bit type (e.g. jnp.float32) instead.")
    bad = [x.dtype for x in leaves if np.dtype(x.dtype).kind in _NOT_JAX_KINDS]
    if bad:
        # JAX fails to lower these with a TypeError; refjax says so at once.
        raise TypeError(
            f"result_shape_dtypes declares dtype {bad[0]}, which is not a JAX "
            "array type; declare a numeric or bool dtype (e.g. jnp.float32).")
    avals = [ShapedArray(x.shape, core.dtypes.canonicalize_dtype(np.dtype(x.dtype)))
             for x in leaves]
    return avals, tree


def _callback_primitive(name, effectful):
    prim = Primitive(name, multiple_results=True)
    prim.effectful = effectful

    @prim.def_abstract_eval
    def abstract_eval(*avals, callback, result_avals, **params):
        return list(result_avals)

    @prim.def_impl
    def impl(*buffers, callback, result_avals, **params):
        from refjax._src import backend
        if not effectful and all(0 in a.shape for a in result_avals):
            # A pure callback without results, or whose results are all
            # empty, computes nothing anyone can see, so it is never run,
            # eagerly or not (SPEC VMAP-82, DBG-13).
            return [backend.get().asarray(np.zeros(a.shape, a.dtype))
                    for a in result_avals]
        # JAX runs host callbacks in a compiled program even eagerly, so a
        # failing one always raises JaxRuntimeError (DBG-10).
        outs = _run_callback(callback, *buffers)
        if len(outs) != len(result_avals):
            raise _bad_result(f"Mismatched number of outputs from callback. "
                              f"Expected: {len(result_avals)}, Actual: {len(outs)}")
        return [backend.get().asarray(_checked_result(o, a, i))
                for i, (o, a) in enumerate(zip(outs, result_avals))]

    return prim


def _bad_result(what):
    return core.errors.JaxRuntimeError(
        f"INTERNAL: CpuCallback error calling callback: RuntimeError: {what}")


def _checked_result(value, aval, index=0):
    """One callback result as the declared aval (DBG-6): the same shape, and
    the same dtype once canonicalized (a float64 result is float32 with x64
    off; an int32 one for a declared float32 is refused)."""
    host = np.asarray(value)
    if host.shape != aval.shape:
        raise _bad_result(f"Incorrect output shape for return value #{index}: "
                          f"Expected: {aval.shape}, Actual: {host.shape}")
    got = host.dtype
    if got.kind not in _NOT_JAX_KINDS:
        got = core.dtypes.canonicalize_dtype(got)
    if got != aval.dtype:
        raise _bad_result(f"Incorrect output dtype for return value #{index}: "
                          f"Expected: {aval.dtype}, Actual: {got}")
    return host.astype(aval.dtype)


pure_callback_p = _callback_primitive("pure_callback", effectful=False)
io_callback_p = _callback_primitive("io_callback", effectful=True)


def _refuse(message):
    """A rule that raises JAX's ValueError: a host callback is opaque, so it
    cannot be differentiated (SPEC AD-39)."""
    def rule(*args, **params):
        raise ValueError(message)
    return rule


pure_callback_p.jvp = _refuse(
    "Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use "
    "callbacks while taking gradients.")
pure_callback_p.transpose = _refuse(
    "Pure callbacks do not support transpose. Please use `jax.custom_vjp` to "
    "use callbacks while taking gradients.")
io_callback_p.jvp = _refuse("IO callbacks do not support JVP.")
io_callback_p.transpose = _refuse("IO callbacks do not support transpose.")


def _host_callback(prim, callback, result_shape_dtypes, args, kwargs, **params):
    avals, out_tree = _result_avals(result_shape_dtypes)
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))

    def flat_callback(*buffers):
        # Read-only views the callback cannot make writeable: the buffers
        # may be those of the caller's Arrays (SPEC ARR-2).
        values = [readonly_view(_host(b)) for b in buffers]
        a, k = tree_util.tree_unflatten(in_tree, values)
        result = callback(*a, **k)
        return tree_util.tree_leaves(result)

    outs = prim.bind(*leaves, callback=flat_callback, result_avals=tuple(avals),
                     **params)
    return tree_util.tree_unflatten(out_tree, outs)


_VMAP_METHODS = ["sequential", "sequential_unrolled", "expand_dims",
                 "broadcast_all", "legacy_vectorized", None]


def pure_callback(callback, result_shape_dtypes, *args, sharding=None,
                  vmap_method=None, **kwargs):
    """Call host ``callback`` on NumPy values; results must match the declared
    shapes (dtypes are cast) (DBG-6).  ``vmap_method`` says how ``vmap``
    batches the call (SPEC VMAP-81)."""
    if vmap_method not in _VMAP_METHODS:
        # JAX's message, typo included.
        raise ValueError(f"vmap_method must be on of the allowed methods "
                         f"{_VMAP_METHODS}, but got: {vmap_method}")
    return _host_callback(pure_callback_p, callback, result_shape_dtypes, args,
                          kwargs, sharding=sharding, vmap_method=vmap_method)


def io_callback(callback, result_shape_dtypes, *args, sharding=None,
                ordered=False, **kwargs):
    """Like ``pure_callback`` but for side effects: never removed (DBG-6)."""
    return _host_callback(io_callback_p, callback, result_shape_dtypes, args,
                          kwargs, sharding=sharding, ordered=bool(ordered))


# ---------------------------------------------------------------------------
# Batching (SPEC VMAP-80 .. VMAP-86)
# ---------------------------------------------------------------------------

def _debug_batch_rule(prim):
    """A debug callback under ``vmap`` runs once per example, in order
    (SPEC VMAP-80).

    As in JAX, the batch is unrolled: each example's operands are sliced
    out (``slice`` + ``squeeze``) and the primitive is bound on them, while
    unmapped operands go whole to every call.  This is the one rule that
    loops over the examples (SPEC VMAP-3): the callback must see one
    example at a time."""
    def rule(axis_data, vals, dims, **params):
        for i in range(axis_data.size):
            prim.bind(*[v if d is None else lax_shapes.index_in_dim(v, i, d, keepdims=False)
                        for v, d in zip(vals, dims)], **params)
        return [], []
    return rule


debug_print_p.batch = _debug_batch_rule(debug_print_p)
debug_callback_p.batch = _debug_batch_rule(debug_callback_p)


class _Sequential:
    """A host callback run once per example of one or more mapped axes
    (SPEC VMAP-82).

    ``levels`` holds one loop per ``vmap`` that batched the call, the
    innermost ``vmap`` first; ``levels[k][i]`` says whether operand ``i``
    is mapped by loop ``k``, whose axis is then the operand's leading axis
    once the enclosing loops have taken theirs.  JAX batches with a ``scan``
    whose body an enclosing ``vmap`` batches in turn, so the loop of the
    innermost ``vmap`` is the outermost one; these loops run in the same
    order.  ``result_avals`` are the batched results: the loops' axes,
    in order, lead the declared shapes.
    """

    def __init__(self, callback, levels, result_avals):
        self.callback = callback
        self.levels = levels
        self.result_avals = result_avals

    def __repr__(self):
        return f"_Sequential(callback={self.callback!r}, levels={self.levels})"

    def __call__(self, *buffers):
        return self._run(0, buffers)

    def _run(self, depth, args):
        avals = [ShapedArray(a.shape[depth:], a.dtype) for a in self.result_avals]
        if depth == len(self.levels):
            return [_checked_result(o, a, i)
                    for i, (o, a) in enumerate(zip(self.callback(*args), avals))]
        mapped = self.levels[depth]
        size = next(np.shape(a)[0] for a, m in zip(args, mapped) if m)
        per_example = [self._run(depth + 1, [a[i] if m else a
                                             for a, m in zip(args, mapped)])
                       for i in range(size)]
        if size == 0:
            return [np.zeros(a.shape, a.dtype) for a in avals]
        return [np.stack(column) for column in zip(*per_example)]


def _sequential_batch(prim, axis_data, vals, dims, callback, result_avals, **params):
    """Batch a host callback by calling it once per example, in order
    (SPEC VMAP-82).

    JAX loops with ``scan``; here the loop lives in the callback
    (:class:`_Sequential`), so the batched program is still one equation.
    A call batched before gains one more loop, innermost."""
    if isinstance(callback, _Sequential):
        levels, callback = callback.levels, callback.callback
    else:
        levels = ()
    # Each enclosing loop strips the leading axis of the operands it maps,
    # so this loop's axis goes after theirs.
    vals = [v if d is None else
            batching.moveaxis(v, d, sum(level[i] for level in levels))
            for i, (v, d) in enumerate(zip(vals, dims))]
    depth = len(levels)
    avals = tuple(batching.batched_aval(a, axis_data.size, depth) for a in result_avals)
    mapped = tuple(d is not None for d in dims)
    outs = prim.bind(*vals, callback=_Sequential(callback, levels + (mapped,), avals),
                     result_avals=avals, **params)
    return outs, [depth] * len(outs)


def _pure_callback_batch(axis_data, vals, dims, *, callback, result_avals,
                         vmap_method, **params):
    """``pure_callback`` under ``vmap``, as ``vmap_method`` says
    (SPEC VMAP-81 .. VMAP-84)."""
    if vmap_method in ("sequential", "sequential_unrolled"):
        return _sequential_batch(pure_callback_p, axis_data, vals, dims, callback,
                                 result_avals, vmap_method=vmap_method, **params)
    if vmap_method is None:
        raise NotImplementedError(
            "vmap is only supported for the pure_callback primitive when vmap_method "
            "is one of 'sequential', 'sequential_unrolled', 'expand_dims', "
            f"'broadcast_all', or 'legacy_vectorized'. Got {vmap_method=}.")
    # One call on the whole batch, mapped axes first.
    size = axis_data.size
    vals = [v if d is None else batching.moveaxis(v, d, 0) for v, d in zip(vals, dims)]
    if vmap_method != "legacy_vectorized":
        lead = size if vmap_method == "broadcast_all" else 1
        vals = [lax_shapes.broadcast(v, (lead,)) if d is None else v
                for v, d in zip(vals, dims)]
    avals = tuple(batching.batched_aval(a, size, 0) for a in result_avals)
    outs = pure_callback_p.bind(*vals, callback=callback, result_avals=avals,
                                vmap_method=vmap_method, **params)
    return outs, [0] * len(outs)


def _io_callback_batch(axis_data, vals, dims, *, callback, result_avals, ordered,
                       **params):
    """``io_callback`` under ``vmap``: once per example, in order, like the
    ``sequential`` pure callback; an ordered one cannot be batched
    (SPEC VMAP-85)."""
    if ordered:
        raise ValueError("Cannot `vmap` ordered IO callback.")
    return _sequential_batch(io_callback_p, axis_data, vals, dims, callback,
                             result_avals, ordered=False, **params)


pure_callback_p.batch = _pure_callback_batch
io_callback_p.batch = _io_callback_batch



# ---------------------------------------------------------------------------
# jax.debug.inspect_array_sharding (SPEC DBG-15)
# ---------------------------------------------------------------------------

def inspect_array_sharding(value, *, callback):
    """Call ``callback(leaf.sharding)`` for each array leaf of ``value``.

    A concrete ``jax.Array`` reports its sharding at once.  A leaf without
    a sharding (a Python scalar) raises ``AttributeError`` as in JAX.  A
    traced value raises ``NotImplementedError``: JAX reports the sharding
    its compiler chose, and refjax's compiled programs compute on global
    values without choosing one, so there is no true answer to give."""
    leaves = tree_util.tree_leaves(value)
    for leaf in leaves:
        if isinstance(leaf, core.Tracer):
            raise NotImplementedError(
                "refjax cannot inspect the sharding of a traced value (inside jit, "
                "vmap, grad...): JAX reports the sharding its compiler picks, which "
                "refjax does not choose. Call jax.debug.inspect_array_sharding on a "
                "concrete array (or read .sharding of the transformed function's "
                "result) instead.")
        if not _is_dynamic(leaf) and not isinstance(leaf, Array):
            raise TypeError(
                "Error interpreting argument to inspect_sharding as a JAX value. The "
                f"problematic value is of type {type(leaf)}; pass jax.Array leaves.")
        if not isinstance(leaf, Array):
            raise AttributeError(f"'{type(leaf).__name__}' object has no attribute "
                                 "'sharding' (jax.debug.inspect_array_sharding needs "
                                 "jax.Array leaves)")
    for leaf in leaves:
        callback(leaf.sharding)
