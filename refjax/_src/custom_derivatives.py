"""``custom_jvp`` and ``custom_vjp``: user-written derivative rules.

Outside any transformation a decorated function just runs.  Under a trace
it is bound as one primitive holding the function's jaxpr and the user's
rules (SPEC AD-65, AD-67):

* ``custom_jvp_call``: evaluation runs the jaxpr; its JVP rule calls the
  user's ``jvp(primals, tangents)``;
* ``custom_vjp_call``: evaluation runs the jaxpr; its JVP rule (reached
  only while linearizing) runs the user's ``fwd`` now and stages a
  ``custom_lin`` equation on the tangents, whose transpose calls ``bwd``.
"""
import dataclasses
import functools
import inspect

import numpy as np

from refjax._src import api, config, core, errors, placement, tree_util
from refjax._src.api import def_call
from refjax._src.core import Primitive
from refjax._src.interpreters import ad, batching
from refjax._src.interpreters import partial_eval as pe
from refjax._src.interpreters.ad import Zero

# Rules written with ``symbolic_zeros=True`` receive these for zero tangents.
SymbolicZero = Zero


class _WrappedCall:
    """A function held by a custom-derivative equation, callable as JAX's
    ``WrappedFun``: ``f.call_wrapped(*args)`` or ``f(*args)``."""

    def __init__(self, fun):
        self.f = fun

    def call_wrapped(self, *args):
        return self.f(*args)

    __call__ = call_wrapped


class _CustomCallPrimitive(Primitive):
    """``custom_jvp_call``/``custom_vjp_call``: ``get_bind_params`` adds
    JAX's ``subfuns`` (the function, as a ``WrappedFun``-like callable of
    every operand, then the rules), which ``bind`` accepts and ignores, as
    the other parameters hold the same functions (SPEC EXT-17)."""

    def get_bind_params(self, params):
        fun = _WrappedCall(core.jaxpr_as_fun(params["call_jaxpr"]))
        if "jvp_jaxpr_fun" in params:
            def jvp(*xs):
                half = len(xs) // 2
                outs, touts = _custom_jvp_call_jvp(xs[:half], xs[half:], **params)
                return [*outs, *touts]
            rules = (_WrappedCall(jvp),)
        else:
            rules = (params["fwd"], params["bwd"])
        return dict(params, subfuns=(fun, *rules))

    def bind(self, *args, subfuns=None, **params):
        return super().bind(*args, **params)


def _resolve_kwargs(fun, args, kwargs, kind="custom_jvp"):
    """Keyword arguments moved into their positions (custom rules see
    positional arguments only).  A call that does not bind to ``fun``'s
    signature, or passes a keyword-only argument, is a ``TypeError``
    naming the ``kind`` of decorator (SPEC CDR-10); a ``functools.partial``
    has an opaque signature, as in JAX (its bound keywords stay bound)."""
    try:
        if kwargs and isinstance(fun, functools.partial):
            raise TypeError("The following keyword arguments could not be resolved "
                            f"to positions: {', '.join(kwargs)}")
        return _bind_positionally(fun, args, kwargs)
    except TypeError as e:
        raise TypeError(
            f"The input arguments to the {kind}-decorated function "
            f"{_function_name(fun)} could not be resolved to positional-only "
            f"arguments. Binding failed with the error:\n{e}") from e


def _bind_positionally(fun, args, kwargs):
    if isinstance(fun, functools.partial):
        return args
    try:
        sig = inspect.signature(fun)
    except (TypeError, ValueError):
        return args
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    passed = [k for k in bound.kwargs if k in kwargs]
    if passed:
        raise TypeError("The following keyword arguments could not be resolved "
                        f"to positions: {', '.join(passed)}")
    return bound.args


def _split_static(args, nondiff_argnums):
    static = [args[i] for i in nondiff_argnums]
    dyn = [a for i, a in enumerate(args) if i not in nondiff_argnums]
    return static, dyn


def _merge_static(static, dyn, nondiff_argnums):
    """The full argument list: ``static[k]`` at position ``nondiff_argnums[k]``
    (in any order), the ``dyn`` values filling the other positions."""
    n = len(static) + len(dyn)
    by_position = dict(zip(nondiff_argnums, static))
    dyn_it = iter(dyn)
    return [by_position[i] if i in by_position else next(dyn_it) for i in range(n)]


def _nondiff_positions(nondiff_argnums, n):
    """The positions ``nondiff_argnums`` name among ``n`` arguments, in
    increasing order (the order the rules receive those arguments in): a
    negative index counts from the end and a repeat counts once, as in JAX
    (SPEC AD-91).  A non-integer raises ``TypeError``; an
    index out of range ``ValueError`` (JAX lets an ``IndexError`` escape)."""
    positions = []
    for i in nondiff_argnums:
        if not isinstance(i, (int, np.integer)):
            raise TypeError(f"nondiff_argnums must be integers; got {i!r} in "
                            f"nondiff_argnums={nondiff_argnums}")
        if not -n <= i < n:
            raise ValueError(
                f"nondiff_argnums={nondiff_argnums} names argument {i}, but the "
                f"function was called with {n} positional arguments; name only "
                "positions of arguments the function is called with.")
        positions.append(int(i) % n)
    return tuple(sorted(set(positions)))


def _trace_fun(fun, dyn_args, name):
    return pe.trace_pytree_fun(fun, dyn_args, core.DebugInfo(
        "custom derivative", name, None))


def _function_name(fn):
    if isinstance(fn, functools.partial):
        return _function_name(fn.func)
    return getattr(fn, "__name__", repr(fn))


class _Rule:
    """A user's rule held in an equation's params; prints as its name."""

    def __init__(self, fn, static, in_tree, out_tree):
        self.fn, self.static, self.in_tree, self.out_tree = fn, static, in_tree, out_tree
        self.out_avals = None   # the function's output types, when traced
        # The vmap trace current where the function was called, if any.
        trace = core.current_trace()
        self.batch_trace = trace if isinstance(trace, batching.BatchTrace) else None

    def __str__(self):
        return _function_name(self.fn)

    __repr__ = __str__


def _forward_def_method(obj, name):
    """A ``def*`` attribute the decorator lacks, taken from the function it
    wraps (a stacked ``custom_vmap``/``custom_jvp``/``custom_vjp``), as JAX
    forwards it (SPEC CDR-11).  ``fun`` is read from ``__dict__`` so that a
    half-built object cannot recurse."""
    fun = obj.__dict__.get("fun")
    if name.startswith("def") and fun is not None:
        return getattr(fun, name)
    raise AttributeError(f"{type(obj).__name__!r} object has no attribute {name!r}")


def _runs_directly(args):
    """Whether a custom-derivative function called on ``args`` just runs,
    as a plain Python function, on concrete values (SPEC CDR-12): eagerly,
    in an ``ensure_compile_time_eval`` block on non-tracers, and where
    linearization computes known (primal) values now -- e.g. a JVP rule
    calling the function it differentiates.  Python control flow on the
    arguments then works, as in JAX."""
    leaves = tree_util.tree_leaves(args)
    trace = core.current_trace()
    while isinstance(trace, ad.PartialEvalTrace):
        if any(trace.is_unknown(x) for x in leaves):
            return False
        trace = trace.parent
    if trace is core.eval_trace:
        return True
    return (isinstance(trace, core.CompileTimeEvalTrace)
            and not any(isinstance(x, core.Tracer) for x in leaves))


def _all_known(trace, args):
    """Whether ``trace`` is linearization's partial evaluation and every
    argument is known: the call then belongs to the enclosing trace, which
    under a JVP calls only the rule, never the function (SPEC CDR-21)."""
    return isinstance(trace, ad.PartialEvalTrace) and not any(
        trace.is_unknown(x) for x in tree_util.tree_leaves(args))


