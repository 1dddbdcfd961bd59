"""Bad input to lax and jax.numpy: JAX's error class, or JAX's result where
JAX returns one (SPEC LAX-12, IDX-37, NP-71, CF-91).

Every case here was run on JAX 0.10.2; the classes and values asserted are
the ones it gave.  ``A`` is ``jnp.ones((2, 3))`` throughout.
"""
import numpy as np
import pytest


@pytest.fixture
def lax(jax):
    return jax.lax


@pytest.fixture
def A(jnp):
    return jnp.ones((2, 3))


def _dn(lc, rc, lb=(), rb=()):
    return ((lc, rc), (lb, rb))


# ---------------------------------------------------------------------------
# LAX-12: contractions, convolutions, conversions, collapse, cumulative ops
# ---------------------------------------------------------------------------

@pytest.mark.spec("LAX-12")
@pytest.mark.parametrize("precision", ["bogus", "HIGH", 3, ("high",), ("high", "bogus"),
                                       ("high", "high", "high"), (None, None)])
def test_unknown_precision_is_a_value_error(jax, jnp, lax, A, precision):
    for call in (lambda: jnp.dot(A, A.T, precision=precision),
                 lambda: lax.dot(A, A.T, precision=precision),
                 lambda: jnp.matmul(A, A.T, precision=precision),
                 lambda: jnp.einsum("ij,kj", A, A, precision=precision)):
        with pytest.raises(ValueError, match="Precision argument must be one of"):
            call()


@pytest.mark.spec("LAX-12")
@pytest.mark.parametrize("precision", ["highest", "float32", "high", "bfloat16_3x",
                                       "tensorfloat32", "default", "bfloat16", "fastest",
                                       ("high", "highest"), ("default", "default")])
def test_precision_names_jax_accepts(jnp, lax, A, precision):
    np.testing.assert_array_equal(lax.dot(A, A.T, precision=precision), np.full((2, 2), 3.))
    np.testing.assert_array_equal(jnp.dot(A, A.T, precision=precision), np.full((2, 2), 3.))
    if isinstance(precision, tuple):  # lax.dot also takes a list
        np.testing.assert_array_equal(lax.dot(A, A.T, precision=list(precision)),
                                      np.full((2, 2), 3.))


@pytest.mark.spec("LAX-12")
def test_precision_enum_values(lax, A):
    P = lax.Precision
    for precision in (P.HIGHEST, (P.HIGH, P.DEFAULT)):
        np.testing.assert_array_equal(lax.dot(A, A.T, precision=precision),
                                      np.full((2, 2), 3.))


@pytest.mark.spec("LAX-12")
@pytest.mark.parametrize("lhs, rhs, dims", [
    ("scalar", "A", _dn((1,), (1,))),
    ("A", "scalar", _dn((1,), (0,))),
    ("A", "A", _dn((-1,), (1,))),
    ("A", "A", _dn((1,), (1,), (5,), (0,))),
    ("A", "A", _dn((1,), (3,))),
])
def test_dot_general_dimension_numbers_out_of_range(lax, A, lhs, rhs, dims):
    ops = {"scalar": 1.0, "A": A}
    with pytest.raises(TypeError, match="dot_general requires (lhs|rhs) dimension numbers "
                       "to be nonnegative"):
        lax.dot_general(ops[lhs], ops[rhs], dims)


@pytest.mark.spec("LAX-12")
def test_dot_general_unpaired_dimension_numbers(lax, A):
    with pytest.raises(TypeError):
        lax.dot_general(A, A, _dn((1,), (1,), (0,), ()))
    with pytest.raises(TypeError):
        lax.dot_general(A, A, _dn((1,), ()))
    with pytest.raises(TypeError):
        lax.dot_general(A, A, _dn((1, 1), (1, 1)))


@pytest.mark.spec("LAX-12")
def test_object_preferred_element_type(jnp, lax, A):
    lhs, rhs = jnp.ones((1, 1, 4, 4)), jnp.ones((1, 1, 2, 2))
    calls = [lambda: lax.dot(A, A.T, preferred_element_type=object),
             lambda: lax.dot_general(A, A, _dn((1,), (1,)), preferred_element_type=object),
             lambda: jnp.dot(A, A.T, preferred_element_type=object),
             lambda: lax.conv(lhs, rhs, (1, 1), "VALID", preferred_element_type=object),
             lambda: lax.conv_general_dilated(lhs, rhs, (1, 1), "VALID",
                                              preferred_element_type=object)]
    for call in calls:
        with pytest.raises(TypeError, match="JAX only supports number"):
            call()


@pytest.mark.spec("LAX-12")
@pytest.mark.parametrize("strides", [(0, 1), (1, 0), (-1, 1)])
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_conv_window_strides_below_one(jnp, lax, strides, padding):
    lhs, rhs = jnp.ones((1, 1, 4, 4)), jnp.ones((1, 1, 2, 2))
    with pytest.raises(ValueError):
        lax.conv(lhs, rhs, strides, padding)


