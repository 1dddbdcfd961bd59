"""Derivatives at kinks, ties and other special points (SPEC AD-59, AD-70 .. AD-78).

Every expected number below was observed on JAX 0.10.2.  Some come from
custom JVP rules (``relu``, ``sinc``, ``logaddexp``, ``xlogy`` ...), the
others from the fixed conventions of the primitives' rules (``abs``,
``maximum``, ``sort``, ``pow`` ...).
"""
import math

import numpy as np
import pytest

inf, nan = np.inf, np.nan


def _close(actual, expected, rtol=1e-6):
    """Equal up to ``rtol``, NaN matching NaN and infinities matching exactly."""
    actual = [np.asarray(a) for a in (actual if isinstance(actual, tuple) else (actual,))]
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        np.testing.assert_allclose(a, np.asarray(e, np.float64), rtol=rtol, atol=0)


# ---------------------------------------------------------------------------
# AD-70: relu and relu6
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-70")
@pytest.mark.parametrize("x, expected", [(-1., 0.), (0., 0.), (1., 1.)])
def test_relu_derivative_is_zero_at_the_kink(jax, x, expected):
    assert jax.grad(jax.nn.relu)(x) == expected


@pytest.mark.spec("AD-70")
@pytest.mark.parametrize("x, expected", [(-1., 0.), (0., 0.), (3., 1.), (6., 0.), (7., 0.)])
def test_relu6_derivative_is_zero_at_both_kinks(jax, x, expected):
    assert jax.grad(jax.nn.relu6)(x) == expected


@pytest.mark.spec("AD-70")
def test_relu_rule_elementwise_and_inherited(jax, jnp):
    out, tangent = jax.jvp(jax.nn.relu, (jnp.array([-1., 0., 2.]),), (jnp.ones(3),))
    _close(out, [0., 0., 2.])
    _close(tangent, [0., 0., 1.])
    hard_sigmoid_grads = [jax.grad(jax.nn.hard_sigmoid)(x) for x in (-3., 0., 3.)]
    _close(tuple(hard_sigmoid_grads), (0., 1 / 6, 0.))


@pytest.mark.spec("AD-70")
def test_relu_stages_a_custom_jvp_call_around_a_jit(jax):
    eqn, = jax.make_jaxpr(jax.nn.relu)(1.).eqns
    assert eqn.primitive.name == "custom_jvp_call"
    inner, = eqn.params["call_jaxpr"].eqns
    assert inner.primitive.name == "jit" and inner.params["name"] == "relu"


# ---------------------------------------------------------------------------
# AD-71: abs, maximum/minimum ties, clip
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-71")
@pytest.mark.parametrize("x, expected", [(-1., -1.), (0., 1.), (1., 1.)])
def test_abs_derivative(jax, jnp, x, expected):
    assert jax.grad(jnp.abs)(x) == expected


@pytest.mark.spec("AD-71")
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_split_ties(jax, jnp, name):
    fn = getattr(jnp, name)
    _close(jax.grad(fn, (0, 1))(1., 1.), (0.5, 0.5))


@pytest.mark.spec("AD-71")
def test_maximum_without_tie(jax, jnp):
    _close(jax.grad(jnp.maximum, (0, 1))(2., 1.), (1., 0.))


@pytest.mark.spec("AD-71")
@pytest.mark.parametrize("x, expected", [(0., 0.5), (1., 0.5), (0.5, 1.), (2., 0.)])
def test_clip_at_and_between_bounds(jax, jnp, x, expected):
    assert jax.grad(lambda x: jnp.clip(x, 0., 1.))(x) == expected


@pytest.mark.spec("AD-71")
def test_clip_traced_bounds_share_the_tie(jax, jnp):
    grads = jax.grad(lambda x, lo, hi: jnp.clip(x, lo, hi), (0, 1, 2))(1., 1., 2.)
    _close(grads, (0.5, 0.5, 0.))


@pytest.mark.spec("AD-71")
@pytest.mark.parametrize("x", [0., 1.])
def test_lax_clamp_has_zero_derivative_at_bounds(jax, x):
    assert jax.grad(lambda x: jax.lax.clamp(0., x, 1.))(x) == 0.


