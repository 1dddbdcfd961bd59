"""Conformance: jax.numpy creation, index helpers, reductions and einsum
paths as JAX 0.10.2's own test suite exercises them (SPEC NP-216..NP-225).

References are NumPy's answers computed here, or rules stated in the
clauses (error classes, dtypes, equation counts).
"""
import warnings

import numpy as np
import pytest


def _eqn_names(jax, fun, *args):
    return [str(e.primitive) for e in jax.make_jaxpr(fun)(*args).jaxpr.eqns]


# -- NP-216: traced diagonal offsets of eye and tri -------------------------

@pytest.mark.spec("NP-216")
@pytest.mark.parametrize("k", [-3, -1, 0, 2, 5])
def test_eye_and_tri_take_a_traced_offset(jax, jnp, k):
    eye = jax.jit(lambda k: jnp.eye(4, 3, k=k))(k)
    tri = jax.jit(lambda k: jnp.tri(4, 3, k=k))(k)
    np.testing.assert_array_equal(np.asarray(eye), np.eye(4, 3, k=k))
    np.testing.assert_array_equal(np.asarray(tri), np.tri(4, 3, k=k))


@pytest.mark.spec("NP-216")
def test_eye_offset_far_outside_int32_is_all_zeros(jnp):
    out = jnp.eye(3, k=2**40)
    assert out.dtype == np.float32
    assert not np.asarray(out).any()


@pytest.mark.spec("NP-216")
def test_tri_offset_must_fit_int32(jnp):
    with pytest.raises(OverflowError):
        jnp.tri(3, k=2**33)


@pytest.mark.spec("NP-216")
@pytest.mark.parametrize("k", [1.5, np.array([1])])
def test_eye_offset_must_be_a_scalar_integer(jnp, k):
    with pytest.raises(ValueError, match="k must be a scalar integer"):
        jnp.eye(3, k=k)


@pytest.mark.spec("NP-216")
def test_tri_offset_must_be_an_integer(jax, jnp):
    with pytest.raises(TypeError):
        jnp.tri(3, k=True)
    with pytest.raises(TypeError):
        jax.jit(lambda k: jnp.tri(3, k=k))(1.0)


# -- NP-217: ravel_multi_index dtype ----------------------------------------

@pytest.mark.spec("NP-217")
@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32"])
def test_ravel_multi_index_keeps_the_index_dtype(jnp, dtype):
    idx = jnp.array([0, 1, 1], dtype=dtype)
    out = jnp.ravel_multi_index((idx, idx), (2, 3), mode="ignore")
    assert out.dtype == np.dtype(dtype) and not out.weak_type
    expected = np.ravel_multi_index((np.asarray(idx), np.asarray(idx)), (2, 3))
    np.testing.assert_array_equal(np.asarray(out), expected)


@pytest.mark.spec("NP-217")
def test_ravel_multi_index_dtype_argument(jax, jnp):
    idx = jnp.array([0, 1], dtype="int8")
    fun = jax.jit(lambda i: jnp.ravel_multi_index((i, i), (2, 3), mode="wrap",
                                                  dtype="int16"))
    assert fun(idx).dtype == np.int16
    with pytest.raises(ValueError):
        jnp.ravel_multi_index((idx, idx), (2, 3), mode="ignore", dtype="float32")
    with pytest.raises(ValueError):          # 200 * 3 - 1 does not fit int8
        jnp.ravel_multi_index((idx, idx), (200, 3), mode="ignore")


# -- NP-218: searchsorted index dtype ---------------------------------------

@pytest.mark.spec("NP-218")
def test_searchsorted_index_dtype_follows_the_length(jax, jnp):
    v = jax.ShapeDtypeStruct((), np.float32)
    small = jax.ShapeDtypeStruct((2**31 - 1,), np.float32)
    assert jax.eval_shape(jnp.searchsorted, small, v).dtype == np.int32
    large = jax.ShapeDtypeStruct((2**31,), np.float32)
    with pytest.warns(UserWarning, match="Explicitly requested dtype.*int64"):
        with pytest.raises(OverflowError):
            jax.eval_shape(jnp.searchsorted, large, v)


# -- NP-219: view with 4-bit dtypes -----------------------------------------

def _nibbles(byte_values):
    b = np.asarray(byte_values, np.uint8)
    return np.stack([b & 15, b >> 4], axis=-1).reshape(*b.shape[:-1], -1)


