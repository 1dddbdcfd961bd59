"""refjax only: options whose effect refjax lacks are refused, and the
XLA-only modules raise with their reason (SPEC CFG-10, API-14)."""
import pytest

import refjax as jax
from refjax import export, ffi, profiler


@pytest.mark.spec("CFG-10")
@pytest.mark.parametrize("name, value", [
    ("jax_explicit_x64_dtypes", "allow"),
])
def test_values_without_an_effect_are_refused(name, value):
    old = jax.config.values[name]
    with pytest.raises(NotImplementedError, match="is not supported: refjax"):
        jax.config.update(name, value)
    assert jax.config.values[name] == old


@pytest.mark.spec("CFG-10")
def test_refused_in_context_managers_too():
    from refjax._src import config
    with pytest.raises(NotImplementedError, match="is not supported: refjax"):
        with config.states["jax_explicit_x64_dtypes"]("allow"):
            pass
    assert jax.config.jax_explicit_x64_dtypes.name == "WARN"


@pytest.mark.spec("CFG-8")
def test_every_option_has_help_and_a_meta_entry():
    for name in jax.config.values:
        assert name in jax.config.meta, name


@pytest.mark.spec("API-14")
def test_xla_only_entry_points_raise_with_reason():
    f = jax.jit(lambda x: x)
    with pytest.raises(NotImplementedError, match="no StableHLO"):
        export.export(f)(1.0)
    with pytest.raises(NotImplementedError, match="no StableHLO"):
        export.deserialize(b"")
    with pytest.raises(NotImplementedError, match="without XLA"):
        ffi.ffi_call("target", jax.ShapeDtypeStruct((), "float32"))
    with pytest.raises(NotImplementedError, match="profiler"):
        profiler.start_trace("/tmp/x")
    with pytest.raises(NotImplementedError, match="profiler"):
        with profiler.trace("/tmp/x"):
            pass
