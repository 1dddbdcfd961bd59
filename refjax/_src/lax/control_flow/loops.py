"""``lax.while_loop``: the ``while`` primitive (SPEC CF-30 .. CF-44).

``while_loop(cond_fun, body_fun, init_val)`` traces both functions once on
the abstract carry and binds one ``while`` equation::

    outs = while[body_jaxpr=... body_nconsts=m cond_jaxpr=... cond_nconsts=n]
               *cond_consts *body_consts *carry

The carry's type is fixed: the body must return exactly the type it is
given (a weakly typed initial value is first promoted to the body's output
dtype).  The loop runs forward only: JVP and batching rules exist, and
reverse mode raises JAX's error when a ``while`` is transposed.
"""

import numpy as np

from refjax._src import api, backend
from refjax._src import config as _config
from refjax._src import core, dtypes, errors, tree_util
from refjax._src.compiler import executable_for
from refjax._src.core import ClosedJaxpr, Primitive, Var
from refjax._src.interpreters import ad, batching
from refjax._src.interpreters import key_reuse as kr
from refjax._src.interpreters import partial_eval as pe
from refjax._src.lax import lax
from refjax._src.lax.control_flow.common import (
    aval_of, check_carry_type, trace_to_jaxpr, typematch,
)

# ---------------------------------------------------------------------------
# The API
# ---------------------------------------------------------------------------

