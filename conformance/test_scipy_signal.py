"""Conformance: ``jax.scipy.signal`` (SPEC SIG-1 .. SIG-9).

References come from SciPy's ``scipy.signal`` in float64 and are compared
with float32 tolerances; derivatives are checked numerically with
``jax.test_util.check_grads``.
"""
import importlib
import warnings

import numpy as np
import pytest
import scipy.signal as osp

F32 = dict(rtol=2e-5, atol=2e-5)


@pytest.fixture(scope="module")
def signal(jax):
    return importlib.import_module(jax.__name__ + ".scipy.signal")


@pytest.fixture(scope="module")
def check_grads(jax):
    return importlib.import_module(jax.__name__ + ".test_util").check_grads


def rand(*shape, seed=0, dtype=np.float32):
    return np.random.RandomState(seed).standard_normal(shape).astype(dtype)


def crand(*shape, seed=0):
    return (rand(*shape, seed=seed) + 1j * rand(*shape, seed=seed + 1)).astype(np.complex64)


# ---------------------------------------------------------------------------
# Convolutions (SIG-1 .. SIG-5)
# ---------------------------------------------------------------------------

@pytest.mark.spec("SIG-1")
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("shapes", [((7,), (3,)), ((3,), (6,)), ((4, 5), (2, 3))])
def test_convolve_and_correlate_match_scipy(signal, mode, shapes):
    a, b = rand(*shapes[0]), rand(*shapes[1], seed=1)
    for name in ("convolve", "correlate"):
        out = getattr(signal, name)(a, b, mode=mode)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, getattr(osp, name)(a, b, mode=mode), **F32)
    fft_out = signal.convolve(a, b, mode=mode, method="fft")
    np.testing.assert_allclose(fft_out, osp.convolve(a, b, mode=mode), **F32)


@pytest.mark.spec("SIG-1")
def test_correlate_conjugates_complex(signal):
    a, b = crand(6), crand(3, seed=5)
    for mode in ("full", "same", "valid"):
        np.testing.assert_allclose(signal.correlate(a, b, mode=mode),
                                   osp.correlate(a, b, mode=mode), **F32)


@pytest.mark.spec("SIG-1")
def test_convolve_errors(signal, jnp):
    x = jnp.ones(3)
    cases = [
        (dict(in1=x, in2=jnp.ones(2), mode="x"), "mode must be one of"),
        (dict(in1=x, in2=jnp.ones((2, 2))), "same number of dimensions"),
        (dict(in1=jnp.ones(0), in2=jnp.ones(2)), "zero-size arrays not supported"),
        (dict(in1=jnp.ones((3, 1)), in2=jnp.ones((2, 2))), "smaller than the other"),
        (dict(in1=x, in2=x, method="x"), "expected 'auto', 'fft', or 'direct'"),
    ]
    for kwargs, text in cases:
        with pytest.raises(ValueError, match=text):
            signal.convolve(**kwargs)


@pytest.mark.spec("SIG-2")
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_2d_match_scipy_complex(signal, mode):
    a, b = crand(4, 5), crand(2, 3, seed=7)
    for name in ("convolve2d", "correlate2d"):
        for x, y in ((a, b), (b, a), (a, a)):
            np.testing.assert_allclose(getattr(signal, name)(x, y, mode=mode),
                                       getattr(osp, name)(x, y, mode=mode), **F32)


@pytest.mark.spec("SIG-2")
def test_2d_errors(signal, jnp):
    with pytest.raises(NotImplementedError, match="boundary='fill', fillvalue=0"):
        signal.convolve2d(jnp.ones((2, 2)), jnp.ones((2, 2)), boundary="wrap")
    with pytest.raises(NotImplementedError, match=r"correlate2d\(\) only supports"):
        signal.correlate2d(jnp.ones((2, 2)), jnp.ones((2, 2)), fillvalue=1)
    with pytest.raises(ValueError, match="only supports 2-dimensional inputs"):
        signal.convolve2d(jnp.ones(3), jnp.ones(2))


