"""``x.at[index]``: functional updates and reads (SPEC IDX-20 .. IDX-25).

Expected values are NumPy's or literals observed from JAX 0.10.2; expected
jaxprs are the text JAX 0.10.2 prints.
"""
import warnings

import numpy as np
import pytest

# Printed jaxprs (observed from JAX 0.10.2).

AT_ADD = (
    '{ lambda ; a:f32[5]. let\n'
    '    b:i32[1] = broadcast_in_dim 1:i32[]\n'
    '    c:f32[5] = scatter-add[\n'
    '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), '
    'inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), '
    'operand_batching_dims=(), scatter_indices_batching_dims=())\n'
    '      indices_are_sorted=True\n'
    '      mode=GatherScatterMode.FILL_OR_DROP\n'
    '      unique_indices=True\n'
    '      update_consts=()\n'
    '      update_jaxpr={ lambda ; d:f32[] e:f32[]. let f:f32[] = add d e in (f,) }\n'
    '    ] a b 3.0:f32[]\n'
    '  in (c,) }'
)

AT_SET = (
    '{ lambda ; a:f32[5] b:i32[3] c:f32[3]. let\n'
    '    d:bool[3] = lt b 0:i32[]\n'
    '    e:i32[3] = add b 5:i32[]\n'
    '    f:i32[3] = select_n d b e\n'
    '    g:i32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f\n'
    '    h:f32[5] = scatter[\n'
    '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), '
    'inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), '
    'operand_batching_dims=(), scatter_indices_batching_dims=())\n'
    '      indices_are_sorted=False\n'
    '      mode=GatherScatterMode.FILL_OR_DROP\n'
    '      unique_indices=False\n'
    '      update_consts=()\n'
    '      update_jaxpr=None\n'
    '    ] a g c\n'
    '  in (h,) }'
)

AT_GET_FILL = (
    '{ lambda ; a:f32[5] b:i32[]. let\n'
    '    c:bool[] = lt b 0:i32[]\n'
    '    d:i32[] = add b 5:i32[]\n'
    '    e:i32[] = select_n c b d\n'
    '    f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] e\n'
    '    g:i32[1] = broadcast_in_dim f\n'
    '    h:f32[] = gather[\n'
    '      dimension_numbers=GatherDimensionNumbers(offset_dims=(), '
    'collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), '
    'start_indices_batching_dims=())\n'
    '      fill_value=0\n'
    '      indices_are_sorted=True\n'
    '      mode=GatherScatterMode.FILL_OR_DROP\n'
    '      slice_sizes=(1,)\n'
    '      unique_indices=True\n'
    '    ] a g\n'
    '  in (h,) }'
)


