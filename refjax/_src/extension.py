"""JAX's extension surface (``jax.interpreters.*``, ``jax.extend.core``)
mapped onto refjax's own machinery (SPEC EXT-1 .. EXT-6).

Libraries register rules for their own primitives through dict-like
tables (``ad.primitive_jvps[p] = rule``) and small helpers.  In refjax
every rule is an attribute of the :class:`~refjax._src.core.Primitive`
(``p.jvp``, ``p.transpose``, ``p.batch``, ``p.impl``), so the tables here
are *views*: writing one sets the attribute, reading one reads it, and
rules that refjax's own primitives define are visible through them.

Where JAX's calling convention for a rule differs from refjax's, the rule
is adapted when it is installed:

* JVP rules, ``rule(primals, tangents, **params) -> (out, tangent)``, and
  transpose rules, ``rule(ct, *args, **params)`` with
  :class:`UndefinedPrimal` for the linear operands, are refjax's own
  conventions and are stored as given;
* ``batching.primitive_batchers`` rules, ``rule(args, dims, **params)``,
  and ``axis_primitive_batchers`` rules, ``rule(size, name, trace_type,
  args, dims, **params)``, are wrapped into refjax's
  ``rule(axis_data, args, dims, **params)`` (which is also JAX's
  ``fancy_primitive_batchers`` convention);
* ``ad.deflinear``'s transpose rule takes no operands in JAX
  (``rule(ct, **params)``); ``deflinear2``'s takes them.
* ``mlir.register_lowering(p, mlir.lower_fun(f))``: refjax has no
  compiler IR, so ``f`` (a function of Arrays written with ``jax.numpy`` /
  ``lax``) becomes the primitive's implementation, run on Arrays.
"""
import collections.abc
import sys
import typing
import weakref

import numpy as np

from refjax._src import api, core, dtypes, errors, lru, vmap_api
from refjax._src.array import Array
from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import ad, batching
from refjax._src.interpreters import partial_eval as pe

# ---------------------------------------------------------------------------
# Rule tables: live views onto the Primitive rule slots (SPEC EXT-1)
# ---------------------------------------------------------------------------

# Primitives a table was written for, so iteration finds those defined
# outside refjax too.
_user_primitives = weakref.WeakSet()


def known_primitives():
    """Every Primitive named at the top level of a loaded refjax module,
    and every primitive a rule table was given."""
    found = {}
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith("refjax"):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, Primitive):
                found[id(value)] = value
    for p in list(_user_primitives):
        found[id(p)] = p
    return list(found.values())


def _check_primitive(prim, table):
    if not isinstance(prim, Primitive):
        raise TypeError(f"{table} keys must be Primitives, got {prim!r} of "
                        f"type {type(prim).__name__}")


class RuleTable(collections.abc.MutableMapping):
    """A dict-like view of the ``slot`` rule of every primitive: ``table[p]``
    is ``p.<slot>`` (``KeyError`` if unset), assigning sets it and ``del``
    clears it (SPEC EXT-1).  ``adapt(prim, rule)`` turns a rule written in
    JAX's convention into refjax's when it differs."""

    def __init__(self, name, slot, adapt=None):
        self._name = name
        self._slot = slot
        self._adapt = adapt

    def __getitem__(self, prim):
        rule = getattr(prim, self._slot, None) if isinstance(prim, Primitive) else None
        if rule is None:
            raise KeyError(prim)
        return getattr(rule, "_jax_rule", rule)   # the rule as it was given

    def __setitem__(self, prim, rule):
        _check_primitive(prim, self._name)
        if not callable(rule):
            raise TypeError(f"{self._name}[{prim}] must be callable, got {rule!r}")
        _user_primitives.add(prim)
        setattr(prim, self._slot, self._adapt(prim, rule) if self._adapt else rule)

    def __delitem__(self, prim):
        self[prim]                      # KeyError when unset, like a dict
        setattr(prim, self._slot, None)

    def __contains__(self, prim):
        return isinstance(prim, Primitive) and getattr(prim, self._slot, None) is not None

    def __iter__(self):
        return iter([p for p in known_primitives() if p in self])

    def __len__(self):
        return sum(1 for _ in self)

    def __repr__(self):
        return f"<{self._name}: view of Primitive.{self._slot}, {len(self)} rules>"


