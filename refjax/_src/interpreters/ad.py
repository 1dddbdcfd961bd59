"""Automatic differentiation: JVP rules, linearization and transposition.

The design is JAX's (SPEC AD-1):

* forward mode runs a :class:`JVPTrace`; every primitive it meets is
  handed to that primitive's ``jvp`` rule with the primal values and the
  tangents (a tangent may be the symbolic :class:`Zero`, never materialised);
* ``linearize`` runs the same JVP trace on top of a :class:`PartialEvalTrace`
  whose unknowns are the tangents: primal work is done at once, tangent work
  is staged into a *linear* jaxpr whose constants are the residuals;
* reverse mode transposes that linear jaxpr (:func:`backward_pass`), running
  each equation's ``transpose`` rule from the outputs back to the inputs.

This module holds the machinery and the helpers that primitives use to
declare their rules (``defjvp``, ``deflinear``, ``defbilinear``...); the
rules themselves live beside each primitive.
"""
import weakref

import numpy as np

from refjax._src import core, dtypes, lru, mesh
from refjax._src.core import Primitive, ShapedArray, Tracer, set_current_trace
from refjax._src.interpreters import batching, dce
from refjax._src.interpreters import partial_eval as pe

float0 = dtypes.float0


# ---------------------------------------------------------------------------
# Tangent types and symbolic zeros
# ---------------------------------------------------------------------------

def tangent_dtype(dtype):
    """Integers, booleans and PRNG keys have ``float0`` tangents (SPEC AD-3)."""
    if isinstance(dtype, dtypes.ExtendedDType):
        return float0
    dtype = np.dtype(dtype)
    if dtypes.issubdtype(dtype, np.inexact):
        return dtype
    return float0


def tangent_aval(aval):
    return ShapedArray(aval.shape, tangent_dtype(aval.dtype), aval.weak_type)


class Zero:
    """A tangent or cotangent known to be zero, of abstract value ``aval``.

    Rules see it instead of an array of zeros, so derivative work on values
    that do not depend on the inputs is skipped (SPEC AD-2)."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    @staticmethod
    def from_primal_value(x):
        return Zero(tangent_aval(core.get_aval(x)))

    def __repr__(self):
        return f"Zero({self.aval})"

    def __getattr__(self, name):
        # Custom rules see zeros as ``SymbolicZero``s, which answer for
        # their abstract value: ``shape``, ``dtype``, ``ndim``... (CDR-3).
        if name == "aval" or name.startswith("__"):
            raise AttributeError(name)
        try:
            return getattr(self.aval, name)
        except AttributeError:
            raise AttributeError(f"SymbolicZero has no attribute {name}") from None


def is_zero(t):
    return type(t) is Zero


def zeros_like_aval(aval):
    """Materialised zeros: a NumPy ``float0`` array, or a broadcast literal."""
    if aval.dtype == float0:
        return np.zeros(aval.shape, float0)
    zero = core.lax_ops.convert_element_type(0, aval.dtype, aval.weak_type)
    return core.lax_ops.broadcast(zero, aval.shape)


def instantiate_zeros(t):
    return zeros_like_aval(t.aval) if type(t) is Zero else t


def zeros_like(x):
    return zeros_like_aval(tangent_aval(core.get_aval(x)))


# ``add_any``: tangent and cotangent accumulation, linear in both operands.
add_any_p = Primitive("add_any")
add_any_p.def_impl(lambda x, y: x + y)
add_any_p.def_abstract_eval(lambda x, y: x)


def add_tangents(x, y):
    """``x + y`` where either may be a symbolic zero."""
    if type(x) is Zero:
        return y
    if type(y) is Zero:
        return x
    return add_any_p.bind(x, y)


class UndefinedPrimal:
    """A linear input of an equation being transposed (its value unknown)."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"UndefinedPrimal({self.aval})"


def is_undefined_primal(x):
    return type(x) is UndefinedPrimal


def zero_cotangents(args):
    """A transpose rule's result for a zero cotangent: a symbolic zero for
    each linear (undefined) operand, None for the others."""
    return [Zero(a.aval) if is_undefined_primal(a) else None for a in args]


# ---------------------------------------------------------------------------
# Declaring rules (used beside each primitive's definition)
# ---------------------------------------------------------------------------

