"""Conformance: jax.lax behaviours that JAX's own lax, autodiff and fft test
suites check (SPEC LXM-23 .. LXM-36): ``mul``'s ``out_dtype``,
``broadcast_in_dim``/``squeeze``/reduction checks, ``accuracy=``, precision
names, complex ``log1p``, narrow-integer ``abs`` and ``bitcast``, big Python
ints, ``composite`` constants, ``fft`` checks and ragged dot shape rules.

References: NumPy (casts, products, transposes, per-group matmuls), float64
identities, and the error classes and messages JAX documents.
"""
import importlib

import ml_dtypes
import numpy as np
import pytest


def _lax(jax):
    return importlib.import_module(jax.__name__ + ".lax")


# ---------------------------------------------------------------------------
# LXM-23: mul's out_dtype
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-23")
def test_mul_out_dtype_casts_operands_first(jax, jnp):
    lax = _lax(jax)
    x = np.array([1.5, -2.25, 3.0], np.float16)
    y = np.array([0.1, 7.0, -1.0], np.float32)
    out = lax.mul(x, y, out_dtype=np.float32)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, x.astype(np.float32) * y)
    # Casting happens before the product: 1.7 -> 1 as int32.
    ints = lax.mul(np.array([1.7, 2.9], np.float32), np.array([3, 4], np.int32),
                   out_dtype=np.int32)
    np.testing.assert_array_equal(ints, [3, 8])
    assert lax.mul(2.0, 3.0, out_dtype=np.float32).weak_type
    assert "out_dtype" not in str(jax.make_jaxpr(lax.mul)(y, y))
    with pytest.raises(TypeError):
        lax.mul(x, y)


@pytest.mark.spec("LXM-23")
def test_mul_out_dtype_gradients_have_operand_dtypes(jax, jnp):
    lax = _lax(jax)
    x = np.array([1.5, -2.0], np.float16)
    y = np.array([0.25, 4.0], np.float32)
    gx, gy = jax.grad(lambda a, b: lax.mul(a, b, out_dtype=np.float32).sum(),
                      argnums=(0, 1))(x, y)
    assert (gx.dtype, gy.dtype) == (np.float16, np.float32)
    np.testing.assert_array_equal(gx, y.astype(np.float16))
    np.testing.assert_array_equal(gy, x.astype(np.float32))
    _, t = jax.jvp(lambda a: lax.mul(a, y, out_dtype=np.float32), (x,), (np.ones(2, np.float16),))
    assert t.dtype == np.float32
    np.testing.assert_array_equal(t, y)


# ---------------------------------------------------------------------------
# LXM-24: broadcast_in_dim and squeeze
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-24")
@pytest.mark.parametrize("in_shape, out_shape, dims, match", [
    ((2, 2), (2,), (0, 1), "equal or higher rank to the operand shape"),
    ((2,), (2, 3), (2,), "must be a subset of output dimensions"),
    ((2,), (2, 3), (-1,), "nonnegative"),
    ((2, 2), (2, 2), (0, 0), "must not contain duplicates"),
    ((2,), (3,), (0,), "must either be 1, or be equal"),
])
def test_broadcast_in_dim_errors(jax, in_shape, out_shape, dims, match):
    with pytest.raises(TypeError, match=match):
        _lax(jax).broadcast_in_dim(np.ones(in_shape, np.float32), out_shape, dims)


@pytest.mark.spec("LXM-24")
def test_transposing_broadcast_in_dim(jax, jnp):
    lax = _lax(jax)
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)

    def f(v):
        return lax.broadcast_in_dim(v, (3, 4, 2), (2, 0))
    expected = np.broadcast_to(x.T[:, None, :], (3, 4, 2))
    np.testing.assert_array_equal(f(x), expected)
    np.testing.assert_array_equal(jax.jit(f)(x), expected)
    batch = np.stack([x, x + 1])
    np.testing.assert_array_equal(jax.vmap(f)(batch), np.stack([f(x), f(x + 1)]))
    _, t = jax.jvp(f, (x,), (x,))
    np.testing.assert_array_equal(t, expected)


