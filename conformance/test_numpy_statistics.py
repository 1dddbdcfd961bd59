"""Conformance: histograms, ``digitize``, ``interp``, ``gradient``,
``trapezoid``, ``unwrap``, ``piecewise``, ``cov`` and ``corrcoef``
(SPEC NPE-5 .. NPE-11).

References are NumPy's functions in float64, compared with float32
tolerances; derivatives are checked numerically with ``check_grads``.
Data avoid values on float32 bin edges, where rounding may differ.
"""
import importlib

import numpy as np
import pytest

F32 = dict(rtol=2e-5, atol=2e-6)
RNG = np.random.default_rng(0)
DATA = RNG.normal(size=40).astype(np.float32)


@pytest.fixture(scope="module")
def check_grads(jax):
    return importlib.import_module(jax.__name__ + ".test_util").check_grads


def close(got, want, dtype=np.float32, **tol):
    got = np.asarray(got)
    np.testing.assert_allclose(got, want, **(tol or F32))
    if dtype is not None:
        assert got.dtype == np.dtype(dtype), got.dtype


# -- NPE-5 ----------------------------------------------------------------------

@pytest.mark.spec("NPE-5")
@pytest.mark.parametrize("bins", [1, 7, np.array([-3., -1., 0.5, 2., 3.])])
@pytest.mark.parametrize("density", [False, True])
def test_histogram_matches_numpy(jnp, bins, density):
    counts, edges = jnp.histogram(DATA, bins, density=density)
    want_counts, want_edges = np.histogram(DATA.astype(np.float64), bins, density=density)
    close(edges, want_edges)
    close(counts, want_counts)
    weights = np.abs(DATA)
    counts, _ = jnp.histogram(DATA, bins, weights=weights, density=density)
    close(counts, np.histogram(DATA, bins, weights=weights, density=density)[0])


@pytest.mark.spec("NPE-5")
def test_histogram_bin_edges(jnp):
    close(jnp.histogram_bin_edges(DATA, 5), np.histogram_bin_edges(DATA, 5))
    close(jnp.histogram_bin_edges(np.int32([4, 4]), 4), np.histogram_bin_edges([4, 4], 4))
    close(jnp.histogram_bin_edges(DATA, 4, range=(-2, 2)),
          np.histogram_bin_edges(DATA, 4, range=(-2, 2)))
    assert jnp.histogram_bin_edges(np.arange(4), 3).dtype == np.float32
    with pytest.raises(NotImplementedError, match="string values for `bins`"):
        jnp.histogram_bin_edges(DATA, "auto")
    with pytest.raises(ValueError, match="`range` must be"):
        jnp.histogram_bin_edges(DATA, 3, range=(1, 2, 3))
    with pytest.raises(TypeError):
        jnp.histogram_bin_edges(DATA, 3.5)
    with pytest.raises(ValueError, match="weights should have the same shape as a"):
        jnp.histogram(DATA, 3, weights=np.ones(3))


@pytest.mark.spec("NPE-5")
def test_histogramdd_and_histogram2d_match_numpy(jnp):
    sample = RNG.normal(size=(30, 3)).astype(np.float32)
    bins = [2, 3, np.array([-2., 0.5, 2.])]
    rng = [(-2, 2), None, None]
    hist, edges = jnp.histogramdd(sample, bins, range=rng)
    want, want_edges = np.histogramdd(sample, bins, range=rng)
    close(hist, want, np.int32)
    for e, w in zip(edges, want_edges):
        close(e, w)
    dens, _ = jnp.histogramdd(sample, 4, density=True)
    close(dens, np.histogramdd(sample, 4, density=True)[0])
    x, y = sample[:, 0], sample[:, 1]
    hist, xe, ye = jnp.histogram2d(x, y, bins=(3, 4), weights=np.abs(x))
    want, wxe, wye = np.histogram2d(x, y, bins=(3, 4), weights=np.abs(x))
    close(hist, want)
    close(xe, wxe)
    close(ye, wye)
    edges = np.array([-3., 0.25, 3.])
    close(jnp.histogram2d(x, y, bins=edges)[0], np.histogram2d(x, y, bins=edges)[0],
          np.int32)
    with pytest.raises(ValueError, match="should be a bin for each dimension"):
        jnp.histogramdd(sample, [2, 3])
    with pytest.raises(ValueError, match="range must be a sequence of 3 pairs"):
        jnp.histogramdd(sample, range=[(0, 1)])


