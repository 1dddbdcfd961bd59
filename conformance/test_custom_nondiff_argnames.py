"""custom_jvp / custom_vjp with nondiff_argnames (SPEC AD-95), and custom_vjp
bwd rules returning a list (SPEC AD-67)."""
from functools import partial

import numpy as np
import pytest


def _power_vjp(jax):
    @partial(jax.custom_vjp, nondiff_argnames=("n",))
    def power(x, n):
        return x ** n

    def fwd(x, n):
        return power(x, n), x

    def bwd(n, x, g):
        return (g * n * x ** (n - 1) + 1.,)   # + 1: the rule, not autodiff, ran
    power.defvjp(fwd, bwd)
    return power


def _power_jvp(jax):
    @partial(jax.custom_jvp, nondiff_argnames=("n",))
    def power(x, n):
        return x ** n

    @power.defjvp
    def power_jvp(n, primals, tangents):
        (x,), (t,) = primals, tangents
        return power(x, n), (n * x ** (n - 1) + 1.) * t
    return power


@pytest.mark.spec("AD-95")
@pytest.mark.parametrize("make", [_power_vjp, _power_jvp])
def test_named_arguments_are_not_differentiated(jax, make):
    power = make(jax)
    assert power.nondiff_argnums == (1,)
    for grad in (jax.grad(power)(2., 3), jax.grad(lambda x: power(x, n=3))(2.),
                 jax.jit(jax.grad(power), static_argnums=1)(2., 3)):
        np.testing.assert_allclose(grad, 13.)


@pytest.mark.spec("AD-95")
def test_argnums_and_argnames_combine(jax):
    f = jax.custom_vjp(lambda a, b, c: a * b * c, nondiff_argnums=(2,),
                       nondiff_argnames=("a", "not_a_parameter"))
    assert f.nondiff_argnums == (0, 2)
    g = jax.custom_jvp(lambda a, b: a + b, nondiff_argnames="b")
    assert g.nondiff_argnums == (1,)


@pytest.mark.spec("AD-67")
def test_bwd_may_return_a_list_of_one_cotangent_per_argument(jax):
    f = jax.custom_vjp(lambda x, y: x * y)
    f.defvjp(lambda x, y: (x * y, (x, y)), lambda r, g: [g * r[1], g * r[0]])
    np.testing.assert_allclose(jax.grad(f, (0, 1))(2., 3.), (3., 2.))
    bad = jax.custom_vjp(lambda x, y: x * y)
    bad.defvjp(lambda x, y: (x * y, (x, y)), lambda r, g: [g * r[1]])
    with pytest.raises(TypeError, match="same container"):
        jax.grad(bad)(2., 3.)
