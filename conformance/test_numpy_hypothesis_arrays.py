"""Property-based conformance of ``jax.numpy`` array functions (SPEC NPH-13..17):
shape manipulation, joining and splitting, products, sorting, convolution.

Shared machinery is in ``test_numpy_hypothesis.py``.  Rearranging functions
must reproduce NumPy's values exactly and keep the dtype; joins and products
use the promoted dtype of their operands.
"""
import math

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st
from hypothesis.extra import numpy as hnp

from test_numpy_hypothesis import (
    HYP, MODES, Arg, canonical, check, default_int, describe, draw_arg,
    draw_dtypes, draw_shape, draw_shapes, dtype_pool, elements, kind, npdtype,
    reference, result_name, set_mode, sum_dtype, to_inexact, wide)


def draw_any_arg(data, jnp, x64, shape, lo=-100, hi=100, specials=False):
    """An array of any dtype in the pool."""
    name = data.draw(st.sampled_from(dtype_pool(x64)))
    return draw_arg(data, jnp, name, shape, lo, hi, specials)


def draw_axis_or_tuple(data, ndim, empty=True):
    """None, an int, or a tuple of distinct axes (empty only with `empty`)."""
    options = [st.none()]
    if ndim:
        options += [st.integers(-ndim, ndim - 1), hnp.valid_tuple_axes(ndim, min_size=1)]
    if empty:
        options.append(st.just(()))
    return data.draw(st.one_of(options))


# ---------------------------------------------------------------------------
# NPH-13: rearranging one array.  Each builder draws the non-array arguments
# for an input of the given shape; the same call goes to jnp and to np.
# ---------------------------------------------------------------------------

def _reshape_args(data, shape):
    size = math.prod(shape)
    targets = [(size,), tuple(reversed(shape)), (1,) + shape, shape + (1,)]
    if size:
        targets.append((-1,))
        if len(shape) >= 2:
            targets.append((-1,) + shape[2:])
    if len(shape) >= 2:
        targets.append((shape[0] * shape[1],) + shape[2:])
    return (data.draw(st.sampled_from(targets)),), {"order": data.draw(st.sampled_from("CF"))}


def _ravel_args(data, shape):
    return (), {"order": data.draw(st.sampled_from("CF"))}


def _transpose_args(data, shape):
    if data.draw(st.booleans()):
        return (), {}
    return (tuple(data.draw(st.permutations(range(len(shape))))),), {}


def _swapaxes_args(data, shape):
    axis = st.integers(-len(shape), len(shape) - 1)
    return (data.draw(axis), data.draw(axis)), {}


def _moveaxis_args(data, shape):
    ndim = len(shape)
    source = data.draw(hnp.valid_tuple_axes(ndim, min_size=1))
    dest = data.draw(st.permutations(range(ndim)))[:len(source)]
    if len(source) == 1 and data.draw(st.booleans()):
        return (source[0], dest[0]), {}
    return (source, tuple(dest)), {}


def _expand_dims_args(data, shape):
    k = data.draw(st.integers(1, 2))
    out_ndim = len(shape) + k
    axes = data.draw(st.lists(st.integers(0, out_ndim - 1), min_size=k, max_size=k,
                              unique=True))
    axes = [a - out_ndim if data.draw(st.booleans()) else a for a in axes]
    return ((axes[0] if k == 1 else tuple(axes)),), {}


def _squeeze_args(data, shape):
    ones = [i for i, d in enumerate(shape) if d == 1]
    if not ones or data.draw(st.booleans()):
        return (), {"axis": None}
    return (), {"axis": tuple(data.draw(st.lists(st.sampled_from(ones), unique=True)))}


def _flip_args(data, shape):
    return (), {"axis": draw_axis_or_tuple(data, len(shape))}


def _roll_args(data, shape):
    axis = draw_axis_or_tuple(data, len(shape), empty=False)   # JAX rejects ()
    if isinstance(axis, tuple):
        shift = tuple(data.draw(st.integers(-5, 5)) for _ in axis)
    else:
        shift = data.draw(st.integers(-5, 5))
    return (shift,), {"axis": axis}


def _rot90_args(data, shape):
    axes = data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=2, max_size=2,
                              unique=True))
    return (), {"k": data.draw(st.integers(-4, 4)), "axes": tuple(axes)}