def _aval_type_str(aval):
    return aval.strip_weak_type().str_short()


# ---------------------------------------------------------------------------
# custom_jvp
# ---------------------------------------------------------------------------

def _nondiff_argnums(fun, argnums, argnames):
    """``nondiff_argnums`` together with the positions of the parameters
    named in ``nondiff_argnames``, sorted; a name ``fun`` has no positional
    parameter for is ignored, as in JAX (SPEC AD-95)."""
    positions = set(argnums)
    if argnames:
        names = [argnames] if isinstance(argnames, str) else list(argnames)
        params = list(inspect.signature(fun).parameters.values())
        positions.update(i for i, p in enumerate(params)
                         if p.name in names and p.kind in (p.POSITIONAL_ONLY,
                                                            p.POSITIONAL_OR_KEYWORD))
    return tuple(sorted(positions))


class custom_jvp:
    """A function with a JVP rule written by hand (SPEC AD-65).

    ``@custom_jvp`` then ``@f.defjvp`` a ``jvp(primals, tangents) ->
    (primal_out, tangent_out)``; ``nondiff_argnums`` name arguments passed
    to the rule first, undifferentiated.  Reverse mode comes for free by
    transposing the rule's linear tangent computation."""

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = _nondiff_argnums(fun, nondiff_argnums, nondiff_argnames)
        self.jvp = None
        self.symbolic_zeros = False

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return tree_util.Partial(self, obj)

    def __getattr__(self, name):
        return _forward_def_method(self, name)

    def defjvp(self, jvp, symbolic_zeros=False):
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps):
        """One rule per argument: ``jvps[i](t_i, primal_out, *primals)``
        gives that argument's part of the output tangent (None: no part)."""
        def jvp(primals, tangents):
            if len(jvps) != len(primals):
                # One rule (or None) per differentiable argument (AD-91).
                raise ValueError(
                    f"defjvps got {len(jvps)} rules for a function of "
                    f"{len(primals)} differentiable arguments; give one per "
                    "argument, None for an argument without one.")
            out = self(*primals)
            parts = [fn(t, out, *primals) for fn, t in zip(jvps, tangents)
                     if fn is not None]
            total = functools.reduce(
                lambda a, b: tree_util.tree_map(lambda x, y: x + y, a, b), parts)
            return out, total
        self.defjvp(jvp)

    def __call__(self, *args, **kwargs):
        name = _function_name(self.fun)
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {name} "
                                 "using defjvp.")
        args = _resolve_kwargs(self.fun, args, kwargs)
        nondiff = _nondiff_positions(self.nondiff_argnums, len(args))
        if _runs_directly(args):
            return self.fun(*args)
        trace = core.current_trace()
        if _all_known(trace, args):
            with core.set_current_trace(trace.parent):
                return self(*args)
        static, dyn = _split_static(args, nondiff)
        if isinstance(trace, ad.JVPTrace):
            return self._differentiate(trace, static, dyn, name, nondiff)
        fun = lambda *d: self.fun(*_merge_static(static, d, nondiff))  # noqa: E731
        found = []
        closed, consts, leaves, in_tree, out_tree = _trace_fun(
            api.ref_hooks.discover(fun, found, "custom_jvp"), dyn, name)
        if found:
            return _unstaged_with_refs(self.fun, args, "custom_jvp_call")
        rule = _Rule(self.jvp, static, in_tree, out_tree)
        rule.out_avals = closed.out_avals
        outs = custom_jvp_call_p.bind(*consts, *leaves, name=name, call_jaxpr=closed,
                                      jvp_jaxpr_fun=rule, num_consts=len(consts),
                                      symbolic_zeros=self.symbolic_zeros)
        return tree_util.tree_unflatten(out_tree, outs)

    def _differentiate(self, trace, static, dyn, name, nondiff):
        """Under a JVP trace the rule runs directly, without tracing the
        function first (JAX calls only the rule)."""
        leaves, in_tree = tree_util.tree_flatten(tuple(dyn))
        pairs = [trace.to_primal_tangent(x) for x in leaves]
        primals = [p for p, _ in pairs]
        with core.set_current_trace(trace.parent):
            if all(type(t) is Zero for _, t in pairs):
                return self(*_merge_static(
                    static, tree_util.tree_unflatten(in_tree, primals), nondiff))
            rule = _Rule(self.jvp, static, in_tree, None)
            out_p, out_t, out_tree = _apply_jvp_rule(
                rule, name, primals, [t for _, t in pairs], self.symbolic_zeros)
        return tree_util.tree_unflatten(out_tree, [trace.new(p, t)
                                                   for p, t in zip(out_p, out_t)])


custom_jvp_call_p = _CustomCallPrimitive("custom_jvp_call", multiple_results=True)
custom_jvp_call_p.sharding_rule = placement.call_sharding_rule("call_jaxpr")
custom_jvp_call_p.def_abstract_eval(lambda *avals, call_jaxpr, **_: call_jaxpr.out_avals)


def_call(custom_jvp_call_p, "call_jaxpr")


def _pp_custom_call(eqn, context):
    """``name`` first, then the rest sorted; ``num_consts`` only when non-zero
    and the JVP rule shown as ``jvp`` (JXP-1)."""
    params = dict(eqn.params)
    if not params.get("num_consts"):
        del params["num_consts"]
    if "jvp_jaxpr_fun" in params:
        params["jvp"] = params.pop("jvp_jaxpr_fun")
    del params["name"]
    return core.pp_eqn_with_params(eqn, context, dict(params, name=eqn.params["name"]),
                                   ["name"] + sorted(params))


custom_jvp_call_p.pp_rule = _pp_custom_call


def _closed_over_error(name):
    return errors.UnexpectedTracerError(
        f"Detected differentiation of the custom_jvp function {name} with respect "
        "to a value it closes over. The custom JVP rule only says how to "
        "differentiate with respect to explicit arguments: pass the closed-over "
        "value in as an argument and extend the rule.")


def _custom_jvp_call_jvp(primals, tangents, *, name, call_jaxpr, jvp_jaxpr_fun,
                         num_consts, symbolic_zeros):
    if any(type(t) is not Zero for t in tangents[:num_consts]):
        raise _closed_over_error(name)
    out_p, out_t, _ = _apply_jvp_rule(jvp_jaxpr_fun, name, primals[num_consts:],
                                      tangents[num_consts:], symbolic_zeros)
    return out_p, out_t


def _apply_jvp_rule(rule, name, primals, tangents, symbolic_zeros):
    """Call the user's rule on flat primals and tangents; check and flatten
    what it returns: (primal leaves, tangent leaves, output tree)."""
    if not symbolic_zeros:
        tangents = [ad.instantiate_zeros(t) for t in tangents]
    p_args = tree_util.tree_unflatten(rule.in_tree, primals)
    t_args = tree_util.tree_unflatten(rule.in_tree, tangents)
    result = rule.fn(*rule.static, p_args, t_args)
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise TypeError(f"Custom JVP rule {rule} for function {name} must produce a "
                        "pair (list or tuple of length two) representing primal and "
                        f"tangent outputs, but got {result}.")
    out_p, p_tree = tree_util.tree_flatten(result[0])
    out_t, t_tree = tree_util.tree_flatten(result[1], is_leaf=lambda x: type(x) is Zero)
    if p_tree != t_tree:
        raise TypeError(f"Custom JVP rule {rule} for function {name} must produce "
                        "primal and tangent outputs with equal container (pytree) "
                        f"structures, but got {p_tree} and {t_tree} respectively.")
    _check_primal_out("JVP rule", rule, name, out_p, p_tree)
    out_t = [_symbolic_if_float0(p, t) for p, t in zip(out_p, out_t)]
    for p, t in zip(out_p, out_t):
        _check_tangent_type(p, t)
    return out_p, out_t, p_tree


