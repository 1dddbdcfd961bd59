"""Conformance: JAX 0.10.2's full option table, its validation and the
options that act (SPEC CFG-8 .. CFG-10)."""
import logging
import os
import subprocess
import sys

import pytest

# A sample of JAX 0.10.2's options with their defaults (from JAX's docs).
DEFAULTS = {
    "jax_log_compiles": False,
    "jax_explain_cache_misses": False,
    "jax_random_seed_offset": 0,
    "jax_check_static_indices": False,
    "jax_traceback_filtering": "auto",
    "jax_transfer_guard": None,
    "jax_transfer_guard_host_to_device": None,
    "jax_no_tracing": False,
    "jax_no_execution": False,
    "jax_default_device": None,
    "jax_softmax_custom_jvp": False,
    "jax_allow_f16_reductions": True,
    "jax_persistent_cache_min_compile_time_secs": 1.0,
    "jax_compilation_cache_dir": None,
    "jax_enable_compilation_cache": True,
    "jax_compilation_cache_max_size": -1,
    "jax_debug_log_modules": "",
    "jax_logging_level": "NOTSET",
    "jax_optimization_level": "UNKNOWN",
    "jax_memory_fitting_level": "O2",
    "jax_cpu_collectives_implementation": "gloo",
    "jax_export_calling_convention_version": 10,
    "jax_use_shardy_partitioner": True,
    "jax_array_garbage_collection_guard": None,
    "jax_pprint_use_color": True,
    "check_vma": False,
    "eager_constant_folding": False,
}
FLAGS = {"jax_platform_name": "", "jax_dump_ir_to": "", "jax_backend_target": "",
         "jax_cpu_enable_async_dispatch": True, "mock_num_gpu_processes": 0}


def _run(impl_name, code, **env):
    base = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
    result = subprocess.run([sys.executable, "-c", f"import {impl_name} as jax\n{code}"],
                            capture_output=True, text=True, env={**base, **env})
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.spec("CFG-8")
def test_option_defaults(jax):
    values = jax.config.values
    assert len(values) >= 133
    for name, want in DEFAULTS.items():
        assert values[name] == want, name
        assert getattr(jax.config, name) == want, name
        assert type(values[name]) is type(want), name
    for name, want in FLAGS.items():
        assert jax.config.read(name) == want, name


@pytest.mark.spec("CFG-8")
def test_enum_class_options(jax):
    mode = jax.config.jax_explicit_x64_dtypes
    assert mode.name == "WARN" and int(mode) == 1
    assert jax.config.jax_send_traceback_to_runtime == "off"


@pytest.mark.spec("CFG-8")
def test_flags_are_not_attributes(jax):
    with pytest.raises(AttributeError, match="'Config' object has no attribute"):
        jax.config.jax_platform_name
    old = jax.config.read("jax_dump_ir_to")
    try:
        jax.config.update("jax_dump_ir_to", 3)      # flags take any value
        assert jax.config.read("jax_dump_ir_to") == 3
    finally:
        jax.config.update("jax_dump_ir_to", old)


@pytest.mark.spec("CFG-8")
@pytest.mark.parametrize("name, value, error, message", [
    ("jax_random_seed_offset", 1.5, ValueError,
     "new int config value must be None or of type int, got 1.5 of type <class 'float'>"),
    ("jax_persistent_cache_min_compile_time_secs", "a", ValueError,
     "new float config value must be None or of type float, got a of type <class 'str'>"),
    ("jax_compilation_cache_dir", 3, ValueError,
     "new string config value must be None or of type str, got 3 of type <class 'int'>."),
    ("jax_debug_log_modules", 3, TypeError,
     "new string config value must be of type str, got 3 of type <class 'int'>."),
    ("jax_traceback_filtering", "bad", ValueError,
     "new enum value must be in ['off', 'tracebackhide', 'remove_frames', "
     "'quiet_remove_frames', 'auto'], got bad of type <class 'str'>."),
    ("jax_transfer_guard", "bad", ValueError,
     "new enum value must be None or in ['allow', 'log', 'disallow', "
     "'log_explicit', 'disallow_explicit'], got bad of type <class 'str'>."),
    ("jax_explicit_x64_dtypes", "bad", ValueError,
     "'bad' is not a valid ExplicitX64Mode"),
    ("jax_default_device", "zz", ValueError,
     "jax.default_device must be passed either a Device object (e.g. "
     "`jax.devices('cpu')[0]`) or a platform name string like 'cpu' or 'gpu', "
     "got: 'zz'"),
])
def test_invalid_values(jax, name, value, error, message):
    old = jax.config.values[name]
    with pytest.raises(error) as info:
        jax.config.update(name, value)
    assert str(info.value) == message
    assert jax.config.values[name] == old


@pytest.mark.spec("CFG-8")
def test_enum_class_rejects_other_types(jax):
    with pytest.raises(TypeError, match="new enum value must be an instance of"):
        jax.config.update("jax_explicit_x64_dtypes", 3)


@pytest.mark.spec("CFG-8")
def test_values_that_are_accepted(jax):
    for name, value in [("jax_compilation_cache_max_size", None),
                        ("jax_persistent_cache_min_compile_time_secs", 2),
                        ("jax_cpu_collectives_implementation", None),
                        ("jax_traceback_filtering", "off"),
                        ("jax_random_seed_offset", 0),
                        ("jax_log_compiles", "yes")]:
        old = jax.config.values[name]
        try:
            jax.config.update(name, value)
            want = True if value == "yes" else value
            assert jax.config.values[name] == want
        finally:
            jax.config.update(name, old)


