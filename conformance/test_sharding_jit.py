"""``jax.jit`` with shardings on 8 CPU devices: in_shardings / out_shardings,
``lax.with_sharding_constraint``, the documented sharding-propagation cases,
per-device output buffers and mixing committed devices (SPEC SHD-30 ..
SHD-45).

Propagation is pinned only in the documented common cases (elementwise ops,
reductions, matmul with a replicated operand, transpose, no sharded inputs).
Every other choice (reshape, gather, concatenate, slicing, conflicting operand
shardings) is up to the compiler; for those the tests check values and that
the result's shards reassemble into the global value, never the spec.
"""
import numpy as np
import pytest


# -- helpers --------------------------------------------------------------------

@pytest.fixture
def sh(jax):
    """Namespace: meshes and sharding constructors of the implementation."""
    class NS:
        pass
    ns = NS()
    ns.Mesh = jax.sharding.Mesh
    ns.NamedSharding = jax.sharding.NamedSharding
    ns.P = jax.sharding.PartitionSpec
    ns.SingleDeviceSharding = jax.sharding.SingleDeviceSharding
    devs = np.array(jax.devices())
    assert devs.size == 8, "conformance runs with 8 CPU devices (SHD-1)"
    ns.devices = list(jax.devices())
    ns.m1 = ns.Mesh(devs, ('x',))
    ns.m2 = ns.Mesh(devs.reshape(4, 2), ('x', 'y'))
    ns.named1 = lambda *spec: ns.NamedSharding(ns.m1, ns.P(*spec))
    ns.named2 = lambda *spec: ns.NamedSharding(ns.m2, ns.P(*spec))
    return ns


def f32(shape, start=0.):
    n = int(np.prod(shape))
    return (np.arange(n, dtype=np.float32) + start).reshape(shape)


def strip_none(spec):
    """A PartitionSpec's entries without trailing Nones (P('x', None) and
    P('x') name the same layout)."""
    entries = list(spec)
    while entries and entries[-1] is None:
        entries.pop()
    return tuple(entries)


def assert_shards_reassemble(jax, arr, expected, ndev=8):
    """Every addressable shard is a per-device buffer holding exactly the
    slice of the global value named by its index, the shards sit on
    distinct devices, and together they cover every element."""
    expected = np.asarray(expected)
    np.testing.assert_allclose(np.asarray(arr), expected, rtol=1e-6)
    shards = arr.addressable_shards
    assert len(shards) == ndev
    assert len({s.device for s in shards}) == ndev
    assert {s.device for s in shards} == set(arr.sharding.device_set)
    covered = np.zeros(expected.shape, dtype=bool)
    for s in shards:
        data = np.asarray(s.data)
        want = expected[s.index]
        assert data.shape == want.shape
        np.testing.assert_allclose(data, want, rtol=1e-6)
        assert s.data.devices() == {s.device}
        covered[s.index] = True
    assert covered.all()


# -- SHD-30: out_shardings --------------------------------------------------------

@pytest.mark.spec("SHD-30")
def test_out_shardings_single_sharding(jax, sh):
    x = f32((8, 2))
    s = sh.named1('x')
    y = jax.jit(lambda v: v * 2, out_shardings=s)(x)
    assert y.sharding == s
    assert y.sharding.spec == sh.P('x')
    assert y.committed
    np.testing.assert_array_equal(np.asarray(y), x * 2)


@pytest.mark.spec("SHD-30")
def test_out_shardings_2d_mesh(jax, sh):
    x = f32((8, 4))
    s = sh.named2('x', 'y')
    y = jax.jit(lambda v: v + 1, out_shardings=s)(x)
    assert y.sharding == s
    assert_shards_reassemble(jax, y, x + 1)
    assert {sd.data.shape for sd in y.addressable_shards} == {(2, 2)}


@pytest.mark.spec("SHD-30")
def test_out_shardings_pytree(jax, sh):
    x = f32((8, 2))
    sx, srep = sh.named1('x'), sh.named1()
    out = jax.jit(lambda v: (v, {'a': v + 1, 'b': v.sum()}),
                  out_shardings=(sx, {'a': srep, 'b': srep}))(x)
    assert out[0].sharding == sx
    assert out[1]['a'].sharding == srep
    assert out[1]['b'].sharding == srep
    assert out[1]['b'].sharding.spec == sh.P()
    np.testing.assert_array_equal(np.asarray(out[0]), x)
    np.testing.assert_array_equal(np.asarray(out[1]['a']), x + 1)
    assert float(out[1]['b']) == float(x.sum())


@pytest.mark.spec("SHD-30")
def test_out_shardings_one_sharding_for_all_outputs(jax, sh):
    x = f32((8, 2))
    sx = sh.named1('x')
    a, b = jax.jit(lambda v: (v, v * 3), out_shardings=sx)(x)
    assert a.sharding == sx and b.sharding == sx
    np.testing.assert_array_equal(np.asarray(b), x * 3)


@pytest.mark.spec("SHD-30")
def test_out_shardings_none_entry_values(jax, sh):
    # A None entry leaves that output to the compiler: only values are pinned.
    x = f32((8, 2))
    sx = sh.named1('x')
    a, b = jax.jit(lambda v: (v, v + 1), out_shardings=(sx, None))(x)
    assert a.sharding == sx
    np.testing.assert_array_equal(np.asarray(b), x + 1)
    assert_shards_reassemble(jax, b, x + 1, ndev=len(b.sharding.device_set))


