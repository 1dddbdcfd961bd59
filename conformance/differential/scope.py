"""The state of one program while the generator draws it (SPEC DIFF-1).

``Gen`` holds what the whole program shares (the Hypothesis ``draw``, x64
mode, the arguments created so far, a name counter); ``Scope`` is one function
body being written: the values it can use (its parameters, its own nodes and,
through closure, everything visible in the enclosing body) and the nodes it
has emitted.
"""
import math

from hypothesis import strategies as st

from .program import Block, Input, Node
from .types import Abstract, broadcast_shapes, canonical, kind

# Hypothesis shrinks towards the first entry of each list.
DTYPES_X32 = ["float32", "int32", "bool", "float16", "bfloat16", "int8", "uint8",
              "int16", "uint32"]
DTYPES_X64 = ["float64", "int64", "uint64"]
DIMS = [2, 3, 1, 4]

FLOATS = [1.0, 0.0, -1.0, 0.5, 2.0, -1.5, 3.0, -2.5, 0.25, 4.0, -0.0, 0.1, 7.5, 100.0]
FLOAT_SPECIALS = [math.nan, math.inf, -math.inf]
INTS = [1, 0, -1, 2, 3, -2, 5, -7, 10, 100]
UINTS = [1, 0, 2, 3, 5, 7, 10, 100]
LITERALS = {"i": [2, 1, -1, 3, 0, 7], "f": [2.0, 0.5, -1.5, 1.0, 3.25], "b": [True, False]}


def int_range(dtype):
    bits = int("".join(c for c in dtype if c.isdigit()))
    if kind(dtype) == "u":
        return 0, 2 ** bits - 1
    return -2 ** (bits - 1), 2 ** (bits - 1) - 1


