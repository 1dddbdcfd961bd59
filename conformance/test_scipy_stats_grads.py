"""Conformance: ``jax.scipy.stats``: derivatives, ``jit`` and ``vmap``
(SPEC STA-9).

Derivatives are checked numerically (``check_grads``); ``jit`` and ``vmap``
against direct calls and loops.
"""

import numpy as np
import pytest

from conformance._stats_helpers import (  # noqa: F401 (stats is a fixture)
    close, f32, stats,
)


# ---------------------------------------------------------------------------
# STA-9: derivatives, jit and vmap
# ---------------------------------------------------------------------------

COV = np.array([[2.0, 0.5], [0.5, 1.0]], np.float32)

GRAD_CASES = [
    ("norm", "logpdf", (0.3, 0.1, 1.5)), ("norm", "logcdf", (-2.0, 0.1, 1.5)),
    ("cauchy", "cdf", (0.3, 0.1, 1.5)), ("logistic", "logpdf", (0.3, 0.1, 1.5)),
    ("gumbel_r", "logsf", (0.3, 0.1, 1.5)), ("beta", "logpdf", (0.3, 2.0, 3.0)),
    ("gamma", "logpdf", (0.7, 3.0)), ("t", "logpdf", (0.7, 3.0)),
    ("poisson", "logpmf", (2.0, 1.3)), ("binom", "logpmf", (2.0, 5.0, 0.3)),
    ("truncnorm", "logpdf", (0.3, -1.0, 2.0)),
]


@pytest.mark.spec("STA-9")
@pytest.mark.parametrize("module,fn,args", GRAD_CASES, ids=[f"{m}.{f}" for m, f, _ in GRAD_CASES])
def test_grads(test_util, stats, module, fn, args):
    from_module = getattr(getattr(stats, module), fn)
    if module in ("poisson", "binom"):
        # Only the continuous parameters are differentiated.
        k, *rest = args
        test_util.check_grads(lambda *p: from_module(k, *p), rest, order=1,
                                  modes=["rev"], atol=5e-2, rtol=5e-2)
        return
    test_util.check_grads(from_module, args, order=1, modes=["fwd", "rev"],
                              atol=5e-2, rtol=5e-2)


@pytest.mark.spec("STA-9")
def test_multivariate_grads(test_util, stats):
    x, mean = f32([1.0, 2.0]), f32([0.0, 1.0])
    test_util.check_grads(lambda m: stats.multivariate_normal.logpdf(x, m, COV), (mean,),
                              order=1, modes=["rev"], atol=5e-2, rtol=5e-2)
    data = f32([1.0, 2.0, 4.0, 5.5])
    test_util.check_grads(lambda d: stats.gaussian_kde(d).logpdf(f32([1.0, 3.0])).sum(),
                              (data,), order=1, modes=["rev"], atol=5e-2, rtol=5e-2)


@pytest.mark.spec("STA-9")
def test_jit_and_vmap(jax, jnp, stats):
    x = f32([-1.0, 0.5, 2.0])
    scale = f32([0.5, 1.0, 2.0])
    direct = stats.norm.logpdf(x, 0.0, scale)
    close(jax.jit(stats.norm.logpdf)(x, 0.0, scale), direct, rtol=1e-6)
    mapped = jax.vmap(lambda a, s: stats.norm.logpdf(a, 0.0, s))(x, scale)
    close(mapped, direct, rtol=1e-6)
    loop = [float(stats.truncnorm.logcdf(v, -1.0, 1.5)) for v in x]
    close(jax.vmap(lambda v: stats.truncnorm.logcdf(v, -1.0, 1.5))(x), loop, rtol=1e-6)
    rows = f32([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]])
    np.testing.assert_array_equal(jax.vmap(stats.rankdata)(rows),
                                  np.stack([stats.rankdata(r) for r in rows]))
    np.testing.assert_array_equal(jax.vmap(lambda r: stats.mode(r).mode)(rows),
                                  [stats.mode(r).mode for r in rows])
