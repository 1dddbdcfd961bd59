"""Conformance: ``jax.scipy.stats``: names, promotion and the univariate
continuous distributions (SPEC STA-1 .. STA-3).

Values are checked against ``scipy.stats`` in float64 on float32-rounded
inputs, and the support edges (``-inf``, 0, NaN) exactly; dtypes, weak
types, errors, derivatives (``check_grads``), ``jit`` and ``vmap`` are
checked on the implementation under test.
"""
import importlib

import numpy as np
import pytest
import scipy.stats as sps

from conformance._stats_helpers import (  # noqa: F401 (stats is a fixture)
    check_against_scipy, close, f32, stats,
)

MODULE_FUNCTIONS = {
    "bernoulli": "cdf logpmf pmf ppf", "beta": "cdf logcdf logpdf logsf pdf sf",
    "betabinom": "logpmf pmf", "binom": "logpmf pmf",
    "cauchy": "cdf isf logcdf logpdf logsf pdf ppf sf",
    "chi2": "cdf logcdf logpdf logsf pdf sf", "dirichlet": "logpdf pdf",
    "expon": "cdf logcdf logpdf logsf pdf ppf sf", "gamma": "cdf logcdf logpdf logsf pdf sf",
    "gennorm": "cdf logpdf pdf", "geom": "logpmf pmf",
    "gumbel_l": "cdf logcdf logpdf logsf pdf ppf sf",
    "gumbel_r": "cdf logcdf logpdf logsf pdf ppf sf", "laplace": "cdf logpdf pdf",
    "logistic": "cdf isf logpdf pdf ppf sf", "multinomial": "logpmf pmf",
    "multivariate_normal": "logpdf pdf", "nbinom": "logpmf pmf",
    "norm": "cdf isf logcdf logpdf logsf pdf ppf sf",
    "pareto": "cdf logcdf logpdf logsf pdf ppf sf", "poisson": "cdf entropy logpmf pmf",
    "t": "logpdf pdf", "truncnorm": "cdf logcdf logpdf logsf pdf sf",
    "uniform": "cdf logpdf pdf ppf", "vonmises": "logpdf pdf", "wrapcauchy": "logpdf pdf",
}


# ---------------------------------------------------------------------------
# STA-1: names and promotion
# ---------------------------------------------------------------------------

@pytest.mark.spec("STA-1")
def test_public_names(jax, stats):
    names = {n for n in dir(stats) if not n.startswith("_")}
    assert names == set(MODULE_FUNCTIONS) | {"gaussian_kde", "mode", "rankdata", "sem"}
    for module, functions in MODULE_FUNCTIONS.items():
        mod = importlib.import_module(f"{jax.__name__}.scipy.stats.{module}")
        assert {n for n in dir(mod) if not n.startswith("_")} == set(functions.split())


@pytest.mark.spec("STA-1")
def test_promotion_and_weak_types(jax, jnp, stats):
    weak = stats.norm.logpdf(1.0)
    assert weak.dtype == np.float32 and weak.weak_type
    from_ints = stats.norm.logpdf(jnp.arange(3))
    assert from_ints.dtype == np.float32 and not from_ints.weak_type
    assert stats.expon.logpdf(jnp.float16(1.0)).dtype == np.float16
    assert stats.gamma.logpdf(jnp.ones(2, jnp.bfloat16), 2.0).dtype == jnp.bfloat16
    assert stats.norm.logpdf(jnp.ones((2, 1)), jnp.zeros(3)).shape == (2, 3)
    assert float(stats.norm.logpdf(2**70)) == -np.inf
    with pytest.raises(TypeError):
        stats.norm.logpdf([0.5, 1.0])
    with pytest.raises(TypeError):
        stats.norm.cdf(jnp.float16(1.0))       # ndtr is float32/float64 only


@pytest.mark.spec("STA-1")
def test_x64_promotion(jax, jnp, stats, x64):
    assert stats.norm.logpdf(jnp.arange(3)).dtype == np.float64
    assert stats.poisson.logpmf(2, 1.5).dtype == np.float64
    assert stats.norm.logpdf(jnp.float32(1.0)).dtype == np.float32


# ---------------------------------------------------------------------------
# STA-2: location-scale families
# ---------------------------------------------------------------------------

X = [-3.0, -0.7, 0.0, 0.4, 1.3, 4.0]
Q = [0.001, 0.2, 0.5, 0.9, 0.999]

