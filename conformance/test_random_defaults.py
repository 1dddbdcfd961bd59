"""Default arguments of the samplers and the edges of ``randint`` for narrow
integer dtypes (SPEC RNG-98).

Found weakly covered by the mutation tool (tests/mutation: rng-*): a default
``dtype``, ``minval``/``maxval`` or ``p`` written differently gives samples of
another dtype or another stream, which only an explicit comparison of the
default call with the spelled-out one shows.
"""
import numpy as np
import pytest


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)


@pytest.fixture(params=[False, True], ids=["x32", "x64"])
def x64_mode(request, jax):
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", request.param)
    try:
        yield request.param
    finally:
        jax.config.update("jax_enable_x64", old)


@pytest.mark.spec("RNG-98")
@pytest.mark.parametrize("sampler", ["normal", "uniform", "exponential", "laplace",
                                     "logistic", "gumbel", "cauchy"])
def test_float_samplers_default_to_the_default_float_dtype(jax, jnp, x64_mode, sampler):
    key = jax.random.key(3)
    fun = getattr(jax.random, sampler)
    want = jnp.float64 if x64_mode else jnp.float32
    got = fun(key, (5,))
    assert got.dtype == want
    _same(got, fun(key, (5,), want))


@pytest.mark.spec("RNG-98")
def test_uniform_defaults_to_zero_one(jax, x64_mode):
    key = jax.random.key(11)
    got = jax.random.uniform(key, (1000,))
    _same(got, jax.random.uniform(key, (1000,), minval=0.0, maxval=1.0))
    got = np.asarray(got)
    assert got.min() >= 0.0 and got.max() < 1.0
    assert got.min() < 0.01 and got.max() > 0.99


@pytest.mark.spec("RNG-98")
def test_uniform_default_bounds_are_floats_in_the_jaxpr(jax):
    """The default bounds reach the sampler as float operands, exactly as
    ``minval=0.0, maxval=1.0`` spelled out."""
    key = jax.random.key(0)
    default = jax.make_jaxpr(lambda k: jax.random.uniform(k, (3,)))(key)
    explicit = jax.make_jaxpr(
        lambda k: jax.random.uniform(k, (3,), minval=0.0, maxval=1.0))(key)
    assert str(default) == str(explicit)
    assert "0.0:f32[]" in str(default) and "1.0:f32[]" in str(default)


@pytest.mark.spec("RNG-98")
def test_bernoulli_defaults_to_a_python_half(jax, x64_mode):
    key = jax.random.key(5)
    got = jax.random.bernoulli(key, shape=(256,))
    _same(got, jax.random.bernoulli(key, 0.5, (256,)))
    _same(got, jax.random.bernoulli(key, 0.5, (256,), mode="low"))
    assert got.dtype == np.bool_ and 64 < int(np.sum(np.asarray(got))) < 192


@pytest.mark.spec("RNG-98")
@pytest.mark.parametrize("dtype, lo, hi", [
    ("int8", 120, 128), ("uint8", 250, 256), ("int16", 32760, 32768),
    ("uint16", 65530, 65536), ("int8", -128, -120), ("int8", 120, 1000)])
def test_randint_narrow_dtypes_reach_their_maximum(jax, jnp, dtype, lo, hi):
    """``maxval`` one past (or beyond) the dtype's maximum still draws it."""
    got = np.asarray(jax.random.randint(jax.random.key(0), (2000,), lo, hi, dtype))
    assert got.dtype == np.dtype(dtype)
    top = min(hi, np.iinfo(dtype).max + 1) - 1
    assert got.min() >= max(lo, np.iinfo(dtype).min) and got.max() == top
    assert set(np.unique(got)) == set(range(max(lo, np.iinfo(dtype).min), top + 1))
