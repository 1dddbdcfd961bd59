"""The operations a generated program is made of (SPEC DIFF-1).

Each operation is a function ``op(sc)`` that picks its operands in the scope
``sc``, emits one or more nodes and returns True, or returns False when the
scope has nothing it applies to.  ``@register(family, weight)`` files it under
a family (elementwise, reduction, shape, indexing, control, random, errors);
a test focused on one family draws that family's operations more often.

Undefined behaviour is kept out here: scatter ``set`` never sees two indices
that land on the same element, ``promise_in_bounds`` only in-bounds indices,
integer division only non-zero literal divisors, and operations that jump
(comparisons, floor, casts to integers, argmax) only values that are exact on
any conforming implementation (``Abstract.exact``).
"""
from .types import (FLOAT, LOWP, Abstract, broadcast_shapes, canonical, promote,
                    sum_dtype, to_inexact)
from .scope import DIMS, Scope

OPS = []


def register(family, weight=1):
    def add(fn):
        OPS.append((family, weight, fn))
        return fn
    return add


def is_array(t):
    return not t.py


def is_index(t, sc):
    """A traced scalar index of the default integer type (lax wants index
    operands of one type; Python ints adapt to it)."""
    return t.dtype == canonical("int64", sc.gen.x64) and t.shape == () and t.exact and not t.py


def arith_exact(t, *args):
    """Arithmetic keeps exactness, except in float16/bfloat16, where XLA may
    keep a chain of operations in float32 (excess precision)."""
    return all(a.exact for a in args) and t not in LOWP


def dt(dtype):
    return "bool_" if dtype == "bool" else dtype


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------

# (template, kinds accepted, result, needs exact input, result exactness)
# "needs exact" also marks ill-conditioned functions (sin and cos of large
# arguments, sqrt near 0, arctan2 near the origin), which would turn a last-
# place difference of their input into a large one.
# result: "same", "inexact" (sin of an int is a float), "bool".
# exactness: "keep", "arith" (see arith_exact), "no".
UNARY = [
    ("-{x}", "iuf", "same", False, "keep"),
    ("jnp.abs({x})", "biuf", "same", False, "keep"),
    ("jnp.sin({x})", "biuf", "inexact", True, "no"),
    ("jnp.exp({x})", "biuf", "inexact", False, "no"),
    ("jnp.tanh({x})", "biuf", "inexact", False, "no"),
    ("jnp.cos({x})", "biuf", "inexact", True, "no"),
    ("jnp.square({x})", "iuf", "same", False, "arith"),
    ("{x} ** 3", "iuf", "same", False, "int"),
    ("jnp.sign({x})", "iuf", "same", True, "keep"),
    ("jnp.floor({x})", "f", "same", True, "keep"),
    ("jnp.round({x})", "f", "same", True, "keep"),
    ("jnp.ceil({x})", "f", "same", True, "keep"),
    ("jnp.log({x})", "biuf", "inexact", True, "no"),
    ("jnp.sqrt(jnp.abs({x}))", "biuf", "inexact", True, "no"),
    ("jnp.log1p(jnp.abs({x}))", "biuf", "inexact", False, "no"),
    ("jnp.expm1({x})", "biuf", "inexact", False, "no"),
    ("jnp.arctan({x})", "biuf", "inexact", False, "no"),
    ("jax.nn.sigmoid({x})", "f", "inexact", False, "no"),
    ("jax.nn.relu({x})", "iuf", "same", False, "keep"),
    ("jax.nn.softplus({x})", "biuf", "inexact", False, "no"),
    ("jnp.reciprocal({x})", "f", "same", True, "no"),
    ("jnp.invert({x})", "biu", "same", False, "keep"),
    ("jnp.logical_not({x})", "biuf", "bool", True, "keep"),
    ("jnp.isnan({x})", "f", "bool", True, "keep"),
]

# (template, kinds, result, needs exact inputs, exactness)
BINARY = [
    ("{x} + {y}", "biuf", "promote", False, "arith"),
    ("{x} * {y}", "biuf", "promote", False, "arith"),
    ("{x} - {y}", "iuf", "promote", False, "arith"),
    ("jnp.maximum({x}, {y})", "biuf", "promote", False, "keep"),
    ("jnp.minimum({x}, {y})", "biuf", "promote", False, "keep"),
    ("{x} < {y}", "biuf", "bool", True, "keep"),
    ("{x} == {y}", "biuf", "bool", True, "keep"),
    ("{x} >= {y}", "biuf", "bool", True, "keep"),
    ("{x} & {y}", "biu", "promote", False, "keep"),
    ("{x} | {y}", "biu", "promote", False, "keep"),
    ("{x} ^ {y}", "biu", "promote", False, "keep"),
    ("jnp.logical_and({x}, {y})", "biuf", "bool", True, "keep"),
    ("jnp.arctan2({x}, {y})", "biuf", "inexact", True, "no"),
    ("jnp.add({x}, {y})", "biuf", "promote", False, "arith"),
]


