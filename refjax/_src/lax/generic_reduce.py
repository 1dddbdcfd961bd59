"""``lax.reduce``: a reduction with any monoid, and the ``reduce`` primitive.

``reduce(operands, init_values, computation, dimensions)`` folds
``computation`` over the ``dimensions`` of one or several operands (a
pytree), starting from the scalar ``init_values``.  When ``computation`` is
one of ``add``/``mul``/``max``/``min``/``bitwise_and``/``or``/``xor`` of a
single operand and the initial value is that operation's identity, the
dedicated reduction (``reduce_sum``...) is used instead (SPEC WIN-1).
Otherwise ``computation`` is traced once, on scalars, to a closed jaxpr
held by the ``reduce`` primitive (SPEC WIN-2).

The kernel folds the operands' rows one at a time with the jaxpr batched
over the kept positions; the JVP folds a halving tree of the batched
computation, as JAX does (SPEC WIN-3).
"""
import builtins
import math
import operator

import numpy as np

from refjax._src import core, dtypes, lru, tree_util
from refjax._src.compiler import executable_for
from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import ad, batching
from refjax._src.interpreters import partial_eval as pe
from refjax._src.lax import lax, reductions, shapes
from refjax._src.lax.lax import _xp
from refjax._src.vmap_api import vmap

reduce_p = Primitive("reduce", multiple_results=True)


# ---------------------------------------------------------------------------
# Identities and monoid recognition (SPEC WIN-1)
# ---------------------------------------------------------------------------

def _is_intlike(dtype):
    return dtype == np.bool_ or dtypes.issubdtype(dtype, np.integer)


def max_identity(dtype):
    """The smallest value of ``dtype``: -inf, or the most negative finite
    value for float types without infinities."""
    if dtypes.issubdtype(dtype, np.inexact):
        with np.errstate(all="ignore"):
            value = np.array(-np.inf).astype(dtype)
        return value if np.isinf(value) else np.array(dtypes.finfo(dtype).min, dtype)
    if dtypes.issubdtype(dtype, np.integer):
        return np.array(np.iinfo(dtype).min, dtype)
    if dtype == np.bool_:
        return np.array(False)
    raise ValueError(f"Unsupported dtype for max: {dtype}")


def min_identity(dtype):
    """The largest value of ``dtype`` (see :func:`max_identity`)."""
    if dtypes.issubdtype(dtype, np.inexact):
        with np.errstate(all="ignore"):
            value = np.array(np.inf).astype(dtype)
        return value if np.isinf(value) else np.array(dtypes.finfo(dtype).max, dtype)
    if dtypes.issubdtype(dtype, np.integer):
        return np.array(np.iinfo(dtype).max, dtype)
    if dtype == np.bool_:
        return np.array(True)
    raise ValueError(f"Unsupported dtype for min: {dtype}")


def _monoids():
    """(operation, reduction, identity(dtype), integers and booleans only)."""
    return (
        (lax.add, reductions.reduce_sum, lambda d: np.array(0, d), False),
        (lax.mul, reductions.reduce_prod, lambda d: np.array(1, d), False),
        (lax.bitwise_or, reductions.reduce_or, lambda d: np.array(0, d), True),
        (lax.bitwise_and, reductions.reduce_and, lambda d: np.array(-1).astype(d), True),
        (lax.bitwise_xor, reductions.reduce_xor, lambda d: np.array(0, d), True),
        (lax.max, reductions.reduce_max, max_identity, False),
        (lax.min, reductions.reduce_min, min_identity, False),
    )


def concrete_scalar(x):
    """The value of a known rank-0 ``x``, or None (a traced or shaped one)."""
    if core.get_aval(x).shape != ():
        return None
    value = core.concrete_value(x)
    return None if value is None or isinstance(value, core.Tracer) else value


def _monoid_reducer(computation, inits):
    """The dedicated reduction standing for ``computation`` with these
    initial values, or None (SPEC WIN-1)."""
    if len(inits) != 1:
        return None
    value = concrete_scalar(inits[0])
    if value is None:
        return None
    dtype = core.get_aval(inits[0]).dtype
    for op, reducer, identity, intlike_only in _monoids():
        if computation is op:
            if intlike_only and not _is_intlike(dtype):
                return None
            return reducer if np.equal(np.asarray(value), identity(dtype)) else None
    return None


