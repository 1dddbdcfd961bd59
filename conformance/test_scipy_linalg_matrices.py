"""Conformance: ``jax.scipy.linalg``'s special matrices and matrix functions
(SPEC SLA-30 .. SLA-35, SLA-40 .. SLA-44).

References come from SciPy (float64) or from identities computed here;
float32 results are compared with float32 tolerances.
"""
import importlib
import warnings

import numpy as np
import pytest
import scipy.linalg as sl

F32 = dict(rtol=2e-5, atol=2e-5)


@pytest.fixture(scope="module")
def linalg(jax):
    return importlib.import_module(jax.__name__ + ".scipy.linalg")


@pytest.fixture(scope="module")
def check_grads(jax):
    return importlib.import_module(jax.__name__ + ".test_util").check_grads


def rand(shape, dtype=np.float32, seed=0, scale=1.0):
    rng = np.random.RandomState(seed)
    x = rng.randn(*shape) * scale
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.randn(*shape) * scale
    return x.astype(dtype)


def close(got, want, **tol):
    np.testing.assert_allclose(np.asarray(got), want, **(tol or F32))


def weak(x):
    return x.weak_type


# ---------------------------------------------------------------------------
# SLA-30: toeplitz and hankel
# ---------------------------------------------------------------------------

@pytest.mark.spec("SLA-30")
def test_toeplitz_values_dtypes_and_batches(jnp, linalg):
    c, r = rand((3,)), rand((4,), seed=1)
    out = linalg.toeplitz(jnp.asarray(c), jnp.asarray(r))
    assert out.dtype == np.float32 and not weak(out)
    close(out, sl.toeplitz(c, r))
    cc = rand((3,), np.complex64)
    close(linalg.toeplitz(jnp.asarray(cc)), sl.toeplitz(cc))          # r = conj(c)
    ints = linalg.toeplitz(jnp.asarray([1, 2, 3]), jnp.asarray([7, 8]))
    assert ints.dtype == np.int32
    np.testing.assert_array_equal(ints, sl.toeplitz([1, 2, 3], [7, 8]))
    mixed = linalg.toeplitz(jnp.ones(3, jnp.int32), jnp.ones(2, jnp.float32))
    assert mixed.dtype == np.float32 and mixed.shape == (3, 2)
    scalar = linalg.toeplitz(1.0)
    assert scalar.shape == (1, 1) and not weak(scalar)
    batch_c = rand((2, 3))
    out = linalg.toeplitz(jnp.asarray(batch_c), jnp.asarray(r))
    assert out.shape == (2, 3, 4)
    for k in range(2):
        close(out[k], sl.toeplitz(batch_c[k], r))
    assert linalg.toeplitz(jnp.ones((0,)), jnp.ones((3,))).shape == (0, 3)


@pytest.mark.spec("SLA-30")
def test_toeplitz_spreads_infinities_like_a_one_hot_convolution(jnp, linalg):
    c = np.array([1.0, np.inf, 2.0], np.float32)
    got = np.asarray(linalg.toeplitz(jnp.asarray(c)))
    # Entry (i, j) is the dot product of a window of (reversed c, c[1:]) with
    # a one-hot vector picking the entry: inf * 0 contributes NaN.
    diagonals = np.concatenate([c[::-1], c[1:]])
    want = np.empty((3, 3), np.float32)
    with np.errstate(invalid="ignore"):
        for i in range(3):
            for j in range(3):
                window = diagonals[2 - i:2 - i + 3]
                want[i, j] = np.dot(window, np.eye(3, dtype=np.float32)[j])
    np.testing.assert_array_equal(got, want)


