"""PRNG gotchas of gotchas.md: G-RNG-001 .. G-RNG-012 and G-RNG-015 ..
G-RNG-025 except G-RNG-022 (SPEC RNG-85 .. RNG-89).  G-RNG-013/014 (key
reuse) and G-RNG-022 (choice/permutation) are tested with their samplers.

Each test runs the gotcha's snippet and asserts what it printed on JAX 0.10.2
(CPU, default jax_threefry_partitionable=True unless the gotcha flips it).
"""
import re
import warnings

import numpy as np
import pytest


def raises(cls, message):
    """``pytest.raises`` for ``message``, whole first line of it."""
    return pytest.raises(cls, match="^" + re.escape(message) + "($|\n)")


def raises_prefix(cls, prefix):
    return pytest.raises(cls, match="^" + re.escape(prefix))


def values(x):
    return np.asarray(x).tolist()


def f32(xs):
    return np.asarray(xs, np.float32)


@pytest.fixture
def legacy_mode(jax):
    """Restore jax_legacy_prng_key after a test that changes it."""
    old = jax.config.jax_legacy_prng_key
    yield
    jax.config.update("jax_legacy_prng_key", old)


@pytest.fixture
def partitionable_off(jax):
    old = jax.config.jax_threefry_partitionable
    jax.config.update("jax_threefry_partitionable", False)
    yield
    jax.config.update("jax_threefry_partitionable", old)


# -- G-RNG-001 / 003 / 008 / 009: key arrays and raw keys ---------------------------

@pytest.mark.spec("RNG-85")
def test_key_vs_prngkey_repr(jax, jnp):
    # G-RNG-001
    k = jax.random.key(0)
    assert repr(k) == "Array((), dtype=key<fry>) overlaying:\n[0 0]"
    assert (k.shape, str(k.dtype), k.ndim) == ((), "key<fry>", 0)
    r = jax.random.PRNGKey(0)
    assert repr(r) == "Array([0, 0], dtype=uint32)"
    assert (r.shape, r.dtype) == ((2,), jnp.uint32)
    assert repr(jax.random.key(42)) == "Array((), dtype=key<fry>) overlaying:\n[ 0 42]"
    assert repr(jax.random.PRNGKey(42)) == "Array([ 0, 42], dtype=uint32)"


@pytest.mark.spec("RNG-85")
def test_split_shapes_and_unpacking(jax, jnp):
    # G-RNG-003
    key = jax.random.key(0)
    ks = jax.random.split(key)
    assert (ks.shape, str(ks.dtype)) == ((2,), "key<fry>")
    new_key, subkey = jax.random.split(key)
    assert repr(new_key) == "Array((), dtype=key<fry>) overlaying:\n[1797259609 2579123966]"
    assert repr(subkey) == "Array((), dtype=key<fry>) overlaying:\n[ 928981903 3453687069]"
    assert jax.random.split(key, 43).shape == (43,)
    assert repr(jax.random.split(jax.random.PRNGKey(0))) == (
        "Array([[1797259609, 2579123966],\n       [ 928981903, 3453687069]], dtype=uint32)")


@pytest.mark.spec("RNG-85")
def test_scalar_key_cannot_be_indexed(jax, jnp):
    # G-RNG-008
    key = jax.random.key(999)
    with raises(IndexError, "Too many indices: array is 0-dimensional, but 1 were indexed"):
        key[1]
    ks = jax.random.split(key, 3)
    assert repr(ks[0]) == "Array((), dtype=key<fry>) overlaying:\n[2320258729 2368583152]"
    assert ks[1:].shape == (2,)
    raw = jax.random.PRNGKey(999)
    assert int(raw[1]) == 999
    assert bool(jnp.array_equal(jax.random.PRNGKey(raw[1]), raw))


@pytest.mark.spec("RNG-85")
def test_key_data_and_wrap_key_data(jax, jnp):
    # G-RNG-009
    k = jax.random.key(0)
    d = jax.random.key_data(k)
    assert repr(d) == "Array([0, 0], dtype=uint32)"
    k2 = jax.random.wrap_key_data(d)
    assert repr(k2) == "Array((), dtype=key<fry>) overlaying:\n[0 0]"
    assert bool((jax.random.key_data(k2) == d).all())
    assert repr(jax.random.key_data(jax.random.PRNGKey(7))) == "Array([0, 7], dtype=uint32)"
    assert jax.random.key_data(jax.random.split(k, 3)).shape == (3, 2)


