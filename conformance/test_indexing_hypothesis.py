"""Property-based conformance of NumPy indexing and ``.at[]`` (SPEC IDX-30..34).

Hypothesis draws an array (1 to 3 dimensions, sides 1 to 5, one of several
dtypes) and an index expression built from Python integers, slices (any
start, stop and step), ``None``, ``Ellipsis``, integer index arrays (NumPy or
jnp arrays of several integer dtypes, shapes that broadcast together), lists
of integers inside a tuple, and concrete boolean masks.  Every expected value
is computed with NumPy alone:

* in bounds, ``x[index]`` is NumPy's ``host[index]`` (IDX-30);
* out of bounds, the reference maps each integer index ``i`` on an axis of
  size ``n`` to ``i + n`` if ``i < 0`` (once), then clamps into ``[0, n-1]``
  for reads and ``mode='clip'`` (IDX-31), or marks it missing for
  ``mode='fill'``/``'drop'`` (IDX-32, IDX-33).  The mapping is applied to a
  *position array* (``arange(size).reshape(shape)`` padded with a ``-1``
  slot on every integer-indexed axis), so that NumPy's own indexing tells
  which flat position each output or update element reads or writes, with
  ``-1`` for a missing one;
* updates with repeated positions accumulate with ``np.<ufunc>.at``; for
  ``set`` the winner among repeated positions is unspecified, so each written
  element must hold one of the values written to it (IDX-33).

Every property is checked eagerly and under ``jax.jit``, with index arrays,
traced integers and update values passed as arguments and the static parts
(slices, ``None``, ``Ellipsis``, Python ints, lists) closed over.  Boolean
masks are checked eagerly only; under ``jit`` they must raise
``NonConcreteBooleanIndexError`` (IDX-34).
"""
import dataclasses
import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

# Reproducible and quick; IDX_MAX_EXAMPLES=300 searches deeper.  Health checks
# are off because the harness's fixtures are function scoped (they only toggle
# jax_enable_x64, which is safe to share between examples).
EXAMPLES = int(os.environ.get("IDX_MAX_EXAMPLES", 30))
HYP = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
               database=None, suppress_health_check=list(HealthCheck))