# JAX's wording of a rule whose primal output differs from the function's:
# (opening, what the "in particular" clause says for a structure and for a
# type mismatch), per kind of rule.
_PAIR_MESSAGES = {
    "JVP rule": (
        "Custom JVP rule {rule} for function {name} must produce a pair (list or "
        "tuple of length two) where the first element represents the primal output "
        "(equal in value to the output of the custom_jvp-decorated function {name}, "
        "and in particular ",
        "of the same container/pytree structure), but ",
        "with leaves of the same shape/dtype), but "),
    "fwd rule": (
        "Custom VJP fwd rule {rule} for function {name} must produce a pair (list "
        "or tuple of length two) where the first element represents the primal "
        "output (equal to the output of the custom_vjp-decorated function {name}) "
        "and the second element represents residuals (i.e. values stored from the "
        "forward pass for use on the backward pass), but ", "", ""),
}


def _type_tree(tree, avals):
    return str(tree_util.tree_unflatten(tree, [_aval_type_str(a) for a in avals])
               ).replace("'", "")


def _check_primal_out(kind, rule, name, out_leaves, out_tree):
    """A rule's primal output must have the function's structure and leaf
    types (weak types aside), when the function was traced (SPEC CDR-18)."""
    if rule.out_tree is None or rule.out_avals is None:
        return
    got = [core.get_aval(x) for x in out_leaves]
    opening, on_tree, on_types = _PAIR_MESSAGES[kind]
    opening = opening.format(rule=rule, name=name)
    fun_kind = "custom_jvp" if kind == "JVP rule" else "custom_vjp"
    want = _type_tree(rule.out_tree, rule.out_avals)
    if out_tree != rule.out_tree:
        raise TypeError(
            f"{opening}{on_tree}instead the {kind} output's first element had "
            f"container/pytree structure:\n    {_type_tree(out_tree, got)}\nwhile "
            f"the {fun_kind}-decorated function {name} had output container/pytree "
            f"structure:\n    {want}.")
    if any(not _same_type(a, b) for a, b in zip(got, rule.out_avals)):
        raise TypeError(
            f"{opening}{on_types}instead the {kind} output's first element had "
            f"shapes/dtypes of:\n    {_type_tree(out_tree, got)}\nwhile the "
            f"{fun_kind}-decorated function {name} had output shapes/dtypes of:\n"
            f"    {want}")


def _same_type(a, b):
    return a.shape == b.shape and a.dtype == b.dtype


def _check_fwd_out_vjp3(fwd, name, out_leaves, out_tree):
    """With ``jax_custom_vjp3`` on, JAX words the fwd output checks so."""
    if fwd.out_tree is None or fwd.out_avals is None:
        return
    if out_tree != fwd.out_tree:
        _check_primal_out("fwd rule", fwd, name, out_leaves, out_tree)
    paths = tree_util.tree_flatten_with_path(
        tree_util.tree_unflatten(out_tree, out_leaves))[0]
    for (path, x), want in zip(paths, fwd.out_avals):
        got = core.get_aval(x)
        if not _same_type(got, want):
            raise TypeError(
                f"at {tree_util.keystr(path)}, got fwd output type "
                f"{_aval_type_str(got)} which doesn't match primal output type "
                f"{_aval_type_str(want)}")


def _symbolic_if_float0(primal, tangent):
    """A ``float0`` array returned as a tangent is a zero (rules write
    ``np.zeros(shape, float0)`` for integer outputs)."""
    if getattr(tangent, "dtype", None) == ad.float0:
        return Zero.from_primal_value(primal)
    return tangent


def _check_tangent_type(primal, tangent):
    expected = ad.tangent_aval(core.get_aval(primal))
    got = tangent.aval if type(tangent) is Zero else core.get_aval(tangent)
    if got.shape != expected.shape or got.dtype != expected.dtype:
        raise TypeError(
            "Custom JVP rule must produce primal and tangent outputs with "
            f"corresponding shapes and dtypes. Expected {_aval_type_str(expected)} "
            f"(tangent type of {_aval_type_str(core.get_aval(primal))}) but got "
            f"{_aval_type_str(got)}.")


custom_jvp_call_p.jvp = _custom_jvp_call_jvp


def _custom_jvp_call_transpose(cts, *args, call_jaxpr, **params):
    """Reached when a JVP rule applies a custom_jvp function to tangents:
    transpose the function's jaxpr in place."""
    return ad.backward_pass(call_jaxpr.jaxpr, call_jaxpr.consts, list(args), cts)


custom_jvp_call_p.transpose = _custom_jvp_call_transpose


# ---------------------------------------------------------------------------
# custom_vjp
# ---------------------------------------------------------------------------

class custom_vjp:
    """A function with a hand-written VJP (SPEC AD-67).

    ``f.defvjp(fwd, bwd)``: ``fwd(*args) -> (out, residuals)`` runs on the
    forward pass; ``bwd(*nondiff_args, residuals, ct_out)`` returns a tuple
    with one cotangent (or None) per differentiable argument."""

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = _nondiff_argnums(fun, nondiff_argnums, nondiff_argnames)
        self.fwd = None
        self.bwd = None
        self.symbolic_zeros = False
        self.optimize_remat = False

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return tree_util.Partial(self, obj)

    def __getattr__(self, name):
        return _forward_def_method(self, name)

    def defvjp(self, fwd, bwd, symbolic_zeros=False, optimize_remat=False):
        """Set the rules.  ``symbolic_zeros``: ``fwd`` sees each argument
        leaf as a :class:`CustomVJPPrimal` and ``bwd`` sees zero output
        cotangents as ``SymbolicZero`` (SPEC CDR-3); ``optimize_remat``:
        the forward pass is one ``remat_opt`` equation (SPEC CDR-4)."""
        self.fwd = fwd
        self.bwd = bwd
        self.symbolic_zeros = symbolic_zeros
        self.optimize_remat = optimize_remat
        if symbolic_zeros and optimize_remat:
            raise NotImplementedError(
                "remat optimization for custom_vjp does not support symbolic zeros")

    def __call__(self, *args, **kwargs):
        name = _function_name(self.fun)
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {name} "
                                 "using defvjp.")
        args = _resolve_kwargs(self.fun, args, kwargs, "custom_vjp")
        nondiff = _nondiff_positions(self.nondiff_argnums, len(args))
        if _runs_directly(args):
            return self.fun(*args)
        if _all_known(core.current_trace(), args):
            with core.set_current_trace(core.current_trace().parent):
                return self(*args)
        static, dyn = _split_static(args, nondiff)
        if any(isinstance(x, core.Tracer) for x in tree_util.tree_leaves(static)):
            raise errors.UnexpectedTracerError(_NONDIFF_TRACER)
        trace = core.current_trace()
        vjp3 = config.states["jax_custom_vjp3"].value
        if isinstance(trace, ad.JVPTrace) and not vjp3:
            return self._differentiate(trace, static, dyn, name, nondiff)
        fun = lambda *d: self.fun(*_merge_static(static, d, nondiff))  # noqa: E731
        found = []
        closed, consts, leaves, in_tree, out_tree = _trace_fun(
            api.ref_hooks.discover(fun, found, "custom_vjp"), dyn, name)
        if vjp3:
            _refuse_closed_over_tracers(self.fun, consts)
        fwd, bwd = self._rules(static, nondiff, in_tree, out_tree)
        fwd.out_avals = closed.out_avals
        params = dict(name=name, call_jaxpr=closed, fwd=fwd, bwd=bwd,
                      num_consts=len(consts), symbolic_zeros=self.symbolic_zeros)
        if found and isinstance(trace, ad.JVPTrace):
            outs = _vjp_rules_now(trace, [*consts, *leaves], params)
        elif found:
            return _unstaged_with_refs(self.fun, args, "custom_vjp_call")
        else:
            outs = custom_vjp_call_p.bind(*consts, *leaves, **params)
        return tree_util.tree_unflatten(out_tree, outs)

    def _rules(self, static, nondiff, in_tree, out_tree):
        """The fwd and bwd rules as equation parameters; ``out_tree`` is
        None when the function was not traced (then fwd's output sets it)."""
        fwd_fn = self.fwd
        if self.optimize_remat:
            fwd_fn = _remat_optimized_fwd(self.fun, self.fwd, nondiff)
        fwd = _Rule(fwd_fn, static, in_tree, out_tree)
        fwd.nondiff_argnums = nondiff
        return fwd, _Rule(self.bwd, static, in_tree, out_tree)

    def _differentiate(self, trace, static, dyn, name, nondiff):
        """Under a JVP trace ``fwd`` runs directly, on the primal values,
        without tracing the function (SPEC CDR-12): as in JAX, the function
        itself is never called when its derivative is taken."""
        leaves, in_tree = tree_util.tree_flatten(tuple(dyn))
        pairs = [trace.to_primal_tangent(x) for x in leaves]
        primals, tangents = [p for p, _ in pairs], [t for _, t in pairs]
        with core.set_current_trace(trace.parent):
            if all(type(t) is Zero for t in tangents):
                return self(*_merge_static(
                    static, tree_util.tree_unflatten(in_tree, primals), nondiff))
            fwd, bwd = self._rules(static, nondiff, in_tree, None)
            outs, lin = _custom_vjp_call_jvp(
                primals, tangents, name=name, call_jaxpr=None, fwd=fwd, bwd=bwd,
                num_consts=0, symbolic_zeros=self.symbolic_zeros)
        return tree_util.tree_unflatten(bwd.out_tree, [trace.new(p, t)
                                                      for p, t in zip(outs, lin)])


