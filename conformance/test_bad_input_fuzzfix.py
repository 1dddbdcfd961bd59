"""Bad calls the fuzz found, failing as JAX fails them: the argument that is
checked first decides the error class (SPEC NP-73, LAX-16).  Each body runs
on refjax and, with ``--impl=jax``, on JAX."""
import warnings

import numpy as np
import pytest

# ---------------------------------------------------------------------------
# NP-73: jax.numpy
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-73")
@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like"])
def test_like_shape_bytes_is_one_bad_dimension(jnp, name):
    with pytest.raises(TypeError, match=r"got \(b'ab',\)"):
        getattr(jnp, name)(jnp.ones(3, jnp.complex64), shape=b"ab")
    assert getattr(jnp, name)(jnp.ones(3), shape=jnp.array(2)).shape == (2,)


@pytest.mark.spec("NP-73")
def test_creation_shapes_that_numpy_sees_as_scalars(jnp):
    for shape in (b"ab", {}, "a"):
        with pytest.raises(TypeError, match="Shapes must be 1D sequences"):
            jnp.zeros(shape)
        with pytest.raises(TypeError, match="Shapes must be 1D sequences"):
            jnp.full(shape, jnp.ones(3))
    assert jnp.zeros(jnp.array(3)).shape == (3,)
    assert jnp.full(jnp.array([2, 3]), jnp.ones(3)).shape == (2, 3)


@pytest.mark.spec("NP-73")
def test_full_with_an_array_checks_shape_sharding_then_broadcast(jax, jnp):
    with pytest.raises(ValueError, match="fewer dimensions"):
        jnp.full(-1, jnp.ones((2, 3)))
    with pytest.raises(TypeError, match="nonnegative"):
        jnp.full(-1, 1.)                                # a scalar fill
    with pytest.raises(TypeError, match="out_sharding"):
        jnp.full([2, 3], jnp.arange(4.), dtype=jnp.complex64, device=True)
    with pytest.raises(ValueError, match="Incompatible types for broadcasting"):
        jnp.full((2, -1), jnp.ones(3))
    with pytest.raises(TypeError, match="nonnegative"):
        jnp.full((-1, 3), jnp.ones(3))
    with pytest.raises(ValueError, match="Incompatible types for broadcasting"):
        jnp.full_like(jnp.ones(3), jnp.ones(2))
    with pytest.raises(TypeError, match="out_sharding"):
        jnp.full_like(jnp.ones(3), jnp.ones(3), device="cpu")
    out = jnp.full(3, jnp.ones(3), device=jax.devices()[0])
    np.testing.assert_array_equal(out, np.ones(3))
    assert out.sharding.device_set == {jax.devices()[0]}


@pytest.mark.spec("NP-73")
def test_broadcast_to_order(jnp):
    with pytest.raises(ValueError, match="Incompatible types for broadcasting"):
        jnp.broadcast_to(jnp.ones(3), -1)
    with pytest.raises(TypeError, match="nonnegative"):
        jnp.broadcast_to(jnp.ones(1), (2, -1))
    with pytest.raises(TypeError, match="Shapes must be 1D sequences"):
        jnp.broadcast_to(jnp.ones(3), b"ab")
    with pytest.raises(TypeError, match="Shapes must be 1D sequences"):
        jnp.broadcast_to(jnp.ones(3), "a", out_sharding=True)
    with pytest.raises(TypeError, match="out_sharding"):
        jnp.broadcast_to(jnp.ones(3), (2, 3), out_sharding=True)
    assert jnp.broadcast_to(1., jnp.array(3)).shape == (3,)


@pytest.mark.spec("NP-73")
def test_astype_device(jax, jnp):
    for device in (True, "cpu", jax.devices()):
        with pytest.raises(ValueError, match="must be an instance of jax.sharding.Sharding"):
            jnp.astype(jnp.arange(3), jnp.float32, copy=True, device=device)
    out = jnp.astype(jnp.arange(3), jnp.float32, device=jax.devices()[0])
    assert out.dtype == jnp.float32 and out.sharding.device_set == {jax.devices()[0]}
    np.testing.assert_array_equal(out, np.arange(3.))


