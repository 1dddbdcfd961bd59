"""Conformance: the effects of jax_random_seed_offset, jax_default_device,
jax_explicit_x64_dtypes, jax_check_static_indices,
jax_high_dynamic_range_gumbel, jax_default_prng_impl, the transfer guards
and jax_allow_f16_reductions (SPEC CFG-20 .. CFG-28)."""
import contextlib
import logging
import warnings

import numpy as np
import pytest


@contextlib.contextmanager
def _option(jax, name, value):
    """``name`` set globally to ``value`` for the block, then restored."""
    old = jax.config.values[name]
    jax.config.update(name, value)
    try:
        yield
    finally:
        jax.config.update(name, old)


# -- jax_random_seed_offset (CFG-20, CFG-21) -------------------------------------

@pytest.mark.spec("CFG-20")
def test_seed_offset_adds_to_seeds(jax, jnp):
    r = jax.random
    want = np.asarray(r.key_data(r.key(3)))
    want_rbg = np.asarray(r.key_data(r.key(7, impl="rbg")))
    with _option(jax, "jax_random_seed_offset", 3):
        np.testing.assert_array_equal(r.key_data(r.key(0)), want)
        np.testing.assert_array_equal(r.PRNGKey(0), want)
        np.testing.assert_array_equal(r.key_data(r.key(4, impl="rbg")), want_rbg)
        text = str(jax.make_jaxpr(lambda s: r.key(s))(0))
        assert "add a 3:i32[]" in text and "random_seed" in text
    np.testing.assert_array_equal(r.key_data(r.key(0)), [0, 0])


@pytest.mark.spec("CFG-21")
def test_tracing_options_retrace_jit(jax):
    r = jax.random
    f = jax.jit(lambda s: r.key_data(r.key(s)))
    np.testing.assert_array_equal(f(0), [0, 0])
    with _option(jax, "jax_random_seed_offset", 3):
        np.testing.assert_array_equal(f(0), [0, 3])
    np.testing.assert_array_equal(f(0), [0, 0])
    h = jax.jit(lambda v: v[12])
    x = jax.numpy.arange(10.0)
    assert float(h(x)) == 9.0
    with _option(jax, "jax_check_static_indices", True):
        with pytest.raises(IndexError, match="index 12 out of bounds"):
            h(x)


# -- jax_default_device (CFG-22) --------------------------------------------------

@pytest.mark.spec("CFG-22")
def test_default_device_places_new_arrays(jax, jnp):
    d = jax.devices()
    if len(d) < 3:
        pytest.skip("needs 3 devices")
    before = jnp.ones(3)
    committed = jax.device_put(np.ones(2), d[1])
    with jax.default_device(d[2]):
        made = [jnp.ones(3), jnp.array([1, 2]), jnp.asarray(np.ones(2)), before + 1,
                jax.jit(lambda x: x + 1)(np.ones(2)), jax.device_put(np.ones(2)),
                jax.random.normal(jax.random.key(0), (2,))]
        for x in made:
            assert x.devices() == {d[2]} and not x.committed
        assert before.devices() == {d[0]}
        out = committed + jnp.ones(2)
        assert out.devices() == {d[1]} and out.committed
    assert jnp.ones(2).devices() == {d[0]}
    assert made[0].devices() == {d[2]}
    assert (made[0] + 1).devices() == {d[0]}
    with _option(jax, "jax_default_device", d[1]):
        assert jnp.zeros(2).devices() == {d[1]}
    with _option(jax, "jax_default_device", "cpu"):
        assert jnp.zeros(2).devices() == {d[0]}


@pytest.mark.spec("CFG-22")
def test_default_device_bad_values(jax, jnp):
    with pytest.raises(ValueError, match="jax.default_device must be passed either"):
        with jax.default_device(3):
            pass
    with pytest.raises(RuntimeError, match="Unknown backend"):
        with jax.default_device("gpu"):
            jnp.zeros(2)


# -- jax_explicit_x64_dtypes (CFG-23) ----------------------------------------------

@pytest.mark.spec("CFG-23")
def test_explicit_x64_warn_and_error(jax, jnp):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        x = jnp.zeros(3, dtype="float64")
    assert x.dtype == np.float32
    assert [str(m.message) for m in w] == [
        "Explicitly requested dtype float64 requested in zeros is not available, "
        "and will be truncated to dtype float32. To enable more dtypes, set the "
        "jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell "
        "environment variable. See https://github.com/jax-ml/jax#current-gotchas "
        "for more."]
    with _option(jax, "jax_explicit_x64_dtypes", "error"):
        with pytest.raises(ValueError) as e:
            jnp.arange(3, dtype=np.int64)
        assert str(e.value) == (
            "Explicitly requested dtype int64 requested in arange is not available. "
            "To enable more dtypes, set the jax_enable_x64 or allow_explicit_x64_dtypes "
            "configuration options.See https://github.com/jax-ml/jax#current-gotchas "
            "for more.")
        with pytest.raises(ValueError, match="requested in astype"):
            jnp.ones(2).astype(jnp.float64)
        with pytest.raises(ValueError, match="Explicitly requested dtype int64"):
            jax.jit(lambda v: v.astype("int64"))(jnp.ones(2))
        assert jnp.zeros(2, dtype=float).dtype == np.float32
        assert jnp.zeros(2, dtype="float32").dtype == np.float32
    with jax.enable_x64(True), _option(jax, "jax_explicit_x64_dtypes", "error"):
        assert jnp.zeros(2, dtype="float64").dtype == np.float64


# -- jax_check_static_indices (CFG-24) ----------------------------------------------