def _refuse_closed_over_tracers(fun, consts):
    """With ``jax_custom_vjp3`` on, a custom_vjp function may not close over
    a tracer (an enclosing transformation's value): JAX's error (SPEC CDR-13)."""
    t = next((c for c in consts if isinstance(c, core.Tracer)), None)
    if t is not None:
        raise errors.UnexpectedTracerError(
            f"custom_vjp-decorated function {fun} closed over a {type(t).__name__} "
            f"of type {t.aval.str_short()}, but custom_vjp functions can't close "
            f"over Tracers. Rewrite {fun} to take it as an explicit input.")


def _unstaged_with_refs(fun, args, prim_name):
    """A custom-derivative function reaching ``jax.Ref``s from outside
    outside differentiation: under ``vmap``s only it runs as is (its rule
    cannot be needed); staged, refjax refuses it, with JAX's error for
    ``custom_jvp`` under ``jit`` (SPEC EXT-12)."""
    if api.ref_hooks.only_vmapped():
        return fun(*args)
    if prim_name == "custom_jvp_call":
        raise NotImplementedError(
            "No state discharge rule implemented for primitive: custom_jvp_call "
            "(a custom_jvp function reaching a jax.Ref from outside cannot be "
            "staged by jit, make_jaxpr, a loop, cond or checkpoint in refjax)")
    raise TypeError(
        "refjax cannot stage a custom_vjp function that reaches a jax.Ref from "
        "outside (under jit, make_jaxpr, a loop, cond or checkpoint); call it "
        "eagerly, under grad or vmap, or pass the value r[...] in as an argument.")


def _vjp_rules_now(trace, leaves, params):
    """A ``custom_vjp`` function reaching ``jax.Ref``s, differentiated: its
    ``fwd`` runs now and its ``bwd`` on the backward pass, each reading and
    writing the Refs then, as in JAX (SPEC EXT-12)."""
    pairs = [trace.to_primal_tangent(x) for x in leaves]
    with core.set_current_trace(trace.parent):
        outs, lin = _custom_vjp_call_jvp([p for p, _ in pairs], [t for _, t in pairs],
                                         **params)
    return [trace.new(p, t) for p, t in zip(outs, lin)]


custom_vjp_call_p = _CustomCallPrimitive("custom_vjp_call", multiple_results=True)
custom_vjp_call_p.sharding_rule = placement.call_sharding_rule("call_jaxpr")
custom_vjp_call_p.def_abstract_eval(lambda *avals, call_jaxpr, **_: call_jaxpr.out_avals)
def_call(custom_vjp_call_p, "call_jaxpr")
custom_vjp_call_p.pp_rule = _pp_custom_call

_NONDIFF_TRACER = (
    "Found a JAX Tracer object passed as an argument to a custom_vjp function in a "
    "position indicated by nondiff_argnums as non-differentiable. Tracers cannot be "
    "passed as non-differentiable arguments to custom_vjp functions; instead, "
    "nondiff_argnums should only be used for arguments that can't be or contain JAX "
    "tracers, e.g. function-valued arguments. In particular, array-valued arguments "
    "should typically not be indicated as nondiff_argnums.")
_NO_FORWARD_MODE = "can't apply forward-mode autodiff (jvp) to a custom_vjp function."


def _custom_vjp_call_jvp(primals, tangents, *, name, call_jaxpr, fwd, bwd,
                         num_consts, symbolic_zeros):
    """Run ``fwd`` now; the output tangents are a ``custom_lin`` of the
    input tangents, which only reverse mode can evaluate (forward mode
    fails when the ``custom_lin`` equation is evaluated)."""
    if any(type(t) is not Zero for t in tangents[:num_consts]):
        raise errors.UnexpectedTracerError(
            f"The custom_vjp function {name} closes over a value being "
            "differentiated; pass it in as an argument instead.")
    primals, tangents = primals[num_consts:], tangents[num_consts:]
    args = _merge_static(fwd.static, tree_util.tree_unflatten(
        fwd.in_tree, _fwd_leaves(primals, tangents, symbolic_zeros)), fwd.nondiff_argnums)
    result = fwd.fn(*args)
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise TypeError(
            f"Custom VJP fwd rule {fwd} for function {name} must produce a pair (list "
            "or tuple of length two) where the first element represents the primal "
            f"output (equal to those of the custom_vjp-decorated function {name}) and "
            "the second element represents residuals (i.e. values stored from the "
            "forward pass for use on the backward pass), but instead of a pair the "
            f"fwd rule {fwd} produced {result}.")
    out, res = result
    out_leaves, out_tree = tree_util.tree_flatten(out)
    if fwd.out_tree is None:
        fwd.out_tree = bwd.out_tree = out_tree
    elif config.states["jax_custom_vjp3"].value:
        _check_fwd_out_vjp3(fwd, name, out_leaves, out_tree)
    else:
        _check_primal_out("fwd rule", fwd, name, out_leaves, out_tree)
    res_leaves, res_tree = tree_util.tree_flatten(res)
    out_avals = [ad.tangent_aval(core.get_aval(o)) for o in out_leaves]
    in_avals = [ad.tangent_aval(core.get_aval(p)) for p in primals]
    in_zeros = [type(t) is Zero for t in tangents]
    lin = custom_lin_p.bind(*res_leaves, *[t for t in tangents if type(t) is not Zero],
                            num_res=len(res_leaves), bwd=bwd, res_tree=res_tree,
                            out_avals=tuple(out_avals), in_avals=tuple(in_avals),
                            in_zeros=in_zeros, symbolic_zeros=symbolic_zeros)
    return out_leaves, lin