@pytest.mark.spec("LXM-24")
def test_squeeze_repeated_dimensions(jax):
    lax = _lax(jax)
    for dims in [(0, 0), (0, -3)]:
        with pytest.raises(ValueError, match=r"dimensions are not unique: \(0, 0\)"):
            lax.squeeze(np.ones((1, 2, 3)), dims)
    assert lax.squeeze(np.ones((1, 2, 1)), (-1, 0)).shape == (2,)


# ---------------------------------------------------------------------------
# LXM-25: reduction axes, argmin/argmax
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-25")
def test_reduction_axis_errors(jax):
    lax = _lax(jax)
    x = np.arange(3, dtype=np.int32)
    for call in (lambda: lax.reduce_sum(x, (0, 0)), lambda: lax.reduce_max(x, (0, 0)),
                 lambda: lax.reduce(x, 0, lax.add, (0, 0))):
        with pytest.raises(ValueError, match=r"duplicate value in 'axes' of reduction: \(0, 0\)"):
            call()
    with pytest.raises(ValueError, match=r"reduction axes \(1,\) contains out-of-bounds "
                                         r"indices for int32\[3\]"):
        lax.reduce_sum(x, (1,))


@pytest.mark.spec("LXM-25")
@pytest.mark.parametrize("name", ["argmin", "argmax"])
def test_argminmax_checks(jax, name):
    fn = getattr(_lax(jax), name)
    for bad in (np.float32, np.bool_):
        with pytest.raises(TypeError, match="index_dtype must be an integer type"):
            fn(np.ones((2, 2)), axis=0, index_dtype=bad)
    with pytest.raises(ValueError, match="dtype must be specified"):
        fn(np.ones((2, 2)), axis=0, index_dtype=None)
    with pytest.raises(ValueError, match="require non-empty reduced dimension"):
        fn(np.ones((0, 2)), axis=0, index_dtype=np.int32)
    x = np.array([[3.0, 1.0], [0.0, 5.0]])
    out = fn(x, axis=0, index_dtype=np.uint8)
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out, getattr(np, name)(x, axis=0))


# ---------------------------------------------------------------------------
# LXM-26: top_k overflow
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-26")
def test_top_k_index_overflow(jax):
    lax = _lax(jax)
    big = jax.ShapeDtypeStruct((2**31 + 1,), np.dtype(ml_dtypes.bfloat16))
    with pytest.raises(ValueError, match="top_k returns int32 indices, which will overflow"):
        jax.eval_shape(lambda v: lax.top_k(v, 3), big)
    ok = jax.ShapeDtypeStruct((2**31,), np.dtype(ml_dtypes.bfloat16))
    assert jax.eval_shape(lambda v: lax.top_k(v, 3), ok)[1].shape == (3,)


# ---------------------------------------------------------------------------
# LXM-27: accuracy=
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-27")
def test_accuracy_modes_run_on_cpu(jax, jnp):
    lax = _lax(jax)
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    for name in ("exp", "expm1", "log1p", "tanh", "sin", "sqrt"):
        fn = getattr(lax, name)
        arg = np.abs(x) if name == "sqrt" else x
        plain = np.asarray(fn(arg))
        for accuracy in (lax.AccuracyMode.HIGHEST, lax.AccuracyMode.DEFAULT,
                         lax.Tolerance(atol=1e-3)):
            np.testing.assert_array_equal(fn(arg, accuracy=accuracy), plain)
    with pytest.raises(NotImplementedError, match="not supported"):
        lax.exp(x, accuracy=(1e-5, 1e-5, 1))


@pytest.mark.spec("LXM-27")
def test_highest_accuracy_derivatives(jax, jnp):
    lax = _lax(jax)
    high = lax.AccuracyMode.HIGHEST
    x = np.arange(-80.0, 80.0, 7.0, dtype=np.float32)
    d_expm1 = jax.vmap(jax.grad(lambda v: lax.expm1(v, accuracy=high)))(x)
    d_exp = jax.vmap(jax.grad(lambda v: lax.exp(v, accuracy=high)))(x)
    np.testing.assert_array_equal(d_expm1, d_exp)
    assert d_expm1[0] > 0    # ans + 1 would have cancelled to 0
    for name in ("tanh", "logistic"):
        fn = getattr(lax, name)
        pos = np.arange(0.0, 40.0, 3.0, dtype=np.float32)
        g = jax.vmap(jax.grad(lambda v: fn(v, accuracy=high)))
        np.testing.assert_allclose(g(pos), g(-pos), rtol=0, atol=1e-6)
        exact = (1 / np.cosh(pos.astype(np.float64)) ** 2 if name == "tanh"
                 else np.exp(-pos) / (1 + np.exp(-pos)) ** 2)
        np.testing.assert_allclose(g(pos), exact, rtol=1e-5, atol=1e-30)


