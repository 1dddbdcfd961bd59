"""Details of derivative rules that a sign or operand slip would break
(SPEC AD-20, AD-21, AD-23): each derivative is checked by value, in forward
and reverse mode, eagerly and under ``jit``.  Found by the mutation tool
(tests/mutation: ad-sub-transpose, ad-div-jvp-sign, ad-convert-transpose-weak,
lax-clamp-jvp-tie), whose mutants the broader autodiff tests missed.
"""
import numpy as np
import pytest


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def _modes(jax, f):
    return [f, jax.jit(f)]


@pytest.mark.spec("AD-21")
def test_sub_transposes_to_minus_for_the_subtrahend(jax, jnp):
    x, y = np.float32(2.0), np.float32(5.0)
    for f in _modes(jax, lambda x, y: jax.lax.sub(x, y)):
        _close(jax.grad(f, argnums=(0, 1))(x, y), (1.0, -1.0))
        _, pullback = jax.vjp(f, x, y)
        _close(pullback(np.float32(3.0)), (3.0, -3.0))
    # Broadcast subtrahend: its cotangent is summed back, negated.
    g = jax.grad(lambda y: jnp.sum(jnp.arange(4.0) - y))(np.float32(1.0))
    _close(g, -4.0)
    t = jax.linear_transpose(lambda y: jax.lax.sub(np.float32(0.0), y), x)
    _close(t(np.float32(2.0)), (-2.0,))


@pytest.mark.spec("AD-20")
def test_div_derivative_in_the_denominator_is_negative(jax):
    x, y = np.float32(3.0), np.float32(2.0)
    for f in _modes(jax, lambda x, y: jax.lax.div(x, y)):
        _, t = jax.jvp(f, (x, y), (np.float32(0.0), np.float32(1.0)))
        _close(t, -x / y ** 2)
        _close(jax.grad(f, argnums=1)(x, y), -0.75)
        _close(jax.grad(f, argnums=0)(x, y), 0.5)


@pytest.mark.spec("AD-21")
def test_convert_element_type_cotangent_keeps_weak_type(jax, jnp):
    """The cotangent is converted back to the operand's dtype *and* weak
    type: a weakly typed Python scalar gets a weak gradient."""
    f = lambda x: jax.lax.convert_element_type(x, jnp.float32) * 2.0
    for g in _modes(jax, jax.grad(f)):
        out = g(1.0)
        assert out.dtype == jnp.float32 and out.weak_type
        _close(out, 2.0)
        strong = g(np.float32(1.0))
        assert strong.dtype == jnp.float32 and not strong.weak_type
    h = jax.grad(lambda x: jnp.sum(jax.lax.convert_element_type(x, jnp.float16)))
    out = h(np.ones(3, np.float32))
    assert out.dtype == jnp.float32 and not out.weak_type


@pytest.mark.spec("AD-23")
@pytest.mark.parametrize("x, want", [
    (0.0, (0.0, 0.0, 0.0)),    # x == lo: a tie, no tangent passes
    (2.0, (0.0, 0.0, 0.0)),    # x == hi: a tie, no tangent passes
    (1.0, (0.0, 1.0, 0.0)),    # strictly inside: x's
    (3.0, (0.0, 0.0, 1.0)),    # above: hi's
    (-1.0, (1.0, 0.0, 0.0)),   # below: lo's
])
def test_clamp_ties_pass_no_tangent(jax, x, want):
    f = lambda lo, x, hi: jax.lax.clamp(lo, x, hi)
    args = (np.float32(0.0), np.float32(x), np.float32(2.0))
    for h in _modes(jax, f):
        _close(jax.grad(h, argnums=(0, 1, 2))(*args), want)
        for k in range(3):
            tangents = [np.float32(0.0)] * 3
            tangents[k] = np.float32(1.0)
            _close(jax.jvp(h, args, tuple(tangents))[1], want[k])
