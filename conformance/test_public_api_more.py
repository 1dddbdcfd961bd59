"""Conformance: jax.ds, jax.smap, jax.sharding.ManualAxisType / auto_axes /
explicit_axes, jax.api_util, jax.lib, Array.format and Array.traceback
(SPEC API-30 .. API-37)."""
import importlib

import numpy as np
import pytest


def _sub(jax, name):
    return importlib.import_module(f"{jax.__name__}.{name}")


# -- jax.ds (API-30) -----------------------------------------------------------

@pytest.mark.spec("API-30")
def test_ds_reads_like_slice(jax):
    assert jax.ds(None) == slice(None)
    s = jax.ds(3)
    assert (s.start, s.size, s.stride) == (0, 3, 1)
    s = jax.ds(1, 4, 2)
    assert (s.start, s.size, s.stride) == (1, 4, 2)
    assert repr(s) == "Slice(start=1, size=4, stride=2)"
    assert jax.ds(1, 2) == jax.ds(1, 2) and jax.ds(1, 2) != jax.ds(1, 3)
    with pytest.raises(TypeError):
        hash(jax.ds(1, 2))


@pytest.mark.spec("API-30")
def test_ds_static_arguments(jax):
    with pytest.raises(ValueError, match="Non-static stride"):
        jax.ds(1, 2, 1.0)
    with pytest.raises(ValueError, match="must be >= 0"):
        jax.ds(1, 2, -1)
    x = jax.numpy.arange(10.0)
    with pytest.raises(TypeError):
        jax.jit(lambda n: x[jax.ds(0, n)])(3)


@pytest.mark.spec("API-30")
def test_ds_pytree(jax, jnp):
    leaves, tree = jax.tree_util.tree_flatten(jax.ds(1, 2))
    assert leaves == []
    assert jax.tree_util.tree_unflatten(tree, []) == jax.ds(1, 2)
    # A traced start is a child.
    out = jax.jit(lambda s: jax.tree_util.tree_leaves(s))(jax.ds(jnp.int32(1), 2))
    assert out == [] or [int(v) for v in out] == [1]

    def count(i):
        return len(jax.tree_util.tree_leaves(jax.ds(i, 2)))
    assert jax.jit(lambda i: jnp.int32(count(i)))(1) == 1


@pytest.mark.spec("API-30")
@pytest.mark.parametrize("start, size, stride", [
    (1, 3, 1), (0, 10, 1), (-3, 2, 1), (9, 3, 1), (1, 3, 2), (8, 3, 2), (0, 4, 3),
])
def test_ds_values_match_clamped_numpy(jax, jnp, start, size, stride):
    host = np.arange(10.0, dtype=np.float32)
    x = jnp.asarray(host)
    first = start + 10 if start < 0 else start
    if stride == 1:
        first = min(max(first, 0), 10 - size)       # dynamic_slice clamps
        want = host[first:first + size]
    else:
        want = host[np.clip(first + stride * np.arange(size), 0, 9)]
    np.testing.assert_array_equal(x[jax.ds(start, size, stride)], want)
    got = jax.jit(lambda x, i: x[jax.ds(i, size, stride)])(x, start)
    np.testing.assert_array_equal(got, want)


@pytest.mark.spec("API-30")
def test_ds_with_other_index_entries(jax, jnp):
    host = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    y = jnp.asarray(host)
    np.testing.assert_array_equal(y[jax.ds(1, 2), jax.ds(0, 2)], host[1:3, 0:2])
    np.testing.assert_array_equal(y[1, jax.ds(1, 2)], host[1, 1:3])
    np.testing.assert_array_equal(y[jnp.array([0, 2]), jax.ds(1, 2)],
                                  host[np.array([0, 2]), 1:3])
    np.testing.assert_array_equal(y[None, jax.ds(1, 2)], host[None, 1:3])
    np.testing.assert_array_equal(y[..., jax.ds(2, 2)], host[..., 2:4])


