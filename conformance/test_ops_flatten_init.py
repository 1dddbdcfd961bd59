"""Conformance: ``jax.ops`` segment reductions, ``jax.flatten_util`` and
``jax.nn.initializers`` (SPEC OPS-1 .. OPS-8); also ``random.key_dtype``
(RNG-99).

Initializers are checked against the samplers they are defined by, drawn
here with the same key: equal bit for bit.
"""
import importlib

import numpy as np
import pytest


@pytest.fixture(scope="module")
def ops(jax):
    return importlib.import_module(jax.__name__ + ".ops")


@pytest.fixture(scope="module")
def ravel_pytree(jax):
    return importlib.import_module(jax.__name__ + ".flatten_util").ravel_pytree


@pytest.fixture(scope="module")
def init(jax):
    return importlib.import_module(jax.__name__ + ".nn.initializers")


IDS = np.array([0, 0, 1, 3, 7, -1], np.int32)
DATA = np.array([1., 2., 3., 4., 5., 6.], np.float32)


def _segment_ref(op, identity, data, ids, n):
    out = np.full((n,) + data.shape[1:], identity, data.dtype)
    for row, i in zip(data, ids):
        if 0 <= i < n:
            out[i] = op(out[i], row)
    return out


@pytest.mark.spec("OPS-1")
@pytest.mark.parametrize("name,op,identity", [
    ("segment_sum", np.add, 0), ("segment_prod", np.multiply, 1),
    ("segment_max", np.maximum, -np.inf), ("segment_min", np.minimum, np.inf)])
def test_segment_reductions_float(ops, jnp, name, op, identity):
    out = getattr(ops, name)(jnp.asarray(DATA), jnp.asarray(IDS), 4)
    np.testing.assert_array_equal(out, _segment_ref(op, identity, DATA, IDS, 4))
    assert out.dtype == np.float32


@pytest.mark.spec("OPS-1")
def test_segment_identities_for_ints_and_bools(ops, jnp):
    ints = jnp.arange(3)
    ids = jnp.array([0, 0, 2])
    np.testing.assert_array_equal(ops.segment_max(ints, ids, 4),
                                  [1, np.iinfo(np.int32).min, 2, np.iinfo(np.int32).min])
    np.testing.assert_array_equal(ops.segment_min(ints, ids, 3), [0, np.iinfo(np.int32).max, 2])
    np.testing.assert_array_equal(ops.segment_max(jnp.array([True, False]), jnp.array([0, 2])),
                                  [True, False, False])


@pytest.mark.spec("OPS-1")
def test_segment_default_count_rows_and_clip(jax, ops, jnp):
    data = jnp.arange(6.).reshape(3, 2)
    np.testing.assert_array_equal(ops.segment_sum(data, jnp.array([0, 2, 2])),
                                  [[0, 1], [0, 0], [6, 8]])
    clipped = ops.segment_sum(jnp.arange(5.), jnp.array([0, 1, 1, 2, 2]), 2, mode="clip")
    np.testing.assert_array_equal(clipped, [0, 10])


@pytest.mark.spec("OPS-1")
def test_segment_errors(jax, ops, jnp):
    with pytest.raises(jax.errors.ConcretizationTypeError, match="num_segments"):
        jax.jit(lambda d, s: ops.segment_sum(d, s))(jnp.arange(3.), jnp.array([0, 1, 1]))
    with pytest.raises(ValueError, match="num_segments must be non-negative"):
        ops.segment_sum(jnp.arange(3.), jnp.array([0, 1, 1]), -1)
    with pytest.raises(TypeError, match="segment_sum requires ndarray or scalar"):
        ops.segment_sum([1., 2.], jnp.array([0, 1]))
    with pytest.raises(TypeError):
        ops.segment_sum(jnp.arange(3.), jnp.array([0., 1., 1.]))


@pytest.mark.spec("OPS-1")
def test_segment_jit_grad_vmap(jax, ops, jnp):
    ids = jnp.array([0, 0, 1])
    f = jax.jit(lambda d: ops.segment_sum(d, ids, 2))
    np.testing.assert_array_equal(f(jnp.array([1., 2., 3.])), [3., 3.])
    g = jax.grad(lambda d: (ops.segment_max(d, ids, 2) * jnp.array([1., 10.])).sum())
    np.testing.assert_array_equal(g(jnp.array([1., 3., 2.])), [0., 1., 10.])
    batched = jax.vmap(lambda d: ops.segment_sum(d, ids, 2))(jnp.arange(6.).reshape(2, 3))
    np.testing.assert_array_equal(batched, [[1., 2.], [7., 5.]])
    text = str(jax.make_jaxpr(lambda d: ops.segment_sum(d, ids, 2))(jnp.ones(3)))
    assert "scatter-add" in text and "FILL_OR_DROP" in text


