"""Statistical sanity of the continuous samplers (SPEC RNG-49).

Each sampler draws N values from one fixed key; the sample mean and
variance must lie within 6 standard errors of the analytic ones (the
variance's standard error from the kurtosis), and the Kolmogorov-Smirnov
distance to the analytic CDF (scipy.stats) must stay under 1.95 / sqrt(N),
the 0.1% critical value.  The keys are fixed and refjax and JAX draw the
same bits, so the verdicts are deterministic on both implementations.
"""
import numpy as np
import pytest
from scipy import stats

N = 4000
KS_LIMIT = 1.95 / np.sqrt(N)

# name: (draw(random, key) -> samples, scipy distribution or None, moments?)
CASES = {
    "exponential": (lambda r, k: r.exponential(k, (N,)), stats.expon(), True),
    "laplace": (lambda r, k: r.laplace(k, (N,)), stats.laplace(), True),
    "logistic": (lambda r, k: r.logistic(k, (N,)), stats.logistic(), True),
    "cauchy": (lambda r, k: r.cauchy(k, (N,)), stats.cauchy(), False),
    "gumbel": (lambda r, k: r.gumbel(k, (N,)), stats.gumbel_r(), True),
    "gumbel_highest": (lambda r, k: r.gumbel(k, (N,), mode="highest"), stats.gumbel_r(), True),
    "truncated_normal": (lambda r, k: r.truncated_normal(k, -1.0, 2.0, (N,)),
                         stats.truncnorm(-1.0, 2.0), True),
    "lognormal": (lambda r, k: r.lognormal(k, 0.5, (N,)), stats.lognorm(0.5), True),
    "maxwell": (lambda r, k: r.maxwell(k, (N,)), stats.maxwell(), True),
    "pareto": (lambda r, k: r.pareto(k, 5.0, (N,)), stats.pareto(5.0), True),
    "weibull_min": (lambda r, k: r.weibull_min(k, 1.5, 2.0, (N,)),
                    stats.weibull_min(2.0, scale=1.5), True),
    "rayleigh": (lambda r, k: r.rayleigh(k, 2.0, (N,)), stats.rayleigh(scale=2.0), True),
    "wald": (lambda r, k: r.wald(k, 1.5, (N,)), stats.invgauss(1.5), True),
    "triangular": (lambda r, k: r.triangular(k, 0.0, 0.3, 1.0, (N,)), stats.triang(0.3), True),
    "gamma_small": (lambda r, k: r.gamma(k, 0.5, (N,)), stats.gamma(0.5), True),
    "gamma": (lambda r, k: r.gamma(k, 2.5, (N,)), stats.gamma(2.5), True),
    "loggamma": (lambda r, k: np.exp(np.asarray(r.loggamma(k, 0.7, (N,)))),
                 stats.gamma(0.7), True),
    "beta": (lambda r, k: r.beta(k, 0.8, 2.0, (N,)), stats.beta(0.8, 2.0), True),
    "dirichlet": (lambda r, k: np.asarray(r.dirichlet(k, np.array([0.5, 1.0, 3.0]), (N,)))[:, 0],
                  stats.beta(0.5, 4.0), True),
    "t": (lambda r, k: r.t(k, 6.0, (N,)), stats.t(6.0), True),
    "chisquare": (lambda r, k: r.chisquare(k, 3.0, (N,)), stats.chi2(3.0), True),
    "f": (lambda r, k: r.f(k, 3.0, 12.0, (N,)), stats.f(3.0, 12.0), True),
    "generalized_normal": (lambda r, k: r.generalized_normal(k, 1.5, (N,)),
                           stats.gennorm(1.5), True),
}


def _moment_errors(x, dist):
    """(mean error, variance error) in standard errors."""
    mean, var, _, kurt = (float(v) for v in dist.stats(moments="mvsk"))
    se_mean = np.sqrt(var / len(x))
    se_var = var * np.sqrt((kurt + 2) / len(x))
    return abs(x.mean() - mean) / se_mean, abs(x.var() - var) / se_var