# For tests parametrized over dtypes or update methods.
HYP_EACH = settings(HYP, max_examples=max(1, EXAMPLES // 3))

DTYPES = ["int32", "float32", "bool", "int8", "uint8", "float16"]
INDEX_DTYPES = ["int32", "int64", "int8", "uint8"]
# Update methods allowed per dtype: JAX rejects bool for the arithmetic ones.
UPDATE_OPS = ["set", "add", "subtract", "multiply", "min", "max", "apply"]
BOOL_UPDATE_OPS = ["set", "min", "max"]
ACCUMULATE = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
              "min": np.minimum, "max": np.maximum}


# ---------------------------------------------------------------------------
# Index entries.  A case keeps the drawn entries so that the same expression
# can be rebuilt for NumPy, for eager JAX and inside a jitted function.
# ---------------------------------------------------------------------------

@dataclasses.dataclass(eq=False)
class Int:
    """A Python integer; under jit, `traced` ones are passed as 0-d int32."""
    value: int
    traced: bool


@dataclasses.dataclass(eq=False)
class Arr:
    """An integer index array; eagerly given as jnp (`as_jnp`) or NumPy."""
    value: np.ndarray
    as_jnp: bool


@dataclasses.dataclass(eq=False)
class Lst:
    """A list of Python ints inside a tuple (static under jit)."""
    value: list


@dataclasses.dataclass(eq=False)
class Mask:
    """A concrete boolean mask (eager only)."""
    value: np.ndarray
    as_jnp: bool


@dataclasses.dataclass(eq=False)
class Case:
    shape: tuple
    dtype: str
    entries: list
    bare: bool          # pass a single entry without the enclosing tuple
    wrap: bool = True   # False: pass wrap_negative_indices=False to .at[]

    def __repr__(self):
        return (f"Case(shape={self.shape}, dtype={self.dtype}, "
                f"index={describe(self)}" + ("" if self.wrap else
                ", wrap_negative_indices=False") + ")")


def describe(case):
    """The index as one would type it, for failure messages."""
    def one(e):
        if isinstance(e, Int):
            return f"{e.value}" + ("(traced)" if e.traced else "")
        if isinstance(e, (Arr, Mask)):
            kind = "jnp" if e.as_jnp else "np"
            return f"{kind}.array({e.value.tolist()}, {e.value.dtype})"
        if isinstance(e, Lst):
            return repr(e.value)
        if e is Ellipsis:
            return "..."
        if isinstance(e, slice):
            parts = ["" if v is None else str(v) for v in (e.start, e.stop, e.step)]
            return ":".join(parts).rstrip(":") or ":"
        return repr(e)
    text = ", ".join(one(e) for e in case.entries)
    if len(case.entries) == 1 and not case.bare:
        text += ","                     # a one-entry tuple
    return f"[{text}]"


def host_index(case):
    """The index for NumPy."""
    idx = tuple(e.value if isinstance(e, (Int, Arr, Lst, Mask)) else e
                for e in case.entries)
    return idx[0] if case.bare else idx


def dynamic_entries(case):
    """Entries passed as jit arguments: index arrays and traced integers."""
    return [e for e in case.entries
            if isinstance(e, Arr) or (isinstance(e, Int) and e.traced)]


def dynamic_args(case):
    return [np.int32(e.value) if isinstance(e, Int) else e.value
            for e in dynamic_entries(case)]


def impl_index(case, jnp, traced=None):
    """The index for the implementation.  Eagerly (`traced` None) arrays are
    NumPy or jnp arrays as drawn; under jit `traced` holds the tracers that
    replace the dynamic entries, in order."""
    dynamic = {id(e) for e in dynamic_entries(case)} if traced is not None else set()
    supply = iter(traced or ())
    out = []
    for e in case.entries:
        if id(e) in dynamic:
            out.append(next(supply))
        elif isinstance(e, Int):
            out.append(e.value)
        elif isinstance(e, (Arr, Mask)):
            out.append(jnp.asarray(e.value) if e.as_jnp else e.value)
        elif isinstance(e, Lst):
            out.append(list(e.value))
        else:
            out.append(e)
    return out[0] if case.bare else tuple(out)


def host_array(case):
    """Distinct values (so a wrong position shows), in the case's dtype."""
    size = math.prod(case.shape)
    kind = np.dtype(case.dtype).kind
    if kind == "b":
        values = np.arange(size) % 3 == 1
    else:                               # negatives too, except unsigned
        values = np.arange(size) - (size // 2 if kind in "if" else 0)
    return values.reshape(case.shape).astype(case.dtype)


# ---------------------------------------------------------------------------
# Strategies.
# ---------------------------------------------------------------------------

def int_values(n, oob):
    """Integers for an axis of size n: valid ones ([-n, n-1]), or (`oob`)
    also ones past either end, including past -n after one wrap.  Edge
    values come often, so that repeated positions (-1 and n-1 name the same
    element) and both kinds of out-of-range index are common."""
    edges = ([n, -n - 1, 2 * n + 2, -2 * n - 2] if oob else []) + [0, -1, n - 1, -n]
    values = [st.sampled_from(edges), st.integers(-n, n - 1)]
    if oob:
        values.append(st.integers(-2 * n - 2, 2 * n + 2))
    return st.one_of(values)


def index_array(draw, shape, n, oob):
    values = np.array(draw(st.lists(int_values(n, oob), min_size=math.prod(shape),
                                    max_size=math.prod(shape))), dtype=np.int64)
    dtype = draw(st.sampled_from(INDEX_DTYPES))
    if dtype == "uint8" and (values < 0).any():
        dtype = "int32"
    return values.reshape(shape).astype(dtype)


def array_shape(draw, base):
    """A shape that broadcasts to `base`: a suffix with some sides set to 1."""
    suffix = base[draw(st.integers(0, len(base))):]
    return tuple(1 if draw(st.booleans()) else s for s in suffix)


def slice_entry(draw, n):
    bound = st.none() | st.integers(-n - 3, n + 3)
    step = st.none() | st.sampled_from([1, 2, 3, -1, -2, -3])
    return slice(draw(bound), draw(bound), draw(step))


def one_entry(draw, kind, n, ctx):
    """One entry of `kind` for an axis of size n (masks excepted)."""
    if kind == "int":
        return Int(draw(int_values(n, ctx["oob"])), ctx["jit_ints"] and draw(st.booleans()))
    if kind == "slice":
        return slice_entry(draw, n)
    if kind == "array":
        shape = array_shape(draw, ctx["base"])
        return Arr(index_array(draw, shape, n, ctx["oob"]), draw(st.booleans()))
    length = ctx["base"][-1] if ctx["base"] else 1
    return Lst(draw(st.lists(int_values(n, ctx["oob"]), min_size=length, max_size=length)))


def mask_entry(draw, shape, axes):
    bits = draw(st.lists(st.booleans(), min_size=math.prod(shape[a] for a in axes),
                         max_size=math.prod(shape[a] for a in axes)))
    mshape = tuple(shape[a] for a in axes)
    return Mask(np.array(bits, bool).reshape(mshape), draw(st.booleans()))


def axis_entries(draw, shape, axes, ctx):
    """Entries consuming the consecutive axes `axes`."""
    out, i = [], 0
    while i < len(axes):
        # Hypothesis starts from (and shrinks to) the first kinds listed.
        kinds = ["array", "slice", "int", "array", "list"]
        if ctx["masks"]:
            # One mask at most, and no index arrays beside it: the mask's
            # nonzero() arrays would have to broadcast with them.
            kinds = ([] if ctx["has_mask"] else ["mask", "mask"]) + ["int", "slice"]
        kind = draw(st.sampled_from(kinds))
        if kind == "mask":
            width = draw(st.integers(1, len(axes) - i))
            out.append(mask_entry(draw, shape, axes[i:i + width]))
            ctx["has_mask"] = True
            i += width
        else:
            out.append(one_entry(draw, kind, shape[axes[i]], ctx))
            i += 1
    return out


def separated_entries(draw, shape, ctx):
    """Advanced indices (arrays, lists, ints) on the first and last axes with
    slices (and maybe a None) between them: NumPy moves the broadcast
    advanced axes to the front of the result."""
    advanced = st.sampled_from(["array", "list", "int"])
    middle = [slice_entry(draw, n) for n in shape[1:-1]]
    if not middle or draw(st.booleans()):
        middle.insert(draw(st.integers(0, len(middle))), None)
    return ([one_entry(draw, draw(advanced), shape[0], ctx)] + middle
            + [one_entry(draw, draw(advanced), shape[-1], ctx)])


@st.composite
def index_cases(draw, oob=False, masks=False, dtypes=tuple(DTYPES), unwrapped=False):
    """A Case: array shape and dtype plus an index expression.

    Half the expressions (not with masks) put advanced indices on the first
    and last axes with slices or None between them.  The others index a
    prefix of the axes, then (sometimes) an Ellipsis and a suffix of the
    axes, with up to two `None` inserted anywhere.  All index arrays and lists
    broadcast to one drawn shape `base`.  With `unwrapped`, half the cases
    ask `.at[]` not to wrap negative indices."""
    case = draw(index_expressions(oob, masks, dtypes))
    if unwrapped:
        case = dataclasses.replace(case, wrap=draw(st.sampled_from([True, False])))
    return case


@st.composite
def index_expressions(draw, oob, masks, dtypes):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 5)) for _ in range(ndim))
    dtype = draw(st.sampled_from(dtypes))
    base = draw(st.sampled_from([(3,), (2, 3), (2,), (4,), (), (1,), (3, 1), (0,), (2, 0)]))
    ctx = dict(oob=oob, masks=masks, base=base, has_mask=False, jit_ints=not masks)
    if ndim >= 2 and not masks and draw(st.booleans()):
        return Case(shape, dtype, separated_entries(draw, shape, ctx), False)
    use_ellipsis = draw(st.booleans())
    n_front = draw(st.integers(0 if use_ellipsis else 1, ndim))
    n_back = draw(st.integers(0, ndim - n_front)) if use_ellipsis else 0
    entries = axis_entries(draw, shape, list(range(n_front)), ctx)
    if use_ellipsis:
        entries.append(Ellipsis)
    entries += axis_entries(draw, shape, list(range(ndim - n_back, ndim)), ctx)
    for _ in range(draw(st.integers(0, 2))):
        entries.insert(draw(st.integers(0, len(entries))), None)
    if masks and not ctx["has_mask"]:
        # The eager-only tests must exercise a mask: one on the first axis.
        entries = [mask_entry(draw, shape, [0])] + [e for e in entries if e is None]
    bare = (len(entries) == 1 and not isinstance(entries[0], Lst)
            and draw(st.booleans()))
    return Case(shape, dtype, entries, bare)


