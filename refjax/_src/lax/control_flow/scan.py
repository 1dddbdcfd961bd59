"""``scan``, ``fori_loop``, ``map`` and ``associative_scan`` (SPEC CF-50..79).

``scan`` is one primitive holding the closed jaxpr of the loop body, a
function ``(consts, carry, x) -> (carry, y)``.  Its operands are the
``num_consts`` loop-invariant values, the ``num_carry`` carried values and
the scanned arrays ``xs`` (one slice per iteration); its results are the
final carry and the per-iteration outputs stacked along a new leading axis.
"""
import builtins
import operator

import numpy as np

from refjax._src import api, backend, config, core, dtypes, errors, tree_util
from refjax._src.compiler import executable_for
from refjax._src.core import ClosedJaxpr, Primitive, ShapedArray
from refjax._src.interpreters import ad, batching, dce
from refjax._src.interpreters import key_reuse as kr
from refjax._src.interpreters import partial_eval as pe
from refjax._src.lax import lax, shapes
from refjax._src.lax.control_flow.common import (
    aval_of, check_carry_type, trace_to_jaxpr, typematch,
)

# ---------------------------------------------------------------------------
# The primitive
# ---------------------------------------------------------------------------

scan_p = Primitive("scan", multiple_results=True)


def _split(seq, sizes):
    """``seq`` cut into consecutive lists of the given sizes, then the rest."""
    out, i = [], 0
    for n in sizes:
        out.append(list(seq[i:i + n]))
        i += n
    out.append(list(seq[i:]))
    return out


def _stacked(aval, length):
    return ShapedArray((length, *aval.shape), aval.dtype, aval.weak_type)


def _unstacked(aval):
    return ShapedArray(aval.shape[1:], aval.dtype, aval.weak_type)


@scan_p.def_abstract_eval
def _scan_abstract_eval(*avals, jaxpr, length, num_carry, **_):
    """The final carry has the body's carry-out types; each ``y`` is stacked
    ``length`` times (SPEC CF-50)."""
    carry, ys = _split(jaxpr.out_avals, [num_carry])
    return carry + [_stacked(a, length) for a in ys]


def _scan_impl(*args, jaxpr, length, reverse, num_consts, num_carry, **_):
    """Run the compiled body once per index (descending when ``reverse``),
    threading the carry and stacking the ``y`` slices in index order."""
    if not jaxpr.out_avals and not jaxpr.jaxpr.eqns:
        return []  # an empty body: JAX's compiler drops such loops too
    run = executable_for(jaxpr)
    consts, carry, xs = _split(args, [num_consts, num_carry])
    order = range(length - 1, -1, -1) if reverse else range(length)
    ys = []
    for i in order:
        outs = run(*consts, *carry, *[x[i, ...] for x in xs])
        carry, y = outs[:num_carry], outs[num_carry:]
        ys.append(y)
    if reverse:
        ys.reverse()
    xp = backend.get().xp
    y_avals = jaxpr.out_avals[num_carry:]
    stacked = [xp.stack([y[k] for y in ys]) if ys
               else xp.zeros((0, *a.shape), dtype=a.dtype)
               for k, a in enumerate(y_avals)]
    return list(carry) + stacked


scan_p.def_impl(_scan_impl)


def _scan_pp_params(params):
    """JAX hides ``linear`` when all False and ``_split_transpose`` when
    False (SPEC CF-51)."""
    shown = dict(params)
    if not any(shown["linear"]):
        del shown["linear"]
    if not shown["_split_transpose"]:
        del shown["_split_transpose"]
    return shown


scan_p.pp_params = _scan_pp_params


def _bind_scan(consts, carry, xs, *, jaxpr, length, reverse, unroll,
               split_transpose=False):
    """Bind ``scan`` with the counts derived from the operand lists.

    ``linear`` is always all False: JAX 0.10.2's rules do not mark linear
    operands (so its jaxprs never show the parameter)."""
    args = [*consts, *carry, *xs]
    return scan_p.bind(*args, jaxpr=jaxpr, length=length, reverse=reverse,
                       linear=(False,) * len(args), unroll=unroll,
                       num_consts=len(consts), num_carry=len(carry),
                       _split_transpose=split_transpose)


def _permute(closed, in_order, out_order):
    """``closed`` with invars and outvars reordered by index lists."""
    j = closed.jaxpr
    return ClosedJaxpr(j.replace(invars=[j.invars[i] for i in in_order],
                                 outvars=[j.outvars[i] for i in out_order]),
                       closed.consts)


# ---------------------------------------------------------------------------
# JVP (SPEC CF-60)
# ---------------------------------------------------------------------------

def _jvp_jaxpr(closed, nonzeros, instantiate):
    """JVP of ``closed`` on primals + non-zero tangents, returning primals +
    the tangents that are non-zero or flagged in ``instantiate``."""
    avals = closed.in_avals
    n = len(nonzeros)
    out_nz = []

    def fun(*args):
        primals, rest = list(args[:n]), iter(args[n:])
        tangents = [next(rest) if nz else ad.Zero(ad.tangent_aval(a))
                    for nz, a in zip(nonzeros, avals)]
        outs, touts = ad.jvp_flat(
            lambda *xs: core.eval_jaxpr(closed.jaxpr, closed.consts, *xs),
            primals, tangents)
        touts = [ad.instantiate_zeros(t) if inst else t
                 for t, inst in zip(touts, instantiate)]
        out_nz[:] = [type(t) is not ad.Zero for t in touts]
        return outs + [t for t in touts if type(t) is not ad.Zero]

    t_avals = [ad.tangent_aval(a) for a, nz in zip(avals, nonzeros) if nz]
    return pe.trace_to_jaxpr(fun, list(avals) + t_avals), out_nz


