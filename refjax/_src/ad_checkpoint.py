"""``jax.checkpoint`` (``remat``): trade recomputation for memory.

A checkpointed function is bound as one ``remat2`` equation holding its
jaxpr.  Differentiating it splits that jaxpr by a *policy* deciding, for
each primal equation, whether its output is saved as a residual or
recomputed on the backward pass (SPEC AD-69).
"""
import functools
import types

import numpy as np

from refjax._src import core, dtypes, tree_util
from refjax._src.api import def_call
from refjax._src.core import ClosedJaxpr, Primitive, Var
from refjax._src.interpreters import ad, batching
from refjax._src.interpreters import key_reuse as kr
from refjax._src.interpreters import partial_eval as pe

# ---------------------------------------------------------------------------
# Policies: ``policy(prim, *avals, **params) -> bool`` (True: save it)
# ---------------------------------------------------------------------------

def everything_saveable(*_, **__):
    return True


def nothing_saveable(*_, **__):
    return False


def dots_saveable(prim, *_, **__):
    return prim.name == "dot_general"


def dots_with_no_batch_dims_saveable(prim, *_, **params):
    if prim.name != "dot_general":
        return False
    (_, _), (lhs_batch, _) = params["dimension_numbers"]
    return not lhs_batch


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
)


# ---------------------------------------------------------------------------
# The API
# ---------------------------------------------------------------------------

def checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=()):
    """``fun`` whose intermediate values are recomputed, not stored, when
    it is differentiated (unless ``policy`` saves them).  As in JAX, ``fun``
    is required, and one that is not callable fails when called (AD-93)."""
    static_argnums = ((static_argnums,) if isinstance(static_argnums, int)
                      else tuple(static_argnums))

    @functools.wraps(fun)
    def fun_remat(*args, **kwargs):
        # Traced even eagerly, as in JAX: computed outputs are Arrays whatever
        # ``fun`` returns for NumPy or Python inputs (AD-93 for the rest).
        if not callable(fun):
            raise TypeError(f"jax.checkpoint expects a function to wrap; got "
                            f"{fun!r} of type {type(fun).__name__}")
        n = len(args)
        _check_static_argnums(static_argnums, n)
        static = {i % n: args[i] for i in static_argnums}
        dyn = [a for i, a in enumerate(args) if i not in static]

        def with_static(d, kw):
            it = iter(d)
            return fun(*[static[i] if i in static else next(it) for i in range(n)], **kw)

        closed, consts, leaves, _, out_tree = pe.trace_pytree_fun(with_static, (dyn, kwargs))
        outs = remat_p.bind(*consts, *leaves, jaxpr=closed, prevent_cse=prevent_cse,
                            differentiated=False, policy=policy)
        if core.current_trace() is core.eval_trace:
            outs = _passed_through(closed, [*consts, *leaves], outs)
        return tree_util.tree_unflatten(out_tree, outs)

    return fun_remat


remat = checkpoint


def _passed_through(closed, args, outs):
    """Eager outputs that ``fun`` did not compute -- an argument returned
    as is, or a constant -- come back as the Python scalar or NumPy value
    they were (NumPy ones in their canonical dtype), as JAX returns them;
    everything else is the computed Array (AD-93)."""
    jaxpr = closed.jaxpr
    given = {id(v): x for v, x in zip(jaxpr.invars, args)}
    given.update((id(v), c) for v, c in zip(jaxpr.constvars, closed.consts))
    new = []
    for v, out in zip(jaxpr.outvars, outs):
        val = v.val if isinstance(v, core.Literal) else given.get(id(v))
        if isinstance(val, (np.ndarray, np.generic)):
            new.append(np.asarray(val, dtypes.canonicalize_dtype(val.dtype)))
        elif type(val) in (bool, int, float, complex):
            new.append(val)
        else:
            new.append(out)
    return new


def _check_static_argnums(static_argnums, n):
    """``static_argnums`` must index the call's positional arguments."""
    bad = [i for i in static_argnums
           if not isinstance(i, int) or not -n <= i < n]
    if bad:
        raise ValueError(
            "the `static_argnums` argument to `jax.checkpoint` / `jax.remat` can "
            "only take integer values greater than or equal to `-len(args)` and "
            f"less than `len(args)`, but got {static_argnums}, while "
            f"`len(args)` = {n}. Pass fewer static_argnums or more arguments.")


# ---------------------------------------------------------------------------
# The primitive
# ---------------------------------------------------------------------------

remat_p = Primitive("remat2", multiple_results=True)
remat_p.def_abstract_eval(lambda *avals, jaxpr, **_: jaxpr.out_avals)


