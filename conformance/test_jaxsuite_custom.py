"""custom_jvp / custom_vjp / custom_vmap as JAX's own test suite uses them
(SPEC CDR-10 .. CDR-20): argument resolution, stacked decorators, eager
Python control flow, symbolic zeros and closures under vmap, collectives,
the rules' output checks, custom_lin and closure_convert."""
import functools
import importlib

import numpy as np
import pytest


@pytest.fixture
def cb(jax):
    return importlib.import_module(jax.__name__ + ".custom_batching")


@pytest.fixture
def set_option(jax):
    """``set_option(name, value)`` for the rest of the test."""
    saved = {}

    def set_(name, value):
        saved.setdefault(name, getattr(jax.config, name))
        jax.config.update(name, value)
    yield set_
    for name, value in saved.items():
        jax.config.update(name, value)


# ---------------------------------------------------------------------------
# CDR-10: keyword arguments
# ---------------------------------------------------------------------------

@pytest.mark.spec("CDR-10")
@pytest.mark.parametrize("kind", ["custom_jvp", "custom_vjp", "custom_vmap"])
def test_unbindable_calls_name_the_decorator(jax, jnp, cb, kind):
    def fun(x, y, *, z=None):
        return jnp.sin(x) * y
    if kind == "custom_jvp":
        f = jax.custom_jvp(fun)
        f.defjvp(lambda p, t: (fun(*p), t[0]))
    elif kind == "custom_vjp":
        f = jax.custom_vjp(fun)
        f.defvjp(lambda x, y: (fun(x, y), None), lambda r, g: (g, g))
    else:
        f = cb.custom_vmap(fun)
        f.def_vmap(lambda n, b, x, y: (fun(x, y), True))
    head = f"The input arguments to the {kind}-decorated function fun"
    with pytest.raises(TypeError, match=head + r"(.*)\nmissing a required argument: 'y'"):
        f(0.25)
    with pytest.raises(TypeError, match=head + r"(.*)\nThe following keyword arguments "
                       "could not be resolved to positions: z"):
        f(0.25, 2.0, z=3.0)


@pytest.mark.spec("CDR-10")
def test_keywords_move_to_their_positions(jax, jnp):
    @jax.custom_jvp
    def f(x, y=3.0):
        return x * y

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, y), (tx, _) = primals, tangents
        return x * y, 10.0 * tx      # a rule unlike the true derivative
    out, t = jax.jvp(lambda x: f(y=2.0, x=x), (1.5,), (1.0,))
    np.testing.assert_allclose(out, 3.0)
    np.testing.assert_allclose(t, 10.0)


@pytest.mark.spec("CDR-10")
def test_functools_partial_keeps_its_keywords(jax, jnp):
    def fun(x, y, a):
        return x + y * a
    wrapped = functools.partial(fun, a=0.25)
    f = jax.custom_jvp(wrapped)
    f.defjvp(lambda primals, tangents: jax.jvp(wrapped, primals, tangents))
    gx, gy = jax.grad(lambda xy: f(*xy))((1.0, 2.0))
    np.testing.assert_allclose([gx, gy], [1.0, 0.25])


# ---------------------------------------------------------------------------
# CDR-11: def* forwarding
# ---------------------------------------------------------------------------

@pytest.mark.spec("CDR-11")
def test_stacked_decorators_forward_def_methods(jax, cb):
    def base(x):
        return x * 2.0
    for outer, inner, methods in [
            (cb.custom_vmap, jax.custom_jvp, ["defjvp", "def_vmap"]),
            (jax.custom_jvp, cb.custom_vmap, ["defjvp", "def_vmap"]),
            (cb.custom_vmap, jax.custom_vjp, ["defvjp", "def_vmap"]),
            (jax.custom_vjp, cb.custom_vmap, ["defvjp", "def_vmap"])]:
        f = outer(inner(base))
        for m in methods:
            assert callable(getattr(f, m))
        with pytest.raises(AttributeError):
            f.no_such_attribute


