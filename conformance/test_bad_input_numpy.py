"""Bad input to jax.numpy found by the fuzz harness (issue 21): JAX's error
class, or JAX's result where JAX returns one (SPEC NP-72, IDX-38).

Every case here was run on JAX 0.10.2; the classes and values asserted are
the ones it gave.
"""
import numpy as np
import pytest


# ---------------------------------------------------------------------------
# IDX-38: index entries and update values
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-38")
def test_python_int_index_outside_int32_overflows_before_the_bounds_check(jnp):
    for x, index in ((jnp.zeros(0), (2**62, None)), (jnp.zeros(0), -2**62),
                     (jnp.zeros((0, 2)), (2**62, 1)), (jnp.zeros(3), 2**64)):
        with pytest.raises(OverflowError, match="too large to convert to int32"):
            x[index]
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 0"):
        jnp.zeros(0)[2**31 - 1]


@pytest.mark.spec("IDX-38")
def test_unhashable_scatter_flags_are_a_type_error(jnp):
    x = jnp.eye(3)
    with pytest.raises(TypeError, match="unhashable"):
        x.at[np.array([0, 1])].set(1.0, unique_indices=slice(None))
    with pytest.raises(TypeError, match="unhashable"):
        x.at[np.array([0, 1])].add(1.0, indices_are_sorted=[1])
    # No scatter flag is looked at for a scalar index or a read.
    assert x.at[0].set(1.0, unique_indices=slice(None)).shape == (3, 3)
    assert x.at[np.array([0, 1])].get(unique_indices=slice(None)).shape == (2, 3)


@pytest.mark.spec("IDX-38")
def test_an_update_named_like_a_dtype_is_text_that_is_no_number(jnp):
    for x, value in ((jnp.zeros((0, 3)), "float32"), (jnp.zeros((2, 3)), "int8"),
                     (jnp.zeros((2, 3), bool), "float32")):
        with pytest.raises(ValueError):
            x.at[0].set(value)
    for value in ("abc", "1.5"):
        with pytest.raises(TypeError, match="not a valid JAX array type"):
            jnp.zeros((2, 3)).at[0].set(value)


# ---------------------------------------------------------------------------
# NP-72: static arguments
# ---------------------------------------------------------------------------

_NON_HASHABLE = "Non-hashable static arguments are not supported"


@pytest.mark.spec("NP-72")
def test_unhashable_static_arguments_are_a_value_error(jnp):
    x, m = jnp.arange(3), jnp.eye(3)
    calls = [
        lambda: jnp.linalg.vector_norm(x, axis=0, keepdims=jnp.array(1)),
        lambda: jnp.linalg.norm(jnp.arange(3.), ord=jnp.array(1)),
        lambda: jnp.linalg.norm(jnp.arange(3.), axis=[0]),
        lambda: jnp.linalg.matrix_norm(m, keepdims=jnp.array(1)),
        lambda: jnp.linalg.svd(m, full_matrices=[1]),
        lambda: jnp.linalg.svd(m, compute_uv=jnp.array(1)),
        lambda: jnp.linalg.cholesky(m, upper=[1]),
        lambda: jnp.linalg.eigh(m, symmetrize_input=[1]),
        lambda: jnp.linalg.eigvalsh(m, symmetrize_input=[1]),
        lambda: jnp.linalg.matrix_rank(m, hermitian=[1]),
        lambda: jnp.linalg.pinv(m, hermitian=[1]),
        lambda: jnp.average(x, returned=jnp.float32(2.)),
        lambda: jnp.average(x, keepdims=[1]),
        lambda: jnp.sum(x, keepdims=jnp.array(1)),
        lambda: jnp.prod(x, promote_integers=[1]),
        lambda: jnp.max(x, keepdims=[1]),
        lambda: jnp.all(x, keepdims=[1]),
        lambda: jnp.mean(x, keepdims=[1]),
        lambda: m.swapaxes([[1, 2], [3]], 0),
        lambda: jnp.swapaxes(m, jnp.array(1), 0),
        lambda: m.swapaxes(0, {}),
        lambda: jnp.zeros((0, 3)).ravel(jnp.zeros(2, jnp.uint32)),
        lambda: jnp.ravel(jnp.ones(3), out_sharding=[1]),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=_NON_HASHABLE):
            call()
    # Hashable values, and arguments that are not static, are fine.
    assert jnp.linalg.vector_norm(jnp.arange(3.), ord=jnp.array(1)).shape == ()
    assert jnp.average(x, axis=[0]).shape == ()
    assert jnp.argmax(x, keepdims=jnp.array(1)).shape == (1,)


@pytest.mark.spec("NP-72")
def test_unhashable_out_sharding_is_a_type_error(jnp):
    with pytest.raises(TypeError, match="unhashable"):
        jnp.broadcast_to(2, 0, out_sharding=jnp.ones((2, 2, 2)))
    with pytest.raises(TypeError, match="unhashable"):
        jnp.reshape(jnp.ones(3), 3, out_sharding=[1])