@pytest.mark.spec("LAX-12")
def test_conv_rhs_dilation_below_one(jnp, lax):
    lhs, rhs = jnp.ones((1, 1, 4, 4)), jnp.ones((1, 1, 2, 2))
    with pytest.raises(TypeError, match=r"All dilations must be positive, got \(0, 1\)"):
        lax.conv_general_dilated(lhs, rhs, (1, 1), "VALID", rhs_dilation=(0, 1))


@pytest.mark.spec("LAX-12")
def test_convert_element_type_needs_a_dtype(lax, A):
    for operand in (A, 1.0):
        with pytest.raises(ValueError, match="dtype must be specified"):
            lax.convert_element_type(operand, None)


@pytest.mark.spec("LAX-12")
def test_convert_element_type_of_a_huge_python_int(jax, jnp, lax):
    out = lax.convert_element_type(2**70, jnp.float32)
    assert out.dtype == jnp.float32 and not out.weak_type
    assert float(out) == float(np.float32(2.0**70))
    big = float(np.float32(2.0**70))
    assert float(lax.convert_element_type(-2**70, jnp.float32)) == -big
    assert complex(lax.convert_element_type(2**70, jnp.complex64)) == complex(big)
    assert bool(lax.convert_element_type(2**70, jnp.bool_)) is True
    under_jit = jax.jit(lambda: lax.convert_element_type(2**70, jnp.float32))()
    assert float(under_jit) == float(out)
    with pytest.raises(OverflowError):
        lax.convert_element_type(2**70, jnp.int32)
    with pytest.raises(OverflowError):
        lax.convert_element_type(2**1100, jnp.float32)


@pytest.mark.spec("LAX-12")
@pytest.mark.parametrize("args, shape", [
    ((None,), (24,)), ((None, None), (24,)), ((-2,), (2, 12)), ((1,), (2, 12)),
    ((0, 2), (6, 4)), ((5,), (2, 3, 4, 1)), ((-5,), (24,)), ((1, -1), (2, 3, 4)),
    ((0, 0), (1, 2, 3, 4)),
])
def test_collapse_bounds_read_as_a_slice(jnp, lax, args, shape):
    x = jnp.arange(24.).reshape(2, 3, 4)
    out = lax.collapse(x, *args)
    assert out.shape == shape
    np.testing.assert_array_equal(np.asarray(out).ravel(), np.arange(24.))


@pytest.mark.spec("LAX-12")
def test_collapse_bad_bounds(jnp, lax):
    x = jnp.ones((2, 3, 4))
    with pytest.raises(ValueError, match="Invalid dimension range passed to collapse"):
        lax.collapse(x, 2, 1)
    with pytest.raises(TypeError):
        lax.collapse(x, "a")


