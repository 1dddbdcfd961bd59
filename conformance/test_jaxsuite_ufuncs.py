"""ufunc objects built from Python functions, their generic methods, and
``jnp.vectorize``'s argument and output checks (SPEC NP-206 .. NP-215).

Expected values come from NumPy's own ``frompyfunc`` ufuncs (object arrays,
so each Python call sees one element) or from identities computed here.
"""
import functools
import re
import warnings

import numpy as np
import pytest

X = np.arange(1.0, 13.0, dtype=np.float32).reshape(3, 4)


def raises(cls, text):
    return pytest.raises(cls, match=re.escape(text))


def scalar_only(fn):
    """``fn`` refusing anything but one element per argument."""
    @functools.wraps(fn)
    def wrapped(*args):
        assert all(np.shape(a) == () for a in args), [np.shape(a) for a in args]
        return fn(*args)
    return wrapped


def np_ufunc(fn, nin=2, nout=1, identity=None):
    """NumPy's frompyfunc ufunc, its object results read back as float32."""
    u = np.frompyfunc(fn, nin, nout, identity=identity)

    def call(method, *args, **kwargs):
        out = u if method is None else getattr(u, method)
        return np.asarray(out(*args, **kwargs), dtype=np.float32)
    return call


def sub(a, b):
    return a - b


def div(a, b):
    return a / b


# ---------------------------------------------------------------------------
# NP-206: read-only attributes, equality
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-206")
@pytest.mark.parametrize("attr", ["_func", "nin", "nout", "nargs", "identity"])
def test_ufunc_attributes_are_read_only(jnp, attr):
    made = jnp.frompyfunc(sub, 2, 1, identity=0)
    for u in (made, jnp.add, jnp.negative):
        before = getattr(u, attr)
        with pytest.raises(AttributeError):
            setattr(u, attr, None)
        assert getattr(u, attr) is before


@pytest.mark.spec("NP-206")
def test_frompyfunc_equality_and_properties(jnp):
    u = jnp.frompyfunc(sub, 2, 1, identity=0)
    same = jnp.frompyfunc(sub, 2, 1, identity=0)
    assert u == same and hash(u) == hash(same)
    assert u != jnp.frompyfunc(sub, 2, 1, identity=1)
    assert u != jnp.frompyfunc(div, 2, 1, identity=0)
    assert (u.nin, u.nout, u.nargs, u.identity, u._func) == (2, 1, 2, 0, sub)
    assert repr(u) == "<jnp.ufunc 'sub'>"


# ---------------------------------------------------------------------------
# NP-207: calling a frompyfunc ufunc
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-207")
@pytest.mark.parametrize("shapes", [((), ()), ((3,), ()), ((4, 1), (1, 3)), ((2, 3), (3,))])
def test_frompyfunc_call_sees_one_element(jax, jnp, shapes):
    u = jnp.frompyfunc(scalar_only(sub), 2, 1)
    a = np.arange(np.prod(shapes[0]), dtype=np.float32).reshape(shapes[0]) + 1
    b = np.full(shapes[1], 0.5, np.float32)
    want = np_ufunc(sub)(None, a, b)
    with jax.numpy_rank_promotion("allow"):
        got = u(a, b)
        np.testing.assert_allclose(got, want)
        np.testing.assert_allclose(jax.jit(u)(a, b), want)
    assert got.shape == want.shape and got.dtype == np.float32


@pytest.mark.spec("NP-207")
def test_frompyfunc_call_details(jax, jnp):
    add = jnp.frompyfunc(scalar_only(lambda a, b: a + b), 2, 1)
    three = add(1, 2)
    assert int(three) == 3 and three.dtype == np.int32
    assert three.weak_type
    pair = jnp.frompyfunc(scalar_only(lambda a: (a, a * 2)), 1, 2)(np.arange(3))
    assert isinstance(pair, tuple)
    np.testing.assert_array_equal(pair[1], [0, 2, 4])
    with raises(ValueError, "Incompatible shapes for broadcasting"):
        add(np.ones((2, 3)), np.ones((2, 2)))
    with pytest.raises(TypeError):
        add([1, 2], 3)
    eqns = jax.make_jaxpr(add)(np.ones(3, np.float32), np.float32(1)).eqns
    assert [e.params.get("name") for e in eqns] == ["_call_vectorized"]


