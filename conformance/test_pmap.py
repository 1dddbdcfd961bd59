"""jax.pmap on 8 CPU devices (SPEC SHD-80 .. SHD-92).

In JAX 0.10.x pmap is ``jit(shard_map)`` over a one-axis mesh; these tests pin
the user-visible consequences: rank-reduced blocks inside, plain Arrays with a
NamedSharding outside, the size rules and the error messages.
"""
import functools

import numpy as np
import pytest

INTERNAL = "_internal_pmap_axis_name"


def _msg(excinfo):
    """The exception's own message, without the traceback-filtering note that
    JAX may append after a line of dashes."""
    return str(excinfo.value).split("\n--------------------")[0]


def _devices_of(out):
    """{device id: (index, shard shape)} of an Array's addressable shards."""
    return {s.device.id: (s.index, s.data.shape) for s in out.addressable_shards}


# --------------------------------------------------------------------------
# SHD-80: basics


@pytest.mark.spec("SHD-80")
def test_pmap_maps_leading_axis_and_rank_reduces(jax, jnp):
    seen = []

    def f(v):
        seen.append(v.shape)
        return v * 2

    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    out = jax.pmap(f)(jnp.asarray(x))
    assert seen == [(2,)]
    assert type(out).__name__ == "ArrayImpl"
    assert isinstance(out, jax.Array)
    assert out.shape == (4, 2)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), x * 2)


@pytest.mark.spec("SHD-80")
def test_pmap_rank1_input_sees_scalar(jax, jnp):
    seen = []

    def f(v):
        seen.append(v.shape)
        return v + 1

    out = jax.pmap(f)(jnp.arange(8.0))
    assert seen == [()]
    assert out.shape == (8,)
    np.testing.assert_array_equal(np.asarray(out), np.arange(8.0) + 1)


@pytest.mark.spec("SHD-80")
def test_pmap_traces_once_per_signature(jax, jnp):
    calls = []

    def f(v):
        calls.append(v.shape)
        return v * 3

    p = jax.pmap(f)
    np.testing.assert_array_equal(np.asarray(p(jnp.arange(4.0))), np.arange(4.0) * 3)
    np.testing.assert_array_equal(np.asarray(p(jnp.arange(4.0) + 1)), (np.arange(4.0) + 1) * 3)
    assert len(calls) == 1
    p(jnp.ones((4, 3)))
    assert calls == [(), (3,)]


# --------------------------------------------------------------------------
# SHD-81: result sharding


@pytest.mark.spec("SHD-81")
def test_pmap_result_sharding_facts(jax, jnp):
    P = jax.sharding.PartitionSpec
    out = jax.pmap(lambda v: v * 2)(jnp.arange(8.0).reshape(4, 2))
    s = out.sharding
    assert isinstance(s, jax.sharding.NamedSharding)
    assert s.spec == P(INTERNAL)
    assert tuple(s.mesh.axis_names) == (INTERNAL,)
    assert dict(s.mesh.shape) == {INTERNAL: 4}
    assert [d.id for d in s.mesh.devices.flat] == [0, 1, 2, 3]
    assert s.device_set == set(jax.devices()[:4])
    assert s.shard_shape((4, 2)) == (1, 2)
    assert not s.is_fully_replicated
    assert not out.is_fully_replicated
    assert len(out.addressable_shards) == 4
    got = _devices_of(out)
    assert got == {i: ((slice(i, i + 1), slice(None)), (1, 2)) for i in range(4)}
    for sh in out.addressable_shards:
        i = sh.device.id
        np.testing.assert_array_equal(np.asarray(sh.data), [[4.0 * i, 4.0 * i + 2]])


@pytest.mark.spec("SHD-81")
def test_pmap_result_sharding_repr(jax, jnp):
    out = jax.pmap(lambda v: v)(jnp.arange(4.0))
    assert str(out.sharding) == (
        "NamedSharding(mesh=Mesh('_internal_pmap_axis_name': 4, "
        "axis_types=(Auto,)), spec=P('_internal_pmap_axis_name',), "
        "memory_kind=device)")


