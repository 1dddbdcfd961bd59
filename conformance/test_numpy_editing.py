"""Conformance: ``insert``, ``delete``, ``block``, ``resize``, ``extract``,
``fill_diagonal``, ``trim_zeros``, ``sort_complex``, ``vander``, the index
objects ``mgrid``/``ogrid``/``r_``/``c_`` and ``mask_indices``
(SPEC NPE-12 .. NPE-20).

NumPy's functions and index objects are the reference.
"""
import importlib

import numpy as np
import pytest

X = np.arange(1, 13, dtype=np.int32).reshape(3, 4)


@pytest.fixture(scope="module")
def check_grads(jax):
    return importlib.import_module(jax.__name__ + ".test_util").check_grads


def same(got, want, dtype=None):
    got = np.asarray(got)
    np.testing.assert_array_equal(got, want)
    assert got.shape == np.shape(want)
    if dtype is not None:
        assert got.dtype == np.dtype(dtype), got.dtype


# -- NPE-12 ---------------------------------------------------------------------

INSERTS = [
    (2, 99, None), (-1, [7, 8], None), (np.array([0, 2, 12]), [7, 8, 9], None),
    (np.array([3, 1, 3]), 9, None), (slice(1, 4), [7, 8, 9], None), (1, 9, 1),
    (1, [7, 8, 9], 1), (np.array([1]), [[7], [8], [9]], 1),
    (np.array([0, 3]), [[5], [6]], 0),
    (0, 2.7, None),
]


@pytest.mark.spec("NPE-12")
@pytest.mark.parametrize("obj, values, axis", INSERTS)
def test_insert_matches_numpy(jnp, obj, values, axis):
    values = np.asarray(values)
    same(jnp.insert(X, obj, values, axis=axis), np.insert(X, obj, values, axis=axis),
         np.int32)


@pytest.mark.spec("NPE-12")
def test_insert_traced_positions_and_errors(jax, jnp, check_grads):
    pos = np.array([1, 3], np.int32)
    got = jax.jit(lambda a, i: jnp.insert(a, i, 0))(X.ravel(), pos)
    same(got, np.insert(X.ravel(), pos, 0))
    xf = X.astype(np.float32)
    check_grads(lambda a, v: jnp.insert(a, 1, v, axis=0), (xf, xf[0]), order=1,
                modes=["fwd", "rev"])
    with pytest.raises(ValueError, match="obj must be a slice, a one-dimensional array"):
        jnp.insert(X, np.array([[1]]), 0)
    with pytest.raises(ValueError, match="index array must be integer typed"):
        jnp.insert(X, np.array([1.5]), 0)


DELETES = [
    (2, None), (-1, None), (slice(1, 7, 2), None), (np.array([0, 3, 3]), None),
    (1, 1), (np.array([0, 2]), 0), (np.array([True, False, True, False]), 1),
    (slice(None), 0),
]


@pytest.mark.spec("NPE-12")
@pytest.mark.parametrize("obj, axis", DELETES)
def test_delete_matches_numpy(jnp, obj, axis):
    same(jnp.delete(X, obj, axis=axis), np.delete(X, obj, axis=axis), np.int32)


@pytest.mark.spec("NPE-12")
def test_delete_traced_indices(jax, jnp):
    idx = np.array([3, -1, 0], np.int32)
    fun = jax.jit(lambda a, i: jnp.delete(a, i, assume_unique_indices=True))
    same(fun(X.ravel(), idx), np.delete(X.ravel(), idx))
    with pytest.raises(jax.errors.ConcretizationTypeError,
                       match="'obj' array argument of jnp.delete"):
        jax.jit(jnp.delete)(X.ravel(), idx)
    with pytest.raises(ValueError):
        jnp.delete(X.ravel(), 20)
    with pytest.raises(ValueError, match="for boolean indices, obj must be one-dimensional"):
        jnp.delete(X.ravel(), np.array([True, False]))
    with pytest.raises(ValueError, match="must be integer or bool"):
        jnp.delete(X.ravel(), np.array([1.5]))


# -- NPE-13 ---------------------------------------------------------------------

@pytest.mark.spec("NPE-13")
def test_block_matches_numpy(jax, jnp):
    a, b = np.ones((2, 2), np.float32), np.zeros((2, 1), np.float32)
    c, d = np.full((1, 2), 3, np.float32), np.full((1, 1), 4, np.float32)
    for arrays in ([[a, b], [c, d]], [np.arange(3), 5, np.arange(2)], [[1, 2], [3, 4]],
                   [[[np.ones(2)]], [[np.zeros(2)]]], np.arange(3)):
        same(jnp.block(arrays), np.block(arrays))
    same(jax.jit(jnp.block)([[a, b], [c, d]]), np.block([[a, b], [c, d]]))
    with pytest.raises(ValueError, match="does not allow tuples"):
        jnp.block((a, b))
    with pytest.raises(ValueError, match="does not allow empty list"):
        jnp.block([])
    with pytest.raises(ValueError, match="Mismatched list depths"):
        jnp.block([[1, 2], 3])