@pytest.mark.spec("SHD-30")
def test_out_shardings_single_device(jax, sh):
    s = sh.SingleDeviceSharding(sh.devices[5])
    y = jax.jit(lambda v: v * 2, out_shardings=s)(f32((4,)))
    assert y.sharding == s
    assert y.devices() == {sh.devices[5]}
    assert y.committed
    np.testing.assert_array_equal(np.asarray(y), f32((4,)) * 2)


@pytest.mark.spec("SHD-30")
def test_out_shardings_indivisible(jax, jnp, sh):
    with pytest.raises(ValueError) as e:
        jax.jit(lambda v: v, out_shardings=sh.named1('x'))(jnp.arange(7.))
    assert type(e.value).__name__ == "IndivisibleError"
    assert ("implies that array axis 0 is partitioned 8 times, but the "
            "dimension size is 7 (full shape: (7,), per-dimension tiling "
            "factors: [8] should evenly divide the shape)") in str(e.value)


# -- SHD-31: in_shardings place uncommitted arguments -------------------------------

@pytest.mark.spec("SHD-31")
@pytest.mark.parametrize("kind", ["jnp", "numpy"])
def test_in_shardings_place_uncommitted(jax, jnp, sh, kind):
    xn = f32((8, 2))
    x = jnp.asarray(xn) if kind == "jnp" else xn
    s = sh.named1('x')
    seen = []

    def f(v):
        seen.append(v.shape)
        return v
    y = jax.jit(f, in_shardings=s)(x)
    assert seen == [(8, 2)]          # the function sees the global shape
    assert y.sharding == s
    assert_shards_reassemble(jax, y, xn)
    assert {sd.data.shape for sd in y.addressable_shards} == {(1, 2)}


@pytest.mark.spec("SHD-31")
def test_in_shardings_pytree_with_none(jax, jnp, sh):
    x = jnp.asarray(f32((8, 2)))
    sx = sh.named1('x')
    a, b = jax.jit(lambda v, w: (v, w + 1), in_shardings=(sx, None))(x, x)
    assert a.sharding == sx
    np.testing.assert_array_equal(np.asarray(b), f32((8, 2)) + 1)
    # Dict prefix
    r = jax.jit(lambda d: d['a'] + d['b'],
                in_shardings=({'a': sx, 'b': None},))({'a': x, 'b': x})
    np.testing.assert_array_equal(np.asarray(r), f32((8, 2)) * 2)


@pytest.mark.spec("SHD-31")
def test_in_shardings_matching_committed_arg(jax, sh):
    s = sh.named2('x', 'y')
    x = jax.device_put(f32((8, 4)), s)
    y = jax.jit(lambda v: v - 1, in_shardings=s)(x)
    np.testing.assert_array_equal(np.asarray(y), f32((8, 4)) - 1)
    assert y.sharding.spec == sh.P('x', 'y')


@pytest.mark.spec("SHD-31")
def test_in_shardings_single_device(jax, sh):
    s = sh.SingleDeviceSharding(sh.devices[5])
    y = jax.jit(lambda v: v * 2, in_shardings=s)(f32((4,)))
    assert y.sharding == s and y.committed


@pytest.mark.spec("SHD-31")
def test_in_shardings_reject_kwargs(jax, sh):
    with pytest.raises(ValueError, match="^pjit does not support kwargs when "
                                         "in_shardings is specified."):
        jax.jit(lambda v: v, in_shardings=sh.named1('x'))(v=f32((8,)))


@pytest.mark.spec("SHD-31")
def test_in_shardings_wrong_length(jax, sh):
    with pytest.raises(ValueError) as e:
        jax.jit(lambda v, w: v, in_shardings=(sh.named1('x'),))(f32((8,)), f32((8,)))
    msg = str(e.value)
    assert msg.startswith("pjit in_shardings specification must be a tree "
                          "prefix of the positional arguments tuple.")
    assert ("But pjit in_shardings is the wrong length: got a tuple or list "
            "of length 1 for an args tuple of length 2.") in msg


@pytest.mark.spec("SHD-31")
def test_in_shardings_rank_too_small(jax, sh):
    s = sh.named2('x', 'y', None)
    with pytest.raises(ValueError) as e:
        jax.jit(lambda v: v, in_shardings=s)(f32((8, 2)))
    msg = str(e.value)
    assert msg.startswith("One of pjit arguments with pytree key path v is "
                          "incompatible with its sharding annotation ")
    assert ("is only valid for values of rank at least 3, but was applied "
            "to a value of rank 2.") in msg


@pytest.mark.spec("SHD-31")
def test_in_shardings_indivisible(jax, jnp, sh):
    with pytest.raises(ValueError) as e:
        jax.jit(lambda v: v, in_shardings=sh.named1('x'))(jnp.arange(7.))
    assert type(e.value).__name__ == "IndivisibleError"
    assert "but the dimension size is 7" in str(e.value)


# -- SHD-32: committed argument with a different sharding ---------------------------

@pytest.mark.spec("SHD-32")
def test_in_shardings_mismatch_named(jax, sh):
    sx, srep = sh.named1('x'), sh.named1()
    xc = jax.device_put(f32((8, 2)), srep)
    with pytest.raises(ValueError) as e:
        jax.jit(lambda v: v * 2, in_shardings=sx)(xc)
    msg = str(e.value)
    assert msg.startswith("Sharding passed to jit does not match the sharding "
                          "on the respective arg. Got jit sharding: ")
    assert msg == ("Sharding passed to jit does not match the sharding on the "
                   f"respective arg. Got jit sharding: {sx!r},\n"
                   f"arg sharding: {srep!r} for arg type: float32[8,2]")
    assert "spec=P('x',)" in msg and "spec=P()" in msg