@pytest.mark.spec("SHD-81")
def test_pmap_mesh_axis_is_axis_name(jax, jnp):
    P = jax.sharding.PartitionSpec
    out = jax.pmap(lambda v: v + 1, axis_name="batch")(jnp.arange(8.0))
    assert out.sharding.spec == P("batch")
    assert tuple(out.sharding.mesh.axis_names) == ("batch",)
    assert [d.id for d in out.sharding.mesh.devices.flat] == list(range(8))
    assert [sh.data.shape for sh in out.addressable_shards] == [(1,)] * 8


@pytest.mark.spec("SHD-81")
def test_pmap_out_axes1_sharding(jax, jnp):
    P = jax.sharding.PartitionSpec
    out = jax.pmap(lambda v: v * 2, out_axes=1)(jnp.arange(8.0).reshape(4, 2))
    assert out.shape == (2, 4)
    assert out.sharding.spec == P(None, INTERNAL)
    assert _devices_of(out) == {
        i: ((slice(None), slice(i, i + 1)), (2, 1)) for i in range(4)}


@pytest.mark.spec("SHD-81")
def test_pmap_result_arithmetic_keeps_sharding(jax, jnp):
    out = jax.pmap(lambda v: v)(jnp.arange(8.0).reshape(4, 2))
    y = out + 1
    assert y.sharding == out.sharding
    np.testing.assert_array_equal(np.asarray(y), np.arange(8.0).reshape(4, 2) + 1)


# --------------------------------------------------------------------------
# SHD-82: collectives


@pytest.mark.spec("SHD-82")
@pytest.mark.parametrize("name,expected", [
    ("psum", 6.0), ("pmean", 1.5), ("pmax", 3.0), ("pmin", 0.0)])
def test_pmap_reductions(jax, jnp, name, expected):
    op = getattr(jax.lax, name)
    out = jax.pmap(lambda v: op(v, "i"), axis_name="i")(jnp.arange(4.0))
    np.testing.assert_array_equal(np.asarray(out), [expected] * 4)
    assert out.dtype == np.float32


@pytest.mark.spec("SHD-82")
def test_pmap_psum_of_one_is_axis_size(jax, jnp):
    out = jax.pmap(lambda v: jax.lax.psum(1, "i"), axis_name="i")(jnp.arange(4.0))
    assert repr(out) == "Array([4, 4, 4, 4], dtype=int32, weak_type=True)"


@pytest.mark.spec("SHD-82")
def test_pmap_normalize_by_psum(jax, jnp):
    out = jax.pmap(lambda v: v / jax.lax.psum(v, "i"), axis_name="i")(jnp.arange(4.0))
    np.testing.assert_allclose(np.asarray(out), np.arange(4.0) / 6.0, rtol=1e-6)


@pytest.mark.spec("SHD-82")
def test_pmap_all_gather(jax, jnp):
    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    out = jax.pmap(lambda v: jax.lax.all_gather(v, "i"), axis_name="i")(jnp.asarray(x))
    assert out.shape == (4, 4, 2)
    np.testing.assert_array_equal(np.asarray(out), np.stack([x] * 4))
    tiled = jax.pmap(lambda v: jax.lax.all_gather(v, "i", tiled=True),
                     axis_name="i")(jnp.asarray(x))
    assert tiled.shape == (4, 8)
    np.testing.assert_array_equal(np.asarray(tiled), np.stack([x.reshape(-1)] * 4))


@pytest.mark.spec("SHD-82")
def test_pmap_ppermute_cyclic_shift(jax, jnp):
    perm = [(i, (i + 1) % 4) for i in range(4)]
    out = jax.pmap(lambda v: jax.lax.ppermute(v, "i", perm), axis_name="i")(
        jnp.arange(4.0))
    np.testing.assert_array_equal(np.asarray(out), [3.0, 0.0, 1.0, 2.0])


@pytest.mark.spec("SHD-82")
def test_pmap_axis_index(jax, jnp):
    out = jax.pmap(lambda v: jax.lax.axis_index("i"), axis_name="i")(jnp.zeros(4))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), [0, 1, 2, 3])
    out = jax.pmap(lambda v: v * jax.lax.axis_index("i"), axis_name="i")(
        jnp.ones((8, 2)))
    np.testing.assert_array_equal(np.asarray(out), np.repeat(np.arange(8.0), 2).reshape(8, 2))


