"""Property-based conformance of ``jax.numpy`` reductions (SPEC NPH-10..12).

Shared machinery (drawing, dtype rules, comparison) is in
``test_numpy_hypothesis.py``.  Reductions are drawn with ``axis`` (None, an
int, a tuple), ``keepdims``, a ``where`` mask broadcastable to the input,
``initial`` and ``dtype`` where the function takes them; the NumPy reference
runs in float64/int64 on the input converted to the accumulation type.
"""
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

from test_numpy_hypothesis import (
    HYP, MODES, canonical, check, default_int, describe, draw_arg, draw_array,
    draw_dtypes, draw_shape, dtype_pool, elements, kind, npdtype, reference, result_name,
    set_mode, sum_dtype, to_inexact, wide)


def draw_axis(data, ndim, none=True, tuples=True):
    """None, an int in [-ndim, ndim), or a tuple of distinct axes."""
    options = [st.none()] if none else []
    if ndim:
        options.append(st.integers(-ndim, ndim - 1))
    if tuples:
        options.append(hnp.valid_tuple_axes(ndim))
    return data.draw(st.one_of(options))


def axes_of(axis, ndim):
    """The reduced axes, as non-negative ints."""
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))


def reduced_size(shape, axis):
    return math.prod(shape[a] for a in axes_of(axis, len(shape)))


def draw_where(data, shape):
    """A bool mask that broadcasts to `shape` (dims kept or set to 1, leading
    dims sometimes dropped)."""
    dims = [data.draw(st.sampled_from([d, 1])) for d in shape]
    drop = data.draw(st.integers(0, len(dims)))
    return draw_array(data, "bool", tuple(dims[drop:]))


def draw_value(data, name, lo, hi):
    """A Python scalar holding a value of dtype `name` (for `initial`)."""
    v = data.draw(elements(name, lo, hi))
    return np.asarray(v).astype(npdtype(name)).item()


# ---------------------------------------------------------------------------
# NPH-10: sum prod max min all any.
# ---------------------------------------------------------------------------

REDUCTIONS = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min,
              "all": np.all, "any": np.any}


def draw_sum_dtype(data, x_dtype, x64):
    """The `dtype=` argument: None, or a float/int type the input casts to."""
    options = [None, "float32"] + (["int32"] if kind(x_dtype) != "f" else [])
    if x64:
        options += ["float64"] + (["int64"] if kind(x_dtype) != "f" else [])
    return data.draw(st.sampled_from(options))


@pytest.mark.spec("NPH-10")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@HYP
@given(data=st.data())
def test_reduction(jnp, request, x64_on, name, data):
    """sum/prod: sum_dtype (or dtype=); max/min: the input's dtype, NaN
    propagates; all/any: bool.  Options as in NumPy."""
    x64 = set_mode(request, x64_on)
    x_dtype = data.draw(st.sampled_from(dtype_pool(x64)))
    lo, hi = (-2, 2) if name == "prod" else (-100, 100)
    x = draw_arg(data, jnp, x_dtype, draw_shape(data), lo, hi,
                 specials=name not in ("sum", "prod"))
    axis = draw_axis(data, x.array.ndim)
    kw = {"axis": axis, "keepdims": data.draw(st.booleans())}
    if data.draw(st.booleans()):
        kw["where"] = draw_where(data, x.array.shape)
    # max/min need `initial` when a slice can be empty (as in NumPy).
    needs_initial = name in ("max", "min") and (
        "where" in kw or reduced_size(x.array.shape, axis) == 0)
    if name in ("sum", "prod", "max", "min") and (needs_initial or data.draw(st.booleans())):
        kw["initial"] = draw_value(data, x_dtype, lo, hi)
    if name in ("sum", "prod"):
        dtype = draw_sum_dtype(data, x_dtype, x64)
        out = sum_dtype(x_dtype, x64) if dtype is None else canonical(dtype, x64)
        if dtype is not None:
            kw["dtype"] = dtype
    else:
        out = "bool" if name in ("all", "any") else x_dtype
    ref_kw = {k: v for k, v in kw.items() if k != "dtype"}
    source = x.to(out) if name in ("sum", "prod") else x.to(wide(x_dtype))
    want = reference(REDUCTIONS[name], source, **ref_kw)
    mag = None
    if kind(out) == "f" and name in ("sum", "prod"):
        mag = reference(REDUCTIONS[name], np.abs(source),
                        **dict(ref_kw, initial=abs(kw.get("initial", 0 if name == "sum" else 1))))
    check(getattr(jnp, name)(x.value, **kw), want, out, mag=mag,
          what=f"{name}({describe(x, **kw)})")