@pytest.mark.spec("SHD-32")
def test_in_shardings_mismatch_single_device(jax, sh):
    sx = sh.named1('x')
    xd = jax.device_put(f32((8, 2)), sh.devices[1])
    with pytest.raises(ValueError) as e:
        jax.jit(lambda v: v * 2, in_shardings=sx)(xd)
    msg = str(e.value)
    assert msg.startswith("Sharding passed to jit does not match the sharding "
                          "on the respective arg.")
    assert ",\narg sharding: SingleDeviceSharding(device=CpuDevice(id=1)" in msg
    assert msg.endswith(" for arg type: float32[8,2]")


# -- SHD-33: PartitionSpec in jit shardings needs a mesh -----------------------------

@pytest.mark.spec("SHD-33")
@pytest.mark.parametrize("which", ["in_shardings", "out_shardings"])
def test_jit_partitionspec_without_mesh(jax, sh, which):
    with pytest.raises(RuntimeError) as e:
        jax.jit(lambda v: v, **{which: sh.P('x')})(f32((8,)))
    assert str(e.value) == (
        f"jit requires a non-empty mesh in context if you are passing "
        f"`PartitionSpec`s to {which}. You can define a context mesh via "
        f"`jax.set_mesh(mesh)`. Alternatively, provide `Sharding`s to "
        f"{which} and then the mesh context manager is not required.")


@pytest.mark.spec("SHD-33")
def test_jit_partitionspec_under_set_mesh(jax, jnp, sh):
    x = jnp.arange(8.)             # created outside the context: uncommitted
    with jax.set_mesh(sh.m1):
        a = jax.jit(lambda v: v * 2, in_shardings=sh.P('x'))(x)
        b = jax.jit(lambda v: v * 2, out_shardings=sh.P('x'))(x)
        c = jax.jit(lambda v: v * 2, in_shardings=sh.P('x'))(np.arange(8.))
    for r in (a, b, c):
        assert r.sharding == sh.named1('x')
        np.testing.assert_array_equal(np.asarray(r), np.arange(8.) * 2)
    # The context restores the empty mesh on exit.
    with pytest.raises(RuntimeError, match="jit requires a non-empty mesh"):
        jax.jit(lambda v: v, out_shardings=sh.P('x'))(x)


# -- SHD-34: with_sharding_constraint under jit --------------------------------------

@pytest.mark.spec("SHD-34")
def test_g_shard_013_wsc_sets_output_sharding(jax, jnp, sh):
    s = sh.named1('x')
    y = jax.jit(lambda v: jax.lax.with_sharding_constraint(v * 2, s))(jnp.arange(8.))
    assert y.sharding.spec == sh.P('x')
    assert y.sharding == s
    np.testing.assert_array_equal(np.asarray(y), np.arange(8.) * 2)
    assert str(y) == "[ 0.  2.  4.  6.  8. 10. 12. 14.]"
    assert_shards_reassemble(jax, y, np.arange(8.) * 2)


@pytest.mark.spec("SHD-34")
@pytest.mark.parametrize("spec", [('x', 'y'), ('y', 'x'), ('x',), (None, 'y'), ()])
def test_wsc_2d_mesh(jax, jnp, sh, spec):
    x = f32((8, 4))
    s = sh.named2(*spec)
    y = jax.jit(lambda v: jax.lax.with_sharding_constraint(jnp.sin(v), s))(x)
    assert y.sharding == s
    assert_shards_reassemble(jax, y, np.sin(x))


@pytest.mark.spec("SHD-34")
def test_wsc_on_intermediate_then_elementwise(jax, sh):
    x = f32((8, 4))
    s = sh.named2('y')
    y = jax.jit(lambda v: jax.lax.with_sharding_constraint(v * 2, s) + 1)(x)
    assert y.sharding.spec == sh.P('y')
    np.testing.assert_array_equal(np.asarray(y), x * 2 + 1)


@pytest.mark.spec("SHD-34")
def test_wsc_pytree(jax, jnp, sh):
    wsc = jax.lax.with_sharding_constraint
    a, b = jax.jit(lambda u, v: wsc((u, v), (sh.named1('x'), sh.named1(None, 'x'))))(
        f32((8, 2)), jnp.ones((8, 8)))
    assert a.sharding.spec == sh.P('x')
    assert b.sharding.spec == sh.P(None, 'x')
    np.testing.assert_array_equal(np.asarray(a), f32((8, 2)))
    np.testing.assert_array_equal(np.asarray(b), np.ones((8, 8)))


@pytest.mark.spec("SHD-34")
def test_wsc_rank_too_small(jax, sh):
    s = sh.named2('x', 'y', None)
    with pytest.raises(ValueError) as e:
        jax.jit(lambda v: jax.lax.with_sharding_constraint(v, s))(f32((8, 2)))
    msg = str(e.value)
    assert msg.startswith("One of with_sharding_constraint arguments is "
                          "incompatible with its sharding annotation ")
    assert ("is only valid for values of rank at least 3, but was applied "
            "to a value of rank 2.") in msg


# -- SHD-35: with_sharding_constraint outside jit ---------------------------------

