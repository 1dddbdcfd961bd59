"""Conformance: ``jax.scipy.fft``, ``integrate``, ``cluster``, ``ndimage`` and
``interpolate`` (SPEC SIG-10 .. SIG-15).

References come from SciPy (``scipy.fft``, ``scipy.integrate``,
``scipy.cluster.vq``, ``scipy.ndimage``, ``scipy.interpolate``) or from the
formulas of the clauses, computed here in float64.
"""
import importlib
import itertools

import numpy as np
import pytest
import scipy.cluster.vq as osp_vq
import scipy.fft as osp_fft
import scipy.integrate as osp_integrate
import scipy.interpolate as osp_interpolate
import scipy.ndimage as osp_ndimage

F32 = dict(rtol=2e-5, atol=2e-5)


def sub(jax, name):
    return importlib.import_module(f"{jax.__name__}.scipy.{name}")


@pytest.fixture(scope="module")
def check_grads(jax):
    return importlib.import_module(jax.__name__ + ".test_util").check_grads


def rand(*shape, seed=0, dtype=np.float32):
    return np.random.RandomState(seed).standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------------------
# DCT (SIG-10, SIG-11)
# ---------------------------------------------------------------------------

@pytest.mark.spec("SIG-10")
@pytest.mark.parametrize("norm", ["backward", "ortho"])
@pytest.mark.parametrize("n, axis", [(None, -1), (3, -1), (8, 0)])
def test_dct_idct_match_scipy(jax, norm, n, axis):
    fft = sub(jax, "fft")
    x = rand(5, 6)
    for name in ("dct", "idct"):
        out = getattr(fft, name)(x, n=n, axis=axis, norm=norm)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, getattr(osp_fft, name)(x, n=n, axis=axis, norm=norm),
                                   **F32)


@pytest.mark.spec("SIG-10")
def test_dct_definition_and_inverse(jax):
    fft = sub(jax, "fft")
    x = rand(7).astype(np.float64)
    j, k = np.arange(7)[None, :], np.arange(7)[:, None]
    expected = 2 * (np.cos(np.pi * k * (2 * j + 1) / 14) * x).sum(1)
    np.testing.assert_allclose(fft.dct(x.astype(np.float32)), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fft.idct(fft.dct(x.astype(np.float32))), x, rtol=1e-5, atol=1e-5)


@pytest.mark.spec("SIG-10")
def test_dct_dtypes_and_errors(jax, jnp):
    fft = sub(jax, "fft")
    for dtype in (jnp.int32, jnp.float16, jnp.bfloat16):
        assert fft.dct(jnp.ones(4, dtype)).dtype == np.float32
        assert fft.idct(jnp.ones(4, dtype)).dtype == np.float32
    z = (rand(6) + 1j * rand(6, seed=1)).astype(np.complex64)
    out = fft.dct(z, n=7)
    assert out.dtype == np.complex64
    np.testing.assert_allclose(out, osp_fft.dct(z, n=7), **F32)
    with pytest.raises(NotImplementedError, match="Only DCT type 2"):
        fft.dct(jnp.ones(4), type=3)
    with pytest.raises(ValueError, match="norm='forward' is not implemented"):
        fft.idct(jnp.ones(4), norm="forward")
    with pytest.raises(TypeError, match="dct requires ndarray or scalar arguments"):
        fft.dct([1.0, 2.0])


@pytest.mark.spec("SIG-10")
def test_dct_x64(jax, jnp, x64):
    fft = sub(jax, "fft")
    assert fft.dct(jnp.ones(4, jnp.float64)).dtype == np.float64
    assert fft.idct(jnp.arange(4)).dtype == np.float64


@pytest.mark.spec("SIG-10")
def test_dct_transformations(jax, jnp, check_grads):
    fft = sub(jax, "fft")
    x = jnp.asarray(rand(3, 6))
    check_grads(lambda v: fft.dct(v, norm="ortho"), (x,), order=1, modes=["fwd", "rev"],
                atol=1e-2, rtol=1e-2)
    check_grads(fft.idct, (x,), order=1, modes=["rev"], atol=1e-2, rtol=1e-2)
    np.testing.assert_allclose(jax.vmap(fft.dct)(x), osp_fft.dct(np.asarray(x)), **F32)
    np.testing.assert_allclose(jax.jit(fft.idct)(x), osp_fft.idct(np.asarray(x)), **F32)