def _carry_fixed_point(step, carry_flags):
    """Grow ``carry_flags`` until the body's carry-out flags (from
    ``step(flags) -> (result, out_carry_flags)``) add nothing new."""
    while True:
        result, out_flags = step(carry_flags)
        grown = [a or b for a, b in zip(carry_flags, out_flags)]
        if grown == carry_flags:
            return result, carry_flags
        carry_flags = grown


def _scan_jvp(primals, tangents, *, jaxpr, num_consts, num_carry, length,
              reverse, unroll, _split_transpose, **_):
    """A scan of the body's JVP: tangents of consts ride as consts, carry
    tangents as carry, xs tangents as xs.  A carry tangent is non-zero when
    its initial tangent or, at a fixed point, its carry-out tangent is."""
    nz = [type(t) is not ad.Zero for t in tangents]
    c_nz, init_nz, x_nz = _split(nz, [num_consts, num_carry])
    n_ys = len(jaxpr.out_avals) - num_carry

    def step(carry_nz):
        closed, out_nz = _jvp_jaxpr(jaxpr, c_nz + carry_nz + x_nz,
                                    carry_nz + [False] * n_ys)
        return (closed, out_nz), out_nz[:num_carry]

    (closed, out_nz), carry_nz = _carry_fixed_point(step, init_nz)
    consts, init, xs = _split(primals, [num_consts, num_carry])
    ct, it, xt = _split(tangents, [num_consts, num_carry])
    init_t = [ad.instantiate_zeros(t) for t, f in zip(it, carry_nz) if f]
    const_t = [t for t, f in zip(ct, c_nz) if f]
    xs_t = [t for t, f in zip(xt, x_nz) if f]
    # Reorder the JVP jaxpr's (primals, tangents) into (consts, carry, xs),
    # each primal group followed by its tangents; outputs likewise.
    n_in, n_c, n_k = len(jaxpr.in_avals), len(const_t), len(init_t)
    p_c, p_k, p_x = _split(range(n_in), [num_consts, num_carry])
    t_c, t_k, t_x = _split(range(n_in, n_in + n_c + n_k + len(xs_t)), [n_c, n_k])
    in_order = p_c + t_c + p_k + t_k + p_x + t_x
    n_out = len(jaxpr.out_avals)
    y_nz = out_nz[num_carry:]
    o_k, o_y = _split(range(n_out), [num_carry])
    ot_k, ot_y = _split(range(n_out, n_out + n_k + sum(y_nz)), [n_k])
    out_order = o_k + ot_k + o_y + ot_y
    closed = _permute(closed, in_order, out_order)
    outs = _bind_scan(consts + const_t, init + init_t, xs + xs_t, jaxpr=closed,
                      length=length, reverse=reverse, unroll=unroll,
                      split_transpose=_split_transpose)
    carry_out, carry_t, ys, ys_t = _split(outs, [num_carry, n_k, n_out - num_carry])
    carry_t_it, ys_t_it = iter(carry_t), iter(ys_t)
    out_avals = _scan_abstract_eval(jaxpr=jaxpr, length=length, num_carry=num_carry)
    t_flags = carry_nz + y_nz
    t_out = [next(carry_t_it) if i < num_carry and f else
             next(ys_t_it) if f else ad.Zero(ad.tangent_aval(a))
             for i, (f, a) in enumerate(zip(t_flags, out_avals))]
    return carry_out + ys, t_out


scan_p.jvp = _scan_jvp


# ---------------------------------------------------------------------------
# Partial evaluation (SPEC CF-61)
# ---------------------------------------------------------------------------