def _jvp_taking_tuples(prim, rule):
    """JAX calls JVP rules with tuples of primals and tangents; refjax's
    own rules take lists (SPEC EXT-18)."""
    def jvp(primals, tangents, **params):
        return rule(tuple(primals), tuple(tangents), **params)
    jvp._jax_rule = rule
    return jvp


primitive_jvps = RuleTable("primitive_jvps", "jvp", _jvp_taking_tuples)
primitive_transposes = RuleTable("primitive_transposes", "transpose")
fancy_primitive_batchers = RuleTable("fancy_primitive_batchers", "batch")


def get_primitive_transpose(prim):
    """``prim``'s transpose rule; ``NotImplementedError`` as JAX words it
    when there is none (SPEC EXT-1)."""
    try:
        return primitive_transposes[prim]
    except KeyError:
        raise NotImplementedError(
            f"Transpose rule (for reverse-mode differentiation) for '{prim}' "
            "not implemented") from None


class _WriteOnlyBatchers:
    """JAX's write-only tables of batching rules in an older convention:
    a rule written here is wrapped into refjax's (SPEC EXT-2)."""

    def __init__(self, name, wrap):
        self._name = name
        self._wrap = wrap

    def __setitem__(self, prim, batcher):
        _check_primitive(prim, self._name)
        fancy_primitive_batchers[prim] = self._wrap(prim, batcher)

    def __delitem__(self, prim):
        del fancy_primitive_batchers[prim]

    def __repr__(self):
        return f"<{self._name}: writes Primitive.batch>"


def _unmapped_result(prim, vals, params):
    out = prim.bind(*vals, **params)
    return (out, [None] * len(out)) if prim.multiple_results else (out, None)


def _wrap_plain_batcher(prim, batcher):
    def rule(axis_data, vals, dims, **params):
        if all(d is None for d in dims):
            return _unmapped_result(prim, vals, params)
        return batcher(tuple(vals), tuple(dims), **params)   # JAX passes tuples
    rule.__wrapped__ = batcher
    return rule


def _wrap_axis_batcher(prim, batcher):
    def rule(axis_data, vals, dims, **params):
        return batcher(axis_data.size, axis_data.name, None, tuple(vals), tuple(dims),
                       **params)
    rule.__wrapped__ = batcher
    return rule


primitive_batchers = _WriteOnlyBatchers("primitive_batchers", _wrap_plain_batcher)
axis_primitive_batchers = _WriteOnlyBatchers("axis_primitive_batchers",
                                             _wrap_axis_batcher)


# ---------------------------------------------------------------------------
# AD helpers in JAX's conventions (SPEC EXT-1)
# ---------------------------------------------------------------------------

def deflinear(prim, transpose_rule):
    """A primitive linear in all operands; ``transpose_rule(ct, **params)``
    (JAX's convention: no operands) gives one cotangent per operand."""
    _check_primitive(prim, "deflinear")
    _user_primitives.add(prim)
    ad.deflinear(prim, lambda ct, *args, **params: transpose_rule(ct, **params))


def deflinear2(prim, transpose_rule):
    """As :func:`deflinear`, ``transpose_rule(ct, *args, **params)`` also
    receiving the operands (``UndefinedPrimal`` for linear ones)."""
    _check_primitive(prim, "deflinear2")
    _user_primitives.add(prim)
    ad.deflinear(prim, transpose_rule)


