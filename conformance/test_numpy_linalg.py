"""Conformance: jax.numpy.linalg and jax.lax.linalg (SPEC NP-60 .. NP-69), and
jax.numpy.fft (SPEC NP-70).

Values are checked against NumPy in float64 (``x64``) and with float32
tolerances; factorisations whose signs are not unique are checked by
reconstruction.  Error messages were recorded from JAX 0.10.2.  Derivatives
are checked with the implementation's ``check_grads`` (orders 1 and 2,
forward and reverse) at fixed well-conditioned inputs.  The jnp.fft tests
compare with numpy.fft and check gradients against central differences.
"""
import importlib

import numpy as np
import pytest

R = np.random.RandomState(7)
SQ = R.randn(2, 3, 3) + 3 * np.eye(3)          # well-conditioned square stack
TALL = R.randn(2, 4, 3)
WIDE = R.randn(3, 4)
SPD = SQ @ np.swapaxes(SQ, -1, -2) + np.eye(3)  # Hermitian positive definite
CSQ = SQ + 1j * R.randn(2, 3, 3)
CHPD = CSQ @ np.conj(np.swapaxes(CSQ, -1, -2)) + np.eye(3)
RHS = R.randn(2, 3, 2)
VEC = R.randn(3)


@pytest.fixture(scope="session")
def lax_linalg(jax):
    return importlib.import_module(jax.__name__ + ".lax.linalg")


def close(got, want, tol=1e-10, dtype=None):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if dtype is not None:
        assert str(got.dtype) == dtype, got.dtype
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def raises(exc, match, fn):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == match, str(info.value)


def _H(x):
    return np.conj(np.swapaxes(x, -1, -2))


# ---------------------------------------------------------------------------
# Norms
# ---------------------------------------------------------------------------

VECTOR_ORDS = [None, 2, 1, 0, np.inf, -np.inf, 3, 0.5, -1]
MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


@pytest.mark.spec("NP-60")
@pytest.mark.parametrize("ord", VECTOR_ORDS)
def test_vector_norm_values(jnp, x64, ord):
    for x in (TALL, TALL + 1j * TALL[::-1]):
        close(jnp.linalg.norm(x, ord, axis=1), np.linalg.norm(x, ord, axis=1))
        close(jnp.linalg.norm(x, ord, axis=-1, keepdims=True),
              np.linalg.norm(x, ord, axis=-1, keepdims=True))
        close(jnp.linalg.vector_norm(x, ord=2 if ord is None else ord, axis=0),
              np.linalg.vector_norm(x, ord=2 if ord is None else ord, axis=0))


@pytest.mark.spec("NP-60")
def test_vector_norm_float32_and_defaults(jnp):
    x = np.array([3., 4., 12.], np.float32)
    close(jnp.linalg.norm(x), 13., tol=1e-6, dtype="float32")
    close(jnp.linalg.norm(x, ord=0), 3., dtype="float32")
    close(jnp.linalg.norm(np.arange(3)), np.sqrt(5.), tol=1e-6, dtype="float32")
    close(jnp.linalg.vector_norm(np.arange(3), ord=1), 3, dtype="int32")
    close(jnp.linalg.norm(np.ones((2, 3, 4), np.float32)), np.sqrt(24.), tol=1e-6)
    close(jnp.linalg.vector_norm(np.ones((2, 3), np.float32), ord=0.5), 36., tol=1e-5)
    close(jnp.linalg.vector_norm(np.zeros((0,), np.float32), ord=np.inf), 0.)


@pytest.mark.spec("NP-60")
def test_vector_norm_errors(jnp):
    x1, x3 = np.ones(3), np.ones((2, 3, 4))
    raises(ValueError, "Invalid order 'inf' for vector norm.Use 'jax.numpy.inf' instead.",
           lambda: jnp.linalg.norm(x1, ord="inf"))
    raises(ValueError, "Invalid order '-inf' for vector norm.Use '-jax.numpy.inf' instead.",
           lambda: jnp.linalg.norm(x1, ord="-inf"))
    raises(ValueError, "Invalid order 'nuc' for vector norm.",
           lambda: jnp.linalg.norm(x1, ord="nuc"))
    raises(ValueError, "Invalid order 'fro' for vector norm.",
           lambda: jnp.linalg.vector_norm(x1, ord="fro"))
    msg = ("Improper number of axes for norm: axis=(0, 1, 2). Pass one axis to compute "
           "a vector-norm, or two axes to compute a matrix-norm.")
    raises(ValueError, msg, lambda: jnp.linalg.norm(x3, ord=2))
    raises(ValueError, msg, lambda: jnp.linalg.norm(x3, axis=(0, 1, 2)))
    raises(ValueError, "duplicate value in 'axis': (0, 0)",
           lambda: jnp.linalg.norm(np.ones((2, 3)), axis=(0, 0)))
    raises(ValueError, "axis 5 is out of bounds for array of dimension 2",
           lambda: jnp.linalg.norm(np.ones((2, 3)), axis=5))