@pytest.mark.spec("LAX-12")
@pytest.mark.parametrize("name", ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"])
def test_lax_cumulative_reductions_reject_negative_axes(jnp, lax, A, name):
    with pytest.raises(ValueError, match="XLA operations do not allow negative axes"):
        getattr(lax, name)(A, -1)
    np.testing.assert_array_equal(jnp.cumsum(A, -1), lax.cumsum(A, 1))  # jnp wraps


@pytest.mark.spec("LAX-12")
@pytest.mark.parametrize("name", ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"])
def test_lax_cumulative_reductions_reject_bool(jnp, lax, name):
    with pytest.raises(TypeError, match=f"{name} does not accept dtype bool"):
        getattr(lax, name)(jnp.array([True, False]))


@pytest.mark.spec("LAX-12")
def test_lax_cummax_of_integers_still_works(jnp, lax):
    x = jnp.array([1, 3, 2], jnp.int32)
    np.testing.assert_array_equal(lax.cummax(x), [1, 3, 3])
    np.testing.assert_array_equal(lax.cummin(x), [1, 1, 1])


@pytest.mark.spec("LAX-12")
def test_bool_iota_complex_conversion_and_empty_sort(jax, jnp, lax):
    for call in (lambda: lax.iota(jnp.bool_, 3),
                 lambda: lax.broadcasted_iota(jnp.bool_, (3,), 0),
                 lambda: jnp.arange(3, dtype=bool),
                 lambda: lax.convert_element_type(1j, jnp.uint8),
                 lambda: lax.convert_element_type(1j, jnp.float32),
                 lambda: lax.sort([])):
        with pytest.raises(TypeError):
            call()
    assert bool(lax.convert_element_type(1j, jnp.bool_)) is True
    with pytest.raises(ValueError):
        lax.bitcast_convert_type(jax.random.key(0), jnp.int32)
    np.testing.assert_array_equal(jnp.eye(2, dtype=bool), np.eye(2, dtype=bool))


@pytest.mark.spec("LAX-12")
def test_lax_dot_keywords_and_ranks(jnp, lax, A):
    with pytest.raises(ValueError, match="dimension_numbers must be specified"):
        lax.dot(jnp.ones((2, 2, 2)), jnp.ones(2))
    with pytest.raises(ValueError, match="dimension_numbers must be specified"):
        lax.dot(1.0, A)
    with pytest.raises(TypeError):
        lax.dot(A, A.T, lax.Precision.HIGH)     # precision is keyword-only
    out = lax.dot(jnp.ones((2, 3, 4)), jnp.ones((2, 4, 5)),
                  dimension_numbers=(((2,), (1,)), ((0,), (0,))))
    np.testing.assert_array_equal(out, np.full((2, 3, 5), 4.))


@pytest.mark.spec("LAX-12")
def test_padding_of_the_wrong_type(lax):
    with pytest.raises(TypeError, match="Unknown padding type"):
        lax.padtype_to_pads((4,), (2,), (1,), {"a": 1.})
    with pytest.raises(RuntimeError):
        lax.padtype_to_pads((4,), (2,), (1,), "bogus")
    assert [tuple(p) for p in lax.padtype_to_pads((4,), (3,), (1,), "SAME")] == [(1, 1)]


# ---------------------------------------------------------------------------
# IDX-37: the *_in_dim helpers
# ---------------------------------------------------------------------------

@pytest.mark.spec("IDX-37")
@pytest.mark.parametrize("args", [(0, 5, 0), (0, 1, -1), (0, 5, 1), (-5, 1, 1), (1, 0, 1)])
def test_slice_in_dim_bad_bounds_and_strides(lax, A, args):
    start, limit, stride = args
    with pytest.raises(TypeError):
        lax.slice_in_dim(A, start, limit, stride)


@pytest.mark.spec("IDX-37")
def test_slice_in_dim_negative_and_none_bounds(lax):
    x = np.arange(12.).reshape(3, 4)
    np.testing.assert_array_equal(lax.slice_in_dim(x, -1, None), x[-1:])
    np.testing.assert_array_equal(lax.slice_in_dim(x, None, -1, axis=1), x[:, :-1])
    np.testing.assert_array_equal(lax.slice_in_dim(x, 0, 4, 2, axis=-1), x[:, ::2])
    np.testing.assert_array_equal(lax.index_in_dim(x, -1, -1, keepdims=False), x[:, -1])


@pytest.mark.spec("IDX-37")
def test_lax_slice_rejects_negative_strides(lax, A):
    with pytest.raises(TypeError):
        lax.slice(A, (0, 0), (1, 1), (-1, 1))


@pytest.mark.spec("IDX-37")
def test_in_dim_helpers_with_an_axis_out_of_range(lax, A):
    calls = [lambda: lax.slice_in_dim(A, 0, 1, 1, 5),
             lambda: lax.index_in_dim(A, 0, 5),
             lambda: lax.dynamic_slice_in_dim(A, 0, 1, 5),
             lambda: lax.dynamic_index_in_dim(A, 0, 5),
             lambda: lax.dynamic_update_slice_in_dim(A, A, 0, 5),
             lambda: lax.dynamic_update_slice_in_dim(1.0, 1.0, 0, 0),
             lambda: lax.dynamic_index_in_dim(1.0, 0)]
    for call in calls:
        with pytest.raises(IndexError):
            call()
    with pytest.raises(ValueError):
        lax.dynamic_update_index_in_dim(A, A[:, 0], 0, 5)


@pytest.mark.spec("IDX-37")
def test_in_dim_helpers_with_a_negative_axis(jnp, lax):
    x = jnp.arange(6.).reshape(2, 3)
    assert lax.dynamic_slice_in_dim(x, 1, 1, -1).shape == (2, 1)
    np.testing.assert_array_equal(lax.dynamic_index_in_dim(x, 2, -1, keepdims=False),
                                  [2., 5.])
    out = lax.dynamic_update_index_in_dim(x, jnp.zeros(2), 0, -1)
    np.testing.assert_array_equal(out, [[0., 1., 2.], [0., 4., 5.]])


# ---------------------------------------------------------------------------
# NP-71: jax.numpy
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-71")
@pytest.mark.parametrize("shapes", [("abc",), (None,), ((2, None),), ((2.5,),),
                                    ((2.0,), (3,)), (((2,),),), ((2,), "ab")])
def test_broadcast_shapes_rejects_non_integer_shapes(jnp, shapes):
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete "
                       "values of integer type"):
        jnp.broadcast_shapes(*shapes)


@pytest.mark.spec("NP-71")
def test_broadcast_shapes_sizes(jnp):
    with pytest.raises(TypeError, match="non-negative"):
        jnp.broadcast_shapes((-1,))
    assert jnp.broadcast_shapes(3, (2, 1)) == (2, 3)
    assert tuple(int(d) for d in jnp.broadcast_shapes(np.int64(3), (2, 1))) == (2, 3)
    assert tuple(jnp.broadcast_shapes([2, 3], np.array([1, 3]))) == (2, 3)


@pytest.mark.spec("NP-71")
def test_an_array_is_not_a_dtype(jnp, A):
    bad = jnp.float32(1)
    calls = [lambda: jnp.zeros(3, dtype=bad), lambda: jnp.ones(3, dtype=jnp.array(1.)),
             lambda: jnp.full(3, 1, dtype=bad), lambda: jnp.array([1], dtype=bad),
             lambda: jnp.asarray([1], dtype=bad), lambda: jnp.arange(3, dtype=bad),
             lambda: A.astype(bad), lambda: jnp.zeros_like(A, dtype=bad)]
    for call in calls:
        with pytest.raises(ValueError, match="Passing an array as a dtype argument"):
            call()
    assert jnp.zeros(3, dtype=np.float32(1)).dtype == np.float32


@pytest.mark.spec("NP-71")
@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like", "full_like"])
def test_like_functions_reject_string_arrays(jnp, name):
    args = (1.,) if name == "full_like" else ()
    for proto in (np.array(["a", "b"]), np.array([object()])):
        with pytest.raises(TypeError, match="is not a valid JAX array type"):
            getattr(jnp, name)(proto, *args)


@pytest.mark.spec("NP-71")
@pytest.mark.parametrize("name, fill", [("zeros_like", 0), ("ones_like", 1),
                                        ("empty_like", None), ("full_like", 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, "bfloat16"])
def test_like_functions_accept_shape_dtype_structs(jax, jnp, name, fill, dtype):
    dtype = jnp.bfloat16 if dtype == "bfloat16" else dtype
    proto = jax.ShapeDtypeStruct((2, 3), dtype)
    args = (fill,) if name == "full_like" else ()
    for fn in (getattr(jnp, name), jax.jit(lambda p=proto: getattr(jnp, name)(p, *args))):
        out = fn(proto, *args) if fn is getattr(jnp, name) else fn()
        assert out.shape == (2, 3) and out.dtype == np.dtype(dtype) and not out.weak_type
        if fill is not None:
            np.testing.assert_array_equal(np.asarray(out, np.float32), np.full((2, 3), fill))


@pytest.mark.spec("NP-71")
def test_arange_of_keys_and_none(jax, jnp):
    key = jax.random.key(0)
    with pytest.raises(TypeError, match="PRNGKey"):
        jnp.arange(key)
    with pytest.raises(ValueError):
        jnp.arange(0, key)
    with pytest.raises(ValueError):
        jnp.linspace(0, key, 3)
    with pytest.raises(TypeError):
        jnp.arange(None)


@pytest.mark.spec("NP-71")
def test_matrix_transpose_property_needs_two_axes(jnp):
    for x in (jnp.arange(4.), jnp.float32(1)):
        with pytest.raises(ValueError, match="at least two-dimensional"):
            x.mT
    assert jnp.ones((4, 2, 3)).mT.shape == (4, 3, 2)


@pytest.mark.spec("NP-71")
@pytest.mark.parametrize("shape, src, dst, out_shape", [
    ((2, 3), np.float32, np.int8, (2, 12)),
    ((2, 3), np.float32, np.int16, (2, 6)),
    ((2, 3), np.float32, "bfloat16", (2, 6)),
    ((2, 8), np.int8, np.float32, (2, 2)),
    ((2, 3, 8), np.int8, np.int32, (2, 3, 2)),
    ((2, 4), np.float32, np.complex64, (2, 2)),
    ((2,), np.complex64, np.float32, (4,)),
    ((2, 0), np.float32, np.int8, (2, 0)),
    ((2, 3), np.float32, np.int32, (2, 3)),
])
def test_view_scales_the_last_axis(jnp, shape, src, dst, out_shape):
    dst = jnp.bfloat16 if dst == "bfloat16" else dst
    host = np.arange(int(np.prod(shape))).astype(src).reshape(shape)
    out = jnp.asarray(host).view(dst)
    assert out.shape == out_shape and out.dtype == np.dtype(dst)
    np.testing.assert_array_equal(np.asarray(out), host.view(np.dtype(dst)))


@pytest.mark.spec("NP-71")
def test_view_errors(jnp):
    with pytest.raises(ValueError, match="larger dtype"):
        jnp.ones((2, 6), jnp.int8).view(jnp.float32)
    with pytest.raises(ValueError, match="larger dtype"):
        jnp.ones((3,), jnp.float16).view(jnp.float32)
    with pytest.raises(ValueError, match="0d array"):
        jnp.float32(1).view(jnp.int8)
    assert int(jnp.float32(1).view(jnp.int32)) == 1065353216


@pytest.mark.spec("NP-71")
@pytest.mark.parametrize("name", ["vstack", "hstack", "dstack", "column_stack"])
@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 3, 4), (1, 2, 3, 4)])
def test_stacking_one_array_stacks_its_rows(jnp, name, shape):
    host = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    expected = getattr(np, name)(list(host))
    for arg in (jnp.asarray(host), host):
        out = getattr(jnp, name)(arg)
        assert out.shape == expected.shape
        np.testing.assert_array_equal(out, expected)


