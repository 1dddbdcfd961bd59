"""``lax.cond`` and ``lax.switch``: one primitive, ``cond`` (SPEC CF-10).

``cond`` holds one closed jaxpr per branch (``branches``) and takes the
branch index (``int32``) followed by the operands every branch receives:
values the branches close over (their constants, hoisted) and then the
flattened user operands.  ``lax.cond(pred, t, f)`` is ``cond`` with
``branches=(f, t)`` and index ``int32(pred)``; ``lax.switch`` clamps its
index into range first.
"""
import collections
import itertools
from collections import defaultdict
from collections.abc import Sequence
from functools import reduce

import numpy as np

from refjax._src import api, backend
from refjax._src import config as _config
from refjax._src import core, dtypes, tree_util
from refjax._src.compiler import executable_for
from refjax._src.core import ClosedJaxpr, Primitive, Var
from refjax._src.interpreters import ad, batching, dce
from refjax._src.interpreters import key_reuse as kr
from refjax._src.interpreters import partial_eval as pe
from refjax._src.lax import lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax.control_flow.common import (
    mismatch_reason, structure_diffs, typematch,
)

_no_operand = object()


# ---------------------------------------------------------------------------
# The API
# ---------------------------------------------------------------------------

def switch(index, branches, *operands, operand=_no_operand):
    """``branches[clamp(0, index, len(branches) - 1)](*operands)`` (SPEC CF-11).

    Every branch is traced; only the chosen one runs."""
    if not all(callable(b) for b in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    operands = _operand_keyword(operands, operand)
    if np.ndim(index) != 0:
        raise TypeError(f"Branch index must be scalar, got {index} of shape "
                        f"{np.shape(index)}.")
    try:
        index_dtype = dtypes.result_type(index)
    except TypeError as err:
        raise TypeError(f"Index type must be an integer, got {index}.") from err
    if index_dtype.kind not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {index_dtype}")
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:
        # One branch: nothing to choose, no primitive (SPEC CF-11).
        return branches[0](*operands)
    index = lax.convert_element_type(index, np.int32)
    index = lax.clamp(np.array(0, np.int32), index, np.array(len(branches) - 1, np.int32))
    if _config.disable_jit.value and _is_concrete(index):
        return branches[int(core.concrete_value(index))](*operands)
    names = ["branch 0"] + [f"branch{i}" for i in range(1, len(branches))]
    return _bind_cond("switch", index, branches, names, operands, reference=0)


def cond(pred, true_fun, false_fun, *operands, operand=_no_operand):
    """``true_fun(*operands) if pred else false_fun(*operands)`` (SPEC CF-10).

    ``pred`` must be a scalar boolean or number (a number means
    ``pred != 0``).  Both functions are traced, even for a concrete
    ``pred``; the ``cond`` primitive then runs only the chosen one."""
    if not (callable(true_fun) and callable(false_fun)):
        if callable(false_fun) and len(operands) == 2 and callable(operands[1]):
            # The old form ``cond(pred, x_true, f_true, x_false, f_false)``.
            x_true, f_true, x_false, f_false = true_fun, false_fun, *operands
            return cond(pred, lambda x, _: f_true(x), lambda _, x: f_false(x),
                        x_true, x_false)
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    operands = _operand_keyword(operands, operand)
    pred = _check_pred(pred)
    if _config.disable_jit.value and _is_concrete(pred):
        # Only with jit disabled does a concrete predicate pick eagerly (CF-13).
        return (true_fun if core.concrete_value(pred) else false_fun)(*operands)
    index = lax.convert_element_type(pred, np.int32)
    # Branch 0 is false_fun, but true_fun is the one checked against (CF-15).
    return _bind_cond("cond", index, (false_fun, true_fun),
                      ["false_fun", "true_fun"], operands, reference=1)


def _operand_keyword(operands, operand):
    if operand is _no_operand:
        return operands
    if operands:
        raise TypeError("if 'operand' keyword is passed then no positional "
                        f"operands can be passed, got operand={operand!r} "
                        f"and positional operands {operands}")
    return (operand,)


def _check_pred(pred):
    """A scalar boolean predicate, numbers compared with 0 (SPEC CF-12)."""
    if pred is None:
        raise TypeError("cond predicate is None")
    if isinstance(pred, Sequence) or np.ndim(pred) != 0:
        where = (f"type {type(pred)}" if isinstance(pred, Sequence)
                 else f"shape {np.shape(pred)}.")
        raise TypeError(f"Pred must be a scalar, got {pred} of " + where)
    try:
        pred_dtype = dtypes.result_type(pred)
    except TypeError as err:
        raise TypeError(f"Pred type must be either boolean or number, got {pred}.") from err
    if pred_dtype.kind == "b":
        return pred
    if pred_dtype.kind in "iuf":
        return pred != 0
    raise TypeError(f"Pred type must be either boolean or number, got {pred_dtype}.")


def _is_concrete(x):
    return not isinstance(x, core.Tracer) or x.to_concrete_value() is not None


def _bind_cond(api_name, index, funs, names, operands, reference):
    """Trace every branch on the operands' avals, check each one's outputs
    against those of branch ``reference``, and bind ``cond`` (SPEC CF-13,
    CF-14, CF-15, CF-16).  Branches reaching ``jax.Ref``s are traced again
    with the Refs' values threaded through them (SPEC EXT-11)."""
    hooks = api.ref_hooks
    funs = [hooks.close_over(f, operands)[0] for f in funs]
    operands = hooks.close_over(funs[0], operands)[1]
    leaves, in_tree = tree_util.tree_flatten((operands, {}))
    for x in leaves:
        core.check_valid_jaxtype(x)
    avals = [core.get_aval(x) for x in leaves]
    # The reference branch is traced first (true_fun before false_fun).
    order = [reference] + [j for j in range(len(funs)) if j != reference]
    traced, found = [None] * len(funs), []
    for j in order:
        traced[j] = _trace_branch(hooks.discover(funs[j], found, api_name),
                                  in_tree, avals, api_name)
    ref_closed, _, ref_tree = traced[reference]
    for j, (closed, _, out_tree) in enumerate(traced):
        if j != reference:
            _check_branch_outputs(api_name, names[reference], names[j], funs[reference],
                                  funs[j], ref_tree, ref_closed.out_avals, out_tree,
                                  closed.out_avals)
    if found:
        hooks.check_cond_index(index)
        return hooks.call_with_refs(
            lambda fs, ops: _bind_cond(api_name, index, fs, names, ops, reference),
            funs, found, operands)
    branches, consts = _merge_consts([(c, k) for c, k, _ in traced])
    branches, in_fwd = _prune_forwarded_outputs(branches)
    outs = iter(cond_p.bind(index, *consts, *leaves, branches=tuple(branches)))
    all_inputs = [*consts, *leaves]
    flat = [next(outs) if f is None else _as_array(all_inputs[f]) for f in in_fwd]
    return tree_util.tree_unflatten(traced[0][2], flat)


def _as_array(x):
    """An operand a branch returns unchanged, as an array (``lax.asarray``)."""
    if isinstance(x, core.Tracer):
        return x
    return lax.asarray(x)


def _trace_branch(fun, in_tree, avals, name):
    """``(jaxpr, consts, out_tree)``: every constant the branch closes over
    (arrays and enclosing tracers alike) is hoisted to a leading invar, so
    it becomes an operand of ``cond`` (SPEC CF-14)."""
    box = []

    def flat_fun(*xs):
        ops, kwargs = tree_util.tree_unflatten(in_tree, xs)
        out_leaves, out_tree = tree_util.tree_flatten(fun(*ops, **kwargs))
        box.append(out_tree)
        return out_leaves

    closed = pe.trace_to_jaxpr(flat_fun, list(avals), core.DebugInfo(name, name, None))
    jaxpr = closed.jaxpr
    hoisted = jaxpr.replace(constvars=[], invars=list(jaxpr.constvars) + list(jaxpr.invars))
    return ClosedJaxpr(hoisted, []), list(closed.consts), box[0]


def _merge_consts(traced):
    """All branches take the same leading consts: the concatenation of each
    branch's, a value shared by several passed once (SPEC CF-14)."""
    consts, slot, positions = [], {}, []
    for _, cs in traced:
        used = []
        for c in cs:
            i = slot.get(_const_key(c))
            if i is None or i in used:
                # Equal contents twice in one branch are still two inputs.
                i = len(consts)
                consts.append(c)
                slot.setdefault(_const_key(c), i)
            used.append(i)
        positions.append(used)
    branches = []
    for (closed, cs), used in zip(traced, positions):
        jaxpr = closed.jaxpr
        mine = dict(zip(used, jaxpr.invars))
        lead = [mine[i] if i in mine else Var(core.get_aval(c)) for i, c in enumerate(consts)]
        new = jaxpr.replace(invars=lead + list(jaxpr.invars[len(cs):]))
        branches.append(ClosedJaxpr(new, closed.consts))
    return branches, consts


def _const_key(c):
    """Tracers are one value by identity.  A closed-over array reaches each
    branch's jaxpr as its own converted copy, so arrays are one value by
    contents (what JAX sees as one NumPy object shared by the branches)."""
    if isinstance(c, core.Tracer):
        return ("tracer", id(c))
    aval = core.get_aval(c)
    return ("array", aval.shape, str(aval.dtype), aval.weak_type,
            np.asarray(backend.get().to_host(core.to_buffer(c))).tobytes())


def _prune_forwarded_outputs(branches):
    """Outputs that every branch returns as the same input are not outputs
    of ``cond``: the operand itself is the result (SPEC CF-16)."""
    def forwarding(jaxpr):
        pos = {v: i for i, v in enumerate(jaxpr.invars)}
        return [pos.get(v) if type(v) is Var else None for v in jaxpr.outvars]

    fwds = [forwarding(b.jaxpr) for b in branches]
    in_fwd = [f[0] if len(set(f)) == 1 else None for f in zip(*fwds)]
    if all(f is None for f in in_fwd):
        return branches, in_fwd
    keep = [f is None for f in in_fwd]
    pruned = [ClosedJaxpr(b.jaxpr.replace(
        outvars=[v for v, k in zip(b.jaxpr.outvars, keep) if k]), b.consts)
        for b in branches]
    return pruned, in_fwd


# ---------------------------------------------------------------------------
# Checking that branches agree (JAX's messages)
# ---------------------------------------------------------------------------

def _check_branch_outputs(api_name, name1, name2, f1, f2, tree1, avals1, tree2, avals2):
    """Same pytree structure, then same shapes and dtypes (weak types may
    differ) for every output (SPEC CF-15)."""
    info1, info2 = core.fun_source_info(f1), core.fun_source_info(f2)
    if tree1 != tree2:
        diffs = [f"{name1} output{_at(p)} is a {a} but {name2} output{_at(p)} is a {b}, so {why}"
                 for p, a, b, why in structure_diffs(tree1, tree2)]
        if not diffs:
            return
        raise TypeError(
            f"{api_name} branch outputs must have the same pytree structure, but "
            f"they differ:\n\n{name1} is {info1}\n{name2} is {info2}\n\n"
            f"{_listing(diffs)}\nRevise {name1} and/or {name2} so that they "
            "have the same pytree structure.")
    paths = [p for p, _ in tree_util.tree_flatten_with_path(
        tree_util.tree_unflatten(tree1, list(avals1)))[0]]
    diffs = [f"the output of {name1}{_at(p)} has type {a1.str_short()} but the "
             f"corresponding output of {name2} has type {a2.str_short()}{mismatch_reason(a1, a2)}"
             for p, a1, a2 in zip(paths, avals1, avals2) if not typematch(a1, a2)]
    if not diffs:
        return
    if len(diffs) == 1:
        diffs[0] = diffs[0][0].upper() + diffs[0][1:]
    raise TypeError(
        f"{api_name} branches must have equal output types but they differ.\n\n"
        f"{name1} is {info1}\n{name2} is {info2}\n\n{_listing(diffs, types=True)}\n"
        f"Revise {name1} and/or {name2} so that all output types match.")


def _listing(diffs, types=False):
    """One difference as a sentence, several as a bulleted list (JAX lays
    out structure and type differences slightly differently)."""
    if len(diffs) == 1:
        return f"{diffs[0]}.\n"
    if types:
        return "\n".join(f"  * {d};" for d in diffs[:-1]) + f"\n  * {diffs[-1]}.\n"
    return "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"


def _at(path):
    return f" at path {tree_util.keystr(path)}" if path else ""


# ---------------------------------------------------------------------------
# The primitive: evaluation and abstract evaluation (SPEC CF-17, CF-18)
# ---------------------------------------------------------------------------

cond_p = Primitive("cond", multiple_results=True)


@cond_p.def_impl
def _cond_impl(index, *ops, branches):
    """Run only the chosen branch (the index is clamped, as XLA does)."""
    i = int(np.clip(backend.get().to_host(index), 0, len(branches) - 1))
    return executable_for(branches[i])(*ops)


@cond_p.def_abstract_eval
def _cond_abstract_eval(index, *ops, branches):
    """The outputs are typed like the first branch's, weak types included
    (SPEC CF-18)."""
    return branches[0].out_avals


# ---------------------------------------------------------------------------
# Forward mode (SPEC CF-19)
# ---------------------------------------------------------------------------

def _cond_jvp(primals, tangents, *, branches):
    """One ``cond`` of the branches' JVPs: a tangent output is non-zero when
    it is non-zero in any branch (other branches then output zeros)."""
    index, *ops = primals
    ops_nz = [type(t) is not ad.Zero for t in tangents[1:]]
    out_nz = [any(nz) for nz in zip(*[ad.jvp_jaxpr(b, ops_nz)[1] for b in branches])]
    jvp_branches = tuple(_jvp_instantiated(b, tuple(ops_nz), tuple(out_nz))
                         for b in branches)
    outs = cond_p.bind(index, *ops, *[t for t in tangents[1:] if type(t) is not ad.Zero],
                       branches=jvp_branches)
    n = len(out_nz)
    rest = iter(outs[n:])
    return outs[:n], [next(rest) if nz else ad.Zero(ad.tangent_aval(a))
                      for nz, a in zip(out_nz, branches[0].out_avals)]


def _jvp_instantiated(closed, ops_nz, out_nz):
    """The JVP jaxpr of ``closed`` with a tangent output for each ``out_nz``
    (zeros where this branch's tangent is symbolically zero)."""
    jvp_closed, nz = ad.jvp_jaxpr(closed, ops_nz)
    if tuple(nz) == out_nz:
        return jvp_closed
    n = len(out_nz)

    def fun(*args):
        outs = core.eval_jaxpr(jvp_closed.jaxpr, jvp_closed.consts, *args)
        rest = iter(outs[n:])
        tangents = [next(rest) if have else ad.zeros_like_aval(ad.tangent_aval(a))
                    for have, a in zip(nz, closed.out_avals)]
        return outs[:n] + [t for t, want in zip(tangents, out_nz) if want]

    return pe.trace_to_jaxpr(fun, jvp_closed.in_avals)


cond_p.jvp = _cond_jvp


# ---------------------------------------------------------------------------
# Partial evaluation: what reverse mode needs (SPEC CF-20)
# ---------------------------------------------------------------------------

def _cond_partial_eval(trace, args, params):
    """A known index: a known ``cond`` runs now, returning the known outputs
    and the residuals of *every* branch (zeros for those of branches not
    taken); the unknown ``cond`` of the branches' unknown parts is staged,
    fed the index, the residuals and the unknown operands."""
    branches = params["branches"]
    index, *ops = args
    if trace.is_unknown(index):
        return trace.stage(cond_p, args, params)
    ops_uk = tuple(trace.is_unknown(a) for a in ops)
    out_uk = tuple(any(u) for u in zip(*[
        ad.partial_eval_jaxpr(b, ops_uk, (False,) * len(b.out_avals))[2] for b in branches]))
    splits = [ad.partial_eval_jaxpr(b, ops_uk, out_uk) for b in branches]
    res_avals = [unknown.in_avals[:num_res] for _, unknown, _, num_res in splits]
    all_res, where = _merge_residuals(res_avals)
    n_known = len(out_uk) - sum(out_uk)
    known = tuple(_pad_residual_outputs(k, all_res, w, n_known)
                  for (k, _, _, _), w in zip(splits, where))
    unknown = tuple(_pad_residual_inputs(u, all_res, w)
                    for (_, u, _, _), w in zip(splits, where))
    known_outs = trace.parent.process_primitive(
        cond_p, [index, *[a for a, u in zip(ops, ops_uk) if not u]], dict(branches=known))
    staged = trace.stage(cond_p, [index, *known_outs[n_known:],
                                  *[a for a, u in zip(ops, ops_uk) if u]],
                         dict(branches=unknown))
    known_it, staged_it = iter(known_outs[:n_known]), iter(staged)
    return [next(staged_it) if u else next(known_it) for u in out_uk]


cond_p.partial_eval = _cond_partial_eval


def _cond_partial_eval_custom(saveable, unks_in, inst_in, eqn):
    """Split each branch with the checkpoint policy: the known ``cond``
    returns the known outputs and every branch's residuals (merged slots),
    the staged ``cond`` recomputes the rest from them and all operands
    (SPEC AD-98).  An unknown index stages the whole ``cond``."""
    index_uk, *ops_uk = unks_in
    branches = eqn.params["branches"]
    not_inst = [v for v, i in zip(eqn.invars, inst_in) if type(v) is Var and not i]
    n_out = len(eqn.outvars)
    if index_uk:
        return None, eqn, [True] * n_out, [True] * n_out, not_inst

    def split(b, ensure_uk):
        return pe.partial_eval_jaxpr_custom(b.jaxpr, ops_uk, True, ensure_uk, True, saveable)

    out_uk = [any(u) for u in zip(*[split(b, False)[2] for b in branches])]
    splits = [split(b, out_uk) for b in branches]
    res_avals = [[v.aval for v in s[1].invars[:s[4]]] for s in splits]
    all_res, where = _merge_residuals(res_avals)
    n_known = n_out - sum(out_uk)
    known = tuple(_pad_residual_outputs(ClosedJaxpr(s[0], b.consts), all_res, w, n_known)
                  for s, b, w in zip(splits, branches, where))
    staged = tuple(_pad_residual_inputs(ClosedJaxpr(s[1], b.consts), all_res, w)
                   for s, b, w in zip(splits, branches, where))
    res = [Var(a) for a in all_res]
    index, *ops = eqn.invars
    eqn_known = eqn.replace(
        invars=[index, *[v for v, u in zip(ops, ops_uk) if not u]],
        outvars=[v for v, u in zip(eqn.outvars, out_uk) if not u] + res,
        params=dict(eqn.params, branches=known))
    eqn_staged = eqn.replace(invars=[index, *res, *ops],
                             params=dict(eqn.params, branches=staged))
    return eqn_known, eqn_staged, out_uk, [True] * n_out, not_inst + res


def _cond_dce(used_outputs, eqn):
    """Drop the outputs nobody reads from every branch, then the operands
    no branch reads any more (SPEC AD-99)."""
    if not any(used_outputs):
        return [False] * len(eqn.invars), None
    branches = eqn.params["branches"]
    used_ops = [any(u) for u in zip(*[dce.dce_jaxpr(b.jaxpr, used_outputs)[1]
                                      for b in branches])]
    new = tuple(ClosedJaxpr(dce.dce_jaxpr(b.jaxpr, used_outputs, used_ops)[0], b.consts)
                for b in branches)
    used_in = [True, *used_ops]
    return used_in, eqn.replace(
        invars=[v for v, u in zip(eqn.invars, used_in) if u],
        outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
        params=dict(eqn.params, branches=new))


cond_p.partial_eval_custom = _cond_partial_eval_custom
cond_p.dce_rule = _cond_dce


def _merge_residuals(res_avals):
    """One list of residual avals for all branches: the n-th residual of a
    given aval in any branch shares one slot.  Returns the list and, per
    branch, the slot of each of its residuals."""
    def tagged(avals):
        counts = collections.defaultdict(itertools.count)
        return [(a, next(counts[a])) for a in avals]

    per_branch = [tagged(avals) for avals in res_avals]
    slots = list(dict.fromkeys(t for avals in per_branch for t in avals))
    index = {t: i for i, t in enumerate(slots)}
    return [a for a, _ in slots], [[index[t] for t in avals] for avals in per_branch]


def _pad_residual_outputs(closed, all_res, where, n_out):
    """``closed`` returning every slot of ``all_res``: its own residuals in
    their slots, zeros in the others."""
    def fun(*args):
        outs = core.eval_jaxpr(closed.jaxpr, closed.consts, *args)
        res = [None] * len(all_res)
        for slot, r in zip(where, outs[n_out:]):
            res[slot] = r
        return outs[:n_out] + [ad.zeros_like_aval(a) if r is None else r
                               for r, a in zip(res, all_res)]

    return pe.trace_to_jaxpr(fun, closed.in_avals)


def _pad_residual_inputs(closed, all_res, where):
    """``closed`` taking every slot of ``all_res`` first (unused ones fresh)."""
    jaxpr = closed.jaxpr
    res_vars = [Var(a) for a in all_res]
    for slot, v in zip(where, jaxpr.invars[:len(where)]):
        res_vars[slot] = v
    return ClosedJaxpr(jaxpr.replace(invars=res_vars + list(jaxpr.invars[len(where):])),
                       closed.consts)


# ---------------------------------------------------------------------------
# Transposition (SPEC CF-21)
# ---------------------------------------------------------------------------

def _cond_transpose(cts, index, *ops, branches):
    """A ``cond`` of the transposed branches, on the non-linear operands and
    the non-zero cotangents; it returns every linear operand's cotangent."""
    linear = tuple(type(a) is ad.UndefinedPrimal for a in ops)
    ct_nz = tuple(type(c) is not ad.Zero for c in cts)
    t_branches = tuple(ad.transpose_jaxpr(b, linear, ct_nz) for b in branches)
    outs = iter(cond_p.bind(index, *[a for a, lin in zip(ops, linear) if not lin],
                            *[c for c in cts if type(c) is not ad.Zero],
                            branches=t_branches))
    return [None] + [next(outs) if lin else None for lin in linear]


cond_p.transpose = _cond_transpose


# ---------------------------------------------------------------------------
# Batching (SPEC CF-22, CF-23)
# ---------------------------------------------------------------------------

def _cond_batch(axis_data, vals, dims, *, branches):
    """A batched index runs every branch on the whole batch and picks each
    example's result with ``select_n``; an unbatched index keeps one
    ``cond``, of the batched branches."""
    if dims[0] is not batching.not_mapped:
        return _batched_index(axis_data, vals, dims, branches)
    index, *ops = vals
    ops_bat = [d is not batching.not_mapped for d in dims[1:]]
    ops = [batching.moveaxis(x, d, 0) if b else x for x, d, b in zip(ops, dims[1:], ops_bat)]
    out_bat = tuple(any(b) for b in zip(*[
        batching.batch_jaxpr(b, axis_data, ops_bat, False)[1] for b in branches]))
    batched = tuple(batching.batch_jaxpr(b, axis_data, ops_bat, out_bat)[0] for b in branches)
    outs = cond_p.bind(index, *ops, branches=batched)
    return outs, [0 if b else batching.not_mapped for b in out_bat]


def _batched_index(axis_data, vals, dims, branches):
    """Every branch on every example (operands it is not chosen for are
    passed through ``stop_gradient``, as JAX does), then ``select_n``."""
    index, *ops = [batching.bdim_at_front(x, d, axis_data.size) for x, d in zip(vals, dims)]
    n_in, n_out = len(branches[0].in_avals), len(branches[0].out_avals)
    results = []
    for i, closed in enumerate(branches):
        batched, _ = batching.batch_jaxpr(closed, axis_data, (True,) * n_in, (True,) * n_out)
        chosen = lax.eq(index, lax._const(index, i))
        ops_i = [_bcast_select(chosen, x, ad.stop_gradient_p.bind(x)) for x in ops]
        results.append(core.eval_jaxpr(batched.jaxpr, batched.consts, *ops_i))
    outs = [_bcast_select_n(index, *cases) for cases in zip(*results)]
    return outs, [0] * n_out


def _bcast_select(pred, on_true, on_false):
    return lax.select(_bcast_to(pred, on_true), on_true, on_false)


def _bcast_select_n(which, *cases):
    return lax.select_n(_bcast_to(which, cases[0]), *cases)


def _bcast_to(pred, like):
    """``pred`` (batch axis only) broadcast to the shape of ``like``."""
    if np.ndim(pred) == np.ndim(like):
        return pred
    return lax_shapes.broadcast_in_dim(pred, np.shape(like), tuple(range(np.ndim(pred))))


def _cond_batch_unmapped(params, axis_data):
    """A named axis reaches the branches when one may hold a collective."""
    return axis_data.name is not None and any(
        batching._mentions_collective(b.jaxpr) for b in params["branches"])


cond_p.batch = _cond_batch
cond_p.batch_unmapped = _cond_batch_unmapped


def _cond_key_reuse(eqn):
    """Each branch may consume a key once: the signature joins the
    branches' sinks (shifted past the index operand) and keeps sources
    and forwards common to all branches (RNG-70)."""
    sigs = [kr.operands_only(kr.jaxpr_signature(b.jaxpr), len(b.jaxpr.invars))
            for b in eqn.params["branches"]]
    sinks, sources = defaultdict(list), defaultdict(list)
    for sig in sigs:
        for s in sig.sinks:
            sinks[s.idx].append(s.mask)
        for s in sig.sources:
            sources[s.idx].append(s.mask)
    forwards = set.intersection(*(set(sig.forwards) for sig in sigs))
    return kr.KeyReuseSignature(
        *(kr.Sink(i + 1, reduce(np.logical_or, m)) for i, m in sinks.items()),
        *(kr.Source(i, reduce(np.logical_and, m)) for i, m in sources.items()),
        *(kr.Forward(f.in_idx + 1, f.out_idx) for f in forwards))


cond_p.key_reuse = _cond_key_reuse