@pytest.mark.spec("SIG-3")
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_fftconvolve_matches_scipy(signal, mode):
    a, b = rand(5, 6), rand(3, 2, seed=2)
    np.testing.assert_allclose(signal.fftconvolve(a, b, mode=mode),
                               osp.fftconvolve(a, b, mode=mode), **F32)
    np.testing.assert_allclose(signal.fftconvolve(a, rand(5, 3, seed=3), mode=mode, axes=1),
                               osp.fftconvolve(a, rand(5, 3, seed=3), mode=mode, axes=1),
                               **F32)
    c, d = crand(6), crand(4, seed=3)
    np.testing.assert_allclose(signal.fftconvolve(c, d, mode=mode),
                               osp.fftconvolve(c, d, mode=mode), **F32)


@pytest.mark.spec("SIG-3")
def test_fftconvolve_errors(signal, jnp):
    with pytest.raises(ValueError, match="should have the same dimensionality"):
        signal.fftconvolve(jnp.ones((2, 2)), jnp.ones(2))
    with pytest.raises(ValueError, match=r"mode must be one of \['same'"):
        signal.fftconvolve(jnp.ones(2), jnp.ones(2), mode="x")
    with pytest.raises(ValueError, match="at least as large as the other"):
        signal.fftconvolve(jnp.ones((3, 2)), jnp.ones((2, 3)), mode="valid")
    with pytest.raises(ValueError, match="mapped axes must have same shape"):
        signal.fftconvolve(jnp.ones((3, 4)), jnp.ones((2, 5)), axes=0)


@pytest.mark.spec("SIG-4")
def test_detrend_matches_scipy(signal, jnp):
    x = rand(4, 12)
    np.testing.assert_allclose(signal.detrend(x), osp.detrend(x), **F32)
    np.testing.assert_allclose(signal.detrend(x, axis=0, type="constant"),
                               osp.detrend(x, axis=0, type="constant"), **F32)
    np.testing.assert_allclose(signal.detrend(x, bp=[3, 7]), osp.detrend(x, bp=[3, 7]),
                               **F32)
    assert signal.detrend(jnp.arange(6)).dtype == np.float32
    with pytest.raises(ValueError, match="Breakpoints must be non-negative"):
        signal.detrend(x, bp=[20])
    with pytest.raises(ValueError, match="Trend type must be"):
        signal.detrend(x, type="quadratic")
    with pytest.raises(NotImplementedError):
        signal.detrend(x, overwrite_data=True)


@pytest.mark.spec("SIG-5")
def test_convolution_dtypes(signal, jnp, jax, x64):
    ints = jnp.arange(4, dtype=jnp.int32)
    assert signal.convolve(ints, ints).dtype == np.float32
    assert signal.convolve(jnp.ones(3, bool), jnp.ones(2, bool)).dtype == np.float32
    assert signal.convolve(jnp.arange(4), jnp.arange(2)).dtype == np.float64
    half = signal.convolve(jnp.ones(3, jnp.float16), jnp.ones(2, jnp.bfloat16))
    assert half.dtype == np.float32
    assert signal.convolve(jnp.ones(3, jnp.float32), jnp.ones(2, jnp.complex64)).dtype \
        == np.complex64
    weak = signal.fftconvolve(2.0, 3.0)
    assert weak.weak_type and float(weak) == 6.0
    assert signal.convolve(jnp.asarray(2.0), jnp.asarray(3.0)).weak_type


@pytest.mark.spec("SIG-5")
def test_convolution_transformations(signal, jax, jnp, check_grads):
    a, b = jnp.asarray(rand(8)), jnp.asarray(rand(3, seed=4))
    funs = {"fwd": lambda x, y: signal.convolve(x, y, mode="same"),
            "rev": lambda x, y: signal.correlate2d(x.reshape(2, 4), y[:2].reshape(1, 2)),
            "both": lambda x, y: signal.fftconvolve(x, y)}
    for mode, fun in funs.items():
        modes = ["fwd", "rev"] if mode == "both" else [mode]
        check_grads(fun, (a, b), order=1, modes=modes, atol=1e-2, rtol=1e-2)
        np.testing.assert_allclose(jax.jit(fun)(a, b), fun(a, b), **F32)
        batched = jax.vmap(fun)(jnp.stack([a, 2 * a]), jnp.stack([b, b]))
        np.testing.assert_allclose(batched[1], fun(2 * a, b), **F32)
    check_grads(lambda x: signal.detrend(x, bp=[3]), (a,), order=1, modes=["rev"],
                atol=1e-2, rtol=1e-2)


# ---------------------------------------------------------------------------
# Spectral analysis (SIG-6 .. SIG-9)
# ---------------------------------------------------------------------------

