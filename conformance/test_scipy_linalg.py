"""Conformance: ``jax.scipy.linalg`` decompositions and solvers (SPEC SLA-1..SLA-14).

References are SciPy's (or identities such as ``a == p @ l @ u``) computed
here in float64; results are compared with float32 tolerances.
"""
import importlib
import warnings

import numpy as np
import pytest
import scipy.linalg as sla

TOL = dict(rtol=2e-4, atol=2e-4)


@pytest.fixture(scope="module")
def linalg(jax):
    return importlib.import_module(jax.__name__ + ".scipy.linalg")


@pytest.fixture(scope="module")
def tu(jax):
    return importlib.import_module(jax.__name__ + ".test_util")


def rand(shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def spd(n, dtype=np.float32, seed=0):
    a = rand((n, n), dtype, seed)
    return (a @ a.conj().T + n * np.eye(n)).astype(dtype)


def close(x, y, **tol):
    np.testing.assert_allclose(np.asarray(x), np.asarray(y), **(tol or TOL))


# ---------------------------------------------------------------------------

@pytest.mark.spec("SLA-1")
def test_integer_and_list_operands_promote(jax, jnp, linalg):
    a = np.array([[4, 1], [1, 3]], np.int32)
    ai = jnp.asarray(a)
    for out in (linalg.cholesky(ai), linalg.lu_factor(ai)[0], linalg.qr(ai)[0],
                linalg.schur(ai, "complex")[0]):
        assert out.dtype.kind in "fc" and out.dtype.itemsize in (4, 8)
        assert out.dtype in (np.float32, np.complex64)
    close(linalg.cholesky(a.tolist()), sla.cholesky(a))
    assert not linalg.svd(jnp.asarray(a, np.float32))[1].weak_type


@pytest.mark.spec("SLA-1")
def test_x64_dtypes(jax, jnp, linalg, x64):
    a = spd(3, np.float64)
    assert linalg.cholesky(jnp.asarray(a)).dtype == np.float64
    assert linalg.cholesky(jnp.asarray(a, np.float32)).dtype == np.float32
    assert linalg.lu_factor(jnp.asarray(a))[1].dtype == np.int32
    close(linalg.solve(jnp.asarray(a), jnp.ones(3)), sla.solve(a, np.ones(3)),
          rtol=1e-10, atol=1e-10)


@pytest.mark.spec("SLA-2")
@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_and_cho_solve(jax, jnp, linalg, tu, lower):
    a = spd(4, np.complex64)
    c = linalg.cholesky(jnp.asarray(a), lower=lower)
    close(c, sla.cholesky(a, lower=lower))
    fac = linalg.cho_factor(jnp.asarray(a), lower=lower)
    assert fac[1] is lower
    b = rand((4, 2), np.complex64, 1)
    close(linalg.cho_solve(fac, jnp.asarray(b)), np.linalg.solve(a, b))
    close(linalg.cho_solve(fac, jnp.asarray(b[:, 0])), np.linalg.solve(a, b[:, 0]))
    # Only the named triangle is read.
    junk = np.triu(rand((4, 4), np.complex64, 2), 1)
    junk = junk.conj().T if not lower else junk
    close(linalg.cholesky(jnp.asarray(a + junk), lower=lower), c)
    f = lambda c, b: linalg.cho_solve((c, lower), b)  # noqa: E731
    creal = sla.cholesky(spd(3), lower=lower).astype(np.float32)
    tu.check_grads(f, (creal, rand((3, 2))), order=1, modes=["fwd", "rev"], atol=2e-2,
                   rtol=2e-2)


@pytest.mark.spec("SLA-2")
def test_cholesky_not_positive_definite_is_nan(jnp, linalg):
    out = linalg.cholesky(jnp.asarray([[1., 2.], [2., 1.]]))
    assert np.isnan(np.asarray(out)).any()


@pytest.mark.spec("SLA-3")
def test_svd_det_inv_eigh(jax, jnp, linalg, tu):
    a = rand((4, 3))
    u, s, vh = linalg.svd(jnp.asarray(a))
    assert u.shape == (4, 4) and vh.shape == (3, 3)
    close(s, sla.svdvals(a))
    close(linalg.svd(jnp.asarray(a), compute_uv=False), sla.svdvals(a))
    assert linalg.svd(jnp.asarray(a), full_matrices=False)[0].shape == (4, 3)
    sq = rand((3, 3), seed=3)
    close(linalg.det(jnp.asarray(sq)), np.linalg.det(sq.astype(np.float64)))
    close(linalg.inv(jnp.asarray(sq)), np.linalg.inv(sq.astype(np.float64)), rtol=1e-3,
          atol=1e-3)
    h = spd(4, np.complex64)
    w, v = linalg.eigh(jnp.asarray(h))
    close(w, np.linalg.eigvalsh(h), rtol=1e-4, atol=1e-3)
    assert w.dtype == np.float32
    close(np.asarray(h) @ np.asarray(v), np.asarray(v) * np.asarray(w), atol=1e-3)
    close(linalg.eigh(jnp.asarray(h), eigvals_only=True), w)
    with pytest.raises(NotImplementedError):
        linalg.eigh(jnp.asarray(h), jnp.asarray(h))
    with pytest.raises(NotImplementedError):
        linalg.eigh(jnp.asarray(h), type=2)
    tu.check_grads(linalg.det, (sq,), order=1, modes=["fwd", "rev"], atol=2e-2,
                   rtol=2e-2)
    tu.check_grads(lambda x: linalg.eigh(x + x.T, eigvals_only=True), (sq,), order=1,
                   modes=["fwd", "rev"], atol=2e-2, rtol=2e-2)


@pytest.mark.spec("SLA-4")
@pytest.mark.parametrize("trans,lower,unit", [(0, True, False), ("T", False, True),
                                              (2, True, True), ("C", False, False)])
def test_solve_triangular_values(jnp, linalg, trans, lower, unit):
    a = (np.tril if lower else np.triu)(rand((4, 4), np.complex64)) + 4 * np.eye(4)
    a = a.astype(np.complex64)
    b = rand((4, 2), np.complex64, 1)
    if True:
        want = sla.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit)
        got = linalg.solve_triangular(jnp.asarray(a), jnp.asarray(b), trans=trans,
                                      lower=lower, unit_diagonal=unit)
        close(got, want)
        close(linalg.solve_triangular(jnp.asarray(a), jnp.asarray(b[:, 0]), trans=trans,
                                      lower=lower, unit_diagonal=unit), want[:, 0])