@pytest.mark.spec("NP-71")
@pytest.mark.parametrize("name", ["vstack", "hstack", "dstack", "column_stack"])
def test_stacking_a_0d_array_is_a_value_error(jnp, name):
    with pytest.raises(ValueError):
        getattr(jnp, name)(jnp.float32(1))


@pytest.mark.spec("NP-71")
def test_fft_of_empty_axes(jax, jnp):
    for fn, x, shape, dtype in [
            (jnp.fft.fft, jnp.zeros(0), (0,), np.complex64),
            (jnp.fft.ifft, jnp.zeros(0), (0,), np.complex64),
            (jnp.fft.fft2, jnp.zeros((0, 3)), (0, 3), np.complex64),
            (jnp.fft.fftn, jnp.zeros((0, 0)), (0, 0), np.complex64),
            (jnp.fft.rfft2, jnp.zeros((0, 4)), (0, 3), np.complex64),
            (jnp.fft.irfft, jnp.zeros(0), (0,), np.float32),
            (jnp.fft.irfft, jnp.zeros(1), (0,), np.float32),
            (jnp.fft.hfft, jnp.zeros(0), (0,), np.float32)]:
        out = fn(x)
        assert out.shape == shape and out.dtype == dtype
    assert jnp.fft.fft(jnp.zeros(0), n=4).shape == (4,)
    grad = jax.grad(lambda x: jnp.fft.fft(x).real.sum())(jnp.zeros(0))
    assert grad.shape == (0,)
    for n in (0, -1):
        with pytest.raises(ValueError, match="Shape should be positive"):
            jnp.fft.fft(jnp.zeros(3), n=n)
    with pytest.raises(ValueError):
        jnp.fft.rfft(jnp.zeros(0))


