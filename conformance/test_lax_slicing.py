"""lax gather, scatter and dynamic slices (SPEC IDX-10 .. IDX-19).

Expected values come from NumPy (explicit loops written here) or are
literals observed on JAX 0.10.2; printed jaxprs are JAX's text verbatim.
"""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

HYP = settings(max_examples=int(os.environ.get("NPH_MAX_EXAMPLES", 25)),
               deadline=None, derandomize=True, database=None,
               suppress_health_check=list(HealthCheck))


def _raises(cls, fn):
    with pytest.raises(cls) as info:
        fn()
    return str(info.value)


def _gdn(lax, offset=(), collapsed=(0,), start_map=(0,), **kw):
    return lax.GatherDimensionNumbers(offset_dims=offset, collapsed_slice_dims=collapsed,
                                      start_index_map=start_map, **kw)


def _sdn(lax, window=(), inserted=(0,), to_operand=(0,), **kw):
    return lax.ScatterDimensionNumbers(update_window_dims=window,
                                       inserted_window_dims=inserted,
                                       scatter_dims_to_operand_dims=to_operand, **kw)


# ---------------------------------------------------------------------------
# NumPy references: one window at a time, in index order
# ---------------------------------------------------------------------------

def _window_start(operand_shape, index_vector, start_map, sizes):
    """(clamped start, whether the unclamped window fits)."""
    start = [0] * len(operand_shape)
    for k, d in enumerate(start_map):
        start[d] = int(index_vector[k])
    fits = all(0 <= start[d] <= operand_shape[d] - sizes[d] for d in start_map)
    clamped = [min(max(s, 0), n - w) for s, n, w in zip(start, operand_shape, sizes)]
    return clamped, fits


def _layout(offset_dims, batch_shape, kept_sizes):
    out_rank = len(offset_dims) + len(batch_shape)
    batch_pos = [p for p in range(out_rank) if p not in offset_dims]
    shape = [0] * out_rank
    for p, n in zip(batch_pos, batch_shape):
        shape[p] = n
    for p, n in zip(offset_dims, kept_sizes):
        shape[p] = n
    return batch_pos, tuple(shape)


def ref_gather(op, idx, offset_dims, collapsed, start_map, sizes, fill=None):
    """XLA gather; ``fill`` not None means FILL_OR_DROP, else clamp."""
    kept = [d for d in range(op.ndim) if d not in collapsed]
    batch_pos, shape = _layout(offset_dims, idx.shape[:-1], [sizes[d] for d in kept])
    out = np.zeros(shape, op.dtype)
    for b in np.ndindex(*idx.shape[:-1]):
        start, fits = _window_start(op.shape, idx[b], start_map, sizes)
        win = op[tuple(slice(s, s + w) for s, w in zip(start, sizes))]
        win = win.reshape([sizes[d] for d in kept])
        if fill is not None and not fits:
            win = np.full_like(win, fill)
        for o in np.ndindex(*win.shape):
            pos = [0] * len(shape)
            for p, v in zip(batch_pos, b):
                pos[p] = v
            for p, v in zip(offset_dims, o):
                pos[p] = v
            out[tuple(pos)] = win[o]
    return out


def ref_scatter(op, idx, upd, window_dims, inserted, to_operand, combine, clip):
    """XLA scatter applied update by update; returns (result, write counts)."""
    out = op.copy()
    count = np.zeros(op.shape, np.int64)
    sizes, k = [], 0
    for d in range(op.ndim):
        if d in inserted:
            sizes.append(1)
        else:
            sizes.append(upd.shape[window_dims[k]])
            k += 1
    batch_pos = [p for p in range(upd.ndim) if p not in window_dims]
    for b in np.ndindex(*idx.shape[:-1]):
        start, fits = _window_start(op.shape, idx[b], to_operand, sizes)
        if not fits and not clip:
            continue
        kept = [d for d in range(op.ndim) if d not in inserted]
        for o in np.ndindex(*[sizes[d] for d in kept]):
            pos = [0] * upd.ndim
            for p, v in zip(batch_pos, b):
                pos[p] = v
            for p, v in zip(window_dims, o):
                pos[p] = v
            target = list(start)
            for d, v in zip(kept, o):
                target[d] += v
            out[tuple(target)] = combine(out[tuple(target)], upd[tuple(pos)])
            count[tuple(target)] += 1
    return out, count


