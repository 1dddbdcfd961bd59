"""Custom derivative rules and rematerialisation: ``custom_jvp``,
``custom_vjp``, ``checkpoint``/``remat`` (SPEC AD-65 .. AD-69).

The examples follow JAX's documentation (log1pexp, clip_gradient, a
function argument as a non-differentiable argument); each asserts that the
custom rule, not the primal function's own derivative, is what autodiff uses.
"""
import functools
import importlib
import re

import numpy as np
import pytest


def close(got, want, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float32),
                               rtol=rtol, atol=atol)


def raises(cls, prefix):
    """``pytest.raises`` for a message starting with the literal ``prefix``."""
    return pytest.raises(cls, match="^" + re.escape(prefix))


def eqn_names(jax, fun, *args):
    return [e.primitive.name for e in jax.make_jaxpr(fun)(*args).jaxpr.eqns]


def log1pexp(jax, jnp):
    """log(1 + e^x) whose derivative rule stays finite for large x."""
    @jax.custom_jvp
    def log1pexp(x):
        return jnp.log(1. + jnp.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        x, = primals
        t, = tangents
        return log1pexp(x), t * (1. - 1. / (1. + jnp.exp(x)))

    return log1pexp


def sigmoid(x):
    return 1. / (1. + np.exp(-np.float64(x)))


# -- AD-65: custom_jvp ----------------------------------------------------------------

@pytest.mark.spec("AD-65")
def test_custom_jvp_gives_finite_gradient(jax, jnp):
    naive = lambda x: jnp.log(1. + jnp.exp(x))
    assert np.isnan(np.asarray(jax.grad(naive)(100.)))
    f = log1pexp(jax, jnp)
    close(jax.grad(f)(100.), 1.)
    close(jax.grad(f)(3.), sigmoid(3.))


@pytest.mark.spec("AD-65")
def test_custom_jvp_primal_call_does_not_run_the_rule(jax, jnp):
    calls = []

    @jax.custom_jvp
    def f(x):
        return jnp.sin(x)

    def f_jvp(primals, tangents):
        calls.append(None)
        return f(primals[0]), 10. * tangents[0]

    assert f.defjvp(f_jvp) is f_jvp
    close(f(1.), np.sin(np.float32(1.)))
    assert calls == []
    out, tan = jax.jvp(f, (1.,), (1.,))
    close(out, np.sin(np.float32(1.)))
    close(tan, 10.)
    assert calls


@pytest.mark.spec("AD-65")
def test_custom_jvp_rule_used_by_every_transformation(jax, jnp):
    @jax.custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    f.defjvp(lambda p, t: (f(*p), 10. * t[0] + 100. * t[1]))
    close(jax.grad(f)(2., 3.), 10.)
    close(jax.grad(f, argnums=1)(2., 3.), 100.)
    close(jax.linearize(f, 2., 3.)[1](1., 1.), 110.)
    gx, gy = jax.vjp(f, 2., 3.)[1](1.)
    close(gx, 10.)
    close(gy, 100.)
    close(jax.grad(lambda x: f(x, y=3.))(2.), 10.)   # keyword arguments too


@pytest.mark.spec("AD-65")
def test_custom_jvp_keeps_name_and_doc(jax, jnp):
    @jax.custom_jvp
    def f(x):
        """Doc."""
        return x

    assert f.__name__ == "f" and f.__doc__ == "Doc."


@pytest.mark.spec("AD-65")
def test_custom_jvp_defjvps(jax, jnp):
    @jax.custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    f.defjvps(lambda x_dot, ans, x, y: jnp.cos(x) * x_dot * y,
              lambda y_dot, ans, x, y: jnp.sin(x) * y_dot)
    gx, gy = jax.grad(f, argnums=(0, 1))(2., 3.)
    close(gx, np.cos(np.float32(2.)) * 3., rtol=1e-5)
    close(gy, np.sin(np.float32(2.)), rtol=1e-5)
    out, tan = jax.jvp(f, (2., 3.), (1., 0.))
    close(out, np.sin(np.float32(2.)) * 3., rtol=1e-5)
    close(tan, np.cos(np.float32(2.)) * 3., rtol=1e-5)


@pytest.mark.spec("AD-65")
def test_custom_jvp_under_jit_and_higher_order(jax, jnp):
    f = log1pexp(jax, jnp)
    close(jax.jit(f)(3.), np.log1p(np.exp(3.)), rtol=1e-5)
    close(jax.jit(jax.grad(f))(3.), sigmoid(3.), rtol=1e-5)
    close(jax.grad(jax.jit(f))(3.), sigmoid(3.), rtol=1e-5)
    # The rule is itself differentiated: d/dx sigmoid = s (1 - s).
    s = sigmoid(3.)
    close(jax.grad(jax.grad(f))(3.), s * (1 - s), rtol=1e-5)
    close(jax.jit(jax.grad(jax.grad(f)))(3.), s * (1 - s), rtol=1e-5)


@pytest.mark.spec("AD-65")
def test_custom_jvp_stages_one_equation(jax, jnp):
    assert eqn_names(jax, log1pexp(jax, jnp), 1.) == ["custom_jvp_call"]


@pytest.mark.spec("AD-65")
def test_custom_jvp_without_rule(jax, jnp):
    @jax.custom_jvp
    def nojvp(x):
        return x

    with raises(AttributeError, "No JVP defined for custom_jvp function nojvp "
                                "using defjvp."):
        nojvp(1.)
    with raises(AttributeError, "No JVP defined for custom_jvp function nojvp "
                                "using defjvp."):
        jax.grad(nojvp)(1.)


@pytest.mark.spec("AD-65")
def test_custom_jvp_rule_must_return_a_pair(jax, jnp):
    @jax.custom_jvp
    def bad(x):
        return x * 2

    def bad_rule(p, t):
        return (p[0] * 2,)

    bad.defjvp(bad_rule)
    with raises(TypeError, "Custom JVP rule bad_rule for function bad must produce "
                           "a pair (list or tuple of length two) representing primal "
                           "and tangent outputs, but got"):
        jax.jvp(bad, (1.,), (1.,))


@pytest.mark.spec("AD-65")
def test_custom_jvp_tangent_must_match_primal_type(jax, jnp):
    @jax.custom_jvp
    def bad(x):
        return x * 2

    bad.defjvp(lambda p, t: (p[0] * 2, jnp.ones(3)))
    with raises(TypeError, "Custom JVP rule must produce primal and tangent outputs "
                           "with corresponding shapes and dtypes. Expected float32[] "
                           "(tangent type of float32[]) but got float32[3]."):
        jax.jvp(bad, (1.,), (1.,))


# -- AD-66: custom_jvp nondiff_argnums and symbolic zeros --------------------------------

@pytest.mark.spec("AD-66")
def test_custom_jvp_function_as_nondiff_argument(jax, jnp):
    @functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
    def app(g, x):
        return g(x)

    @app.defjvp
    def app_jvp(g, primals, tangents):
        return g(primals[0]), 3. * tangents[0]

    close(app(jnp.sin, 2.), np.sin(np.float32(2.)))
    close(jax.grad(app, argnums=1)(jnp.sin, 2.), 3.)
    close(jax.grad(lambda x: app(lambda y: y ** 2, x))(2.), 3.)


@pytest.mark.spec("AD-66")
def test_custom_jvp_integer_nondiff_argument(jax, jnp):
    @functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
    def scale(x, n):
        return x * n

    @scale.defjvp
    def scale_jvp(n, primals, tangents):
        return scale(primals[0], n), tangents[0] * n

    close(jax.grad(scale)(2., 3), 3.)
    close(jax.jit(lambda x, n: jax.grad(scale)(x, n))(2., 4.), 4.)


@pytest.mark.spec("AD-66")
def test_custom_jvp_symbolic_zeros(jax, jnp):
    SymbolicZero = importlib.import_module(
        f"{jax.__name__}.custom_derivatives").SymbolicZero
    seen = []

    @jax.custom_jvp
    def mul(x, y):
        return x * y

    def mul_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        seen.append((isinstance(tx, SymbolicZero), isinstance(ty, SymbolicZero)))
        t = 0.
        if not isinstance(tx, SymbolicZero):
            t = t + tx * y
        if not isinstance(ty, SymbolicZero):
            t = t + x * ty
        return x * y, t

    mul.defjvp(mul_jvp, symbolic_zeros=True)
    close(jax.grad(mul)(2., 3.), 3.)
    assert seen[-1] == (False, True)
    out, tan = jax.jvp(lambda x: mul(x, 3.), (2.,), (1.,))
    close(tan, 3.)
    assert seen[-1] == (False, True)


# -- AD-67: custom_vjp ------------------------------------------------------------------

def clip_gradient(jax, jnp):
    """The identity whose cotangent is clipped to ``[lo, hi]``."""
    @jax.custom_vjp
    def clip_gradient(lo, hi, x):
        return x

    def fwd(lo, hi, x):
        return x, (lo, hi)

    def bwd(res, g):
        lo, hi = res
        return None, None, jnp.clip(g, lo, hi)

    clip_gradient.defvjp(fwd, bwd)
    return clip_gradient


def sin_times(jax, jnp):
    """``sin(x) * y`` with residuals saved by its fwd rule."""
    @jax.custom_vjp
    def f(x, y):
        return jnp.sin(x) * y

    def f_fwd(x, y):
        return f(x, y), (jnp.cos(x), jnp.sin(x), y)

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return cos_x * g * y, sin_x * g

    f.defvjp(f_fwd, f_bwd)
    return f


@pytest.mark.spec("AD-67")
def test_custom_vjp_clip_gradient(jax, jnp):
    clip = clip_gradient(jax, jnp)
    cf = lambda x: clip(-0.75, 0.75, x)
    close(cf(1.), 1.)
    close(jax.grad(lambda x: 3 * cf(x))(1.), 0.75)
    close(jax.grad(lambda x: 0.5 * cf(x))(1.), 0.5)
    close(jax.grad(lambda x: -3 * cf(x))(1.), -0.75)


@pytest.mark.spec("AD-67")
def test_custom_vjp_with_residuals(jax, jnp):
    f = sin_times(jax, jnp)
    close(f(2., 3.), np.sin(np.float32(2.)) * 3., rtol=1e-5)
    gx, gy = jax.grad(f, argnums=(0, 1))(2., 3.)
    close(gx, np.cos(np.float32(2.)) * 3., rtol=1e-5)
    close(gy, np.sin(np.float32(2.)), rtol=1e-5)
    close(jax.jit(jax.grad(f))(2., 3.), np.cos(np.float32(2.)) * 3., rtol=1e-5)
    close(jax.grad(jax.jit(f))(2., 3.), np.cos(np.float32(2.)) * 3., rtol=1e-5)


@pytest.mark.spec("AD-67")
def test_custom_vjp_grad_of_grad_differentiates_bwd(jax, jnp):
    f = sin_times(jax, jnp)
    close(jax.grad(jax.grad(f))(2., 3.), -np.sin(np.float32(2.)) * 3., rtol=1e-5)


@pytest.mark.spec("AD-67")
def test_custom_vjp_rule_is_what_vjp_uses(jax, jnp):
    calls = []

    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)

    def fwd(x):
        calls.append("fwd")
        return f(x), None

    def bwd(res, g):
        calls.append("bwd")
        return (7. * g,)

    f.defvjp(fwd, bwd)
    close(f(1.), np.sin(np.float32(1.)))
    assert calls == []
    y, f_vjp = jax.vjp(f, 1.)
    close(y, np.sin(np.float32(1.)))
    g, = f_vjp(2.)
    close(g, 14.)
    assert calls == ["fwd", "bwd"]