@pytest.mark.spec("SLA-4")
def test_solve_triangular_broadcast_grad_errors(jax, jnp, linalg, tu):
    a = np.triu(rand((3, 3))) + 3 * np.eye(3, dtype=np.float32)
    b = rand((2, 3, 2), seed=1)
    got = linalg.solve_triangular(jnp.asarray(a), jnp.asarray(b))
    close(got, np.stack([np.linalg.solve(a, x) for x in b]))
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = linalg.solve_triangular(jnp.asarray(np.stack([a, a])), jnp.ones((2, 3)))
    assert out.shape == (2, 3)
    assert any(issubclass(w.category, FutureWarning) for w in rec)
    with pytest.raises(ValueError, match="Invalid 'trans' value"):
        linalg.solve_triangular(jnp.asarray(a), jnp.asarray(b[0]), trans=3)
    tu.check_grads(linalg.solve_triangular, (a, b[0]), order=1, modes=["fwd", "rev"],
                   atol=2e-2, rtol=2e-2)
    vm = jax.vmap(linalg.solve_triangular, (None, 0))(jnp.asarray(a), jnp.asarray(b))
    close(vm, got)
    close(jax.jit(linalg.solve_triangular)(jnp.asarray(a), jnp.asarray(b)), got)


@pytest.mark.spec("SLA-5")
@pytest.mark.spec("SLA-15")
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3)])
def test_lu(jax, jnp, linalg, shape):
    a = rand(shape, np.complex64)
    p, l, u = linalg.lu(jnp.asarray(a))
    sp, sl, su = sla.lu(a)
    close(p, sp)
    close(l, sl)
    close(u, su)
    assert p.dtype == np.float32 and l.dtype == np.complex64
    pl, u2 = linalg.lu(jnp.asarray(a), permute_l=True)
    close(pl, sp @ sl)
    with pytest.raises(ValueError):
        linalg.lu(jnp.ones((2,) + shape))
    batched = jax.vmap(linalg.lu)(jnp.asarray(np.stack([a, 2 * a])))
    close(batched[2][1], 2 * su)


@pytest.mark.spec("SLA-5")
def test_lu_factor_and_grad(jax, jnp, linalg, tu):
    a = rand((4, 4))
    lu, piv = linalg.lu_factor(jnp.asarray(a))
    slu, spiv = sla.lu_factor(a)
    close(lu, slu)
    np.testing.assert_array_equal(np.asarray(piv), spiv)
    assert piv.dtype == np.int32
    lu2, piv2 = linalg.lu_factor(jnp.asarray(np.stack([a, a.T])))
    close(lu2[1], sla.lu_factor(a.T)[0])
    tu.check_grads(lambda x: linalg.lu(x)[2], (a,), order=1, modes=["fwd", "rev"],
                   atol=5e-2, rtol=5e-2)


