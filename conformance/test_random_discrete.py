"""Discrete and combinatorial samplers of ``jax.random`` (SPEC RNG-50 ..
RNG-64): known answers of JAX 0.10.2 in both ``jax_threefry_partitionable``
modes, differential sweeps against the reference (``oracle``: refjax, so on
``--impl=jax`` every case compares refjax with real JAX value for value),
output dtypes and the errors JAX raises.

Known-answer sources: /work/shared/known_answers.md sections 3 and 4
(``tests/random_test.py`` ``_RANDOM_VALUES_CASES`` and real JAX output),
gotcha G-RNG-022, and values observed with JAX 0.10.2 on CPU for the
clauses (cited as "observed" in /tmp/h/spec_rng_discrete.md).
"""
import numpy as np
import pytest

BOTH_MODES = pytest.mark.parametrize("partitionable", [True, False], indirect=True)
SEEDS = (0, 1, 42, 1701)


def _both(jax, oracle, fun):
    """``fun(lib)`` on the implementation under test and on the reference."""
    return np.asarray(fun(jax)), np.asarray(fun(oracle))


def assert_identical(got, want):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


def _sweep(jax, oracle, fun):
    """``fun(lib, key)`` bit-identical on both libraries for every seed
    (under ``jit``, so that real JAX compiles each case once)."""
    compiled = {id(lib): lib.jit(lambda key, lib=lib: fun(lib, key))
                for lib in (jax, oracle)}
    for seed in SEEDS:
        got, want = _both(jax, oracle,
                          lambda lib: compiled[id(lib)](lib.random.PRNGKey(seed)))
        assert_identical(got, want)


# -- known answers ------------------------------------------------------------

# (partitionable=True, partitionable=False) results, x64 off.
KNOWN = {
    "permutation": (
        lambda r, jnp: r.permutation(r.PRNGKey(0), 10),
        [0, 1, 8, 5, 6, 4, 3, 2, 7, 9], [2, 7, 9, 6, 0, 8, 1, 3, 4, 5]),
    "choice_no_replace": (
        lambda r, jnp: r.choice(r.PRNGKey(0), 10, (3,), replace=False),
        [0, 1, 8], [2, 7, 9]),
    "bernoulli": (
        lambda r, jnp: r.bernoulli(r.PRNGKey(0), 0.5, (8,)),
        [False, False, True, True, False, True, True, False],
        [False, True, True, False, True, False, True, False]),
    "bernoulli_case": (
        lambda r, jnp: r.bernoulli(r.PRNGKey(1612777541), 0.5, shape=(5,)),
        [True, False, False, False, True], [False, True, True, True, False]),
    "categorical": (
        lambda r, jnp: r.categorical(r.PRNGKey(0), jnp.zeros(4), shape=(6,)),
        [1, 3, 2, 3, 0, 1], [0, 0, 1, 3, 2, 3]),
    "poisson_case": (
        lambda r, jnp: r.poisson(r.PRNGKey(1349191556), 5, shape=(5,), dtype="int32"),
        [0, 5, 3, 3, 5], [7, 3, 6, 11, 6]),
    "rademacher_case": (
        lambda r, jnp: r.rademacher(r.PRNGKey(1719994501), shape=(5,), dtype="int32"),
        [-1, -1, 1, 1, -1], [-1, -1, -1, -1, 1]),
    # Observed with JAX 0.10.2 (CPU) for RNG-57 .. RNG-62.
    "poisson_both_algorithms": (
        lambda r, jnp: r.poisson(r.PRNGKey(3), jnp.array([3., 15., 100., 0.]), shape=(2, 4)),
        [[0, 15, 87, 0], [7, 10, 91, 0]], [[3, 17, 124, 0], [3, 12, 99, 0]]),
    "binomial": (
        lambda r, jnp: r.binomial(r.PRNGKey(4), jnp.array([5., 50., 1000., 20.]),
                                  jnp.array([.3, .4, .7, .9]), shape=(2, 4)),
        [[1., 21., 691., 17.], [3., 21., 714., 19.]],
        [[3., 18., 687., 19.], [2., 14., 720., 16.]]),
    "geometric": (
        lambda r, jnp: r.geometric(r.PRNGKey(5), 0.3, shape=(8,)),
        [3, 1, 1, 7, 1, 2, 12, 9], [5, 15, 3, 7, 1, 3, 8, 3]),
    "multinomial": (
        lambda r, jnp: r.multinomial(r.PRNGKey(6), 20., jnp.array([.2, .3, .5]), shape=(2, 3)),
        [[4., 6., 10.], [3., 8., 9.]], [[6., 8., 6.], [5., 8., 7.]]),
    "categorical_no_replace": (
        lambda r, jnp: r.categorical(r.PRNGKey(7), jnp.array([[0., 1., 2., 3.], [1., 1., 1., 1.]]),
                                     shape=(3, 2), replace=False),
        [[1, 0], [3, 1], [2, 2]], [[3, 1], [2, 2], [1, 3]]),
    "choice_p": (
        lambda r, jnp: r.choice(r.PRNGKey(8), 5, (4,), p=jnp.array([.1, .2, .3, .2, .2])),
        [3, 4, 0, 1], [2, 4, 2, 1]),
    "choice_p_no_replace": (
        lambda r, jnp: r.choice(r.PRNGKey(8), 5, (4,), replace=False,
                                p=jnp.array([.1, .2, .3, .2, .2])),
        [2, 3, 4, 1], [3, 4, 2, 1]),
    "permutation_rows": (
        lambda r, jnp: r.permutation(r.PRNGKey(10), jnp.arange(12).reshape(3, 4), axis=1),
        [[0, 1, 3, 2], [4, 5, 7, 6], [8, 9, 11, 10]],
        [[1, 0, 3, 2], [5, 4, 7, 6], [9, 8, 11, 10]]),
    "permutation_independent": (
        lambda r, jnp: r.permutation(r.PRNGKey(10), jnp.arange(12).reshape(3, 4), axis=1,
                                     independent=True),
        [[0, 1, 3, 2], [5, 6, 4, 7], [10, 8, 11, 9]],
        [[2, 1, 3, 0], [7, 4, 5, 6], [10, 11, 8, 9]]),
    "bernoulli_high": (
        lambda r, jnp: r.bernoulli(r.PRNGKey(13), 0.3, (8,), mode="high"),
        [False] * 7 + [True], [True, False, True, False, True, False, False, False]),
}


