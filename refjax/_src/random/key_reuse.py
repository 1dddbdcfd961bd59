"""The key-reuse checker, ``jax_debug_key_reuse`` (SPEC RNG-65 .. RNG-74).

A typed PRNG key should be *consumed* (used to draw bits, or split) at
most once.  With ``jax_debug_key_reuse`` on, refjax checks this as JAX
does, in two complementary ways:

* **Statically**, on jaxprs.  Every primitive has a *signature* saying what
  it does to its key operands: ``Sink(i)`` consumes input ``i`` (possibly
  only some of its keys: a boolean *mask*), ``Source(j)`` makes output ``j``
  a fresh key, ``Forward(i, j)`` makes output ``j`` the very same keys as
  input ``i``.  Walking a jaxpr's equations with these rules finds a key
  consumed twice ("In random_bits, argument 0 is already consumed.") and
  sums the jaxpr up as a signature of its own, so ``jit``, ``cond``,
  ``scan`` and ``while`` equations get signatures from their sub-jaxprs.
  Every jitted function's jaxpr is checked when it is called.
* **Eagerly**, on key arrays.  A concrete key array carries ``_consumed``
  (``False``, ``True`` or a mask over its keys).  Before an eager primitive
  or a jitted function runs, its signature is checked against its key
  arguments ("Previously-consumed key passed to random_split at index 0");
  afterwards the consumed inputs are marked and the outputs' state is set.

Legacy raw ``uint32`` keys are never tracked: each use wraps them into a
fresh typed key.  Without the option nothing is checked and reusing a key
silently repeats its numbers.
"""
import weakref
from collections import defaultdict
from functools import reduce

import numpy as np

from refjax._src import api, core, debugging, dispatch
from refjax._src import config as _config
from refjax._src.ad_checkpoint import remat_p
from refjax._src.lax import lax, shapes, slicing
from refjax._src.lax.control_flow.conditionals import cond_p
from refjax._src.lax.control_flow.loops import while_p
from refjax._src.lax.control_flow.scan import scan_p
from refjax._src.random import prng
from refjax._src.errors import KeyReuseError

__all__ = ["KeyReuseError", "Sink", "Source", "Forward", "KeyReuseSignature",
           "check_key_reuse", "check_key_reuse_jaxpr", "jaxpr_signature"]


# ---------------------------------------------------------------------------
# Signatures (RNG-66)
# ---------------------------------------------------------------------------

def _normalize_mask(mask):
    """``True``/``False``, or a read-only boolean array that is neither all
    True nor all False (an empty mask consumes nothing)."""
    if isinstance(mask, np.ndarray):
        if not mask.any():
            return False
        if mask.all():
            return True
        mask = np.array(mask, dtype=bool)
        mask.flags.writeable = False
        return mask
    return bool(mask)


class _Effect:
    """``Sink(idx, mask)`` or ``Source(idx, mask)``: immutable and hashable."""

    __slots__ = ("idx", "mask")

    def __init__(self, idx, mask=True):
        object.__setattr__(self, "idx", int(idx))
        object.__setattr__(self, "mask", _normalize_mask(mask))

    def __setattr__(self, *_):
        raise ValueError(f"{type(self).__name__} is immutable")

    def _mask_key(self):
        if isinstance(self.mask, bool):
            return self.mask
        return (self.mask.shape, tuple(self.mask.ravel().tolist()))

    def __eq__(self, other):
        return (type(self) is type(other) and self.idx == other.idx
                and self._mask_key() == other._mask_key())

    def __hash__(self):
        return hash((type(self), self.idx, self._mask_key()))

    def sort_key(self):
        return (0, type(self).__name__, self.idx)

    def __repr__(self):
        if self.mask is True:
            return f"{type(self).__name__}({self.idx})"
        return f"{type(self).__name__}({self.idx}, {self.mask})"


class Sink(_Effect):
    """Input ``idx`` is consumed (where ``mask`` is True)."""
    __slots__ = ()


class Source(_Effect):
    """Output ``idx`` is a fresh, unconsumed key array."""
    __slots__ = ()


