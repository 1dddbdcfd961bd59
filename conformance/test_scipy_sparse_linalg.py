"""Conformance: ``jax.scipy.sparse.linalg`` (SPEC SOP-11 .. SOP-17).

Solutions are checked against ``numpy.linalg.solve`` in float64 on small
well-conditioned systems, with a tolerance matching the solver's ``tol``.
"""
import importlib

import numpy as np
import pytest

N = 4


@pytest.fixture(scope="module")
def L(jax):
    return importlib.import_module(jax.__name__ + ".scipy.sparse.linalg")


def spd(seed=0):
    m = np.random.RandomState(seed).randn(N, N)
    return (m @ m.T + N * np.eye(N)).astype(np.float32)


def general(seed=1):
    return (3 * np.eye(N) + np.random.RandomState(seed).randn(N, N)).astype(np.float32)


def rhs(seed=2):
    return np.random.RandomState(seed).randn(N).astype(np.float32)


def close(x, expected, tol=1e-4):
    np.testing.assert_allclose(np.asarray(x), expected, rtol=tol, atol=tol)


@pytest.mark.spec("SOP-11")
def test_module_and_pytree_solve(jax, L):
    sparse = importlib.import_module(jax.__name__ + ".scipy.sparse")
    assert sparse.linalg is L
    assert {"cg", "bicgstab", "gmres"} <= set(dir(L))

    def matvec(x):
        return {"a": x["a"] + 0.5 * x["b"], "b": 0.5 * x["a"] + x["b"]}

    for solver in (L.cg, L.bicgstab, L.gmres):
        x, _ = solver(matvec, {"a": 1.0, "b": -4.0})
        assert set(x) == {"a", "b"}
        close(x["a"], 4.0)
        close(x["b"], -6.0)


@pytest.mark.spec("SOP-12")
def test_operators_and_errors(jnp, L):
    a, b = spd(), rhs()
    expected = np.linalg.solve(a.astype(np.float64), b)

    class MatMul:
        shape = (N, N)

        def __matmul__(self, x):
            return jnp.asarray(a) @ x

    for op in (a, jnp.asarray(a), MatMul(), lambda x: jnp.asarray(a) @ x):
        close(L.cg(op, jnp.asarray(b))[0], expected)
    with pytest.raises(ValueError, match="matching tree structure"):
        L.cg(lambda x: x, {"x": jnp.zeros(2)}, {"y": jnp.zeros(2)})
    with pytest.raises(ValueError, match="matching shapes"):
        L.bicgstab(lambda x: x, jnp.zeros(2), jnp.zeros((2, 1)))
    with pytest.raises(ValueError, match="must be a square matrix"):
        L.cg(jnp.zeros((3, 2)), jnp.zeros(2))
    with pytest.raises(TypeError, match="either a function or ndarray"):
        L.cg([[1]], jnp.zeros(1))
    with pytest.raises(ValueError, match="matching tree structure"):
        L.gmres(lambda x: x, {"x": jnp.zeros(2)}, {"y": jnp.zeros(2)})


@pytest.mark.spec("SOP-13")
def test_cg(jnp, L):
    a, b = spd(), rhs()
    expected = np.linalg.solve(a.astype(np.float64), b)
    x, info = L.cg(jnp.asarray(a), jnp.asarray(b))
    assert info is None and x.dtype == jnp.float32
    close(x, expected)
    precond = np.diag(1 / np.diag(a)).astype(np.float32)
    close(L.cg(a, b, M=precond, x0=jnp.ones(N))[0], expected)
    # maxiter=1 from zero: one steepest-descent step.
    r = b.astype(np.float64)
    step = (r @ r) / (r @ a @ r) * r
    close(L.cg(a, b, maxiter=1)[0], step)
    ac = (a + 1j * np.triu(np.ones((N, N)), 1)).astype(np.complex64)
    ac = ac @ ac.conj().T
    xc, _ = L.cg(jnp.asarray(ac), jnp.asarray(b.astype(np.complex64)))
    assert xc.dtype == jnp.complex64
    close(xc, np.linalg.solve(ac.astype(np.complex128), b), tol=1e-3)


@pytest.mark.spec("SOP-14")
def test_bicgstab(jnp, L):
    a, b = general(), rhs()
    x, info = L.bicgstab(jnp.asarray(a), jnp.asarray(b))
    assert info is None
    close(x, np.linalg.solve(a.astype(np.float64), b))
    exact = np.linalg.inv(a).astype(np.float32)
    close(L.bicgstab(a, b, M=exact)[0], np.linalg.solve(a.astype(np.float64), b))
    weak, _ = L.bicgstab(lambda v: v, 1.0)
    assert weak.dtype == jnp.float32 and "weak_type=True" in repr(weak)
    with pytest.raises(TypeError):
        L.bicgstab(a, jnp.arange(N))


@pytest.mark.spec("SOP-15")
@pytest.mark.parametrize("method", ["batched", "incremental"])
def test_gmres(jnp, L, method):
    a, b = general(), rhs()
    expected = np.linalg.solve(a.astype(np.float64), b)
    x, info = L.gmres(jnp.asarray(a), jnp.asarray(b), solve_method=method)
    assert info.dtype == jnp.int32 and int(info) == 0
    close(x, expected)
    x, _ = L.gmres(a, b, solve_method=method, restart=2, tol=1e-6)
    close(x, expected)
    with pytest.raises(ValueError, match="invalid solve_method"):
        L.gmres(a, b, solve_method="qr")


@pytest.mark.spec("SOP-16")
def test_solver_derivatives(jax, jnp, L):
    a, b = spd(), rhs()
    inv = np.linalg.inv(a.astype(np.float64))

    def loss(m, v):
        return jnp.sum(L.cg(lambda x: m @ x, v)[0])

    ga, gb = jax.grad(loss, (0, 1))(jnp.asarray(a), jnp.asarray(b))
    # d/db sum(A^-1 b) = A^-T 1;  d/dA = -(A^-T 1) x^T.
    gb_ref = inv.T @ np.ones(N)
    close(gb, gb_ref, tol=1e-3)
    close(ga, -np.outer(gb_ref, inv @ b), tol=1e-3)
    n = general()
    tangent = jax.jvp(lambda v: L.gmres(jnp.asarray(n), v)[0], (jnp.asarray(b),),
                      (jnp.ones(N),))[1]
    close(tangent, np.linalg.solve(n.astype(np.float64), np.ones(N)), tol=1e-3)


@pytest.mark.spec("SOP-17")
def test_jit_and_vmap(jax, jnp, L):
    a, n, b = spd(), general(), rhs()
    x = jax.jit(lambda m, v: L.cg(m, v)[0])(jnp.asarray(a), jnp.asarray(b))
    close(x, np.linalg.solve(a.astype(np.float64), b))
    bs = np.stack([b, 2 * b + 1])
    xs = jax.vmap(lambda v: L.bicgstab(jnp.asarray(n), v)[0])(jnp.asarray(bs))
    close(xs, np.linalg.solve(n.astype(np.float64), bs.T).T)
