"""Conformance: ``jax.nn`` activations, softmax, logsumexp, one_hot (SPEC NN-*).

References are computed here in float64 NumPy (or ``math``) and compared
with float32 tolerance; half-precision results with a tolerance of a few
units in their last place.
"""
import importlib
import math
import warnings

import ml_dtypes
import numpy as np
import pytest

F32 = dict(rtol=2e-6, atol=2e-7)


@pytest.fixture(scope="module")
def nn(jax):
    return importlib.import_module(jax.__name__ + ".nn")


def f32(jnp, values):
    return jnp.asarray(np.asarray(values, np.float32))


def i32(jnp, values):
    return jnp.asarray(np.asarray(values, np.int32))


def host(x):
    """An Array's values as float64 (bfloat16 goes through float32)."""
    a = np.asarray(x)
    if a.dtype == ml_dtypes.bfloat16:
        a = a.astype(np.float32)
    return a.astype(np.float64)


GRID = np.concatenate([np.linspace(-7, 7, 29), [-6., -3., -1., 0., 1., 3., 6.]])


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _erfc(x):
    return np.vectorize(math.erfc)(x)


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946

ACTIVATIONS = {
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.minimum(np.maximum(x, 0), 6),
    "sigmoid": _sigmoid,
    "log_sigmoid": lambda x: -np.logaddexp(0, -x),
    "softplus": lambda x: np.logaddexp(0, x),
    "soft_sign": lambda x: x / (np.abs(x) + 1),
    "silu": lambda x: x * _sigmoid(x),
    "swish": lambda x: x * _sigmoid(x),
    "elu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
    "celu": lambda x: np.maximum(x, 0) + np.expm1(np.minimum(x, 0)),
    "selu": lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0))),
    "leaky_relu": lambda x: np.where(x >= 0, x, 0.01 * x),
    "hard_tanh": lambda x: np.clip(x, -1, 1),
    "hard_sigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
    "hard_silu": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "hard_swish": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "sparse_plus": lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
    "sparse_sigmoid": lambda x: np.clip(x + 1, 0, 2) / 2,
    "identity": lambda x: x,
}


# ---------------------------------------------------------------------------
# NN-1: elementwise activations
# ---------------------------------------------------------------------------

@pytest.mark.spec("NN-1")
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_values_float32(nn, jnp, name):
    out = getattr(nn, name)(f32(jnp, GRID))
    assert out.dtype == np.float32 and out.shape == GRID.shape
    ref = ACTIVATIONS[name](GRID.astype(np.float32).astype(np.float64))
    np.testing.assert_allclose(host(out), ref, rtol=3e-6, atol=1e-6)


@pytest.mark.spec("NN-1")
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16], ids=["float16", "bfloat16"])
def test_activations_keep_half_precision(nn, jnp, name, dtype):
    x = np.asarray(GRID, dtype)
    out = getattr(nn, name)(jnp.asarray(x))
    assert out.dtype == np.dtype(dtype)
    eps = float(ml_dtypes.finfo(dtype).eps)
    np.testing.assert_allclose(host(out), ACTIVATIONS[name](host(x)), rtol=4 * eps, atol=4 * eps)


INT_RESULTS = [
    # (function, dtype, weak_type) observed on JAX 0.10.2 for an int32 array
    ("relu", np.int32, False), ("hard_tanh", np.int32, False), ("identity", np.int32, False),
    ("relu6", np.float32, True), ("hard_sigmoid", np.float32, True),
    ("hard_silu", np.float32, True), ("elu", np.float32, True), ("celu", np.float32, True),
    ("selu", np.float32, True), ("leaky_relu", np.float32, True),
    ("sparse_plus", np.float32, True), ("sparse_sigmoid", np.float32, True),
    ("softplus", np.float32, False), ("log_sigmoid", np.float32, False),
    ("soft_sign", np.float32, False),
]