def result_type(rule, args, x64):
    if rule == "bool":
        return "bool", False
    dtype, weak = promote(args, x64) if len(args) > 1 else (args[0].dtype, args[0].weak)
    if rule == "inexact":
        return to_inexact(dtype, weak, x64)
    return dtype, weak


def exactness(rule, dtype, args):
    if rule == "keep":
        return all(a.exact for a in args)
    if rule == "int":
        return all(a.exact for a in args) and dtype not in FLOAT
    if rule == "arith":
        return arith_exact(dtype, *args)
    return False


@register("elementwise", 4)
def unary(sc):
    template, kinds, rule, need_exact, ex = sc.gen.one_of(UNARY)
    found = sc.pick(lambda t: t.kind in kinds and (t.exact or not need_exact))
    if not found:
        return False
    x, t = found
    if t.py and not template.startswith("jnp"):
        template = "jnp.negative({x})" if template == "-{x}" else "jnp.power({x}, 3)"
    dtype, weak = result_type(rule, [t], sc.gen.x64)
    sc.emit(template.format(x=x), Abstract(t.shape, dtype, weak, exactness(ex, dtype, [t])))
    return True


@register("elementwise", 4)
def binary(sc):
    template, kinds, rule, need_exact, ex = sc.gen.one_of(BINARY)
    found = sc.pick(lambda t: t.kind in kinds and (t.exact or not need_exact))
    if not found:
        return False
    x, t = found
    y, u = sc.operand(t, kinds, exact=need_exact)
    shape = broadcast_shapes(t.shape, u.shape)
    if sc.gen.chance(2):                      # operands in either order
        x, t, y, u = y, u, x, t
    dtype, weak = result_type(rule, [t, u], sc.gen.x64)
    py = t.py and u.py and not template.startswith("jnp")
    sc.emit(template.format(x=x, y=y),
            Abstract(shape, dtype, weak, exactness(ex, dtype, [t, u]), py=py))
    return True


@register("elementwise", 4)
def mixed_types(sc):
    """An arithmetic operation with an operand of another dtype (a fresh
    argument, a typed scalar or a weak Python scalar): promotion at work."""
    found = sc.pick()
    if not found:
        return False
    x, t = found
    template = sc.gen.one_of(["{x} + {y}", "{x} * {y}", "jnp.maximum({x}, {y})",
                              "jnp.where({x} == {x}, {x}, {y})"])
    choice = sc.gen.integer(0, 2)
    if choice == 0:
        y, u = sc.literal("bif")
    elif choice == 1:
        dtype = sc.gen.dtype()
        y = f"jnp.{dt(dtype)}({sc.gen.scalar_value(dtype, False)!r})"
        u = Abstract((), canonical(dtype, sc.gen.x64))
    else:
        y, u = sc.gen.new_input(sc.compatible_shape(t.shape), sc.gen.dtype())
    dtype, weak = promote([t, u], sc.gen.x64)
    if template.startswith("{x} +") and t.kind == u.kind == "b":
        dtype = "bool"
    py = t.py and u.py and template[0] == "{"
    sc.emit(template.format(x=x, y=y),
            Abstract(broadcast_shapes(t.shape, u.shape), dtype, weak,
                     arith_exact(dtype, t, u), py=py))
    return True


@register("elementwise", 2)
def divide(sc):
    """Division by exact values only: a denominator that is nearly zero on one
    implementation and zero on the other would amplify a rounding error."""
    found = sc.pick(lambda t: t.kind != "b")
    if not found:
        return False
    x, t = found
    y, u = sc.operand(t, "iuf", exact=True)
    dtype, weak = to_inexact(*promote([t, u], sc.gen.x64), sc.gen.x64)
    shape = broadcast_shapes(t.shape, u.shape)
    sc.emit(f"{x} / {y}", Abstract(shape, dtype, weak, False, py=t.py and u.py))
    return True


@register("elementwise", 2)
def integer_division(sc):
    """``//`` and ``%`` by a non-zero literal (division by zero is
    implementation specific for integers)."""
    found = sc.pick(lambda t: t.kind in "iu")
    if not found:
        return False
    x, t = found
    k = sc.gen.one_of([3, 2, -2, 5, 1] if t.kind == "i" else [3, 2, 5, 1])
    op = sc.gen.one_of(["//", "%"])
    sc.emit(f"{x} {op} {k}", t.replace(exact=t.exact))
    return True


