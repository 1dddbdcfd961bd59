"""refjax-only checks of the extension surface's internals (SPEC EXT-1,
EXT-3, EXT-5, EXT-6, EXT-7)."""
import numpy as np
import pytest

import refjax as jax
import refjax.numpy as jnp
from refjax.extend import core as xc
from refjax.extend import linear_util as lu
from refjax.interpreters import ad, batching, mlir
from refjax.interpreters import partial_eval as pe


@pytest.mark.spec("EXT-3")
def test_mlir_only_rule_and_other_platforms():
    p = xc.Primitive("ext_mlir_only")
    p.def_abstract_eval(lambda x: x)
    mlir.register_lowering(p, lambda ctx, x: [x])
    with pytest.raises(NotImplementedError, match="only an MLIR lowering"):
        p.bind(np.float32(1))
    q = xc.Primitive("ext_tpu_only")
    q.def_abstract_eval(lambda x: x)
    q.def_impl(lambda x: x + 1)
    mlir.register_lowering(q, mlir.lower_fun(lambda x: x * 10, False), platform="tpu")
    assert q.bind(np.float32(1)) == 2           # the tpu rule is not used
    with pytest.raises(NotImplementedError, match="MLIR"):
        mlir.lower_fun(lambda x: x)(None, 1)
    with pytest.raises(TypeError):
        mlir.register_lowering("not a primitive", mlir.lower_fun(lambda x: x))


@pytest.mark.spec("EXT-1", "EXT-2")
def test_tables_delete_and_reject():
    p = xc.Primitive("ext_tables")
    ad.primitive_jvps[p] = lambda primals, tangents: (primals[0], tangents[0])
    assert p.jvp is not None and p in list(ad.primitive_jvps)
    del ad.primitive_jvps[p]
    assert p.jvp is None and p not in ad.primitive_jvps
    with pytest.raises(KeyError):
        del ad.primitive_jvps[p]
    with pytest.raises(TypeError):
        ad.primitive_jvps["x"] = lambda *a: a
    batching.axis_primitive_batchers[p] = lambda size, name, tt, vals, dims: (vals[0], dims[0])
    assert p.batch is not None
    del batching.primitive_batchers[p]
    assert p.batch is None


@pytest.mark.spec("EXT-1")
def test_flat_jvp_and_linearize():
    outs, touts = ad.jvp(lambda x, y: [x * y], [2.0, 3.0], [1.0, 0.0])
    assert outs[0] == 6.0 and touts[0] == 3.0
    outs, f_lin = ad.linearize(lambda x: [jnp.sin(x)], [0.5])
    np.testing.assert_allclose(f_lin(2.0)[0], 2 * np.cos(0.5), rtol=1e-6)


@pytest.mark.spec("EXT-5")
def test_trace_to_jaxpr_helpers():
    from refjax._src.core import ShapedArray
    aval = ShapedArray((3,), np.float32)
    jaxpr, out_avals, consts = pe.trace_to_jaxpr_dynamic(lambda x: [jnp.sin(x)], [aval])
    assert out_avals == [aval] and consts == []
    assert [e.primitive.name for e in jaxpr.eqns] == ["sin"]
    pvals = [pe.PartialVal.known(jnp.float32(2.0)), pe.PartialVal.unknown(aval)]
    jaxpr, out_pvals, consts = pe.trace_to_jaxpr_nounits(
        lambda k, u: [k * 3, k * u], pvals)
    assert out_pvals[0].is_known() and out_pvals[0].get_known() == 6.0
    assert not out_pvals[1].is_known()
    res = jax.core.eval_jaxpr(jaxpr, consts, jnp.ones(3))
    np.testing.assert_allclose(res[0], np.full(3, 2.0))
    closed = jax.make_jaxpr(lambda x: x * 2 + 1)(1.0)
    jaxpr2, used_consts, used_in = pe.dce_jaxpr_consts(closed.jaxpr, [True])
    assert used_in == [True] and used_consts == []


@pytest.mark.spec("EXT-6")
def test_linear_util_forms():
    def f(x):
        return x + 1

    def gen_double(x):
        y = yield (x * 2,), {}
        yield y * 10

    def gen_aux(x):
        y = yield (x,), {}
        yield y, "aux"

    fun = lu.transformation(gen_double, lu.wrap_init(f))
    assert fun.call_wrapped(3) == 70
    fun, aux = lu.transformation_with_aux(gen_aux, lu.wrap_init(f))
    assert fun.call_wrapped(1) == 2 and aux() == "aux"

    def store_twice(inner, store, x):
        store.store(x)
        return inner(x)

    fun, aux = lu.transformation_with_aux2(store_twice, lu.wrap_init(f))
    with pytest.raises(lu.StoreException):
        aux()
    assert fun.call_wrapped(5) == 6 and aux() == 5
    calls = []
    cached = lu.cache(lambda fun, n: calls.append(n) or fun.call_wrapped(n))
    w = lu.wrap_init(f)
    assert cached(w, 1) == 2 and cached(w, 1) == 2 and calls == [1]