def _scan_partial_eval(trace, args, params):
    """Split the scan in two: a known scan computing the known outputs and
    the residuals, and a staged unknown scan consuming them (SPEC CF-61).

    A carry is unknown when its initial value or, at a fixed point, its
    carry-out is.  A residual that is a known const of the body is passed
    to the unknown scan once, as a const; one that is a known ``x`` slice is
    that scanned input again; every other residual is an extra ``y`` of the
    known scan (one per iteration), scanned over by the unknown one."""
    jaxpr, num_consts, num_carry = (params["jaxpr"], params["num_consts"],
                                    params["num_carry"])
    unknowns = [trace.is_unknown(a) for a in args]
    c_uk, init_uk, x_uk = _split(unknowns, [num_consts, num_carry])
    n_ys = len(jaxpr.out_avals) - num_carry

    def step(carry_uk):
        split = ad.partial_eval_jaxpr(jaxpr, c_uk + carry_uk + x_uk,
                                      carry_uk + [False] * n_ys)
        return split, split[2][:num_carry]

    (known, unknown, out_uk, num_res), carry_uk = _carry_fixed_point(step, init_uk)
    consts, init, xs = _split(args, [num_consts, num_carry])
    k_consts, k_init, k_xs = (_pick(consts, c_uk, False), _pick(init, carry_uk, False),
                              _pick(xs, x_uk, False))
    src = _residual_sources(known, len(k_consts), len(k_init), num_res)
    n_k_out = len(known.out_avals) - num_res
    known = _permute(known, range(len(known.in_avals)),
                     [i for i in range(len(known.out_avals))
                      if i < n_k_out or src[i - n_k_out] is None])
    common = dict(length=params["length"], reverse=params["reverse"],
                  unroll=params["unroll"], split_transpose=params["_split_transpose"])
    k_outs = trace.parent.process_primitive(
        scan_p, [*k_consts, *k_init, *k_xs],
        _params(known, len(k_consts), len(k_init), common))
    known_outs, computed = k_outs[:n_k_out], iter(k_outs[n_k_out:])
    const_src = [r[1] if r is not None and r[0] == "c" else None for r in src]
    const_res = [k_consts[j] for j in const_src if j is not None]
    stacked_res = [k_xs[r[1]] if r is not None else next(computed)
                   for r, j in zip(src, const_src) if j is None]
    # The unknown body takes (residuals, consts, carry, xs); the scan wants
    # (const residuals, consts, carry, stacked residuals, xs).
    res_c = [i for i, j in enumerate(const_src) if j is not None]
    res_x = [i for i, j in enumerate(const_src) if j is None]
    n_uc, n_uk = sum(c_uk), sum(carry_uk)
    rest = num_res + n_uc + n_uk
    in_order = (res_c + list(range(num_res, rest)) + res_x
                + list(range(rest, len(unknown.in_avals))))
    unknown = _permute(unknown, in_order, range(len(unknown.out_avals)))
    staged = trace.stage(
        scan_p, [*const_res, *_pick(consts, c_uk, True), *_pick(init, carry_uk, True),
                 *stacked_res, *_pick(xs, x_uk, True)],
        _params(unknown, len(res_c) + n_uc, n_uk, common))
    known_it, staged_it = iter(known_outs), iter(staged)
    return [next(staged_it) if u else next(known_it) for u in out_uk]


def _pick(vals, flags, want):
    return [v for v, f in zip(vals, flags) if f == want]


def _residual_sources(known, n_consts, n_carry, num_res):
    """For each residual of ``known``: ``("c", j)`` when it merely forwards
    const input ``j`` (loop-invariant), ``("x", j)`` when it forwards the
    slice of scanned input ``j`` (the input itself can be scanned again),
    else None (computed per iteration)."""
    j = known.jaxpr
    n_cc = n_consts + n_carry
    index = {v: i for i, v in enumerate(j.invars)}
    out = []
    for v in j.outvars[len(j.outvars) - num_res:]:
        i = index.get(v) if type(v) is core.Var else None
        out.append(None if i is None or n_consts <= i < n_cc
                   else ("c", i) if i < n_consts else ("x", i - n_cc))
    return out


def _params(closed, num_consts, num_carry, common):
    n_in = len(closed.in_avals)
    return dict(jaxpr=closed, length=common["length"], reverse=common["reverse"],
                linear=(False,) * n_in, unroll=common["unroll"],
                num_consts=num_consts, num_carry=num_carry,
                _split_transpose=common["split_transpose"])


scan_p.partial_eval = _scan_partial_eval


def _scan_partial_eval_custom(saveable, unks_in, inst_in, eqn):
    """Split the body with the checkpoint policy (SPEC AD-98): a carry is
    unknown once its carry-out is (a fixed point).  The known ``scan``
    returns its known outputs and, as extra ``y``s, the residuals of each
    iteration; the staged ``scan`` takes every operand and scans over those
    stacked residuals, recomputing whatever the policy did not save."""
    params = eqn.params
    body, n_c, n_k = params["jaxpr"], params["num_consts"], params["num_carry"]
    const_uk, carry_uk, xs_uk = _split(unks_in, [n_c, n_k])
    n_ys = len(body.out_avals) - n_k
    for _ in range(n_k + 1):
        flags = const_uk + carry_uk + xs_uk
        known, staged, out_uk, out_inst, num_res = pe.partial_eval_jaxpr_custom(
            body.jaxpr, flags, True, carry_uk + [False] * n_ys, True, saveable)
        grown = [a or b for a, b in zip(carry_uk, out_uk[:n_k])]
        if grown == carry_uk:
            break
        carry_uk = grown
    res_avals = [v.aval for v in staged.invars[:num_res]]
    staged = staged.replace(invars=staged.invars[num_res:] + staged.invars[:num_res])
    res = [core.Var(_stacked(a, params["length"])) for a in res_avals]
    n_in = len(eqn.invars)
    eqn_known = eqn.replace(
        invars=[v for v, u in zip(eqn.invars, flags) if not u],
        outvars=[v for v, u in zip(eqn.outvars, out_uk) if not u] + res,
        params=dict(params, jaxpr=ClosedJaxpr(known, body.consts),
                    num_consts=n_c - sum(const_uk), num_carry=n_k - sum(carry_uk),
                    linear=(False,) * (n_in - sum(flags))))
    eqn_staged = eqn.replace(
        invars=[*eqn.invars, *res],
        params=dict(params, jaxpr=ClosedJaxpr(staged, body.consts),
                    linear=(False,) * (n_in + len(res))))
    not_inst = [v for v, i in zip(eqn.invars, inst_in) if type(v) is core.Var and not i]
    return eqn_known, eqn_staged, out_uk, [True] * len(out_uk), not_inst + res