@pytest.mark.spec("OPS-2")
def test_segment_buckets(ops, jnp):
    data = jnp.arange(1., 8.)
    ids = jnp.array([0, 0, 1, 3, 3, 3, 2])
    for name in ("segment_sum", "segment_prod", "segment_max", "segment_min"):
        fn = getattr(ops, name)
        np.testing.assert_allclose(fn(data, ids, 4, bucket_size=2), fn(data, ids, 4))
    with pytest.raises(ZeroDivisionError):
        ops.segment_sum(data, ids, 4, bucket_size=0)


@pytest.mark.spec("OPS-3")
def test_ravel_pytree_round_trip(jax, ravel_pytree, jnp):
    tree = {"a": 1., "b": jnp.arange(3), "c": (jnp.ones((2, 2), jnp.float16),)}
    flat, unravel = ravel_pytree(tree)
    assert flat.shape == (8,) and flat.dtype == np.float32
    np.testing.assert_array_equal(flat, [1, 0, 1, 2, 1, 1, 1, 1])
    back = unravel(flat)
    assert jax.tree_util.tree_structure(back) == jax.tree_util.tree_structure(tree)
    assert back["b"].dtype == np.int32 and back["c"][0].dtype == np.float16
    assert back["c"][0].shape == (2, 2)
    empty, unravel_empty = ravel_pytree([])
    assert empty.shape == (0,) and empty.dtype == np.float32
    assert unravel_empty(empty) == []
    single, unravel_single = ravel_pytree([jnp.ones(2)])
    np.testing.assert_array_equal(unravel_single(single)[0], [1., 1.])


@pytest.mark.spec("OPS-3")
def test_ravel_pytree_complex_and_grad(jax, ravel_pytree, jnp):
    flat, unravel = ravel_pytree((jnp.ones(2), jnp.array([1 + 2j], jnp.complex64)))
    assert flat.dtype == np.complex64
    back = unravel(flat * 1j)
    assert back[0].dtype == np.float32
    np.testing.assert_array_equal(back[0], [0., 0.])
    params = {"w": jnp.ones((2, 2)), "b": jnp.zeros(2)}
    flat, unravel = ravel_pytree(params)
    g = jax.grad(lambda v: (unravel(v)["w"] ** 2).sum())(flat)
    assert g.shape == (6,)


@pytest.mark.spec("OPS-4")
def test_unravel_checks(ravel_pytree, jnp):
    flat, unravel = ravel_pytree({"a": 1., "b": jnp.arange(3)})
    with pytest.raises(TypeError, match="unravel function given array of dtype int32, "
                                        "but expected dtype float32"):
        unravel(flat.astype(jnp.int32))
    with pytest.raises(ValueError):
        unravel(flat[:2])


KEY_SEED = 42


@pytest.mark.spec("OPS-5")
def test_constant_initializers(jax, init, jnp):
    key = jax.random.key(KEY_SEED)
    z = init.zeros(key, (2, 3))
    assert z.dtype == np.float32 and np.all(np.asarray(z) == 0)
    assert init.ones(key, (2,), jnp.float16).dtype == np.float16
    c = init.constant(-7)(key, (2, 3))
    np.testing.assert_array_equal(c, np.full((2, 3), -7.))
    assert c.dtype == np.float32
    assert init.constant(2, dtype=jnp.int32)(key, (1,)).dtype == np.int32
    for fn in (init.zeros, init.constant(1.), init.glorot_normal(), init.orthogonal()):
        assert isinstance(fn, init.Initializer)


@pytest.mark.spec("OPS-5")
def test_initializers_default_to_x64_float(jax, init, x64):
    assert init.zeros(jax.random.key(0), (2,)).dtype == np.float64
    assert init.normal()(jax.random.key(0), (2,)).dtype == np.float64


@pytest.mark.spec("OPS-6")
def test_random_initializers_are_their_samplers(jax, init, jnp):
    key = jax.random.key(KEY_SEED)
    r = jax.random
    np.testing.assert_array_equal(init.uniform(10.)(key, (2, 3)),
                                  r.uniform(key, (2, 3)) * jnp.float32(10.))
    np.testing.assert_array_equal(init.normal(5.)(key, (2, 3), jnp.float16),
                                  r.normal(key, (2, 3), jnp.float16) * jnp.float16(5.))
    np.testing.assert_array_equal(init.truncated_normal(5., lower=-1.)(key, (4,)),
                                  r.truncated_normal(key, -1., 2., (4,)) * jnp.float32(5.))


def _fan_var(scale, mode, fan_in, fan_out):
    n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
         "fan_geo_avg": (fan_in * fan_out) ** 0.5}[mode]
    return np.float32(scale / n)