class Forward:
    """Output ``out_idx`` holds the same keys as input ``in_idx``."""

    __slots__ = ("in_idx", "out_idx")

    def __init__(self, in_idx, out_idx):
        self.in_idx, self.out_idx = in_idx, out_idx

    def __eq__(self, other):
        return isinstance(other, Forward) and (self.in_idx, self.out_idx) == (
            other.in_idx, other.out_idx)

    def __hash__(self):
        return hash((Forward, self.in_idx, self.out_idx))

    def sort_key(self):
        return (1, self.in_idx, self.out_idx)

    def __repr__(self):
        return f"Forward({self.in_idx}, {self.out_idx})"


class KeyReuseSignature:
    """A set of ``Sink``, ``Source`` and ``Forward`` effects (SPEC RNG-66)."""

    __slots__ = ("_effects",)

    def __init__(self, *effects):
        self._effects = frozenset(effects)

    def __eq__(self, other):
        return isinstance(other, KeyReuseSignature) and self._effects == other._effects

    def __hash__(self):
        return hash(self._effects)

    def __repr__(self):
        return f"KeyReuseSignature{tuple(sorted(self._effects, key=_sort_key))}"

    @property
    def sinks(self):
        return [e for e in self._effects if isinstance(e, Sink)]

    @property
    def sources(self):
        return [e for e in self._effects if isinstance(e, Source)]

    @property
    def forwards(self):
        return [e for e in self._effects if isinstance(e, Forward)]

    def check(self, args, funcname):
        """Raise if a sink receives an already-consumed key array (RNG-65)."""
        for sink in self.sinks:
            arg = args[sink.idx]
            if isinstance(arg, prng.PRNGKeyArray) and np.any(
                    np.logical_and(arg._consumed, sink.mask)):
                raise KeyReuseError("Previously-consumed key passed to "
                                    f"{funcname} at index {sink.idx}")

    def update(self, args_in, args_out):
        """Mark consumed inputs; outputs are consumed unless sourced (fresh)
        or forwarded (sharing their input's state) (RNG-65)."""
        for sink in self.sinks:
            arg = args_in[sink.idx]
            if isinstance(arg, prng.PRNGKeyArray):
                arg._consumed = _normalize_mask(np.logical_or(arg._consumed, sink.mask))
        for out in args_out:
            if isinstance(out, prng.PRNGKeyArray):
                out._consumed = True
        for source in self.sources:
            out = args_out[source.idx]
            if isinstance(out, prng.PRNGKeyArray):
                out._consumed = _normalize_mask(np.logical_not(source.mask))
        for fwd in self.forwards:
            arg, out = args_in[fwd.in_idx], args_out[fwd.out_idx]
            if isinstance(arg, prng.PRNGKeyArray) and isinstance(out, prng.PRNGKeyArray):
                out._consumed = arg._consumed


def _sort_key(effect):
    return effect.sort_key()


# ---------------------------------------------------------------------------
# Signatures of primitives (RNG-66, RNG-69 .. RNG-72)
# ---------------------------------------------------------------------------

def _is_key(var):
    return prng.is_key_dtype(getattr(getattr(var, "aval", None), "dtype", None))


def _unknown_signature(eqn):
    """Primitives without a rule consume every key operand (RNG-66)."""
    return KeyReuseSignature(*(Sink(i) for i, v in enumerate(eqn.invars) if _is_key(v)))


def _slice_signature(eqn):
    """``slice`` consumes exactly the sliced keys and returns fresh keys,
    so distinct elements of a split key array stay usable (RNG-69)."""
    aval = eqn.invars[0].aval
    if not prng.is_key_dtype(aval.dtype):
        return KeyReuseSignature(Forward(0, 0))
    p = eqn.params
    strides = p["strides"] or (1,) * len(p["start_indices"])
    mask = np.zeros(aval.shape, dtype=bool)
    mask[tuple(map(slice, p["start_indices"], p["limit_indices"], strides))] = True
    return KeyReuseSignature(Sink(0, mask), Source(0))


def _concatenate_signature(eqn):
    """Joining several key arrays consumes them all; one is forwarded."""
    if len(eqn.invars) == 1:
        return KeyReuseSignature(Forward(0, 0))
    return KeyReuseSignature(*(Sink(i) for i in range(len(eqn.invars))), Source(0))


def _jit_signature(eqn):
    """A ``jit`` equation: its jaxpr's signature.  Keys closed over by the
    inner function are constants of that jaxpr, not operands of the
    equation, so effects on them are left out here."""
    return _operands_only(jaxpr_signature(eqn.params["jaxpr"].jaxpr),
                          len(eqn.invars))


