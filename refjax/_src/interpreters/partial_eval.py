"""Staging: turning a Python function into a jaxpr (SPEC TRC-4, JXP-2).

A :class:`DynamicJaxprTrace` records every primitive bound on it as an
equation over fresh variables, instead of computing anything.  Values that
enter from outside become, by kind:

* tracers of this trace: their variable;
* scalars (Python, NumPy or 0-d arrays): inline ``Literal``s (``2.0:f32[]``);
* other constants (arrays closed over): ``constvars`` with their values kept
  beside the jaxpr (a ``ClosedJaxpr``);
* tracers of an enclosing trace still running (an inner ``jit`` closing over
  an outer traced value): also constvars, which ``jit`` turns into leading
  arguments of the inner call;
* tracers of a trace that has ended: ``UnexpectedTracerError``.
"""
import gc
import weakref

import numpy as np

from refjax._src import config as _config
from refjax._src import core, tree_util
from refjax._src.array import ArrayImpl
from refjax._src.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Tracer, Var
from refjax._src.interpreters import dce


class DynamicJaxprTracer(Tracer):
    """A traced value of a staging trace: an aval and the variable it names."""

    __slots__ = ("_var", "_created_at", "__weakref__")

    def __init__(self, trace, aval, var, created_at=None):
        self._trace = trace
        self.aval = aval
        self._var = var
        self._created_at = created_at

    def _tracer_kind(self):
        return "JitTracer"


class DynamicJaxprTrace(core.Trace):
    """Records primitives into a jaxpr under construction."""

    def __init__(self, debug_info=None, parent=None):
        self.debug_info = debug_info
        self.parent = parent
        self.is_valid = True
        self.eqns = []
        self.invars = []
        self.constvars = []
        self.consts = []
        self._const_ids = {}     # id(value) -> Var, so a constant is one constvar
        self._const_keepalive = []
        # Weak references to every tracer made, kept only while checking for
        # leaks (``jax.checking_leaks``, SPEC LEAK-2).
        self.tracer_refs = [] if _config.check_tracer_leaks.value else None

    def __repr__(self):
        return "DynamicJaxprTrace"

    # -- entering values ------------------------------------------------------
    def new_arg(self, aval):
        var = Var(aval)
        self.invars.append(var)
        return self._new_tracer(aval, var, None)

    def _new_tracer(self, aval, var, source_info):
        tracer = DynamicJaxprTracer(self, aval, var, source_info)
        if self.tracer_refs is not None:
            self.tracer_refs.append(weakref.ref(tracer))
        return tracer

    def to_atom(self, x):
        """The jaxpr atom standing for ``x`` inside this trace."""
        if isinstance(x, DynamicJaxprTracer) and x._trace is self:
            return x._var
        if isinstance(x, Tracer):
            if not (x._trace.is_valid and core.is_trace_active(x._trace)):
                raise core.escaped_tracer_error(x)
            return self._constvar(x, x.aval)
        aval = core.get_aval(x)
        if aval.shape == () and _literalable(x):
            return Literal(_literal_value(x, aval), aval)
        return self._constvar(x, aval)

    def _constvar(self, value, aval):
        var = self._const_ids.get(id(value))
        if var is None:
            var = Var(aval)
            self._const_ids[id(value)] = var
            self._const_keepalive.append(value)
            self.constvars.append(var)
            self.consts.append(value)
        return var

    # -- recording --------------------------------------------------------------
    def process_primitive(self, primitive, args, params):
        invars = [self.to_atom(a) for a in args]
        if primitive.abstract_eval is None:
            raise NotImplementedError(
                f"Abstract evaluation for '{primitive.name}' not implemented")
        avals_out = primitive.abstract_eval(*[v.aval for v in invars], **params)
        if isinstance(avals_out, (tuple, list)) != bool(primitive.multiple_results):
            # A user rule's type must fit multiple_results (SPEC EXT-13).
            raise ValueError(
                f"{primitive.name}.abstract_eval() method should return a tuple or "
                f"a list iff {primitive.name}.multiple_results.")
        return self.add_equation(primitive, invars, avals_out, params)

    def add_equation(self, primitive, invars, avals_out, params):
        """Append ``outs = primitive[params] invars``; return the out tracers."""
        where = core.current_source_info()
        if primitive.multiple_results:
            outvars = [Var(a) for a in avals_out]
            self.eqns.append(JaxprEqn(invars, outvars, primitive, params,
                                      source_info=where))
            return [self._new_tracer(v.aval, v, where) for v in outvars]
        outvar = Var(avals_out)
        self.eqns.append(JaxprEqn(invars, [outvar], primitive, params,
                                  source_info=where))
        return self._new_tracer(avals_out, outvar, where)

    # -- finishing ------------------------------------------------------------
    def to_closed_jaxpr(self, outs):
        outvars = [self.to_atom(x) for x in outs]
        jaxpr = Jaxpr(self.constvars, self.invars, outvars, self.eqns,
                      debug_info=self.debug_info)
        return ClosedJaxpr(jaxpr, self.consts)

    def describe_tracer(self, tracer):
        """The sentence JAX appends to concretization errors (SPEC ERR-6).

        It names the traced function and the arguments the value depends
        on, or, for a value computed from constants only, the operations it
        came from.  Once the trace has ended only the function is named.
        """
        dbg = self.debug_info
        if dbg is None:
            return ""
        msg = (f"The error occurred while tracing the function "
               f"{dbg.func_src_info} for {dbg.traced_for}. ")
        if not self.is_valid or tracer._trace is not self:
            return msg
        positions, eqns = self._progenitors(tracer)
        if positions and dbg.arg_names is not None:
            names = [dbg.arg_names[i] for i in positions
                     if i < len(dbg.arg_names)]
            msg += ("This concrete value was not available in Python because "
                    f"it depends on {_value_of_arguments(names)}.")
        elif eqns:
            lines = ["  operation " + str(core.pp_eqn(e, core.PpContext())).rstrip()
                     + "\n    from line "
                     + (e.source_info.summary() if e.source_info else "unknown")
                     for e in eqns[:5]]
            msg += ("This value became a tracer due to JAX operations on these "
                    "lines:\n\n" + "\n\n".join(lines))
            if len(eqns) > 5:
                msg += "\n\n(Additional originating lines are not shown.)"
        return msg

    def _progenitors(self, tracer):
        """(argument positions, equations on constants) ``tracer`` comes from."""
        active = {tracer._var}
        ancestors = []
        for eqn in reversed(self.eqns):
            if any(v in active for v in eqn.outvars):
                active.difference_update(eqn.outvars)
                active.update(v for v in eqn.invars if type(v) is Var)
                ancestors.append(eqn)
        positions = [i for i, v in enumerate(self.invars) if v in active]
        constvars = set(self.constvars)
        roots = [e for e in reversed(ancestors)
                 if any(v in constvars if type(v) is Var else isinstance(v, Literal)
                        for v in e.invars)]
        return positions, roots