def _tile_args(data, shape):
    if data.draw(st.booleans()):
        return (data.draw(st.integers(0, 2)),), {}
    return (tuple(data.draw(st.lists(st.integers(0, 2), max_size=3))),), {}


def _repeat_args(data, shape):
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1))
                     if shape else st.none())
    if data.draw(st.booleans()):
        return (data.draw(st.integers(0, 3)),), {"axis": axis}
    n = math.prod(shape) if axis is None else shape[axis]
    repeats = data.draw(hnp.arrays(np.int32, (n,), elements=st.integers(0, 3)))
    return (repeats,), {"axis": axis}


def _broadcast_to_args(data, shape):
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    dims = [data.draw(st.integers(0, 3)) if d == 1 else d for d in shape]
    return (tuple(lead) + tuple(dims),), {}


def _pad_args(data, shape):
    nonconstant = math.prod(shape) > 0
    mode = data.draw(st.sampled_from(
        ["constant", "edge", "reflect", "symmetric", "wrap"] if nonconstant else ["constant"]))
    # (JAX rejects the empty per-axis form () that a 0-d input would take.)
    form = data.draw(st.sampled_from(["int", "pair", "per_axis"] if shape else ["int", "pair"]))
    pair = st.tuples(st.integers(0, 3), st.integers(0, 3))
    if form == "int":
        width = data.draw(st.integers(0, 3))
    elif form == "pair":
        width = data.draw(pair)
    else:
        width = tuple(data.draw(pair) for _ in shape)
    return (width,), {"mode": mode}


def _diagonal_args(data, shape):
    axes = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=2,
                              max_size=2, unique_by=lambda a: a % len(shape)))
    return (), {"offset": data.draw(st.integers(-3, 3)), "axis1": axes[0], "axis2": axes[1]}


# name: (argument builder, minimum ndim)
REARRANGE = {
    "reshape": (_reshape_args, 0), "ravel": (_ravel_args, 0),
    "transpose": (_transpose_args, 0), "swapaxes": (_swapaxes_args, 1),
    "moveaxis": (_moveaxis_args, 1), "expand_dims": (_expand_dims_args, 0),
    "squeeze": (_squeeze_args, 0), "flip": (_flip_args, 0),
    "roll": (_roll_args, 0), "rot90": (_rot90_args, 2), "tile": (_tile_args, 0),
    "repeat": (_repeat_args, 0), "broadcast_to": (_broadcast_to_args, 0),
    "pad": (_pad_args, 0), "diagonal": (_diagonal_args, 2),
}


@pytest.mark.spec("NPH-13")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", sorted(REARRANGE))
@HYP
@given(data=st.data())
def test_rearrange(jnp, request, x64_on, name, data):
    """Values exactly as NumPy places them; the dtype is kept."""
    x64 = set_mode(request, x64_on)
    build, min_dims = REARRANGE[name]
    x = draw_any_arg(data, jnp, x64, draw_shape(data, min_dims=min_dims), specials=True)
    args, kw = build(data, x.array.shape)
    if name == "pad" and kw["mode"] == "constant" and data.draw(st.booleans()):
        kw["constant_values"] = np.asarray(data.draw(elements(x.dtype, -9, 9))).astype(
            npdtype(x.dtype)).item()
    want = getattr(np, name)(x.to(wide(x.dtype)), *args, **kw)
    got = getattr(jnp, name)(x.value, *args, **kw)
    check(got, want, x.dtype, what=f"{name}({describe(x, *args, **kw)})")


# ---------------------------------------------------------------------------
# NPH-14: joining and splitting.
# ---------------------------------------------------------------------------

def draw_join_operands(data, jnp, x64, name):
    """Operands for concatenate/stack/hstack/vstack: equal shapes except along
    the joined axis (where the function has one)."""
    k = data.draw(st.integers(1, 3))
    min_dims = 1 if name == "concatenate" else 0
    base = list(draw_shape(data, min_dims=min_dims))
    axis = None
    if name == "concatenate":
        axis = data.draw(st.integers(-len(base), len(base) - 1))
    elif name == "hstack" and base:
        axis = 1 if len(base) >= 2 else 0
    elif name == "vstack" and len(base) >= 2:
        axis = 0
    operands = []
    for dtype in draw_dtypes(data, x64, k):
        shape = list(base)
        if axis is not None:
            shape[axis] = data.draw(st.integers(0, 3))
        operands.append(draw_arg(data, jnp, dtype, tuple(shape)))
    kw = {"axis": axis} if name == "concatenate" else {}
    if name == "stack":
        kw = {"axis": data.draw(st.integers(-len(base) - 1, len(base)))}
    return operands, kw


