"""Conformance: derivative and option gaps of jax.lax.linalg (SPEC LIN-40 .. LIN-44).

QR and LU derivatives for every shape are checked numerically with the
implementation's ``check_grads`` (in float64), batched and complex; pivoted
QR and the LAPACK-form ``geqrf``/``geqp3`` against SciPy; ``subset_by_index``
against the behaviour of JAX's CPU build; the perturbed tridiagonal solve by
identities (a regular system's solution, inverse iteration's eigenvectors).
"""
import importlib

import numpy as np
import pytest
import scipy.linalg
from scipy.linalg import lapack

R = np.random.RandomState(23)


def _mat(shape, dtype):
    x = R.randn(*shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * R.randn(*shape)
    return x.astype(dtype)


@pytest.fixture(scope="session")
def L(jax):
    return importlib.import_module(jax.__name__ + ".lax.linalg")


@pytest.fixture(scope="session")
def Lsrc(jax):
    return importlib.import_module(jax.__name__ + "._src.lax.linalg")


@pytest.fixture(scope="session")
def check_grads(jax):
    return importlib.import_module(jax.__name__ + ".test_util").check_grads


def _close(got, want, tol):
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)


# ---------------------------------------------------------------------------
# LIN-40: qr derivatives
# ---------------------------------------------------------------------------

@pytest.mark.spec("LIN-40")
@pytest.mark.parametrize("shape,full,dtype,order", [
    ((3, 5), False, "float64", 2), ((3, 5), True, "complex128", 1),
    ((5, 3), True, "float64", 2), ((5, 3), True, "complex128", 1),
    ((2, 4, 3), True, "complex128", 1), ((2, 3, 4), False, "float64", 1)])
def test_qr_grads_every_shape(jax, L, check_grads, x64, shape, full, dtype, order):
    a = _mat(shape, dtype)
    check_grads(lambda x: L.qr(x, full_matrices=full), (a,), order, modes=["fwd", "rev"],
                atol=1e-4, rtol=1e-4)


@pytest.mark.spec("LIN-40")
def test_qr_full_tall_tangent_keeps_q_unitary(jax, L, x64):
    # d(Q^H Q) = 0: the extended tangent keeps the square Q unitary.
    a, da = _mat((5, 2), "complex128"), _mat((5, 2), "complex128")
    (q, r), (dq, dr) = jax.jvp(lambda x: L.qr(x, full_matrices=True), (a,), (da,))
    q, dq = np.asarray(q), np.asarray(dq)
    _close(dq.conj().T @ q + q.conj().T @ dq, np.zeros((5, 5)), 1e-10)
    _close(dq @ np.asarray(r) + q @ np.asarray(dr), da, 1e-10)
    assert np.all(np.asarray(dr)[2:] == 0)


@pytest.mark.spec("LIN-40")
def test_qr_wide_jvp_vmap_and_jit(jax, L):
    a, da = _mat((3, 2, 4), "float32"), _mat((3, 2, 4), "float32")
    f = lambda x, t: jax.jvp(lambda y: L.qr(y), (x,), (t,))[1]  # noqa: E731
    batched = jax.vmap(f)(a, da)
    jitted = jax.jit(f)(a, da)
    for i in range(3):
        one = f(a[i], da[i])
        for got, want in zip(batched, one):
            _close(got[i], np.asarray(want), 1e-5)
    for got, want in zip(jitted, f(a, da)):
        _close(got, np.asarray(want), 1e-5)
    # dA = dQ R + Q dR
    (q, r), (dq, dr) = jax.jvp(lambda y: L.qr(y), (a,), (da,))
    _close(np.asarray(dq) @ np.asarray(r) + np.asarray(q) @ np.asarray(dr), da, 1e-5)


# ---------------------------------------------------------------------------
# LIN-41: lu derivative for non-square matrices
# ---------------------------------------------------------------------------

@pytest.mark.spec("LIN-41")
@pytest.mark.parametrize("shape,dtype,order", [
    ((3, 5), "float64", 2), ((5, 3), "complex128", 1), ((2, 4, 2), "float64", 1)])
def test_lu_grads_non_square(jax, L, check_grads, x64, shape, dtype, order):
    a = _mat(shape, dtype)
    check_grads(lambda x: L.lu(x)[0], (a,), order, modes=["fwd", "rev"],
                atol=1e-4, rtol=1e-4)


@pytest.mark.spec("LIN-41")
def test_lu_tangent_reconstructs(jax, L, x64):
    # perm(dA) = dL U + L dU with dL strictly lower, dU upper (packed).
    a, da = _mat((4, 6), "float64"), _mat((4, 6), "float64")
    (lu, _, perm), (dlu, dpiv, dperm) = jax.jvp(L.lu, (a,), (da,))
    lu, dlu, perm = np.asarray(lu), np.asarray(dlu), np.asarray(perm)
    lo, up = np.tril(lu[:, :4], -1) + np.eye(4), np.triu(lu[:4])
    _close(np.tril(dlu[:, :4], -1) @ up + lo @ np.triu(dlu), da[perm], 1e-10)
    assert np.asarray(dperm).dtype == jax.dtypes.float0