@pytest.mark.spec("SLA-6")
def test_lu_solve(jax, jnp, linalg, tu):
    a = rand((4, 4), np.complex64)
    b = rand((4, 2), np.complex64, 1)
    fac = sla.lu_factor(a)
    bb = rand((3, 4, 2), np.complex64, 2)
    for trans in (0, 1, 2):
        got = linalg.lu_solve((jnp.asarray(fac[0]), jnp.asarray(fac[1], np.int32)),
                              jnp.asarray(b), trans=trans)
        close(got, sla.lu_solve(fac, b, trans=trans))
        close(linalg.lu_solve(fac, jnp.asarray(b[:, 0]), trans=trans),
              sla.lu_solve(fac, b[:, 0], trans=trans))
    close(linalg.lu_solve(fac, jnp.asarray(bb), trans=1),
          np.stack([sla.lu_solve(fac, x, trans=1) for x in bb]))
    with pytest.raises(ValueError):
        linalg.lu_solve(fac, jnp.asarray(b), trans=3)
    r = rand((3, 3), seed=4)
    lu, piv = linalg.lu_factor(jnp.asarray(r))
    tu.check_grads(lambda lu, b: linalg.lu_solve((lu, piv), b),
                   (np.asarray(lu), rand((3, 2), seed=5)), order=1,
                   modes=["fwd", "rev"], atol=5e-2, rtol=5e-2)


@pytest.mark.spec("SLA-7")
def test_solve(jax, jnp, linalg, tu):
    a = spd(4)
    b = rand((4, 2), seed=1)
    for assume_a, lower in (("gen", False), ("sym", True), ("her", False),
                            ("pos", False), ("pos", True)):
        got = linalg.solve(jnp.asarray(a), jnp.asarray(b), assume_a=assume_a,
                           lower=lower)
        close(got, sla.solve(a, b, assume_a=assume_a, lower=lower), rtol=1e-3,
              atol=1e-3)
    close(linalg.solve(jnp.asarray(a), jnp.asarray(b[:, 0]), assume_a="pos"),
          sla.solve(a, b[:, 0], assume_a="pos"), rtol=1e-3, atol=1e-3)
    # Derivatives in the symmetric directions: 'pos' reads one triangle.
    f = lambda a, b: linalg.solve((a + a.T) / 2, b, assume_a="pos")  # noqa: E731
    tu.check_grads(f, (spd(3, seed=2), rand((3, 2), seed=3)), order=1,
                   modes=["fwd", "rev"], atol=2e-2, rtol=2e-2)
    close(jax.jit(f)(jnp.asarray(a), jnp.asarray(b)), np.linalg.solve(a, b), rtol=1e-3,
          atol=1e-3)


@pytest.mark.spec("SLA-7")
def test_solve_errors(jnp, linalg):
    with pytest.raises(ValueError, match="assume_a"):
        linalg.solve(jnp.eye(2), jnp.ones(2), assume_a="banded")
    with pytest.raises(ValueError):
        linalg.solve(jnp.eye(2), jnp.ones(3), assume_a="pos")


@pytest.mark.spec("SLA-8")
@pytest.mark.parametrize("shape,pivoting", [((3, 4), True), ((4, 3), False),
                                            ((3, 3), True)])
def test_qr_modes(jnp, linalg, shape, pivoting):
    a = rand(shape, np.complex64)
    for mode in ("full", "r", "economic"):
        got = linalg.qr(jnp.asarray(a), mode=mode, pivoting=pivoting)
        want = sla.qr(a, mode=mode, pivoting=pivoting)
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            close(g, w)
        if pivoting:
            assert got[-1].dtype == np.int32
    with pytest.raises(ValueError):
        linalg.qr(jnp.asarray(a), mode="raw")


@pytest.mark.spec("SLA-8")
def test_qr_derivatives_and_vmap(jax, jnp, linalg, tu):
    a = rand((3, 3))
    tu.check_grads(lambda x: linalg.qr(x)[1], (a,), order=1, modes=["fwd", "rev"],
                   atol=2e-2, rtol=2e-2)

    def identity(x):
        q, r, p = linalg.qr(x, pivoting=True)
        return (q @ r)[:, jnp.argsort(p)]
    tu.check_grads(identity, (a,), order=1, modes=["fwd"], atol=2e-2, rtol=2e-2)
    stack = rand((2, 4, 3), seed=1)
    vq = jax.vmap(lambda x: linalg.qr(x, pivoting=True, mode="economic"))(
        jnp.asarray(stack))
    for i in range(2):
        for g, w in zip(vq, sla.qr(stack[i], pivoting=True, mode="economic")):
            close(g[i], w)