# ---------------------------------------------------------------------------
# IDX-10: modes and dimension numbers
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-10")
def test_mode_from_any(jax):
    M = jax.lax.GatherScatterMode
    assert M.from_any("clip") is M.CLIP
    assert M.from_any(None) is M.FILL_OR_DROP
    assert M.from_any("fill") is M.FILL_OR_DROP
    assert M.from_any("drop") is M.FILL_OR_DROP
    assert M.from_any("promise_in_bounds") is M.PROMISE_IN_BOUNDS
    assert M.from_any(M.CLIP) is M.CLIP
    assert str(M.PROMISE_IN_BOUNDS) == "GatherScatterMode.PROMISE_IN_BOUNDS"
    assert repr(M.CLIP) == "<GatherScatterMode.CLIP: 1>"
    assert [m.name for m in M][:3] == ["CLIP", "FILL_OR_DROP", "PROMISE_IN_BOUNDS"]
    assert _raises(ValueError, lambda: M.from_any("bogus")) == 'Unknown gather mode "bogus"'


@pytest.mark.spec("IDX-10")
def test_bad_mode_string_raises_in_gather_and_scatter(jax, jnp):
    lax = jax.lax
    x, i = jnp.arange(4.0), jnp.array([[1]])
    _raises(ValueError, lambda: lax.gather(x, i, _gdn(lax), (1,), mode="wrap"))
    _raises(ValueError, lambda: lax.scatter(x, i, jnp.ones(1), _sdn(lax), mode="wrap"))


@pytest.mark.spec("IDX-10")
def test_dimension_numbers_print_with_defaults(jax):
    lax = jax.lax
    assert repr(lax.GatherDimensionNumbers((1,), (0,), (0,))) == (
        "GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), "
        "start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())")
    assert repr(lax.ScatterDimensionNumbers((), (0,), (0,))) == (
        "ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), "
        "scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), "
        "scatter_indices_batching_dims=())")
    assert lax.GatherDimensionNumbers((), (0,), (0,)) == ((), (0,), (0,), (), ())


# ---------------------------------------------------------------------------
# IDX-11: dynamic_slice and dynamic_update_slice
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-11")
@pytest.mark.parametrize("start,expected", [(8, [6, 7, 8, 9]), (-3, [6, 7, 8, 9]),
                                            (-30, [0, 1, 2, 3]), (2, [2, 3, 4, 5])])
def test_dynamic_slice_wraps_then_clamps(jax, jnp, start, expected):
    x = jnp.arange(10)
    assert jax.lax.dynamic_slice(x, (start,), (4,)).tolist() == expected
    f = jax.jit(lambda a, i: jax.lax.dynamic_slice(a, (i,), (4,)))
    assert f(x, np.int32(start)).tolist() == expected


@pytest.mark.spec("IDX-11")
@pytest.mark.parametrize("start", [9, -2, 7, 100])
def test_dynamic_update_slice_clamps(jax, jnp, start):
    x = jnp.arange(10)
    u = jnp.array([-1, -1, -1])
    expected = [0, 1, 2, 3, 4, 5, 6, -1, -1, -1]
    assert jax.lax.dynamic_update_slice(x, u, (start,)).tolist() == expected
    f = jax.jit(lambda a, b, i: jax.lax.dynamic_update_slice(a, b, (i,)))
    assert f(x, u, np.int32(start)).tolist() == expected
    assert x.tolist() == list(range(10))


@pytest.mark.spec("IDX-11")
def test_dynamic_slices_in_two_dims(jax, jnp):
    lax = jax.lax
    host = np.arange(12, dtype=np.int32).reshape(3, 4)
    x = jnp.asarray(host)
    np.testing.assert_array_equal(lax.dynamic_slice(x, (1, 1), (2, 4)), host[1:3, 0:4])
    np.testing.assert_array_equal(lax.dynamic_slice_in_dim(x, 3, 2, axis=1), host[:, 2:4])
    np.testing.assert_array_equal(lax.dynamic_index_in_dim(x, -1, 1, keepdims=False),
                                  host[:, 3])
    np.testing.assert_array_equal(lax.dynamic_index_in_dim(x, 5, 0), host[2:3])
    want = host.copy()
    want[1:3, 2:4] = -1
    np.testing.assert_array_equal(
        lax.dynamic_update_slice(x, jnp.full((2, 2), -1, "int32"), (1, 5)), want)
    want = host.copy()
    want[:, 3] = [7, 8, 9]
    np.testing.assert_array_equal(
        lax.dynamic_update_index_in_dim(x, jnp.array([7, 8, 9]), 9, 1), want)
    want = host.copy()
    want[1:3, :] = 0
    np.testing.assert_array_equal(
        lax.dynamic_update_slice_in_dim(x, jnp.zeros((2, 4), "int32"), -1, 0), want)