# -- G-RNG-002 / 004 / 005 / 006 / 012 / 016 / 024: values --------------------------

@pytest.mark.spec("RNG-86")
def test_same_key_same_sample(jax):
    # G-RNG-002
    key = jax.random.key(43)
    a, b = jax.random.normal(key), jax.random.normal(key)
    assert float(a) == float(b) == float(np.float32(0.07520543))


@pytest.mark.spec("RNG-86")
def test_reference_values_partitionable(jax, jnp):
    # G-RNG-004
    k0, k42 = jax.random.key(0), jax.random.key(42)
    np.testing.assert_array_equal(jax.random.uniform(k0, (3,)), f32([0.947667, 0.9785799, 0.33229148]))
    np.testing.assert_allclose(jax.random.normal(k0), np.float32(1.6226422), rtol=3e-7)
    np.testing.assert_allclose(jax.random.normal(k42, (3,)),
                               f32([-0.02830462, 0.46713185, 0.29570296]), rtol=3e-7)
    assert values(jax.random.randint(k0, (5,), 0, 10)) == [9, 0, 2, 3, 1]
    assert values(jax.random.bits(k0, (2,))) == [4070199207, 4202968722]
    assert values(jax.random.key_data(jax.random.split(k0))) == [
        [1797259609, 2579123966], [928981903, 3453687069]]
    assert values(jax.random.key_data(jax.random.fold_in(k0, 1))) == [928981903, 3453687069]
    np.testing.assert_array_equal(jax.random.uniform(jax.random.PRNGKey(0), (3,)),
                                  f32([0.947667, 0.9785799, 0.33229148]))


@pytest.mark.spec("RNG-86")
def test_reference_values_not_partitionable(jax, jnp, partitionable_off):
    # G-RNG-005
    k0, k42 = jax.random.key(0), jax.random.key(42)
    np.testing.assert_array_equal(jax.random.uniform(k0, (3,)), f32([0.9653214, 0.31468165, 0.63302994]))
    np.testing.assert_allclose(jax.random.normal(k0), np.float32(-0.20584226), rtol=3e-7)
    np.testing.assert_allclose(jax.random.normal(k42, (3,)),
                               f32([0.18693547, -1.2806505, -1.5593132]), rtol=3e-7)
    assert values(jax.random.randint(k0, (5,), 0, 10)) == [8, 1, 3, 8, 8]
    assert values(jax.random.bits(k0, (2,))) == [928981903, 3453687069]
    assert values(jax.random.key_data(jax.random.split(k0))) == [
        [4146024105, 967050713], [2718843009, 1272950319]]
    assert values(jax.random.key_data(jax.random.fold_in(k0, 1))) == [928981903, 3453687069]


@pytest.mark.spec("RNG-86")
def test_no_sequential_equivalence(jax):
    # G-RNG-006
    key = jax.random.key(42)
    subkeys = jax.random.split(key, 3)
    seq = np.stack([np.asarray(jax.random.normal(sk)) for sk in subkeys])
    np.testing.assert_allclose(seq, f32([0.07592554, 0.60576403, 0.4323065]), rtol=3e-7)
    np.testing.assert_allclose(jax.random.normal(key, shape=(3,)),
                               f32([-0.02830462, 0.46713185, 0.29570296]), rtol=3e-7)
    np.testing.assert_array_equal(jax.vmap(jax.random.normal)(subkeys), seq)


@pytest.mark.spec("RNG-86")
def test_fold_in_deterministic_and_traceable(jax):
    # G-RNG-012
    key = jax.random.key(0)
    a, b, c = (jax.random.fold_in(key, 1), jax.random.fold_in(key, 1),
               jax.random.fold_in(key, 2))
    assert bool(jax.random.normal(a) == jax.random.normal(b))
    assert not bool(jax.random.normal(a) == jax.random.normal(c))
    jitted = jax.jit(lambda k, i: jax.random.normal(jax.random.fold_in(k, i)))(key, 1)
    assert bool(jitted == jax.random.normal(a))