@register("elementwise", 1)
def shift(sc):
    """Shifts, including by the bit width or more (zero, or the sign)."""
    found = sc.pick(lambda t: t.kind in "iu" and not t.py)
    if not found:
        return False
    x, t = found
    bits = int("".join(c for c in t.dtype if c.isdigit()))
    k = sc.gen.one_of([1, 3, bits - 1, bits, bits + 2])
    fn = sc.gen.one_of(["left_shift", "right_shift"])
    sc.emit(f"jnp.{fn}({x}, {k})", t)
    return True


@register("elementwise", 2)
def where(sc):
    found = sc.pick(lambda t: t.exact)
    if not found:
        return False
    c, ct = found
    x, t = sc.operand(ct)
    y, u = sc.operand(ct.replace(shape=broadcast_shapes(ct.shape, t.shape)))
    dtype, weak = promote([t, u], sc.gen.x64)
    shape = broadcast_shapes(ct.shape, t.shape, u.shape)
    sc.emit(f"jnp.where({c}, {x}, {y})",
            Abstract(shape, dtype, weak, t.exact and u.exact))
    return True


@register("elementwise", 1)
def clip(sc):
    found = sc.pick(lambda t: t.kind in "if")
    if not found:
        return False
    x, t = found
    lo, hi = sc.gen.one_of([(0, 2), (-1, 1), (-3, 100)])
    if t.kind == "f":
        lo, hi = float(lo), float(hi) - 0.5
    sc.emit(f"jnp.clip({x}, {lo}, {hi})", t.replace(py=False))
    return True


@register("elementwise", 3)
def cast(sc):
    """Conversions; float to integer only from exact values (the conversion
    saturates and maps NaN to 0, SPEC DT-13)."""
    found = sc.pick()
    if not found:
        return False
    x, t = found
    target = canonical(sc.gen.dtype(), sc.gen.x64)
    if t.kind == "f" and target not in FLOAT and not t.exact:
        target = "float32"
    form = sc.gen.integer(0, 1) if not t.py else 1
    expr = (f"{x}.astype(jnp.{dt(target)})" if form == 0
            else f"lax.convert_element_type({x}, jnp.{dt(target)})")
    sc.emit(expr, Abstract(t.shape, target, False, t.exact))
    return True


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

def draw_axis(sc, rank, allow_tuple=True):
    """None, an axis (maybe negative) or a tuple of distinct axes."""
    choice = sc.gen.integer(0, 2 if allow_tuple and rank > 1 else 1)
    if choice == 0 or rank == 0:
        return None
    if choice == 1:
        return sc.gen.integer(-rank, rank - 1)
    axes = sorted({sc.gen.integer(0, rank - 1) for _ in range(2)})
    return tuple(axes)


def reduced_shape(shape, axis, keepdims):
    rank = len(shape)
    axes = range(rank) if axis is None else (
        [a % rank for a in axis] if isinstance(axis, tuple) else [axis % rank])
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


REDUCTIONS = ["sum", "max", "min", "prod", "mean", "any", "all", "argmax", "argmin"]


@register("reduction", 5)
def reduction(sc):
    name = sc.gen.one_of(REDUCTIONS)
    need_exact = name in ("argmax", "argmin")
    found = sc.pick(lambda t: is_array(t) and (t.exact or not need_exact)
                    and (t.size > 0 or name in ("sum", "prod", "any", "all")))
    if not found:
        return False
    x, t = found
    axis = draw_axis(sc, t.rank, allow_tuple=not need_exact)
    keepdims = sc.gen.chance(3)
    shape = reduced_shape(t.shape, axis, keepdims)
    x64 = sc.gen.x64
    dtype, exact = {
        "sum": (sum_dtype(t.dtype, x64), t.exact and t.kind != "f"),
        "prod": (sum_dtype(t.dtype, x64), t.exact and t.kind != "f"),
        "max": (t.dtype, t.exact), "min": (t.dtype, t.exact),
        "mean": (to_inexact(t.dtype, False, x64)[0], False),
        "any": ("bool", t.exact), "all": ("bool", t.exact),
        "argmax": (canonical("int64", x64), True), "argmin": (canonical("int64", x64), True),
    }[name]
    if name in ("max", "min") and t.dtype == "bool":
        dtype = "bool"
    extra = ", keepdims=True" if keepdims else ""
    sc.emit(f"jnp.{name}({x}, axis={axis!r}{extra})", Abstract(shape, dtype, False, exact))
    return True