_AT_MESSAGE = (
    "JAX arrays are immutable and do not support in-place item assignment. Instead of "
    "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
    "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


# ---------------------------------------------------------------------------
# IDX-20: the .at objects, purity and lowering
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-20")
def test_at_objects_are_lazy(jax, jnp):
    # G-AT-017
    x = jnp.arange(3)
    assert (type(x.at).__name__, type(x.at[0]).__name__) == (
        "_IndexUpdateHelper", "_IndexUpdateRef")
    assert repr(x.at[1]) == "_IndexUpdateRef(Array([0, 1, 2], dtype=int32), 1)"
    assert repr(x.at) == "_IndexUpdateHelper(Array([0, 1, 2], dtype=int32))"
    assert repr(x.at[1:3]) == (
        "_IndexUpdateRef(Array([0, 1, 2], dtype=int32), slice(1, 3, None))")
    seen = []
    jax.jit(lambda x: seen.append((repr(x.at), repr(x.at[0]))) or x)(jnp.arange(5.0))
    assert seen == [("_IndexUpdateHelper(JitTracer(float32[5]))",
                     "_IndexUpdateRef(JitTracer(float32[5]), 0)")]


@pytest.mark.spec("IDX-20")
def test_updates_return_new_arrays(jax, jnp):
    # G-AT-003
    x = jnp.zeros((3, 3), dtype=jnp.float32)
    y = x.at[1, :].set(1.0)
    assert y.tolist() == [[0.0] * 3, [1.0] * 3, [0.0] * 3]
    assert x.tolist() == [[0.0] * 3] * 3
    z = jax.jit(lambda x: x.at[0, 0].add(5.0))(x)
    assert z.tolist()[0] == [5.0, 0.0, 0.0] and x.tolist() == [[0.0] * 3] * 3


@pytest.mark.spec("IDX-20")
@pytest.mark.parametrize("name", ["add", "set", "get_fill"])
def test_at_jaxprs(jax, jnp, name):
    x = jnp.ones(5, jnp.float32)
    if name == "add":
        got = jax.make_jaxpr(lambda x: x.at[1].add(3.0))(x)
        assert str(got) == AT_ADD
    elif name == "set":
        got = jax.make_jaxpr(lambda x, i, v: x.at[i].set(v))(
            x, jnp.array([0, 2, 4]), jnp.ones(3, jnp.float32))
        assert str(got) == AT_SET
    else:
        got = jax.make_jaxpr(lambda x, i: x.at[i].get(mode="fill", fill_value=0))(x, 1)
        assert str(got) == AT_GET_FILL


@pytest.mark.spec("IDX-20")
def test_updates_match_numpy_eager_and_jit(jax, jnp):
    host = np.arange(20.0, dtype=np.float32).reshape(4, 5)
    cases = [
        (1, 7.0),
        ((slice(None), 2), np.arange(4.0)),
        ((slice(1, 3), slice(None, None, 2)), -1.0),
        ((np.array([3, 0]), 1), np.array([8.0, 9.0])),
        ((Ellipsis, np.array([4, 0])), 2.0),
        ((None, 2, slice(None, None, -1)), np.arange(5.0)),
    ]
    for index, value in cases:
        want = host.copy()
        want[index] = value
        got = jnp.asarray(host).at[index].set(value)
        np.testing.assert_array_equal(np.asarray(got), want)
        jitted = jax.jit(lambda x, v: x.at[index].set(v))(jnp.asarray(host),
                                                          jnp.asarray(value))
        np.testing.assert_array_equal(np.asarray(jitted), want)


# ---------------------------------------------------------------------------
# IDX-21: the update methods and repeated positions
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-21")
def test_all_update_methods(jax, jnp):
    # G-AT-005
    x = jnp.arange(5.0)
    assert x.at[2].set(10).tolist() == [0, 1, 10, 3, 4]
    assert x.at[2].add(10).tolist() == [0, 1, 12, 3, 4]
    assert x.at[2].subtract(10).tolist() == [0, 1, -8, 3, 4]
    assert x.at[2].multiply(10).tolist() == [0, 1, 20, 3, 4]
    assert x.at[2].mul(10).tolist() == [0, 1, 20, 3, 4]
    assert x.at[2].divide(4).tolist() == [0, 1, 0.5, 3, 4]
    assert x.at[2].power(3).tolist() == [0, 1, 8, 3, 4]
    assert x.at[2:].min(3).tolist() == [0, 1, 2, 3, 3]
    assert x.at[:3].max(1.5).tolist() == [1.5, 1.5, 2, 3, 4]
    assert x.at[2].apply(jnp.negative).tolist() == [0, 1, -2, 3, 4]
    assert repr(x.at[2].get()) == "Array(2., dtype=float32)"


@pytest.mark.spec("IDX-21")
def test_slices_and_strides(jax, jnp):
    # G-AT-004
    got = jnp.ones((5, 6)).at[::2, 3:].add(7.0)
    want = np.ones((5, 6))
    want[::2, 3:] += 7.0
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.spec("IDX-21")
def test_repeated_positions_accumulate(jax, jnp):
    # G-AT-006
    idx = jnp.array([0, 0, 0, 1])
    assert jnp.zeros(3).at[idx].add(1.0).tolist() == [3.0, 1.0, 0.0]
    assert jnp.ones(3).at[idx].multiply(2.0).tolist() == [8.0, 2.0, 1.0]
    assert jnp.ones(3).at[idx].apply(lambda v: v * 2).tolist() == [8.0, 2.0, 1.0]
    vals = jnp.array([3.0, 1.0, 2.0, 4.0])
    assert jnp.full(3, 5.0).at[idx].min(vals).tolist() == [1.0, 4.0, 5.0]
    assert jnp.full(3, 2.0).at[idx].max(vals).tolist() == [3.0, 4.0, 2.0]
    assert jnp.zeros(3).at[idx].subtract(1.0).tolist() == [-3.0, -1.0, 0.0]
    # divide and power multiply the repeated values first.
    assert jnp.full(2, 8.0).at[jnp.array([0, 0])].divide(2.0).tolist() == [2.0, 8.0]
    assert jnp.full(2, 2.0).at[jnp.array([0, 0])].power(2.0).tolist() == [16.0, 2.0]
    got = jax.jit(lambda x, i: x.at[i].add(1.0))(jnp.zeros(3), idx)
    assert got.tolist() == [3.0, 1.0, 0.0]


@pytest.mark.spec("IDX-21")
def test_repeated_positions_with_set_keep_one_value(jax, jnp):
    # G-AT-007: which update wins is unspecified; it is one of them.
    got = jnp.zeros(3).at[jnp.array([0, 0, 0])].set(jnp.array([1.0, 2.0, 3.0]))
    assert got.tolist()[0] in (1.0, 2.0, 3.0) and got.tolist()[1:] == [0.0, 0.0]


@pytest.mark.spec("IDX-21")
def test_divide_and_power_dtypes(jax, jnp):
    # G-AT-012
    x = jnp.arange(5)
    assert repr(x.at[1].divide(2)) == "Array([0. , 0.5, 2. , 3. , 4. ], dtype=float32)"
    assert repr(x.at[2].power(2)) == "Array([0, 1, 4, 3, 4], dtype=int32)"
    assert repr(x.at[2].multiply(2)) == "Array([0, 1, 4, 3, 4], dtype=int32)"


@pytest.mark.spec("IDX-21")
def test_multidimensional_advanced_updates(jax, jnp):
    # G-AT-018
    x = jnp.zeros((3, 3))
    got = x.at[jnp.array([0, 1]), jnp.array([1, 2])].set(1.0)
    assert got.tolist() == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
    got = x.at[jnp.array([0, 2]), :].add(jnp.array([[1.0], [2.0]]))
    assert got.tolist() == [[1, 1, 1], [0, 0, 0], [2, 2, 2]]


@pytest.mark.spec("IDX-21")
def test_apply_is_elementwise(jax, jnp):
    # G-AT-019 (the autodiff part is out of scope: refjax has no grad yet)
    got = jnp.arange(4.0).at[1:3].apply(jnp.sin)
    np.testing.assert_allclose(np.asarray(got), [0.0, np.sin(1.0), np.sin(2.0), 3.0],
                               rtol=1e-6)
    got = jax.jit(lambda x: x.at[jnp.array([2, 2])].apply(lambda v: v + 1))(jnp.zeros(3))
    assert got.tolist() == [0.0, 0.0, 2.0]


@pytest.mark.spec("IDX-21")
def test_arithmetic_updates_reject_bool(jax, jnp):
    with pytest.raises(TypeError, match="add does not accept dtype bool"):
        jnp.zeros(2, bool).at[0].add(True)
    assert jnp.zeros(2, bool).at[0].max(True).tolist() == [True, False]


# ---------------------------------------------------------------------------
# IDX-22: reading with .at[].get
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-22")
def test_get_out_of_bounds_modes(jax, jnp):
    # G-AT-009
    x = jnp.arange(5.0)
    assert repr(x.at[20].get()) == "Array(4., dtype=float32)"
    assert repr(x.at[20].get(mode="fill")) == "Array(nan, dtype=float32)"
    assert repr(x.at[20].get(mode="fill", fill_value=-1)) == "Array(-1., dtype=float32)"
    assert repr(jnp.arange(10.0).at[11].get(mode="fill", fill_value=jnp.nan)) == (
        "Array(nan, dtype=float32)")
    assert repr(x.at[20].get(mode="drop")) == "Array(nan, dtype=float32)"
    assert repr(x.at[20].get(mode="promise_in_bounds")) == "Array(4., dtype=float32)"
    got = jax.jit(lambda x, i: x.at[i].get(mode="fill", fill_value=-2.0))(
        x, jnp.array([1, 5, -6]))
    assert got.tolist() == [1.0, -2.0, -2.0]


@pytest.mark.spec("IDX-22")
def test_get_default_fill_values(jax, jnp):
    # G-AT-010
    want = {"float32": "Array(nan, dtype=float32)",
            "int32": "Array(-2147483648, dtype=int32)",
            "int8": "Array(-128, dtype=int8)", "uint8": "Array(255, dtype=uint8)",
            "uint32": "Array(4294967295, dtype=uint32)", "bool": "Array(True, dtype=bool)",
            "complex64": "Array(nan+0.j, dtype=complex64)"}
    for dt, text in want.items():
        assert repr(jnp.zeros(3, dtype=dt).at[5].get(mode="fill")) == text


@pytest.mark.spec("IDX-22")
def test_negative_indices_and_wrap_negative_indices(jax, jnp):
    # G-AT-011, G-AT-021
    x = jnp.arange(5.0)
    assert x.at[-1].set(99).tolist() == [0, 1, 2, 3, 99]
    assert x.at[-1].set(99, wrap_negative_indices=False, mode="drop").tolist() == [
        0, 1, 2, 3, 4]
    assert repr(x.at[-1].get(wrap_negative_indices=False, mode="fill", fill_value=-7)) == (
        "Array(-7., dtype=float32)")
    assert repr(x.at[-7].get(mode="clip")) == "Array(0., dtype=float32)"
    assert jnp.zeros(5).at[-7].set(1.0, mode="clip").tolist() == [1, 0, 0, 0, 0]
    assert jnp.zeros(5).at[7].set(1.0, mode="clip").tolist() == [0, 0, 0, 0, 1]


@pytest.mark.spec("IDX-22")
def test_sorted_and_unique_promises(jax, jnp):
    # G-AT-016 (only results with the promises kept are specified)
    x = jnp.zeros(4)
    got = x.at[jnp.array([0, 2])].add(1.0, indices_are_sorted=True, unique_indices=True)
    assert got.tolist() == [1.0, 0.0, 1.0, 0.0]
    ref = jnp.arange(4.0).at[jnp.array([3, 1])]
    got = ref.get(indices_are_sorted=True, unique_indices=True)
    assert repr(got) == "Array([3., 1.], dtype=float32)"


@pytest.mark.spec("IDX-22")
def test_invalid_modes_and_fill_values(jax, jnp):
    # G-AT-022
    with pytest.raises(ValueError, match='Unknown gather mode "wrap"'):
        jnp.arange(3).at[0].get(mode="wrap")
    with pytest.raises(ValueError, match='Unknown gather mode "wrap"'):
        jnp.arange(3).at[0].set(1, mode="wrap")
    with pytest.raises(ValueError, match="fill_value argument to indexed get\\(\\) must be "
                                         "a scalar"):
        jnp.arange(3.0).at[jnp.array([0, 5])].get(mode="fill",
                                                  fill_value=jnp.array([1.0, 2.0]))
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda v: jnp.arange(3.0).at[jnp.array([0, 5])].get(
            mode="fill", fill_value=v))(1.0)