@pytest.mark.spec("IDX-11")
def test_dynamic_slice_jaxprs(jax, jnp):
    lax = jax.lax
    x = jnp.ones(10)
    got = jax.make_jaxpr(lambda a, i: lax.dynamic_slice(a, (i,), (4,)))(x, np.int32(0))
    assert str(got) == (
        "{ lambda ; a:f32[10] b:i32[]. let\n    c:bool[] = lt b 0:i32[]\n"
        "    d:i32[] = add b 10:i32[]\n    e:i32[] = select_n c b d\n"
        "    f:f32[4] = dynamic_slice[slice_sizes=(4,)] a e\n  in (f,) }")
    got = jax.make_jaxpr(lambda a: lax.dynamic_slice(a, (-3,), (4,)))(x)
    assert str(got) == ("{ lambda ; a:f32[10]. let\n"
                        "    b:f32[4] = dynamic_slice[slice_sizes=(4,)] a 7:i32[]\n"
                        "  in (b,) }")
    got = jax.make_jaxpr(lambda a, i: lax.dynamic_slice(a, (i,), (4,)))(x, np.uint8(0))
    assert str(got) == ("{ lambda ; a:f32[10] b:u8[]. let\n"
                        "    c:f32[4] = dynamic_slice[slice_sizes=(4,)] a b\n  in (c,) }")
    got = jax.make_jaxpr(lambda a, u, i: lax.dynamic_update_slice(a, u, (i,)))(
        x, jnp.ones(3), np.int32(0))
    assert str(got) == (
        "{ lambda ; a:f32[10] b:f32[3] c:i32[]. let\n    d:bool[] = lt c 0:i32[]\n"
        "    e:i32[] = add c 10:i32[]\n    f:i32[] = select_n d c e\n"
        "    g:f32[10] = dynamic_update_slice a b f\n  in (g,) }")
    got = jax.make_jaxpr(lambda a, i: lax.dynamic_index_in_dim(a, i, 0, False))(
        x, np.int32(0))
    assert str(got) == (
        "{ lambda ; a:f32[10] b:i32[]. let\n    c:f32[] = jit[\n"
        "      name=dynamic_index_in_dim\n"
        "      jaxpr={ lambda ; a:f32[10] b:i32[]. let\n"
        "          d:bool[] = lt b 0:i32[]\n          e:i32[] = add b 10:i32[]\n"
        "          f:i32[] = select_n d b e\n"
        "          g:f32[1] = dynamic_slice[slice_sizes=(1,)] a f\n"
        "          c:f32[] = squeeze[dimensions=(0,)] g\n        in (c,) }\n"
        "    ] a b\n  in (c,) }")


@pytest.mark.spec("IDX-11")
def test_dynamic_slice_errors(jax, jnp):
    lax = jax.lax
    x = jnp.arange(10.0)
    assert _raises(TypeError, lambda: lax.dynamic_slice(x, (1.0,), (2,))) == (
        "index arguments to dynamic_slice must be integers of the same type, got: float32")
    assert _raises(ValueError, lambda: lax.dynamic_slice(x, (1, 2), (2,))) == (
        "Length of slice indices must match number of operand dimensions (2 vs (10,))")
    assert _raises(TypeError, lambda: lax.dynamic_slice(x, (1,), (11,))) == (
        "slice slice_sizes must be less than or equal to operand shape, got "
        "slice_sizes (11,) for operand shape (10,).")
    assert _raises(TypeError, lambda: lax.dynamic_slice(x, (1,), (-1,))) == (
        "slice slice_sizes must be greater than or equal to zero, got slice_sizes of (-1,).")
    y = jnp.ones((3, 4))
    assert _raises(TypeError, lambda: lax.dynamic_slice(
        y, (np.int8(1), np.int32(0)), (2, 2))) == (
        "index arguments to dynamic_slice must be integers of the same type, got: "
        "int8, int32")


@pytest.mark.spec("IDX-11")
def test_dynamic_update_slice_errors(jax, jnp):
    lax = jax.lax
    x = jnp.arange(10.0)
    assert _raises(TypeError, lambda: lax.dynamic_update_slice(
        x, jnp.ones(2, "int32"), (1,))) == (
        "lax.dynamic_update_slice requires arguments to have the same dtypes, got "
        "float32, int32.")
    assert _raises(TypeError, lambda: lax.dynamic_update_slice(x, jnp.ones((2, 2)), (1,))) == (
        "dynamic_update_slice update must have the same rank as operand, got update "
        "shape (2, 2) for operand shape (10,).")
    assert _raises(TypeError, lambda: lax.dynamic_update_slice(x, jnp.ones(11), (1,))) == (
        "dynamic_update_slice update shape must be smaller than operand shape, got "
        "update shape (11,) for operand shape (10,).")
    assert _raises(TypeError, lambda: lax.dynamic_update_slice(x, jnp.ones(2), (1.0,))) == (
        "index arguments to dynamic_update_slice must be integers of the same type, "
        "got float32")
    _raises(ValueError, lambda: lax.dynamic_update_slice(x, jnp.ones(2), (1, 2)))