@register("reduction", 2)
def cumulative(sc):
    found = sc.pick(lambda t: is_array(t) and t.rank > 0 and t.kind != "b")
    if not found:
        return False
    x, t = found
    axis = sc.gen.integer(-t.rank, t.rank - 1)
    name = sc.gen.one_of(["cumsum", "cumprod", "cummax"])
    fn = f"jnp.{name}" if name != "cummax" else "lax.cummax"
    if name == "cummax":
        axis %= t.rank                # lax takes no negative axes
    sc.emit(f"{fn}({x}, axis={axis})",
            t.replace(weak=False, exact=t.exact and (t.kind != "f" or name == "cummax")))
    return True


# ---------------------------------------------------------------------------
# Shapes and dot products
# ---------------------------------------------------------------------------

def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0] or [1]


@register("shape", 3)
def reshape(sc):
    found = sc.pick(is_array)
    if not found:
        return False
    x, t = found
    n = t.size
    dims, rest = [], n
    for _ in range(sc.gen.integer(0, 2)):
        d = sc.gen.one_of(divisors(rest)) if rest else sc.gen.one_of([0, 2])
        dims.append(d)
        rest = rest // d if d else 0
    dims.append(rest)
    shape = tuple(dims)
    text = list(map(str, shape))
    if n and sc.gen.chance(3):
        text[sc.gen.integer(0, len(text) - 1)] = "-1"
    form = sc.gen.integer(0, 1)
    spec = "(" + ", ".join(text) + ("," if len(text) == 1 else "") + ")"
    expr = f"jnp.reshape({x}, {spec})" if form == 0 else f"{x}.reshape({spec})"
    sc.emit(expr, t.replace(shape=shape))
    return True


@register("shape", 2)
def transpose(sc):
    found = sc.pick(lambda t: is_array(t) and t.rank > 1)
    if not found:
        return False
    x, t = found
    perm = list(range(t.rank))
    for i in range(t.rank - 1, 0, -1):
        j = sc.gen.integer(0, i)
        perm[i], perm[j] = perm[j], perm[i]
    if sc.gen.chance(3):
        sc.emit(f"{x}.T", t.replace(shape=t.shape[::-1]))
    else:
        sc.emit(f"jnp.transpose({x}, {tuple(perm)})",
                t.replace(shape=tuple(t.shape[p] for p in perm)))
    return True


@register("shape", 2)
def expand_squeeze(sc):
    found = sc.pick(lambda t: is_array(t) and t.rank < 4)
    if not found:
        return False
    x, t = found
    ones = [i for i, d in enumerate(t.shape) if d == 1]
    if ones and sc.gen.chance(2):
        axis = sc.gen.one_of(ones)
        sc.emit(f"jnp.squeeze({x}, axis={axis})",
                t.replace(shape=t.shape[:axis] + t.shape[axis + 1:]))
        return True
    axis = sc.gen.integer(-t.rank - 1, t.rank)
    pos = axis % (t.rank + 1)
    sc.emit(f"jnp.expand_dims({x}, {axis})", t.replace(shape=t.shape[:pos] + (1,) + t.shape[pos:]))
    return True


@register("shape", 2)
def broadcast_to(sc):
    found = sc.pick(lambda t: t.rank < 3)
    if not found:
        return False
    x, t = found
    shape = tuple(sc.gen.one_of(DIMS) if d == 1 else d for d in t.shape)
    if sc.gen.chance(2):
        shape = (sc.gen.one_of(DIMS),) + shape
    sc.emit(f"jnp.broadcast_to({x}, {shape})", t.replace(shape=shape, py=False))
    return True


@register("shape", 2)
def concatenate(sc):
    found = sc.pick(lambda t: is_array(t) and t.rank > 0)
    if not found:
        return False
    x, t = found
    stack = sc.gen.chance(2)
    axis = sc.gen.integer(-t.rank, t.rank - 1)
    shape = list(t.shape)
    if not stack:
        shape[axis] = sc.gen.one_of(DIMS)
    y, u = sc.operand(t, shape=tuple(shape))
    dtype, weak = promote([t, u], sc.gen.x64)
    if stack:
        pos = axis % (t.rank + 1)
        out = t.shape[:pos] + (2,) + t.shape[pos:]
        sc.emit(f"jnp.stack([{x}, {y}], axis={axis})", Abstract(out, dtype, weak, t.exact and u.exact))
    else:
        out = list(t.shape)
        out[axis] += shape[axis]
        sc.emit(f"jnp.concatenate([{x}, {y}], axis={axis})",
                Abstract(tuple(out), dtype, weak, t.exact and u.exact))
    return True