@pytest.mark.spec("AD-67")
def test_custom_vjp_dict_residuals(jax, jnp):
    @jax.custom_vjp
    def cube(x):
        return x ** 3

    cube.defvjp(lambda x: (x ** 3, {"sq": x * x, "k": 3.}),
                lambda r, g: (r["k"] * r["sq"] * g,))
    close(jax.grad(cube)(2.), 12.)


@pytest.mark.spec("AD-67")
def test_custom_vjp_function_as_nondiff_argument(jax, jnp):
    @functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
    def app(g, x):
        return g(x)

    def app_fwd(g, x):
        return g(x), x

    def app_bwd(g, x, ct):   # nondiff arguments come first
        return (5. * ct,)

    app.defvjp(app_fwd, app_bwd)
    close(app(jnp.sin, 2.), np.sin(np.float32(2.)))
    close(jax.grad(app, argnums=1)(jnp.sin, 2.), 5.)
    close(jax.grad(lambda x: app(lambda y: y * y, x))(2.), 5.)


@pytest.mark.spec("AD-67")
def test_custom_vjp_bwd_none_means_zero(jax, jnp):
    @jax.custom_vjp
    def f(d):
        return d["a"] * d["b"]

    f.defvjp(lambda d: (f(d), d), lambda d, g: ({"a": g * d["b"], "b": None},))
    g = jax.grad(f)({"a": 2., "b": 3.})
    close(g["a"], 3.)
    close(g["b"], 0.)


