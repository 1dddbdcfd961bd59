"""Automatic batching: the machinery behind ``vmap`` (SPEC VMAP-1).

The design is JAX's:

* a :class:`BatchTracer` holds a value ``val`` of the *batched* shape and
  the position ``batch_dim`` of the mapped axis in it (``not_mapped``, i.e.
  ``None``, when the value is the same for every example);
* the :class:`BatchTrace` hands each primitive whose operands include a
  batched value to the primitive's ``batch`` rule,
  ``rule(axis_data, vals, dims, **params) -> (out, out_dims)``; the rule
  binds ordinary primitives on the batched values, so the result is one
  program whatever the batch size (no loop over examples);
* primitives that hold jaxprs (``jit``, ``remat2``, custom derivatives)
  batch the jaxpr they hold (:func:`batch_jaxpr`) and bind themselves again.

This module holds the machinery and the helpers that primitives use to
declare their rules; the rules live beside each primitive.
"""
import weakref

import numpy as np

from refjax._src import core, lru
from refjax._src.core import ShapedArray, Tracer, set_current_trace
from refjax._src.interpreters import partial_eval as pe

not_mapped = None


class AxisData:
    """The axis being mapped: its name (or None) and its size."""

    __slots__ = ("name", "size")

    def __init__(self, name, size):
        self.name = name
        self.size = size

    def _key(self):
        return (self.name, self.size)

    def __eq__(self, other):
        return isinstance(other, AxisData) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"AxisData(name={self.name!r}, size={self.size})"


def unbatched_aval(aval, bdim):
    """The per-example abstract value of a value batched along ``bdim``."""
    if bdim is None:
        return aval
    shape = aval.shape[:bdim] + aval.shape[bdim + 1:]
    return ShapedArray(shape, aval.dtype, aval.weak_type)


def batched_aval(aval, size, bdim=0):
    """``aval`` with a mapped axis of ``size`` inserted at ``bdim``."""
    shape = aval.shape[:bdim] + (size,) + aval.shape[bdim:]
    return ShapedArray(shape, aval.dtype, aval.weak_type)


# ---------------------------------------------------------------------------
# The batch trace
# ---------------------------------------------------------------------------

class BatchTracer(Tracer):
    """One example's view of a batched value (SPEC VMAP-1)."""

    __slots__ = ("val", "batch_dim")

    def __init__(self, trace, val, batch_dim):
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim
        self.aval = unbatched_aval(core.get_aval(val), batch_dim)

    def __repr__(self):
        batched = core.get_aval(self.val)
        return f"VmapTracer(aval={self.aval.str_short()}, batched={batched.str_short()})"

    def _tracer_kind(self):
        return "BatchTracer"

    def describe_tracer(self, tracer):
        return ""


class BatchTrace(core.Trace):
    """Batching of the primitives bound on it, along one mapped axis."""

    def __init__(self, parent, axis_data):
        self.parent = parent
        self.axis_data = axis_data
        self.is_valid = True

    def __repr__(self):
        return f"BatchTrace({self.axis_data})"

    def to_batch_info(self, x):
        """(value, batch dim) of an operand; other traces' values are unmapped."""
        if isinstance(x, BatchTracer) and x._trace is self:
            return x.val, x.batch_dim
        if isinstance(x, Tracer) and not (x._trace.is_valid
                                          and core.is_trace_active(x._trace)):
            raise core.escaped_tracer_error(x)
        return x, not_mapped

    def new(self, val, bdim):
        """The value a rule produced: a tracer unless it is unmapped."""
        if bdim is not_mapped:
            return val
        return BatchTracer(self, val, bdim)

    def process_primitive(self, primitive, args, params):
        vals, dims = [], []
        for a in args:
            v, d = self.to_batch_info(a)
            vals.append(v)
            dims.append(d)
        if all(d is not_mapped for d in dims) and not _needs_rule(
                primitive, params, self.axis_data):
            return self.parent.process_primitive(primitive, vals, params)
        rule = primitive.batch
        if rule is None:
            raise NotImplementedError(
                f"Batching rule for '{primitive.name}' not implemented")
        with set_current_trace(self.parent):
            out, out_dims = rule(self.axis_data, vals, dims, **params)
        if primitive.multiple_results:
            return [self.new(o, d) for o, d in zip(out, out_dims)]
        return self.new(out, out_dims)

    def describe_tracer(self, tracer):
        return ""


def _needs_rule(primitive, params, axis_data):
    """Whether ``primitive`` must see this trace although nothing is mapped:
    a collective over this axis (``psum(1, 'i')`` is the axis size) or a
    primitive holding a jaxpr that may contain one."""
    if primitive.batch_unmapped is None:
        return False
    return primitive.batch_unmapped(params, axis_data)