@pytest.mark.spec("RNG-63")
@pytest.mark.spec("RNG-50")
@BOTH_MODES
@pytest.mark.parametrize("name", sorted(KNOWN))
def test_known_answers(jax, jnp, partitionable, name):
    fun, when_true, when_false = KNOWN[name]
    got = np.asarray(fun(jax.random, jnp))
    np.testing.assert_array_equal(got, when_true if partitionable else when_false)


@pytest.mark.spec("RNG-63")
def test_gotcha_g_rng_022_default_mode(jax):
    """G-RNG-022, in the 0.10.2 default (partitionable) mode."""
    k = jax.random.key(0)
    assert np.asarray(jax.random.permutation(k, 5)).tolist() == [0, 1, 4, 3, 2]
    assert np.asarray(jax.random.choice(k, 5, (3,), replace=False)).tolist() == [0, 1, 4]


# -- differential sweeps ---------------------------------------------------------

@pytest.mark.spec("RNG-51")
@BOTH_MODES
@pytest.mark.parametrize("shape", [(), (7,), (2, 3)], ids=str)
def test_bernoulli_rademacher_sweep(jax, oracle, partitionable, shape):
    _sweep(jax, oracle, lambda lib, k: lib.random.bernoulli(k, 0.3, shape))
    _sweep(jax, oracle, lambda lib, k: lib.random.bernoulli(k, 0.3, shape, mode="high"))
    _sweep(jax, oracle, lambda lib, k: lib.random.rademacher(k, shape))