@pytest.mark.spec("NN-1")
@pytest.mark.parametrize("name,dtype,weak", INT_RESULTS, ids=[r[0] for r in INT_RESULTS])
def test_integer_inputs(nn, jnp, name, dtype, weak):
    values = [-5, -2, -1, 0, 1, 2, 7]
    out = getattr(nn, name)(i32(jnp, values))
    assert out.dtype == dtype and out.weak_type == weak
    np.testing.assert_allclose(host(out), ACTIVATIONS[name](np.asarray(values, np.float64)),
                               **F32)


@pytest.mark.spec("NN-1")
@pytest.mark.parametrize("name", ["sigmoid", "silu", "swish"])
def test_logistic_rejects_integers(nn, jnp, name):
    with pytest.raises(TypeError, match="logistic does not accept dtype int32. Accepted "
                       "dtypes are subtypes of floating, complexfloating."):
        getattr(nn, name)(i32(jnp, [1, 2]))


@pytest.mark.spec("NN-1")
def test_python_scalars_and_bools(nn, jnp):
    out = nn.relu(2)
    assert (out.dtype, out.weak_type, int(out)) == (np.int32, True, 2)
    out = nn.relu(-2.0)
    assert (out.dtype, out.weak_type, float(out)) == (np.float32, True, 0.0)
    out = nn.relu(jnp.asarray(np.array([True, False])))
    assert out.dtype == np.int32 and np.asarray(out).tolist() == [1, 0]
    out = nn.softplus(1)
    assert out.dtype == np.float32 and out.weak_type
    assert float(out) == pytest.approx(math.log1p(math.e), rel=1e-6)
    out = nn.sigmoid(0.0)
    assert out.weak_type and float(out) == 0.5


@pytest.mark.spec("NN-1")
def test_unsigned_relu_keeps_dtype(nn, jnp):
    out = nn.relu(jnp.asarray(np.array([0, 7, 255], np.uint8)))
    assert out.dtype == np.uint8 and np.asarray(out).tolist() == [0, 7, 255]


@pytest.mark.spec("NN-1")
def test_list_arguments_raise(nn):
    with pytest.raises(TypeError, match=r"maximum requires ndarray or scalar arguments, "
                       r"got <class 'list'> at position 0\."):
        nn.relu([1, 2])
    for name in ("silu", "soft_sign", "elu", "leaky_relu", "hard_tanh", "log_sigmoid"):
        with pytest.raises(TypeError, match=f"{name} requires ndarray or scalar arguments"):
            getattr(nn, name)([1.0])


@pytest.mark.spec("NN-1")
def test_softplus_and_log_sigmoid_stay_finite(nn, jnp):
    x = f32(jnp, [1e30, -1e30, 100., -100., 0.])
    soft = host(nn.softplus(x))
    # softplus(-100) = 3.7e-44 is subnormal in float32; XLA may flush it to 0.
    np.testing.assert_allclose(soft, [1e30, 0., 100., 0., math.log(2)], rtol=1e-6, atol=1e-43)
    logsig = host(nn.log_sigmoid(x))
    np.testing.assert_allclose(logsig, [0., -1e30, -3.720076e-44, -100., -math.log(2)],
                               rtol=1e-6, atol=1e-30)
    edges = host(nn.softplus(f32(jnp, [np.inf, -np.inf, np.nan])))
    assert edges[0] == np.inf and edges[1] == 0 and np.isnan(edges[2])


@pytest.mark.spec("NN-1")
def test_saturating_activations_have_no_nans(nn, jnp):
    x = f32(jnp, [-1e4, -100., 100., 1e4])
    np.testing.assert_array_equal(host(nn.sigmoid(x)), [0., 0., 1., 1.])
    np.testing.assert_allclose(host(nn.elu(x)), [-1., -1., 100., 1e4])
    np.testing.assert_allclose(host(nn.selu(x)), [-SELU_SCALE * SELU_ALPHA] * 2
                               + [SELU_SCALE * 100, SELU_SCALE * 1e4], rtol=1e-6)
    np.testing.assert_allclose(host(nn.silu(x)), [-0., -0., 100., 1e4], atol=1e-30)