# ---------------------------------------------------------------------------
# NP-208: reduce
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-208")
@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("keepdims", [False, True])
def test_frompyfunc_reduce_matches_numpy(jax, jnp, axis, keepdims):
    u = jnp.frompyfunc(scalar_only(div), 2, 1)
    want = np_ufunc(div)("reduce", X, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(u.reduce(X, axis=axis, keepdims=keepdims), want, rtol=1e-6)
    jitted = jax.jit(lambda x: u.reduce(x, axis=axis, keepdims=keepdims))
    np.testing.assert_allclose(jitted(X), want, rtol=1e-6)


@pytest.mark.spec("NP-208")
def test_frompyfunc_reduce_initial_where_and_empty(jax, jnp):
    u = jnp.frompyfunc(scalar_only(sub), 2, 1)
    mask = np.array([[True, False, True, True]] * 3)
    want = np_ufunc(sub)("reduce", X, axis=1, initial=2.0, where=mask)
    np.testing.assert_allclose(u.reduce(X, axis=1, initial=2.0, where=mask), want)
    # An empty axis: the (traced) initial value fills the result.
    empty = np.zeros((0, 3), np.float32)
    got = jax.jit(lambda x, i: u.reduce(x, where=np.ones((0, 3), bool), initial=i))(
        empty, np.float32(5))
    np.testing.assert_array_equal(got, [5.0, 5.0, 5.0])
    with raises(ValueError, "zero-size array to reduction operation sub which has no identity"):
        u.reduce(empty)
    with raises(ValueError, "does not have an identity, so to use a where mask"):
        u.reduce(X, where=mask)
    with raises(NotImplementedError, "tuple of axes"):
        u.reduce(X, axis=(0, 1))
    with pytest.raises(ValueError):
        u.reduce(X, axis=(0, 5))
    with raises(ValueError, "reduce only supported for binary ufuncs"):
        jnp.frompyfunc(np.negative, 1, 1).reduce(X)
    with raises(ValueError, "only supported for functions returning a single value"):
        jnp.frompyfunc(divmod, 2, 2).reduce(X)


@pytest.mark.spec("NP-208")
def test_frompyfunc_reduce_dtype(jnp):
    ints = np.arange(1, 5, dtype=np.int32)
    assert jnp.frompyfunc(div, 2, 1).reduce(ints).dtype == np.float32
    assert jnp.frompyfunc(sub, 2, 1).reduce(ints).dtype == np.int32
    got = jnp.frompyfunc(sub, 2, 1).reduce(ints, dtype=np.float32)
    assert got.dtype == np.float32 and float(got) == 1 - 2 - 3 - 4


# ---------------------------------------------------------------------------
# NP-209: accumulate
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-209")
@pytest.mark.parametrize("axis", [0, 1, -2])
def test_frompyfunc_accumulate_matches_numpy(jax, jnp, axis):
    u = jnp.frompyfunc(scalar_only(div), 2, 1)
    want = np_ufunc(div)("accumulate", X, axis=axis)
    np.testing.assert_allclose(u.accumulate(X, axis=axis), want, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(lambda x: u.accumulate(x, axis=axis))(X), want,
                               rtol=1e-6)


@pytest.mark.spec("NP-209")
def test_accumulate_edges(jnp):
    u = jnp.frompyfunc(sub, 2, 1)
    assert u.accumulate(np.zeros((2, 0), np.float32), axis=1).shape == (2, 0)
    np.testing.assert_array_equal(jnp.subtract.accumulate(np.array([5, 1, 1])), [5, 4, 3])
    with raises(ValueError, "accumulate does not allow multiple axes"):
        u.accumulate(X, axis=None)


# ---------------------------------------------------------------------------
# NP-210: at
# ---------------------------------------------------------------------------

def np_at(fn, a, idx, *b):
    out = np.array(a, dtype=object)
    np.frompyfunc(fn, 1 + len(b), 1).at(out, idx, *b)
    return out.astype(np.asarray(a).dtype)


@pytest.mark.spec("NP-210")
@pytest.mark.parametrize("idx", [2, np.array([0, 0, 3]), np.array([[1], [1]]), -1])
def test_frompyfunc_at_repeats_indices(jax, jnp, idx):
    u = jnp.frompyfunc(scalar_only(lambda a, b: a * 2 + b), 2, 1)
    a = np.arange(5.0, dtype=np.float32)
    want = np_at(lambda a, b: a * 2 + b, a, idx, np.float32(1))
    np.testing.assert_allclose(u.at(a, idx, 1.0, inplace=False), want)
    jitted = jax.jit(lambda a, i: u.at(a, i, 1.0, inplace=False))
    np.testing.assert_allclose(jitted(a, idx), want)


@pytest.mark.spec("NP-210")
def test_at_rows_unary_and_builtins(jnp):
    u = jnp.frompyfunc(scalar_only(lambda a, b: a + b), 2, 1)
    got = u.at(X, np.array([1, 1]), np.array([10.0, 20.0], np.float32), inplace=False)
    want = X.copy()
    np.add.at(want, np.array([1, 1]), np.array([10.0, 20.0])[:, None])
    np.testing.assert_allclose(got, want)
    neg = jnp.negative.at(np.arange(4.0), np.array([1, 1, 2]), inplace=False)
    np.testing.assert_array_equal(neg, [0.0, 1.0, -2.0, 3.0])    # 1 negated twice
    flags = jnp.add.at(np.array([False, True, False]), np.array([0, 0]), True, inplace=False)
    assert flags.dtype == np.bool_ and flags.tolist() == [True, True, False]
    with raises(NotImplementedError, "inplace=False"):
        u.at(X, 0, 1.0)
    with pytest.raises(TypeError):
        u.at(X, [0, 1], 1.0, inplace=False)
    with pytest.raises(TypeError):
        u.at(X, slice(0, 2), 1.0, inplace=False)
    np.testing.assert_array_equal(u.at(X, (), 1.0, inplace=False), X)


# ---------------------------------------------------------------------------
# NP-211: reduceat
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-211")
@pytest.mark.parametrize("indices", [[0, 2, 3], [3, 1, 2, 2]])
@pytest.mark.parametrize("axis", [0, -1])
def test_reduceat_matches_numpy(jax, jnp, indices, axis):
    indices = np.array(indices, np.int32) % X.shape[axis]
    u = jnp.frompyfunc(scalar_only(sub), 2, 1)
    want = np_ufunc(sub)("reduceat", X, indices, axis=axis)
    np.testing.assert_allclose(u.reduceat(X, indices, axis=axis), want)
    np.testing.assert_allclose(jax.jit(lambda x, i: u.reduceat(x, i, axis=axis))(X, indices),
                               want)


@pytest.mark.spec("NP-211")
@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "bitwise_or"])
def test_builtin_reduceat_matches_numpy(jnp, name):
    ints, indices = X.astype(np.int32), np.array([3, 0, 2, 2], np.int32)
    got = getattr(jnp, name).reduceat(ints, indices, axis=1)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, getattr(np, name).reduceat(ints, indices, axis=1))