def _close_all(ours, theirs, **tol):
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(o), t, **(tol or F32))


@pytest.mark.spec("SIG-7")
@pytest.mark.parametrize("kwargs", [
    dict(nperseg=8),
    dict(nperseg=7, window="hamming", boundary="odd", detrend="linear"),
    dict(nperseg=8, noverlap=6, nfft=10, boundary="even", padded=False),
    dict(nperseg=8, boundary="constant", return_onesided=False, fs=10.0),
    dict(nperseg=8, boundary=None, window=np.hanning(8)),
])
def test_stft_matches_scipy(signal, kwargs):
    x = rand(2, 30)
    ours = signal.stft(x, **kwargs)
    _close_all(ours, osp.stft(x, **kwargs))
    assert ours[2].dtype == np.complex64 and ours[0].dtype == np.float32


@pytest.mark.spec("SIG-7")
def test_stft_x64_dtypes(signal, jnp, x64):
    freqs, times, zxx = signal.stft(jnp.arange(20.0), nperseg=8)
    assert (freqs.dtype, times.dtype, zxx.dtype) == (np.float64, np.float64, np.complex128)


@pytest.mark.spec("SIG-8")
@pytest.mark.parametrize("kwargs", [
    dict(nperseg=8),
    dict(nperseg=8, average="median", scaling="spectrum"),
    dict(nperseg=6, noverlap=2, nfft=9, window="blackman", detrend="linear"),
    dict(nperseg=8, return_onesided=False),
])
def test_welch_and_csd_match_scipy(signal, kwargs):
    x, y = rand(2, 40), rand(2, 40, seed=3)
    ours = signal.welch(x, **kwargs)
    _close_all(ours, osp.welch(x, **kwargs))
    assert ours[1].dtype == np.float32
    ours = signal.csd(x, y[:, :33], **kwargs)
    _close_all(ours, osp.csd(x, y[:, :33], **kwargs))
    assert ours[1].dtype == np.complex64


@pytest.mark.spec("SIG-8")
def test_welch_axis_and_single_segment(signal):
    x = rand(24, 3)
    _close_all(signal.welch(x, nperseg=8, axis=0), osp.welch(x, nperseg=8, axis=0))
    one = signal.welch(rand(2, 8), nperseg=8)
    _close_all(one, osp.welch(rand(2, 8), nperseg=8))
    with pytest.raises(ValueError, match='average must be "median" or "mean"'):
        signal.welch(rand(40), nperseg=8, average="mode")