@pytest.mark.spec("NP-73")
def test_reshape_checks_the_shape_before_the_order(jnp):
    with pytest.raises(TypeError, match="cannot reshape"):
        jnp.reshape(jnp.arange(4.), 0, order=True)
    with pytest.raises(TypeError, match="cannot reshape"):
        jnp.reshape(jnp.arange(4.), 3, order="A")
    for order in (True, "K", None, jnp.array(1)):
        with pytest.raises(ValueError, match="Unexpected value for 'order' argument"):
            jnp.reshape(jnp.arange(4.), 4, order=order)
    with pytest.raises(NotImplementedError):
        jnp.reshape(jnp.arange(4.), 4, order="A")
    with pytest.raises(TypeError, match="out_sharding"):
        jnp.reshape(jnp.arange(4.), 4, order="F", out_sharding=True)
    np.testing.assert_array_equal(jnp.reshape(jnp.arange(6), (2, 3), order="F"),
                                  np.arange(6).reshape((2, 3), order="F"))


@pytest.mark.spec("NP-73")
def test_reshape_of_a_numpy_array_is_numpys(jnp):
    out = jnp.reshape(np.arange(6.), (2, 3))
    assert type(out) is np.ndarray and out.dtype == np.float64
    with pytest.raises(ValueError, match="cannot reshape array of size 3"):
        jnp.reshape(np.ones(3), 4)
    with pytest.raises(TypeError, match="order must be str"):
        jnp.reshape(np.ones(3), 3, order=5)
    with pytest.raises(TypeError, match="out_sharding"):
        jnp.reshape(np.ones(3), 3, out_sharding=True)


@pytest.mark.spec("NP-73")
def test_permute_dims_passes_axes_through(jnp):
    x = jnp.arange(6).reshape(2, 3)
    with pytest.raises(TypeError):
        jnp.permute_dims(x, None)
    with pytest.raises(TypeError, match="permutation"):
        jnp.permute_dims(x, (-1, 0))
    assert jnp.permute_dims(x, (1, 0)).shape == (3, 2)
    assert jnp.transpose(x, (-1, 0)).shape == (3, 2)      # transpose normalizes


