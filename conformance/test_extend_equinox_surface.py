"""The internals that libraries built on JAX (equinox) read: library-frame
registration, a transformation's identity, tangent types, re-binding jaxpr
equations and the calling conventions of user rules (SPEC EXT-14 .. EXT-18)."""
import os
import sys

import numpy as np
import pytest


@pytest.fixture(scope="module")
def mods(impl_module):
    return {n: impl_module(n) for n in (
        "core", "extend.core", "interpreters.ad", "interpreters.batching",
        "interpreters.mlir", "_src.traceback_util", "_src.api")}


# --- EXT-14: library frames ------------------------------------------------

@pytest.mark.spec("EXT-14")
def test_registered_folder_is_library_code(mods, tmp_path):
    tb = mods["_src.traceback_util"]
    lib = tmp_path / "somelib"
    assert tb.include_filename(str(lib / "mod.py"))
    tb.register_exclusion(str(lib))
    assert not tb.include_filename(str(lib / "mod.py"))
    assert not tb.include_filename(str(lib / "sub" / "deep.py"))
    # A sibling whose name merely starts the same is not under it.
    assert tb.include_filename(str(tmp_path / "somelib2" / "mod.py"))


@pytest.mark.spec("EXT-14")
def test_include_frame_reads_the_frame_file(mods, tmp_path):
    tb = mods["_src.traceback_util"]
    here = sys._getframe()
    assert tb.include_frame(here)        # this test file is user code
    tb.register_exclusion(os.path.abspath(__file__))
    try:
        assert not tb.include_frame(here)
    finally:
        tb._exclude_paths.remove(os.path.abspath(__file__))


@pytest.mark.spec("EXT-14")
def test_the_implementation_own_frames_are_library_code(mods):
    tb = mods["_src.traceback_util"]
    assert not tb.include_filename(mods["_src.api"].__file__)
    assert tb.include_filename(os.__file__)
    assert tb.api_boundary(len)("abc") == 3


# --- EXT-15: a transformation's identity -----------------------------------

@pytest.mark.spec("EXT-15")
def test_top_trace_main_identifies_jvp_tracers(jax, mods):
    xc = mods["extend.core"]
    seen = {}

    def f(x):
        top = xc.find_top_trace((x,))
        seen["same"] = x._trace.main is top.main
        y = x * 2.0
        seen["out"] = y._trace.main is top.main
        return y

    jax.jvp(f, (1.0,), (1.0,))
    assert seen == {"same": True, "out": True}


@pytest.mark.spec("EXT-15")
def test_nested_jvps_have_distinct_mains(jax, mods):
    xc = mods["extend.core"]
    seen = {}

    def outer(x):
        def inner(y):
            top = xc.find_top_trace((y,))
            seen["inner_is_outer"] = x._trace.main is top.main
            seen["inner_own"] = y._trace.main is top.main
            return x * y
        return jax.jvp(inner, (2.0,), (1.0,))[1]

    jax.jvp(outer, (3.0,), (1.0,))
    assert seen == {"inner_is_outer": False, "inner_own": True}


# --- EXT-16: tangent types --------------------------------------------------

@pytest.mark.spec("EXT-16")
@pytest.mark.parametrize("dtype,tangent", [
    ("float32", "float32"), ("float16", "float16"), ("complex64", "complex64"),
    ("int32", "float0"), ("bool", "float0"), ("uint8", "float0")])
def test_to_tangent_aval(jax, mods, dtype, tangent):
    aval = mods["core"].ShapedArray((2, 3), np.dtype(dtype))
    t = aval.to_tangent_aval()
    assert t.shape == (2, 3)
    want = jax.dtypes.float0 if tangent == "float0" else np.dtype(tangent)
    assert t.dtype == want


@pytest.mark.spec("EXT-16")
def test_to_tangent_aval_keeps_weak_type(jax, mods):
    aval = jax.typeof(1.0)
    assert aval.weak_type
    t = aval.to_tangent_aval()
    assert t.weak_type and t.dtype == aval.dtype and t.shape == ()


# --- EXT-17: re-binding equations ------------------------------------------

def _rebind_eval(jaxpr, consts, *args):
    """Evaluate a jaxpr by binding each equation again (equinox's loop)."""
    env = {}

    def read(v):
        return v.val if hasattr(v, "val") else env[v]

    for v, x in zip(jaxpr.constvars, consts):
        env[v] = x
    for v, x in zip(jaxpr.invars, args):
        env[v] = x
    for eqn in jaxpr.eqns:
        params = eqn.primitive.get_bind_params(dict(eqn.params))
        assert isinstance(params, dict)
        out = eqn.primitive.bind(*[read(v) for v in eqn.invars], **params)
        outs = out if eqn.primitive.multiple_results else [out]
        for v, o in zip(eqn.outvars, outs):
            env[v] = o
    return [read(v) for v in jaxpr.outvars]


def _sin_custom_jvp(jax, jnp):
    @jax.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), 3.0 * t
    return f