@pytest.mark.spec("RNG-53")
@BOTH_MODES
@pytest.mark.parametrize("axis", [-1, 0])
def test_categorical_sweep(jax, oracle, partitionable, axis):
    logits = np.log(np.array([[.1, .2, .3, .4], [.25, .25, .25, .25],
                              [.7, .1, .1, .1]], np.float32))
    _sweep(jax, oracle, lambda lib, k: lib.random.categorical(k, logits, axis=axis))
    shape = (5, 3) if axis == -1 else (5, 4)  # (5, *batch_shape)
    _sweep(jax, oracle, lambda lib, k: lib.random.categorical(k, logits, axis, shape))
    _sweep(jax, oracle, lambda lib, k: lib.random.categorical(
        k, logits, axis, (2, *shape[1:]), replace=False))


@pytest.mark.spec("RNG-54")
@BOTH_MODES
@pytest.mark.parametrize("n", [0, 10, 1625, 1626])
def test_permutation_sweep(jax, oracle, partitionable, n):
    """Sizes around the switch from one sorting round to two (1625 | 1626)."""
    _sweep(jax, oracle, lambda lib, k: lib.random.permutation(k, n))
    x = np.arange(3 * max(n, 1), dtype=np.float32).reshape(3, -1)
    _sweep(jax, oracle, lambda lib, k: lib.random.permutation(k, x, axis=1))
    _sweep(jax, oracle, lambda lib, k: lib.random.permutation(k, x, 1, True))


@pytest.mark.spec("RNG-55")
@BOTH_MODES
def test_choice_sweep(jax, oracle, partitionable):
    a = np.arange(20, dtype=np.int32).reshape(4, 5)
    p = np.array([.1, .2, .3, .15, .25], np.float32)
    _sweep(jax, oracle, lambda lib, k: lib.random.choice(k, 7, (3, 2)))
    _sweep(jax, oracle, lambda lib, k: lib.random.choice(k, 7, (5,), replace=False))
    _sweep(jax, oracle, lambda lib, k: lib.random.choice(k, a, (2,), axis=1))
    _sweep(jax, oracle, lambda lib, k: lib.random.choice(k, a, (3,), False, axis=1))
    _sweep(jax, oracle, lambda lib, k: lib.random.choice(k, 5, (6,), p=p))
    _sweep(jax, oracle, lambda lib, k: lib.random.choice(k, a, (3,), False, p, axis=1))


@pytest.mark.spec("RNG-57")
@BOTH_MODES
def test_poisson_sweep(jax, oracle, partitionable):
    """Rates on both sides of the Knuth / rejection switch at 10."""
    lam = np.array([0.5, 9.99, 10.0, 1e4], np.float32)
    _sweep(jax, oracle, lambda lib, k: lib.random.poisson(k, lam, (2, 4)))


@pytest.mark.spec("RNG-57")
@BOTH_MODES
def test_poisson_mixed_rates_sweep(jax, oracle, partitionable):
    lam = np.array([[0., 1., 9.5, 12.], [30., 3., 200., 0.2]], np.float32)
    _sweep(jax, oracle, lambda lib, k: lib.random.poisson(k, lam, (3, 2, 4), "int16"))


@pytest.mark.spec("RNG-59")
@BOTH_MODES
def test_geometric_sweep(jax, oracle, partitionable):
    p = np.array([.01, .2, .5, .9], np.float32)
    _sweep(jax, oracle, lambda lib, k: lib.random.geometric(k, p))
    _sweep(jax, oracle, lambda lib, k: lib.random.geometric(k, 0.3, (2, 4), "int16"))


@pytest.mark.spec("RNG-60")
@BOTH_MODES
def test_binomial_sweep(jax, oracle, partitionable):
    n = np.array([[0., 3., 20., 40.], [100., 1000., 7.5, 25.]], np.float32)
    p = np.array([[.5, .1, .45, .9], [.3, .02, .6, .7]], np.float32)
    _sweep(jax, oracle, lambda lib, k: lib.random.binomial(k, n, p, (3, 2, 4)))


@pytest.mark.spec("RNG-62")
@BOTH_MODES
def test_multinomial_sweep(jax, oracle, partitionable):
    p = np.array([[.1, .2, .3, .4], [.5, 0., .25, .25]], np.float32)
    n = np.array([5., 200.], np.float32)
    _sweep(jax, oracle, lambda lib, k: lib.random.multinomial(k, n, p, shape=(3, 2, 4)))