def defjvp(prim, *jvp_fns):
    """Per-operand JVP functions ``fn(t, *primals, **params)``, summed."""
    _check_primitive(prim, "defjvp")
    _user_primitives.add(prim)
    ad.defjvp(prim, *jvp_fns)


def defjvp2(prim, *jvp_fns):
    """As :func:`defjvp`, ``fn(t, out, *primals, **params)``."""
    _check_primitive(prim, "defjvp2")
    _user_primitives.add(prim)
    ad.defjvp2(prim, *jvp_fns)


def defbilinear(prim, lhs_rule, rhs_rule):
    """Linear in each of two operands: ``lhs_rule(ct, x, y, **params)``."""
    _check_primitive(prim, "defbilinear")
    _user_primitives.add(prim)
    ad.defbilinear(prim, lhs_rule, rhs_rule)


def add_jaxvals(x, y):
    """``x + y`` for tangents (the ``add_any`` primitive)."""
    return ad.add_any_p.bind(x, y)


def zeros_like_aval(aval):
    """An array of zeros of ``aval`` (``float0`` zeros for its dtype)."""
    return ad.zeros_like_aval(aval)


def jvp_flat(fun, primals, tangents, has_aux=False, instantiate=True):
    """``(primal outs, tangent outs)`` of ``fun`` (flat lists in and out).

    refjax's reading of ``jax.interpreters.ad.jvp``, whose JAX form takes
    internal ``WrappedFun``/``FlatTree`` objects: ``fun`` is a plain
    callable (or a ``linear_util.WrappedFun``); ``Zero`` tangents are kept
    symbolic unless ``instantiate`` (SPEC EXT-1)."""
    call = getattr(fun, "call_wrapped", fun)
    aux = []

    def flat(*xs):
        out = call(*xs)
        if has_aux:
            out, a = out
            aux.append(a)
        return list(out)

    tangents = [ad.Zero.from_primal_value(p) if t is None else t
                for p, t in zip(primals, tangents)]
    outs, touts = ad.jvp_flat(flat, list(primals), tangents)
    if instantiate:
        touts = [ad.instantiate_zeros(t) for t in touts]
    return (outs, touts, aux[0]) if has_aux else (outs, touts)


def linearize_flat(fun, primals):
    """``(primal outs, f_lin)``: ``f_lin(*tangents)`` applies the linear
    map of ``fun`` at ``primals`` (flat lists; SPEC EXT-1)."""
    call = getattr(fun, "call_wrapped", fun)
    outs, closed, in_linear, out_zero = ad.linearize_flat(
        lambda *xs: list(call(*xs)), list(primals))
    out_avals = [ad.tangent_aval(core.get_aval(o)) for o in outs]

    def f_lin(*tangents):
        lin = [t for t, keep in zip(tangents, in_linear) if keep]
        res = iter(core.eval_jaxpr(closed.jaxpr, closed.consts, *lin))
        return [ad.zeros_like_aval(a) if z else next(res)
                for a, z in zip(out_avals, out_zero)]
    return outs, f_lin


# ---------------------------------------------------------------------------
# Batching helpers (SPEC EXT-2)
# ---------------------------------------------------------------------------

def broadcast(x, size, axis, mesh_axis=None):
    """``x`` with a new axis of ``size`` at ``axis``.  ``mesh_axis`` is
    accepted as JAX does for values outside an explicit mesh (refjax's
    values never carry mesh axes in their types)."""
    return batching.broadcast(x, size, axis)


def bdim_at_front(x, bdim, size, mesh_axis=None):
    """``x`` with its batch axis first (broadcast when unmapped)."""
    return batching.bdim_at_front(x, bdim, size)


def defvectorized(prim):
    """Batching for an operation applied independently per element."""
    _check_primitive(prim, "defvectorized")
    _user_primitives.add(prim)
    batching.defvectorized(prim)


def defbroadcasting(prim):
    """Batching for an elementwise operation that broadcasts its operands."""
    _check_primitive(prim, "defbroadcasting")
    _user_primitives.add(prim)
    batching.defbroadcasting(prim)