@pytest.mark.spec("RNG-86")
def test_traced_seed_and_parameters_under_jit(jax):
    # G-RNG-016
    f = jax.jit(lambda seed, mu: mu + jax.random.normal(jax.random.key(seed), (2,)))
    want = f32([11.6226425, 12.025265])
    np.testing.assert_array_equal(f(0, 10.), want)
    np.testing.assert_array_equal(jax.random.normal(jax.random.key(0), (2,)) + 10., want)


@pytest.mark.spec("RNG-86")
def test_split_fold_in_symmetry_depends_on_mode(jax, jnp):
    # G-RNG-024
    k = jax.random.key(7)

    def check():
        s = jax.random.key_data(jax.random.split(k, 4))
        f = jnp.stack([jax.random.key_data(jax.random.fold_in(k, i)) for i in range(4)])
        return bool((s == f).all())

    old = jax.config.jax_threefry_partitionable
    try:
        jax.config.update("jax_threefry_partitionable", True)
        assert check() is True
        jax.config.update("jax_threefry_partitionable", False)
        assert check() is False
    finally:
        jax.config.update("jax_threefry_partitionable", old)


# -- G-RNG-007 / 010 / 011 / 020: typed key dtype -----------------------------------

@pytest.mark.spec("RNG-87")
def test_typed_keys_reject_arithmetic(jax):
    # G-RNG-007
    with raises(TypeError, "add does not accept dtypes key<fry>, int32."):
        jax.random.key(0) + 1
    assert values(jax.random.PRNGKey(0) + 1) == [1, 1]


@pytest.mark.spec("RNG-87")
def test_detect_typed_keys_with_issubdtype(jax):
    # G-RNG-010
    dt = jax.dtypes
    assert dt.issubdtype(jax.random.key(0).dtype, dt.prng_key) is True
    assert dt.issubdtype(jax.random.PRNGKey(0).dtype, dt.prng_key) is False
    assert dt.issubdtype(jax.random.key(0).dtype, dt.extended) is True
    assert dt.issubdtype(dt.prng_key, dt.extended) is True
    assert str(jax.random.key_impl(jax.random.key(0))) == "threefry2x32"


@pytest.mark.spec("RNG-87")
def test_rbg_keys(jax, jnp):
    # G-RNG-011 (rbg bits are backend-defined: only the key itself is checked)
    k = jax.random.key(0, impl="rbg")
    assert repr(k) == "Array((), dtype=key<rbg>) overlaying:\n[0 0 0 0]"
    assert str(jax.random.key_impl(k)) == "rbg"
    assert jax.random.key_data(k).shape == (4,)
    k3 = jax.random.key(0, impl="threefry2x32")
    assert repr(k3) == "Array((), dtype=key<fry>) overlaying:\n[0 0]"
    np.testing.assert_array_equal(jax.random.uniform(k3, (3,)), f32([0.947667, 0.9785799, 0.33229148]))


@pytest.mark.spec("RNG-87")
def test_key_array_shape_ops_and_sum_error(jax, jnp):
    # G-RNG-020
    ks = jax.random.split(jax.random.key(0), 4)
    assert ks.reshape(2, 2).shape == (2, 2)
    assert ks[::2].shape == (2,)
    assert jnp.concatenate([ks, ks]).shape == (8,)
    with raises(ValueError, "split accepts a single key, but was given a key array of shape "
                "(4,) != (). Use jax.vmap for batching."):
        jax.random.split(ks)
    assert jax.vmap(jax.random.split)(ks).shape == (4, 2)
    with raises(TypeError, "Cannot interpret 'key<fry>' as a data type"):
        jnp.sum(ks)


# -- G-RNG-015 / 017 / 018 / 019: argument checks --------------------------------------