@pytest.mark.spec("NPE-5")
def test_histogram_under_jit_and_grad(jax, jnp, check_grads):
    want = np.histogram(DATA, 6)
    got = jax.jit(lambda a: jnp.histogram(a, 6))(DATA)
    close(got[0], want[0])
    close(got[1], want[1])
    weights = np.abs(DATA)
    check_grads(lambda w: jnp.histogram(DATA, 6, weights=w)[0], (weights,), order=1,
                modes=["fwd", "rev"])


# -- NPE-6 ----------------------------------------------------------------------

@pytest.mark.spec("NPE-6")
@pytest.mark.parametrize("right", [False, True])
def test_digitize_matches_numpy(jax, jnp, right):
    x = np.array([-1., 0., 0.2, 1., 2.5, 3., 10., 11.], np.float32)
    rising = np.array([0., 1., 2.5, 4., 10.], np.float32)
    for bins in (rising, rising[::-1].copy()):
        got = jnp.digitize(x, bins, right=right)
        np.testing.assert_array_equal(np.asarray(got), np.digitize(x, bins, right=right))
        assert got.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(jnp.digitize(x, np.zeros(0))), np.zeros(8))
    got = jax.vmap(lambda b: jnp.digitize(x, b))(np.stack([rising, rising + 1]))
    np.testing.assert_array_equal(np.asarray(got),
                                  [np.digitize(x, rising), np.digitize(x, rising + 1)])
    with pytest.raises(ValueError, match="bins must be a 1-dimensional array"):
        jnp.digitize(x, np.ones((2, 2)))


@pytest.mark.spec("NPE-6")
def test_interp_matches_numpy(jnp):
    xp = np.array([0., 1., 1.5, 4.], np.float32)
    fp = np.array([2., -1., 3., 0.], np.float32)
    x = np.linspace(-1, 5, 23).astype(np.float32)
    close(jnp.interp(x, xp, fp), np.interp(x, xp, fp))
    close(jnp.interp(x, xp, fp, left=-7, right=9), np.interp(x, xp, fp, left=-7, right=9))
    xs = np.array([-180, -170, -185, 185, -10, -5, 0, 365], np.float32)
    xps = np.array([190, -190, 350, -350], np.float32)
    fps = np.array([5, 10, 3, 4], np.float32)
    close(jnp.interp(xs, xps, fps, period=360), np.interp(xs, xps, fps, period=360))
    fpc = fp + 1j * fp[::-1]
    close(jnp.interp(x, xp, fpc), np.interp(x, xp, fpc), np.complex64)
    # 'extrapolate' continues the end segments.
    ext = jnp.interp(np.float32([-1., 5.]), xp, fp, left="extrapolate", right="extrapolate")
    close(ext, [2. + 3. * 1, 0. + (0. - 3.) / 2.5 * 1])
    with pytest.raises(ValueError, match="the only valid string value of `left`"):
        jnp.interp(x, xp, fp, left="nope")
    with pytest.raises(ValueError, match="one-dimensional arrays of equal size"):
        jnp.interp(x, xp, fp[:3])
    with pytest.raises(ValueError, match="complex x values not supported"):
        jnp.interp(x + 1j, xp, fp)


@pytest.mark.spec("NPE-6")
def test_interp_grad_and_vmap(jax, jnp, check_grads):
    xp = np.array([0., 1., 1.5, 4.], np.float32)
    fp = np.array([2., -1., 3., 0.], np.float32)
    x = np.array([0.3, 1.2, 2.0, 3.9], np.float32)
    check_grads(jnp.interp, (x, xp, fp), order=1, modes=["fwd", "rev"], eps=1e-3)
    rows = np.stack([x, x + 0.05])
    got = jax.vmap(jnp.interp, in_axes=(0, None, None))(rows, xp, fp)
    close(got, np.stack([np.interp(r, xp, fp) for r in rows]))


# -- NPE-7 ----------------------------------------------------------------------

@pytest.mark.spec("NPE-7")
def test_gradient_matches_numpy(jnp):
    f = (np.arange(20, dtype=np.float32).reshape(4, 5) ** 2) / 7
    for got, want in zip(jnp.gradient(f), np.gradient(f)):
        close(got, want)
    close(jnp.gradient(f, axis=1), np.gradient(f, axis=1))
    for got, want in zip(jnp.gradient(f, 2., 0.5), np.gradient(f, 2., 0.5)):
        close(got, want)
    coords = np.array([0., 0.5, 2., 2.5, 4.], np.float32)
    close(jnp.gradient(f, coords, axis=-1), np.gradient(f, coords, axis=-1))
    assert jnp.gradient(np.arange(4)).dtype == np.float32
    assert jnp.gradient(f, axis=()) == []