# ---------------------------------------------------------------------------
# LIN-42: pivoted qr, geqrf, geqp3
# ---------------------------------------------------------------------------

@pytest.mark.spec("LIN-42")
@pytest.mark.parametrize("shape", [(5, 3), (3, 5)])
@pytest.mark.parametrize("full", [True, False])
def test_qr_pivoting_values(jax, L, shape, full):
    a = _mat(shape, "float32")
    q, r, p = L.qr(a, pivoting=True, full_matrices=full)
    _, _, want_p = scipy.linalg.qr(a, pivoting=True)
    assert np.asarray(p).dtype == np.int32
    np.testing.assert_array_equal(np.asarray(p), want_p)
    k = shape[0] if full else min(shape)
    assert q.shape == (shape[0], k) and r.shape == (k, shape[1])
    _close(np.asarray(q) @ np.asarray(r), a[:, want_p], 1e-5)
    d = np.abs(np.diag(np.asarray(r)))
    assert np.all(d[:-1] >= d[1:] - 1e-6)


@pytest.mark.spec("LIN-42")
def test_qr_pivoting_empty_and_grads(jax, L, check_grads, x64):
    q, r, p = L.qr(np.zeros((0, 3), np.float64), pivoting=True)
    assert q.shape == (0, 0) and r.shape == (0, 3)
    np.testing.assert_array_equal(np.asarray(p), np.zeros(3, np.int32))
    for dtype in ["float64", "complex128"]:
        a = _mat((5, 3), dtype)
        check_grads(lambda x: L.qr(x, pivoting=True)[:2], (a,), 1, modes=["fwd", "rev"],
                    atol=1e-4, rtol=1e-4)
    _, _, dp = jax.jvp(lambda x: L.qr(x, pivoting=True), (a,), (a,))[1]
    assert np.asarray(dp).dtype == jax.dtypes.float0


@pytest.mark.spec("LIN-42")
def test_geqrf_geqp3_values(jax, Lsrc, x64):
    a = _mat((5, 4), "float64")
    packed, taus = Lsrc.geqrf(a)
    want, want_taus, _, _ = lapack.dgeqrf(a)
    _close(packed, want, 1e-12)
    _close(taus, want_taus, 1e-12)
    packed, jpvt, taus = Lsrc.geqp3(a, np.zeros(4, np.int32))
    want, want_jpvt, want_taus, _, _ = lapack.dgeqp3(a)
    _close(packed, want, 1e-12)
    np.testing.assert_array_equal(np.asarray(jpvt), want_jpvt)
    assert np.asarray(jpvt).dtype == np.int32


@pytest.mark.spec("LIN-42")
def test_geqp3_fixed_columns(jax, Lsrc, x64):
    # Nonzero entries fix their columns in front, in order; the rest pivot:
    # the factorisation then reproduces a[:, jpvt - 1].
    a = _mat((5, 4), "float64")
    packed, jpvt, taus = Lsrc.geqp3(a, np.array([0, 3, 0, -1], np.int32))
    jpvt = np.asarray(jpvt)
    assert list(jpvt[:2]) == [2, 4]
    q = scipy.linalg.lapack.dorgqr(np.asarray(packed), np.asarray(taus))[0]
    _close(q @ np.triu(np.asarray(packed)[:4]), a[:, jpvt - 1], 1e-12)
    free = a[:, jpvt[2:] - 1]
    assert sorted(jpvt) == [1, 2, 3, 4] and free.shape == (5, 2)


@pytest.mark.spec("LIN-42")
def test_geqp3_errors_batching_and_no_jvp(jax, Lsrc):
    a = _mat((4, 3), "float32")
    with pytest.raises(TypeError, match="geqp3 does not accept dtype float32 at position 1"):
        Lsrc.geqp3(a, np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="Input 1 to geqp3 must have rank at least 1"):
        Lsrc.geqp3(a, np.zeros((), np.int32))
    with pytest.raises(TypeError, match="same number of batch dimensions"):
        Lsrc.geqp3(a, np.zeros((2, 3), np.int32))
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'geqp3'"):
        jax.jvp(lambda x: Lsrc.geqp3(x, np.zeros(3, np.int32)), (a,), (a,))
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'geqrf'"):
        jax.jvp(Lsrc.geqrf, (a,), (a,))
    stack = np.stack([a, 2 * a[:, ::-1]])
    jp = np.array([0, 0, 1], np.int32)
    batched = jax.vmap(Lsrc.geqp3, (0, None))(stack, jp)
    for i in range(2):
        for got, want in zip(batched, Lsrc.geqp3(stack[i], jp)):
            np.testing.assert_allclose(np.asarray(got[i]), np.asarray(want), rtol=1e-6)