@pytest.mark.spec("NP-60")
def test_norm_gradient_at_zero_is_nan(jax, jnp):
    g = np.asarray(jax.grad(jnp.linalg.norm)(jnp.zeros(2)))
    assert g.shape == (2,) and np.isnan(g).all(), g


@pytest.mark.spec("NP-61")
@pytest.mark.parametrize("ord", MATRIX_ORDS)
def test_matrix_norm_values(jnp, x64, ord):
    for x in (TALL, TALL + 1j * TALL[::-1]):
        close(jnp.linalg.norm(x, ord, axis=(1, 2)), np.linalg.norm(x, ord, axis=(1, 2)))
        close(jnp.linalg.norm(x, ord, axis=(2, 0), keepdims=True),
              np.linalg.norm(x, ord, axis=(2, 0), keepdims=True))
        want = np.linalg.matrix_norm(x, ord="fro" if ord is None else ord)
        close(jnp.linalg.matrix_norm(x, ord="fro" if ord is None else ord), want)


@pytest.mark.spec("NP-61")
def test_matrix_norm_float32_and_errors(jnp):
    x = np.array([[1., 2., 3.], [4., 5., 7.]], np.float32)
    close(jnp.linalg.norm(x), np.linalg.norm(x), tol=1e-6, dtype="float32")
    close(jnp.linalg.norm(x, "nuc"), np.linalg.norm(x, "nuc"), tol=1e-5, dtype="float32")
    close(jnp.linalg.norm(x, 2), np.linalg.norm(x, 2), tol=1e-5, dtype="float32")
    assert jnp.linalg.matrix_norm(np.ones((2, 3, 4)), ord="nuc", keepdims=True).shape == (2, 1, 1)
    raises(ValueError, "Invalid order '3' for matrix norm.",
           lambda: jnp.linalg.norm(x, ord=3, axis=(0, 1)))
    raises(ValueError, "axis -2 is out of bounds for array of dimension 1",
           lambda: jnp.linalg.matrix_norm(np.ones(3)))


# ---------------------------------------------------------------------------
# svd
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-62")
def test_svd(jnp, x64):
    for x in (TALL, np.swapaxes(TALL, -1, -2), TALL + 1j * TALL[::-1]):
        s = jnp.linalg.svd(x, compute_uv=False)
        close(s, np.linalg.svd(x, compute_uv=False))
        close(jnp.linalg.svdvals(x), np.linalg.svd(x, compute_uv=False))
        u, s, vh = jnp.linalg.svd(x, full_matrices=False)
        close(u @ (s[..., :, None] * vh), x)
        res = jnp.linalg.svd(x)
        m, n = x.shape[-2:]
        assert res.U.shape == x.shape[:-2] + (m, m) and res.Vh.shape == x.shape[:-2] + (n, n)
        close(_H(np.asarray(res.U)) @ np.asarray(res.U), np.broadcast_to(np.eye(m), res.U.shape))
        assert res.S.dtype == np.float64


@pytest.mark.spec("NP-62")
def test_svd_hermitian_and_rank(jnp, x64):
    h = SPD[0] - 6 * np.eye(3)
    u, s, vh = jnp.linalg.svd(h, hermitian=True)
    close(s, np.linalg.svd(h, compute_uv=False))
    close(u @ (s[:, None] * vh), h)
    assert int(jnp.linalg.matrix_rank(TALL[0])) == 3
    assert int(jnp.linalg.matrix_rank(np.array([[1, 0], [0, 0]]))) == 1


