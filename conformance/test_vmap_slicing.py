"""vmap of dynamic slices, gather, scatter and NumPy indexing
(SPEC VMAP-50 .. VMAP-56).

Every case checks that ``vmap(f)`` equals stacking ``f`` applied to each
example, with out-of-bounds indices among the examples so that clamping,
filling and dropping are pinned per example, and that the batched program
is the same for a batch of 2 as for a batch of 64 (no unrolling).
"""
import numpy as np
import pytest

B = 4  # the batch size of every value check

# Per-example values, stacked along a leading batch axis of size B.
X = np.arange(B * 5 * 4, dtype=np.float32).reshape(B, 5, 4) / 8 - 3
# Index vectors (row, column) of a (5, 4) operand; the second of each example
# is out of bounds (clamped by CLIP, filled / dropped by FILL_OR_DROP).
# The rows of one example differ even after clamping, so windows never
# overlap and overwriting scatters have one winner per position.
IDX = np.array([[[0, 0], [7, 1], [2, 1], [3, 0]],
                [[3, 1], [-2, 0], [1, 0], [4, 1]],
                [[4, 1], [2, 3], [0, 1], [1, 0]],
                [[1, 0], [5, 9], [3, 1], [2, 1]]], np.int32)
# The same shape, every window in bounds (for PROMISE_IN_BOUNDS).
IDX_IN = np.array([[[0, 0], [3, 1], [2, 1], [4, 0]],
                   [[3, 1], [1, 0], [0, 1], [4, 1]],
                   [[4, 1], [2, 0], [0, 0], [1, 1]],
                   [[1, 0], [0, 1], [3, 1], [2, 0]]], np.int32)
# One (4, 3) update block per example.
UPD = np.arange(B * 4 * 3, dtype=np.float32).reshape(B, 4, 3) / 4 + 0.5
# Scalar starts per example: in bounds, past the end, negative (wrapped),
# far negative (wrapped, then clamped to 0).
STARTS_I = np.array([1, 9, -1, -9], np.int32)
STARTS_J = np.array([2, -3, 7, 0], np.int32)
# Integer-array indices into an axis of size 5 (negatives wrap).
TAKE = np.array([[0, 4, 2], [1, -1, 3], [4, 4, 0], [2, 0, -5]], np.int32)

MODES = ["clip", "fill", "promise_in_bounds"]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def _batched(value, axis):
    """A stacked value (batch on axis 0) with its batch axis moved to ``axis``
    (None: the first example, unbatched)."""
    if axis is None:
        return value[0]
    return np.moveaxis(value, 0, axis)


def _example(value, axis, b):
    return value if axis is None else np.take(value, b, axis=axis)


def _per_example(f, in_axes, args):
    """``f`` applied to each example and stacked along axis 0."""
    size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = [np.asarray(f(*(_example(a, ax, b) for a, ax in zip(args, in_axes))))
            for b in range(size)]
    return np.stack(outs)


def _resized(value, axis, size):
    """``value`` with ``size`` examples along ``axis`` (cycling)."""
    if axis is None:
        return value
    return np.take(value, np.arange(size) % value.shape[axis], axis=axis)


def _primitives(jaxpr):
    """The primitive names of a jaxpr's equations, inner jaxprs included."""
    names = []
    for eqn in jaxpr.eqns:
        names.append(eqn.primitive.name)
        for p in eqn.params.values():
            inner = getattr(p, "jaxpr", p)
            if hasattr(inner, "eqns"):
                names.extend(_primitives(inner))
    return names


def check_vmap(jax, f, in_axes, *args, rtol=0):
    """vmap equals stacked examples; one program for 2 and for 64 examples."""
    got = np.asarray(jax.vmap(f, in_axes=in_axes)(*args))
    np.testing.assert_allclose(got, _per_example(f, in_axes, args), rtol=rtol)
    programs = []
    for size in (2, 64):
        resized = [_resized(a, ax, size) for a, ax in zip(args, in_axes)]
        jaxpr = jax.make_jaxpr(jax.vmap(f, in_axes=in_axes))(*resized).jaxpr
        programs.append(_primitives(jaxpr))
    assert programs[0] == programs[1]
    return got