def while_loop(cond_fun, body_fun, init_val):
    """Run ``body_fun`` on the carry while ``cond_fun`` holds (SPEC CF-30)."""
    if not (callable(body_fun) and callable(cond_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    if _config.disable_jit.value:
        result = _python_while(cond_fun, body_fun, init_val)
        if result is not _NOT_CONCRETE:
            return result
    leaves, in_tree = tree_util.tree_flatten(init_val)
    in_avals = [aval_of(x) for x in leaves]
    found = []      # jax.Refs the functions reach from outside (SPEC EXT-10)
    traced = _trace_loop(api.ref_hooks.discover(cond_fun, found, "while_cond"),
                         api.ref_hooks.discover(body_fun, found, "while_body"),
                         in_tree, in_avals, keys=(cond_fun, body_fun),
                         cacheable=lambda: not found)
    if found:
        return api.ref_hooks.while_loop(while_loop, cond_fun, body_fun, found,
                                        init_val)
    leaves, changed = _promote_weak_typed_inputs(leaves, in_avals,
                                                 traced.body_out_avals)
    if changed:
        in_avals = [aval_of(x) for x in leaves]
        traced = _trace_loop(cond_fun, body_fun, in_tree, in_avals)
    check_carry_type("while_loop body", body_fun, in_tree, in_avals,
                      traced.body_out_tree, traced.body_out_avals)
    outs = _bind_while(traced, leaves)
    return tree_util.tree_unflatten(traced.body_out_tree, outs)


_NOT_CONCRETE = object()


def _python_while(cond_fun, body_fun, init_val):
    """Under ``disable_jit`` the loop runs in Python (SPEC CF-44); a traced
    predicate falls back to the primitive."""
    try:
        val = tree_util.tree_map(lax.asarray, init_val)
        while cond_fun(val):
            val = tree_util.tree_map(lax.asarray, body_fun(val))
        return val
    except errors.ConcretizationTypeError:
        return _NOT_CONCRETE


class _TracedLoop:
    """The traced cond and body: closed jaxprs, hoisted consts, body output."""

    def __init__(self, cond, cond_consts, body, body_consts, body_out_tree):
        self.cond, self.cond_consts = cond, cond_consts
        self.body, self.body_consts = body, body_consts
        self.body_out_tree = body_out_tree
        self.body_out_avals = body.out_avals


def _trace_loop(cond_fun, body_fun, in_tree, in_avals, keys=(None, None),
                cacheable=None):
    """Trace both functions on ``in_avals``; check the predicate (CF-31).
    The traces are remembered under the functions in ``keys`` (CF-92)."""
    carry_tree = tree_util.treedef_tuple([in_tree])
    cond, cond_consts, cond_tree = trace_to_jaxpr(
        cond_fun, carry_tree, in_avals, "while_cond", key_fun=keys[0],
        cacheable=cacheable)
    body, body_consts, body_tree = trace_to_jaxpr(
        body_fun, carry_tree, in_avals, "while_body", key_fun=keys[1],
        cacheable=cacheable)
    _check_predicate(cond, cond_tree)
    return _TracedLoop(cond, cond_consts, body, body_consts, body_tree)


def _check_predicate(cond, cond_tree):
    """``cond_fun`` must return one boolean scalar (weak or not)."""
    if not tree_util.treedef_is_leaf(cond_tree) or len(cond.out_avals) != 1:
        raise TypeError("cond_fun must return a boolean scalar, but got pytree "
                        f"{cond_tree}.")
    aval = cond.out_avals[0]
    if aval.shape != () or aval.dtype != np.bool_:
        raise TypeError("cond_fun must return a boolean scalar, but got output "
                        f"type(s) {cond.out_avals}.")


def _promote_weak_typed_inputs(leaves, in_avals, out_avals):
    """``(leaves, changed)``: a weakly typed leaf whose type differs from the
    body's output for it is cast (strongly) to the join of the two dtypes,
    so that the loop is traced again on it (SPEC CF-32)."""
    out, changed = [], False
    for x, a, o in zip(leaves, in_avals, out_avals):
        if a.weak_type and not typematch(a, o):
            x, changed = lax.convert_element_type(x, dtypes.result_type(x, o)), True
        out.append(x)
    return out, changed


# ---------------------------------------------------------------------------
# Carry type errors (SPEC CF-33, CF-34)
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Binding: forwarded carries not read by the predicate become body consts
# ---------------------------------------------------------------------------

def _bind_while(traced, carry):
    """Bind ``while``; a carry the body returns unchanged and the predicate
    never reads is passed as a body const instead (CF-35)."""
    cond, body = traced.cond, traced.body
    n_cc, n_bc = len(traced.cond_consts), len(traced.body_consts)
    moved = _movable_carries(cond, body, n_cc, n_bc)
    body_consts = list(traced.body_consts)
    moved_vals = [x for x, m in zip(carry, moved) if m]
    if any(moved):
        cond = _drop_cond_inputs(cond, n_cc, moved)
        body = _carries_to_consts(body, n_bc, moved)
        body_consts = moved_vals + body_consts
        carry = [x for x, m in zip(carry, moved) if not m]
    outs = iter(while_p.bind(*traced.cond_consts, *body_consts, *carry,
                             cond_jaxpr=cond, body_jaxpr=body,
                             cond_nconsts=n_cc, body_nconsts=len(body_consts)))
    moved_vals = iter(moved_vals)
    return [next(moved_vals) if m else next(outs) for m in moved]


def _movable_carries(cond, body, n_cc, n_bc):
    """Which carries the body forwards unchanged and the predicate ignores."""
    carry_in = body.jaxpr.invars[n_bc:]
    forwarded = [o is i for o, i in zip(body.jaxpr.outvars, carry_in)]
    live = ad.dce_closed(cond, [True])
    used = _used_vars(live.jaxpr)
    return [f and v not in used for f, v in zip(forwarded, cond.jaxpr.invars[n_cc:])]


def _used_vars(jaxpr):
    used = {v for v in jaxpr.outvars if type(v) is Var}
    for eqn in jaxpr.eqns:
        used.update(v for v in eqn.invars if type(v) is Var)
    return used


def _drop_cond_inputs(cond, n_cc, moved):
    """The predicate without the moved carries (and its dead equations)."""
    live = ad.dce_closed(cond, [True])
    invars = live.jaxpr.invars[:n_cc] + [
        v for v, m in zip(live.jaxpr.invars[n_cc:], moved) if not m]
    return ClosedJaxpr(live.jaxpr.replace(invars=invars), live.consts)


def _carries_to_consts(body, n_bc, moved):
    """The body taking the moved carries first, as consts, and no longer
    returning them."""
    jaxpr = body.jaxpr
    consts, carry = jaxpr.invars[:n_bc], jaxpr.invars[n_bc:]
    invars = ([v for v, m in zip(carry, moved) if m] + consts
              + [v for v, m in zip(carry, moved) if not m])
    outvars = [v for v, m in zip(jaxpr.outvars, moved) if not m]
    return ClosedJaxpr(jaxpr.replace(invars=invars, outvars=outvars), body.consts)


# ---------------------------------------------------------------------------
# The primitive: evaluation and abstract evaluation (SPEC CF-37, CF-38)
# ---------------------------------------------------------------------------

while_p = Primitive("while", multiple_results=True)


def _split(args, cond_nconsts, body_nconsts):
    n = cond_nconsts + body_nconsts
    return list(args[:cond_nconsts]), list(args[cond_nconsts:n]), list(args[n:])


@while_p.def_abstract_eval
def _while_abstract_eval(*avals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    return body_jaxpr.out_avals


@while_p.def_impl
def _while_impl(*buffers, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    """A Python loop over the compiled cond and body.  A predicate with
    dimensions (left by batching, SPEC CF-38) continues while any member holds;
    members whose predicate is false keep their carry."""
    cconsts, bconsts, carry = _split(buffers, cond_nconsts, body_nconsts)
    cond, body = executable_for(cond_jaxpr), executable_for(body_jaxpr)
    xp = backend.get().xp
    pred = cond(*cconsts, *carry)[0]
    if not np.shape(pred):
        while bool(pred):
            carry = list(body(*bconsts, *carry))
            pred = cond(*cconsts, *carry)[0]
        return carry
    while bool(xp.any(pred)):
        new = body(*bconsts, *carry)
        carry = [_select_running(xp, pred, n, x) for n, x in zip(new, carry)]
        pred = cond(*cconsts, *carry)[0]
    return carry


def _select_running(xp, pred, new, old):
    """``new`` where the member's predicate holds, else ``old``: ``pred``
    covers the leading axes of the carry and is broadcast along the rest."""
    trailing = (1,) * (np.ndim(old) - np.ndim(pred))
    return xp.where(xp.reshape(pred, np.shape(pred) + trailing), new, old)


def _pp_while(eqn, context):
    """``while[body_jaxpr={...} body_nconsts=m cond_jaxpr={...}
    cond_nconsts=n]``, params in name order (SPEC CF-35)."""
    return core.pp_eqn_with_params(eqn, context, eqn.params, sorted(eqn.params))


while_p.pp_rule = _pp_while


# ---------------------------------------------------------------------------
# Forward mode (SPEC CF-39)
# ---------------------------------------------------------------------------

def _carry_fixpoint(carry_flags, step):
    """Grow ``carry_flags`` by ``step(flags)`` (the flags of the body's
    outputs) until nothing new is flagged."""
    carry_flags = list(carry_flags)
    for _ in range(1 + len(carry_flags)):
        grown = [a or b for a, b in zip(carry_flags, step(carry_flags))]
        if grown == carry_flags:
            return carry_flags
        carry_flags = grown
    raise AssertionError("carry fixpoint not reached")


def _jvp_body(body, nonzeros, instantiate):
    """The JVP of ``body`` (primals + non-zero tangents in and out) whose
    carry tangents flagged in ``instantiate`` are all present."""
    jvp_closed, out_nz = ad.jvp_jaxpr(body, nonzeros)
    if list(out_nz) == list(instantiate):
        return jvp_closed
    n_out = len(body.out_avals)

    def fun(*args):
        outs = core.eval_jaxpr(jvp_closed.jaxpr, jvp_closed.consts, *args)
        primals, rest = outs[:n_out], iter(outs[n_out:])
        tangents = [next(rest) if nz else
                    ad.zeros_like_aval(ad.tangent_aval(a)) if inst else None
                    for nz, inst, a in zip(out_nz, instantiate, body.out_avals)]
        return primals + [t for t in tangents if t is not None]

    return pe.trace_to_jaxpr(fun, jvp_closed.in_avals)


def _while_jvp(primals, tangents, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    """A ``while`` over primals and the carry tangents that can be non-zero:
    a carry tangent is non-zero if its initial value is, or if the body makes
    it so from non-zero tangents (a fixed point).  The predicate reads only
    the primals."""
    nz = [type(t) is not ad.Zero for t in tangents]
    _, bconst_nz, init_nz = _split(nz, cond_nconsts, body_nconsts)
    carry_nz = _carry_fixpoint(
        init_nz, lambda c: ad.jvp_jaxpr(body_jaxpr, bconst_nz + list(c))[1])
    body_jvp = _jvp_body(body_jaxpr, bconst_nz + carry_nz, carry_nz)
    cconsts, bconsts, init = _split(primals, cond_nconsts, body_nconsts)
    _, bconst_dot, init_dot = _split(tangents, cond_nconsts, body_nconsts)
    bconst_dot = [t for t in bconst_dot if type(t) is not ad.Zero]
    init_dot = [ad.instantiate_zeros(t) for t, n in zip(init_dot, carry_nz) if n]
    body_jvp = _rearrange_jvp_body(body_jvp, body_nconsts, len(bconst_dot), len(init))
    cond_aug = _cond_ignoring_tangents(cond_jaxpr, [core.get_aval(t) for t in init_dot])
    outs = while_p.bind(*cconsts, *bconsts, *bconst_dot, *init, *init_dot,
                        cond_jaxpr=cond_aug, body_jaxpr=body_jvp,
                        cond_nconsts=cond_nconsts,
                        body_nconsts=body_nconsts + len(bconst_dot))
    out_primals, rest = outs[:len(init)], iter(outs[len(init):])
    out_tangents = [next(rest) if n else ad.Zero(ad.tangent_aval(a))
                    for n, a in zip(carry_nz, body_jaxpr.out_avals)]
    return out_primals, out_tangents


def _rearrange_jvp_body(closed, n_bc, n_bc_dot, n_carry):
    """Reorder the JVP body's binders from (consts, carry, const tangents,
    carry tangents) to (consts, const tangents, carry, carry tangents)."""
    v = closed.jaxpr.invars
    consts, carry = v[:n_bc], v[n_bc:n_bc + n_carry]
    dots = v[n_bc + n_carry:]
    invars = consts + dots[:n_bc_dot] + carry + dots[n_bc_dot:]
    return ClosedJaxpr(closed.jaxpr.replace(invars=invars), closed.consts)


def _cond_ignoring_tangents(cond, tangent_avals):
    """``cond`` with extra, unused binders for the carry tangents."""
    extra = [Var(a) for a in tangent_avals]
    jaxpr = cond.jaxpr.replace(invars=cond.jaxpr.invars + extra)
    return ClosedJaxpr(jaxpr, cond.consts)


while_p.jvp = _while_jvp


# ---------------------------------------------------------------------------
# Reverse mode (SPEC CF-40, CF-41)
# ---------------------------------------------------------------------------

_REVERSE_MODE_ERROR = (
    "Reverse-mode differentiation does not work for lax.while_loop or "
    "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or "
    "using fori_loop with static start/stop.")


def _while_partial_eval(trace, args, params):
    """Known carries (those no unknown value reaches, found as a fixed
    point) are computed now by a ``while`` of the known part; the whole loop
    is staged for the unknown outputs, recomputing the known ones.  So
    ``linearize`` works, and transposing the staged loop raises."""
    cn, bn = params["cond_nconsts"], params["body_nconsts"]
    unknowns = [trace.is_unknown(a) for a in args]
    cc_uk, bc_uk, init_uk = _split(unknowns, cn, bn)
    body = params["body_jaxpr"]
    carry_uk = _carry_fixpoint(
        init_uk, lambda c: ad.partial_eval_jaxpr(body, bc_uk + list(c))[2])
    cond_uk = ad.partial_eval_jaxpr(params["cond_jaxpr"], cc_uk + carry_uk)[2][0]
    if cond_uk or all(carry_uk) or not any(unknowns):
        return trace.stage(while_p, args, params)
    known = _known_loop(params, cc_uk, bc_uk, carry_uk)
    known_outs = iter(trace.parent.process_primitive(
        while_p, [a for a, u in zip(args, cc_uk + bc_uk + carry_uk) if not u], known))
    staged = trace.stage(while_p, args, params)
    return [s if u else next(known_outs) for s, u in zip(staged, carry_uk)]


def _known_loop(params, cc_uk, bc_uk, carry_uk):
    """Params of the ``while`` over the known consts and carries only."""
    cond = _known_part(params["cond_jaxpr"], cc_uk + carry_uk, [False])
    body = _known_part(params["body_jaxpr"], bc_uk + carry_uk, carry_uk)
    return dict(cond_jaxpr=cond, body_jaxpr=body,
                cond_nconsts=cc_uk.count(False), body_nconsts=bc_uk.count(False))


def _known_part(closed, unknown_in, unwanted_out):
    """``closed`` on its known inputs, computing the outputs not flagged in
    ``unwanted_out`` (all known, which the fixed point guarantees)."""
    known, _, out_uk, num_res = ad.partial_eval_jaxpr(closed, unknown_in)
    keep = [not w for w, u in zip(unwanted_out, out_uk) if not u]
    return ad.dce_closed(known, keep + [False] * num_res)


def _while_transpose(cts, *args, **params):
    raise ValueError(_REVERSE_MODE_ERROR)


while_p.partial_eval = _while_partial_eval
while_p.transpose = _while_transpose


# ---------------------------------------------------------------------------
# Batching (SPEC CF-42, CF-43)
# ---------------------------------------------------------------------------

def _while_batch(axis_data, vals, dims, cond_jaxpr, body_jaxpr, cond_nconsts,
                 body_nconsts):
    """Batch the body; which carries are batched is a fixed point.  With an
    unbatched predicate the loop is one ``while`` of the batched body.  A
    batched predicate makes every carry batched and leaves a predicate with
    a batch dimension: the loop runs while any member's holds, members that
    are done keeping their carry."""
    batched = [d is not batching.not_mapped for d in dims]
    cc_b, bc_b, init_b = _split(batched, cond_nconsts, body_nconsts)
    carry_b = _carry_fixpoint(init_b, lambda c: batching.batch_jaxpr(
        body_jaxpr, axis_data, bc_b + list(c), list(c))[1])
    pred_b = batching.batch_jaxpr(cond_jaxpr, axis_data, cc_b + carry_b, False)[1][0]
    # The predicate's dimensions (left by an inner vmap) must stay a prefix
    # of every carry's shape: an unbatched predicate of rank r puts the
    # batch axis of the carry at r.
    axis = 0 if pred_b else len(cond_jaxpr.out_avals[0].shape)
    if pred_b:
        carry_b = [True] * len(carry_b)
    body = _batch_jaxpr_at(body_jaxpr, axis_data, bc_b + carry_b, carry_b,
                           [0] * len(bc_b) + [axis] * len(carry_b))
    cond = _batch_jaxpr_at(cond_jaxpr, axis_data, cc_b + carry_b, [pred_b],
                           [0] * len(cc_b) + [axis] * len(carry_b))
    vals = [batching.moveaxis(v, d, 0) if d is not batching.not_mapped else v
            for v, d in zip(vals, dims)]
    n = cond_nconsts + body_nconsts
    init = [batching.move_or_broadcast(v, 0 if ib else batching.not_mapped, axis,
                                       axis_data.size) if b else v
            for v, ib, b in zip(vals[n:], init_b, carry_b)]
    outs = while_p.bind(*vals[:n], *init, cond_jaxpr=cond, body_jaxpr=body,
                        cond_nconsts=cond_nconsts, body_nconsts=body_nconsts)
    return outs, [axis if b else batching.not_mapped for b in carry_b]


def _batch_jaxpr_at(closed, axis_data, in_batched, instantiate, in_axes):
    """``batching.batch_jaxpr`` with the batch axis of input ``k`` at
    ``in_axes[k]``; batched outputs have theirs at the carries' axis (the
    last of ``in_axes``, or 0)."""
    batched, _ = batching.batch_jaxpr(closed, axis_data, in_batched, instantiate)
    if all(a == 0 for a in in_axes):
        return batched
    out_axis = in_axes[-1]

    def fun(*args):
        args = [batching.moveaxis(x, a, 0) if b else x
                for x, a, b in zip(args, in_axes, in_batched)]
        outs = core.eval_jaxpr(batched.jaxpr, batched.consts, *args)
        return [batching.moveaxis(o, 0, out_axis) if b else o
                for o, b in zip(outs, instantiate)]

    avals = [batching.batched_aval(a, axis_data.size, ax) if b else a
             for a, b, ax in zip(closed.in_avals, in_batched, in_axes)]
    return pe.trace_to_jaxpr(fun, avals)




def _while_batch_unmapped(params, axis_data):
    """A named axis may be used by a collective inside either jaxpr."""
    return axis_data.name is not None and any(
        batching._mentions_collective(params[k].jaxpr)
        for k in ("cond_jaxpr", "body_jaxpr"))


while_p.batch = _while_batch
while_p.batch_unmapped = _while_batch_unmapped


def _while_key_reuse(eqn):
    """``while_loop``: as for scan, for both the cond and the body, which
    may not consume the same carried key either (RNG-71)."""
    p = eqn.params
    cond_n, body_n = p["cond_nconsts"], p["body_nconsts"]
    cond_jaxpr, body_jaxpr = p["cond_jaxpr"].jaxpr, p["body_jaxpr"].jaxpr
    cond_signature = kr.jaxpr_signature(cond_jaxpr)
    body_signature = kr.jaxpr_signature(body_jaxpr)
    cond_msg = ("while_loop cond function leads to key reuse when repeatedly "
                f"executed:   cond_signature={cond_signature!r}\n  eqn={eqn!r}")
    body_msg = ("while_loop body function leads to key reuse when repeatedly "
                f"executed:   body_signature={body_signature!r}\n  eqn={eqn!r}")
    if kr.consumes_consts(cond_signature, cond_n, cond_jaxpr):
        raise kr.KeyReuseError(cond_msg)
    if kr.consumes_consts(body_signature, body_n, body_jaxpr):
        raise kr.KeyReuseError(body_msg)
    body_sinks = {s.idx - body_n for s in body_signature.sinks if s.idx >= body_n}
    cond_sinks = {s.idx - cond_n for s in cond_signature.sinks if s.idx >= cond_n}
    sources = {s.idx for s in body_signature.sources}
    if not cond_sinks <= sources:
        raise kr.KeyReuseError(cond_msg)
    if not body_sinks <= sources:
        raise kr.KeyReuseError(body_msg)
    if body_sinks & cond_sinks:
        raise kr.KeyReuseError(
            "while_loop cond and body functions both use the same key: "
            f"  cond_signature={cond_signature!r}\n"
            f"  body_signature={body_signature!r}\n  eqn={eqn!r}")
    return body_signature


while_p.key_reuse = _while_key_reuse