@pytest.mark.spec("NPH-14")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", ["concatenate", "stack", "hstack", "vstack"])
@HYP
@given(data=st.data())
def test_join(jnp, request, x64_on, name, data):
    """The result has the promoted dtype of all operands."""
    x64 = set_mode(request, x64_on)
    operands, kw = draw_join_operands(data, jnp, x64, name)
    out = result_name([a.code for a in operands], x64)
    want = getattr(np, name)([a.to(out) for a in operands], **kw)
    got = getattr(jnp, name)([a.value for a in operands], **kw)
    check(got, want, out, what=f"{name}({describe(*operands, **kw)})")


@pytest.mark.spec("NPH-14")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", ["split", "array_split"])
@HYP
@given(data=st.data())
def test_split(jnp, request, x64_on, name, data):
    """Sections (split: must divide the axis) or sorted split indices in
    [0, n] (JAX rejects indices past the end, where NumPy gives empty pieces)."""
    x64 = set_mode(request, x64_on)
    x = draw_any_arg(data, jnp, x64, draw_shape(data, min_dims=1))
    axis = data.draw(st.integers(-x.array.ndim, x.array.ndim - 1))
    n = x.array.shape[axis]
    if data.draw(st.booleans()):
        divisors = [d for d in range(1, 5) if n % d == 0] if name == "split" else range(1, 5)
        sections = data.draw(st.sampled_from(list(divisors)))
    else:
        sections = sorted(data.draw(st.lists(st.integers(0, n), max_size=3)))
    want = getattr(np, name)(x.array, sections, axis=axis)
    got = getattr(jnp, name)(x.value, sections, axis=axis)
    what = f"{name}({describe(x, sections, axis=axis)})"
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        check(g, w, x.dtype, what=what)


@pytest.mark.spec("NPH-14")
@pytest.mark.parametrize("x64_on", MODES)
@HYP
@given(data=st.data())
def test_broadcast_arrays(jnp, request, x64_on, data):
    """Each operand broadcast to the common shape, keeping its own dtype."""
    x64 = set_mode(request, x64_on)
    shapes = draw_shapes(data, data.draw(st.integers(1, 3)))
    operands = [draw_arg(data, jnp, name, s)
                for name, s in zip(draw_dtypes(data, x64, len(shapes)), shapes)]
    want = np.broadcast_arrays(*(a.array for a in operands))
    got = jnp.broadcast_arrays(*(a.value for a in operands))
    assert len(got) == len(want)
    for a, g, w in zip(operands, got, want):
        check(g, w, a.dtype, what=f"broadcast_arrays({describe(*operands)})")


# ---------------------------------------------------------------------------
# NPH-15: products.
# ---------------------------------------------------------------------------

def prod_ref(fn, out, *arrays):
    """A product computed by NumPy in the wide type of `out` (bool as int64,
    so that the result is the OR of ANDs once converted back to bool)."""
    acc = "int64" if out == "bool" else wide(out)
    return reference(fn, *(np.asarray(a).astype(acc) for a in arrays))


def _dot_shapes(data):
    a_ndim, b_ndim = data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))
    side = st.integers(0, 3)
    a = [data.draw(side) for _ in range(a_ndim)]
    b = [data.draw(side) for _ in range(b_ndim)]
    if a and b:
        b[-2 if b_ndim >= 2 else -1] = a[-1]
    return (tuple(a), tuple(b)), {}


def _matmul_shapes(data):
    batch = draw_shapes(data, 2, max_dims=2)
    n, k, m = (data.draw(st.integers(0, 3)) for _ in "nkm")
    a = (k,) if data.draw(st.integers(0, 3)) == 0 else batch[0] + (n, k)
    b = (k,) if data.draw(st.integers(0, 3)) == 0 else batch[1] + (k, m)
    return (a, b), {}