def _gdn(lax):
    """Row/column starts, a window of 3 columns, the row axis collapsed."""
    return lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                      start_index_map=(0, 1))


def _sdn(lax):
    return lax.ScatterDimensionNumbers(update_window_dims=(1,),
                                       inserted_window_dims=(0,),
                                       scatter_dims_to_operand_dims=(0, 1))


def _indices_for(mode):
    return IDX_IN if mode == "promise_in_bounds" else IDX


# ---------------------------------------------------------------------------
# gather (SPEC VMAP-50)
# ---------------------------------------------------------------------------

GATHER_AXES = [(0, None), (None, 0), (0, 0), (2, 1)]


@pytest.mark.spec("VMAP-50")
@pytest.mark.parametrize("in_axes", GATHER_AXES)
@pytest.mark.parametrize("mode", MODES)
def test_gather(jax, mode, in_axes):
    lax = jax.lax
    idx = _indices_for(mode)

    def f(x, i):
        return lax.gather(x, i, _gdn(lax), (1, 3), mode=mode)

    check_vmap(jax, f, in_axes, _batched(X, in_axes[0]), _batched(idx, in_axes[1]))


@pytest.mark.spec("VMAP-54")
@pytest.mark.spec("VMAP-50")
@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (1, 2)])
def test_gather_fill_value(jax, in_axes):
    lax = jax.lax

    def f(x, i):
        return lax.gather(x, i, _gdn(lax), (1, 3), mode="fill", fill_value=-1.5)

    got = check_vmap(jax, f, in_axes, _batched(X, in_axes[0]),
                     _batched(IDX, in_axes[1]))
    # The second window of every example is out of bounds (when the
    # indices are those of each example).
    if in_axes[1] is not None:
        np.testing.assert_array_equal(got[:, 1], np.full((B, 3), -1.5))


@pytest.mark.spec("VMAP-50")
def test_gather_batched_operand_values(jax):
    """A batched operand read at shared indices: example b's windows come
    from example b's operand, clamped as CLIP says."""
    lax = jax.lax
    idx = IDX[0]
    got = jax.vmap(lambda x: lax.gather(x, idx, _gdn(lax), (1, 3), mode="clip"))(X)
    rows = np.clip(idx[:, 0], 0, 4)
    cols = np.clip(idx[:, 1], 0, 1)
    want = np.stack([np.stack([X[b, r, c:c + 3] for r, c in zip(rows, cols)])
                     for b in range(B)])
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.spec("VMAP-50")
def test_gather_jaxpr_pairs_batch_axes(jax):
    """Operand and indices both batched: one gather whose operand and index
    batch axes are paired as batching dims."""
    lax = jax.lax
    f = jax.vmap(lambda x, i: lax.gather(x, i, _gdn(lax), (1, 3), mode="clip"))
    eqns = jax.make_jaxpr(f)(X, IDX).jaxpr.eqns
    assert [e.primitive.name for e in eqns] == ["gather"]
    dn = eqns[0].params["dimension_numbers"]
    assert tuple(dn.operand_batching_dims) == (0,)
    assert tuple(dn.start_indices_batching_dims) == (0,)
    assert tuple(eqns[0].params["slice_sizes"]) == (1, 1, 3)


# ---------------------------------------------------------------------------
# scatter and its reductions (SPEC VMAP-51)
# ---------------------------------------------------------------------------

SCATTERS = ["scatter", "scatter_add", "scatter_sub", "scatter_mul", "scatter_min",
            "scatter_max"]


def _scatter_fn(lax, name, mode):
    op = getattr(lax, name)

    def f(x, i, u):
        return op(x, i, u, _sdn(lax), mode=mode)
    return f


SCATTER_CASES = ([(mode, in_axes) for mode in MODES
                  for in_axes in [(0, None, 0), (1, 1, 2)]]
                 + [("clip", (None, 0, None))])