def _scan_dce(used_outputs, eqn):
    """Drop unused ``y``s and every carry that no used output depends on
    (a fixed point over iterations), then the unread operands (SPEC AD-99)."""
    if not any(used_outputs):
        return [False] * len(eqn.invars), None
    params = eqn.params
    body, n_c, n_k = params["jaxpr"], params["num_consts"], params["num_carry"]
    used_carry, used_ys = used_outputs[:n_k], list(used_outputs[n_k:])
    while True:
        _, used_in = dce.dce_jaxpr(body.jaxpr, used_carry + used_ys)
        grown = [a or b for a, b in zip(used_carry, used_in[n_c:n_c + n_k])]
        if grown == used_carry:
            break
        used_carry = grown
    inst = [False] * n_c + used_carry + [False] * (len(eqn.invars) - n_c - n_k)
    new_body, used_in = dce.dce_jaxpr(body.jaxpr, used_carry + used_ys, inst)
    used_out = used_carry + used_ys
    return used_in, eqn.replace(
        invars=[v for v, u in zip(eqn.invars, used_in) if u],
        outvars=[v for v, u in zip(eqn.outvars, used_out) if u],
        params=dict(params, jaxpr=ClosedJaxpr(new_body, body.consts),
                    num_consts=sum(used_in[:n_c]), num_carry=sum(used_carry),
                    linear=(False,) * sum(used_in)))


scan_p.partial_eval_custom = _scan_partial_eval_custom
scan_p.dce_rule = _scan_dce


# ---------------------------------------------------------------------------
# Transposition (SPEC CF-62)
# ---------------------------------------------------------------------------

def _scan_transpose(cts, *args, jaxpr, num_consts, num_carry, length, reverse,
                    unroll, _split_transpose, **_):
    """A scan in the opposite direction of the transposed body.

    Its carry is (accumulated cotangents of the linear consts, cotangent of
    the carry); the residual consts stay consts; its xs are the residual xs
    and the ``ys`` cotangents; its ys are the cotangents of the linear xs.
    Carries are always linear."""
    consts, init, xs = _split(args, [num_consts, num_carry])
    c_lin = [type(a) is ad.UndefinedPrimal for a in consts]
    x_lin = [type(a) is ad.UndefinedPrimal for a in xs]
    c_avals = jaxpr.in_avals[:num_consts]
    ct_carry = [ad.instantiate_zeros(c) for c in cts[:num_carry]]
    ys_nz = [type(c) is not ad.Zero for c in cts[num_carry:]]
    ct_ys = [c for c in cts[num_carry:] if type(c) is not ad.Zero]
    res_c = [a for a, lin in zip(consts, c_lin) if not lin]
    res_x = [a for a, lin in zip(xs, x_lin) if not lin]
    body = _transposed_body(jaxpr, num_consts, num_carry, c_lin, x_lin, ys_nz)
    acc0 = [ad.zeros_like_aval(ad.tangent_aval(a))
            for a, lin in zip(c_avals, c_lin) if lin]
    outs = _bind_scan(res_c, acc0 + ct_carry, res_x + ct_ys, jaxpr=body,
                      length=length, reverse=not reverse, unroll=unroll,
                      split_transpose=_split_transpose)
    ct_consts, ct_init, ct_xs = _split(outs, [len(acc0), num_carry])
    ct_c_it, ct_x_it = iter(ct_consts), iter(ct_xs)
    return ([next(ct_c_it) if lin else None for lin in c_lin]
            + [c if type(a) is ad.UndefinedPrimal else None
               for c, a in zip(ct_init, init)]
            + [next(ct_x_it) if lin else None for lin in x_lin])


def _transposed_body(jaxpr, num_consts, num_carry, c_lin, x_lin, ys_nz):
    """The body ``(res_consts, ct_acc, ct_carry, res_x, ct_y) ->
    (ct_acc + ct_consts, ct_carry_in, ct_x)`` by a backward pass; only the
    ``ys`` cotangents flagged in ``ys_nz`` are operands (others are zero)."""
    c_avals, _, x_avals = _split(jaxpr.in_avals, [num_consts, num_carry])
    y_avals = jaxpr.out_avals[num_carry:]
    lin = c_lin + [True] * num_carry + x_lin
    n_rc, n_acc = c_lin.count(False), c_lin.count(True)
    n_rx = x_lin.count(False)

    def fun(*args):
        res_c, acc, ct_carry, res_x, ct_y = _split(
            args, [n_rc, n_acc, num_carry, n_rx])
        res = iter(res_c + res_x)
        primals = [ad.UndefinedPrimal(a) if l else next(res)
                   for a, l in zip(jaxpr.in_avals, lin)]
        ct_y = iter(ct_y)
        ct_y = [next(ct_y) if nz else ad.Zero(ad.tangent_aval(a))
                for a, nz in zip(y_avals, ys_nz)]
        cts_in = ad.backward_pass(jaxpr.jaxpr, jaxpr.consts, primals,
                                  list(ct_carry) + ct_y)
        cts_in = [ad.instantiate_zeros(c) if c is not None and l else c
                  for c, l in zip(cts_in, lin)]
        ct_c, ct_k, ct_x = _split(cts_in, [num_consts, num_carry])
        ct_c = [c for c, l in zip(ct_c, c_lin) if l]
        ct_x = [c for c, l in zip(ct_x, x_lin) if l]
        # The carry cotangent keeps the type it entered with, so the
        # transposed scan's carry types match (a weak primal carry would
        # otherwise give it a weak cotangent).
        ct_k = [_like(c, t) for c, t in zip(ct_k, ct_carry)]
        return ([_like(ad.add_tangents(a, c), a) for a, c in zip(acc, ct_c)]
                + ct_k + ct_x)

    t = ad.tangent_aval
    in_avals = ([a for a, l in zip(c_avals, c_lin) if not l]
                + [t(a) for a, l in zip(c_avals, c_lin) if l]
                + [t(a) for a in jaxpr.out_avals[:num_carry]]
                + [a for a, l in zip(x_avals, x_lin) if not l]
                + [t(a) for a, nz in zip(y_avals, ys_nz) if nz])
    return pe.trace_to_jaxpr(fun, in_avals)