def batch_flat(fun, vals, dims, axis_data):
    """Run ``fun`` (flat lists in and out) on batch tracers (SPEC VMAP-4, VMAP-6).

    Returns the output values and their batch dims (``not_mapped`` for
    outputs that do not depend on a batched input)."""
    trace = BatchTrace(core.current_trace(), axis_data)
    with core.extend_axis_env(axis_data.name, axis_data.size):
        try:
            args = [trace.new(v, d) for v, d in zip(vals, dims)]
            with set_current_trace(trace):
                outs = fun(*args)
            pairs = [trace.to_batch_info(o) for o in outs]
        finally:
            trace.invalidate()
    return [v for v, _ in pairs], [d for _, d in pairs]


# ---------------------------------------------------------------------------
# Moving and materialising batch dimensions (bound on the current trace)
# ---------------------------------------------------------------------------

def moveaxis(x, src, dst):
    """``x`` with axis ``src`` moved to position ``dst`` (a ``transpose``)."""
    ndim = np.ndim(x)
    src, dst = src % ndim, dst % ndim
    if src == dst:
        return x
    perm = [i for i in range(ndim) if i != src]
    perm.insert(dst, src)
    return core.lax_ops.transpose(x, tuple(perm))


def broadcast(x, size, axis):
    """``x`` with a new axis of ``size`` at ``axis`` (a ``broadcast_in_dim``)."""
    shape = list(np.shape(x))
    shape.insert(axis, size)
    # NumPy integers, as JAX computes them: jaxprs print ``np.int64(1)``.
    dims = tuple(np.delete(np.arange(len(shape)), axis))
    return core.lax_ops.broadcast_in_dim(x, tuple(shape), dims)


def bdim_at_front(x, bdim, size):
    """``x`` batched along axis 0: moved there, or broadcast if unmapped."""
    if bdim is not_mapped:
        return broadcast(x, size, 0)
    return moveaxis(x, bdim, 0)


def move_or_broadcast(x, src, dst, size):
    """``x`` (batched along ``src``, or unmapped) batched along ``dst``."""
    if src is not_mapped:
        return broadcast(x, size, dst)
    return moveaxis(x, src, dst)


def matchaxis(axis_data, src, dst, x):
    """An output batched along ``src`` delivered along ``dst`` (``out_axes``).

    ``dst=None`` accepts only unmapped outputs (SPEC VMAP-13)."""
    if src == dst:
        return x
    if dst is None:
        raise ValueError(f"vmap has mapped output but out_axes is {dst}")
    ndim = np.ndim(x) + (1 if src is None else 0)
    if not -ndim <= dst < ndim:
        raise ValueError(f"axis {dst} is out of bounds for array of dimension {ndim}")
    dst = dst % ndim
    if src is None:
        return broadcast(x, axis_data.size, dst)
    return moveaxis(x, src, dst)


# ---------------------------------------------------------------------------
# Declaring rules (used beside each primitive's definition)
# ---------------------------------------------------------------------------

def defvectorized(prim):
    """A primitive acting on each element (or each operand) independently of
    the others: the batched operand goes straight through, batch dim kept."""
    def rule(axis_data, vals, dims, **params):
        out = prim.bind(*vals, **params)
        if prim.multiple_results:
            return out, list(dims) * len(out) if len(dims) == 1 else dims
        return out, dims[0]
    prim.batch = rule
    return rule


def defbroadcasting(prim):
    """An elementwise primitive of several operands that broadcasts rank-0
    and size-1 operands (SPEC LAX-2).

    When every batched operand has the same shape and batch dim and the
    others are scalars, the primitive applies directly.  Otherwise the
    batch dims move to the front and each unmapped operand of non-zero rank
    gets a leading size-1 axis, which the primitive broadcasts."""
    prim.batch = lambda axis_data, vals, dims, **params: broadcast_batcher(
        prim, vals, dims, params)
    return prim.batch


def broadcast_batcher(prim, vals, dims, params):
    shape, dim = next((np.shape(v), d) for v, d in zip(vals, dims) if d is not None)
    if all(np.shape(v) == shape and d == dim for v, d in zip(vals, dims)
           if np.ndim(v)):
        out = prim.bind(*vals, **params)
        return out, ((dim,) * len(out) if prim.multiple_results else dim)
    vals = [bdim_at_front(v, d, 1) if np.ndim(v) else v for v, d in zip(vals, dims)]
    ndim = max(np.ndim(v) for v in vals)
    # Trailing size-1 axes, as ``lax.expand_dims`` adds them.
    vals = [v if d is None or np.ndim(v) == ndim
            else core.lax_ops.broadcast_in_dim(
                v, np.shape(v) + (1,) * (ndim - np.ndim(v)), tuple(range(np.ndim(v))))
            for v, d in zip(vals, dims)]
    out = prim.bind(*vals, **params)
    return out, ((0,) * len(out) if prim.multiple_results else 0)


