"""Differential sweeps of the basic samplers against the reference (SPEC
RNG-81 .. RNG-84): 200 keys drawn as one vmapped computation per case, over
shapes (), (1,), (3,), (2, 3), (5, 7), (0,), over the dtypes each sampler
accepts and over both ``jax_threefry_partitionable`` modes.  bits, randint
and uniform must be bit-identical; normal within NORMAL_F32_ULPS (compared on the
integer views of the float bits).

The implementation under test is ``jax``; the reference is the ``oracle``
fixture (refjax), so on ``--impl=jax`` each case checks refjax against real
JAX value for value.
"""
import numpy as np
import pytest

BOTH_MODES = pytest.mark.parametrize("partitionable", [True, False], indirect=True)
SHAPES = [(), (1,), (3,), (2, 3), (5, 7), (0,)]
NUM_KEYS = 200


def sweep(wide_dtype, other_dtypes):
    """(dtype, shape) cases: every shape for the 32-bit dtype, two shapes for
    the others (each case compiles separately on real JAX; keep it fast)."""
    return pytest.mark.parametrize(
        "dtype,shape", [(wide_dtype, s) for s in SHAPES]
        + [(d, s) for d in other_dtypes for s in [(), (5, 7)]], ids=str)


def _keys(lib, seed):
    """NUM_KEYS keys: a split of key(seed), so one batched computation."""
    return lib.random.split(lib.random.key(seed), NUM_KEYS)


def _both(jax, oracle, fun):
    """``fun(lib)`` on the implementation under test and on the reference."""
    return np.asarray(fun(jax)), np.asarray(fun(oracle))


def assert_identical(got, want):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got.view(_int_view(got.dtype)),
                                  want.view(_int_view(want.dtype)))