custom_vjp_call_p.jvp = _custom_vjp_call_jvp


@dataclasses.dataclass(slots=True)
class CustomVJPPrimal:
    """One argument leaf as a ``symbolic_zeros`` fwd rule sees it: its
    ``value``, and whether it is ``perturbed`` (has a non-zero tangent)
    (SPEC CDR-3)."""
    value: object
    perturbed: bool


def _fwd_leaves(primals, tangents, symbolic_zeros):
    if not symbolic_zeros:
        return primals
    return [CustomVJPPrimal(p, type(t) is not Zero) for p, t in zip(primals, tangents)]


def custom_vjp_primal_tree_values(tree):
    """``tree`` with each :class:`CustomVJPPrimal` leaf replaced by its
    value; any other leaf is a ``TypeError`` (SPEC CDR-3)."""
    def value(leaf):
        if type(leaf) is not CustomVJPPrimal:
            raise TypeError(f"unexpected leaf type {type(leaf)}")
        return leaf.value
    return tree_util.tree_map(value, tree)


def zero_from_primal(val, symbolic_zeros=False):
    """A zero tangent for each leaf of ``val``: an array of the tangent
    type (``float0`` for integers), or a ``SymbolicZero`` of that type
    when ``symbolic_zeros`` (SPEC CDR-3)."""
    def zero(x):
        aval = ad.tangent_aval(core.get_aval(x))
        return SymbolicZero(aval) if symbolic_zeros else ad.zeros_like_aval(aval)
    return tree_util.tree_map(zero, val)

custom_lin_p = Primitive("custom_lin", multiple_results=True)
custom_lin_p.def_abstract_eval(lambda *avals, out_avals, **_: list(out_avals))


@custom_lin_p.def_impl
def _custom_lin_impl(*args, **params):
    raise TypeError(_NO_FORWARD_MODE)


# Only forward mode (``jacfwd`` pushes a batch of tangents) reaches it here.
custom_lin_p.batch = lambda axis_data, vals, dims, **params: _custom_lin_impl()
custom_lin_p.not_supported("jvp", "undefined in JAX: custom_lin stands for a custom_vjp "
                           "bwd in a linearized program; JAX defines no JVP for it")


def _custom_lin_transpose(cts, *args, num_res, bwd, res_tree, out_avals, in_avals,
                          in_zeros, symbolic_zeros):
    """``bwd`` on the output cotangents; inputs whose tangent was a
    symbolic zero take no operand and get no cotangent (SPEC CDR-19)."""
    res = tree_util.tree_unflatten(res_tree, args[:num_res])
    if not symbolic_zeros:
        cts = [ad.instantiate_zeros(c) for c in cts]
    ct_out = tree_util.tree_unflatten(bwd.out_tree, cts)
    cts_in = bwd.fn(*bwd.static, res, ct_out)
    cts_in = _check_bwd_output(cts_in, bwd, in_avals)
    return [None] * num_res + [c for c, z in zip(cts_in, in_zeros) if not z]


def _pp_custom_lin(eqn, context):
    """JAX's layout: the rule, which inputs are zero, the residual count."""
    names = ["bwd", "in_zeros", "num_res", "symbolic_zeros"]
    return core.pp_eqn_with_params(eqn, context, eqn.params, names)


custom_lin_p.pp_rule = _pp_custom_lin


def _check_bwd_output(cts_in, bwd, in_avals):
    """The bwd result, one cotangent per input leaf (None -> zero)."""
    expected = tree_util.tree_structure(tree_util.tree_unflatten(
        bwd.in_tree, [0] * len(in_avals)))
    if isinstance(cts_in, list) and len(cts_in) == len(tree_util.treedef_children(expected)):
        cts_in = tuple(cts_in)   # a list of one cotangent per argument, as JAX allows
    if not isinstance(cts_in, tuple):
        got = tree_util.tree_structure(cts_in, is_leaf=lambda x: x is None)
        raise TypeError(_bwd_structure_msg(got, expected))
    try:
        leaves = _flatten_with_none(expected, cts_in)
    except (ValueError, TypeError):
        got = tree_util.tree_structure(cts_in, is_leaf=lambda x: x is None)
        raise TypeError(_bwd_structure_msg(got, expected)) from None
    out = []
    checks = not config.states["jax_disable_bwd_checks"].value
    for i, (ct, aval) in enumerate(zip(leaves, in_avals)):
        if ct is None:
            out.append(Zero(aval))
            continue
        if type(ct) is Zero:
            _check_symbolic_zero_ct(i, ct, aval)
            out.append(Zero(aval))
            continue
        got = core.get_aval(ct)
        if checks and got.shape != aval.shape:
            raise ValueError(
                "Custom VJP bwd rule must produce an output with the same type as the "
                f"args tuple of the primal function, but at output[{i}] the bwd rule "
                f"produced an output of type {_aval_type_str(got)} corresponding to "
                f"an input of type {_aval_type_str(aval)}, so the shapes do not match")
        out.append(ct)
    return out


def _check_symbolic_zero_ct(i, ct, aval):
    if ct.aval.shape != aval.shape or ct.aval.dtype != aval.dtype:
        raise ValueError(
            "Custom VJP bwd rule produced a SymbolicZero with a shape/dtype that "
            "does not match the corresponding input tangent shape/dtype: at "
            f"output[{i}] the SymbolicZero had shape/dtype {ct.aval.str_short()} "
            f"while the corresponding input had shape/dtype {aval.str_short()}. "
            "Consider just returning a None here instead of a SymbolicZero object.")


def _flatten_with_none(expected, cts_in):
    """Leaves of ``cts_in`` matched to ``expected``: a None stands for a
    whole zero subtree, and a leaf where ``expected`` has a subtree for
    each of that subtree's leaves, as JAX broadcasts it (SPEC CDR-15)."""
    dummy = tree_util.tree_unflatten(expected, [object()] * expected.num_leaves)
    leaves = []

    def append(ct, sub):
        leaves.extend([ct] * len(tree_util.tree_leaves(sub)))
        return ct
    tree_util.tree_map(append, cts_in, dummy, is_leaf=lambda x: x is None)
    return leaves


def _bwd_structure_msg(got, expected):
    return ("Custom VJP bwd rule must produce an output with the same container "
            "(pytree) structure as the args tuple of the primal function, and in "
            "particular must produce a tuple of length equal to the number of "
            "arguments to the primal function, but got bwd output structure "
            f"{got} for primal input structure {expected}.")


custom_lin_p.transpose = _custom_lin_transpose


# ---------------------------------------------------------------------------
# Batching (SPEC VMAP-91, VMAP-92): the function's jaxpr is batched with every
# output mapped along axis 0, and the user's rules are wrapped in ``vmap``
# so they see one example at a time, as they were written.
# ---------------------------------------------------------------------------

def _batched_call_jaxpr(axis_data, vals, dims, call_jaxpr):
    """The operands (mapped axes moved first), their flags, the batched
    jaxpr and its outputs' flags.  Every output is batched, except when no
    operand is (the rule was needed only for a collective over the axis,
    SPEC CDR-17): then outputs that do not depend on the axis stay
    unbatched."""
    in_batched = [d is not None for d in dims]
    vals = [batching.moveaxis(v, d, 0) if d is not None else v
            for v, d in zip(vals, dims)]
    closed, out_batched = batching.batch_jaxpr(call_jaxpr, axis_data, in_batched,
                                               any(in_batched))
    return vals, in_batched, closed, list(out_batched)


