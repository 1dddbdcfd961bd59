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

from refjax._src import api, core, errors, placement, tree_util
from refjax._src.api import def_call
from refjax._src.core import Primitive
from refjax._src.interpreters import ad, batching
from refjax._src.interpreters import partial_eval as pe
from refjax._src.interpreters.ad import Zero

# Rules written with ``symbolic_zeros=True`` receive these for zero tangents.
SymbolicZero = Zero


def _resolve_kwargs(fun, args, kwargs):
    """Keyword arguments moved into their positions (custom rules see
    positional arguments only)."""
    try:
        sig = inspect.signature(fun)
    except (TypeError, ValueError):
        return args
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{e}") from None
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError("keyword arguments could not be resolved to positions")
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
    return getattr(fn, "__name__", repr(fn))


class _Rule:
    """A user's rule held in an equation's params; prints as its name."""

    def __init__(self, fn, static, in_tree, out_tree):
        self.fn, self.static, self.in_tree, self.out_tree = fn, static, in_tree, out_tree

    def __str__(self):
        return _function_name(self.fn)

    __repr__ = __str__


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
        trace = core.current_trace()
        if trace is core.eval_trace:
            return self.fun(*args)
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


custom_jvp_call_p = Primitive("custom_jvp_call", multiple_results=True)
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
    if rule.out_tree is not None and p_tree != rule.out_tree:
        raise TypeError(f"Custom JVP rule {rule} for function {name} must produce "
                        "primal outputs with the same container (pytree) structure as "
                        f"the function's output {rule.out_tree}, but got {p_tree}.")
    out_t = [_symbolic_if_float0(p, t) for p, t in zip(out_p, out_t)]
    for p, t in zip(out_p, out_t):
        _check_tangent_type(p, t)
    return out_p, out_t, p_tree


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
        args = _resolve_kwargs(self.fun, args, kwargs)
        nondiff = _nondiff_positions(self.nondiff_argnums, len(args))
        if core.current_trace() is core.eval_trace:
            return self.fun(*args)
        static, dyn = _split_static(args, nondiff)
        if any(isinstance(x, core.Tracer) for x in tree_util.tree_leaves(static)):
            raise errors.UnexpectedTracerError(_NONDIFF_TRACER)
        fun = lambda *d: self.fun(*_merge_static(static, d, nondiff))  # noqa: E731
        found = []
        closed, consts, leaves, in_tree, out_tree = _trace_fun(
            api.ref_hooks.discover(fun, found, "custom_vjp"), dyn, name)
        fwd_fn = self.fwd
        if self.optimize_remat:
            fwd_fn = _remat_optimized_fwd(self.fun, self.fwd, nondiff)
        fwd = _Rule(fwd_fn, static, in_tree, out_tree)
        fwd.nondiff_argnums = nondiff
        bwd = _Rule(self.bwd, static, in_tree, out_tree)
        params = dict(name=name, call_jaxpr=closed, fwd=fwd, bwd=bwd,
                      num_consts=len(consts), symbolic_zeros=self.symbolic_zeros)
        if found and isinstance(core.current_trace(), ad.JVPTrace):
            outs = _vjp_rules_now(core.current_trace(), [*consts, *leaves], params)
        elif found:
            return _unstaged_with_refs(self.fun, args, "custom_vjp_call")
        else:
            outs = custom_vjp_call_p.bind(*consts, *leaves, **params)
        return tree_util.tree_unflatten(out_tree, outs)


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


custom_vjp_call_p = Primitive("custom_vjp_call", multiple_results=True)
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
        raise TypeError("Custom VJP fwd rule must produce a pair (list or tuple of "
                        "length two) where the first element represents the primal "
                        "output (equal to the output of the custom_vjp-decorated "
                        f"function {name}) and the second element represents "
                        f"residuals (i.e. values stored from the forward pass for use "
                        f"on the backward pass), but instead the fwd rule output was {result}.")
    out, res = result
    out_leaves, out_tree = tree_util.tree_flatten(out)
    if out_tree != fwd.out_tree:
        raise TypeError(f"Custom VJP fwd rule {fwd} for function {name} must produce "
                        "a pair whose first element has the same container (pytree) "
                        f"structure as the function's output {fwd.out_tree}, but got "
                        f"{out_tree}.")
    res_leaves, res_tree = tree_util.tree_flatten(res)
    out_avals = [ad.tangent_aval(core.get_aval(o)) for o in out_leaves]
    in_avals = [ad.tangent_aval(core.get_aval(p)) for p in primals]
    lin = custom_lin_p.bind(*res_leaves, *map(ad.instantiate_zeros, tangents),
                            num_res=len(res_leaves), bwd=bwd, res_tree=res_tree,
                            out_avals=tuple(out_avals), in_avals=tuple(in_avals),
                            symbolic_zeros=symbolic_zeros)
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
                          symbolic_zeros):
    res = tree_util.tree_unflatten(res_tree, args[:num_res])
    if not symbolic_zeros:
        cts = [ad.instantiate_zeros(c) for c in cts]
    ct_out = tree_util.tree_unflatten(bwd.out_tree, cts)
    cts_in = bwd.fn(*bwd.static, res, ct_out)
    return [None] * num_res + _check_bwd_output(cts_in, bwd, in_avals)


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
    for i, (ct, aval) in enumerate(zip(leaves, in_avals)):
        if ct is None or type(ct) is Zero:
            out.append(Zero(aval))
            continue
        got = core.get_aval(ct)
        if got.shape != aval.shape:
            raise ValueError(
                "Custom VJP bwd rule must produce an output with the same type as the "
                f"args tuple of the primal function, but at output[{i}] the bwd rule "
                f"produced an output of type {_aval_type_str(got)} corresponding to "
                f"an input of type {_aval_type_str(aval)}, so the shapes do not match")
        out.append(ct)
    return out