@pytest.mark.spec("CDR-11")
def test_forwarded_vmap_rule_is_used(jax, jnp, cb):
    @jax.custom_vjp
    @cb.custom_vmap
    def f(x, y):
        return jnp.sin(x) * y

    @f.def_vmap
    def rule(axis_size, in_batched, xs, ys):
        return jnp.cos(xs) * ys, True     # visibly not the function

    f.defvjp(lambda x, y: (f(x, y), (jnp.cos(x), jnp.sin(x), y)),
             lambda r, g: (r[0] * g * r[2], r[1] * g))
    xs = np.linspace(0.0, 1.0, 4).astype(np.float32)
    ys = np.linspace(-1.0, 1.0, 4).astype(np.float32)
    np.testing.assert_allclose(jax.vmap(f)(xs, ys), np.cos(xs) * ys, rtol=1e-6)
    np.testing.assert_allclose(jax.grad(f)(0.5, 2.0), np.cos(0.5) * 2.0, rtol=1e-6)


# ---------------------------------------------------------------------------
# CDR-12: plain Python where JAX runs it
# ---------------------------------------------------------------------------

@pytest.mark.spec("CDR-12")
def test_custom_jvp_python_branches_under_jvp_and_grad(jax, jnp):
    @jax.custom_jvp
    def f(x):
        return jnp.exp(x) if x < 1 else jnp.log(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), (4.0 if x < 1 else 5.0) * t
    np.testing.assert_allclose(f(0.5), np.exp(0.5), rtol=1e-6)
    np.testing.assert_allclose(jax.jvp(f, (3.0,), (1.0,))[1], 5.0)
    np.testing.assert_allclose(jax.grad(f)(0.5), 4.0)
    np.testing.assert_allclose(jax.grad(f)(3.0), 5.0)


@pytest.mark.spec("CDR-12")
def test_custom_vjp_python_branches_and_fun_never_called(jax, jnp):
    calls = []

    @jax.custom_vjp
    def f(x):
        calls.append("fun")
        return jnp.exp(x) if x < 1 else jnp.log(x)

    def fwd(x):
        return (jnp.exp(x) if x < 1 else jnp.log(x)), x

    def bwd(x, g):
        return ((6.0 if x < 1 else 7.0) * g,)
    f.defvjp(fwd, bwd)
    v, g = jax.value_and_grad(f)(3.0)
    np.testing.assert_allclose([v, g], [np.log(3.0), 7.0], rtol=1e-6)
    np.testing.assert_allclose(jax.grad(f)(0.25), 6.0)
    assert calls == []
    f(2.0)
    assert calls == ["fun"]


@pytest.mark.spec("CDR-12")
def test_compile_time_eval_gives_concrete_arguments(jax, jnp):
    seen = []

    @jax.custom_jvp
    def f(x):
        seen.append(bool(x == 2.0))     # raises on a tracer
        return x * 3.0
    f.defjvp(lambda p, t: (f(p[0]), t[0]))

    @jax.jit
    def g():
        with jax.ensure_compile_time_eval():
            return f(2.0)
    np.testing.assert_allclose(g(), 6.0)
    assert seen == [True]


# ---------------------------------------------------------------------------
# CDR-13: jax_custom_vjp3
# ---------------------------------------------------------------------------

def _closing_over(jax, jnp, x):
    @jax.custom_vjp
    def f(y):
        return x * y
    f.defvjp(lambda y: (x * y, jnp.cos(y)), lambda c, g: (c * g,))
    return f


@pytest.mark.spec("CDR-13")
def test_closing_over_a_vmapped_value(jax, jnp, set_option):
    xs = np.arange(4.0, dtype=np.float32)
    out = jax.vmap(lambda x: _closing_over(jax, jnp, x)(2.5))(xs)
    np.testing.assert_allclose(out, xs * 2.5)
    set_option("jax_custom_vjp3", True)
    with pytest.raises(jax.errors.UnexpectedTracerError, match="can't close over"):
        jax.vmap(lambda x: _closing_over(jax, jnp, x)(2.5))(xs)