def _batch_unmapped(params, axis_data):
    """A collective over this named axis inside the function needs the
    batching rule even when no operand is mapped."""
    return axis_data.name is not None and batching._mentions_collective(
        params["call_jaxpr"].jaxpr)


def _in_axes(flags):
    return [0 if b else None for b in flags]


def _vmapped(fn, axis_data, in_axes, rule=None, out_batched=None):
    """``fn`` mapped over ``axis_data``'s axis, each output mapped along 0
    -- or, for a leaf ``out_batched`` flags False, left unmapped.  When
    ``rule`` was bound by the very ``vmap`` now batching it, ``fn`` runs in
    that ``vmap``'s own trace, so that values the rule closes over from
    that ``vmap`` are seen as batched (SPEC CDR-16)."""
    def mapped(*args):
        axes = tree_util.broadcast_prefix(tuple(in_axes), args,
                                          is_leaf=lambda x: x is None)
        leaves, in_tree = tree_util.tree_flatten(args)
        store = {}

        def flat(*xs):
            out_leaves, store["tree"] = tree_util.tree_flatten(
                fn(*tree_util.tree_unflatten(in_tree, xs)))
            return out_leaves
        dims = [batching.not_mapped if a is None else a for a in axes]
        vals, dims = _batch_flat(flat, leaves, dims, axis_data, rule)
        flags = out_batched(store["tree"]) if out_batched else None
        if flags is None or len(flags) != len(vals):
            flags = [True] * len(vals)
        size = axis_data.size
        return tree_util.tree_unflatten(store["tree"], [
            _match_out_dim(v, d, f, size) for v, d, f in zip(vals, dims, flags)])
    return mapped


def _match_out_dim(val, dim, batched, size):
    if batched:
        return batching.bdim_at_front(val, dim, size)
    if dim is not batching.not_mapped:
        raise ValueError("a custom rule under vmap produced a batched output where "
                         "the custom function's own output is not batched; make the "
                         "rule's outputs depend on the batched inputs as the "
                         "function's do.")
    return val


def _batch_flat(flat, leaves, dims, axis_data, rule):
    trace = getattr(rule, "batch_trace", None)
    if not (trace is not None and trace.is_valid and trace.axis_data is axis_data):
        return batching.batch_flat(flat, leaves, dims, axis_data)
    # Re-enter the rule's own vmap trace from the trace now current (its
    # parent for the time of the call), as JAX's trace tags allow.
    saved = trace.parent
    trace.parent = core.current_trace()
    try:
        tracers = [trace.new(x, d) for x, d in zip(leaves, dims)]
        with core.set_current_trace(trace):
            outs = flat(*tracers)
        pairs = [trace.to_batch_info(o) for o in outs]
    finally:
        trace.parent = saved
    return [v for v, _ in pairs], [d for _, d in pairs]


def _custom_jvp_call_batch(axis_data, vals, dims, *, name, call_jaxpr,
                           jvp_jaxpr_fun, num_consts, symbolic_zeros):
    vals, in_batched, closed, out_batched = _batched_call_jaxpr(
        axis_data, vals, dims, call_jaxpr)
    rule = jvp_jaxpr_fun
    axes = _in_axes(in_batched[num_consts:])

    @functools.wraps(rule.fn)       # errors name the user's rule
    def batched_jvp(primals, tangents):
        return _batched_jvp_rule(rule, axis_data, axes, out_batched, primals, tangents)

    outs = custom_jvp_call_p.bind(
        *vals, name=name, call_jaxpr=closed, num_consts=num_consts,
        jvp_jaxpr_fun=_Rule(batched_jvp, (), rule.in_tree, rule.out_tree),
        symbolic_zeros=symbolic_zeros)
    return outs, _out_dims(out_batched)


def _out_dims(out_batched):
    return [0 if b else batching.not_mapped for b in out_batched]


def _batched_jvp_rule(rule, axis_data, axes, out_batched, primals, tangents):
    """The user's JVP rule under ``vmap``, one example at a time.  Symbolic
    zero tangents stay symbolic: each example sees a zero of its own type,
    and a zero the rule returns comes back as a zero of the batched output
    type, never as a batched array (SPEC CDR-14)."""
    p_leaves = tree_util.tree_leaves(primals)
    t_leaves = tree_util.tree_leaves(tangents, is_leaf=lambda x: type(x) is Zero)
    in_zero = [type(t) is Zero for t in t_leaves]
    store = {}

    def one(p_leaves, nonzero_ts):
        it = iter(nonzero_ts)
        ts = [Zero(batching.unbatched_aval(t.aval, a)) if z else next(it)
              for t, z, a in zip(t_leaves, in_zero, axes)]
        out = rule.fn(*rule.static, tree_util.tree_unflatten(rule.in_tree, p_leaves),
                      tree_util.tree_unflatten(rule.in_tree, ts))
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            return out       # reported by the pair check on the outside
        out_p, out_t = out
        t_out, store["t_tree"] = tree_util.tree_flatten(
            out_t, is_leaf=lambda x: type(x) is Zero)
        store["zero"] = [type(t) is Zero for t in t_out]
        return out_p, [t for t in t_out if type(t) is not Zero]

    def out_flags(_):
        zero = store.get("zero")
        if zero is None or len(zero) != len(out_batched):
            return None        # a malformed output, reported on the outside
        return out_batched + [b for b, z in zip(out_batched, zero) if not z]

    nz_axes = [a for a, z in zip(axes, in_zero) if not z]
    result = _vmapped(one, axis_data, [axes, nz_axes], rule, out_flags)(
        p_leaves, [t for t in t_leaves if type(t) is not Zero])
    if "zero" not in store:
        return result
    out_p, nonzero = result
    p_out = tree_util.tree_leaves(out_p)
    it = iter(nonzero)
    t_out = [Zero(ad.tangent_aval(core.get_aval(p))) if z else next(it)
             for p, z in zip(p_out, store["zero"])]
    return out_p, tree_util.tree_unflatten(store["t_tree"], t_out)


custom_jvp_call_p.batch = _custom_jvp_call_batch
custom_jvp_call_p.batch_unmapped = _batch_unmapped


