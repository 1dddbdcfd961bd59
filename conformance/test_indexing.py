"""NumPy indexing of Arrays: lowering, advanced indices, boolean masks,
out-of-bounds reads and invalid indices (SPEC IDX-3 .. IDX-9), the
jax.numpy functions built on gather and scatter: take, take_along_axis, the
size-dependent selections, index helpers and functional puts (SPEC IDX-26 ..
IDX-29), and boolean masks and traced slice starts under jit (SPEC IDX-35,
IDX-36).

Expected values come from NumPy or are literals observed from JAX 0.10.2;
expected jaxprs are the text JAX 0.10.2 prints.
"""

import numpy as np
import pytest

# ---------------------------------------------------------------------------
# Printed jaxprs (observed from JAX 0.10.2)
# ---------------------------------------------------------------------------

TRACED_SCALAR = (
    '{ lambda ; a:f32[5] b:i32[]. let\n'
    '    c:bool[] = lt b 0:i32[]\n'
    '    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
    '    e:i32[] = add d 5:i32[]\n'
    '    f:i32[] = select_n c b e\n'
    '    g:f32[1] = dynamic_slice[slice_sizes=(1,)] a f\n'
    '    h:f32[] = squeeze[dimensions=(0,)] g\n'
    '  in (h,) }'
)

SLICE = (
    '{ lambda ; a:f32[5]. let\n'
    '    b:f32[2] = slice[limit_indices=(3,) start_indices=(1,) strides=None] a\n'
    '  in (b,) }'
)

STRIDED = (
    '{ lambda ; a:f32[5]. let\n'
    '    b:f32[3] = slice[limit_indices=(5,) start_indices=(0,) strides=(2,)] a\n'
    '  in (b,) }'
)

NEWAXIS = (
    '{ lambda ; a:f32[5]. let\n'
    '    b:f32[5,1] = broadcast_in_dim[broadcast_dimensions=(0,)] a\n'
    '  in (b,) }'
)

ARRAY = (
    '{ lambda ; a:f32[5] b:i32[3]. let\n'
    '    c:bool[3] = lt b 0:i32[]\n'
    '    d:i32[3] = add b 5:i32[]\n'
    '    e:i32[3] = select_n c b d\n'
    '    f:i32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
    '    g:f32[3] = gather[\n'
    '      dimension_numbers=GatherDimensionNumbers(offset_dims=(), '
    'collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), '
    'start_indices_batching_dims=())\n'
    '      fill_value=None\n'
    '      indices_are_sorted=False\n'
    '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
    '      slice_sizes=(1,)\n'
    '      unique_indices=False\n'
    '    ] a f\n'
    '  in (g,) }'
)

NUMPY_ARRAY = (
    '{ lambda a:i32[2] b:bool[2]; c:f32[5]. let\n'
    '    d:i32[2] = add a 5:i32[]\n'
    '    e:i32[2] = select_n b a d\n'
    '    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
    '    g:f32[2] = gather[\n'
    '      dimension_numbers=GatherDimensionNumbers(offset_dims=(), '
    'collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), '
    'start_indices_batching_dims=())\n'
    '      fill_value=None\n'
    '      indices_are_sorted=False\n'
    '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
    '      slice_sizes=(1,)\n'
    '      unique_indices=False\n'
    '    ] c f\n'
    '  in (g,) }'
)

STATIC_OOB = (
    '{ lambda ; a:f32[5]. let\n'
    '    b:bool[] = lt 7:i32[] 0:i32[]\n'
    '    c:i32[] = add 7:i32[] 5:i32[]\n'
    '    d:i32[] = select_n b 7:i32[] c\n'
    '    e:f32[1] = dynamic_slice[slice_sizes=(1,)] a d\n'
    '    f:f32[] = squeeze[dimensions=(0,)] e\n'
    '  in (f,) }'
)

SCALAR_AND_STRIDED = (
    '{ lambda ; a:f32[4,6] b:i32[]. let\n'
    '    c:bool[] = lt b 0:i32[]\n'
    '    d:i32[] = add b 4:i32[]\n'
    '    e:i32[] = select_n c b d\n'
    '    f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] e\n'
    '    g:i32[3] = iota[dimension=0 dtype=int32 shape=(3,) sharding=None] \n'
    '    h:i32[3] = mul 2:i32[] g\n'
    '    i:i32[3] = add 0:i32[] h\n'
    '    j:i32[3,1] = broadcast_in_dim f\n'
    '    k:i32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] i\n'
    '    l:i32[3,2] = concatenate[dimension=1] j k\n'
    '    m:f32[3] = gather[\n'
    '      dimension_numbers=GatherDimensionNumbers(offset_dims=(), '
    'collapsed_slice_dims=(0, 1), start_index_map=(0, 1), operand_batching_dims=(), '
    'start_indices_batching_dims=())\n'
    '      fill_value=None\n'
    '      indices_are_sorted=True\n'
    '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
    '      slice_sizes=(1, 1)\n'
    '      unique_indices=True\n'
    '    ] a l\n'
    '  in (m,) }'
)

MASK = (
    '{ lambda a:i32[3] b:bool[3]; c:f32[5]. let\n'
    '    d:i32[3] = add a 5:i32[]\n'
    '    e:i32[3] = select_n b a d\n'
    '    f:i32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
    '    g:f32[3] = gather[\n'
    '      dimension_numbers=GatherDimensionNumbers(offset_dims=(), '
    'collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), '
    'start_indices_batching_dims=())\n'
    '      fill_value=None\n'
    '      indices_are_sorted=False\n'
    '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
    '      slice_sizes=(1,)\n'
    '      unique_indices=False\n'
    '    ] c f\n'
    '  in (g,) }'
)