@pytest.mark.spec("NP-219")
def test_view_bytes_as_uint4_splits_each_byte_low_bits_first(jnp):
    data = np.array([[0x21, 0xf0, 0x7e, 0x05]], np.uint8)
    out = jnp.asarray(data).view(jnp.uint4)
    assert out.shape == (1, 8)
    np.testing.assert_array_equal(np.asarray(out).astype(np.uint8), _nibbles(data))


@pytest.mark.spec("NP-219")
def test_view_int4_round_trips_through_wider_types(jax, jnp):
    values = np.array([[-8, -1, 0, 7, 3, -4, 5, -6]], np.int8)
    x = jnp.asarray(values).astype(jnp.int4)
    as16 = x.view(np.int16)
    assert as16.shape == (1, 2)
    back = jax.jit(lambda y: y.view(jnp.int4))(as16)
    np.testing.assert_array_equal(np.asarray(back).astype(np.int8), values)
    with pytest.raises(ValueError):          # 3 nibbles are not whole bytes
        jnp.zeros((3,), jnp.int4).view(np.int16)


# -- NP-220: einsum contraction paths ---------------------------------------

@pytest.mark.spec("NP-220")
@pytest.mark.parametrize("path", [[(0, 1), (0, 1)], [(1, 2), (0, 1)], [(0, 2), (0, 1)]])
def test_einsum_follows_an_explicit_pairwise_path(jnp, path):
    rng = np.random.RandomState(0)
    a, b, c = (rng.rand(2, n).astype(np.float32) for n in (3, 4, 5))
    out = jnp.einsum("ij,ik,il->jkl", a, b, c, optimize=path)
    np.testing.assert_allclose(np.asarray(out), np.einsum("ij,ik,il->jkl", a, b, c),
                               rtol=1e-5)


@pytest.mark.spec("NP-220")
def test_einsum_rejects_a_three_operand_step(jnp):
    a, b, c = (np.ones((2, n), np.float32) for n in (3, 4, 5))
    with pytest.raises(NotImplementedError, match="3 or more operands"):
        jnp.einsum("ij,ik,il->jkl", a, b, c, optimize=[(0, 1, 2)])


# -- NP-221: weighted quantiles ---------------------------------------------

@pytest.mark.spec("NP-221")
@pytest.mark.parametrize("fun", ["quantile", "nanquantile", "percentile", "nanpercentile"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, True), (-1, False)])
def test_weighted_inverted_cdf_matches_numpy(jnp, fun, axis, keepdims):
    rng = np.random.RandomState(1)
    a = rng.randn(4, 6).astype(np.float32)
    if fun.startswith("nan"):
        a[1, 2] = np.nan
    w = (rng.rand(4, 6) + 0.1).astype(np.float32)
    q = np.array([0.2, 0.5, 0.9], np.float32) * (100 if "percentile" in fun else 1)
    out = getattr(jnp, fun)(a, q, axis=axis, weights=w, method="inverted_cdf",
                            keepdims=keepdims)
    expected = getattr(np, fun)(a, q, axis=axis, weights=w, method="inverted_cdf",
                                keepdims=keepdims)
    assert out.shape == expected.shape
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-6)


@pytest.mark.spec("NP-221")
def test_weights_along_the_reduced_axis_broadcast(jnp):
    a = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    w = np.array([1.0, 0.0, 0.0, 5.0], np.float32)
    out = jnp.quantile(a, 0.5, axis=1, weights=w, method="inverted_cdf")
    np.testing.assert_array_equal(np.asarray(out), a[:, 3])


@pytest.mark.spec("NP-221")
def test_weighted_quantile_errors(jnp):
    a = np.ones((2, 3), np.float32)
    with pytest.raises(NotImplementedError):
        jnp.quantile(a, 0.5, weights=a, method="linear")
    with pytest.raises(ValueError):
        jnp.quantile(a, 0.5, weights=a[0], method="inverted_cdf")   # no axis
    with pytest.raises(ValueError):
        jnp.quantile(a, 0.5, axis=1, weights=a[:, 0], method="inverted_cdf")


@pytest.mark.spec("NP-221")
def test_negative_weight_gives_nan(jnp):
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    w = np.array([[1.0, -1.0, 1.0], [1.0, 1.0, 1.0]], np.float32)
    out = np.asarray(jnp.quantile(a, 0.5, axis=1, weights=w, method="inverted_cdf"))
    assert np.isnan(out[0]) and out[1] == 4.0