def _like(x, ref):
    """``x`` with the dtype and weak type of ``ref``."""
    a, r = aval_of(x), aval_of(ref)
    if (a.dtype, a.weak_type) == (r.dtype, r.weak_type):
        return x
    from refjax._src.lax.lax import _convert_element_type
    return _convert_element_type(x, r.dtype, weak_type=r.weak_type)


scan_p.transpose = _scan_transpose


# ---------------------------------------------------------------------------
# Batching (SPEC CF-63)
# ---------------------------------------------------------------------------

def _scan_batch(axis_data, vals, dims, *, jaxpr, num_consts, num_carry, length,
                reverse, unroll, _split_transpose, **_):
    """A scan of the batched body.  Mapped consts and carries move the batch
    axis to 0, mapped xs to 1 (axis 0 is the scanned one); a carry is
    batched when its initial value or, at a fixed point, its carry-out is.
    Batched ys come back batched along axis 1."""
    nm = batching.not_mapped
    bat = [d is not nm for d in dims]
    c_b, init_b, x_b = _split(bat, [num_consts, num_carry])
    n_ys = len(jaxpr.out_avals) - num_carry

    def step(carry_b):
        closed, out_b = batching.batch_jaxpr(jaxpr, axis_data, c_b + carry_b + x_b,
                                             tuple(carry_b) + (False,) * n_ys)
        return (closed, out_b), list(out_b[:num_carry])

    (closed, out_b), carry_b = _carry_fixed_point(step, init_b)
    consts, init, xs = _split(vals, [num_consts, num_carry])
    c_d, k_d, x_d = _split(dims, [num_consts, num_carry])
    size = axis_data.size
    consts = [batching.moveaxis(v, d, 0) if d is not nm else v
              for v, d in zip(consts, c_d)]
    init = [batching.move_or_broadcast(v, d, 0, size) if b else v
            for v, d, b in zip(init, k_d, carry_b)]
    xs = [batching.moveaxis(v, d, 1) if d is not nm else v for v, d in zip(xs, x_d)]
    outs = _bind_scan(consts, init, xs, jaxpr=closed, length=length,
                      reverse=reverse, unroll=unroll, split_transpose=_split_transpose)
    out_dims = ([0 if b else nm for b in carry_b]
                + [1 if b else nm for b in out_b[num_carry:]])
    return outs, out_dims


scan_p.batch = _scan_batch


def _scan_key_reuse(eqn):
    """A scan body runs repeatedly: it may not consume a key constant, and
    it may consume a carried key only if it carries out a fresh one (RNG-71)."""
    jaxpr = eqn.params["jaxpr"].jaxpr
    nconsts, ncarry = eqn.params["num_consts"], eqn.params["num_carry"]
    signature = kr.jaxpr_signature(jaxpr)
    if kr.consumes_consts(signature, nconsts, jaxpr):
        raise kr.KeyReuseError(
            "scan body function leads to key reuse when repeatedly executed, "
            "because key constants are repeatedly consumed:\n"
            f"  signature={signature!r}\n  eqn={eqn!r}\n  jaxpr={jaxpr!r}")
    carry_sinks = {s.idx - nconsts for s in signature.sinks
                   if 0 <= s.idx - nconsts < ncarry and np.any(s.mask)}
    carry_sources = {s.idx for s in signature.sources
                     if 0 <= s.idx < ncarry and np.any(s.mask)}
    if not carry_sinks <= carry_sources:
        raise kr.KeyReuseError(
            "scan body function leads to key reuse when repeatedly executed, "
            "because consumed inputs don't match sourced outputs:\n"
            f"  signature={signature!r}\n  eqn={eqn!r}\n  jaxpr={jaxpr!r}")
    return signature


scan_p.key_reuse = _scan_key_reuse


# ---------------------------------------------------------------------------
# The API: scan
# ---------------------------------------------------------------------------

def _infer_length(xs_flat, length):
    """The trip count: ``length`` or the common leading size of ``xs``
    (SPEC CF-53); every ``xs`` leaf must be a JAX type."""
    for x in xs_flat:
        core.check_valid_jaxtype(x)
    # Each leaf as a JAX value first: a Python int beyond int32 is an
    # OverflowError before any length is looked at, as in JAX (SPEC CF-91).
    shapes_ = [core.get_aval(x).shape for x in xs_flat]
    if not all(shapes_):
        raise ValueError("scan got value with no leading axis to scan over: {}.".format(
            ", ".join(str(x) for x, s in zip(xs_flat, shapes_) if not s)))
    lengths = [s[0] for s in shapes_]
    if length is not None:
        length = _static_length(length)
        if not all(length == n for n in lengths):
            raise ValueError("scan got `length` argument of {} which disagrees with "
                             "leading axis sizes {}.".format(length, lengths))
        return length
    if not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    if len(set(lengths)) > 1:
        raise ValueError("scan got values with different leading axis sizes: {}.".format(
            ", ".join(str(n) for n in lengths)))
    return lengths[0]