@pytest.mark.spec("CDR-13")
def test_vjp3_fwd_output_type_message(jax, jnp, set_option):
    set_option("jax_custom_vjp3", True)

    @jax.custom_vjp
    def f(x):
        return x
    f.defvjp(lambda x: (jnp.zeros((2,) + x.shape, x.dtype), None), lambda r, g: (g,))

    def scanned(x):
        return jax.lax.scan(lambda c, _: (f(c), None), x, None, length=1)[0]
    with pytest.raises(TypeError, match=r"got fwd output type float32\[2\] which "
                       r"doesn't match primal output type float32\[\]"):
        jax.grad(scanned)(np.float32(1.0))


# ---------------------------------------------------------------------------
# CDR-14: symbolic zeros under vmap
# ---------------------------------------------------------------------------

@pytest.mark.spec("CDR-14")
@pytest.mark.parametrize("wrap", ["vmap", "vmap_jit", "jit_vmap"])
def test_custom_jvp_symbolic_zeros_under_vmap(jax, jnp, wrap):
    SymbolicZero = jax.custom_derivatives.SymbolicZero
    seen = []

    @jax.custom_jvp
    def f(x, y):
        return x * y

    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        seen.append((type(tx) is SymbolicZero, type(ty) is SymbolicZero))
        return f(x, y), ty           # a zero handed back untouched
    f.defjvp(f_jvp, symbolic_zeros=True)
    g = {"vmap": jax.vmap(f), "vmap_jit": jax.vmap(jax.jit(f)),
         "jit_vmap": jax.jit(jax.vmap(f))}[wrap]
    xs = np.arange(3.0, dtype=np.float32)
    ys = np.full(3, 2.0, np.float32)
    out, t = jax.jvp(lambda x: g(x, ys), (xs,), (np.ones(3, np.float32),))
    np.testing.assert_allclose(out, xs * 2.0)
    np.testing.assert_allclose(t, np.zeros(3))
    assert seen and all(s == (False, True) for s in seen)


@pytest.mark.spec("CDR-14")
def test_zero_from_primal_under_vmap_of_jit(jax, jnp):
    @jax.custom_jvp
    def f(x):
        return x * 2.0

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), _ = primals, tangents
        return f(x), jax.custom_derivatives.zero_from_primal(x, symbolic_zeros=True)
    xs = np.arange(3.0, dtype=np.float32)
    out, t = jax.jvp(jax.vmap(jax.jit(f)), (xs,), (xs,))
    np.testing.assert_allclose(out, xs * 2.0)
    np.testing.assert_allclose(t, np.zeros(3))


@pytest.mark.spec("CDR-14")
def test_custom_vjp_bwd_returns_symbolic_zero_under_vmap(jax, jnp):
    SymbolicZero = jax.custom_derivatives.SymbolicZero
    seen = []

    @jax.custom_vjp
    def f(x, y):
        return x * 3.0, y

    def fwd(x, y):
        return f(x.value, y.value), None

    def bwd(_, g):
        seen.append(type(g[1]) is SymbolicZero)
        return (g[0] * 3.0, g[1])
    f.defvjp(fwd, bwd, symbolic_zeros=True)
    xs = np.arange(3.0, dtype=np.float32)
    gx, gy = jax.grad(lambda x, y: jax.vmap(f)(x, y)[0].sum(), (0, 1))(xs, xs)
    np.testing.assert_allclose(gx, np.full(3, 3.0))
    np.testing.assert_allclose(gy, np.zeros(3))
    assert seen == [True]


# ---------------------------------------------------------------------------
# CDR-15: the bwd rule's output
# ---------------------------------------------------------------------------

