"""Key-reuse signatures and the static check of jaxprs (SPEC RNG-66, RNG-67).

A typed PRNG key should be *consumed* (used to draw bits, or split) at most
once.  Each primitive states what it does to its key operands in its
``key_reuse`` rule, next to its other rules: a :class:`KeyReuseSignature`
of ``Sink(i)`` (consumes input ``i``, possibly only some of its keys: a
boolean *mask*), ``Source(j)`` (output ``j`` is a fresh key) and
``Forward(i, j)`` (output ``j`` is the very same keys as input ``i``), or a
function of the equation for primitives holding jaxprs (``jit``, ``cond``,
``scan``...).  A primitive without a rule consumes every key operand.

Walking a jaxpr's equations with these rules finds a key consumed twice
("In random_bits, argument 0 is already consumed.") and sums the jaxpr up
as a signature of its own (:func:`jaxpr_signature`).  The eager checks and
``jax_debug_key_reuse`` itself live in ``refjax/_src/random/key_reuse.py``.
"""
import weakref

import numpy as np

from refjax._src import core, dtypes, lru
from refjax._src.errors import KeyReuseError

# ---------------------------------------------------------------------------
# Signatures (RNG-66)
# ---------------------------------------------------------------------------

def normalize_mask(mask):
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
        object.__setattr__(self, "mask", normalize_mask(mask))

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


def _sort_key(effect):
    return effect.sort_key()


# The two most common rules: output 0 is input 0's keys, and no key is used.
FORWARD = KeyReuseSignature(Forward(0, 0))
NO_KEYS = KeyReuseSignature()


# ---------------------------------------------------------------------------
# Signatures of equations (RNG-66)
# ---------------------------------------------------------------------------

def is_key(var):
    """Whether ``var`` (a jaxpr variable) holds typed PRNG keys."""
    dtype = getattr(getattr(var, "aval", None), "dtype", None)
    return dtypes.is_extended(dtype) and issubclass(dtype.type, dtypes.prng_key)


def _unknown_signature(eqn):
    """Primitives without a rule consume every key operand (RNG-66)."""
    return KeyReuseSignature(*(Sink(i) for i, v in enumerate(eqn.invars) if is_key(v)))


def eqn_signature(eqn):
    """The signature of one jaxpr equation (RNG-66): its primitive's
    ``key_reuse`` rule, a signature or a function of the equation."""
    rule = eqn.primitive.key_reuse
    if rule is None:
        return _unknown_signature(eqn)
    return rule if isinstance(rule, KeyReuseSignature) else rule(eqn)


def operands_only(sig, n):
    """``sig`` without effects on inputs past the first ``n``: the
    constvars of a closed sub-jaxpr (concrete constants), which are not
    operands of the equation."""
    return KeyReuseSignature(
        *(s for s in sig.sinks if s.idx < n), *sig.sources,
        *(f for f in sig.forwards if f.in_idx < n))


def consumes_consts(sig, nconsts, jaxpr):
    """Whether a loop body consumes a loop constant: one of its first
    ``nconsts`` operands or a key constant closed into its jaxpr."""
    n = len(jaxpr.invars)
    return any(np.any(s.mask) for s in sig.sinks
               if s.idx < nconsts or s.idx >= n)


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
        if not is_key(var):
            return False
        var = self.resolve(var)
        before = self.consumed.get(var, False)
        if np.any(np.logical_and(before, mask)):
            return True
        self.consumed[var] = np.logical_or(before, mask)
        return False

    def source(self, var, consumed):
        if is_key(var):
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


_signatures = lru.register(weakref.WeakKeyDictionary())   # Jaxpr -> its signature


def jaxpr_signature(jaxpr):
    """Walk ``jaxpr`` (raising ``KeyReuseError`` on reuse) and sum it up:
    sinks on its inputs (invars, then constvars), sources for fresh key
    outputs, forwards for outputs that are inputs (RNG-67)."""
    sig = _signatures.get(jaxpr)
    if sig is None:
        sig = _signatures[jaxpr] = walk_jaxpr(jaxpr)
    return sig


def walk_jaxpr(jaxpr):
    walk = _Walk()
    for eqn in jaxpr.eqns:
        walk.step(eqn)
    inputs = [*jaxpr.invars, *jaxpr.constvars]
    position = {v: i for i, v in enumerate(inputs)}
    effects = [Sink(i, walk.consumed[v]) for i, v in enumerate(inputs)
               if is_key(v) and np.any(walk.consumed.get(v, False))]
    for j, out in enumerate(jaxpr.outvars):
        if not is_key(out):
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