def _inner_shapes(data):
    a, b = (list(draw_shape(data, max_dims=2)) for _ in "ab")
    if a and b:
        b[-1] = a[-1]
    return (tuple(a), tuple(b)), {}


def _outer_shapes(data):
    return (draw_shape(data, max_dims=2), draw_shape(data, max_dims=2)), {}


def _kron_shapes(data):
    return (draw_shape(data, max_dims=2, max_side=3), draw_shape(data, max_dims=2, max_side=3)), {}


def _vdot_shapes(data):
    a = draw_shape(data)
    size = math.prod(a)
    return (a, data.draw(st.sampled_from([(size,), a[::-1]]))), {}


def _tensordot_shapes(data):
    free_a, common, free_b = (draw_shape(data, max_dims=d) for d in (2, 2, 1))
    a, b = free_a + common, common + free_b
    n = len(common)
    if data.draw(st.booleans()):
        axes = n
    else:
        axes = (list(range(len(free_a), len(a))), list(range(n)))
    return (a, b), {"axes": axes}


# (subscripts, operand letters) for einsum; sizes are drawn per letter.
EINSUM_CASES = ["ij,jk->ik", "ij,jk", "i,i->", "i,i", "i,j->ij", "ij->ji", "ii->i",
                "ii", "ij->", "bij,bjk->bik", "i,ij,j->", "...i,...i->...", "ij,kj->ik"]


def _einsum_shapes(data):
    spec = data.draw(st.sampled_from(EINSUM_CASES))
    sizes = {c: data.draw(st.integers(0, 3)) for c in "ijkb"}
    ell = draw_shape(data, max_dims=2)
    shapes = []
    for term in spec.split("->")[0].split(","):
        shapes.append((ell if term.startswith("...") else ())
                      + tuple(sizes[c] for c in term.replace("...", "")))
    return tuple(shapes), {"subscripts": spec}


# name: (shape builder, NumPy function)
PRODUCTS = {
    "dot": (_dot_shapes, np.dot), "matmul": (_matmul_shapes, np.matmul),
    "inner": (_inner_shapes, np.inner), "outer": (_outer_shapes, np.outer),
    "kron": (_kron_shapes, np.kron), "vdot": (_vdot_shapes, np.vdot),
    "tensordot": (_tensordot_shapes, np.tensordot),
    "einsum": (_einsum_shapes, np.einsum),
}


@pytest.mark.spec("NPH-15")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", sorted(PRODUCTS))
@HYP
@given(data=st.data())
def test_product(jnp, request, x64_on, name, data):
    """Sums of products in the operands' promoted dtype (bool: OR of ANDs;
    integers wrap); kron rejects bool."""
    x64 = set_mode(request, x64_on)
    build, np_fn = PRODUCTS[name]
    shapes, kw = build(data)
    names = draw_dtypes(data, x64, len(shapes))
    if len(shapes) > 2:
        # JAX's einsum contracts pairwise with the final type as preferred
        # element type, and raises TypeError when an intermediate integer
        # type is wider than a final floating type (int32, int32, float16).
        names = [names[0]] * len(shapes)
    operands = [draw_arg(data, jnp, name, s, -5, 5) for name, s in zip(names, shapes)]
    out = result_name([a.code for a in operands], x64)
    assume(not (name == "kron" and out == "bool"))
    values = [a.to(out) for a in operands]
    if name == "einsum":
        subscripts = kw["subscripts"]
        want = prod_ref(lambda *v: np.einsum(subscripts, *v), out, *values)
        mag = prod_ref(lambda *v: np.einsum(subscripts, *v), out, *map(np.abs, values))
        got = jnp.einsum(subscripts, *(a.value for a in operands))
    else:
        want = prod_ref(lambda *v: np_fn(*v, **kw), out, *values)
        mag = prod_ref(lambda *v: np_fn(*v, **kw), out, *map(np.abs, values))
        got = getattr(jnp, name)(*(a.value for a in operands), **kw)
    check(got, want, out, mag=mag if kind(out) == "f" else None,
          what=f"{name}({describe(*operands, **kw)})")


