"""``jax.custom_batching``: functions with a hand-written ``vmap`` rule.

A ``custom_vmap`` function is bound as one ``custom_vmap_call`` equation
holding the function's jaxpr (what runs unbatched) and the user's rule.
Under ``vmap`` the rule replaces the jaxpr; under ``jvp`` the equation
holds the JVP of the jaxpr and a rule that differentiates the user's
rule.  Reverse mode is refused, as in JAX (SPEC CDR-5 .. CDR-7).

Layer 6: ``sequential_vmap`` loops with ``lax.map``.
"""
import functools
import operator

from refjax._src import tree_util
from refjax._src.ad_api import jvp as _jvp
from refjax._src.api import def_call
from refjax._src.core import Primitive
from refjax._src.custom_derivatives import (
    _LINEARIZE_FAILED, _forward_def_method, _function_name, _resolve_kwargs, _trace_fun,
)
from refjax._src.interpreters import ad, batching
from refjax._src.lax.control_flow.scan import map as _lax_map


class custom_vmap:
    """A function whose batching is a rule written by hand (SPEC CDR-5).

    ``@f.def_vmap`` a ``rule(axis_size, in_batched, *args) -> (out,
    out_batched)``: ``in_batched`` is a list with one pytree of booleans per
    argument; batched arguments carry the mapped axis first, and so must
    the outputs flagged in ``out_batched`` (a pytree like the output)."""

    def __init__(self, fun):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule = None

    def __getattr__(self, name):
        """``def*`` methods of a decorator this one wraps, so stacked
        decorators can be configured from the outside (SPEC CDR-11)."""
        return _forward_def_method(self, name)

    def def_vmap(self, vmap_rule):
        self.vmap_rule = vmap_rule
        return vmap_rule

    def __call__(self, *args, **kwargs):
        name = _function_name(self.fun)
        if not callable(self.fun):
            raise TypeError(
                f"The input arguments to the custom_vmap-decorated function {name} "
                "could not be resolved to positional-only arguments. Binding failed "
                f"with the error:\n{self.fun!r} is not a callable object")
        args = _resolve_kwargs(self.fun, args, kwargs, "custom_vmap")
        if not self.vmap_rule:
            raise AttributeError(f"No batching rule defined for custom_vmap function "
                                 f"{name} using def_vmap.")
        closed, consts, leaves, in_tree, out_tree = _trace_fun(self.fun, args, name)
        full_tree = tree_util.treedef_tuple((tree_util.tree_structure(consts), in_tree))
        outs = custom_vmap_p.bind(*consts, *leaves, call=closed,
                                  rule=_ClosedRule(self.vmap_rule),
                                  in_tree=full_tree, out_tree=out_tree)
        return tree_util.tree_unflatten(out_tree, outs)


class _ClosedRule:
    """The user's rule as the equation holds it: called with the traced
    constants first (never batched: they are values of enclosing traces)."""

    def __init__(self, rule):
        functools.update_wrapper(self, rule)
        self.rule = rule

    def __call__(self, axis_size, all_in_batched, consts, args):
        consts_batched, in_batched = all_in_batched
        if any(tree_util.tree_leaves(consts_batched)):
            raise AssertionError(
                "a custom_vmap function closes over a value batched by this vmap; "
                "pass it in as an argument instead.")
        return self.rule(axis_size, list(in_batched), *args)

    def __str__(self):
        return str(self.rule)


def _rule_name(rule):
    return getattr(rule, "__name__", "<unnamed rule>")


def _check_rule_trees(rule, original_out_tree, out_tree, out_batched_tree):
    """The rule's output and its batching flags must match each other and
    the function's output structure (SPEC CDR-5)."""
    if out_tree != out_batched_tree:
        raise ValueError(
            "structure of output value and output batching specification returned "
            f"by custom vmap rule ({_rule_name(rule)}) do not match.\n"
            f"Output values: {out_tree}\nBatching spec: {out_batched_tree}")
    if out_tree != original_out_tree:
        raise ValueError(
            f"structure of output returned by custom vmap rule ({_rule_name(rule)}) "
            "does not match that of original custom-vmapped function.\n"
            f"Original output: {original_out_tree}\nRule output: {out_tree}")


def _call_rule(rule, axis_size, in_batched, args):
    in_batched = in_batched if type(in_batched) is list else list(in_batched)
    return rule(axis_size, in_batched, *args)


# ---------------------------------------------------------------------------
# The primitive
# ---------------------------------------------------------------------------

custom_vmap_p = Primitive("custom_vmap_call", multiple_results=True)
custom_vmap_p.def_abstract_eval(lambda *avals, call, **_: call.out_avals)
def_call(custom_vmap_p, "call")