def defreducer(prim):
    """Batching for a reduction over the axes in its ``axes`` parameter."""
    _check_primitive(prim, "defreducer")
    _user_primitives.add(prim)
    batching.defreducer(prim)


# Custom vmappable types live with vmap (SPEC VMAP-108).
register_vmappable = vmap_api.register_vmappable
unregister_vmappable = vmap_api.unregister_vmappable


# ---------------------------------------------------------------------------
# Lowering: mlir.lower_fun becomes the implementation (SPEC EXT-3)
# ---------------------------------------------------------------------------

class LoweredFun:
    """What ``mlir.lower_fun(fun, multiple_results)`` returns: a marker that
    ``register_lowering`` recognises.  Calling it as an MLIR lowering rule
    (with a lowering context) is impossible in refjax."""

    def __init__(self, fun, multiple_results):
        self.fun = fun
        self.multiple_results = bool(multiple_results)

    def __call__(self, ctx, *args, **params):
        raise NotImplementedError(
            "mlir.lower_fun(...) rules emit MLIR, which refjax (a NumPy "
            "interpreter without XLA) cannot build; pass the rule to "
            "mlir.register_lowering, which makes the function the "
            "primitive's implementation.")

    def __repr__(self):
        name = getattr(self.fun, "__name__", repr(self.fun))
        return f"lower_fun({name}, multiple_results={self.multiple_results})"


def lower_fun(fun, multiple_results=True):
    """The marker for a lowering rule that is a function of Arrays."""
    if not callable(fun):
        raise TypeError(f"lower_fun expects a callable, got {fun!r}")
    return LoweredFun(fun, multiple_results)


# prim -> {platform: rule}: every lowering registered, for inspection.
lowerings = weakref.WeakKeyDictionary()
_HOST_PLATFORMS = (None, "cpu")


def register_lowering(prim, rule, platform=None, inline=True, cacheable=True):
    """Register ``rule`` for ``prim`` on ``platform`` (SPEC EXT-3).

    refjax runs on the host CPU, so only rules for ``platform`` None or
    ``"cpu"`` matter.  A ``lower_fun(f)`` rule makes ``f`` (run on Arrays)
    the primitive's implementation, used eagerly and under ``jit``.  Any
    other rule builds MLIR, which refjax cannot run: it is recorded, and if
    the primitive has no ``def_impl`` its implementation raises saying so."""
    _check_primitive(prim, "register_lowering")
    if not callable(rule):
        raise TypeError(f"register_lowering expects a callable rule, got {rule!r}")
    platforms = platform if isinstance(platform, (list, tuple)) else (platform,)
    lowerings.setdefault(prim, {}).update({p: rule for p in platforms})
    _user_primitives.add(prim)
    if not any(p in _HOST_PLATFORMS for p in platforms):
        return rule
    if isinstance(rule, LoweredFun):
        prim.impl = _impl_from_lowering(prim, rule)
    elif prim.impl is None:
        prim.impl = _mlir_only_impl(prim)
    return rule


# Operands that are JAX values rather than backend buffers.
_JAX_VALUES = (core.Tracer, Array, bool, int, float, complex)


_MAX_LOWERED_PROGRAMS = 256