TAKE = (
    '{ lambda ; a:f32[4,6] b:i32[3]. let\n'
    '    c:f32[3] = jit[\n'
    '      name=_take\n'
    '      jaxpr={ lambda ; a:f32[4,6] b:i32[3]. let\n'
    '          d:f32[24] = reshape[dimensions=None new_sizes=(24,) sharding=None] a\n'
    '          e:bool[3] = lt b 0:i32[]\n'
    '          f:i32[3] = add b 24:i32[]\n'
    '          g:i32[3] = jit[\n'
    '            name=_where\n'
    '            jaxpr={ lambda ; e:bool[3] f:i32[3] b:i32[3]. let\n'
    '                g:i32[3] = select_n e b f\n'
    '              in (g,) }\n'
    '          ] e f b\n'
    '          h:i32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] g\n'
    '          c:f32[3] = gather[\n'
    '            dimension_numbers=GatherDimensionNumbers(offset_dims=(), '
    'collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), '
    'start_indices_batching_dims=())\n'
    '            fill_value=nan\n'
    '            indices_are_sorted=False\n'
    '            mode=GatherScatterMode.FILL_OR_DROP\n'
    '            slice_sizes=(1,)\n'
    '            unique_indices=False\n'
    '          ] d h\n'
    '        in (c,) }\n'
    '    ] a b\n'
    '  in (c,) }'
)

TAKE_ALONG_AXIS = (
    '{ lambda ; a:f32[4,6] b:i32[4,2]. let\n'
    '    c:f32[4,2] = jit[\n'
    '      name=take_along_axis\n'
    '      jaxpr={ lambda ; a:f32[4,6] b:i32[4,2]. let\n'
    '          d:bool[4,2] = lt b 0:i32[]\n'
    '          e:i32[4,2] = add b 6:i32[]\n'
    '          f:i32[4,2] = select_n d b e\n'
    '          g:i32[4,2,1] = reshape[\n'
    '            dimensions=None\n'
    '            new_sizes=(4, 2, 1)\n'
    '            sharding=None\n'
    '          ] f\n'
    '          c:f32[4,2] = gather[\n'
    '            dimension_numbers=GatherDimensionNumbers(offset_dims=(), '
    'collapsed_slice_dims=(1,), start_index_map=(1,), operand_batching_dims=(0,), '
    'start_indices_batching_dims=(0,))\n'
    '            fill_value=nan\n'
    '            indices_are_sorted=False\n'
    '            mode=GatherScatterMode.FILL_OR_DROP\n'
    '            slice_sizes=(1, 1)\n'
    '            unique_indices=False\n'
    '          ] a g\n'
    '        in (c,) }\n'
    '    ] a b\n'
    '  in (c,) }'
)

NONZERO = (
    'let remainder = { lambda ; a:i32[3] b:i32[]. let\n'
    '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
    '    d:bool[] = eq c 0:i32[]\n'
    '    e:i32[] = jit[\n'
    '      name=_where\n'
    '      jaxpr={ lambda ; d:bool[] f:i32[] c:i32[]. let\n'
    '          e:i32[] = select_n d c f\n'
    '        in (e,) }\n'
    '    ] d 1:i32[] c\n'
    '    g:i32[3] = rem a e\n'
    '    h:bool[3] = ne g 0:i32[]\n'
    '    i:bool[3] = lt g 0:i32[]\n'
    '    j:bool[] = lt e 0:i32[]\n'
    '    k:bool[3] = ne i j\n'
    '    l:bool[3] = and k h\n'
    '    m:i32[3] = add g e\n'
    '    n:i32[3] = select_n l g m\n'
    '  in (n,) } in\n'
    '{ lambda ; o:i32[5]. let\n'
    '    p:bool[5] = ne o 0:i32[]\n'
    '    q:i32[5] = jit[\n'
    '      name=cumsum\n'
    '      jaxpr={ lambda ; p:bool[5]. let\n'
    '          r:i32[5] = convert_element_type[new_dtype=int32 weak_type=False] p\n'
    '          q:i32[5] = cumsum[axis=0 reverse=False] r\n'
    '        in (q,) }\n'
    '    ] p\n'
    '    s:i32[3] = broadcast_in_dim 0:i32[]\n'
    '    t:i32[5] = jit[\n'
    '      name=clip\n'
    '      jaxpr={ lambda ; q:i32[5] u:i32[]. let\n'
    '          v:i32[] = convert_element_type[new_dtype=int32 weak_type=False] u\n'
    '          t:i32[5] = max v q\n'
    '        in (t,) }\n'
    '    ] q 0:i32[]\n'
    '    w:bool[5] = lt t 0:i32[]\n'
    '    x:i32[5] = add t 3:i32[]\n'
    '    y:i32[5] = select_n w t x\n'
    '    z:i32[5,1] = broadcast_in_dim[broadcast_dimensions=(0,)] y\n'
    '    ba:i32[5] = broadcast_in_dim 1:i32[]\n'
    '    bb:i32[3] = scatter-add[\n'
    '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), '
    'inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), '
    'operand_batching_dims=(), scatter_indices_batching_dims=())\n'
    '      indices_are_sorted=False\n'
    '      mode=GatherScatterMode.FILL_OR_DROP\n'
    '      unique_indices=False\n'
    '      update_consts=()\n'
    '      update_jaxpr={ lambda ; bc:i32[] bd:i32[]. let\n'
    '          be:i32[] = add bc bd\n'
    '        in (be,) }\n'
    '    ] s z ba\n'
    '    bf:i32[3] = jit[\n'
    '      name=cumsum\n'
    '      jaxpr={ lambda ; bb:i32[3]. let\n'
    '          bf:i32[3] = cumsum[axis=0 reverse=False] bb\n'
    '        in (bf,) }\n'
    '    ] bb\n'
    '    bg:i32[3] = jit[\n'
    '      name=floor_divide\n'
    '      jaxpr={ lambda ; bf:i32[3] bh:i32[]. let\n'
    '          bi:i32[3] = div bf bh\n'
    '          bj:i32[3] = sign bf\n'
    '          bk:i32[] = sign bh\n'
    '          bl:bool[3] = ne bj bk\n'
    '          bm:i32[3] = rem bf bh\n'
    '          bn:bool[3] = ne bm 0:i32[]\n'
    '          bo:bool[3] = and bl bn\n'
    '          bp:i32[3] = sub bi 1:i32[]\n'
    '          bg:i32[3] = jit[\n'
    '            name=_where\n'
    '            jaxpr={ lambda ; bo:bool[3] bp:i32[3] bi:i32[3]. let\n'
    '                bg:i32[3] = select_n bo bi bp\n'
    '              in (bg,) }\n'
    '          ] bo bp bi\n'
    '        in (bg,) }\n'
    '    ] bf 1:i32[]\n'
    '    bq:i32[3] = jit[name=remainder jaxpr=remainder] bg 5:i32[]\n'
    '  in (bq,) }'
)