def _static_length(length):
    """``length`` as a Python int: a tracer is a ConcretizationTypeError, a
    value ``int()`` rejects keeps the class ``int()`` raised (ValueError for
    ``'a'``, TypeError for a list), as in JAX (SPEC CF-53, CF-91)."""
    try:
        return int(length)
    except errors.ConcretizationTypeError:
        raise errors.ConcretizationTypeError(
            length, "The `length` argument to `scan` expects a concrete `int` "
            "value. For scan-like iteration with a dynamic length, use "
            "`while_loop` or `fori_loop`.") from None
    except (TypeError, ValueError) as err:
        raise type(err)(f"The `length` argument to `scan` must be an integer, "
                        f"got {length!r} ({err}).") from None


def _check_trip_count(length):
    """A scan that carries or stacks values counts its iterations in the
    default integer type; a longer loop is an OverflowError, as in JAX,
    rather than a loop that never ends (SPEC CF-91)."""
    bits = 64 if config.enable_x64.value else 32
    if length >= 2 ** (bits - 1):
        raise OverflowError(
            f"scan length {length} does not fit the int{bits} iteration counter "
            f"(at most {2 ** (bits - 1) - 1}); split the loop into shorter ones.")


def _trace_body(f, init, xs, carry_avals, x_avals, key_fun=None, cacheable=None):
    """``(closed body, consts, carry-out tree, ys tree)`` of ``f`` traced on
    the carry and one slice of ``xs``; the body must return a pair (SPEC
    CF-52)."""
    in_tree = tree_util.tree_structure((init, xs))
    closed, consts, out_tree = trace_to_jaxpr(f, in_tree, carry_avals + x_avals,
                                              getattr(f, "__name__", "scan"),
                                              key_fun=key_fun, cacheable=cacheable)
    # Constant arrays the body closes over become operands too, as in JAX.
    j = closed.jaxpr
    consts = [*closed.consts, *consts]
    closed = ClosedJaxpr(j.replace(constvars=[], invars=[*j.constvars, *j.invars]), [])
    out_avals = closed.out_avals
    children = out_tree.children() if out_tree.num_leaves or out_tree.num_nodes else []
    if not (isinstance(out_tree.unflatten([0] * out_tree.num_leaves), (tuple, list))
            and len(children) == 2):
        raise TypeError("scan body output must be a pair, got {}.".format(
            out_tree.unflatten(out_avals)))
    return closed, consts, children[0], children[1]


def _promote_weak(val, in_aval, out_aval):
    """A weakly typed initial carry whose carry-out type differs takes the
    promoted dtype, strongly typed (SPEC CF-55)."""
    if in_aval.weak_type and not typematch(in_aval, out_aval):
        dtype = dtypes.result_type(val, out_aval.dtype)
        return lax.convert_element_type(val, dtype), True
    return val, False


def scan(f, init, xs=None, length=None, reverse=False, unroll=1,
         _split_transpose=False):
    """Loop ``f(carry, x) -> (carry, y)`` over the leading axis of ``xs``,
    returning the final carry and the stacked ``y`` (SPEC CF-50)."""
    if not callable(f):
        raise TypeError("lax.scan: f argument should be a callable.")
    init_flat, init_tree = tree_util.tree_flatten(init)
    xs_flat, xs_tree = tree_util.tree_flatten(xs)
    # The initial carry is read as JAX values before ``xs`` and the length,
    # as in JAX (SPEC CF-91).
    for c in init_flat:
        core.check_valid_jaxtype(c)
        core.get_aval(c)
    length = _infer_length(xs_flat, length)
    if config.disable_jit.value:
        return _scan_python_loop(f, init, xs_flat, xs_tree, length, reverse)
    x_avals = [_unstacked(aval_of(x)) for x in xs_flat]
    in_avals = [aval_of(c) for c in init_flat]
    found = []      # jax.Refs the body reaches from outside (SPEC EXT-10)
    closed, consts, out_carry_tree, ys_tree = _trace_body(
        api.ref_hooks.discover(f, found, "scan"), init, xs, in_avals, x_avals,
        key_fun=f, cacheable=lambda: not found)
    if found:
        return api.ref_hooks.scan(scan, f, found, init, xs, length=length,
                                  reverse=reverse, unroll=unroll,
                                  _split_transpose=_split_transpose)
    carry_out = closed.out_avals[:out_carry_tree.num_leaves]
    if out_carry_tree.num_leaves != len(init_flat):
        check_carry_type("scan body", f, init_tree, in_avals, out_carry_tree, carry_out)
    promoted = [_promote_weak(v, a, b) for v, a, b in zip(init_flat, in_avals, carry_out)]
    if any(changed for _, changed in promoted):
        init_flat = [v for v, _ in promoted]
        in_avals = [aval_of(c) for c in init_flat]
        closed, consts, out_carry_tree, ys_tree = _trace_body(
            f, init, xs, in_avals, x_avals)
        carry_out = closed.out_avals[:out_carry_tree.num_leaves]
    check_carry_type("scan body", f, init_tree, in_avals, out_carry_tree, carry_out)
    unroll = _check_unroll(unroll, length)
    outs = _bind_forwarding(closed, consts, init_flat, xs_flat, length=length,
                            reverse=reverse, unroll=unroll,
                            split_transpose=_split_transpose)
    n = out_carry_tree.num_leaves
    return (tree_util.tree_unflatten(out_carry_tree, outs[:n]),
            tree_util.tree_unflatten(ys_tree, outs[n:]))