@pytest.mark.spec("SLA-9")
@pytest.mark.parametrize("shape", [(4, 3), (3, 5)])
@pytest.mark.parametrize("mode", ["right", "left"])
def test_qr_multiply(jax, jnp, linalg, shape, mode):
    m, n = shape
    k = min(m, n)
    a = rand(shape, np.complex64)
    c = rand((k, 2) if mode == "left" else (2, m), np.complex64, 1)
    for pivoting, conjugate in ((False, False), (True, True)):
        if True:
            got = linalg.qr_multiply(jnp.asarray(a), jnp.asarray(c), mode=mode,
                                     pivoting=pivoting, conjugate=conjugate)
            want = sla.qr_multiply(a, c, mode=mode, pivoting=pivoting,
                                   conjugate=conjugate)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                close(g, w)
    c1 = c[:, 0] if mode == "left" else c[0]
    got = linalg.qr_multiply(jnp.asarray(a), jnp.asarray(c1), mode=mode)
    assert got[0].ndim == 1
    close(got[0], sla.qr_multiply(a, c1, mode=mode)[0])


@pytest.mark.spec("SLA-9")
def test_qr_multiply_errors_and_no_grad(jax, jnp, linalg):
    a = jnp.ones((4, 3))
    with pytest.raises(ValueError, match="mode"):
        linalg.qr_multiply(a, jnp.ones((2, 4)), mode="middle")
    with pytest.raises(ValueError, match="not compatible"):
        linalg.qr_multiply(a, jnp.ones((2, 3)))
    with pytest.raises(NotImplementedError, match="geqrf"):
        jax.grad(lambda x: linalg.qr_multiply(x, jnp.ones((2, 4)))[0].sum())(
            jnp.asarray(rand((4, 3))))


@pytest.mark.spec("SLA-10")
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_schur_and_hessenberg(jax, jnp, linalg, dtype):
    a = rand((5, 5), dtype)
    t, z = linalg.schur(jnp.asarray(a))
    st, sz = sla.schur(a)
    close(t, st, rtol=1e-3, atol=1e-3)
    close(z, sz, rtol=1e-3, atol=1e-3)
    tc, zc = linalg.schur(jnp.asarray(a), output="complex")
    assert tc.dtype == np.complex64
    close(np.asarray(zc) @ np.asarray(tc) @ np.asarray(zc).conj().T, a, atol=1e-3)
    with pytest.raises(ValueError, match="output"):
        linalg.schur(jnp.asarray(a), output="imaginary")
    h, q = linalg.hessenberg(jnp.asarray(a), calc_q=True)
    sh, sq = sla.hessenberg(a, calc_q=True)
    close(h, sh)
    close(q, sq)
    close(linalg.hessenberg(jnp.asarray(a)), sh)
    stack = jnp.asarray(np.stack([a, 2 * a]))
    close(jax.vmap(linalg.hessenberg)(stack), linalg.hessenberg(stack))
    assert linalg.hessenberg(jnp.zeros((0, 0))).shape == (0, 0)
    h, q = linalg.hessenberg(jnp.zeros((0, 4, 4), dtype), calc_q=True)
    assert h.shape == q.shape == (0, 4, 4) and h.dtype == q.dtype == dtype
    assert linalg.schur(jnp.zeros((0, 3, 3), dtype))[0].shape == (0, 3, 3)


@pytest.mark.spec("SLA-11")
@pytest.mark.parametrize("n", [1, 4, 7])
def test_rsf2csf(jax, jnp, linalg, n):
    t, z = sla.schur(rand((n, n), seed=n))
    got = linalg.rsf2csf(jnp.asarray(t, np.float32), jnp.asarray(z, np.float32))
    want = sla.rsf2csf(t, z)
    assert got[0].dtype == np.complex64
    close(got[0], want[0], rtol=1e-3, atol=1e-3)
    close(got[1], want[1], rtol=1e-3, atol=1e-3)
    with pytest.raises(ValueError, match="square"):
        linalg.rsf2csf(jnp.ones((2, 3)), jnp.ones((2, 2)))
    with pytest.raises(ValueError, match="match"):
        linalg.rsf2csf(jnp.ones((2, 2)), jnp.ones((3, 3)))


@pytest.mark.spec("SLA-12")
@pytest.mark.parametrize("shape,side", [((4, 4), "right"), ((5, 3), "right"),
                                        ((3, 5), "left")])