@pytest.mark.spec("RNG-88")
def test_vmap_in_axes_1_over_keys(jax, jnp):
    # G-RNG-015
    keys = jax.random.split(jax.random.PRNGKey(0))
    np.testing.assert_array_equal(jax.vmap(jax.random.uniform, in_axes=1)(keys),
                                  f32([0.44846058, 0.8701621]))
    tkeys = jax.random.split(jax.random.key(0))
    with raises(ValueError, "vmap was requested to map its argument along axis 1, which "
                "implies that its rank should be at least 2, but is only 1 (its shape is (2,))"):
        jax.vmap(jax.random.uniform, in_axes=1)(tkeys)
    # the printed values carry 7-8 significant digits
    np.testing.assert_allclose(jax.vmap(jax.random.uniform)(tkeys), f32([0.8423141, 0.00729382]),
                               rtol=1e-6)


@pytest.mark.spec("RNG-88")
def test_randint_and_uniform_ranges(jax, jnp):
    # G-RNG-017
    k = jax.random.key(0)
    x = jax.random.randint(k, (1000,), 0, 3)
    assert (x.dtype, int(x.min()), int(x.max())) == (jnp.int32, 0, 2)
    u = jax.random.uniform(k, (1000,), minval=2., maxval=3.)
    assert u.dtype == jnp.float32 and bool((u >= 2).all() & (u < 3).all())
    with raises(ValueError, "dtype argument to `uniform` must be a float dtype, got int32"):
        jax.random.uniform(k, (2,), dtype=jnp.int32)


@pytest.mark.spec("RNG-88")
def test_non_key_arguments(jax, jnp):
    # G-RNG-018
    prefix = "JAX encountered invalid PRNG key data: "
    with raises(TypeError, prefix + "expected key_data to have ndim, shape, and dtype "
                "attributes. Got 0"):
        jax.random.normal(0)
    with raises(TypeError, prefix + "expected key_data.dtype = uint32; got dtype=float32"):
        jax.random.normal(jnp.array([1., 2.]))
    with raises_prefix(TypeError, prefix + "expected key_data.shape to end with (2,); got "
                       "shape=(3,) for impl=PRNGImpl(key_shape=(2,), seed=<function threefry_seed"):
        jax.random.normal(jnp.zeros(3, jnp.uint32))


LEGACY = ("Legacy uint32 key array passed as key to jax.random function. Please create keys "
          "using jax.random.key(). If use of a raw key array was intended, set "
          'jax_legacy_prng_key="allow".')


@pytest.mark.spec("RNG-88")
def test_legacy_prng_key_modes(jax, legacy_mode):
    # G-RNG-019
    assert jax.config.jax_legacy_prng_key == "allow"
    jax.config.update("jax_legacy_prng_key", "error")
    with raises(ValueError, LEGACY):
        jax.random.normal(jax.random.PRNGKey(0))
    assert float(jax.random.normal(jax.random.key(0))) == float(np.float32(1.6226422))
    jax.config.update("jax_legacy_prng_key", "warn")
    with pytest.warns(UserWarning, match=re.escape(LEGACY)):
        out = jax.random.normal(jax.random.PRNGKey(0))
    assert float(out) == float(np.float32(1.6226422))


# -- G-RNG-021 / 023 / 025: seeds ----------------------------------------------------

@pytest.mark.spec("RNG-89")
def test_seeds_truncated_with_x64_off(jax):
    # G-RNG-021
    assert values(jax.random.key_data(jax.random.key(2**32 + 5))) == [0, 5]
    assert values(jax.random.key_data(jax.random.key(-1))) == [0, 4294967295]
    assert values(jax.random.key_data(jax.random.key(2**63 - 1))) == [0, 4294967295]
    with raises_prefix(TypeError, "PRNG key seed must be an integer; got "):
        jax.random.key(1.5)


@pytest.mark.spec("RNG-89")
def test_seeds_use_both_words_with_x64(jax, x64):
    # G-RNG-023
    assert values(jax.random.key_data(jax.random.key(2**32 + 5))) == [1, 5]
    assert values(jax.random.key_data(jax.random.key(-1))) == [4294967295, 4294967295]
    assert values(jax.random.key_data(jax.random.key(5))) == [0, 5]


@pytest.mark.spec("RNG-89")
@pytest.mark.parametrize("seed", [2**64, -2**63 - 1])
def test_seed_outside_int64_overflows(jax, seed):
    # G-RNG-025
    with raises(OverflowError, "Python int too large to convert to C long"):
        jax.random.key(seed)