@pytest.mark.spec("SLA-30")
def test_hankel_values_and_errors(jnp, linalg):
    c, r = rand((3,)), rand((4,), seed=1)
    close(linalg.hankel(jnp.asarray(c), jnp.asarray(r)), sl.hankel(c, r))
    close(linalg.hankel(jnp.asarray(c)), sl.hankel(c))
    out = linalg.hankel(jnp.asarray(rand((2, 3))), jnp.asarray(r))
    assert out.shape == (2, 3, 4)
    with pytest.raises(ValueError, match="c must be at least 1-dimensional"):
        linalg.hankel(1.0)
    with pytest.raises(ValueError, match="r must be at least 1-dimensional"):
        linalg.hankel(jnp.ones(3), 1.0)
    for fun in (linalg.toeplitz, linalg.hankel):
        with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
            fun([1.0, 2.0])


# ---------------------------------------------------------------------------
# SLA-31: circulant, leslie, companion, fiedler, fiedler_companion
# ---------------------------------------------------------------------------

@pytest.mark.spec("SLA-31")
def test_vector_built_matrices_match_scipy(jnp, linalg):
    c = rand((4,))
    close(linalg.circulant(jnp.asarray(c)), sl.circulant(c))
    assert weak(linalg.circulant(2.0))
    f, s = rand((4,)), rand((3,), seed=1)
    close(linalg.leslie(jnp.asarray(f), jnp.asarray(s)), sl.leslie(f, s))
    a = rand((5,)) + 3
    close(linalg.companion(jnp.asarray(a)), sl.companion(a))
    assert linalg.companion(jnp.asarray([1, 2, 3])).dtype == np.float32
    ints = linalg.fiedler(jnp.asarray([1, 4, 12, 45]))
    assert ints.dtype == np.int32
    np.testing.assert_array_equal(ints, sl.fiedler([1, 4, 12, 45]))
    for n in (2, 5):
        a = rand((n,), seed=n) + 3
        close(linalg.fiedler_companion(jnp.asarray(a)), sl.fiedler_companion(a), rtol=1e-5, atol=1e-5)
    assert linalg.fiedler_companion(jnp.ones((3, 1))).shape == (3, 0, 0)


@pytest.mark.spec("SLA-31")
def test_vector_built_matrices_errors(jnp, linalg):
    with pytest.raises(ValueError, match="length of f along the last axis"):
        linalg.leslie(jnp.array([1.0]), jnp.array([]))
    with pytest.raises(ValueError, match="Incorrect lengths for f and s"):
        linalg.leslie(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.5]))
    with pytest.raises(ValueError, match="length of `a` along the last axis"):
        linalg.companion(jnp.zeros((3, 1)))
    with pytest.raises(ValueError, match="nonzero"):
        linalg.fiedler_companion(jnp.ones((0,)))
    with pytest.raises(TypeError):
        linalg.fiedler(jnp.array([True, False]))
    for fun in (linalg.circulant, linalg.companion, linalg.fiedler):
        with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
            fun([1.0, 2.0])


# ---------------------------------------------------------------------------
# SLA-32: convolution_matrix and block_diag
# ---------------------------------------------------------------------------

@pytest.mark.spec("SLA-32")
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolution_matrix_convolves(jnp, linalg, mode):
    for m, n in [(1, 3), (3, 2), (3, 5), (4, 4)]:
        a = rand((m,), seed=m)
        out = linalg.convolution_matrix(jnp.asarray(a), n, mode)
        close(out, sl.convolution_matrix(a, n, mode))
        v = rand((n,), seed=7)
        close(out @ v, np.convolve(a, v, mode))
    batch = rand((2, 3))
    out = linalg.convolution_matrix(jnp.asarray(batch), 4, mode)
    for k in range(2):
        close(out[k], sl.convolution_matrix(batch[k], 4, mode))