def _value_of_arguments(names):
    """``the value of the argument x`` / ``the values of the arguments x and y``."""
    if len(names) == 1:
        return f"the value of the argument {names[0]}"
    if len(names) == 2:
        return f"the values of the arguments {names[0]} and {names[1]}"
    return f"the values of the arguments {', '.join(names[:-1])}, and {names[-1]}"


def _literalable(x):
    return (type(x) in core._SCALAR_TYPES or isinstance(x, (np.generic, np.ndarray))
            or isinstance(x, ArrayImpl))


def _literal_value(x, aval):
    """The literal's value (SPEC JXP-2).

    A Python scalar stays itself, so it prints as written (``0.1:f32[]``,
    not its float32 rounding); anything else becomes a 0-d Array carrying
    the aval's dtype and weak type.
    """
    if isinstance(x, ArrayImpl) or type(x) in core._SCALAR_TYPES:
        return x
    return core.wrap_buffer(core.to_buffer(np.asarray(x, dtype=aval.dtype)), aval)


def trace_to_jaxpr(fun, in_avals, debug_info=None, trace_type=None):
    """Trace ``fun`` on tracers of ``in_avals``; return the ClosedJaxpr.

    ``fun`` takes and returns flat lists.  The trace is invalidated when
    tracing ends, so a tracer that leaks out is caught on its next use
    (SPEC LEAK-1); under ``jax.checking_leaks`` a tracer still referenced
    once tracing has finished raises at once (SPEC LEAK-2).
    """
    parent = core.current_trace()
    trace = (trace_type or DynamicJaxprTrace)(debug_info, parent)
    args = [trace.new_arg(a) for a in in_avals]
    try:
        with core.set_current_trace(trace):
            outs = fun(*args)
            closed = trace.to_closed_jaxpr(outs)
    finally:
        trace.invalidate()
    if trace.tracer_refs is not None:
        del args, outs
        _check_no_leaks(trace)
    return closed


def _check_no_leaks(trace):
    """Raise JAX's plain ``Exception`` naming tracers that outlived ``trace``."""
    gc.collect()
    leaked = [t for t in (r() for r in trace.tracer_refs) if t is not None]
    if not leaked:
        return
    parts = []
    for t in leaked:
        lines = [repr(t), t._trace.describe_tracer(t)]
        lines.extend(_referrers(t, exclude=leaked))
        parts.append("\n".join(lines) + "\n")
    del leaked, t
    raise Exception("Leaked trace DynamicJaxprTrace. Leaked tracer(s):\n\n"
                    + "\n".join(parts))


