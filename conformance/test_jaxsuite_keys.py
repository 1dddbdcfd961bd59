"""Conformance: typed PRNG keys as dtypes and as jax.Arrays (SPEC RNG-101 .. RNG-108).

Expected values come from the keys themselves (``random.key_data``) and
from NumPy arrays built here; nothing is copied from an implementation's
output.
"""
import copy
import warnings

import numpy as np
import pytest

IMPLS = ["threefry2x32", "rbg", "unsafe_rbg"]


def data(jax, keys):
    return np.asarray(jax.random.key_data(keys))


def assert_same_keys(jax, a, b):
    assert a.dtype == b.dtype
    np.testing.assert_array_equal(data(jax, a), data(jax, b))


# -- RNG-101: impl or dtype ---------------------------------------------------

@pytest.mark.spec("RNG-101")
@pytest.mark.parametrize("name", IMPLS)
def test_key_from_dtype_matches_key_from_impl(jax, name):
    by_impl = jax.random.key(7, impl=name)
    assert_same_keys(jax, jax.random.key(7, dtype=by_impl.dtype), by_impl)
    assert_same_keys(jax, jax.random.key(7, dtype=name), by_impl)


@pytest.mark.spec("RNG-101")
@pytest.mark.parametrize("name", IMPLS)
def test_wrap_key_data_with_dtype_round_trips(jax, name):
    keys = jax.random.split(jax.random.key(3, impl=name), 4)
    again = jax.random.wrap_key_data(jax.random.key_data(keys), dtype=keys.dtype)
    assert_same_keys(jax, again, keys)
    by_name = jax.random.wrap_key_data(jax.random.key_data(keys), dtype=name)
    assert by_name.dtype == jax.random.key_dtype(name)


@pytest.mark.spec("RNG-101")
def test_impl_and_dtype_together_is_value_error(jax, jnp):
    dt = jax.random.key_dtype("threefry2x32")
    with pytest.raises(ValueError, match="Cannot specify both `impl` and `dtype`"):
        jax.random.key(1, impl="threefry2x32", dtype=dt)
    with pytest.raises(ValueError, match="Cannot specify both `impl` and `dtype`"):
        jax.random.wrap_key_data(jnp.zeros(2, jnp.uint32), impl="rbg", dtype=dt)


@pytest.mark.spec("RNG-101")
def test_key_dtype_accepted_as_impl(jax, jnp):
    dt = jax.random.key_dtype("rbg")
    k = jax.random.wrap_key_data(jnp.arange(4, dtype=jnp.uint32), impl=dt)
    assert k.dtype == dt
    assert jax.random.key_dtype(dt) == dt
    with pytest.raises(TypeError, match="unrecognized type .* PRNG implementation"):
        jax.random.key(0, dtype=jnp.float32)
    with pytest.raises(ValueError, match="unrecognized PRNG implementation"):
        jax.random.key(0, dtype="no such prng")


# -- RNG-102: the jax.Array surface -------------------------------------------

@pytest.mark.spec("RNG-102")
def test_key_array_reports_its_data_placement(jax):
    keys = jax.random.split(jax.random.key(0), 5)
    base = jax.random.key_data(keys)
    assert keys.device == base.device == jax.devices()[0]
    assert keys.devices() == base.devices()
    assert keys.is_fully_addressable and keys.is_fully_replicated
    assert keys.nbytes == keys.size * keys.itemsize == base.nbytes == 5 * 8
    assert keys.on_device_size_in_bytes() == base.on_device_size_in_bytes()
    assert isinstance(keys.unsafe_buffer_pointer(), int)


@pytest.mark.spec("RNG-102")
def test_key_array_shards_hold_keys(jax):
    keys = jax.random.split(jax.random.key(1), 3)
    shards = keys.addressable_shards
    assert len(shards) == len(keys.global_shards) == 1
    assert shards[0].data.dtype == keys.dtype
    assert_same_keys(jax, shards[0].data, keys)
    assert_same_keys(jax, keys.addressable_data(0), keys)


@pytest.mark.spec("RNG-102")
def test_key_array_lifetime(jax):
    keys = jax.random.split(jax.random.key(2), 3)
    assert keys.block_until_ready() is keys
    assert keys.copy_to_host_async() is None
    kept = keys.copy()
    assert not keys.is_deleted()
    keys.delete()
    assert keys.is_deleted()
    with pytest.raises(RuntimeError):
        np.asarray(jax.random.key_data(keys))
    with pytest.raises(RuntimeError):
        keys[0]
    assert not kept.is_deleted()
    assert data(jax, kept).shape == (3, 2)


