"""What libraries built on JAX (chex, optax) rely on: the started-backend
record and the CPU device count from ``XLA_FLAGS``, the jitted function's
type and signature, ``disable_jit(disable=...)``, key arrays returned from
``jit`` and checkify's division check (SPEC API-107..110, SHD-105, SHD-106,
DBG-23)."""
import importlib
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest


def _run(impl_name, code, **env):
    """``code`` in a fresh process (backends not started yet), ``jax`` bound
    to the implementation and ``xb`` to its ``_src.xla_bridge``."""
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("JAX_") and k != "XLA_FLAGS"}
    prelude = (f"import importlib, os\nimport {impl_name} as jax\n"
               f"xb = importlib.import_module('{impl_name}._src.xla_bridge')\n")
    result = subprocess.run([sys.executable, "-c", prelude + code], capture_output=True,
                            text=True, env={**base, "JAX_PLATFORMS": "cpu", **env},
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


# -- the started-backend record (SHD-105) ----------------------------------------

@pytest.mark.spec("SHD-105")
def test_backends_record_starts_empty_and_fills_on_first_use(impl_name):
    code = ("print(len(xb._backends), xb.backends_are_initialized())\n"
            "jax.devices()\n"
            "c = xb._backends['cpu']\n"
            "print(sorted(xb._backends), xb.backends_are_initialized(), c.platform,\n"
            "      c.device_count(), jax.devices()[0].client is c)\n")
    assert _run(impl_name, code) == ["0", "False", "['cpu']", "True", "cpu", "1", "True"]


@pytest.mark.spec("SHD-105")
def test_first_operation_starts_the_backend(impl_name):
    code = ("import numpy as np\n"
            "print(len(xb._backends))\n"
            "jax.numpy.asarray(np.ones(2)) + 1\n"
            "print(sorted(xb._backends))\n")
    assert _run(impl_name, code) == ["0", "['cpu']"]


@pytest.mark.spec("SHD-105")
def test_backends_record_in_this_process(jax):
    xb = importlib.import_module(f"{jax.__name__}._src.xla_bridge")
    jax.devices()
    client = (xb._backends or {}).get("cpu")
    assert client is not None and xb.backends_are_initialized()
    assert client.platform == "cpu"
    assert client.device_count() == jax.device_count()
    assert list(client.devices()) == jax.devices()


# -- the CPU device count from XLA_FLAGS (SHD-106) -------------------------------

@pytest.mark.spec("SHD-106")
@pytest.mark.parametrize("flags, want", [
    ("--xla_force_host_platform_device_count=6", "6"),
    ("--xla_cpu_enable_fast_math=false --xla_force_host_platform_device_count=3", "3"),
    ("--xla_force_host_platform_device_count=4 --xla_force_host_platform_device_count=5", "5"),
    ("", "1"),
])
def test_xla_flags_set_before_first_use(impl_name, flags, want):
    # Set after import, before any device is used: read when the CPU backend
    # starts, and never again.
    code = (f"os.environ['XLA_FLAGS'] = {flags!r}\n"
            "print(jax.device_count(), jax.devices()[-1].id + 1)\n"
            "os.environ['XLA_FLAGS'] = '--xla_force_host_platform_device_count=2'\n"
            "print(jax.device_count())\n")
    assert _run(impl_name, code) == [want, want, want]


@pytest.mark.spec("SHD-106")
def test_num_cpu_devices_option_wins_over_xla_flags(impl_name):
    code = ("jax.config.update('jax_num_cpu_devices', 3)\n"
            "print(jax.device_count())\n")
    out = _run(impl_name, code, XLA_FLAGS="--xla_force_host_platform_device_count=6")
    assert out == ["3"]


@pytest.mark.spec("SHD-106")
def test_xla_flags_device_count_maps_over_devices(impl_name):
    code = ("import jax.numpy as jnp\n" if impl_name == "jax" else "jnp = jax.numpy\n") + (
        "out = jax.pmap(lambda x: x * 2)(jnp.arange(4.))\n"
        "print(len(out.sharding.device_set), out.tolist())\n")
    out = _run(impl_name, code, XLA_FLAGS="--xla_force_host_platform_device_count=4")
    assert out == ["4", "[0.0,", "2.0,", "4.0,", "6.0]"]


# -- the jitted function (API-107, API-109) --------------------------------------

@pytest.mark.spec("API-107")
def test_jitted_function_type_is_named_pjit_function(jax):
    jitted = jax.jit(lambda x: x)
    assert type(jitted).__name__ == "PjitFunction"
    assert "PjitFunction" in str(type(jitted))
    assert type(lambda x: x).__name__ != "PjitFunction"


@pytest.mark.spec("API-109")
def test_signature_of_jitted_function(jax):
    def f(x, y=2, *, z):
        return x
    want = inspect.signature(f)
    jitted = jax.jit(f, static_argnames="z")
    assert inspect.signature(jitted, follow_wrapped=False) == want
    assert inspect.signature(jitted) == want
    bound = inspect.signature(jitted, follow_wrapped=False).bind(1, z=3)
    assert bound.arguments == {"x": 1, "z": 3}


# -- disable_jit(disable=...) (API-108) ------------------------------------------

@pytest.mark.spec("API-108")
def test_disable_jit_takes_disable(jax):
    disable_jit = importlib.import_module(f"{jax.__name__}._src.api").disable_jit
    assert list(inspect.signature(disable_jit).parameters) == ["disable"]
    seen = []
    jitted = jax.jit(lambda x: seen.append(type(x).__name__) or x)
    with disable_jit(disable=True):
        assert jax.config.jax_disable_jit is True
        jitted(1.0)
        with disable_jit(disable=False):
            assert jax.config.jax_disable_jit is False
        assert jax.config.jax_disable_jit is True
    assert jax.config.jax_disable_jit is False
    assert seen == ["float"]            # run as plain Python: no tracer

    @disable_jit()
    def read():
        return jax.config.jax_disable_jit
    assert read() is True and jax.config.jax_disable_jit is False


# -- key arrays closed over by jit (API-110) -------------------------------------

@pytest.mark.spec("API-110")
def test_jit_returns_a_closed_over_key(jax, jnp):
    key = jax.random.key(17)
    out = jax.jit(lambda: key)()
    assert jnp.issubdtype(out.dtype, jax.dtypes.prng_key) and out.shape == ()
    np.testing.assert_array_equal(jax.random.key_data(out), jax.random.key_data(key))
    keys = jax.random.split(key, 3)
    x, k1 = jax.jit(lambda x: (x + 1, keys[1]))(1.0)
    assert float(x) == 2.0
    np.testing.assert_array_equal(jax.random.key_data(k1), jax.random.key_data(keys[1]))
    many = jax.jit(lambda: keys)()
    assert many.shape == (3,)
    np.testing.assert_array_equal(jax.random.key_data(many), jax.random.key_data(keys))


@pytest.mark.spec("API-110")
def test_jit_still_refuses_other_constants(jax):
    with pytest.raises(TypeError, match="not a valid JAX type"):
        jax.jit(lambda: object())()


# -- checkify's division check (DBG-23) ------------------------------------------

@pytest.fixture
def checkify(jax):
    return importlib.import_module(f"{jax.__name__}.experimental.checkify")


@pytest.mark.spec("DBG-23")
@pytest.mark.parametrize("dtype", ["float32", "int32", "complex64"])
def test_div_checks_flag_a_zero_divisor_of_any_dtype(jax, jnp, checkify, dtype):
    divide = checkify.checkify(lambda x, y: x / y if dtype != "int32" else jax.lax.div(x, y),
                               errors=checkify.div_checks)
    one, zero, two = (jnp.asarray(v, dtype) for v in (1, 0, 2))
    assert divide(one, zero)[0].get() == "division by zero"
    assert divide(one, two)[0].get() is None
    vector = jnp.asarray([1, 0, 2], dtype)
    assert divide(jnp.ones(3, dtype), vector)[0].get() == "division by zero"


@pytest.mark.spec("DBG-23")
def test_div_checks_under_jit_and_with_nan_checks(jax, jnp, checkify):
    @jax.jit
    def take_and_divide(x, i, y):
        return x[i] / y
    divide = checkify.checkify(take_and_divide, errors=checkify.div_checks)
    err, out = divide(jnp.ones(2), 1, 0)
    assert err.get() == "division by zero" and float(out) == np.inf
    with pytest.raises(checkify.JaxRuntimeError, match="division by zero"):
        err.throw()
    assert divide(jnp.ones(2), 10, 2)[0].get() is None       # index checks are off
    both = checkify.checkify(lambda x, y: x / y, errors=checkify.float_checks)
    assert both(jnp.float32(0), jnp.float32(0))[0].get() == "division by zero"
    nan_only = checkify.checkify(lambda x, y: x / y, errors=checkify.nan_checks)
    assert nan_only(jnp.float32(0), jnp.float32(0))[0].get() == "nan generated by primitive: div."


@pytest.mark.spec("DBG-23")
def test_rem_is_not_division_checked(jax, jnp, checkify):
    rem = checkify.checkify(lambda x, y: jax.lax.rem(x, y), errors=checkify.div_checks)
    assert rem(jnp.int32(1), jnp.int32(0))[0].get() is None
    assert rem(jnp.float32(1), jnp.float32(0))[0].get() is None


# -- pmap: which mapped argument sets the size (SHD-83) ----------------------------

@pytest.mark.spec("SHD-83")
@pytest.mark.parametrize("first_is_python_scalar", [False, True])
def test_pmap_other_mapped_argument_without_the_axis(jax, jnp, first_is_python_scalar):
    f = jax.pmap(lambda a, b: a + b, axis_name="i")
    args = (1.0, jnp.ones(1)) if first_is_python_scalar else (jnp.ones(1), jnp.float32(2))
    with pytest.raises(ValueError) as info:
        f(*args)
    index = 0 if first_is_python_scalar else 1
    message = str(info.value)
    assert message.startswith(f"One of pjit arguments with pytree key path flat_args[{index}] "
                              "is incompatible with its sharding annotation NamedSharding(")
    assert message.endswith("is only valid for values of rank at least 1, but was applied "
                            "to a value of rank 0. For scalars the PartitionSpec should be P()")


@pytest.mark.spec("SHD-83")
def test_pmap_size_setting_argument_without_the_axis(jax, jnp):
    f = jax.pmap(lambda a, b: a + b, axis_name="i")
    with pytest.raises(IndexError, match="tuple index out of range"):
        f(jnp.float32(2), jnp.ones(1))


# -- eager jvp of Python scalars (AD-105) ---------------------------------------------

@pytest.mark.spec("AD-105")
def test_eager_jvp_tangent_of_a_promoted_python_scalar_is_an_array(jax):
    primal, tangent = jax.jvp(lambda x: x + 1, (1.0,), (1.0,))
    assert isinstance(primal, jax.Array) and isinstance(tangent, jax.Array)
    assert float(tangent) == 1.0 and tangent.weak_type
    assert jax.jvp(lambda x: x, (1.0,), (1.0,)) == (1.0, 1.0)


# -- ahead-of-time: compiler options (JIT-15) and pmap lower (SHD-107) ----------------

@pytest.mark.spec("JIT-15")
def test_compile_takes_xla_options_and_refuses_unknown_names(jax, jnp):
    from importlib import import_module
    errors = import_module(f"{jax.__name__}.errors")
    lowered = jax.jit(lambda x, y: 2 * x + y).lower(jnp.float32(3), 4)
    compiled = lowered.compile(compiler_options={"xla_gpu_autotune_level": "0"})
    assert float(compiled(jnp.float32(3), 4)) == 10.0
    with pytest.raises(errors.JaxRuntimeError,
                       match="INVALID_ARGUMENT: No such compile option: 'not an option'"):
        lowered.compile(compiler_options={"not an option": "1"})


@pytest.mark.spec("SHD-107")
def test_pmap_lower_compiles_the_mapped_program(jax, jnp):
    f = jax.pmap(lambda x, y: 2 * x + y, in_axes=(0, None))
    x = jnp.arange(1.0, 2.0)
    lowered = f.lower(x, 4.0)
    assert isinstance(lowered.as_text(), str)
    np.testing.assert_array_equal(np.asarray(lowered.compile()(x, 4.0)), [6.0])
