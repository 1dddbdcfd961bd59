"""Typed key arrays through transformations and array operations (SPEC RNG-93
.. RNG-97): jaxpr text of split and of a seeded key, keys carried by scan and
fori_loop, jit and eval_shape returning keys, comparison, stacking, select,
cond, ``.at`` updates, and the errors of the key API (values from JAX 0.10.2,
default jax_threefry_partitionable=True).
"""
import re

import numpy as np
import pytest


def raises(cls, message):
    return pytest.raises(cls, match="^" + re.escape(message) + "($|\n)")


def raises_prefix(cls, prefix):
    return pytest.raises(cls, match="^" + re.escape(prefix))


def values(x):
    return np.asarray(x).tolist()


KEY0 = "Array((), dtype=key<fry>) overlaying:\n[0 0]"
SPLIT0 = ("Array((2,), dtype=key<fry>) overlaying:\n"
          "[[1797259609 2579123966]\n [ 928981903 3453687069]]")


# -- jaxprs ---------------------------------------------------------------------

@pytest.mark.spec("RNG-93")
def test_jaxpr_of_split(jax):
    """split of a typed key is one random_split equation (SPEC RNG-93)."""
    text = str(jax.make_jaxpr(lambda k: jax.random.split(k))(jax.random.key(0)))
    assert text == ("{ lambda ; a:key<fry>[]. let\n"
                    "    b:key<fry>[2] = random_split[shape=(2,)] a\n"
                    "  in (b,) }")


@pytest.mark.spec("RNG-93")
def test_jaxpr_of_seeded_raw_key(jax):
    """PRNGKey(s) seeds, unwraps; key_data wraps and unwraps again (SPEC RNG-93)."""
    text = str(jax.make_jaxpr(lambda s: jax.random.key_data(jax.random.PRNGKey(s)))(0))
    assert text == ("{ lambda ; a:i32[]. let\n"
                    "    b:key<fry>[] = random_seed[impl=fry] a\n"
                    "    c:u32[2] = random_unwrap b\n"
                    "    d:key<fry>[] = random_wrap[impl=fry] c\n"
                    "    e:u32[2] = random_unwrap d\n"
                    "  in (e,) }")


# -- control flow and jit ----------------------------------------------------------

@pytest.mark.spec("RNG-94")
def test_scan_carrying_a_key(jax):
    """A key carried through scan, split in the body (SPEC RNG-94)."""
    def body(carry, _):
        new, sub = jax.random.split(carry)
        return new, jax.random.uniform(sub)

    last, ys = jax.lax.scan(body, jax.random.key(0), None, length=4)
    np.testing.assert_allclose(ys, np.float32([0.00729382, 0.10429037, 0.08260381, 0.01066005]),
                               rtol=1e-6)
    assert str(last.dtype) == "key<fry>" and last.shape == ()


@pytest.mark.spec("RNG-94")
def test_fori_loop_carrying_a_key(jax):
    """fori_loop splitting its key each step (SPEC RNG-94)."""
    out = jax.lax.fori_loop(0, 3, lambda i, c: jax.random.split(c)[0], jax.random.key(0))
    assert values(jax.random.key_data(out)) == [683029726, 1624662641]


@pytest.mark.spec("RNG-94")
def test_normal_under_jit_equals_eager(jax):
    """(SPEC RNG-94)"""
    key = jax.random.key(0)
    jitted = jax.jit(lambda k: jax.random.normal(k, (3,)))(key)
    np.testing.assert_array_equal(jitted, jax.random.normal(key, (3,)))


@pytest.mark.spec("RNG-94")
def test_jit_returns_typed_keys(jax):
    """Keys made or passed through jit come back as key arrays (SPEC RNG-94)."""
    assert repr(jax.jit(jax.random.key)(5)) == "Array((), dtype=key<fry>) overlaying:\n[0 5]"
    assert repr(jax.jit(jax.random.split)(jax.random.key(0))) == SPLIT0
    assert repr(jax.jit(lambda k: k)(jax.random.key(0))) == KEY0
    assert values(jax.random.key_data(jax.jit(jax.random.key)(5))) == [0, 5]


@pytest.mark.spec("RNG-94")
def test_cond_and_vmap_return_keys(jax, jnp):
    """(SPEC RNG-94)"""
    assert repr(jax.lax.cond(True, lambda: jax.random.key(0), lambda: jax.random.key(1))) == KEY0
    assert repr(jax.vmap(jax.random.key)(jnp.arange(3))) == (
        "Array((3,), dtype=key<fry>) overlaying:\n[[0 0]\n [0 1]\n [0 2]]")