# ---------------------------------------------------------------------------
# Tracing the computation (cached per function, avals and structure)
# ---------------------------------------------------------------------------

_jaxpr_cache = lru.register(lru.LRU(lru.TRACE_CACHE_SIZE))


def reduction_jaxpr(computation, flat_avals, tree, name="reduce"):
    """``(closed jaxpr, output tree)`` of ``computation(xs, ys)`` where
    ``xs`` and ``ys`` are pytrees ``tree`` of scalars of ``flat_avals``.

    A computation closing over a traced value is JAX's NotImplementedError."""
    key = (computation, tuple(flat_avals), tree, name)
    try:
        found = _jaxpr_cache.get(key)
    except TypeError:          # an unhashable computation: trace afresh
        key, found = None, None
    if found is not None:
        return found
    out_tree = []

    def flat_computation(*leaves):
        n = len(leaves) // 2
        xs = tree_util.tree_unflatten(tree, leaves[:n])
        ys = tree_util.tree_unflatten(tree, leaves[n:])
        out_leaves, treedef = tree_util.tree_flatten(computation(xs, ys))
        out_tree[:] = [treedef]
        return out_leaves

    closed = pe.trace_to_jaxpr(flat_computation, list(flat_avals) * 2,
                               core.DebugInfo(f"{name} comp", name, None))
    if builtins.any(isinstance(c, core.Tracer) for c in closed.consts):
        raise NotImplementedError(
            "Reduction computations can't close over Tracers. Please open an issue "
            "at https://github.com/jax-ml/jax.")
    found = (closed, out_tree[0])
    if key is not None:
        _jaxpr_cache[key] = found
    return found


def check_computation_outputs(name, closed, init_avals):
    """The traced computation must give one scalar per operand, of the
    operand's dtype: ValueError otherwise (XLA's verifier rejects the
    program with ValueError in JAX) (SPEC WIN-2)."""
    outs = closed.out_avals
    if len(outs) != len(init_avals):
        raise ValueError(f"{name} computation must return {len(init_avals)} "
                         f"value(s), one per operand, but returned {len(outs)}.")
    for out, init in zip(outs, init_avals):
        if out.shape != () or out.dtype != init.dtype:
            raise ValueError(
                f"{name} computation must return scalars of the operands' dtypes "
                f"{[a.dtype.name for a in init_avals]}, but returned "
                f"{[a.str_short() for a in outs]}.")


# ---------------------------------------------------------------------------
# The primitive
# ---------------------------------------------------------------------------

def split_operands_and_inits(items):
    """The two halves of a reduction's operands: arrays, then initial values."""
    n = len(items) // 2
    return list(items[:n]), list(items[n:])


def _check_dimensions(dimensions, shape):
    """Reduced dimensions lie in ``[0, ndim)`` and are distinct: a too large
    one is IndexError, a negative or repeated one ValueError, as in JAX."""
    for d in dimensions:
        if d >= len(shape):
            raise IndexError(f"reduce dimension {d} is out of bounds for operand "
                             f"of shape {shape}.")
        if d < 0:
            raise ValueError(f"reduce dimensions must be non-negative, got "
                             f"{dimensions} for operand of shape {shape}.")
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"Duplicate reduction dimension in {dimensions}.")


@reduce_p.def_abstract_eval
def _reduce_abstract_eval(*avals, computation, jaxpr, dimensions):
    """One result per operand: its shape without ``dimensions``, its dtype,
    weak when the operand and its initial value both are (SPEC WIN-2)."""
    ops, inits = split_operands_and_inits(avals)
    if builtins.any(a.shape != () for a in inits):
        raise ValueError("reduce found non-scalar initial value: "
                         f"{[a.shape for a in inits]}")
    if [o.dtype for o in ops] != [i.dtype for i in inits]:
        raise TypeError("reduce operand dtypes should match corresponding initial "
                        f"value dtypes, got operands={ops} and initial_values={inits}")
    if builtins.any(o.shape != ops[0].shape for o in ops):
        raise ValueError("reduce operands must all have the same shape, got "
                         f"{[o.shape for o in ops]}.")
    _check_dimensions(dimensions, ops[0].shape)
    check_computation_outputs("reduce", jaxpr, inits)
    shape = tuple(s for i, s in enumerate(ops[0].shape) if i not in dimensions)
    return [ShapedArray(shape, o.dtype, o.weak_type and i.weak_type)
            for o, i in zip(ops, inits)]