def _host(shape, dtype=np.int32):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


# ---------------------------------------------------------------------------
# IDX-3: lowering to slice, dynamic_slice or gather
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-3")
@pytest.mark.parametrize("fun,args,expected", [
    ("static_slice", (), SLICE),
    ("static_strided", (), STRIDED),
    ("static_newaxis", (), NEWAXIS),
    ("traced_scalar", (1,), TRACED_SCALAR),
    ("traced_array", ("idx",), ARRAY),
    ("numpy_array", (), NUMPY_ARRAY),
])
def test_getitem_jaxprs_1d(jax, jnp, fun, args, expected):
    funs = {
        "static_slice": lambda x: x[1:3],
        "static_strided": lambda x: x[::2],
        "static_newaxis": lambda x: x[:, None],
        "traced_scalar": lambda x, i: x[i],
        "traced_array": lambda x, i: x[i],
        "numpy_array": lambda x: x[np.array([0, -1])],
    }
    args = [jnp.array([0, 2, 4]) if a == "idx" else a for a in args]
    got = jax.make_jaxpr(funs[fun])(jnp.ones(5, jnp.float32), *args)
    assert str(got) == expected


@pytest.mark.spec("IDX-3")
def test_scalar_with_strided_slice_is_one_gather(jax, jnp):
    got = jax.make_jaxpr(lambda x, i: x[i, ::2])(jnp.ones((4, 6), jnp.float32), 1)
    assert str(got) == SCALAR_AND_STRIDED


MIXED = [
    ((4, 5), (np.array([0, 3, 1]),)),
    ((4, 5), (slice(None), np.array([[0], [4]]))),
    ((4, 5), (np.array([1, 2]), slice(1, 4))),
    ((4, 5), (np.array([1, 2]), slice(None, None, -2))),
    ((4, 5), (2, np.array([0, 4, 4]))),
    ((4, 5), (np.array([-1, -4]), np.array([0, -5]))),
    ((2, 3, 4), (Ellipsis, np.array([3, 0]))),
    ((2, 3, 4), (None, np.array([1]), slice(None), None)),
    ((2, 3, 4), (slice(None, None, 2), np.array([[2, 0]]), np.array([[1], [3]]))),
    ((2, 3, 4), ([1, 0], 1)),
    ((5,), (np.array([], np.int32),)),
    ((5,), (np.array([[3, 4], [0, 1]], np.int8),)),
]


@pytest.mark.spec("IDX-3")
@pytest.mark.parametrize("shape,index", MIXED)
def test_array_indices_match_numpy_eager_and_jit(jax, jnp, shape, index):
    host = _host(shape)
    want = host[index]
    got = jnp.asarray(host)[index]
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)
    # Under jit the index arrays are arguments (traced); the rest is static.
    arrays = [i for i, e in enumerate(index) if isinstance(e, np.ndarray)]

    def f(x, *traced):
        entries = list(index)
        for pos, t in zip(arrays, traced):
            entries[pos] = t
        return x[tuple(entries)]
    traced = jax.jit(f)(jnp.asarray(host), *[jnp.asarray(index[i]) for i in arrays])
    np.testing.assert_array_equal(np.asarray(traced), want)


# ---------------------------------------------------------------------------
# IDX-4: placement of advanced-index axes
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-4")
def test_advanced_index_placement(jax, jnp):
    host = _host((2, 3, 4))
    x = jnp.asarray(host)
    i01, i12 = jnp.array([0, 1]), jnp.array([1, 2])
    # Adjacent advanced indices keep their place; separated ones go first.
    assert x[:, i01, i12].shape == host[:, [0, 1], [1, 2]].shape == (2, 2)
    assert x[i01, :, i12].shape == host[[0, 1], :, [1, 2]].shape == (2, 3)
    assert x[:, 1, i12].shape == (2, 2)       # a scalar next to an array is advanced
    assert x[0, :, i12].shape == (2, 3)       # ... and separated by a slice goes first
    assert x[None, i01, None, 2].shape == (2, 1, 1, 4)
    np.testing.assert_array_equal(np.asarray(x[i01, :, i12]), host[[0, 1], :, [1, 2]])
    np.testing.assert_array_equal(np.asarray(x[0, :, i12]), host[0, :, [1, 2]])


@pytest.mark.spec("IDX-4")
def test_advanced_indices_broadcast_together(jax, jnp):
    host = _host((3, 4))
    rows, cols = np.array([[0], [2]]), np.array([1, 3, 0])
    got = jnp.asarray(host)[jnp.asarray(rows), jnp.asarray(cols)]
    np.testing.assert_array_equal(np.asarray(got), host[rows, cols])
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting: "
                                         r"shapes=\[\(2,\), \(3,\)\]"):
        jnp.asarray(host)[jnp.array([0, 1]), jnp.array([0, 1, 2])]


@pytest.mark.spec("IDX-4")
def test_gotcha_mixed_indexing_shapes(jax, jnp):
    # G-IDX-014
    x = jnp.arange(24).reshape(2, 3, 4)
    assert (x[None].shape, x[..., 0].shape, x[:, None, :, ::-1].shape) == (
        (1, 2, 3, 4), (2, 3), (2, 1, 3, 4))
    assert x[:, jnp.array([0, 2]), :].shape == (2, 2, 4)
    assert x[jnp.array([0, 1]), :, jnp.array([1, 2])].shape == (2, 3)