@pytest.mark.spec("AD-67")
def test_custom_vjp_keeps_name_and_stages_one_equation(jax, jnp):
    @jax.custom_vjp
    def v(x):
        """VDoc."""
        return x

    v.defvjp(lambda x: (x, None), lambda r, g: (g,))
    assert v.__name__ == "v" and v.__doc__ == "VDoc."
    assert eqn_names(jax, v, 1.) == ["custom_vjp_call"]


# -- AD-68: custom_vjp errors -------------------------------------------------------------

@pytest.mark.spec("AD-68")
@pytest.mark.parametrize("how", ["jvp", "jacfwd"])
def test_custom_vjp_has_no_forward_mode(jax, jnp, how):
    f = sin_times(jax, jnp)
    with raises(TypeError, "can't apply forward-mode autodiff (jvp) to a "
                           "custom_vjp function."):
        if how == "jvp":
            jax.jvp(f, (2., 3.), (1., 1.))
        else:
            jax.jacfwd(f)(2., 3.)


@pytest.mark.spec("AD-68")
def test_custom_vjp_without_defvjp(jax, jnp):
    @jax.custom_vjp
    def nov(x):
        return x

    with raises(AttributeError, "No VJP defined for custom_vjp function nov "
                                "using defvjp."):
        nov(1.)
    with raises(AttributeError, "No VJP defined for custom_vjp function nov "
                                "using defvjp."):
        jax.grad(nov)(1.)