@pytest.mark.spec("NN-1")
def test_parameters_of_elu_celu_leaky_relu(nn, jnp):
    x = GRID.astype(np.float32)
    xd = x.astype(np.float64)
    np.testing.assert_allclose(host(nn.elu(f32(jnp, x), 2.0)),
                               np.where(xd > 0, xd, 2 * np.expm1(np.minimum(xd, 0))), **F32)
    np.testing.assert_allclose(host(nn.celu(f32(jnp, x), alpha=0.5)),
                               np.maximum(xd, 0) + 0.5 * np.expm1(np.minimum(xd, 0) / 0.5),
                               rtol=3e-6, atol=1e-6)
    out = nn.leaky_relu(jnp.asarray(x.astype(np.float16)), 0.2)
    assert out.dtype == np.float16
    np.testing.assert_allclose(host(out), np.where(xd >= 0, xd, 0.2 * xd), rtol=2e-3)
    alpha = f32(jnp, np.linspace(0.5, 2, x.size))
    np.testing.assert_allclose(host(nn.elu(f32(jnp, x), alpha)),
                               np.where(xd > 0, xd, np.linspace(0.5, 2, x.size)
                                        * np.expm1(np.minimum(xd, 0))), rtol=3e-6, atol=1e-6)


# ---------------------------------------------------------------------------
# NN-2: gelu
# ---------------------------------------------------------------------------

def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def _gelu_erf(x):
    return 0.5 * x * _erfc(-x / np.sqrt(2))


@pytest.mark.spec("NN-2")
@pytest.mark.parametrize("approximate,ref", [(True, _gelu_tanh), (False, _gelu_erf)],
                         ids=["tanh", "erf"])
def test_gelu_values(nn, jnp, approximate, ref):
    out = nn.gelu(f32(jnp, GRID), approximate=approximate)
    assert out.dtype == np.float32 and not out.weak_type
    np.testing.assert_allclose(host(out), ref(GRID.astype(np.float32).astype(np.float64)),
                               rtol=3e-6, atol=1e-6)


@pytest.mark.spec("NN-2")
def test_gelu_forms_differ_slightly(nn, jnp):
    x = f32(jnp, [-2., 1., 3.])
    diff = host(nn.gelu(x)) - host(nn.gelu(x, approximate=False))
    assert np.all(np.abs(diff) > 1e-5) and np.all(np.abs(diff) < 1e-3)


@pytest.mark.spec("NN-2")
@pytest.mark.parametrize("approximate", [True, False])
def test_gelu_dtypes(nn, jnp, approximate):
    out = nn.gelu(i32(jnp, [1, -2, 3]), approximate=approximate)
    assert out.dtype == np.float32 and not out.weak_type
    ref = (_gelu_tanh if approximate else _gelu_erf)(np.array([1., -2., 3.]))
    np.testing.assert_allclose(host(out), ref, **F32)
    for dtype in (np.float16, ml_dtypes.bfloat16):
        x = np.asarray([1, -2, 3], dtype)
        out = nn.gelu(jnp.asarray(x), approximate=approximate)
        assert out.dtype == np.dtype(dtype)
        np.testing.assert_allclose(host(out), ref, rtol=2e-2, atol=4e-3)
    out = nn.gelu(2.0, approximate=approximate)
    assert out.dtype == np.float32 and not out.weak_type


# ---------------------------------------------------------------------------
# NN-3: softmax and log_softmax
# ---------------------------------------------------------------------------