@pytest.mark.spec("EXT-17")
def test_rebinding_every_equation_reproduces_the_function(jax, jnp):
    f_c = _sin_custom_jvp(jax, jnp)

    def f(x, p):
        y = jax.jit(lambda v: jnp.cos(v) * 2.0)(x)
        z = jax.lax.cond(p, lambda v: v + 1.0, lambda v: v - 1.0, y)
        return f_c(z) + jnp.sum(x)

    x = jnp.array([0.5, 1.5])
    closed = jax.make_jaxpr(f)(x, True)
    for p in (True, False):
        got, = _rebind_eval(closed.jaxpr, closed.consts, x, p)
        np.testing.assert_allclose(np.asarray(got), np.asarray(f(x, p)), rtol=1e-6)
    # Under jit too: the re-bound equations are staged again.
    got = jax.jit(lambda x: _rebind_eval(closed.jaxpr, closed.consts, x, True)[0])(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(f(x, True)), rtol=1e-6)


@pytest.mark.spec("EXT-17")
def test_custom_jvp_call_bind_params_hold_the_functions(jax, jnp):
    f = _sin_custom_jvp(jax, jnp)
    closed = jax.make_jaxpr(f)(0.7)
    eqn, = [e for e in closed.jaxpr.eqns if e.primitive.name == "custom_jvp_call"]
    params = eqn.primitive.get_bind_params(dict(eqn.params))
    fun, jvp = params["subfuns"]
    out, = fun.call_wrapped(jnp.float32(0.7))
    np.testing.assert_allclose(np.asarray(out), np.sin(np.float32(0.7)), rtol=1e-6)
    p_out, t_out = jvp.call_wrapped(jnp.float32(0.7), jnp.float32(2.0))
    np.testing.assert_allclose(np.asarray(p_out), np.sin(np.float32(0.7)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(t_out), 6.0, rtol=1e-6)
    # Binding with them gives the function's value, and keeps its rule.
    x = jnp.float32(0.7)
    with_params = lambda x: eqn.primitive.bind(x, **params)[0]  # noqa: E731
    np.testing.assert_allclose(np.asarray(with_params(x)), np.sin(0.7), rtol=1e-6)
    _, t = jax.jvp(with_params, (x,), (jnp.float32(1.0),))
    np.testing.assert_allclose(np.asarray(t), 3.0, rtol=1e-6)


# --- EXT-18: calling conventions of user rules -----------------------------

_DOUBLE = {}


def _double_prim(jax, jnp, mods):
    """2 * x as a primitive whose rules record what they were given."""
    if id(jax) in _DOUBLE:
        return _DOUBLE[id(jax)]
    xc, ad = mods["extend.core"], mods["interpreters.ad"]
    batching, mlir = mods["interpreters.batching"], mods["interpreters.mlir"]
    p = xc.Primitive("double_rec")
    seen = {}

    def impl(x):
        return 2 * x

    def jvp(primals, tangents):
        seen["jvp"] = (type(primals), type(tangents))
        return p.bind(*primals), p.bind(*tangents)

    def batch(vals, dims):
        seen["batch"] = (type(vals), type(dims))
        return p.bind(*vals), dims[0]

    p.def_impl(impl)
    p.def_abstract_eval(lambda x: mods["core"].ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(p, mlir.lower_fun(impl, multiple_results=False))
    ad.primitive_jvps[p] = jvp
    ad.primitive_transposes[p] = lambda ct, x: [p.bind(ct)]
    batching.primitive_batchers[p] = batch
    _DOUBLE[id(jax)] = (p, impl, jvp, seen)
    return _DOUBLE[id(jax)]


@pytest.mark.spec("EXT-18")
def test_jvp_rule_receives_tuples(jax, jnp, mods):
    p, _, jvp, seen = _double_prim(jax, jnp, mods)
    out, t = jax.jvp(p.bind, (jnp.float32(1.5),), (jnp.float32(1.0),))
    assert seen["jvp"] == (tuple, tuple)
    assert float(out) == 3.0 and float(t) == 2.0
    assert mods["interpreters.ad"].primitive_jvps[p] is jvp


@pytest.mark.spec("EXT-18")
def test_batching_rule_receives_tuples(jax, jnp, mods):
    p, _, _, seen = _double_prim(jax, jnp, mods)
    out = jax.vmap(p.bind)(jnp.arange(3.0))
    assert seen["batch"] == (tuple, tuple)
    np.testing.assert_array_equal(np.asarray(out), [0.0, 2.0, 4.0])


@pytest.mark.spec("EXT-18")
def test_impl_runs_on_traced_values(jax, jnp, mods):
    p, _, _, _ = _double_prim(jax, jnp, mods)
    x = jnp.arange(3.0)
    np.testing.assert_array_equal(np.asarray(jax.jit(p.impl)(x)), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(np.asarray(jax.jit(p.bind)(x)), [0.0, 2.0, 4.0])
    closed = jax.make_jaxpr(p.impl)(x)
    assert "double_rec" not in str(closed)
