"""Conformance: ``jax.scipy.optimize.minimize`` (SPEC SOP-1 .. SOP-6).

Minimizers are compared with SciPy's (float64) on small smooth problems;
the line search is checked through the strong Wolfe conditions its first
step must meet.
"""
import importlib

import numpy as np
import pytest
import scipy.optimize

BFGS, LBFGS = "BFGS", "l-bfgs-experimental-do-not-rely-on-this"


@pytest.fixture(scope="module")
def O(jax):
    return importlib.import_module(jax.__name__ + ".scipy.optimize")


def rosenbrock(np_):
    return lambda x: np_.sum(100. * np_.diff(x) ** 2 + (1. - x[:-1]) ** 2)


def himmelblau(p):
    x, y = p[0], p[1]
    return (x ** 2 + y - 11.) ** 2 + (x + y ** 2 - 7.) ** 2


@pytest.mark.spec("SOP-1")
def test_minimize_arguments(jnp, O):
    f = rosenbrock(jnp)
    with pytest.raises(TypeError, match="must be a tuple"):
        O.minimize(f, jnp.zeros(2), args=45, method=BFGS)
    with pytest.raises(ValueError, match="not recognized"):
        O.minimize(f, jnp.zeros(2), method="Nelder-Mead")
    with pytest.raises(TypeError, match="unexpected keyword"):
        O.minimize(f, jnp.zeros(2), method=BFGS, options=dict(foo=1))
    with pytest.raises(TypeError):
        O.minimize(f, [0., 0.], method=LBFGS)
    with pytest.raises(TypeError, match="real- or complex-valued"):
        O.minimize(f, jnp.zeros(2, jnp.int32), method=BFGS)
    r = O.minimize(lambda x, c: jnp.sum((x - c) ** 2), jnp.zeros(2),
                   (jnp.asarray([1., 2.]),), method="bfgs", tol=1e-1)
    np.testing.assert_allclose(np.asarray(r.x), [1., 2.], atol=1e-5)


@pytest.mark.spec("SOP-2")
def test_results(jnp, O):
    f = lambda x: jnp.sum((x - 1.) ** 2)  # noqa: E731
    r = O.minimize(f, jnp.zeros(2), method=BFGS)
    assert isinstance(r, O.OptimizeResults) and r._fields == (
        "x", "success", "status", "fun", "jac", "hess_inv", "nfev", "njev", "nit")
    assert r.x.dtype == r.fun.dtype == r.jac.dtype == r.hess_inv.dtype == jnp.float32
    assert r.success.dtype == jnp.bool_ and bool(r.success)
    for name in ("status", "nfev", "njev", "nit"):
        assert getattr(r, name).dtype == jnp.int32
    assert r.hess_inv.shape == (2, 2)
    r = O.minimize(f, jnp.zeros(2, jnp.float16), method=LBFGS)
    assert r.hess_inv is None and r.x.dtype == jnp.float16


@pytest.mark.spec("SOP-3")
def test_bfgs_against_scipy(jnp, O):
    for f, x0 in [(rosenbrock, np.zeros(2, np.float32)), (lambda m: himmelblau,
                                                           np.ones(2, np.float32))]:
        r = O.minimize(f(jnp), jnp.asarray(x0), method=BFGS, options=dict(gtol=1e-6))
        ref = scipy.optimize.minimize(f(np), x0.astype(np.float64), method="BFGS").x
        np.testing.assert_allclose(np.asarray(r.x), ref, rtol=2e-4, atol=2e-4)
        assert int(r.status) == 0 and bool(r.success)
    quad = lambda x: 0.5 * jnp.sum(jnp.asarray([1., 4.]) * x ** 2)  # noqa: E731
    r = O.minimize(quad, jnp.ones(2), method=BFGS)
    np.testing.assert_allclose(np.asarray(r.hess_inv), np.diag([1., 0.25]), atol=5e-2)
    r = O.minimize(rosenbrock(jnp), jnp.zeros(3), method=BFGS, options=dict(maxiter=2))
    assert int(r.status) == 1 and int(r.nit) == 2 and not bool(r.success)
    assert int(r.nfev) == int(r.njev) >= 3


@pytest.mark.spec("SOP-4")
@pytest.mark.spec("SOP-7")
def test_lbfgs(jnp, O):
    x0 = np.zeros(2)
    r = O.minimize(rosenbrock(jnp), jnp.asarray(x0), method=LBFGS, options=dict(gtol=1e-7))
    ref = scipy.optimize.minimize(rosenbrock(np), x0, method="L-BFGS-B").x
    np.testing.assert_allclose(np.asarray(r.x), ref, atol=2e-3)
    z0 = jnp.asarray([1., 2. - 3.j, -5.j])
    r = O.minimize(lambda z: jnp.real(jnp.vdot(z - z0, z - z0)), jnp.zeros(3, jnp.complex64),
                   method=LBFGS, options=dict(gtol=1e-6))
    assert r.x.dtype == jnp.complex64 and r.fun.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(r.x), np.asarray(z0), atol=1e-5)
    r = O.minimize(rosenbrock(jnp), jnp.zeros(3), method=LBFGS, options=dict(maxiter=2))
    assert int(r.status) == 1 and int(r.nit) == 3 and not bool(r.success)


@pytest.mark.spec("SOP-5")
def test_first_step_meets_strong_wolfe(jnp, O):
    f = rosenbrock(np)
    x0 = np.array([-1.2, 1.0])
    grad = scipy.optimize.approx_fprime(x0, f, 1e-7)
    # One iteration each (L-BFGS tests its limit after a step: SOP-7).
    for method, maxiter in ((BFGS, 1), (LBFGS, 0)):
        r = O.minimize(rosenbrock(jnp), jnp.asarray(x0, jnp.float32), method=method,
                       options=dict(maxiter=maxiter))
        assert int(r.nit) == 1
        step = np.asarray(r.x, np.float64) - x0
        # The first direction is steepest descent: step = a * (-grad).
        a = -step[0] / grad[0]
        np.testing.assert_allclose(step, -a * grad, rtol=1e-3)
        slope0 = -grad @ grad
        slope = np.asarray(r.jac, np.float64) @ -grad
        assert float(r.fun) <= f(x0) + 1e-4 * a * slope0 + 1e-3
        assert abs(slope) <= 0.9 * abs(slope0) * (1 + 1e-3)


@pytest.mark.spec("SOP-6")
def test_jit_and_vmap(jax, jnp, O):
    x0s = jnp.asarray([[1., 1.], [-1., 2.]])

    def solve(x0):
        return O.minimize(himmelblau, x0, method=BFGS).x

    jitted = jax.jit(solve)(x0s[1])
    batched = jax.vmap(solve)(x0s)
    # Each batch member runs to its own stop: the same as its own call.
    np.testing.assert_allclose(np.asarray(batched[1]), np.asarray(jitted), atol=1e-4)
    for x in np.asarray(batched, np.float64):
        assert abs(himmelblau(x)) < 1e-6