@pytest.mark.spec("CFG-8")
def test_environment_variables_of_new_options(impl_name):
    out = _run(impl_name, "print(jax.config.jax_log_compiles, "
               "jax.config.jax_compilation_cache_max_size, "
               "jax.config.jax_traceback_filtering)",
               JAX_LOG_COMPILES="1", JAX_COMPILATION_CACHE_MAX_SIZE="7",
               JAX_TRACEBACK_FILTERING="off")
    assert out == "True 7 off"


@pytest.mark.spec("CFG-9")
def test_config_object_members(jax):
    config = jax.config
    assert config.x64_enabled is False
    assert config.use_absl is False
    assert config.meta["jax_log_compiles"][0] is bool
    assert config.meta["jax_random_seed_offset"][0] is int
    kind, _, kwargs = config.meta["jax_traceback_filtering"]
    assert kind == "enum" and "auto" in kwargs["enum_values"]
    assert config.meta["jax_explicit_x64_dtypes"][0] == "enum_class"
    for name in ("parse_flags_with_absl", "config_with_absl",
                 "complete_absl_config", "add_option", "update", "read"):
        assert callable(getattr(config, name)), name
    with jax.enable_x64(True):
        assert config.x64_enabled is True


@pytest.mark.spec("CFG-9")
def test_add_option(jax):
    class Holder:
        def __init__(self):
            self.value = 5

        def _set(self, value):
            self.value = value

    name = "refjax_conformance_test_option"
    if name not in jax.config.values:
        jax.config.add_option(name, Holder(), int, [], {"help": "test"})
    jax.config.update(name, 9)
    assert jax.config.read(name) == 9
    assert jax.config.values[name] == 9
    with pytest.raises(Exception, match="already defined"):
        jax.config.add_option(name, Holder(), int, [], {})


@pytest.mark.spec("CFG-9")
def test_context_manager_arguments(jax):
    with jax.log_compiles():
        assert jax.config.jax_log_compiles is True
    with pytest.raises(TypeError, match="requires an argument"):
        jax.transfer_guard_host_to_device()
    with pytest.raises(ValueError):
        jax.transfer_guard_host_to_device("bad")
    with pytest.raises(TypeError, match="bool\\(\\) not supported"):
        bool(jax.log_compiles)

    @jax.no_tracing(False)
    def f():
        return jax.config.jax_no_tracing
    assert f() is False


@pytest.mark.spec("CFG-10")
def test_log_compiles(jax, jnp, caplog):
    def twice(x):
        return x * 2
    f = jax.jit(twice)
    with caplog.at_level(logging.WARNING), jax.log_compiles(True):
        f(jnp.ones(3))
        f(jnp.ones(3))
    texts = [r.getMessage() for r in caplog.records]
    compiles = [t for t in texts if t.startswith("Compiling jit(twice)")]
    assert compiles == ["Compiling jit(twice) with global shapes and types "
                        "(ShapedArray(float32[3]),). Argument mapping: "
                        "(UnspecifiedValue,)."]
    assert sum(t.startswith("Finished tracing twice for jit in ") for t in texts) == 1
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        jax.jit(lambda x: x + 1)(1.0)
    assert not [r for r in caplog.records if "Compiling" in r.getMessage()]


@pytest.mark.spec("CFG-10")
def test_explain_cache_misses(jax, jnp, caplog):
    f = jax.jit(lambda x: x - 1)
    with caplog.at_level(logging.WARNING), jax.explain_cache_misses(True):
        f(1.0)
        f(jnp.ones(2))
    misses = [r.getMessage() for r in caplog.records
              if "TRACING CACHE MISS" in r.getMessage()]
    assert len(misses) == 2
    assert "never seen function" in misses[0]
    assert "all previously seen cache keys differ" in misses[1]


@pytest.mark.spec("CFG-10")
def test_no_tracing(jax, jnp):
    g = jax.jit(lambda x: x * 3)
    g(1.0)
    with jax.no_tracing(True):
        assert float(g(2.0)) == 6.0            # cached: no trace
        with pytest.raises(RuntimeError, match="re-tracing function .* for `jit`, "
                                               "but 'no_tracing' is set"):
            jax.jit(lambda x: x + 3)(1.0)


@pytest.mark.spec("CFG-10")
def test_no_execution(jax, jnp):
    def h(x):
        return x + 3
    f = jax.jit(h)
    with jax.no_execution(True):
        with pytest.raises(RuntimeError, match=r"JAX tried to execute function "
                           r"jit\(h\), but the no_execution config option is set"):
            f(1.0)
        assert "add" in str(jax.make_jaxpr(h)(1.0))
        compiled = f.lower(1.0).compile()
    assert float(compiled(1.0)) == 4.0


@pytest.mark.spec("CFG-10")
def test_transfer_guard_sets_all_four(jax):
    names = ["jax_transfer_guard", "jax_transfer_guard_host_to_device",
             "jax_transfer_guard_device_to_host", "jax_transfer_guard_device_to_device"]
    with jax.transfer_guard("allow"):
        assert [jax.config.values[n] for n in names] == ["allow"] * 4
    assert [jax.config.values[n] for n in names] == [None] * 4