@pytest.mark.spec("SIG-8")
def test_csd_complex_input_warns_twosided(signal):
    x, y = crand(32), rand(32, seed=2)
    with pytest.warns(UserWarning, match="switching to return_onesided=False"):
        ours = signal.csd(x, y, nperseg=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = osp.csd(x, y, nperseg=8)
    _close_all(ours, theirs)


@pytest.mark.spec("SIG-6")
def test_spectral_errors(signal, jnp):
    x = jnp.ones(32)
    cases = [
        (dict(nperseg=0), "nperseg must be a positive integer"),
        (dict(nperseg=8, noverlap=8), "noverlap must be less than nperseg"),
        (dict(nperseg=8, nfft=4), "nfft must be greater than or equal to nperseg"),
        (dict(nperseg=8, scaling="x"), "Unknown scaling: x"),
        (dict(nperseg=8, detrend="x"), "Trend type must be"),
        (dict(window=np.ones(40)), "window is longer than input signal"),
        (dict(window=np.ones(8), nperseg=6), "different from length of window"),
    ]
    for kwargs, text in cases:
        with pytest.raises(ValueError, match=text):
            signal.welch(x, **kwargs)
    with pytest.raises(ValueError, match="Unknown boundary option"):
        signal.stft(x, nperseg=8, boundary="x")
    with pytest.warns(UserWarning, match="greater than input_length"):
        freqs, _ = signal.welch(jnp.ones(6), nperseg=8)
    assert freqs.shape == (4,)


@pytest.mark.spec("SIG-6")
@pytest.mark.spec("SIG-16")
def test_spectral_empty_and_callable_detrend(signal, jnp):
    freqs, pxx = signal.welch(jnp.zeros((0,)))
    assert freqs.shape == pxx.shape == (0,) and pxx.dtype == np.float32
    x = rand(32)
    _close_all(signal.welch(x, nperseg=8, detrend=False),
               osp.welch(x, nperseg=8, detrend=False))
    seen = []

    def identity(d):
        seen.append(d.shape)
        return d
    _close_all(signal.welch(x, nperseg=8, detrend=identity),
               osp.welch(x, nperseg=8, detrend=False))
    # As JAX: the callable sees the segments with the signal's axis moved last.
    assert seen == [(8, 7)]


@pytest.mark.spec("SIG-9")
@pytest.mark.parametrize("kwargs", [
    dict(nperseg=8),
    dict(nperseg=8, noverlap=6, window="hamming"),
    dict(nperseg=8, boundary=False),
])
def test_istft_inverts_stft(signal, kwargs):
    x = rand(2, 32)
    stft_kwargs = {k: v for k, v in kwargs.items() if k != "boundary"}
    if kwargs.get("boundary") is False:
        stft_kwargs.update(boundary=None, padded=False)
    zxx = osp.stft(x, **stft_kwargs)[2].astype(np.complex64)
    ours = signal.istft(zxx, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # SciPy: NOLA without a boundary
        theirs = osp.istft(zxx, **kwargs)
    _close_all(ours, theirs, rtol=1e-4, atol=1e-5)
    assert ours[1].dtype == np.float32


@pytest.mark.spec("SIG-9")
def test_istft_axes_twosided_and_errors(signal, jnp):
    x = rand(3, 32)
    zxx = osp.stft(x, nperseg=8, return_onesided=False)[2].astype(np.complex64)
    moved = np.moveaxis(zxx, (1, 2), (2, 0))          # (time, batch, freq)
    ours = signal.istft(moved, nperseg=8, input_onesided=False, time_axis=0, freq_axis=2)
    theirs = osp.istft(moved, nperseg=8, input_onesided=False, time_axis=0, freq_axis=2)
    np.testing.assert_allclose(np.real(ours[1]), np.real(theirs[1]), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="at least 2d"):
        signal.istft(jnp.ones(4))
    with pytest.raises(ValueError, match="differing time and frequency axes"):
        signal.istft(jnp.ones((4, 4)), time_axis=0, freq_axis=0)
    with pytest.raises(ValueError, match=r"FFT length \(4\) must be longer than nperseg"):
        signal.istft(jnp.ones((5, 4)), nperseg=8, nfft=4)
    with pytest.raises(ValueError, match="noverlap must be less than nperseg"):
        signal.istft(jnp.ones((5, 4)), nperseg=8, noverlap=8)


@pytest.mark.spec("SIG-9")
def test_spectral_transformations(signal, jax, jnp, check_grads):
    x = jnp.asarray(rand(24))
    welch = lambda v: signal.welch(v, nperseg=8)[1]        # noqa: E731
    stft = lambda v: signal.stft(v, nperseg=8)[2]          # noqa: E731
    for fun, mode in ((welch, "rev"), (stft, "fwd")):
        check_grads(fun, (x,), order=1, modes=[mode], atol=1e-2, rtol=1e-2)
        np.testing.assert_allclose(jax.jit(fun)(x), fun(x), **F32)
        np.testing.assert_allclose(jax.vmap(fun)(jnp.stack([x, 2 * x]))[1], fun(2 * x),
                                   rtol=1e-4, atol=1e-4)
    zxx = stft(x)
    inverse = lambda z: signal.istft(z, nperseg=8)[1]     # noqa: E731
    np.testing.assert_allclose(jax.jit(inverse)(zxx), inverse(zxx), **F32)
    np.testing.assert_allclose(jax.vmap(inverse)(jnp.stack([zxx, zxx]))[1], inverse(zxx),
                               **F32)
    tangent = jax.jvp(inverse, (zxx,), (zxx,))[1]
    np.testing.assert_allclose(tangent, inverse(zxx), **F32)    # istft is linear


@pytest.mark.spec("SIG-16")
def test_istft_uses_nfft_as_given(signal):
    x = rand(30)
    zxx = osp.stft(x, nperseg=7)[2].astype(np.complex64)     # 4 one-sided bins
    with pytest.raises(TypeError):          # 6-point segments against a 7-point window
        signal.istft(zxx, nperseg=7)
    ours = signal.istft(zxx, nperseg=7, nfft=7)
    _close_all(ours, osp.istft(zxx, nperseg=7, nfft=7), rtol=1e-4, atol=1e-5)