def_call(remat_p, "jaxpr")


def _differentiated(params, closed):
    return dict(params, jaxpr=closed, differentiated=True)


remat_p.jvp = ad.call_jvp(remat_p, _differentiated)
remat_p.transpose = ad.call_transpose(remat_p, _differentiated)
batching.call_batch(remat_p, lambda params, closed: dict(params, jaxpr=closed))


def _remat_partial_eval(trace, args, params):
    """Known equations run now; the unknown ones are staged as a new
    ``remat2`` that recomputes every known value the policy does not save."""
    unknowns = [trace.is_unknown(a) for a in args]
    policy = params["policy"] or nothing_saveable
    if not callable(policy):
        raise TypeError(f"'{type(policy).__name__}' object is not callable: "
                        "jax.checkpoint's policy must be a function such as "
                        "jax.checkpoint_policies.nothing_saveable.")
    known, unknown, out_unknown, num_res = partial_eval_jaxpr_custom(
        params["jaxpr"], unknowns, policy)
    known_outs = core.eval_jaxpr(known.jaxpr, known.consts,
                                 *[a for a, u in zip(args, unknowns) if not u])
    n_known = len(known_outs) - num_res
    staged = trace.stage(remat_p, [*known_outs[n_known:],
                                   *[a for a, u in zip(args, unknowns) if u]],
                         _differentiated(params, unknown))
    known_it, staged_it = iter(known_outs[:n_known]), iter(staged)
    return [next(staged_it) if u else next(known_it) for u in out_unknown]


remat_p.partial_eval = _remat_partial_eval


def _remat_key_reuse(eqn):
    """``checkpoint``: the forward pass holds all key uses (RNG-72)."""
    if eqn.params.get("differentiated"):
        return kr.KeyReuseSignature()
    jaxpr = eqn.params["jaxpr"]
    return kr.jaxpr_signature(getattr(jaxpr, "jaxpr", jaxpr))


remat_p.key_reuse = _remat_key_reuse


def partial_eval_jaxpr_custom(closed, unknowns, policy):
    """Split ``closed`` equation by equation.

    Equations with an unknown operand go to the unknown side.  A known
    value the unknown side needs is passed as a residual when it is a
    known input or the policy saves its equation's output; otherwise its
    equation is copied into the unknown side to be recomputed there.
    Returns ``(known, unknown, out_unknowns, num_res)`` shaped like
    :func:`refjax._src.interpreters.ad.partial_eval_jaxpr`'s result."""
    jaxpr = closed.jaxpr
    unknown_vars = {v for v, u in zip(jaxpr.invars, unknowns) if u}
    known_eqns, unknown_eqns = [], []
    for eqn in jaxpr.eqns:
        if any(type(v) is Var and v in unknown_vars for v in eqn.invars):
            unknown_eqns.append(eqn)
            unknown_vars.update(eqn.outvars)
        else:
            known_eqns.append(eqn)
    producer = {v: (i, eqn) for i, eqn in enumerate(known_eqns) for v in eqn.outvars}
    known_inputs = {v for v, u in zip(jaxpr.invars, unknowns) if not u}
    residuals, recompute, seen = [], {}, set(jaxpr.constvars)

    def need(v):
        if type(v) is not Var or v in unknown_vars or v in seen:
            return
        seen.add(v)
        if v in known_inputs:
            residuals.append(v)
            return
        i, eqn = producer[v]
        if policy(eqn.primitive, *[x.aval for x in eqn.invars], **eqn.params):
            residuals.append(v)
            return
        for w in eqn.invars:
            need(w)
        recompute[i] = eqn

    for eqn in unknown_eqns:
        for v in eqn.invars:
            need(v)
    out_unknown = [type(v) is Var and v in unknown_vars for v in jaxpr.outvars]
    known = jaxpr.replace(
        invars=[v for v, u in zip(jaxpr.invars, unknowns) if not u],
        outvars=[v for v, u in zip(jaxpr.outvars, out_unknown) if not u] + residuals,
        eqns=known_eqns)
    unknown = jaxpr.replace(
        invars=residuals + [v for v, u in zip(jaxpr.invars, unknowns) if u],
        outvars=[v for v, u in zip(jaxpr.outvars, out_unknown) if u],
        eqns=[recompute[i] for i in sorted(recompute)] + unknown_eqns)
    return (ad.dce_closed(ClosedJaxpr(known, closed.consts), [True] * len(known.outvars)),
            ClosedJaxpr(unknown, closed.consts), out_unknown, len(residuals))