@register("shape", 2)
def permute_elements(sc):
    found = sc.pick(lambda t: is_array(t) and t.rank > 0)
    if not found:
        return False
    x, t = found
    axis = sc.gen.integer(-t.rank, t.rank - 1)
    form = sc.gen.integer(0, 3)
    if form == 0:
        sc.emit(f"jnp.flip({x}, axis={axis})", t)
    elif form == 1:
        sc.emit(f"jnp.roll({x}, {sc.gen.integer(-3, 3)}, axis={axis})", t)
    elif form == 2:
        sc.emit(f"jnp.ravel({x})", t.replace(shape=(t.size,)))
    else:
        pad = sc.gen.integer(0, 2)
        out = list(t.shape)
        out[axis] += 2 * pad
        sc.emit(f"jnp.pad({x}, [(0, 0)] * {axis % t.rank} + [({pad}, {pad})] + "
                f"[(0, 0)] * {t.rank - 1 - axis % t.rank})", t.replace(shape=tuple(out)))
    return True


@register("shape", 3)
def dot(sc):
    found = sc.pick(lambda t: is_array(t) and 1 <= t.rank <= 2)
    if not found:
        return False
    x, t = found
    n = t.shape[-1]
    m = sc.gen.one_of(DIMS)
    vector = sc.gen.chance(2)
    yshape = (n,) if vector else (n, m)
    y, u = sc.operand(t, shape=yshape)
    out = t.shape[:-1] + (() if vector else (m,))
    dtype, weak = promote([t, u], sc.gen.x64)
    form = sc.gen.one_of(["jnp.dot({x}, {y})", "{x} @ {y}", "jnp.matmul({x}, {y})",
                          "jnp.einsum('...j,j->...', {x}, {y})" if vector
                          else "jnp.einsum('...j,jk->...k', {x}, {y})"])
    if t.py or u.py:
        form = "jnp.dot({x}, {y})"
    sc.emit(form.format(x=x, y=y), Abstract(out, dtype, weak, t.exact and u.exact and dtype not in FLOAT))
    return True


@register("shape", 3)
def dynamic_slice(sc):
    """Start indices out of range are clamped (SPEC SLC-*); negative ones
    count from the end."""
    found = sc.pick(lambda t: is_array(t) and t.rank > 0)
    if not found:
        return False
    x, t = found
    sizes = tuple(sc.gen.integer(0, d) for d in t.shape)
    starts = []
    for d in t.shape:
        index = sc.pick(lambda u: is_index(u, sc))
        if index and sc.gen.chance(3):
            starts.append(index[0])
        else:                         # near the ends, where clamping acts
            starts.append(str(sc.gen.one_of([d, 0, d - 1, 1, -1, d + 1, -d - 1])))
    start_text = "(" + ", ".join(starts) + ",)"
    if sc.gen.chance(2):
        u_name, _ = sc.gen.new_input(sizes, t.dtype)
        sc.emit(f"lax.dynamic_update_slice({x}, {u_name}, {start_text})", t)
    else:
        sc.emit(f"lax.dynamic_slice({x}, {start_text}, {sizes})", t.replace(shape=sizes))
    return True


# ---------------------------------------------------------------------------
# Indexing and .at[]
# ---------------------------------------------------------------------------

def draw_slice(sc, d):
    start = sc.gen.one_of([None, 0, 1, -1, -d - 1, d + 1])
    stop = sc.gen.one_of([None, -1, 2, d + 2, 0])
    step = sc.gen.one_of([None, 2, -1])
    return start, stop, step


def slice_text(start, stop, step):
    text = f"{'' if start is None else start}:{'' if stop is None else stop}"
    return text + ("" if step is None else f":{step}")


def static_index(sc, shape):
    """A basic index (ints, slices, None, ...) and the shape it selects."""
    items, out, dims = [], [], list(shape)
    used = sc.gen.integer(1, len(dims))
    ellipsis_at = sc.gen.integer(0, used) if sc.gen.chance(4) else None
    for i in range(used):
        if i == ellipsis_at:
            items.append("...")
            dims = dims[:i] + dims[len(dims) - (used - i):]
        d = dims[i]
        choice = sc.gen.integer(0, 3)
        if choice == 0:
            items.append(str(sc.gen.integer(-d, d - 1)) if d else ":")
            if not d:
                out.append(0)
        elif choice == 3:
            items.append("None")
            out.append(1)
            items.append(":")
            out.append(d)
        else:
            start, stop, step = draw_slice(sc, d)
            items.append(slice_text(start, stop, step))
            out.append(len(range(d)[slice(start, stop, step)]))
    out += dims[used:]
    if ellipsis_at == used:
        items.append("...")
    return ", ".join(items), tuple(out)