# ---------------------------------------------------------------------------
# NPH-11: mean var std median average ptp.
# ---------------------------------------------------------------------------

@pytest.mark.spec("NPH-11")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", ["mean", "var", "std"])
@HYP
@given(data=st.data())
def test_moments(jnp, request, x64_on, name, data):
    """Integers and bool give float32 (float64 for 64-bit integers), or the
    `dtype=` asked for; empty slices give NaN; var/std divide by n - ddof."""
    x64 = set_mode(request, x64_on)
    x = draw_arg(data, jnp, data.draw(st.sampled_from(dtype_pool(x64))),
                 draw_shape(data), -100, 100)
    kw = {"axis": draw_axis(data, x.array.ndim), "keepdims": data.draw(st.booleans())}
    if data.draw(st.booleans()):
        kw["where"] = draw_where(data, x.array.shape)
    if name != "mean":
        kw["ddof"] = data.draw(st.integers(0, 1))
    dtype = data.draw(st.sampled_from([None, "float32"] + (["float64"] if x64 else [])))
    out = to_inexact(x.dtype, x64) if dtype is None else dtype
    v = x.to(out)
    want = reference(getattr(np, name), v, **kw)
    if dtype is not None:
        kw["dtype"] = dtype
    mag_kw = {k: kw[k] for k in ("axis", "keepdims", "where") if k in kw}
    mag = reference(np.mean, np.abs(v) if name != "var" else v * v, **mag_kw)
    check(getattr(jnp, name)(x.value, **kw), want, out, mag=mag,
          what=f"{name}({describe(x, **kw)})")


@pytest.mark.spec("NPH-11")
@pytest.mark.parametrize("x64_on", MODES)
@HYP
@given(data=st.data())
def test_median(jnp, request, x64_on, data):
    """The middle value (mean of the two middle ones), as inexact.  0-d
    inputs are left out: with keepdims JAX returns shape (1,) there, where
    NumPy returns ()."""
    x64 = set_mode(request, x64_on)
    x = draw_arg(data, jnp, data.draw(st.sampled_from(dtype_pool(x64))),
                 draw_shape(data, min_dims=1, min_side=1), -100, 100)
    kw = {"axis": draw_axis(data, x.array.ndim), "keepdims": data.draw(st.booleans())}
    out = to_inexact(x.dtype, x64)
    v = x.to(out)
    want = reference(np.median, v, **kw)
    mag = reference(np.max, np.abs(v), axis=kw["axis"], keepdims=kw["keepdims"])
    check(jnp.median(x.value, **kw), want, out, mag=mag,
          what=f"median({describe(x, **kw)})")


@pytest.mark.spec("NPH-11")
@pytest.mark.parametrize("x64_on", MODES)
@HYP
@given(data=st.data())
def test_average(jnp, request, x64_on, data):
    """average(a, axis, weights, returned, keepdims): the type is a's (with
    weights: a's and weights' promoted) made inexact; `returned` adds the sum
    of weights in that type."""
    x64 = set_mode(request, x64_on)
    x_name, w_name = draw_dtypes(data, x64, 2)
    x = draw_arg(data, jnp, x_name, draw_shape(data, min_side=1), -100, 100)
    ndim = x.array.ndim
    axis = draw_axis(data, ndim)
    kw = {"axis": axis, "returned": data.draw(st.booleans()),
          "keepdims": data.draw(st.booleans())}
    weights = None
    if data.draw(st.booleans()):
        w_shape = x.array.shape
        if isinstance(axis, int) and data.draw(st.booleans()):
            w_shape = (x.array.shape[axis],)        # 1-D weights along axis
        weights = draw_arg(data, jnp, w_name, w_shape, 1, 4, nonzero=True)
        out = to_inexact(result_name([x.code, weights.code], x64), x64)
    else:
        out = to_inexact(x.dtype, x64)
    v = x.to(out)
    w = None if weights is None else weights.to(out)
    want = reference(np.average, v, weights=w, **kw)
    got = jnp.average(x.value, weights=None if weights is None else weights.value, **kw)
    what = f"average({describe(x, weights, **kw)})"
    mag = reference(np.average, np.abs(v), weights=w, axis=axis, keepdims=kw["keepdims"])
    if kw["returned"]:
        assert isinstance(got, tuple) and len(got) == 2, what
        check(got[0], want[0], out, mag=mag, what=what)
        check(got[1], np.broadcast_to(want[1], np.shape(want[0])), out, what=what)
    else:
        check(got, want, out, mag=mag, what=what)