@pytest.mark.spec("VMAP-51")
@pytest.mark.parametrize("mode,in_axes", SCATTER_CASES)
@pytest.mark.parametrize("name", SCATTERS)
def test_scatter(jax, name, mode, in_axes):
    f = _scatter_fn(jax.lax, name, mode)
    args = [_batched(v, ax) for v, ax in
            zip((X, _indices_for(mode), UPD), in_axes)]
    check_vmap(jax, f, in_axes, *args, rtol=1e-6)


@pytest.mark.spec("VMAP-51")
@pytest.mark.parametrize("in_axes", [(0, None, None), (None, None, 0), (None, 0, 0),
                                     (0, 0, None), (2, None, 1)])
@pytest.mark.parametrize("mode", ["clip", "drop"])
def test_scatter_add_in_axes(jax, mode, in_axes):
    f = _scatter_fn(jax.lax, "scatter_add", mode)
    args = [_batched(v, ax) for v, ax in zip((X, IDX, UPD), in_axes)]
    check_vmap(jax, f, in_axes, *args, rtol=1e-6)


@pytest.mark.spec("VMAP-54")
@pytest.mark.spec("VMAP-51")
def test_scatter_add_drops_per_example(jax):
    """FILL_OR_DROP under vmap drops exactly the windows each example would
    drop: the second window of each, nothing clamped into row 4 of
    example 0."""
    lax = jax.lax
    zeros = np.zeros((B, 5, 4), np.float32)
    ones = np.ones((B, 4, 3), np.float32)
    got = np.asarray(jax.vmap(_scatter_fn(lax, "scatter_add", "drop"))(zeros, IDX, ones))
    assert got.sum(axis=(1, 2)).tolist() == [9.0] * B
    assert got[0, 4].tolist() == [0.0] * 4


# ---------------------------------------------------------------------------
# dynamic_slice and dynamic_update_slice (SPEC VMAP-52, VMAP-53)
# ---------------------------------------------------------------------------

DS_AXES = [(0, None, None), (None, 0, None), (None, None, 0), (0, 0, None),
           (2, 0, 0)]


@pytest.mark.spec("VMAP-52")
@pytest.mark.parametrize("in_axes", DS_AXES)
def test_dynamic_slice(jax, in_axes):
    lax = jax.lax

    def f(x, i, j):
        return lax.dynamic_slice(x, (i, j), (2, 3))

    args = [_batched(v, ax) for v, ax in zip((X, STARTS_I, STARTS_J), in_axes)]
    check_vmap(jax, f, in_axes, *args)


@pytest.mark.spec("VMAP-54")
@pytest.mark.spec("VMAP-52")
def test_dynamic_slice_clamps_each_example(jax):
    lax = jax.lax
    got = jax.vmap(lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 3)))(
        X, STARTS_I, STARTS_J)
    # starts (1, 2) (9, -3) (-1, 7) (-9, 0) -> wrapped and clamped:
    rows, cols = [1, 3, 3, 0], [1, 1, 1, 0]
    want = np.stack([X[b, r:r + 2, c:c + 3] for b, (r, c) in enumerate(zip(rows, cols))])
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.spec("VMAP-52")
@pytest.mark.spec("VMAP-54")
def test_dynamic_slice_unsigned_starts(jax):
    """Unsigned starts are not wrapped; 200 is clamped to the last window."""
    lax = jax.lax
    starts = np.array([0, 2, 200, 3], np.uint8)
    got = check_vmap(jax, lambda x, i: lax.dynamic_slice(x, (i, i), (2, 3)), (0, 0),
                     X, starts)
    np.testing.assert_array_equal(got[2], X[2, 3:, 1:])


@pytest.mark.spec("VMAP-52")
def test_dynamic_slice_batched_starts_is_a_gather(jax):
    lax = jax.lax
    jaxpr = jax.make_jaxpr(jax.vmap(
        lambda i: lax.dynamic_slice(X[0], (i, 0), (2, 3))))(STARTS_I)
    gathers = [e for e in jaxpr.jaxpr.eqns if e.primitive.name == "gather"]
    assert len(gathers) == 1
    assert gathers[0].params["mode"] == lax.GatherScatterMode.CLIP


