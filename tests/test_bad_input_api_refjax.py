"""Bad API-level input where JAX 0.10.2 itself lets an internal error escape
(AttributeError, IndexError) or accepts junk: refjax raises a proper error
class with a message saying what to pass instead (SPEC SHD-93 .. SHD-97,
SHD-102, DBG-5, DBG-10, DBG-11, AD-91).  The cases where JAX raises a proper error are in
conformance/test_bad_input_api.py."""
import numpy as np
import pytest

import refjax as jax
import refjax.numpy as jnp
from refjax.experimental import checkify


@pytest.mark.spec("SHD-93")
@pytest.mark.parametrize("device", ["cpu", 5, object()])
def test_single_device_sharding_of_a_non_device_fails_on_use(device):
    # As in JAX: accepted, then AttributeError on first use -- here with a
    # message saying what to build the sharding from.
    s = jax.sharding.SingleDeviceSharding(device)
    with pytest.raises(AttributeError, match=r"jax.devices\(\)"):
        jax.device_put(jnp.ones(2), s)
    with pytest.raises(AttributeError, match=r"jax.devices\(\)"):
        jnp.zeros(2, device=s)


@pytest.mark.spec("SHD-94")
@pytest.mark.parametrize("make", [
    lambda: jnp.zeros(3, device="cpu"),
    lambda: jnp.ones(3, device="bogus"),
    lambda: jnp.empty(3, device="cpu"),
    lambda: jnp.full(3, 1.0, device="cpu"),
    lambda: jnp.arange(3, device="cpu"),
    lambda: jnp.arange(3, device=5),
    lambda: jnp.zeros_like(jnp.ones(2), device="cpu"),
    lambda: jnp.full_like(jnp.ones(2), 2.0, device="cpu"),
])
def test_creation_device_strings_raise_value_error(make):
    # JAX: AttributeError ('str' object has no attribute '_is_concrete').
    with pytest.raises(ValueError, match="jax.devices"):
        make()


@pytest.mark.spec("SHD-95")
def test_backend_must_be_a_name():
    # JAX: AttributeError ('int' object has no attribute 'devices').
    with pytest.raises(TypeError, match="platform name"):
        jax.devices(5)
    with pytest.raises(TypeError):
        jax.local_devices(process_index="a")


@pytest.mark.spec("SHD-97")
def test_visualize_sharding_arguments():
    # JAX: AttributeError for a NumPy array or a sharding that is not one.
    with pytest.raises(TypeError, match="jax.Array"):
        jax.debug.visualize_array_sharding(np.ones(3))
    with pytest.raises(TypeError, match="Sharding"):
        jax.debug.visualize_sharding((2,), None)
    with pytest.raises(NotImplementedError, match="traced"):
        jax.jit(jax.debug.visualize_array_sharding)(jnp.ones(3))


@pytest.mark.spec("DBG-10")
def test_callback_runtime_error_keeps_the_cause():
    def f(x):
        jax.debug.callback(lambda v: 1 / 0, x)
        return x
    with pytest.raises(jax.errors.JaxRuntimeError) as info:
        jax.jit(f)(jnp.ones(2))
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    assert "ZeroDivisionError: division by zero" in str(info.value)


@pytest.mark.spec("DBG-11")
def test_checkify_check_message_must_be_a_string():
    # JAX: AttributeError ('int' object has no attribute 'format').
    with pytest.raises(TypeError, match="str message"):
        checkify.check(False, 5)
    with pytest.raises(TypeError, match="str message"):
        checkify.checkify(lambda x: checkify.check(x[0] > 5, None))(jnp.ones(3))


@pytest.mark.spec("DBG-11")
def test_checkify_errors_members_must_be_categories():
    # JAX accepts {5} and never checks anything.
    with pytest.raises(TypeError, match="error categories"):
        checkify.checkify(lambda x: x, errors=[5])
    err, _ = checkify.checkify(lambda x: x // 0, errors=checkify.div_checks)(
        jnp.ones(2, jnp.int32))
    assert err.get() is not None


@pytest.mark.spec("AD-91")
@pytest.mark.parametrize("cls", [jax.custom_jvp, jax.custom_vjp])
@pytest.mark.parametrize("transform", [
    lambda f: f, jax.jit, jax.grad], ids=["eager", "jit", "grad"])
def test_nondiff_argnums_out_of_range(cls, transform):
    # JAX: IndexError (tuple index out of range); eagerly too.
    f = cls(lambda x, y: x * y, nondiff_argnums=(2,))
    if cls is jax.custom_jvp:
        f.defjvp(lambda n, primals, tangents: (primals[0], tangents[0]))
    else:
        f.defvjp(lambda x, y: (x * y, None), lambda n, res, ct: (ct, ct))
    with pytest.raises(ValueError, match="nondiff_argnums"):
        transform(f)(2.0, 3.0)


_SPLIT_RANK_SCRIPT = """
import numpy as np
import refjax as jax
jax.config.update("jax_num_cpu_devices", 2)
P = jax.sharding.PartitionSpec
mesh = jax.sharding.Mesh(np.array(jax.devices()), ("x",))
s = jax.sharding.NamedSharding(mesh, P(None, "x"))
assert s.shard_shape((2, 4)) == (2, 2)
for shape in [(), (2,)]:
    try:
        s.shard_shape(shape)
    except ValueError as e:
        assert "rank at least 2" in str(e), e
    else:
        raise SystemExit("no error for %r" % (shape,))
print("ok")
"""


@pytest.mark.spec("SHD-102")
def test_shard_shape_rank_below_a_split_spec_is_a_value_error():
    # JAX 0.10.2 lets an IndexError out of its sharding internals here.
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", _SPLIT_RANK_SCRIPT],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


@pytest.mark.spec("DBG-5")
def test_debug_callback_under_jit_receives_the_key():
    # JAX 0.10.2 passes the key's raw uint32 data under jit; refjax the key.
    seen = []
    jax.jit(lambda k: jax.debug.callback(lambda x: seen.append(str(x.dtype)), k))(
        jax.random.key(0))
    assert seen == ["key<fry>"]