@pytest.mark.spec("CDR-15")
def test_bwd_leaf_stands_for_a_pytree_argument(jax, jnp):
    @jax.custom_vjp
    def f(pair, y):
        return (pair[0] + pair[1]) * y
    f.defvjp(lambda pair, y: (f(pair, y), (pair, y)),
             lambda r, g: (r[1] * g, (r[0][0] + r[0][1]) * g))
    (ga, gb), gy = jax.grad(f, (0, 1))((1.0, 2.0), 4.0)
    np.testing.assert_allclose([ga, gb, gy], [4.0, 4.0, 3.0])


@pytest.mark.spec("CDR-15")
def test_bwd_symbolic_zero_of_the_wrong_type(jax, jnp):
    @jax.custom_vjp
    def f(x, y):
        return x, y
    f.defvjp(lambda x, y: (f(x.value, y.value), None),
             lambda _, g: (g[1], g[0]), symbolic_zeros=True)     # swapped
    with pytest.raises(ValueError, match="Consider just returning a None here"):
        jax.grad(lambda x, y: f(x, y)[0].sum())(jnp.ones(2), jnp.ones(5))


@pytest.mark.spec("CDR-15")
def test_bwd_shape_check_and_its_option(jax, jnp, set_option):
    @jax.custom_vjp
    def f(x, y):
        return x * 1.0
    f.defvjp(lambda x, y: (f(x, y), None), lambda _, g: (g, jnp.zeros(2)))

    def loss(x, y):
        return f(x, y).sum()
    with pytest.raises(ValueError, match="must produce an output with the same type"):
        jax.grad(loss, 1)(jnp.ones(2), jnp.ones(6))
    set_option("jax_disable_bwd_checks", True)
    jax.grad(loss, 0)(jnp.ones(2), jnp.ones(6))


# ---------------------------------------------------------------------------
# CDR-16: rules closing over vmapped values
# ---------------------------------------------------------------------------

@pytest.mark.spec("CDR-16")
def test_jvp_rule_closing_over_the_vmapped_value(jax, jnp):
    def h(z):
        def per_example(x):
            @jax.custom_jvp
            def g(y):
                return x * y

            @g.defjvp
            def g_jvp(primals, tangents):
                return x * primals[0], x * tangents[0]
            return g(z)
        return jax.vmap(per_example)(jnp.arange(4.0))
    out, t = jax.jvp(h, (np.float32(2.0),), (np.float32(3.0),))
    np.testing.assert_allclose(out, 2.0 * np.arange(4.0))
    np.testing.assert_allclose(t, 3.0 * np.arange(4.0))


@pytest.mark.spec("CDR-16")
def test_fwd_rule_closing_over_the_vmapped_value(jax, jnp):
    def h(z):
        def per_example(x):
            @jax.custom_vjp
            def g(y):
                return x * y
            g.defvjp(lambda y: (x * y, x), lambda x_, w: (x_ * w,))
            return g(z)
        return jax.vmap(per_example)(jnp.arange(4.0)).sum()
    np.testing.assert_allclose(jax.grad(h)(np.float32(1.5)), np.arange(4.0).sum())


@pytest.mark.spec("CDR-16")
def test_vmapped_nondiff_argument_reaches_the_rule(jax, jnp):
    @functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
    def f(x, y):
        return x * y

    def f_jvp(x, primals, tangents):
        return f(x, primals[0]), 7.0 * tangents[0]
    f.defjvp(f_jvp)
    out, t = jax.jvp(lambda y: jax.vmap(f)(jnp.array([2.0, 3.0]), y),
                     (jnp.array([4.0, 5.0]),), (jnp.array([1.0, 1.0]),))
    np.testing.assert_allclose(out, [8.0, 15.0])
    np.testing.assert_allclose(t, [7.0, 7.0])


# ---------------------------------------------------------------------------
# CDR-17: collectives
# ---------------------------------------------------------------------------

