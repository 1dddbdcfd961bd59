"""One test per rule of jax.random's keys and basic samplers (SPEC RNG-1 .. RNG-22)."""
import numpy as np
import pytest


def kd(jax, keys):
    return np.asarray(jax.random.key_data(keys)).tolist()


@pytest.mark.spec("RNG-1")
def test_threefry_random123_vector(jax):
    from importlib import import_module
    er = import_module(jax.__name__ + ".extend.random")
    out = er.threefry_2x32(np.array([0x13198a2e, 0x03707344], np.uint32),
                           np.array([0x243f6a88, 0x85a308d3], np.uint32))
    assert [int(v) for v in np.asarray(out)] == [0xc4923a9c, 0x483df7a0]


@pytest.mark.spec("RNG-2")
def test_seed_words(jax):
    assert kd(jax, jax.random.key(2 ** 32 + 5)) == [0, 5]
    assert kd(jax, jax.random.key(-1)) == [0, 4294967295]
    with pytest.raises(TypeError, match="accepts a scalar seed"):
        jax.random.key(np.array([1, 2]))


@pytest.mark.spec("RNG-3")
def test_typed_key_basics(jax):
    k = jax.random.key(0)
    assert (k.shape, k.dtype.name) == ((), "key<fry>")
    assert jax.dtypes.issubdtype(k.dtype, jax.dtypes.prng_key)
    assert repr(k) == "Array((), dtype=key<fry>) overlaying:\n[0 0]"
    assert kd(jax, jax.random.wrap_key_data(jax.random.key_data(k))) == [0, 0]


@pytest.mark.spec("RNG-4")
def test_bits_partitionable(jax):
    assert np.asarray(jax.random.bits(jax.random.key(0), (2,))).tolist() == [
        4070199207, 4202968722]


@pytest.mark.spec("RNG-5")
@pytest.mark.parametrize("partitionable", [True, False], indirect=True)
def test_split_fold_in_symmetry(jax, partitionable):
    k = jax.random.key(7)
    split = kd(jax, jax.random.split(k, 3))
    folded = [kd(jax, jax.random.fold_in(k, i)) for i in range(3)]
    assert (split == folded) is partitionable


@pytest.mark.spec("RNG-6")
def test_split_shapes_and_errors(jax):
    k = jax.random.key(0)
    assert jax.random.split(k, (2, 3)).shape == (2, 3)
    assert np.asarray(jax.random.split(jax.random.PRNGKey(0))).shape == (2, 2)
    with pytest.raises(ValueError, match="split accepts a single key"):
        jax.random.split(jax.random.split(k, 4))


@pytest.mark.spec("RNG-7")
def test_key_arithmetic_refused(jax, jnp):
    k = jax.random.key(0)
    with pytest.raises(TypeError, match="add does not accept dtypes key<fry>, int32"):
        k + 1
    with pytest.raises(TypeError, match="Cannot interpret 'key<fry>' as a data type"):
        jnp.sin(k)
    assert np.asarray(jax.random.PRNGKey(0) + 1).tolist() == [1, 1]


@pytest.mark.spec("RNG-8")
def test_key_indexing(jax):
    ks = jax.random.split(jax.random.key(0), 3)
    assert kd(jax, ks[1]) == kd(jax, ks)[1]
    with pytest.raises(IndexError, match="Too many indices"):
        jax.random.key(0)[1]


@pytest.mark.spec("RNG-9")
def test_purity(jax):
    k = jax.random.key(43)
    assert float(jax.random.normal(k)) == float(jax.random.normal(k))


@pytest.mark.spec("RNG-10")
def test_key_impl_and_rbg(jax):
    assert str(jax.random.key_impl(jax.random.key(0))) == "threefry2x32"
    r = jax.random.key(0, impl="rbg")
    assert r.dtype.name == "key<rbg>" and jax.random.key_data(r).shape == (4,)
    assert jax.random.uniform(r, (3,)).shape == (3,)


