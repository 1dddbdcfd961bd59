"""Gotchas of gotchas.md on jnp.fft dtypes (G-NP-011) and checkify (G-NAN-010,
G-NAN-011), with the behaviour of jnp.fft and checkify they rest on."""
import importlib

import numpy as np
import pytest


@pytest.fixture(scope="module")
def checkify(impl_name):
    return importlib.import_module(f"{impl_name}.experimental.checkify")


# ---------------------------------------------------------------------------
# jnp.fft
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-70")
def test_fft_and_linalg_follow_32_bit_defaults(jax, jnp):
    # G-NP-011
    assert jnp.fft.fft(jnp.ones(4)).dtype == jnp.complex64
    assert jnp.fft.fft(np.ones(4)).dtype == jnp.complex64
    assert jnp.fft.fft(jnp.ones(4, jnp.int32)).dtype == jnp.complex64
    assert jnp.fft.rfft(jnp.ones(4, bool)).dtype == jnp.complex64
    assert jnp.fft.irfft(jnp.ones(3)).dtype == jnp.float32
    assert jnp.linalg.inv(jnp.eye(2)).dtype == jnp.float32
    assert jnp.linalg.det(jnp.eye(2, dtype=jnp.int32)).dtype == jnp.float32


_RNG = np.random.RandomState(0)
_REAL = _RNG.randn(3, 6).astype(np.float32)
_COMPLEX = (_RNG.randn(3, 6) + 1j * _RNG.randn(3, 6)).astype(np.complex64)


@pytest.mark.spec("NP-70")
@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("name, x, kwargs", [
    ("fft", _REAL, {}), ("fft", _COMPLEX, {"n": 4}), ("ifft", _COMPLEX, {"n": 8}),
    ("rfft", _REAL, {"n": 7}), ("irfft", _COMPLEX, {}), ("irfft", _COMPLEX, {"n": 5}),
    ("hfft", _COMPLEX, {}), ("ihfft", _REAL, {}), ("fft2", _REAL, {}),
    ("ifft2", _COMPLEX, {"s": (2, 4)}), ("rfftn", _REAL, {"s": (2, 4), "axes": (0, 1)}),
    ("irfftn", _COMPLEX, {}), ("fftn", _COMPLEX, {"axes": (0,)}),
    ("irfft2", _COMPLEX, {"axes": (1, 0)}),
])
def test_fft_matches_numpy(jax, jnp, name, x, kwargs, norm):
    out = getattr(jnp.fft, name)(x, norm=norm, **kwargs)
    want = getattr(np.fft, name)(x, norm=norm, **kwargs)
    assert out.shape == want.shape
    assert out.dtype == (jnp.float32 if want.dtype.kind == "f" else jnp.complex64)
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-4, atol=1e-4)


@pytest.mark.spec("NP-70")
def test_fft_frequencies_and_shifts(jax, jnp):
    np.testing.assert_allclose(np.asarray(jnp.fft.fftfreq(5, 0.1)), np.fft.fftfreq(5, 0.1),
                               rtol=1e-6)
    assert jnp.fft.rfftfreq(6).dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(jnp.fft.rfftfreq(6)), np.fft.rfftfreq(6), rtol=1e-6)
    assert jnp.fft.fftshift(jnp.arange(5)).tolist() == np.fft.fftshift(np.arange(5)).tolist()
    x = np.arange(6).reshape(2, 3)
    assert (jnp.fft.ifftshift(x, axes=1).tolist()
            == np.fft.ifftshift(x, axes=1).tolist())


@pytest.mark.spec("NP-70")
def test_fft_errors(jax, jnp):
    with pytest.raises(ValueError, match="only real valued inputs supported for rfft"):
        jnp.fft.rfft(jnp.ones(4, jnp.complex64))
    with pytest.raises(ValueError, match='Invalid norm value bad; should be "backward",'
                                         '"ortho" or "forward".'):
        jnp.fft.fft(jnp.ones(4), norm="bad")


@pytest.mark.spec("NP-70")
def test_fft_primitive_in_jaxpr(jax, jnp):
    lax = jax.lax
    text = str(jax.make_jaxpr(lambda x: lax.fft(x, lax.FftType.FFT, (4,)))(
        jnp.ones(4, jnp.complex64)))
    assert "fft[fft_lengths=(4,) fft_type=0]" in text
    assert [int(t) for t in lax.FftType] == [0, 1, 2, 3]


