"""shard_map and the collectives inside it (SPEC SHD-50 .. SHD-69).

The session runs with 8 CPU devices (conftest.py).  Meshes: ``M1`` is a 1-D
mesh of the first 4 devices named ``'i'``; ``M2`` a 4x2 mesh of all 8 named
``('x', 'y')`` (device ``(x, y)`` is ``jax.devices()[2 * x + y]``).  Values
are checked against NumPy computations on the per-device blocks; errors by
class and stable message fragments (JAX names the function in its messages,
sometimes an internal one, so the name is never part of a fragment).
"""
import importlib
import warnings

import numpy as np
import pytest


# -- helpers -------------------------------------------------------------------

def P(jax, *a):
    return jax.sharding.PartitionSpec(*a)


def mesh1(jax):
    return jax.sharding.Mesh(np.array(jax.devices()[:4]), ("i",))


def mesh2(jax):
    return jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))


def smap(jax, f, mesh, in_specs, out_specs, **kw):
    return jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, **kw)


def close(a, b, **kw):
    a = np.asarray(a)
    b = np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6, **kw)


def blocks(x, n, axis=0):
    return np.split(np.asarray(x), n, axis=axis)


def cycle(n, shift=1):
    return [(j, (j + shift) % n) for j in range(n)]


REPL_MSG = "out_specs which require replication which can't be statically inferred"
X8 = np.arange(8., dtype=np.float32)
X16 = np.arange(16., dtype=np.float32)


# -- SHD-50: the API --------------------------------------------------------------

@pytest.mark.spec("SHD-50")
def test_shard_map_keyword_only_signature(jax, jnp):
    m = mesh1(jax)
    with pytest.raises(TypeError, match="positional argument"):
        jax.shard_map(lambda b: b, m, in_specs=P(jax, "i"), out_specs=P(jax, "i"))
    with pytest.raises(TypeError, match="out_specs"):
        jax.shard_map(lambda b: b, mesh=m, in_specs=P(jax, "i"))
    # decorator form: f omitted returns a decorator
    deco = jax.shard_map(mesh=m, in_specs=P(jax, "i"), out_specs=P(jax, "i"))
    g = deco(lambda b: b + 1)
    close(g(jnp.arange(8.)), X8 + 1)


@pytest.mark.spec("SHD-50")
def test_shard_map_check_vma_and_axis_names_keywords(jax, jnp):
    m = mesh1(jax)
    # check_vma and axis_names are accepted keywords
    out = jax.shard_map(lambda b: b * 2, mesh=m, in_specs=P(jax, "i"),
                        out_specs=P(jax, "i"), check_vma=True,
                        axis_names=frozenset({"i"}))(jnp.arange(8.))
    close(out, X8 * 2)


@pytest.mark.spec("SHD-50")
def test_in_specs_none_needs_explicit_axes(jax, jnp):
    m = mesh1(jax)
    with pytest.raises(TypeError, match="in_specs argument must be a pytree of "
                       "`jax.sharding.PartitionSpec` instances, but it was `None`"):
        jax.shard_map(lambda b: b, mesh=m, out_specs=P(jax, "i"))(jnp.arange(8.))


@pytest.mark.spec("SHD-50")
def test_experimental_shard_map_positional_check_rep(jax, jnp):
    mod = importlib.import_module(jax.__name__ + ".experimental.shard_map")
    with pytest.warns(DeprecationWarning, match="jax.experimental.shard_map is "
                      "deprecated in v0.8.0. Used jax.shard_map instead."):
        esm = mod.shard_map
    m = mesh1(jax)
    x = jnp.arange(8.)
    shapes = []

    def f(b):
        shapes.append(tuple(b.shape))
        return b * 2
    # mesh, in_specs, out_specs positional
    close(esm(f, m, P(jax, "i"), P(jax, "i"))(x), X8 * 2)
    assert shapes and set(shapes) == {(2,)}
    # ... or by keyword
    close(esm(f, mesh=m, in_specs=P(jax, "i"), out_specs=P(jax, "i"))(x), X8 * 2)
    # the replication check is called check_rep there (default True)
    with pytest.raises(ValueError, match=REPL_MSG):
        esm(lambda b: b.sum(), m, P(jax, "i"), P(jax))(x)
    out = esm(lambda b: b.sum(), m, P(jax, "i"), P(jax), check_rep=False)(x)
    close(out, np.float32(1.))
    with pytest.raises(TypeError, match="unexpected keyword argument 'check_vma'"):
        esm(f, m, P(jax, "i"), P(jax, "i"), check_vma=False)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'f'"):
        esm(mesh=m, in_specs=P(jax, "i"), out_specs=P(jax, "i"))


# -- SHD-51: blocks ------------------------------------------------------------------

@pytest.mark.spec("SHD-51")
def test_body_sees_blocks_1d(jax, jnp):
    m = mesh1(jax)
    shapes = []

    def f(b):
        shapes.append(tuple(b.shape))
        return b * 2
    y = smap(jax, f, m, P(jax, "i"), P(jax, "i"))(jnp.arange(8.))
    assert shapes and set(shapes) == {(2,)}
    assert y.shape == (8,)
    close(y, X8 * 2)


@pytest.mark.spec("SHD-51")
def test_block_k_goes_to_device_k(jax, jnp):
    # each device adds its position to its own block: blocks stay in order
    m = mesh1(jax)
    lax = jax.lax
    y = smap(jax, lambda b: b + 10. * lax.axis_index("i"), m,
             P(jax, "i"), P(jax, "i"))(jnp.arange(8.))
    close(y, X8 + 10. * np.repeat(np.arange(4.), 2))
    # the same on devices 4..7
    m47 = jax.sharding.Mesh(np.array(jax.devices()[4:]), ("i",))
    y = smap(jax, lambda b: b + lax.axis_index("i"), m47, P(jax, "i"),
             P(jax, "i"))(jnp.arange(8.))
    close(y, X8 + np.repeat(np.arange(4.), 2))
    assert [s.device.id for s in y.addressable_shards] == [4, 5, 6, 7]


@pytest.mark.spec("SHD-51")
@pytest.mark.parametrize("spec,shape", [
    (("x", "y"), (2, 2)),
    ((("x", "y"),), (1, 4)),
    ((("y", "x"),), (1, 4)),
    (("y",), (4, 4)),
    (("x",), (2, 4)),
    ((None, "x"), (8, 1)),
    ((), (8, 4)),
])
def test_body_sees_blocks_2d(jax, jnp, spec, shape):
    m = mesh2(jax)
    shapes = []

    def f(b):
        shapes.append(tuple(b.shape))
        return b * 1
    x = jnp.arange(32.).reshape(8, 4)
    sp = P(jax, *spec)
    y = smap(jax, f, m, sp, sp)(x)
    assert shapes and set(shapes) == {shape}
    close(y, np.arange(32.).reshape(8, 4))