@pytest.mark.spec("RNG-11")
def test_fold_in(jax):
    k = jax.random.key(0)
    assert kd(jax, jax.random.fold_in(k, 1)) == [928981903, 3453687069]
    traced = jax.jit(lambda k, i: jax.random.fold_in(k, i))(k, 1)
    assert kd(jax, traced) == [928981903, 3453687069]


@pytest.mark.spec("RNG-12")
def test_clone(jax):
    k = jax.random.key(5)
    assert kd(jax, jax.random.clone(k)) == kd(jax, k)


@pytest.mark.spec("RNG-15")
def test_vmap_over_keys_equals_loop(jax):
    ks = jax.random.split(jax.random.key(42), 3)
    batched = np.asarray(jax.vmap(jax.random.uniform)(ks))
    loop = np.array([float(jax.random.uniform(k)) for k in ks], np.float32)
    np.testing.assert_array_equal(batched, loop)


@pytest.mark.spec("RNG-16")
def test_static_shape_traced_parameters(jax):
    f = jax.jit(lambda seed, mu: mu + jax.random.uniform(jax.random.key(seed), (2,)))
    eager = np.asarray(jax.random.uniform(jax.random.key(0), (2,)) + 10.0)
    np.testing.assert_array_equal(np.asarray(f(0, 10.0)), eager)
    with pytest.raises(TypeError, match="Shapes must be 1D sequences"):
        jax.jit(lambda n: jax.random.uniform(jax.random.key(0), (n,)))(3)


@pytest.mark.spec("RNG-17")
def test_uniform_and_randint(jax, jnp):
    k = jax.random.key(0)
    assert np.asarray(jax.random.randint(k, (5,), 0, 10)).tolist() == [9, 0, 2, 3, 1]
    u = np.asarray(jax.random.uniform(k, (8,), jnp.float32, -2.0, 5.0))
    assert u.view(np.int32)[2] == 1051127492       # the fused scaling (one rounding)
    with pytest.raises(ValueError, match="must be a float dtype"):
        jax.random.uniform(k, (2,), jnp.int32)


@pytest.mark.spec("RNG-18")
def test_invalid_key_data(jax, jnp):
    with pytest.raises(TypeError, match="expected key_data.dtype = uint32"):
        jax.random.normal(jnp.array([1.0, 2.0]))


@pytest.mark.spec("RNG-19")
def test_legacy_key_error_mode(jax):
    old = jax.config.jax_legacy_prng_key
    jax.config.update("jax_legacy_prng_key", "error")
    try:
        with pytest.raises(ValueError, match="Legacy uint32 key array"):
            jax.random.normal(jax.random.PRNGKey(0))
    finally:
        jax.config.update("jax_legacy_prng_key", old)


@pytest.mark.spec("RNG-20")
def test_shape_operations_on_keys(jax, jnp):
    ks = jax.random.split(jax.random.key(0), 4)
    assert jnp.concatenate([ks, ks]).shape == (8,)
    assert kd(jax, jnp.flip(ks)) == kd(jax, ks)[::-1]
    assert np.asarray(ks == ks).all()
    assert kd(jax, ks.at[0].set(jax.random.key(0)))[0] == [0, 0]


@pytest.mark.spec("RNG-21")
def test_normal_values(jax):
    x = np.asarray(jax.random.normal(jax.random.key(42), (3,)))
    expected = np.array([-0.02830462, 0.46713185, 0.29570296], np.float32)
    np.testing.assert_allclose(x, expected, rtol=3e-7)


@pytest.mark.spec("RNG-22")
def test_samplers_in_scan_and_grad(jax):
    k = jax.random.key(0)
    def body(c, _):
        c, sub = jax.random.split(c)
        return c, jax.random.uniform(sub)
    _, ys = jax.lax.scan(body, k, None, length=3)
    keys, expected = k, []
    for _ in range(3):
        keys, sub = jax.random.split(keys)
        expected.append(float(jax.random.uniform(sub)))
    np.testing.assert_array_equal(np.asarray(ys), np.array(expected, np.float32))
    g = jax.grad(lambda s: (s * jax.random.normal(k, (3,))).sum())(2.0)
    np.testing.assert_allclose(float(g), float(jax.random.normal(k, (3,)).sum()), rtol=1e-6)