# ---------------------------------------------------------------------------
# AD-72: max/min reductions and sort with ties
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-72")
def test_max_min_reductions_share_ties(jax, jnp):
    _close(jax.grad(jnp.max)(jnp.array([1., 3., 3.])), [0., 0.5, 0.5])
    _close(jax.grad(jnp.min)(jnp.array([2., 1., 1., 1.])), [0., 1 / 3, 1 / 3, 1 / 3])


@pytest.mark.spec("AD-72")
def test_max_reduction_ties_per_slice(jax, jnp):
    x = jnp.array([[1., 1.], [0., 2.]])
    _close(jax.grad(lambda x: jnp.max(x, axis=1).sum())(x), [[0.5, 0.5], [0., 1.]])
    y = jnp.array([[1., 1.], [1., 2.]])
    _close(jax.grad(lambda y: jnp.max(y, axis=0, keepdims=True).sum())(y),
           [[0.5, 0.], [0.5, 1.]])


@pytest.mark.spec("AD-72")
def test_max_reduction_mask_and_initial(jax, jnp):
    mask = jnp.array([True, False, True])
    masked = jax.grad(lambda x: jnp.max(x, where=mask, initial=-inf))(jnp.full(3, 3.))
    _close(masked, [0.5, 0., 0.5])
    _close(jax.grad(lambda x: jnp.max(x, initial=3.))(jnp.array([3., 1.])), [0.5, 0.])


@pytest.mark.spec("AD-72")
def test_sort_routes_ties_in_stable_order(jax, jnp):
    x = jnp.array([2., 1., 2.])
    _close(jax.grad(lambda x: jnp.sort(x)[1])(x), [1., 0., 0.])
    _close(jax.grad(lambda x: jnp.sort(x)[2])(x), [0., 0., 1.])
    weighted = jax.grad(lambda x: (jnp.sort(x) * jnp.array([1., 2., 3.])).sum())(x)
    _close(weighted, [2., 1., 3.])
    _close(jax.grad(lambda x: (jax.lax.sort(x) * jnp.arange(3.)).sum())(jnp.full(3, 5.)),
           [0., 1., 2.])


# ---------------------------------------------------------------------------
# AD-73: sinc at 0
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-73")
def test_sinc_derivatives_of_every_order_at_zero(jax, jnp):
    d1 = jax.grad(jnp.sinc)
    d2 = jax.grad(d1)
    d3 = jax.grad(d2)
    d4 = jax.grad(d3)
    assert d1(0.) == 0. and d3(0.) == 0.
    _close(d2(0.), -math.pi ** 2 / 3)
    _close(d4(0.), math.pi ** 4 / 5)


@pytest.mark.spec("AD-73")
def test_sinc_second_derivative_in_every_mode(jax, jnp):
    _close(jax.hessian(jnp.sinc)(0.), -math.pi ** 2 / 3)
    _close(jax.jacfwd(jax.jacfwd(jnp.sinc))(0.), -math.pi ** 2 / 3)


@pytest.mark.spec("AD-73")
def test_sinc_derivative_away_from_zero(jax, jnp):
    _close(jax.grad(jnp.sinc)(0.5), -4 / math.pi)
    _, tangent = jax.jvp(jnp.sinc, (jnp.array([0., 1.]),), (jnp.ones(2),))
    _close(tangent, [0., -1.])


@pytest.mark.spec("AD-73")
def test_sinc_stages_the_maclaurin_custom_jvp(jax, jnp):
    sinc_eqn, = jax.make_jaxpr(jnp.sinc)(1.).eqns
    assert sinc_eqn.params["name"] == "sinc"
    calls = [e for e in sinc_eqn.params["jaxpr"].eqns if e.primitive.name == "custom_jvp_call"]
    assert len(calls) == 1
    text = str(jax.make_jaxpr(jnp.sinc)(1.))
    assert "name=_sinc_maclaurin\n" in text and "jvp=_sinc_maclaurin_jvp\n" in text


# ---------------------------------------------------------------------------
# AD-74: logaddexp
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-74")
@pytest.mark.parametrize("a, b, expected", [
    (0., 0., (0.5, 0.5)),
    (1., 1., (0.5, 0.5)),
    (-inf, 0., (0., 1.)),
    (0., -inf, (1., 0.)),
    (-inf, 3., (0., 1.)),
    (-inf, -inf, (nan, nan)),
    (inf, inf, (1., 1.)),
    (inf, 0., (1., 1.)),
    (inf, -inf, (1., 0.)),
    (2., 0., (1 / (1 + math.exp(-2)), 1 / (1 + math.exp(2)))),
])
def test_logaddexp_gradient(jax, jnp, a, b, expected):
    _close(jax.grad(jnp.logaddexp, (0, 1))(a, b), expected)