def _operands_only(sig, n):
    """``sig`` without effects on inputs past the first ``n``: the
    constvars of a closed sub-jaxpr (concrete constants), which are not
    operands of the equation."""
    return KeyReuseSignature(
        *(s for s in sig.sinks if s.idx < n), *sig.sources,
        *(f for f in sig.forwards if f.in_idx < n))


def _remat_signature(eqn):
    """``checkpoint``: the forward pass holds all key uses (RNG-72)."""
    if eqn.params.get("differentiated"):
        return KeyReuseSignature()
    jaxpr = eqn.params["jaxpr"]
    return jaxpr_signature(getattr(jaxpr, "jaxpr", jaxpr))


def _cond_signature(eqn):
    """Each branch may consume a key once: the signature joins the
    branches' sinks (shifted past the index operand) and keeps sources
    and forwards common to all branches (RNG-70)."""
    sigs = [_operands_only(jaxpr_signature(b.jaxpr), len(b.jaxpr.invars))
            for b in eqn.params["branches"]]
    sinks, sources = defaultdict(list), defaultdict(list)
    for sig in sigs:
        for s in sig.sinks:
            sinks[s.idx].append(s.mask)
        for s in sig.sources:
            sources[s.idx].append(s.mask)
    forwards = set.intersection(*(set(sig.forwards) for sig in sigs))
    return KeyReuseSignature(
        *(Sink(i + 1, reduce(np.logical_or, m)) for i, m in sinks.items()),
        *(Source(i, reduce(np.logical_and, m)) for i, m in sources.items()),
        *(Forward(f.in_idx + 1, f.out_idx) for f in forwards))


def _consumes_consts(sig, nconsts, jaxpr):
    """Whether a loop body consumes a loop constant: one of its first
    ``nconsts`` operands or a key constant closed into its jaxpr."""
    n = len(jaxpr.invars)
    return any(np.any(s.mask) for s in sig.sinks
               if s.idx < nconsts or s.idx >= n)


def _scan_signature(eqn):
    """A scan body runs repeatedly: it may not consume a key constant, and
    it may consume a carried key only if it carries out a fresh one (RNG-71)."""
    jaxpr = eqn.params["jaxpr"].jaxpr
    nconsts, ncarry = eqn.params["num_consts"], eqn.params["num_carry"]
    signature = jaxpr_signature(jaxpr)
    if _consumes_consts(signature, nconsts, jaxpr):
        raise KeyReuseError(
            "scan body function leads to key reuse when repeatedly executed, "
            "because key constants are repeatedly consumed:\n"
            f"  signature={signature!r}\n  eqn={eqn!r}\n  jaxpr={jaxpr!r}")
    carry_sinks = {s.idx - nconsts for s in signature.sinks
                   if 0 <= s.idx - nconsts < ncarry and np.any(s.mask)}
    carry_sources = {s.idx for s in signature.sources
                     if 0 <= s.idx < ncarry and np.any(s.mask)}
    if not carry_sinks <= carry_sources:
        raise KeyReuseError(
            "scan body function leads to key reuse when repeatedly executed, "
            "because consumed inputs don't match sourced outputs:\n"
            f"  signature={signature!r}\n  eqn={eqn!r}\n  jaxpr={jaxpr!r}")
    return signature


def _while_signature(eqn):
    """``while_loop``: as for scan, for both the cond and the body, which
    may not consume the same carried key either (RNG-71)."""
    p = eqn.params
    cond_n, body_n = p["cond_nconsts"], p["body_nconsts"]
    cond_jaxpr, body_jaxpr = p["cond_jaxpr"].jaxpr, p["body_jaxpr"].jaxpr
    cond_signature = jaxpr_signature(cond_jaxpr)
    body_signature = jaxpr_signature(body_jaxpr)
    cond_msg = ("while_loop cond function leads to key reuse when repeatedly "
                f"executed:   cond_signature={cond_signature!r}\n  eqn={eqn!r}")
    body_msg = ("while_loop body function leads to key reuse when repeatedly "
                f"executed:   body_signature={body_signature!r}\n  eqn={eqn!r}")
    if _consumes_consts(cond_signature, cond_n, cond_jaxpr):
        raise KeyReuseError(cond_msg)
    if _consumes_consts(body_signature, body_n, body_jaxpr):
        raise KeyReuseError(body_msg)
    body_sinks = {s.idx - body_n for s in body_signature.sinks if s.idx >= body_n}
    cond_sinks = {s.idx - cond_n for s in cond_signature.sinks if s.idx >= cond_n}
    sources = {s.idx for s in body_signature.sources}
    if not cond_sinks <= sources:
        raise KeyReuseError(cond_msg)
    if not body_sinks <= sources:
        raise KeyReuseError(body_msg)
    if body_sinks & cond_sinks:
        raise KeyReuseError(
            "while_loop cond and body functions both use the same key: "
            f"  cond_signature={cond_signature!r}\n"
            f"  body_signature={body_signature!r}\n  eqn={eqn!r}")
    return body_signature