@pytest.mark.spec("RNG-102")
def test_copy_module_gives_independent_keys(jax):
    keys = jax.random.split(jax.random.key(4), 2)
    for clone in (copy.copy(keys), copy.deepcopy(keys)):
        assert_same_keys(jax, clone, keys)
        clone.delete()
    assert not keys.is_deleted()


# -- RNG-103: random_unwrap ---------------------------------------------------

@pytest.mark.spec("RNG-103")
def test_random_unwrap_of_non_key_is_type_error(jax, jnp):
    from importlib import import_module
    prng = import_module(jax.__name__ + "._src.random.prng")
    x = jnp.arange(6, dtype=jnp.uint32).reshape(3, 2)
    for f in (prng.random_unwrap, jax.jit(prng.random_unwrap), jax.vmap(prng.random_unwrap)):
        with pytest.raises(TypeError, match="random_unwrap takes key array operand"):
            f(x)
    # key_data takes raw key data and returns it.
    np.testing.assert_array_equal(jax.random.key_data(x), np.arange(6).reshape(3, 2))


# -- RNG-104: creating key arrays ---------------------------------------------

@pytest.mark.spec("RNG-104")
@pytest.mark.parametrize("name, word", [("zeros", 0), ("ones", 1), ("empty", 0)])
def test_constant_creators_with_key_dtype(jax, jnp, name, word):
    dt = jax.random.key_dtype("rbg")
    out = getattr(jnp, name)((2, 3), dtype=dt)
    assert out.dtype == dt and out.shape == (2, 3)
    np.testing.assert_array_equal(data(jax, out), np.full((2, 3, 4), word, np.uint32))


@pytest.mark.spec("RNG-104")
@pytest.mark.parametrize("jit", [False, True])
def test_full_with_scalar_fill_sets_every_word(jax, jnp, jit):
    keys = jax.random.split(jax.random.key(5), 3)

    def f(k):
        return jnp.full(k.shape, 1.5, dtype=k.dtype), jnp.full_like(k, 9)
    full, like = jax.jit(f)(keys) if jit else f(keys)
    np.testing.assert_array_equal(data(jax, full), np.ones((3, 2), np.uint32))
    np.testing.assert_array_equal(data(jax, like), np.full((3, 2), 9, np.uint32))
    assert full.dtype == like.dtype == keys.dtype


@pytest.mark.spec("RNG-104")
@pytest.mark.parametrize("jit", [False, True])
def test_full_with_key_fill_broadcasts_the_key(jax, jnp, jit):
    keys = jax.random.split(jax.random.key(6), 2)
    fill = jax.random.key(11)

    def f(k, v):
        return jnp.full((4, 2), v, dtype=k.dtype), jnp.full_like(k, v), jnp.full((3, 2), k)
    a, b, c = jax.jit(f)(keys, fill) if jit else f(keys, fill)
    one = data(jax, fill)
    np.testing.assert_array_equal(data(jax, a), np.broadcast_to(one, (4, 2, 2)))
    np.testing.assert_array_equal(data(jax, b), np.broadcast_to(one, (2, 2)))
    np.testing.assert_array_equal(data(jax, c), np.broadcast_to(data(jax, keys), (3, 2, 2)))


@pytest.mark.spec("RNG-104")
def test_like_creators_of_keys(jax, jnp):
    keys = jax.random.split(jax.random.key(8), 3)
    for fun, word in ((jnp.zeros_like, 0), (jnp.ones_like, 1), (jnp.empty_like, 0)):
        out = fun(keys)
        assert out.dtype == keys.dtype and out.shape == (3,)
        np.testing.assert_array_equal(data(jax, out), np.full((3, 2), word, np.uint32))
    assert jnp.ones_like(keys, shape=(2, 2)).shape == (2, 2)


@pytest.mark.spec("RNG-104")
def test_bad_key_fills(jax, jnp):
    keys = jax.random.split(jax.random.key(9), 2)
    with pytest.raises(ValueError, match="Cannot convert_element_type from key<fry> to float32"):
        jnp.full((2,), keys[0], dtype=jnp.float32)
    with pytest.raises(ValueError, match="Cannot convert_element_type from uint32 to key<fry>"):
        jnp.full((2, 3), jnp.arange(3, dtype=jnp.uint32), dtype=keys.dtype)
    with pytest.raises(ValueError):
        jnp.full((2,), jax.random.key(0, impl="rbg"), dtype=keys.dtype)
    with pytest.raises(ValueError):
        jnp.full((3,), keys)
    with pytest.raises(TypeError):
        jnp.ones_like(jnp.ones(2), dtype=keys.dtype)
    with pytest.raises(TypeError):
        jnp.asarray(1, dtype=keys.dtype)
    for make in (lambda: jnp.eye(2, dtype=keys.dtype), lambda: jnp.arange(3, dtype=keys.dtype)):
        with pytest.raises((TypeError, ValueError)):
            make()