@pytest.mark.spec("RNG-54")
def test_vmap_and_jit_agree_with_oracle(jax, oracle):
    """Batched keys through vmap and jit give the reference's values."""
    def fun(lib):
        keys = lib.random.split(lib.random.key(3), 4)
        perm = lib.vmap(lambda k: lib.random.permutation(k, 6))(keys)
        pois = lib.jit(lambda k: lib.random.poisson(k, 12.0, (5,)))(keys[0])
        return np.concatenate([np.asarray(perm).ravel(), np.asarray(pois)])
    assert_identical(*_both(jax, oracle, fun))


@pytest.mark.spec("RNG-64")
def test_x64_sweep(jax, oracle, x64):
    """With x64 on (both libraries), the default dtypes widen and the
    float64 paths agree too."""
    import refjax
    refjax.config.update("jax_enable_x64", True)
    try:
        p = np.array([.1, .2, .3, .4])
        _sweep(jax, oracle, lambda lib, k: lib.random.poisson(k, 7.0, (4,)))
        _sweep(jax, oracle, lambda lib, k: lib.random.geometric(k, .25, (4,)))
        _sweep(jax, oracle, lambda lib, k: lib.random.binomial(k, 30., .4, (4,)))
        _sweep(jax, oracle, lambda lib, k: lib.random.choice(k, 4, (3,), p=p))
        _sweep(jax, oracle, lambda lib, k: lib.random.categorical(k, np.log(p), shape=(3,)))
    finally:
        refjax.config.update("jax_enable_x64", False)


# -- dtypes and shapes ------------------------------------------------------------

@pytest.mark.spec("RNG-64")
def test_result_dtypes(jax, jnp):
    r, k = jax.random, jax.random.key(0)
    # eval_shape: dtypes and shapes without compiling each sampler.
    cases = [(jax.eval_shape(fun, k), dtype, shape) for fun, dtype, shape in [
        (lambda k: r.bernoulli(k), "bool", ()),
        (lambda k: r.bernoulli(k, jnp.float16(0.5), (2,)), "bool", (2,)),
        (lambda k: r.rademacher(k, (2,)), "int32", (2,)),
        (lambda k: r.rademacher(k, (2,), jnp.float32), "float32", (2,)),
        (lambda k: r.poisson(k, 3.), "int32", ()),
        (lambda k: r.poisson(k, 3, dtype=jnp.int8), "int8", ()),
        (lambda k: r.geometric(k, jnp.ones((2,)) * .5), "int32", (2,)),
        (lambda k: r.binomial(k, 5, 0.5), "float32", ()),
        (lambda k: r.binomial(k, 5, 0.5, dtype=jnp.float16), "float16", ()),
        (lambda k: r.multinomial(k, 5, jnp.array([.5, .5])), "float32", (2,)),
        (lambda k: r.categorical(k, jnp.zeros((2, 3))), "int32", (2,)),
        (lambda k: r.choice(k, 5), "int32", ()),
        (lambda k: r.choice(k, jnp.arange(5.)), "float32", ()),
        (lambda k: r.choice(k, 5, (0,)), "int32", (0,)),
        (lambda k: r.choice(k, jnp.arange(12).reshape(3, 4), (2, 2), axis=1), "int32", (3, 2, 2)),
        (lambda k: r.permutation(k, jnp.arange(5.)), "float32", (5,)),
        (lambda k: r.permutation(k, 0), "int32", (0,)),
    ]]
    for out, dtype, shape in cases:
        assert (str(out.dtype), out.shape) == (dtype, shape)


@pytest.mark.spec("RNG-64")
def test_x64_default_dtypes(jax, x64):
    r, k = jax.random, jax.random.key(0)
    funs = {np.int64: [lambda k: r.poisson(k, 3.), r.rademacher,
                       lambda k: r.geometric(k, .5),
                       lambda k: r.categorical(k, np.zeros(3))],
            np.float64: [lambda k: r.binomial(k, 5, .5)]}
    for dtype, group in funs.items():
        for fun in group:
            assert jax.eval_shape(fun, k).dtype == dtype