@pytest.mark.spec("SHD-35")
def test_wsc_eager_reshards(jax, jnp, sh):
    wsc = jax.lax.with_sharding_constraint
    x = jnp.asarray(f32((8, 2)))
    s = sh.named1('x')
    r = wsc(x, s)
    assert isinstance(r, jax.Array)
    assert r is not x
    assert r.sharding == s and r.committed
    assert not x.committed         # the input is not modified
    assert_shards_reassemble(jax, r, f32((8, 2)))
    # From another NamedSharding and from a NumPy array
    x2 = jax.device_put(f32((8, 2)), sh.named2('x', 'y'))
    r2 = wsc(x2, s)
    assert r2.sharding == s
    assert x2.sharding == sh.named2('x', 'y')
    assert_shards_reassemble(jax, r2, f32((8, 2)))
    r3 = wsc(np.arange(8.), s)
    assert r3.sharding == s
    np.testing.assert_array_equal(np.asarray(r3), np.arange(8.))


@pytest.mark.spec("SHD-35")
def test_wsc_eager_indivisible(jax, jnp, sh):
    with pytest.raises(ValueError) as e:
        jax.lax.with_sharding_constraint(jnp.arange(7.), sh.named1('x'))
    assert type(e.value).__name__ == "IndivisibleError"
    assert "implies that array axis 0 is partitioned 8 times" in str(e.value)


# -- SHD-36: with_sharding_constraint with a PartitionSpec -----------------------

WSC_NO_MESH = ("with_sharding_constraint requires a non-empty mesh in context "
               "if you are passing `PartitionSpec`s to shardings. You can "
               "define a context mesh via `jax.set_mesh(mesh)`. Alternatively, "
               "provide `Sharding`s to shardings and then the mesh context "
               "manager is not required.")


@pytest.mark.spec("SHD-36")
def test_wsc_partitionspec_without_mesh(jax, jnp, sh):
    x = jnp.arange(8.)
    with pytest.raises(RuntimeError) as e:
        jax.lax.with_sharding_constraint(x, sh.P('x'))
    assert str(e.value) == WSC_NO_MESH
    with pytest.raises(RuntimeError) as e:
        jax.jit(lambda v: jax.lax.with_sharding_constraint(v, sh.P('x')))(x)
    assert str(e.value) == WSC_NO_MESH


@pytest.mark.spec("SHD-36")
def test_wsc_partitionspec_under_set_mesh(jax, jnp, sh):
    x = jnp.arange(8.)
    assert jax.sharding.set_mesh is jax.set_mesh
    with jax.set_mesh(sh.m1):
        y = jax.jit(lambda v: jax.lax.with_sharding_constraint(v * 3, sh.P('x')))(x)
    assert y.sharding == sh.named1('x')
    np.testing.assert_array_equal(np.asarray(y), np.arange(8.) * 3)
    # Leaving the context restores "no mesh".
    with pytest.raises(RuntimeError, match="^with_sharding_constraint requires "
                                           "a non-empty mesh in context"):
        jax.jit(lambda v: jax.lax.with_sharding_constraint(v, sh.P('x')))(x)
    # Nested set_mesh: the inner mesh wins, the outer comes back.
    with jax.set_mesh(sh.m1):
        with jax.set_mesh(sh.m2):
            z = jax.jit(lambda v: jax.lax.with_sharding_constraint(v, sh.P('x', 'y')))(f32((8, 4)))
        w = jax.jit(lambda v: jax.lax.with_sharding_constraint(v, sh.P('x')))(x)
    assert z.sharding == sh.named2('x', 'y')
    assert w.sharding == sh.named1('x')


@pytest.mark.spec("SHD-36")
def test_wsc_partitionspec_under_with_mesh_deprecated(jax, jnp, sh):
    x = jnp.arange(8.)
    with pytest.warns(DeprecationWarning, match="`with mesh:` context manager "
                      r"has been deprecated. Please use `with jax.set_mesh\(mesh\):` instead."):
        with sh.m1:
            y = jax.jit(lambda v: jax.lax.with_sharding_constraint(v + 1, sh.P('x')))(x)
            z = jax.lax.with_sharding_constraint(x, sh.P('x'))
    assert y.sharding == sh.named1('x')
    assert z.sharding == sh.named1('x')
    np.testing.assert_array_equal(np.asarray(y), np.arange(8.) + 1)
    np.testing.assert_array_equal(np.asarray(z), np.arange(8.))


@pytest.mark.spec("SHD-36")
def test_use_mesh_is_gone(jax):
    assert not hasattr(jax.sharding, "use_mesh")
    assert not hasattr(jax, "use_mesh")
    assert callable(jax.set_mesh)


# -- SHD-37: elementwise propagation ---------------------------------------------

ELEMENTWISE = {
    'sin': lambda jnp, v: jnp.sin(v),
    'mul_self': lambda jnp, v: v * v,
    'add_scalar': lambda jnp, v: v + 1.,
    'scalar_mul': lambda jnp, v: 2 * v,
    'neg': lambda jnp, v: -v,
    'where': lambda jnp, v: jnp.where(v > 3, v, 0.),
    'lt': lambda jnp, v: v < 3,
    'astype': lambda jnp, v: v.astype(jnp.int32),
    'add_uncommitted': lambda jnp, v: v + jnp.ones(v.shape),
    'uncommitted_add': lambda jnp, v: jnp.ones(v.shape) - v,
    'add_numpy': lambda jnp, v: v + np.ones(v.shape, np.float32),
    'add_np_scalar': lambda jnp, v: v + np.float32(3),
    'sin_mul_2': lambda jnp, v: jnp.sin(v) * 2,
}