# ---------------------------------------------------------------------------
# IDX-12: gather, in bounds
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-12")
def test_gather_rows_and_elements(jax, jnp):
    lax = jax.lax
    host = np.arange(20, dtype=np.float32).reshape(4, 5)
    x = jnp.asarray(host)
    idx = np.array([[2], [0], [2]], np.int32)
    rows = lax.gather(x, idx, _gdn(lax, offset=(1,)), (1, 5))
    np.testing.assert_array_equal(rows, host[[2, 0, 2]])
    pairs = np.array([[1, 4], [3, 0]], np.int32)
    elems = lax.gather(x, pairs, _gdn(lax, collapsed=(0, 1), start_map=(0, 1)), (1, 1))
    np.testing.assert_array_equal(elems, host[pairs[:, 0], pairs[:, 1]])
    assert elems.dtype == np.float32


@pytest.mark.spec("IDX-12")
def test_gather_windows_with_offset_dims_in_the_middle(jax, jnp):
    lax = jax.lax
    host = np.arange(20, dtype=np.int32).reshape(4, 5)
    idx = np.array([[[1, 1], [3, 2]], [[0, 0], [2, 2]]], np.int32)
    dn = _gdn(lax, offset=(1,), collapsed=(0,), start_map=(0, 1))
    got = lax.gather(jnp.asarray(host), idx, dn, (1, 3))
    want = ref_gather(host, idx, (1,), (0,), (0, 1), (1, 3))
    assert got.shape == (2, 3, 2)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        jax.jit(lambda a, i: lax.gather(a, i, dn, (1, 3)))(jnp.asarray(host), idx), want)


@pytest.mark.spec("IDX-12")
def test_gather_batching_dims(jax, jnp):
    lax = jax.lax
    host = np.arange(12, dtype=np.int32).reshape(3, 4)
    dn = _gdn(lax, offset=(), collapsed=(1,), start_map=(1,), operand_batching_dims=(0,),
              start_indices_batching_dims=(0,))
    got = lax.gather(jnp.asarray(host), np.array([[1], [3], [0]], np.int32), dn, (1, 1))
    np.testing.assert_array_equal(got, [1, 7, 8])


@pytest.mark.spec("IDX-12")
def test_index_take(jax, jnp):
    host = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = jax.lax.index_take(jnp.asarray(host), (jnp.array([0, 2, -1]), jnp.array([1, 1, 5])),
                             (0, 1))
    np.testing.assert_array_equal(got, [1, 9, 9])


@pytest.mark.spec("IDX-12")
def test_gather_errors(jax, jnp):
    lax = jax.lax
    x = jnp.arange(10.0)
    assert _raises(ValueError, lambda: lax.gather(
        x, jnp.array([[1.0]]), _gdn(lax), (1,))) == "indices must have an integer type"
    assert _raises(TypeError, lambda: lax.gather(x, jnp.array([[1]]), _gdn(lax), (1, 3))) == (
        "Gather op must have one slice size for every input dimension; got: "
        "len(slice_sizes)=2, input_shape.rank=1")
    assert _raises(TypeError, lambda: lax.gather(
        x, jnp.array([[1]]), _gdn(lax, offset=(1,), collapsed=()), (11,))) == (
        "Slice size at index 0 in gather op is out of range, must be within [0, 10 + 1), got 11.")
    assert _raises(TypeError, lambda: lax.gather(
        x, jnp.array([1]), _gdn(lax, offset=(1,), collapsed=()), (2,))) == (
        "Offset dimension 0 in gather op is out of bounds; got 1, but should have been "
        "in [0, 1)")
    assert _raises(TypeError, lambda: lax.gather(
        x, jnp.array([[1, 2]]), _gdn(lax, offset=(1,), collapsed=()), (2,))) == (
        "Gather op has 1 elements in start_index_map and the bound of dimension "
        "index_vector_dim=1 of indices is 2. These two numbers must be equal.")
    assert _raises(TypeError, lambda: lax.gather(x, jnp.array([[1]]), _gdn(lax), (2,))) == (
        "Gather op can only collapse slice dims with bound 1, but bound is 2 for index 0 "
        "at position 0.")