@pytest.mark.spec("EXT-9")
def test_ref_crossings_refjax_cannot_express():
    """A staged trace with no scope for Refs (custom_linear_solve) refuses
    one from outside; a Ref that outlived its transformation is refused
    too."""
    r = jax.new_ref(jnp.zeros(3))

    def write(x):
        r[...] = x
        return x

    with pytest.raises(Exception, match="vmapped value"):
        jax.vmap(write)(jnp.ones((2, 3)))
    with pytest.raises(TypeError, match="jax.Ref"):
        jax.lax.custom_linear_solve(lambda x: x * r[...], jnp.ones(3),
                                    lambda mv, b: b)
    with pytest.raises(TypeError, match="not a valid JAX type"):
        jax.vmap(lambda q: q[...])(r)       # a mapped Ref argument
    np.testing.assert_array_equal(r[...], np.zeros(3))
    leaked = []
    jax.jit(lambda x: leaked.append(jax.new_ref(x)) or x)(1.0)
    with pytest.raises(TypeError, match="after that transformation finished"):
        leaked[0][...]


@pytest.mark.spec("EXT-9")
def test_ref_plan_and_cache():
    """A jit capturing a top-level Ref caches its trace; the jaxpr has the
    Ref's value as a trailing input and, when written, a trailing output."""
    r = jax.new_ref(jnp.zeros(3))
    traces = []

    @jax.jit
    def f(x):
        traces.append(1)
        r[...] += x
        return x * 2

    f(1.0)
    f(2.0)
    np.testing.assert_array_equal(r[...], np.full(3, 3.0))
    assert len(traces) == 1
    closed = jax.make_jaxpr(f)(1.0)     # make_jaxpr's trace lets r in too
    assert len(closed.jaxpr.invars) == 2 and len(closed.jaxpr.outvars) == 2
    inner = closed.jaxpr.eqns[0].params["jaxpr"].jaxpr
    assert len(inner.invars) == 2 and len(inner.outvars) == 2


@pytest.mark.spec("EXT-11", "EXT-12")
def test_threaded_refs_in_cond_and_checkpoint_jaxprs():
    """A Ref a cond branch or a checkpointed function reaches is a trailing
    operand and, when written, a trailing output of the equation; a
    checkpointed write under grad runs once (JAX replays it on the
    backward pass)."""
    r = jax.new_ref(jnp.zeros(3))
    closed = jax.make_jaxpr(lambda p: jax.lax.cond(
        p, lambda: r.__setitem__(Ellipsis, r[...] + 1), lambda: None))(True)
    eqn = closed.jaxpr.eqns[-1]
    assert eqn.primitive.name == "cond" and len(eqn.invars) == 2
    assert [str(a) for a in closed.out_avals] == ["float32[3]"]
    read_only = jax.make_jaxpr(lambda p: jax.lax.cond(p, lambda: r[0], lambda: 1.0))(True)
    assert len(read_only.jaxpr.outvars) == 1
    s = jax.new_ref(2.0)

    @jax.checkpoint
    def f(x):
        s[...] += 1.0
        return jnp.sin(x) * s[...]

    closed = jax.make_jaxpr(f)(1.0)
    assert closed.jaxpr.eqns[0].primitive.name == "remat2"
    assert len(closed.jaxpr.invars) == 2 and len(closed.jaxpr.outvars) == 2
    assert s[...] == 2.0
    np.testing.assert_allclose(jax.grad(f)(1.0), 3 * np.cos(1.0), rtol=1e-6)
    assert s[...] == 3.0

    def made_inside(x):
        q = jax.new_ref(jnp.zeros(()))

        @jax.checkpoint
        def g(y):
            q[...] = q[...] + y * y
            return jnp.sin(y)

        return g(x) + q[...]

    np.testing.assert_allclose(jax.grad(made_inside)(2.0), np.cos(2.0) + 4.0, rtol=1e-6)


@pytest.mark.spec("EXT-12")
def test_custom_derivative_functions_refjax_cannot_stage():
    """A custom_vjp function reaching a Ref is refused when staged without
    differentiation (JAX runs it); a custom_jvp one gives JAX's
    NotImplementedError wherever it is staged."""
    s = jax.new_ref(2.0)

    @jax.custom_vjp
    def g(x):
        s[...] += 1.0
        return x * s[...]

    g.defvjp(lambda x: (g(x), x), lambda x, ct: (ct * s[...],))
    with pytest.raises(TypeError, match="cannot stage a custom_vjp function"):
        jax.jit(g)(1.0)
    with pytest.raises(TypeError, match="cannot stage a custom_vjp function"):
        jax.lax.cond(True, g, g, 1.0)

    @jax.custom_jvp
    def f(x):
        return x * s[...]

    f.defjvp(lambda p, t: (f(p[0]), t[0] * s[...]))
    with pytest.raises(NotImplementedError, match="custom_jvp_call"):
        jax.make_jaxpr(f)(1.0)
    with pytest.raises(NotImplementedError, match="custom_jvp_call"):
        jax.grad(jax.jit(f))(1.0)       # JAX differentiates this one
    assert s[...] == 2.0