# ---------------------------------------------------------------------------
# The NumPy reference for out-of-bounds indices.
# ---------------------------------------------------------------------------

def consumed_axes(case):
    """The first axis each entry consumes (None for None and Ellipsis) and
    the set of axes indexed by integers (scalars, arrays, lists)."""
    ndim = len(case.shape)
    width = {id(e): (0 if e is None or e is Ellipsis else
                     e.value.ndim if isinstance(e, Mask) else 1)
             for e in case.entries}
    used = sum(width.values())
    axis, first, int_axes = 0, [], set()
    for e in case.entries:
        first.append(axis if width[id(e)] else None)
        if isinstance(e, (Int, Arr, Lst)):
            int_axes.add(axis)
        axis += ndim - used if e is Ellipsis else width[id(e)]
    return first, int_axes


def map_index(value, n, mode, wrap):
    """JAX's rule for one integer index on an axis of size n (SPEC IDX-31,
    IDX-32): wrap a negative index once (unless `wrap` is False), then clamp
    it into [0, n-1] ('clip'), or send it to the padding slot n when it is
    still outside [0, n) ('fill'/'drop')."""
    v = np.asarray(value, dtype=np.int64)
    w = np.where(v < 0, v + n, v) if wrap else v
    w = np.clip(w, 0, n - 1) if mode == "clip" else np.where((w >= 0) & (w < n), w, n)
    return int(w) if isinstance(value, (int, np.integer)) else w