# ---------------------------------------------------------------------------
# IDX-13 / IDX-14: gather out of bounds
# ---------------------------------------------------------------------------

OOB = np.array([[9], [8], [-1]], np.int32)


@pytest.mark.spec("IDX-13")
@pytest.mark.parametrize("mode", [None, "clip", "promise_in_bounds"])
def test_gather_clamps_whole_windows(jax, jnp, mode):
    lax = jax.lax
    dn = _gdn(lax, offset=(1,), collapsed=())
    want = [[8.0, 9.0], [8.0, 9.0], [0.0, 1.0]]
    got = lax.gather(jnp.arange(10.0), OOB, dn, (2,), mode=mode)
    np.testing.assert_array_equal(got, want)
    f = jax.jit(lambda a, i: lax.gather(a, i, dn, (2,), mode=mode))
    np.testing.assert_array_equal(f(jnp.arange(10.0), OOB), want)


@pytest.mark.spec("IDX-14")
@pytest.mark.parametrize("dtype,fill", [("float32", np.nan), ("int32", -2147483648),
                                        ("uint8", 255), ("int8", -128)])
def test_gather_fill_defaults(jax, jnp, dtype, fill):
    lax = jax.lax
    dn = _gdn(lax, offset=(1,), collapsed=())
    x = jnp.arange(10).astype(dtype)
    want = np.array([[fill, fill], [8, 9], [fill, fill]], dtype)
    for fn in (lambda a, i: lax.gather(a, i, dn, (2,), mode="fill"),
               jax.jit(lambda a, i: lax.gather(a, i, dn, (2,), mode="fill"))):
        got = fn(x, OOB)
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, want)


@pytest.mark.spec("IDX-14")
def test_gather_fill_bool_and_explicit_value(jax, jnp):
    lax = jax.lax
    dn = _gdn(lax)
    b = lax.gather(jnp.zeros(3, bool), np.array([[5], [1]], np.int32), dn, (1,), mode="fill")
    assert b.tolist() == [True, False]
    got = lax.gather(jnp.arange(10.0), OOB, _gdn(lax, offset=(1,), collapsed=()), (2,),
                     mode="drop", fill_value=7)
    np.testing.assert_array_equal(got, [[7.0, 7.0], [8.0, 9.0], [7.0, 7.0]])
    # Explicit fills are cast like NumPy's astype: 300 wraps to 44 in uint8.
    u = lax.gather(jnp.arange(3, dtype="uint8"), np.array([[5], [1]], np.int32), dn, (1,),
                   mode="fill", fill_value=300)
    assert u.tolist() == [44, 1]


# ---------------------------------------------------------------------------
# IDX-15: scatter shape rule
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-15")
def test_scatter_errors(jax, jnp):
    lax = jax.lax
    x = jnp.arange(5.0)
    i = jnp.array([[2]])
    assert _raises(TypeError, lambda: lax.scatter_add(
        x, i, jnp.ones(1, "int32"), _sdn(lax))) == (
        "lax.scatter requires arguments to have the same dtypes, got float32, int32.")
    assert _raises(ValueError, lambda: lax.scatter(
        x, jnp.array([[2.0]]), jnp.ones(1), _sdn(lax))) == "indices must have an integer type"
    assert _raises(TypeError, lambda: lax.scatter(x, i, jnp.ones((1, 1)), _sdn(lax))) == (
        "Updates tensor must be of rank 1; got 2.")
    assert _raises(TypeError, lambda: lax.scatter(
        x, i, jnp.ones(1), _sdn(lax, inserted=()))) == (
        "Scatter op has window of size 0; doesn't match operand of rank 1.")
    assert _raises(TypeError, lambda: lax.scatter(
        x, i, jnp.ones(1), _sdn(lax, to_operand=(1,)))) == (
        "Invalid scatter_dims_to_operand_dims mapping; domain is [0, 1), got: 0->1.")
    assert _raises(TypeError, lambda: lax.scatter(
        x, i, jnp.ones((1, 6)), _sdn(lax, window=(1,), inserted=()))) == (
        "Bounds of the window dimensions of updates must not exceed the bounds of the "
        "corresponding dimensions of operand. For dimension 1, updates bound is 6, "
        "operand bound is 5.")
    assert _raises(TypeError, lambda: lax.scatter(
        x, jnp.array([[1], [2], [3]]), jnp.ones((3, 2)), _sdn(lax, window=(0,), inserted=()))) == (
        "Bounds of the scatter dimensions of updates must be the same as the bounds of "
        "the corresponding dimensions of scatter indices. For scatter dimension 1, "
        "updates bound is 2, indices bound is 3.")