# ---------------------------------------------------------------------------
# LXM-28: precision names
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-28")
def test_preset_names_as_precision(jax, jnp):
    lax = _lax(jax)
    a = np.arange(12, dtype=np.float16).reshape(3, 4) / 8
    b = np.arange(12, dtype=np.float16).reshape(4, 3) / 8
    out = lax.dot(a, b, precision="F32_F32_F32")
    assert out.dtype == np.float16
    np.testing.assert_allclose(out, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3)
    text = str(jax.make_jaxpr(lambda u, v: lax.dot(u, v, precision="F32_F32_F32"))(a, b))
    assert "precision=F32_F32_F32" in text
    with pytest.raises(ValueError, match="Precision argument must be one of:"):
        lax.dot(a, b, precision="not_a_precision")


@pytest.mark.spec("LXM-28")
def test_default_matmul_precision_fills_in_none(jax, jnp):
    lax = _lax(jax)
    a = np.ones((2, 2), np.float32)
    with jax.default_matmul_precision("highest"):
        text = str(jax.make_jaxpr(lambda u: lax.dot(u, u))(a))
    assert "Precision.HIGHEST" in text
    assert "precision" not in str(jax.make_jaxpr(lambda u: lax.dot(u, u))(a))


# ---------------------------------------------------------------------------
# LXM-29: complex log1p
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-29")
def test_complex_log1p_accuracy(jax, jnp):
    lax = _lax(jax)
    z = np.array([1e-5, 1e-7 + 1e-7j, -0.5 + 0.25j, 3 - 4j, -1.05 + 0.01j, 1e30 + 1e29j],
                 np.complex64)
    out = np.asarray(lax.log1p(z))
    exact = np.log(1 + z.astype(np.complex128))
    # Near zero, log(1 + z) in float64 is accurate enough to be the reference.
    small = np.abs(z) < 1e-3
    exact[small] = z[small] - z[small] ** 2 / 2 + z[small] ** 3 / 3
    np.testing.assert_array_almost_equal_nulp(out.real, exact.real.astype(np.float32), 2)
    np.testing.assert_allclose(out.imag, exact.imag, rtol=2e-7, atol=1e-45)
    np.testing.assert_array_almost_equal_nulp(
        np.asarray(lax.log1p(np.complex64(1e-5))).real, np.float32(np.log1p(1e-5)), 1)


# ---------------------------------------------------------------------------
# LXM-30, LXM-32: narrow integers
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-30")
def test_abs_of_narrow_ints(jax):
    lax = _lax(jax)
    for name in ("int4", "uint4"):
        with pytest.raises(TypeError, match=f"abs does not accept dtype {name}"):
            lax.abs(lax.iota(name, 3))
    np.testing.assert_array_equal(lax.abs(np.array([-3, 2], np.int8)), [3, 2])


@pytest.mark.spec("LXM-32")
def test_bitcast_int4_packs_nibbles(jax, jnp):
    lax = _lax(jax)
    int4 = np.dtype(ml_dtypes.int4)
    x = np.array([1, 2, 3, -1], int4)
    word = lax.bitcast_convert_type(x, np.uint16)
    assert word.shape == () and int(word) == 0xF321
    back = lax.bitcast_convert_type(np.array([0x1234], np.uint16), "uint4")
    np.testing.assert_array_equal(back.astype(np.int32), [[4, 3, 2, 1]])
    f = np.array([1.5], np.float32)
    nibbles = lax.bitcast_convert_type(f, "int4")
    assert nibbles.shape == (1, 8)
    np.testing.assert_array_equal(lax.bitcast_convert_type(nibbles, np.float32), f)
    np.testing.assert_array_equal(
        lax.bitcast_convert_type(np.array([7, -8], int4), "uint4").astype(np.int32), [7, 8])
    with pytest.raises(ValueError, match=r"3 \* 4 != 8"):
        lax.bitcast_convert_type(np.array([1, 2, 3], int4), np.uint8)