@pytest.mark.spec("SHD-82")
def test_pmap_psum_scatter(jax, jnp):
    x = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    out = jax.pmap(lambda v: jax.lax.psum_scatter(v, "i"), axis_name="i")(jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(out), x.sum(0))  # [24, 28, 32, 36]
    y = np.arange(32.0, dtype=np.float32).reshape(4, 8)
    out = jax.pmap(lambda v: jax.lax.psum_scatter(v, "i", tiled=True),
                   axis_name="i")(jnp.asarray(y))
    assert out.shape == (4, 2)
    np.testing.assert_array_equal(np.asarray(out), y.sum(0).reshape(4, 2))


# --------------------------------------------------------------------------
# SHD-83: in_axes


@pytest.mark.spec("SHD-83")
def test_pmap_in_axes_none_broadcasts(jax, jnp):
    out = jax.pmap(lambda v, w: v + w, in_axes=(0, None))(jnp.arange(4.0), 10.0)
    np.testing.assert_array_equal(np.asarray(out), [10.0, 11.0, 12.0, 13.0])
    seen = []

    def f(v, w):
        seen.append((v.shape, w.shape))
        return v + w

    w = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    out = jax.pmap(f, in_axes=(0, None))(jnp.arange(4.0), jnp.asarray(w))
    assert seen == [((), (4,))]
    np.testing.assert_array_equal(np.asarray(out), np.arange(4.0)[:, None] + w)


@pytest.mark.spec("SHD-83")
def test_pmap_in_axes_1(jax, jnp):
    seen = []

    def f(v):
        seen.append(v.shape)
        return v.sum()

    x = np.arange(8.0, dtype=np.float32).reshape(2, 4)
    out = jax.pmap(f, in_axes=1)(jnp.asarray(x))
    assert seen == [(2,)]
    np.testing.assert_array_equal(np.asarray(out), x.sum(0))  # [4, 6, 8, 10]


@pytest.mark.spec("SHD-83")
def test_pmap_in_axes_pytree_prefix(jax, jnp):
    f = lambda d, t: d["a"] * d["b"] + t[0] - t[1]
    x = np.arange(4.0, dtype=np.float32)
    out = jax.pmap(f, in_axes=({"a": 0, "b": None}, (0, None)))(
        {"a": jnp.asarray(x), "b": jnp.float32(3.0)},
        (jnp.asarray(x * 10), jnp.float32(1.0)))
    np.testing.assert_array_equal(np.asarray(out), x * 3 + x * 10 - 1)


@pytest.mark.spec("SHD-83")
def test_pmap_kwargs_mapped_on_axis0(jax, jnp):
    out = jax.pmap(lambda a, b: a * b)(jnp.arange(4.0), b=jnp.arange(4.0) + 1)
    np.testing.assert_array_equal(np.asarray(out), np.arange(4.0) * (np.arange(4.0) + 1))


@pytest.mark.spec("SHD-83")
def test_pmap_in_axes_not_int_is_type_error(jax):
    with pytest.raises(TypeError) as ei:
        jax.pmap(lambda v: v, in_axes=0.5)
    assert _msg(ei) == (
        "pmap in_axes must be an int, None, or (nested) container with those "
        "types as leaves, but got 0.5.")


@pytest.mark.spec("SHD-83")
def test_pmap_in_axes_wrong_length(jax, jnp):
    with pytest.raises(ValueError) as ei:
        jax.pmap(lambda a, b: a, in_axes=(0,))(jnp.ones(4), jnp.ones(4))
    msg = str(ei.value)
    assert msg.startswith("pytree structure error: different lengths of tuple at key path")
    assert "pmap in_axes" in msg


@pytest.mark.spec("SHD-83")
def test_pmap_in_axes_out_of_range(jax, jnp):
    cases = [(1, (4,)), (2, (4, 2)), (0, ())]
    for in_axes, shape in cases:
        with pytest.raises(IndexError) as ei:
            jax.pmap(lambda a: a, in_axes=in_axes)(jnp.ones(shape))
        assert _msg(ei) == "tuple index out of range"


