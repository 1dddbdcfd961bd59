"""Statistical sanity of the discrete samplers (SPEC RNG-50 .. RNG-62):
observed frequencies against the probability mass function by a chi-square
test, and means against the distribution's.

Seeds are fixed and both implementations give the same bits (RNG-50), so a
test passes or fails deterministically; the thresholds (chi-square p-value
above 1e-4, means within 5 standard errors) hold for the seeds used with
wide margins on both.
"""
import itertools
import math

import numpy as np
import pytest
from scipy import stats

N = 20000
MIN_P = 1e-4


def _chi_square(samples, pmf):
    """p-value of the samples' counts against ``pmf`` (a dict value ->
    probability); values outside it and bins expecting fewer than 5 are
    pooled into one bin."""
    samples = np.asarray(samples).ravel()
    values = sorted(pmf)
    observed = np.array([(samples == v).sum() for v in values], float)
    expected = np.array([pmf[v] for v in values]) * samples.size
    keep = expected >= 5
    rest_obs = samples.size - observed[keep].sum()
    rest_exp = samples.size - expected[keep].sum()
    observed = np.append(observed[keep], rest_obs)
    expected = np.append(expected[keep], rest_exp)
    if rest_exp < 5:
        observed, expected = observed[:-1], expected[:-1]
        expected *= observed.sum() / expected.sum()
    return stats.chisquare(observed, expected).pvalue


def _assert_fits(samples, pmf):
    assert _chi_square(samples, pmf) > MIN_P


def _assert_mean(samples, mean, var):
    samples = np.asarray(samples, float)
    assert abs(samples.mean() - mean) < 5 * math.sqrt(var / samples.size)


@pytest.mark.spec("RNG-51")
@pytest.mark.parametrize("mode", ["low", "high"])
def test_bernoulli_frequencies(jax, mode):
    x = jax.random.bernoulli(jax.random.key(11), 0.3, (N,), mode=mode)
    _assert_fits(np.asarray(x).astype(int), {0: 0.7, 1: 0.3})


@pytest.mark.spec("RNG-52")
def test_rademacher_frequencies(jax):
    x = jax.random.rademacher(jax.random.key(12), (N,))
    _assert_fits(x, {-1: 0.5, 1: 0.5})


@pytest.mark.spec("RNG-53")
def test_categorical_frequencies(jax):
    probs = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    x = jax.random.categorical(jax.random.key(13), np.log(probs), shape=(N,))
    _assert_fits(x, dict(enumerate(probs)))


@pytest.mark.spec("RNG-53")
def test_categorical_without_replacement_first_pick(jax):
    """The first of k draws without replacement follows softmax(logits)."""
    probs = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    logits = np.broadcast_to(np.log(probs), (N, 4))
    x = jax.random.categorical(jax.random.key(14), logits, shape=(2, N), replace=False)
    x = np.asarray(x)
    _assert_fits(x[0], dict(enumerate(probs)))
    assert (x[0] != x[1]).all()


@pytest.mark.spec("RNG-54")
def test_permutation_is_uniform_over_orders(jax):
    keys = jax.random.split(jax.random.key(15), 4800)
    perms = np.asarray(jax.vmap(lambda k: jax.random.permutation(k, 4))(keys))
    assert (np.sort(perms, axis=1) == np.arange(4)).all()
    codes = perms @ np.array([64, 16, 4, 1])
    orders = [sum(p * w for p, w in zip(perm, (64, 16, 4, 1)))
              for perm in itertools.permutations(range(4))]
    _assert_fits(codes, {c: 1 / 24 for c in orders})


@pytest.mark.spec("RNG-55")
def test_choice_frequencies(jax):
    p = np.array([0.05, 0.15, 0.3, 0.5], np.float32)
    with_p = jax.random.choice(jax.random.key(16), 4, (N,), p=p)
    _assert_fits(with_p, dict(enumerate(p)))
    uniform = jax.random.choice(jax.random.key(17), 7, (N,))
    _assert_fits(uniform, {i: 1 / 7 for i in range(7)})


@pytest.mark.spec("RNG-55")
def test_choice_without_replacement_positions(jax):
    """Each position of a sample without replacement is uniform, and the
    sample has no repeats."""
    keys = jax.random.split(jax.random.key(18), 3000)
    x = np.asarray(jax.vmap(lambda k: jax.random.choice(k, 6, (3,), replace=False))(keys))
    assert all(len(set(row)) == 3 for row in x)
    for position in range(3):
        _assert_fits(x[:, position], {i: 1 / 6 for i in range(6)})


@pytest.mark.spec("RNG-57")
@pytest.mark.parametrize("lam", [3.0, 30.0], ids=["knuth", "rejection"])
def test_poisson_frequencies(jax, lam):
    x = np.asarray(jax.random.poisson(jax.random.key(19), lam, (N,)))
    _assert_fits(x, {k: stats.poisson.pmf(k, lam) for k in range(int(4 * lam) + 10)})
    _assert_mean(x, lam, lam)


@pytest.mark.spec("RNG-59")
def test_geometric_frequencies(jax):
    p = 0.2
    x = np.asarray(jax.random.geometric(jax.random.key(20), p, (N,)))
    assert x.min() >= 1
    _assert_fits(x, {k: stats.geom.pmf(k, p) for k in range(1, 60)})
    _assert_mean(x, 1 / p, (1 - p) / p ** 2)


@pytest.mark.spec("RNG-60")
@pytest.mark.parametrize("n, p", [(10, 0.3), (100, 0.4), (60, 0.8)],
                         ids=["inversion", "btrs", "reflected"])
def test_binomial_frequencies(jax, n, p):
    x = np.asarray(jax.random.binomial(jax.random.key(21), n, p, (N,)))
    assert x.min() >= 0 and x.max() <= n
    _assert_fits(x, {k: stats.binom.pmf(k, n, p) for k in range(n + 1)})
    _assert_mean(x, n * p, n * p * (1 - p))


@pytest.mark.spec("RNG-62")
def test_multinomial_counts(jax):
    p = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    x = np.asarray(jax.random.multinomial(jax.random.key(22), 20., p, shape=(N // 4, 4)))
    assert (x.sum(axis=1) == 20).all()
    for j in range(4):
        _assert_fits(x[:, j], {k: stats.binom.pmf(k, 20, p[j]) for k in range(21)})