@register("indexing", 3)
def basic_index(sc):
    found = sc.pick(lambda t: is_array(t) and t.rank > 0)
    if not found:
        return False
    x, t = found
    index, shape = static_index(sc, t.shape)
    sc.emit(f"{x}[{index}]", t.replace(shape=shape))
    return True


def effective(i, d, mode):
    """Where index ``i`` of an axis of size ``d`` lands; None if dropped."""
    i = i + d if i < 0 else i
    if mode == "clip":
        return min(max(i, 0), d - 1)
    return i if 0 <= i < d else None


def index_array(sc, d, mode, unique):
    """An integer index list, maybe out of bounds, maybe with repeats."""
    n = sc.gen.integer(1, 4)
    values, seen = [], set()
    for _ in range(n):
        i = sc.gen.integer(-d - 2, d + 1) if mode != "promise_in_bounds" else sc.gen.integer(-d, d - 1)
        eff = effective(i, d, mode)
        if unique and eff is not None and eff in seen:
            continue
        seen.add(eff)
        values.append(i)
    return values or [0]


@register("indexing", 3)
def gather_index(sc):
    """Integer-array indexing; out-of-bounds indices are clamped."""
    found = sc.pick(lambda t: is_array(t) and t.rank > 0 and t.shape[0] > 0)
    if not found:
        return False
    x, t = found
    axis = 1 if t.rank > 1 and t.shape[1] > 0 and sc.gen.chance(3) else 0
    dynamic = sc.pick(lambda u: u.kind in "iu" and u.rank <= 1 and u.exact and not u.py)
    if dynamic and sc.gen.chance(2):
        idx, shape = dynamic[0], dynamic[1].shape
    else:
        values = index_array(sc, t.shape[axis], "clip", unique=False)
        idx, shape = f"jnp.array({values})", (len(values),)
    if axis:
        sc.emit(f"{x}[:, {idx}]", t.replace(shape=t.shape[:1] + shape + t.shape[2:]))
    else:
        sc.emit(f"{x}[{idx}]", t.replace(shape=shape + t.shape[1:]))
    return True


AT_METHODS = ["set", "add", "get", "mul", "min", "max"]
MODES = [None, "clip", "drop", "fill", "promise_in_bounds"]


@register("indexing", 5)
def at_update(sc):
    """``x.at[idx].method(v, mode=...)`` with static, array or traced
    indices; ``set`` never has two indices landing on one element."""
    found = sc.pick(lambda t: is_array(t) and t.rank > 0 and t.shape[0] > 0)
    if not found:
        return False
    x, t = found
    method = sc.gen.one_of(AT_METHODS)
    mode = sc.gen.one_of(MODES)
    d = t.shape[0]
    form = sc.gen.integer(0, 3)
    dynamic = sc.pick(lambda u: u.kind in "iu" and u.shape == () and u.exact and not u.py)
    if form == 0 or (form == 3 and not dynamic):
        i = sc.gen.integer(-d, d - 1) if mode == "promise_in_bounds" else sc.gen.integer(-d - 2, d + 1)
        idx, ishape = str(i), ()
    elif form == 1:
        start, stop, step = draw_slice(sc, d)
        idx = slice_text(start, stop, step)
        ishape = (len(range(d)[slice(start, stop, step)]),)
    elif form == 2:
        values = index_array(sc, d, mode or "drop", unique=(method == "set"))
        idx, ishape = f"jnp.array({values})", (len(values),)
    else:
        if mode == "promise_in_bounds":
            mode = None
        idx, ishape = dynamic[0], ()
    shape = ishape + t.shape[1:]
    args = []
    if method != "get":
        if sc.gen.chance(2):
            v, u = sc.literal("bif" if t.kind == "b" else ("if" if t.kind == "f" else "i"))
        else:
            v, u = sc.gen.new_input(shape, t.dtype if not sc.gen.chance(4) else sc.gen.dtype())
        args.append(v)
    if mode is not None:
        args.append(f"mode={mode!r}")
    if method == "get" and mode == "fill" and sc.gen.chance(2):
        args.append("fill_value=-1")
    out_shape = shape if method == "get" else t.shape
    exact = t.exact and not (method in ("add", "mul") and t.dtype in FLOAT)
    sc.emit(f"{x}.at[{idx}].{method}({', '.join(args)})",
            t.replace(shape=out_shape, exact=exact, py=False))
    return True