@pytest.mark.spec("NP-71")
def test_linalg_of_empty_matrices(jnp):
    inv = jnp.linalg.inv(jnp.zeros((0, 0)))
    assert inv.shape == (0, 0) and inv.dtype == np.float32
    assert jnp.linalg.inv(jnp.zeros((2, 0, 0))).shape == (2, 0, 0)
    assert jnp.linalg.inv(jnp.zeros((0, 2, 2))).shape == (0, 2, 2)
    assert jnp.linalg.solve(jnp.zeros((0, 0)), jnp.zeros((0,))).shape == (0,)
    assert jnp.linalg.solve(jnp.zeros((0, 0)), jnp.zeros((0, 3))).shape == (0, 3)
    assert float(jnp.linalg.det(jnp.zeros((0, 0)))) == 1.0


@pytest.mark.spec("NP-71")
def test_quantiles_of_empty_reductions(jnp):
    for call in (lambda: jnp.median(jnp.zeros(0)),
                 lambda: jnp.median(jnp.zeros((0, 3)), axis=0),
                 lambda: jnp.quantile(jnp.zeros(0), 0.5),
                 lambda: jnp.percentile(jnp.zeros(0), 50)):
        with pytest.raises(TypeError):
            call()
    for call in (lambda: jnp.nanmedian(jnp.zeros(0)),
                 lambda: jnp.nanquantile(jnp.zeros(0), 0.5)):
        with pytest.raises(IndexError):
            call()
    assert jnp.median(jnp.zeros((0, 3)), axis=1).shape == (0,)


@pytest.mark.spec("NP-71")
def test_more_bad_numpy_arguments(jnp):
    for call in (lambda: jnp.full((), jnp.array([1., 2.])),
                 lambda: jnp.full((3,), jnp.array([1., 2.])),
                 lambda: jnp.full_like(1.0, jnp.array([1., 2.]))):
        with pytest.raises(ValueError):
            call()
    np.testing.assert_array_equal(jnp.full((2, 2), jnp.array([1., 2.])), [[1., 2.]] * 2)
    for name in ("fft2", "ifft2", "rfft2", "irfft2"):
        with pytest.raises(TypeError):
            getattr(jnp.fft, name)(jnp.ones((2, 2)), axes=None)
    with pytest.raises(TypeError):
        jnp.zeros((2, 3)).transpose([jnp.ones(2), "a"])
    with pytest.raises(TypeError, match="order must be str"):
        jnp.reshape(np.ones(3), 3, order=jnp.array(1))
    for order in (5, "Q"):
        with pytest.raises(ValueError, match="Unexpected value for 'order' argument"):
            jnp.ones(3).reshape(3, order=order)
    with pytest.raises(ValueError):
        jnp.ones((2, 3)).swapaxes(0, ())
    assert jnp.zeros((2, 3)).transpose([1, 0]).shape == (3, 2)
    for name in ("atan", "asin", "acosh", "asinh"):
        with pytest.raises(TypeError, match="missing 1 required positional argument"):
            getattr(jnp, name)()


