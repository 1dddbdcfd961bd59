"""``jax.debug.print``, ``jax.debug.callback`` and host callbacks (SPEC DBG-1..).

Each is a primitive whose implementation calls back into Python.  Traced
under ``jit`` it becomes an equation, so it runs at every execution of the
compiled program, in program order, with the runtime values; Python's own
``print`` runs only while tracing.  Eagerly, the implementation runs at once.
"""
import string

import numpy as np

from refjax._src import ad
from refjax._src import core
from refjax._src import tree_util
from refjax._src.array import ArrayImpl
from refjax._src.core import Primitive, ShapedArray


def _host(buffer):
    from refjax._src import backend
    return backend.get().to_host(buffer)


class _DebugEffect:
    """The effect printed in ``debug_callback[effect=Debug ...]``."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


debug_effect = _DebugEffect("Debug")
ordered_debug_effect = _DebugEffect("OrderedDebug")


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
                      **unused):
    """Format with ``str.format`` on NumPy values, as JAX does (DBG-2).

    0-d values format like Python scalars (``0.9092974066734314`` for a
    float32), because NumPy's 0-d ``__format__`` goes through ``item()``.
    """
    dynamic = iter([_host(b) for b in buffers])
    statics = dict(static_args)
    leaves = [statics[i] if i in statics else next(dynamic)
              for i in range(in_tree.num_leaves)]
    args, kwargs = tree_util.tree_unflatten(in_tree, leaves)
    with np.printoptions(**dict(np_printoptions)):
        print(fmt.format(*args, **kwargs), flush=True)
    return []


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
debug_print_p.transpose = _no_cotangents


def _is_dynamic(leaf):
    return isinstance(leaf, (core.Tracer, ArrayImpl, np.ndarray, np.generic)) or (
        type(leaf) in core._SCALAR_TYPES)


def debug_print(fmt, *args, ordered=False, partitioned=False, **kwargs):
    """Print ``fmt.format(*args, **kwargs)`` with runtime values (DBG-1).

    The fields are checked against the arguments now, so a missing name
    raises ``KeyError`` at trace time as in JAX.
    """
    if not isinstance(fmt, str):
        raise TypeError(f"jax.debug.print expects a string format, got {type(fmt)}")
    _check_fields(fmt, args, kwargs)
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    # Non-array leaves (strings, None...) travel as (position, value) params.
    statics = tuple((i, x) for i, x in enumerate(leaves) if not _is_dynamic(x))
    dynamic = [x for x in leaves if _is_dynamic(x)]
    has_placeholders = any(field is not None
                           for _, field, _, _ in string.Formatter().parse(fmt))
    debug_print_p.bind(*dynamic, fmt=fmt, has_placeholders=has_placeholders,
                       in_tree=in_tree, logging_record=None,
                       np_printoptions=tuple(np.get_printoptions().items()),
                       ordered=bool(ordered), partitioned=bool(partitioned),
                       static_args=statics)


def _check_fields(fmt, args, kwargs):
    """Format once with placeholders so a bad field fails now (DBG-4)."""
    fmt.format(*[0] * len(args), **{k: 0 for k in kwargs})


# ---------------------------------------------------------------------------
# jax.debug.callback
# ---------------------------------------------------------------------------

debug_callback_p = Primitive("debug_callback", multiple_results=True)
debug_callback_p.effectful = True


@debug_callback_p.def_abstract_eval
def _debug_callback_abstract_eval(*avals, callback, effect, partitioned):
    return []


@debug_callback_p.def_impl
def _debug_callback_impl(*buffers, callback, effect, partitioned):
    callback(*buffers)
    return []


debug_callback_p.jvp = _primal_only_jvp(debug_callback_p)
debug_callback_p.transpose = _no_cotangents


def debug_callback(callback, *args, ordered=False, partitioned=False, **kwargs):
    """Call ``callback(*args, **kwargs)`` with runtime values; returns None.

    The callback receives concrete ``jax.Array`` values (DBG-5).
    """
    if not callable(callback):
        raise TypeError(f"first argument to jax.debug.callback must be callable, "
                        f"got {callback!r}")
    leaves, tree = tree_util.tree_flatten((args, kwargs))

    def _flat_callback(*flat_buffers):
        values = [ArrayImpl(b, core.get_aval(b).dtype) if not isinstance(b, ArrayImpl)
                  else b for b in _rewrap(flat_buffers, leaves)]
        a, k = tree_util.tree_unflatten(tree, values)
        callback(*a, **k)

    debug_callback_p.bind(*leaves, callback=_flat_callback,
                          effect=ordered_debug_effect if ordered else debug_effect,
                          partitioned=bool(partitioned))


def _rewrap(buffers, leaves):
    """Buffers back into Arrays with the weak types of the original leaves."""
    out = []
    for b, leaf in zip(buffers, leaves):
        aval = core.get_aval(leaf)
        dt = np.dtype(b.dtype)
        out.append(ArrayImpl(b, dt, aval.weak_type and dt == aval.dtype))
    return out


# ---------------------------------------------------------------------------
# jax.pure_callback and jax.experimental.io_callback
# ---------------------------------------------------------------------------

def _result_avals(result_shape_dtypes):
    leaves, tree = tree_util.tree_flatten(result_shape_dtypes)
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
        outs = callback(*buffers)
        from refjax._src import backend
        return [backend.get().asarray(_checked_result(o, a))
                for o, a in zip(outs, result_avals)]

    return prim


def _checked_result(value, aval):
    host = np.asarray(value)
    if host.shape != aval.shape:
        raise core.errors.JaxRuntimeError(
            f"INTERNAL: CpuCallback error calling callback: the callback returned "
            f"an array of shape {host.shape}, but its declared result shape is "
            f"{aval.shape}.")
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
        values = [np.asarray(_host(b)) for b in buffers]
        a, k = tree_util.tree_unflatten(in_tree, values)
        result = callback(*a, **k)
        return tree_util.tree_leaves(result)

    outs = prim.bind(*leaves, callback=flat_callback, result_avals=tuple(avals),
                     **params)
    return tree_util.tree_unflatten(out_tree, outs)


def pure_callback(callback, result_shape_dtypes, *args, sharding=None,
                  vmap_method=None, **kwargs):
    """Call host ``callback`` on NumPy values; results must match the declared
    shapes (dtypes are cast) (DBG-6)."""
    return _host_callback(pure_callback_p, callback, result_shape_dtypes, args,
                          kwargs, vmap_method=vmap_method)


def io_callback(callback, result_shape_dtypes, *args, sharding=None,
                ordered=False, **kwargs):
    """Like ``pure_callback`` but for side effects: never removed (DBG-6)."""
    return _host_callback(io_callback_p, callback, result_shape_dtypes, args,
                          kwargs, ordered=bool(ordered))