@pytest.mark.spec("NP-62")
def test_svd_errors_and_jaxpr(jax, jnp, lax_linalg):
    raises(TypeError, "Input 0 to svd must have rank at least 2, but got shape=(3,)",
           lambda: jnp.linalg.svd(np.ones(3)))
    raises(TypeError, "svd does not accept dtype int32 at position 0. Accepted dtypes at "
           "position 0 are subtypes of floating, complexfloating.",
           lambda: lax_linalg.svd(np.ones((2, 3), np.int32)))
    text = str(jax.make_jaxpr(lambda x: jnp.linalg.svd(x, compute_uv=False))(np.ones((3, 2), np.float32)))
    assert "svd[" in text and "compute_uv=False" in text and "full_matrices=True" in text
    assert lax_linalg.svd_p.name == "svd"
    assert str(jnp.linalg.matrix_rank(TALL.astype(np.float32)).dtype) == "int32"
    u, s, vh = lax_linalg.svd(np.ones((3, 2), np.float32))
    assert (u.shape, s.shape, vh.shape) == ((3, 3), (2,), (2, 2))


@pytest.mark.spec("NP-62")
def test_svd_full_matrices_jvp_not_implemented(jax, jnp):
    with pytest.raises(NotImplementedError) as info:
        jax.jvp(jnp.linalg.svd, (TALL[0],), (TALL[0],))
    assert str(info.value) == "Singular value decomposition JVP not implemented for full matrices"


# ---------------------------------------------------------------------------
# det, slogdet, solve, inv, lu
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-63")
def test_det_slogdet_inv_solve(jnp, x64):
    for a in (SQ, CSQ):
        close(jnp.linalg.det(a), np.linalg.det(a))
        sign, logdet = jnp.linalg.slogdet(a)
        want_sign, want_log = np.linalg.slogdet(a)
        close(sign, want_sign)
        close(logdet, want_log)
        close(jnp.linalg.inv(a), np.linalg.inv(a))
        close(jnp.linalg.solve(a, RHS), np.linalg.solve(a, RHS))
        close(jnp.linalg.solve(a, VEC), np.linalg.solve(a, VEC))
    close(jnp.linalg.solve(SQ[0], np.ones((3, 2, 3, 4))), np.linalg.solve(SQ[0], np.ones((3, 2, 3, 4))))


@pytest.mark.spec("NP-63")
def test_det_float32_ints_and_singular(jnp):
    a = np.arange(4).reshape(2, 2)
    close(jnp.linalg.det(a), -2., tol=1e-6, dtype="float32")
    sign, logdet = jnp.linalg.slogdet(a)
    close(sign, -1., dtype="float32")
    close(logdet, np.log(2.), tol=1e-6)
    close(jnp.linalg.inv(a), [[-1.5, 0.5], [1., 0.]], tol=1e-6, dtype="float32")
    sign, logdet = jnp.linalg.slogdet(np.zeros((2, 2), np.float32))
    assert float(sign) == 0. and float(logdet) == -np.inf
    assert float(jnp.linalg.det(np.zeros((2, 2), np.float32))) == 0.


@pytest.mark.spec("NP-63")
def test_lu(jnp, lax_linalg, x64):
    a = np.array([[1., 2, 3], [4, 5, 6], [7, 8, 10]])
    lu, pivots, perm = lax_linalg.lu(a)
    np.testing.assert_array_equal(np.asarray(pivots), [2, 2, 2])
    np.testing.assert_array_equal(np.asarray(perm), [2, 0, 1])
    assert str(pivots.dtype) == "int32" and str(perm.dtype) == "int32"
    lu = np.asarray(lu)
    close((np.tril(lu, -1) + np.eye(3)) @ np.triu(lu), a[[2, 0, 1]])


@pytest.mark.spec("NP-63")
def test_det_solve_errors(jnp):
    raises(ValueError, "Argument to _det() must have shape [..., n, n], got (2, 3)",
           lambda: jnp.linalg.det(np.ones((2, 3))))
    raises(ValueError, "Argument to inv must have shape [..., n, n], got (2, 3).",
           lambda: jnp.linalg.inv(np.ones((2, 3))))
    raises(ValueError, "inconsistent size for core dimension 'm': 4 vs 3 on vectorized "
           "function with excluded=frozenset() and signature='(m,m),(m)->(m)'",
           lambda: jnp.linalg.solve(np.eye(3), np.ones(4)))
    with pytest.raises(ValueError, match=r"^Invalid shapes for solve: \(3, 2, 2\), \(3, 2\)\. Prior"):
        jnp.linalg.solve(np.ones((3, 2, 2)), np.ones((3, 2)))
    raises(ValueError, "Unknown slogdet method 'bad'. Supported methods are 'lu' (`None`), "
           "and 'qr'.", lambda: jnp.linalg.slogdet(np.eye(2), method="bad"))