@pytest.mark.spec("SIG-11")
@pytest.mark.parametrize("s, axes", [((4, 7), None), (None, (0, 2)), ((3, 5), (2, 0)),
                                     (5, None)])
@pytest.mark.parametrize("norm", [None, "ortho"])
def test_dctn_idctn_match_scipy(jax, s, axes, norm):
    fft = sub(jax, "fft")
    x = rand(3, 4, 5)
    for name in ("dctn", "idctn"):
        np.testing.assert_allclose(getattr(fft, name)(x, s=s, axes=axes, norm=norm),
                                   getattr(osp_fft, name)(x, s=s, axes=axes, norm=norm),
                                   rtol=1e-4, atol=1e-4)


@pytest.mark.spec("SIG-11")
def test_dctn_errors_and_empty_axes(jax, jnp):
    fft = sub(jax, "fft")
    x = jnp.ones((2, 3), jnp.int32)
    with pytest.raises(ValueError, match=r"s must have at most x.ndim \(2\) elements, got 3"):
        fft.dctn(x, s=(1, 2, 3))
    with pytest.raises(ValueError, match="repeated axis"):
        fft.idctn(x, axes=(0, 0))
    with pytest.raises(ValueError):
        fft.dctn(x, axes=(5,))
    same = fft.dctn(x, axes=())
    assert same.dtype == np.int32 and same.shape == (2, 3)


# ---------------------------------------------------------------------------
# trapezoid (SIG-12) and vq (SIG-13)
# ---------------------------------------------------------------------------

@pytest.mark.spec("SIG-12")
def test_trapezoid(jax, jnp, check_grads):
    integrate = sub(jax, "integrate")
    y, x = rand(3, 10), np.cumsum(np.abs(rand(10, seed=1)))
    np.testing.assert_allclose(integrate.trapezoid(y, dx=0.5),
                               osp_integrate.trapezoid(y, dx=0.5), **F32)
    np.testing.assert_allclose(integrate.trapezoid(y, x), osp_integrate.trapezoid(y, x), **F32)
    np.testing.assert_allclose(integrate.trapezoid(y.T, x, axis=0),
                               osp_integrate.trapezoid(y.T, x, axis=0), **F32)
    assert integrate.trapezoid(jnp.arange(5)).dtype == np.float32
    check_grads(integrate.trapezoid, (jnp.asarray(y[0]), jnp.asarray(x)), order=1,
                modes=["rev"], atol=1e-2, rtol=1e-2)


@pytest.mark.spec("SIG-13")
def test_vq_matches_scipy(jax, jnp):
    vq_mod = importlib.import_module(jax.__name__ + ".scipy.cluster.vq")
    cluster = importlib.import_module(jax.__name__ + ".scipy.cluster")
    assert cluster.vq is vq_mod
    obs, book = rand(9, 3), rand(4, 3, seed=2)
    code, dist = vq_mod.vq(obs, book)
    ref_code, ref_dist = osp_vq.vq(obs, book)
    np.testing.assert_array_equal(code, ref_code)
    np.testing.assert_allclose(dist, ref_dist, **F32)
    assert code.dtype == np.int32 and dist.dtype == np.float32
    code, dist = vq_mod.vq(jnp.arange(5), jnp.asarray([0, 2]))
    np.testing.assert_array_equal(code, [0, 0, 1, 1, 1])     # ties go to the first
    np.testing.assert_allclose(dist, [0, 1, 0, 1, 2])
    with pytest.raises(ValueError, match="should have the same rank"):
        vq_mod.vq(obs, book[0])
    with pytest.raises(ValueError, match="ndim different than 1 or 2"):
        vq_mod.vq(jnp.ones((2, 2, 2)), jnp.ones((2, 2, 2)))
    with pytest.raises(TypeError):
        vq_mod.vq([[1.0]], book)