@pytest.mark.spec("SLA-32")
def test_convolution_matrix_errors(jnp, linalg):
    a = jnp.array([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="n must be a positive integer"):
        linalg.convolution_matrix(a, 0)
    with pytest.raises(TypeError):
        linalg.convolution_matrix(a, 2.0)
    with pytest.raises(ValueError, match="mode must be one of"):
        linalg.convolution_matrix(a, 3, mode="bad")
    with pytest.raises(ValueError, match=r"len\(a\) must be at least 1"):
        linalg.convolution_matrix(jnp.zeros((2, 0)), 3)
    with pytest.raises(ValueError, match="must be at least 1-dimensional"):
        linalg.convolution_matrix(jnp.array(5.0), 3)
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
        linalg.convolution_matrix([1.0, 2.0], 3)


@pytest.mark.spec("SLA-32")
def test_block_diag(jnp, linalg):
    args = (np.ones((2, 2), np.float32), np.arange(3, dtype=np.int32), np.float32(5))
    out = linalg.block_diag(*map(jnp.asarray, args))
    assert out.dtype == np.float32
    close(out, sl.block_diag(*args))
    ints = linalg.block_diag(1, 2)
    assert ints.dtype == np.int32
    np.testing.assert_array_equal(ints, np.eye(2) * [1, 2])
    empty = linalg.block_diag()
    assert empty.shape == (1, 0) and empty.dtype == np.float32
    with pytest.raises(ValueError, match="must have at most 2 dimensions"):
        linalg.block_diag(jnp.ones((2, 2, 2)))


# ---------------------------------------------------------------------------
# SLA-33: hilbert, invhilbert, pascal, invpascal
# ---------------------------------------------------------------------------

@pytest.mark.spec("SLA-33")
def test_hilbert_and_pascal_values(linalg):
    for n in (0, 5):
        close(linalg.hilbert(n), sl.hilbert(n))
        close(linalg.invhilbert(n), sl.invhilbert(n), rtol=1e-3, atol=1e-3)
        for kind in ("symmetric", "lower", "upper"):
            close(linalg.pascal(n, kind), sl.pascal(n, kind, exact=False), rtol=1e-4, atol=1e-3)
            close(linalg.invpascal(n, kind), sl.invpascal(n, kind, exact=False),
                  rtol=1e-4, atol=1e-3)
    close(linalg.pascal(5), sl.pascal(5, exact=False), rtol=1e-5)
    # Identities: each pair multiplies to the identity.
    close(np.asarray(linalg.hilbert(4), np.float64) @ np.asarray(linalg.invhilbert(4), np.float64),
          np.eye(4), atol=5e-3)
    close(np.asarray(linalg.pascal(5)) @ np.asarray(linalg.invpascal(5)), np.eye(5), atol=1e-3)


@pytest.mark.spec("SLA-33")
def test_hilbert_and_pascal_dtypes_and_errors(jax, linalg, x64):
    assert linalg.hilbert(3).dtype == np.float64
    assert linalg.invhilbert(3).dtype == np.float64
    assert linalg.invpascal(3).dtype == np.float64
    assert linalg.pascal(3).dtype == np.float32     # float32 even under x64
    close(linalg.invhilbert(5), sl.invhilbert(5), rtol=1e-9)
    with pytest.raises(ValueError, match="Expected kind to be on of"):
        linalg.pascal(3, kind="bad")
    with pytest.raises(ValueError, match="Expected kind to be one of"):
        linalg.invpascal(3, kind="bad")
    with pytest.raises(TypeError):
        linalg.invhilbert(3, exact=True)
    with pytest.raises(TypeError):
        linalg.hilbert(-1)
    assert linalg.pascal(-1).shape == (0, 0)


@pytest.mark.spec("SLA-33")
def test_order_matrices_default_dtypes_x32(linalg):
    for m in (linalg.hilbert(3), linalg.invhilbert(3), linalg.pascal(3), linalg.invpascal(3)):
        assert m.dtype == np.float32 and not weak(m)


# ---------------------------------------------------------------------------
# SLA-34: helmert, hadamard, dft
# ---------------------------------------------------------------------------

@pytest.mark.spec("SLA-34")
def test_helmert_hadamard_dft_values(jnp, linalg):
    for n in (1, 2, 5):
        for full in (False, True):
            out = linalg.helmert(n, full=full)
            assert out.dtype == np.float32
            close(out, sl.helmert(n, full=full))
    for n in (1, 2, 8):
        out = linalg.hadamard(n)
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out, sl.hadamard(n))
    assert linalg.hadamard(4, dtype=jnp.float32).dtype == np.float32
    for n in (0, 1, 5):
        for scale in (None, "sqrtn", "n"):
            out = linalg.dft(n, scale)
            assert out.dtype == np.complex64
            close(out, sl.dft(n, scale), atol=1e-5)
    assert linalg.dft(4, dtype=jnp.complex64).dtype == np.complex64