def _referrers(obj, exclude):
    """``<Tracer id> is referred to by <list id>[i]`` for each holder of ``obj``."""
    out = []
    me = f"<{type(obj).__name__} {id(obj)}>"
    for r in gc.get_referrers(obj):
        if r is exclude:
            continue
        if isinstance(r, (list, tuple)):
            where = "".join(f"[{i}]" for i, x in enumerate(r) if x is obj)
        elif isinstance(r, dict):
            where = "".join(f"[{k!r}]" for k, x in r.items() if x is obj)
        else:
            continue
        out.append(f"{me} is referred to by <{type(r).__name__} {id(r)}>{where}")
    return out


def trace_pytree_fun(fun, args, debug_info=None):
    """Trace ``fun(*args)`` (pytrees in and out) to a jaxpr whose traced
    constants are hoisted: (closed jaxpr, hoisted tracers, argument leaves,
    input tree, output tree).  The hoisted tracers are passed first."""
    leaves, in_tree = tree_util.tree_flatten(tuple(args))
    store = {}

    def flat(*xs):
        out = fun(*tree_util.tree_unflatten(in_tree, xs))
        out_leaves, store["out_tree"] = tree_util.tree_flatten(out)
        return out_leaves

    closed = trace_to_jaxpr(flat, [core.get_aval(x) for x in leaves], debug_info)
    closed, consts = closure_convert(closed)
    return closed, consts, leaves, in_tree, store["out_tree"]


def closure_convert(closed):
    """Move constvars whose values are tracers to the front of the invars.

    Returns (jaxpr, tracer_args): ``jaxpr`` keeps only concrete constants as
    constvars; the tracers become leading arguments of the call (SPEC JIT-9).
    """
    jaxpr = closed.jaxpr
    keep_vars, keep_vals, hoisted_vars, hoisted_vals = [], [], [], []
    for v, c in zip(jaxpr.constvars, closed.consts):
        if isinstance(c, Tracer):
            hoisted_vars.append(v)
            hoisted_vals.append(c)
        else:
            keep_vars.append(v)
            keep_vals.append(c)
    if not hoisted_vars:
        return closed, []
    new = jaxpr.replace(constvars=keep_vars, invars=hoisted_vars + jaxpr.invars)
    return ClosedJaxpr(new, keep_vals), hoisted_vals


# ---------------------------------------------------------------------------
# Policy-driven partial evaluation (``jax.checkpoint``, SPEC AD-97)
# ---------------------------------------------------------------------------

def partial_eval_jaxpr_custom(jaxpr, in_unknowns, in_inst, ensure_out_unknowns,
                              ensure_out_inst, saveable):
    """Split the open ``jaxpr`` into a known and a staged half, deciding for
    each known value the staged half reads whether it is *saved* (a
    residual) or *recomputed* there.

    Each variable carries two flags: unknown (computed only by the staged
    half) and instantiated (available in the staged half).  An equation
    with an unknown operand is staged; an all-known one runs in the known
    half, and is also copied into the staged half unless ``saveable(prim,
    *avals, **params)`` answers True (or it is effectful).  A primitive
    holding jaxprs may split itself with ``prim.partial_eval_custom(
    saveable, unks_in, inst_in, eqn) -> (known eqn or None, staged eqn or
    None, unks_out, inst_out, residual vars)``.

    Returns ``(known, staged, out_unknowns, out_inst, num_res)``: ``known``
    maps the known inputs to the known outputs then the residuals; ``staged``
    maps the residuals then the instantiated inputs to the instantiated
    outputs.  Both keep ``jaxpr``'s constvars (SPEC AD-97)."""
    n_out = len(jaxpr.outvars)
    in_inst = _flags(in_inst, len(jaxpr.invars))
    ensure_out_unknowns = _flags(ensure_out_unknowns, n_out)
    ensure_out_inst = _flags(ensure_out_inst, n_out)
    env = {v: (False, True) for v in jaxpr.constvars}
    env.update((v, (u, i)) for v, u, i in zip(jaxpr.invars, in_unknowns, in_inst))
    residuals = {}          # an ordered set

    def read(x):
        return env[x] if type(x) is Var else (False, True)

    def instantiate(x, inst):
        if type(x) is Var and not inst:
            residuals[x] = None

    known_eqns, staged_eqns = [], []
    for eqn in jaxpr.eqns:
        unks_in, inst_in = zip(*map(read, eqn.invars)) if eqn.invars else ((), ())
        rule = getattr(eqn.primitive, "partial_eval_custom", None)
        if rule is not None:
            known, staged, unks_out, inst_out, res = rule(saveable, list(unks_in),
                                                          list(inst_in), eqn)
            known is not None and known_eqns.append(known)
            staged is not None and staged_eqns.append(staged)
            residuals.update((r, None) for r in res)
            env.update((v, (u, i)) for v, u, i in zip(eqn.outvars, unks_out, inst_out))
        elif any(unks_in):
            for x, inst in zip(eqn.invars, inst_in):
                instantiate(x, inst)
            staged_eqns.append(eqn)
            env.update((v, (True, True)) for v in eqn.outvars)
        else:
            known_eqns.append(eqn)
            saved = dce.eqn_effectful(eqn) or saveable(
                eqn.primitive, *[x.aval for x in eqn.invars], **eqn.params)
            if not saved:
                for x, inst in zip(eqn.invars, inst_in):
                    instantiate(x, inst)
                staged_eqns.append(eqn)
            env.update((v, (False, not saved)) for v in eqn.outvars)
    out_unknowns, out_inst = [], []
    for x, ens_u, ens_i in zip(jaxpr.outvars, ensure_out_unknowns, ensure_out_inst):
        unk, inst = read(x)
        if ens_i:
            instantiate(x, inst)
        out_unknowns.append(unk or ens_u)
        out_inst.append(inst or ens_i)
    residuals = list(residuals)
    known = jaxpr.replace(
        invars=[v for v, u in zip(jaxpr.invars, in_unknowns) if not u],
        outvars=[v for v, u in zip(jaxpr.outvars, out_unknowns) if not u] + residuals,
        eqns=known_eqns)
    staged = jaxpr.replace(
        invars=residuals + [v for v, i in zip(jaxpr.invars, in_inst) if i],
        outvars=[v for v, i in zip(jaxpr.outvars, out_inst) if i],
        eqns=staged_eqns)
    return known, staged, out_unknowns, out_inst, len(residuals)