@pytest.mark.spec("SIG-13")
def test_vq_transformations(jax, jnp):
    vq = importlib.import_module(jax.__name__ + ".scipy.cluster.vq").vq
    obs, book = jnp.asarray(rand(2, 6, 3)), jnp.asarray(rand(4, 3, seed=3))
    codes, dists = jax.vmap(vq, in_axes=(0, None))(obs, book)
    for i in range(2):
        code, dist = vq(obs[i], book)
        np.testing.assert_array_equal(codes[i], code)
        np.testing.assert_allclose(dists[i], dist, **F32)
    grad = jax.grad(lambda o: vq(o, book)[1].sum())(obs[0])
    nearest = book[np.asarray(vq(obs[0], book)[0])]
    expected = (obs[0] - nearest) / np.linalg.norm(obs[0] - nearest, axis=1, keepdims=True)
    np.testing.assert_allclose(grad, expected, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------
# map_coordinates (SIG-14)
# ---------------------------------------------------------------------------

def _fixed_index(index, size, mode):
    """Where SIG-14 sends an out-of-range index (None: use cval)."""
    if 0 <= index < size:
        return index
    if mode == "constant":
        return None
    if mode == "nearest":
        return min(max(index, 0), size - 1)
    if mode == "wrap":
        return index % size
    if mode == "mirror":
        period = 2 * (size - 1)
        i = index % period
        return period - i if i >= size else i
    period = 2 * size                                   # reflect
    i = index % period
    return period - 1 - i if i >= size else i


def _reference(image, coords, order, mode, cval):
    out = []
    for point in zip(*coords):
        if order == 0:
            nodes = [[(int(np.sign(c) * np.floor(abs(c) + 0.5)), 1.0)] for c in point]
        else:
            nodes = [[(int(np.floor(c)), 1 - (c - np.floor(c))),
                      (int(np.floor(c)) + 1, c - np.floor(c))] for c in point]
        total = 0.0
        for corner in itertools.product(*nodes):
            idx = [_fixed_index(i, s, mode) for (i, _), s in zip(corner, image.shape)]
            value = cval if None in idx else image[tuple(idx)]
            total += np.prod([w for _, w in corner]) * value
        out.append(total)
    return np.asarray(out)


@pytest.mark.spec("SIG-14")
@pytest.mark.parametrize("mode", ["constant", "nearest", "wrap", "mirror", "reflect"])
@pytest.mark.parametrize("order", [0, 1])
def test_map_coordinates_modes(jax, mode, order):
    ndimage = sub(jax, "ndimage")
    image = rand(4, 5).astype(np.float64)
    coords = [np.linspace(-5.3, 8.2, 11), np.linspace(6.7, -4.1, 11)]
    out = ndimage.map_coordinates(image.astype(np.float32),
                                  [c.astype(np.float32) for c in coords], order,
                                  mode=mode, cval=1.5)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, _reference(image, coords, order, mode, 1.5),
                               rtol=1e-4, atol=1e-4)
    inside = [np.linspace(0, 3, 7), np.linspace(0.2, 3.9, 7)]
    np.testing.assert_allclose(
        ndimage.map_coordinates(image, inside, order, mode=mode),
        osp_ndimage.map_coordinates(image, inside, order=order, mode=mode), **F32)


@pytest.mark.spec("SIG-14")
def test_map_coordinates_integers_and_errors(jax, jnp):
    ndimage = sub(jax, "ndimage")
    image = jnp.arange(12, dtype=jnp.int32).reshape(3, 4)
    out = ndimage.map_coordinates(image, [jnp.asarray([0.5, 1.5]), jnp.asarray([0.5, 2.5])], 1)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [3, 9])       # 2.5 and 8.5 round away from zero
    with pytest.raises(ValueError, match=r"sequence of length input.ndim, but 1 != 2"):
        ndimage.map_coordinates(image, [jnp.zeros(1)], 1)
    with pytest.raises(NotImplementedError, match="requires order<=1"):
        ndimage.map_coordinates(image, [jnp.zeros(1)] * 2, 3)
    with pytest.raises(NotImplementedError, match="does not yet support mode grid-wrap"):
        ndimage.map_coordinates(image, [jnp.zeros(1)] * 2, 1, mode="grid-wrap")


@pytest.mark.spec("SIG-14")
def test_map_coordinates_transformations(jax, jnp, check_grads):
    ndimage = sub(jax, "ndimage")
    image = jnp.asarray(rand(4, 4))
    coords = jnp.asarray(np.array([[0.3, 1.7, 2.2], [2.6, 0.4, 1.1]], np.float32))
    fun = lambda im, c: ndimage.map_coordinates(im, [c[0], c[1]], 1)     # noqa: E731
    check_grads(fun, (image, coords), order=1, modes=["fwd", "rev"], atol=1e-2, rtol=1e-2)
    batched = jax.vmap(fun, in_axes=(None, 0))(image, jnp.stack([coords, coords + 0.5]))
    np.testing.assert_allclose(batched[1], fun(image, coords + 0.5), **F32)
    np.testing.assert_allclose(jax.jit(fun)(image, coords), fun(image, coords), **F32)


