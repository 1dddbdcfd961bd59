"""``jax.random``: explicit PRNG keys and samplers (SPEC RNG-1 .. RNG-23)."""
# The key-reuse checker installs its hooks into dispatch and jit on import.
from refjax._src.random import key_reuse as _key_reuse  # noqa: F401
from refjax._src.random.basic import (  # noqa: F401
    KeyArray, PRNGKey, bits, clone, fold_in, key, key_data, key_impl, normal,
    randint, split, uniform, wrap_key_data,
)
from refjax._src.random.continuous import (  # noqa: F401
    ball, beta, cauchy, chisquare, dirichlet, double_sided_maxwell, exponential, f,
    gamma, generalized_normal, gumbel, laplace, loggamma, logistic, lognormal, maxwell,
    multivariate_normal, orthogonal, pareto, rayleigh, t, triangular, truncated_normal,
    wald, weibull_min,
)
from refjax._src.random.discrete import (  # noqa: F401
    bernoulli, binomial, categorical, choice, geometric, multinomial, permutation,
    poisson, rademacher,
)
from refjax._src.random.basic import key_dtype  # noqa: F401
from refjax._src.random.continuous import random_gamma_p  # noqa: F401