@pytest.mark.spec("SHD-51")
def test_2d_block_contents(jax, jnp):
    # device (x, y) holds rows 2x:2x+2, columns 2y:2y+2 under P('x', 'y'):
    # tag each block with 10 * axis_index('x') + axis_index('y')
    m = mesh2(jax)
    lax = jax.lax
    f = lambda b: b * 0 + 10 * lax.axis_index("x") + lax.axis_index("y")
    y = smap(jax, f, m, P(jax, "x", "y"), P(jax, "x", "y"))(jnp.zeros((8, 4)))
    ref = np.zeros((8, 4))
    for i in range(4):
        for j in range(2):
            ref[2 * i:2 * i + 2, 2 * j:2 * j + 2] = 10 * i + j
    close(y, ref)
    # P(('x', 'y')) splits dim 0 in 8 blocks ordered x-major
    g = lambda b: b * 0 + 10 * lax.axis_index("x") + lax.axis_index("y")
    y = smap(jax, g, m, P(jax, ("x", "y")), P(jax, ("x", "y")))(jnp.zeros(8))
    close(y, [0, 1, 10, 11, 20, 21, 30, 31])
    # P(('y', 'x')) orders them y-major
    y = smap(jax, g, m, P(jax, ("y", "x")), P(jax, ("y", "x")))(jnp.zeros(8))
    close(y, [0, 10, 20, 30, 1, 11, 21, 31])
    # P(None, 'x'): column j of (8, 4) is on the devices with x == j
    y = smap(jax, lambda b: b * 0 + lax.axis_index("x"), m, P(jax, None, "x"),
             P(jax, None, "x"))(jnp.zeros((8, 4)))
    close(y, np.tile(np.arange(4.), (8, 1)))


@pytest.mark.spec("SHD-51")
def test_out_specs_concatenate_along_named_dims(jax, jnp):
    # out_specs P('x') on the 2-D mesh concatenates the 4 blocks along 'x'
    # (the value must not vary over 'y'); P('x', 'y') tiles the 2-D grid.
    m = mesh2(jax)
    lax = jax.lax
    y = smap(jax, lambda b: lax.axis_index("x")[None] * 1., m, P(jax, "x"),
             P(jax, "x"))(jnp.zeros(4))
    close(y, [0., 1., 2., 3.])
    y = smap(jax, lambda b: (10 * lax.axis_index("x") + lax.axis_index("y"))
             [None, None] * 1., m, P(jax, "x", "y"), P(jax, "x", "y"))(jnp.zeros((4, 2)))
    close(y, [[0, 1], [10, 11], [20, 21], [30, 31]])


# -- SHD-52: replication in_specs P() -------------------------------------------------

@pytest.mark.spec("SHD-52")
def test_in_specs_empty_gives_whole_array(jax, jnp):
    m = mesh1(jax)
    shapes = []

    def f(b):
        shapes.append(tuple(b.shape))
        return b.sum(keepdims=True)
    y = smap(jax, f, m, P(jax), P(jax, "i"))(jnp.arange(8.))
    assert shapes and set(shapes) == {(8,)}
    close(y, [28., 28., 28., 28.])
    # a replicated output with out_specs P() is returned once
    y = smap(jax, lambda b: b * 2, m, P(jax), P(jax))(jnp.arange(8.))
    close(y, X8 * 2)
    # ... and with out_specs P('i') its 4 copies are concatenated
    y = smap(jax, lambda b: b * 2, m, P(jax), P(jax, "i"))(jnp.arange(8.))
    close(y, np.tile(X8 * 2, 4))


@pytest.mark.spec("SHD-52")
def test_scalars_with_empty_specs(jax, jnp):
    m = mesh1(jax)
    y = smap(jax, lambda a: a * 2, m, P(jax), P(jax))(jnp.float32(3))
    assert y.shape == ()
    close(y, np.float32(6))
    y = smap(jax, lambda a: a * 2, m, P(jax), P(jax))(3.0)
    close(y, np.float32(6))
    # numpy arrays are accepted as inputs
    y = smap(jax, lambda a: a * 2, m, P(jax, "i"), P(jax, "i"))(np.arange(8.))
    close(y, X8 * 2)


# -- SHD-53: pytrees of specs ------------------------------------------------------------

@pytest.mark.spec("SHD-53")
def test_tuple_of_specs_for_tuple_of_args(jax, jnp):
    m = mesh1(jax)
    a, b = jnp.arange(8.), jnp.arange(2.)
    s, p = smap(jax, lambda u, v: (u + v, u * v), m,
                (P(jax, "i"), P(jax)), (P(jax, "i"), P(jax, "i")))(a, b)
    close(s, X8 + np.tile([0., 1.], 4))
    close(p, X8 * np.tile([0., 1.], 4))


@pytest.mark.spec("SHD-53")
def test_spec_is_a_tree_prefix(jax, jnp):
    m = mesh1(jax)
    x = jnp.arange(8.)
    # one spec for all arguments
    close(smap(jax, lambda u, v: u + v, m, P(jax, "i"), P(jax, "i"))(x, x), X8 * 2)
    # one spec for a whole tuple argument
    close(smap(jax, lambda t: t[0] + t[1], m, (P(jax, "i"),), P(jax, "i"))((x, x)),
          X8 * 2)
    # one out spec for a tuple of outputs
    u, v = smap(jax, lambda b: (b, b + 1), m, P(jax, "i"), P(jax, "i"))(x)
    close(u, X8)
    close(v, X8 + 1)
    # dicts
    out = smap(jax, lambda d: {"s": d["a"] + 1}, m, ({"a": P(jax, "i")},),
               {"s": P(jax, "i")})({"a": x})
    assert list(out) == ["s"]
    close(out["s"], X8 + 1)
    # collectives over pytrees
    s1, s2 = smap(jax, lambda b: jax.lax.psum((b, b * 2), "i"), m, P(jax, "i"),
                  (P(jax), P(jax)))(x)
    close(s1, [12., 16.])
    close(s2, [24., 32.])


@pytest.mark.spec("SHD-53")
def test_non_array_argument_with_none_spec(jax, jnp):
    m = mesh1(jax)
    y = smap(jax, lambda a, n: a * n, m, (P(jax, "i"), None), P(jax, "i"))(
        jnp.arange(8.), 3)
    close(y, X8 * 3)


@pytest.mark.spec("SHD-53")
def test_spec_tree_mismatch_errors(jax, jnp):
    m = mesh1(jax)
    x = jnp.arange(8.)
    f = lambda a, b: a + b
    with pytest.raises(ValueError, match="different lengths of tuple") as e:
        smap(jax, f, m, (P(jax, "i"), P(jax, "i"), P(jax, "i")), P(jax, "i"))(x, x)
    assert "shard_map in_specs" in str(e.value)
    assert "subtree of type tuple of length 3" in str(e.value)
    assert "same type but of length 2" in str(e.value)
    with pytest.raises(ValueError, match="different lengths of tuple") as e:
        smap(jax, f, m, (P(jax, "i"),), P(jax, "i"))(x, x)
    assert "tuple of length 1" in str(e.value)
    # a list is not a prefix of the argument tuple
    with pytest.raises(ValueError, match="pytree structure error: different types"):
        smap(jax, f, m, [P(jax, "i"), P(jax, "i")], P(jax, "i"))(x, x)
    # out_specs tuple for a single output
    with pytest.raises(ValueError, match="pytree structure error: different types") as e:
        smap(jax, lambda a: a, m, P(jax, "i"), (P(jax, "i"), P(jax, "i")))(x)
    assert "shard_map out_specs" in str(e.value)
    # keyword arguments are not supported by the mapped function
    with pytest.raises(TypeError, match="unexpected keyword argument 'a'"):
        smap(jax, lambda a: a, m, (P(jax, "i"),), P(jax, "i"))(a=x)


# -- SHD-54: output sharding -------------------------------------------------------