def _int_view(dtype):
    return {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[np.dtype(dtype).itemsize]


def _ordered(x):
    """Float bits mapped to integers that are ordered like the floats, so a
    difference counts ulps across zero as well."""
    i = x.view(_int_view(x.dtype)).astype(np.int64)
    bits = 8 * x.dtype.itemsize
    return np.where(i < 0, -(2 ** (bits - 1)) - i, i)


# normal samples are bit-identical: refjax computes erf_inv and its log1p
# as XLA's CPU code does, in float32 and float64 (SPEC RNG-21, LAX-11).
NORMAL_F32_ULPS = 0
NORMAL_F64_ULPS = 0


def assert_within_ulps(got, want, ulps=NORMAL_F32_ULPS):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if got.size:
        assert np.abs(_ordered(got) - _ordered(want)).max() <= ulps


# -- bits ---------------------------------------------------------------------

@pytest.mark.spec("RNG-81")
@BOTH_MODES
@sweep("uint32", ["uint8", "uint16"])
def test_bits_sweep(jax, oracle, partitionable, shape, dtype):
    """vmap(bits) over 200 keys is bit-identical to the reference (SPEC RNG-81)."""
    got, want = _both(jax, oracle, lambda lib: lib.vmap(
        lambda k: lib.random.bits(k, shape, getattr(lib.numpy, dtype)))(_keys(lib, 11)))
    assert got.shape == (NUM_KEYS, *shape)
    assert_identical(got, want)


@pytest.mark.spec("RNG-81")
@BOTH_MODES
@pytest.mark.parametrize("shape", [(2, 3)], ids=str)
def test_bits_uint64_sweep(jax, oracle, x64, partitionable, shape):
    """uint64 bits with x64 on (SPEC RNG-81)."""
    old = oracle.config.jax_enable_x64
    oracle.config.update("jax_enable_x64", True)
    try:
        got, want = _both(jax, oracle, lambda lib: lib.vmap(
            lambda k: lib.random.bits(k, shape, lib.numpy.uint64))(_keys(lib, 12)))
    finally:
        oracle.config.update("jax_enable_x64", old)
    assert got.dtype == np.uint64
    assert_identical(got, want)


@pytest.mark.spec("RNG-81")
@BOTH_MODES
def test_bits_from_vmapped_integer_seeds(jax, oracle, partitionable):
    """vmap over key(seed) of an int array of 200 seeds (SPEC RNG-81)."""
    got, want = _both(jax, oracle, lambda lib: lib.vmap(
        lambda s: lib.random.bits(lib.random.key(s), (5,)))(
            lib.numpy.arange(-100, 100, dtype=lib.numpy.int32) * 7919))
    assert_identical(got, want)


@pytest.mark.spec("RNG-81")
@BOTH_MODES
def test_vmapped_draws_equal_per_key_draws(jax, partitionable):
    """vmap(f)(keys)[i] == f(keys[i]) (SPEC RNG-81)."""
    keys = jax.random.split(jax.random.key(3), 8)
    batched = np.asarray(jax.vmap(lambda k: jax.random.bits(k, (2, 3)))(keys))
    single = np.stack([np.asarray(jax.random.bits(keys[i], (2, 3))) for i in range(8)])
    np.testing.assert_array_equal(batched, single)


# -- split / fold_in ----------------------------------------------------------

@pytest.mark.spec("RNG-82")
@BOTH_MODES
@pytest.mark.parametrize("num", [2, 7])
def test_split_and_fold_in_sweep(jax, oracle, partitionable, num):
    """vmap(split) and vmap(fold_in) key data over 200 keys (SPEC RNG-82)."""
    def split(lib):
        return lib.random.key_data(lib.vmap(lambda k: lib.random.split(k, num))(_keys(lib, 13)))

    def fold_in(lib):
        data = lib.numpy.arange(NUM_KEYS, dtype=lib.numpy.uint32) * num
        return lib.random.key_data(lib.vmap(lib.random.fold_in)(_keys(lib, 14), data))

    assert_identical(*_both(jax, oracle, split))
    assert_identical(*_both(jax, oracle, fold_in))


# -- randint ------------------------------------------------------------------

RANDINT_BOUNDS = {
    "int8": [(0, 10), (-200, 300)], "int16": [(-7, 1000), (-40000, 40000)],
    "int32": [(0, 10), (-2**31, 2**31 - 1)],
    "uint8": [(0, 3), (5, 300)], "uint16": [(0, 60001), (1, 2)],
    "uint32": [(0, 10), (0, 2**31 - 1)],
}


@pytest.mark.spec("RNG-83")
@BOTH_MODES
@sweep("int32", ["int8", "int16", "uint8", "uint16", "uint32"])
def test_randint_sweep(jax, oracle, partitionable, shape, dtype):
    """vmap(randint) bit-identical, bounds clipped to the dtype (SPEC RNG-83)."""
    for lo, hi in RANDINT_BOUNDS[dtype]:
        got, want = _both(jax, oracle, lambda lib: lib.vmap(
            lambda k: lib.random.randint(k, shape, lo, hi, getattr(lib.numpy, dtype)))(
                _keys(lib, 15)))
        assert_identical(got, want)


@pytest.mark.spec("RNG-83")
@BOTH_MODES
def test_randint_array_bounds_sweep(jax, oracle, partitionable):
    """Per-element bounds broadcast against the shape (SPEC RNG-83)."""
    def draw(lib):
        lo = lib.numpy.array([-5, 0, 100], lib.numpy.int32)
        return lib.vmap(lambda k: lib.random.randint(k, (2, 3), lo, 1000))(_keys(lib, 16))
    assert_identical(*_both(jax, oracle, draw))


@pytest.mark.spec("RNG-83")
@BOTH_MODES
@pytest.mark.parametrize("shape", [(2, 3)], ids=str)
def test_randint_int64_sweep(jax, oracle, x64, partitionable, shape):
    """int64 randint with x64 on, including bounds beyond int32 (SPEC RNG-83)."""
    old = oracle.config.jax_enable_x64
    oracle.config.update("jax_enable_x64", True)
    try:
        got, want = _both(jax, oracle, lambda lib: lib.vmap(
            lambda k: lib.random.randint(k, shape, -2**40, 2**40, lib.numpy.int64))(
                _keys(lib, 17)))
    finally:
        oracle.config.update("jax_enable_x64", old)
    assert got.dtype == np.int64
    assert_identical(got, want)


# -- uniform and normal -------------------------------------------------------

@pytest.mark.spec("RNG-84")
@BOTH_MODES
@sweep("float32", ["float16", "bfloat16"])
def test_uniform_sweep(jax, oracle, partitionable, shape, dtype):
    """vmap(uniform) bit-identical, default range and [-2, 5) (SPEC RNG-84)."""
    for lo, hi in [(0.0, 1.0), (-2.0, 5.0)]:
        got, want = _both(jax, oracle, lambda lib: lib.vmap(
            lambda k: lib.random.uniform(k, shape, getattr(lib.numpy, dtype), lo, hi))(
                _keys(lib, 18)))
        assert_identical(got, want)


@pytest.mark.spec("RNG-84")
@BOTH_MODES
@sweep("float32", ["float16", "bfloat16"])
def test_normal_sweep(jax, oracle, partitionable, shape, dtype):
    """vmap(normal) bit-identical (SPEC RNG-84)."""
    got, want = _both(jax, oracle, lambda lib: lib.vmap(
        lambda k: lib.random.normal(k, shape, getattr(lib.numpy, dtype)))(_keys(lib, 19)))
    assert_within_ulps(got, want)


@pytest.mark.spec("RNG-84")
@BOTH_MODES
@pytest.mark.parametrize("shape", [(2, 3)], ids=str)
def test_float64_sweep(jax, oracle, x64, partitionable, shape):
    """float64 uniform and normal bit-identical with x64 on (SPEC RNG-84)."""
    old = oracle.config.jax_enable_x64
    oracle.config.update("jax_enable_x64", True)
    try:
        got, want = _both(jax, oracle, lambda lib: lib.vmap(
            lambda k: lib.random.uniform(k, shape, lib.numpy.float64))(_keys(lib, 20)))
        assert got.dtype == np.float64
        assert_identical(got, want)
        got, want = _both(jax, oracle, lambda lib: lib.vmap(
            lambda k: lib.random.normal(k, shape, lib.numpy.float64))(_keys(lib, 21)))
        assert_within_ulps(got, want, NORMAL_F64_ULPS)
    finally:
        oracle.config.update("jax_enable_x64", old)