@pytest.mark.spec("CDR-17")
@pytest.mark.parametrize("kind", ["custom_jvp", "custom_vjp"])
def test_staged_collective_under_named_vmap(jax, jnp, kind):
    def body(x):
        return jax.lax.psum(x, "i")
    if kind == "custom_jvp":
        f = jax.custom_jvp(body)
        f.defjvp(lambda p, t: (body(p[0]), t[0]))
    else:
        f = jax.custom_vjp(body)
        f.defvjp(lambda x: (body(x), None), lambda _, g: (g,))

    def g(x):
        closed = jax.make_jaxpr(f)(x)
        return jax.core.eval_jaxpr(closed.jaxpr, closed.consts, x)[0]
    out = jax.vmap(lambda _, x: g(x), axis_name="i", in_axes=(0, None),
                   out_axes=None)(jnp.arange(5.0), 1.5)
    np.testing.assert_allclose(out, 7.5)


# ---------------------------------------------------------------------------
# CDR-18: the rules' primal outputs
# ---------------------------------------------------------------------------

def _scanned(jax, f):
    return lambda x: jax.lax.scan(lambda c, _: (f(c), None), x, None, length=1)[0]


@pytest.mark.spec("CDR-18")
def test_jvp_rule_primal_structure_and_type(jax, jnp):
    @jax.custom_jvp
    def f(x):
        return x
    f.defjvp(lambda p, t: ((p[0], p[0]), (t[0], t[0])))
    x = np.float32(2.0)
    with pytest.raises(TypeError, match=r"Custom JVP rule <lambda> for function f must "
                       r"produce a pair(.|\n)*container/pytree structure:\n"
                       r"    \(float32\[\], float32\[\]\)\n"):
        jax.jvp(_scanned(jax, f), (x,), (x,))
    f.defjvp(lambda p, t: (jnp.zeros((4,)), t[0]))
    with pytest.raises(TypeError, match=r"had shapes/dtypes of:\n    float32\[4\]\n"
                       r"while the custom_jvp-decorated function f had output "
                       r"shapes/dtypes of:\n    float32\[\]"):
        jax.jvp(_scanned(jax, f), (x,), (x,))


@pytest.mark.spec("CDR-18")
def test_fwd_rule_primal_type(jax, jnp):
    @jax.custom_vjp
    def f(x):
        return x
    f.defvjp(lambda x: (jnp.zeros((4,)), None), lambda _, g: (g,))
    with pytest.raises(TypeError, match=r"Custom VJP fwd rule <lambda> for function f "
                       r"must produce a pair(.|\n)*float32\[4\]\nwhile the "
                       r"custom_vjp-decorated function f had output shapes/dtypes"):
        jax.grad(_scanned(jax, f))(np.float32(2.0))


# ---------------------------------------------------------------------------
# CDR-19: custom_lin
# ---------------------------------------------------------------------------

@pytest.mark.spec("CDR-19")
def test_custom_lin_equation(jax, jnp):
    @jax.custom_vjp
    def f(x, y):
        return x * y
    f.defvjp(lambda x, y: (f(x, y), (x, y)), lambda r, g: (r[1] * g, r[0] * g))
    x = jnp.ones(2)
    text = str(jax.make_jaxpr(lambda t: jax.jvp(lambda a: f(a, x), (x,), (t,)))(x))
    lin = text[text.index("custom_lin["):]
    assert "in_zeros=[False, True]" in lin and "num_res=2" in lin
    assert "symbolic_zeros=False" in lin and "res_tree" not in lin
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jax.jvp(lambda a: f(a, x), (x,), (x,))
    np.testing.assert_allclose(jax.grad(lambda a: f(a, 3.0))(2.0), 3.0)


# ---------------------------------------------------------------------------
# CDR-20: closure_convert
# ---------------------------------------------------------------------------

@pytest.mark.spec("CDR-20")
def test_closure_convert_arguments_then_constants(jax, jnp):
    def f(x, z):
        return z * x
    _, f_vjp = jax.vjp(f, 2.0, 5.0)
    pure, consts = jax.closure_convert(f_vjp, 2.0)
    got = pure(1.0, *consts)
    np.testing.assert_allclose(got, f_vjp(1.0))
    with pytest.raises(TypeError, match="The inputs to the closure produced by "
                       "closure_convert"):
        pure(1.0, consts)