# ---------------------------------------------------------------------------
# IDX-5: boolean masks
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-5")
def test_concrete_boolean_masks(jax, jnp):
    host = _host((3, 4))
    x = jnp.asarray(host)
    np.testing.assert_array_equal(np.asarray(x[x > 5]), host[host > 5])
    rows = np.array([True, False, True])
    np.testing.assert_array_equal(np.asarray(x[jnp.asarray(rows), 1:]), host[rows, 1:])
    np.testing.assert_array_equal(np.asarray(x[1, [True, False, False, True]]),
                                  host[1, [True, False, False, True]])
    assert x[True].shape == (1, 3, 4) and x[False].shape == (0, 3, 4)
    assert x[jnp.array(True)].shape == (1, 3, 4)


@pytest.mark.spec("IDX-5")
def test_boolean_mask_jaxpr_uses_constant_indices(jax, jnp):
    mask = np.array([True, False, True, False, True])
    assert str(jax.make_jaxpr(lambda x: x[mask])(jnp.ones(5, jnp.float32))) == MASK


@pytest.mark.spec("IDX-5")
def test_boolean_mask_shape_mismatch(jax, jnp):
    with pytest.raises(IndexError, match=r"boolean index did not match shape of indexed "
                                         r"array in index 0: got \(2,\), expected \[3\]"):
        jnp.arange(12).reshape(3, 4)[jnp.array([True, False])]


@pytest.mark.spec("IDX-5")
def test_traced_boolean_mask_raises(jax, jnp):
    x = jnp.arange(5.0)
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError) as info:
        jax.jit(lambda x: x[x > 2])(x)
    assert str(info.value).startswith("Array boolean indices must be concrete; got bool[5]\n")
    assert isinstance(info.value, IndexError)
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError,
                       match=r"got bool\[\]"):
        jax.jit(lambda x, b: x[b])(x, True)
    # The rewrite the error's documentation recommends works under jit.
    got = jax.jit(lambda x: jnp.where(x > 2, x, 0))(x)
    assert got.tolist() == [0.0, 0.0, 0.0, 3.0, 4.0]


# ---------------------------------------------------------------------------
# IDX-6: out-of-bounds reads
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-6")
def test_out_of_bounds_integer_reads_clamp(jax, jnp):
    # G-IDX-001, G-IDX-002, G-IDX-013
    x = jnp.arange(10)
    assert repr(x[11]) == "Array(9, dtype=int32)"
    assert repr(jax.jit(lambda x, i: x[i])(x, 11)) == "Array(9, dtype=int32)"
    assert [int(x[-1]), int(x[-11]), int(x[-100])] == [9, 0, 0]
    assert int(jax.jit(lambda x, i: x[i])(x, -11)) == 0
    assert x.reshape(1, 10)[1].tolist() == list(range(10))


@pytest.mark.spec("IDX-6")
def test_out_of_bounds_static_int_is_a_dynamic_slice(jax, jnp):
    assert str(jax.make_jaxpr(lambda x: x[7])(jnp.ones(5, jnp.float32))) == STATIC_OOB


@pytest.mark.spec("IDX-6")
def test_out_of_bounds_slices_truncate_like_numpy(jax, jnp):
    # G-IDX-003
    x = jnp.arange(10)
    assert [x[5:20].tolist(), x[20:].tolist(), x[-20:2].tolist(), x[::-3].tolist()] == [
        [5, 6, 7, 8, 9], [], [0, 1], [9, 6, 3, 0]]


@pytest.mark.spec("IDX-6")
def test_out_of_bounds_coordinates_clamp_independently(jax, jnp):
    # G-IDX-005
    x = jnp.arange(12).reshape(3, 4)
    assert [int(x[5, 1]), int(x[1, 9]), int(x[7, 7])] == [9, 7, 11]
    assert x[jnp.array([0, 5])].tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]
    assert jax.jit(lambda x, i: x[i])(x, jnp.array([-9, 9])).tolist() == [
        [0, 1, 2, 3], [8, 9, 10, 11]]


# ---------------------------------------------------------------------------
# IDX-7: the kinds of index entries
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-7")
def test_index_dtypes_do_not_change_results(jax, jnp):
    # G-IDX-016
    x = jnp.arange(10) * 10
    assert x[jnp.array([1, 9], dtype=jnp.uint8)].tolist() == [10, 90]
    assert x[jnp.array([1, -1], dtype=jnp.int8)].tolist() == [10, 90]
    assert x[np.int64(3)].tolist() == 30 and x[np.uint8(3)].tolist() == 30
    assert x[jnp.int32(-2)].tolist() == 80


@pytest.mark.spec("IDX-7")
def test_sequences_inside_a_tuple_are_arrays(jax, jnp):
    host = _host((3, 4))
    x = jnp.asarray(host)
    assert x[[2, 0], ].tolist() == host[[2, 0], ].tolist()
    assert x[[2, 0], [1, 1]].tolist() == host[[2, 0], [1, 1]].tolist()
    assert x[(2, 0), 3].tolist() == host[(2, 0), 3].tolist()
    assert x[[], ].shape == (0, 4)


@pytest.mark.spec("IDX-7")
def test_concrete_array_slice_bounds(jax, jnp):
    x = jnp.arange(6)
    assert x[jnp.int32(1):jnp.int32(4)].tolist() == [1, 2, 3]
    assert x[np.int8(-2):].tolist() == [4, 5]


# ---------------------------------------------------------------------------
# IDX-8: invalid indices
# ---------------------------------------------------------------------------

_LIST_ARRAY = ("Using a non-tuple sequence for multidimensional indexing is not allowed; "
               "use `arr[array(seq)]` instead of `arr[seq]`. See "
               "https://github.com/jax-ml/jax/issues/4564 for more information.")
_LIST_TUPLE = _LIST_ARRAY.replace("arr[array(seq)]", "arr[tuple(seq)]")