_STATIC = None      # primitive -> KeyReuseSignature, built on first use
_DYNAMIC = None     # primitive -> function of the equation


def _tables():
    """The rules, built lazily: the primitives live in modules that import
    this one's importers."""
    global _STATIC, _DYNAMIC
    if _STATIC is None:
        _STATIC, _DYNAMIC = _build_tables()
    return _STATIC, _DYNAMIC


def _build_tables():
    forward, none = KeyReuseSignature(Forward(0, 0)), KeyReuseSignature()
    static = {
        prng.random_bits_p: KeyReuseSignature(Sink(0)),
        prng.random_split_p: KeyReuseSignature(Sink(0), Source(0)),
        # fold_in and key_data leave their key usable, as in JAX (RNG-68).
        prng.random_fold_in_p: KeyReuseSignature(Source(0)),
        prng.random_seed_p: KeyReuseSignature(Source(0)),
        prng.random_wrap_p: KeyReuseSignature(Source(0)),
        prng.random_clone_p: KeyReuseSignature(Source(0)),
        prng.random_unwrap_p: none,
        debugging.debug_callback_p: none,
        lax.eq_p: none, lax.ne_p: none,
        slicing.dynamic_update_slice_p: KeyReuseSignature(Sink(1), Forward(0, 0)),
        slicing.scatter_p: KeyReuseSignature(Sink(2), Forward(0, 0)),
    }
    for prim in (shapes.broadcast_in_dim_p, shapes.copy_p, shapes.reshape_p,
                 shapes.squeeze_p, lax.convert_element_type_p,
                 slicing.dynamic_slice_p, slicing.gather_p):
        static[prim] = forward
    dynamic = {
        shapes.slice_p: _slice_signature,
        shapes.concatenate_p: _concatenate_signature,
        # refjax's stack primitive is JAX's broadcast + concatenate.
        shapes.stack_p: _concatenate_signature,
        api.jit_p: _jit_signature, remat_p: _remat_signature,
        cond_p: _cond_signature, scan_p: _scan_signature, while_p: _while_signature,
    }
    return static, dynamic


def eqn_signature(eqn):
    """The signature of one jaxpr equation (RNG-66)."""
    static, dynamic = _tables()
    sig = static.get(eqn.primitive)
    if sig is not None:
        return sig
    rule = dynamic.get(eqn.primitive)
    return rule(eqn) if rule is not None else _unknown_signature(eqn)


# ---------------------------------------------------------------------------
# Jaxprs (RNG-67)
# ---------------------------------------------------------------------------

class _Walk:
    """The consumption state of a jaxpr's variables, equation by equation."""

    def __init__(self):
        self.consumed = {}      # variable -> False, True or a mask
        self.forwards = {}      # forwarded output -> the input it aliases

    def resolve(self, var):
        seen = 0
        while isinstance(var, core.Var) and var in self.forwards:
            var = self.forwards[var]
            seen += 1
            if seen > len(self.forwards):
                raise ValueError("forwarding cycle detected")
        return var

    def sink(self, var, mask):
        """Consume ``var``; True when some of it was already consumed."""
        if not _is_key(var):
            return False
        var = self.resolve(var)
        before = self.consumed.get(var, False)
        if np.any(np.logical_and(before, mask)):
            return True
        self.consumed[var] = np.logical_or(before, mask)
        return False

    def source(self, var, consumed):
        if _is_key(var):
            self.consumed[self.resolve(var)] = consumed

    def step(self, eqn):
        sig = eqn_signature(eqn)
        for fwd in sig.forwards:
            self.forwards[eqn.outvars[fwd.out_idx]] = eqn.invars[fwd.in_idx]
        for snk in sig.sinks:
            if not 0 <= snk.idx < len(eqn.invars):
                raise KeyReuseError(f"In {eqn.primitive}, sink {snk.idx} out of "
                                    f"range [0, {len(eqn.invars)}]")
            if self.sink(eqn.invars[snk.idx], snk.mask):
                raise KeyReuseError(f"In {eqn.primitive}, argument {snk.idx} "
                                    "is already consumed.")
        # Outputs are consumed unless the signature sources them.
        for var in eqn.outvars:
            if var not in self.forwards:
                self.source(var, True)
        for src in sig.sources:
            self.source(eqn.outvars[src.idx], False)