def batched_computation(closed, size):
    """``run(*accumulators, *elements) -> accumulators``: the computation
    applied to ``size`` pairs at once (its jaxpr batched, then compiled)."""
    n = len(closed.in_avals)
    batched, _ = batching.batch_jaxpr(closed, batching.AxisData(None, size),
                                      (True,) * n, True)
    return executable_for(batched)


def fold(closed, accs, rows):
    """``accs`` (each ``(m,)``) folded with ``rows`` (each ``(k, m)``) in
    order: ``acc = computation(acc, row[r])`` for ``r`` in ``range(k)``."""
    m = accs[0].shape[0]
    k = rows[0].shape[0] if rows else 0
    if m == 0 or k == 0:
        return accs
    run = batched_computation(closed, m)
    for r in range(k):
        outs = run(*accs, *[row[r] for row in rows])
        accs = [_xp().asarray(o).astype(a.dtype) for o, a in zip(outs, accs)]
    return accs


@reduce_p.def_impl
def _reduce_impl(*buffers, computation, jaxpr, dimensions):
    """Each kept position folds its reduced elements in row-major order,
    starting from the initial value (SPEC WIN-2)."""
    xp = _xp()
    ops, inits = split_operands_and_inits(buffers)
    shape = ops[0].shape
    kept = tuple(i for i in range(len(shape)) if i not in dimensions)
    out_shape = tuple(shape[i] for i in kept)
    m, k = math.prod(out_shape), math.prod(shape[d] for d in dimensions)
    rows = [xp.transpose(o, tuple(dimensions) + kept).reshape(k, m) for o in ops]
    accs = [xp.full((m,), i, dtype=o.dtype) for i, o in zip(inits, ops)]
    with np.errstate(all="ignore"):
        accs = fold(jaxpr, accs, rows)
    return [a.reshape(out_shape) for a in accs]


def _reduce_jvp(primals, tangents, *, computation, jaxpr, dimensions):
    """The JVP of a halving tree of the computation, as JAX differentiates
    a general reduction; initial values must have zero tangents (JAX's
    NotImplementedError otherwise) (SPEC WIN-3)."""
    xs, inits = split_operands_and_inits(primals)
    txs, tinits = split_operands_and_inits(tangents)
    if builtins.any(type(t) is not ad.Zero for t in tinits):
        raise NotImplementedError(
            "Gradient of general lax.reduce with non-zero tangents for initial "
            "values to reduction not implemented")
    shape = core.get_aval(xs[0]).shape
    kept = tuple(i for i in range(len(shape)) if i not in dimensions)
    flat = (math.prod(shape[d] for d in dimensions),) + tuple(shape[i] for i in kept)
    order = tuple(dimensions) + kept
    xs = [shapes.reshape(x, flat, order) for x in xs]
    txs = [ad.Zero(ad.tangent_aval(core.get_aval(x))) if type(t) is ad.Zero
           else shapes.reshape(t, flat, order) for x, t in zip(xs, txs)]
    reducer = core.jaxpr_as_fun(jaxpr)
    for _ in range(len(kept) + 1):
        reducer = vmap(reducer)

    def tree(*values):
        return halving_tree(reducer, list(values), inits)
    return ad.jvp_flat(tree, xs, txs)