@pytest.mark.spec("NPE-7")
def test_gradient_errors(jnp):
    f = np.arange(6.).reshape(2, 3)
    with pytest.raises(ValueError, match="at least 2 elements are required"):
        jnp.gradient(np.ones((1, 3)))
    with pytest.raises(NotImplementedError, match="'edge_order'"):
        jnp.gradient(f, edge_order=1)
    with pytest.raises(TypeError, match="Invalid number of spacing arguments 3"):
        jnp.gradient(f, 1., 2., 3.)
    with pytest.raises(ValueError, match="Spacing arrays must have the same length"):
        jnp.gradient(f, np.ones(4), axis=1)
    with pytest.raises(ValueError, match="1D arrays or scalars"):
        jnp.gradient(f, np.ones((3, 3)), axis=1)


# -- NPE-8 ----------------------------------------------------------------------

@pytest.mark.spec("NPE-8")
def test_trapezoid_matches_numpy(jnp, check_grads):
    y = RNG.normal(size=(3, 5)).astype(np.float32)
    x = np.cumsum(RNG.uniform(0.1, 1, size=5)).astype(np.float32)
    close(jnp.trapezoid(y), np.trapezoid(y))
    close(jnp.trapezoid(y, dx=0.3, axis=0), np.trapezoid(y, dx=0.3, axis=0))
    close(jnp.trapezoid(y, x), np.trapezoid(y, x))
    x2 = np.cumsum(np.abs(y), axis=0)
    close(jnp.trapezoid(y, x2, axis=0), np.trapezoid(y, x2, axis=0))
    assert jnp.trapezoid(np.arange(4)).dtype == np.float32
    check_grads(lambda a: jnp.trapezoid(a, x), (y,), order=2, modes=["fwd", "rev"])


@pytest.mark.spec("NPE-8")
def test_unwrap_matches_numpy(jnp):
    p = np.cumsum(RNG.uniform(-4, 4, size=(3, 12)), axis=1).astype(np.float32)
    close(jnp.unwrap(p), np.unwrap(p), rtol=1e-5, atol=1e-5)
    close(jnp.unwrap(p, axis=0), np.unwrap(p, axis=0), rtol=1e-5, atol=1e-5)
    close(jnp.unwrap(p, discont=4.), np.unwrap(p, discont=4.), rtol=1e-5, atol=1e-5)
    ints = np.array([0, 1, 6, 7, 13, 14, 2, -3], np.int32)
    got = jnp.unwrap(ints, period=6)
    np.testing.assert_array_equal(np.asarray(got), np.unwrap(ints, period=6))
    assert got.dtype == np.int32
    with pytest.raises(ValueError, match="does not support complex inputs"):
        jnp.unwrap(np.array([1j]))


# -- NPE-9 ----------------------------------------------------------------------

@pytest.mark.spec("NPE-9")
def test_piecewise_matches_numpy(jnp):
    x = np.linspace(-2.5, 2.5, 11).astype(np.float32)
    conds = [x < -1, x > 1]
    for funcs in ([lambda v: -v, lambda v: v * 2], [lambda v: -v, 7., lambda v: v ** 2],
                  [3., 4.]):
        close(jnp.piecewise(x, conds, funcs), np.piecewise(x, conds, funcs))
    xi = np.arange(6, dtype=np.int32)
    got = jnp.piecewise(xi, [xi < 2], [lambda v: v * 2.5, 7])
    np.testing.assert_array_equal(np.asarray(got), np.piecewise(xi, [xi < 2], [lambda v: v * 2.5, 7]))
    assert got.dtype == np.int32
    close(jnp.piecewise(x, [x > 0], [lambda v, a, b=0: v * a + b], 3., b=1.),
          np.piecewise(x, [x > 0], [lambda v, a, b=0: v * a + b], 3., b=1.))
    with pytest.raises(ValueError, match="either 2 or 3 functions are expected; got 1"):
        jnp.piecewise(x, conds, [1.])