@pytest.mark.spec("RNG-94")
def test_eval_shape_of_split(jax):
    """(SPEC RNG-94)"""
    out = jax.eval_shape(jax.random.split, jax.random.key(0))
    assert repr(out) == "ShapeDtypeStruct(shape=(2,), dtype=key<fry>)"


# -- array operations on keys --------------------------------------------------------

@pytest.mark.spec("RNG-95")
def test_key_equality(jax):
    """== and != compare key data (SPEC RNG-95)."""
    ks = jax.random.split(jax.random.key(0))
    assert values(ks == ks) == [True, True]
    assert values(ks != ks) == [False, False]
    assert bool(jax.random.key(0) == jax.random.key(0))


@pytest.mark.spec("RNG-95")
def test_stack_where_select_and_at_set(jax, jnp):
    """(SPEC RNG-95)"""
    k = jax.random.key(0)
    assert repr(jnp.stack([k, k])) == "Array((2,), dtype=key<fry>) overlaying:\n[[0 0]\n [0 0]]"
    assert repr(jnp.where(True, k, jax.random.key(1))) == KEY0
    picked = ("Array((2,), dtype=key<fry>) overlaying:\n"
              "[[1797259609 2579123966]\n [1948878966 4237131848]]")
    a, b = jax.random.split(k), jax.random.split(jax.random.key(1))
    assert repr(jnp.where(jnp.array([True, False]), a, b)) == picked
    assert repr(jax.lax.select(jnp.array([True, False]), a, b)) == picked
    assert repr(a.at[0].set(jax.random.key(5))) == (
        "Array((2,), dtype=key<fry>) overlaying:\n[[         0          5]\n [ 928981903 3453687069]]")
    assert repr(jnp.zeros_like(k)) == KEY0


@pytest.mark.spec("RNG-95")
def test_key_array_shape_methods(jax, jnp):
    """(SPEC RNG-95)"""
    ks = jax.random.split(jax.random.key(0), 4)
    m = ks.reshape(2, 2)
    assert (m.T.shape, m.ravel().shape, m.flatten().shape, m.swapaxes(0, 1).shape) == (
        (2, 2), (4,), (4,), (2, 2))
    assert jax.random.split(jax.random.key(0), 1).squeeze().shape == ()
    assert jnp.broadcast_to(jax.random.key(0), (2,)).shape == (2,)
    assert jnp.expand_dims(jax.random.key(0), 0).shape == (1,)
    assert ks[None].shape == (1, 4)
    assert (ks.size, ks.ndim, len(ks)) == (4, 1, 4)
    assert repr(ks[jnp.array([0, 2])]) == (
        "Array((2,), dtype=key<fry>) overlaying:\n"
        "[[1797259609 2579123966]\n [4146024105 2718843009]]")
    assert repr(jax.lax.dynamic_index_in_dim(ks, 1, keepdims=False)) == (
        "Array((), dtype=key<fry>) overlaying:\n[ 928981903 3453687069]")


@pytest.mark.spec("RNG-95")
def test_str_equals_repr_and_key_impl(jax):
    """(SPEC RNG-95)"""
    k = jax.random.key(0)
    assert str(k) == repr(k) == KEY0
    assert repr(jax.random.key_impl(k)) == "'threefry2x32'"
    assert str(jax.random.key_impl(jax.random.PRNGKey(0))) == "threefry2x32"


# -- errors ---------------------------------------------------------------------------

@pytest.mark.spec("RNG-96")
def test_key_conversions_refused(jax, jnp):
    """(SPEC RNG-96)"""
    k = jax.random.key(0)
    with raises(TypeError, "JAX array with PRNGKey dtype cannot be converted to a NumPy array. "
                "Use jax.random.key_data(arr) if you wish to extract the underlying integer array."):
        np.asarray(k)
    with raises(TypeError, "key array cannot be converted to boolean."):
        bool(k)
    with raises(TypeError, "len() of unsized object"):
        len(k)
    with raises(TypeError, "unhashable type: 'PRNGKeyArray'"):
        hash(k)
    with raises(NotImplementedError, "Cannot call abstract method astype"):
        k.astype(jnp.uint32)