@pytest.mark.spec("SHD-83")
def test_pmap_needs_a_mapped_argument(jax, jnp):
    msg = "pmap requires at least one argument with a mapped axis."
    with pytest.raises(ValueError) as ei:
        jax.pmap(lambda v: v, in_axes=None)(jnp.ones(2))
    assert _msg(ei) == msg
    with pytest.raises(ValueError) as ei:
        jax.pmap(lambda v: v)(1.0)
    assert _msg(ei) == msg


# --------------------------------------------------------------------------
# SHD-84: out_axes


@pytest.mark.spec("SHD-84")
def test_pmap_out_axes_1_values(jax, jnp):
    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    out = jax.pmap(lambda v: v * 2, out_axes=1)(jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(out), (x * 2).T)


@pytest.mark.spec("SHD-84")
def test_pmap_out_axes_none_after_psum(jax, jnp):
    P = jax.sharding.PartitionSpec
    out = jax.pmap(lambda v: jax.lax.psum(v, "d"), axis_name="d", out_axes=None)(
        jnp.arange(4.0))
    assert out.shape == ()
    assert float(out) == 6.0
    assert isinstance(out.sharding, jax.sharding.NamedSharding)
    assert out.sharding.spec == P()
    assert dict(out.sharding.mesh.shape) == {"d": 4}
    assert out.sharding.is_fully_replicated


@pytest.mark.spec("SHD-84")
def test_pmap_out_axes_none_broadcast_input(jax, jnp):
    out = jax.pmap(lambda v, w: w * 2, in_axes=(0, None), out_axes=None)(
        jnp.arange(4.0), jnp.arange(3.0))
    assert out.shape == (3,)
    np.testing.assert_array_equal(np.asarray(out), np.arange(3.0) * 2)


@pytest.mark.spec("SHD-84")
def test_pmap_out_axes_pytree(jax, jnp):
    v, s = jax.pmap(lambda v: (v * 2, jax.lax.psum(v, "i")), axis_name="i",
                    out_axes=(0, None))(jnp.arange(4.0))
    assert v.shape == (4,) and s.shape == ()
    np.testing.assert_array_equal(np.asarray(v), np.arange(4.0) * 2)
    assert float(s) == 6.0


@pytest.mark.spec("SHD-92")
def test_pmap_out_axes_not_int_is_type_error(jax):
    with pytest.raises(TypeError) as ei:
        jax.pmap(lambda v: v, out_axes="a")
    assert _msg(ei) == (
        "pmap out_axes must be an int, None, or (nested) container with those "
        "types as leaves, but got a.")


@pytest.mark.spec("SHD-92")
def test_pmap_rejects_non_callable(jax):
    with pytest.raises(TypeError) as ei:
        jax.pmap(3)
    assert _msg(ei) == "Expected a callable value, got 3"


# --------------------------------------------------------------------------
# SHD-85: static_broadcasted_argnums


@pytest.mark.spec("SHD-85")
def test_pmap_static_broadcasted_argnums(jax, jnp):
    calls = []

    def f(v, flag, n):
        calls.append((flag, n))
        assert isinstance(flag, bool) and isinstance(n, int)
        return v * n + 1 if flag else v * n - 1

    p = jax.pmap(f, static_broadcasted_argnums=(1, 2))
    x = np.arange(4.0, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(p(jnp.asarray(x), True, 3)), x * 3 + 1)
    np.testing.assert_array_equal(np.asarray(p(jnp.asarray(x), True, 3)), x * 3 + 1)
    np.testing.assert_array_equal(np.asarray(p(jnp.asarray(x), False, 2)), x * 2 - 1)
    assert calls == [(True, 3), (False, 2)]
    out = jax.pmap(lambda v, n: v * n, static_broadcasted_argnums=1)(jnp.asarray(x), 5)
    np.testing.assert_array_equal(np.asarray(out), x * 5)


@pytest.mark.spec("SHD-85")
def test_pmap_static_must_be_hashable(jax, jnp):
    def g(v, n):
        return v

    with pytest.raises(ValueError) as ei:
        jax.pmap(g, static_broadcasted_argnums=1)(jnp.ones(4), [1])
    assert _msg(ei) == (
        "Non-hashable static arguments are not supported, as this can lead to "
        "unexpected cache-misses. Static argument (index 1) of type "
        "<class 'list'> for function g is non-hashable.")