def _custom_vjp_call_batch(axis_data, vals, dims, *, name, call_jaxpr, fwd, bwd,
                           num_consts, symbolic_zeros):
    vals, in_batched, closed, out_batched = _batched_call_jaxpr(
        axis_data, vals, dims, call_jaxpr)
    batched = in_batched[num_consts:]
    axes = _in_axes(batched)

    def fwd_out_flags(tree):
        # The primal outputs as the function's, every residual batched.
        children = tree_util.treedef_children(tree)
        if len(children) != 2 or children[0].num_leaves != len(out_batched):
            return None
        return out_batched + [True] * children[1].num_leaves

    @functools.wraps(fwd.fn)
    def batched_fwd(*dyn):
        leaves = tree_util.tree_leaves(dyn)
        # With symbolic zeros the leaves are CustomVJPPrimal records: map
        # over their values and rebuild the records one example at a time.
        flags = [x.perturbed if type(x) is CustomVJPPrimal else None for x in leaves]
        values = [x.value if type(x) is CustomVJPPrimal else x for x in leaves]

        def one(values):
            leaves = [v if f is None else CustomVJPPrimal(v, f)
                      for v, f in zip(values, flags)]
            args = tree_util.tree_unflatten(fwd.in_tree, leaves)
            return fwd.fn(*_merge_static(fwd.static, args, fwd.nondiff_argnums))
        return _vmapped(one, axis_data, [axes], fwd, fwd_out_flags)(values)

    @functools.wraps(bwd.fn)
    def batched_bwd(res, ct):
        ct_leaves, ct_tree = tree_util.tree_flatten(ct, is_leaf=lambda x: type(x) is Zero)
        zero = [type(c) is Zero for c in ct_leaves]

        expected = tree_util.tree_structure(tree_util.tree_unflatten(
            bwd.in_tree, [0] * len(batched)))
        store = {}

        def one(r, nonzero):
            it = iter(nonzero)
            leaves = [Zero(batching.unbatched_aval(c.aval, 0 if b else None)) if z
                      else next(it) for c, z, b in zip(ct_leaves, zero, out_batched)]
            cts = bwd.fn(*bwd.static, r, tree_util.tree_unflatten(ct_tree, leaves))
            if isinstance(cts, list):
                cts = tuple(cts)
            if not isinstance(cts, tuple):
                return cts     # reported by the structure check on the outside
            # Zeros (None or symbolic) cannot leave vmap: keep their places.
            try:
                leaves = _flatten_with_none(expected, cts)
            except (ValueError, TypeError):
                return cts     # reported by the structure check on the outside
            store["none"] = [c is None or type(c) is Zero for c in leaves]
            return [c for c in leaves if c is not None and type(c) is not Zero]
        nonzero = [c for c, z in zip(ct_leaves, zero) if not z]
        ct_axes = [0 if b else None for b, z in zip(out_batched, zero) if not z]
        cts = _vmapped(one, axis_data, [0, ct_axes], bwd)(res, nonzero)
        if "none" not in store:
            return cts
        it = iter(cts)
        leaves = [None if z else next(it) for z in store["none"]]
        # An example-independent input gets the sum over the examples.
        leaves = [c if c is None or b else c.sum(0) for c, b in zip(leaves, batched)]
        return tree_util.tree_unflatten(expected, leaves)

    b_fwd = _Rule(batched_fwd, (), fwd.in_tree, fwd.out_tree)
    b_fwd.nondiff_argnums = ()
    outs = custom_vjp_call_p.bind(
        *vals, name=name, call_jaxpr=closed, num_consts=num_consts, fwd=b_fwd,
        bwd=_Rule(batched_bwd, (), bwd.in_tree, bwd.out_tree),
        symbolic_zeros=symbolic_zeros)
    return outs, _out_dims(out_batched)


custom_vjp_call_p.batch = _custom_vjp_call_batch
custom_vjp_call_p.batch_unmapped = _batch_unmapped


# ---------------------------------------------------------------------------
# closure_convert
# ---------------------------------------------------------------------------

def closure_convert(fun, *example_args):
    """``(converted, consts)``: ``converted(*args, *consts)`` computes
    ``fun(*args)`` with the values ``fun`` closes over (tracers and
    inexact arrays) passed explicitly, as custom_vjp rules need (SPEC AD-67);
    the hoisted constants are always the last arguments (SPEC CDR-20)."""
    leaves, in_tree = tree_util.tree_flatten(example_args)
    store = {}

    def flat(*xs):
        out = fun(*tree_util.tree_unflatten(in_tree, xs))
        out_leaves, store["out_tree"] = tree_util.tree_flatten(out)
        return out_leaves

    closed = pe.trace_to_jaxpr(flat, [core.get_aval(x) for x in leaves])
    jaxpr = closed.jaxpr
    hoist = [isinstance(c, core.Tracer) and ad.tangent_dtype(c.dtype) != ad.float0
             for c in closed.consts]
    consts = [c for c, h in zip(closed.consts, hoist) if h]
    kept = core.ClosedJaxpr(
        jaxpr.replace(constvars=[v for v, h in zip(jaxpr.constvars, hoist) if not h],
                      invars=jaxpr.invars + [v for v, h in zip(jaxpr.constvars, hoist) if h]),
        [c for c, h in zip(closed.consts, hoist) if not h])
    out_tree = store["out_tree"]

    def converted(*args_and_consts):
        # The hoisted constants come last; whatever precedes them must
        # match the example arguments' structure.
        n_args = len(args_and_consts) - len(consts)
        args, cs = args_and_consts[:n_args], args_and_consts[n_args:]
        flat_args, tree = tree_util.tree_flatten(args)
        if tree != in_tree:
            raise TypeError(
                "The inputs to the closure produced by closure_convert must have "
                "the same Pytree structure as the example arguments passed when "
                f"closure_convert was called. Expected {in_tree}, but got {tree}")
        outs = core.eval_jaxpr(kept.jaxpr, kept.consts, *flat_args, *cs)
        return tree_util.tree_unflatten(out_tree, outs)

    return converted, consts


# ---------------------------------------------------------------------------
# linear_call: a linear function with a hand-written transpose (SPEC CDR-2)
# ---------------------------------------------------------------------------

def linear_call(fun, fun_transpose, residual_args, linear_args):
    """``fun(residual_args, linear_args)``, bound as one ``linear_call``
    equation whose transpose is a ``linear_call`` of ``fun_transpose``
    (which in turn transposes back to ``fun``) (SPEC CDR-2).

    ``fun`` must be linear in ``linear_args``; ``fun_transpose(residuals,
    cotangent)`` returns a value shaped like ``linear_args``."""
    res_leaves, res_tree = tree_util.tree_flatten(residual_args)
    lin_leaves, lin_tree = tree_util.tree_flatten(linear_args)
    res_avals = [core.get_aval(x) for x in res_leaves]
    lin_avals = [core.get_aval(x) for x in lin_leaves]
    callee, consts, out_tree = _trace_two_part(fun, res_tree, lin_tree,
                                               res_avals + lin_avals)
    thunk = _LinearTranspose(fun_transpose, res_tree, out_tree, lin_tree,
                             res_avals + list(callee.out_avals))
    outs = linear_call_p.bind(*consts, *res_leaves, *lin_leaves, callee=callee,
                              transpose_thunk=thunk, num_callee_consts=len(consts),
                              num_res=len(res_leaves))
    return tree_util.tree_unflatten(out_tree, outs)


def _trace_two_part(fn, res_tree, lin_tree, avals):
    """Trace ``fn(residuals, linear)`` on flat avals: (closed jaxpr whose
    traced constants lead its inputs, those constants, output tree)."""
    n_res = res_tree.num_leaves
    store = {}

    def flat(*xs):
        out = fn(tree_util.tree_unflatten(res_tree, xs[:n_res]),
                 tree_util.tree_unflatten(lin_tree, xs[n_res:]))
        leaves, store["tree"] = tree_util.tree_flatten(out)
        return leaves

    closed = pe.trace_to_jaxpr(flat, avals)
    closed, consts = pe.closure_convert(closed)
    return closed, consts, store["tree"]


class _LinearTranspose:
    """The transpose of a ``linear_call``, traced when first needed:
    ``()`` gives (closed jaxpr, its traced constants)."""

    def __init__(self, fn, res_tree, ct_tree, lin_tree, avals):
        self.fn, self.res_tree, self.ct_tree = fn, res_tree, ct_tree
        self.lin_tree, self.avals, self.traced = lin_tree, avals, None

    def __call__(self):
        if self.traced is None:
            closed, consts, out_tree = _trace_two_part(
                self.fn, self.res_tree, self.ct_tree, self.avals)
            if out_tree != self.lin_tree:
                raise TypeError(
                    "transpose output pytree structure must match that of linear "
                    f"inputs, got output structure {out_tree} and input structure "
                    f"{self.lin_tree}.")
            self.traced = closed, consts
        return self.traced

    def __str__(self):
        return f"<transpose of linear_call: {_function_name(self.fn)}>"

    __repr__ = __str__