@pytest.mark.spec("AD-68")
def test_custom_vjp_bwd_must_match_arguments(jax, jnp):
    @jax.custom_vjp
    def f(x, y):
        return x * y

    f.defvjp(lambda x, y: (x * y, (x, y)), lambda r, g: (g,))
    with raises(TypeError, "Custom VJP bwd rule must produce an output with the same "
                           "container (pytree) structure as the args tuple of the "
                           "primal function, and in particular must produce a tuple "
                           "of length equal to the number of arguments to the primal "
                           "function, but got bwd output structure PyTreeDef((*,)) "
                           "for primal input structure PyTreeDef((*, *))."):
        jax.grad(f)(1., 2.)


@pytest.mark.spec("AD-68")
def test_custom_vjp_bwd_must_return_a_tuple(jax, jnp):
    @jax.custom_vjp
    def f(x):
        return x * 2

    f.defvjp(lambda x: (x * 2, None), lambda r, g: g * 2)
    with raises(TypeError, "Custom VJP bwd rule must produce an output with the same "
                           "container (pytree) structure as the args tuple of the "
                           "primal function"):
        jax.grad(f)(1.)


@pytest.mark.spec("AD-68")
def test_custom_vjp_bwd_shape_mismatch(jax, jnp):
    @jax.custom_vjp
    def f(x):
        return x * 2

    f.defvjp(lambda x: (x * 2, None), lambda r, g: (jnp.ones(3),))
    with raises(ValueError, "Custom VJP bwd rule must produce an output with the "
                            "same type as the args tuple of the primal function, but "
                            "at output[0] the bwd rule produced an output of type "
                            "float32[3] corresponding to an input of type float32[], "
                            "so the shapes do not match"):
        jax.grad(f)(1.)


# -- AD-69: checkpoint / remat ---------------------------------------------------------------

def chain(jnp):
    return lambda x: jnp.sin(jnp.sin(x)) * jnp.cos(x)


def chain_grad(x):
    """d/dx sin(sin x) cos x, in float64."""
    x = np.float64(x)
    return np.cos(np.sin(x)) * np.cos(x) ** 2 - np.sin(np.sin(x)) * np.sin(x)