@pytest.mark.spec("RNG-96")
def test_seed_array_and_batched_key_errors(jax, jnp):
    """(SPEC RNG-96)"""
    with raises(TypeError, "key accepts a scalar seed, but was given an array of shape (3,) "
                "!= (). Use jax.vmap for batching"):
        jax.random.key(jnp.arange(3))
    with raises(TypeError, "PRNGKey accepts a scalar seed, but was given an array of shape (3,) "
                "!= (). Use jax.vmap for batching"):
        jax.random.PRNGKey(jnp.arange(3))
    ks = jax.random.split(jax.random.key(0), 3)
    for name in ("uniform", "normal", "bits", "fold_in"):
        args = (1,) if name == "fold_in" else ()
        with raises(ValueError, f"{name} accepts a single key, but was given a key array of "
                    "shape (3,) != (). Use jax.vmap for batching."):
            getattr(jax.random, name)(ks, *args)


@pytest.mark.spec("RNG-96")
def test_wrap_key_data_errors(jax, jnp):
    """(SPEC RNG-96)"""
    prefix = "JAX encountered invalid PRNG key data: "
    with raises_prefix(TypeError, prefix + "expected key_data.shape to end with (2,); got shape=(3,)"):
        jax.random.wrap_key_data(jnp.zeros(3, jnp.uint32))
    with raises(TypeError, prefix + "expected key_data.dtype = uint32; got dtype=int32"):
        jax.random.wrap_key_data(jnp.zeros(2, jnp.int32))
    with raises_prefix(TypeError, prefix + "expected key_data.shape to end with (4,); got shape=(2,)"):
        jax.random.wrap_key_data(jnp.zeros(2, jnp.uint32), impl="rbg")
    with raises(TypeError, prefix + "expected key_data to have ndim, shape, and dtype attributes. Got 3"):
        jax.random.key_data(3)
    assert repr(jax.random.wrap_key_data(jnp.zeros((2, 3, 2), jnp.uint32))).startswith(
        "Array((2, 3), dtype=key<fry>) overlaying:\n[[[0 0]")


@pytest.mark.spec("RNG-96")
def test_fold_in_data_must_fit_uint32(jax):
    """fold_in's data is converted to uint32; a Python int outside it overflows;
    a float is truncated (SPEC RNG-96)."""
    k = jax.random.key(0)
    with raises(OverflowError, "Python integer 4294967299 out of bounds for uint32"):
        jax.random.fold_in(k, 2**32 + 3)
    with raises(OverflowError, "Python integer -1 out of bounds for uint32"):
        jax.random.fold_in(k, -1)
    assert values(jax.random.key_data(jax.random.fold_in(k, 1.5))) == [928981903, 3453687069]


@pytest.mark.spec("RNG-96")
def test_sampler_dtype_errors(jax, jnp):
    """(SPEC RNG-96)"""
    k = jax.random.key(0)
    with raises(ValueError, "dtype argument to `bits` must be an unsigned int dtype, got int32"):
        jax.random.bits(k, (2,), jnp.int32)
    with raises(TypeError, "randint only accepts integer dtypes, got float32"):
        jax.random.randint(k, (2,), 0, 3, dtype=jnp.float32)
    with raises(ValueError, "dtype argument to `normal` must be a float or complex dtype, got int32"):
        jax.random.normal(k, (2,), dtype=jnp.int32)
    with raises(TypeError, "'float' object cannot be interpreted as an integer"):
        jax.random.split(k, 2.0)


@pytest.mark.spec("RNG-97")
def test_sampler_shapes_and_bounds(jax, jnp):
    """Shapes may be ints or lists; randint clips bounds to the dtype and
    returns minval when maxval <= minval; split(k, 0) is empty (SPEC RNG-97)."""
    k = jax.random.key(0)
    want = np.float32([0.947667, 0.9785799])
    np.testing.assert_allclose(jax.random.uniform(k, [2]), want, rtol=1e-6)
    np.testing.assert_allclose(jax.random.uniform(k, 2), want, rtol=1e-6)
    assert values(jax.random.randint(k, (6,), 5, 2)) == [5] * 6
    assert values(jax.random.randint(k, (6,), 0, 300, dtype=jnp.uint8)) == [101, 80, 200, 61, 3, 211]
    assert values(jax.random.randint(k, (6,), -200, 300, dtype=jnp.int8)) == [
        -27, -48, 72, -67, -125, 83]
    assert values(jax.random.randint(k, (4,), 0.5, 10.7)) == [9, 0, 2, 3]
    assert jax.random.split(k, 0).shape == (0,)
    assert jax.random.split(k, (2, 3)).shape == (2, 3)
