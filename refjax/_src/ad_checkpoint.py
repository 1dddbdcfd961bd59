"""``jax.checkpoint`` (``remat``): trade recomputation for memory.

A checkpointed function is bound as one ``remat2`` equation holding its
jaxpr.  Differentiating it splits that jaxpr by a *policy* deciding, for
each primal equation, whether its output is saved as a residual or
recomputed on the backward pass (SPEC AD-69).
"""
import dataclasses
import functools
import inspect
import types
import typing
import weakref

import numpy as np

from refjax._src import api, core, dtypes, lru, tree_util
from refjax._src.api import def_call
from refjax._src.core import ClosedJaxpr, Primitive, Var
from refjax._src.interpreters import ad, batching, dce
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


# What a policy may return besides a bool (SPEC CDR-8).

class RecomputeType:
    """The type of :data:`Recompute`."""


class SaveableType:
    """The type of :data:`Saveable`."""


Recompute = RecomputeType()
Saveable = SaveableType()


class Offloadable(typing.NamedTuple):
    """Save the value in memory ``dst`` (moved there from ``src``).  refjax
    has one memory per device, so an offloaded value is simply saved."""
    src: str
    dst: str


def _saves(case):
    """Whether a policy's answer saves the value; anything but a bool,
    ``Saveable``, ``Recompute`` or an ``Offloadable(...)`` is a TypeError."""
    if isinstance(case, bool):
        return case
    if isinstance(case, (SaveableType, Offloadable)):
        return True
    if isinstance(case, RecomputeType):
        return False
    msg = ("Value returned by a remat policy should be a bool or "
           "`ad_checkpoint.Recompute`, `ad_checkpoint.Saveable` or "
           f"`ad_checkpoint.Offloadable(...)`. Got {case} of type {type(case)}.")
    if case is Offloadable:
        msg += "Did you return `Offloadable` instead of an instantiated `Offloadable(...)`?"
    raise TypeError(msg)


# Named values (``checkpoint_name``) and the policies that read the names.

name_p = Primitive("name")
name_p.def_impl(lambda x, *, name: x)
name_p.def_abstract_eval(lambda x, *, name: x)
name_p.jvp = lambda primals, tangents, *, name: (name_p.bind(primals[0], name=name),
                                                 tangents[0])
name_p.batch = lambda axis_data, vals, dims, *, name: (name_p.bind(vals[0], name=name),
                                                       dims[0])
name_p.key_reuse = kr.FORWARD


def checkpoint_name(x, name):
    """``x`` (each leaf of a pytree) unchanged, marked by a ``name``
    equation that ``save_only_these_names`` and the other name policies
    recognise (SPEC CDR-8).  The name is an equation parameter, so it must
    be hashable (TypeError otherwise, as in JAX)."""
    try:
        hash(name)
    except TypeError:
        raise TypeError(f"checkpoint_name's name must be hashable (a string); got "
                        f"{name!r} of type {type(name).__name__}") from None
    return tree_util.tree_map(lambda leaf: name_p.bind(leaf, name=name), x)


def offload_dot_with_no_batch_dims(offload_src, offload_dst):
    """``dots_with_no_batch_dims_saveable``, offloading those dots."""
    def policy(prim, *_, **params):
        if prim.name == "dot_general":
            (_, _), (lhs_b, rhs_b) = params["dimension_numbers"]
            if not lhs_b and not rhs_b:
                return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def save_anything_except_these_names(*names_not_to_save):
    """Saves everything: JAX 0.10.2 ignores the names (SPEC CDR-8)."""
    return lambda *_, **__: True


@dataclasses.dataclass(frozen=True)
class SaveOnlyTheseNames:
    """Save the named values among ``saveable_names``, recompute the rest."""
    saveable_names: frozenset

    def __call__(self, prim, *_, **params):
        return prim is name_p and params["name"] in self.saveable_names


@dataclasses.dataclass(frozen=True)
class SaveAnyNamesButThese:
    """Save every named value except those in ``names``."""
    names: frozenset

    def __call__(self, prim, *_, **params):
        return prim is name_p and params["name"] not in self.names


def save_only_these_names(*names_which_can_be_saved):
    return SaveOnlyTheseNames(frozenset(names_which_can_be_saved))


def save_any_names_but_these(*names_not_to_save):
    return SaveAnyNamesButThese(frozenset(names_not_to_save))