# ---------------------------------------------------------------------------
# IDX-16: scatter out of bounds
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-16")
@pytest.mark.parametrize("mode,want", [
    (None, [0, 1, 2, 3, 4, 5, 6, 7, 9, 10]),
    ("drop", [0, 1, 2, 3, 4, 5, 6, 7, 9, 10]),
    ("promise_in_bounds", [0, 1, 2, 3, 4, 5, 6, 7, 9, 10]),
    ("clip", [1, 2, 2, 3, 4, 5, 6, 7, 10, 11]),
])
def test_scatter_drops_or_clamps_whole_windows(jax, jnp, mode, want):
    lax = jax.lax
    dn = _sdn(lax, window=(1,), inserted=())
    x = jnp.arange(10.0)
    got = lax.scatter_add(x, OOB, jnp.ones((3, 2)), dn, mode=mode)
    np.testing.assert_array_equal(got, want)
    f = jax.jit(lambda a, i, u: lax.scatter_add(a, i, u, dn, mode=mode))
    np.testing.assert_array_equal(f(x, OOB, jnp.ones((3, 2))), want)
    assert x.tolist() == list(range(10))


@pytest.mark.spec("IDX-16")
def test_scatter_set_out_of_bounds(jax, jnp):
    lax = jax.lax
    dn = _sdn(lax)
    got = lax.scatter(jnp.zeros(5), np.array([[1], [7], [-1]], np.int32),
                      jnp.array([1.0, 2.0, 3.0]), dn)
    assert got.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0]
    got = lax.scatter(jnp.zeros(5), np.array([[1], [7], [-1]], np.int32),
                      jnp.array([1.0, 2.0, 3.0]), dn, mode="clip")
    assert got.tolist() == [3.0, 1.0, 0.0, 0.0, 2.0]


# ---------------------------------------------------------------------------
# IDX-17: combining updates
# ---------------------------------------------------------------------------

DUPS = np.array([[1], [3], [1], [1]], np.int32)


@pytest.mark.spec("IDX-17")
@pytest.mark.parametrize("name,ufunc", [("scatter_add", np.add), ("scatter_sub", np.subtract),
                                        ("scatter_mul", np.multiply),
                                        ("scatter_min", np.minimum),
                                        ("scatter_max", np.maximum)])
def test_duplicates_accumulate(jax, jnp, name, ufunc):
    host = np.array([5, 6, 7, 8, 9], np.int32)
    upd = np.array([2, -3, 4, 10], np.int32)
    want = host.copy()
    ufunc.at(want, DUPS[:, 0], upd)
    op = getattr(jax.lax, name)
    x = jnp.asarray(host)
    np.testing.assert_array_equal(op(x, DUPS, upd, _sdn(jax.lax)), want)
    np.testing.assert_array_equal(
        jax.jit(lambda a, i, u: op(a, i, u, _sdn(jax.lax)))(x, DUPS, upd), want)
    np.testing.assert_array_equal(x, host)


@pytest.mark.spec("IDX-17")
def test_scatter_duplicates_write_one_of_the_updates(jax, jnp):
    got = jax.lax.scatter(jnp.zeros(5), DUPS, jnp.array([1.0, 2.0, 3.0, 4.0]), _sdn(jax.lax))
    assert got.tolist()[3] == 2.0
    assert got.tolist()[1] in (1.0, 3.0, 4.0)


@pytest.mark.spec("IDX-17")
def test_scatter_apply_once_per_occurrence(jax, jnp):
    got = jax.lax.scatter_apply(jnp.arange(10.0), np.array([[1], [1], [12]], np.int32),
                                lambda v: v * 2, _sdn(jax.lax), update_shape=(3,))
    np.testing.assert_array_equal(got, [0, 4, 2, 3, 4, 5, 6, 7, 8, 9])


@pytest.mark.spec("IDX-17")
def test_scatter_apply_cannot_close_over_tracers(jax, jnp):
    f = jax.jit(lambda x, u: jax.lax.scatter_apply(
        x, np.array([[1]], np.int32), lambda v: v + u, _sdn(jax.lax), update_shape=(1,)))
    msg = _raises(NotImplementedError, lambda: f(jnp.arange(3.0), 2.0))
    assert msg.startswith("Reduction computations can't close over Tracers.")