DUS_AXES = [(0, None, None, None), (None, 0, None, None), (None, None, 0, None),
            (0, 0, None, None), (None, None, 0, 0), (1, 2, None, 0)]


@pytest.mark.spec("VMAP-53")
@pytest.mark.parametrize("in_axes", DUS_AXES)
def test_dynamic_update_slice(jax, in_axes):
    lax = jax.lax
    upd = UPD[:, :2, :]

    def f(x, u, i, j):
        return lax.dynamic_update_slice(x, u, (i, j))

    args = [_batched(v, ax) for v, ax in zip((X, upd, STARTS_I, STARTS_J), in_axes)]
    check_vmap(jax, f, in_axes, *args)


@pytest.mark.spec("VMAP-53")
def test_dynamic_update_slice_batched_starts_is_a_scatter(jax):
    lax = jax.lax
    jaxpr = jax.make_jaxpr(jax.vmap(
        lambda x, i: lax.dynamic_update_slice(x, UPD[0, :2], (i, 1))))(X, STARTS_I)
    scatters = [e for e in jaxpr.jaxpr.eqns if e.primitive.name == "scatter"]
    assert len(scatters) == 1
    assert scatters[0].params["mode"] == lax.GatherScatterMode.CLIP
    assert all(e.primitive.name != "dynamic_update_slice" for e in jaxpr.jaxpr.eqns)


@pytest.mark.spec("VMAP-53")
@pytest.mark.parametrize("in_axes", [(0, None, 0), (None, 0, 0), (0, 0, None)])
def test_in_dim_helpers(jax, in_axes):
    lax = jax.lax
    row = X[:, 0, :]

    def f(x, u, i):
        a = lax.dynamic_slice_in_dim(x, i, 2, axis=0)
        b = lax.dynamic_index_in_dim(x, i, axis=0, keepdims=False)
        c = lax.dynamic_update_index_in_dim(x, u, i, axis=0)
        return a.sum(0) + b + c.sum(0)

    args = [_batched(v, ax) for v, ax in zip((X, row, STARTS_I), in_axes)]
    check_vmap(jax, f, in_axes, *args, rtol=1e-6)


# ---------------------------------------------------------------------------
# NumPy indexing (SPEC VMAP-55)
# ---------------------------------------------------------------------------

INDEX_AXES = [(0, None), (None, 0), (0, 0), (1, 0)]


@pytest.mark.spec("VMAP-55")
@pytest.mark.parametrize("in_axes", INDEX_AXES)
def test_getitem_scalar(jax, in_axes):
    jnp = jax.numpy
    args = [_batched(X, in_axes[0]), _batched(STARTS_I, in_axes[1])]
    check_vmap(jax, lambda x, i: jnp.asarray(x)[i], in_axes, *args)
    check_vmap(jax, lambda x, i: jnp.asarray(x)[1:3, i % 4], in_axes, *args)


@pytest.mark.spec("VMAP-55")
@pytest.mark.parametrize("in_axes", INDEX_AXES)
def test_getitem_array(jax, in_axes):
    jnp = jax.numpy
    args = [_batched(X, in_axes[0]), _batched(TAKE, in_axes[1])]
    check_vmap(jax, lambda x, i: jnp.asarray(x)[i], in_axes, *args)
    check_vmap(jax, lambda x, i: jnp.asarray(x)[i, 1:], in_axes, *args)
    check_vmap(jax, lambda x, i: jnp.asarray(x)[:, i % 4], in_axes, *args)


@pytest.mark.spec("VMAP-54")
@pytest.mark.spec("VMAP-55")
def test_getitem_scalar_clamps(jax):
    """x[i] with a traced scalar: negatives wrap, the rest clamp."""
    jnp = jax.numpy
    got = jax.vmap(lambda x, i: jnp.asarray(x)[i])(X, STARTS_I)
    np.testing.assert_array_equal(np.asarray(got)[:, 0], [X[0, 1, 0], X[1, 4, 0],
                                                          X[2, 4, 0], X[3, 0, 0]])


@pytest.mark.spec("VMAP-55")
@pytest.mark.parametrize("in_axes", [(0, None, None), (None, 0, None), (None, None, 0),
                                     (0, 0, 0), (1, 0, 1)])