@pytest.mark.spec("API-30")
def test_ds_updates(jax, jnp):
    host = np.arange(10.0, dtype=np.float32)
    x = jnp.asarray(host)
    want = host.copy()
    want[1:4] = 0
    np.testing.assert_array_equal(x.at[jax.ds(1, 3)].set(0.0), want)
    want = host.copy()
    want[[1, 4, 7]] = -1
    np.testing.assert_array_equal(x.at[jax.ds(1, 3, 3)].set(-1.0), want)
    # Start not normalized, out-of-bounds windows dropped.
    np.testing.assert_array_equal(x.at[jax.ds(-3, 2)].set(0.0), host)
    np.testing.assert_array_equal(x.at[jax.ds(9, 3)].set(-1.0), host)
    want = host.copy()
    want[2:5] += 1
    np.testing.assert_array_equal(
        jax.jit(lambda x, i: x.at[jax.ds(i, 3)].add(1.0))(x, 2), want)


@pytest.mark.spec("API-30")
def test_ds_vmap_and_grad(jax, jnp):
    x = jnp.arange(10.0)
    out = jax.vmap(lambda i: x[jax.ds(i, 2)])(jnp.arange(3))
    want = np.stack([np.asarray(x)[i:i + 2] for i in range(3)])
    np.testing.assert_array_equal(out, want)
    g = jax.grad(lambda v: v[jax.ds(1, 2)].sum())(x)
    np.testing.assert_array_equal(g, [0, 1, 1, 0, 0, 0, 0, 0, 0, 0])
    _sub(jax, "test_util").check_grads(
        lambda v: (jnp.asarray(v)[jax.ds(2, 3, 2)] ** 2).sum(), (jnp.arange(10.0),),
        order=2)


@pytest.mark.spec("API-30")
def test_ds_jaxprs(jax, jnp):
    x = jnp.arange(10.0)
    text = str(jax.make_jaxpr(lambda x: x[jax.ds(2, 3)])(x))
    assert "dynamic_slice[slice_sizes=(3,)] a 2:i32[]" in text
    text = str(jax.make_jaxpr(lambda x, i: x[jax.ds(i, 3)])(x, 2))
    assert "lt b 0:i32[]" in text and "select_n" in text
    text = str(jax.make_jaxpr(lambda x, i: x[jax.ds(i, 3, 2)])(x, 1))
    assert "copy b" in text and "mul 2:i32[]" in text and "gather[" in text
    with pytest.raises(TypeError, match="slice_sizes must be less than or equal"):
        x[jax.ds(0, 11)]


# -- jax.smap (API-31) ---------------------------------------------------------

def _mesh(jax):
    return jax.make_mesh((2, 2), ("x", "y"),
                         axis_types=(jax.sharding.AxisType.Explicit,) * 2,
                         devices=jax.devices()[:4])


@pytest.mark.spec("API-31")
def test_smap_values(jax, jnp):
    host = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    x = jnp.asarray(host)
    f = lambda a: a * 2 + jax.lax.axis_index("x")  # noqa: E731
    block = np.repeat(np.arange(2), 2)[:, None]
    with jax.set_mesh(_mesh(jax)):
        out = jax.smap(f, in_axes=0, out_axes=0, axis_name="x")(x)
        np.testing.assert_array_equal(out, host * 2 + block)
        out = jax.smap(in_axes=1, out_axes=1, axis_name="x")(f)(x)
        np.testing.assert_array_equal(out, host * 2 + np.arange(2)[None, :])
        out = jax.jit(jax.smap(f, in_axes=0, out_axes=0, axis_name="x"))(x)
        np.testing.assert_array_equal(out, host * 2 + block)
        out = jax.smap(lambda a: jax.lax.psum(a, "x"), in_axes=0, out_axes=None,
                       axis_name="x")(x)
        np.testing.assert_array_equal(out, host[:2] + host[2:])
        out = jax.smap(lambda a, b: a + b, in_axes=(0, None), out_axes=0,
                       axis_name="x")(x, jnp.ones(2))
        np.testing.assert_array_equal(out, host + 1)
        # Without in_axes a plain array is replicated.
        out = jax.smap(f, out_axes=0, axis_name="x")(x)
        np.testing.assert_array_equal(out, np.concatenate([host * 2, host * 2 + 1]))
        g = jax.grad(lambda v: jax.smap(lambda a: a ** 2, in_axes=0, out_axes=0,
                                        axis_name="x")(v).sum())(x)
        np.testing.assert_array_equal(g, 2 * host)