# ---------------------------------------------------------------------------
# Control flow: cond, switch, fori_loop, scan
# ---------------------------------------------------------------------------

def sub_body(sc, params, n_ops=None):
    """Draw a nested function body over ``params``; returns (scope, result
    name, result type)."""
    from .generate import draw_ops
    child = Scope(sc.gen, parent=sc, params=params)
    draw_ops(child, n_ops if n_ops is not None else sc.gen.integer(1, 3), depth=1)
    name, t = child.pick()
    return child, name, t


def coerce(sc, name, t, target):
    """Emit ``name`` converted to ``target``'s shape and dtype (carry and
    branch outputs must keep one type)."""
    expr = name
    if t.shape != target.shape:
        expr = f"jnp.broadcast_to(jnp.max({expr}), {target.shape})" if t.size else \
            f"jnp.zeros({target.shape})"
        t = t.replace(shape=target.shape)
    if t.dtype != target.dtype or t.py:
        expr = f"lax.convert_element_type({expr}, jnp.{dt(target.dtype)})"
    if expr == name:
        return name
    return sc.emit(expr, target.replace(weak=False, exact=t.exact))


def predicate(sc):
    """A boolean scalar from exact values."""
    found = sc.pick(lambda t: t.exact)
    x, t = found
    if t.kind == "b" and t.shape == ():
        return x
    if t.py:
        return f"jnp.asarray({x}) > 0"
    return f"jnp.any({x} > {1 if t.kind != 'b' else 0})"


@register("control", 3)
def cond(sc):
    operands = [sc.pick() for _ in range(sc.gen.integer(1, 2))]
    params = [(sc.gen.name("a"), t) for _, t in operands]
    pred = predicate(sc)
    yes, yname, yt = sub_body(sc, params)
    if yt.py:
        yt = yt.replace(py=False, weak=False)
        yname = coerce(yes, yname, yt.replace(py=True), yt)
    no, nname, nt = sub_body(sc, params)
    nname = coerce(no, nname, nt, yt)
    weak = yt.weak and no.visible()[nname].weak
    tname, fname = sc.gen.name("true_fn"), sc.gen.name("false_fn")
    defs = [yes.block(tname, yname), no.block(fname, nname)]
    args = ", ".join(n for n, _ in operands)
    if sc.gen.chance(3):
        index = sc.pick(lambda t: t.kind in "iu" and t.shape == () and t.exact)
        index = index[0] if index else str(sc.gen.integer(-1, 3))
        expr = f"lax.switch({index}, [{tname}, {fname}], {args})"
    else:
        expr = f"lax.cond({pred}, {tname}, {fname}, {args})"
    sc.emit(expr, yt.replace(weak=weak, exact=False, py=False), defs)
    return True


@register("control", 2)
def fori_loop(sc):
    found = sc.pick(lambda t: not t.py)
    if not found:
        return False
    x, t = found
    i = sc.gen.name("i")
    c = sc.gen.name("c")
    index_type = Abstract((), canonical("int64", sc.gen.x64), True)
    body, rname, rt = sub_body(sc, [(i, index_type), (c, t)])
    rname = coerce(body, rname, rt, t)
    fname = sc.gen.name("body")
    lo = sc.gen.integer(0, 2)
    hi = sc.gen.integer(lo, lo + 3)
    bound = sc.pick(lambda u: is_index(u, sc))
    upper = f"jnp.clip({bound[0]}, 0, 3)" if bound and sc.gen.chance(3) else str(hi)
    sc.emit(f"lax.fori_loop({lo}, {upper}, {fname}, {x})", t.replace(exact=False),
            [body.block(fname, rname)])
    return True


@register("control", 3)
def scan(sc):
    found = sc.pick(lambda t: not t.py)
    if not found:
        return False
    init, ct = found
    xs = sc.pick(lambda t: not t.py and t.rank > 0 and t.shape[0] <= 4)
    c = sc.gen.name("c")
    xname = sc.gen.name("x")
    if xs:
        params = [(c, ct), (xname, xs[1].replace(shape=xs[1].shape[1:]))]
        length = xs[1].shape[0]
    else:
        params = [(c, ct)]          # the step receives x=None: not an operand
        length = sc.gen.integer(0, 3)
    body, rname, rt = sub_body(sc, params)
    new_c = coerce(body, rname, rt, ct)
    yname, yt = body.pick(lambda t: not t.py) or (new_c, ct)
    if not xs:
        body.params.append(xname)
    fname = sc.gen.name("step")
    reverse = ", reverse=True" if sc.gen.chance(3) else ""
    source = (f"lax.scan({fname}, {init}, {xs[0]}{reverse})" if xs
              else f"lax.scan({fname}, {init}, None, length={length}{reverse})")
    block = body.block(fname, f"({new_c}, {yname})")
    sc.emit_many(source, [ct.replace(exact=False),
                          yt.replace(shape=(length,) + yt.shape, exact=False)],
                 [block])
    return True


