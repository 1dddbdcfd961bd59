"""Conformance: jnp.linalg eig, eigvals, cond, lstsq, multi_dot, tensorinv and
tensorsolve (SPEC LIN-10 .. LIN-13).

Values are compared with NumPy (eigenvalues as sorted sets, eigenvectors by
reconstruction); error messages were recorded from JAX 0.10.2.
"""
import functools

import numpy as np
import pytest

R = np.random.RandomState(5)
SQ = R.randn(2, 4, 4)
CSQ = SQ + 1j * R.randn(2, 4, 4)
TALL = R.randn(5, 3)
RHS = R.randn(5, 2)


def close(got, want, tol=1e-10):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def raises(exc, match, fn):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == match, str(info.value)


# ---------------------------------------------------------------------------
# eig, eigvals (LIN-10)
# ---------------------------------------------------------------------------

@pytest.mark.spec("LIN-10")
@pytest.mark.parametrize("x", [SQ, CSQ], ids=["real", "complex"])
def test_eig_values(jnp, x64, x):
    res = jnp.linalg.eig(x)
    assert type(res).__name__ == "EigResult"
    assert res._fields == ("eigenvalues", "eigenvectors")
    w, v = map(np.asarray, res)
    assert w.dtype == np.complex128 and v.dtype == np.complex128
    close(x @ v, v * w[..., None, :])
    for got, want in zip(w, np.linalg.eigvals(x)):
        close(np.sort_complex(got), np.sort_complex(want))
    close(jnp.linalg.eigvals(x), w)


@pytest.mark.spec("LIN-10")
def test_eig_dtypes_x32(jax, jnp):
    for dt in (np.float32, np.int32, np.float64):
        w, v = jnp.linalg.eig(SQ[0].astype(dt))
        assert str(w.dtype) == "complex64" and str(v.dtype) == "complex64"
    assert str(jnp.linalg.eigvals(np.eye(3, dtype=np.int32)).dtype) == "complex64"
    close(jnp.linalg.eigvals(np.diag([1., 2., 3.]).astype(np.float32)), [1, 2, 3], 1e-6)
    text = str(jax.make_jaxpr(jnp.linalg.eig)(SQ[0].astype(np.float32)))
    assert "compute_left_eigenvectors=False" in text
    assert "compute_right_eigenvectors=True" in text


@pytest.mark.spec("LIN-10")
def test_eig_derivatives(jax, jnp, test_util, x64):
    x = SQ[0] + 3 * np.diag(np.arange(4.))
    test_util.check_grads(lambda a: jnp.linalg.eigvals(a).real, (x,), order=1,
                          modes=("fwd", "rev"), atol=1e-4, rtol=1e-4)
    with pytest.raises(NotImplementedError):
        jax.jvp(jnp.linalg.eig, (x,), (x,))


# ---------------------------------------------------------------------------
# cond (LIN-11)
# ---------------------------------------------------------------------------

@pytest.mark.spec("LIN-11")
@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, np.inf, -np.inf, "fro"])
def test_cond_values(jnp, x64, p):
    for x in (SQ, CSQ):
        close(jnp.linalg.cond(x, p), np.linalg.cond(x, p), 1e-8)
    if p not in (None, 2, -2):
        singular = np.array([[1., 2.], [2., 4.]])
        assert np.isinf(np.asarray(jnp.linalg.cond(singular, p)))
        assert np.isnan(np.asarray(jnp.linalg.cond(np.array([[np.nan, 1.], [1., 1.]]), p)))