def test_polar(jax, jnp, linalg, shape, side):
    a = rand((2,) + shape)
    for method in ("qdwh", "svd"):
        u, p = linalg.polar(jnp.asarray(a), side=side, method=method)
        for i in range(2):
            su, sp = sla.polar(a[i], side=side)
            close(u[i], su, rtol=1e-3, atol=1e-3)
            close(p[i], sp, rtol=1e-3, atol=1e-3)


@pytest.mark.spec("SLA-12")
def test_polar_errors(jnp, linalg):
    with pytest.raises(ValueError):
        linalg.polar(jnp.ones(3))
    with pytest.raises(ValueError):
        linalg.polar(jnp.eye(3), side="up")
    with pytest.raises(ValueError):
        linalg.polar(jnp.eye(3), method="newton")
    with pytest.raises(NotImplementedError):
        linalg.polar(jnp.ones((2, 3)), side="right")


@pytest.mark.spec("SLA-13")
@pytest.mark.parametrize("method", ["schur", "eigen"])
def test_solve_sylvester(jax, jnp, linalg, method):
    A, B, C = rand((3, 3)), rand((4, 4), seed=1), rand((3, 4), seed=2)
    x = linalg.solve_sylvester(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C),
                               method=method)
    assert x.dtype == np.float32
    close(x, sla.solve_sylvester(A.astype(np.float64), B, C), rtol=1e-3, atol=1e-3)
    if method == "eigen":
        return
    Cb = rand((2, 3, 4), seed=3)
    xb = linalg.solve_sylvester(jnp.asarray(A), jnp.asarray(B), jnp.asarray(Cb),
                                method=method)
    close(xb[1], sla.solve_sylvester(A.astype(np.float64), B, Cb[1]), rtol=1e-3,
          atol=1e-3)
    # No solution: eig(B) = -eig(A).
    bad = linalg.solve_sylvester(jnp.asarray(A), jnp.asarray(-A), jnp.asarray(C[:, :3]),
                                 method=method, tol=1e-4)
    assert np.isnan(np.asarray(bad)).all()
    with pytest.raises(ValueError):
        linalg.solve_sylvester(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C.T))
    with pytest.raises(ValueError):
        linalg.solve_sylvester(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C),
                               method="qr")


@pytest.mark.spec("SLA-14")
@pytest.mark.parametrize("dtype", [np.float32])
def test_eigh_tridiagonal(jax, jnp, linalg, dtype):
    n = 6
    d = rand(n, np.float32).astype(dtype)
    e = rand(n - 1, dtype, 1)
    T = np.diag(d) + np.diag(e, 1) + np.diag(np.conj(e), -1)
    want = np.linalg.eigvalsh(T.astype(np.complex128))
    w = linalg.eigh_tridiagonal(jnp.asarray(d), jnp.asarray(e), eigvals_only=True)
    assert w.dtype == np.float32
    close(w, want)
    w, v = linalg.eigh_tridiagonal(jnp.asarray(d), jnp.asarray(e))
    v = np.asarray(v)
    assert v.dtype == dtype
    close(T @ v, v * np.asarray(w), atol=1e-4)
    close(v.conj().T @ v, np.eye(n), atol=1e-4)
    sel = linalg.eigh_tridiagonal(jnp.asarray(d), jnp.asarray(e), eigvals_only=True,
                                  select="i", select_range=(1, 3))
    close(sel, want[1:4])
    ec = rand(n - 1, np.complex64, 2)
    Tc = np.diag(d) + np.diag(ec, 1) + np.diag(np.conj(ec), -1)
    wc = linalg.eigh_tridiagonal(jnp.asarray(d.astype(np.complex64)), jnp.asarray(ec),
                                 eigvals_only=True)
    assert wc.dtype == np.float32
    close(wc, np.linalg.eigvalsh(Tc))


@pytest.mark.spec("SLA-14")
def test_eigh_tridiagonal_errors(jnp, linalg):
    d, e = jnp.ones(3), jnp.ones(2)
    with pytest.raises(NotImplementedError):
        linalg.eigh_tridiagonal(d, e, eigvals_only=True, select="v",
                                select_range=(0, 1))
    with pytest.raises(ValueError):
        linalg.eigh_tridiagonal(d, e, eigvals_only=True, select="i")
    with pytest.raises(ValueError):
        linalg.eigh_tridiagonal(d, e, eigvals_only=True, select="x")
    with pytest.raises(TypeError):
        linalg.eigh_tridiagonal(d, jnp.ones(2, np.int32), eigvals_only=True)
    with pytest.raises(TypeError):
        linalg.eigh_tridiagonal(jnp.ones(3, np.int32), jnp.ones(2, np.int32),
                                eigvals_only=True)