def _flags(flags, n):
    return [flags] * n if isinstance(flags, bool) else list(flags)


def call_partial_eval_custom(param, known_params, staged_params):
    """``partial_eval_custom`` rule for a primitive holding one closed jaxpr
    in ``param`` (``jit``, ``remat2``): split the body with the same policy
    and bind the primitive twice.  ``known_params(params, closed)`` and
    ``staged_params(params, closed)`` re-parameterise each half."""
    def rule(saveable, unks_in, inst_in, eqn):
        closed = eqn.params[param]
        known, staged, unks_out, inst_out, num_res = partial_eval_jaxpr_custom(
            closed.jaxpr, unks_in, inst_in, False, False, saveable)
        n_known = len(known.outvars) - num_res
        res, fresh, new_res = _forwarded_residuals(known, n_known, eqn, unks_in, inst_in,
                                                   unks_out, inst_out)
        known = known.replace(outvars=known.outvars[:n_known] + [
            v for v, f in zip(known.outvars[n_known:], fresh) if f])
        eqn_known = eqn.replace(
            invars=[v for v, u in zip(eqn.invars, unks_in) if not u],
            outvars=[v for v, u in zip(eqn.outvars, unks_out) if not u]
            + [r for r, f in zip(res, fresh) if f],
            params=known_params(eqn.params, ClosedJaxpr(known, closed.consts)))
        eqn_staged = eqn.replace(
            invars=res + [v for v, i in zip(eqn.invars, inst_in) if i],
            outvars=[v for v, i in zip(eqn.outvars, inst_out) if i],
            params=staged_params(eqn.params, ClosedJaxpr(staged, closed.consts)))
        not_inst = [v for v, i in zip(eqn.invars, inst_in) if type(v) is Var and not i]
        return eqn_known, eqn_staged, unks_out, inst_out, not_inst + new_res
    return rule


def _forwarded_residuals(known, n_known, eqn, unks_in, inst_in, unks_out, inst_out):
    """The outer atoms standing for the body's residuals.  A residual that
    is a known input, or a known output, of the call is that outer value
    itself rather than an extra output of the known call, as in JAX, so
    ``saved_residuals`` names it after its origin (SPEC AD-101).  Returns
    (atoms, which are fresh outputs, the atoms the caller must save)."""
    outer_in = {v: (x, i) for v, x, u, i in zip(
        known.invars, [x for x, u in zip(eqn.invars, unks_in) if not u],
        [u for u in unks_in if not u], [i for i, u in zip(inst_in, unks_in) if not u])}
    outer_out = {v: (x, i) for v, x, u, i in zip(
        known.outvars[:n_known], [x for x, u in zip(eqn.outvars, unks_out) if not u],
        [u for u in unks_out if not u], [i for i, u in zip(inst_out, unks_out) if not u])}
    res, fresh, to_save = [], [], []
    for v in known.outvars[n_known:]:
        hit = outer_in.get(v) or outer_out.get(v)
        if hit is None:
            res.append(Var(v.aval))
            fresh.append(True)
            to_save.append(res[-1])
            continue
        atom, inst = hit
        res.append(atom)
        fresh.append(False)
        if type(atom) is Var and not inst:
            to_save.append(atom)
    return res, fresh, to_save
