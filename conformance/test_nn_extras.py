"""Conformance: the ``jax.nn`` functions added in JAX 0.4.3x-0.10
(SPEC NN-8 .. NN-13).

References are float64 NumPy computations of each definition.
"""
import importlib

import numpy as np
import pytest

F32 = dict(rtol=2e-6, atol=2e-7)


@pytest.fixture(scope="module")
def nn(jax):
    return importlib.import_module(jax.__name__ + ".nn")


GRID = np.linspace(-6, 6, 25).astype(np.float32)


@pytest.mark.spec("NN-8")
def test_squareplus_and_mish_values(nn, jnp):
    x = GRID.astype(np.float64)
    np.testing.assert_allclose(nn.squareplus(jnp.asarray(GRID)), (x + np.sqrt(x * x + 4)) / 2,
                               **F32)
    np.testing.assert_allclose(nn.squareplus(jnp.asarray(GRID), 1.), (x + np.sqrt(x * x + 1)) / 2,
                               **F32)
    np.testing.assert_allclose(nn.mish(jnp.asarray(GRID)), x * np.tanh(np.logaddexp(x, 0)),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.spec("NN-8")
def test_squareplus_and_mish_dtypes(nn, jnp):
    assert nn.squareplus(jnp.arange(3)).dtype == np.float32
    out = nn.squareplus(2)
    assert out.dtype == np.float32 and out.weak_type
    assert nn.mish(jnp.ones(2, jnp.bfloat16)).dtype == jnp.bfloat16
    assert nn.tanh is jnp.tanh
    with pytest.raises(TypeError, match="squareplus requires ndarray or scalar"):
        nn.squareplus([1., 2.])
    with pytest.raises(TypeError, match="mish requires ndarray or scalar"):
        nn.mish([1., 2.])


@pytest.mark.spec("NN-9")
def test_log1mexp_values_and_edges(nn, jnp):
    x = np.array([1e-6, 0.1, 0.69, 0.7, 1., 5., 30.], np.float64)
    got = nn.log1mexp(jnp.asarray(x.astype(np.float32)))
    x = x.astype(np.float32).astype(np.float64)
    # float64 reference, itself free of cancellation on both sides of log 2
    ref = np.where(x < np.log(2), np.log(-np.expm1(-x)), np.log1p(-np.exp(-x)))
    np.testing.assert_allclose(got, ref, rtol=3e-6)
    edges = np.asarray(nn.log1mexp(jnp.asarray(np.float32([0., -1.]))))
    assert edges[0] == -np.inf and np.isnan(edges[1])


@pytest.mark.spec("NN-9")
def test_log1mexp_derivative_and_jaxpr(jax, nn, jnp):
    for x in (0.05, 1., 4.):
        np.testing.assert_allclose(jax.grad(nn.log1mexp)(x), 1 / np.expm1(x), rtol=1e-5)
    text = str(jax.make_jaxpr(nn.log1mexp)(jnp.ones(3)))
    assert "custom_jvp_call" in text and "name=log1mexp" in text


@pytest.mark.spec("NN-10")
def test_logmeanexp(nn, jnp):
    x = np.array([[1., 2., 3.], [-1., 0., 10.]], np.float32)
    ref = np.log(np.mean(np.exp(x.astype(np.float64)), axis=1))
    np.testing.assert_allclose(nn.logmeanexp(jnp.asarray(x), axis=1), ref, **F32)
    np.testing.assert_allclose(nn.logmeanexp(jnp.asarray(x)),
                               np.log(np.mean(np.exp(x.astype(np.float64)))), **F32)
    where = np.array([[True, False, True], [True, True, False]])
    ref_w = [np.log((np.exp(1.) + np.exp(3.)) / 2), np.log((np.exp(-1.) + 1.) / 2)]
    np.testing.assert_allclose(nn.logmeanexp(jnp.asarray(x), axis=1, where=jnp.asarray(where)),
                               ref_w, **F32)
    kept = nn.logmeanexp(jnp.asarray(x), axis=1, keepdims=True)
    assert kept.shape == (2, 1)
    assert nn.logmeanexp(jnp.arange(3)).dtype == np.float32


@pytest.mark.spec("NN-11")
def test_nn_has_every_name(nn):
    for name in ("dot_product_attention", "scaled_matmul", "scaled_dot_general",
                 "get_scaled_dot_general_config", "initializers", "squareplus", "mish",
                 "log1mexp", "logmeanexp", "tanh"):
        assert hasattr(nn, name), name


def _attention_ref(q, k, v, bias=None, keep=None, scale=None):
    """float64 grouped-query attention; ``keep`` a (B, N, T, S) boolean mask."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    b, t, n, h = q.shape
    heads = k.shape[2]
    scale = 1 / np.sqrt(h) if scale is None else scale
    kk = np.repeat(k, n // heads, axis=2)
    vv = np.repeat(v, n // heads, axis=2)
    logits = np.einsum("btnh,bsnh->bnts", q, kk) * scale
    if bias is not None:
        logits = logits + bias
    if keep is not None:
        logits = np.where(keep, logits, -0.7 * np.finfo(np.float32).max)
    logits = logits - logits.max(-1, keepdims=True)
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    return np.einsum("bnts,bsnh->btnh", probs, vv)


@pytest.fixture
def qkv():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((2, 5, 4, 8)).astype(np.float32),
            rng.standard_normal((2, 6, 2, 8)).astype(np.float32),
            rng.standard_normal((2, 6, 2, 8)).astype(np.float32))


@pytest.mark.spec("NN-12")
def test_attention_plain_bias_and_scale(nn, jnp, qkv):
    q, k, v = qkv
    np.testing.assert_allclose(nn.dot_product_attention(q, k, v), _attention_ref(q, k, v),
                               rtol=2e-5, atol=2e-6)
    bias = np.random.default_rng(1).standard_normal((1, 4, 5, 6)).astype(np.float32)
    np.testing.assert_allclose(nn.dot_product_attention(q, k, v, bias, scale=0.5),
                               _attention_ref(q, k, v, bias, scale=0.5), rtol=2e-5, atol=2e-6)


@pytest.mark.spec("NN-12")
def test_attention_masks(nn, jnp, qkv):
    q, k, v = qkv
    t, s = 5, 6
    causal = np.tril(np.ones((t, s), bool))[None, None]
    lengths = np.array([4, 6], np.int32)
    kv_keep = (np.arange(s)[None, :] < lengths[:, None])[:, None, None, :]
    qi, ki = np.arange(t)[:, None], np.arange(s)[None, :]
    window = ((qi <= ki + 1) & (qi >= ki - 1))[None, None]
    got = nn.dot_product_attention(q, k, v, is_causal=True,
                                   key_value_seq_lengths=jnp.asarray(lengths),
                                   local_window_size=1)
    ref = _attention_ref(q, k, v, keep=np.broadcast_to(causal & kv_keep & window, (2, 4, t, s)))
    np.testing.assert_allclose(got, ref, rtol=2e-5, atol=2e-6)
    mask = np.random.default_rng(2).random((2, 1, t, s)) > 0.3
    mask[..., 0] = True
    got = nn.dot_product_attention(q, k, v, mask=jnp.asarray(mask))
    np.testing.assert_allclose(got, _attention_ref(q, k, v, keep=np.broadcast_to(mask, (2, 4, t, s))),
                               rtol=2e-5, atol=2e-6)


@pytest.mark.spec("NN-12")
def test_attention_query_lengths_and_residual(nn, jnp, qkv):
    q, k, v = qkv
    out, lse = nn.dot_product_attention(q, k, v, query_seq_lengths=jnp.asarray(
        np.array([3, 5], np.int32)), return_residual=True)
    assert out.shape == q.shape and lse.shape == q.shape[:-1]
    assert np.all(np.asarray(out)[0, 3:] == 0)
    ref = _attention_ref(q, k, v)
    np.testing.assert_allclose(np.asarray(out)[1], ref[1], rtol=2e-5, atol=2e-6)
    logits = np.einsum("btnh,bsnh->btns", q.astype(np.float64),
                       np.repeat(k, 2, axis=2).astype(np.float64)) / np.sqrt(8)
    lse_ref = np.log(np.exp(logits).sum(-1))
    np.testing.assert_allclose(np.asarray(lse)[1], lse_ref[1], rtol=2e-5, atol=2e-5)


@pytest.mark.spec("NN-12")
def test_attention_three_dim_inputs_and_grad(jax, nn, jnp, qkv):
    q, k, v = (a[0] for a in qkv)
    k, v = k[:, :1], v[:, :1]
    out = nn.dot_product_attention(q[:, :2], k, v)
    assert out.shape == (5, 2, 8)
    g = jax.grad(lambda q: nn.dot_product_attention(q, k, v).sum())(jnp.asarray(q[:, :2]))
    assert g.shape == (5, 2, 8) and np.all(np.isfinite(np.asarray(g)))


@pytest.mark.spec("NN-12")
def test_attention_errors(nn, jnp, qkv):
    q, k, v = qkv
    with pytest.raises(ValueError, match="value dtype should be"):
        nn.dot_product_attention(q, k, v.astype(np.float16))
    with pytest.raises(ValueError, match="mask dtype should be bool"):
        nn.dot_product_attention(q, k, v, mask=np.ones((1, 1, 5, 6), np.float32))
    with pytest.raises(ValueError, match="query_seq_lengths dtype should be int32"):
        nn.dot_product_attention(q, k, v, query_seq_lengths=np.array([1., 2.], np.float32))
    with pytest.raises(ValueError, match="multiple of key/value heads"):
        nn.dot_product_attention(q[:, :, :3], k, v)
    with pytest.raises(ValueError, match="Unsupported implementation option"):
        nn.dot_product_attention(q, k, v, implementation="magic")


@pytest.mark.spec("NN-13")
def test_scaled_dot_general_config(nn):
    import ml_dtypes
    mx = nn.get_scaled_dot_general_config("mxfp8")
    assert (mx.mode, mx.block_size, mx.global_scale) == ("mxfp8", 32, None)
    assert mx.data_type is ml_dtypes.float8_e4m3fn and mx.scale_type is ml_dtypes.float8_e8m0fnu
    nv = nn.get_scaled_dot_general_config("nvfp4")
    assert (nv.block_size, nv.data_type) == (16, ml_dtypes.float4_e2m1fn)
    np.testing.assert_array_equal(nv.global_scale, [1.])
    with pytest.raises(ValueError, match="Unsupported mode"):
        nn.get_scaled_dot_general_config("int8")


@pytest.mark.spec("NN-13")
def test_scaled_dot_general_without_configs_is_dot_general(jax, nn, jnp):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = nn.scaled_dot_general(a, b, (((1,), (0,)), ((), ())))
    np.testing.assert_allclose(out, a @ b)
    assert out.dtype == np.float32


@pytest.mark.spec("NN-13")
def test_scaled_matmul_shape_errors(nn, jnp):
    a, b = jnp.ones((1, 4, 64)), jnp.ones((1, 3, 64))
    with pytest.raises(ValueError, match="3-dimensional"):
        nn.scaled_matmul(a[0], b, jnp.ones((1, 4, 2)), jnp.ones((1, 3, 2)))
    with pytest.raises(ValueError, match="matching batch"):
        nn.scaled_matmul(a, jnp.ones((1, 3, 32)), jnp.ones((1, 4, 2)), jnp.ones((1, 3, 2)))
    with pytest.raises(ValueError, match="non-contract dimensions"):
        nn.scaled_matmul(a, b, jnp.ones((1, 2, 2)), jnp.ones((1, 3, 2)))