NP_ELEMENTWISE = {
    'sin': lambda v: np.sin(v),
    'mul_self': lambda v: v * v,
    'add_scalar': lambda v: v + 1.,
    'scalar_mul': lambda v: 2 * v,
    'neg': lambda v: -v,
    'where': lambda v: np.where(v > 3, v, 0.),
    'lt': lambda v: v < 3,
    'astype': lambda v: v.astype(np.int32),
    'add_uncommitted': lambda v: v + 1,
    'uncommitted_add': lambda v: 1 - v,
    'add_numpy': lambda v: v + 1,
    'add_np_scalar': lambda v: v + 3,
    'sin_mul_2': lambda v: np.sin(v) * 2,
}

SPECS_1D_MESH = [('x',), ('x', None), (None, 'x'), ()]
SPECS_2D_MESH = [('x', 'y'), ('y', 'x'), ('x',), (None, 'y'), (('x', 'y'),)]


def _sharded_input(jax, sh, mesh_name, spec):
    if mesh_name == 'm1':
        shape = (4, 16) if spec == (None, 'x') else (8, 4)
        s = sh.named1(*spec)
    else:
        shape = (8, 4)
        s = sh.named2(*spec)
    xn = f32(shape)
    return xn, jax.device_put(xn, s), s


@pytest.mark.spec("SHD-37")
@pytest.mark.spec("SHD-46")
@pytest.mark.parametrize("mesh_name,spec",
                         [('m1', s) for s in SPECS_1D_MESH] +
                         [('m2', s) for s in SPECS_2D_MESH])
@pytest.mark.parametrize("mode", ["jit", "eager"])
def test_elementwise_keeps_sharding(jax, jnp, sh, mesh_name, spec, mode):
    xn, x, s = _sharded_input(jax, sh, mesh_name, spec)
    if mode == "jit":   # one jitted function with every op as an output
        results = jax.jit(lambda v: {n: f(jnp, v) for n, f in ELEMENTWISE.items()})(x)
    else:
        results = {n: f(jnp, x) for n, f in ELEMENTWISE.items()}
    assert sorted(results) == sorted(ELEMENTWISE)
    for name, y in results.items():
        if mode == "jit":
            # Under jit the input's sharding is kept exactly (trailing None too).
            assert y.sharding == s, (name, y.sharding)
            assert y.sharding.spec == sh.P(*spec), name
        else:
            # Eagerly a trailing None may be dropped (e.g. for `2 * v`).
            assert y.sharding.mesh == s.mesh, name
            assert strip_none(y.sharding.spec) == strip_none(s.spec), (name, y.sharding)
            assert y.sharding.is_equivalent_to(s, y.ndim), name
        want = NP_ELEMENTWISE[name](xn)
        np.testing.assert_allclose(np.asarray(y), want, rtol=1e-6, err_msg=name)
        assert y.dtype == want.dtype, name


@pytest.mark.spec("SHD-37")
@pytest.mark.spec("SHD-46")
def test_g_shard_005_jit_propagates(jax, jnp, sh):
    x = jax.device_put(jnp.arange(8.), sh.named1('x'))
    y = jax.jit(lambda v: jnp.sin(v) * 2)(x)
    assert y.sharding.spec == sh.P('x')
    assert bool(jnp.allclose(y, jnp.sin(jnp.arange(8.)) * 2))
    assert_shards_reassemble(jax, y, np.sin(np.arange(8., dtype=np.float32)) * 2)
    s = jax.jit(jnp.sum)(x)
    assert repr(s) == "Array(28., dtype=float32)"
    assert s.sharding.is_fully_replicated
    assert s.sharding.spec == sh.P()


@pytest.mark.spec("SHD-37")
@pytest.mark.spec("SHD-46")
@pytest.mark.parametrize("mode", ["jit", "eager"])
def test_binary_with_replicated_committed(jax, sh, mode):
    sx = sh.named1('x')
    xb = jax.device_put(f32((8, 4)), sx)
    rep = jax.device_put(f32((8, 4), 100.), sh.named1())
    add = (lambda a, b: a + b)
    mul = (lambda a, b: a * b)
    if mode == "jit":
        add, mul = jax.jit(add), jax.jit(mul)
    for r, want in [(add(xb, rep), f32((8, 4)) + f32((8, 4), 100.)),
                    (mul(rep, xb), f32((8, 4)) * f32((8, 4), 100.))]:
        assert r.sharding == sx
        np.testing.assert_allclose(np.asarray(r), want)


@pytest.mark.spec("SHD-37")
@pytest.mark.spec("SHD-46")
@pytest.mark.parametrize("mode", ["jit", "eager"])
def test_binary_broadcast_row(jax, jnp, sh, mode):
    sx = sh.named2('x')
    xb = jax.device_put(f32((8, 4)), sx)
    f = lambda v, r: v + r
    if mode == "jit":
        f = jax.jit(f)
    for row in (jnp.arange(4.), np.arange(4., dtype=np.float32)):
        r = f(xb, row)
        assert r.sharding == sx
        np.testing.assert_allclose(np.asarray(r), f32((8, 4)) + np.arange(4.))


@pytest.mark.spec("SHD-37")
@pytest.mark.spec("SHD-46")
def test_binary_same_sharding(jax, sh):
    s = sh.named2('x', 'y')
    a = jax.device_put(f32((8, 4)), s)
    b = jax.device_put(f32((8, 4), 7.), s)
    for r in (a + b, jax.jit(lambda u, v: u - v)(a, b)):
        assert r.sharding == s
    np.testing.assert_allclose(np.asarray(a + b), f32((8, 4)) + f32((8, 4), 7.))