# ---------------------------------------------------------------------------
# RegularGridInterpolator (SIG-15)
# ---------------------------------------------------------------------------

GRID = (np.array([0.0, 0.5, 1.5, 2.0]), np.array([-1.0, 0.0, 1.0, 3.0, 4.0]))


@pytest.mark.spec("SIG-15")
@pytest.mark.parametrize("method", ["linear", "nearest"])
@pytest.mark.parametrize("fill_value", [np.nan, None, -2.0])
def test_regular_grid_interpolator_matches_scipy(jax, method, fill_value):
    interpolate = sub(jax, "interpolate")
    values = rand(4, 5, 2)
    points = np.random.RandomState(1).uniform([-0.3, -1.5], [2.3, 4.5], (7, 2))
    ours = interpolate.RegularGridInterpolator(GRID, values, method=method,
                                               fill_value=fill_value)(points)
    theirs = osp_interpolate.RegularGridInterpolator(
        GRID, values.astype(np.float64), method=method, bounds_error=False,
        fill_value=fill_value)(points)
    assert ours.shape == (7, 2) and ours.dtype == np.float32
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


@pytest.mark.spec("SIG-15")
def test_regular_grid_interpolator_inputs_and_errors(jax, jnp):
    interpolate = sub(jax, "interpolate")
    rgi = interpolate.RegularGridInterpolator
    values = rand(4, 5)
    xs, ys = np.array([0.2, 1.0, 1.9]), np.array([0.5, -0.5, 3.5])
    expected = osp_interpolate.RegularGridInterpolator(GRID, values)((xs, ys))
    np.testing.assert_allclose(rgi(GRID, values)((xs, ys)), expected, **F32)
    np.testing.assert_allclose(rgi(GRID, values)(np.stack([xs, ys], -1), method="linear"),
                               expected, **F32)
    assert rgi(GRID, jnp.arange(20).reshape(4, 5))(np.zeros((1, 2))).dtype == np.float32
    with pytest.raises(ValueError, match="method 'cubic' is not defined"):
        rgi(GRID, values, method="cubic")
    with pytest.raises(ValueError, match="method 'cubic' is not defined"):
        rgi(GRID, values)(np.zeros((1, 2)), method="cubic")
    with pytest.raises(NotImplementedError, match="takes no effect under JIT"):
        rgi(GRID, values, bounds_error=True)
    with pytest.raises(ValueError, match="there are 3 point arrays, but values has 2"):
        rgi(GRID + (GRID[0],), values)
    with pytest.raises(ValueError, match="compatible with values"):
        rgi(GRID, values, fill_value=1j)
    with pytest.raises(ValueError, match="requested sample points xi have dimension"):
        rgi(GRID, values)(np.zeros((3, 3)))


@pytest.mark.spec("SIG-15")
def test_regular_grid_interpolator_is_a_pytree(jax, jnp, check_grads):
    rgi = sub(jax, "interpolate").RegularGridInterpolator
    values = jnp.asarray(rand(4, 5))
    interp = rgi(GRID, values)
    leaves, treedef = jax.tree_util.tree_flatten(interp)
    assert len(leaves) == 4                      # two grid arrays, values, fill value
    rebuilt = jax.tree_util.tree_unflatten(treedef, leaves)
    assert rebuilt.method == "linear"
    points = jnp.asarray(np.array([[0.3, 0.2], [1.8, 3.3]], np.float32))
    np.testing.assert_allclose(jax.jit(lambda f, p: f(p))(interp, points), interp(points),
                               **F32)
    batched = jax.vmap(lambda v: rgi(GRID, v)(points))(jnp.stack([values, 2 * values]))
    np.testing.assert_allclose(batched[1], 2 * interp(points), **F32)
    check_grads(lambda v, p: rgi(GRID, v)(p), (values, points), order=1,
                modes=["fwd", "rev"], atol=1e-2, rtol=1e-2)
