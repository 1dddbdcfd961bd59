"""The extension surface: a primitive defined only through JAX's public
extension API (as in JAX's "How JAX primitives work" tutorial) under jit,
grad, jvp and vmap; the rule tables; jax.core/jax.extend extras
(SPEC EXT-1 .. EXT-6, EXT-8)."""
import importlib

import numpy as np
import pytest


@pytest.fixture(scope="module")
def mods(impl_module):
    return {n: impl_module(n) for n in (
        "core", "extend.core", "interpreters.ad", "interpreters.batching",
        "interpreters.mlir", "interpreters.partial_eval", "extend",
        "extend.backend", "extend.linear_util", "extend.source_info_util")}


_PRIMS = {}


def _multiply_add(jax, jnp, mods):
    """x * y + z as a new primitive, defined through the public surface."""
    key = id(jax)
    if key in _PRIMS:
        return _PRIMS[key]
    xc, ad = mods["extend.core"], mods["interpreters.ad"]
    batching, mlir = mods["interpreters.batching"], mods["interpreters.mlir"]
    p = xc.Primitive("multiply_add")

    def fn(x, y, z):
        return p.bind(x, y, z)

    def impl(x, y, z):
        return x * y + z

    p.def_impl(impl)
    p.def_abstract_eval(lambda x, y, z: mods["core"].ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(p, mlir.lower_fun(impl, multiple_results=False))

    def jvp(primals, tangents):
        x, y, z = primals
        inst = [jnp.zeros_like(v) if type(t) is ad.Zero else t
                for v, t in zip(primals, tangents)]
        return fn(x, y, z), fn(inst[0], y, fn(x, inst[1], inst[2]))

    def transpose(ct, x, y, z):
        if not ad.is_undefined_primal(x):
            cy = ad.Zero(y.aval) if type(ct) is ad.Zero else fn(x, ct, jnp.zeros_like(x))
            return None, cy, ct
        cx = ad.Zero(x.aval) if type(ct) is ad.Zero else fn(ct, y, jnp.zeros_like(y))
        return cx, None, ct

    def batch(vals, dims):
        size = next(v.shape[d] for v, d in zip(vals, dims) if d is not None)
        vals = [batching.bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
        return fn(*vals), 0

    ad.primitive_jvps[p] = jvp
    ad.primitive_transposes[p] = transpose
    batching.primitive_batchers[p] = batch
    _PRIMS[key] = (p, fn, jvp, transpose)
    return _PRIMS[key]


def _xyz(jnp):
    rng = np.random.RandomState(0)
    x, y, z = (rng.randn(3).astype(np.float32) for _ in range(3))
    return x, y, z


@pytest.mark.spec("EXT-3")
def test_tutorial_primitive_eager_and_jit(jax, jnp, mods):
    p, fn, _, _ = _multiply_add(jax, jnp, mods)
    x, y, z = _xyz(jnp)
    np.testing.assert_allclose(fn(x, y, z), x * y + z, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(fn)(x, y, z), x * y + z, rtol=1e-6)
    out = jax.jit(fn)(x, y, z)
    assert out.dtype == jnp.float32 and out.shape == (3,)
    text = str(jax.make_jaxpr(fn)(x, y, z))
    assert "d:f32[3] = multiply_add a b c" in text


@pytest.mark.spec("EXT-1", "EXT-3")
def test_tutorial_primitive_grad_and_jvp(jax, jnp, mods):
    _, fn, _, _ = _multiply_add(jax, jnp, mods)
    x, y, z = _xyz(jnp)
    gx, gy, gz = jax.grad(lambda a, b, c: fn(a, b, c).sum(), argnums=(0, 1, 2))(x, y, z)
    np.testing.assert_allclose(gx, y, rtol=1e-6)
    np.testing.assert_allclose(gy, x, rtol=1e-6)
    np.testing.assert_allclose(gz, np.ones(3), rtol=1e-6)
    out, t = jax.jvp(fn, (x, y, z), (x, y, z))
    np.testing.assert_allclose(t, x * y + x * y + z, rtol=1e-5)
    g = jax.jit(jax.grad(lambda a: fn(a, y, z).sum()))(x)
    np.testing.assert_allclose(g, y, rtol=1e-6)


@pytest.mark.spec("EXT-2", "EXT-3")
def test_tutorial_primitive_vmap(jax, jnp, mods):
    _, fn, _, _ = _multiply_add(jax, jnp, mods)
    rng = np.random.RandomState(1)
    a, b, c = (rng.randn(4, 3).astype(np.float32) for _ in range(3))
    out = jax.vmap(fn)(a, b, c)
    np.testing.assert_allclose(out, a * b + c, rtol=1e-6)
    out = jax.vmap(fn, in_axes=1)(a.T, b.T, c.T)
    np.testing.assert_allclose(out, a * b + c, rtol=1e-6)
    out = jax.jit(jax.vmap(jax.grad(lambda u, v: fn(u, v, v).sum())))(a, b)
    np.testing.assert_allclose(out, b, rtol=1e-6)


@pytest.mark.spec("EXT-1")
def test_rule_tables_are_views(jax, jnp, mods):
    p, _, jvp, transpose = _multiply_add(jax, jnp, mods)
    ad, batching = mods["interpreters.ad"], mods["interpreters.batching"]
    assert ad.primitive_jvps[p] is jvp
    assert ad.primitive_transposes[p] is transpose
    assert ad.get_primitive_transpose(p) is transpose
    assert p in ad.primitive_jvps
    sin_p = mods["extend.core"].primitives.sin_p
    assert sin_p in ad.primitive_jvps and sin_p in batching.fancy_primitive_batchers
    q = mods["extend.core"].Primitive("no_rules_here")
    with pytest.raises(KeyError):
        ad.primitive_jvps[q]
    with pytest.raises(NotImplementedError, match="Transpose rule .* 'no_rules_here'"):
        ad.get_primitive_transpose(q)


@pytest.mark.spec("EXT-1")
def test_deflinear_and_defjvp(jax, jnp, mods):
    xc, ad = mods["extend.core"], mods["interpreters.ad"]
    batching, mlir = mods["interpreters.batching"], mods["interpreters.mlir"]
    scale = xc.Primitive("ext_scale3")
    scale.def_impl(lambda x: x * 3)
    scale.def_abstract_eval(lambda x: x)
    mlir.register_lowering(scale, mlir.lower_fun(lambda x: x * 3, multiple_results=False))
    ad.deflinear(scale, lambda ct: [scale.bind(ct)])
    batching.defvectorized(scale)
    x = np.arange(4.0, dtype=np.float32)
    np.testing.assert_allclose(jax.grad(lambda v: (scale.bind(v) ** 2).sum())(x), 18 * x)
    np.testing.assert_allclose(jax.vmap(scale.bind)(x.reshape(2, 2)), 3 * x.reshape(2, 2))
    cube = xc.Primitive("ext_cube")
    cube.def_impl(lambda x: x ** 3)
    cube.def_abstract_eval(lambda x: x)
    mlir.register_lowering(cube, mlir.lower_fun(lambda x: x ** 3, multiple_results=False))
    ad.defjvp(cube, lambda t, x: 3 * x ** 2 * t)
    np.testing.assert_allclose(jax.grad(lambda v: cube.bind(v).sum())(x), 3 * x ** 2)
    np.testing.assert_allclose(jax.jit(jax.grad(lambda v: cube.bind(v)))(2.0), 12.0)


@pytest.mark.spec("EXT-2")
def test_batching_helpers(jax, jnp, mods):
    batching = mods["interpreters.batching"]
    x = jnp.arange(6.0).reshape(2, 3)
    out = batching.bdim_at_front(x, 1, 3)
    np.testing.assert_array_equal(out, np.arange(6.0).reshape(2, 3).T)
    out = batching.bdim_at_front(jnp.arange(3.0), None, 4)
    assert out.shape == (4, 3)
    out = batching.broadcast(jnp.arange(3.0), 2, 1, None)
    np.testing.assert_array_equal(out, np.broadcast_to(np.arange(3.0)[:, None], (3, 2)))


@pytest.mark.spec("EXT-3")
def test_mlir_names_need_mlir(jax, jnp, mods, impl_name):
    mlir = mods["interpreters.mlir"]
    assert (mlir.DEVICE_TO_DEVICE_TYPE, mlir.SEND_TO_HOST_TYPE,
            mlir.RECV_FROM_HOST_TYPE) == (1, 2, 3)
    assert callable(mlir.lower_fun(lambda x: x))
    if impl_name != "jax":
        with pytest.raises(NotImplementedError, match="MLIR"):
            mlir.ir_constant(np.float32(1))
        with pytest.raises(NotImplementedError, match="MLIR"):
            mlir.LoweringRuleContext()


@pytest.mark.spec("EXT-4")
def test_core_extras(jax, jnp, mods):
    core, xc = mods["core"], mods["extend.core"]
    assert core.max_dim(2, 3) == 3 and core.min_dim(2, 3) == 2
    assert xc.valid_jaxtype(1) and xc.valid_jaxtype(jnp.ones(2))
    assert not xc.valid_jaxtype("a") and not xc.valid_jaxtype(object())
    assert xc.primal_dtype_to_tangent_dtype(np.int32) == jax.dtypes.float0
    assert xc.primal_dtype_to_tangent_dtype(np.float32) == np.float32
    aval = core.ShapedArray((3, 4), np.float32)
    assert xc.mapped_aval(3, 0, aval).shape == (4,)
    assert xc.unmapped_aval(5, 1, aval).shape == (3, 5, 4)
    assert xc.mapped_aval(3, None, aval) == aval
    assert xc.no_effects == frozenset()
    assert not xc.unsafe_am_i_under_a_jit_DO_NOT_USE()
    seen = {}

    def f(x):
        seen["jit"] = xc.unsafe_am_i_under_a_jit_DO_NOT_USE()
        return x

    jax.jit(f)(1.0)
    assert seen["jit"]

    def g(x):
        seen["vmap"] = xc.unsafe_am_i_under_a_vmap_DO_NOT_USE()
        seen["names"] = list(xc.unsafe_get_axis_names_DO_NOT_USE())
        seen["env"] = xc.nonempty_axis_env_DO_NOT_USE()
        return x

    jax.vmap(g, axis_name="i")(jnp.ones(2))
    assert seen["vmap"] and seen["names"] == ["i"] and seen["env"]
    assert xc.primitives.sin_p.name == "sin"
    v = xc.gensym()(aval)
    assert v.aval == aval


@pytest.mark.spec("EXT-4")
def test_check_jaxpr(jax, jnp, mods):
    xc = mods["extend.core"]
    closed = jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(jnp.ones(3))
    xc.check_jaxpr(closed.jaxpr)
    jaxpr = closed.jaxpr
    bad = jaxpr.replace(eqns=jaxpr.eqns[1:])     # uses a variable never bound
    with pytest.raises(xc.JaxprTypeError):
        xc.check_jaxpr(bad)


@pytest.mark.spec("EXT-5")
def test_dce_jaxpr(jax, jnp, mods):
    pe = mods["interpreters.partial_eval"]
    closed = jax.make_jaxpr(lambda x, y: (jnp.sin(x), jnp.cos(y)))(1.0, 2.0)
    new, used = pe.dce_jaxpr(closed.jaxpr, [True, False])
    assert used == [True, False]
    assert [e.primitive.name for e in new.eqns] == ["sin"]
    assert len(new.outvars) == 1 and len(new.invars) == 1
    new, used = pe.dce_jaxpr(closed.jaxpr, [False, True], instantiate=True)
    assert used == [True, True] and len(new.invars) == 2
    pv = pe.PartialVal.unknown(mods["core"].ShapedArray((), np.float32))
    assert not pv.is_known() and pv.get_known() is None
    assert pe.PartialVal.known(3.0).is_known()


@pytest.mark.spec("EXT-6")
def test_extend_backend_and_linear_util(jax, jnp, mods, impl_name):
    backend, lu = mods["extend.backend"], mods["extend.linear_util"]
    assert "cpu" in backend.backends()
    assert backend.get_default_device() == jax.devices()[0]
    assert backend.get_backend().platform == "cpu"
    backend.clear_backends()
    assert jax.jit(lambda x: x + 1)(1.0) == 2.0

    def f(x, scale):
        return x * scale

    def add_one(inner, *args):
        return inner(*args) + 1

    fun = lu.wrap_init(f, {"scale": 3}, debug_info=None) if impl_name != "jax" else None
    if fun is not None:
        wrapped = lu.transformation2(add_one, fun)
        assert wrapped.call_wrapped(2) == 7


@pytest.mark.spec("EXT-6")
def test_source_info_name_stack(jax, mods):
    su = mods["extend.source_info_util"]
    base = su.current_name_stack()
    with su.extend_name_stack("outer"):
        with su.extend_name_stack("inner"):
            assert str(su.current_name_stack()).endswith("outer/inner")
    assert su.current_name_stack() == base
    assert isinstance(su.new_name_stack("a"), su.NameStack)


@pytest.mark.spec("EXT-8")
def test_compilation_cache_accepted(jax, impl_name, tmp_path):
    cc = importlib.import_module(
        f"{impl_name}.experimental.compilation_cache.compilation_cache")
    cc.reset_cache()
    assert jax.jit(lambda x: x * 2)(3.0) == 6.0
    assert callable(cc.set_cache_dir)