# ---------------------------------------------------------------------------
# LXM-31: big Python ints
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-31")
def test_big_python_int_conversions(jax, jnp):
    lax = _lax(jax)
    for value, dtype in [(2**32, "int32"), (2**32 + 5, "int8"), (-2**40 + 7, "uint32"),
                         (2**63, "uint16")]:
        expected = np.asarray(value).astype(dtype)
        out = lax.convert_element_type(value, dtype)
        assert out.dtype == np.dtype(dtype) and out == expected
    np.testing.assert_array_equal(lax.full((2,), 2**32 + 1, "int32"), [1, 1])
    assert lax.convert_element_type(2**64, "float32") == np.float32(2.0**64)
    with pytest.raises(OverflowError):
        lax.convert_element_type(2**64, "int32")


# ---------------------------------------------------------------------------
# LXM-33: composite
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-33")
def test_composite_rejects_closed_over_tracers(jax, jnp):
    lax = _lax(jax)
    import functools

    def fun(x, scale):
        @functools.partial(lax.composite, name="my.scaled")
        def scaled(y):
            return y * scale
        return scaled(x)
    x = jnp.array([1.0, 2.0])
    scale = jnp.array([3.0, 4.0])
    np.testing.assert_array_equal(jax.jit(functools.partial(fun, scale=scale))(x), [3.0, 8.0])
    with pytest.raises(jax.errors.UnexpectedTracerError,
                       match="Found a JAX Tracer as a constant in the decomposition "
                             "for the composite op 'my.scaled'"):
        jax.jit(fun)(x, scale)


# ---------------------------------------------------------------------------
# LXM-34, LXM-35: fft
# ---------------------------------------------------------------------------

@pytest.mark.spec("LXM-34")
@pytest.mark.parametrize("shape, kind, lengths, dtype, match", [
    ((14, 15), "fft", (4, 5, 6), np.float32, r"must have at least as many input dimensions"),
    ((14, 15), "fft", (17,), np.float32, r"FFT input shape \(14, 15\) minor dimensions"),
    ((2, 14, 15), "rfft", (14, 12), np.float32, r"RFFT input shape \(2, 14, 15\) minor"),
    ((2, 14, 15), "irfft", (13, 15), np.complex64, r"all except the last fft_length"),
    ((14, 15), "rfft", (14, 15), ml_dtypes.bfloat16, "RFFT input must be float32 or float64"),
    ((14, 15), "rfft", (14, 15), np.float16, "RFFT input must be float32 or float64"),
])
def test_lax_fft_errors(jax, shape, kind, lengths, dtype, match):
    with pytest.raises(ValueError, match=match):
        _lax(jax).fft(np.ones(shape, dtype), fft_type=kind, fft_lengths=lengths)