# ---------------------------------------------------------------------------
# cholesky, triangular_solve
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-64")
def test_cholesky(jnp, x64):
    for a in (SPD, CHPD):
        close(jnp.linalg.cholesky(a), np.linalg.cholesky(a))
        close(jnp.linalg.cholesky(a, upper=True), _H(np.linalg.cholesky(a)))
    out = np.asarray(jnp.linalg.cholesky(-np.eye(2, dtype=np.float32)))
    assert np.isnan(out[np.tril_indices(2)]).all() and out[0, 1] == 0.
    raises(TypeError, "add got incompatible shapes for broadcasting: (2, 3), (3, 2).",
           lambda: jnp.linalg.cholesky(np.ones((2, 3))))


@pytest.mark.spec("NP-64")
def test_triangular_solve(lax_linalg, x64):
    a = SQ[0]
    low, up = np.tril(a), np.triu(a)
    b = RHS[0]
    close(lax_linalg.triangular_solve(a, b, left_side=True, lower=True), np.linalg.solve(low, b))
    close(lax_linalg.triangular_solve(a, b.T, lower=False), b.T @ np.linalg.inv(up))
    unit = np.tril(a, -1) + np.eye(3)
    close(lax_linalg.triangular_solve(a, b, left_side=True, lower=True, transpose_a=True,
                                      unit_diagonal=True), np.linalg.solve(unit.T, b))
    odd = np.array([[np.inf, 0.], [2., np.nan]], np.float32)
    close(lax_linalg.triangular_solve(odd, np.ones((2, 1), np.float32), left_side=True,
                                      lower=True, unit_diagonal=True), [[1.], [-1.]])
    v = b[:, 0]
    close(lax_linalg.triangular_solve(a, v, left_side=True, lower=True), np.linalg.solve(low, v))
    close(lax_linalg.triangular_solve(a, v, lower=False), v @ np.linalg.inv(up))
    raises(ValueError, "Incompatible shapes for arguments to triangular_solve: (2, 2) and (3, 2).",
           lambda: lax_linalg.triangular_solve(np.ones((2, 2)), np.ones((3, 2)), left_side=True))


# ---------------------------------------------------------------------------
# eigh, qr, pinv, matrix_power
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-65")
def test_eigh(jnp, lax_linalg, x64):
    for a in (SPD - 5 * np.eye(3), CHPD):
        w, v = jnp.linalg.eigh(a)
        close(w, np.linalg.eigvalsh(a))
        close(jnp.linalg.eigvalsh(a), np.linalg.eigvalsh(a))
        close(np.asarray(v) * np.asarray(w)[..., None, :] @ _H(np.asarray(v)), a)
        v2, w2 = lax_linalg.eigh(a)
        close(w2, np.linalg.eigvalsh(a))
    raises(ValueError, "UPLO must be one of None, 'L', or 'U', got X",
           lambda: jnp.linalg.eigh(np.eye(2), UPLO="X"))


@pytest.mark.spec("NP-66")
def test_qr(jnp, x64):
    for a in (TALL, np.swapaxes(TALL, -1, -2), TALL + 1j * TALL[::-1]):
        q, r = jnp.linalg.qr(a)
        k = min(a.shape[-2:])
        assert q.shape == a.shape[:-1] + (k,) and r.shape == a.shape[:-2] + (k, a.shape[-1])
        close(np.asarray(q) @ np.asarray(r), a)
        close(np.tril(np.asarray(r), -1), np.zeros(r.shape))
        q, r = jnp.linalg.qr(a, mode="complete")
        close(np.asarray(q) @ np.asarray(r), a)
        close(np.abs(jnp.linalg.qr(a, mode="r")), np.abs(np.linalg.qr(a, mode="r")))
    raises(ValueError, "Unsupported QR decomposition mode 'bad'",
           lambda: jnp.linalg.qr(np.ones((2, 3)), mode="bad"))
    raises(TypeError, "Input 0 to qr must have rank at least 2, but got shape=(3,)",
           lambda: jnp.linalg.qr(np.ones(3)))