# ---------------------------------------------------------------------------
# PRNG
# ---------------------------------------------------------------------------

def key_expr(sc):
    seed = sc.gen.integer(0, 2 ** 31 - 1) if sc.gen.chance(2) else sc.gen.integer(0, 9)
    form = sc.gen.integer(0, 4)
    base = "jax.random.key" if form != 4 else "jax.random.PRNGKey"
    key = f"{base}({seed})"
    if form == 1:
        key = f"jax.random.split({key})[{sc.gen.integer(0, 1)}]"
    elif form == 2:
        data = sc.pick(lambda t: t.kind in "iu" and t.shape == () and t.exact)
        key = f"jax.random.fold_in({key}, {data[0] if data else sc.gen.integer(0, 99)})"
    elif form == 3:
        key = f"jax.random.split({key}, 3)[{sc.gen.integer(0, 2)}]"
    return key


@register("random", 5)
def random(sc):
    key = key_expr(sc)
    shape = sc.gen.shape(2)
    x64 = sc.gen.x64
    floats = ["float32", "float16", "bfloat16"] + (["float64"] if x64 else [])
    sampler = sc.gen.integer(0, 6)
    if sampler == 0:
        d = sc.gen.one_of(floats)
        lo, hi = sc.gen.one_of([(0.0, 1.0), (-2.0, 3.0), (1.0, 1.5)])
        sc.emit(f"jax.random.uniform({key}, {shape}, dtype=jnp.{d}, minval={lo}, maxval={hi})",
                Abstract(shape, d))
    elif sampler == 1:
        d = sc.gen.one_of(floats)
        sc.emit(f"jax.random.normal({key}, {shape}, dtype=jnp.{d})", Abstract(shape, d, exact=False))
    elif sampler == 2:
        d = sc.gen.one_of(["int32", "int8", "uint8"])
        lo, hi = sc.gen.one_of([(0, 10), (-5, 5), (0, 2)] if d != "uint8" else [(0, 10), (3, 200)])
        sc.emit(f"jax.random.randint({key}, {shape}, {lo}, {hi}, dtype=jnp.{d})", Abstract(shape, d))
    elif sampler == 3:
        p = sc.gen.one_of([0.5, 0.1, 0.9])
        sc.emit(f"jax.random.bernoulli({key}, {p}, {shape})", Abstract(shape, "bool"))
    elif sampler == 4:
        sc.emit(f"jax.random.bits({key}, {shape})", Abstract(shape, "uint32"))
    elif sampler == 5:
        n = sc.gen.integer(1, 6)
        sc.emit(f"jax.random.permutation({key}, {n})", Abstract((n,), canonical("int64", x64)))
    else:
        sc.emit(f"jax.random.exponential({key}, {shape})",
                Abstract(shape, canonical("float64", x64), exact=False))
    return True


# ---------------------------------------------------------------------------
# Errors: both implementations must raise the same class
# ---------------------------------------------------------------------------

@register("errors", 1)
def error(sc):
    found = sc.pick(lambda t: not t.py)
    if not found:
        return False
    x, t = found
    form = sc.gen.integer(0, 5)
    if form == 0:
        other = "int8" if t.dtype != "int8" else "float32"
        y, _ = sc.gen.new_input(t.shape, other)
        sc.emit(f"lax.add({x}, {y})", t)
    elif form == 1:
        sc.emit(f"jnp.reshape({x}, ({t.size + 1},))", t.replace(shape=(t.size + 1,)))
    elif form == 2 and t.rank:
        sc.emit(f"{x}[{t.shape[0] + sc.gen.integer(0, 2)}]", t.replace(shape=t.shape[1:]))
    elif form == 3:
        sc.emit(f"jnp.sum({x}, axis={t.rank})", t.replace(shape=()))
    elif form == 4 and t.kind in "iu":
        sc.emit(f"lax.sin({x})", t)
    else:
        sc.emit(f"float(jnp.sum({x}))", Abstract((), canonical("float64", sc.gen.x64), True,
                                                  False, py=True))
    return True
