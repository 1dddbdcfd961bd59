"""refjax internals of issue 22's second top-level pass: creation
tracebacks, the transfer-guard machinery and the option refusals that remain
(SPEC API-37, CFG-27, CFG-28, CFG-23)."""
import logging

import numpy as np
import pytest

import refjax as jax
from refjax._src import array as array_mod
from refjax._src import config as config_mod
from refjax._src import devices
from refjax.errors import JaxRuntimeError

jnp = jax.numpy


@pytest.mark.spec("API-37")
def test_tracebacks_off_by_default_then_collected():
    assert jnp.ones(2).traceback is None
    array_mod.set_tracebacks_enabled(True)
    try:
        x = jnp.ones(2) + 1
    finally:
        array_mod.set_tracebacks_enabled(False)
    tb = x.traceback
    frames = tb.frames
    assert frames[0].file_name.endswith(".py") and frames[0].line_num > 0
    assert any(f.function_name == "test_tracebacks_off_by_default_then_collected"
               for f in frames)
    assert "test_top2_internals.py" in str(tb)
    assert jnp.ones(2).traceback is None


@pytest.mark.spec("CFG-27")
def test_guard_transfer_modes(caplog):
    state = config_mod.states["jax_transfer_guard_host_to_device"]
    describe = lambda: "aval=ShapedArray(float32[2]), dst_sharding=X"  # noqa: E731
    # The option refuses these values until every site guards, so the
    # override is set directly here to exercise the guard itself.
    for mode, explicit, outcome in [
            ("allow", False, None), ("log", False, "log"), ("log", True, None),
            ("disallow", False, "raise"), ("disallow", True, None),
            ("log_explicit", True, "log"), ("disallow_explicit", True, "raise"),
            ("disallow_explicit", False, "raise")]:
        caplog.clear()
        with state._override(mode), caplog.at_level(logging.WARNING):
            if outcome == "raise":
                with pytest.raises(JaxRuntimeError, match=r"^INVALID_ARGUMENT: "
                                   "Disallowed host-to-device transfer: aval="):
                    devices.guard_transfer("host-to-device", explicit, describe)
            else:
                devices.guard_transfer("host-to-device", explicit, describe)
        logged = [r.getMessage() for r in caplog.records]
        assert logged == (["host-to-device transfer: aval=ShapedArray(float32[2]), "
                           "dst_sharding=X"] if outcome == "log" else []), mode


@pytest.mark.spec("CFG-27")
def test_device_put_guards_explicit_transfers():
    state = config_mod.states["jax_transfer_guard"]
    with state._override("disallow"):
        jax.device_put(np.ones(2))              # explicit: allowed
        with devices.explicit_transfer():
            devices.guard_host_to_device(lambda: None)   # not implicit inside
        with pytest.raises(JaxRuntimeError, match="Disallowed host-to-device"):
            devices.guard_host_to_device(lambda: "aval")
    with state._override("disallow_explicit"):
        with pytest.raises(JaxRuntimeError, match=r"aval=ShapedArray\(float32\[2\]\), "
                           r"dst_sharding=SingleDeviceSharding"):
            jax.device_put(np.ones(2, np.float32))
        x = jnp.ones(2)
        jax.device_put(x, jax.devices()[0])     # already there: no transfer


@pytest.mark.spec("CFG-27")
def test_every_host_to_device_site_guards():
    """Every place a host value becomes an Array calls the guard, so the
    guard options are accepted and act (none is refused)."""
    assert config_mod.transfer_guard_sites == config_mod.TRANSFER_GUARD_SITES
    jax.config.update("jax_transfer_guard", "log")
    try:
        assert jax.config.jax_transfer_guard == "log"
    finally:
        jax.config.update("jax_transfer_guard", None)


@pytest.mark.spec("CFG-23")
def test_explicit_x64_allow_is_refused():
    with pytest.raises(NotImplementedError, match="is not supported: refjax cannot"):
        jax.config.update("jax_explicit_x64_dtypes", "allow")
    assert jax.config.jax_explicit_x64_dtypes == config_mod.ExplicitX64Mode.WARN