def _impl_from_lowering(prim, lowered):
    """The implementation a ``lower_fun(fun)`` rule gives: ``fun`` compiled
    once per set of parameters (and, by ``jit``, per argument signature), as
    JAX lowers it once per compilation, so ``fun`` runs its Python code only
    when traced (SPEC EXT-19)."""
    fun, multiple = lowered.fun, lowered.multiple_results
    compiled = {}

    def program(params):
        try:
            key = tuple(sorted(params.items()))
            found = compiled.get(key)
        except TypeError:               # a parameter that cannot be hashed
            return lambda *args: fun(*args, **params)
        if found is None:
            found = api.jit(lambda *args: fun(*args, **params))
            lru.put_bounded(compiled, key, found, _MAX_LOWERED_PROGRAMS)
        return found

    def impl(*buffers, **params):
        if any(isinstance(b, _JAX_VALUES) and not isinstance(b, np.generic)
               for b in buffers):
            # Called directly on JAX values, as JAX's ``prim.impl`` may be
            # (equinox's finalisation does): run ``fun`` on them (SPEC EXT-18).
            return fun(*buffers, **params)
        args = [core.wrap_buffer(b, ShapedArray(np.shape(b), b.dtype)) for b in buffers]
        with core.set_current_trace(core.eval_trace):
            out = program(params)(*args)
        if multiple:
            return [core.to_buffer(o) for o in out]
        return core.to_buffer(out)
    impl.__wrapped__ = fun
    return impl


def _mlir_only_impl(prim):
    def impl(*buffers, **params):
        raise NotImplementedError(
            f"Primitive '{prim.name}' has only an MLIR lowering rule, which "
            "refjax cannot run (it interprets primitives with NumPy and has no "
            "XLA compiler). Give it an implementation with def_impl, or "
            "register mlir.lower_fun(f) as its lowering.")
    return impl


def mlir_unavailable(name):
    """A function standing for ``jax.interpreters.mlir.<name>``, which builds
    or reads MLIR objects: it raises, naming why (SPEC EXT-3)."""
    def refuse(*args, **kwargs):
        raise NotImplementedError(
            f"mlir.{name} works on MLIR (StableHLO) objects; refjax interprets "
            "jaxprs with NumPy and has no XLA compiler or MLIR. Use "
            "mlir.register_lowering(prim, mlir.lower_fun(f)) to give a "
            "primitive an implementation.")
    refuse.__name__ = name
    refuse.__qualname__ = name
    refuse.__doc__ = f"``mlir.{name}``: needs MLIR, which refjax lacks (SPEC EXT-3)."
    return refuse


def mlir_unavailable_class(name):
    """A class standing for an MLIR-side class: constructing it raises."""
    def __init__(self, *args, **kwargs):
        mlir_unavailable(name)()
    return type(name, (), {"__init__": __init__, "__doc__": (
        f"``mlir.{name}``: an MLIR-side type; refjax has no MLIR (SPEC EXT-3).")})


# ---------------------------------------------------------------------------
# jax.extend.core extras (SPEC EXT-4)
# ---------------------------------------------------------------------------

class Effect:
    """The base class of side effects a primitive may declare."""


Effects = typing.AbstractSet[Effect]
no_effects = frozenset()


class TraceTag:
    """An identity token for a transformation instance."""

    __slots__ = ("__weakref__",)

    def __repr__(self):
        return f"TraceTag({id(self):#x})"


class CallPrimitive(Primitive):
    """A primitive that calls a function: ``bind(fun, *args, **params)``
    applies ``fun`` (a callable or ``linear_util.WrappedFun``) to ``args``
    on the current trace, so each transformation sees its equations."""

    multiple_results = True
    call_primitive = True

    def __init__(self, name):
        super().__init__(name, multiple_results=True)

    def bind(self, fun, *args, **params):
        return call_impl(fun, *args, **params)


def call_impl(f, *args, **params):
    """``f(*args)`` for a callable or ``WrappedFun``; ``params`` are a call
    primitive's parameters, which do not change the result."""
    call = getattr(f, "call_wrapped", f)
    return call(*args)


# The concrete types accepted as arrays: NumPy arrays and scalar types.
array_types = frozenset(
    [np.ndarray, np.longlong, dtypes.bfloat16.type]
    + [np.dtype(c).type for c in "?bhilqBHILQefdFD"])


def valid_jaxtype(x):
    """Whether ``x`` can be an operand of a primitive (an array or scalar)."""
    try:
        core.get_aval(x)
    except (TypeError, OverflowError):
        return False
    return True