@pytest.mark.spec("AD-74")
@pytest.mark.parametrize("a, b, expected", [
    (0., 0., (0.5, 0.5)),
    (-inf, 0., (0., 1.)),
    (inf, inf, (1., 1.)),
    (-inf, -inf, (nan, nan)),
    (1., 0., (2 / 3, 1 / 3)),
])
def test_logaddexp2_gradient(jax, jnp, a, b, expected):
    _close(jax.grad(jnp.logaddexp2, (0, 1))(a, b), expected)


@pytest.mark.spec("AD-74")
@pytest.mark.parametrize("x, expected", [(0., 0.5), (100., 1.), (inf, 1.), (-inf, 0.)])
def test_softplus_inherits_the_rule(jax, x, expected):
    assert jax.grad(jax.nn.softplus)(x) == expected


@pytest.mark.spec("AD-74")
def test_logaddexp_stages_a_custom_jvp_call(jax, jnp):
    eqn, = jax.make_jaxpr(jnp.logaddexp)(1., 1.).eqns
    assert eqn.primitive.name == "custom_jvp_call"
    assert "jvp=_logaddexp_jvp" in str(jax.make_jaxpr(jnp.logaddexp)(1., 1.))


# ---------------------------------------------------------------------------
# AD-75: xlogy, xlog1py, entr, logit, log_ndtr
# ---------------------------------------------------------------------------


@pytest.mark.spec("AD-75")
@pytest.mark.parametrize("x, y, expected", [
    (0., 1., (0., 0.)),
    (0., 2., (math.log(2), 0.)),
    (0., 0., (-inf, nan)),
    (1., 0., (-inf, inf)),
    (2., 3., (math.log(3), 2 / 3)),
    (0., inf, (inf, 0.)),
])
def test_xlogy_gradient(jax, special, x, y, expected):
    _close(jax.grad(special.xlogy, (0, 1))(x, y), expected)


@pytest.mark.spec("AD-75")
@pytest.mark.parametrize("x, y, expected", [
    (0., -1., (-inf, nan)),
    (0., 0., (0., 0.)),
    (1., 0., (0., 1.)),
    (0., 1., (math.log(2), 0.)),
])
def test_xlog1py_gradient(jax, special, x, y, expected):
    _close(jax.grad(special.xlog1py, (0, 1))(x, y), expected)


@pytest.mark.spec("AD-75")
@pytest.mark.parametrize("x, expected", [
    (0., inf), (1., -1.), (0.5, math.log(2) - 1), (-1., nan), (math.exp(-1), 0.),
])
def test_entr_gradient(jax, special, x, expected):
    _close(jax.grad(special.entr)(x), expected)


@pytest.mark.spec("AD-75")
def test_entr_second_derivative(jax, special):
    assert jax.grad(jax.grad(special.entr))(1.) == -1.


@pytest.mark.spec("AD-75")
@pytest.mark.parametrize("x, expected", [(0., inf), (0.5, 4.), (1., inf), (0.25, 16 / 3)])
def test_logit_gradient(jax, special, x, expected):
    _close(jax.grad(special.logit)(x), expected)


@pytest.mark.spec("AD-75")
@pytest.mark.parametrize("x, expected", [
    (0., math.sqrt(2 / math.pi)),
    (-5., 5.186504364013672),
    (-30., 30.032577514648438),
    (6., 6.075888236978244e-09),
    (10., 7.694604805333477e-23),
])
def test_log_ndtr_gradient_is_finite_in_both_tails(jax, special, x, expected):
    _close(jax.grad(special.log_ndtr)(x), expected, rtol=1e-5)


@pytest.mark.spec("AD-75")
def test_log_ndtr_series_order_is_not_differentiated(jax, special):
    grad = jax.grad(lambda x: special.log_ndtr(x, series_order=0))(-30.)
    _close(grad, 29.999601364135742, rtol=1e-5)


