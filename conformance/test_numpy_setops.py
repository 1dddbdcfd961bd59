"""Conformance: ``jnp.isin`` and the 1-d set operations (SPEC NPE-1 .. NPE-4).

References are NumPy's own set routines; the ``size=`` forms are checked
against the NumPy result padded as the clauses describe.
"""
import numpy as np
import pytest

A = np.array([5, 1, 3, 3, 9, 1, 7], np.int32)
B = np.array([3, 8, 1, 1, 10], np.int32)
F = np.array([1.5, np.nan, -2.0, 0.0, 4.0], np.float32)
G = np.array([np.nan, 0.0, 7.0, 4.0], np.float32)


def check(got, want, dtype=None):
    got = np.asarray(got)
    np.testing.assert_array_equal(got, want)
    if dtype is not None:
        assert got.dtype == np.dtype(dtype)


def padded(values, size, fill):
    out = np.full(size, fill, dtype=values.dtype)
    out[:min(size, values.size)] = values[:size]
    return out


# -- NPE-1 ----------------------------------------------------------------------

@pytest.mark.spec("NPE-1")
@pytest.mark.parametrize("method", ["auto", "compare_all", "binary_search", "sort"])
@pytest.mark.parametrize("invert", [False, True])
def test_isin_matches_numpy(jnp, method, invert):
    elem = np.arange(12, dtype=np.int32).reshape(3, 4) % 7
    for test in (B, np.array([], np.int32), np.array([4], np.int32)):
        got = jnp.isin(elem, test, invert=invert, method=method)
        check(got, np.isin(elem, test, invert=invert), bool)
        assert got.shape == elem.shape
    check(jnp.isin(F, G, invert=invert, method=method), np.isin(F, G, invert=invert))


@pytest.mark.spec("NPE-1")
def test_isin_promotes_and_rejects(jax, jnp):
    assert bool(jnp.isin(3, 3.0))
    assert not bool(jnp.isin(jnp.float32(np.nan), jnp.float32(np.nan)))
    with pytest.raises(ValueError, match="method='foo' is not implemented"):
        jnp.isin(A, B, method="foo")
    with pytest.raises(TypeError, match="isin requires ndarray or scalar arguments"):
        jnp.isin([1, 2], B)


@pytest.mark.spec("NPE-1")
def test_isin_jit_and_vmap(jax, jnp):
    want = np.isin(A, B)
    check(jax.jit(jnp.isin)(A, B), want)
    rows = np.stack([A, A[::-1], A + 1])
    got = jax.vmap(jnp.isin, in_axes=(0, None))(rows, B)
    check(got, np.stack([np.isin(r, B) for r in rows]))
    text = str(jax.make_jaxpr(jnp.isin)(A, B))
    assert "name=_in1d" in text


# -- NPE-2 ----------------------------------------------------------------------

@pytest.mark.spec("NPE-2")
def test_setdiff1d_and_union1d_match_numpy(jnp):
    check(jnp.setdiff1d(A, B), np.setdiff1d(A, B), np.int32)
    check(jnp.union1d(A, B), np.union1d(A, B), np.int32)
    np.testing.assert_array_equal(np.asarray(jnp.setdiff1d(F, G)), np.setdiff1d(F, G))
    np.testing.assert_array_equal(np.asarray(jnp.union1d(F, G)), np.union1d(F, G))
    assert jnp.union1d(A, G).dtype == np.float32          # promoted
    assert jnp.setdiff1d(A, G).dtype == np.int32          # ar1's dtype
    assert jnp.setdiff1d(2, 3).weak_type


@pytest.mark.spec("NPE-2")
@pytest.mark.parametrize("size", [1, 3, 8])
def test_sized_setdiff1d_and_union1d(jax, jnp, size):
    diff, union = np.setdiff1d(A, B), np.union1d(A, B)
    check(jnp.setdiff1d(A, B, size=size), padded(diff, size, 0))
    check(jnp.setdiff1d(A, B, size=size, fill_value=-1), padded(diff, size, -1))
    check(jnp.union1d(A, B, size=size), padded(union, size, union.min()))
    check(jnp.union1d(A, B, size=size, fill_value=99), padded(union, size, 99))
    jitted = jax.jit(lambda a, b: jnp.setdiff1d(a, b, size=size))
    check(jitted(A, B), padded(diff, size, 0))
    unique_a = np.unique(A)
    check(jnp.setdiff1d(unique_a, B, assume_unique=True, size=size),
          padded(np.setdiff1d(unique_a, B, assume_unique=True), size, 0))