@pytest.mark.spec("AD-69")
@pytest.mark.parametrize("policy", [None, "nothing_saveable", "everything_saveable"])
def test_checkpoint_policies_give_the_same_gradient(jax, jnp, policy):
    g = chain(jnp)
    pol = None if policy is None else getattr(jax.checkpoint_policies, policy)
    ck = jax.checkpoint(g, policy=pol)
    close(ck(1.), g(1.))
    close(jax.grad(ck)(1.), jax.grad(g)(1.))
    close(jax.grad(ck)(1.), chain_grad(1.), rtol=1e-5)
    close(jax.jit(jax.grad(ck))(1.), chain_grad(1.), rtol=1e-5)


@pytest.mark.spec("AD-69")
def test_remat_is_checkpoint(jax, jnp):
    g = chain(jnp)
    close(jax.grad(jax.remat(g))(1.), chain_grad(1.), rtol=1e-5)


@pytest.mark.spec("AD-69")
def test_checkpoint_static_argnums(jax, jnp):
    @functools.partial(jax.checkpoint, static_argnums=(1,))
    def repeat_sin(x, n):
        for _ in range(n):   # n is a Python int: static
            x = jnp.sin(x)
        return x

    want = np.cos(np.sin(np.float64(1.))) * np.cos(1.)
    close(jax.grad(repeat_sin)(1., 2), want, rtol=1e-5)
    close(jax.jit(jax.grad(repeat_sin), static_argnums=1)(1., 2), want, rtol=1e-5)


@pytest.mark.spec("AD-69")
def test_checkpoint_higher_order(jax, jnp):
    ck = jax.checkpoint(jnp.sin)
    close(jax.grad(jax.grad(ck))(1.), -np.sin(np.float32(1.)))
    out, tan = jax.jvp(ck, (1.,), (2.,))
    close(tan, 2 * np.cos(np.float32(1.)))


@pytest.mark.spec("AD-69")
def test_checkpoint_stages_one_equation(jax, jnp):
    assert eqn_names(jax, jax.checkpoint(jnp.sin), 1.) == ["remat2"]


# -- AD-67: closure_convert ------------------------------------------------------------------

def apply_with_custom_vjp(jax):
    """``fn(x, *args)`` with a custom_vjp whose bwd differentiates ``fn``;
    ``fn`` is a nondiff argument, so values it closes over must be hoisted
    into ``args`` to get cotangents."""
    @functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
    def apply(fn, x, *args):
        return fn(x, *args)

    def fwd(fn, x, *args):
        return fn(x, *args), (x, args)

    def bwd(fn, res, g):
        x, args = res
        return jax.vjp(fn, x, *args)[1](g)

    apply.defvjp(fwd, bwd)
    return apply


@pytest.mark.spec("AD-67")
def test_closure_convert_with_custom_vjp(jax, jnp):
    apply = apply_with_custom_vjp(jax)
    hoisted = []

    def f(w, x):
        conv, consts = jax.closure_convert(lambda x: jnp.sin(x) * w, x)
        hoisted.append(len(consts))
        return apply(conv, x, *consts)

    for fn in (jax.grad(f, argnums=(0, 1)), jax.jit(jax.grad(f, argnums=(0, 1)))):
        gw, gx = fn(3., 2.)
        close(gw, np.sin(np.float32(2.)), rtol=1e-5)
        close(gx, 3. * np.cos(np.float32(2.)), rtol=1e-5)
    assert hoisted == [1, 1]


@pytest.mark.spec("AD-67")
def test_closure_convert_hoists_only_differentiable_tracers(jax, jnp):
    hoisted = []

    def h(w, n):
        conv, consts = jax.closure_convert(lambda x: x * w + n, 1.)
        hoisted.append(len(consts))
        return conv(2., *consts)

    close(jax.jit(h)(3., 4), 10.)    # w is a float tracer, n an int tracer
    close(h(3., 4), 10.)             # concrete values: nothing to hoist
    assert hoisted == [1, 0]
    conv, consts = jax.closure_convert(lambda x: x * np.arange(2.), 1.)
    assert consts == []
    close(conv(2.), [0., 2.])


@pytest.mark.spec("AD-67")
def test_closure_convert_checks_argument_structure(jax, jnp):
    conv, _ = jax.closure_convert(lambda x: x[0] * 2, (1.,))
    close(conv((3.,)), 6.)
    with raises(TypeError, "The inputs to the closure produced by closure_convert "
                           "must have the same Pytree structure as the example "
                           "arguments passed when closure_convert was called."):
        conv(1.)