def _custom_vmap_batch(axis_data, vals, dims, *, call, rule, in_tree, out_tree):
    """Batching calls the rule on the operands, mapped axes moved first."""
    vals = [v if d is batching.not_mapped else batching.moveaxis(v, d, 0)
            for v, d in zip(vals, dims)]
    args = tree_util.tree_unflatten(in_tree, vals)
    in_batched = tree_util.tree_unflatten(
        in_tree, [d is not batching.not_mapped for d in dims])
    out, out_batched = _call_rule(rule, axis_data.size, in_batched, args)
    flat_out, tree1 = tree_util.tree_flatten(out)
    flat_batched, tree2 = tree_util.tree_flatten(out_batched)
    _check_rule_trees(rule, out_tree, tree1, tree2)
    return flat_out, [0 if b else batching.not_mapped for b in flat_batched]


def _custom_vmap_jvp(primals, tangents, *, call, rule, in_tree, out_tree):
    """Forward mode: the equation holds the JVP of the jaxpr, and a rule
    that differentiates the user's rule (SPEC CDR-6)."""
    tangents = [ad.instantiate_zeros(t) for t in tangents]
    jvp_call, _ = ad.jvp_jaxpr(call, [True] * len(primals))
    outs = custom_vmap_p.bind(
        *primals, *tangents, call=jvp_call, rule=_JvpOfRule(rule, out_tree),
        in_tree=tree_util.treedef_tuple((in_tree, in_tree)),
        out_tree=tree_util.treedef_tuple((out_tree, out_tree)))
    n = len(outs) // 2
    return outs[:n], outs[n:]


class _JvpOfRule:
    """The batching rule of a JVP'd ``custom_vmap_call``.

    Primals and tangents batched alike go to the user's rule, under
    ``jvp``; an operand whose primal is batched but not its tangent (or the
    reverse) is handled by an ordinary ``vmap`` around that ``jvp``."""

    def __init__(self, rule, out_tree):
        self.rule, self.out_tree = rule, out_tree

    def __str__(self):
        return f"<jvp of custom_vmap rule {self.rule}>"

    def __call__(self, axis_size, in_batched, primals, tangents):
        batched_ps, batched_ts = in_batched
        mutual = tree_util.tree_map(operator.and_, batched_ps, batched_ts)
        extra_ps = tree_util.tree_map(lambda p, t: p and not t, batched_ps, batched_ts)
        extra_ts = tree_util.tree_map(lambda p, t: t and not p, batched_ps, batched_ts)
        store = {}

        def to_jvp(*ps):
            out, out_batched = _call_rule(self.rule, axis_size, mutual, ps)
            _check_rule_trees(self.rule, self.out_tree, tree_util.tree_structure(out),
                              tree_util.tree_structure(out_batched))
            store["out_batched"] = out_batched
            return out

        leaves, tree = tree_util.tree_flatten((primals, tangents))
        extra = tree_util.tree_leaves((extra_ps, extra_ts))

        def flat(*xs):
            ps, ts = tree_util.tree_unflatten(tree, xs)
            return tree_util.tree_leaves(_jvp(to_jvp, tuple(ps), tuple(ts)))

        outs, dims = batching.batch_flat(
            flat, leaves, [0 if e else batching.not_mapped for e in extra],
            batching.AxisData(None, axis_size))
        outs = [o if d is batching.not_mapped else batching.moveaxis(o, d, 0)
                for o, d in zip(outs, dims)]
        n = len(outs) // 2
        out_ps = tree_util.tree_unflatten(self.out_tree, outs[:n])
        out_ts = tree_util.tree_unflatten(self.out_tree, outs[n:])
        extra_out_ps = tree_util.tree_unflatten(
            self.out_tree, [d is not batching.not_mapped for d in dims[:n]])
        extra_out_ts = tree_util.tree_unflatten(
            self.out_tree, [d is not batching.not_mapped for d in dims[n:]])
        mutual_out = store["out_batched"]
        return (out_ps, out_ts), (
            tree_util.tree_map(operator.or_, mutual_out, extra_out_ps),
            tree_util.tree_map(operator.or_, mutual_out, extra_out_ts))


def _refuse_reverse_mode(trace, args, params):
    """Linearizing needs the primal outputs known; this equation computes
    them together with the tangents, so reverse mode fails (SPEC CDR-6)."""
    raise ValueError(_LINEARIZE_FAILED)


custom_vmap_p.batch = _custom_vmap_batch
custom_vmap_p.jvp = _custom_vmap_jvp
custom_vmap_p.partial_eval = _refuse_reverse_mode


# ---------------------------------------------------------------------------
# sequential_vmap
# ---------------------------------------------------------------------------

def sequential_vmap(f):
    """``f`` as a ``custom_vmap`` whose batching runs ``f`` once per example
    in a ``lax.map`` loop, unmapped arguments passed whole to each call;
    every output is batched (SPEC CDR-7)."""
    f = custom_vmap(f)

    @f.def_vmap
    def rule(axis_size, in_batched, *args):
        args = list(args)
        mapped = tree_util.tree_map(lambda b, x: x if b else None, in_batched, args)
        whole = tree_util.tree_map(lambda b, x: None if b else x, in_batched, args)

        def one(mapped_args):
            merged = tree_util.tree_map(lambda b, m, w: m if b else w,
                                        in_batched, mapped_args, whole)
            return f(*merged)

        out = _lax_map(one, mapped)
        return out, tree_util.tree_map(lambda _: True, out)

    return f