def primal_dtype_to_tangent_dtype(dtype):
    """The tangent dtype: ``float0`` for integers, booleans and keys."""
    return ad.tangent_dtype(dtype)


def mapped_aval(size, axis, aval):
    """``aval`` without its mapped axis ``axis`` (of size ``size``);
    ``axis=None`` leaves it unchanged."""
    if axis is None:
        return aval
    if aval.shape[axis] != size:
        raise ValueError(f"mapped axis {axis} of {aval} does not have size {size}")
    return batching.unbatched_aval(aval, axis)


def unmapped_aval(size, axis, aval, explicit_mesh_axis=None):
    """``aval`` with a new axis of ``size`` inserted at ``axis``."""
    if axis is None:
        return aval
    return batching.batched_aval(aval, size, axis)


def _trace_chain():
    t = core.current_trace()
    while t is not None:
        yield t
        t = t.parent


def find_top_trace(args):
    """The trace operations on ``args`` go to: the current trace."""
    return core.current_trace()


class OpaqueTraceState:
    """The current trace, to compare against later (``==``)."""

    __slots__ = ("_trace",)

    def __init__(self, trace):
        self._trace = weakref.ref(trace)

    def __eq__(self, other):
        return isinstance(other, OpaqueTraceState) and self._trace() is other._trace()

    def __hash__(self):
        return id(self._trace())


def get_opaque_trace_state(convention=None):
    """An object equal to another taken while the same trace is current."""
    return OpaqueTraceState(core.current_trace())


def unsafe_am_i_under_a_jit():
    """Whether a staging trace (``jit``, ``make_jaxpr``...) is active."""
    return any(isinstance(t, pe.DynamicJaxprTrace) for t in _trace_chain())


def unsafe_am_i_under_a_vmap():
    """Whether a batching trace (``vmap``) is active."""
    return any(isinstance(t, batching.BatchTrace) for t in _trace_chain())


def unsafe_get_axis_names():
    """The axis names bound by enclosing ``vmap(axis_name=...)`` etc."""
    return [name for name, _ in core._axis_env.names]


def nonempty_axis_env():
    """Whether any named axis is bound."""
    return bool(core._axis_env.names)


def gensym(suffix=""):
    """A function making fresh jaxpr variables: ``gensym()(aval) -> Var``."""
    return core.Var


