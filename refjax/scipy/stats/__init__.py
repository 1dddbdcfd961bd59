"""``refjax.scipy.stats``: probability distributions and statistics, as
``jax.scipy.stats`` (SPEC STA-1).

Each distribution is a submodule of functions (``norm.logpdf``, ...);
``gaussian_kde``, ``mode``, ``rankdata`` and ``sem`` are names of the package.
"""
from refjax._src.scipy.stats._core import mode, rankdata, sem  # noqa: F401
from refjax._src.scipy.stats.kde import gaussian_kde  # noqa: F401
from refjax.scipy.stats import bernoulli as bernoulli  # noqa: F401
from refjax.scipy.stats import beta as beta  # noqa: F401
from refjax.scipy.stats import betabinom as betabinom  # noqa: F401
from refjax.scipy.stats import binom as binom  # noqa: F401
from refjax.scipy.stats import cauchy as cauchy  # noqa: F401
from refjax.scipy.stats import chi2 as chi2  # noqa: F401
from refjax.scipy.stats import dirichlet as dirichlet  # noqa: F401
from refjax.scipy.stats import expon as expon  # noqa: F401
from refjax.scipy.stats import gamma as gamma  # noqa: F401
from refjax.scipy.stats import gennorm as gennorm  # noqa: F401
from refjax.scipy.stats import geom as geom  # noqa: F401
from refjax.scipy.stats import gumbel_l as gumbel_l  # noqa: F401
from refjax.scipy.stats import gumbel_r as gumbel_r  # noqa: F401
from refjax.scipy.stats import laplace as laplace  # noqa: F401
from refjax.scipy.stats import logistic as logistic  # noqa: F401
from refjax.scipy.stats import multinomial as multinomial  # noqa: F401
from refjax.scipy.stats import multivariate_normal as multivariate_normal  # noqa: F401
from refjax.scipy.stats import nbinom as nbinom  # noqa: F401
from refjax.scipy.stats import norm as norm  # noqa: F401
from refjax.scipy.stats import pareto as pareto  # noqa: F401
from refjax.scipy.stats import poisson as poisson  # noqa: F401
from refjax.scipy.stats import t as t  # noqa: F401
from refjax.scipy.stats import truncnorm as truncnorm  # noqa: F401
from refjax.scipy.stats import uniform as uniform  # noqa: F401
from refjax.scipy.stats import vonmises as vonmises  # noqa: F401
from refjax.scipy.stats import wrapcauchy as wrapcauchy  # noqa: F401

__all__ = [
    "bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon",
    "gamma", "gaussian_kde", "gennorm", "geom", "gumbel_l", "gumbel_r", "laplace",
    "logistic", "mode", "multinomial", "multivariate_normal", "nbinom", "norm",
    "pareto", "poisson", "rankdata", "sem", "t", "truncnorm", "uniform", "vonmises",
    "wrapcauchy",
]