class _KnownTranspose:
    """The transpose of a transposed ``linear_call``: the original callee."""

    def __init__(self, callee, consts):
        self.traced = callee, consts

    def __call__(self):
        return self.traced

    def __str__(self):
        return "<transpose of linear_call: the original callee>"

    __repr__ = __str__


linear_call_p = Primitive("linear_call", multiple_results=True)
linear_call_p.def_abstract_eval(lambda *avals, callee, **_: callee.out_avals)
def_call(linear_call_p, "callee")
linear_call_p.not_supported("batch", "undefined in JAX: JAX 0.10.2 has no batching "
                             "rule for linear_call")


def _linear_call_jvp(primals, tangents, *, callee, transpose_thunk, num_callee_consts,
                     num_res):
    """Linear in the linear operands: the tangent is the same call on their
    tangents.  Residuals may not carry tangents (JAX asserts it)."""
    n = num_callee_consts + num_res
    if any(type(t) is not Zero for t in tangents[:n]):
        raise AssertionError(
            "linear_call cannot be differentiated with respect to its residual "
            "arguments (or values its functions close over); it is linear in "
            "linear_args only.")
    params = dict(callee=callee, transpose_thunk=transpose_thunk,
                  num_callee_consts=num_callee_consts, num_res=num_res)
    outs = linear_call_p.bind(*primals, **params)
    lin = [ad.instantiate_zeros(t) for t in tangents[n:]]
    return outs, linear_call_p.bind(*primals[:n], *lin, **params)


def _linear_call_transpose(cts, *args, callee, transpose_thunk, num_callee_consts,
                           num_res):
    """A ``linear_call`` of the transpose function on the cotangents, whose
    own transpose is the original callee (SPEC CDR-2)."""
    transpose, t_consts = transpose_thunk()
    operands_res = args[num_callee_consts:num_callee_consts + num_res]
    ct_avals = transpose.in_avals[len(t_consts) + num_res:]
    cts = [ad.zeros_like_aval(a) if type(c) is Zero else c for c, a in zip(cts, ct_avals)]
    cts_out = linear_call_p.bind(
        *t_consts, *operands_res, *cts, callee=transpose,
        transpose_thunk=_KnownTranspose(callee, list(args[:num_callee_consts])),
        num_callee_consts=len(t_consts), num_res=num_res)
    return [None] * (num_callee_consts + num_res) + list(cts_out)


linear_call_p.jvp = _linear_call_jvp
linear_call_p.transpose = _linear_call_transpose


# ---------------------------------------------------------------------------
# custom_vjp(optimize_remat=True): the fwd rule as one remat_opt equation
# (SPEC CDR-4)
# ---------------------------------------------------------------------------

_NO_HIGHER_ORDER = "remat optimization for custom_vjp does not support higher-order AD"
_LINEARIZE_FAILED = (
    "Linearization failed to produce known values for all output primals. This is "
    "typically caused by attempting to differentiate a function uses an operation "
    "that does not support reverse-mode autodiff.")


def _remat_optimized_fwd(fun, fwd, nondiff):
    """``fwd`` run as one ``remat_opt`` equation holding its jaxpr (residuals
    first, then the primal outputs), with ``fun``'s jaxpr kept alongside.
    Residuals that are inputs are passed through, not computed."""
    @functools.wraps(fwd)
    def wrapped(*args):
        static, dyn = _split_static(args, nondiff)
        leaves, in_tree = tree_util.tree_flatten(tuple(dyn))
        avals = [core.get_aval(x) for x in leaves]
        store = {}

        def flat_fwd(*xs):
            d = tree_util.tree_unflatten(in_tree, xs)
            out, res = _check_fwd_pair(fwd(*_merge_static(static, d, nondiff)), fun)
            out_leaves, store["out_tree"] = tree_util.tree_flatten(out)
            res_leaves, store["res_tree"] = tree_util.tree_flatten(res)
            store["forwarded"] = [_input_index(r, xs) for r in res_leaves]
            return [r for r, i in zip(res_leaves, store["forwarded"]) if i is None] + out_leaves

        closed = pe.trace_to_jaxpr(flat_fwd, avals)
        closed, consts = pe.closure_convert(closed)
        num_res = sum(i is None for i in store["forwarded"])

        def fun_jaxpr_thunk():
            f = lambda *d: fun(*_merge_static(static, d, nondiff))  # noqa: E731
            return _trace_fun(f, dyn, _function_name(fun))[0]

        outs = remat_opt_p.bind(*consts, *leaves, num_consts=len(consts), num_res=num_res,
                                fwd_jaxpr=closed, fun_jaxpr_thunk=fun_jaxpr_thunk)
        computed = iter(outs[:num_res])
        res = [next(computed) if i is None else leaves[i] for i in store["forwarded"]]
        return (tree_util.tree_unflatten(store["out_tree"], outs[num_res:]),
                tree_util.tree_unflatten(store["res_tree"], res))
    return wrapped


def _check_fwd_pair(result, fun):
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise TypeError("Custom VJP fwd rule must produce a pair (list or tuple of "
                        "length two) where the first element represents the primal "
                        "output (equal to the output of the custom_vjp-decorated "
                        f"function {_function_name(fun)}) and the second element "
                        "represents residuals, but instead the fwd rule output was "
                        f"{result}.")
    return result


def _input_index(x, inputs):
    return next((i for i, a in enumerate(inputs) if a is x), None)


remat_opt_p = Primitive("remat_opt", multiple_results=True)
remat_opt_p.def_abstract_eval(lambda *avals, fwd_jaxpr, **_: fwd_jaxpr.out_avals)
def_call(remat_opt_p, "fwd_jaxpr")


def _remat_opt_batch(axis_data, vals, dims, *, num_consts, num_res, fwd_jaxpr,
                     fun_jaxpr_thunk):
    vals, _, closed, _ = _batched_call_jaxpr(axis_data, vals, dims, fwd_jaxpr)
    outs = remat_opt_p.bind(*vals, num_consts=num_consts, num_res=num_res,
                            fwd_jaxpr=closed, fun_jaxpr_thunk=fun_jaxpr_thunk)
    return outs, [0] * len(outs)


def _remat_opt_jvp(primals, tangents, *, num_consts, num_res, fwd_jaxpr,
                   fun_jaxpr_thunk):
    """The JVP of the fwd jaxpr, in one ``remat_opt`` equation whose outputs
    are the primal results then their non-zero tangents."""
    nonzeros = [type(t) is not Zero for t in tangents]
    jvp_closed, out_nz = ad.jvp_jaxpr(fwd_jaxpr, nonzeros)
    outs = remat_opt_p.bind(*primals, *[t for t in tangents if type(t) is not Zero],
                            num_consts=num_consts, num_res=num_res, fwd_jaxpr=jvp_closed,
                            fun_jaxpr_thunk=fun_jaxpr_thunk)
    n = len(fwd_jaxpr.out_avals)
    rest = iter(outs[n:])
    return outs[:n], [next(rest) if nz else Zero(ad.tangent_aval(a))
                      for nz, a in zip(out_nz, fwd_jaxpr.out_avals)]


def _not_linearizable(trace, args, params):
    """Reverse mode through this primitive is refused as JAX refuses it."""
    raise ValueError(_LINEARIZE_FAILED)


def _remat_opt_transpose(cts, *args, **params):
    raise NotImplementedError(_NO_HIGHER_ORDER)


remat_opt_p.batch = _remat_opt_batch
remat_opt_p.jvp = _remat_opt_jvp
remat_opt_p.partial_eval = _not_linearizable
remat_opt_p.transpose = _remat_opt_transpose