# ---------------------------------------------------------------------------
# IDX-23: update values: dtypes and shapes
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-23")
def test_update_values_are_cast(jax, jnp):
    # G-AT-013
    x = jnp.zeros(3, dtype=jnp.int32)
    message = ("scatter inputs have incompatible types: cannot safely cast value from "
               "dtype=float32 to dtype=int32 with jax_numpy_dtype_promotion=standard. In "
               "future JAX releases this will result in an error.")
    with pytest.warns(FutureWarning) as record:
        got = x.at[0].set(1.7)
    assert repr(got) == "Array([1, 0, 0], dtype=int32)"
    assert str(record[0].message) == message
    with pytest.warns(FutureWarning):
        assert repr(x.at[0].add(-2.9)) == "Array([-2,  0,  0], dtype=int32)"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert repr(jnp.zeros(2, jnp.uint8).at[0].set(300)) == (
            "Array([44,  0], dtype=uint8)")
        assert jnp.zeros(2, jnp.float16).at[0].set(1.5).dtype == np.float16
        assert jnp.arange(3.0).at[0].set(True).tolist() == [1.0, 1.0, 2.0]
    with pytest.warns(FutureWarning, match="from dtype=float32 to dtype=float16"):
        jnp.zeros(2, jnp.float16).at[0].set(jnp.float32(1.5))