@pytest.mark.spec("NP-66")
def test_pinv(jnp, x64):
    for a in (TALL, WIDE, TALL + 1j * TALL[::-1]):
        close(jnp.linalg.pinv(a), np.linalg.pinv(a))
    close(jnp.linalg.pinv(SPD, hermitian=True), np.linalg.pinv(SPD, hermitian=True))
    close(jnp.linalg.pinv(np.array([[1., 0], [0, 0]])), [[1., 0], [0, 0]])


@pytest.mark.spec("NP-67")
def test_matrix_power(jnp, x64):
    for n in (0, 1, 2, 3, 5, 8, -1, -3):
        close(jnp.linalg.matrix_power(SQ, n), np.linalg.matrix_power(SQ, n), tol=1e-8)


@pytest.mark.spec("NP-67")
def test_matrix_power_ints_and_errors(jnp):
    a = np.arange(4).reshape(2, 2)
    close(jnp.linalg.matrix_power(a, 3), [[6, 11], [22, 39]], dtype="int32")
    close(jnp.linalg.matrix_power(a, 0), np.eye(2), dtype="int32")
    close(jnp.linalg.matrix_power(a, -1), [[-1.5, 0.5], [1., 0.]], tol=1e-6, dtype="float32")
    raises(TypeError, "1-dimensional array given. Array must be at least two-dimensional",
           lambda: jnp.linalg.matrix_power(np.ones(3), 2))
    raises(TypeError, "Last 2 dimensions of the array must be square",
           lambda: jnp.linalg.matrix_power(np.ones((2, 3)), 2))
    raises(TypeError, "exponent must be an integer, got 1.5",
           lambda: jnp.linalg.matrix_power(np.eye(2), 1.5))


# ---------------------------------------------------------------------------
# Array-API helpers
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-68")
def test_array_api_helpers(jnp):
    x = np.arange(24.).reshape(2, 3, 4).astype(np.float32)
    close(jnp.linalg.matrix_transpose(x), np.swapaxes(x, -1, -2), dtype="float32")
    close(jnp.linalg.diagonal(x, offset=1), np.linalg.diagonal(x, offset=1))
    close(jnp.linalg.trace(x), np.linalg.trace(x))
    close(jnp.linalg.trace(np.arange(4).reshape(2, 2)), 3, dtype="int32")
    close(jnp.linalg.outer(np.arange(2.), np.ones(3)), np.outer(np.arange(2.), np.ones(3)))
    close(jnp.linalg.cross(x[0, :, :3], x[1, :, :3]), np.linalg.cross(x[0, :, :3], x[1, :, :3]))
    close(jnp.linalg.cross(x[0, :, :3], x[1, :, :3], axis=0),
          np.cross(x[0, :, :3], x[1, :, :3], axis=0))
    close(jnp.linalg.vecdot(x, x[0]), np.linalg.vecdot(x, x[0]), tol=1e-4)
    close(jnp.linalg.matmul(x, np.swapaxes(x, -1, -2)), np.linalg.matmul(x, np.swapaxes(x, -1, -2)), tol=1e-4)
    close(jnp.linalg.tensordot(x[0], x[1].T, axes=1), np.linalg.tensordot(x[0], x[1].T, axes=1), tol=1e-4)


@pytest.mark.spec("NP-68")
def test_array_api_helper_errors(jnp):
    raises(ValueError, "matrix_transpose requires at least 2 dimensions; got ndim=1",
           lambda: jnp.linalg.matrix_transpose(np.ones(3)))
    raises(ValueError, "Input arrays must be one-dimensional, but they are x1.ndim=2 x2.ndim=1",
           lambda: jnp.linalg.outer(np.ones((2, 3)), np.ones(3)))
    raises(ValueError, "Both input arrays must be (arrays of) 3-dimensional vectors, but "
           "they have x1.shape[axis]=2 and x2.shape[axis]=2",
           lambda: jnp.linalg.cross(np.ones((2, 3)), np.ones((2, 3)), axis=0))


# ---------------------------------------------------------------------------
# Derivatives
# ---------------------------------------------------------------------------

def _sign_fixed_columns(jnp, v):
    """Eigenvectors with the sign making their first row positive (unique)."""
    return v * jnp.sign(v[..., :1, :])


