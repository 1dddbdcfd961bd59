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
import functools
import inspect

import numpy as np

from refjax._src import core, errors, placement, tree_util
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

class custom_jvp:
    """A function with a JVP rule written by hand (SPEC AD-65).

    ``@custom_jvp`` then ``@f.defjvp`` a ``jvp(primals, tangents) ->
    (primal_out, tangent_out)``; ``nondiff_argnums`` name arguments passed
    to the rule first, undifferentiated.  Reverse mode comes for free by
    transposing the rule's linear tangent computation."""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
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
        closed, consts, leaves, in_tree, out_tree = _trace_fun(fun, dyn, name)
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

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = None
        self.bwd = None
        self.symbolic_zeros = False

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return tree_util.Partial(self, obj)

    def defvjp(self, fwd, bwd, symbolic_zeros=False, optimize_remat=False):
        self.fwd = fwd
        self.bwd = bwd
        self.symbolic_zeros = symbolic_zeros

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
        closed, consts, leaves, in_tree, out_tree = _trace_fun(fun, dyn, name)
        fwd = _Rule(self.fwd, static, in_tree, out_tree)
        fwd.nondiff_argnums = nondiff
        bwd = _Rule(self.bwd, static, in_tree, out_tree)
        outs = custom_vjp_call_p.bind(*consts, *leaves, name=name, call_jaxpr=closed,
                                      fwd=fwd, bwd=bwd, num_consts=len(consts),
                                      symbolic_zeros=self.symbolic_zeros)
        return tree_util.tree_unflatten(out_tree, outs)


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
    args = _merge_static(fwd.static, tree_util.tree_unflatten(fwd.in_tree, primals),
                         fwd.nondiff_argnums)
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
        def one(leaves):
            args = tree_util.tree_unflatten(fwd.in_tree, leaves)
            return fwd.fn(*_merge_static(fwd.static, args, fwd.nondiff_argnums))
        return _vmapped(one, axis_data, [axes])(tree_util.tree_leaves(dyn))

    def batched_bwd(res, ct):
        cts = _vmapped(lambda r, c: bwd.fn(*bwd.static, r, c), axis_data, [0, 0])(res, ct)
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
        symbolic_zeros=False)
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