@pytest.mark.spec("RNG-58")
def test_poisson_zero_rate_and_raw_key(jax):
    r = jax.random
    out = np.asarray(r.poisson(r.key(1), np.zeros(5, np.float32)))
    assert out.tolist() == [0] * 5
    # A raw key gives the same numbers as the typed key it wraps.
    np.testing.assert_array_equal(np.asarray(r.poisson(r.PRNGKey(1), 4., (3,))),
                                  np.asarray(r.poisson(r.key(1), 4., (3,))))


@pytest.mark.spec("RNG-61")
def test_binomial_special_values(jax, jnp):
    r = jax.random
    out = np.asarray(r.binomial(r.key(2), jnp.array([np.nan, -1., np.inf, 10., 10., 4.]),
                                jnp.array([.5, .5, .5, np.nan, 1., 0.])))
    assert np.isnan(out[:2]).all() and np.isnan(out[3])
    assert out[2] == np.inf and out[4] == 10. and out[5] == 0.


# -- errors ------------------------------------------------------------------------

ERRORS = [
    (lambda r, k, jnp: r.choice(k, 3, (5,), replace=False), ValueError,
     "Cannot take a larger sample (size 5) than population (size 3) when 'replace=False'"),
    (lambda r, k, jnp: r.choice(k, 3, 5), TypeError,
     "shape argument of jax.random.choice must be a sequence, got 5"),
    (lambda r, k, jnp: r.choice(k, 0, (2,)), ValueError,
     "a must be greater than 0 unless no samples are taken"),
    (lambda r, k, jnp: r.choice(k, 5, (2,), p=jnp.ones(4) / 4), ValueError,
     "p must be None or a 1D vector with the same size as a.shape[axis]. "
     "p has shape (4,) and a.shape[axis] is 5."),
    (lambda r, k, jnp: r.bernoulli(k, 1), TypeError,
     "bernoulli probability `p` must have a floating dtype, got int32."),
    (lambda r, k, jnp: r.bernoulli(k, 0.5, mode="mid"), ValueError,
     "got mode='mid', expected 'high' or 'low'"),
    (lambda r, k, jnp: r.bernoulli(k, jnp.ones(3) * .5, shape=(2,)), ValueError,
     "Incompatible shapes for broadcasting: shapes=[(2,), (3,)]"),
    (lambda r, k, jnp: r.bernoulli(k, jnp.ones(3) * .5, shape=(2, 1)), ValueError,
     "bernoulli parameter shapes must be broadcast-compatible with shape argument, "
     "and the result of broadcasting the shapes must equal the shape argument, "
     "but got result (2, 3) for shape argument (2, 1)."),
    (lambda r, k, jnp: r.permutation(k, 2.5), TypeError,
     "x must be an integer or at least 1-dimensional"),
    (lambda r, k, jnp: r.geometric(k, 0.5, dtype=jnp.float32), ValueError,
     "dtype argument to `geometric` must be an int dtype, got float32"),
    (lambda r, k, jnp: r.binomial(k, 5, 0.5, dtype=jnp.int32), ValueError,
     "dtype argument to `binomial` must be a float dtype, got int32"),
    (lambda r, k, jnp: r.categorical(k, jnp.zeros((3,)), shape=(4,), replace=False),
     ValueError, "Number of samples without replacement (4) cannot exceed number "
     "of categories (3)."),
    (lambda r, k, jnp: r.categorical(k, jnp.zeros((3,), jnp.int32)), ValueError,
     "dtype argument to `gumbel` must be a float dtype, got int32"),
    (lambda r, k, jnp: r.categorical(k, jnp.zeros(3), mode="x"), ValueError,
     "Must provide valid mode for gumbel got: x"),
    (lambda r, k, jnp: r.bernoulli(r.split(k), 0.5), ValueError,
     "bernoulli accepts a single key, but was given a key array of shape (2,) != (). "
     "Use jax.vmap for batching."),
]


@pytest.mark.spec("RNG-56")
@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors(jax, jnp, case):
    fun, cls, message = ERRORS[case]
    with pytest.raises(cls) as info:
        fun(jax.random, jax.random.key(0), jnp)
    assert str(info.value).splitlines()[0] == message