@pytest.mark.spec("SHD-85")
def test_pmap_static_argnum_missing(jax, jnp):
    with pytest.raises(ValueError) as ei:
        jax.pmap(lambda v, n: v * n, static_broadcasted_argnums=1)(jnp.ones(4))
    assert _msg(ei) == (
        "pmapped function has static_broadcasted_argnums=(1,) but was called "
        "with only 1 positional argument. All static broadcasted arguments "
        "must be passed positionally.")


# --------------------------------------------------------------------------
# SHD-86: devices=


@pytest.mark.spec("SHD-86")
def test_pmap_devices_subset(jax, jnp):
    devs = jax.devices()[4:8]
    out = jax.pmap(lambda v: v * 2, devices=devs)(jnp.arange(8.0).reshape(4, 2))
    np.testing.assert_array_equal(np.asarray(out), np.arange(8.0).reshape(4, 2) * 2)
    assert out.sharding.device_set == set(devs)
    assert _devices_of(out) == {
        4 + i: ((slice(i, i + 1), slice(None)), (1, 2)) for i in range(4)}
    for sh in out.addressable_shards:
        i = sh.device.id - 4
        np.testing.assert_array_equal(np.asarray(sh.data), [[4.0 * i, 4.0 * i + 2]])


@pytest.mark.spec("SHD-86")
def test_pmap_devices_order_and_prefix(jax, jnp):
    rev = jax.devices()[::-1][:4]
    out = jax.pmap(lambda v: v, devices=rev)(jnp.arange(4.0))
    assert [d.id for d in out.sharding.mesh.devices.flat] == [7, 6, 5, 4]
    for sh in out.addressable_shards:
        assert float(np.asarray(sh.data)[0]) == 7 - sh.device.id
    small = jax.pmap(lambda v: v + 1, devices=jax.devices()[4:8])(jnp.arange(2.0))
    assert sorted(d.id for d in small.sharding.device_set) == [4, 5]
    np.testing.assert_array_equal(np.asarray(small), [1.0, 2.0])


@pytest.mark.spec("SHD-86")
def test_pmap_devices_empty(jax):
    with pytest.raises(ValueError) as ei:
        jax.pmap(lambda v: v, devices=[])
    assert _msg(ei) == "'devices' argument to pmap must be non-empty, or None."


@pytest.mark.spec("SHD-86", "SHD-88")
def test_pmap_devices_too_few(jax, jnp):
    with pytest.raises(ValueError) as ei:
        jax.pmap(lambda v: v, devices=jax.devices()[4:8])(jnp.arange(8.0))
    assert _msg(ei) == (
        "cannot select an axis to squeeze out which has size not equal to one, "
        "got shape=(2,) and dimensions=(0,)")


# --------------------------------------------------------------------------
# SHD-87: donate_argnums


@pytest.mark.spec("SHD-87")
def test_pmap_donate_argnums(jax, jnp):
    a = jax.pmap(lambda v: v)(jnp.arange(4.0))
    assert not a.is_deleted()
    out = jax.pmap(lambda v: v + 1, donate_argnums=0)(a)
    np.testing.assert_array_equal(np.asarray(out), np.arange(4.0) + 1)
    assert a.is_deleted()


@pytest.mark.spec("SHD-87")
def test_pmap_donate_other_arg_only(jax, jnp):
    a = jax.pmap(lambda v: v)(jnp.arange(4.0))
    b = jax.pmap(lambda v: v * 10)(jnp.arange(4.0))
    out = jax.pmap(lambda u, v: u + v, donate_argnums=(1,))(a, b)
    np.testing.assert_array_equal(np.asarray(out), np.arange(4.0) * 11)
    assert not a.is_deleted()
    assert b.is_deleted()


# --------------------------------------------------------------------------
# SHD-88: sizes


@pytest.mark.spec("SHD-88")
@pytest.mark.parametrize("n", [1, 3, 4, 8])
def test_pmap_sizes_up_to_device_count(jax, jnp, n):
    out = jax.pmap(lambda v: v * 2 + jax.lax.psum(v, "i"), axis_name="i")(
        jnp.arange(float(n)))
    np.testing.assert_array_equal(np.asarray(out), np.arange(n) * 2.0 + n * (n - 1) / 2)
    assert sorted(d.id for d in out.sharding.device_set) == list(range(n))
    assert [sh.data.shape for sh in out.addressable_shards] == [(1,)] * n