def defjvp(prim, *jvp_fns):
    """One function per operand: ``jvp_fns[i](t_i, *primals, **params)`` is
    the output tangent's part due to operand ``i`` (``None``: operand ``i``
    is not differentiable).  Parts of non-zero tangents are summed."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        return out, _sum_parts(jvp_fns, tangents, primals, params, out)
    prim.jvp = rule
    return rule


def defjvp2(prim, *jvp_fns):
    """As :func:`defjvp`, the functions also getting the primal output:
    ``jvp_fns[i](t_i, ans, *primals, **params)``."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        return out, _sum_parts(jvp_fns, tangents, (out, *primals), params, out)
    prim.jvp = rule
    return rule


def _sum_parts(jvp_fns, tangents, args, params, out):
    total = None
    for fn, t in zip(jvp_fns, tangents):
        if fn is None or type(t) is Zero:
            continue
        part = fn(t, *args, **params)
        total = part if total is None else add_tangents(total, part)
    return Zero.from_primal_value(out) if total is None else total


def defjvp_zero(prim):
    """A primitive whose outputs do not vary with its inputs (comparisons,
    integer ops, ``argmax``...): zero tangents, ``float0`` for integers."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if prim.multiple_results:
            return out, [Zero.from_primal_value(o) for o in out]
        return out, Zero.from_primal_value(out)
    prim.jvp = rule
    return rule


def deflinear(prim, transpose_rule):
    """A primitive linear in every operand.

    JVP: the primitive applied to the tangents (zeros materialised only if
    some tangent is non-zero).  ``transpose_rule(ct, *args, **params)``
    gives one cotangent per operand; a zero cotangent gives zeros without
    calling it."""
    def jvp(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if all(type(t) is Zero for t in tangents):
            zero = ([Zero.from_primal_value(o) for o in out]
                    if prim.multiple_results else Zero.from_primal_value(out))
            return out, zero
        return out, prim.bind(*map(instantiate_zeros, tangents), **params)

    def transpose(ct, *args, **params):
        cts = ct if prim.multiple_results else [ct]
        if all(type(c) is Zero for c in cts):
            return [Zero(a.aval) if type(a) is UndefinedPrimal else None
                    for a in args]
        return transpose_rule(ct, *args, **params)

    prim.jvp = jvp
    prim.transpose = transpose


def defbilinear(prim, lhs_rule, rhs_rule):
    """A primitive linear in each of its two operands separately (``mul``,
    ``dot_general``, convolution).  ``lhs_rule(ct, x, y, **params)`` is the
    cotangent of ``x`` when ``x`` is the linear operand, and likewise for
    ``rhs_rule``."""
    defjvp(prim,
           lambda t, x, y, **p: prim.bind(t, y, **p),
           lambda t, x, y, **p: prim.bind(x, t, **p))

    def transpose(ct, x, y, **params):
        if type(ct) is Zero:
            return [Zero(a.aval) if type(a) is UndefinedPrimal else None
                    for a in (x, y)]
        cx = lhs_rule(ct, x, y, **params) if type(x) is UndefinedPrimal else None
        cy = rhs_rule(ct, x, y, **params) if type(y) is UndefinedPrimal else None
        return [cx, cy]

    prim.transpose = transpose


def _add_any_transpose(ct, x, y):
    return [ct if type(a) is UndefinedPrimal else None for a in (x, y)]


deflinear(add_any_p, _add_any_transpose)


def _add_any_batch(axis_data, vals, dims):
    """Both operands share one shape: align the batch dims (SPEC VMAP-5)."""
    (x, y), (dx, dy) = vals, dims
    if dx == dy:
        return add_any_p.bind(x, y), dx
    if dx is None:
        return add_any_p.bind(batching.broadcast(x, axis_data.size, dy), y), dy
    return add_any_p.bind(x, batching.move_or_broadcast(y, dy, dx, axis_data.size)), dx


add_any_p.batch = _add_any_batch


# ---------------------------------------------------------------------------
# Forward mode: the JVP trace
# ---------------------------------------------------------------------------

class JVPTracer(Tracer):
    """A value being differentiated: its primal and its tangent."""

    __slots__ = ("primal", "tangent")

    def __init__(self, trace, primal, tangent):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent
        self.aval = core.get_aval(primal)

    def __repr__(self):
        return f"JVPTracer(primal={self.primal}, tangent={self.tangent})"

    def to_concrete_value(self):
        return core.concrete_value(self.primal)

    def describe_tracer(self, tracer):
        return ""


class LinearizeTracer(JVPTracer):
    """A JVP tracer while linearizing: its tangent is a staged value."""

    __slots__ = ()

    def __repr__(self):
        return (f"GradTracer(primal={self.primal}, "
                f"typeof(tangent)={self.tangent.aval.str_short(True)})")

    def _tracer_kind(self):
        return "GradTracer"


class JVPTrace(core.Trace):
    """Forward-mode differentiation of the primitives bound on it."""

    def __init__(self, parent, linearizing=False):
        self.parent = parent
        self.linearizing = linearizing
        self.tracer_type = LinearizeTracer if linearizing else JVPTracer
        self.is_valid = True

    def __repr__(self):
        return "JVPTrace"

    def to_primal_tangent(self, x):
        if isinstance(x, JVPTracer) and x._trace is self:
            return x.primal, x.tangent
        if isinstance(x, Tracer) and not (x._trace.is_valid
                                          and core.is_trace_active(x._trace)):
            raise core.escaped_tracer_error(x)
        return x, Zero.from_primal_value(x)

    def new(self, primal, tangent):
        """The value a rule produced: a tracer unless its tangent is zero."""
        if type(tangent) is Zero:
            return primal
        return self.tracer_type(self, primal, tangent)

    def process_primitive(self, primitive, args, params):
        primals, tangents = [], []
        for a in args:
            p, t = self.to_primal_tangent(a)
            primals.append(p)
            tangents.append(t)
        if all(type(t) is Zero for t in tangents):
            return self.parent.process_primitive(primitive, primals, params)
        rule = primitive.jvp
        if rule is None:
            raise NotImplementedError(
                f"Differentiation rule for '{primitive.name}' not implemented")
        with set_current_trace(self.parent):
            out, tangent = rule(primals, tangents, **params)
        if primitive.multiple_results:
            return [self.new(p, t) for p, t in zip(out, tangent)]
        return self.new(out, tangent)

    def describe_tracer(self, tracer):
        return ""


def jvp_flat(fun, primals, tangents, linearizing=False, parent=None):
    """Run ``fun`` (flat lists in and out) on JVP tracers.

    ``tangents`` may hold :class:`Zero`; returns (primal outs, tangent outs)
    with symbolic zeros for outputs that do not depend on the tangents."""
    trace = JVPTrace(parent or core.current_trace(), linearizing)
    try:
        args = [trace.new(p, t) for p, t in zip(primals, tangents)]
        with set_current_trace(trace):
            outs = fun(*args)
        pairs = [trace.to_primal_tangent(o) for o in outs]
    finally:
        trace.invalidate()
    return [p for p, _ in pairs], [t for _, t in pairs]


# ---------------------------------------------------------------------------
# Partial evaluation: known values computed now, unknown ones staged
# ---------------------------------------------------------------------------

class PartialEvalTrace(pe.DynamicJaxprTrace):
    """Stages only the equations that touch an unknown value (SPEC AD-4).

    An equation whose operands are all known runs on the parent trace at
    once; one with an unknown operand is recorded, its known operands
    becoming constants of the staged jaxpr (the *residuals*).  Primitives
    holding jaxprs split them with their ``partial_eval`` rule."""

    def __repr__(self):
        return "PartialEvalTrace"

    def is_unknown(self, x):
        return isinstance(x, pe.DynamicJaxprTracer) and x._trace is self

    def process_primitive(self, primitive, args, params):
        if not any(self.is_unknown(a) for a in args):
            return self.parent.process_primitive(primitive, args, params)
        rule = primitive.partial_eval
        if rule is not None:
            return rule(self, args, params)
        return self.stage(primitive, args, params)

    def stage(self, primitive, args, params):
        return pe.DynamicJaxprTrace.process_primitive(self, primitive, args, params)


def linearize_flat(fun, primals):
    """(primal outs, linear jaxpr, out tangent zero-mask) for ``fun``.

    The linear jaxpr takes the tangents of the inexact inputs (integer
    inputs have zero tangents) and returns the tangents of the outputs
    that are not symbolically zero; its constants are the residuals."""
    parent = core.current_trace()
    staging = PartialEvalTrace(None, parent)
    in_linear = [tangent_dtype(core.get_aval(p).dtype) != float0 for p in primals]
    tangents = [staging.new_arg(tangent_aval(core.get_aval(p))) if lin
                else Zero.from_primal_value(p) for p, lin in zip(primals, in_linear)]
    try:
        out_primals, out_tangents = jvp_flat(fun, primals, tangents,
                                             linearizing=True, parent=staging)
        out_zero = [type(t) is Zero for t in out_tangents]
        with set_current_trace(staging):
            closed = staging.to_closed_jaxpr(
                [t for t, z in zip(out_tangents, out_zero) if not z])
    finally:
        staging.invalidate()
    return out_primals, _without_dead_code(closed), in_linear, out_zero


def _without_dead_code(closed):
    """The linear jaxpr without tangent work no output needs (a maximum
    under ``stop_gradient``), and so without its residuals: JAX saves only
    what the derivative reads (SPEC AD-103).  Only whole top-level equations
    are dropped: the live ones stay the same objects, so the programs
    compiled for the jaxprs they hold are reused on the next call."""
    jaxpr = closed.jaxpr
    live = {v for v in jaxpr.outvars if type(v) is core.Var}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if any(v in live for v in eqn.outvars) or dce.eqn_effectful(eqn):
            kept.append(eqn)
            live.update(v for v in eqn.invars if type(v) is core.Var)
    if len(kept) == len(jaxpr.eqns):
        return closed
    keep = [i for i, v in enumerate(jaxpr.constvars) if v in live]
    body = jaxpr.replace(eqns=kept[::-1], constvars=[jaxpr.constvars[i] for i in keep])
    return core.ClosedJaxpr(body, [closed.consts[i] for i in keep])


# ---------------------------------------------------------------------------
# Reverse mode: transposing a linear jaxpr
# ---------------------------------------------------------------------------

def backward_pass(jaxpr, consts, args, cts_out):
    """Cotangents of ``jaxpr``'s linear inputs given its output cotangents.

    ``args`` holds values for the non-linear inputs and
    :class:`UndefinedPrimal` for the linear ones; ``cts_out`` may hold
    :class:`Zero`.  Equations not touching a linear input are evaluated
    forward first; the others are transposed in reverse order, and
    cotangents reaching one variable are summed (SPEC AD-5)."""
    primal_env = {}
    linear = set()

    def read(v):
        if isinstance(v, core.Literal):
            return v.val
        return primal_env[v]

    for v, c in zip(jaxpr.constvars, consts):
        primal_env[v] = c
    for v, a in zip(jaxpr.invars, args):
        if type(a) is UndefinedPrimal:
            linear.add(v)
        else:
            primal_env[v] = a
    linear_eqns = []
    for eqn in jaxpr.eqns:
        if any(type(v) is core.Var and v in linear for v in eqn.invars):
            linear.update(eqn.outvars)
            linear_eqns.append(eqn)
            continue
        outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        outs = outs if eqn.primitive.multiple_results else [outs]
        for v, o in zip(eqn.outvars, outs):
            primal_env[v] = o

    ct_env = {}

    def write_ct(v, ct):
        if type(v) is not core.Var or v not in linear or ct is None or type(ct) is Zero:
            return
        prev = ct_env.get(v)
        ct_env[v] = ct if prev is None else add_tangents(prev, ct)

    def read_ct(v):
        ct = ct_env.pop(v, None) if type(v) is core.Var else None
        return Zero(tangent_aval(v.aval)) if ct is None else ct

    for v, ct in zip(jaxpr.outvars, cts_out):
        write_ct(v, ct)
    for eqn in reversed(linear_eqns):
        cts = [read_ct(v) for v in eqn.outvars]
        if all(type(c) is Zero for c in cts) and not eqn.primitive.effectful:
            continue
        rule = eqn.primitive.transpose
        if rule is None:
            raise NotImplementedError(
                f"Transpose rule (for reverse-mode differentiation) for "
                f"'{eqn.primitive.name}' not implemented")
        args_in = [UndefinedPrimal(v.aval) if type(v) is core.Var and v in linear
                   else read(v) for v in eqn.invars]
        ct_arg = cts if eqn.primitive.multiple_results else cts[0]
        cts_in = rule(ct_arg, *args_in, **eqn.params)
        for v, ct in zip(eqn.invars, cts_in):
            write_ct(v, ct)
    return [read_ct(v) if type(a) is UndefinedPrimal else None
            for v, a in zip(jaxpr.invars, args)]


# ---------------------------------------------------------------------------
# Transforming closed jaxprs (for primitives that hold them: jit, remat...)
# ---------------------------------------------------------------------------

def _cached(cache, closed, key, build):
    """``build(closed, key)``, remembered for as long as ``closed`` lives
    (at most ``lru.TRACE_CACHE_SIZE`` keys per jaxpr; SPEC THR-4)."""
    return lru.cached_per(cache, closed, key, build)


_jvp_cache = lru.register(weakref.WeakKeyDictionary())


def jvp_jaxpr(closed, nonzeros):
    """(jaxpr of primals + non-zero tangents -> primals + non-zero tangents,
    which output tangents are non-zero).  Cached per jaxpr."""
    return _cached(_jvp_cache, closed, tuple(nonzeros), _jvp_jaxpr)


def _jvp_jaxpr(closed, nonzeros):
    n = len(nonzeros)
    avals = closed.in_avals
    out_nz = []

    def fun(*args):
        primals, rest = list(args[:n]), iter(args[n:])
        tangents = [next(rest) if nz else Zero(tangent_aval(a))
                    for nz, a in zip(nonzeros, avals)]
        outs, touts = jvp_flat(lambda *xs: core.eval_jaxpr(closed.jaxpr, closed.consts, *xs),
                               primals, tangents)
        out_nz[:] = [type(t) is not Zero for t in touts]
        return outs + [t for t in touts if type(t) is not Zero]

    t_avals = [tangent_aval(a) for a, nz in zip(avals, nonzeros) if nz]
    jaxpr = pe.trace_to_jaxpr(fun, list(avals) + t_avals)
    return jaxpr, tuple(out_nz)


_pe_cache = lru.register(weakref.WeakKeyDictionary())


def partial_eval_jaxpr(closed, unknowns, instantiate=None):
    """Split ``closed`` into a known and an unknown part (SPEC AD-4).

    Returns ``(known, unknown, out_unknowns, num_res)``: ``known`` maps the
    known inputs to the known outputs followed by ``num_res`` residuals;
    ``unknown`` maps residuals followed by the unknown inputs to the
    unknown outputs.  Outputs flagged in ``instantiate`` are unknown even
    when computable from known inputs (control flow needs a fixed set)."""
    n_out = len(closed.jaxpr.outvars)
    instantiate = tuple(instantiate) if instantiate is not None else (False,) * n_out
    return _cached(_pe_cache, closed, (tuple(unknowns), instantiate),
                   lambda c, key: _partial_eval_jaxpr(c, *key))


def _partial_eval_jaxpr(closed, unknowns, instantiate):
    avals = closed.in_avals
    cell = {}

    def known_fun(*known_args):
        staging = PartialEvalTrace(None, core.current_trace())
        known = iter(known_args)
        args = [staging.new_arg(a) if u else next(known)
                for a, u in zip(avals, unknowns)]
        try:
            with set_current_trace(staging):
                outs = core.eval_jaxpr(closed.jaxpr, closed.consts, *args)
                out_unknown = [staging.is_unknown(o) or inst
                               for o, inst in zip(outs, instantiate)]
                unknown = staging.to_closed_jaxpr(
                    [o for o, u in zip(outs, out_unknown) if u])
        finally:
            staging.invalidate()
        unknown, residuals = pe.closure_convert(unknown)
        cell.update(unknown=unknown, out_unknown=out_unknown, num_res=len(residuals))
        return [o for o, u in zip(outs, out_unknown) if not u] + list(residuals)

    known = pe.trace_to_jaxpr(known_fun, [a for a, u in zip(avals, unknowns) if not u])
    return known, cell["unknown"], cell["out_unknown"], cell["num_res"]


_transpose_cache = lru.register(weakref.WeakKeyDictionary())


def transpose_jaxpr(closed, linear, ct_nonzeros):
    """A jaxpr mapping (non-linear inputs, non-zero output cotangents) to the
    cotangents of the linear inputs (zeros materialised).  Cached."""
    return _cached(_transpose_cache, closed, (tuple(linear), tuple(ct_nonzeros)),
                   lambda c, key: _transpose_jaxpr(c, *key))


def _transpose_jaxpr(closed, linear, ct_nonzeros):
    """Partial evaluation first splits ``closed`` into the part computable
    from the non-linear inputs and the part linear in the others: a jaxpr
    from ``jvp`` (under ``checkpoint``) can hold one equation mixing both,
    e.g. a ``scan`` carrying primal and tangent values together, which only
    the linear half of can be transposed (SPEC AD-5, AD-94).  Only equations
    holding jaxprs can mix the two, so without one the split is skipped."""
    avals, out_avals = closed.in_avals, closed.out_avals
    n_nonlinear = sum(1 for lin in linear if not lin)
    split = any(eqn.primitive.partial_eval is not None for eqn in closed.jaxpr.eqns)
    if split:
        known, unknown, out_unknown, num_res = partial_eval_jaxpr(closed, linear)

    def fun(*args):
        cts = iter(args[n_nonlinear:])
        cts_out = [next(cts) if nz else Zero(tangent_aval(a))
                   for a, nz in zip(out_avals, ct_nonzeros)]
        if not split:
            res = iter(args[:n_nonlinear])
            primals = [UndefinedPrimal(a) if lin else next(res)
                       for a, lin in zip(avals, linear)]
            cts_in = backward_pass(closed.jaxpr, closed.consts, primals, cts_out)
            return [instantiate_zeros(c) for c, lin in zip(cts_in, linear) if lin]
        known_outs = core.eval_jaxpr(known.jaxpr, known.consts, *args[:n_nonlinear])
        residuals = known_outs[len(known_outs) - num_res:]
        primals = [*residuals, *[UndefinedPrimal(a) for a, lin in zip(avals, linear) if lin]]
        cts_in = backward_pass(unknown.jaxpr, unknown.consts, primals,
                               [c for c, u in zip(cts_out, out_unknown) if u])
        return [instantiate_zeros(c) for c in cts_in[num_res:]]

    in_avals = ([a for a, lin in zip(avals, linear) if not lin]
                + [tangent_aval(a) for a, nz in zip(out_avals, ct_nonzeros) if nz])
    return pe.trace_to_jaxpr(fun, in_avals)


# ---------------------------------------------------------------------------
# Rules for call-like primitives (``jit``, ``remat2``...): transform the
# jaxpr they hold and bind the primitive again (SPEC AD-14)
# ---------------------------------------------------------------------------

def call_jvp(prim, new_params):
    """JVP: the primitive, holding the JVP of its jaxpr, on primals and
    non-zero tangents.  ``new_params(params, closed)`` re-parameterises."""
    def rule(primals, tangents, **params):
        closed = params["jaxpr"]
        nonzeros = [type(t) is not Zero for t in tangents]
        jvp_closed, out_nz = jvp_jaxpr(closed, nonzeros)
        outs = prim.bind(*primals, *[t for t in tangents if type(t) is not Zero],
                         **new_params(params, jvp_closed))
        n = len(closed.jaxpr.outvars)
        rest = iter(outs[n:])
        return outs[:n], [next(rest) if nz else Zero(tangent_aval(a))
                          for nz, a in zip(out_nz, closed.out_avals)]
    return rule


def call_partial_eval(prim, new_params):
    """Partial evaluation saving every residual: the known part runs now as
    one call, the unknown part is staged as another, fed the residuals."""
    def rule(trace, args, params):
        closed = params["jaxpr"]
        unknowns = [trace.is_unknown(a) for a in args]
        known, unknown, out_unknown, num_res = partial_eval_jaxpr(closed, unknowns)
        known_args = [a for a, u in zip(args, unknowns) if not u]
        known, unknown, fwd = _forwarding_split(known, unknown, num_res)
        known_outs = trace.parent.process_primitive(prim, known_args,
                                                    new_params(params, known))
        n_known = len(out_unknown) - sum(out_unknown)
        computed = iter(known_outs[n_known:])
        residuals = [next(computed) if f is None else known_args[f] if type(f) is int
                     else f[0] for f in fwd]
        staged = trace.stage(
            prim, [*residuals, *[a for a, u in zip(args, unknowns) if u]],
            new_params(params, unknown))
        known_it, staged_it = iter(known_outs[:n_known]), iter(staged)
        return [next(staged_it) if u else next(known_it) for u in out_unknown]
    return rule


_fwd_cache = lru.register(weakref.WeakKeyDictionary())


def _forwarding_split(known, unknown, num_res):
    """``(known, unknown, sources)`` with residuals that need no computing
    taken out of the known call, as JAX does, so they keep their origin
    (``saved_residuals``, SPEC AD-101): a known input passed through is
    forwarded (its source is the input's index), and the unknown side's
    array constants become leading residuals (source ``(value,)``), seen
    by the caller as constants.  Other sources are None.  Cached."""
    return _cached(_fwd_cache, known, (unknown, num_res),
                   lambda k, key: _build_forwarding_split(k, *key))


def _build_forwarding_split(known, unknown, num_res):
    kj, uj = known.jaxpr, unknown.jaxpr
    n_known = len(kj.outvars) - num_res
    index = {v: i for i, v in enumerate(kj.invars)}
    res_vars = kj.outvars[n_known:]
    fwd = [index.get(v) if type(v) is core.Var else None for v in res_vars]
    hoist = [isinstance(c, (core.Array, np.ndarray)) and len(c.shape) > 0
             and not dtypes.issubdtype(c.dtype, dtypes.extended)
             for c in unknown.consts]
    if not any(f is not None for f in fwd) and not any(hoist):
        return known, unknown, [None] * num_res
    known = core.ClosedJaxpr(kj.replace(outvars=kj.outvars[:n_known] + [
        v for v, f in zip(res_vars, fwd) if f is None]), known.consts)
    hoisted = [v for v, h in zip(uj.constvars, hoist) if h]
    consts = [(c,) for c, h in zip(unknown.consts, hoist) if h]
    unknown = core.ClosedJaxpr(uj.replace(
        constvars=[v for v, h in zip(uj.constvars, hoist) if not h],
        invars=hoisted + list(uj.invars)),
        [c for c, h in zip(unknown.consts, hoist) if not h])
    return known, unknown, consts + fwd


def call_transpose(prim, new_params):
    """Transpose: the primitive holding the transposed jaxpr, on the
    non-linear operands and the non-zero cotangents."""
    def rule(cts, *args, **params):
        linear = [type(a) is UndefinedPrimal for a in args]
        ct_nonzero = [type(c) is not Zero for c in cts]
        t_closed = transpose_jaxpr(params["jaxpr"], linear, ct_nonzero)
        outs = iter(prim.bind(*[a for a, lin in zip(args, linear) if not lin],
                              *[c for c in cts if type(c) is not Zero],
                              **new_params(params, t_closed)))
        return [next(outs) if lin else None for lin in linear]
    return rule


def dce_closed(closed, used_outputs):
    """``closed`` keeping only the outputs marked used, and the equations
    they need (effectful equations are kept)."""
    jaxpr = closed.jaxpr
    outvars = [v for v, u in zip(jaxpr.outvars, used_outputs) if u]
    live = {v for v in outvars if type(v) is core.Var}
    eqns = []
    for eqn in reversed(jaxpr.eqns):
        if eqn.primitive.effectful or any(v in live for v in eqn.outvars):
            eqns.append(eqn)
            live.update(v for v in eqn.invars if type(v) is core.Var)
    eqns.reverse()
    return core.ClosedJaxpr(jaxpr.replace(outvars=outvars, eqns=eqns), closed.consts)


# ---------------------------------------------------------------------------
# stop_gradient
# ---------------------------------------------------------------------------

stop_gradient_p = Primitive("stop_gradient")
stop_gradient_p.def_impl(lambda x: x)
stop_gradient_p.def_abstract_eval(lambda x: x)


def _stop_gradient_jvp(primals, tangents):
    (x,) = primals
    return stop_gradient_p.bind(x), Zero.from_primal_value(x)


stop_gradient_p.jvp = _stop_gradient_jvp
batching.defvectorized(stop_gradient_p)
stop_gradient_p.sharding_rule = mesh.elementwise_sharding_rule


def stop_gradient(x):
    """Each leaf of ``x`` unchanged, with a zero derivative (SPEC AD-64).

    Outside a transformation Python scalars and Arrays come back as they
    are and a NumPy value as an Array of its canonical dtype (float64 is
    float32 with x64 off); under a transformation each leaf is passed through
    the ``stop_gradient`` primitive."""
    from refjax._src import tree_util

    def stop(leaf):
        if core.current_trace() is core.eval_trace and not isinstance(leaf, Tracer):
            core.check_valid_jaxtype(leaf)      # JAX's TypeError for 'abc'
            core.get_aval(leaf)                 # and OverflowError for 2**70
            if isinstance(leaf, (np.ndarray, np.generic)):
                return stop_gradient_p.bind(leaf)
            return leaf
        return stop_gradient_p.bind(leaf)

    return tree_util.tree_map(stop, x)