@pytest.mark.spec("LXM-34")
def test_lax_fft_valid_shapes(jax):
    lax = _lax(jax)
    x = np.arange(30, dtype=np.float32).reshape(2, 15)
    np.testing.assert_allclose(lax.fft(x, "rfft", (15,)), np.fft.rfft(x), rtol=1e-5, atol=1e-4)
    half = np.fft.rfft(x)
    np.testing.assert_allclose(lax.fft(half.astype(np.complex64), "irfft", (15,)),
                               np.fft.irfft(half, 15), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(lax.fft(x, "fft", (2, 15)), np.fft.fft2(x), rtol=1e-5, atol=1e-3)


@pytest.mark.spec("LXM-35")
@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
def test_fftn_repeated_axes(jnp, name):
    fn = getattr(jnp.fft, name)
    x = np.ones((2, 3))
    with pytest.raises(ValueError, match=rf"jax.numpy.fft.{name} does not support repeated "
                                         r"axes. Got axes \[1, 1\]."):
        fn(x, axes=[1, 1])
    with pytest.raises(ValueError):
        fn(x, axes=[2])


@pytest.mark.spec("LXM-35")
@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequency_spacing_must_be_single(jnp, name):
    fn = getattr(jnp.fft, name)
    with pytest.raises(ValueError, match=rf"The d argument of jax.numpy.fft.{name} only "
                                         r"takes a single value. Got d = \[0, 1, 2\]."):
        fn(10, d=[0, 1, 2])
    np.testing.assert_allclose(fn(10, d=np.array(0.5)), getattr(np.fft, name)(10, 0.5),
                               rtol=1e-6)


# ---------------------------------------------------------------------------
# LXM-36: ragged_dot_general
# ---------------------------------------------------------------------------

def _dn(lax, dot, ragged, group):
    return lax.RaggedDotDimensionNumbers(dot_dimension_numbers=dot,
                                         lhs_ragged_dimensions=ragged,
                                         rhs_group_dimensions=group)


@pytest.mark.spec("LXM-36")
@pytest.mark.parametrize("lhs, rhs, gs, dot, ragged, group, match", [
    ((11, 5), (3, 5, 7), (3,), (([1], [1]), ([], [])), [0, 1], [0], "exactly one lhs ragged"),
    ((11, 5), (3, 5, 7), (3,), (([1], [1]), ([], [])), [2], [0], "nonnegative and less than"),
    ((11, 5), (3, 5, 7), (2, 3), (([1], [1]), ([], [])), [0], [0], r"shape \(3,\), got \(2, 3\)"),
    ((19, 17, 11, 5), (3, 19, 5, 7), (19, 11, 3), (([3], [2]), ([0], [1])), [2], [0],
     r"shape \(19, 17, 3\), got \(19, 11, 3\)"),
    ((19, 11, 5), (19, 5, 7), (19, 3), (([2], [1]), ([0], [0])), [1], [0], "distinct from"),
    ((11, 5), (3, 5, 7), (2,), (([1], [1]), ([], [])), [0], [0], "size to be 2, got 3"),
    ((11, 5), (3, 5, 7), (3,), (([1], [1]), ([], [])), [1], [0], "zero group dimensions"),
    ((11, 5), (5, 7), (3,), (([1], [0]), ([], [])), [0], [], "exactly one rhs group"),
])
def test_ragged_dot_general_shape_errors(jax, jnp, lhs, rhs, gs, dot, ragged, group, match):
    lax = _lax(jax)
    with pytest.raises(TypeError, match=match):
        lax.ragged_dot_general(jnp.ones(lhs), jnp.ones(rhs), jnp.ones(gs, jnp.int32),
                               _dn(lax, dot, ragged, group))


@pytest.mark.spec("LXM-36")
def test_ragged_dot_batched_group_sizes(jax, jnp):
    lax = _lax(jax)
    rng = np.random.default_rng(1)
    a = rng.normal(size=(2, 6, 5)).astype(np.float32)
    b = rng.normal(size=(2, 3, 5, 7)).astype(np.float32)
    sizes = np.array([[1, 2, 3], [4, 0, 1]], np.int32)
    out = lax.ragged_dot_general(a, b, sizes, _dn(lax, (([2], [2]), ([0], [0])), [1], [1]))
    expected = np.zeros((2, 6, 7), np.float32)
    for i in range(2):
        start = 0
        for g, n in enumerate(sizes[i]):
            expected[i, start:start + n] = a[i, start:start + n] @ b[i, g]
            start += n
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    # Contracting ragged axis with per-batch groups: one product per group.
    c = rng.normal(size=(2, 4, 6)).astype(np.float32)
    d = rng.normal(size=(2, 6, 3)).astype(np.float32)
    out = lax.ragged_dot_general(c, d, sizes, _dn(lax, (([2], [1]), ([0], [0])), [2], []))
    assert out.shape == (3, 2, 4, 3)
    for i in range(2):
        bounds = np.concatenate([[0], np.cumsum(sizes[i])])
        for g in range(3):
            lo, hi = bounds[g], bounds[g + 1]
            np.testing.assert_allclose(out[g, i], c[i][:, lo:hi] @ d[i][lo:hi], rtol=1e-5,
                                       atol=1e-5)