@pytest.mark.spec("NPE-2")
def test_unsized_set_ops_need_concrete_inputs(jax, jnp):
    for name in ("setdiff1d", "union1d"):
        fun = getattr(jnp, name)
        with pytest.raises(jax.errors.ConcretizationTypeError,
                           match=f"The error arose in {name}"):
            jax.jit(fun)(A, B)
    with pytest.raises(TypeError):
        jnp.union1d(A, B, size=2.5)


# -- NPE-3 ----------------------------------------------------------------------

@pytest.mark.spec("NPE-3")
def test_setxor1d_matches_numpy(jnp):
    check(jnp.setxor1d(A, B), np.setxor1d(A, B), np.int32)
    ua, ub = np.unique(A), np.unique(B)
    check(jnp.setxor1d(ua, ub, assume_unique=True), np.setxor1d(ua, ub, assume_unique=True))
    empty = np.array([], np.int32)
    assert jnp.setxor1d(empty, empty).shape == (0,)
    check(jnp.setxor1d(empty, empty, size=2), np.zeros(2, np.int32))


@pytest.mark.spec("NPE-3")
@pytest.mark.parametrize("size", [2, 4, 9])
@pytest.mark.parametrize("assume_unique", [False, True])
def test_sized_setxor1d(jax, jnp, size, assume_unique):
    a, b = (np.unique(A), np.unique(B)) if assume_unique else (A, B)
    want = np.setxor1d(a, b, assume_unique=assume_unique)
    default = padded(want, size, want[:size].min())
    got = jax.jit(lambda x, y: jnp.setxor1d(x, y, assume_unique=assume_unique,
                                             size=size))(a, b)
    check(got, default)
    check(jnp.setxor1d(a, b, assume_unique=assume_unique, size=size, fill_value=-5),
          padded(want, size, -5))


# -- NPE-4 ----------------------------------------------------------------------

@pytest.mark.spec("NPE-4")
@pytest.mark.parametrize("assume_unique", [False, True])
def test_intersect1d_matches_numpy(jnp, assume_unique):
    a, b = (np.unique(A), np.unique(B)) if assume_unique else (A, B)
    vals, i1, i2 = np.intersect1d(a, b, assume_unique=assume_unique, return_indices=True)
    check(jnp.intersect1d(a, b, assume_unique=assume_unique), vals, np.int32)
    got = jnp.intersect1d(a, b, assume_unique=assume_unique, return_indices=True)
    check(got[0], vals)
    check(got[1], i1, np.int32)
    check(got[2], i2, np.int32)
    np.testing.assert_array_equal(np.asarray(jnp.intersect1d(F, G)), np.intersect1d(F, G))


@pytest.mark.spec("NPE-4")
@pytest.mark.parametrize("size", [1, 2, 5])
def test_sized_intersect1d(jax, jnp, size):
    vals, i1, i2 = np.intersect1d(A, B, return_indices=True)
    got = jax.jit(lambda a, b: jnp.intersect1d(a, b, return_indices=True, size=size))(A, B)
    # Padding takes the largest found value, then the smallest: the minimum.
    check(got[0], padded(vals, size, vals.min()))
    check(got[1], padded(i1.astype(np.int32), size, A.size))
    check(got[2], padded(i2.astype(np.int32), size, B.size))
    check(jnp.intersect1d(A, B, size=size, fill_value=-1), padded(vals, size, -1))
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        jnp.intersect1d(A, B, size=size, fill_value=jnp.array([1, 2]))


@pytest.mark.spec("NPE-4")
def test_sized_intersect1d_of_empty_input(jnp):
    empty = np.array([], np.int32)
    vals, i1, i2 = jnp.intersect1d(empty, empty, size=2, return_indices=True)
    check(vals, np.zeros(2, np.int32))
    assert i1.shape == i2.shape == (0,)


@pytest.mark.spec("NPE-4")
def test_set_ops_x64(jnp, x64):
    a, b = A.astype(np.int64), B.astype(np.int64)
    for name in ("intersect1d", "union1d", "setdiff1d", "setxor1d"):
        got = getattr(jnp, name)(a, b)
        assert got.dtype == np.int64
        check(got, getattr(np, name)(a, b))
    assert jnp.intersect1d(a, b, return_indices=True)[1].dtype == np.int64