def defreducer(prim, axes_param="axes"):
    """A reduction over the axes named by ``params[axes_param]``: those axes
    are renumbered around the batch dim, which is never reduced."""
    def rule(axis_data, vals, dims, **params):
        (x,), (bdim,) = vals, dims
        axes = tuple(np.where(np.less(params[axes_param], bdim),
                              params[axes_param], np.add(params[axes_param], 1)))
        kept = [i for i in range(np.ndim(x)) if i not in axes]
        out = prim.bind(x, **dict(params, **{axes_param: axes}))
        return out, kept.index(bdim)
    prim.batch = rule
    return rule


def shift_axis_param(axis, bdim):
    """An axis parameter of a per-example op as an axis of the batched value,
    whose batch dim is ``bdim``."""
    return axis + (axis >= bdim)


# ---------------------------------------------------------------------------
# Batching closed jaxprs (for primitives that hold them: jit, remat...)
# ---------------------------------------------------------------------------

_batch_cache = lru.register(weakref.WeakKeyDictionary())


def batch_jaxpr(closed, axis_data, in_batched, instantiate):
    """The jaxpr of ``closed`` batched along ``axis_data``.

    Inputs flagged in ``in_batched`` carry the mapped axis first; outputs
    flagged in ``instantiate`` (a bool or one per output) are batched along
    axis 0 even when they do not depend on a batched input.  Returns
    ``(batched jaxpr, out_batched)``; cached per jaxpr (SPEC THR-4)."""
    n_out = len(closed.jaxpr.outvars)
    if isinstance(instantiate, bool):
        instantiate = (instantiate,) * n_out
    key = (axis_data, tuple(in_batched), tuple(instantiate), core.axis_env_key())
    return lru.cached_per(_batch_cache, closed, key,
                          lambda c, k: _batch_jaxpr(c, axis_data, in_batched, instantiate))


def _batch_jaxpr(closed, axis_data, in_batched, instantiate):
    out_batched = []

    def fun(*args):
        outs, dims = batch_flat(
            lambda *xs: core.eval_jaxpr(closed.jaxpr, closed.consts, *xs),
            args, [0 if b else not_mapped for b in in_batched], axis_data)
        out_batched[:] = [d is not not_mapped or inst
                          for d, inst in zip(dims, instantiate)]
        return [bdim_at_front(o, d, axis_data.size) if b else o
                for o, d, b in zip(outs, dims, out_batched)]

    in_avals = [batched_aval(a, axis_data.size) if b else a
                for a, b in zip(closed.in_avals, in_batched)]
    batched = pe.trace_to_jaxpr(fun, in_avals)
    return batched, tuple(out_batched)


def call_batch(prim, new_params, param="jaxpr"):
    """Batching of a primitive holding a closed jaxpr in ``params[param]``:
    bind it again holding the batched jaxpr (mapped operands moved to axis
    0; SPEC VMAP-90).  ``new_params(params, closed)`` re-parameterises."""
    def rule(axis_data, vals, dims, **params):
        in_batched = [d is not not_mapped for d in dims]
        vals = [moveaxis(v, d, 0) if d is not not_mapped else v
                for v, d in zip(vals, dims)]
        closed, out_batched = batch_jaxpr(params[param], axis_data, in_batched, False)
        outs = prim.bind(*vals, **new_params(params, closed))
        return outs, [0 if b else not_mapped for b in out_batched]
    prim.batch = rule
    prim.batch_unmapped = _holds_jaxpr_using_axis(param)
    return rule


def _holds_jaxpr_using_axis(param):
    """For :func:`_needs_rule`: a held jaxpr matters to an unmapped batch only
    when the axis is named (a collective inside may refer to it)."""
    def needs(params, axis_data):
        return axis_data.name is not None and _mentions_collective(params[param].jaxpr)
    return needs


def _mentions_collective(jaxpr):
    for eqn in jaxpr.eqns:
        if getattr(eqn.primitive, "is_collective", False):
            return True
        if any(_mentions_collective(j) for j in core.jaxprs_in_params(eqn.params)):
            return True
    return False
