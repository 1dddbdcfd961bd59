"""Abstract values the program generator tracks: shape, dtype, weak type.

The generator never asks an implementation what type a value has: it infers
types with JAX's promotion lattice (SPEC DT-2, DT-3), written out here, so that
a wrong promotion rule in the implementation under test shows up as a
disagreement instead of silently steering the generator.  The inference only
has to be right often enough to produce valid programs; the runner compares
what the two implementations actually return.
"""
import dataclasses

INT = ("int8", "int16", "int32", "int64")
UINT = ("uint8", "uint16", "uint32", "uint64")
FLOAT = ("bfloat16", "float16", "float32", "float64")
ALL = ("bool",) + INT + UINT + FLOAT
LOWP = ("bfloat16", "float16")

# JAX's type lattice (SPEC DT-2): each type and the types directly above it.
# 'i*' and 'f*' are the weak (Python scalar) int and float types.
_UP = {
    "bool": ("i*",), "i*": ("uint8", "int8"),
    "uint8": ("uint16", "int16"), "uint16": ("uint32", "int32"),
    "uint32": ("uint64", "int64"), "uint64": ("f*",),
    "int8": ("int16",), "int16": ("int32",), "int32": ("int64",), "int64": ("f*",),
    "f*": ("bfloat16", "float16"), "bfloat16": ("float32",), "float16": ("float32",),
    "float32": ("float64",), "float64": (),
}


def _above(t):
    seen, todo = {t}, [t]
    while todo:
        for u in _UP[todo.pop()]:
            if u not in seen:
                seen.add(u)
                todo.append(u)
    return seen


_ABOVE = {t: _above(t) for t in _UP}


def kind(dtype):
    """'b', 'i', 'u' or 'f'."""
    if dtype == "bool":
        return "b"
    return "f" if dtype in FLOAT else ("u" if dtype in UINT else "i")


def canonical(dtype, x64):
    """The dtype JAX uses for a 64-bit request with x64 off (SPEC DT-1)."""
    if x64 or not dtype.endswith("64"):
        return dtype
    return dtype[:-2] + "32"


@dataclasses.dataclass(frozen=True)
class Abstract:
    """A value's type. ``exact`` says the value is the same bit for bit on any
    conforming implementation (no transcendental, no summation order, no
    excess precision), so discontinuous operations (comparisons, floor, casts
    to int) may use it without amplifying a last-place difference.  ``py``
    says the value may still be a Python scalar when run eagerly (operators on
    Python scalars stay in Python), so methods such as ``.astype`` are not
    called on it."""
    shape: tuple
    dtype: str
    weak: bool = False
    exact: bool = True
    py: bool = False

    @property
    def kind(self):
        return kind(self.dtype)

    @property
    def rank(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def lattice_node(self):
        if self.weak:
            return "f*" if self.kind == "f" else "i*"
        return self.dtype

    def replace(self, **kw):
        return dataclasses.replace(self, **kw)


def join_dtypes(nodes, x64):
    """Least upper bound of lattice nodes -> (dtype, weak)."""
    common = set.intersection(*(_ABOVE[n] for n in nodes))
    least = [n for n in common if common <= _ABOVE[n]][0]
    if least == "i*":
        return canonical("int64", x64), True
    if least == "f*":
        return canonical("float64", x64), True
    return least, False


def promote(args, x64):
    """(dtype, weak) of a binary numpy operation's result (SPEC DT-2/DT-3)."""
    return join_dtypes([a.lattice_node() for a in args], x64)


def to_inexact(dtype, weak, x64):
    """jnp's promotion of an argument of sin, mean, true_divide...: integers
    and booleans become the default float (a weak int a weak float)."""
    if kind(dtype) == "f":
        return dtype, weak
    return canonical("float64", x64), weak and kind(dtype) != "b"


def broadcast_shapes(*shapes):
    """NumPy broadcasting; None if the shapes are incompatible."""
    rank = max(len(s) for s in shapes)
    out = []
    for dims in zip(*[(1,) * (rank - len(s)) + tuple(s) for s in shapes]):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            return None
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def sum_dtype(dtype, x64):
    """jnp.sum/prod's accumulation type: small ints widen to the default."""
    k = kind(dtype)
    if k == "b":
        return canonical("int64", x64)
    if k == "i":
        return canonical("int64", x64) if dtype != "int64" else dtype
    if k == "u":
        return canonical("uint64", x64)
    return dtype