@pytest.mark.spec("API-31")
def test_smap_errors(jax, jnp):
    f = lambda a: a  # noqa: E731
    x = jnp.ones((4, 2))
    with pytest.raises(ValueError, match="context mesh cannot be empty"):
        jax.smap(f, in_axes=0, out_axes=0, axis_name="x")(x)
    with pytest.raises(TypeError, match="axis_name should be a `str`"):
        jax.smap(f, in_axes=0, out_axes=0, axis_name=("x",))
    with pytest.raises(TypeError, match="smap in_axes must be an int"):
        jax.smap(f, in_axes=[0], out_axes=0, axis_name="x")
    with pytest.raises(TypeError, match="container with those types"):
        jax.smap(f, in_axes=(0.5,), out_axes=0, axis_name="x")
    with pytest.raises(TypeError, match="smap out_axes must be"):
        jax.smap(f, in_axes=0, out_axes="a", axis_name="x")
    with jax.set_mesh(_mesh(jax)):
        with pytest.raises(ValueError, match="to be a subset of mesh.axis_names"):
            jax.smap(f, in_axes=0, out_axes=0, axis_name="z")(x)


# -- ManualAxisType (API-32) ---------------------------------------------------

@pytest.mark.spec("API-32")
def test_manual_axis_type(jax):
    M = jax.sharding.ManualAxisType
    empty = M()
    assert empty is M() and empty.empty
    assert repr(empty) == ("ManualAxisType(varying=frozenset(), "
                           "unreduced=frozenset(), reduced=frozenset())")
    m = M(varying={"x"}, reduced={"y"})
    assert m is M(varying=frozenset({"x"}), reduced=frozenset({"y"}))
    assert isinstance(m.varying, frozenset) and not m.empty
    assert m.vur == frozenset({"x", "y"})
    assert m.to_ct_mat() is M(varying={"x"}, unreduced={"y"})
    assert m.update(varying=frozenset()) is M(reduced={"y"})
    with pytest.raises(ValueError, match="varying and unreduced cannot have"):
        M(varying=frozenset({"x"}), unreduced=frozenset({"x"}))
    with pytest.raises(ValueError, match="varying and reduced cannot have"):
        M(varying=frozenset({"x"}), reduced=frozenset({"x"}))
    with pytest.raises(TypeError):
        M(frozenset())


# -- auto_axes / explicit_axes (API-33) ------------------------------------------

@pytest.mark.spec("API-33")
def test_auto_axes(jax, jnp):
    S, P = jax.sharding, jax.sharding.PartitionSpec
    mesh = _mesh(jax)
    x = jnp.arange(8.0).reshape(4, 2)
    seen = []

    def f(a):
        seen.append(S.get_abstract_mesh().axis_types)
        return a * 2
    np.testing.assert_array_equal(S.auto_axes(f, out_sharding=P("x"))(x), x * 2)
    with pytest.raises(TypeError, match="Missing required keyword argument: 'out_sharding'"):
        S.auto_axes(f)(x)
    Auto, Explicit = S.AxisType.Auto, S.AxisType.Explicit
    with jax.set_mesh(mesh):
        r = S.auto_axes(f, out_sharding=P("x"))(x)
        assert seen[-1] == (Auto, Auto)
        np.testing.assert_array_equal(r, x * 2)
        assert r.sharding.is_equivalent_to(S.NamedSharding(mesh, P("x")), 2)
        S.auto_axes(f, axes="x", out_sharding=P("x"))(x)
        assert seen[-1] == (Auto, Explicit)
        r = S.auto_axes(f)(x, out_sharding=P(None, "y"))
        assert r.sharding.is_equivalent_to(S.NamedSharding(mesh, P(None, "y")), 2)
        r = jax.jit(S.auto_axes(f, out_sharding=P("x")))(x)
        np.testing.assert_array_equal(r, x * 2)
        with pytest.raises(KeyError):
            S.auto_axes(f, axes="z", out_sharding=P("x"))(x)
    r = S.auto_axes(f, out_sharding=S.NamedSharding(mesh, P("x")))(x)
    assert seen[-1] == (Auto, Auto)
    assert r.sharding.is_equivalent_to(S.NamedSharding(mesh, P("x")), 2)