def _grad_probes(jnp):
    weights = jnp.arange(10.)
    return {
        "fft": (lambda x: jnp.real(jnp.fft.fft(x) * weights[:6]).sum(), _REAL[0]),
        "ifft": (lambda x: jnp.imag(jnp.fft.ifft(x) * weights[:6]).sum(), _REAL[0]),
        "rfft": (lambda x: (jnp.abs(jnp.fft.rfft(x * 1.5)) ** 2).sum(), _REAL[0]),
        "irfft": (lambda c: (jnp.fft.irfft(c) ** 2 * weights).sum(), _COMPLEX[0]),
        "irfft5": (lambda c: (jnp.fft.irfft(c, n=5) * weights[:5]).sum(), _COMPLEX[0, :3]),
    }


@pytest.mark.spec("NP-70")
@pytest.mark.parametrize("probe", ["fft", "ifft", "rfft", "irfft", "irfft5"])
def test_fft_gradients_match_numpy_formula(jax, jnp, probe):
    # Each transform is linear, so f's gradient is checked against central
    # differences in float64 NumPy of the same function.
    f, x = _grad_probes(jnp)[probe]
    g = np.asarray(jax.grad(f)(x))
    eps = 1e-3
    for i in range(x.size):
        step = np.zeros_like(x)
        step[i] = eps
        slope = (float(f(x + step)) - float(f(x - step))) / (2 * eps)
        if np.iscomplexobj(x):
            step[i] = 1j * eps
            slope_im = (float(f(x + step)) - float(f(x - step))) / (2 * eps)
            # JAX's convention: the gradient of a real function of z is
            # conj(df/dz) * 2 / 2 = d/dre - i d/dim.
            np.testing.assert_allclose(g[i], slope - 1j * slope_im, rtol=2e-2, atol=2e-2)
        else:
            np.testing.assert_allclose(g[i], slope, rtol=2e-2, atol=2e-2)


@pytest.mark.spec("NP-70")
def test_fft_under_vmap_jit_and_jvp(jax, jnp):
    out = jax.vmap(jnp.fft.rfft, in_axes=1)(_REAL)
    np.testing.assert_allclose(np.asarray(out), np.fft.rfft(_REAL.T), rtol=1e-4, atol=1e-4)
    out = jax.jit(jnp.fft.irfft2)(_COMPLEX)
    np.testing.assert_allclose(np.asarray(out), np.fft.irfft2(_COMPLEX), rtol=1e-4, atol=1e-4)
    _, tangent = jax.jvp(jnp.fft.fft, (_COMPLEX[0],), (_COMPLEX[1],))
    np.testing.assert_allclose(np.asarray(tangent), np.fft.fft(_COMPLEX[1]), rtol=1e-4,
                               atol=1e-4)


# ---------------------------------------------------------------------------
# checkify
# ---------------------------------------------------------------------------

def _log_at(jnp):
    return lambda x, i: jnp.log(x)[i]


@pytest.mark.spec("NAN-4")
def test_checkify_nan_and_index_errors_as_values(jax, jnp, checkify):
    # G-NAN-010
    cf = checkify.checkify(_log_at(jnp), errors=checkify.nan_checks | checkify.index_checks)
    err, _ = jax.jit(cf)(jnp.array([1., 2.]), 5)
    assert err.get() == ("out-of-bounds indexing for array of shape (2,): index 5 is "
                         "out of bounds for axis 0 with size 2. ")
    err, _ = jax.jit(cf)(jnp.array([-1., 2.]), 0)
    assert err.get() == "nan generated by primitive: log."
    with pytest.raises(checkify.JaxRuntimeError) as info:
        err.throw()
    assert isinstance(info.value, ValueError)
    assert str(info.value).splitlines()[0] == "nan generated by primitive: log."
    err, out = jax.jit(cf)(jnp.array([1., 2.]), 1)
    assert err.get() is None and str(err) == "Error(None)"
    assert abs(float(out) - float(np.log(2.))) < 1e-6
    err.throw()


@pytest.mark.spec("NAN-4")
def test_checkify_reports_first_failure_eagerly(jax, jnp, checkify):
    # G-NAN-010: a NaN and a bad index in one call: the log comes first.
    cf = checkify.checkify(_log_at(jnp), errors=checkify.automatic_checks)
    assert cf(jnp.array([-1., 2.]), 7)[0].get() == "nan generated by primitive: log."
    only_nans = checkify.checkify(_log_at(jnp), errors=checkify.nan_checks)
    assert only_nans(jnp.array([1., 2.]), 7)[0].get() is None


