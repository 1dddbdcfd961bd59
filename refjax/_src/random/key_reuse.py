"""The key-reuse checker, ``jax_debug_key_reuse`` (SPEC RNG-65 .. RNG-74).

A typed PRNG key should be *consumed* (used to draw bits, or split) at
most once.  With ``jax_debug_key_reuse`` on, refjax checks this as JAX
does, in two complementary ways:

* **Statically**, on jaxprs: every primitive's ``key_reuse`` signature
  (``Sink``, ``Source``, ``Forward``), walked over the jaxpr by
  ``refjax/_src/interpreters/key_reuse.py``.  Every jitted function's jaxpr
  is checked when it is called, and ``make_jaxpr``'s when it is traced.
* **Eagerly**, on key arrays (this module).  A concrete key array carries
  ``_consumed`` (``False``, ``True`` or a mask over its keys).  Before an
  eager primitive or a jitted function runs, its signature is checked
  against its key arguments ("Previously-consumed key passed to
  random_split at index 0"); afterwards the consumed inputs are marked and
  the outputs' state is set.  The checks plug into dispatch and ``jit``
  through their hooks when this module is imported.

Legacy raw ``uint32`` keys are never tracked: each use wraps them into a
fresh typed key.  Without the option nothing is checked and reusing a key
silently repeats its numbers.
"""
import numpy as np

from refjax._src import api
from refjax._src import config as _config
from refjax._src import core, dispatch
from refjax._src.errors import KeyReuseError
from refjax._src.interpreters.key_reuse import (
    KeyReuseSignature, check_key_reuse_jaxpr, jaxpr_signature, normalize_mask,
    walk_jaxpr,
)
from refjax._src.random import prng


def check_key_reuse(fun, /, *args):
    """Trace ``fun`` on ``args`` and check its jaxpr for key reuse (RNG-73)."""
    check_key_reuse_jaxpr(api.make_jaxpr(fun)(*args).jaxpr)


# ---------------------------------------------------------------------------
# Eager tracking (RNG-65, RNG-68): hooks in dispatch and jit
# ---------------------------------------------------------------------------

def _check_args(sig, args, funcname):
    """Raise if a sink receives an already-consumed key array (RNG-65)."""
    for sink in sig.sinks:
        arg = args[sink.idx]
        if isinstance(arg, prng.PRNGKeyArray) and np.any(
                np.logical_and(arg._consumed, sink.mask)):
            raise KeyReuseError("Previously-consumed key passed to "
                                f"{funcname} at index {sink.idx}")


def _update_args(sig, args_in, args_out):
    """Mark consumed inputs; outputs are consumed unless sourced (fresh)
    or forwarded (sharing their input's state) (RNG-65)."""
    for sink in sig.sinks:
        arg = args_in[sink.idx]
        if isinstance(arg, prng.PRNGKeyArray):
            arg._consumed = normalize_mask(np.logical_or(arg._consumed, sink.mask))
    for out in args_out:
        if isinstance(out, prng.PRNGKeyArray):
            out._consumed = True
    for source in sig.sources:
        out = args_out[source.idx]
        if isinstance(out, prng.PRNGKeyArray):
            out._consumed = normalize_mask(np.logical_not(source.mask))
    for fwd in sig.forwards:
        arg, out = args_in[fwd.in_idx], args_out[fwd.out_idx]
        if isinstance(arg, prng.PRNGKeyArray) and isinstance(out, prng.PRNGKeyArray):
            out._consumed = arg._consumed


def _eager_signature(primitive, avals_in, avals_out, params):
    """(signature, name in messages, extra inputs) of an eager primitive,
    or None for primitives without a rule, which JAX does not track."""
    rule = primitive.key_reuse
    if rule is None:
        return None
    if isinstance(rule, KeyReuseSignature):
        return rule, primitive.name, ()
    if primitive is api.jit_p:
        closed = params["jaxpr"]
        return (jaxpr_signature(closed.jaxpr), "jit-compiled function",
                tuple(closed.consts))
    # The primitive as a one-equation jaxpr, as JAX analyses it.
    outs = avals_out if primitive.multiple_results else [avals_out]
    eqn = core.new_jaxpr_eqn([core.Var(a) for a in avals_in],
                             [core.Var(a) for a in outs], primitive, params)
    jaxpr = core.Jaxpr([], eqn.invars, eqn.outvars, [eqn])
    return walk_jaxpr(jaxpr), primitive.name, ()


def check_eager(primitive, args, avals_in, avals_out, params):
    """Before an eager primitive on key arrays runs: the static checks of
    its signature, then no consumed key may reach a sink (RNG-65)."""
    found = _eager_signature(primitive, avals_in, avals_out, params)
    if found is not None:
        sig, name, extra = found
        _check_args(sig, [*args, *extra], name)


def update_eager(primitive, args, results, avals_in, avals_out, params):
    """After an eager primitive on key arrays ran: record consumption."""
    found = _eager_signature(primitive, avals_in, avals_out, params)
    if found is not None:
        sig, _, extra = found
        outs = results if primitive.multiple_results else [results]
        _update_args(sig, [*args, *extra], outs)


def call_jitted(jitted, entry, call, args, kwargs, trace):
    """A jitted function's call with the checker on (RNG-67, RNG-68).

    The traced jaxpr is checked first (so reuse inside it raises on every
    call, traced or eager).  An eager call then checks its key arguments and
    the keys it closes over, runs, and records consumption.  It never
    registers the fast path, which would skip these checks."""
    closed = entry.traced.closed
    sig = jaxpr_signature(closed.jaxpr)
    if trace is not core.eval_trace:
        outs = jitted._bind(entry, call.flat)
    else:
        inputs = [*call.flat, *closed.consts]
        _check_args(sig, inputs, "jit-compiled function")
        if call.cfg[5] or call.cfg[6]:      # jax_debug_nans / jax_debug_infs
            outs = jitted._execute_checked(entry, call.flat, args, kwargs, call.cfg)
        else:
            outs = api._execute(entry, call.flat)
        _update_args(sig, inputs, outs)
    return api.tree_util.tree_unflatten(entry.traced.out_tree, outs)


class _EagerChecks:
    """The checks dispatch runs around eager primitives on key arrays."""

    def before(self, primitive, args, avals_in, avals_out, params):
        if _config.debug_key_reuse.value:
            check_eager(primitive, args, avals_in, avals_out, params)

    def after(self, primitive, args, results, avals_in, avals_out, params):
        if _config.debug_key_reuse.value:
            update_eager(primitive, args, results, avals_in, avals_out, params)


dispatch.key_array_checks.append(_EagerChecks())
api.key_reuse_checker.call_jitted = call_jitted
api.key_reuse_checker.check_jaxpr = check_key_reuse_jaxpr