@pytest.mark.spec("NP-72")
def test_out_that_is_no_array_is_a_type_error(jnp):
    x = jnp.arange(3)
    for fun in (jnp.mean, jnp.sum, jnp.max, jnp.all, jnp.prod, jnp.any):
        for out in (slice(None), "bogus"):
            with pytest.raises(TypeError):
                fun(x, out=out, keepdims=True)
        with pytest.raises(NotImplementedError, match="The 'out' argument"):
            fun(x, out=np.ones(3))
    # argmax checks ``out`` itself.
    with pytest.raises(NotImplementedError, match="The 'out' argument"):
        jnp.argmax(x, out=slice(None))


@pytest.mark.spec("NP-72")
def test_mean_and_var_of_keys_are_a_type_error_whatever_the_axis(jax, jnp):
    key = jax.random.key(0)
    for call in (lambda: jnp.mean(key, axis=-1), lambda: jnp.var(key, axis=-1),
                 lambda: jnp.std(key, axis=-1), lambda: jax.nn.standardize(key, axis=-1)):
        with pytest.raises(TypeError, match="Cannot interpret"):
            call()
    with pytest.raises(ValueError, match="axis 0 is out of bounds"):
        jnp.average(None, axis=0, weights=jnp.eye(3))
    # An axis out of range of a 0-d float is JAX's own IndexError.
    with pytest.raises(IndexError):
        jnp.mean(jnp.float32(1.), axis=-1)


# ---------------------------------------------------------------------------
# NP-72: shapes, axes and conversions
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-72")
def test_swapaxes_of_two_nones_is_the_array(jnp):
    x = jnp.arange(3)
    np.testing.assert_array_equal(x.swapaxes(None, None), x)


@pytest.mark.spec("NP-72")
def test_axes_may_be_any_iterable(jnp):
    x = jnp.ones((1, 3))
    assert jnp.ones(3, jnp.complex64).squeeze({}).shape == (3,)
    assert x.squeeze({0: 1}).shape == (3,)
    assert x.squeeze({0}).shape == (3,)
    assert x.squeeze("").shape == (1, 3)
    assert jnp.expand_dims(x, {}).shape == (1, 3)
    assert jnp.moveaxis(x, {0}, {1}).shape == (3, 1)
    with pytest.raises(TypeError):
        x.squeeze("a")
    # ``size`` takes only a tuple or list of axes.
    with pytest.raises(TypeError):
        jnp.size(x, {1})


@pytest.mark.spec("NP-72")
def test_broadcast_shapes_returns_array_sizes_as_given(jnp):
    out = jnp.broadcast_shapes(jnp.arange(3), jnp.arange(3))
    assert len(out) == 3 and all(isinstance(d, type(jnp.arange(3))) for d in out)
    assert [int(d) for d in out] == [0, 1, 2]
    out = jnp.broadcast_shapes((jnp.array(3),), (1,))
    assert isinstance(out[0], type(jnp.arange(3))) and int(out[0]) == 3
    assert jnp.broadcast_shapes((jnp.array(1),), (3,)) == (3,)
    assert jnp.broadcast_shapes((2, 3), (1, 3)) == (2, 3)


@pytest.mark.spec("NP-72")
def test_iscomplexobj_converts_its_argument(jnp):
    with pytest.raises(ValueError):
        jnp.iscomplexobj([[1, 2], [3]])
    with pytest.raises(ValueError):
        jnp.isrealobj([[1, 2], [3]])
    for bad in (..., {}, b"ab", slice(None)):
        with pytest.raises(TypeError):
            jnp.iscomplexobj(bad)
    assert jnp.isrealobj([]) is True and jnp.iscomplexobj([]) is False
    assert jnp.iscomplexobj("abc") is False and jnp.iscomplexobj(None) is False
    assert jnp.iscomplexobj(2**70) is False and jnp.iscomplexobj(1j) is True
    assert jnp.iscomplexobj((1, 2j)) is True


@pytest.mark.spec("NP-72")
def test_order_other_than_k_is_not_implemented(jax, jnp):
    for call in (lambda: jnp.copy(jax.random.PRNGKey(0), order="same"),
                 lambda: jnp.copy(jnp.ones(3), order="C"),
                 lambda: jnp.array([1, 2], order="F"),
                 lambda: jnp.asarray(jnp.ones(3), order="C")):
        with pytest.raises(NotImplementedError, match="Only implemented for order='K'"):
            call()
    assert jnp.copy(jnp.ones(3), order="K").shape == (3,)
    assert jnp.array(jnp.ones(3), order=None).shape == (3,)