@pytest.mark.spec("AD-75")
@pytest.mark.parametrize("name, args, jvp_name", [
    ("logit", (0.5,), "jvp"),
    ("xlogy", (1., 2.), "_xlogy_jvp"),
    ("xlog1py", (1., 2.), "_xlog1py_jvp"),
    ("entr", (0.5,), "_xlogx_jvp"),
])
def test_special_functions_stage_custom_jvp_calls(jax, special, name, args, jvp_name):
    text = str(jax.make_jaxpr(getattr(special, name))(*args))
    assert "custom_jvp_call[" in text and f"jvp={jvp_name}\n" in text


# ---------------------------------------------------------------------------
# AD-76: softmax, log_softmax, logsumexp
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-76")
def test_logsumexp_gradient_is_softmax_weights(jax, jnp, special):
    v = jnp.array([0., 0., -inf])
    _close(jax.grad(jax.nn.logsumexp)(v), [0.5, 0.5, 0.])
    _close(jax.grad(special.logsumexp)(v), [0.5, 0.5, 0.])
    _close(jax.grad(jnp.logaddexp.reduce)(v), [0.5, 0.5, 0.])
    _close(jax.grad(jax.nn.logsumexp)(jnp.array([1000., 1000.])), [0.5, 0.5])


@pytest.mark.spec("AD-76")
def test_logsumexp_gradient_with_infinities(jax, jnp):
    _close(jax.grad(jax.nn.logsumexp)(jnp.array([-inf, -inf])), [nan, nan])
    _close(jax.grad(jax.nn.logsumexp)(jnp.array([inf, 0.])), [nan, 0.])


@pytest.mark.spec("AD-76")
def test_logsumexp_gradient_with_b_and_where(jax, jnp):
    lse = jax.nn.logsumexp
    b = jnp.array([1., 0.5, 0.])
    _close(jax.grad(lambda a: lse(a, b=b))(jnp.zeros(3)), [2 / 3, 1 / 3, 0.])
    _close(jax.grad(lambda b: lse(jnp.zeros(2), b=b))(jnp.array([1., 3.])), [0.25, 0.25])
    mask = jnp.array([True, False, True])
    _close(jax.grad(lambda a: lse(a, where=mask))(jnp.array([0., 5., 0.])), [0.5, 0., 0.5])


@pytest.mark.spec("AD-76")
def test_softmax_jacobian(jax, jnp):
    _close(jax.jacrev(jax.nn.softmax)(jnp.zeros(2)), [[0.25, -0.25], [-0.25, 0.25]])
    _close(jax.jacrev(jax.nn.softmax)(jnp.array([0., 0., -inf])),
           [[0.25, -0.25, 0.], [-0.25, 0.25, 0.], [0., 0., 0.]])
    _close(jax.grad(lambda x: jax.nn.softmax(x)[0])(jnp.array([1000., 1000.])), [0.25, -0.25])
    _close(jax.grad(lambda x: jax.nn.softmax(x)[0])(jnp.array([-inf, -inf])), [nan, nan])
    _, tangent = jax.jvp(jax.nn.softmax, (jnp.zeros(2),), (jnp.array([1., 0.]),))
    _close(tangent, [0.25, -0.25])


@pytest.mark.spec("AD-76")
def test_log_softmax_jacobian(jax, jnp):
    _close(jax.jacrev(jax.nn.log_softmax)(jnp.zeros(2)), [[0.5, -0.5], [-0.5, 0.5]])
    _close(jax.jacrev(jax.nn.log_softmax)(jnp.array([0., 0., -inf])),
           [[0.5, -0.5, 0.], [-0.5, 0.5, 0.], [-0.5, -0.5, 1.]])


@pytest.mark.spec("AD-76")
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_masked_softmax_jacobian(jax, jnp, name):
    mask = jnp.array([True, True, False])
    jac = jax.jacrev(lambda x: getattr(jax.nn, name)(x, where=mask))(jnp.array([0., 0., 1.]))
    scale = 0.25 if name == "softmax" else 0.5
    _close(jac, [[scale, -scale, 0.], [-scale, scale, 0.], [0., 0., 0.]])


@pytest.mark.spec("AD-76")
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsumexp"])
def test_normalizations_stop_the_gradient_of_the_maximum(jax, jnp, name):
    text = str(jax.make_jaxpr(getattr(jax.nn, name))(jnp.ones(3)))
    assert text.count("stop_gradient") == 1