# -- RNG-105: result_type -------------------------------------------------------

@pytest.mark.spec("RNG-105")
def test_result_type_of_keys(jax, jnp):
    k = jax.random.key(0, impl="rbg")
    ks = jax.random.split(k, 3)
    assert jnp.result_type(k) == k.dtype
    assert jnp.result_type(k, ks) == k.dtype
    with pytest.raises(ValueError):
        jnp.result_type(k, jnp.float32)


# -- RNG-106: invalid key data first ------------------------------------------

@pytest.mark.spec("RNG-106")
def test_invalid_key_data_reported_before_legacy_mode(jax, jnp):
    raw = jnp.zeros(2, jnp.uint32)
    with jax.legacy_prng_key("error"):
        with pytest.raises(TypeError, match="invalid PRNG key data"):
            jax.random.uniform(jnp.zeros(1, jnp.float32))
        with pytest.raises(TypeError, match="invalid PRNG key data"):
            jax.random.normal(jnp.zeros(3, jnp.uint32))
        with pytest.raises(ValueError, match="Legacy uint32 key array"):
            jax.random.uniform(raw)
    with jax.legacy_prng_key("warn"):
        with pytest.warns(UserWarning, match="Legacy uint32 key array"):
            jax.random.uniform(raw)
    with jax.legacy_prng_key("allow"), warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        jax.random.uniform(raw)


# -- RNG-108: ShapeDtypeStruct.like -------------------------------------------

@pytest.mark.spec("RNG-108")
def test_shape_dtype_struct_like(jax, jnp):
    keys = jax.random.split(jax.random.key(12), 4)
    s = jax.ShapeDtypeStruct.like(keys)
    assert (s.shape, s.dtype, s.weak_type) == ((4,), keys.dtype, False)
    assert jax.eval_shape(lambda x: x, s) == s
    w = jax.ShapeDtypeStruct.like(1.0)
    assert (w.shape, w.dtype, w.weak_type) == ((), jnp.ones(()).dtype, True)
    n = jax.ShapeDtypeStruct.like(np.zeros((2, 3), np.int8))
    assert (n.shape, n.dtype) == ((2, 3), np.dtype(np.int8))
    assert jax.ShapeDtypeStruct.like(s) == s
    with pytest.raises(TypeError):
        jax.ShapeDtypeStruct.like([1, 2])


@pytest.mark.spec("RNG-108")
def test_shape_dtype_struct_like_keeps_committed_sharding(jax, jnp):
    dev = jax.devices()[0]
    placed = jax.device_put(jnp.ones(3), dev)
    assert jax.ShapeDtypeStruct.like(placed).sharding == placed.sharding
    assert jax.ShapeDtypeStruct.like(jnp.ones(3)).sharding is None


@pytest.mark.spec("RNG-107")
@pytest.mark.parametrize("name", IMPLS)
@pytest.mark.parametrize("jit", [False, True])
def test_out_of_bounds_gather_fills_all_ones(jax, jnp, name, jit):
    keys = jax.random.split(jax.random.key(0, impl=name), 4)

    def f(k):
        return k.at[jnp.array([1, 100])].get(mode="fill")
    out = jax.jit(f)(keys) if jit else f(keys)
    assert out.dtype == keys.dtype
    got = data(jax, out)
    np.testing.assert_array_equal(got[0], data(jax, keys)[1])
    np.testing.assert_array_equal(got[1], np.full(got.shape[1:], 2**32 - 1, np.uint32))


@pytest.mark.spec("RNG-109")
def test_make_array_from_key_pieces(jax, jnp):
    devices = jax.devices()
    mesh = jax.make_mesh((len(devices),), ("x",))
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x"))
    keys = jax.random.split(jax.random.key(5), len(devices))
    out = jax.make_array_from_callback(keys.shape, sharding, lambda idx: keys[idx])
    assert_same_keys(jax, out, keys)
    pieces = [jax.device_put(keys[i:i + 1], d) for i, d in enumerate(devices)]
    out = jax.make_array_from_single_device_arrays(keys.shape, sharding, pieces)
    assert_same_keys(jax, out, keys)


@pytest.mark.spec("RNG-110")
def test_isclose_of_keys_is_equality(jax, jnp):
    keys = jax.random.split(jax.random.key(3), 3)
    other = keys.at[1].set(jax.random.key(99))
    np.testing.assert_array_equal(jnp.isclose(keys, other), [True, False, True])
    assert bool(jnp.isclose(keys[0], keys[0]))
    with pytest.raises(TypeError, match="isclose does not accept dtypes key<fry>, float32"):
        jnp.isclose(keys, jnp.ones(3))
