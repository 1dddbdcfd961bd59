"""Static NumPy indexing: integers, slices, None, Ellipsis (SPEC IDX-1)."""
import numpy as np
import pytest

INDICES = [
    ((4, 5), 1), ((4, 5), -1), ((4, 5), slice(1, 3)), ((4, 5), slice(None, None, 2)),
    ((4, 5), (None, 1)), ((4, 5), (Ellipsis, 2)), ((4, 5), (1, slice(None))),
    ((4, 5), (slice(None, None, -1),)), ((4, 5), (slice(1, 3), 2)),
    ((6,), slice(3, 0, -1)), ((6,), slice(None, None, -2)), ((6,), slice(10, 20)),
    ((6,), slice(-2, None)), ((6,), ()), ((6,), Ellipsis), ((6,), (None, Ellipsis, None)),
    ((2, 3, 4), (0, Ellipsis, slice(1, 3))), ((2, 3, 4), (slice(None), None, 1)),
    ((6,), slice(5, 1, -2)), ((6,), slice(-1, -7, -1)),
]


@pytest.mark.spec("IDX-1")
@pytest.mark.parametrize("shape,index", INDICES)
def test_static_index_matches_numpy(jax, jnp, shape, index):
    host = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    got = jnp.asarray(host)[index]
    np.testing.assert_array_equal(np.asarray(got), host[index])
    traced = jax.jit(lambda a: a[index])(jnp.asarray(host))
    np.testing.assert_array_equal(np.asarray(traced), host[index])


# What JAX 0.10.2 records for static indices (observed).
JAXPRS = [
    ((4, 5), 1, (
        "{ lambda ; a:f32[4,5]. let\n"
        "    b:f32[1,5] = slice[limit_indices=(2, 5) start_indices=(1, 0) strides=None] a\n"
        "    c:f32[5] = squeeze[dimensions=(0,)] b\n"
        "  in (c,) }")),
    ((4, 5), slice(None, None, 2), (
        "{ lambda ; a:f32[4,5]. let\n"
        "    b:f32[2,5] = slice[limit_indices=(4, 5) start_indices=(0, 0) strides=(2, 1)] a\n"
        "  in (b,) }")),
    ((6,), slice(3, 0, -1), (
        "{ lambda ; a:f32[6]. let\n"
        "    b:f32[3] = slice[limit_indices=(4,) start_indices=(1,) strides=None] a\n"
        "    c:f32[3] = rev[dimensions=(0,)] b\n"
        "  in (c,) }")),
    ((6,), Ellipsis, "{ lambda ; a:f32[6]. let  in (a,) }"),
    ((2, 3, 4), (slice(None), None, 1), (
        "{ lambda ; a:f32[2,3,4]. let\n"
        "    b:f32[2,1,4] = slice[\n"
        "      limit_indices=(2, 2, 4)\n"
        "      start_indices=(0, 1, 0)\n"
        "      strides=None\n"
        "    ] a\n"
        "    c:f32[2,4] = squeeze[dimensions=(1,)] b\n"
        "    d:f32[2,1,4] = broadcast_in_dim[broadcast_dimensions=(0, 2)] c\n"
        "  in (d,) }")),
]


@pytest.mark.spec("IDX-1")
@pytest.mark.parametrize("shape,index,expected", JAXPRS)
def test_static_index_jaxpr(jax, jnp, shape, index, expected):
    assert str(jax.make_jaxpr(lambda a: a[index])(jnp.ones(shape))) == expected


@pytest.mark.spec("IDX-1")
def test_static_index_errors(jax, jnp):
    x = jnp.ones((4, 5))
    with pytest.raises(IndexError, match="Too many indices: array is 2-dimensional, "
                                         "but 3 were indexed"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="an index can only have a single ellipsis"):
        x[..., ...]


@pytest.mark.spec("IDX-1")
def test_out_of_bounds_static_integer_clamps(jax, jnp):
    x = jnp.arange(4)
    assert [int(x[4]), int(x[-5]), int(x[100]), int(x[-100])] == [3, 0, 3, 0]
    assert int(jax.jit(lambda a: a[7])(x)) == 3


# What JAX 0.10.2 records for x[i, 2] with a traced Python-int index (observed).
DYNAMIC_JAXPR = (
    '{ lambda ; a:f32[4,5] b:i32[]. let\n'
    '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
    '    d:bool[] = lt c 0:i32[]\n'
    '    e:i32[] = add c 4:i32[]\n'
    '    f:i32[] = select_n d c e\n'
    '    g:bool[] = lt 2:i32[] 0:i32[]\n'
    '    h:i32[] = add 2:i32[] 5:i32[]\n'
    '    i:i32[] = select_n g 2:i32[] h\n'
    '    j:f32[1,1] = dynamic_slice[slice_sizes=(1, 1)] a f i\n'
    '    k:f32[] = squeeze[dimensions=(0, 1)] j\n'
    '  in (k,) }'
)


@pytest.mark.spec("IDX-2")
def test_scalar_array_index_lowers_to_dynamic_slice(jax, jnp):
    got = jax.make_jaxpr(lambda x, i: x[i, 2])(jnp.ones((4, 5)), 1)
    assert str(got) == DYNAMIC_JAXPR


@pytest.mark.spec("IDX-2")
def test_scalar_array_index_values(jax, jnp):
    a = jnp.arange(20).reshape(4, 5)
    assert jax.jit(lambda a, i: a[i, 1:3])(a, -1).tolist() == [16, 17]
    assert a[jnp.int32(2)].tolist() == [10, 11, 12, 13, 14]
    # Out-of-range traced indices clamp, as all reads do.
    assert jax.jit(lambda a, i: a[:, i])(a, 7).tolist() == [4, 9, 14, 19]
    assert int(jax.jit(lambda a, i: a[i])(jnp.arange(3), jnp.int8(-1))) == 2
    assert repr(jax.jit(lambda i: jnp.array([1, 2, 3])[i])(0)) == "Array(1, dtype=int32)"