# -- SHD-38: reductions ---------------------------------------------------------

REDUCTIONS = [
    # (mesh, spec, op, expected spec)
    ('m1', ('x',), 'sum1', ('x',)),
    ('m1', ('x',), 'sum0', ()),
    ('m1', ('x',), 'max0', ()),
    ('m1', ('x',), 'mean1', ('x',)),
    ('m1', ('x',), 'sum', ()),
    ('m1', (None, 'x'), 'sum0', ('x',)),
    ('m1', (None, 'x'), 'sum1', ()),
    ('m1', (None, 'x'), 'max0', ('x',)),
    ('m2', ('x', 'y'), 'sum1', ('x',)),
    ('m2', ('x', 'y'), 'sum0', ('y',)),
    ('m2', ('x', 'y'), 'max0', ('y',)),
    ('m2', ('x', 'y'), 'mean1', ('x',)),
    ('m2', ('x', 'y'), 'sum', ()),
    ('m2', ('y', 'x'), 'sum1', ('y',)),
    ('m2', ('y', 'x'), 'sum0', ('x',)),
    ('m2', ('x',), 'sum1', ('x',)),
    ('m2', ('x',), 'sum0', ()),
    ('m2', (None, 'y'), 'sum0', ('y',)),
    ('m2', (None, 'y'), 'mean1', ()),
    ('m2', (('x', 'y'),), 'sum1', (('x', 'y'),)),
    ('m2', (('x', 'y'),), 'sum0', ()),
]

RED_OPS = {
    'sum0': (lambda v: v.sum(0), lambda a: a.sum(0)),
    'sum1': (lambda v: v.sum(1), lambda a: a.sum(1)),
    'max0': (lambda v: v.max(0), lambda a: a.max(0)),
    'mean1': (lambda v: v.mean(1), lambda a: a.mean(1)),
    'sum': (None, lambda a: a.sum()),
}


@pytest.mark.spec("SHD-38")
@pytest.mark.spec("SHD-46")
@pytest.mark.parametrize("mesh_name,spec,op,want_spec", REDUCTIONS)
@pytest.mark.parametrize("mode", ["jit", "eager"])
def test_reduction_sharding(jax, jnp, sh, mesh_name, spec, op, want_spec, mode):
    xn, x, s = _sharded_input(jax, sh, mesh_name, spec)
    f = RED_OPS[op][0] or jnp.sum
    y = jax.jit(f)(x) if mode == "jit" else f(x)
    assert y.sharding.spec == sh.P(*want_spec)
    assert y.sharding.mesh == s.mesh
    if want_spec == ():
        assert y.sharding.is_fully_replicated
    want = RED_OPS[op][1](xn)
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-6)
    assert_shards_reassemble(jax, y, want)


# -- SHD-39: matmul ------------------------------------------------------------

@pytest.mark.spec("SHD-39")
@pytest.mark.spec("SHD-46")
@pytest.mark.parametrize("mode", ["jit", "eager"])
@pytest.mark.parametrize("mesh_name", ["m1", "m2"])
def test_matmul_row_sharded_by_replicated(jax, jnp, sh, mode, mesh_name):
    named = sh.named1 if mesh_name == "m1" else sh.named2
    a = jax.device_put(f32((8, 4)), named('x'))
    w = jax.device_put(f32((4, 6), 1.), named())
    mm = jax.jit(jnp.matmul) if mode == "jit" else (lambda p, q: p @ q)
    y = mm(a, w)
    assert y.sharding == named('x')
    want = f32((8, 4)) @ f32((4, 6), 1.)
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-6)
    assert_shards_reassemble(jax, y, want)
    # An uncommitted right operand behaves like the replicated one.
    y2 = jax.jit(lambda p, q: p @ q)(a, jnp.asarray(f32((4, 6), 1.)))
    assert y2.sharding == named('x')


@pytest.mark.spec("SHD-39")
@pytest.mark.spec("SHD-46")
@pytest.mark.parametrize("mode", ["jit", "eager"])
def test_matmul_replicated_by_column_sharded(jax, jnp, sh, mode):
    a = jax.device_put(f32((8, 4)), sh.named2())
    w = jax.device_put(f32((4, 6), 1.), sh.named2(None, 'y'))
    mm = jax.jit(jnp.matmul) if mode == "jit" else (lambda p, q: p @ q)
    y = mm(a, w)
    assert y.sharding == sh.named2(None, 'y')
    want = f32((8, 4)) @ f32((4, 6), 1.)
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-6)
    assert_shards_reassemble(jax, y, want)
    y2 = jax.jit(jnp.dot)(a, w)
    assert y2.sharding.spec == sh.P(None, 'y')
    y3 = jax.jit(jnp.matmul)(jnp.asarray(f32((8, 4))), w)   # uncommitted lhs
    assert y3.sharding.spec == sh.P(None, 'y')


@pytest.mark.spec("SHD-39")
@pytest.mark.spec("SHD-46")
def test_matmul_replicated_by_column_sharded_1d_mesh(jax, jnp, sh):
    a = jax.device_put(f32((8, 4)), sh.named1())
    w = jax.device_put(f32((4, 16)), sh.named1(None, 'x'))
    y = jax.jit(jnp.matmul)(a, w)
    assert y.sharding.spec == sh.P(None, 'x')
    np.testing.assert_allclose(np.asarray(y), f32((8, 4)) @ f32((4, 16)), rtol=1e-6)