@pytest.mark.spec("IDX-23")
def test_update_values_broadcast(jax, jnp):
    # G-AT-014
    x = jnp.zeros((2, 3))
    assert x.at[0].set(jnp.array([1.0, 2.0, 3.0])).tolist() == [[1, 2, 3], [0, 0, 0]]
    assert x.at[:, 1].set(5.0).tolist() == [[0, 5, 0], [0, 5, 0]]
    with pytest.raises(ValueError, match=r"Incompatible types for broadcasting: input "
                                         r"type=float32\[2\] and requested "
                                         r"type=float32\[3\]"):
        x.at[0].set(jnp.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="Cannot broadcast to shape with fewer dimensions"):
        jnp.zeros(3).at[1].set(jnp.array([1.0, 2.0]))


@pytest.mark.spec("IDX-23")
def test_weak_type_of_the_result_is_the_operand_s(jax, jnp):
    x = jnp.zeros(3)
    assert x.at[0].set(jnp.float32(2)).weak_type is False
    weak = jax.lax.full((3,), 0.0)
    assert weak.weak_type and weak.at[0].set(jnp.float32(2)).weak_type


# ---------------------------------------------------------------------------
# IDX-24: mutation attempts
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-24")
def test_item_assignment_raises(jax, jnp):
    # G-AT-001
    x = jnp.zeros((3, 3), dtype=jnp.float32)
    with pytest.raises(TypeError) as info:
        x[1, :] = 1.0
    assert str(info.value) == _AT_MESSAGE
    with pytest.raises(TypeError) as info:
        x[1] += 2.0
    assert str(info.value) == _AT_MESSAGE

    def f(x):
        x[0] = 1.0
        return x
    with pytest.raises(TypeError) as info:
        jax.jit(f)(x)
    assert str(info.value) == _AT_MESSAGE