@pytest.mark.spec("OPS-7")
@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "fan_avg", "fan_geo_avg"])
def test_variance_scaling_definition(jax, init, jnp, mode):
    key = jax.random.key(KEY_SEED)
    shape = (3, 5, 4, 6)      # receptive field 3*5, fan_in 4*15, fan_out 6*15
    var = jnp.asarray(_fan_var(2., mode, 60, 90))
    r = jax.random
    got = init.variance_scaling(2., mode, "uniform")(key, shape)
    np.testing.assert_array_equal(got, r.uniform(key, shape, jnp.float32, -1) * jnp.sqrt(3 * var))
    got = init.variance_scaling(2., mode, "normal")(key, shape)
    np.testing.assert_array_equal(got, r.normal(key, shape) * jnp.sqrt(var))
    got = init.variance_scaling(2., mode, "truncated_normal")(key, shape)
    want = r.truncated_normal(key, -2, 2, shape) * (jnp.sqrt(var) / jnp.float32(.87962566103423978))
    np.testing.assert_array_equal(got, want)


@pytest.mark.spec("OPS-7")
def test_named_schemes(jax, init, jnp):
    key = jax.random.key(KEY_SEED)
    pairs = [("glorot_uniform", (1., "fan_avg", "uniform")),
             ("xavier_normal", (1., "fan_avg", "truncated_normal")),
             ("lecun_uniform", (1., "fan_in", "uniform")),
             ("lecun_normal", (1., "fan_in", "truncated_normal")),
             ("kaiming_uniform", (2., "fan_in", "uniform")),
             ("he_normal", (2., "fan_in", "truncated_normal"))]
    for name, args in pairs:
        np.testing.assert_array_equal(getattr(init, name)()(key, (3, 4)),
                                      init.variance_scaling(*args)(key, (3, 4)), err_msg=name)
    axes = init.he_uniform(in_axis=0, out_axis=(1, 2))(key, (2, 3, 4))
    np.testing.assert_array_equal(
        axes, init.variance_scaling(2., "fan_in", "uniform", in_axis=0, out_axis=(1, 2))(
            key, (2, 3, 4)))


@pytest.mark.spec("OPS-7")
def test_variance_scaling_complex_and_errors(jax, init, jnp):
    key = jax.random.key(KEY_SEED)
    z = init.variance_scaling(1., "fan_in", "uniform")(key, (200, 300), jnp.complex64)
    assert z.dtype == np.complex64
    assert np.all(np.abs(np.asarray(z)) <= np.sqrt(2 / 200) + 1e-6)
    np.testing.assert_allclose(np.var(np.asarray(z)), 1 / 200, rtol=0.05)
    t = init.variance_scaling(1., "fan_in", "truncated_normal")(key, (200, 300), jnp.complex64)
    np.testing.assert_allclose(np.var(np.asarray(t)), 1 / 200, rtol=0.05)
    with pytest.raises(ValueError, match="invalid mode"):
        init.variance_scaling(1., "fan_x", "uniform")(key, (2, 2))
    with pytest.raises(ValueError, match="invalid distribution"):
        init.variance_scaling(1., "fan_in", "cauchy")(key, (2, 2))
    with pytest.raises(ValueError, match="Can't compute input and output sizes"):
        init.glorot_uniform()(key, (3,))


@pytest.mark.spec("OPS-8")
def test_orthogonal(jax, init, jnp):
    key = jax.random.key(KEY_SEED)
    q = np.asarray(init.orthogonal()(key, (3, 5)), np.float64)
    np.testing.assert_allclose(q @ q.T, np.eye(3), atol=1e-5)
    np.testing.assert_array_equal(init.orthogonal(2.)(key, (3, 5)),
                                  2. * jax.random.orthogonal(key, 3, (), jnp.float32, 5))
    cols = np.asarray(init.orthogonal(column_axis=0)(key, (4, 2, 3)), np.float64)
    flat = np.moveaxis(cols, 0, -1).reshape(6, 4)
    np.testing.assert_allclose(flat.T @ flat, np.eye(4), atol=1e-5)
    assert np.all(np.asarray(init.orthogonal()(key, (0, 3))) == 0)
    with pytest.raises(ValueError, match="at least a 2D shape"):
        init.orthogonal()(key, (3,))


@pytest.mark.spec("OPS-8")
def test_delta_orthogonal(jax, init, jnp):
    key = jax.random.key(KEY_SEED)
    w = np.array(init.delta_orthogonal()(key, (3, 3, 4, 5)))
    centre = w[1, 1]
    np.testing.assert_array_equal(centre, init.orthogonal()(key, (4, 5)))
    w[1, 1] = 0
    assert np.all(w == 0)
    with pytest.raises(ValueError, match="3D, 4D or 5D"):
        init.delta_orthogonal()(key, (3, 4))
    with pytest.raises(ValueError, match="fan_in"):
        init.delta_orthogonal()(key, (3, 5, 4))


@pytest.mark.spec("RNG-99")
def test_key_dtype(jax, jnp):
    dt = jax.random.key_dtype()
    assert str(dt) == "key<fry>"
    assert jax.random.key(0).dtype == dt
    assert jnp.issubdtype(dt, jax.dtypes.prng_key)
    assert jax.random.key(0, impl="rbg").dtype == jax.random.key_dtype("rbg")
    with pytest.raises(ValueError, match="unrecognized PRNG implementation"):
        jax.random.key_dtype("no-such-impl")