def _scan_python_loop(f, init, xs_flat, xs_tree, length, reverse):
    """Under ``disable_jit``: call ``f`` on each slice in a Python loop and
    stack the ``ys``; a zero-length scan is an error (SPEC CF-57)."""
    if length == 0:
        raise ValueError("zero-length scan is not supported in disable_jit() mode "
                         "because the output type is unknown.")
    carry, ys = init, []
    order = range(length - 1, -1, -1) if reverse else range(length)
    for i in order:
        x = xs_tree.unflatten([shapes.index_in_dim(v, i, keepdims=False) for v in xs_flat])
        carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys.reverse()
    stack = lambda *leaves: shapes.concatenate([shapes.expand_dims(v, (0,)) for v in leaves], 0)
    return carry, tree_util.tree_map(stack, *ys)


def _bind_forwarding(closed, consts, init, xs, **params):
    """Bind ``scan``, not threading values the body merely forwards (SPEC
    CF-56): a carry passed through unchanged becomes a const (its result is
    the initial value itself), and a ``y`` that is an ``x`` slice is the
    scanned input itself."""
    j = closed.jaxpr
    n_c, n_k = len(consts), len(init)
    index = {v: i for i, v in enumerate(j.invars)}
    fwd = [index.get(v) if type(v) is core.Var else None for v in j.outvars]
    moved = [fwd[i] == n_c + i for i in range(n_k)]
    y_src = [f - n_c - n_k if f is not None and f >= n_c + n_k else None
             for f in fwd[n_k:]]
    keep_out = [not m for m in moved] + [f is None for f in y_src]
    first = [n_c + i for i in range(n_k) if moved[i]]
    in_order = first + [i for i in range(len(j.invars)) if i not in first]
    if any(keep_out):
        _check_trip_count(params["length"])
    closed = _permute(closed, in_order, [i for i, k in enumerate(keep_out) if k])
    outs = iter(_bind_scan([*_pick(init, moved, True), *consts], _pick(init, moved, False),
                           xs, jaxpr=closed, **params))
    carry = [v if m else next(outs) for v, m in zip(init, moved)]
    ys = [next(outs) if f is None else _as_array(xs[f]) for f in y_src]
    return carry + ys


def _as_array(x):
    if isinstance(x, np.ndarray):
        return lax.asarray(x)
    return x


def _check_unroll(unroll, length):
    unroll = core.concrete_or_error(
        None, unroll, "The `unroll` argument to `scan` expects a concrete `int` or "
        "`bool` value.")
    if isinstance(unroll, bool):
        unroll = max(length, 1) if unroll else 1
    if unroll < 0:
        raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")
    return unroll


# ---------------------------------------------------------------------------
# fori_loop (SPEC CF-65)
# ---------------------------------------------------------------------------

def _loop_dtype(lower, upper):
    """The index dtype: the bounds' common dtype; a weakly typed signed
    bound takes the other's signed dtype (SPEC CF-65)."""
    (lo, lo_weak), (hi, hi_weak) = (dtypes.dtype_and_weak_type(lower),
                                    dtypes.dtype_and_weak_type(upper))
    if lo == hi:
        return lo
    if (np.issubdtype(lo, np.signedinteger) and np.issubdtype(hi, np.signedinteger)):
        if lo_weak and not hi_weak:
            return hi
        if hi_weak and not lo_weak:
            return lo
    raise TypeError("lower and upper arguments to fori_loop must have equal "
                    f"types, got {lo.name} and {hi.name}")