# ---------------------------------------------------------------------------
# CF-91: scan lengths
# ---------------------------------------------------------------------------

@pytest.mark.spec("CF-91")
def test_scan_length_that_is_not_an_int(lax):
    body = lambda c, x: (c, x)  # noqa: E731
    with pytest.raises(ValueError):
        lax.scan(body, 0., None, length="a")
    with pytest.raises(TypeError):
        lax.scan(body, 0., None, length=[1])


@pytest.mark.spec("CF-91")
def test_loops_longer_than_the_counter_overflow(lax):
    with pytest.raises(OverflowError):
        lax.fori_loop(0, 2**70, lambda i, c: c, 0.)
    with pytest.raises(OverflowError):
        lax.fori_loop(0, 2**31, lambda i, c: c, 0.)
    with pytest.raises(OverflowError):
        lax.scan(lambda c, x: (c + 1., None), 0., None, length=2**70)
    with pytest.raises(OverflowError):
        lax.scan(lambda c, x: (c + 1., None), 0., None, length=2**31)


@pytest.mark.spec("CF-91")
def test_a_scan_that_does_nothing_returns_at_once(jax, lax):
    body = lambda c, x: (c, x)  # noqa: E731
    carry, ys = lax.scan(body, 0., None, length=2**70)
    assert float(carry) == 0.0 and ys is None
    carry, ys = jax.jit(lambda: lax.scan(body, 0., None, length=2**31))()
    assert float(carry) == 0.0 and ys is None


@pytest.mark.spec("CF-91")
def test_map_batch_size_and_leaves(jnp, lax):
    with pytest.raises(TypeError):
        lax.map(lambda x: x, jnp.ones(4), batch_size=1.5)
    with pytest.raises(ValueError):
        lax.map(lambda x: x, jnp.ones(4), batch_size=jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="scan got value with no leading axis"):
        lax.map(lambda x: (x, x), [[1.], [2.]])
    with pytest.raises(TypeError, match="is not a valid JAX type"):
        lax.scan(lambda c, x: (c, x), 0., "abc", length=3)
    np.testing.assert_array_equal(lax.map(lambda x: x * 2, jnp.arange(5.), batch_size=2),
                                  np.arange(5.) * 2)


# ---------------------------------------------------------------------------
# LAX-13: collectives
# ---------------------------------------------------------------------------

@pytest.mark.spec("LAX-13")
@pytest.mark.parametrize("name", [{"a": 1.}, np.array(["a", "b"]), slice(None)])
def test_collective_axis_names_must_be_hashable(jax, jnp, lax, A, name):
    for call in (lambda: lax.psum(A, name), lambda: lax.pmean(A, [name, "a"]),
                 lambda: lax.pmax(A, name),
                 lambda: lax.axis_size(name),
                 lambda: lax.all_gather(jnp.float32(2.), name, axis=-1,
                                        axis_index_groups=jnp.zeros(0))):
        with pytest.raises(TypeError, match="unhashable"):
            call()
    with pytest.raises(TypeError, match="unhashable"):
        lax.axis_size(jax.random.PRNGKey(0))


@pytest.mark.spec("LAX-13")
def test_collective_operands_are_read_before_names(jax, lax):
    for call in (lambda: lax.psum("abc", "x"), lambda: lax.psum_scatter("abc", "x")):
        with pytest.raises(TypeError, match="not a valid JAX type"):
            call()
    with pytest.raises(NameError):
        lax.psum(1., "x")


@pytest.mark.spec("LAX-13")
def test_collective_of_an_empty_pytree_returns_it(jnp, lax):
    assert lax.psum({}, "x", axis_index_groups=jnp.arange(4.)) == {}
    assert lax.psum_scatter(None, "x", axis_index_groups=jnp.ones((2, 2, 2))) is None


@pytest.mark.spec("LAX-13")
def test_negative_positional_axis_under_a_transformation(jax, jnp, lax, A):
    with pytest.raises(ValueError, match=r"reduction axes \(-1,\) contains out-of-bounds"):
        jax.vmap(lambda x: lax.psum(x, -1), axis_name="i")(A)
    with pytest.raises(ValueError, match=r"reduction axes \(0, -1\) contains"):
        jax.vmap(lambda x: lax.psum(x, ("i", -1)), axis_name="i")(A)
    with pytest.raises(ValueError, match="out-of-bounds"):
        jax.jit(lambda x: lax.pmax(x, -1))(jnp.ones(3))
    assert lax.psum(A, -1).shape == (2,)
    np.testing.assert_array_equal(
        jax.vmap(lambda x: lax.psum(x, 0), axis_name="i")(A), [3., 3.])