@pytest.mark.spec("CFG-24")
def test_check_static_indices(jax, jnp):
    x = jnp.arange(10.0)
    assert float(x[10]) == 9.0                      # clamped by default
    with _option(jax, "jax_check_static_indices", True):
        with pytest.raises(IndexError, match=r"index 10 out of bounds for axis 0 "
                           r"with size 10 \(normalize_indices=True\)"):
            x[10]
        with pytest.raises(IndexError, match="index -11 out of bounds"):
            x[-11]
        with pytest.raises(IndexError, match="index 12 out of bounds"):
            jax.jit(lambda v: v[12])(x)
        assert float(x[3]) == 3.0 and float(x[-1]) == 9.0
        assert float(x.at[10].get(mode="clip")) == 9.0
        assert float(x[jnp.array(12)]) == 9.0
        np.testing.assert_array_equal(x[2:20], np.arange(2.0, 10.0))
        np.testing.assert_array_equal(x.at[10].set(1.0), x)


# -- jax_high_dynamic_range_gumbel (CFG-25) -----------------------------------------

@pytest.mark.spec("CFG-25")
def test_high_dynamic_range_gumbel(jax, jnp):
    r = jax.random
    k = r.key(3)
    low = np.asarray(r.gumbel(k, (6,)))
    high = np.asarray(r.gumbel(k, (6,), mode="high"))
    assert not np.array_equal(low, high)
    np.testing.assert_array_equal(low, r.gumbel(k, (6,), mode="low"))
    with _option(jax, "jax_high_dynamic_range_gumbel", True):
        np.testing.assert_array_equal(r.gumbel(k, (6,)), high)
        np.testing.assert_array_equal(r.gumbel(k, (6,), mode="low"), low)
        c_high = np.asarray(r.categorical(k, jnp.zeros(50), shape=(20,)))
    c_low = np.asarray(r.categorical(k, jnp.zeros(50), shape=(20,)))
    assert not np.array_equal(c_high, c_low)
    assert 0 <= c_high.min() and c_high.max() < 50


# -- jax_default_prng_impl (CFG-26) ---------------------------------------------------

@pytest.mark.spec("CFG-26")
@pytest.mark.parametrize("name, tag, words", [
    ("threefry2x32", "fry", 2), ("threefry4x32", "fry4", 4), ("rbg", "rbg", 4),
    ("unsafe_rbg", "urbg", 4), ("philox2x32", "phx2", 1), ("philox4x32", "phx4", 2),
])
def test_default_prng_impl_names(jax, name, tag, words):
    r = jax.random
    with _option(jax, "jax_default_prng_impl", name):
        k = r.key(0)
        assert str(k.dtype) == f"key<{tag}>"
        assert r.key_data(k).shape == (words,)
        np.testing.assert_array_equal(r.key_data(k), r.key_data(r.key(0, impl=name)))
    with jax.default_prng_impl(name):
        assert str(r.key(0).dtype) == f"key<{tag}>"


@pytest.mark.spec("CFG-26")
def test_default_prng_impl_rejects_unknown(jax):
    with pytest.raises(ValueError, match="philox4x32"):
        jax.config.update("jax_default_prng_impl", "bogus")


# -- transfer guards (CFG-27) ----------------------------------------------------------

def _guard(jax, mode):
    """``jax.transfer_guard(mode)``, entered."""
    cm = jax.transfer_guard(mode)
    cm.__enter__()
    return cm


@pytest.mark.spec("CFG-27")
def test_transfer_guard_effect(jax, jnp):
    d = jax.devices()
    x = jnp.arange(3.0)
    cm = _guard(jax, "disallow")
    try:
        with pytest.raises(Exception, match="Disallowed host-to-device transfer"):
            jnp.asarray(np.ones(2))
        with pytest.raises(Exception, match="Disallowed host-to-device transfer"):
            jax.jit(lambda a: a * 2)(np.ones(2))
        jax.device_put(np.ones(2))                      # explicit: allowed
        np.asarray(x)                                   # device-to-host: allowed
        str(x)
    finally:
        cm.__exit__(None, None, None)
    cm = _guard(jax, "disallow_explicit")
    try:
        with pytest.raises(Exception, match="Disallowed host-to-device transfer: "
                           r"aval=ShapedArray\(float32\[2\]\)"):
            jax.device_put(np.ones(2, np.float32))
        if len(d) > 1:
            with pytest.raises(Exception, match="Disallowed device-to-device"):
                jax.device_put(x, d[1])
        np.asarray(x)
    finally:
        cm.__exit__(None, None, None)


@pytest.mark.spec("CFG-27")
def test_transfer_guard_log(jax, jnp, caplog):
    cm = _guard(jax, "log_explicit")
    try:
        with caplog.at_level(logging.WARNING):
            jax.device_put(np.ones(2, np.float32))
    finally:
        cm.__exit__(None, None, None)


# -- jax_allow_f16_reductions (CFG-28) ---------------------------------------------------

@pytest.mark.spec("CFG-28")
def test_allow_f16_reductions(jax, jnp):
    jax.config.update("jax_allow_f16_reductions", False)
    try:
        x = jnp.ones((3, 2), jnp.float16)
        with pytest.raises(ValueError, match="reduce_sum on operand f16"):
            jax.lax.reduce_sum(x, (0,))
        assert float(jnp.sum(x)) == 6.0
        np.testing.assert_array_equal(
            jax.lax.reduce_sum(jnp.ones((1, 2), jnp.float16), (0,)), [1, 1])
    finally:
        jax.config.update("jax_allow_f16_reductions", True)