@pytest.mark.spec("IDX-24")
def test_item_deletion_raises(jax, jnp):
    # JAX 0.10.2 raises AttributeError('__delitem__'); refjax a TypeError that
    # names the .at spelling.  Both refuse.
    x = jnp.arange(3)
    with pytest.raises((TypeError, AttributeError)):
        del x[1]
    assert x.tolist() == [0, 1, 2]


@pytest.mark.spec("IDX-24")
def test_augmented_assignment_rebinds(jax, jnp):
    # G-AT-002
    a = jnp.array([10, 20])
    b = a
    b += 10
    assert (b.tolist(), a.tolist()) == ([20, 30], [10, 20])


# ---------------------------------------------------------------------------
# IDX-25: out-of-bounds updates and boolean masks
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-25")
def test_out_of_bounds_updates(jax, jnp):
    # G-AT-008, G-IDX-004
    x = jnp.arange(5.0)
    assert x.at[10].add(10).tolist() == [0, 1, 2, 3, 4]
    assert x.at[20].add(10, mode="clip").tolist() == [0, 1, 2, 3, 14]
    for mode in ("drop", "fill", "promise_in_bounds"):
        assert x.at[20].set(99, mode=mode).tolist() == [0, 1, 2, 3, 4]
    assert x.at[10].set(99.0).tolist() == [0, 1, 2, 3, 4]
    assert x.at[jnp.array([1, 10])].set(99.0).tolist() == [0, 99, 2, 3, 4]
    got = jax.jit(lambda x, i: x.at[i].add(1.0))(x, jnp.array([-6, 5, -1]))
    assert got.tolist() == [0, 1, 2, 3, 5]
    # A whole out-of-bounds window is dropped, the in-bounds part included.
    got = jnp.zeros((2, 3)).at[jnp.array([5]), 1:].set(1.0)
    assert got.tolist() == [[0, 0, 0], [0, 0, 0]]


@pytest.mark.spec("IDX-25")
def test_boolean_mask_updates(jax, jnp):
    # G-AT-015
    x = jnp.arange(-2, 2)
    assert x.at[x < 0].set(0).tolist() == [0, 0, 0, 1]
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError,
                       match=r"Array boolean indices must be concrete; got bool\[4\]"):
        jax.jit(lambda x: x.at[x < 0].set(0))(x)
    assert jax.jit(lambda x: jnp.where(x < 0, 0, x))(x).tolist() == [0, 0, 0, 1]
    assert jnp.arange(5.0).at[True].set(7).tolist() == [7.0] * 5
    assert jnp.arange(5.0).at[False].set(7).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