LOCATION_SCALE = [
    ("norm", "logpdf", sps.norm.logpdf, X), ("norm", "cdf", sps.norm.cdf, X),
    ("norm", "logcdf", sps.norm.logcdf, X + [-30.0]), ("norm", "sf", sps.norm.sf, X),
    ("norm", "logsf", sps.norm.logsf, X + [30.0]), ("norm", "ppf", sps.norm.ppf, Q),
    ("norm", "isf", sps.norm.isf, Q),
    ("cauchy", "logpdf", sps.cauchy.logpdf, X), ("cauchy", "cdf", sps.cauchy.cdf, X),
    ("cauchy", "logsf", sps.cauchy.logsf, X), ("cauchy", "ppf", sps.cauchy.ppf, Q),
    ("cauchy", "isf", sps.cauchy.isf, Q),
    ("laplace", "logpdf", sps.laplace.logpdf, X), ("laplace", "cdf", sps.laplace.cdf, X),
    ("logistic", "logpdf", sps.logistic.logpdf, X + [80.0]),
    ("logistic", "cdf", sps.logistic.cdf, X), ("logistic", "sf", sps.logistic.sf, X),
    ("logistic", "ppf", sps.logistic.ppf, Q), ("logistic", "isf", sps.logistic.isf, Q),
    ("uniform", "logpdf", sps.uniform.logpdf, X), ("uniform", "cdf", sps.uniform.cdf, X),
    ("uniform", "ppf", sps.uniform.ppf, Q),
    ("expon", "logpdf", sps.expon.logpdf, X), ("expon", "cdf", sps.expon.cdf, X),
    ("expon", "logsf", sps.expon.logsf, X), ("expon", "logcdf", sps.expon.logcdf, X[3:]),
    ("expon", "ppf", sps.expon.ppf, Q),
    ("gumbel_r", "logpdf", sps.gumbel_r.logpdf, X), ("gumbel_r", "logcdf", sps.gumbel_r.logcdf, X),
    ("gumbel_r", "logsf", sps.gumbel_r.logsf, X), ("gumbel_r", "ppf", sps.gumbel_r.ppf, Q),
    ("gumbel_l", "logpdf", sps.gumbel_l.logpdf, X), ("gumbel_l", "logcdf", sps.gumbel_l.logcdf, X),
    ("gumbel_l", "sf", sps.gumbel_l.sf, X), ("gumbel_l", "ppf", sps.gumbel_l.ppf, Q),
]


@pytest.mark.spec("STA-2")
@pytest.mark.parametrize("module,fn,reference,xs", LOCATION_SCALE,
                         ids=[f"{m}.{f}" for m, f, _, _ in LOCATION_SCALE])
def test_location_scale_against_scipy(jax, stats, module, fn, reference, xs):
    loc, scale = 0.25, 1.5
    check_against_scipy(jax, stats, module, fn, lambda x, l, s: reference(x, l, s),
                        (xs, loc, scale))


@pytest.mark.spec("STA-2")
def test_location_scale_edges(jnp, stats):
    assert list(stats.uniform.logpdf(f32([-0.5, 1.5]))) == [-np.inf, -np.inf]
    # NaN is in no case of uniform.cdf's select: 0, unlike SciPy.
    assert float(stats.uniform.cdf(np.nan)) == 0.0
    assert not stats.uniform.cdf(0.5).weak_type
    assert list(stats.expon.cdf(f32([-1.0]))) == [0.0]
    assert list(stats.expon.logpdf(f32([-1.0]))) == [-np.inf]
    for module in ("expon", "uniform"):
        assert np.isnan(getattr(stats, module).ppf(f32([-0.1, 1.1, np.nan]))).all()
    for module in ("gumbel_l", "gumbel_r"):
        mod = getattr(stats, module)
        assert np.isnan(mod.ppf(f32([0.0, 1.0]))).all()
        assert np.isnan(mod.logpdf(f32([0.5]), 0.0, -1.0)).all()
    assert stats.logistic.ppf(0.0) == -np.inf and stats.logistic.ppf(1.0) == np.inf
    assert np.isnan(stats.logistic.ppf(1.5))


@pytest.mark.spec("STA-2")
def test_norm_ppf_dtype(jnp, stats, x64):
    # asarray(..., float): the default float dtype, even for float32 q.
    out = stats.norm.ppf(jnp.float32(0.3))
    assert out.dtype == np.float64 and not out.weak_type
    close(out, sps.norm.ppf(np.float64(np.float32(0.3))), rtol=1e-6)
    with pytest.raises(TypeError):
        stats.norm.ppf(jnp.arange(2))


