"""Conformance: ``jax.scipy.stats``: ``mode``, ``rankdata``, ``sem`` and
``gaussian_kde`` (SPEC STA-7, STA-8).

Values are checked against ``scipy.stats`` in float64 on float32-rounded
inputs, and the support edges (``-inf``, 0, NaN) exactly; dtypes, weak
types, errors, derivatives (``check_grads``), ``jit`` and ``vmap`` are
checked on the implementation under test.
"""
import numpy as np
import pytest
import scipy.stats as sps

from conformance._stats_helpers import (  # noqa: F401 (stats is a fixture)
    close, f32, stats,
)

# ---------------------------------------------------------------------------
# STA-7: mode, rankdata, sem
# ---------------------------------------------------------------------------

@pytest.mark.spec("STA-7")
def test_mode(jnp, stats):
    data = np.array([[1, 2, 2, 5], [3, 3, 1, 1], [4, 0, 4, 0]], np.int32)
    for axis in (0, 1, None):
        for keepdims in (False, True):
            got = stats.mode(jnp.asarray(data), axis=axis, keepdims=keepdims)
            want = sps.mode(data, axis=axis, keepdims=keepdims)
            np.testing.assert_array_equal(got.mode, want.mode)
            np.testing.assert_array_equal(got.count, want.count)
            assert got.mode.dtype == np.int32
    empty = stats.mode(jnp.zeros((0, 2)))
    assert np.isnan(empty.mode).all() and list(empty.count) == [0, 0]
    with pytest.raises(ValueError, match="nan_policy"):
        stats.mode(jnp.asarray(data), nan_policy="foo")
    with pytest.raises(NotImplementedError):
        stats.mode(jnp.asarray(data), nan_policy="omit")


@pytest.mark.spec("STA-7")
@pytest.mark.parametrize("method", ["average", "min", "max", "dense", "ordinal"])
def test_rankdata(jnp, stats, method):
    data = np.array([[3.0, 1.0, 1.0, 2.0], [5.0, 5.0, 5.0, 0.0]])
    got = stats.rankdata(jnp.asarray(data, jnp.float32), method)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, sps.rankdata(data, method))
    np.testing.assert_array_equal(stats.rankdata(jnp.asarray(data), method, axis=1),
                                  sps.rankdata(data, method, axis=1))


@pytest.mark.spec("STA-7")
def test_rankdata_nan_and_errors(jnp, stats):
    assert np.isnan(stats.rankdata(jnp.array([1.0, np.nan, 2.0]))).all()
    with pytest.raises(ValueError, match="unknown method"):
        stats.rankdata(jnp.array([1.0]), "foo")
    with pytest.raises(NotImplementedError):
        stats.rankdata(jnp.array([1.0]), nan_policy="raise")


@pytest.mark.spec("STA-7")
def test_sem(jnp, stats):
    data = f32([[1.0, 2.0, 4.0], [3.0, 1.0, 7.5]])
    for axis in (0, 1, None):
        close(stats.sem(data, axis=axis), sps.sem(data.astype(np.float64), axis=axis))
    close(stats.sem(data, axis=1, ddof=0, keepdims=True),
          sps.sem(data.astype(np.float64), axis=1, ddof=0)[:, None])
    with_nan = f32([[1.0, np.nan, 4.0, 2.0]])
    close(stats.sem(with_nan, axis=1, nan_policy="omit"),
          sps.sem(with_nan.astype(np.float64), axis=1, nan_policy="omit"))
    assert stats.sem(jnp.arange(4)).dtype == np.float32
    with pytest.raises(ValueError):
        stats.sem(data, nan_policy="raise")


# ---------------------------------------------------------------------------
# STA-8: gaussian_kde
# ---------------------------------------------------------------------------

DATA_2D = np.array([[1.0, 2.0, 4.0, 5.5, 3.0], [0.0, 1.0, 1.5, 3.0, 2.0]], np.float32)
WEIGHTS = np.array([1.0, 2.0, 1.0, 3.0, 1.0], np.float32)


@pytest.mark.spec("STA-8")
@pytest.mark.parametrize("bw_method", [None, "silverman", 0.7])
def test_kde_against_scipy(jnp, stats, bw_method):
    kde = stats.gaussian_kde(DATA_2D, bw_method=bw_method, weights=WEIGHTS)
    ref = sps.gaussian_kde(DATA_2D.astype(np.float64), bw_method=bw_method, weights=WEIGHTS)
    points = f32([[1.5, 3.0, 9.0], [0.5, 2.0, -4.0]])
    close(kde.covariance, ref.covariance)
    close(kde.neff, ref.neff)
    close(kde(points), ref(points))
    close(kde.logpdf(points), ref.logpdf(points))
    close(kde.integrate_gaussian(f32([1.0, 1.0]), np.eye(2, dtype=np.float32)),
          ref.integrate_gaussian([1.0, 1.0], np.eye(2)))
    other = stats.gaussian_kde(DATA_2D[:, :3])
    close(kde.integrate_kde(other),
          ref.integrate_kde(sps.gaussian_kde(DATA_2D[:, :3].astype(np.float64))))
    assert (kde.d, kde.n) == (2, 5)


@pytest.mark.spec("STA-8")
def test_kde_1d_and_resample(jax, jnp, stats):
    data = f32([1.0, 2.0, 4.0, 5.5])
    kde = stats.gaussian_kde(data)
    ref = sps.gaussian_kde(data.astype(np.float64))
    close(kde.integrate_box_1d(0.0, 3.0), ref.integrate_box_1d(0.0, 3.0))
    close(kde.pdf(2.0), ref.pdf(2.0))
    sample = kde.resample(jax.random.key(0), (7,))
    assert sample.shape == (1, 7) and sample.dtype == np.float32
    leaves, treedef = jax.tree_util.tree_flatten(kde)
    assert len(leaves) == 5
    rebuilt = jax.tree_util.tree_unflatten(treedef, leaves)
    close(rebuilt.evaluate(f32([2.0])), kde.evaluate(f32([2.0])))
    close(jax.jit(lambda k, x: k.logpdf(x))(kde, f32([1.0, 3.0])), ref.logpdf([1.0, 3.0]))


@pytest.mark.spec("STA-8")
def test_kde_errors(jnp, stats):
    with pytest.raises(TypeError):
        stats.gaussian_kde([1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        stats.gaussian_kde(jnp.array([1.0]))
    with pytest.raises(ValueError):
        stats.gaussian_kde(jnp.array([1.0, 2.0, 3.0]), bw_method="foo")
    with pytest.raises(ValueError):
        stats.gaussian_kde(jnp.array([1.0, 2.0, 3.0]), weights=jnp.ones(2))
    with pytest.raises(NotImplementedError):
        stats.gaussian_kde(jnp.array([1.0, 2.0, 3.0]) + 0j)
    kde = stats.gaussian_kde(jnp.asarray(DATA_2D))
    with pytest.raises(ValueError, match="dimension"):
        kde.evaluate(jnp.ones((3, 2)))
    with pytest.raises(ValueError):
        kde.integrate_box_1d(0.0, 1.0)
    with pytest.raises(NotImplementedError):
        kde.integrate_box([0.0, 0.0], [1.0, 1.0])
    with pytest.raises(NotImplementedError):
        kde.set_bandwidth("scott")