# -- SHD-40: transpose ---------------------------------------------------------

TRANSPOSES = [
    ('m2', ('x', 'y'), ('y', 'x')),
    ('m2', ('y', 'x'), ('x', 'y')),
    ('m2', ('x',), (None, 'x')),
    ('m2', (None, 'y'), ('y',)),
    ('m2', (('x', 'y'),), (None, ('x', 'y'))),
    ('m1', ('x',), (None, 'x')),
    ('m1', (None, 'x'), ('x',)),
    ('m1', (), ()),
]


@pytest.mark.spec("SHD-40")
@pytest.mark.spec("SHD-46")
@pytest.mark.parametrize("mesh_name,spec,want_spec", TRANSPOSES)
@pytest.mark.parametrize("how", ["jit_T", "jit_transpose", "eager_T"])
def test_transpose_permutes_spec(jax, jnp, sh, mesh_name, spec, want_spec, how):
    xn, x, s = _sharded_input(jax, sh, mesh_name, spec)
    if how == "jit_T":
        y = jax.jit(lambda v: v.T)(x)
    elif how == "jit_transpose":
        y = jax.jit(jnp.transpose)(x)
    else:
        y = x.T
    assert y.sharding.spec == sh.P(*want_spec)
    assert_shards_reassemble(jax, y, xn.T)


# -- SHD-41: no sharded inputs ------------------------------------------------------

@pytest.mark.spec("SHD-41")
def test_no_sharded_inputs_single_device(jax, jnp, sh):
    d0 = sh.devices[0]
    for y in (jax.jit(lambda v: v * 2)(jnp.arange(4.)),
              jax.jit(lambda v: v * 2)(np.arange(4.)),
              jax.jit(lambda: jnp.ones(3))()):
        assert isinstance(y.sharding, sh.SingleDeviceSharding)
        assert y.sharding == sh.SingleDeviceSharding(d0)
        assert y.devices() == {d0}
        assert not y.committed
        assert len(y.addressable_shards) == 1


@pytest.mark.spec("SHD-41")
def test_committed_single_device_input_stays(jax, jnp, sh):
    d3 = sh.devices[3]
    x = jax.device_put(jnp.arange(4.), d3)
    y = jax.jit(lambda v: v * 2)(x)
    assert y.sharding == sh.SingleDeviceSharding(d3)
    assert y.committed
    y2 = jax.jit(lambda u, v: u + v)(x, jnp.ones(4))   # uncommitted follows
    assert y2.devices() == {d3} and y2.committed
    np.testing.assert_array_equal(np.asarray(y2), np.arange(4.) + 1)


# -- SHD-42: compiler-dependent propagation: values and shards only -----------------

COMPILER_CHOSEN = {
    'reshape_flat': (lambda jnp, v: v.reshape(32), lambda a: a.reshape(32)),
    'reshape_4x8': (lambda jnp, v: v.reshape(4, 8), lambda a: a.reshape(4, 8)),
    'gather': (lambda jnp, v: v[jnp.array([3, 1, 7])], lambda a: a[[3, 1, 7]]),
    'concat0': (lambda jnp, v: jnp.concatenate([v, v], 0),
                lambda a: np.concatenate([a, a], 0)),
    'concat1': (lambda jnp, v: jnp.concatenate([v, v * 2], 1),
                lambda a: np.concatenate([a, a * 2], 1)),
    'slice': (lambda jnp, v: v[1:5], lambda a: a[1:5]),
    'cumsum': (lambda jnp, v: jnp.cumsum(v, 0), lambda a: np.cumsum(a, 0)),
    'flip': (lambda jnp, v: v[::-1], lambda a: a[::-1]),
}


@pytest.mark.spec("SHD-42")
@pytest.mark.parametrize("name", sorted(COMPILER_CHOSEN))
@pytest.mark.parametrize("spec", [('x', 'y'), ('y',)])
def test_compiler_chosen_values_and_shards(jax, jnp, sh, name, spec):
    f, ref = COMPILER_CHOSEN[name]
    xn = f32((8, 4))
    x = jax.device_put(xn, sh.named2(*spec))
    y = jax.jit(lambda v: f(jnp, v))(x)
    want = ref(xn)
    assert y.shape == want.shape
    assert_shards_reassemble(jax, y, want, ndev=len(y.sharding.device_set))
    ye = f(jnp, x)                  # eagerly, too
    assert_shards_reassemble(jax, ye, want, ndev=len(ye.sharding.device_set))


@pytest.mark.spec("SHD-42")
def test_conflicting_operand_shardings_values(jax, sh):
    a = jax.device_put(f32((8, 4)), sh.named2('x', 'y'))
    b = jax.device_put(f32((8, 4), 5.), sh.named2('y', 'x'))
    want = f32((8, 4)) + f32((8, 4), 5.)
    for y in (jax.jit(lambda u, v: u + v)(a, b), a + b):
        assert_shards_reassemble(jax, y, want, ndev=len(y.sharding.device_set))


# -- SHD-43: output shards are per-device buffers ------------------------------------