@pytest.mark.spec("IDX-8")
def test_float_indices_rejected(jax, jnp):
    # G-IDX-011
    x = jnp.arange(5)
    cases = [(1.0, "float64"), (jnp.array(1.0), "float32"), (jnp.array([0.5]), "float32"),
             (np.float32(1), "float32"), (1j, "complex128")]
    for idx, name in cases:
        with pytest.raises(TypeError) as info:
            x[idx]
        assert str(info.value) == ("Indexer must have integer or boolean type, got "
                                   f"indexer with type {name}")


@pytest.mark.spec("IDX-8")
def test_top_level_lists_rejected(jax, jnp):
    # G-IDX-012
    x = jnp.arange(5)
    for idx in ([0, 1], [], [True, False, True, False, True], [1.5]):
        with pytest.raises(TypeError) as info:
            x[idx]
        assert str(info.value) == _LIST_ARRAY
    for idx in ([slice(1)], [None], [[0]]):
        with pytest.raises(TypeError) as info:
            x[idx]
        assert str(info.value) == _LIST_TUPLE
    assert x[jnp.array([0, 1])].tolist() == x[np.array([0, 1])].tolist() == [0, 1]
    assert int(x[(0,)]) == 0


@pytest.mark.spec("IDX-8")
def test_unsupported_index_objects(jax, jnp):
    x = jnp.arange(5)
    with pytest.raises(TypeError, match=r"JAX does not support string indexing; "
                                        r"got idx='a'"):
        x["a"]
    obj = object()
    with pytest.raises(IndexError) as info:
        x[obj]
    assert str(info.value) == (
        "only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and integer "
        f"or boolean arrays are valid indices. Got {obj}")
    with pytest.raises(IndexError, match="only integers, slices"):
        x[{1: 2}]
    with pytest.raises(TypeError, match="Indexer must have integer or boolean type, got "
                                        "indexer with type float32"):
        x[[0.5], ]


@pytest.mark.spec("IDX-8")
def test_too_many_indices_and_ellipses(jax, jnp):
    # G-IDX-015
    with pytest.raises(IndexError, match="Too many indices: array is 0-dimensional, "
                                         "but 1 were indexed"):
        jnp.array(3)[0]
    with pytest.raises(IndexError, match="Too many indices: array is 1-dimensional, "
                                         "but 2 were indexed"):
        jnp.arange(3)[0, 0]
    with pytest.raises(IndexError, match="Too many indices: array is 1-dimensional, "
                                         "but 2 were indexed"):
        jnp.arange(3)[jnp.array([[True]])]
    with pytest.raises(IndexError, match=r"an index can only have a single ellipsis"):
        jnp.arange(3)[..., None, ...]


@pytest.mark.spec("IDX-8")
def test_slice_bounds_must_be_static_integers(jax, jnp):
    x = jnp.arange(5.0)
    with pytest.raises(IndexError, match=r"Slice entries must be static integers. Got "
                                         r"slice\(.*, None, None\) at position 0"):
        jax.jit(lambda x, i: x[i:])(x, 1)
    with pytest.raises(IndexError, match=r"Slice entries must be static integers. Got "
                                         r"slice\(None, None, .*\) at position 1"):
        jax.jit(lambda x, i: x[None, ::i])(x, 1)
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an "
                                        "integer"):
        x[:1.5]
    # The traced way to read a window: lax.dynamic_slice.
    assert jax.jit(lambda x, i: jax.lax.dynamic_slice(x, (i,), (2,)))(x, 1).tolist() == [
        1.0, 2.0]


@pytest.mark.spec("IDX-8")
def test_integer_index_into_empty_axis(jax, jnp):
    with pytest.raises(IndexError, match="index is out of bounds for axis 0 with size 0"):
        jnp.zeros(0)[0]
    with pytest.raises(IndexError, match="index is out of bounds for axis 1 with size 0"):
        jnp.zeros((2, 0))[:, 0]


# ---------------------------------------------------------------------------
# IDX-9: trivial and empty results; iteration
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-9")
def test_trivial_index_returns_the_array(jax, jnp):
    x = jnp.arange(5.0)
    assert x[...] is x and x[()] is x and x[:] is x
    assert str(jax.make_jaxpr(lambda x: x[..., :])(x)) == "{ lambda ; a:f32[5]. let  in (a,) }"


@pytest.mark.spec("IDX-9")
def test_empty_results(jax, jnp):
    x = jnp.arange(24).reshape(2, 3, 4)
    assert x[jnp.array([], jnp.int32)].shape == (0, 3, 4)
    assert x[:, jnp.zeros((0, 2), jnp.int32)].shape == (2, 0, 2, 4)
    assert repr(jnp.zeros(0)[jnp.array([], jnp.int32)]) == (
        "Array([], shape=(0,), dtype=float32)")
    assert x[1:1].shape == (0, 3, 4)


@pytest.mark.spec("IDX-9")
def test_iteration_yields_subarrays(jax, jnp):
    # G-IDX-017
    x = jnp.arange(3)
    assert [repr(v) for v in x] == ["Array(0, dtype=int32)", "Array(1, dtype=int32)",
                                    "Array(2, dtype=int32)"]
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        len(jnp.array(1))


# ---------------------------------------------------------------------------
# IDX-26: take and take_along_axis
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-26")
def test_take_jaxprs(jax, jnp):
    x = jnp.ones((4, 6), jnp.float32)
    assert str(jax.make_jaxpr(lambda x, i: jnp.take(x, i))(x, jnp.array([0, 2, 5]))) == TAKE
    got = jax.make_jaxpr(lambda x, i: jnp.take_along_axis(x, i, axis=1))(
        x, jnp.ones((4, 2), jnp.int32))
    assert str(got) == TAKE_ALONG_AXIS