@pytest.mark.spec("IDX-17")
def test_scatter_reduction_dtype_errors_come_from_the_operation(jax, jnp):
    msg = _raises(TypeError, lambda: jax.lax.scatter_add(
        jnp.zeros(3, bool), np.array([[1]], np.int32), jnp.ones(1, bool), _sdn(jax.lax)))
    assert msg.startswith("add does not accept dtype bool")
    got = jax.lax.scatter_max(jnp.zeros(3, bool), np.array([[1]], np.int32),
                              jnp.ones(1, bool), _sdn(jax.lax))
    assert got.tolist() == [False, True, False]


# ---------------------------------------------------------------------------
# IDX-18: printed jaxprs
# ---------------------------------------------------------------------------

_SDN_TEXT = ("ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), "
             "scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), "
             "scatter_indices_batching_dims=())")
_GDN_TEXT = ("GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), "
             "start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())")


@pytest.mark.spec("IDX-18")
def test_gather_jaxpr(jax, jnp):
    lax = jax.lax
    idx = jnp.zeros((3, 1), "int32")
    got = jax.make_jaxpr(lambda a, i: lax.gather(a, i, _gdn(lax), (1,)))(jnp.ones(10), idx)
    assert str(got) == (
        "{ lambda ; a:f32[10] b:i32[3,1]. let\n    c:f32[3] = gather[\n"
        f"      dimension_numbers={_GDN_TEXT}\n      fill_value=None\n"
        "      indices_are_sorted=False\n      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n"
        "      slice_sizes=(1,)\n      unique_indices=False\n    ] a b\n  in (c,) }")
    got = jax.make_jaxpr(lambda a, i: lax.gather(a, i, _gdn(lax), (1,), mode="fill"))(
        jnp.ones(10, "int32"), idx)
    assert str(got) == (
        "{ lambda ; a:i32[10] b:i32[3,1]. let\n    c:i32[3] = gather[\n"
        f"      dimension_numbers={_GDN_TEXT}\n      fill_value=-2147483648\n"
        "      indices_are_sorted=False\n      mode=GatherScatterMode.FILL_OR_DROP\n"
        "      slice_sizes=(1,)\n      unique_indices=False\n    ] a b\n  in (c,) }")


@pytest.mark.spec("IDX-18")
def test_scatter_jaxprs(jax, jnp):
    lax = jax.lax
    idx = jnp.zeros((3, 1), "int32")
    got = jax.make_jaxpr(lambda a, i, u: lax.scatter_add(a, i, u, _sdn(lax)))(
        jnp.ones(10), idx, jnp.ones(3))
    assert str(got) == (
        "{ lambda ; a:f32[10] b:i32[3,1] c:f32[3]. let\n    d:f32[10] = scatter-add[\n"
        f"      dimension_numbers={_SDN_TEXT}\n      indices_are_sorted=False\n"
        "      mode=GatherScatterMode.FILL_OR_DROP\n      unique_indices=False\n"
        "      update_consts=()\n"
        "      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = add e f in (g,) }\n"
        "    ] a b c\n  in (d,) }")
    got = jax.make_jaxpr(lambda a, i, u: lax.scatter(a, i, u, _sdn(lax), mode="clip"))(
        jnp.ones(10), idx, jnp.ones(3))
    assert str(got) == (
        "{ lambda ; a:f32[10] b:i32[3,1] c:f32[3]. let\n    d:f32[10] = scatter[\n"
        f"      dimension_numbers={_SDN_TEXT}\n      indices_are_sorted=False\n"
        "      mode=GatherScatterMode.CLIP\n      unique_indices=False\n"
        "      update_consts=()\n      update_jaxpr=None\n    ] a b c\n  in (d,) }")


@pytest.mark.spec("IDX-18")
def test_scatter_update_jaxpr_is_shared(jax, jnp):
    lax = jax.lax
    f = lambda a, i, u: lax.scatter_max(lax.scatter_max(a, i, u, _sdn(lax)), i, u, _sdn(lax))
    got = jax.make_jaxpr(f)(jnp.ones(4, "int32"), jnp.zeros((3, 1), "int32"),
                            jnp.ones(3, "int32"))
    eqn = lambda out, a: (
        f"    {out}:i32[4] = scatter-max[\n      dimension_numbers={_SDN_TEXT}\n"
        "      indices_are_sorted=False\n      mode=GatherScatterMode.FILL_OR_DROP\n"
        "      unique_indices=False\n      update_consts=()\n      update_jaxpr=jaxpr\n"
        f"    ] {a} e f\n")
    assert str(got) == (
        "let jaxpr = { lambda ; a:i32[] b:i32[]. let c:i32[] = max a b in (c,) } in\n"
        "{ lambda ; d:i32[4] e:i32[3,1] f:i32[3]. let\n"
        + eqn("g", "d") + eqn("h", "g") + "  in (h,) }")