GRAD_CASES = {
    "norm": (lambda jnp, x: jnp.linalg.norm(x), (TALL[0],)),
    "norm_axis_p3": (lambda jnp, x: jnp.linalg.norm(x, 3, axis=1), (TALL[0],)),
    "norm_inf": (lambda jnp, x: jnp.linalg.norm(x[0], np.inf), (TALL[0],)),
    "norm_fro": (lambda jnp, x: jnp.linalg.norm(x, "fro"), (TALL[0],)),
    "norm_1": (lambda jnp, x: jnp.linalg.norm(x, 1), (TALL[0],)),
    "norm_2": (lambda jnp, x: jnp.linalg.norm(x, 2), (TALL[0],)),
    "norm_-2": (lambda jnp, x: jnp.linalg.norm(x, -2), (TALL[0],)),
    "norm_nuc": (lambda jnp, x: jnp.linalg.norm(x, "nuc"), (WIDE,)),
    "svdvals": (lambda jnp, x: jnp.linalg.svdvals(x), (TALL,)),
    "svd_thin_tall": (lambda jnp, x: jnp.linalg.svd(x, full_matrices=False), (TALL[0],)),
    "svd_thin_wide": (lambda jnp, x: jnp.linalg.svd(x, full_matrices=False), (WIDE,)),
    "svd_square": (lambda jnp, x: jnp.linalg.svd(x), (SQ[0],)),
    "det": (lambda jnp, x: jnp.linalg.det(x), (SQ,)),
    "slogdet": (lambda jnp, x: jnp.linalg.slogdet(x).logabsdet, (SQ,)),
    "inv": (lambda jnp, x: jnp.linalg.inv(x), (SQ[0],)),
    "solve": (lambda jnp, a, b: jnp.linalg.solve(a, b), (SQ, RHS)),
    "solve_vector": (lambda jnp, a, b: jnp.linalg.solve(a, b), (SQ[0], VEC)),
    "cholesky": (lambda jnp, x: jnp.linalg.cholesky(x), (SPD[0],)),
    "eigvalsh": (lambda jnp, x: jnp.linalg.eigvalsh(x), (SPD[0],)),
    "eigh_vectors": (lambda jnp, x: _sign_fixed_columns(jnp, jnp.linalg.eigh(x)[1]), (SPD[0],)),
    "qr": (lambda jnp, x: jnp.linalg.qr(x), (TALL[0],)),
    "pinv": (lambda jnp, x: jnp.linalg.pinv(x), (TALL[0],)),
    "matrix_power_3": (lambda jnp, x: jnp.linalg.matrix_power(x, 3), (SQ[0],)),
    "matrix_power_-2": (lambda jnp, x: jnp.linalg.matrix_power(x, -2), (SQ[0],)),
    "complex_det": (lambda jnp, x: jnp.linalg.det(x), (CSQ[0],)),
    "complex_inv": (lambda jnp, x: jnp.linalg.inv(x), (CSQ[0],)),
    "complex_cholesky": (lambda jnp, x: jnp.linalg.cholesky(x), (CHPD[0],)),
    "complex_qr": (lambda jnp, x: jnp.linalg.qr(x), (CSQ[0],)),
    "complex_norm_2": (lambda jnp, x: jnp.linalg.norm(x, 2), (CSQ[0],)),
}


@pytest.mark.spec("NP-69")
@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_linalg_derivatives(jnp, test_util, x64, name):
    fn, args = GRAD_CASES[name]
    test_util.check_grads(lambda *a: fn(jnp, *a), args, order=2, modes=("fwd", "rev"))


@pytest.mark.spec("NP-69")
@pytest.mark.parametrize("side", ["left_lower", "right_upper_transposed"])
def test_triangular_solve_derivatives(lax_linalg, test_util, x64, side):
    left = side == "left_lower"

    def f(a, b):
        return lax_linalg.triangular_solve(a, b if left else b.T, left_side=left,
                                           lower=left, transpose_a=not left)
    test_util.check_grads(f, (SQ[0], RHS[0]), order=2, modes=("fwd", "rev"))


@pytest.mark.spec("NP-69")
def test_linalg_derivatives_float32(jax, jnp, test_util):
    a = SQ[0].astype(np.float32)
    test_util.check_grads(jnp.linalg.det, (a,), order=1, modes=("fwd", "rev"),
                          atol=1e-2, rtol=1e-2)
    g = jax.grad(lambda x: jnp.linalg.norm(x, "nuc"))(a)
    assert str(g.dtype) == "float32"
    u, s, vh = np.linalg.svd(a.astype(np.float64))
    close(g, u @ vh, tol=1e-4)


# ---------------------------------------------------------------------------
# jnp.fft (NP-70)
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