@pytest.mark.spec("SHD-88")
def test_pmap_indivisible_size(jax, jnp):
    with pytest.raises(ValueError) as ei:
        jax.pmap(lambda v: v)(jnp.ones((9, 2)))
    e = ei.value
    assert type(e).__name__ == "IndivisibleError"
    msg = str(e)
    assert "'_internal_pmap_axis_name'" in msg
    assert msg.startswith(
        "Sharding NamedSharding(mesh=Mesh('_internal_pmap_axis_name': 8, "
        "axis_types=(Auto,)), spec=P('_internal_pmap_axis_name',), "
        "memory_kind=device) implies that array axis 0 is partitioned 8 times, "
        "but the dimension size is 9 (full shape: (9, 2), per-dimension tiling "
        "factors: [8, 1] should evenly divide the shape)")


@pytest.mark.spec("SHD-88")
def test_pmap_indivisible_size_named_axis(jax, jnp):
    with pytest.raises(ValueError) as ei:
        jax.pmap(lambda v: v, axis_name="i")(jnp.ones(9))
    assert type(ei.value).__name__ == "IndivisibleError"
    msg = str(ei.value)
    assert "Mesh('i': 8, axis_types=(Auto,)), spec=P('i',)" in msg
    assert "_internal_pmap_axis_name" not in msg
    assert "partitioned 8 times, but the dimension size is 9" in msg


@pytest.mark.spec("SHD-88")
@pytest.mark.parametrize("shape", [(16,), (16, 3)])
def test_pmap_divisible_larger_size_cannot_squeeze(jax, jnp, shape):
    with pytest.raises(ValueError) as ei:
        jax.pmap(lambda v: v * 2)(jnp.ones(shape))
    assert type(ei.value) is ValueError
    block = (2,) + shape[1:]
    assert _msg(ei) == (
        "cannot select an axis to squeeze out which has size not equal to one, "
        f"got shape={block} and dimensions=(0,)")


@pytest.mark.spec("SHD-88")
def test_pmap_mismatched_sizes(jax, jnp):
    f = jax.pmap(lambda a, b: a + b)
    with pytest.raises(ValueError) as ei:
        f(jnp.ones(4), jnp.ones(3))
    assert type(ei.value).__name__ == "IndivisibleError"
    assert ("implies that array axis 0 is partitioned 4 times, but the dimension "
            "size is 3 (full shape: (3,),") in str(ei.value)
    with pytest.raises(ValueError) as ei:
        f(jnp.ones(8), jnp.ones(4))
    assert type(ei.value).__name__ == "IndivisibleError"
    assert "partitioned 8 times, but the dimension size is 4" in str(ei.value)
    with pytest.raises(ValueError) as ei:
        f(jnp.ones(4), jnp.ones(8))
    assert type(ei.value) is ValueError
    assert "cannot select an axis to squeeze out" in str(ei.value)
    assert "got shape=(2,)" in str(ei.value)


@pytest.mark.spec("SHD-88")
def test_pmap_axis_size_mismatch(jax, jnp):
    with pytest.raises(ValueError) as ei:
        jax.pmap(lambda v: v, axis_size=3)(jnp.ones(4))
    assert _msg(ei) == "Specified axis_size 3 doesn't match received axis_size 4."
    out = jax.pmap(lambda v: v + 1, axis_size=4)(jnp.ones(4))
    np.testing.assert_array_equal(np.asarray(out), [2.0] * 4)


# --------------------------------------------------------------------------
# SHD-89: unbound axis name; the data-parallel training step


def _loss_fn(jnp):
    def loss_fn(params, batch):
        x, y = batch
        return jnp.mean((x @ params - y) ** 2)
    return loss_fn


def _data():
    rng = np.random.RandomState(0)
    X = rng.randn(4, 5, 3).astype(np.float32)
    Y = rng.randn(4, 5).astype(np.float32)
    w = np.array([0.5, -1.0, 2.0], np.float32)
    return X, Y, w