def test_at_set_add(jax, in_axes):
    jnp = jax.numpy
    vals = X[:, 0, :]
    args = [_batched(v, ax) for v, ax in zip((X, STARTS_I, vals), in_axes)]
    check_vmap(jax, lambda x, i, v: jnp.asarray(x).at[i].set(v), in_axes, *args)
    check_vmap(jax, lambda x, i, v: jnp.asarray(x).at[i].add(v), in_axes, *args)
    args[1] = _batched(TAKE[:, :1], in_axes[1])
    check_vmap(jax, lambda x, i, v: jnp.asarray(x).at[i].add(v), in_axes, *args)


@pytest.mark.spec("VMAP-54")
@pytest.mark.spec("VMAP-55")
@pytest.mark.parametrize("in_axes", INDEX_AXES)
def test_at_get_fill(jax, in_axes):
    jnp = jax.numpy
    idx = TAKE + 3   # 3 .. 7: some past the end of the axis of 5
    args = [_batched(X, in_axes[0]), _batched(idx, in_axes[1])]
    got = check_vmap(jax, lambda x, i: jnp.asarray(x).at[i].get(mode="fill",
                                                                fill_value=0),
                     in_axes, *args)
    past_end = idx >= 5 if in_axes[1] is not None else np.stack([idx[0] >= 5] * B)
    np.testing.assert_array_equal(got[past_end], 0)


@pytest.mark.spec("VMAP-55")
@pytest.mark.parametrize("in_axes", INDEX_AXES)
def test_take(jax, in_axes):
    jnp = jax.numpy
    args = [_batched(X, in_axes[0]), _batched(TAKE, in_axes[1])]
    check_vmap(jax, lambda x, i: jnp.take(x, i, axis=0), in_axes, *args)
    check_vmap(jax, lambda x, i: jnp.take(x, i + 2, axis=1, mode="clip"),
               in_axes, *args)


@pytest.mark.spec("VMAP-55")
@pytest.mark.parametrize("in_axes", INDEX_AXES)
def test_take_along_axis(jax, in_axes):
    jnp = jax.numpy
    idx = np.broadcast_to(TAKE[:, :, None], (B, 3, 4)) % 5
    args = [_batched(X, in_axes[0]), _batched(idx, in_axes[1])]
    check_vmap(jax, lambda x, i: jnp.take_along_axis(x, i, axis=0), in_axes, *args)