# -- NP-222: jnp.array's arguments ------------------------------------------

@pytest.mark.spec("NP-222")
def test_array_positional_arguments_warn(jnp):
    x = jnp.array([1, 2, 3])
    with pytest.warns(DeprecationWarning, match="positionally"):
        assert jnp.array(x, None, False) is x
    with pytest.warns(DeprecationWarning, match="positionally"):
        assert jnp.array(x, None, True, "K", 3).shape == (1, 1, 3)
    with pytest.raises(TypeError, match="multiple values for argument 'copy'"):
        jnp.array(x, None, True, copy=False)
    with pytest.raises(TypeError, match="at most 5 positional arguments"):
        jnp.array(x, None, True, "K", 0, "extra")


@pytest.mark.spec("NP-222")
def test_array_signature_names(jnp):
    import inspect
    names = list(inspect.signature(jnp.array).parameters)
    assert names[:6] == ["object", "dtype", "args", "copy", "order", "ndmin"]
    assert {"device", "out_sharding"} <= set(names)


@pytest.mark.spec("NP-222")
def test_array_device_and_out_sharding_exclude_each_other(jax, jnp):
    with pytest.raises(ValueError, match="Only one of"):
        jnp.array([1], device=jax.devices()[0],
                  out_sharding=jax.sharding.PartitionSpec())


@pytest.mark.spec("NP-222")
def test_masked_arrays(jnp):
    m = np.ma.array([1, 2], mask=[True, False])
    np.testing.assert_array_equal(np.asarray(jnp.array(m)), np.array(m))
    assert jnp.asarray(m, dtype=np.float32).dtype == np.float32
    for fun in (lambda: jnp.asarray(m), lambda: jnp.array(m, copy=False)):
        with pytest.raises(ValueError, match="masked arrays are not supported"):
            fun()


# -- NP-223: a shape given as two arguments ---------------------------------

@pytest.mark.spec("NP-223")
@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_shape_given_as_two_ints_hints(jnp, name):
    with pytest.raises(TypeError, match=rf"Did you accidentally write `jax\.numpy\.{name}"
                                        rf"\(2, 3\)`"):
        getattr(jnp, name)(2, 3)
    assert getattr(jnp, name)(2, np.int32).dtype == np.int32


# -- NP-224: device_put equations -------------------------------------------

@pytest.mark.spec("NP-224")
@pytest.mark.parametrize("fun,expected", [
    (lambda jnp, d: jnp.arange(5, device=d), ["iota", "device_put"]),
    (lambda jnp, d: jnp.arange(1, 5, device=d), ["iota", "add", "device_put"]),
    (lambda jnp, d: jnp.arange(5, device=None), ["iota"]),
])
def test_traced_arange_with_device_ends_in_device_put(jax, jnp, fun, expected):
    device = jax.devices()[-1]
    assert _eqn_names(jax, lambda: fun(jnp, device)) == expected


@pytest.mark.spec("NP-224")
def test_traced_eye_with_device(jax, jnp):
    device = jax.devices()[0]
    names = _eqn_names(jax, lambda: jnp.eye(3, device=device))
    assert names[-1] == "device_put" and names[0] == "iota"
    out = jax.jit(lambda: jnp.eye(3, device=device))()
    np.testing.assert_array_equal(np.asarray(out), np.eye(3))


# -- NP-225: repeated axes --------------------------------------------------

@pytest.mark.spec("NP-225")
@pytest.mark.parametrize("axis", [(0, 0), (0, -3), (2, -1)])
def test_size_rejects_a_repeated_axis(jnp, axis):
    with pytest.raises(ValueError, match="repeated axis"):
        jnp.size(jnp.zeros((2, 3, 4)), axis)


@pytest.mark.spec("NP-225")
def test_size_along_distinct_axes(jnp):
    assert jnp.size(jnp.zeros((2, 3, 4)), (0, -1)) == 8


@pytest.mark.spec("NP-225")
def test_trace_rejects_the_same_axis_twice(jnp):
    a = jnp.arange(12.0).reshape(2, 3, 2)
    with pytest.raises(ValueError, match="axis1 and axis2 can not be same"):
        jnp.trace(a, axis1=1, axis2=-2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(np.asarray(jnp.trace(a, axis1=0, axis2=2)),
                                   np.trace(np.asarray(a), axis1=0, axis2=2))