_UNBOUND = ("Found an unbound axis name: devices. To fix this, please call psum "
            "under `jax.shard_map`.")


@pytest.mark.spec("SHD-89")
def test_pmap_train_step_without_axis_name_is_name_error(jax, jnp):
    loss_fn = _loss_fn(jnp)

    @jax.pmap
    def train_step(params, batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, batch)
        grads = jax.lax.pmean(grads, axis_name="devices")
        return params - 0.01 * grads, loss

    X, Y, w = _data()
    with pytest.raises(NameError) as ei:
        train_step(np.stack([w] * 4), (X, Y))
    assert _msg(ei) == _UNBOUND


@pytest.mark.spec("SHD-89")
def test_pmap_unbound_and_wrong_axis_names(jax, jnp):
    with pytest.raises(NameError) as ei:
        jax.pmap(lambda v: jax.lax.psum(v, "devices"))(jnp.arange(4.0))
    assert _msg(ei) == _UNBOUND
    with pytest.raises(NameError) as ei:
        jax.pmap(lambda v: jax.lax.psum(v, "devices"), axis_name="i")(jnp.arange(4.0))
    assert _msg(ei) == _UNBOUND


@pytest.mark.spec("SHD-89")
def test_pmap_train_step_data_parallel(jax, jnp):
    loss_fn = _loss_fn(jnp)

    @functools.partial(jax.pmap, axis_name="devices")
    def train_step(params, batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, batch)
        grads = jax.lax.pmean(grads, axis_name="devices")
        return params - 0.01 * grads, loss

    X, Y, w = _data()
    params = np.stack([w] * 4)
    new_params, loss = train_step(params, (X, Y))

    grads = np.stack([2.0 * X[d].T @ (X[d] @ w - Y[d]) / 5 for d in range(4)])
    expected = w - 0.01 * grads.mean(0)
    losses = np.array([np.mean((X[d] @ w - Y[d]) ** 2) for d in range(4)])
    assert new_params.shape == (4, 3) and loss.shape == (4,)
    got = np.asarray(new_params)
    np.testing.assert_allclose(got, np.stack([expected] * 4), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(loss), losses, rtol=1e-5)
    # replicas stay identical, bit for bit, on every device
    for row in got[1:]:
        np.testing.assert_array_equal(row, got[0])
    shards = {sh.device.id: np.asarray(sh.data) for sh in new_params.addressable_shards}
    assert sorted(shards) == [0, 1, 2, 3]
    for d in range(4):
        np.testing.assert_array_equal(shards[d], got[:1])
    assert new_params.sharding.spec == jax.sharding.PartitionSpec("devices")
    # a second step, fed the pmap outputs, stays replicated
    params2, _ = train_step(new_params, (X, Y))
    p2 = np.asarray(params2)
    grads2 = np.stack([2.0 * X[d].T @ (X[d] @ expected - Y[d]) / 5 for d in range(4)])
    np.testing.assert_allclose(p2[0], expected - 0.01 * grads2.mean(0), rtol=1e-5, atol=1e-6)
    for row in p2[1:]:
        np.testing.assert_array_equal(row, p2[0])


# --------------------------------------------------------------------------
# SHD-90: composition


@pytest.mark.spec("SHD-90")
def test_pmap_of_grad(jax, jnp):
    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    out = jax.pmap(jax.grad(lambda v: jnp.sum(v ** 2)))(jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(out), 2 * x)


@pytest.mark.spec("SHD-90")
def test_pmap_of_grad_through_psum(jax, jnp):
    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    out = jax.pmap(jax.grad(lambda v: jax.lax.psum(jnp.sum(v ** 2), "i")),
                   axis_name="i")(jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(out), 8 * x)


@pytest.mark.spec("SHD-90")
def test_grad_of_pmap(jax, jnp):
    g = jax.grad(lambda v: jax.pmap(lambda u: u ** 2)(v).sum())(jnp.arange(4.0))
    np.testing.assert_array_equal(np.asarray(g), 2 * np.arange(4.0))