@pytest.mark.spec("SHD-54")
def test_output_sharding_is_out_specs(jax, jnp):
    m = mesh1(jax)
    NS = jax.sharding.NamedSharding
    y = smap(jax, lambda b: jnp.sin(b) * 2, m, P(jax, "i"), P(jax, "i"))(jnp.arange(8.))
    assert isinstance(y.sharding, NS)
    assert y.sharding.mesh == m
    assert y.sharding.spec == P(jax, "i")
    assert repr(y.sharding.spec) == "P('i',)"
    assert [s.device.id for s in y.addressable_shards] == [0, 1, 2, 3]
    assert [tuple(s.data.shape) for s in y.addressable_shards] == [(2,)] * 4
    close(y.addressable_shards[1].data, 2 * np.sin([2., 3.]))
    r = smap(jax, lambda b: jax.lax.psum(b, "i"), m, P(jax, "i"), P(jax))(jnp.arange(8.))
    assert isinstance(r.sharding, NS)
    assert r.sharding.spec == P(jax)
    assert r.sharding.is_fully_replicated
    assert len(r.addressable_shards) == 4
    close(r, [12., 16.])


@pytest.mark.spec("SHD-54")
def test_output_sharding_2d(jax, jnp):
    m = mesh2(jax)
    y = smap(jax, lambda b: b, m, P(jax, "x", "y"), P(jax, "x", "y"))(
        jnp.arange(32.).reshape(8, 4))
    assert y.sharding.spec == P(jax, "x", "y")
    assert y.sharding.mesh == m
    idx = {s.device.id: s.index for s in y.addressable_shards}
    assert len(idx) == 8
    assert idx[0] == (slice(0, 2, None), slice(0, 2, None))
    assert idx[1] == (slice(0, 2, None), slice(2, 4, None))
    assert idx[2] == (slice(2, 4, None), slice(0, 2, None))
    y = smap(jax, lambda b: b, m, P(jax, ("x", "y")), P(jax, ("x", "y")))(jnp.arange(8.))
    assert y.sharding.spec == P(jax, ("x", "y"))
    a, b = smap(jax, lambda u, v: (u, v), m, (P(jax, "x"), P(jax)),
                (P(jax, "x"), P(jax)))(jnp.arange(8.), jnp.ones(3))
    assert a.sharding.spec == P(jax, "x")
    assert b.sharding.spec == P(jax)


# -- SHD-55: explicit meshes and the tutorial example ---------------------------------

@pytest.mark.spec("SHD-55")
def test_tutorial_elementwise_example(jax, jnp):
    mesh = jax.make_mesh((8,), ("x",))
    NS = jax.sharding.NamedSharding
    f_elementwise = jax.jit(lambda x: 2 * jnp.sin(x) + 1)
    sm = jax.shard_map(f_elementwise, mesh=mesh, in_specs=P(jax, "x"),
                       out_specs=P(jax, "x"))
    # make_mesh gives Explicit axes: an unsharded input does not match P('x')
    arr = jnp.arange(32)
    with pytest.raises(ValueError, match=r"in_specs passed to shard_map: P\('x',\) "
                       r"does not match the specs of the input: P\(None,\)"):
        sm(arr)
    # sharded to match, it runs
    out = sm(jax.device_put(arr, NS(mesh, P(jax, "x"))))
    assert out.dtype == np.float32
    close(out, 2 * np.sin(np.arange(32.)) + 1)
    assert out.sharding.spec == P(jax, "x")
    # with Auto axes the unsharded input is split by shard_map itself
    AxisType = jax.sharding.AxisType
    amesh = jax.make_mesh((8,), ("x",), axis_types=(AxisType.Auto,))
    out = jax.shard_map(f_elementwise, mesh=amesh, in_specs=P(jax, "x"),
                        out_specs=P(jax, "x"))(arr)
    close(out, 2 * np.sin(np.arange(32.)) + 1)


@pytest.mark.spec("SHD-55")
def test_tutorial_device_local_shape(jax, jnp):
    AxisType = jax.sharding.AxisType
    mesh = jax.make_mesh((8,), ("x",), axis_types=(AxisType.Auto,))
    x = jnp.arange(32)
    assert x.shape == (32,)
    seen = []

    def f(x):
        seen.append(f"device local shape: {x.shape}")
        return x * 2
    y = jax.shard_map(f, mesh=mesh, in_specs=P(jax, "x"), out_specs=P(jax, "x"))(x)
    assert seen and set(seen) == {"device local shape: (4,)"}
    assert y.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(y), np.arange(32) * 2)


@pytest.mark.spec("SHD-55")
def test_explicit_mesh_replicated_input_and_reshard(jax, jnp):
    mesh = jax.make_mesh((8,), ("x",))
    NS = jax.sharding.NamedSharding
    arr = jnp.arange(32)
    y = jax.shard_map(lambda b: b * 2, mesh=mesh, in_specs=P(jax), out_specs=P(jax))(arr)
    np.testing.assert_array_equal(np.asarray(y), np.arange(32) * 2)
    out = jax.shard_map(lambda b: b + 1, mesh=mesh, in_specs=P(jax, "x"),
                        out_specs=P(jax, "x"))(jax.reshard(arr, NS(mesh, P(jax, "x"))))
    np.testing.assert_array_equal(np.asarray(out), np.arange(32) + 1)
    # on Explicit axes in_specs may be omitted: they are read off the input
    out = jax.shard_map(lambda b: b + 1, mesh=mesh, out_specs=P(jax, "x"))(
        jax.device_put(arr, NS(mesh, P(jax, "x"))))
    np.testing.assert_array_equal(np.asarray(out), np.arange(32) + 1)


# -- SHD-56: psum, pmean, pmax, pmin -----------------------------------------------------

@pytest.mark.spec("SHD-56")
@pytest.mark.spec("SHD-62")
@pytest.mark.parametrize("name,ref", [
    ("psum", np.sum), ("pmean", np.mean), ("pmax", np.max), ("pmin", np.min)])
def test_reductions_1d(jax, jnp, name, ref):
    m = mesh1(jax)
    op = getattr(jax.lax, name)
    x = np.array([3., -1., 7., 2., -5., 4., 0., 6.], np.float32)
    expect = ref(np.stack(blocks(x, 4)), axis=0)
    # replicated result: out_specs P() allowed
    close(smap(jax, lambda b: op(b, "i"), m, P(jax, "i"), P(jax))(jnp.asarray(x)), expect)
    # with out_specs P('i') every device's copy comes back
    close(smap(jax, lambda b: op(b, "i"), m, P(jax, "i"), P(jax, "i"))(jnp.asarray(x)),
          np.tile(expect, 4))


@pytest.mark.spec("SHD-56")
@pytest.mark.parametrize("name,ref", [
    ("psum", np.sum), ("pmean", np.mean), ("pmax", np.max), ("pmin", np.min)])
def test_reductions_over_two_axes(jax, jnp, name, ref):
    m = mesh2(jax)
    op = getattr(jax.lax, name)
    x = (np.arange(16.) * 7 % 11).astype(np.float32)
    bl = np.stack(blocks(x, 8))
    close(smap(jax, lambda b: op(b, ("x", "y")), m, P(jax, ("x", "y")), P(jax))(
        jnp.asarray(x)), ref(bl, axis=0))


@pytest.mark.spec("SHD-56")
def test_reductions_over_one_of_two_axes(jax, jnp):
    m = mesh2(jax)
    lax = jax.lax
    x = np.arange(8., dtype=np.float32).reshape(4, 2)
    # psum over 'y': each row summed, stays varying over 'x'
    close(smap(jax, lambda b: lax.psum(b, "y"), m, P(jax, "x", "y"), P(jax, "x"))(
        jnp.asarray(x)), x.sum(1, keepdims=True))
    # psum over 'x': columns summed, varying over 'y'
    close(smap(jax, lambda b: lax.psum(b, "x"), m, P(jax, "x", "y"), P(jax, None, "y"))(
        jnp.asarray(x)), x.sum(0, keepdims=True))
    close(smap(jax, lambda b: lax.pmax(b, "x"), m, P(jax, "x", "y"), P(jax, None, "y"))(
        jnp.asarray(x)), x.max(0, keepdims=True))
    # over both: one replicated (1, 1) block
    close(smap(jax, lambda b: lax.psum(b, ("x", "y")), m, P(jax, "x", "y"), P(jax))(
        jnp.asarray(x)), [[28.]])