@pytest.mark.spec("NPE-13")
@pytest.mark.parametrize("shape", [(2, 7), 5, (0, 3), (2, 2, 2), ()])
def test_resize_matches_numpy(jnp, shape):
    same(jnp.resize(X, shape), np.resize(X, shape), np.int32)


@pytest.mark.spec("NPE-13")
def test_resize_edges(jnp):
    same(jnp.resize(np.zeros(0, np.float32), (2, 3)), np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="must be non-negative"):
        jnp.resize(X, (-1, 3))
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        jnp.resize(X, [2, 3])


# -- NPE-14 ---------------------------------------------------------------------

@pytest.mark.spec("NPE-14")
def test_extract_matches_numpy(jax, jnp):
    cond = X % 3 == 1
    same(jnp.extract(cond, X), np.extract(cond, X))
    same(jnp.extract(X % 2, X * 10), np.extract(X % 2, X * 10))
    n = int(cond.sum())
    sized = jax.jit(lambda c, a: jnp.extract(c, a, size=n + 2, fill_value=-1))(cond, X)
    same(sized, np.concatenate([np.extract(cond, X), [-1, -1]]))


@pytest.mark.spec("NPE-14")
@pytest.mark.parametrize("shape", [(3, 3), (3, 5), (5, 3), (3, 3, 3)])
@pytest.mark.parametrize("val", [4.5, np.array([1., 2.]), np.array([[1., 2.], [3., 4.]])])
def test_fill_diagonal_matches_numpy(jnp, shape, val):
    want = np.zeros(shape, np.float32)
    np.fill_diagonal(want, val)
    same(jnp.fill_diagonal(np.zeros(shape, np.float32), val, inplace=False), want,
         np.float32)


@pytest.mark.spec("NPE-14")
def test_fill_diagonal_errors(jnp):
    a = np.zeros((3, 3), np.float32)
    with pytest.raises(NotImplementedError, match="must use inplace=False"):
        jnp.fill_diagonal(a, 1.)
    with pytest.raises(NotImplementedError, match="wrap=True"):
        jnp.fill_diagonal(a, 1., wrap=True, inplace=False)
    with pytest.raises(ValueError, match="at least 2-d"):
        jnp.fill_diagonal(np.zeros(3), 1., inplace=False)
    with pytest.raises(ValueError, match="must be of equal length"):
        jnp.fill_diagonal(np.zeros((3, 3, 2)), 1., inplace=False)


# -- NPE-15 .. NPE-17 ---------------------------------------------------------

@pytest.mark.spec("NPE-15")
@pytest.mark.parametrize("trim", ["fb", "f", "B"])
def test_trim_zeros_matches_numpy(jax, jnp, trim):
    v = np.array([0, 0, 1, 2, 0, 3, 0, 0], np.int32)
    same(jnp.trim_zeros(v, trim), np.trim_zeros(v, trim))
    m = np.zeros((4, 5), np.int32)
    m[1, 2], m[2, 3] = 1, 2
    for axis in (None, 0, -1, (0, 1)):
        same(jnp.trim_zeros(m, trim, axis=axis), np.trim_zeros(m, trim, axis=axis))
    assert jnp.trim_zeros(np.zeros(4)).shape == (0,)
    same(jnp.trim_zeros(v, "x"), v)       # no 'f' or 'b': nothing trimmed
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(jnp.trim_zeros)(v)


@pytest.mark.spec("NPE-16")
def test_sort_complex_matches_numpy(jnp, x64):
    del x64
    z = np.array([1 + 2j, 1 - 1j, 0 + 5j, 1 + 0j, -2 + 7j], np.complex64)
    same(jnp.sort_complex(z), np.sort_complex(z), np.complex64)
    same(jnp.sort_complex(np.array([3, 1, 2], np.int64)), [1, 2, 3], np.complex128)
    same(jnp.sort_complex(np.array([[3., 1.], [0., -1.]], np.float32)),
         [[1, 3], [-1, 0]], np.complex64)
    with pytest.raises(ValueError, match="axis -1 is out of bounds"):
        jnp.sort_complex(2.)


@pytest.mark.spec("NPE-16")
def test_sort_complex_x32_dtype(jnp):
    assert jnp.sort_complex(np.array([3, 1, 2], np.int32)).dtype == np.complex64


@pytest.mark.spec("NPE-17")
def test_vander_matches_numpy(jnp, check_grads):
    x = np.array([1., 2., -3., 0.5], np.float32)
    for n, inc in ((None, False), (6, False), (2, True), (0, False)):
        got = jnp.vander(x, n, increasing=inc)
        np.testing.assert_allclose(np.asarray(got), np.vander(x, n, increasing=inc),
                                   rtol=1e-6)
        assert got.dtype == np.float32
    same(jnp.vander(np.array([1, 2, 3], np.int32)), np.vander([1, 2, 3]), np.int32)
    check_grads(lambda v: jnp.vander(v, 3), (x,), order=2, modes=["fwd", "rev"])
    with pytest.raises(ValueError, match="one-dimensional"):
        jnp.vander(np.ones((2, 2)))
    with pytest.raises(ValueError, match="N must be nonnegative"):
        jnp.vander(x, -1)


