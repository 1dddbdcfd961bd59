"""Conformance: configuration options (SPEC CFG-*)."""
import os
import subprocess
import sys

import pytest

DEFAULTS = {
    "jax_enable_x64": False,
    "jax_numpy_dtype_promotion": "standard",
    "jax_numpy_rank_promotion": "allow",
    "jax_default_prng_impl": "threefry2x32",
    "jax_threefry_partitionable": True,
    "jax_legacy_prng_key": "allow",
    "jax_debug_nans": False,
    "jax_debug_infs": False,
    "jax_disable_jit": False,
    "jax_check_tracer_leaks": False,
    "jax_default_matmul_precision": None,
    "jax_enable_checks": False,
    "jax_num_cpu_devices": -1,
}


def _run(impl_name, code, **env):
    base = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
    result = subprocess.run([sys.executable, "-c", f"import {impl_name} as jax\n{code}"],
                            capture_output=True, text=True, env={**base, **env})
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.spec("CFG-4")
def test_defaults(impl_name):
    code = "\n".join(f"print(jax.config.{name} == {value!r}, type(jax.config.{name}).__name__)"
                     for name, value in DEFAULTS.items())
    got = _run(impl_name, code).splitlines()
    assert [line.split()[0] for line in got] == ["True"] * len(DEFAULTS)


@pytest.mark.spec("CFG-1")
def test_update_and_read(jax):
    old = jax.config.jax_debug_nans
    try:
        jax.config.update("jax_debug_nans", True)
        assert jax.config.jax_debug_nans is True
    finally:
        jax.config.update("jax_debug_nans", old)
    assert jax.config.jax_debug_nans is old


@pytest.mark.spec("CFG-2")
def test_unknown_option_raises_attribute_error(jax):
    with pytest.raises(AttributeError, match="Unrecognized config option: jax_no_such_flag"):
        jax.config.update("jax_no_such_flag", 1)
    with pytest.raises(AttributeError, match="'Config' object has no attribute 'jax_no_such_flag'"):
        jax.config.jax_no_such_flag


@pytest.mark.spec("CFG-5")
@pytest.mark.parametrize("name, value, message", [
    ("jax_numpy_rank_promotion", "foo",
     "new enum value must be in ['allow', 'warn', 'raise'], got foo of type <class 'str'>."),
    ("jax_num_cpu_devices", "x",
     "new int config value must be None or of type int, got x of type <class 'str'>"),
])
def test_invalid_values_raise_value_error(jax, name, value, message):
    old = getattr(jax.config, name)
    with pytest.raises(ValueError) as info:
        jax.config.update(name, value)
    assert str(info.value) == message
    assert getattr(jax.config, name) == old


@pytest.mark.spec("CFG-3")
def test_context_managers_override_for_a_block(jax, jnp):
    with jax.numpy_dtype_promotion("strict"):
        assert jax.config.jax_numpy_dtype_promotion == "strict"
        with jax.numpy_dtype_promotion("standard"):
            assert jax.config.jax_numpy_dtype_promotion == "standard"
        assert jax.config.jax_numpy_dtype_promotion == "strict"
    assert jax.config.jax_numpy_dtype_promotion == "standard"
    with jax.disable_jit():
        assert jax.config.jax_disable_jit is True
    assert jax.config.jax_disable_jit is False
    with jax.enable_x64(True):
        assert jax.config.jax_enable_x64 is True
    assert jax.config.jax_enable_x64 is False


@pytest.mark.spec("CFG-3")
def test_context_manager_restores_after_exception(jax):
    with pytest.raises(KeyError):
        with jax.debug_nans(True):
            raise KeyError("boom")
    assert jax.config.jax_debug_nans is False


@pytest.mark.spec("CFG-6")
@pytest.mark.parametrize("text, want", [("1", True), ("true", True), ("0", False),
                                        ("False", False), ("yes", True)])
def test_environment_variables(impl_name, text, want):
    out = _run(impl_name, "print(jax.config.jax_enable_x64, jax.config.jax_debug_nans)",
               JAX_ENABLE_X64=text, JAX_DEBUG_NANS=text)
    assert out == f"{want} {want}"


@pytest.mark.spec("CFG-6")
def test_threefry_partitionable_environment_variable(impl_name):
    out = _run(impl_name, "print(jax.config.jax_threefry_partitionable)",
               JAX_THREEFRY_PARTITIONABLE="0")
    assert out == "False"


@pytest.mark.spec("CFG-7")
def test_num_cpu_devices_set_before_first_use(impl_name):
    code = ("jax.config.update('jax_num_cpu_devices', 4)\n"
            "print(jax.device_count(), len(jax.devices()), jax.devices()[3])\n"
            "jax.numpy.ones(3)\n"
            "try:\n"
            "    jax.config.update('jax_num_cpu_devices', 8)\n"
            "except RuntimeError as e:\n"
            "    print('RuntimeError', str(e).split('.')[0])\n")
    out = _run(impl_name, code, JAX_PLATFORMS="cpu").splitlines()
    assert out == ["4 4 cpu:3", "RuntimeError jax_num_cpu_devices config should be "
                   "updated before backends are initialized i"]


@pytest.mark.spec("ERR-1")
def test_error_classes_and_bases(jax):
    errors = jax.errors
    expect = {
        "JAXTypeError": TypeError, "JAXIndexError": IndexError,
        "ConcretizationTypeError": errors.JAXTypeError,
        "TracerBoolConversionError": errors.ConcretizationTypeError,
        "TracerIntegerConversionError": errors.JAXTypeError,
        "TracerArrayConversionError": errors.JAXTypeError,
        "UnexpectedTracerError": errors.JAXTypeError,
        "KeyReuseError": errors.JAXTypeError,
        "NonConcreteBooleanIndexError": errors.JAXIndexError,
        "JaxRuntimeError": RuntimeError,
    }
    for name, base in expect.items():
        assert issubclass(getattr(errors, name), base), name
    assert issubclass(jax.dtypes.TypePromotionError, ValueError)