@pytest.mark.spec("NP-211")
def test_reduceat_details_and_errors(jnp):
    ints = np.arange(6, dtype=np.int32)
    got = jnp.logical_and.reduceat(ints, np.array([0, 3]))
    assert got.dtype == np.int32 and got.tolist() == [0, 1]
    assert jnp.add.reduceat(ints, np.array([0, 3]), dtype=np.float32).dtype == np.int32
    assert jnp.add.reduceat(ints, np.array([], np.int32)).shape == (0,)
    # The ranges use the indices as given, though take wraps a negative one.
    assert jnp.add.reduceat(ints, np.array([0, 3, -1])).tolist() == [3, 3, 5 + ints.sum()]
    with raises(ValueError, "reduceat: a must have 1 or more dimension, got a.shape=()"):
        jnp.add.reduceat(np.float32(1), np.array([0]))
    with raises(ValueError, "reduceat: indices must be one-dimensional, got indices.shape=(1, 1)"):
        jnp.add.reduceat(ints, np.array([[0]]))
    with raises(ValueError, "reduceat requires a single integer axis."):
        jnp.add.reduceat(ints, np.array([0]), axis=None)
    with raises(ValueError, "indices must have an integer type"):
        jnp.add.reduceat(ints, np.array([0.5]))
    with pytest.raises(TypeError):
        jnp.add.reduceat(ints, [0, 1])
    with raises(ValueError, "reduceat only supported for binary ufuncs"):
        jnp.negative.reduceat(ints, np.array([0]))
    with pytest.raises(IndexError):
        jnp.add.reduceat(np.zeros((0, 2)), np.array([0]))