@pytest.mark.spec("SHD-43")
def test_jit_output_shards_are_device_buffers(jax, jnp, sh):
    xn = f32((16, 3))
    y = jax.jit(lambda v: v * 2 + 1, out_shardings=sh.named1('x'))(jnp.asarray(xn))
    shards = y.addressable_shards
    assert len(shards) == 8
    assert [s.device for s in shards] == sh.devices
    assert len({s.device for s in shards}) == 8
    assert sum(s.data.size for s in shards) == y.size == 48
    for i, s in enumerate(shards):
        assert s.data.shape == (2, 3)
        assert s.index == (slice(2 * i, 2 * i + 2, None), slice(None, None, None))
        assert s.replica_id == 0
        assert s.data.sharding == sh.SingleDeviceSharding(s.device)
        np.testing.assert_array_equal(np.asarray(s.data), (xn * 2 + 1)[2 * i:2 * i + 2])


@pytest.mark.spec("SHD-43")
def test_partially_replicated_output_shards(jax, jnp, sh):
    # P('x') on the 4x2 mesh: devices differing only in 'y' hold the same rows.
    xn = f32((8, 4))
    y = jax.jit(lambda v: v + 1, out_shardings=sh.named2('x'))(xn)
    got = [(s.device.id, s.index[0], s.replica_id) for s in y.addressable_shards]
    assert got == [(2 * r + c, slice(2 * r, 2 * r + 2, None), c)
                   for r in range(4) for c in range(2)]
    assert sum(s.data.size for s in y.addressable_shards) == 2 * y.size
    assert_shards_reassemble(jax, y, xn + 1)


# -- SHD-44: identity keeps sharding ------------------------------------------------

@pytest.mark.spec("SHD-44")
@pytest.mark.parametrize("mesh_name,spec",
                         [('m1', s) for s in SPECS_1D_MESH] +
                         [('m2', s) for s in SPECS_2D_MESH])
def test_identity_keeps_sharding(jax, sh, mesh_name, spec):
    xn, x, s = _sharded_input(jax, sh, mesh_name, spec)
    y = jax.jit(lambda v: v)(x)
    assert y.sharding == s
    assert y.sharding.spec == sh.P(*spec)
    assert y.committed
    assert_shards_reassemble(jax, y, xn)
    # x is still usable (no donation).
    np.testing.assert_array_equal(np.asarray(x), xn)
    a, b = jax.jit(lambda u: (u, u))(x)
    assert a.sharding == s and b.sharding == s


# -- SHD-45: committed devices must agree -----------------------------------------

@pytest.mark.spec("SHD-45")
def test_g_shard_002_different_devices(jax, jnp, sh):
    a = jax.device_put(jnp.ones(2), sh.devices[1])
    b = jnp.ones(2)
    assert (a + b).devices() == {sh.devices[1]}
    c = jax.device_put(jnp.ones(2), sh.devices[2])
    with pytest.raises(ValueError) as e:
        a + c
    assert str(e.value) == (
        "Received incompatible devices for jitted computation. Got argument x "
        "of add with shape float32[2] and with device ids [1] on platform CPU "
        "and argument y of add with shape float32[2] and with device ids [2] "
        "on platform CPU")

    def add2(u, v):
        return u + v
    with pytest.raises(ValueError) as e:
        jax.jit(add2)(a, c)
    msg = str(e.value)
    assert msg.startswith("Received incompatible devices for jitted "
                          "computation. Got argument u of ")
    assert "add2 with shape float32[2] and with device ids [1] on platform CPU" in msg
    assert msg.endswith("add2 with shape float32[2] and with device ids [2] "
                        "on platform CPU")
    assert " and argument v of " in msg


@pytest.mark.spec("SHD-45")
def test_named_sharded_with_uncommitted(jax, jnp, sh):
    sx = sh.named1('x')
    x = jax.device_put(jnp.arange(8.), sx)
    for y in (jax.jit(lambda u, v: u + v)(x, jnp.ones(8)),
              jax.jit(lambda u, v: u * v)(jnp.full(8, 2.), x),
              x + jnp.ones(8)):
        assert y.sharding == sx
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda u, v: u + v)(x, jnp.ones(8))),
                                  np.arange(8.) + 1)


@pytest.mark.spec("SHD-45")
def test_named_sharded_with_committed_single_device(jax, jnp, sh):
    x = jax.device_put(jnp.arange(8.), sh.named1('x'))
    d = jax.device_put(jnp.ones(8), sh.devices[0])

    def add2(u, v):
        return u + v
    with pytest.raises(ValueError) as e:
        jax.jit(add2)(x, d)
    msg = str(e.value)
    assert msg.startswith("Received incompatible devices for jitted computation.")
    assert ("with shape float32[8] and with device ids [0, 1, 2, 3, 4, 5, 6, 7] "
            "on platform CPU and argument v of ") in msg
    assert msg.endswith("with device ids [0] on platform CPU")


@pytest.mark.spec("SHD-45")
def test_named_sharded_on_different_meshes(jax, jnp, sh):
    sub = sh.Mesh(np.array(sh.devices[:4]), ('x',))
    a = jax.device_put(jnp.arange(8.), sh.named1('x'))
    b = jax.device_put(jnp.arange(8.), sh.NamedSharding(sub, sh.P('x')))
    with pytest.raises(ValueError) as e:
        a + b
    assert str(e.value) == (
        "Received incompatible devices for jitted computation. Got argument x "
        "of add with shape float32[8] and with device ids [0, 1, 2, 3, 4, 5, 6, 7] "
        "on platform CPU and argument y of add with shape float32[8] and with "
        "device ids [0, 1, 2, 3] on platform CPU")
    with pytest.raises(ValueError, match="^Received incompatible devices for "
                                         "jitted computation."):
        jax.jit(lambda u, v: u + v)(a, b)