# ---------------------------------------------------------------------------
# LAX-14: shapes and memory
# ---------------------------------------------------------------------------

@pytest.mark.spec("LAX-14")
def test_shapes_are_iterated_as_jax_does(jax, jnp, lax):
    key = jax.random.key(0)
    assert jnp.ones(jnp.arange(3)).shape == (0, 1, 2)
    assert jnp.zeros(jnp.array(3)).shape == (3,)
    assert jax.random.bits(key, shape=b"ab").shape == (97, 98)
    assert jax.random.logistic(key, shape={}).shape == ()
    assert lax.iota(jnp.int32, jnp.array(3)).shape == (3,)
    with pytest.raises(TypeError):
        lax.full(jnp.array(2), 1.)


@pytest.mark.spec("LAX-14")
def test_running_out_of_memory_is_a_runtime_error(jax, jnp, lax):
    # 16 TiB: more than any test machine can allocate at once.
    with pytest.raises(jax.errors.JaxRuntimeError, match="RESOURCE_EXHAUSTED: Out of memory"):
        lax.iota(jnp.int8, 2**44).block_until_ready()
    with pytest.raises(jax.errors.JaxRuntimeError, match="RESOURCE_EXHAUSTED: Out of memory"):
        jax.jit(lambda x: x + lax.iota(jnp.int8, 2**44))(1).block_until_ready()


# ---------------------------------------------------------------------------
# LAX-15: other lax functions
# ---------------------------------------------------------------------------

@pytest.mark.spec("LAX-15")
@pytest.mark.parametrize("accuracy", [2, True, "highest"])
def test_unknown_accuracy_is_not_implemented(jax, jnp, lax, accuracy):
    with pytest.raises(NotImplementedError, match=f"Accuracy {accuracy} not supported"):
        lax.expm1(np.ones(3), accuracy=accuracy)
    with pytest.raises(NotImplementedError, match="not supported"):
        jax.jit(lambda x: lax.rsqrt(x, accuracy=accuracy))(1.)
    assert "accuracy" in str(jax.make_jaxpr(lambda x: lax.sin(x, accuracy=accuracy))(1.))
    with pytest.raises(TypeError, match="unhashable"):
        lax.sin(jnp.zeros(3), accuracy=jnp.ones(2))


@pytest.mark.spec("LAX-15")
def test_out_sharding_must_be_a_sharding(jax, jnp, lax):
    P = jax.sharding.PartitionSpec
    dn = (((0,), (0,)), ((), ()))
    for bad in (True, jax.devices()[0], 1):
        with pytest.raises(TypeError, match="`out_sharding` argument of dot_general"):
            lax.dot_general(jnp.arange(4.), jnp.ones(4), dn, out_sharding=bad)
        with pytest.raises(TypeError, match="`out_sharding` argument of dot_general"):
            lax.dot(jnp.arange(4.), jnp.ones(4), out_sharding=bad)
    with pytest.raises(TypeError, match="`out_sharding` argument of broadcasted_iota"):
        lax.broadcasted_iota(jnp.int32, (2, 3), 0, out_sharding=1)
    with pytest.raises(ValueError, match="PartitionSpec"):
        lax.dot_general(jnp.arange(4.), jnp.ones(4), dn, out_sharding=P())
    mesh = jax.make_mesh((1,), ("x",))
    ok = jax.sharding.NamedSharding(mesh, P())
    assert float(lax.dot_general(jnp.arange(4.), jnp.ones(4), dn, out_sharding=ok)) == 6.
    with pytest.raises(TypeError, match="out_sharding"):
        lax.iota(int, 0, out_sharding=None)


@pytest.mark.spec("LAX-15")
def test_required_dtypes_and_iota_dimensions(jnp, lax):
    for call in (lambda: lax.bitcast_convert_type(jnp.ones(3), None),
                 lambda: lax.iota(None, [2, 3]),
                 lambda: lax.broadcasted_iota(None, (2, 3), 0)):
        with pytest.raises(ValueError, match="dtype must be specified"):
            call()
    for shape, dim in ((3, True), ((0,), 1.5), ((2, 3), -1)):
        with pytest.raises(ValueError, match="iota dimension must be between 0 and len"):
            lax.broadcasted_iota(jnp.int32, shape, dim)
    with pytest.raises(ValueError):
        lax.broadcasted_iota(jnp.int32, (2, 3), "a")
    with pytest.raises(TypeError, match="iota shape must have every element be nonnegative"):
        lax.broadcasted_iota(jnp.int32, (2, -3), 0)
    np.testing.assert_array_equal(lax.broadcasted_iota(jnp.int32, (2, 3), 1.0),
                                  [[0, 1, 2], [0, 1, 2]])


