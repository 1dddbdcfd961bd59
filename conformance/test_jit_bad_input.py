"""``jax.jit`` given bad input: sharding options that are not shardings, and
a donated array passed twice in one call (SPEC JIT-11, JIT-12)."""
import warnings

import numpy as np
import pytest


def _identity(x):
    return x


# -- JIT-11: sharding options are checked when jit is called ---------------------

@pytest.mark.spec("JIT-11")
@pytest.mark.parametrize("option", ["in_shardings", "out_shardings"])
@pytest.mark.parametrize("spec, shown", [
    (5, "5"), ("x", "x"), (5.0, "5.0"), ((None, 5), "5"), ({"a": 5}, "5"),
])
def test_a_leaf_that_is_not_a_sharding_is_a_type_error_at_jit(jax, option, spec, shown):
    with pytest.raises(TypeError, match=(
            f"(?m)^{option} leaf specifications are expected to be PartitionSpec "
            f"instances or None, but got {shown}$")):
        jax.jit(_identity, **{option: spec})


@pytest.mark.spec("JIT-11")
def test_a_device_is_not_a_sharding_spec(jax):
    with pytest.raises(TypeError, match="in_shardings leaf specifications"):
        jax.jit(_identity, in_shardings=jax.devices()[0])


@pytest.mark.spec("JIT-11")
def test_shardings_partition_specs_and_none_are_accepted(jax, jnp):
    P = jax.sharding.PartitionSpec
    one = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    for spec in (None, P(), (P(),), [None], one, (one,)):
        jax.jit(_identity, in_shardings=spec)
        jax.jit(_identity, out_shardings=spec)
    out = jax.jit(_identity, in_shardings=one, out_shardings=one)(jnp.ones(2))
    np.testing.assert_array_equal(np.asarray(out), np.ones(2, np.float32))


# -- JIT-12: a donated buffer is passed once --------------------------------------

def _call(jax, jnp, f, donate, args_of):
    x = jnp.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # "Some donated buffers were not usable"
        try:
            jax.jit(f, donate_argnums=donate)(*args_of(x))
        finally:
            assert not x.is_deleted()       # raised before anything ran


def _add(a, b):
    return a + b


@pytest.mark.spec("JIT-12")
@pytest.mark.parametrize("donate, f, message", [
    ((0,), _add, "Attempt to use a buffer that was previously donated in the "
                 "same call to Execute()"),
    ((1,), _add, "Attempt to donate a buffer which is also used by the same "
                 "call to Execute()"),
    ((0, 1), lambda a, b: (a * 2, b * 3),
     "Attempt to donate the same buffer twice in Execute()"),
])
def test_donating_an_array_passed_twice_raises(jax, jnp, donate, f, message):
    with pytest.raises(jax.errors.JaxRuntimeError) as info:
        _call(jax, jnp, f, donate, lambda x: (x, x))
    assert message in str(info.value)
    assert "(flattened argument 1," in str(info.value)


@pytest.mark.spec("JIT-12")
def test_an_array_twice_inside_a_donated_pytree_raises(jax, jnp):
    with pytest.raises(jax.errors.JaxRuntimeError, match="previously donated"):
        _call(jax, jnp, lambda t: t[0] + t[1], (0,), lambda x: ((x, x),))


@pytest.mark.spec("JIT-12")
def test_distinct_arrays_and_nested_calls_donate_normally(jax, jnp):
    x, y = jnp.ones(3), jnp.ones(3)
    out, _ = jax.jit(lambda a, b: (a + b, a - b), donate_argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(np.asarray(out), np.full(3, 2, np.float32))
    assert x.is_deleted() and y.is_deleted()
    inner = jax.jit(_add, donate_argnums=0)
    out = jax.jit(lambda q: inner(q, q))(jnp.ones(2))    # donation ignored inside
    np.testing.assert_array_equal(np.asarray(out), np.full(2, 2, np.float32))
    z = np.ones(3, np.float32)                            # NumPy values are copied
    out = jax.jit(_add, donate_argnums=0)(z, z)
    np.testing.assert_array_equal(np.asarray(out), np.full(3, 2, np.float32))