# -- NPE-18 .. NPE-20 ---------------------------------------------------------

GRID_KEYS = [
    np.s_[0:4], np.s_[0:1:5j], np.s_[0:4, 0:3], np.s_[0:1:5j, 0:3],
    np.s_[-1:1:0.5, 0:2], np.s_[5:1:-1], np.s_[0:3, 0:1:3j, 2:4],
]


@pytest.mark.spec("NPE-18")
@pytest.mark.parametrize("key", GRID_KEYS)
def test_mgrid_ogrid_match_numpy(jnp, key):
    got = jnp.mgrid[key]
    np.testing.assert_allclose(np.asarray(got), np.mgrid[key], rtol=1e-6)
    open_got, open_want = jnp.ogrid[key], np.ogrid[key]
    if isinstance(open_want, (list, tuple)):
        assert len(open_got) == len(open_want)
        for g, w in zip(open_got, open_want):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6)
    else:
        np.testing.assert_allclose(np.asarray(open_got), open_want, rtol=1e-6)


@pytest.mark.spec("NPE-18")
def test_grid_dtypes_and_tracers(jax, jnp):
    assert jnp.mgrid[0:3].dtype == np.int32
    assert jnp.mgrid[0:1:3j].dtype == np.float32
    assert jnp.mgrid[0:3, 0:1:3j].dtype == np.float32
    assert jnp.mgrid[()].shape == (0,)
    assert jnp.ogrid[()] == []
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda n: jnp.mgrid[0:n])(3)


CONCATS = [
    np.s_[1, 2, 3], np.s_[np.array([1, 2]), 0, 0, np.array([4, 5])],
    np.s_[-1:1:6j, 0, 0, np.array([4., 5.])], np.s_[2.5, 1:3],
    np.s_["0,2", np.array([1, 2, 3]), np.array([4, 5, 6])],
    np.s_["0,2,0", np.array([1, 2, 3]), np.array([4, 5, 6])],
    np.s_["1,2,0", np.array([1, 2, 3]), np.array([4, 5, 6])],
    np.s_["-1,3,1", np.array([1, 2, 3]), np.array([4, 5, 6])],
    np.s_["0,3,-2", np.array([1, 2, 3]), np.array([4, 5, 6])],
    np.s_["r", np.array([1, 2, 3]), np.array([4, 5, 6])],
    np.s_["c", np.array([1, 2, 3]), np.array([4, 5, 6])],
    np.s_["-1", np.ones((2, 2)), np.zeros((2, 1))],
]


@pytest.mark.spec("NPE-19")
@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")   # NumPy's matrix
@pytest.mark.parametrize("key", CONCATS)
def test_r_matches_numpy(jnp, key):
    np.testing.assert_allclose(np.asarray(jnp.r_[key]), np.asarray(np.r_[key]), rtol=1e-6)
    assert jnp.r_[key].shape == np.r_[key].shape


@pytest.mark.spec("NPE-19")
@pytest.mark.parametrize("key", [
    np.s_[np.array([1, 2, 3]), np.array([4, 5, 6])],
    np.s_[np.array([[1, 2, 3]]), 0, 0, np.array([[4, 5, 6]])],
    np.s_[1:4, np.array([4, 5, 6])], np.s_["0", np.array([1, 2]), np.array([4, 5])],
    np.s_[np.ones((2, 2)), np.zeros(2)],
])
def test_c_matches_numpy(jnp, key):
    np.testing.assert_allclose(np.asarray(jnp.c_[key]), np.asarray(np.c_[key]), rtol=1e-6)
    assert jnp.c_[key].shape == np.c_[key].shape


@pytest.mark.spec("NPE-19")
def test_r_errors_and_len(jax, jnp):
    with pytest.raises(ValueError, match="could not understand directive 'x'"):
        jnp.r_["x", 1]
    with pytest.raises(ValueError, match="string directive must be placed at the beginning"):
        jnp.r_[1, "x"]
    assert len(jnp.r_) == 0 and len(jnp.c_) == 0
    same(jax.jit(lambda v: jnp.r_[v, 0:3])(np.int32([5, 6])), [5, 6, 0, 1, 2])


@pytest.mark.spec("NPE-20")
def test_mask_indices_matches_numpy(jax, jnp):
    for func, k in ((np.triu, 0), (np.triu, 1), (np.tril, -1)):
        got = jnp.mask_indices(4, getattr(jnp, func.__name__), k)
        for g, w in zip(got, np.mask_indices(4, func, k)):
            same(g, w)
    i, j = jax.jit(lambda: jnp.mask_indices(3, jnp.tril, -1, size=5))()
    same(i, [1, 2, 2, 0, 0])
    same(j, [0, 0, 1, 0, 0])