@pytest.mark.spec("LAX-15")
def test_pad_value_and_clamp_dtypes(jax, jnp, lax):
    with pytest.raises(ValueError, match="padding_value must be a scalar"):
        lax.pad(True, np.ones(3), ())
    c = jnp.ones(3, jnp.complex64)
    assert lax.clamp(1j, c, c).dtype == jnp.complex64
    x = jnp.array([1 + 2j, 3 - 1j, -1 + 5j, 2 + 0.5j, 2 + 3j, -1j], jnp.complex64)
    want = [1 + 2j, 2 + 1j, 0, 2 + 0.5j, 2 + 3j, 0]
    lo, hi = jnp.complex64(0), jnp.complex64(2 + 1j)
    np.testing.assert_array_equal(lax.clamp(lo, x, hi), want)
    np.testing.assert_array_equal(jax.jit(lax.clamp)(lo, x, hi), want)
    np.testing.assert_array_equal(lax.clamp(True, jnp.array([False, True]), True),
                                  [True, True])
    with pytest.raises(TypeError, match="clamp does not accept dtype key"):
        lax.clamp(0., jax.random.key(0), 1.)


@pytest.mark.spec("LAX-15")
def test_sort_checks_num_keys_first(jax, jnp, lax):
    two = [jnp.ones(2), jnp.ones(2)]
    with pytest.raises(ValueError, match=r"num_keys=nan must be between 1 and len\(operand\)=2"):
        lax.sort(two, num_keys=float("nan"))
    with pytest.raises(ValueError, match="num_keys=2 must equal 1 for a single operand"):
        lax.sort(jnp.ones(2), num_keys=2)
    assert lax.sort(jnp.ones(2), num_keys=1.0).shape == (2,)
    with pytest.raises(ValueError, match="axis 0 is out of bounds for array of dimension 0"):
        lax.sort_key_val(jax.random.key(0), 1.0, dimension=0)
    with pytest.raises(TypeError):
        lax.sort(jax.random.split(jax.random.key(0)))


@pytest.mark.spec("LAX-15")
def test_cumulative_axis_is_read_with_int_first(jnp, lax, A):
    with pytest.raises(TypeError):
        lax.cumsum("abc", axis=-1)
    with pytest.raises(ValueError):
        lax.cummax(A, axis="float32")
    with pytest.raises(OverflowError):
        lax.cumsum(A, axis=float("inf"))
    with pytest.raises(ValueError, match=r"axis 3 is out of bounds for array of shape \(3,\)"):
        lax.cumsum(jnp.ones(3), axis=3)
    np.testing.assert_array_equal(lax.cumsum(A, axis=1.5), [[1., 2., 3.]] * 2)


@pytest.mark.spec("LAX-15")
def test_dot_conv_and_none_operands(jax, jnp, lax):
    with pytest.raises(ValueError, match="dimension_numbers must be specified"):
        lax.dot(jnp.arange(4.), jnp.ones(3, jnp.complex64))
    with pytest.raises(RuntimeError, match="Unrecognized padding type"):
        lax.conv(jnp.ones((1, 1, 3)), jnp.ones((1, 1, 1)), 1.5, "highest")
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    idx = jnp.zeros((1, 1), jnp.int32)
    for call in (lambda: lax.full_like(None, jnp.zeros((0, 3))),
                 lambda: lax.convert_element_type(None, jnp.float32),
                 lambda: lax.scatter_add(None, idx, jnp.ones(1), dn),
                 lambda: lax.scatter_max(None, idx, jnp.ones(1), dn),
                 lambda: lax.fori_loop(0, None, lambda i, c: c + 1, 0.)):
        with pytest.raises(ValueError, match="Invalid argument to dtype: None"):
            call()
    for call in (lambda: lax.add(None, 1.), lambda: lax.scatter(None, idx, jnp.ones(1), dn)):
        with pytest.raises(TypeError):
            call()


# ---------------------------------------------------------------------------
# DT-18, CF-91
# ---------------------------------------------------------------------------

@pytest.mark.spec("DT-18")
def test_can_cast_reads_arrays_as_dtypes(jnp):
    with pytest.warns(DeprecationWarning, match="Implicit conversion of an array"):
        assert jnp.can_cast(jnp.array([1., 2.]), jnp.zeros(0))
    with pytest.warns(DeprecationWarning):
        assert not jnp.can_cast(jnp.float32, jnp.zeros(2, jnp.int32))
    with pytest.raises(TypeError):
        jnp.can_cast(np.zeros(2), np.zeros(2, np.int8))


@pytest.mark.spec("CF-91")
def test_scan_reads_xs_as_jax_values_first(lax):
    with pytest.raises(OverflowError):
        lax.map(lambda x: x, 2**70)
    with pytest.raises(ValueError, match="scan got no values to scan over"):
        lax.map(lambda x: x, [], batch_size=np.float64(1.))
    with pytest.raises(ValueError, match="no leading axis to scan over: 2.0"):
        lax.scan(lambda c, x: (c, x), 0., (np.ones(3), 2.0))