@pytest.mark.spec("SHD-90")
def test_pmap_of_jit_and_jit_of_pmap(jax, jnp):
    x = jnp.arange(4.0)
    ref = np.arange(4.0) * 3 + 1
    a = jax.pmap(jax.jit(lambda v: v * 3 + 1))(x)
    b = jax.jit(jax.pmap(lambda v: v * 3 + 1))(x)
    np.testing.assert_array_equal(np.asarray(a), ref)
    np.testing.assert_array_equal(np.asarray(b), ref)
    assert b.sharding.spec == jax.sharding.PartitionSpec(INTERNAL)
    assert [sh.data.shape for sh in b.addressable_shards] == [(1,)] * 4
    c = jax.jit(jax.pmap(lambda v: jax.lax.psum(v, "i"), axis_name="i"))(x)
    np.testing.assert_array_equal(np.asarray(c), [6.0] * 4)


@pytest.mark.spec("SHD-90")
def test_vmap_inside_pmap(jax, jnp):
    x = np.arange(24.0, dtype=np.float32).reshape(4, 3, 2)
    out = jax.pmap(jax.vmap(lambda r: r.sum()))(jnp.asarray(x))
    assert out.shape == (4, 3)
    np.testing.assert_array_equal(np.asarray(out), x.sum(-1))
    y = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    f = jax.vmap(lambda r: jax.lax.psum(r, "j") + jax.lax.psum(r, "i"), axis_name="j")
    out = jax.pmap(f, axis_name="i")(jnp.asarray(y))
    np.testing.assert_array_equal(np.asarray(out),
                                  y.sum(1, keepdims=True) + y.sum(0, keepdims=True))


@pytest.mark.spec("SHD-90")
def test_vmap_of_pmap(jax, jnp):
    x = np.arange(8.0, dtype=np.float32).reshape(2, 4)
    out = jax.vmap(jax.pmap(lambda v: v * 2))(jnp.asarray(x))
    assert out.shape == (2, 4)
    np.testing.assert_array_equal(np.asarray(out), x * 2)


@pytest.mark.spec("SHD-90")
def test_pmap_returns_pytree(jax, jnp):
    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    out = jax.pmap(lambda v: {"s": v.sum(), "p": (v * 2, v[0])})(jnp.asarray(x))
    assert set(out) == {"s", "p"}
    assert isinstance(out["p"], tuple) and len(out["p"]) == 2
    np.testing.assert_array_equal(np.asarray(out["s"]), x.sum(1))
    np.testing.assert_array_equal(np.asarray(out["p"][0]), x * 2)
    np.testing.assert_array_equal(np.asarray(out["p"][1]), x[:, 0])
    shapes = {"s": (4,), "p0": (4, 2), "p1": (4,)}
    for key, leaf in (("s", out["s"]), ("p0", out["p"][0]), ("p1", out["p"][1])):
        assert leaf.shape == shapes[key]
        assert [sh.data.shape for sh in leaf.addressable_shards] == \
            [(1,) + shapes[key][1:]] * 4


# --------------------------------------------------------------------------
# SHD-91: PRNG keys


@pytest.mark.spec("SHD-91")
def test_pmap_over_split_keys_matches_vmap(jax, jnp):
    keys = jax.random.split(jax.random.key(0), 4)
    f = lambda k: jax.random.normal(k, (3,))
    a = jax.pmap(f)(keys)
    b = jax.vmap(f)(keys)
    assert a.shape == (4, 3) and a.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    np.testing.assert_array_equal(np.asarray(a[1]), np.asarray(f(keys[1])))
    assert len(np.unique(np.asarray(a)[:, 0])) == 4


@pytest.mark.spec("SHD-91")
def test_pmap_over_raw_keys_matches_vmap(jax, jnp):
    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    f = lambda k: jax.random.uniform(k, (3,))
    a = jax.pmap(f)(keys)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(jax.vmap(f)(keys)))


@pytest.mark.spec("SHD-91")
def test_pmap_returns_keys(jax, jnp):
    keys = jax.random.split(jax.random.key(1), 4)
    out = jax.pmap(lambda k: jax.random.split(k, 2))(keys)
    assert out.shape == (4, 2)
    assert str(out.dtype) == "key<fry>"
    ref = jax.vmap(lambda k: jax.random.split(k, 2))(keys)
    np.testing.assert_array_equal(np.asarray(jax.random.key_data(out)),
                                  np.asarray(jax.random.key_data(ref)))