@pytest.mark.spec("NPH-11")
@pytest.mark.parametrize("x64_on", MODES)
@HYP
@given(data=st.data())
def test_ptp(jnp, request, x64_on, data):
    """ptp = max - min in the input's dtype (integers wrap); bool is rejected."""
    x64 = set_mode(request, x64_on)
    x = draw_arg(data, jnp, data.draw(st.sampled_from(dtype_pool(x64, "iuf"))),
                 draw_shape(data, min_side=1), -1000, 1000)
    kw = {"axis": draw_axis(data, x.array.ndim), "keepdims": data.draw(st.booleans())}
    want = reference(np.ptp, x.to(x.dtype), **kw)
    check(jnp.ptp(x.value, **kw), want, x.dtype, what=f"ptp({describe(x, **kw)})")


# ---------------------------------------------------------------------------
# NPH-12: argmax argmin count_nonzero cumsum cumprod.
# ---------------------------------------------------------------------------

@pytest.mark.spec("NPH-12")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", ["argmax", "argmin"])
@HYP
@given(data=st.data())
def test_arg_reduction(jnp, request, x64_on, name, data):
    """The first index of the extreme value, or of the first NaN; the index
    type is the default int."""
    x64 = set_mode(request, x64_on)
    x = draw_arg(data, jnp, data.draw(st.sampled_from(dtype_pool(x64))),
                 draw_shape(data, min_side=1), -3, 3, specials=True)
    kw = {"axis": draw_axis(data, x.array.ndim, tuples=False),
          "keepdims": data.draw(st.booleans())}
    want = reference(getattr(np, name), x.to(wide(x.dtype)), **kw)
    check(getattr(jnp, name)(x.value, **kw), want, default_int(x64),
          what=f"{name}({describe(x, **kw)})")


@pytest.mark.spec("NPH-12")
@pytest.mark.parametrize("x64_on", MODES)
@HYP
@given(data=st.data())
def test_count_nonzero(jnp, request, x64_on, data):
    """Non-zero (NaN included) elements, counted as the default int."""
    x64 = set_mode(request, x64_on)
    x = draw_arg(data, jnp, data.draw(st.sampled_from(dtype_pool(x64))),
                 draw_shape(data), -2, 2, specials=True)
    kw = {"axis": draw_axis(data, x.array.ndim), "keepdims": data.draw(st.booleans())}
    want = reference(np.count_nonzero, x.to(wide(x.dtype)), **kw)
    check(jnp.count_nonzero(x.value, **kw), want, default_int(x64),
          what=f"count_nonzero({describe(x, **kw)})")


@pytest.mark.spec("NPH-12")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@HYP
@given(data=st.data())
def test_cumulative(jnp, request, x64_on, name, data):
    """Running sums/products along an axis (None flattens).  Unlike sum, the
    type is kept for integers; only bool goes to the default int."""
    x64 = set_mode(request, x64_on)
    x_dtype = data.draw(st.sampled_from(dtype_pool(x64)))
    lo, hi = (-2, 2) if name == "cumprod" else (-100, 100)
    x = draw_arg(data, jnp, x_dtype, draw_shape(data), lo, hi)
    kw = {"axis": draw_axis(data, x.array.ndim, tuples=False)}
    dtype = draw_sum_dtype(data, x_dtype, x64)
    if dtype is None:
        out = default_int(x64) if x_dtype == "bool" else x_dtype
    else:
        kw["dtype"] = dtype
        out = canonical(dtype, x64)
    v = x.to(out)
    np_fn = getattr(np, name)
    want = reference(np_fn, v, axis=kw["axis"])
    mag = reference(np_fn, np.abs(v), axis=kw["axis"]) if kind(out) == "f" else None
    check(getattr(jnp, name)(x.value, **kw), want, out, mag=mag,
          what=f"{name}({describe(x, **kw)})")