@pytest.mark.spec("NP-72")
def test_text_is_parsed_into_an_explicit_dtype(jnp):
    assert float(jnp.asarray("1.5", dtype=jnp.float32)) == 1.5
    assert int(jnp.asarray("1", dtype=jnp.int32)) == 1
    np.testing.assert_array_equal(jnp.array(["1", "2"], dtype=jnp.float32), [1., 2.])
    for call in (lambda: jnp.asarray("abc", dtype=jnp.float32),
                 lambda: jnp.asarray("abc", dtype=jnp.int32),
                 lambda: jnp.array(["a", 1.], dtype=jnp.float32),
                 lambda: jnp.asarray(np.array(["a"]), dtype=jnp.float32)):
        with pytest.raises(ValueError):
            call()
    # Without a dtype, text is no array.
    with pytest.raises(TypeError, match="not a valid JAX array type"):
        jnp.asarray("1.5")


@pytest.mark.spec("NP-72")
def test_tri_offset_must_be_an_integer(jnp):
    for k in (True, False):
        with pytest.raises(TypeError, match="offset must be an integer"):
            jnp.tri(3, k=k, M=0)
    for k in (1.5, "a", None):
        with pytest.raises(TypeError):
            jnp.tri(3, k=k)
    assert jnp.tri(3, k=np.int64(1)).shape == (3, 3)
    assert jnp.tri(3, k=jnp.array(1)).shape == (3, 3)


# ---------------------------------------------------------------------------
# NP-72: jax.numpy.fft
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-72")
def test_fftfreq_of_a_whole_float_and_of_a_sequence(jnp):
    np.testing.assert_allclose(jnp.fft.fftfreq(1.0), [0.])
    np.testing.assert_allclose(jnp.fft.fftfreq(4.0), np.fft.fftfreq(4), rtol=1e-6)
    np.testing.assert_allclose(jnp.fft.rfftfreq(3.0), np.fft.rfftfreq(3), rtol=1e-6)
    with pytest.raises(ValueError, match="fftfreq only takes an int"):
        jnp.fft.fftfreq((0,))
    with pytest.raises(ValueError, match="rfftfreq only takes an int"):
        jnp.fft.rfftfreq([2, 3])
    with pytest.raises(ValueError):
        jnp.fft.fftfreq(float("nan"))
    with pytest.raises(OverflowError):
        jnp.fft.fftfreq(float("inf"))


@pytest.mark.spec("NP-72")
def test_fft_checks_lengths_and_axes_before_norm(jnp):
    x, m = jnp.ones(2), jnp.eye(3)
    type_errors = [
        lambda: jnp.fft.hfft(m, axis=None, norm="highest"),
        lambda: jnp.fft.ihfft(m, norm="VALID", n=(2, -1)),
        lambda: jnp.fft.fft(x, n=(2, -1), norm="bad"),
        lambda: jnp.fft.fft(x, axis="a", norm="bad"),
        lambda: jnp.fft.fftn(x, norm="bad", s=(2, "a")),
        lambda: jnp.fft.hfft(x, n=(2, -1), norm="bad"),
        lambda: jnp.fft.fft("abc", norm="bad"),
    ]
    for call in type_errors:
        with pytest.raises(TypeError):
            call()
    for call in (lambda: jnp.fft.fft(x, axis=5, norm="bad"),
                 lambda: jnp.fft.fft(x, n=-1, norm="bad")):
        with pytest.raises(ValueError):
            call()
    with pytest.raises(ValueError, match="Invalid norm value"):
        jnp.fft.fft(x, norm="bad")


@pytest.mark.spec("NP-72")
def test_one_axis_transforms_refuse_several_axes(jnp):
    x = jnp.ones(2)
    for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
        for axis in ((0, 0), (0,), [0]):
            with pytest.raises(ValueError, match=f"{name} does not support multiple axes"):
                getattr(jnp.fft, name)(x, axis=axis)


@pytest.mark.spec("NP-72")
def test_one_axis_transform_with_axis_none_is_the_nd_transform(jnp):
    x = jnp.arange(6.).reshape(2, 3)
    np.testing.assert_allclose(jnp.fft.fft(x, axis=None), np.fft.fftn(np.arange(6.).reshape(2, 3)),
                               rtol=1e-5, atol=1e-5)
    assert jnp.fft.rfft(x, axis=None).shape == (2, 2)
    assert jnp.fft.irfft(x, axis=None, n=4).shape == (2, 4)


@pytest.mark.spec("NP-72")
def test_two_dimensional_transforms_need_two_axes(jnp):
    x = jnp.ones((2, 3))
    for axes in ("abc", (0,), (0, 1, 1)):
        with pytest.raises(ValueError, match="only supports 2 axes"):
            jnp.fft.irfft2(x, axes=axes, norm="VALID")
    with pytest.raises(ValueError, match="only supports 2 axes"):
        jnp.fft.fft2("abc", axes=(0, 0, 0))
    with pytest.raises(TypeError):
        jnp.fft.fft2(x, axes="ab")