# ---------------------------------------------------------------------------
# IDX-19: weak types
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-19")
def test_weak_types(jax, jnp):
    lax = jax.lax
    weak = lax.broadcast(2.0, (10,))
    assert weak.weak_type
    idx = np.array([[1]], np.int32)
    assert lax.gather(weak, idx, _gdn(lax), (1,)).weak_type
    assert lax.scatter_add(weak, idx, jnp.ones(1), _sdn(lax)).weak_type
    assert not lax.scatter_add(jnp.ones(10), idx, lax.broadcast(2.0, (1,)), _sdn(lax)).weak_type
    assert lax.dynamic_slice(weak, (1,), (2,)).weak_type
    assert not lax.dynamic_update_slice(weak, lax.broadcast(1.0, (2,)), (1,)).weak_type


# ---------------------------------------------------------------------------
# Properties: random gathers and scatters against the NumPy references
# ---------------------------------------------------------------------------

@st.composite
def gather_cases(draw):
    """A random operand, window, dimension numbers and (often out-of-bounds)
    indices; the scatter cases reuse them with the roles swapped."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    rank = len(shape)
    start_map = tuple(draw(st.permutations(range(rank)))[:draw(st.integers(1, rank))])
    sizes = tuple(draw(st.integers(0, n)) for n in shape)
    collapsed = tuple(d for d in range(rank) if sizes[d] == 1 and draw(st.booleans()))
    batch = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    kept = rank - len(collapsed)
    out_rank = kept + len(batch)
    offset = tuple(sorted(draw(st.permutations(range(out_rank)))[:kept]))
    n_idx = int(np.prod(batch, dtype=np.int64)) * len(start_map)
    flat = draw(st.lists(st.integers(-3, 6), min_size=n_idx, max_size=n_idx))
    idx = np.array(flat, np.int32).reshape(batch + (len(start_map),))
    operand = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape) - 5
    return operand, idx, offset, collapsed, start_map, sizes


@pytest.mark.spec("IDX-13")
@pytest.mark.spec("IDX-14")
@HYP
@given(case=gather_cases(), mode=st.sampled_from(["clip", "fill", "promise_in_bounds"]))
def test_random_gathers_match_numpy(jax, jnp, case, mode):
    lax = jax.lax
    operand, idx, offset, collapsed, start_map, sizes = case
    dn = lax.GatherDimensionNumbers(offset, collapsed, start_map)
    fill = -99 if mode == "fill" else None
    want = ref_gather(operand, idx, offset, collapsed, start_map, sizes, fill)
    fn = lambda a, i: lax.gather(a, i, dn, sizes, mode=mode, fill_value=fill)
    for got in (fn(jnp.asarray(operand), idx), jax.jit(fn)(jnp.asarray(operand), idx)):
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


_COMBINE = {"scatter_add": np.add, "scatter_mul": np.multiply,
            "scatter_min": np.minimum, "scatter_max": np.maximum,
            "scatter": lambda old, new: new}


@pytest.mark.spec("IDX-16")
@pytest.mark.spec("IDX-17")
@HYP
@given(case=gather_cases(), mode=st.sampled_from(["clip", "drop", "promise_in_bounds"]),
       name=st.sampled_from(sorted(_COMBINE)))
def test_random_scatters_match_numpy(jax, jnp, case, mode, name):
    lax = jax.lax
    operand, idx, offset, collapsed, start_map, sizes = case
    dn = lax.ScatterDimensionNumbers(offset, collapsed, start_map)
    kept = [sizes[d] for d in range(operand.ndim) if d not in collapsed]
    _, upd_shape = _layout(offset, idx.shape[:-1], kept)
    upd = (np.arange(int(np.prod(upd_shape)), dtype=np.int32).reshape(upd_shape) % 7) - 3
    want, count = ref_scatter(operand, idx, upd, offset, collapsed, start_map,
                              _COMBINE[name], clip=(mode == "clip"))
    op = getattr(lax, name)
    fn = lambda a, i, u: op(a, i, u, dn, mode=mode)
    x = jnp.asarray(operand)
    for got in (fn(x, idx, upd), jax.jit(fn)(x, idx, upd)):
        written_once = count <= 1 if name == "scatter" else np.ones(count.shape, bool)
        # With plain scatter, which duplicate wins is unspecified.
        np.testing.assert_array_equal(np.asarray(got)[written_once], want[written_once])
    np.testing.assert_array_equal(x, operand)