# ---------------------------------------------------------------------------
# LIN-43: subset_by_index
# ---------------------------------------------------------------------------

@pytest.mark.spec("LIN-43")
def test_subset_by_index_whole_range_runs(jax, L):
    a = _mat((4, 4), "float32")
    h = a + a.T
    v, w = L.eigh(h, subset_by_index=(0, 4))
    _close(w, np.linalg.eigvalsh(h), 1e-4)
    u, s, vt = L.svd(a, subset_by_index=(0, 4))
    _close(s, np.linalg.svd(a, compute_uv=False), 1e-4)
    g = jax.grad(lambda x: L.svd(x, subset_by_index=(0, 4), compute_uv=False).sum())(a)
    assert g.shape == (4, 4)


@pytest.mark.spec("LIN-43")
def test_subset_by_index_partial(jax, L):
    a = _mat((4, 4), "float32")
    out = jax.eval_shape(lambda x: L.eigh(x, subset_by_index=(1, 3)), a)
    assert [o.shape for o in out] == [(4, 2), (2,)]
    out = jax.eval_shape(lambda x: L.svd(x, subset_by_index=(1, 3), full_matrices=False), a)
    assert [o.shape for o in out] == [(4, 2), (2,), (2, 4)]
    with pytest.raises(NotImplementedError, match="subset_by_index not supported on CPU"):
        L.eigh(a, subset_by_index=(1, 3))
    with pytest.raises(NotImplementedError, match="subset_by_index not supported on CPU"):
        jax.jit(lambda x: L.eigh(x, subset_by_index=(0, 5)))(a)
    with pytest.raises(NotImplementedError, match="subset_by_index not implemented for CPU"):
        L.svd(a, subset_by_index=(1, 3), full_matrices=False)
    with pytest.raises(NotImplementedError, match="Derivatives not defined for partial"):
        jax.jvp(lambda x: L.eigh(x, subset_by_index=(1, 3)), (a,), (a,))
    with pytest.raises(ValueError, match="full_matrices and subset_by_index cannot both"):
        L.svd(a, subset_by_index=(1, 3))
    with pytest.raises(TypeError, match="unhashable type: 'list'"):
        L.eigh(a, subset_by_index=[0, 4])


# ---------------------------------------------------------------------------
# LIN-44: tridiagonal_solve(perturb_singular=True) and eigh_tridiagonal
# ---------------------------------------------------------------------------

def _band(n, dtype):
    dl, d, du = _mat((n,), dtype), _mat((n,), dtype), _mat((n,), dtype)
    dl[0] = du[-1] = 0
    return dl, d, du


@pytest.mark.spec("LIN-44")
@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_perturbed_solve_regular_and_singular(jax, L, dtype):
    dl, d, du = _band(6, dtype)
    b = _mat((6, 2), dtype)
    full = np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)
    got = L.tridiagonal_solve(dl, d, du, b, perturb_singular=True)
    _close(got, np.linalg.solve(full, b), 1e-4)
    zero = np.zeros(6, dtype)
    got = np.asarray(L.tridiagonal_solve(zero, zero, zero, b, perturb_singular=True))
    assert np.all(np.isfinite(got))


@pytest.mark.spec("LIN-44")
@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_eigh_tridiagonal_vectors(jax, dtype):
    sl = importlib.import_module(jax.__name__ + ".scipy.linalg")
    d = R.randn(6).astype(dtype)
    e = _mat((5,), dtype)
    w, v = sl.eigh_tridiagonal(d, e)
    t = np.diag(d) + np.diag(e, 1) + np.diag(np.conj(e), -1)
    v = np.asarray(v)
    _close(t @ v, v * np.asarray(w), 1e-4)
    _close(v.conj().T @ v, np.eye(6), 1e-4)
    if dtype == "float32":
        # Real input: the vectors are unique up to sign; compare with SciPy.
        _, want = scipy.linalg.eigh_tridiagonal(d.astype(float), e.astype(float))
        _close(np.abs(np.sum(v * want, axis=0)), np.ones(6), 1e-4)


# ---------------------------------------------------------------------------
# LIN-45: half precision
# ---------------------------------------------------------------------------

@pytest.mark.spec("LIN-45")
def test_half_precision(jax, jnp, L):
    a = (np.eye(3) * 2 + np.ones((3, 3))).astype(np.float16)
    for fn in (jnp.linalg.qr, jnp.linalg.eigh, jnp.linalg.svd, jnp.linalg.cholesky, L.lu):
        with pytest.raises(NotImplementedError, match="Unsupported dtype float16"):
            jax.block_until_ready(fn(a))
    tri = np.triu(a)
    got = L.triangular_solve(tri, a, left_side=True, lower=False)
    assert got.dtype == np.float16
    want = np.linalg.solve(tri.astype(np.float32), a.astype(np.float32))
    np.testing.assert_allclose(np.asarray(got, np.float32), want, rtol=2e-3, atol=2e-3)