class Gen:
    def __init__(self, draw, x64):
        self.draw = draw
        self.x64 = x64
        self.inputs = []          # Input objects without values, in order
        self.counter = 0
        self.specials = True      # NaN, inf and integer extremes among values
        self.family = "mixed"

    def name(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -- small drawing helpers ------------------------------------------------
    def one_of(self, seq):
        return self.draw(st.sampled_from(seq))

    def integer(self, lo, hi):
        return self.draw(st.integers(lo, hi))

    def chance(self, n):
        """True about once in ``n`` draws (shrinks to False)."""
        return self.draw(st.integers(0, n - 1)) == n - 1

    def dtype(self, kinds="biuf"):
        if self.family == "autodiff" and "f" in kinds and not self.chance(4):
            kinds = "f"
        pool = (DTYPES_X64 if self.x64 else []) + DTYPES_X32
        return self.one_of([d for d in pool if kind(d) in kinds])

    def shape(self, max_rank=3):
        rank = self.integer(0, max_rank)
        dims = [self.one_of(DIMS) for _ in range(rank)]
        if rank and self.chance(25):
            dims[self.integer(0, rank - 1)] = 0
        return tuple(dims)

    def new_input(self, shape, dtype, python=False):
        """A fresh argument of the program; returns (name, Abstract)."""
        name = self.name("x")
        weak = python and dtype != "bool"
        if python:
            dtype = {"b": "bool", "i": canonical("int64", self.x64),
                     "u": canonical("int64", self.x64),
                     "f": canonical("float64", self.x64)}[kind(dtype)]
        t = Abstract(tuple(shape), dtype, weak=weak, py=python)
        self.inputs.append(Input(name, t, python=python))
        return name, t

    # -- values of arguments --------------------------------------------------
    def scalar_value(self, dtype, specials):
        k = kind(dtype)
        if k == "b":
            return self.draw(st.booleans())
        if k == "f":
            return self.one_of(FLOATS + (FLOAT_SPECIALS if specials else []))
        lo, hi = int_range(dtype)
        pool = [v for v in (UINTS if k == "u" else INTS) if lo <= v <= hi]
        return self.one_of(pool + ([lo, hi] if specials else []))

    def values(self, shape, dtype):
        specials = self.specials and self.chance(5)
        def fill(dims):
            if not dims:
                return self.scalar_value(dtype, specials)
            return [fill(dims[1:]) for _ in range(dims[0])]
        return fill(list(shape))


class Scope:
    """One function body under construction."""

    def __init__(self, gen, parent=None, params=()):
        self.gen = gen
        self.parent = parent
        self.params = [name for name, _ in params]
        self.local = dict(params)
        self.nodes = []

    def visible(self):
        if self.parent is None:
            names = {i.name: i.type for i in self.gen.inputs}
        else:
            names = self.parent.visible()
        names.update(self.local)
        return names

    def emit(self, expr, t, defs=()):
        name = self.gen.name("v")
        self.nodes.append(Node(name, expr, tuple(defs)))
        self.local[name] = t
        return name

    def emit_many(self, expr, types, defs=()):
        """``a, b = expr`` (scan's carry and stacked outputs)."""
        names = [self.gen.name("v") for _ in types]
        self.nodes.append(Node(", ".join(names), expr, tuple(defs)))
        self.local.update(zip(names, types))
        return names

    def block(self, name, result):
        return Block(name, tuple(self.params), tuple(self.nodes), result)

    def pick(self, pred=lambda t: True):
        """An existing value satisfying ``pred``: usually the newest (programs
        are mostly chains), else any; None if there is none."""
        cands = [(n, t) for n, t in self.visible().items() if pred(t)]
        if not cands:
            return None
        if self.gen.family == "autodiff" and not self.gen.chance(4):
            # keep derivatives alive: operate on floats where there are some
            cands = [c for c in cands if c[1].kind == "f"] or cands
        if not self.gen.chance(3):       # mostly chains: the newest value
            return cands[-1]
        return cands[len(cands) - 1 - self.gen.integer(0, len(cands) - 1)]

    # -- operands ---------------------------------------------------------------
    def literal(self, kinds="bif"):
        """A Python scalar literal: (source, Abstract) with a weak type."""
        k = self.gen.one_of([k for k in "ifb" if k in kinds])
        value = self.gen.one_of(LITERALS[k])
        dtype = {"i": canonical("int64", self.gen.x64), "f": canonical("float64", self.gen.x64),
                 "b": "bool"}[k]
        return repr(value), Abstract((), dtype, weak=(k != "b"), py=True)

    def compatible_shape(self, shape):
        """A shape that broadcasts with ``shape``."""
        choice = self.gen.integer(0, 3)
        if choice == 0:
            return tuple(shape)
        if choice == 1 and shape:
            return tuple(shape[self.gen.integer(0, len(shape)):])
        if choice == 2:
            return tuple(1 if self.gen.chance(2) else d for d in shape)
        if len(shape) < 4:
            return (self.gen.one_of(DIMS),) + tuple(shape)
        return tuple(shape)

    def operand(self, x, kinds="biuf", exact=False, shape=None):
        """A second operand for ``x``: an existing value that broadcasts with
        it, a Python literal, a fresh argument or a typed scalar."""
        def ok(t):
            return (t.kind in kinds and (t.exact or not exact)
                    and broadcast_shapes(t.shape, x.shape) is not None
                    and (shape is None or t.shape == shape))
        choice = self.gen.integer(0, 3)
        if choice == 0:
            found = self.pick(ok)
            if found:
                return found
        lit_kinds = "".join(k for k in "bif" if k in kinds)
        if choice == 1 and lit_kinds and shape in (None, ()):
            return self.literal(lit_kinds)
        if choice == 3 and shape in (None, ()):
            dtype = self.gen.dtype(kinds)
            v = self.gen.scalar_value(dtype, False)
            return f"jnp.{dtype}({v!r})", Abstract((), canonical(dtype, self.gen.x64))
        new_shape = shape if shape is not None else self.compatible_shape(x.shape)
        return self.gen.new_input(new_shape, self.gen.dtype(kinds))