@pytest.mark.spec("NPE-9")
def test_piecewise_under_transforms(jax, jnp):
    def f(v):
        return jnp.piecewise(v, [v < 0], [lambda t: t ** 2, lambda t: 3 * t])
    x = np.array([-2., -0.5, 0.5, 2.], np.float32)
    close(jax.jit(f)(x), np.where(x < 0, x ** 2, 3 * x))
    close(jax.vmap(jax.grad(lambda t: f(t)))(x), np.where(x < 0, 2 * x, 3.))


# -- NPE-10 / NPE-11 --------------------------------------------------------------

M = RNG.normal(size=(3, 6)).astype(np.float32)


@pytest.mark.spec("NPE-10")
def test_cov_matches_numpy(jnp):
    fw = np.array([1, 2, 1, 3, 1, 2], np.int32)
    aw = RNG.uniform(0.2, 2, size=6).astype(np.float32)
    close(jnp.cov(M), np.cov(M))
    close(jnp.cov(M, rowvar=False), np.cov(M, rowvar=False))
    close(jnp.cov(M, bias=True), np.cov(M, bias=True))
    close(jnp.cov(M[0], M[1]), np.cov(M[0], M[1]))
    close(jnp.cov(M, ddof=2, fweights=fw), np.cov(M, ddof=2, fweights=fw))
    close(jnp.cov(M, aweights=aw), np.cov(M, aweights=aw))
    close(jnp.cov(M, fweights=fw, aweights=aw), np.cov(M, fweights=fw, aweights=aw))
    close(jnp.cov(M, fweights=fw, aweights=aw, ddof=0),
          np.cov(M, fweights=fw, aweights=aw, ddof=0))
    c = M[:2] + 1j * M[1:]
    close(jnp.cov(c), np.cov(c), np.complex64)
    assert jnp.cov(M[0]).shape == ()
    assert jnp.cov(np.ones((0, 3))).shape == (0, 0)
    assert np.isnan(np.asarray(jnp.cov(np.ones((2, 0))))).all()
    assert jnp.cov(np.arange(6)).dtype == np.float32
    assert jnp.cov(M, dtype=np.float16).dtype == np.float16


@pytest.mark.spec("NPE-10")
def test_cov_errors(jnp):
    with pytest.raises(TypeError, match="fweights must be integer"):
        jnp.cov(M, fweights=np.ones(6, np.float32))
    with pytest.raises(RuntimeError, match="incompatible numbers of samples and fweights"):
        jnp.cov(M, fweights=np.ones(5, np.int32))
    with pytest.raises(RuntimeError, match="cannot handle multidimensional aweights"):
        jnp.cov(M, aweights=np.ones((6, 1)))
    with pytest.raises(ValueError, match="m has more than 2 dimensions"):
        jnp.cov(np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="dtype must be a subclass of float or complex"):
        jnp.cov(M, dtype=np.int32)


@pytest.mark.spec("NPE-11")
def test_corrcoef_matches_numpy(jax, jnp, check_grads):
    close(jnp.corrcoef(M), np.corrcoef(M))
    close(jnp.corrcoef(M[0], M[2]), np.corrcoef(M[0], M[2]))
    close(jnp.corrcoef(M, rowvar=False), np.corrcoef(M, rowvar=False))
    c = M[:2] + 1j * M[1:]
    close(jnp.corrcoef(c), np.corrcoef(c), np.complex64)
    close(jnp.corrcoef(M[0]), 1.0)
    assert np.isnan(np.asarray(jnp.corrcoef(np.ones(4, np.float32))))
    close(jax.jit(jnp.corrcoef)(M), np.corrcoef(M))
    check_grads(lambda m: jnp.corrcoef(m)[0, 1], (M.astype(np.float32),), order=1,
                modes=["rev"], atol=2e-2, rtol=2e-2)
    with pytest.raises(TypeError, match="corrcoef requires ndarray or scalar arguments"):
        jnp.corrcoef([1., 2.])


@pytest.mark.spec("NPE-10")
def test_statistics_x64(jnp, x64):
    m64 = M.astype(np.float64)
    got = jnp.cov(m64)
    assert got.dtype == np.float64
    np.testing.assert_allclose(np.asarray(got), np.cov(m64), rtol=1e-12)
    counts, edges = jnp.histogram(m64.ravel(), 4)
    assert counts.dtype == edges.dtype == np.float64
    assert jnp.interp(np.float64([0.5]), np.float64([0, 1]), np.float64([0, 2])).dtype == np.float64