def halving_tree(reducer, xs, inits):
    """Reduce axis 0 of every ``xs`` by combining first halves with second
    halves (padded with the initial values when odd) until one row is left."""
    aval = core.get_aval(xs[0])
    n = aval.shape[0]
    if n == 0:
        return [lax.full(aval.shape[1:], i, core.get_aval(x).dtype)
                for x, i in zip(xs, inits)]
    while n > 1:
        half = (n + 1) // 2
        firsts = [shapes.slice_in_dim(x, 0, half) for x in xs]
        seconds = [shapes.slice_in_dim(x, half, None) for x in xs]
        if n % 2:
            config = [(0, 1, 0)] + [(0, 0, 0)] * (aval.ndim - 1)
            seconds = [shapes.pad(s, i, config) for s, i in zip(seconds, inits)]
        xs, n = list(reducer(*firsts, *seconds)), half
    return [shapes.squeeze(x, (0,)) for x in xs]


def _reduce_batch(axis_data, vals, dims, *, computation, jaxpr, dimensions):
    """Operands batched along a new leading axis, never reduced; a batched
    initial value is JAX's NotImplementedError (SPEC WIN-3)."""
    ops, inits = split_operands_and_inits(vals)
    op_dims, init_dims = split_operands_and_inits(dims)
    if builtins.any(d is not None for d in init_dims):
        raise NotImplementedError("reduce batching is not implemented for batched "
                                  "initial values")
    ops = [batching.bdim_at_front(x, d, axis_data.size) for x, d in zip(ops, op_dims)]
    outs = reduce_p.bind(*ops, *inits, computation=computation, jaxpr=jaxpr,
                         dimensions=tuple(d + 1 for d in dimensions))
    return outs, [0] * len(outs)


class _FunctionName:
    """Prints as ``<function name at 0x...>``, the way JAX's jaxprs show a
    ``computation`` defined at the top of a module."""

    def __init__(self, fn):
        self.text = f"<function {fn.__name__} at {hex(id(fn))}>"

    def __str__(self):
        return self.text


def _pp_reduce_params(params):
    """refjax's own operations (``lax.add``...) are made by factories;
    they print under their public name, as JAX's do (SPEC WIN-2)."""
    fn = params["computation"]
    if getattr(fn, "__module__", "").startswith("refjax.") and hasattr(fn, "__name__"):
        return dict(params, computation=_FunctionName(fn))
    return params


reduce_p.pp_params = _pp_reduce_params
reduce_p.jvp = _reduce_jvp
reduce_p.batch = _reduce_batch


# ---------------------------------------------------------------------------
# The public function
# ---------------------------------------------------------------------------

def reduce(operands, init_values, computation, dimensions, out_sharding=None):
    """Reduce ``operands`` (a pytree) over ``dimensions`` with
    ``computation``, starting from the scalars ``init_values`` (a pytree of
    the same structure) (SPEC WIN-1, WIN-2).

    A recognised monoid binds its dedicated reduction; its result is weak
    when every operand and initial value is."""
    flat_ops, op_tree = tree_util.tree_flatten(operands)
    flat_inits, init_tree = tree_util.tree_flatten(init_values)
    if op_tree != init_tree:
        raise ValueError("Operands must have the same tree structure as init_values:"
                         f" {op_tree} vs. {init_tree}")
    if len(flat_ops) != len(flat_inits):
        raise ValueError("Must have same total number of operands as init_values: "
                         f" {len(flat_ops)} vs. {len(flat_inits)}")
    dimensions = tuple(operator.index(d) for d in dimensions)
    monoid = _monoid_reducer(computation, flat_inits)
    if monoid is not None:
        if out_sharding is not None and monoid is not reductions.reduce_sum:
            raise NotImplementedError("out_sharding is only supported when the "
                                      "reduction is a sum.")
        lax.check_out_sharding(out_sharding, "reduce")
        weak = builtins.all(core.get_aval(v).weak_type for v in flat_ops + flat_inits)
        out = monoid(flat_ops[0], dimensions)
        return lax._convert_element_type(out, None, weak_type=weak)
    init_avals = [core.get_aval(v) for v in flat_inits]
    closed, out_tree = reduction_jaxpr(computation, init_avals, init_tree)
    outs = reduce_p.bind(*flat_ops, *flat_inits, computation=computation,
                         jaxpr=closed, dimensions=dimensions)
    if out_tree.num_leaves != len(outs):
        raise ValueError(f"reduce computation returned {out_tree.num_leaves} "
                         f"values for {len(outs)} operands.")
    return tree_util.tree_unflatten(out_tree, outs)