def targets(case, mode):
    """For each element of x[index], the flat position of `x` it reads (or an
    update writes); -1 where an integer index is out of bounds and `mode` is
    'fill'/'drop'.  NumPy's indexing of a padded position array decides the
    layout, so the advanced-index placement rule is NumPy's own."""
    first, int_axes = consumed_axes(case)
    pos = np.arange(math.prod(case.shape)).reshape(case.shape)
    pad = [(0, 1 if a in int_axes else 0) for a in range(len(case.shape))]
    pos = np.pad(pos, pad, constant_values=-1)
    mapped = []
    for e, axis in zip(case.entries, first):
        if isinstance(e, (Int, Arr, Lst)):
            mapped.append(map_index(e.value, case.shape[axis], mode, case.wrap))
        else:
            mapped.append(e.value if isinstance(e, Mask) else e)
    return pos[mapped[0] if case.bare else tuple(mapped)]


def default_fill(dtype):
    """get(mode='fill') without fill_value (SPEC IDX-32)."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return np.nan
    if dt.kind == "b":
        return True
    return np.iinfo(dt).min if dt.kind == "i" else np.iinfo(dt).max


def gather_reference(host, tgt, fill=None):
    out = host.ravel()[np.maximum(tgt, 0)]
    if fill is not None:
        out = np.where(tgt >= 0, out, np.asarray(fill).astype(host.dtype))
    return out.astype(host.dtype)


def apply_np(v):
    """NumPy twin of `apply_fn` (arrays, so integers wrap silently)."""
    return v * np.asarray(2, v.dtype) + np.asarray(1, v.dtype)


def apply_fn(v):
    return v * 2 + 1


def scatter_reference(host, tgt, updates, op):
    """x.at[index].<op>(updates) for ops other than set: every update whose
    position is not -1 is applied, repeated positions accumulate (SPEC
    IDX-33); `apply` applies the function once per occurrence."""
    out = host.ravel().copy()
    upd = np.broadcast_to(np.asarray(updates).astype(host.dtype), tgt.shape)
    keep = tgt >= 0
    t, u = tgt[keep], upd[keep]
    if op == "apply":
        for p in t:
            out[p:p + 1] = apply_np(out[p:p + 1])
    else:
        ACCUMULATE[op].at(out, t, u)
    return out.reshape(host.shape)


def check_set(got, host, tgt, updates):
    """`set`: positions not written keep their value; a written position holds
    one of the values written to it (the winner among duplicates is
    unspecified, SPEC IDX-33)."""
    got = np.asarray(got)
    assert got.dtype == host.dtype and got.shape == host.shape
    upd = np.broadcast_to(np.asarray(updates).astype(host.dtype), tgt.shape)
    keep = tgt >= 0
    t, u = tgt[keep], upd[keep]
    for p, (g, h) in enumerate(zip(got.ravel(), host.ravel())):
        written = u[t == p]
        if written.size:
            assert g in written, (p, g, written)
        else:
            assert g == h, (p, g, h)


def check(got, expected):
    got = np.asarray(got)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    np.testing.assert_array_equal(got, expected)


def at_options(case, **options):
    """Keyword arguments for an .at[] method: `options` and, for cases drawn
    without wrapping, wrap_negative_indices=False."""
    return options if case.wrap else dict(options, wrap_negative_indices=False)


def eager_and_jit(jax, jnp, case, fn, *extra):
    """[fn(x, index, *extra) eagerly, the same under jit]: under jit the index
    arrays, traced integers and `extra` are arguments."""
    host = host_array(case)
    x = jnp.asarray(host)
    eager = fn(x, impl_index(case, jnp), *extra)

    n_dyn = len(dynamic_entries(case))

    def staged(x, *args):
        return fn(x, impl_index(case, jnp, args[:n_dyn]), *args[n_dyn:])

    traced = jax.jit(staged)(x, *dynamic_args(case), *extra)
    np.testing.assert_array_equal(np.asarray(x), host)   # x is never changed
    return eager, traced


# ---------------------------------------------------------------------------
# IDX-30: in-bounds index expressions equal NumPy.
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-30")
@HYP
@given(case=index_cases(oob=False))
def test_in_bounds_index_matches_numpy(jax, jnp, case):
    host = host_array(case)
    expected = np.asarray(host[host_index(case)])
    for got in eager_and_jit(jax, jnp, case, lambda x, idx: x[idx]):
        check(got, expected)


@pytest.mark.spec("IDX-30")
@HYP
@given(case=index_cases(oob=False),
       mode=st.sampled_from([None, "clip", "fill", "drop", "promise_in_bounds"]))
def test_in_bounds_at_get_matches_numpy(jax, jnp, case, mode):
    host = host_array(case)
    expected = np.asarray(host[host_index(case)])
    for got in eager_and_jit(jax, jnp, case,
                             lambda x, idx: x.at[idx].get(mode=mode)):
        check(got, expected)


# ---------------------------------------------------------------------------
# IDX-31: out-of-bounds reads clamp.
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-31")
@HYP
@given(case=index_cases(oob=True, unwrapped=True),
       spelling=st.sampled_from(["getitem", "get", "get_clip"]))
def test_out_of_bounds_read_clamps(jax, jnp, case, spelling):
    if spelling == "getitem":
        case = dataclasses.replace(case, wrap=True)     # x[...] always wraps
    read = {"getitem": lambda x, idx: x[idx],
            "get": lambda x, idx: x.at[idx].get(**at_options(case)),
            "get_clip": lambda x, idx: x.at[idx].get(**at_options(case, mode="clip"))
            }[spelling]
    expected = gather_reference(host_array(case), targets(case, "clip"))
    for got in eager_and_jit(jax, jnp, case, read):
        check(got, expected)


# ---------------------------------------------------------------------------
# IDX-32: get(mode='fill') returns fill_value for out-of-bounds elements.
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-32")
@pytest.mark.parametrize("dtype", DTYPES)
@HYP_EACH
@given(data=st.data(), mode=st.sampled_from(["fill", "drop"]),
       fill=st.sampled_from([None, 0, 5]))
def test_out_of_bounds_get_fills(jax, jnp, dtype, data, mode, fill):
    case = data.draw(index_cases(oob=True, dtypes=(dtype,), unwrapped=True))
    host = host_array(case)
    if fill is not None and dtype == "bool":
        fill = bool(fill)
    expected = gather_reference(host, targets(case, "fill"),
                                default_fill(dtype) if fill is None else fill)
    for got in eager_and_jit(jax, jnp, case,
                             lambda x, idx: x.at[idx].get(
                                 **at_options(case, mode=mode, fill_value=fill))):
        check(got, expected)


# ---------------------------------------------------------------------------
# IDX-33: .at[] updates: drop / clip, duplicates accumulate.
# ---------------------------------------------------------------------------

def draw_updates(draw, case, op, shape):
    """Update values broadcasting to `shape` (the shape of x[index]): that
    shape, a suffix of it with 1s, a 0-d array or a Python scalar, with
    small values (products of -2..2 stay exact in float16)."""
    ushape = draw(st.sampled_from([shape, array_shape(draw, shape), ()]))
    dt = np.dtype(case.dtype)
    lo = 0 if dt.kind in "bu" else (-2 if op == "multiply" else -3)
    hi = 1 if dt.kind == "b" else (2 if op == "multiply" else 3)
    values = draw(st.lists(st.integers(lo, hi), min_size=math.prod(ushape),
                           max_size=math.prod(ushape)))
    updates = np.array(values).reshape(ushape).astype(dt)
    if ushape == () and draw(st.booleans()):
        updates = updates.item()            # a Python bool/int/float
    return updates


@st.composite
def update_cases(draw):
    """(case, op, mode, updates) for any index expression."""
    mode = draw(st.sampled_from([None, "drop", "fill", "clip", "promise_in_bounds"]))
    case = draw(index_cases(oob=mode != "promise_in_bounds",
                            unwrapped=mode != "promise_in_bounds"))
    op = draw(st.sampled_from(BOOL_UPDATE_OPS if case.dtype == "bool" else UPDATE_OPS))
    updates = draw_updates(draw, case, op, targets(case, "clip").shape)
    return case, op, mode, updates


@st.composite
def duplicate_cases(draw, op):
    """(case, mode, updates) whose index array names few positions many
    times: x[:, ..., idx(, i)] with idx drawn from 0, -1, n-1, -n (which
    wrap onto two elements) and n, -n-1 (out of range)."""
    mode = draw(st.sampled_from([None, "clip", "drop"]))
    dtypes = [d for d in DTYPES if d != "bool" or op in BOOL_UPDATE_OPS]
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 5)) for _ in range(ndim))
    axis = draw(st.integers(0, ndim - 1))
    n = shape[axis]
    ishape = draw(st.sampled_from([(4,), (2, 3), (6,), (2,)]))
    values = draw(st.lists(st.sampled_from([0, -1, n - 1, -n, n, -n - 1]),
                           min_size=math.prod(ishape), max_size=math.prod(ishape)))
    entries = [slice_entry(draw, m) for m in shape[:axis]]
    entries.append(Arr(np.array(values).reshape(ishape), draw(st.booleans())))
    if axis + 1 < ndim and draw(st.booleans()):
        entries.append(Int(draw(int_values(shape[axis + 1], True)), draw(st.booleans())))
    case = Case(shape, draw(st.sampled_from(dtypes)), entries, False,
                draw(st.sampled_from([True, False])))
    return case, mode, draw_updates(draw, case, op, targets(case, "clip").shape)


def do_update(case, op, mode):
    def fn(x, idx, updates):
        ref, options = x.at[idx], at_options(case, mode=mode)
        if op == "apply":
            return ref.apply(apply_fn, **options)
        return getattr(ref, op)(updates, **options)
    return fn


def check_update(got, host, case, op, mode, updates):
    tgt = targets(case, "clip" if mode == "clip" else "fill")
    if op == "set":
        check_set(got, host, tgt, updates)
    else:
        check(got, scatter_reference(host, tgt, updates, op))


@pytest.mark.spec("IDX-33")
@HYP
@given(drawn=update_cases())
def test_at_update_follows_drop_and_clip_rules(jax, jnp, drawn):
    case, op, mode, updates = drawn
    for got in eager_and_jit(jax, jnp, case, do_update(case, op, mode), updates):
        check_update(got, host_array(case), case, op, mode, updates)


@pytest.mark.spec("IDX-33")
@pytest.mark.parametrize("op", UPDATE_OPS)
@HYP_EACH
@given(data=st.data())
def test_at_duplicates_accumulate(jax, jnp, op, data):
    case, mode, updates = data.draw(duplicate_cases(op))
    for got in eager_and_jit(jax, jnp, case, do_update(case, op, mode), updates):
        check_update(got, host_array(case), case, op, mode, updates)


# ---------------------------------------------------------------------------
# IDX-34: boolean masks, concrete only.
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-34")
@HYP
@given(case=index_cases(masks=True), op=st.sampled_from(["get", "set", "add"]))
def test_concrete_mask_matches_numpy(jax, jnp, case, op):
    host = host_array(case)
    x = jnp.asarray(host)
    idx = impl_index(case, jnp)
    if op == "get":
        check(x[idx], np.asarray(host[host_index(case)]))
        return
    if op == "add" and case.dtype == "bool":
        op = "max"                      # bool has no add
    updates = np.asarray(1).astype(case.dtype)
    # A mask selects each position once, so NumPy's fancy assignment is the
    # reference for every op.
    expected = host.copy()
    selected = expected[host_index(case)]
    expected[host_index(case)] = (updates if op == "set" else
                                  ACCUMULATE[op](selected, updates))
    check(getattr(x.at[idx], op)(updates), expected)
    np.testing.assert_array_equal(np.asarray(x), host)


@pytest.mark.spec("IDX-34")
@HYP
@given(case=index_cases(masks=True))
def test_traced_mask_raises(jax, jnp, case):
    masks = [e for e in case.entries if isinstance(e, Mask)]

    def f(x, mask):
        entries = [mask if isinstance(e, Mask) else e for e in case.entries]
        static = impl_index(dataclasses.replace(case, entries=entries), jnp)
        return x[static]

    with pytest.raises(jax.errors.NonConcreteBooleanIndexError):
        jax.jit(f)(jnp.asarray(host_array(case)), masks[0].value)