@pytest.mark.spec("NP-72")
def test_out_sharding_must_be_a_named_sharding_or_partition_spec(jax, jnp):
    x = jnp.ones(3)
    for call in (lambda: jnp.broadcast_to(x, [2, 3], out_sharding=2**70),
                 lambda: jnp.broadcast_to(x, [2, 3], out_sharding="x"),
                 lambda: jnp.reshape(x, 3, out_sharding=2),
                 lambda: jnp.ravel(x, out_sharding=2)):
        with pytest.raises(TypeError, match="only supports instances of `NamedSharding`"):
            call()
    with pytest.raises(ValueError, match="not under a mesh context"):
        jnp.ravel(x, out_sharding=jax.sharding.PartitionSpec())
    mesh = jax.make_mesh((1,), ("x",))
    named = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
    assert jnp.broadcast_to(x, [2, 3], out_sharding=named).shape == (2, 3)


@pytest.mark.spec("NP-72")
def test_static_arguments_hash_before_the_array_is_checked(jnp):
    with pytest.raises(ValueError, match=_NON_HASHABLE):
        jnp.linalg.svd([], subset_by_index=jnp.arange(6).reshape(2, 3))
    with pytest.raises(ValueError, match=_NON_HASHABLE):
        jnp.prod(jnp.ones(3), dtype=[[1, 2], [3]])
    with pytest.raises(NotImplementedError, match="order='K'"):
        jnp.copy("abc", order="same")


@pytest.mark.spec("NP-72")
def test_reshape_to_an_iterable_of_integers(jnp):
    x = jnp.zeros((2, 3))
    assert jnp.reshape(x, jnp.array([3, 2])).shape == (3, 2)
    assert jnp.reshape(x, np.array([3, 2])).shape == (3, 2)
    assert x.reshape(jnp.array([3, 2]), order="F").shape == (3, 2)
    assert jnp.reshape(jnp.zeros((0, 3)), jnp.array([3, 0])).shape == (3, 0)
    for shape in (np.array([[3, 2]]), jnp.array([3., 2.]), "ab", range(1, 7)):
        with pytest.raises(TypeError):
            jnp.reshape(x, shape)


@pytest.mark.spec("NP-72")
def test_fft_checks_the_axes_before_the_dtype_and_n_before_the_axis(jnp):
    with pytest.raises(TypeError):
        jnp.fft.rfft2(jnp.ones(3, jnp.complex64), axes=[[1, 2], [3]])
    with pytest.raises(ValueError, match="repeated axes|unique axes"):
        jnp.fft.rfft2(jnp.ones((3, 3), jnp.complex64), axes=(0, 0))
    with pytest.raises(TypeError):
        jnp.fft.hfft(float("nan"), n=[2, 3])
    with pytest.raises(ValueError, match="only real valued inputs"):
        jnp.fft.rfft(jnp.ones(3, jnp.complex64), norm="bad")


@pytest.mark.spec("NP-72")
def test_array_arguments_are_read_before_static_ones_are_hashed(jax, jnp):
    # A value that is no array at all fails first, as under JAX's jit.
    with pytest.raises(TypeError, match="as an abstract array"):
        jnp.linalg.norm(..., ord=[2, 3])
    with pytest.raises(TypeError, match="as an abstract array"):
        jnp.linalg.svd("abc", full_matrices=[1])
    # An object with a shape and dtype is an array argument: ``out`` is then
    # refused as unsupported.
    with pytest.raises(NotImplementedError, match="The 'out' argument"):
        jnp.any(jnp.zeros((0, 3)), out=jax.ShapeDtypeStruct((2,), jnp.float32))
    # ``order`` is checked before ``out_sharding``.
    with pytest.raises(ValueError, match="Unexpected value for 'order' argument"):
        jnp.ravel(jnp.ones((2, 3)), out_sharding="cpu", order="VALID")


@pytest.mark.spec("IDX-38")
def test_a_ragged_list_in_an_index_is_a_type_error(jnp):
    x = jnp.ones((2, 3))
    for call in (lambda: x[[[1, 2], [3]], 0],
                 lambda: jnp.float32(2.)[None, [[1, 2], [3]]],
                 lambda: x.at[[[1, 2], [3]], 0].set(1.)):
        with pytest.raises(TypeError):
            call()
    assert x[[[1, 0], [0, 1]], 0].shape == (2, 2)


@pytest.mark.spec("NP-72")
def test_searchsorted_checks_its_arrays_before_side(jnp):
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
        jnp.searchsorted([1., 2.], 2, side="fill")
    with pytest.raises(ValueError, match="invalid argument side"):
        jnp.searchsorted(jnp.ones(2), 2, side="fill")