def _flatten_with_none(expected, cts_in):
    """Leaves of ``cts_in`` matched to ``expected``; a None stands for a
    whole zero subtree."""
    leaves = []
    for sub_ct, sub_def in zip(cts_in, tree_util.treedef_children(expected)):
        n = sub_def.num_leaves
        if sub_ct is None:
            leaves.extend([None] * n)
        else:
            sub_leaves = sub_def.flatten_up_to(sub_ct)
            leaves.extend(sub_leaves)
    if len(cts_in) != len(tree_util.treedef_children(expected)):
        raise ValueError("length mismatch")
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
    in_batched = [d is not None for d in dims]
    vals = [batching.moveaxis(v, d, 0) if d is not None else v
            for v, d in zip(vals, dims)]
    closed, _ = batching.batch_jaxpr(call_jaxpr, axis_data, in_batched, True)
    return vals, in_batched, closed


def _in_axes(flags):
    return [0 if b else None for b in flags]


def _vmapped(fn, axis_data, in_axes):
    from refjax._src.vmap_api import vmap
    return vmap(fn, in_axes=tuple(in_axes), axis_name=axis_data.name,
                axis_size=axis_data.size)


def _custom_jvp_call_batch(axis_data, vals, dims, *, name, call_jaxpr,
                           jvp_jaxpr_fun, num_consts, symbolic_zeros):
    vals, in_batched, closed = _batched_call_jaxpr(axis_data, vals, dims, call_jaxpr)
    rule = jvp_jaxpr_fun
    axes = _in_axes(in_batched[num_consts:])

    def batched_jvp(primals, tangents):
        def one(p_leaves, t_leaves):
            return rule.fn(*rule.static, tree_util.tree_unflatten(rule.in_tree, p_leaves),
                           tree_util.tree_unflatten(rule.in_tree, t_leaves))
        p_leaves = tree_util.tree_leaves(primals)
        t_leaves = [ad.instantiate_zeros(t) for t in
                    tree_util.tree_leaves(tangents, is_leaf=lambda x: type(x) is Zero)]
        return _vmapped(one, axis_data, [axes, axes])(p_leaves, t_leaves)

    outs = custom_jvp_call_p.bind(
        *vals, name=name, call_jaxpr=closed, num_consts=num_consts,
        jvp_jaxpr_fun=_Rule(batched_jvp, (), rule.in_tree, rule.out_tree),
        symbolic_zeros=False)
    return outs, [0] * len(outs)


custom_jvp_call_p.batch = _custom_jvp_call_batch


def _custom_vjp_call_batch(axis_data, vals, dims, *, name, call_jaxpr, fwd, bwd,
                           num_consts, symbolic_zeros):
    vals, in_batched, closed = _batched_call_jaxpr(axis_data, vals, dims, call_jaxpr)
    batched = in_batched[num_consts:]
    axes = _in_axes(batched)

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
        return _vmapped(one, axis_data, [axes])(values)

    def batched_bwd(res, ct):
        ct_leaves, ct_tree = tree_util.tree_flatten(ct, is_leaf=lambda x: type(x) is Zero)
        zero = [type(c) is Zero for c in ct_leaves]

        def one(r, nonzero):
            it = iter(nonzero)
            leaves = [Zero(batching.unbatched_aval(c.aval, 0)) if z else next(it)
                      for c, z in zip(ct_leaves, zero)]
            return bwd.fn(*bwd.static, r, tree_util.tree_unflatten(ct_tree, leaves))
        nonzero = [c for c, z in zip(ct_leaves, zero) if not z]
        cts = _vmapped(one, axis_data, [0, 0])(res, nonzero)
        if not isinstance(cts, tuple):
            return cts     # reported by the structure check on the outside
        expected = tree_util.tree_structure(tree_util.tree_unflatten(
            bwd.in_tree, [0] * len(batched)))
        leaves = _flatten_with_none(expected, cts)
        # An example-independent input gets the sum over the examples.
        leaves = [c if c is None or b else c.sum(0) for c, b in zip(leaves, batched)]
        return tree_util.tree_unflatten(expected, [
            Zero(None) if c is None else c for c in leaves])

    b_fwd = _Rule(batched_fwd, (), fwd.in_tree, fwd.out_tree)
    b_fwd.nondiff_argnums = ()
    outs = custom_vjp_call_p.bind(
        *vals, name=name, call_jaxpr=closed, num_consts=num_consts, fwd=b_fwd,
        bwd=_Rule(batched_bwd, (), bwd.in_tree, bwd.out_tree),
        symbolic_zeros=symbolic_zeros)
    return outs, [0] * len(outs)


custom_vjp_call_p.batch = _custom_vjp_call_batch


# ---------------------------------------------------------------------------
# closure_convert
# ---------------------------------------------------------------------------

def closure_convert(fun, *example_args):
    """``(converted, consts)``: ``converted(*args, *consts)`` computes
    ``fun(*args)`` with the values ``fun`` closes over (tracers and
    inexact arrays) passed explicitly, as custom_vjp rules need (SPEC AD-67)."""
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
        args = args_and_consts[:len(example_args)]
        cs = args_and_consts[len(example_args):]
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
    vals, in_batched, closed = _batched_call_jaxpr(axis_data, vals, dims, fwd_jaxpr)
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