# ---------------------------------------------------------------------------
# STA-3: shape families
# ---------------------------------------------------------------------------

POS = [0.05, 0.3, 0.8, 1.7, 4.5]

SHAPE = [
    ("beta", "logpdf", lambda x: sps.beta.logpdf(x, 2.5, 1.5), [0.05, 0.3, 0.8, 0.95],
     (2.5, 1.5)),
    ("beta", "cdf", lambda x: sps.beta.cdf(x, 2.5, 1.5), [-0.5, 0.3, 0.8, 1.5], (2.5, 1.5)),
    ("beta", "sf", lambda x: sps.beta.sf(x, 2.5, 1.5), [-0.5, 0.3, 0.8, 1.5], (2.5, 1.5)),
    ("chi2", "logpdf", lambda x: sps.chi2.logpdf(x, 3.0), POS, (3.0,)),
    ("chi2", "cdf", lambda x: sps.chi2.cdf(x, 3.0), [-1.0] + POS, (3.0,)),
    ("chi2", "sf", lambda x: sps.chi2.sf(x, 3.0), POS, (3.0,)),
    ("gamma", "logpdf", lambda x: sps.gamma.logpdf(x, 2.5), [-1.0] + POS, (2.5,)),
    ("gamma", "cdf", lambda x: sps.gamma.cdf(x, 2.5), [-1.0] + POS, (2.5,)),
    ("gamma", "sf", lambda x: sps.gamma.sf(x, 2.5), [-1.0] + POS, (2.5,)),
    ("pareto", "logpdf", lambda x: sps.pareto.logpdf(x, 2.5), [0.5, 1.0, 1.7, 4.5], (2.5,)),
    ("pareto", "cdf", lambda x: sps.pareto.cdf(x, 2.5), [0.5, 1.0, 1.7, 4.5], (2.5,)),
    ("pareto", "logsf", lambda x: sps.pareto.logsf(x, 2.5), [0.5, 1.0, 1.7, 4.5], (2.5,)),
    ("pareto", "ppf", lambda q: sps.pareto.ppf(q, 2.5), Q, (2.5,)),
    ("t", "logpdf", lambda x: sps.t.logpdf(x, 3.5), X, (3.5,)),
    ("gennorm", "logpdf", lambda x: sps.gennorm.logpdf(x, 1.5), X, (1.5,)),
    ("gennorm", "cdf", lambda x: sps.gennorm.cdf(x, 1.5), X, (1.5,)),
    ("vonmises", "logpdf", lambda x: sps.vonmises.logpdf(x, 2.0), X, (2.0,)),
    ("wrapcauchy", "logpdf", lambda x: sps.wrapcauchy.logpdf(x, 0.4), [0.0, 1.0, 3.0, 6.0],
     (0.4,)),
]


@pytest.mark.spec("STA-3")
@pytest.mark.parametrize("module,fn,reference,xs,params", SHAPE,
                         ids=[f"{m}.{f}" for m, f, *_ in SHAPE])
def test_shape_families_against_scipy(jax, stats, module, fn, reference, xs, params):
    check_against_scipy(jax, stats, module, fn, lambda x, *p: reference(x), (xs, *params))


@pytest.mark.spec("STA-3")
def test_shape_family_edges(stats):
    assert list(stats.beta.logpdf(f32([-0.1, 1.1]), 2.0, 2.0)) == [-np.inf, -np.inf]
    assert np.isnan(stats.beta.logpdf(f32([0.5]), -1.0, 2.0)).all()
    assert list(stats.gamma.sf(f32([-1.0]), 2.0)) == [1.0]
    assert list(stats.pareto.logcdf(f32([0.5]), 2.0)) == [-np.inf]
    assert list(stats.pareto.logsf(f32([0.5]), 2.0)) == [0.0]
    assert np.isnan(stats.vonmises.logpdf(f32([0.5]), 0.0)).all()
    assert list(stats.wrapcauchy.logpdf(f32([-0.1, 7.0]), 0.5)) == [-np.inf, -np.inf]
    assert np.isnan(stats.wrapcauchy.logpdf(f32([1.0]), 1.0)).all()
    close(stats.chi2.logpdf(f32([2.5]), 3.0, 0.5, 2.0), sps.chi2.logpdf(2.5, 3.0, 0.5, 2.0))