@pytest.mark.spec("SHD-56")
def test_reduction_dtypes(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    xi = jnp.arange(8)
    s = smap(jax, lambda b: lax.psum(b, "i"), m, P(jax, "i"), P(jax))(xi)
    assert s.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(s), [12, 16])
    mean = smap(jax, lambda b: lax.pmean(b, "i"), m, P(jax, "i"), P(jax))(xi)
    assert mean.dtype == np.float32
    close(mean, [3., 4.])
    mx = smap(jax, lambda b: lax.pmax(b, "i"), m, P(jax, "i"), P(jax))(xi > 3)
    assert mx.dtype == np.bool_
    np.testing.assert_array_equal(np.asarray(mx), [True, True])
    mn = smap(jax, lambda b: lax.pmin(b, "i"), m, P(jax, "i"), P(jax))(xi > 2)
    np.testing.assert_array_equal(np.asarray(mn), [False, False])


# -- SHD-57: all_gather --------------------------------------------------------------

@pytest.mark.spec("SHD-57")
def test_all_gather_1d(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    x = jnp.arange(8.)
    bl = np.stack(blocks(X8, 4))                                   # (4, 2)
    out = smap(jax, lambda b: lax.all_gather(b, "i"), m, P(jax, "i"), P(jax, "i"))(x)
    assert out.shape == (16, 2)
    close(out, np.concatenate([bl] * 4))
    out = smap(jax, lambda b: lax.all_gather(b, "i", tiled=True), m, P(jax, "i"),
               P(jax, "i"))(x)
    assert out.shape == (32,)
    close(out, np.tile(X8, 4))


@pytest.mark.spec("SHD-57")
def test_all_gather_axis(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    x2 = np.arange(16., dtype=np.float32).reshape(8, 2)
    bl = blocks(x2, 4)                                              # 4 x (2, 2)
    out = smap(jax, lambda b: lax.all_gather(b, "i", axis=1), m, P(jax, "i"),
               P(jax, "i"))(jnp.asarray(x2))
    assert out.shape == (8, 4, 2)
    close(out, np.concatenate([np.stack(bl, axis=1)] * 4))
    out = smap(jax, lambda b: lax.all_gather(b, "i", axis=1, tiled=True), m,
               P(jax, "i"), P(jax, "i"))(jnp.asarray(x2))
    assert out.shape == (8, 8)
    close(out, np.concatenate([np.concatenate(bl, axis=1)] * 4))


@pytest.mark.spec("SHD-57")
def test_all_gather_over_two_axes(jax, jnp):
    m = mesh2(jax)
    lax = jax.lax
    x = jnp.arange(16.)
    XY = P(jax, ("x", "y"))
    bl = np.stack(blocks(X16, 8))                                   # (8, 2)
    out = smap(jax, lambda b: lax.all_gather(b, ("x", "y")), m, XY, XY)(x)
    assert out.shape == (64, 2)
    close(out, np.concatenate([bl] * 8))
    out = smap(jax, lambda b: lax.all_gather(b, ("x", "y"), tiled=True), m, XY, XY)(x)
    close(out, np.tile(X16, 8))
    # the order of the names is the order of the gathered blocks: ('y', 'x')
    # is y-major, i.e. the blocks of devices (0,0),(1,0),(2,0),(3,0),(0,1),...
    out = smap(jax, lambda b: lax.all_gather(b, ("y", "x"), tiled=True), m, XY, XY)(x)
    order = [0, 2, 4, 6, 1, 3, 5, 7]
    close(out, np.tile(np.concatenate([bl[k] for k in order]), 8))
    # over a single axis of the 2-D mesh: gathers the 4 blocks along 'x'
    x2 = np.arange(8., dtype=np.float32).reshape(4, 2)
    out = smap(jax, lambda b: lax.all_gather(b, "x", tiled=True), m, P(jax, "x", "y"),
               P(jax, "x", "y"))(jnp.asarray(x2))
    assert out.shape == (16, 2)
    close(out, np.concatenate([x2] * 4))


# -- SHD-58: psum_scatter ------------------------------------------------------------

@pytest.mark.spec("SHD-58")
def test_psum_scatter_tiled(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    x = np.arange(16., dtype=np.float32)
    bl = np.stack(blocks(x, 4))                                     # (4, 4)
    total = bl.sum(0)                                               # (4,)
    out = smap(jax, lambda b: lax.psum_scatter(b, "i", tiled=True), m, P(jax, "i"),
               P(jax, "i"))(jnp.asarray(x))
    close(out, total)                        # device k keeps total[k:k+1]
    close(out, [24., 28., 32., 36.])
    # scatter_dimension=1 of (2, 8) blocks: device k keeps columns 2k:2k+2
    x2 = np.arange(64., dtype=np.float32).reshape(8, 8)
    tot = np.stack(blocks(x2, 4)).sum(0)                            # (2, 8)
    out = smap(jax, lambda b: lax.psum_scatter(b, "i", scatter_dimension=1, tiled=True),
               m, P(jax, "i"), P(jax, "i"))(jnp.asarray(x2))
    assert out.shape == (8, 2)
    close(out, np.concatenate(np.split(tot, 4, axis=1), axis=0))


@pytest.mark.spec("SHD-58")
def test_psum_scatter_untiled(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    x = np.arange(32., dtype=np.float32).reshape(16, 2)
    bl = np.stack(blocks(x, 4))                                     # (4, 4, 2)
    total = bl.sum(0)                                               # (4, 2)
    # untiled: the scatter dimension must equal the axis size and is removed
    out = smap(jax, lambda b: lax.psum_scatter(b, "i")[None], m, P(jax, "i"),
               P(jax, "i"))(jnp.asarray(x))
    assert out.shape == (4, 2)
    close(out, total)
    out = smap(jax, lambda b: lax.psum_scatter(b.T, "i", scatter_dimension=1)[None], m,
               P(jax, "i"), P(jax, "i"))(jnp.asarray(x))
    close(out, total)
    with pytest.raises(ValueError, match="reduce_scatter operand scatter dimension "
                       "size 2 must match shard count 4"):
        smap(jax, lambda b: lax.psum_scatter(b, "i"), m, P(jax, "i"), P(jax, "i"))(
            jnp.arange(8.))


@pytest.mark.spec("SHD-58")
def test_psum_scatter_over_two_axes(jax, jnp):
    m = mesh2(jax)
    lax = jax.lax
    XY = P(jax, ("x", "y"))
    bl = np.stack(blocks(X16, 8))                                   # (8, 2)
    tot = np.tile(bl, (1, 4)).sum(0)                                # (8,)
    out = smap(jax, lambda b: lax.psum_scatter(jnp.tile(b, 4), ("x", "y"), tiled=True),
               m, XY, XY)(jnp.asarray(X16))
    close(out, tot)
    close(out, [56., 64.] * 4)


# -- SHD-59: ppermute -----------------------------------------------------------------

@pytest.mark.spec("SHD-59")
def test_ppermute_shift(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    x = jnp.arange(8.)
    bl = blocks(X8, 4)
    out = smap(jax, lambda b: lax.ppermute(b, "i", perm=cycle(4)), m, P(jax, "i"),
               P(jax, "i"))(x)
    close(out, np.concatenate([bl[(k - 1) % 4] for k in range(4)]))
    out = smap(jax, lambda b: lax.ppermute(b, "i", perm=cycle(4, -1)), m, P(jax, "i"),
               P(jax, "i"))(x)
    close(out, np.concatenate([bl[(k + 1) % 4] for k in range(4)]))


@pytest.mark.spec("SHD-59")
def test_ppermute_partial_fills_zeros(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    out = smap(jax, lambda b: lax.ppermute(b, "i", [(0, 1), (1, 2)]), m, P(jax, "i"),
               P(jax, "i"))(jnp.arange(1., 9.))
    close(out, [0., 0., 1., 2., 3., 4., 0., 0.])
    # integer blocks also get zeros
    out = smap(jax, lambda b: lax.ppermute(b, "i", [(3, 0)]), m, P(jax, "i"),
               P(jax, "i"))(jnp.arange(1, 9))
    np.testing.assert_array_equal(np.asarray(out), [7, 8, 0, 0, 0, 0, 0, 0])


@pytest.mark.spec("SHD-59")
def test_ppermute_over_two_axes_and_one_axis(jax, jnp):
    m = mesh2(jax)
    lax = jax.lax
    XY = P(jax, ("x", "y"))
    bl = blocks(X16, 8)
    out = smap(jax, lambda b: lax.ppermute(b, ("x", "y"), cycle(8)), m, XY, XY)(
        jnp.asarray(X16))
    close(out, np.concatenate([bl[(k - 1) % 8] for k in range(8)]))
    # ppermute over 'y' only swaps the two columns of each row of the grid
    x2 = np.arange(8., dtype=np.float32).reshape(4, 2)
    out = smap(jax, lambda b: lax.ppermute(b, "y", [(0, 1), (1, 0)]), m,
               P(jax, "x", "y"), P(jax, "x", "y"))(jnp.asarray(x2))
    close(out, x2[:, ::-1])


@pytest.mark.spec("SHD-59")
def test_ppermute_errors(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    with pytest.raises(ValueError, match=r"ppermute sources and destinations must be "
                       r"unique, got \(\(0, 1\), \(1, 1\)\)\."):
        smap(jax, lambda b: lax.ppermute(b, "i", [(0, 1), (1, 1)]), m, P(jax, "i"),
             P(jax, "i"))(jnp.arange(8.))


# -- SHD-60: all_to_all ----------------------------------------------------------------

@pytest.mark.spec("SHD-60")
def test_all_to_all_untiled(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    x = np.arange(32., dtype=np.float32)
    bl = [b.reshape(4, 2) for b in blocks(x, 4)]
    # split_axis 0 (size 4 == axis size), concat_axis 1: device k gets row k of
    # every device, placed side by side: result[r, j] = bl[j][k, r]
    out = smap(jax, lambda b: lax.all_to_all(b.reshape(4, 2), "i", 0, 1), m,
               P(jax, "i"), P(jax, "i"))(jnp.asarray(x))
    assert out.shape == (8, 4)
    ref = np.concatenate([np.stack([bl[j][k] for j in range(4)], axis=1)
                          for k in range(4)])
    close(out, ref)
    # concat_axis 0: the chunks are stacked along axis 0
    out = smap(jax, lambda b: lax.all_to_all(b.reshape(4, 2), "i", 0, 0), m,
               P(jax, "i"), P(jax, "i"))(jnp.asarray(x))
    assert out.shape == (16, 2)
    ref = np.concatenate([np.stack([bl[j][k] for j in range(4)]) for k in range(4)])
    close(out, ref)


@pytest.mark.spec("SHD-60")
def test_all_to_all_tiled(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    x = np.arange(32., dtype=np.float32)
    bl = blocks(x, 4)                                               # 4 x (8,)
    out = smap(jax, lambda b: lax.all_to_all(b, "i", 0, 0, tiled=True), m,
               P(jax, "i"), P(jax, "i"))(jnp.asarray(x))
    # device k gets chunk k (2 elements) of every device, concatenated
    ref = np.concatenate([np.concatenate([bl[j][2 * k:2 * k + 2] for j in range(4)])
                          for k in range(4)])
    close(out, ref)
    # it transposes a block-distributed matrix: (8, 8) sharded by rows ->
    # exchange chunks along columns -> sharded by columns
    a = np.arange(64., dtype=np.float32).reshape(8, 8)
    out = smap(jax, lambda b: lax.all_to_all(b, "i", 1, 0, tiled=True), m,
               P(jax, "i"), P(jax, None, "i"))(jnp.asarray(a))
    close(out, a)


@pytest.mark.spec("SHD-60")
def test_all_to_all_over_two_axes(jax, jnp):
    m = mesh2(jax)
    lax = jax.lax
    XY = P(jax, ("x", "y"))
    bl = blocks(X16, 8)                                             # 8 x (2,)
    tiles = [np.tile(b, 4) for b in bl]                             # 8 x (8,)
    out = smap(jax, lambda b: lax.all_to_all(jnp.tile(b, 4), ("x", "y"), 0, 0,
                                             tiled=True), m, XY, XY)(jnp.asarray(X16))
    ref = np.concatenate([np.array([tiles[j][k] for j in range(8)]) for k in range(8)])
    close(out, ref)


@pytest.mark.spec("SHD-60")
def test_all_to_all_errors(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    x = jnp.arange(8.)
    with pytest.raises(ValueError, match=r"all_to_all requires the size of the mapped "
                       r"axis axis_name to equal x.shape\[split_axis\], but they are 4 "
                       r"and 2 respectively"):
        smap(jax, lambda b: lax.all_to_all(b, "i", 0, 0), m, P(jax, "i"), P(jax, "i"))(x)
    with pytest.raises(ValueError, match=r"The size of all_to_all split_axis \(2\) has "
                       r"to be divisible by the size of the named axis i \(4\)"):
        smap(jax, lambda b: lax.all_to_all(b, "i", 0, 0, tiled=True), m, P(jax, "i"),
             P(jax, "i"))(x)


# -- SHD-61: axis_index and axis_size ---------------------------------------------------

@pytest.mark.spec("SHD-61")
def test_axis_index(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    out = smap(jax, lambda b: lax.axis_index("i")[None], m, P(jax, "i"), P(jax, "i"))(
        jnp.arange(8.))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), [0, 1, 2, 3])
    m2 = mesh2(jax)
    z = jnp.zeros((4, 2))
    xs = smap(jax, lambda b: lax.axis_index("x")[None, None], m2, P(jax, "x", "y"),
              P(jax, "x", "y"))(z)
    np.testing.assert_array_equal(np.asarray(xs), [[0, 0], [1, 1], [2, 2], [3, 3]])
    ys = smap(jax, lambda b: lax.axis_index("y")[None, None], m2, P(jax, "x", "y"),
              P(jax, "x", "y"))(z)
    np.testing.assert_array_equal(np.asarray(ys), [[0, 1]] * 4)


@pytest.mark.spec("SHD-61")
def test_axis_index_over_two_axes(jax, jnp):
    m = mesh2(jax)
    lax = jax.lax
    x = jnp.zeros(8)
    out = smap(jax, lambda b: lax.axis_index(("x", "y"))[None], m, P(jax, ("x", "y")),
               P(jax, ("x", "y")))(x)
    np.testing.assert_array_equal(np.asarray(out), np.arange(8))
    # the index is row-major over the names given: device (x, y) has
    # axis_index(('x', 'y')) == 2x + y; gathered y-major it reads:
    out = smap(jax, lambda b: lax.axis_index(("x", "y"))[None], m, P(jax, ("x", "y")),
               P(jax, ("y", "x")))(x)
    np.testing.assert_array_equal(np.asarray(out), [0, 2, 4, 6, 1, 3, 5, 7])
    out = smap(jax, lambda b: lax.axis_index(("y", "x"))[None], m, P(jax, ("x", "y")),
               P(jax, ("x", "y")))(x)
    np.testing.assert_array_equal(np.asarray(out), [0, 4, 1, 5, 2, 6, 3, 7])


@pytest.mark.spec("SHD-61")
def test_axis_size(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    out = smap(jax, lambda b: lax.axis_size("i"), m, P(jax, "i"), P(jax))(jnp.arange(8.))
    assert out.dtype == np.int32
    assert int(out) == 4
    out = smap(jax, lambda b: lax.psum(1, "i"), m, P(jax, "i"), P(jax))(jnp.arange(8.))
    assert out.dtype == np.int32
    assert int(out) == 4
    seen = []

    def f(b):
        seen.append(lax.axis_size("i"))
        return b * lax.axis_size("i")
    close(smap(jax, f, m, P(jax, "i"), P(jax, "i"))(jnp.arange(8.)), X8 * 4)
    assert seen and all(type(s) is int and s == 4 for s in seen)
    m2 = mesh2(jax)
    sizes = []

    def g(b):
        sizes.append((lax.axis_size("x"), lax.axis_size("y"), lax.axis_size(("x", "y"))))
        return b
    smap(jax, g, m2, P(jax, "x", "y"), P(jax, "x", "y"))(jnp.zeros((4, 2)))
    assert sizes and set(sizes) == {(4, 2, 8)}


# -- SHD-62: replication checking (check_vma) ---------------------------------------------

@pytest.mark.spec("SHD-62")
def test_check_vma_rejects_varying_output_with_empty_out_specs(jax, jnp):
    m = mesh1(jax)
    x = jnp.arange(8.)
    with pytest.raises(ValueError, match=REPL_MSG) as e:
        smap(jax, lambda b: b.sum(), m, P(jax, "i"), P(jax))(x)
    msg = str(e.value)
    assert msg.startswith("shard_map applied to the function '")
    assert "The mesh given has shape (4,) with corresponding axis names ('i',)." in msg
    assert ("out_specs is P() which implies that the corresponding output value is "
            "replicated across mesh axis 'i', but could not infer replication over "
            "any axes") in msg
    assert "check_vma=False" in msg
    # the same under jit
    with pytest.raises(ValueError, match=REPL_MSG):
        jax.jit(smap(jax, lambda b: b.sum(), m, P(jax, "i"), P(jax)))(x)
    # fixes: psum first, or keep the axis and use P('i')
    close(smap(jax, lambda b: jax.lax.psum(b.sum(), "i"), m, P(jax, "i"), P(jax))(x),
          np.float32(28.))
    close(smap(jax, lambda b: b.sum(keepdims=True), m, P(jax, "i"), P(jax, "i"))(x),
          [1., 5., 9., 13.])


@pytest.mark.spec("SHD-62")
@pytest.mark.parametrize("case", [
    "identity", "b*0", "all_gather", "all_gather_tiled", "ppermute",
    "psum_scatter", "all_to_all", "axis_index"])
def test_varying_results_refused_with_empty_out_specs(jax, jnp, case):
    m = mesh1(jax)
    lax = jax.lax
    f = {
        "identity": lambda b: b,
        "b*0": lambda b: b * 0,
        "all_gather": lambda b: lax.all_gather(b, "i"),
        "all_gather_tiled": lambda b: lax.all_gather(b, "i", tiled=True),
        "ppermute": lambda b: lax.ppermute(b, "i", cycle(4)),
        "psum_scatter": lambda b: lax.psum_scatter(jnp.tile(b, 2), "i", tiled=True),
        "all_to_all": lambda b: lax.all_to_all(jnp.tile(b, 2), "i", 0, 0, tiled=True),
        "axis_index": lambda b: lax.axis_index("i"),
    }[case]
    with pytest.raises(ValueError, match=REPL_MSG):
        smap(jax, f, m, P(jax, "i"), P(jax))(jnp.arange(8.))


@pytest.mark.spec("SHD-62")
def test_constants_and_replicated_inputs_are_replicated(jax, jnp):
    m = mesh1(jax)
    close(smap(jax, lambda b: jnp.ones(2), m, P(jax, "i"), P(jax))(jnp.arange(8.)),
          [1., 1.])
    close(smap(jax, lambda b: b * 2, m, P(jax), P(jax))(jnp.arange(8.)), X8 * 2)


@pytest.mark.spec("SHD-62")
def test_check_vma_partial_replication_2d(jax, jnp):
    m = mesh2(jax)
    lax = jax.lax
    x = jnp.arange(8.).reshape(4, 2)
    # psum over 'x' only: still varying over 'y'
    with pytest.raises(ValueError, match=REPL_MSG) as e:
        smap(jax, lambda b: lax.psum(b, "x"), m, P(jax, "x", "y"), P(jax))(x)
    assert ("out_specs is P() which implies that the corresponding output value is "
            "only varying across mesh axes {} and not {y}, but it was inferred to be "
            "possibly varying over {y}") in str(e.value)
    # P(('x', 'y')) in, P('x') out: the value varies over 'y' too
    with pytest.raises(ValueError, match=REPL_MSG) as e:
        smap(jax, lambda b: b, m, P(jax, ("x", "y")), P(jax, "x"))(jnp.arange(8.))
    assert "The mesh given has shape (4, 2) with corresponding axis names ('x', 'y')." \
        in str(e.value)
    assert ("out_specs is P('x',) which implies that the corresponding output value is "
            "replicated across mesh axis 'y'") in str(e.value)


@pytest.mark.spec("SHD-63")
def test_check_vma_false_returns_first_device_block(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    x = jnp.arange(8.)
    kw = dict(check_vma=False)
    close(smap(jax, lambda b: b.sum(), m, P(jax, "i"), P(jax), **kw)(x), np.float32(1.))
    close(smap(jax, lambda b: b, m, P(jax, "i"), P(jax), **kw)(x), [0., 1.])
    close(smap(jax, lambda b: lax.ppermute(b, "i", cycle(4)), m, P(jax, "i"), P(jax),
               **kw)(x), [6., 7.])
    close(smap(jax, lambda b: lax.all_gather(b, "i", tiled=True), m, P(jax, "i"),
               P(jax), **kw)(x), X8)
    close(smap(jax, lambda b: lax.all_gather(b, "i"), m, P(jax, "i"), P(jax), **kw)(x),
          X8.reshape(4, 2))
    close(smap(jax, lambda b: lax.psum(b, "i"), m, P(jax, "i"), P(jax), **kw)(x),
          [12., 16.])
    close(smap(jax, lambda b: lax.psum_scatter(jnp.tile(b, 2), "i", tiled=True), m,
               P(jax, "i"), P(jax), **kw)(x), [12.])
    # on devices 4..7 it is device 4's block
    m47 = jax.sharding.Mesh(np.array(jax.devices()[4:]), ("i",))
    close(smap(jax, lambda b: b + 1, m47, P(jax, "i"), P(jax), **kw)(x), [1., 2.])
    # with varying outputs and out_specs P('i') it changes nothing
    close(smap(jax, lambda b: b * 3, m, P(jax, "i"), P(jax, "i"), **kw)(x), X8 * 3)


# -- SHD-64: unbound axis names ----------------------------------------------------------

@pytest.mark.spec("SHD-64")
@pytest.mark.parametrize("name", ["all_gather", "psum_scatter", "all_to_all", "axis_size"])
def test_unbound_axis_name_nameerror(jax, jnp, name):
    m = mesh1(jax)
    lax = jax.lax
    f = {
        "all_gather": lambda b: lax.all_gather(b, "z"),
        "psum_scatter": lambda b: lax.psum_scatter(b, "z"),
        "all_to_all": lambda b: lax.all_to_all(b, "z", 0, 0),
        "axis_size": lambda b: b * lax.axis_size("z"),
    }[name]
    with pytest.raises(NameError, match="unbound axis name: z"):
        smap(jax, f, m, P(jax, "i"), P(jax, "i"))(jnp.arange(8.))


@pytest.mark.spec("SHD-64")
def test_unbound_axis_index(jax, jnp):
    m = mesh1(jax)
    with pytest.raises(NameError, match="Found an unbound axis name: z. To fix this, "
                       "please call axis_index under `jax.shard_map`."):
        smap(jax, lambda b: b + jax.lax.axis_index("z"), m, P(jax, "i"),
             P(jax, "i"))(jnp.arange(8.))


@pytest.mark.spec("SHD-64")
@pytest.mark.parametrize("name", ["psum", "pmean", "pmax", "pmin", "ppermute"])
def test_unbound_axis_in_reductions(jax, jnp, name):
    # JAX 0.10.2 fails an internal assertion here (bare AssertionError);
    # a NameError naming the axis is accepted too (SPEC SHD-64).
    m = mesh1(jax)
    lax = jax.lax
    f = (lambda b: lax.ppermute(b, "z", [(0, 1)])) if name == "ppermute" else \
        (lambda b: getattr(lax, name)(b, "z"))
    with pytest.raises((AssertionError, NameError)) as e:
        smap(jax, f, m, P(jax, "i"), P(jax, "i"))(jnp.arange(8.))
    if isinstance(e.value, NameError):
        assert "z" in str(e.value)


@pytest.mark.spec("SHD-64")
def test_collective_outside_shard_map(jax, jnp):
    with pytest.raises(NameError, match="unbound axis name: i"):
        jax.lax.psum(jnp.arange(8.), "i")


@pytest.mark.spec("SHD-64")
def test_no_mesh(jax, jnp):
    with pytest.raises(ValueError, match="The context mesh cannot be empty. Use "
                       r"`jax.set_mesh\(mesh\)` to enter into a mesh context"):
        jax.shard_map(lambda a: a, in_specs=P(jax, "i"), out_specs=P(jax, "i"))(
            jnp.arange(8.))


# -- SHD-65: spec errors --------------------------------------------------------------

@pytest.mark.spec("SHD-65")
def test_uneven_division_error(jax, jnp):
    m = mesh1(jax)
    with pytest.raises(ValueError) as e:
        smap(jax, lambda a: a, m, P(jax, "i"), P(jax, "i"))(jnp.arange(6.))
    msg = str(e.value)
    assert ("was given argument arrays with axis sizes that are not evenly divisible "
            "by the corresponding mesh axis sizes") in msg
    assert "The mesh given has shape (4,) with corresponding axis names ('i',)." in msg
    assert "the passed args[0] of shape float32[6]" in msg
    assert ("corresponds to in_specs of value P('i',), which maps array axis 0 (of size "
            "6) to mesh axis 'i' (of size 4), but 4 does not evenly divide 6") in msg
    m2 = mesh2(jax)
    with pytest.raises(ValueError) as e:
        smap(jax, lambda a: a, m2, P(jax, "x", "y"), P(jax, "x", "y"))(jnp.zeros((4, 5)))
    assert ("maps array axis 1 (of size 5) to mesh axis 'y' (of size 2), but 2 does not "
            "evenly divide 5") in str(e.value)


@pytest.mark.spec("SHD-65")
def test_spec_longer_than_rank(jax, jnp):
    m = mesh1(jax)
    with pytest.raises(ValueError) as e:
        smap(jax, lambda a: a, m, P(jax, "i", None), P(jax, "i"))(jnp.arange(8.))
    msg = str(e.value)
    assert ("was given an in_specs entry which is too long to be compatible with the "
            "corresponding input value from the function") in msg
    assert "in_specs is P('i', None) which has length 2" in msg
    assert "has shape float32[8], which has rank 1 (and 1 < 2)" in msg
    with pytest.raises(ValueError) as e:
        smap(jax, lambda a: a.sum(), m, P(jax, "i"), P(jax, "i"))(jnp.arange(8.))
    msg = str(e.value)
    assert ("was given an out_specs entry which is too long to be compatible with the "
            "corresponding output value from the function") in msg
    assert "out_specs is P('i',) which has length 1" in msg
    assert "has shape float32[], which has rank 0 (and 0 < 1)" in msg
    with pytest.raises(ValueError, match="in_specs entry which is too long"):
        smap(jax, lambda a: a, m, P(jax, "i"), P(jax, "i"))(jnp.float32(3))


@pytest.mark.spec("SHD-65")
def test_unknown_axis_and_bad_spec_types(jax, jnp):
    m = mesh1(jax)
    x = jnp.arange(8.)
    with pytest.raises(ValueError) as e:
        smap(jax, lambda a: a, m, P(jax, "z"), P(jax, "z"))(x)
    assert ("shard_map in_specs argument must refer to an axis marked as manual "
            "(frozenset({'i'})), but:") in str(e.value)
    assert "in_specs refers to 'z'" in str(e.value)
    with pytest.raises(ValueError) as e:
        smap(jax, lambda a: a, m, P(jax, "i"), P(jax, "z"))(x)
    assert "shard_map out_specs argument must refer to an axis marked as manual" \
        in str(e.value)
    assert "out_specs refers to 'z'" in str(e.value)
    with pytest.raises(TypeError) as e:
        smap(jax, lambda a: a, m, "i", P(jax, "i"))(x)
    assert ("shard_map in_specs argument must be a pytree of "
            "`jax.sharding.PartitionSpec` instances, but:") in str(e.value)
    assert "in_specs is i of type str" in str(e.value)


@pytest.mark.spec("SHD-65")
def test_duplicate_mesh_axis_in_spec(jax, jnp):
    m = mesh2(jax)
    # DuplicateSpecError derives from Exception directly (not ValueError)
    with pytest.raises(Exception, match=r"A single NamedSharding spec specification "
                       r"can map every mesh axis to at most one positional dimension, "
                       r"but P\('x', 'x'\) has duplicate entries for `x`") as e:
        smap(jax, lambda a: a, m, P(jax, "x", "x"), P(jax, "x", "x"))(
            jnp.zeros((8, 4)))
    assert type(e.value).__name__ == "DuplicateSpecError"
    assert not isinstance(e.value, ValueError)


# -- SHD-66: jit ----------------------------------------------------------------------

@pytest.mark.spec("SHD-66")
def test_jit_of_shard_map(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    shapes = []

    def body(b):
        shapes.append(tuple(b.shape))
        return jnp.sin(b) * 2 + lax.axis_index("i")
    f = smap(jax, body, m, P(jax, "i"), P(jax, "i"))
    g = jax.jit(f)
    x = jnp.arange(8.)
    a = g(x)
    g(x)
    assert shapes.count((2,)) == 1        # traced once by jit, then cached
    close(a, f(x))
    close(a, np.sin(X8) * 2 + np.repeat(np.arange(4.), 2))
    assert a.sharding.spec == P(jax, "i")
    # shard_map inside a larger jitted computation, collectives included
    h = jax.jit(lambda v: smap(jax, lambda b: lax.psum(b * b, "i"), m, P(jax, "i"),
                               P(jax))(v + 1).sum() * 2)
    close(h(x), np.float32(2 * ((X8 + 1) ** 2).sum()))


@pytest.mark.spec("SHD-66")
def test_jit_errors_match_eager(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    with pytest.raises(ValueError, match="tiled reduce_scatter operand scatter dimension "
                       "size 2 must be divisible by shard_count 4"):
        jax.jit(smap(jax, lambda b: lax.psum_scatter(b, "i", tiled=True), m,
                     P(jax, "i"), P(jax, "i")))(jnp.arange(8.))
    with pytest.raises(NameError, match="unbound axis name: z"):
        jax.jit(smap(jax, lambda b: lax.all_gather(b, "z"), m, P(jax, "i"),
                     P(jax, "i")))(jnp.arange(8.))


# -- SHD-67: autodiff ------------------------------------------------------------------

@pytest.mark.spec("SHD-67")
def test_grad_through_shard_map(jax, jnp):
    m = mesh1(jax)
    f = smap(jax, lambda b: jnp.sin(b) * 2, m, P(jax, "i"), P(jax, "i"))
    x = jnp.arange(8.)
    g = jax.grad(lambda v: f(v).sum())(x)
    close(g, 2 * np.cos(X8))
    close(jax.jit(jax.grad(lambda v: f(v).sum()))(x), 2 * np.cos(X8))
    y, t = jax.jvp(f, (x,), (jnp.ones(8),))
    close(y, 2 * np.sin(X8))
    close(t, 2 * np.cos(X8))


@pytest.mark.spec("SHD-67")
def test_grad_with_psum(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    g = smap(jax, lambda b: lax.psum((b ** 2).sum(), "i"), m, P(jax, "i"), P(jax))
    x = jnp.arange(8.)
    close(g(x), np.float32((X8 ** 2).sum()))
    close(jax.grad(g)(x), 2 * X8)
    m2 = mesh2(jax)
    h = smap(jax, lambda b: lax.psum(jnp.sum(b * b), ("x", "y")), m2, P(jax, "x", "y"),
             P(jax))
    v, d = jax.value_and_grad(h)(jnp.arange(8.).reshape(4, 2))
    close(v, np.float32(140.))
    close(d, 2 * np.arange(8.).reshape(4, 2))


@pytest.mark.spec("SHD-67")
def test_grad_through_collectives(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    w = np.arange(8., dtype=np.float32)
    x = jnp.arange(8.)
    # all_gather(tiled): every device sees all of x; out[k-th copy] weighted by w
    # d/dx_j sum_k sum_m w[m] * x[m]  (4 copies, each weighted by w) = 4 * w[j]
    f = lambda v: smap(jax, lambda b: lax.all_gather(b, "i", tiled=True) * jnp.asarray(w),
                       m, P(jax, "i"), P(jax, "i"))(v).sum()
    close(jax.grad(f)(x), 4 * w)
    # ppermute: cotangents flow back along the inverse permutation
    f = lambda v: (smap(jax, lambda b: lax.ppermute(b, "i", cycle(4)), m, P(jax, "i"),
                        P(jax, "i"))(v) * jnp.asarray(w)).sum()
    close(jax.grad(f)(x), np.roll(w, -2))


# -- SHD-68: vmap -----------------------------------------------------------------------

@pytest.mark.spec("SHD-68")
def test_vmap_of_shard_map(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    f = smap(jax, lambda b: jnp.sin(b) * 2, m, P(jax, "i"), P(jax, "i"))
    xs = np.arange(24., dtype=np.float32).reshape(3, 8)
    out = jax.vmap(f)(jnp.asarray(xs))
    close(out, 2 * np.sin(xs))
    assert out.sharding.spec == P(jax, None, "i")
    out = jax.vmap(f, in_axes=1)(jnp.asarray(xs.T))
    close(out, 2 * np.sin(xs))
    g = smap(jax, lambda b: lax.psum((b ** 2).sum(), "i"), m, P(jax, "i"), P(jax))
    out = jax.vmap(g)(jnp.asarray(xs))
    close(out, (xs ** 2).sum(1))
    close(out, [140., 1100., 3084.])


# -- SHD-69: the collectives tutorial (G-SHARD-006/008) ----------------------------------

@pytest.mark.spec("SHD-69")
@pytest.mark.spec("SHD-51")
def test_gotcha_shard_006(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    shapes = []

    def f(xb):
        shapes.append(tuple(xb.shape))
        return xb * 2
    y = jax.shard_map(f, mesh=m, in_specs=P(jax, "i"), out_specs=P(jax, "i"))(
        jnp.arange(8.))
    assert shapes and set(shapes) == {(2,)}
    close(y, [0., 2., 4., 6., 8., 10., 12., 14.])
    tot = jax.shard_map(lambda xb: lax.psum(xb.sum(), "i"), mesh=m, in_specs=P(jax, "i"),
                        out_specs=P(jax))(jnp.arange(8.))
    assert repr(tot) == "Array(28., dtype=float32)"


@pytest.mark.spec("SHD-69")
@pytest.mark.spec("SHD-62")
def test_gotcha_shard_007(jax, jnp):
    m = mesh1(jax)
    with pytest.raises(ValueError) as e:
        jax.shard_map(lambda xb: xb.sum(), mesh=m, in_specs=P(jax, "i"),
                      out_specs=P(jax))(jnp.arange(8.))
    first = str(e.value).splitlines()[0]
    assert first.startswith("shard_map applied to the function '")
    assert first.endswith("was given out_specs which require replication which can't "
                          "be statically inferred given the mesh:")
    y = jax.shard_map(lambda xb: xb.sum(keepdims=True), mesh=m, in_specs=P(jax, "i"),
                      out_specs=P(jax, "i"))(jnp.arange(8.))
    close(y, [1., 5., 9., 13.])


@pytest.mark.spec("SHD-69")
@pytest.mark.spec("SHD-58")
def test_gotcha_shard_008(jax, jnp):
    m = mesh1(jax)
    lax = jax.lax
    sm = lambda f: jax.shard_map(f, mesh=m, in_specs=P(jax, "i"), out_specs=P(jax, "i"))
    x = jnp.arange(8.)
    ag = sm(lambda b: lax.all_gather(b, "i", tiled=True))(x)
    assert ag.shape == (32,)
    close(ag, np.tile(X8, 4))
    close(sm(lambda b: lax.psum_scatter(b, "i", tiled=True))(jnp.arange(16.)),
          [24., 28., 32., 36.])
    close(sm(lambda b: lax.ppermute(b, "i", perm=[(j, (j + 1) % 4) for j in range(4)]))(x),
          [6., 7., 0., 1., 2., 3., 4., 5.])
    close(sm(lambda b: b * 0 + lax.axis_index("i"))(x),
          [0., 0., 1., 1., 2., 2., 3., 3.])
    with pytest.raises(ValueError) as e:
        sm(lambda b: lax.psum_scatter(b, "i", tiled=True))(x)
    assert str(e.value).splitlines()[0] == ("tiled reduce_scatter operand scatter "
                                            "dimension size 2 must be divisible by "
                                            "shard_count 4")