@pytest.mark.spec("SLA-34")
def test_helmert_hadamard_dft_errors_and_x64(jnp, linalg, x64):
    assert linalg.helmert(3).dtype == np.float64
    assert linalg.hadamard(2).dtype == np.int64
    assert linalg.dft(3).dtype == np.complex128
    close(linalg.dft(6, "sqrtn"), sl.dft(6, "sqrtn"), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="n must be a positive integer"):
        linalg.helmert(0)
    for n in (0, 3, -4):
        with pytest.raises(ValueError, match="positive power of 2"):
            linalg.hadamard(n)
    with pytest.raises(ValueError, match="scale must be"):
        linalg.dft(4, scale="bad")
    with pytest.raises(ValueError, match="dtype must be a complex"):
        linalg.dft(4, dtype=jnp.float32)


@pytest.mark.spec("SLA-34")
def test_dft_wide_dtype_under_x32_warns(jnp, linalg):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = linalg.dft(3, dtype=jnp.complex128)
    assert out.dtype == np.complex64
    assert any("complex128" in str(w.message) for w in caught)


# ---------------------------------------------------------------------------
# SLA-35: special matrices under jit, vmap and grad
# ---------------------------------------------------------------------------

@pytest.mark.spec("SLA-35")
def test_special_matrices_under_vmap_and_jit(jax, jnp, linalg):
    v = jnp.asarray(rand((2, 4)))
    loops = {
        "toeplitz": (lambda x: linalg.toeplitz(x, x[::-1]), (v,)),
        "hankel": (linalg.hankel, (v,)),
        "circulant": (linalg.circulant, (v,)),
        "leslie": (linalg.leslie, (v, v[:, 1:])),
        "companion": (linalg.companion, (v,)),
        "fiedler": (linalg.fiedler, (v,)),
        "fiedler_companion": (linalg.fiedler_companion, (v,)),
        "convolution_matrix": (lambda x: linalg.convolution_matrix(x, 3, "same"), (v,)),
        "block_diag": (linalg.block_diag, (v, v[:, :2])),
    }
    for name, (fun, args) in loops.items():
        batched = jax.vmap(fun)(*args)
        looped = np.stack([np.asarray(fun(*[a[k] for a in args])) for k in range(2)])
        close(batched, looped)
        if name in ("toeplitz", "companion", "block_diag"):
            close(jax.jit(fun)(*[a[0] for a in args]), looped[0])
    close(jax.jit(linalg.hilbert, static_argnums=0)(3), sl.hilbert(3))


@pytest.mark.spec("SLA-35")
def test_special_matrices_are_differentiable(jnp, linalg, check_grads):
    c, r = jnp.asarray(rand((3,))), jnp.asarray(rand((4,), seed=1))
    check_grads(linalg.toeplitz, (c, r), order=1, modes=("fwd", "rev"))
    check_grads(linalg.hankel, (c, r), order=1, modes=("fwd", "rev"))
    check_grads(linalg.companion, (c + 3,), order=1, modes=("fwd", "rev"))
    check_grads(lambda x: linalg.convolution_matrix(x, 3), (c,), order=1, modes=("rev",))


# ---------------------------------------------------------------------------
# SLA-40: expm
# ---------------------------------------------------------------------------

def _scaled(shape, dtype, norm, seed=0):
    a = rand(shape, dtype, seed)
    return (a / np.linalg.norm(a, 1) * norm).astype(dtype)