@pytest.mark.spec("NP-73")
def test_dtype_queries_read_arrays_as_their_dtypes(jax, jnp):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match="Cannot interpret '2' as a data type"):
            jnp.promote_types(jnp.arange(6).reshape(2, 3), 2)
        with pytest.raises(ValueError):
            jnp.issubdtype(jnp.arange(6).reshape(2, 3), jax.random.key(0))
        with pytest.raises(ValueError):
            jnp.promote_types(jax.random.key(0), jnp.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert jnp.promote_types(jnp.arange(3), jnp.float32) == np.float32
        assert jnp.issubdtype(jnp.arange(3), np.integer)
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    with pytest.raises(ValueError, match="not a valid dtype for JAX type promotion"):
        jnp.promote_types("float32", "S3")
    with pytest.raises(TypeError):
        jnp.promote_types("S3", 2)                    # both read before either checked


# ---------------------------------------------------------------------------
# LAX-16: jax.lax
# ---------------------------------------------------------------------------

@pytest.mark.spec("LAX-16")
def test_broadcast_sizes_and_out_sharding(jax, jnp):
    lax = jax.lax
    x = jnp.ones((2, 3))
    for sizes in (3, None, jnp.array(3), jnp.array([3])):
        with pytest.raises(TypeError):
            lax.broadcast(x, sizes)
    with pytest.raises(TypeError, match="out_sharding"):
        lax.broadcast(x, (2,), out_sharding=0)
    with pytest.raises(TypeError, match="out_sharding"):
        lax.broadcast_in_dim(jnp.ones(3), (2, 3), (1,), out_sharding=0)
    assert lax.broadcast(x, b"ab").shape == (97, 98, 2, 3)
    out = lax.broadcast(2., ())
    assert out.shape == () and out.dtype == jnp.float32


@pytest.mark.spec("LAX-16")
def test_rank_and_axis_before_the_operand(jax, jnp):
    lax = jax.lax
    with pytest.raises(ValueError, match="truth value"):
        lax.broadcast_to_rank("abc", jnp.ones((2, 3)))
    with pytest.raises(TypeError):
        lax.broadcast_to_rank("abc", 2)
    assert lax.broadcast_to_rank(np.ones(3), 2).shape == (1, 3)
    with pytest.raises(ValueError, match="at least one case"):
        lax.select_n("abc")
    with pytest.raises(ValueError, match="out of bounds"):
        lax.top_k("abc", 3)
    with pytest.raises(ValueError, match="nonnegative"):
        lax.top_k("abc", -1)
    with pytest.raises(ValueError, match="out of bounds"):
        lax.top_k(jnp.ones(3, jnp.complex64), 5, axis=4)
    with pytest.raises(ValueError, match="out of bounds"):
        lax.sort_key_val(jnp.float32(1), 2.0)
    values, indices = lax.top_k(jnp.array([3., 1., 2.]), 2)
    np.testing.assert_array_equal(values, [3., 2.])
    np.testing.assert_array_equal(indices, [0, 2])


@pytest.mark.spec("LAX-16")
def test_fft_is_jitted_with_static_arguments(jax, jnp):
    lax = jax.lax
    with pytest.raises(TypeError, match="as an abstract array"):
        lax.fft("abc", jnp.ones((2, 3)), jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        lax.fft(jnp.ones(3), jnp.ones((2, 3)), (3,))
    with pytest.raises(ValueError, match="Unknown FFT type 'bogus'"):
        lax.fft(jnp.ones(3, jnp.complex64), "bogus", (3,))
    with pytest.raises(TypeError, match="Unknown FFT type value"):
        lax.fft(jnp.ones(3, jnp.complex64), 0, (3,))
    with pytest.raises(ValueError, match="only real valued inputs"):
        lax.fft(jnp.ones(3, jnp.complex64), "rfft", (3,))
    x = np.array([1., 2., 4.], np.float32)
    for name in ("fft", "FFT", lax.FftType.FFT):
        out = lax.fft(x, name, (3,))
        assert out.dtype == jnp.complex64
        np.testing.assert_allclose(out, np.fft.fft(x), rtol=1e-6)
    assert lax.fft(jnp.arange(4), "rfft", (4,)).dtype == jnp.complex64
    assert lax.fft(x, "fft", ()).dtype == jnp.complex64
    text = str(jax.make_jaxpr(lambda v: lax.fft(v, "fft", (3,)))(x))
    assert "name=fft" in text and "convert_element_type" in text
    assert "fft[fft_lengths=(3,) fft_type=0]" in text


@pytest.mark.spec("LAX-16")
def test_collectives_read_the_operand_first(jax, jnp):
    lax = jax.lax
    with pytest.raises(TypeError, match="Error interpreting argument to ppermute"):
        lax.ppermute("abc", "x", jnp.ones((2, 3)))
    with pytest.raises(NotImplementedError):
        lax.ppermute(jnp.ones(3), "x", [(0, 1)])
    assert lax.ppermute({}, "x", 5) == {}
    with pytest.raises(TypeError):
        lax.ppermute(jnp.ones(3), "x", 5)
    struct = jax.ShapeDtypeStruct((2,), jnp.float32)
    with pytest.raises(TypeError, match="Error interpreting argument to precv"):
        lax.precv("abc", struct, "x", [(0, 1)])
    with pytest.raises(NotImplementedError):
        lax.precv(lax.create_token(), struct, "x", [(0, 1)])


@pytest.mark.spec("LAX-16")
def test_scaled_dot_and_scan_argument_order(jax, jnp):
    lax = jax.lax
    with pytest.raises(ValueError, match="too many values to unpack"):
        lax.scaled_dot(jnp.ones(3, jnp.complex64), lambda x: x,
                       dimension_numbers=jnp.arange(6).reshape(2, 3))
    with pytest.raises(TypeError, match="Error interpreting argument to scaled_dot"):
        lax.scaled_dot(jnp.ones((2, 3)), jnp.ones((3, 2)), lhs_scale="abc")
    with pytest.raises(TypeError, match="not a valid JAX type"):
        lax.scan(lambda c, x: (c, x), lambda x: x, unroll=jnp.arange(6).reshape(2, 3))
    with pytest.raises(TypeError, match="not a valid JAX type"):
        lax.scan(lambda c, x: (c, x), [1., "a"], length=2)
    with pytest.raises(OverflowError):
        lax.scan(lambda c, x: (c, x), 2**70, xs="abc")
    carry, ys = lax.scan(lambda c, x: (c + x, c), 0., jnp.arange(3.))
    assert float(carry) == 3. and ys.tolist() == [0., 0., 1.]


# ---------------------------------------------------------------------------
# NP-74: stacking arrays, key dtypes, fill values and loop shapes
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-74")
def test_ragged_lists_of_arrays_fail_as_concatenate_fails(jnp):
    with pytest.raises(TypeError, match="different numbers of dimensions"):
        jnp.asarray([jnp.arange(3), 1.0])
    with pytest.raises(TypeError, match="differ in dimensions other than"):
        jnp.asarray([jnp.arange(3), jnp.arange(4.)])
    with pytest.raises(TypeError, match=r"shapes \(1, 2\), \(1, 2\), \(1, 2\), \(1, 2\), \(1, 3\)"):
        jnp.asarray([jnp.ones(2)] * 20 + [jnp.ones(3)])     # groups of 16
    with pytest.raises(ValueError, match="inhomogeneous"):
        jnp.asarray([np.arange(3), 1.0])                     # no JAX array: NumPy's
    with pytest.raises(ValueError, match="inhomogeneous"):
        jnp.asarray([jnp.arange(3), [[1, 2], [3]]])
    with pytest.raises(TypeError, match="Cannot concatenate"):
        jnp.histogram2d(jnp.arange(3), jnp.arange(4.), bins=2)
    out = jnp.asarray([jnp.arange(3), [1, 2, 3]])
    np.testing.assert_array_equal(out, [[0, 1, 2], [1, 2, 3]])
    assert out.dtype == jnp.int32
    assert jnp.asarray([[jnp.ones(2)] * 3] * 4).shape == (4, 3, 2)


@pytest.mark.spec("NP-74")
def test_array_with_key_dtypes(jax, jnp):
    k0, k1 = jax.random.key(0), jax.random.key(1)
    kd = k0.dtype
    stacked = jnp.array([k0, k1])
    assert stacked.shape == (2,) and stacked.dtype == kd
    np.testing.assert_array_equal(jax.random.key_data(stacked),
                                  np.stack([jax.random.key_data(k0), jax.random.key_data(k1)]))
    assert jnp.array([k0, k1], dtype=kd).shape == (2,)
    assert jnp.array(k0, ndmin=2).shape == (1, 1)
    assert jnp.asarray(k0, dtype=kd).dtype == kd
    assert jax.jit(lambda k: jnp.array(k, dtype=k.dtype))(k0).dtype == kd
    with pytest.raises(ValueError, match="not a valid dtype for JAX type promotion"):
        jnp.array([k0, 1])
    for make in (lambda: jnp.asarray(jnp.ones(2), dtype=kd),
                 lambda: jnp.array([jnp.ones(2), 1], dtype=kd),
                 lambda: jax.jit(lambda x: jnp.array(x, dtype=kd))(jnp.ones(2))):
        with pytest.raises(ValueError, match="Cannot convert_element_type from float32 to key"):
            make()
    with pytest.raises(ValueError, match="Cannot convert_element_type from key"):
        jnp.array(k0, dtype=jnp.float32)
    for value in (2, [], [1, jnp.ones(2)]):
        with pytest.raises(TypeError, match="Cannot interpret"):
            jnp.array(value, dtype=kd)
    with pytest.raises(ValueError, match="Cannot convert_element_type from int32 to key"):
        jnp.piecewise(k0, [True], [1, 2])


@pytest.mark.spec("NP-74")
def test_python_complex_fill_into_real_arrays(jnp):
    for make in (lambda: jnp.full_like(jnp.zeros(2), 1j),
                 lambda: jnp.full_like(jnp.zeros(2), 1 + 0j, shape=3),
                 lambda: jnp.full(2, 1j, dtype=jnp.float32),
                 lambda: jnp.full(-1, 1.5j, dtype=jnp.float32)):
        with pytest.raises(TypeError, match="float.. argument must be"):
            make()
    with pytest.raises(TypeError, match="int.. argument must be"):
        jnp.full_like(jnp.zeros(2, jnp.int32), 1j)
    np.testing.assert_array_equal(jnp.full_like(jnp.zeros(2, bool), 1j), [True, True])
    out = jnp.full(2, complex("inf"), dtype=jnp.int32)      # not finite: converted
    assert out.dtype == jnp.int32
    weak = jnp.full_like(1.0, 1j)                           # a weak target: converted
    assert weak.dtype == jnp.float32 and float(weak) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(jnp.full_like(jnp.zeros(2), np.complex64(1j)), [0., 0.])
    full = jnp.full(2, 1j)
    assert full.dtype == jnp.complex64
    np.testing.assert_array_equal(full, [1j, 1j])


@pytest.mark.spec("NP-74")
def test_unique_fill_value_broadcasts(jax, jnp):
    x = jnp.arange(3)
    for out in (jnp.unique(x, size=0, fill_value=jnp.zeros(0)),
                jnp.unique_values(x, size=0, fill_value=jnp.zeros(0)),
                jax.jit(lambda v: jnp.unique(v, size=0, fill_value=jnp.zeros(0)))(x)):
        assert out.shape == (0,) and out.dtype == jnp.int32
    out = jnp.unique(jnp.zeros((0,)), size=2, fill_value=jnp.full(2, 7.))
    np.testing.assert_array_equal(out, [7., 7.])
    with pytest.raises(ValueError, match="Incompatible types for broadcasting"):
        jnp.unique(jnp.zeros((0,)), size=2, fill_value=jnp.zeros(3))
    with pytest.raises(ValueError, match="Incompatible types for broadcasting"):
        jnp.unique(jnp.arange(6).reshape(2, 3), size=0, axis=0, fill_value=jnp.zeros(0))
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        jnp.unique(x, size=5, fill_value=jnp.zeros(2))
    rows = jnp.unique(jnp.arange(6).reshape(2, 3), size=3, axis=0, fill_value=jnp.zeros(3))
    np.testing.assert_array_equal(rows, [[0, 1, 2], [3, 4, 5], [0, 0, 0]])


@pytest.mark.spec("NP-74")
def test_diff_reads_n_and_axis_first(jnp):
    for n in (0, 1, -1):
        with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
            jnp.diff(jnp.float32(1), n=n, axis=None)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        jnp.diff(jnp.arange(3.), n=1.5, axis=None)
    assert float(jnp.diff(jnp.float32(1), n=0)) == 1.0      # n == 0 before the rank
    with pytest.raises(ValueError, match="at least one dimensional"):
        jnp.diff(jnp.float32(1))
    with pytest.raises(ValueError, match="order must be non-negative"):
        jnp.diff(jnp.arange(3.), n=-1, axis=5)
    np.testing.assert_array_equal(jnp.diff(jnp.array([1., 4., 9.])), np.diff([1., 4., 9.]))


@pytest.mark.spec("NP-74")
def test_vectorize_loop_shapes_broadcast_as_lax(jnp):
    add = jnp.vectorize(lambda a, b: a + b)
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting: shapes=\[\(2,\), \(3,\)\]"):
        add(jnp.ones(2), jnp.ones(3))
    sig = jnp.vectorize(lambda a, b: (a * b).sum(), signature="(n),(n)->()")
    with pytest.raises(ValueError, match=r"shapes=\[\(2,\), \(4,\)\]"):
        sig(jnp.ones((2, 3)), jnp.ones((4, 3)))
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        jnp.piecewise(jnp.ones((2, 3)), [jnp.ones(2, bool)], [1, 2])
    np.testing.assert_array_equal(add(jnp.ones((2, 1)), jnp.arange(3.)),
                                  np.ones((2, 1)) + np.arange(3.))


# ---------------------------------------------------------------------------
# LAX-17: Python complex conversions and sort's rank
# ---------------------------------------------------------------------------

@pytest.mark.spec("LAX-17")
def test_python_complex_to_real_dtypes(jax, jnp):
    lax = jax.lax
    with pytest.raises(TypeError, match="float.. argument must be"):
        lax.convert_element_type(1j, jnp.float32)
    with pytest.raises(TypeError, match="int.. argument must be"):
        lax.convert_element_type(1j, jnp.int8)
    with pytest.raises(TypeError, match="float.. argument must be"):
        lax.full((2,), 1j, jnp.float32)
    with pytest.raises(TypeError, match="float.. argument must be"):
        lax.full_like(jnp.zeros(2), 1j)
    with pytest.raises(TypeError, match="float.. argument must be"):
        jax.jit(lambda x: jnp.full_like(x, 1j))(jnp.zeros(2))
    assert bool(lax.convert_element_type(1j, jnp.bool_))
    assert lax.convert_element_type(complex("inf"), jnp.int32).dtype == jnp.int32
    out = lax.convert_element_type(2 + 1j, jnp.complex64)
    assert out.dtype == jnp.complex64 and complex(out) == 2 + 1j


@pytest.mark.spec("LAX-17")
def test_sort_needs_an_axis(jax, jnp):
    lax = jax.lax
    with pytest.raises(ValueError, match="axis -1 is out of bounds for array of dimension 0"):
        lax.sort(jnp.float32(1))
    with pytest.raises(ValueError, match="axis 0 is out of bounds"):
        lax.sort((jnp.float32(1), jnp.float32(2)), dimension=0, num_keys=2)
    with pytest.raises(ValueError, match="out of bounds"):
        jax.vmap(lax.sort)(jnp.ones(3))
    with pytest.raises(ValueError, match="out of bounds"):
        jax.jit(lax.sort)(jnp.float32(1))
    with pytest.raises(ValueError, match="num_keys=2 must equal 1"):
        lax.sort(jnp.float32(1), num_keys=2)              # num_keys first
    with pytest.raises(TypeError, match=r"Arguments to sort must have equal shapes, got: \(3,\) \(2,\)"):
        lax.sort((jnp.ones(3), jnp.ones(2)))
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.sort(jnp.float32(1))
    np.testing.assert_array_equal(jnp.sort(jnp.float32(1), axis=None), [1.])
    assert float(jnp.median(jnp.float32(3))) == 3.0
    np.testing.assert_array_equal(lax.sort(jnp.array([3., 1., 2.])), [1., 2., 3.])


@pytest.mark.spec("NP-74")
def test_text_is_read_as_a_dtype_name(jax, jnp):
    for text in ("float32", "float64", "f4", b"float32", ["float32"], [1.0, "float32"]):
        with pytest.raises(ValueError, match="could not convert string to float"):
            jnp.asarray(text)
    with pytest.raises(ValueError, match="invalid literal for int"):
        jnp.asarray(["bool", 1])
    with pytest.raises(ValueError, match="could not convert string to float"):
        jnp.asarray([jnp.ones(2), "float32"])
    for text in ("abc", "1.5", "", "S", "g", ["abc", "float32"]):
        with pytest.raises(TypeError, match="not a valid JAX array type"):
            jnp.asarray(text)
    out = jnp.asarray(["bool", True])
    assert out.dtype == jnp.bool_ and out.tolist() == [True, True]
    assert jnp.asarray("?").dtype == jnp.bool_
    with pytest.raises(ValueError, match="could not convert string to float"):
        jax.scipy.special.ndtr("float32")
    with pytest.raises(ValueError, match="could not convert string to float"):
        jax.random.choice(jax.random.key(0), "float32")
    with pytest.raises(TypeError, match="not a valid JAX array type"):
        jax.random.choice(jax.random.key(0), "3")
    np.testing.assert_array_equal(jnp.asarray(["1.5"], dtype=jnp.float32), [1.5])


@pytest.mark.spec("NP-74")
def test_float128_data_needs_a_requested_dtype(jnp):
    wide = np.ones(2, np.longdouble)
    if wide.dtype.itemsize <= 8:
        pytest.skip("long double is float64 here")
    with pytest.raises(TypeError):
        jnp.asarray(wide)
    with pytest.raises(TypeError, match="not a valid JAX array type"):
        jnp.asarray([np.longdouble(1)])
    out = jnp.asarray(wide, dtype=jnp.float32)
    assert out.dtype == jnp.float32
    np.testing.assert_array_equal(out, [1., 1.])


@pytest.mark.spec("NP-74")
def test_random_and_special_argument_order(jax, jnp):
    key = jax.random.PRNGKey(0)
    for n, m in ((0, -1), (2, -1), (-1, None)):
        with pytest.raises(ValueError, match="negative dimensions are not allowed"):
            jax.random.orthogonal(key, n, m=m)
    with pytest.raises(ValueError, match="must be a float or complex dtype"):
        jax.random.orthogonal(key, -1, dtype=jnp.int32)
    q = jax.random.orthogonal(key, 3)
    np.testing.assert_allclose(q @ q.T, np.eye(3), atol=1e-5)
    with pytest.raises(OverflowError):
        jax.scipy.special.log_ndtr(-2**70, series_order=1.0)
    with pytest.raises(TypeError):
        jax.scipy.special.log_ndtr("abc", series_order=1.0)
    with pytest.raises(TypeError, match="series_order must be a Python integer"):
        jax.scipy.special.log_ndtr(None, series_order=1.0)
    from scipy import special
    np.testing.assert_allclose(jax.scipy.special.log_ndtr([1., 2.], series_order=1),
                               special.log_ndtr([1., 2.]), rtol=1e-6)


@pytest.mark.spec("NP-74")
def test_unjitted_functions_take_big_python_ints(jax, jnp):
    for f in (jax.nn.logsumexp, jax.scipy.special.logsumexp):
        out = f(2**70)
        assert out.dtype == jnp.float32
        np.testing.assert_allclose(out, np.float32(2.0**70))
    assert float(jax.nn.gelu(-2**70)) == 0.0
    assert float(jax.nn.gelu(-2**70, approximate=False)) == 0.0
    for f in (jnp.sin, jax.nn.sigmoid):
        with pytest.raises(OverflowError):
            f(2**70)
    out = jax.lax.full((2,), 2**70, jnp.float32)
    np.testing.assert_allclose(out, np.full(2, 2.0**70, np.float32))


@pytest.mark.spec("LAX-17")
def test_pad_and_padtype_to_pads_order(jax, jnp):
    lax = jax.lax
    with pytest.raises(ValueError, match="padding_value must be a scalar"):
        lax.pad(1j, jnp.eye(3), (0,))
    with pytest.raises(TypeError):
        lax.pad(jnp.ones(3), 0., (0,))
    with pytest.raises(ValueError, match="not enough values to unpack"):
        lax.pad(jnp.ones(3), 0., [(0,)])
    np.testing.assert_array_equal(lax.pad(jnp.ones(3), 0., [(1, 1, 0)]), [0, 1, 1, 1, 0])
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        lax.padtype_to_pads(1.0, jnp.ones((2, 3)), (2, 3), "same")
    with pytest.raises(ValueError, match="could not be broadcast"):
        lax.padtype_to_pads((4, 5), (2, 2), (2, 3, 4), "same")
    assert lax.padtype_to_pads((4, 5), (2, 2), (2,), "same") == [(0, 0), (0, 1)]
    assert lax.padtype_to_pads((4, 5), (3, 2), (1, 1), "same_lower") == [(1, 1), (1, 0)]
    assert lax.padtype_to_pads((4, 5), (2, 2), (1, 1), "valid") == [(0, 0), (0, 0)]
    pads = lax.padtype_to_pads((5,), (4,), (2,), "same")
    assert pads == [(1, 2)] and type(pads[0][0]) is int


@pytest.mark.spec("LAX-17")
def test_conv_preferred_element_type_rule(jax, jnp):
    lax = jax.lax
    x, k = jnp.ones((1, 1, 3)), jnp.ones((1, 1, 2))

    def conv(dtype, pet, **kw):
        return lax.conv(x.astype(dtype), k.astype(dtype), (1,), "same",
                        preferred_element_type=pet, **kw)
    for dtype, pet in ((jnp.float32, jnp.int32), (jnp.float32, jnp.complex64),
                       (jnp.float32, jax.dtypes.prng_key)):
        with pytest.raises(TypeError, match="Input type is incompatible"):
            conv(dtype, pet)
    with pytest.raises(TypeError, match="same signedness"):
        conv(jnp.int8, jnp.uint8)
    for dtype, pet in ((jnp.float32, jnp.float16), (jnp.int16, jnp.int8)):
        with pytest.raises(TypeError, match="must not be narrower"):
            conv(dtype, pet)
    with pytest.raises(ValueError, match="Precision argument must be one of"):
        conv(jnp.float32, jax.dtypes.prng_key, precision="VALID")
    for dtype, pet in ((jnp.int8, jnp.float16), (jnp.uint8, jnp.int32), (jnp.bool_, jnp.int32),
                       (jnp.bfloat16, jnp.float32)):
        out = conv(dtype, pet)
        assert out.dtype == pet
        np.testing.assert_array_equal(out.astype(jnp.float32), [[[2., 2., 1.]]])


@pytest.mark.spec("LAX-17")
def test_logistic_accepts_any_accuracy(jax, jnp):
    lax = jax.lax
    x = jnp.array([-1., 0., 2.])
    expected = 1 / (1 + np.exp(-np.array([-1., 0., 2.])))
    for accuracy in ("x", object()):
        np.testing.assert_allclose(lax.logistic(x, accuracy=accuracy), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(lambda v: lax.logistic(v, accuracy="x"))(x),
                               expected, rtol=1e-6)
    with pytest.raises(TypeError, match="unhashable"):
        lax.logistic(x, accuracy=[])
    with pytest.raises(NotImplementedError, match="not supported"):
        lax.exp(x, accuracy="x")


@pytest.mark.spec("SPC-7")
def test_gamma_of_complex_arguments(jax, jnp):
    from scipy import special
    z = np.array([1, 1 + 1j, 2.5 - 0.5j, -1.5 + 0.2j, 0.3 + 4j, -3.7 - 2j, 1e-3 + 1e-3j,
                  5 + 0j], np.complex64)
    out = jax.scipy.special.gamma(jnp.asarray(z))
    assert out.dtype == jnp.complex64
    np.testing.assert_allclose(out, special.gamma(z.astype(np.complex128)), rtol=2e-5)
    for pole in (0j, -2 + 0j, complex(np.nan, 1.0)):
        value = complex(jax.scipy.special.gamma(jnp.asarray([pole], jnp.complex64))[0])
        assert np.isnan(value.real) and np.isnan(value.imag)
    with jax.enable_x64(True):
        wide = jax.scipy.special.gamma(jnp.asarray(z.astype(np.complex128)))
        assert wide.dtype == jnp.complex128
        np.testing.assert_allclose(wide, special.gamma(z.astype(np.complex128)), rtol=1e-12)


# ---------------------------------------------------------------------------
# NP-75: ndmin, swapaxes, unstack, array_equiv, isdtype, reshape of text
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-75")
def test_array_ndmin_read_as_jax_reads_it(jax, jnp):
    x = jnp.eye(3)
    assert jnp.array(x, dtype=jnp.float32, ndmin=1.0).shape == (3, 3)
    assert jnp.array(x, ndmin=np.array([1])).shape == (3, 3)
    for ndmin in (3.0, np.array([3]), "a", None, [1, 2]):
        with pytest.raises(TypeError):
            jnp.array(x, ndmin=ndmin)
    for dtype in (None, jnp.float32):
        with pytest.raises(ValueError, match="truth value"):
            jnp.array(1.0, ndmin=np.array([1, 2]), dtype=dtype)
    with pytest.raises(ValueError, match="could not convert string"):
        jnp.array("float32", ndmin="x")              # the data first
    assert jnp.array([1, 2], ndmin=3).shape == (1, 1, 2)
    assert jax.jit(lambda a: jnp.array(a, ndmin=2))(1.).shape == (1, 1)


@pytest.mark.spec("NP-75")
def test_swapaxes_and_unstack_axes(jnp):
    x = jnp.eye(3)
    for axes in ((0, None), (..., 0)):
        with pytest.raises(ValueError, match="setting an array element with a sequence"):
            jnp.swapaxes(x, *axes)
    assert jnp.swapaxes(x, None, None).shape == (3, 3)
    with pytest.raises(IndexError):
        jnp.swapaxes(x, 0, 5)
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        jnp.swapaxes(x, [0, 1], 1)
    y = np.arange(24.).reshape(2, 3, 4)
    np.testing.assert_array_equal(jnp.swapaxes(jnp.asarray(y), 0, -1), np.swapaxes(y, 0, -1))
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        jnp.unstack(jnp.ones((2, 3)), axis=[0])
    with pytest.raises(TypeError):
        jnp.unstack(1.5, axis=None)
    with pytest.raises(ValueError, match="out of bounds for array of dimension 0"):
        jnp.unstack(1.5)
    parts = jnp.unstack(jnp.asarray(y[0]), axis=1)
    assert len(parts) == 4 and parts[0].tolist() == y[0][:, 0].tolist()


@pytest.mark.spec("NP-75")
def test_array_equiv_and_isdtype(jax, jnp):
    with pytest.raises(TypeError, match="incompatible shapes"):
        jnp.array_equiv(jnp.eye(3), jnp.ones((2, 3)))
    assert not bool(jnp.array_equiv(jnp.eye(3), jnp.ones(2)))
    assert not bool(jnp.array_equiv(jnp.ones((2, 3)), jnp.ones((4, 5, 3))))
    assert bool(jnp.array_equiv(jnp.ones((2, 3)), jnp.ones((4, 1, 3))))
    key = jax.random.key(0)
    for kind in (key, (jnp.bool_, key)):
        with pytest.raises(ValueError, match="NumPy dtype"):
            jnp.isdtype(jnp.bool_, kind)
    with pytest.raises(ValueError, match="NumPy dtype"):
        jnp.isdtype(key, "bool")
    with pytest.raises(ValueError, match="Unrecognized kind"):
        jnp.isdtype(jnp.float32, ("real floating", "abc"))   # every kind is read
    assert jnp.isdtype(jnp.float32, ("bool", "real floating"))
    assert not jnp.isdtype(jnp.int8, ("bool", jnp.float32))


@pytest.mark.spec("NP-75")
def test_reshape_of_text(jnp):
    with pytest.raises(ValueError, match="could not convert string to float"):
        jnp.reshape("float32", ())
    with pytest.raises(TypeError, match="not a valid JAX array type"):
        jnp.reshape("abc", ())
    with pytest.raises(TypeError, match="requires ndarray or scalar"):
        jnp.reshape([1, 2], (2,))
    assert jnp.reshape(3, (1,)).tolist() == [3]