def save_and_offload_only_these_names(*, names_which_can_be_saved,
                                      names_which_can_be_offloaded, offload_src,
                                      offload_dst):
    """``save_only_these_names``, with a second set of names offloaded; the
    two sets may not share a name (ValueError)."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    both = saved & offloaded
    if both:
        raise ValueError(
            "The names should be exclusive and should not intersect in "
            "`names_which_can_be_saved` and `names_which_can_be_offloaded`. Got "
            f"names_which_can_be_saved={saved}, names_which_can_be_offloaded="
            f"{offloaded} and the intersection={both}")

    def policy(prim, *_, **params):
        if prim is name_p and params["name"] in saved:
            return Saveable
        if prim is name_p and params["name"] in offloaded:
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def save_from_both_policies(policy_1, policy_2):
    """Save what either policy saves; both must answer with a bool."""
    def policy(prim, *args, **params):
        out1, out2 = policy_1(prim, *args, **params), policy_2(prim, *args, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ValueError(
                "The return value of the policies should be a boolean. Got: "
                f"{out1} and {out2}. Please write a custom policy function directly, "
                "rather than using this helper function.")
        return out1 or out2
    return policy


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
    save_and_offload_only_these_names=save_and_offload_only_these_names,
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

        @functools.wraps(fun)
        def with_static(d, kw):
            it = iter(d)
            return fun(*[static[i] if i in static else next(it) for i in range(n)], **kw)

        closed_over, args = api.ref_hooks.close_over(with_static, (dyn, kwargs))
        cache_key = ((fun, tuple(sorted(static.items())))
                     if closed_over is with_static else None)
        return _bind_remat(closed_over, args, prevent_cse, policy, cache_key)

    return fun_remat


def _bind_remat(fn, args, prevent_cse, policy, cache_key=None):
    """``fn(*args)`` as one ``remat2`` equation; a function reaching
    ``jax.Ref``s is traced again with their values threaded through
    (SPEC EXT-12).  With a ``cache_key`` (the user function and its static
    arguments) the trace is remembered, as ``jit`` remembers its traces, so
    calling the checkpointed function again with arguments of the same
    types does not run its Python again (SPEC AD-100)."""
    leaves, in_tree = tree_util.tree_flatten(tuple(args))
    cache, key = _trace_cache(cache_key, in_tree, leaves, prevent_cse, policy)
    hit = cache.get(key) if cache is not None else None
    if hit is not None:
        closed, out_tree = hit
        consts = []
    else:
        found = []
        closed, consts, leaves, _, out_tree = pe.trace_pytree_fun(
            api.ref_hooks.discover(fn, found, "checkpoint / remat"), args)
        if found:
            return api.ref_hooks.call_with_refs(
                lambda fns, a: _bind_remat(fns[0], a, prevent_cse, policy), [fn], found, args)
        if cache is not None and not consts:
            cache[key] = (closed, out_tree)
    outs = remat_p.bind(*consts, *leaves, jaxpr=closed, prevent_cse=prevent_cse,
                        differentiated=False, policy=policy)
    if core.current_trace() is core.eval_trace:
        outs = _passed_through(closed, [*consts, *leaves], outs)
    return tree_util.tree_unflatten(out_tree, outs)


# user function -> LRU of (static args, signature, options) -> (jaxpr, out tree)
_traces = lru.register(weakref.WeakKeyDictionary())


def _trace_cache(cache_key, in_tree, leaves, prevent_cse, policy):
    """``(the user function's LRU, key)``, or ``(None, None)`` when the
    call cannot be cached (no key, unhashable static arguments or policy,
    a function that cannot be weakly referenced)."""
    if cache_key is None:
        return None, None
    fun, static = cache_key
    key = (static, in_tree, tuple(core.get_aval(x) for x in leaves), prevent_cse, policy,
           api._trace_key_options(api._config_key()), core.axis_env_key())
    try:
        hash(key)
        cache = _traces.get(fun)
        if cache is None:
            cache = _traces.setdefault(fun, lru.LRU(lru.TRACE_CACHE_SIZE))
    except TypeError:
        return None, None
    return cache, key


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
    """Known values are computed now; the unknown outputs are staged as a
    new ``remat2`` that recomputes every known value it needs and the
    policy does not save, and nothing else: work whose results the staged
    side never reads is pruned, inside ``cond`` and ``scan`` bodies too
    (SPEC AD-97, AD-98, AD-99)."""
    unknowns = [trace.is_unknown(a) for a in args]
    saveable = _checked_policy(params["policy"])
    closed = _split_mixed_eqns(params["jaxpr"], unknowns)
    known, staged, out_uk, out_inst, num_res = pe.partial_eval_jaxpr_custom(
        closed.jaxpr, unknowns, True, False, False, saveable)
    staged, used_in = dce.dce_jaxpr(staged, [u for u, i in zip(out_uk, out_inst) if i])
    used_res, used_args = used_in[:num_res], used_in[num_res:]
    n_known = len(out_uk) - sum(out_uk)
    known, used_known = dce.dce_jaxpr(known, [True] * n_known + used_res)
    known_args = [a for a, u in zip(args, unknowns) if not u]
    known_outs = core.eval_jaxpr(known, closed.consts,
                                 *[a for a, u in zip(known_args, used_known) if u])
    staged_outs = trace.stage(
        remat_p, [*known_outs[n_known:], *[a for a, u in zip(args, used_args) if u]],
        _differentiated(params, ClosedJaxpr(staged, closed.consts)))
    known_it, staged_it = iter(known_outs[:n_known]), iter(staged_outs)
    return [next(staged_it) if u else next(known_it) for u in out_uk]


def _checked_policy(policy):
    """The policy as ``saveable(prim, *avals, **params) -> bool``."""
    policy = policy or nothing_saveable
    if not callable(policy):
        raise TypeError(f"'{type(policy).__name__}' object is not callable: "
                        "jax.checkpoint's policy must be a function such as "
                        "jax.checkpoint_policies.nothing_saveable.")
    return lambda prim, *avals, **params: _saves(policy(prim, *avals, **params))


remat_p.partial_eval = _remat_partial_eval
remat_p.partial_eval_custom = pe.call_partial_eval_custom(
    "jaxpr", lambda params, closed: dict(params, jaxpr=closed), _differentiated)
remat_p.dce_rule = dce.call_dce_rule("jaxpr", lambda params, closed: dict(params, jaxpr=closed))
api.jit_p.partial_eval_custom = pe.call_partial_eval_custom(
    "jaxpr", api._jit_params, api._jit_params)
api.jit_p.dce_rule = dce.call_dce_rule("jaxpr", api._jit_params)


def _remat_key_reuse(eqn):
    """``checkpoint``: the forward pass holds all key uses (RNG-72)."""
    if eqn.params.get("differentiated"):
        return kr.KeyReuseSignature()
    jaxpr = eqn.params["jaxpr"]
    return kr.jaxpr_signature(getattr(jaxpr, "jaxpr", jaxpr))


remat_p.key_reuse = _remat_key_reuse


def _split_mixed_eqns(closed, unknowns):
    """``closed`` with each equation that holds a jaxpr (``scan``,
    ``while``, ``cond``, ``jit``...) and has both known and unknown operands
    and no ``partial_eval_custom`` rule (``while``...) replaced by its two
    halves from the primitive's own partial-evaluation rule, inlined: the known half computes the known outputs and the
    residuals, the unknown half the rest.  Without the split a ``scan``
    carrying primal and tangent values would leave its primal outputs
    unknown, and ``linearize`` would return a tracer (SPEC AD-94)."""
    jaxpr = closed.jaxpr
    unknown_vars = {v for v, u in zip(jaxpr.invars, unknowns) if u}
    env, eqns, constvars, consts = {}, [], list(jaxpr.constvars), list(closed.consts)

    def sub(a):
        return env.get(a, a) if type(a) is Var else a

    for eqn in jaxpr.eqns:
        eqn = eqn.replace(invars=[sub(a) for a in eqn.invars])
        flags = [type(a) is Var and a in unknown_vars for a in eqn.invars]
        if (eqn.primitive.partial_eval is None or all(flags) or not any(flags)
                or getattr(eqn.primitive, "partial_eval_custom", None) is not None):
            eqns.append(eqn)
            if any(flags):
                unknown_vars.update(eqn.outvars)
            continue
        known, unknown, out_unknown, num_res = ad.partial_eval_jaxpr(_as_closed(eqn), flags)
        known_outs = _inline(known, [a for a, u in zip(eqn.invars, flags) if not u],
                             eqns, constvars, consts)
        n_known = len(known_outs) - num_res
        unknown_outs = _inline(unknown, [*known_outs[n_known:],
                                         *[a for a, u in zip(eqn.invars, flags) if u]],
                               eqns, constvars, consts)
        k_it, u_it = iter(known_outs[:n_known]), iter(unknown_outs)
        for v, u in zip(eqn.outvars, out_unknown):
            env[v] = next(u_it) if u else next(k_it)
        unknown_vars.update(a for a in unknown_outs if type(a) is Var)
    if len(eqns) == len(jaxpr.eqns) and not env:
        return closed
    return ClosedJaxpr(jaxpr.replace(constvars=constvars, eqns=eqns,
                                     outvars=[sub(a) for a in jaxpr.outvars]), consts)


def _as_closed(eqn):
    """A closed jaxpr holding only ``eqn``, its variable operands as inputs."""
    invars = [Var(a.aval) for a in eqn.invars]
    inner = eqn.replace(invars=[v if type(a) is Var else a for v, a in zip(invars, eqn.invars)],
                        outvars=[Var(v.aval) for v in eqn.outvars])
    inner_jaxpr = core.Jaxpr(constvars=[], invars=invars, outvars=list(inner.outvars),
                             eqns=[inner], effects=getattr(eqn, "effects", frozenset()))
    return ClosedJaxpr(inner_jaxpr, [])


def _inline(closed, args, eqns, constvars, consts):
    """Append ``closed``'s equations to ``eqns`` with its inputs bound to
    ``args`` (its constants become new constants); return its outputs."""
    inner = closed.jaxpr
    env = dict(zip(inner.invars, args))
    for v, c in zip(inner.constvars, closed.consts):
        constvars.append(v)
        consts.append(c)
    for eqn in inner.eqns:
        eqns.append(eqn.replace(invars=[env.get(a, a) if type(a) is Var else a
                                        for a in eqn.invars]))
    return [env.get(a, a) if type(a) is Var else a for a in inner.outvars]


# ---------------------------------------------------------------------------
# print_saved_residuals (SPEC CDR-9)
# ---------------------------------------------------------------------------

def saved_residuals(f, *args, **kwargs):
    """``[(aval, where it comes from)]`` for each value reverse mode of
    ``f`` at ``args`` saves: an argument, a constant, a named value or a
    primitive's output with the source line that computed it."""
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    store = {}

    def flat(*xs):
        a, k = tree_util.tree_unflatten(in_tree, xs)
        return tree_util.tree_leaves(f(*a, **k))

    def linearized(*xs):
        outs, lin, _, _ = ad.linearize_flat(flat, list(xs))
        store["num_res"] = len(lin.consts)
        return list(outs) + list(lin.consts)

    jaxpr = pe.trace_to_jaxpr(linearized, [core.get_aval(x) for x in leaves]).jaxpr
    residuals = jaxpr.outvars[len(jaxpr.outvars) - store["num_res"]:]
    return _describe_residuals(jaxpr, residuals, _arg_names(f, args, kwargs))


def _describe_residuals(jaxpr, residuals, arg_names):
    """Residuals in JAX's order: literals, constants, arguments, then the
    equations' outputs in program order."""
    found = {v for v in residuals if type(v) is Var}
    out = [(v.aval, "from a literal") for v in residuals if type(v) is not Var]
    out += [(v.aval, "from a constant") for v in jaxpr.constvars if v in found]
    out += [(v.aval, f"from the argument {name}")
            for v, name in zip(jaxpr.invars, arg_names) if v in found]
    for eqn in jaxpr.eqns:
        where = eqn.source_info.summary() if eqn.source_info else "unknown"
        for v in eqn.outvars:
            if v not in found:
                continue
            if eqn.primitive is name_p:
                out.append((v.aval, f"named '{eqn.params['name']}' from {where}"))
            elif eqn.primitive.name == "jit":
                out.append((v.aval, f"output of jitted function '{eqn.params['name']}' "
                                    f"from {where}"))
            else:
                out.append((v.aval, f"output of {eqn.primitive.name} from {where}"))
    return out


def _arg_names(f, args, kwargs):
    """Each argument leaf's name as JAX prints it: ``x``, ``x['a']``,
    ``args[1]``."""
    try:
        sig = inspect.signature(f)
        bound = sig.bind(*args, **kwargs)
        named = list(bound.arguments.items())
    except (TypeError, ValueError):
        named = [(f"args[{i}]", a) for i, a in enumerate(args)] + list(kwargs.items())
    names = []
    for name, value in named:
        kind = sig.parameters[name].kind if name in getattr(sig, "parameters", {}) else None
        if kind is inspect.Parameter.VAR_POSITIONAL:
            value = tuple(value)
            paths = [(f"{name}[{i}]", x) for i, x in enumerate(value)]
        elif kind is inspect.Parameter.VAR_KEYWORD:
            paths = [(f"{name}[{k!r}]", x) for k, x in value.items()]
        else:
            paths = [(name, value)]
        for base, sub in paths:
            for path, _ in tree_util.tree_flatten_with_path(sub)[0]:
                names.append(base + tree_util.keystr(path))
    return names


def print_saved_residuals(f, *args, **kwargs):
    """Print one line per residual: ``f32[3] from the argument x``,
    ``f32[3] named 'a' from file:line:col (fn)``... (SPEC CDR-9)."""
    for aval, where in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short(short_dtypes=True)} {where}")