def _ks(x, cdf):
    """The Kolmogorov-Smirnov distance between the sample and ``cdf``."""
    x = np.sort(x)
    c = cdf(x)
    i = np.arange(1, len(x) + 1)
    return max((i / len(x) - c).max(), (c - (i - 1) / len(x)).max())


@pytest.mark.spec("RNG-49")
@pytest.mark.parametrize("name", sorted(CASES))
def test_moments_and_cdf(jax, name):
    draw, dist, moments = CASES[name]
    x = np.asarray(draw(jax.random, jax.random.PRNGKey(2024)), np.float64)
    assert x.shape == (N,) and np.isfinite(x).all()
    if moments:
        mean_err, var_err = _moment_errors(x, dist)
        assert mean_err < 6 and var_err < 6, (mean_err, var_err)
    else:   # Cauchy has no moments: its median is 0, quartiles -1 and 1.
        assert abs(np.median(x)) < 0.1
    assert _ks(x, dist.cdf) < KS_LIMIT


@pytest.mark.spec("RNG-49")
def test_double_sided_maxwell(jax):
    """Symmetric about ``loc``; ``|x - loc| / scale`` is Maxwell."""
    x = np.asarray(jax.random.double_sided_maxwell(jax.random.PRNGKey(3), 1.0, 2.0, (N,)),
                   np.float64)
    assert abs((x > 1.0).mean() - 0.5) < 6 * 0.5 / np.sqrt(N)
    assert _ks(np.abs(x - 1.0) / 2.0, stats.maxwell.cdf) < KS_LIMIT
    # var = scale^2 E[M^2] = 12; E[(x - loc)^4] = scale^4 E[M^4] = 240.
    assert abs(x.var() - 12.0) < 6 * np.sqrt((240.0 - 144.0) / N)


@pytest.mark.spec("RNG-49")
@pytest.mark.parametrize("method", ["cholesky", "svd", "eigh"])
def test_multivariate_normal_covariance(jax, method):
    cov = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 1.5]], np.float32)
    mean = np.array([1.0, -1.0, 0.0], np.float32)
    x = np.asarray(jax.random.multivariate_normal(jax.random.PRNGKey(4), mean, cov, (N,),
                                                  method=method), np.float64)
    se = np.sqrt(np.diag(cov) / N)
    assert (np.abs(x.mean(0) - mean) < 6 * se).all()
    # Entry (i, j) of the sample covariance has variance (s_ij^2 + s_ii s_jj) / N.
    se_cov = np.sqrt((cov ** 2 + np.outer(np.diag(cov), np.diag(cov))) / N)
    assert (np.abs(np.cov(x.T) - cov) < 6 * se_cov).all()


@pytest.mark.spec("RNG-49")
def test_orthogonal_is_orthogonal_and_haar(jax):
    q = np.asarray(jax.random.orthogonal(jax.random.PRNGKey(5), 3, (500,)), np.float64)
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(3), q.shape),
                               atol=1e-5)
    # Haar measure: each entry is symmetric with variance 1/n, det is +-1 evenly.
    assert abs(q[:, 0, 0].mean()) < 6 * np.sqrt(1 / 3 / 500)
    assert abs((q[:, 0, 0] ** 2).mean() - 1 / 3) < 0.05
    assert abs((np.linalg.det(q) > 0).mean() - 0.5) < 6 * 0.5 / np.sqrt(500)


@pytest.mark.spec("RNG-49")
def test_ball_radius(jax):
    """Uniform in the unit 2-ball of dimension 3: the radius has CDF r**3."""
    x = np.asarray(jax.random.ball(jax.random.PRNGKey(6), 3, 2, (N,)), np.float64)
    r = np.linalg.norm(x, axis=-1)
    assert r.max() < 1
    assert _ks(r, lambda v: v ** 3) < KS_LIMIT