# ---------------------------------------------------------------------------
# NP-212 .. NP-215: vectorize
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-212")
def test_vectorize_none_arguments(jnp):
    seen = []

    def f(x, y, z=None):
        seen.append((y, z))
        return x if z is None else x + z
    x = np.arange(4)
    np.testing.assert_array_equal(jnp.vectorize(f)(x, None, None), x)
    assert set(seen) == {(None, None)}
    np.testing.assert_array_equal(jnp.vectorize(f)(x, None, x), 2 * x)
    g = jnp.vectorize(lambda x, y: x if y is None else x + y, signature="(k),(k)->(k)")
    with raises(ValueError, "Cannot pass None at locations {1} with signature='(k),(k)->(k)'"):
        g(x, None)
    with raises(ValueError, "None is not a valid value for jnp.array"):
        jnp.vectorize(lambda y, x: x)(None, x)


@pytest.mark.spec("NP-213")
def test_vectorize_excluded_checks(jnp):
    with raises(TypeError, "can only exclude integer or string arguments, but excluded={1.5}"):
        jnp.vectorize(lambda x: x, excluded={1.5})
    with raises(ValueError, "excluded={-1} contains negative numbers"):
        jnp.vectorize(lambda x: x, excluded={-1})
    with raises(ValueError, "excluded=[3, -2] contains negative numbers"):
        jnp.vectorize(lambda x: x, excluded=[3, -2])
    f = jnp.vectorize(jnp.dot, excluded={1}, signature="(n),(n)->()")
    with raises(ValueError, "on vectorized function with excluded={1} and signature="):
        f(np.ones((2, 3)), np.ones(3), 4)


@pytest.mark.spec("NP-214")
def test_vectorize_output_checks(jnp):
    two, three = np.ones((2, 3)), np.ones((3, 4))
    with raises(TypeError, "output must be a tuple when multiple outputs are expected"):
        jnp.vectorize(jnp.dot, signature="(n,m),(m,k)->(n,k),()")(two, three)
    with raises(TypeError, "wrong number of output arguments: expected 3, got 2"):
        jnp.vectorize(lambda a, b: (a, b), signature="(),()->(),(),()")(1, 2)
    with raises(ValueError, "output shape (2, 4) does not match core dimensions ('n',)"):
        jnp.vectorize(jnp.dot, signature="(n,m),(m,k)->(n)")(two, three)
    with raises(ValueError, "inconsistent size for core dimension 'n': 4 vs 2"):
        jnp.vectorize(jnp.dot, signature="(n,m),(m,k)->(n,n)")(two, three)
    with raises(ValueError, "inconsistent size for core dimension 'm': 1 vs 2"):
        jnp.vectorize(lambda a: (a[:2], a[:1]), signature="(n)->(m),(m)")(two)
    single = jnp.vectorize(lambda a: (a * 2,), signature="()->()")(np.arange(3))
    assert isinstance(single, tuple) and single[0].tolist() == [0, 2, 4]


@pytest.mark.spec("NP-215")
def test_vectorize_rank_promotion(jax, jnp):
    f = jnp.vectorize(jnp.add, signature="(),()->()")
    rank2, rank1, rank0 = np.zeros((3, 3)), np.zeros(3), np.zeros(())
    msg = ("operands with shapes [(3, 3), (3,)] require rank promotion for jnp.vectorize "
           "function with signature (),()->()")
    with jax.numpy_rank_promotion("raise"):
        with raises(ValueError, msg):
            f(rank2, rank1)
        assert f(rank2, rank0).shape == (3, 3)
        assert f(rank1, rank0).shape == (3,)
        # Only 0-d arguments are left out: (3,) with core (n) has loop rank 0.
        dot = jnp.vectorize(jnp.dot, signature="(n),(n)->()")
        with pytest.raises(ValueError, match="require rank promotion"):
            dot(rank2, rank1)
        assert dot(rank2, np.ones((1, 3))).shape == (3,)
    with jax.numpy_rank_promotion("warn"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert f(rank2, rank1).shape == (3, 3)
        assert any(msg in str(w.message) and w.category is UserWarning for w in caught)