@pytest.mark.spec("VMAP-50")
@pytest.mark.spec("VMAP-51")
def test_nested_vmap(jax):
    """vmap of vmap: the outer rule widens dimension numbers that already
    carry the inner batching dims."""
    jnp = jax.numpy
    xs = X.reshape(2, 2, 5, 4)
    idx = TAKE.reshape(2, 2, 3)

    def f(x, i):
        return jnp.asarray(x)[i].sum(0) + jnp.asarray(x).at[i].mul(2.0)[1]

    got = jax.vmap(jax.vmap(f), in_axes=(1, 0))(xs, idx)
    want = np.stack([np.stack([np.asarray(f(xs[b, a], idx[a, b])) for b in range(2)])
                     for a in range(2)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


@pytest.mark.spec("VMAP-50")
@pytest.mark.spec("VMAP-52")
def test_empty_batch(jax):
    lax = jax.lax
    x = np.zeros((0, 5, 4), np.float32)
    i = np.zeros((0,), np.int32)
    assert jax.vmap(lambda x, i: x[i])(x, i).shape == (0, 4)
    assert jax.vmap(lambda x, i: x.at[i].add(1.0))(x, i).shape == (0, 5, 4)
    assert jax.vmap(lambda x, i: lax.dynamic_slice(x, (i, i), (2, 2)))(x, i).shape \
        == (0, 2, 2)


@pytest.mark.spec("VMAP-52")
@pytest.mark.spec("VMAP-53")
def test_scalar_operand(jax):
    """Dynamic slices of a rank-0 operand have no starts at all."""
    lax = jax.lax
    s = np.array([1.5, -2.0, 3.0], np.float32)
    np.testing.assert_array_equal(
        np.asarray(jax.vmap(lambda a: lax.dynamic_slice(a, (), ()))(s)), s)
    np.testing.assert_array_equal(
        np.asarray(jax.vmap(lambda a, u: lax.dynamic_update_slice(a, u, ()))(s, -s)), -s)


_DS_JAXPR = """\
{ lambda ; a:f32[4,5,4] b:i32[4]. let
    c:bool[4] = lt b 0:i32[]
    d:i32[4] = add b 5:i32[]
    e:i32[4] = select_n c b d
    f:i32[4,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e
    g:i32[4,1] = broadcast_in_dim 1:i32[]
    h:i32[4,2] = concatenate[dimension=1] f g
    i:f32[4,2,3] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(np.int64(1), np.int64(2)), \
collapsed_slice_dims=(), start_index_map=(np.int64(1), np.int64(2)), \
operand_batching_dims=(0,), start_indices_batching_dims=(0,))
      fill_value=None
      indices_are_sorted=True
      mode=GatherScatterMode.CLIP
      slice_sizes=(1, 2, 3)
      unique_indices=True
    ] a h
  in (i,) }"""


@pytest.mark.spec("VMAP-52")
def test_dynamic_slice_jaxpr_text(jax):
    """JAX's text verbatim: starts wrapped per example, stacked into index
    vectors, one CLIP gather pairing the batch axes."""
    lax = jax.lax
    jaxpr = jax.make_jaxpr(jax.vmap(lambda x, i: lax.dynamic_slice(x, (i, 1), (2, 3))))(
        X, STARTS_I)
    assert str(jaxpr) == _DS_JAXPR


_DUS_JAXPR = """\
{ lambda ; a:f32[4,5,4] b:i32[4]. let
    c:f32[4,2,3] = slice[
      limit_indices=(4, 2, 3)
      start_indices=(0, 0, 0)
      strides=None
    ] a
    d:bool[4] = lt b 0:i32[]
    e:i32[4] = add b 5:i32[]
    f:i32[4] = select_n d b e
    g:i32[4,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f
    h:i32[4,1] = broadcast_in_dim 1:i32[]
    i:i32[4,2] = concatenate[dimension=1] g h
    j:f32[4,5,4] = scatter[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(np.int64(1), \
np.int64(2)), inserted_window_dims=(), scatter_dims_to_operand_dims=(np.int64(1), \
np.int64(2)), operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
      indices_are_sorted=True
      mode=GatherScatterMode.CLIP
      unique_indices=True
      update_consts=()
      update_jaxpr=None
    ] a i c
  in (j,) }"""


@pytest.mark.spec("VMAP-53")
def test_dynamic_update_slice_jaxpr_text(jax):
    lax = jax.lax
    jaxpr = jax.make_jaxpr(jax.vmap(
        lambda x, i: lax.dynamic_update_slice(x, x[:2, :3], (i, 1))))(X, STARTS_I)
    assert str(jaxpr) == _DUS_JAXPR


_AT_ADD_JAXPR = """\
{ lambda ; a:f32[4,5,4] b:i32[4]. let
    c:f32[4,1,4] = slice[
      limit_indices=(4, 1, 4)
      start_indices=(0, 0, 0)
      strides=None
    ] a
    d:f32[4,4] = squeeze[dimensions=(1,)] c
    e:bool[4] = lt b 0:i32[]
    f:i32[4] = add b 5:i32[]
    g:i32[4] = select_n e b f
    h:i32[4,1] = broadcast_in_dim[broadcast_dimensions=(0,)] g
    i:f32[4,5,4] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(np.int64(1),), \
inserted_window_dims=(np.int64(1),), scatter_dims_to_operand_dims=(np.int64(1),), \
operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
      indices_are_sorted=True
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=True
      update_consts=()
      update_jaxpr={ lambda ; j:f32[] k:f32[]. let l:f32[] = add j k in (l,) }
    ] a h d
  in (i,) }"""


@pytest.mark.spec("VMAP-51")
@pytest.mark.spec("VMAP-55")
def test_at_add_jaxpr_text(jax):
    jnp = jax.numpy
    jaxpr = jax.make_jaxpr(jax.vmap(lambda x, i: jnp.asarray(x).at[i].add(x[0])))(
        X, STARTS_I)
    assert str(jaxpr) == _AT_ADD_JAXPR


@pytest.mark.spec("VMAP-55")
def test_batched_boolean_mask_raises(jax):
    jnp = jax.numpy
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError):
        jax.vmap(lambda x, m: jnp.asarray(x)[m])(X, X[:, :, 0] > 0)


# ---------------------------------------------------------------------------
# Derivatives through batched indexing (SPEC VMAP-56)
# ---------------------------------------------------------------------------

@pytest.mark.spec("VMAP-56")
def test_vmap_of_grad_of_gather(jax):
    """The gradient of sum(sin(x[idx])) is cos(x[idx]) added back at idx
    (duplicates add up), per example."""
    jnp = jax.numpy

    def f(x, i):
        return jnp.sum(jnp.sin(x[i]))

    got = np.asarray(jax.vmap(jax.grad(f))(X, TAKE))
    want = np.zeros_like(X)
    for b in range(B):
        np.add.at(want[b], TAKE[b] % 5, np.cos(X[b][TAKE[b] % 5]))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, _per_example(jax.grad(f), (0, 0), (X, TAKE)),
                               rtol=1e-6)