@pytest.mark.spec("LIN-11")
def test_cond_errors_and_dtype(jnp):
    assert str(jnp.linalg.cond(np.eye(2, dtype=np.int32)).dtype) == "float32"
    close(jnp.linalg.cond(TALL.astype(np.float32)), np.linalg.cond(TALL), 1e-4)
    raises(ValueError, "jnp.linalg.cond: input array must be at least 2D; got "
           "arr.shape=(3,)", lambda: jnp.linalg.cond(np.ones(3)))
    raises(ValueError, "jnp.linalg.cond: input array must not be empty; got "
           "arr.shape=(0, 3)", lambda: jnp.linalg.cond(np.ones((0, 3))))
    raises(ValueError, "jnp.linalg.cond: for p=1, array must be square; got "
           "arr.shape=(2, 3)", lambda: jnp.linalg.cond(np.ones((2, 3)), 1))


# ---------------------------------------------------------------------------
# lstsq (LIN-12)
# ---------------------------------------------------------------------------

@pytest.mark.spec("LIN-12")
@pytest.mark.parametrize("b", [RHS, RHS[:, 0]], ids=["matrix", "vector"])
def test_lstsq_values(jnp, x64, b):
    for a in (TALL, TALL + 1j * TALL[::-1]):
        x, resid, rank, s = jnp.linalg.lstsq(a, b)
        want = np.linalg.lstsq(a, b, rcond=None)
        close(x, want[0])
        close(resid, np.atleast_1d(want[1]))
        assert int(rank) == want[2] and str(rank.dtype) == "int64"
        close(s, want[3])


@pytest.mark.spec("LIN-12")
def test_lstsq_rank_rcond_and_numpy_resid(jnp, x64):
    a = np.column_stack([TALL[:, 0], TALL[:, 0], TALL[:, 1]])
    x, resid, rank, _ = jnp.linalg.lstsq(a, RHS)
    assert int(rank) == 2
    close(x, np.linalg.pinv(a) @ RHS, 1e-8)
    close(resid, np.sum((RHS - a @ np.asarray(x)) ** 2, axis=0), 1e-8)
    assert np.asarray(jnp.linalg.lstsq(a, RHS, numpy_resid=True)[1]).shape == (0,)
    assert np.asarray(jnp.linalg.lstsq(TALL[:3], RHS[:3], numpy_resid=True)[1]).shape == (0,)
    close(jnp.linalg.lstsq(TALL, RHS, numpy_resid=True)[1],
          np.linalg.lstsq(TALL, RHS, rcond=None)[1])
    # rcond: a cutoff above every ratio but the first keeps rank 1.
    s = np.linalg.svd(TALL, compute_uv=False)
    assert int(jnp.linalg.lstsq(TALL, RHS, rcond=s[1] / s[0] * 1.01)[2]) == 1
    assert int(jnp.linalg.lstsq(TALL, RHS, rcond=-1)[2]) == 3


@pytest.mark.spec("LIN-12")
def test_lstsq_x32_empty_and_errors(jnp):
    x, resid, rank, s = jnp.linalg.lstsq(TALL.astype(np.float32), RHS[:, 0])
    assert [str(v.dtype) for v in (x, resid, rank, s)] == ["float32", "float32", "int32",
                                                          "float32"]
    assert resid.shape == (1,)
    close(x, np.linalg.lstsq(TALL, RHS[:, 0], rcond=None)[0], 1e-4)
    x, resid, rank, s = jnp.linalg.lstsq(np.zeros((0, 3), np.float32), np.zeros(0, np.float32))
    assert x.shape == (3,) and int(rank) == 0 and s.shape == (0,)
    raises(ValueError, "Leading dimensions of input arrays must match",
           lambda: jnp.linalg.lstsq(TALL, RHS[:3]))
    raises(TypeError, "3-dimensional array given. Array must be two-dimensional",
           lambda: jnp.linalg.lstsq(np.ones((2, 2, 2)), np.ones((2, 2))))
    raises(TypeError, "3-dimensional array given. Array must be one or two-dimensional",
           lambda: jnp.linalg.lstsq(np.ones((2, 2)), np.ones((2, 2, 2))))


# ---------------------------------------------------------------------------
# multi_dot, tensorinv, tensorsolve (LIN-13)
# ---------------------------------------------------------------------------