def _softmax(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


MATRIX = np.array([[0.5, -1.0, 3.0, 2.0], [10.0, 11.0, 9.5, -4.0], [0., 0., 0., 0.]])


@pytest.mark.spec("NN-3")
@pytest.mark.parametrize("axis", [-1, 0, 1, (0, 1), None])
def test_softmax_and_log_softmax_values(nn, jnp, axis):
    x = f32(jnp, MATRIX)
    np_axis = axis if axis is not None else (0, 1)
    ref = _softmax(MATRIX, np_axis)
    soft = nn.softmax(x, axis=axis)
    assert soft.dtype == np.float32 and soft.shape == MATRIX.shape
    np.testing.assert_allclose(host(soft), ref, rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(host(soft).sum(axis=np_axis), 1.0, rtol=1e-6)
    np.testing.assert_allclose(host(nn.log_softmax(x, axis=axis)), np.log(ref),
                               rtol=2e-6, atol=2e-6)


@pytest.mark.spec("NN-3")
def test_softmax_of_huge_inputs_is_exact(nn, jnp):
    np.testing.assert_array_equal(host(nn.softmax(f32(jnp, [1e30, 0.]))), [1., 0.])
    np.testing.assert_array_equal(host(nn.log_softmax(f32(jnp, [1e30, 0.]))),
                                  np.array([0., -1e30], np.float32))
    np.testing.assert_allclose(host(nn.softmax(f32(jnp, [-1e30, -1e30]))), [0.5, 0.5])


@pytest.mark.spec("NN-3")
def test_softmax_infinities(nn, jnp):
    assert np.isnan(host(nn.softmax(f32(jnp, [np.inf, 1.])))).all()
    assert np.isnan(host(nn.softmax(f32(jnp, [-np.inf, -np.inf])))).all()
    np.testing.assert_array_equal(host(nn.softmax(f32(jnp, [-np.inf, 1.]))), [0., 1.])
    np.testing.assert_array_equal(host(nn.log_softmax(f32(jnp, [-np.inf, 1.]))), [-np.inf, 0.])


@pytest.mark.spec("NN-3")
def test_softmax_where(nn, jnp):
    x = f32(jnp, [1., 2., 3.])
    mask = jnp.asarray(np.array([True, False, True]))
    ref = _softmax(np.array([1., 3.]), -1)
    np.testing.assert_allclose(host(nn.softmax(x, where=mask)), [ref[0], 0., ref[1]], **F32)
    np.testing.assert_allclose(host(nn.log_softmax(x, where=mask)),
                               [math.log(ref[0]), -np.inf, math.log(ref[1])], **F32)
    none = jnp.asarray(np.zeros((2, 3), bool))
    np.testing.assert_array_equal(host(nn.softmax(f32(jnp, np.ones((2, 3))), where=none)), 0.)
    np.testing.assert_array_equal(host(nn.log_softmax(f32(jnp, np.ones((2, 3))), where=none)),
                                  -np.inf)
    # The mask broadcasts against x; here it picks columns along axis 0.
    out = nn.softmax(f32(jnp, MATRIX[:2, :3]), axis=0, where=mask)
    ref = _softmax(MATRIX[:2, :3], 0) * np.array([1, 0, 1])
    np.testing.assert_allclose(host(out), ref, rtol=2e-6, atol=1e-7)


@pytest.mark.spec("NN-3")
def test_softmax_dtypes(nn, jnp):
    out = nn.softmax(i32(jnp, [1, -2, 3]))
    assert out.dtype == np.float32 and not out.weak_type
    np.testing.assert_allclose(host(out), _softmax(np.array([1., -2., 3.]), -1), **F32)
    assert nn.log_softmax(i32(jnp, [1, -2, 3])).dtype == np.float32
    for dtype in (np.float16, ml_dtypes.bfloat16):
        x = jnp.asarray(np.asarray([1, 2, 3], dtype))
        for fn in (nn.softmax, nn.log_softmax):
            assert fn(x).dtype == np.dtype(dtype)
        np.testing.assert_allclose(host(nn.softmax(x)), _softmax(np.array([1., 2., 3.]), -1),
                                   rtol=1e-2)


@pytest.mark.spec("NN-3")
def test_softmax_axis_errors(nn, jnp):
    x = f32(jnp, np.ones((2, 3)))
    for fn in (nn.softmax, nn.log_softmax):
        with pytest.raises(ValueError, match="axis 3 is out of bounds for array of dimension 2"):
            fn(x, axis=3)
        with pytest.raises(ValueError, match=r"duplicate value in 'axis': \(0, 0\)"):
            fn(x, axis=(0, 0))
        with pytest.raises(ValueError, match="axis -1 is out of bounds for array of dimension 0"):
            fn(f32(jnp, 3.0))


# ---------------------------------------------------------------------------
# NN-4: logsumexp
# ---------------------------------------------------------------------------

def _logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


@pytest.mark.spec("NN-4")
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_logsumexp_values(nn, jnp, axis, keepdims):
    out = nn.logsumexp(f32(jnp, MATRIX), axis=axis, keepdims=keepdims)
    ref = _logsumexp(MATRIX, axis=axis if axis is not None else (0, 1), keepdims=keepdims)
    assert out.dtype == np.float32 and out.shape == np.shape(ref)
    np.testing.assert_allclose(host(out), ref, rtol=2e-6)


@pytest.mark.spec("NN-4")
def test_logsumexp_is_scipy_logsumexp(jax, nn):
    special = importlib.import_module(jax.__name__ + ".scipy.special")
    assert nn.logsumexp is special.logsumexp


@pytest.mark.spec("NN-4")
def test_logsumexp_huge_and_infinite_inputs(nn, jnp):
    assert float(nn.logsumexp(f32(jnp, [1e30, 1e30]))) == pytest.approx(1e30, rel=1e-6)
    assert float(nn.logsumexp(f32(jnp, [-1e30, -1e30]))) == pytest.approx(-1e30, rel=1e-6)
    assert float(nn.logsumexp(f32(jnp, [-np.inf, -np.inf]))) == -np.inf
    assert float(nn.logsumexp(f32(jnp, [-np.inf, 1.]))) == pytest.approx(1.0)
    assert float(nn.logsumexp(f32(jnp, [np.inf, 1.]))) == np.inf
    assert float(nn.logsumexp(f32(jnp, [np.inf, -np.inf]))) == np.inf
    assert np.isnan(float(nn.logsumexp(f32(jnp, [np.nan, 1.]))))
    assert float(nn.logsumexp(f32(jnp, np.zeros((0,))))) == -np.inf
    np.testing.assert_array_equal(host(nn.logsumexp(f32(jnp, np.zeros((2, 0))), axis=1)),
                                  [-np.inf, -np.inf])


@pytest.mark.spec("NN-4")
def test_logsumexp_b(nn, jnp):
    a = f32(jnp, MATRIX)
    b = np.array([1., 2., 0.5, 3.])
    out = nn.logsumexp(a, axis=1, b=f32(jnp, b))
    ref = np.log(np.sum(b * np.exp(MATRIX), axis=1))
    np.testing.assert_allclose(host(out), ref, rtol=2e-6)
    np.testing.assert_allclose(float(nn.logsumexp(a, b=2.0)),
                               math.log(2) + _logsumexp(MATRIX), rtol=2e-6)
    # b == 0 removes an element, even an infinite one.
    assert float(nn.logsumexp(f32(jnp, [1., np.inf]), b=f32(jnp, [1., 0.]))) == \
        pytest.approx(1.0)
    assert float(nn.logsumexp(f32(jnp, [1., 2.]), b=f32(jnp, [0., 0.]))) == -np.inf


@pytest.mark.spec("NN-4")
def test_logsumexp_negative_sums_and_return_sign(nn, jnp):
    a, b = f32(jnp, [1., 2.]), f32(jnp, [1., -2.])
    assert np.isnan(float(nn.logsumexp(a, b=b)))
    out, sign = nn.logsumexp(a, b=b, return_sign=True)
    assert float(out) == pytest.approx(math.log(2 * math.e ** 2 - math.e), rel=1e-6)
    assert float(sign) == -1.0 and sign.dtype == np.float32
    out, sign = nn.logsumexp(a, return_sign=True)
    assert float(sign) == 1.0
    out, sign = nn.logsumexp(f32(jnp, [-np.inf]), return_sign=True)
    assert float(out) == -np.inf and float(sign) == 0.0


@pytest.mark.spec("NN-4")
def test_logsumexp_where(nn, jnp):
    mask = jnp.asarray(np.array([True, False, True, True]))
    out = nn.logsumexp(f32(jnp, MATRIX), axis=1, where=mask)
    np.testing.assert_allclose(host(out), _logsumexp(MATRIX[:, [0, 2, 3]], axis=1), rtol=2e-6)
    none = jnp.asarray(np.zeros(4, bool))
    np.testing.assert_array_equal(host(nn.logsumexp(f32(jnp, MATRIX), axis=1, where=none)),
                                  -np.inf)


@pytest.mark.spec("NN-4")
def test_logsumexp_dtypes(nn, jnp):
    out = nn.logsumexp(i32(jnp, [1, -2, 3]))
    assert out.dtype == np.float32 and out.shape == ()
    assert float(out) == pytest.approx(_logsumexp(np.array([1., -2., 3.])), rel=1e-6)
    assert nn.logsumexp(3).dtype == np.float32
    for dtype in (np.float16, ml_dtypes.bfloat16):
        out = nn.logsumexp(jnp.asarray(np.ones(3, dtype)), keepdims=True)
        assert out.dtype == np.dtype(dtype) and out.shape == (1,)
        assert host(out)[0] == pytest.approx(1 + math.log(3), rel=1e-2)
    with pytest.raises(TypeError, match="logsumexp requires ndarray or scalar arguments"):
        nn.logsumexp([1., 2.])


# ---------------------------------------------------------------------------
# NN-5: one_hot
# ---------------------------------------------------------------------------

@pytest.mark.spec("NN-5")
def test_one_hot_values_and_out_of_range(nn, jnp):
    out = nn.one_hot(i32(jnp, [0, 2, -1, 3, 1]), 3)
    assert out.dtype == np.float32 and out.shape == (5, 3)
    np.testing.assert_array_equal(host(out), [[1, 0, 0], [0, 0, 1], [0, 0, 0],
                                              [0, 0, 0], [0, 1, 0]])


@pytest.mark.spec("NN-5")
def test_one_hot_dtype_and_axis(nn, jnp):
    x = i32(jnp, [1, 2])
    out = nn.one_hot(x, 3, dtype=jnp.int32)
    assert out.dtype == np.int32 and np.asarray(out).tolist() == [[0, 1, 0], [0, 0, 1]]
    out = nn.one_hot(x, 3, dtype=jnp.bool_)
    assert out.dtype == np.bool_
    out = nn.one_hot(x, 4, axis=0)
    assert out.shape == (4, 2)
    np.testing.assert_array_equal(host(out), np.eye(4)[[1, 2]].T)
    indices = np.array([[0, 1], [2, 3]])
    out = nn.one_hot(i32(jnp, indices), 3, axis=1)
    # out[i, c, j] is whether indices[i, j] == c (3 is out of range).
    np.testing.assert_array_equal(host(out), indices[:, None, :] == np.arange(3)[None, :, None])
    assert nn.one_hot(x, 3, axis=-2).shape == (3, 2)
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
        nn.one_hot(x, 4, axis=2)


@pytest.mark.spec("NN-5")
def test_one_hot_arguments(nn, jnp):
    np.testing.assert_array_equal(host(nn.one_hot(3, 4)), [0, 0, 0, 1])
    np.testing.assert_array_equal(host(nn.one_hot([0, 1], 2)), np.eye(2))
    assert nn.one_hot(i32(jnp, [0, 1]), 0).shape == (2, 0)
    np.testing.assert_array_equal(host(nn.one_hot(i32(jnp, [0, 1]), i32(jnp, 3))),
                                  np.eye(3)[:2])
    with pytest.raises(TypeError):
        nn.one_hot(i32(jnp, [0, 1]), 3.5)


@pytest.mark.spec("NN-5")
def test_one_hot_float_input_warns(nn, jnp):
    with pytest.warns(DeprecationWarning,
                      match="jax.nn.one_hot input should be integer-typed; got dtype=float32"):
        out = nn.one_hot(f32(jnp, [0., 1.]), 3)
    np.testing.assert_array_equal(host(out), np.eye(3)[:2])


@pytest.mark.spec("NN-5")
def test_one_hot_compares_in_the_input_dtype(nn, jnp):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out = host(nn.one_hot(jnp.asarray(np.array([1], np.uint8)), 300))
    assert out.shape == (1, 300)
    assert np.flatnonzero(out[0]).tolist() == [1, 257]


# ---------------------------------------------------------------------------
# NN-6: standardize
# ---------------------------------------------------------------------------

def _standardize(x, axis, eps=1e-5):
    mean = x.mean(axis=axis, keepdims=True)
    var = (x ** 2).mean(axis=axis, keepdims=True) - mean ** 2
    return (x - mean) / np.sqrt(np.maximum(var, 0) + eps)


@pytest.mark.spec("NN-6")
@pytest.mark.parametrize("axis", [-1, 0, None, (0, 1)])
def test_standardize_values(nn, jnp, axis):
    out = nn.standardize(f32(jnp, MATRIX), axis=axis)
    assert out.dtype == np.float32 and out.shape == MATRIX.shape
    np_axis = (0, 1) if axis is None else axis
    np.testing.assert_allclose(host(out), _standardize(MATRIX, np_axis), rtol=2e-5, atol=2e-5)


@pytest.mark.spec("NN-6")
def test_standardize_options(nn, jnp):
    x = f32(jnp, [1., 2., 3., 4.])
    np.testing.assert_allclose(host(nn.standardize(x, epsilon=0)),
                               (np.arange(1, 5) - 2.5) / math.sqrt(1.25), rtol=2e-6)
    np.testing.assert_allclose(host(nn.standardize(x, mean=0, variance=1)),
                               np.arange(1, 5) / math.sqrt(1 + 1e-5), rtol=2e-6)
    mask = jnp.asarray(np.array([True, True, False, False]))
    np.testing.assert_allclose(host(nn.standardize(x, where=mask)),
                               (np.arange(1, 5) - 1.5) / math.sqrt(0.25 + 1e-5), rtol=2e-6)
    np.testing.assert_array_equal(host(nn.standardize(f32(jnp, np.ones(3)))), 0.)


@pytest.mark.spec("NN-6")
def test_standardize_dtypes(nn, jnp):
    out = nn.standardize(i32(jnp, [1, -2, 3]))
    assert out.dtype == np.float32
    np.testing.assert_allclose(host(out), _standardize(np.array([1., -2., 3.]), -1), rtol=2e-5)
    for dtype in (np.float16, ml_dtypes.bfloat16):
        out = nn.standardize(jnp.asarray(np.asarray([1, -2, 3], dtype)))
        assert out.dtype == np.dtype(dtype)
        np.testing.assert_allclose(host(out), _standardize(np.array([1., -2., 3.]), -1),
                                   rtol=2e-2, atol=2e-2)


# ---------------------------------------------------------------------------
# NN-7: glu
# ---------------------------------------------------------------------------

@pytest.mark.spec("NN-7")
def test_glu(nn, jnp):
    x = np.arange(8.).reshape(2, 4) - 3
    out = nn.glu(f32(jnp, x))
    assert out.shape == (2, 2) and out.dtype == np.float32
    np.testing.assert_allclose(host(out), x[:, :2] * _sigmoid(x[:, 2:]), **F32)
    out = nn.glu(f32(jnp, x), axis=0)
    np.testing.assert_allclose(host(out), x[:1] * _sigmoid(x[1:]), **F32)
    with pytest.raises(AssertionError, match="axis size must be divisible by 2"):
        nn.glu(f32(jnp, [1., 2., 3.]))