@pytest.mark.spec("VMAP-56")
def test_grad_of_vmap_of_scatter_add(jax):
    """d/d(x, u) of sum(vmap(x.at[i].add(u ** 2)) ** 2): the operand's
    cotangent is 2 * out, each update's is 2 * out at its position * 2u;
    the updates of the out-of-bounds window (dropped) get 0."""
    idx = TAKE[:, :2] + 2   # positions 2 .. 6 in an axis of 5

    def f(x, i, u):
        return x.at[i].add(u ** 2, mode="drop")

    def loss(x, u):
        return (jax.vmap(f)(x, idx, u) ** 2).sum()

    u = UPD[:, :2, :]
    u = np.concatenate([u, u[:, :, :1]], axis=2)
    gx, gu = jax.grad(loss, argnums=(0, 1))(X, u)
    out = X.copy()
    want_gu = np.zeros_like(u)
    for b, k in np.ndindex(B, 2):
        if idx[b, k] < 5:
            out[b, idx[b, k]] += u[b, k] ** 2
    for b, k in np.ndindex(B, 2):
        if idx[b, k] < 5:
            want_gu[b, k] = 2 * out[b, idx[b, k]] * 2 * u[b, k]
    np.testing.assert_allclose(np.asarray(gx), 2 * out, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(gu), want_gu, rtol=1e-5)


@pytest.mark.spec("VMAP-56")
def test_jacobians_of_indexing(jax):
    """jacfwd batches the gather of a batch of tangents, jacrev the
    transpose of the gather (a scatter-add of a batch of cotangents at
    shared indices).  With the default promise of in-bounds indices an
    out-of-bounds index (7) is clamped by the gather but dropped by the
    scatter-add, so the two Jacobians differ in its row, as in JAX."""
    lax = jax.lax
    x = X[0, 0]
    idx = np.array([1, 1, 7, -1], np.int32)
    fwd = np.zeros((4, 4), np.float32)
    fwd[[0, 1, 2, 3], [1, 1, 3, 3]] = 2.0
    rev = fwd.copy()
    rev[2] = 0.0

    def f(a):
        return jax.numpy.asarray(a)[idx] * 2

    np.testing.assert_array_equal(np.asarray(jax.jacfwd(f)(x)), fwd)
    np.testing.assert_array_equal(np.asarray(jax.jacrev(f)(x)), rev)
    dus = jax.jacrev(lambda a: lax.dynamic_update_slice(a, a[:2] * 3, (3,)))(x)
    np.testing.assert_array_equal(np.asarray(dus), [[1, 0, 0, 0], [0, 1, 0, 0],
                                                    [3, 0, 0, 0], [0, 3, 0, 0]])