def check_jaxpr(jaxpr):
    """Type-check ``jaxpr`` (a Jaxpr or ClosedJaxpr): every variable bound
    once before use, each equation's outputs the types its primitive's
    abstract evaluation gives.  ``JaxprTypeError`` otherwise (SPEC EXT-4)."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
    env = set()

    def bind(v, where):
        if v in env:
            raise errors.JaxprTypeError(f"Variable '{v}' already bound ({where})")
        env.add(v)

    def read(v, where):
        if isinstance(v, core.Literal):
            return v.aval
        if v not in env:
            raise errors.JaxprTypeError(f"Variable '{v}' not defined ({where})")
        return v.aval

    for v in jaxpr.constvars:
        bind(v, "constvar")
    for v in jaxpr.invars:
        bind(v, "invar")
    for i, eqn in enumerate(jaxpr.eqns):
        where = f"equation {i}: {eqn.primitive.name}"
        in_avals = [read(v, where) for v in eqn.invars]
        _check_eqn_types(eqn, in_avals, where)
        for v in eqn.outvars:
            if not isinstance(v, core.DropVar):
                bind(v, where)
        for sub in core.jaxprs_in_params(eqn.params):
            check_jaxpr(sub)
    for v in jaxpr.outvars:
        read(v, "outvars")


def _check_eqn_types(eqn, in_avals, where):
    rule = eqn.primitive.abstract_eval
    if rule is None:
        return
    out = rule(*in_avals, **eqn.params)
    outs = list(out) if eqn.primitive.multiple_results else [out]
    if len(outs) != len(eqn.outvars):
        raise errors.JaxprTypeError(
            f"{where} has {len(eqn.outvars)} outputs but its rule gives {len(outs)}")
    for v, a in zip(eqn.outvars, outs):
        if (v.aval.shape, v.aval.dtype) != (a.shape, a.dtype):
            raise errors.JaxprTypeError(
                f"{where}: output bound as {v.aval.str_short()} but the "
                f"primitive gives {a.str_short()}")


def max_dim(d1, d2):
    """The larger of two dimension sizes."""
    return max(d1, d2)


def min_dim(d1, d2):
    """The smaller of two dimension sizes."""
    return min(d1, d2)


ParamDict = typing.Dict[str, typing.Any]
Value = typing.Any


# ---------------------------------------------------------------------------
# Partial evaluation and dead-code elimination (SPEC EXT-5)
# ---------------------------------------------------------------------------

class PartialVal(tuple):
    """A value known now, ``(None, value)``, or unknown with a type,
    ``(aval, None)``."""

    def __new__(cls, pair):
        aval, const = pair
        if (aval is None) == (const is None):
            raise ValueError("a PartialVal is either known (None, value) or "
                             f"unknown (aval, None), got {pair!r}")
        return tuple.__new__(cls, (aval, const))

    @classmethod
    def known(cls, const):
        return cls((None, const))

    @classmethod
    def unknown(cls, aval):
        return cls((aval, None))

    def is_known(self):
        return self[0] is None

    def get_known(self):
        return self[1] if self[0] is None else None

    def get_aval(self):
        return core.get_aval(self[1]) if self[0] is None else self[0]


class JaxprTracer(core.Tracer):
    """JAX's tracer of its older (``JaxprTrace``) partial evaluator, kept
    for ``isinstance`` checks: refjax stages with ``DynamicJaxprTracer``
    only and never makes one of these."""

    __slots__ = ()


# Tables of rules that only make partial evaluation or DCE cheaper.  refjax
# records them but its own rules, which stage or keep whole equations, are
# always correct, so it does not consult them (SPEC EXT-5).
custom_partial_eval_rules = {}
partial_eval_jaxpr_custom_rules = {}
dce_rules = {}


def _flat_callable(fun):
    return getattr(fun, "call_wrapped", fun)


def trace_to_jaxpr_dynamic(fun, in_avals, *, keep_inputs=None, lower=False,
                           auto_dce=False):
    """``(jaxpr, out_avals, consts)`` for ``fun`` (flat lists in and out, a
    callable or ``WrappedFun``) traced on ``in_avals``; the jaxpr's
    constvars take ``consts``."""
    call = _flat_callable(fun)
    closed = pe.trace_to_jaxpr(lambda *xs: list(call(*xs)), list(in_avals))
    jaxpr = closed.jaxpr
    if keep_inputs is not None:
        jaxpr = jaxpr.replace(invars=[v for v, k in zip(jaxpr.invars, keep_inputs) if k])
    return jaxpr, [v.aval for v in jaxpr.outvars], list(closed.consts)


def trace_to_jaxpr_nounits(fun, pvals, instantiate=False):
    """Partially evaluate ``fun`` (flat lists) on ``pvals``: known inputs are
    computed with now, unknown ones staged.  Returns ``(jaxpr, out_pvals,
    consts)``; the jaxpr takes the consts (constvars) and the unknown
    inputs, and gives the unknown outputs (those flagged in
    ``instantiate`` included)."""
    call = _flat_callable(fun)
    staging = ad.PartialEvalTrace(None, core.current_trace())
    args = [staging.new_arg(pv[0]) if not pv.is_known() else pv[1] for pv in pvals]
    try:
        with core.set_current_trace(staging):
            outs = list(call(*args))
            inst = ((instantiate,) * len(outs) if isinstance(instantiate, bool)
                    else tuple(instantiate))
            unknown = [staging.is_unknown(o) or i for o, i in zip(outs, inst)]
            closed = staging.to_closed_jaxpr([o for o, u in zip(outs, unknown) if u])
    finally:
        staging.invalidate()
    out_pvals = [PartialVal.unknown(core.get_aval(o)) if u else PartialVal.known(o)
                 for o, u in zip(outs, unknown)]
    return closed.jaxpr, out_pvals, list(closed.consts)


def dce_jaxpr(jaxpr, used_outputs, instantiate=False):
    """``(jaxpr keeping only the used outputs and what they need,
    used_inputs)``.  Effectful equations are kept; inputs flagged in
    ``instantiate`` stay, and count as used (SPEC EXT-5)."""
    n_in, n_out = len(jaxpr.invars), len(jaxpr.outvars)
    used_outputs = (used_outputs,) * n_out if isinstance(used_outputs, bool) else used_outputs
    instantiate = (instantiate,) * n_in if isinstance(instantiate, bool) else instantiate
    outvars = [v for v, u in zip(jaxpr.outvars, used_outputs) if u]
    live = {v for v in outvars if type(v) is not core.Literal}
    eqns = []
    for eqn in reversed(jaxpr.eqns):
        if eqn.primitive.effectful or any(v in live for v in eqn.outvars):
            eqns.append(eqn)
            live.update(v for v in eqn.invars if type(v) is not core.Literal)
    eqns.reverse()
    used_inputs = [v in live or bool(i) for v, i in zip(jaxpr.invars, instantiate)]
    new = jaxpr.replace(invars=[v for v, u in zip(jaxpr.invars, used_inputs) if u],
                        outvars=outvars, eqns=eqns)
    return new, used_inputs


def dce_jaxpr_consts(jaxpr, used_outputs, instantiate=False):
    """As :func:`dce_jaxpr`, also dropping unused constvars: returns
    ``(jaxpr, used_consts, used_inputs)``."""
    n_c = len(jaxpr.constvars)
    as_args = jaxpr.replace(constvars=[], invars=jaxpr.constvars + jaxpr.invars)
    inst = instantiate if isinstance(instantiate, bool) else [False] * n_c + list(instantiate)
    new, used = dce_jaxpr(as_args, used_outputs, inst)
    used_consts, used_inputs = used[:n_c], used[n_c:]
    kept = new.invars
    n_kept_c = sum(used_consts)
    new = new.replace(constvars=kept[:n_kept_c], invars=kept[n_kept_c:])
    return new, used_consts, used_inputs


def _dce_call_rule(param, closed):
    def rule(used_outputs, eqn):
        if not any(used_outputs) and not eqn.primitive.effectful:
            return [False] * len(eqn.invars), None
        held = eqn.params[param]
        jaxpr = held.jaxpr if closed else held
        new, used_inputs = dce_jaxpr(jaxpr, used_outputs)
        new = core.ClosedJaxpr(new, held.consts) if closed else new
        outvars = [v for v, u in zip(eqn.outvars, used_outputs) if u]
        invars = [v for v, u in zip(eqn.invars, used_inputs) if u]
        return used_inputs, eqn.replace(invars=invars, outvars=outvars,
                                        params=dict(eqn.params, **{param: new}))
    return rule


dce_jaxpr_call_rule = _dce_call_rule("call_jaxpr", closed=False)
dce_jaxpr_call_rule.__doc__ = (
    "DCE of an equation holding a Jaxpr in ``call_jaxpr``: ``(used_outputs, "
    "eqn) -> (used_inputs, new eqn or None)``.")
dce_jaxpr_closed_call_rule = _dce_call_rule("call_jaxpr", closed=True)
dce_jaxpr_closed_call_rule.__doc__ = (
    "As ``dce_jaxpr_call_rule`` for a ClosedJaxpr in ``call_jaxpr``.")