def _static_int(x):
    """``int(x)`` when ``x`` is concrete, else None."""
    value = core.concrete_value(x)
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``body_fun(i, val)`` for ``i`` in ``range(lower, upper)``.

    Concrete bounds give a ``scan`` over the carry ``(i, val)`` (reverse-mode
    differentiable); traced bounds a ``while_loop`` over ``(i, upper, val)``
    (SPEC CF-65); a ``body_fun`` that is not callable is a ``TypeError``
    (SPEC CF-93)."""
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    dtype = _loop_dtype(lower, upper)
    lo, hi = _static_int(lower), _static_int(upper)
    if lo is not None and hi is not None:
        length = builtins.max(hi - lo, 0)
        if config.disable_jit.value and length == 0:
            return init_val

        def scanned(carry, _):
            i, x = carry
            return (i + 1, body_fun(i, x)), None

        (_, result), _ = scan(scanned, (lo, init_val), None, length=length,
                              unroll=False if unroll is None else unroll)
        return result
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds "
                         "are statically known.")
    from refjax._src.lax.control_flow.loops import while_loop
    if dtypes.dtype_and_weak_type(lower)[0] != dtype:
        lower = lax.convert_element_type(lower, dtype)
    if dtypes.dtype_and_weak_type(upper)[0] != dtype:
        upper = lax.convert_element_type(upper, dtype)

    def body(carry):
        i, hi_, x = carry
        return lax.add(i, lax.full_like(i, 1)), hi_, body_fun(i, x)

    _, _, result = while_loop(lambda c: lax.lt(c[0], c[1]), body,
                              (lower, upper, init_val))
    return result


# ---------------------------------------------------------------------------
# map (SPEC CF-66)
# ---------------------------------------------------------------------------

def _batch_and_remainder(xs, batch_size):
    """``xs`` cut into (full batches reshaped to ``(n, batch_size, ...)``,
    the leftover rows); either may be None."""
    leaves, tree = tree_util.tree_flatten(xs)
    if not leaves:
        return xs, None
    if not builtins.all(np.shape(leaf) for leaf in leaves):
        raise ValueError("scan got value with no leading axis to scan over: {}.".format(
            ", ".join(str(leaf) for leaf in leaves if not np.shape(leaf))))
    n = leaves[0].shape[0]
    num, rem = (0, n) if batch_size == 0 else divmod(n, batch_size)
    used = num * batch_size
    batched = [leaf[:used].reshape(num, batch_size, *leaf.shape[1:]) for leaf in leaves]
    leftover = [leaf[used:] for leaf in leaves]
    if num == 0:
        return None, tree.unflatten(leftover)
    return tree.unflatten(batched), (tree.unflatten(leftover) if rem else None)


def _batch_size(batch_size):
    """An int ``batch_size``: an array of several elements is a ValueError
    (its truth value is ambiguous, as in JAX), a non-integer a TypeError
    (SPEC CF-91)."""
    if np.size(batch_size) != 1:
        raise ValueError(f"lax.map batch_size must be an integer, got an array of "
                         f"shape {np.shape(batch_size)}.")
    return operator.index(batch_size)


def map(f, xs, *, batch_size=None):
    """``f`` applied to each leading-axis slice of ``xs``, results stacked:
    a ``scan`` with no carry.  With ``batch_size``, a scan over chunks each
    handled by ``vmap``, the remainder by one more ``vmap`` (SPEC CF-66)."""
    if batch_size is None:
        _, ys = scan(lambda _, x: ((), f(x)), (), xs)
        return ys
    if not tree_util.tree_leaves(xs):
        # Nothing to batch: batch_size is never read, and scan reports the
        # missing length (SPEC CF-91).
        _, ys = scan(lambda _, x: ((), f(x)), (), xs)
        return ys
    from refjax._src.vmap_api import vmap
    scan_xs, rest_xs = _batch_and_remainder(xs, _batch_size(batch_size))
    scan_ys = None
    if scan_xs is not None:
        _, scan_ys = scan(lambda _, x: ((), vmap(f)(x)), (), scan_xs)
    flat = lambda y: y.reshape(-1, *y.shape[2:])
    if scan_ys is None:
        return vmap(f)(rest_xs)
    if rest_xs is None:
        return tree_util.tree_map(flat, scan_ys)
    rest_ys = vmap(f)(rest_xs)
    return tree_util.tree_map(
        lambda a, b: shapes.concatenate([flat(a), b], dimension=0), scan_ys, rest_ys)


# ---------------------------------------------------------------------------
# associative_scan (SPEC CF-67)
# ---------------------------------------------------------------------------

def associative_scan(fn, elems, reverse=False, axis=0):
    """Inclusive prefix combination of ``elems`` along ``axis`` with the
    associative ``fn``, by the parallel odd/even recursion (SPEC CF-67)."""
    if not callable(fn):
        raise TypeError("lax.associative_scan: fn argument should be callable.")
    flat, tree = tree_util.tree_flatten(elems)
    if reverse:
        flat = [shapes.rev(e, [axis]) for e in flat]
    axis = core.canonicalize_axis(axis, flat[0].ndim)
    n = int(flat[0].shape[axis])
    if not all(int(e.shape[axis]) == n for e in flat[1:]):
        raise ValueError("Array inputs to associative_scan must have the same "
                         "first dimension. (saw: {})".format([e.shape for e in flat]))

    def combine(a, b):
        out = fn(tree.unflatten(a), tree.unflatten(b))
        return tree_util.tree_leaves(out)

    def sl(e, start, stop, stride=1):
        return shapes.slice_in_dim(e, start, stop, stride=stride, axis=axis)

    def prefix(elems):
        # Odd results: a scan of adjacent pairs; even results: each odd
        # result combined with the next original element.
        size = elems[0].shape[axis]
        if size < 2:
            return elems
        odd = prefix(combine([sl(e, 0, -1, 2) for e in elems],
                             [sl(e, 1, None, 2) for e in elems]))
        left = [sl(e, 0, -1) for e in odd] if size % 2 == 0 else odd
        even = combine(left, [sl(e, 2, None, 2) for e in elems])
        even = [shapes.concatenate([sl(e, 0, 1), r], dimension=axis)
                for e, r in zip(elems, even)]
        return [_interleave(a, b, axis) for a, b in zip(even, odd)]

    scans = prefix(flat)
    if reverse:
        scans = [shapes.rev(s, [axis]) for s in scans]
    return tree.unflatten(scans)


def _interleave(a, b, axis):
    """``a[0], b[0], a[1], b[1], ...`` along ``axis`` (``a`` may be one
    longer), by interior padding and adding (or-ing booleans)."""
    same = a.shape[axis] == b.shape[axis]
    a_pad = [(0, 0, 0)] * a.ndim
    b_pad = [(0, 0, 0)] * b.ndim
    a_pad[axis] = (0, 1 if same else 0, 1)
    b_pad[axis] = (1, 0 if same else 1, 1)
    op = lax.bitwise_or if a.dtype == np.bool_ else lax.add
    return op(shapes.pad(a, np.zeros((), a.dtype), a_pad),
              shapes.pad(b, np.zeros((), b.dtype), b_pad))