@pytest.mark.spec("NPH-15")
@pytest.mark.parametrize("x64_on", MODES)
@HYP
@given(data=st.data())
def test_trace(jnp, request, x64_on, data):
    """trace sums a diagonal with sum's dtype rule (or `dtype=`)."""
    x64 = set_mode(request, x64_on)
    x = draw_any_arg(data, jnp, x64, draw_shape(data, min_dims=2), -100, 100)
    (), kw = _diagonal_args(data, x.array.shape)
    int_dtype = ["int32"] if kind(x.dtype) != "f" else []   # no float -> int casts
    dtype = data.draw(st.sampled_from([None, "float32"] + int_dtype))
    out = sum_dtype(x.dtype, x64) if dtype is None else canonical(dtype, x64)
    ref_kw = dict(kw)
    if dtype is not None:
        kw["dtype"] = dtype
    v = x.to(out)
    want = reference(np.trace, v, **ref_kw)
    mag = reference(np.trace, np.abs(v), **ref_kw) if kind(out) == "f" else None
    check(jnp.trace(x.value, **kw), want, out, mag=mag, what=f"trace({describe(x, **kw)})")


# ---------------------------------------------------------------------------
# NPH-16: sort, argsort.
# ---------------------------------------------------------------------------

SORT_SPECIALS = [math.nan, math.inf, -math.inf, -0.0]    # -0.0 ties with 0.0


def sort_ref(v, axis, descending):
    """Stable ascending sort order; descending = the reverse order of the
    reversed input, so ties keep their original order and NaN comes first."""
    if axis is None:
        v, axis = v.ravel(), 0
    if not descending:
        return np.argsort(v, axis=axis, kind="stable")
    n = v.shape[axis]
    return (n - 1) - np.flip(np.argsort(np.flip(v, axis), axis=axis, kind="stable"), axis)


@pytest.mark.spec("NPH-16")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", ["sort", "argsort"])
@HYP
@given(data=st.data())
def test_sort(jnp, request, x64_on, name, data):
    """NaN sorts after +inf (before it when descending); argsort is stable and
    returns the default int."""
    x64 = set_mode(request, x64_on)
    x_dtype = data.draw(st.sampled_from(dtype_pool(x64)))
    shape = draw_shape(data)
    values = st.integers(-4, 4).map(float)      # small integers: many ties
    if kind(x_dtype) == "f":
        values = st.one_of(values, st.sampled_from(SORT_SPECIALS))
    arr = data.draw(hnp.arrays(np.float64, shape, elements=values))
    if kind(x_dtype) != "f":
        arr = arr.astype(np.int64)              # then wraps into unsigned types
    arr = arr.astype(npdtype(x_dtype))
    x = Arg(jnp.asarray(arr), arr, x_dtype)
    axis = None if not shape else data.draw(
        st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    kw = {"axis": axis, "descending": data.draw(st.booleans())}
    order = sort_ref(x.to(wide(x_dtype)), axis, kw["descending"])
    if name == "argsort":
        want, out = order, default_int(x64)
    else:
        flat = x.to(wide(x_dtype)).ravel() if axis is None else x.to(wide(x_dtype))
        want, out = np.take_along_axis(flat, order, axis=0 if axis is None else axis), x_dtype
    check(getattr(jnp, name)(x.value, **kw), want, out, what=f"{name}({describe(x, **kw)})")


# ---------------------------------------------------------------------------
# NPH-17: convolve, correlate.
# ---------------------------------------------------------------------------

@pytest.mark.spec("NPH-17")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", ["convolve", "correlate"])
@HYP
@given(data=st.data())
def test_convolution(jnp, request, x64_on, name, data):
    """1-D, non-empty operands; modes full/same/valid as in NumPy; the result
    is the promoted dtype made inexact."""
    x64 = set_mode(request, x64_on)
    a, v = (draw_arg(data, jnp, name, (data.draw(st.integers(1, 5)),), -10, 10)
            for name in draw_dtypes(data, x64, 2))
    mode = data.draw(st.sampled_from(["full", "same", "valid"]))
    out = to_inexact(result_name([a.code, v.code], x64), x64)
    np_fn = getattr(np, name)
    want = reference(np_fn, a.to(out), v.to(out), mode=mode)
    mag = reference(np_fn, np.abs(a.to(out)), np.abs(v.to(out)), mode=mode)
    check(getattr(jnp, name)(a.value, v.value, mode=mode), want, out, mag=mag,
          what=f"{name}({describe(a, v, mode=mode)})")