@pytest.mark.spec("IDX-26")
def test_take_modes(jax, jnp):
    # G-IDX-006
    x = jnp.arange(5.0)
    assert repr(jnp.take(x, jnp.array([0, 7]))) == "Array([ 0., nan], dtype=float32)"
    assert repr(jnp.take(jnp.arange(5), jnp.array([0, 7]))) == (
        "Array([          0, -2147483648], dtype=int32)")
    assert jnp.take(jnp.arange(5, dtype=jnp.uint8), jnp.array([9])).tolist() == [255]
    assert jnp.take(x, jnp.array([0, 7]), mode="clip").tolist() == [0.0, 4.0]
    assert jnp.take(x, jnp.array([0, 7]), mode="wrap").tolist() == [0.0, 2.0]
    assert jnp.take(x, jnp.array([-1, 9]), fill_value=-3).tolist() == [4.0, -3.0]
    host = _host((2, 3, 4))
    idx = np.array([[2, 0], [1, 1]])
    got = jax.jit(lambda a, i: jnp.take(a, i, axis=1))(jnp.asarray(host), jnp.asarray(idx))
    np.testing.assert_array_equal(np.asarray(got), np.take(host, idx, axis=1))
    with pytest.raises(NotImplementedError, match="The 'raise' mode to jnp.take is not "
                                                  "supported."):
        jnp.take(x, jnp.array([0]), mode="raise")
    with pytest.raises(ValueError, match="Invalid mode 'bogus' for np.take"):
        jnp.take(x, jnp.array([0]), mode="bogus")
    with pytest.raises(IndexError, match=r"Cannot do a non-empty jnp.take\(\) from an "
                                         r"empty axis."):
        jnp.take(jnp.zeros(0), jnp.array([0]))


@pytest.mark.spec("IDX-26")
def test_take_along_axis(jax, jnp):
    # G-IDX-007
    x = jnp.arange(5.0)
    assert repr(jnp.take_along_axis(x, jnp.array([0, 7]), axis=0)) == (
        "Array([ 0., nan], dtype=float32)")
    host = np.array([[5, 3, 4], [2, 7, 6]])
    order = np.argsort(host, axis=1)
    got = jnp.take_along_axis(jnp.asarray(host), jnp.asarray(order), axis=1)
    np.testing.assert_array_equal(np.asarray(got), np.take_along_axis(host, order, 1))
    # Size-1 axes of the indices broadcast against the array.
    got = jnp.take_along_axis(jnp.asarray(host), jnp.array([[2, 0]]), axis=1)
    assert got.tolist() == [[4, 5], [6, 2]]
    assert jnp.take_along_axis(x, jnp.array([-1, 9]), axis=0, mode="clip").tolist() == [
        4.0, 4.0]
    with pytest.raises(ValueError, match="indices and arr must have the same number of "
                                         "dimensions; 1 vs. 2"):
        jnp.take_along_axis(jnp.asarray(host), jnp.array([0]), axis=0)
    with pytest.raises(TypeError, match="take_along_axis indices must be of integer type, "
                                        "got float32"):
        jnp.take_along_axis(x, jnp.array([0.0]), axis=0)


# ---------------------------------------------------------------------------
# IDX-27: size-dependent selections
# ---------------------------------------------------------------------------

_NONZERO_SIZE = ("The size argument of jnp.nonzero must be statically specified to use "
                 "jnp.nonzero within JAX transformations.")


@pytest.mark.spec("IDX-27")
def test_nonzero_jaxpr(jax, jnp):
    got = jax.make_jaxpr(lambda m: jnp.nonzero(m, size=3))(jnp.array([0, 3, 0, 4, 5]))
    assert str(got) == NONZERO


@pytest.mark.spec("IDX-27")
@pytest.mark.parametrize("name,call", [
    ("nonzero", lambda jnp, m: jnp.nonzero(m)),
    ("where", lambda jnp, m: jnp.where(m)),
    ("argwhere", lambda jnp, m: jnp.argwhere(m)),
    ("flatnonzero", lambda jnp, m: jnp.flatnonzero(m)),
])
def test_size_is_needed_under_jit(jax, jnp, name, call):
    m = jnp.array([0, 2, 0, 3])
    with pytest.raises(jax.errors.ConcretizationTypeError, match=_NONZERO_SIZE):
        jax.jit(lambda m: call(jnp, m))(m)


@pytest.mark.spec("IDX-27")
def test_other_size_dependent_functions_need_static_sizes(jax, jnp):
    m = jnp.array([0, 2, 0, 3])
    with pytest.raises(jax.errors.ConcretizationTypeError,
                       match=r"The error arose for the first argument of jnp.unique\(\)"):
        jax.jit(jnp.unique)(m)
    with pytest.raises(jax.errors.ConcretizationTypeError,
                       match="pass a static `length` argument"):
        jax.jit(jnp.bincount)(m)
    with pytest.raises(jax.errors.ConcretizationTypeError,
                       match="the total number of repeats must be static"):
        jax.jit(lambda m: jnp.repeat(m, m))(m)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(lambda m: jnp.compress(m > 0, m))(m)


@pytest.mark.spec("IDX-27")
def test_size_dependent_functions_with_size(jax, jnp):
    m = jnp.array([0, 2, 0, 3])
    jit = jax.jit
    assert [a.tolist() for a in jit(lambda m: jnp.nonzero(m, size=3))(m)] == [[1, 3, 0]]
    assert [a.tolist() for a in jit(lambda m: jnp.where(m, size=3, fill_value=-1))(m)] == [
        [1, 3, -1]]
    assert jit(lambda m: jnp.argwhere(m, size=3, fill_value=9))(m).tolist() == [
        [1], [3], [9]]
    assert jit(lambda m: jnp.flatnonzero(m, size=1))(m).tolist() == [1]
    assert jit(lambda m: jnp.unique(m, size=4))(m).tolist() == [0, 2, 3, 0]
    values, index, inverse, counts = jit(lambda m: jnp.unique(
        m, size=4, fill_value=-5, return_index=True, return_inverse=True,
        return_counts=True))(m)
    assert (values.tolist(), index.tolist(), inverse.tolist(), counts.tolist()) == (
        [0, 2, 3, -5], [0, 1, 3, 0], [0, 1, 0, 2], [2, 1, 1, 0])
    assert jit(lambda m: jnp.compress(m > 0, m, size=3, fill_value=-1))(m).tolist() == [
        2, 3, -1]
    assert jit(lambda m: jnp.bincount(m, length=5))(m).tolist() == [2, 0, 1, 1, 0]
    assert jit(lambda m: jnp.repeat(m, m, total_repeat_length=7))(m).tolist() == [
        2, 2, 3, 3, 3, 3, 3]
    assert jnp.repeat(jnp.array([1, 2]), jnp.array([1, 2]), total_repeat_length=2).tolist() == [
        1, 2]