_signatures = weakref.WeakKeyDictionary()   # Jaxpr -> its signature


def jaxpr_signature(jaxpr):
    """Walk ``jaxpr`` (raising ``KeyReuseError`` on reuse) and sum it up:
    sinks on its inputs (invars, then constvars), sources for fresh key
    outputs, forwards for outputs that are inputs (RNG-67)."""
    sig = _signatures.get(jaxpr)
    if sig is None:
        sig = _signatures[jaxpr] = _walk_jaxpr(jaxpr)
    return sig


def _walk_jaxpr(jaxpr):
    walk = _Walk()
    for eqn in jaxpr.eqns:
        walk.step(eqn)
    inputs = [*jaxpr.invars, *jaxpr.constvars]
    position = {v: i for i, v in enumerate(inputs)}
    effects = [Sink(i, walk.consumed[v]) for i, v in enumerate(inputs)
               if _is_key(v) and np.any(walk.consumed.get(v, False))]
    for j, out in enumerate(jaxpr.outvars):
        if not _is_key(out):
            continue
        origin = walk.resolve(out)
        if origin in position:
            effects.append(Forward(position[origin], j))
        elif not np.any(walk.consumed.get(out, False)):
            effects.append(Source(j))
    return KeyReuseSignature(*effects)


def check_key_reuse_jaxpr(jaxpr):
    """Raise ``KeyReuseError`` if ``jaxpr`` consumes a key twice (RNG-73)."""
    jaxpr_signature(getattr(jaxpr, "jaxpr", jaxpr))


def check_key_reuse(fun, /, *args):
    """Trace ``fun`` on ``args`` and check its jaxpr for key reuse (RNG-73)."""
    check_key_reuse_jaxpr(api.make_jaxpr(fun)(*args).jaxpr)


# ---------------------------------------------------------------------------
# Eager tracking (RNG-65, RNG-68): hooks in dispatch and jit
# ---------------------------------------------------------------------------

def _eager_signature(primitive, avals_in, avals_out, params):
    """(signature, name in messages, extra inputs) of an eager primitive,
    or None for primitives without a rule, which JAX does not track."""
    static, dynamic = _tables()
    if primitive in static:
        return static[primitive], primitive.name, ()
    if primitive not in dynamic:
        return None
    if primitive is api.jit_p:
        closed = params["jaxpr"]
        return (jaxpr_signature(closed.jaxpr), "jit-compiled function",
                tuple(closed.consts))
    # The primitive as a one-equation jaxpr, as JAX analyses it.
    outs = avals_out if primitive.multiple_results else [avals_out]
    eqn = core.new_jaxpr_eqn([core.Var(a) for a in avals_in],
                             [core.Var(a) for a in outs], primitive, params)
    jaxpr = core.Jaxpr([], eqn.invars, eqn.outvars, [eqn])
    return _walk_jaxpr(jaxpr), primitive.name, ()


def check_eager(primitive, args, avals_in, avals_out, params):
    """Before an eager primitive on key arrays runs: the static checks of
    its signature, then no consumed key may reach a sink (RNG-65)."""
    found = _eager_signature(primitive, avals_in, avals_out, params)
    if found is not None:
        sig, name, extra = found
        sig.check([*args, *extra], name)


def update_eager(primitive, args, results, avals_in, avals_out, params):
    """After an eager primitive on key arrays ran: record consumption."""
    found = _eager_signature(primitive, avals_in, avals_out, params)
    if found is not None:
        sig, _, extra = found
        outs = results if primitive.multiple_results else [results]
        sig.update([*args, *extra], outs)


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
        sig.check(inputs, "jit-compiled function")
        if call.cfg[5] or call.cfg[6]:      # jax_debug_nans / jax_debug_infs
            outs = jitted._execute_checked(entry, call.flat, args, kwargs, call.cfg)
        else:
            outs = api._execute(entry, call.flat)
        sig.update(inputs, outs)
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