@pytest.mark.spec("NAN-4")
def test_checkify_error_categories(jax, jnp, checkify):
    # G-NAN-010
    divide = checkify.checkify(lambda x, y: x // y, errors=checkify.div_checks)
    assert divide(jnp.int32(5), jnp.int32(0))[0].get() == "division by zero"
    assert divide(jnp.int32(5), jnp.int32(2))[0].get() is None
    sqrt = checkify.checkify(jnp.sqrt, errors=checkify.float_checks)
    assert sqrt(jnp.float32(-1.))[0].get() == "nan generated by primitive: sqrt."
    index = checkify.checkify(lambda i: jnp.arange(3.)[i], errors=checkify.index_checks)
    assert index(-5)[0].get() == ("out-of-bounds indexing for array of shape (3,): "
                                  "index -2 is out of bounds for axis 0 with size 3. ")
    rows = checkify.checkify(lambda i: jnp.arange(6.).reshape(2, 3)[1, i],
                             errors=checkify.index_checks)
    assert "index 7 is out of bounds for axis 1 with size 3. " in rows(7)[0].get()
    scatter = checkify.checkify(lambda i: jnp.ones(3).at[i].set(0.),
                                errors=checkify.index_checks)
    assert "index 5 is out of bounds for axis 0 with size 3" in scatter(5)[0].get()
    user_only = checkify.checkify(jnp.log)
    assert user_only(jnp.float32(-1.))[0].get() is None
    assert checkify.all_checks == checkify.automatic_checks | checkify.user_checks


def _positive_log(jnp, checkify):
    def f(x):
        checkify.check(x > 0, "must be positive! got {x}", x=x)
        return jnp.log(x)
    return f


@pytest.mark.spec("NAN-5")
def test_check_must_be_functionalized_before_jit(jax, jnp, checkify):
    # G-NAN-011
    f = _positive_log(jnp, checkify)
    with pytest.raises(ValueError) as info:
        jax.jit(f)(-1.)
    assert str(info.value).splitlines()[0] == (
        "Cannot abstractly evaluate a checkify.check which was not functionalized. "
        "This probably means you tried to stage (jit/scan/pmap/...) a `check` without "
        "functionalizing it through `checkify.checkify`.")
    err, _ = jax.jit(checkify.checkify(f))(-1.)
    assert err.get() == "must be positive! got -1.0 (`check` failed)"
    err, out = jax.jit(checkify.checkify(f))(2.)
    assert err.get() is None and abs(float(out) - float(np.log(2.))) < 1e-6


@pytest.mark.spec("NAN-5")
def test_check_runs_eagerly(jax, jnp, checkify):
    # G-NAN-011: without staging, a failed check raises at once.
    f = _positive_log(jnp, checkify)
    with pytest.raises(checkify.JaxRuntimeError,
                       match=r"must be positive! got -1.0 \(`check` failed\)"):
        f(jnp.float32(-1.))
    assert abs(float(f(jnp.float32(2.))) - float(np.log(2.))) < 1e-6


@pytest.mark.spec("NAN-5")
def test_check_argument_errors(jax, jnp, checkify):
    with pytest.raises(TypeError, match=r"^Formatting arguments to checkify.check need "
                                        r"to be PyTrees of arrays, but got 3.0 of type "
                                        r"<class 'float'>\.$"):
        checkify.check(False, "bad {}", 3.)
    with pytest.raises(TypeError, match=r"^check takes a scalar pred as argument, "
                                        r"got \[ True\]$"):
        checkify.check(jnp.array([True]), "bad")


@pytest.mark.spec("NAN-4")
def test_checkify_error_of_vmap_lists_each_failed_index(jax, jnp):
    checkify = importlib.import_module(jax.__name__ + ".experimental.checkify")

    def f(x):
        checkify.check(x > 0, "x must be positive, got {}", x)
        return x

    err, out = jax.vmap(checkify.checkify(f))(jnp.array([1.0, -2.0, -3.0]))
    assert err.get() == ("at mapped index 1: x must be positive, got -2.0 (`check` failed)\n"
                         "at mapped index 2: x must be positive, got -3.0 (`check` failed)")
    assert out.tolist() == [1.0, -2.0, -3.0]
    err, _ = jax.vmap(checkify.checkify(f))(jnp.array([1.0, 2.0]))
    assert err.get() is None
    err, _ = jax.vmap(jax.vmap(checkify.checkify(f)))(jnp.array([[1.0, -2.0], [-3.0, 4.0]]))
    assert err.get() == ("at mapped index 0, 1: x must be positive, got -2.0 (`check` failed)\n"
                         "at mapped index 1, 0: x must be positive, got -3.0 (`check` failed)")
