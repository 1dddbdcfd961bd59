"""Conformance: the rest of jax.lax.linalg (SPEC LIN-1 .. LIN-9).

Decompositions whose phases or orders are LAPACK's are checked by
reconstruction (``A v = v w``, ``A = Q T Q^H``...) and against NumPy/SciPy
where the result is unique; error messages were recorded from JAX 0.10.2.
Derivatives use the implementation's ``check_grads``; ``vmap`` is compared
with a loop over the examples.
"""
import importlib
import warnings

import numpy as np
import pytest
import scipy.linalg

R = np.random.RandomState(11)
SQ = R.randn(2, 4, 4)
CSQ = SQ + 1j * R.randn(2, 4, 4)
SYM = SQ + np.swapaxes(SQ, -1, -2)
HERM = CSQ + np.conj(np.swapaxes(CSQ, -1, -2))
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}
DTYPES = ["float32", "float64", "complex64", "complex128"]


@pytest.fixture(scope="session")
def L(jax):
    return importlib.import_module(jax.__name__ + ".lax.linalg")


def close(got, want, tol=1e-10):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def raises(exc, match, fn):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == match, str(info.value)


def _H(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _input(dtype, real=SQ, cplx=CSQ):
    return (cplx if dtype.startswith("complex") else real).astype(dtype)


def _needs_x64(jax, dtype):
    if dtype in ("float64", "complex128"):
        jax.config.update("jax_enable_x64", True)


def _cdtype(dtype):
    return str(np.result_type(dtype, np.complex64))


def _loop(f, *args):
    """``f`` on each example of stacked ``args``, restacked (a vmap reference)."""
    outs = [f(*(a[i] for a in args)) for i in range(len(args[0]))]
    if isinstance(outs[0], (list, tuple)):
        return [np.stack([np.asarray(o[j]) for o in outs]) for j in range(len(outs[0]))]
    return np.stack([np.asarray(o) for o in outs])


# ---------------------------------------------------------------------------
# eig (LIN-1)
# ---------------------------------------------------------------------------

@pytest.mark.spec("LIN-1")
@pytest.mark.parametrize("dtype", DTYPES)
def test_eig_reconstructs(jax, L, dtype):
    _needs_x64(jax, dtype)
    x = _input(dtype)
    w, vl, vr = L.eig(x)
    tol = TOL[dtype] * 10
    for out in (w, vl, vr):
        assert str(out.dtype) == _cdtype(dtype)
    w, vl, vr = map(np.asarray, (w, vl, vr))
    xd = x.astype(np.complex128)
    close(xd @ vr, vr * w[..., None, :], tol)
    close(_H(vl) @ xd, w[..., :, None] * _H(vl), tol)
    close(np.linalg.norm(vr, axis=-2), np.ones(w.shape), tol)
    close(np.sort_complex(w.reshape(-1)), np.sort_complex(np.linalg.eigvals(xd).reshape(-1)), tol)
    # LAPACK's normalisation: the largest component of each vector is real.
    big = np.take_along_axis(vr, np.abs(vr).argmax(axis=-2)[..., None, :], axis=-2)
    close(big.imag, np.zeros(big.shape), tol)


@pytest.mark.spec("LIN-1")
def test_eig_output_selection_and_weak_type(jax, L):
    x = SQ[0].astype(np.float32)
    assert len(L.eig(x)) == 3
    assert len(L.eig(x, compute_left_eigenvectors=False)) == 2
    only_w = L.eig(x, compute_left_eigenvectors=False, compute_right_eigenvectors=False)
    assert len(only_w) == 1 and only_w[0].shape == (4,)
    close(L.eig(x, compute_left_eigenvectors=False)[1], L.eig(x)[2], 1e-5)
    weak = jax.lax.broadcast(2.0, (2, 2))
    assert all(o.weak_type for o in L.eig(weak))
    assert not any(o.weak_type for o in L.eig(x))
    empty = L.eig(np.zeros((3, 0, 0), np.float32))
    assert [o.shape for o in empty] == [(3, 0), (3, 0, 0), (3, 0, 0)]


@pytest.mark.spec("LIN-1")
def test_eig_errors(L):
    x = SQ[0].astype(np.float32)
    raises(TypeError, "Input 0 to eig must have rank at least 2, but got shape=(3,)",
           lambda: L.eig(x[0, :3]))
    raises(ValueError, "The input to eig must be a square matrix. Got shape (2, 3).",
           lambda: L.eig(x[:2, :3]))
    raises(TypeError, "eig does not accept dtype int32 at position 0. Accepted dtypes at "
           "position 0 are subtypes of floating, complexfloating.",
           lambda: L.eig(np.eye(2, dtype=np.int32)))
    with pytest.raises(TypeError, match="Error interpreting argument to eig as a JAX value"):
        L.eig([[1., 2.], [3., 4.]])
    raises(ValueError, "Only the lapack implementation is supported on CPU.",
           lambda: L.eig(x, implementation=L.EigImplementation.MAGMA))
    close(L.eig(x, implementation=L.EigImplementation.LAPACK)[0], L.eig(x)[0], 0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        L.eig(x, use_magma=False)
    assert any(issubclass(c.category, DeprecationWarning) and "use_magma is deprecated"
               in str(c.message) for c in caught)
    with pytest.warns(DeprecationWarning):
        with pytest.raises(ValueError, match="Only the lapack implementation"):
            L.eig(x, use_magma=True)


@pytest.mark.spec("LIN-1")
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eig_derivatives(jax, L, test_util, x64, dtype):
    x = _input(dtype)[0] + 3 * np.diag(np.arange(4.))
    eigvals = lambda a: L.eig(a, compute_left_eigenvectors=False,  # noqa: E731
                              compute_right_eigenvectors=False)[0]
    test_util.check_grads(eigvals, (x,), order=1, modes=("fwd", "rev"), atol=1e-4, rtol=1e-4)
    # dw_j = (V^-1 dA V)_jj
    t = R.randn(4, 4)
    w, dw = jax.jvp(eigvals, (x,), (t.astype(dtype),))
    _, _, vr = L.eig(x)
    vr = np.asarray(vr)
    close(dw, np.diag(np.linalg.solve(vr, t) @ vr), 1e-8)
    for left in (True, False):
        f = lambda a: L.eig(a, compute_left_eigenvectors=left,  # noqa: E731
                            enable_eigvec_derivs=True)
        test_util.check_grads(f, (x,), order=1, modes=("fwd", "rev"), atol=1e-4,
                              rtol=1e-4)
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        jax.jvp(L.eig, (x,), (x,))


@pytest.mark.spec("LIN-1")
def test_eig_vmap_and_jaxpr(jax, L):
    xs = np.stack([SQ[0], SQ[1], SQ[0] + SQ[1]]).astype(np.float32)
    for got, want in zip(jax.vmap(L.eig, in_axes=1)(np.swapaxes(xs, 0, 1)), _loop(L.eig, xs)):
        close(got, want, 1e-5)
    text = str(jax.make_jaxpr(L.eig)(xs[0]))
    assert "b:c64[4] c:c64[4,4] d:c64[4,4] = eig[" in text
    for param in ("compute_left_eigenvectors=True", "compute_right_eigenvectors=True",
                  "enable_eigvec_derivs=False", "implementation=None"):
        assert param in text


# ---------------------------------------------------------------------------
# schur (LIN-2), hessenberg (LIN-3), tridiagonal (LIN-4)
# ---------------------------------------------------------------------------

@pytest.mark.spec("LIN-2")
@pytest.mark.parametrize("dtype", DTYPES)
def test_schur(jax, L, dtype):
    _needs_x64(jax, dtype)
    x = _input(dtype)
    t, q = L.schur(x)
    assert str(t.dtype) == dtype and str(q.dtype) == dtype
    t, q = np.asarray(t), np.asarray(q)
    tol = TOL[dtype] * 10
    close(q @ t @ _H(q), x, tol)
    close(_H(q) @ q, np.broadcast_to(np.eye(4), x.shape), tol)
    below = -2 if dtype.startswith("float") else -1   # 2x2 blocks for real input
    close(np.tril(t, below), np.zeros(x.shape), tol)
    want_t, _ = scipy.linalg.schur(x[0].astype(dtype))
    close(np.diagonal(t[0]).sum(), np.trace(want_t), tol * 10)
    only_t = L.schur(x, compute_schur_vectors=False)
    assert len(only_t) == 1
    close(only_t[0], t, tol)


@pytest.mark.spec("LIN-2")
def test_schur_errors_vmap_jaxpr(jax, L):
    x = SQ[0].astype(np.float32)
    raises(ValueError, "The input to schur must be a square matrix. Got shape (2, 3).",
           lambda: L.schur(x[:2, :3]))
    raises(NotImplementedError, "The sort feature of LAPACK's gees routine is not "
           "implemented.", lambda: L.schur(x, sort_eig_vals=True))
    raises(NotImplementedError, "Differentiation rule for 'schur' not implemented",
           lambda: jax.jvp(L.schur, (x,), (x,)))
    for got, want in zip(jax.vmap(L.schur)(SQ.astype(np.float32)), _loop(L.schur, SQ)):
        close(got, want, 1e-5)
    text = str(jax.make_jaxpr(L.schur)(x))
    assert ("b:f32[4,4] c:f32[4,4] = schur[\n      compute_schur_vectors=True\n"
            "      select_callable=None\n      sort_eig_vals=False\n    ] a") in text


def _hessenberg_q(L, h, taus):
    """Q of ``a = Q H Q^H``: the reflectors start one row below the diagonal."""
    n = h.shape[-1]
    q = np.zeros(h.shape, np.result_type(h.dtype, taus.dtype))
    q[..., 0, 0] = 1
    q[..., 1:, 1:] = np.asarray(L.householder_product(h[..., 1:, :n - 1], taus))
    return q


@pytest.mark.spec("LIN-3")
@pytest.mark.parametrize("dtype", DTYPES)
def test_hessenberg(jax, L, dtype):
    _needs_x64(jax, dtype)
    x = _input(dtype)
    h, taus = L.hessenberg(x)
    assert str(h.dtype) == dtype and str(taus.dtype) == dtype
    assert taus.shape == (2, 3)
    h, taus = np.asarray(h), np.asarray(taus)
    q = _hessenberg_q(L, h, taus)
    tol = TOL[dtype] * 10
    close(q @ np.triu(h, -1) @ _H(q), x, tol)
    want_h = scipy.linalg.hessenberg(x[0])
    close(np.abs(np.triu(h[0], -1)), np.abs(want_h), tol * 10)


@pytest.mark.spec("LIN-3")
def test_hessenberg_errors_and_jaxpr(jax, L):
    x = SQ[0].astype(np.float32)
    raises(ValueError, "Argument to Hessenberg reduction must have shape [..., n, n], got "
           "shape (2, 3)", lambda: L.hessenberg(x[:2, :3]))
    raises(TypeError, "hessenberg does not accept dtype int32 at position 0. Accepted "
           "dtypes at position 0 are subtypes of floating, complexfloating.",
           lambda: L.hessenberg(np.eye(2, dtype=np.int32)))
    assert [o.shape for o in L.hessenberg(np.ones((1, 1), np.float32))] == [(1, 1), (0,)]
    text = str(jax.make_jaxpr(L.hessenberg)(x))
    assert "b:f32[4,4] c:f32[3] = hessenberg a in (b, c)" in text
    for got, want in zip(jax.vmap(L.hessenberg)(SQ), _loop(L.hessenberg, SQ)):
        close(got, want, 1e-5)


@pytest.mark.spec("LIN-4")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [True, False])
def test_tridiagonal(jax, L, dtype, lower):
    _needs_x64(jax, dtype)
    x = _input(dtype, SYM, HERM)
    # Only the named triangle is read: garbage in the other changes nothing.
    garbage = np.triu(np.full(x.shape, 7.), 1) if lower else np.tril(np.full(x.shape, 7.), -1)
    a, d, e, taus = L.tridiagonal((x + garbage).astype(dtype), lower=lower)
    real = str(np.finfo(dtype).dtype)
    got_dtypes = tuple(str(v.dtype) for v in (a, d, e, taus))
    assert got_dtypes == (dtype, real, real, dtype)
    assert (d.shape, e.shape, taus.shape) == ((2, 4), (2, 3), (2, 3))
    d, e = np.asarray(d, np.float64), np.asarray(e, np.float64)
    band = np.stack([np.diag(di) + np.diag(ei, 1) + np.diag(ei, -1) for di, ei in zip(d, e)])
    close(np.linalg.eigvalsh(band), np.linalg.eigvalsh(x), TOL[dtype] * 20)
    a = np.asarray(a)
    on_band = np.diagonal(a, axis1=-2, axis2=-1).real
    close(on_band, d, TOL[dtype])


@pytest.mark.spec("LIN-4")
def test_tridiagonal_errors_and_jaxpr(jax, L):
    x = SYM[0].astype(np.float32)
    raises(ValueError, "The input to tridiagonal must be a square matrix. Got shape (0, 0).",
           lambda: L.tridiagonal(np.zeros((0, 0), np.float32)))
    raises(ValueError, "The input to tridiagonal must be a square matrix. Got shape (2, 3).",
           lambda: L.tridiagonal(x[:2, :3]))
    raises(TypeError, "asarray: expected ArrayLike, got [[1.0, 2.0], [2.0, 1.0]] of type "
           "<class 'list'>.", lambda: L.tridiagonal([[1., 2.], [2., 1.]]))
    text = str(jax.make_jaxpr(lambda a: L.tridiagonal(a, lower=False))(x))
    assert "b:f32[4,4] c:f32[4] d:f32[3] e:f32[3] = tridiagonal[lower=False] a" in text
    for got, want in zip(jax.vmap(L.tridiagonal)(SYM), _loop(L.tridiagonal, SYM)):
        close(got, want, 1e-5)


# ---------------------------------------------------------------------------
# tridiagonal_solve (LIN-5)
# ---------------------------------------------------------------------------

def _band(dl, d, du):
    m = d.shape[-1]
    out = np.zeros(d.shape + (m,), np.result_type(dl, d, du))
    idx = np.arange(m)
    out[..., idx, idx] = d
    out[..., idx[1:], idx[:-1]] = dl[..., 1:]
    out[..., idx[:-1], idx[1:]] = du[..., :-1]
    return out


def _system(dtype, batch=(2,)):
    n = int(np.prod(batch))
    r = np.resize(_input(dtype).reshape(-1), n * 24)
    dl, d, du = (r[i * 4 * n:(i + 1) * 4 * n].reshape(batch + (4,)) for i in range(3))
    b = r[12 * n:].reshape(batch + (4, 3))
    return [v.astype(dtype) for v in (dl, d + 4, du, b)]


@pytest.mark.spec("LIN-5")
@pytest.mark.parametrize("dtype", DTYPES)
def test_tridiagonal_solve_values(jax, L, dtype):
    _needs_x64(jax, dtype)
    dl, d, du, b = _system(dtype)
    x = L.tridiagonal_solve(dl, d, du, b)
    assert str(x.dtype) == dtype and x.shape == b.shape
    close(x, np.linalg.solve(_band(dl, d, du), b), TOL[dtype] * 10)
    zero = np.zeros((3,), dtype)
    sing = L.tridiagonal_solve(zero, zero, zero, np.ones((3, 2), dtype))
    assert np.isnan(np.asarray(sing)).all()
    pert = L.tridiagonal_solve(zero, zero, zero, np.ones((3, 2), dtype), perturb_singular=True)
    assert np.isfinite(np.asarray(pert)).all()
    close(L.tridiagonal_solve(dl, d, du, b, perturb_singular=True), x, TOL[dtype] * 10)


@pytest.mark.spec("LIN-5")
def test_tridiagonal_solve_errors(jax, L):
    dl, d, du, b = _system("float32", batch=())
    raises(TypeError, "Input 3 to tridiagonal_solve must have rank at least 2, but got "
           "shape=(4,)", lambda: L.tridiagonal_solve(dl, d, du, b[:, 0]))
    raises(TypeError, "tridiagonal_solve requires that all diagonal arguments have the "
           "same shape.", lambda: L.tridiagonal_solve(dl[:2], d, du, b))
    raises(TypeError, "tridiagonal_solve requires that the leading ndim-1 dimensions of b "
           "equal the dimensions of the diagonal arguments.",
           lambda: L.tridiagonal_solve(dl, d, du, b[:2]))
    raises(TypeError, "tridiagonal_solve does not accept dtype int32 at position 0. "
           "Accepted dtypes at position 0 are subtypes of floating, complexfloating.",
           lambda: L.tridiagonal_solve(*(np.ones((3,), np.int32),) * 3,
                                       np.ones((3, 1), np.int32)))
    weak = jax.lax.broadcast(2.0, (3,))
    assert L.tridiagonal_solve(weak, weak, weak, jax.lax.broadcast(1.0, (3, 2))).weak_type
    assert not L.tridiagonal_solve(dl, d, du, b).weak_type


@pytest.mark.spec("LIN-5")
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_tridiagonal_solve_derivatives(jax, L, test_util, x64, dtype):
    args = _system(dtype, batch=())
    test_util.check_grads(L.tridiagonal_solve, args, order=2, modes=("fwd", "rev"))
    # The transpose in b solves with A^T.
    dl, d, du, b = args
    ct = np.ones(b.shape, dtype)
    _, vjp = jax.vjp(lambda b: L.tridiagonal_solve(dl, d, du, b), b)
    close(vjp(ct)[0], np.linalg.solve(_band(dl, d, du).T, ct), 1e-10)


@pytest.mark.spec("LIN-5")
@pytest.mark.parametrize("in_axes", [(None, None, None, 0), (None, None, None, 2),
                                     (0, None, 0, 0), (0, 0, 0, None)])
def test_tridiagonal_solve_vmap(jax, L, in_axes):
    dl, d, du, b = _system("float32", batch=(3,))
    stacked = [dl, d, du, b]
    single = [x[0] for x in stacked]
    args = [s if ax is None else np.moveaxis(x, 0, ax)
            for s, x, ax in zip(single, stacked, in_axes)]
    got = jax.vmap(L.tridiagonal_solve, in_axes=in_axes)(*args)
    want = np.stack([np.asarray(L.tridiagonal_solve(
        *(s if ax is None else x[i] for s, x, ax in zip(single, stacked, in_axes))))
        for i in range(3)])
    close(got, want, 1e-5)
    text = str(jax.make_jaxpr(L.tridiagonal_solve)(*single))
    assert "e:f32[4,3] = tridiagonal_solve[perturb_singular=False] a b c d" in text


# ---------------------------------------------------------------------------
# householder_product, ormqr (LIN-6)
# ---------------------------------------------------------------------------

def _raw_qr(a):
    """LAPACK's geqrf output: reflectors below R, and their scale factors."""
    h, tau = np.linalg.qr(a, mode="raw")
    return np.ascontiguousarray(h.T), tau


@pytest.mark.spec("LIN-6")
@pytest.mark.parametrize("dtype", DTYPES)
def test_householder_product(jax, L, dtype):
    _needs_x64(jax, dtype)
    a = _input(dtype)[0, :, :3]
    h, tau = _raw_qr(a.astype(np.complex128 if dtype.startswith("complex") else np.float64))
    q = L.householder_product(h.astype(dtype), tau.astype(dtype))
    assert str(q.dtype) == dtype and q.shape == (4, 3)
    close(q, np.linalg.qr(a.astype(q.dtype))[0], TOL[dtype] * 10)
    batch = np.stack([h, h]).astype(dtype), np.stack([tau, tau]).astype(dtype)
    close(jax.vmap(L.householder_product)(*batch), np.stack([q, q]), TOL[dtype])


@pytest.mark.spec("LIN-6")
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_ormqr(jax, L, x64, dtype, left, transpose):
    a = _input(dtype)[0, :, :3]
    h, tau = _raw_qr(a)
    q = np.linalg.qr(a, mode="complete")[0]
    op = _H(q) if transpose else q
    c = _input(dtype)[1] if left else _input(dtype)[1][:2]
    got = L.ormqr(h, tau, c, left=left, transpose=transpose)
    close(got, op @ c if left else c @ op, 1e-10)
    mapped = jax.vmap(lambda c: L.ormqr(h, tau, c, left=left, transpose=transpose))
    got = mapped(np.stack([c, 2 * c]))
    close(got[1], 2 * (op @ c if left else c @ op), 1e-10)


@pytest.mark.spec("LIN-6")
def test_householder_ormqr_errors_and_jaxpr(jax, L):
    a = SQ[0].astype(np.float32)
    t = a[0, :2]
    raises(ValueError, "The first argument to householder_product must have at least as "
           "many rows as columns, got shape (2, 3)", lambda: L.householder_product(a[:2, :3], t))
    raises(ValueError, "The second argument to householder_product must not have more rows "
           "than the minimum of the first argument's rows and columns.",
           lambda: L.householder_product(a[:, :2], a[0, :3]))
    raises(TypeError, "All inputs to householder_product must have the same number of batch "
           "dimensions, but got [1, 0] batch dimensions for the inputs.",
           lambda: L.householder_product(np.stack([a, a]), t))
    raises(ValueError, "ormqr with left=True expects c to have the same number of rows as "
           "the Householder matrix a. Got a shape (4, 4) and c shape (2, 4).",
           lambda: L.ormqr(a, t, a[:2]))
    raises(ValueError, "ormqr with left=False expects c to have the same number of columns "
           "as the Householder matrix a has rows. Got a shape (4, 4) and c shape (4, 2).",
           lambda: L.ormqr(a, t, a[:, :2], left=False))
    raises(NotImplementedError, "Differentiation rule for 'householder_product' not "
           "implemented", lambda: jax.jvp(L.householder_product, (a, t), (a, t)))
    text = str(jax.make_jaxpr(L.householder_product)(a, t))
    assert "c:f32[4,4] = householder_product a b" in text
    text = str(jax.make_jaxpr(lambda a, t, c: L.ormqr(a, t, c, left=False))(a, t, a))
    assert "d:f32[4,4] = ormqr[left=False transpose=False] a b c" in text


# ---------------------------------------------------------------------------
# symmetric_product (LIN-7), cholesky_update and lu_pivots_to_permutation (LIN-8)
# ---------------------------------------------------------------------------

@pytest.mark.spec("LIN-7")
def test_symmetric_product(jax, L):
    a, c = SQ[:, :, :3].astype(np.float32), SYM.astype(np.float32)
    want = 2 * a @ np.swapaxes(a, -1, -2) + 0.5 * c
    out = L.symmetric_product(a, c, alpha=2., beta=0.5)
    close(np.tril(out), np.tril(want), 1e-5)
    close(L.symmetric_product(a, c, alpha=2., beta=0.5, symmetrize_output=True), want, 1e-5)
    close(jax.vmap(L.symmetric_product, in_axes=(0, None))(a, c[0]),
          a @ np.swapaxes(a, -1, -2), 1e-5)
    raises(ValueError, "symmetric_update expects a rectangular matrix of shape (m, n) and a "
           "square matrix of shape (n, n). Got shapes (2, 3) and (4, 4).",
           lambda: L.symmetric_product(a[0, :2], c[0]))
    raises(TypeError, "symmetric_product does not accept dtype complex64 at position 0. "
           "Accepted dtypes at position 0 are subtypes of floating.",
           lambda: L.symmetric_product(CSQ[0].astype(np.complex64), CSQ[0].astype(np.complex64)))
    text = str(jax.make_jaxpr(L.symmetric_product)(a[0], c[0]))
    assert "c:f32[4,4] = symmetric_product[alpha=1.0 beta=0.0] a b" in text


@pytest.mark.spec("LIN-8")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cholesky_update(jax, L, dtype):
    _needs_x64(jax, dtype)
    spd = SYM[0] @ SYM[0] + np.eye(4)
    r = np.linalg.cholesky(spd).T.astype(dtype)
    w = SQ[0, 0].astype(dtype)
    new = np.asarray(L.cholesky_update(r, w))
    assert str(new.dtype) == dtype
    close(new.T @ new, spd + np.outer(w, w), TOL[dtype] * 100)
    close(np.tril(new, -1), np.zeros((4, 4)), TOL[dtype])


@pytest.mark.spec("LIN-8")
def test_cholesky_update_errors(jax, L):
    r, w = np.eye(3, dtype=np.float32), np.ones(3, np.float32)
    raises(TypeError, "Input 0 to cholesky_update must have a rank of exactly 2, but got "
           "shape=(2, 3, 3)", lambda: L.cholesky_update(np.stack([r, r]), np.stack([w, w])))
    raises(ValueError, "Rank-1 update to Cholesky decomposition takes a square matrix and a "
           "vector of the same size as input. Got shapes (3, 3) and (2,) instead",
           lambda: L.cholesky_update(r, w[:2]))
    raises(TypeError, "cholesky_update does not accept dtype complex64 at position 0. "
           "Accepted dtypes at position 0 are subtypes of floating.",
           lambda: L.cholesky_update(r.astype(np.complex64), w.astype(np.complex64)))
    raises(NotImplementedError, "Batching rule for 'cholesky_update' not implemented",
           lambda: jax.vmap(L.cholesky_update)(np.stack([r, r]), np.stack([w, w])))
    assert "c:f32[3,3] = cholesky_update a b" in str(jax.make_jaxpr(L.cholesky_update)(r, w))


def _swaps_reference(pivots, m):
    """The swaps applied one by one, with JAX's indexing rules: negative
    counts from the end, reads clamp, out-of-range writes drop."""
    perm = list(range(m))
    for i, j in enumerate(pivots):
        j = j + m if j < 0 else j
        x, y = perm[i], perm[min(max(j, 0), m - 1)]
        perm[i] = y
        if 0 <= j < m:
            perm[j] = x
    return perm


@pytest.mark.spec("LIN-8")
def test_lu_pivots_to_permutation(jax, L):
    x = R.randn(3, 5, 5).astype(np.float32)
    _, pivots, perm = L.lu(x)
    got = L.lu_pivots_to_permutation(pivots, 5)
    assert str(got.dtype) == "int32"
    np.testing.assert_array_equal(got, perm)
    odd = np.array([[5, 2, 2], [-1, 0, 3], [-9, 1, 1]], np.int32)
    np.testing.assert_array_equal(L.lu_pivots_to_permutation(odd, 4),
                                  [_swaps_reference(p, 4) for p in odd])
    np.testing.assert_array_equal(jax.vmap(lambda p: L.lu_pivots_to_permutation(p, 4),
                                           in_axes=1)(odd.T), L.lu_pivots_to_permutation(odd, 4))
    raises(ValueError, "Output permutation size 2 has to exceed the trailing dimension of "
           "the pivots. Got pivots size 3", lambda: L.lu_pivots_to_permutation(odd[0], 2))
    raises(TypeError, "lu_pivots_to_permutation does not accept dtype float32 at position 0. "
           "Accepted dtypes at position 0 are subtypes of int32.",
           lambda: L.lu_pivots_to_permutation(odd[0].astype(np.float32), 4))
    raises(TypeError, "Input 0 to lu_pivots_to_permutation must have rank at least 1, but "
           "got shape=()", lambda: L.lu_pivots_to_permutation(np.int32(2), 4))
    text = str(jax.make_jaxpr(lambda p: L.lu_pivots_to_permutation(p, 4))(odd[0]))
    assert "b:i32[4] = lu_pivots_to_permutation[permutation_size=4] a" in text


# ---------------------------------------------------------------------------
# qdwh and the enums (LIN-9)
# ---------------------------------------------------------------------------

@pytest.mark.spec("LIN-9")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cols", [4, 3])
def test_qdwh(jax, L, dtype, cols):
    _needs_x64(jax, dtype)
    x = _input(dtype)[0, :, :cols]
    u, h, k, ok = L.qdwh(x)
    assert str(u.dtype) == dtype and str(h.dtype) == dtype
    int_ = "int64" if dtype in ("float64", "complex128") else "int32"
    assert str(k.dtype) == int_ and k.weak_type and str(ok.dtype) == "bool"
    assert bool(ok) and 0 < int(k) <= 10
    tol = TOL[dtype] * 50
    close(np.asarray(u) @ np.asarray(h), x, tol)
    close(_H(np.asarray(u)) @ np.asarray(u), np.eye(cols), tol)
    want_u, want_h = scipy.linalg.polar(x.astype(np.complex128 if dtype.startswith("c")
                                                 else np.float64))
    close(u, want_u, tol)
    close(h, want_h, tol)


@pytest.mark.spec("LIN-9")
def test_qdwh_options_and_errors(jax, L):
    x = SQ[0].astype(np.float32)
    u, h, _, _ = L.qdwh(x, dynamic_shape=(3, 2))
    bu, bh, _, _ = L.qdwh(x[:3, :2])
    close(np.asarray(u)[:3, :2], bu, 1e-5)
    close(np.asarray(u)[3:], np.zeros((1, 4)), 0)
    close(np.asarray(h)[:2, :2], bh, 1e-5)
    _, _, k, ok = L.qdwh(x, max_iterations=1)
    assert int(k) == 1 and not bool(ok)
    raises(ValueError, "The input matrix of shape M x N must have M >= N.",
           lambda: L.qdwh(x[:2]))
    raises(ValueError, "data type <class 'numpy.int32'> not inexact",
           lambda: L.qdwh(np.eye(3, dtype=np.int32)))
    with pytest.raises(ValueError):
        L.qdwh(np.stack([x, x]))


@pytest.mark.spec("LIN-9")
def test_algorithm_enums(jax, L):
    assert [(m.name, m.value) for m in L.EigImplementation] == [
        ("CUSOLVER", "cusolver"), ("MAGMA", "magma"), ("LAPACK", "lapack")]
    assert [(m.name, m.value) for m in L.EighImplementation] == [
        ("QR", "qr"), ("JACOBI", "jacobi"), ("QDWH", "qdwh")]
    assert [(m.name, m.value) for m in L.SvdAlgorithm] == [
        ("DEFAULT", "default"), ("QR", "QR"), ("JACOBI", "Jacobi"), ("POLAR", "polar"),
        ("DIVIDE_AND_CONQUER", "divide_and_conquer")]
    x = SQ[0].astype(np.float32)
    s = np.linalg.svd(x.astype(np.float64), compute_uv=False)
    for alg in (L.SvdAlgorithm.DEFAULT, L.SvdAlgorithm.QR, L.SvdAlgorithm.DIVIDE_AND_CONQUER):
        u, got, vt = L.svd(x, algorithm=alg)
        close(got, s, 1e-5)
        close((np.asarray(u) * np.asarray(got)) @ np.asarray(vt), x, 1e-5)
    for alg in (L.SvdAlgorithm.JACOBI, L.SvdAlgorithm.POLAR):
        raises(NotImplementedError, "The SVD Jacobi and Polar algorithms are not "
               "implemented on CPU.", lambda: L.svd(x, algorithm=alg))
    text = str(jax.make_jaxpr(lambda a: L.svd(a, algorithm=L.SvdAlgorithm.QR))(x))
    assert "algorithm=SvdAlgorithm.QR" in text
    sym = SYM[0].astype(np.float32)
    close(L.eigh(sym, implementation=L.EighImplementation.QR)[1],
          np.linalg.eigvalsh(sym.astype(np.float64)), 1e-4)
    raises(NotImplementedError, "Jacobi implementation is not supported on CPU",
           lambda: L.eigh(sym, implementation=L.EighImplementation.JACOBI))
    raises(NotImplementedError, "QDWH implementation is only supported on TPU",
           lambda: L.eigh(sym, implementation=L.EighImplementation.QDWH))
    text = str(jax.make_jaxpr(lambda a: L.eigh(a, implementation=L.EighImplementation.QR))(sym))
    assert "algorithm=EighImplementation.QR" in text


@pytest.mark.spec("LIN-14")
def test_eig_of_non_finite_matrices(jnp, L):
    bad = np.eye(3, dtype=np.float32)
    bad[0, 1] = np.nan
    inf = np.eye(3, dtype=np.float32)
    inf[2, 0] = np.inf
    w, vl, vr = map(np.asarray, L.eig(np.stack([bad, np.eye(3, dtype=np.float32), inf])))
    for out in (w[0], vl[0], vr[0], w[2], vr[2]):
        assert np.isnan(out.real).all() and np.isnan(out.imag).all()
    close(w[1], np.ones(3), 1e-6)
    assert np.isnan(np.asarray(jnp.linalg.eigvals(bad)).imag).all()
