"""checkpoint around scan, fori_loop, while_loop and cond under grad,
vjp and linearize (SPEC AD-94)."""
import numpy as np
import pytest


def _programs(jax, jnp):
    lax = jax.lax
    return {
        "scan": lambda c: lax.scan(lambda c, x: (jnp.sin(c * x), c), c, jnp.arange(1., 4.))[0],
        "scan_ys": lambda c: lax.scan(lambda c, x: (jnp.cos(c) * x, c * x), c,
                                      jnp.arange(1., 4.))[1].sum(),
        "fori_loop": lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * c, x),
        "while_loop": lambda x: lax.while_loop(lambda c: c[0] < 3,
                                               lambda c: (c[0] + 1, jnp.sin(c[1])), (0, x))[1],
        "cond": lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x) * x,
    }


NAMES = ["scan", "scan_ys", "fori_loop", "while_loop", "cond"]
REVERSE = ["scan", "scan_ys", "fori_loop", "cond"]   # while_loop: forward mode only


@pytest.mark.spec("AD-94")
@pytest.mark.parametrize("name", REVERSE)
def test_grad_of_checkpoint_matches_grad(jax, jnp, name):
    f = _programs(jax, jnp)[name]
    for g in (jax.checkpoint(f), jax.remat(f), jax.jit(jax.checkpoint(f))):
        np.testing.assert_allclose(jax.grad(g)(0.7), jax.grad(f)(0.7), rtol=1e-6)
    _, pullback = jax.vjp(jax.checkpoint(f), 0.7)
    np.testing.assert_allclose(pullback(jnp.float32(2.))[0], 2 * jax.grad(f)(0.7), rtol=1e-6)


@pytest.mark.spec("AD-94")
@pytest.mark.parametrize("name", NAMES)
def test_linearize_of_checkpoint_gives_concrete_primal(jax, jnp, name):
    f = _programs(jax, jnp)[name]
    y, f_lin = jax.linearize(jax.checkpoint(f), 0.7)
    assert isinstance(y, jax.Array)
    np.testing.assert_allclose(y, f(0.7), rtol=1e-6)
    eps = 1e-3
    fd = (f(0.7 + eps) - f(0.7 - eps)) / (2 * eps)
    np.testing.assert_allclose(f_lin(1.), fd, rtol=2e-2)
    np.testing.assert_allclose(f_lin(1.), jax.jvp(f, (0.7,), (1.,))[1], rtol=1e-6)


@pytest.mark.spec("AD-94")
def test_checkpoint_policy_inside_scan_keeps_gradient(jax, jnp):
    f = _programs(jax, jnp)["scan"]
    policies = jax.checkpoint_policies
    for policy in (policies.nothing_saveable, policies.everything_saveable,
                   policies.dots_with_no_batch_dims_saveable):
        g = jax.checkpoint(f, policy=policy)
        np.testing.assert_allclose(jax.grad(g)(0.3), jax.grad(f)(0.3), rtol=1e-6)