@pytest.mark.spec("LIN-13")
def test_multi_dot(jnp, x64):
    mats = [R.randn(3), R.randn(3, 5), R.randn(5, 2), R.randn(2, 4), R.randn(4)]
    for chain in (mats, mats[1:], mats[:-1], mats[1:-1], mats[:2]):
        close(jnp.linalg.multi_dot(chain), functools.reduce(np.dot, chain), 1e-10)
    close(jnp.linalg.multi_dot([mats[0], mats[0]]), mats[0] @ mats[0])


@pytest.mark.spec("LIN-13")
def test_multi_dot_errors(jnp):
    raises(ValueError, "multi_dot: input arrays must all be two-dimensional, except for the "
           "first and last array which may be 1 or 2 dimensional. Got array shapes "
           "[(2, 2, 2), (2,)]", lambda: jnp.linalg.multi_dot([np.ones((2, 2, 2)), np.ones(2)]))
    raises(ValueError, "multi_dot: last dimension of each array must match first dimension "
           "of following array. Got array shapes [(2, 3), (2, 3)]",
           lambda: jnp.linalg.multi_dot([np.ones((2, 3)), np.ones((2, 3))]))
    # A single array is iterated over, as in JAX: here, three scalars.
    raises(ValueError, "multi_dot: input arrays must all be two-dimensional, except for the "
           "first and last array which may be 1 or 2 dimensional. Got array shapes "
           "[(), (), ()]", lambda: jnp.linalg.multi_dot([np.ones(3)]))


@pytest.mark.spec("LIN-13")
def test_tensorinv_tensorsolve(jnp, x64):
    a = (np.eye(4) * 3 + R.randn(4, 4)).reshape(2, 2, 4)
    close(jnp.linalg.tensorinv(a, ind=2), np.linalg.tensorinv(a, ind=2))
    b = R.randn(2, 2)
    close(jnp.linalg.tensorsolve(a, b), np.linalg.tensorsolve(a, b))
    a4 = (np.eye(6) * 3 + R.randn(6, 6)).reshape(2, 3, 3, 2)
    close(jnp.linalg.tensorinv(a4, ind=2), np.linalg.tensorinv(a4, ind=2))
    moved = np.moveaxis((np.eye(6) * 3 + R.randn(6, 6)).reshape(2, 3, 6), 2, 0)
    close(jnp.linalg.tensorsolve(moved, np.ones((2, 3)), axes=(0,)),
          np.linalg.tensorsolve(moved, np.ones((2, 3)), axes=(0,)))
    got = jnp.linalg.tensorinv(np.eye(4, dtype=np.int32).reshape(2, 2, 4))
    assert got.dtype == jnp.linalg.inv(np.eye(4, dtype=np.int32)).dtype


@pytest.mark.spec("LIN-13")
def test_tensorinv_tensorsolve_errors(jnp):
    raises(ValueError, "ind must be a positive integer; got ind=0",
           lambda: jnp.linalg.tensorinv(np.ones((2, 2)), 0))
    raises(ValueError, "tensorinv is only possible when the product of the first `ind` "
           "dimensions equals that of the remaining dimensions. got arr.shape=(2, 3) with "
           "ind=1.", lambda: jnp.linalg.tensorinv(np.ones((2, 3)), 1))
    raises(ValueError, "After moving axes to end, leading shape of a must match shape of b. "
           "got a.shape=(2, 3), b.shape=(3,)",
           lambda: jnp.linalg.tensorsolve(np.ones((2, 3)), np.ones(3)))
    raises(ValueError, "Input arrays must have prod(a.shape[:b.ndim]) == "
           "prod(a.shape[b.ndim:]); got a.shape=(2, 3), b.ndim=1.",
           lambda: jnp.linalg.tensorsolve(np.ones((2, 3)), np.ones(2)))