@pytest.mark.spec("API-33")
def test_explicit_axes(jax, jnp):
    S, P = jax.sharding, jax.sharding.PartitionSpec
    auto = jax.make_mesh((2, 2), ("x", "y"), axis_types=(S.AxisType.Auto,) * 2,
                         devices=jax.devices()[:4])
    x = jnp.arange(8.0).reshape(4, 2)
    seen = []

    def f(a):
        seen.append(S.get_abstract_mesh().axis_types)
        return a * 2
    with pytest.raises(ValueError, match="Context mesh cannot be empty"):
        S.explicit_axes(f, in_sharding=P("x"))(x)
    with pytest.raises(TypeError, match="Missing required keyword argument: 'in_sharding'"):
        S.explicit_axes(f)(x)
    with jax.set_mesh(auto):
        r = S.explicit_axes(f, in_sharding=P("x"))(x)
        np.testing.assert_array_equal(r, x * 2)
        assert seen[-1] == (S.AxisType.Explicit,) * 2
        assert r.sharding.is_equivalent_to(S.NamedSharding(auto, P("x")), 2)
        S.explicit_axes(f, axes=("x",), in_sharding=P("x"))(x)
        assert seen[-1] == (S.AxisType.Explicit, S.AxisType.Auto)


# -- jax.api_util (API-34) -------------------------------------------------------

@pytest.mark.spec("API-34")
def test_api_util_helpers(jax, jnp):
    au, tu = jax.api_util, jax.tree_util
    assert au.safe_map(lambda a, b: a + b, [1, 2], [3, 4]) == [4, 6]
    with pytest.raises(ValueError, match="argument 2 is shorter than argument 1"):
        au.safe_map(lambda a, b: a, [1, 2], [3])
    assert au.rebase_donate_argnums((1, 3), (0,)) == (0, 2)
    with pytest.raises(ValueError, match="cannot intersect"):
        au.rebase_donate_argnums((0,), (0,))
    t = tu.tree_structure(((1, 2, {"a": 3}), {"k": 4}))
    assert au.donation_vector((0,), (), t) == (True, False, False, False)
    assert au.donation_vector((1,), ("k",), t) == (False, True, False, True)
    two = tu.tree_structure((1, (2, 3)))
    assert au.flatten_axes("vmap in_axes", two, (0, (None, 1))) == [0, None, 1]
    assert au.flatten_axes("vmap in_axes", two, 0) == [0, 0, 0]
    with pytest.raises(ValueError, match="vmap in_axes specification must be a tree prefix"):
        au.flatten_axes("vmap in_axes", two, (0, 1, 2))
    a = au.shaped_abstractify(jnp.ones(3))
    assert (a.shape, a.dtype) == ((3,), np.float32)
    assert au.shaped_abstractify(1.0).weak_type
    assert au.shaped_abstractify(jax.ShapeDtypeStruct((2,), "int32")).shape == (2,)
    with pytest.raises(TypeError, match="is not a valid JAX type"):
        au.shaped_abstractify("a")