@pytest.mark.spec("SLA-40")
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_expm_matches_scipy_over_norms(jnp, linalg, dtype):
    for norm in (0.01, 0.4, 1.0, 3.0, 30.0):       # every Padé degree and squaring
        a = _scaled((4, 4), dtype, norm)
        out = linalg.expm(jnp.asarray(a))
        assert out.dtype == dtype
        want = sl.expm(a.astype(np.complex128 if dtype == np.complex64 else np.float64))
        close(out, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    tri = np.triu(_scaled((4, 4), dtype, 2.0))
    close(linalg.expm(jnp.asarray(tri), upper_triangular=True), sl.expm(tri), rtol=1e-4, atol=1e-4)


@pytest.mark.spec("SLA-40")
def test_expm_x64_batches_and_dtypes(jnp, linalg, x64):
    for norm in (0.1, 1.5, 50.0):
        a = _scaled((5, 5), np.float64, norm, seed=3)
        close(linalg.expm(jnp.asarray(a)), sl.expm(a), rtol=1e-12, atol=1e-12 * np.abs(sl.expm(a)).max())
    stack = rand((2, 3, 3, 3), np.float64) * 0.3
    out = linalg.expm(jnp.asarray(stack))
    assert out.shape == stack.shape
    close(out[1, 2], sl.expm(stack[1, 2]), rtol=1e-12)
    assert linalg.expm(jnp.eye(2, dtype=jnp.int64)).dtype == np.float64
    assert linalg.expm(jnp.eye(2, dtype=jnp.int32)).dtype == np.float32


@pytest.mark.spec("SLA-40")
def test_expm_limits_and_errors(jnp, linalg):
    assert linalg.expm(jnp.eye(3, dtype=jnp.int32)).dtype == np.float32
    assert bool(np.isnan(np.asarray(linalg.expm(jnp.eye(2) * 1e3, max_squarings=2))).all())
    assert np.isfinite(np.asarray(linalg.expm(jnp.eye(2) * 10.0, max_squarings=3))).all()
    assert linalg.expm(jnp.ones((0, 0))).shape == (0, 0)
    with pytest.raises(TypeError, match="A.dtype=float16 is not supported"):
        linalg.expm(jnp.eye(2, dtype=jnp.float16))
    for shape in [(3,), (2, 3)]:
        with pytest.raises(ValueError, match="Expected A to be a \\(batched\\) square matrix"):
            linalg.expm(jnp.ones(shape))
    with pytest.raises(TypeError):
        linalg.expm([[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.spec("SLA-40")
def test_expm_derivatives(jax, jnp, linalg, check_grads):
    for norm in (0.3, 8.0):
        a = jnp.asarray(_scaled((3, 3), np.float32, norm, seed=5))
        check_grads(linalg.expm, (a,), order=1, modes=("fwd", "rev"), atol=0.02, rtol=0.02)
    # jvp against a central difference of SciPy's expm, in float64.
    a = _scaled((3, 3), np.float32, 2.0, seed=6)
    e = rand((3, 3), seed=7)
    _, tangent = jax.jvp(linalg.expm, (jnp.asarray(a),), (jnp.asarray(e),))
    h = 1e-6
    a64, e64 = a.astype(np.float64), e.astype(np.float64)
    fd = (sl.expm(a64 + h * e64) - sl.expm(a64 - h * e64)) / (2 * h)
    close(tangent, fd, rtol=1e-3, atol=1e-3 * np.abs(fd).max())
    g = jax.grad(lambda x: linalg.expm(x).sum())(jnp.asarray(a))
    close(np.sum(np.asarray(g) * e), fd.sum(), rtol=1e-3)


@pytest.mark.spec("SLA-40")
def test_expm_complex_derivatives(jax, jnp, linalg, check_grads):
    a = jnp.asarray(_scaled((3, 3), np.complex64, 1.5, seed=8))
    check_grads(linalg.expm, (a,), order=1, modes=("rev",), atol=0.02, rtol=0.02)


# ---------------------------------------------------------------------------
# SLA-41: expm_frechet
# ---------------------------------------------------------------------------

@pytest.mark.spec("SLA-41")
def test_expm_frechet_matches_scipy(jnp, linalg):
    for norm in (0.4, 1.0, 3.0):
        a, e = _scaled((4, 4), np.float32, norm), rand((4, 4), seed=2)
        expm_a, frechet = linalg.expm_frechet(jnp.asarray(a), jnp.asarray(e))
        want_expm, want = sl.expm_frechet(a.astype(np.float64), e.astype(np.float64))
        close(expm_a, want_expm, rtol=1e-4, atol=1e-4)
        close(frechet, want, rtol=1e-3, atol=1e-3 * np.abs(want).max())
        alone = linalg.expm_frechet(jnp.asarray(a), jnp.asarray(e), compute_expm=False,
                                    method="SPS")
        close(alone, np.asarray(frechet))
    stack = jnp.asarray(rand((2, 3, 3)))
    out = linalg.expm_frechet(stack, stack)
    assert out[0].shape == out[1].shape == (2, 3, 3)


@pytest.mark.spec("SLA-41")
def test_expm_frechet_errors(jnp, linalg):
    with pytest.raises(ValueError, match="expected A and E to be the same shape"):
        linalg.expm_frechet(jnp.eye(3), jnp.eye(2))
    with pytest.raises(ValueError, match="expected A to be a \\(batched\\) square matrix"):
        linalg.expm_frechet(jnp.ones(3), jnp.eye(2))
    with pytest.raises(ValueError, match="expected E to be a \\(batched\\) square matrix"):
        linalg.expm_frechet(jnp.eye(3), jnp.ones((3, 2)))
    # JAX 0.10.2 compares A.shape[-2] with A.shape[1].
    with pytest.raises(ValueError, match="expected A to be a \\(batched\\) square matrix"):
        linalg.expm_frechet(jnp.ones((2, 3, 4, 4)), jnp.ones((2, 3, 4, 4)))
    assert linalg.expm_frechet(jnp.ones((2, 4, 4, 4)), jnp.ones((2, 4, 4, 4)))[1].shape == (2, 4, 4, 4)
    with pytest.raises(TypeError):
        linalg.expm_frechet(jnp.eye(3, dtype=jnp.int32), jnp.eye(3, dtype=jnp.int32))
    with pytest.raises(TypeError):
        linalg.expm_frechet(jnp.eye(3, dtype=jnp.complex64), jnp.eye(3))


# ---------------------------------------------------------------------------
# SLA-42: sqrtm
# ---------------------------------------------------------------------------

@pytest.mark.spec("SLA-42")
def test_sqrtm_values(jnp, linalg):
    b = rand((4, 4))
    psd = b @ b.T + np.eye(4, dtype=np.float32)
    out = linalg.sqrtm(jnp.asarray(psd))
    assert out.dtype == np.complex64
    close(out, sl.sqrtm(psd.astype(np.float64)), rtol=1e-4, atol=1e-4)
    general = rand((5, 5), seed=4)
    root = np.asarray(linalg.sqrtm(jnp.asarray(general)))
    close(root @ root, general, atol=2e-4)
    c = rand((3, 3), np.complex64, seed=5)
    root = np.asarray(linalg.sqrtm(jnp.asarray(c)))
    assert root.dtype == np.complex64
    close(root @ root, c, atol=2e-4)
    for diag, want in [([1, 0, 0], [1, 0, 0]), ([0, 0, 9, 0, 0, 4], [0, 0, 3, 0, 0, 2])]:
        close(linalg.sqrtm(jnp.diag(jnp.asarray(diag, jnp.float32))), np.diag(want))
    assert linalg.sqrtm(jnp.eye(3, dtype=jnp.int32)).dtype == np.complex64


@pytest.mark.spec("SLA-42")
def test_sqrtm_x64_and_errors(jax, jnp, linalg, x64):
    b = rand((4, 4), np.float64)
    psd = b @ b.T + np.eye(4)
    out = linalg.sqrtm(jnp.asarray(psd))
    assert out.dtype == np.complex128
    close(out, sl.sqrtm(psd), rtol=1e-9, atol=1e-9)
    with pytest.raises(NotImplementedError, match="Blocked version"):
        linalg.sqrtm(jnp.eye(3), blocksize=2)
    with pytest.raises(TypeError):
        linalg.sqrtm(2.0)
    with pytest.raises(ValueError):
        linalg.sqrtm(jnp.ones((2, 3)))
    with pytest.raises(ValueError):
        linalg.sqrtm(jnp.ones((2, 3, 3)))
    with pytest.raises(NotImplementedError):
        jax.grad(lambda x: linalg.sqrtm(x).real.sum())(jnp.asarray(psd))


# ---------------------------------------------------------------------------
# SLA-43: funm
# ---------------------------------------------------------------------------

def _power(x):
    return x ** -2.718


@pytest.mark.spec("SLA-43")
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_funm_matches_scipy(jnp, linalg, dtype):
    a = rand((5, 5), dtype, seed=11) + 3 * np.eye(5, dtype=dtype)
    out = linalg.funm(jnp.asarray(a), _power)
    assert out.dtype == np.complex64
    want = sl.funm(a, _power)
    close(out, want, rtol=1e-4, atol=1e-5)
    out, err = linalg.funm(jnp.asarray(a), _power, disp=False)
    want, want_err = sl.funm(a, _power, disp=False)
    close(out, want, rtol=1e-4, atol=1e-5)
    assert err.shape == () and err.dtype == np.float32
    close(err, want_err, rtol=1e-3)
    close(linalg.funm(jnp.asarray(a), jnp.exp), sl.expm(a.astype(np.complex128)), rtol=1e-4, atol=1e-3)


@pytest.mark.spec("SLA-43")
def test_funm_x64_inputs_and_errors(jnp, linalg, x64):
    a = rand((4, 4), np.float64, seed=12)
    out, err = linalg.funm(jnp.asarray(a), jnp.sin, disp=False)
    want, want_err = sl.funm(a, np.sin, disp=False)
    assert out.dtype == np.complex128 and err.dtype == np.float64
    close(out, want, rtol=1e-9, atol=1e-10)
    close(err, want_err, rtol=1e-6)
    close(linalg.funm([[1.0, 2.0], [3.0, 4.0]], jnp.exp), sl.expm([[1.0, 2.0], [3.0, 4.0]]),
          rtol=1e-9)
    with pytest.raises(ValueError, match="expected square array_like input"):
        linalg.funm(jnp.ones((2, 3)), jnp.exp)
    with pytest.raises(ValueError, match="expected square array_like input"):
        linalg.funm(jnp.ones((2, 3, 3)), jnp.exp)
    with pytest.raises(TypeError):
        linalg.funm(jnp.eye(3, dtype=jnp.int32), jnp.exp)


# ---------------------------------------------------------------------------
# SLA-44: matrix functions under jit and vmap
# ---------------------------------------------------------------------------

@pytest.mark.spec("SLA-44")
def test_matrix_functions_under_jit_and_vmap(jax, jnp, linalg):
    stack = rand((2, 3, 3), seed=13)
    stack = stack @ np.swapaxes(stack, 1, 2) + np.eye(3, dtype=np.float32)
    cases = {
        "expm": lambda x: linalg.expm(x / 4),
        "frechet": lambda x: linalg.expm_frechet(x / 4, x, compute_expm=False),
        "sqrtm": linalg.sqrtm,
        "funm": lambda x: linalg.funm(x, jnp.sqrt),
    }
    for name, fun in cases.items():
        looped = np.stack([np.asarray(fun(jnp.asarray(m))) for m in stack])
        close(jax.vmap(fun)(jnp.asarray(stack)), looped, rtol=1e-4, atol=1e-4)
        if name in ("expm", "funm"):
            close(jax.jit(fun)(jnp.asarray(stack[0])), looped[0], rtol=1e-4, atol=1e-4)


@pytest.mark.spec("SLA-35")
def test_orders_beyond_the_default_integer_overflow(jax, jnp):
    linalg = importlib.import_module(jax.__name__ + ".scipy.linalg")
    for build in (lambda: linalg.invhilbert(2**40), lambda: linalg.dft(2**70)):
        with pytest.raises(OverflowError):
            build()