@pytest.mark.spec("IDX-27")
def test_size_dependent_functions_eagerly_match_numpy(jax, jnp):
    host = np.array([[0, 1, 0], [2, 0, 3]])
    x = jnp.asarray(host)
    assert [a.tolist() for a in jnp.nonzero(x)] == [a.tolist() for a in np.nonzero(host)]
    assert jnp.argwhere(x).tolist() == np.argwhere(host).tolist()
    assert jnp.flatnonzero(x).tolist() == np.flatnonzero(host).tolist()
    assert jnp.compress(jnp.array([False, True]), x, axis=0).tolist() == [[2, 0, 3]]
    assert jnp.bincount(jnp.array([1, 1, 4]), minlength=6).tolist() == [0, 2, 0, 0, 1, 0]
    assert jnp.repeat(x, jnp.array([2, 0, 1]), axis=1).tolist() == np.repeat(
        host, [2, 0, 1], axis=1).tolist()
    values, counts = jnp.unique(jnp.array([3, 1, 3, 2, 3]), return_counts=True)
    assert (values.tolist(), counts.tolist()) == ([1, 2, 3], [1, 1, 3])
    # The Array API variants keep NaNs apart (equal_nan=False); unique merges them.
    nans = jnp.array([1.0, np.nan, np.nan, 1.0])
    assert jnp.unique(nans).shape == (2,) and jnp.unique_values(nans).shape == (3,)
    assert jnp.unique_counts(nans).counts.tolist() == [2, 1, 1]
    with pytest.raises(ValueError, match="size must be positive and not greater than the "
                                         "size of the array axis"):
        jnp.compress(jnp.array([True]), jnp.arange(3), size=4)


# ---------------------------------------------------------------------------
# IDX-28: index helpers
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-28")
def test_index_helpers_match_numpy(jax, jnp):
    def lists(arrays):
        return [np.asarray(a).tolist() for a in arrays]
    assert lists(jnp.ix_(jnp.array([0, 1]), jnp.array([2, 3, 4]))) == lists(
        np.ix_([0, 1], [2, 3, 4]))
    rows, cols = jnp.ix_(jnp.array([0, 2]), jnp.array([1, 3]))
    host = _host((3, 4))
    assert jnp.asarray(host)[rows, cols].tolist() == host[np.ix_([0, 2], [1, 3])].tolist()
    assert jnp.ix_(jnp.array([], jnp.int32))[0].dtype == np.int32
    assert jnp.indices((2, 3)).tolist() == np.indices((2, 3)).tolist()
    assert lists(jnp.indices((2, 3), sparse=True)) == lists(np.indices((2, 3), sparse=True))
    assert lists(jnp.diag_indices(3)) == lists(np.diag_indices(3))
    assert lists(jnp.diag_indices_from(jnp.ones((2, 2, 2)))) == lists(
        np.diag_indices_from(np.ones((2, 2, 2))))
    for k in (-1, 0, 2):
        assert lists(jnp.tril_indices(3, k, 4)) == lists(np.tril_indices(3, k, 4))
        assert lists(jnp.triu_indices(3, k, 4)) == lists(np.triu_indices(3, k, 4))
    assert lists(jnp.tril_indices_from(jnp.ones((3, 2)))) == lists(
        np.tril_indices_from(np.ones((3, 2))))
    assert lists(jnp.triu_indices_from(jnp.ones((2, 3)), 1)) == lists(
        np.triu_indices_from(np.ones((2, 3)), 1))
    assert lists(jnp.unravel_index(jnp.array([0, 5, 11]), (3, 4))) == lists(
        np.unravel_index([0, 5, 11], (3, 4)))
    assert jnp.ravel_multi_index((jnp.array([0, 2]), jnp.array([3, 1])), (3, 4)).tolist() == [
        3, 9]


@pytest.mark.spec("IDX-28")
def test_index_helpers_edge_cases(jax, jnp):
    # Out-of-range flat indices clamp to the first or last position.
    assert [a.tolist() for a in jnp.unravel_index(jnp.array([12, -1, -13]), (3, 4))] == [
        [2, 2, 0], [3, 3, 0]]
    assert jnp.ravel_multi_index((jnp.array([5]), jnp.array([-1])), (3, 4),
                                 mode="clip").tolist() == [8]
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        jnp.ravel_multi_index((jnp.array([5]), jnp.array([0])), (3, 4))
    with pytest.raises(ValueError, match="Arguments to jax.numpy.ix_ must be "
                                         r"1-dimensional, got shape \(1, 1\)"):
        jnp.ix_(jnp.ones((1, 1), jnp.int32))
    with pytest.raises(ValueError, match="All dimensions of input must be of equal length"):
        jnp.diag_indices_from(jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="Only 2-D inputs are accepted"):
        jnp.tril_indices_from(jnp.ones(3))


