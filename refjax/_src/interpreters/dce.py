"""Dead-code elimination of jaxprs, into the jaxprs equations hold.

``dce_jaxpr`` keeps the equations the used outputs need.  A primitive
holding jaxprs may set ``prim.dce_rule(used_outputs, eqn) -> (used_inputs,
new eqn or None)`` to prune its own body too: a ``cond`` drops branch
outputs nobody reads, a ``scan`` drops dead carries and outputs (SPEC AD-99).
Without a rule an equation is kept whole when any output is used.
"""
from refjax._src.core import ClosedJaxpr, Jaxpr, Var


def dce_jaxpr(jaxpr, used_outputs, instantiate=False):
    """``(jaxpr keeping only the used outputs and what computes them,
    which inputs it still reads)``.  Effectful equations stay; inputs flagged
    in ``instantiate`` stay too, counted as used."""
    n_in = len(jaxpr.invars)
    instantiate = (instantiate,) * n_in if isinstance(instantiate, bool) else tuple(instantiate)
    outvars = [v for v, u in zip(jaxpr.outvars, used_outputs) if u]
    live = {v for v in outvars if type(v) is Var}
    eqns = []
    for eqn in reversed(jaxpr.eqns):
        used = [v in live for v in eqn.outvars]
        rule = getattr(eqn.primitive, "dce_rule", None)
        effectful = eqn_effectful(eqn)
        if rule is not None and not effectful:
            used_in, new = rule(used, eqn)
        elif any(used) or effectful:
            used_in, new = [True] * len(eqn.invars), eqn
        else:
            continue
        if new is not None:
            eqns.append(new)
            live.update(v for v, u in zip(eqn.invars, used_in) if u and type(v) is Var)
    eqns.reverse()
    used_inputs = [v in live or i for v, i in zip(jaxpr.invars, instantiate)]
    new = jaxpr.replace(invars=[v for v, u in zip(jaxpr.invars, used_inputs) if u],
                        outvars=outvars, eqns=eqns)
    return new, used_inputs


def eqn_effectful(eqn):
    """Whether ``eqn`` has a side effect, itself or in a jaxpr it holds
    (a ``debug.callback`` in a ``cond`` branch): such equations are never
    pruned nor recomputed."""
    if eqn.primitive.effectful:
        return True
    return any(eqn_effectful(e) for j in _held_jaxprs(eqn.params) for e in j.eqns)


def _held_jaxprs(params):
    for value in params.values():
        for item in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(item, ClosedJaxpr):
                yield item.jaxpr
            elif isinstance(item, Jaxpr):
                yield item


def call_dce_rule(param, new_params):
    """DCE rule for a primitive holding one closed jaxpr in ``param``
    (``jit``, ``remat2``): prune the body, drop unread operands.
    ``new_params(params, closed)`` re-parameterises for the new arity."""
    def rule(used_outputs, eqn):
        if not any(used_outputs):
            return [False] * len(eqn.invars), None
        closed = eqn.params[param]
        body, used_inputs = dce_jaxpr(closed.jaxpr, used_outputs)
        params = new_params(eqn.params, ClosedJaxpr(body, closed.consts))
        return used_inputs, eqn.replace(
            invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
            outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
            params=params)
    return rule


def dce_closed(closed, used_outputs):
    """``closed`` keeping the used outputs, all its inputs and the
    equations (pruned inside) those outputs need."""
    body, _ = dce_jaxpr(closed.jaxpr, used_outputs, instantiate=True)
    return ClosedJaxpr(body, closed.consts)