@pytest.mark.spec("API-34")
def test_api_util_wrapped_functions(jax):
    au, tu = jax.api_util, jax.tree_util
    lu = _sub(jax, "extend.linear_util")

    def di():
        return au.debug_info("t", lambda a, b: 0, (1, 2), {})
    f = lu.wrap_init(lambda a, b, k=1: (a + b * k, a), debug_info=di())
    flat, tree = tu.tree_flatten(((1.0, 2.0), {"k": 3.0}))
    g, out_tree = au.flatten_fun(f, tree)
    assert list(g.call_wrapped(*flat)) == [7.0, 1.0]
    assert out_tree() == tu.tree_structure((0, 0))
    g, out_tree = au.flatten_fun_nokwargs(
        lu.wrap_init(lambda a, b: {"s": a + b}, debug_info=di()),
        tu.tree_structure((1.0, 2.0)))
    assert list(g.call_wrapped(1.0, 2.0)) == [3.0]
    assert out_tree() == tu.tree_structure({"s": 0})
    h, dyn = au.argnums_partial(lu.wrap_init(lambda a, b: a - b, debug_info=di()),
                                (1,), (10.0, 3.0))
    assert tuple(dyn) == (3.0,) and h.call_wrapped(*dyn) == 7.0
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        au.argnums_partial(lu.wrap_init(lambda a, b: a, debug_info=di()), (0,),
                           (1.0, [2]))
    d = au.debug_info("jit", lambda x, y=1: x, (1,), {"y": 2})
    assert d.traced_for == "jit" and tuple(d.arg_names) == ("x", "y")
    d = au.debug_info("jit", lambda x, y: x, (1, (2, 3)), {}, static_argnums=(0,))
    assert tuple(d.arg_names) == ("y[0]", "y[1]")


# -- jax.lib (API-35) ------------------------------------------------------------

@pytest.mark.spec("API-35")
def test_lib(jax):
    lib = _sub(jax, "lib")
    assert isinstance(lib.__version__, str)
    assert [n for n in dir(lib) if not n.startswith("_")] == []
    for name in ("xla_bridge", "xla_client"):
        with pytest.raises(ImportError):
            importlib.import_module(f"{jax.__name__}.lib.{name}")


# -- Array.format, Array.traceback (API-36, API-37) ------------------------------

@pytest.mark.spec("API-36")
def test_array_format(jax, jnp):
    for shape in [(), (3,), (2, 3), (2, 1, 4)]:
        x = jnp.ones(shape)
        fmt = x.format
        assert fmt.layout.major_to_minor == tuple(range(len(shape)))
        assert fmt.layout.tiling == ()
        assert fmt.layout.sub_byte_element_size_in_bits == 0
        assert fmt.sharding == x.sharding
        assert fmt == jnp.zeros(shape).format
        assert hash(fmt) == hash(jnp.zeros(shape).format)
    assert repr(jnp.ones((2, 3)).format).startswith(
        "Format(layout=Layout(major_to_minor=(0, 1), tiling=(), "
        "sub_byte_element_size_in_bits=0), sharding=SingleDeviceSharding(")
    Format = type(jnp.ones(2).format)
    with pytest.raises(ValueError, match="Sharding has to be concrete"):
        Format(jnp.ones(2).format.layout)
    with pytest.raises(TypeError, match="Invalid value received for the layout"):
        Format(3)


@pytest.mark.spec("API-37")
def test_array_traceback(jax, jnp):
    tb = jnp.ones(3).traceback
    assert tb is None or all(hasattr(f, "line_num") for f in tb.frames)


@pytest.mark.spec("API-38")
def test_shape_dtype_struct_format(jax, jnp):
    plain = jax.ShapeDtypeStruct((2, 3), jnp.float32)
    assert plain.format.layout is None and plain.format.sharding is None
    assert repr(plain.format) == "Format(layout=None, sharding=None)"
    dev = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    placed = jax.ShapeDtypeStruct((2, 3), jnp.float32, sharding=dev)
    assert placed.format.layout is None and placed.format.sharding == dev