# ---------------------------------------------------------------------------
# IDX-29: functional puts
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-29")
def test_put_place_put_along_axis(jax, jnp):
    x = jnp.zeros(5, dtype=jnp.int32)
    values = jnp.array([10, 20, 30])
    assert jnp.put(x, jnp.array([0, 2, 4]), values, inplace=False).tolist() == [
        10, 0, 20, 0, 30]
    # By default out-of-range flat indices clamp (unravel_index) to the end.
    assert jnp.put(x, jnp.array([0, 2, 6]), values, inplace=False).tolist() == [
        10, 0, 20, 0, 30]
    assert jnp.put(x, jnp.array([0, 2, 6]), values, mode="clip", inplace=False).tolist() == [
        10, 0, 20, 0, 30]
    assert jnp.put(x, jnp.array([0, 2, 6]), values, mode="wrap", inplace=False).tolist() == [
        10, 30, 20, 0, 0]
    assert jnp.put(jnp.zeros((2, 3)), jnp.array([1, 5]), 7.0, inplace=False).tolist() == [
        [0.0, 7.0, 0.0], [0.0, 0.0, 7.0]]
    assert x.tolist() == [0] * 5
    mask = jnp.array([True, False, True, True, False])
    assert jnp.place(x, mask, jnp.array([1, 3]), inplace=False).tolist() == [1, 0, 3, 1, 0]
    a = jnp.array([[10, 30, 20], [60, 40, 50]])
    i = jnp.argmax(a, axis=1, keepdims=True)
    assert jnp.put_along_axis(a, i, 99, axis=1, inplace=False).tolist() == [
        [10, 99, 20], [99, 40, 50]]
    assert jax.jit(lambda x, i: jnp.put(x, i, 5, inplace=False))(x, jnp.array([1])).tolist() == [
        0, 5, 0, 0, 0]


@pytest.mark.spec("IDX-29")
def test_puts_refuse_inplace(jax, jnp):
    x = jnp.zeros(3)
    with pytest.raises(ValueError, match="jax.numpy.put cannot modify arrays in-place, "
                                         "because JAX arrays are immutable. Pass "
                                         "inplace=False"):
        jnp.put(x, jnp.array([0]), 1.0)
    with pytest.raises(ValueError, match="jax.numpy.place cannot modify arrays in-place"):
        jnp.place(x, x > 0, 1.0)
    with pytest.raises(ValueError, match="jax.numpy.put_along_axis cannot modify arrays "
                                         "in-place"):
        jnp.put_along_axis(x, jnp.array([0]), 1.0, axis=0)
    with pytest.raises(NotImplementedError, match="The 'raise' mode to jnp.put is not "
                                                  "supported."):
        jnp.put(x, jnp.array([0]), 1.0, mode="raise", inplace=False)


# ---------------------------------------------------------------------------
# IDX-35: boolean masks and jit (dynamic shapes)
# ---------------------------------------------------------------------------

def _nansum(jnp, x):
    return x[~jnp.isnan(x)].sum()


@pytest.mark.spec("IDX-35")
def test_mask_nansum_eager_but_not_under_jit(jax, jnp):
    # G-DYN-002
    x = jnp.array([1, 2, jnp.nan, 3, 4])
    assert float(_nansum(jnp, x)) == 10.0
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError,
                       match=r"Array boolean indices must be concrete; got bool\[5\]"):
        jax.jit(lambda x: _nansum(jnp, x))(x)
    masked = jax.jit(lambda x: jnp.where(~jnp.isnan(x), x, 0).sum())(x)
    assert float(masked) == 10.0


@pytest.mark.spec("IDX-35")
def test_masked_reduction_with_where_under_jit(jax, jnp):
    # G-DYN-003
    x = jnp.arange(-5, 5)
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError):
        jax.jit(lambda x: x[x > 0].sum())(x)
    by_where = jax.jit(lambda x: jnp.where(x > 0, x, 0).sum())(x)
    by_kwarg = jax.jit(lambda x: jnp.sum(x, where=x > 0))(x)
    assert repr(by_where) == repr(by_kwarg) == "Array(10, dtype=int32)"


@pytest.mark.spec("IDX-35")
def test_concrete_numpy_mask_inside_jit(jax, jnp):
    # G-DYN-004: the mask is a constant of the trace, so the shape is known.
    mask = np.array([True, False, True])
    assert jax.jit(lambda x: x[mask])(jnp.arange(3.)).tolist() == [0., 2.]
    assert jax.jit(lambda x: x.at[mask].set(7.))(jnp.arange(3.)).tolist() == [7., 1., 7.]


@pytest.mark.spec("IDX-35")
def test_boolean_mask_eager_numpy_semantics(jax, jnp):
    # G-DYN-008
    x = jnp.arange(6).reshape(2, 3)
    assert x[x % 2 == 0].tolist() == [0, 2, 4]
    assert x[jnp.array([True, False])].tolist() == [[0, 1, 2]]
    assert x.at[x % 2 == 0].set(-1).tolist() == [[-1, 1, -1], [3, -1, 5]]
    assert x.at[jnp.array([True, False])].add(10).tolist() == [[10, 11, 12], [3, 4, 5]]


# ---------------------------------------------------------------------------
# IDX-36: traced slice starts
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-36")
def test_traced_start_with_dynamic_slice(jax, jnp):
    # G-DYN-009
    x = jnp.arange(10)
    out = jax.jit(lambda x, i: jax.lax.dynamic_slice(x, (i,), (2,)))(x, 3)
    assert out.tolist() == [3, 4]


@pytest.mark.spec("IDX-36")
@pytest.mark.parametrize("index, shown", [
    (lambda i: slice(i, i + 2), "slice(JitTracer(~int32[]), JitTracer(~int32[]), None)"),
    (lambda i: slice(i, None), "slice(JitTracer(~int32[]), None, None)"),
    (lambda i: slice(None, i), "slice(None, JitTracer(~int32[]), None)"),
])
def test_traced_python_slice_raises(jax, jnp, index, shown):
    # G-DYN-009
    with pytest.raises(IndexError) as info:
        jax.jit(lambda x, i: x[index(i)])(jnp.arange(10), 3)
    assert str(info.value).splitlines()[0] == (
        f"Slice entries must be static integers. Got {shown} at position 0")


# ---------------------------------------------------------------------------
# NP-13 (gotcha from the indexing list): all-NaN arg-reductions
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-13")
def test_gotcha_nanargmax_of_all_nan_is_minus_one(jax, jnp):
    # G-IDX-008
    x = jnp.array([jnp.nan, jnp.nan])
    assert repr(jnp.nanargmax(x)) == "Array(-1, dtype=int32)"
    assert repr(jnp.nanargmin(x)) == "Array(-1, dtype=int32)"
