"""Conformance: ``jax.scipy.stats``: discrete, multivariate and truncated
normal distributions (SPEC STA-4 .. STA-6).

Values are checked against ``scipy.stats`` in float64 on float32-rounded
inputs, and the support edges (``-inf``, 0, NaN) exactly; dtypes, weak
types, errors, derivatives (``check_grads``), ``jit`` and ``vmap`` are
checked on the implementation under test.
"""
import numpy as np
import pytest
import scipy.stats as sps

from conformance._stats_helpers import (  # noqa: F401 (stats is a fixture)
    check_against_scipy, close, f32, stats,
)

# ---------------------------------------------------------------------------
# STA-4: discrete distributions
# ---------------------------------------------------------------------------

K = [-1.0, 0.0, 1.0, 2.0, 3.0, 7.0]


DISCRETE = [
    ("bernoulli", "logpmf", sps.bernoulli.logpmf, (K, 0.3)),
    ("bernoulli", "cdf", sps.bernoulli.cdf, ([-1.0, 0.0, 0.5, 1.0, 2.0], 0.3)),
    ("bernoulli", "ppf", sps.bernoulli.ppf, ([0.1, 0.7, 0.9], 0.3)),
    ("binom", "logpmf", sps.binom.logpmf, (K, 5.0, 0.3)),
    ("betabinom", "logpmf", sps.betabinom.logpmf, (K, 5.0, 1.5, 2.5)),
    ("geom", "logpmf", sps.geom.logpmf, (K, 0.3)),
    ("nbinom", "logpmf", sps.nbinom.logpmf, (K, 4.0, 0.3)),
    ("poisson", "logpmf", sps.poisson.logpmf, (K + [2.5], 1.7)),
    ("poisson", "cdf", sps.poisson.cdf, (K, 1.7)),
]


@pytest.mark.spec("STA-4")
@pytest.mark.parametrize("module,fn,reference,args", DISCRETE,
                         ids=[f"{m}.{f}" for m, f, _, _ in DISCRETE])
def test_discrete_against_scipy(jax, stats, module, fn, reference, args):
    check_against_scipy(jax, stats, module, fn, reference, args)


@pytest.mark.spec("STA-4")
def test_poisson_entropy(jnp, stats):
    mu = f32([0.0, 0.5, 3.0, 25.0, 400.0])
    expected = [sps.poisson.entropy(m) for m in mu.astype(np.float64)]
    close(stats.poisson.entropy(mu), expected, rtol=1e-3, atol=1e-5)
    out = stats.poisson.entropy(jnp.ones((2, 1)), jnp.zeros(3))
    assert out.shape == (2, 3)


@pytest.mark.spec("STA-4")
def test_discrete_edges(stats):
    assert np.isnan(stats.bernoulli.cdf(f32([0.5]), 1.5)).all()
    assert np.isnan(stats.bernoulli.ppf(f32([1.5]), 0.5)).all()
    assert float(stats.binom.logpmf(0.0, 0.0, 0.3)) == 0.0
    assert float(stats.betabinom.logpmf(0.0, 0.0, 1.0, 1.0)) == 0.0
    assert np.isnan(stats.betabinom.logpmf(1.0, 3.0, -1.0, 1.0))
    assert float(stats.geom.logpmf(0.0, 0.5)) == -np.inf
    assert float(stats.poisson.cdf(-1.0, 2.0)) == 0.0


# ---------------------------------------------------------------------------
# STA-5: multivariate distributions
# ---------------------------------------------------------------------------

COV = np.array([[2.0, 0.5], [0.5, 1.0]], np.float32)


@pytest.mark.spec("STA-5")
def test_multivariate_normal(jnp, stats):
    x = f32([[1.0, 2.0], [0.0, -1.0]])
    mean = f32([0.0, 1.0])
    close(stats.multivariate_normal.logpdf(x, mean, COV),
          sps.multivariate_normal.logpdf(x, mean, COV))
    close(stats.multivariate_normal.pdf(x, mean, 2.0),
          sps.multivariate_normal.pdf(x, mean, 2.0 * np.eye(2)))
    close(stats.multivariate_normal.logpdf(f32(1.0), 0.5, 2.0),
          sps.norm.logpdf(1.0, 0.5, np.sqrt(2.0)))
    with pytest.raises(ValueError, match="incompatible shapes"):
        stats.multivariate_normal.logpdf(x, mean, jnp.eye(3))
    with pytest.raises(NotImplementedError):
        stats.multivariate_normal.logpdf(x, mean, COV, allow_singular=True)


@pytest.mark.spec("STA-5")
def test_dirichlet_and_multinomial(jnp, stats):
    alpha = f32([1.5, 2.0, 3.0])
    x = f32([0.2, 0.3, 0.5])
    on_simplex = x.astype(np.float64) / x.astype(np.float64).sum()
    close(stats.dirichlet.logpdf(x, alpha), sps.dirichlet.logpdf(on_simplex, alpha))
    close(stats.dirichlet.logpdf(x[:2], alpha), sps.dirichlet.logpdf(on_simplex, alpha))
    assert float(stats.dirichlet.logpdf(f32([0.6, 0.6, 0.1]), alpha)) == -np.inf
    with pytest.raises(ValueError):
        stats.dirichlet.logpdf(x, alpha[None])
    with pytest.raises(ValueError):
        stats.dirichlet.logpdf(x[:1], alpha)
    counts = jnp.array([1, 2, 0])
    p = f32([0.2, 0.5, 0.3])
    close(stats.multinomial.logpmf(counts, 3, p), sps.multinomial.logpmf([1, 2, 0], 3, p))
    assert float(stats.multinomial.logpmf(counts, 4, p)) == -np.inf
    with pytest.raises(ValueError, match="integer"):
        stats.multinomial.logpmf(jnp.array([1.0, 2.0, 0.0]), 3, p)


# ---------------------------------------------------------------------------
# STA-6: truncnorm
# ---------------------------------------------------------------------------

@pytest.mark.spec("STA-6")
def test_truncnorm_against_scipy(stats):
    # Three intervals at once (columns): around 0, right tail, left tail.
    a = np.array([-1.0, 1.5, -6.0])
    b = np.array([2.0, 4.0, -4.5])
    lo, hi = a * 1.5 + 0.25, b * 1.5 + 0.25
    xs = np.stack([lo + (hi - lo) * t for t in (0.25, 0.5, 0.75)] + [lo - 1.0, hi + 1.0])
    for fn in ("logpdf", "logcdf", "logsf", "cdf", "sf"):
        got = getattr(stats.truncnorm, fn)(f32(xs), f32(a), f32(b), 0.25, 1.5)
        want = getattr(sps.truncnorm, fn)(f32(xs).astype(np.float64), f32(a), f32(b), 0.25, 1.5)
        close(got, want, rtol=2e-3, atol=1e-5)


@pytest.mark.spec("STA-6")
def test_truncnorm_invalid_interval(stats):
    assert np.isnan(stats.truncnorm.logpdf(f32([0.5]), 1.0, 1.0)).all()
    assert np.isnan(stats.truncnorm.cdf(f32([0.5]), 2.0, 1.0)).all()