# ---------------------------------------------------------------------------
# AD-77: sqrt and the norm at 0
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-77")
def test_sqrt_derivative(jax, jnp):
    assert jax.grad(jnp.sqrt)(0.) == inf
    assert jax.grad(jnp.sqrt)(4.) == 0.25


@pytest.mark.spec("AD-77")
def test_norm_gradient_at_origin(jax, jnp):
    norm = lambda x: jnp.sqrt(jnp.sum(x ** 2))  # noqa: E731
    _close(jax.grad(norm)(jnp.zeros(3)), [nan, nan, nan])
    _close(jax.grad(norm)(jnp.array([3., 4.])), [0.6, 0.8])
    safe = lambda x: jnp.sqrt(jnp.maximum(jnp.sum(x ** 2), 1e-12))  # noqa: E731
    _close(jax.grad(safe)(jnp.zeros(2)), [0., 0.])


# ---------------------------------------------------------------------------
# AD-78: powers at 0, frexp
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-78")
@pytest.mark.parametrize("n, expected", [(2, 0.), (1, 1.), (0, 0.), (-1, -inf)])
def test_integer_power_at_zero(jax, n, expected):
    assert jax.grad(lambda x: x ** n)(0.) == expected


@pytest.mark.spec("AD-78")
@pytest.mark.parametrize("p, expected", [(2.0, 0.), (1.5, 0.), (0.5, inf), (0.0, nan)])
def test_float_power_at_zero(jax, p, expected):
    _close(jax.grad(lambda x: x ** p)(0.), expected)


@pytest.mark.spec("AD-78")
@pytest.mark.parametrize("x, y, expected", [
    (0., 2., (0., 0.)),
    (0., 0., (nan, 0.)),
    (0., 0.5, (inf, 0.)),
    (0., -1., (-inf, nan)),
    (2., 3., (12., 8 * math.log(2))),
    (-2., 3., (12., nan)),
])
def test_power_in_both_arguments(jax, jnp, x, y, expected):
    _close(jax.grad(jnp.power, (0, 1))(x, y), expected)
    _close(jax.grad(jax.lax.pow, (0, 1))(x, y), expected)


@pytest.mark.spec("AD-78")
def test_frexp_mantissa_derivative(jax, jnp):
    assert jax.grad(lambda x: jnp.frexp(x)[0])(3.) == 0.25
    assert jax.grad(lambda x: jnp.frexp(x)[0])(0.) == 1.
    (_, _), (m_dot, e_dot) = jax.jvp(jnp.frexp, (jnp.array([3., 0.25]),), (jnp.ones(2),))
    _close(m_dot, [0.25, 2.])
    assert e_dot.dtype == jax.dtypes.float0


# ---------------------------------------------------------------------------
# AD-59: where-selected branches
# ---------------------------------------------------------------------------

@pytest.mark.spec("AD-59")
def test_where_boundary_follows_the_condition(jax, jnp):
    assert jax.grad(lambda x: jnp.where(x > 0, x, 0.))(0.) == 0.
    assert jax.grad(lambda x: jnp.where(x >= 0, x, 0.))(0.) == 1.
    _close(jax.grad(lambda x, y: jnp.where(x > y, x, y), (0, 1))(1., 1.), (0., 1.))
    _close(jax.grad(lambda x: jnp.where(x > 0, x ** 2, -x).sum())(jnp.array([-1., 0., 2.])),
           [-1., -1., 4.])


@pytest.mark.spec("AD-59")
@pytest.mark.parametrize("fn", [
    lambda jnp, x: jnp.where(x > 0, jnp.sqrt(x), 0.),
    lambda jnp, x: jnp.where(x > 0, jnp.log(x), 0.),
    lambda jnp, x: jnp.where(x == 0., 0., 1. / x),
], ids=["sqrt", "log", "reciprocal"])
def test_unselected_branch_with_infinite_derivative_gives_nan(jax, jnp, fn):
    assert np.isnan(jax.grad(lambda x: fn(jnp, x))(0.))


@pytest.mark.spec("AD-59")
def test_guarding_the_argument_too_gives_zero(jax, jnp):
    safe = lambda x: jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.)), 0.)  # noqa: E731
    assert jax.grad(safe)(0.) == 0.
