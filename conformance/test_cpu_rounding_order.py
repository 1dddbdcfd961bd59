"""The order XLA's CPU rounds short sums and matrix-vector products in:
short float sums add their elements in row-major order (SPEC LAX-18), and
matrix-vector products contracting fewer than 8 float32 elements add each
product with a fused multiply-add (SPEC LAX-19)."""
import numpy as np
import pytest


def _sequential(values, dtype):
    total = dtype(0)
    for v in values:
        total = dtype(total + v)
    return total


def _spread(rng, shape, dtype):
    # Mixed magnitudes, so that different orders round differently.
    scale = rng.choice([1.0, 1e2, 1e4], size=shape)
    return (rng.standard_normal(shape) * scale).astype(dtype)


@pytest.mark.spec("LAX-18")
@pytest.mark.parametrize("n", [3, 8, 15, 17, 31, 32])
def test_full_sum_is_sequential(jnp, n):
    dtype = np.float32
    rng = np.random.default_rng(n)
    for _ in range(10):
        x = _spread(rng, (n,), dtype)
        got = np.asarray(jnp.sum(jnp.asarray(x)))
        assert got == _sequential(x, dtype), (x.tolist(), got)


@pytest.mark.spec("LAX-18")
@pytest.mark.parametrize("shape, axes", [((3, 5), None), ((6, 4), (1,)), ((4, 6), (0,)),
                                         ((4, 3, 2), (0, 2))])
def test_axis_sums_are_sequential_in_row_major_order(jnp, shape, axes):
    rng = np.random.default_rng(sum(shape))
    x = _spread(rng, shape, np.float32)
    got = np.asarray(jnp.sum(jnp.asarray(x), axis=axes))
    reduced = tuple(range(x.ndim)) if axes is None else axes
    kept = [a for a in range(x.ndim) if a not in reduced]
    rows = np.transpose(x, kept + list(reduced)).reshape(
        tuple(x.shape[a] for a in kept) + (-1,))
    expected = np.array([_sequential(r, np.float32) for r in rows.reshape(-1, rows.shape[-1])],
                        dtype=np.float32).reshape(rows.shape[:-1])
    np.testing.assert_array_equal(got, expected)


def _fma_sequential(row, vector):
    # A float32 fused multiply-add: the product is exact in float64, and the
    # sum is rounded once to float32 (the trials here never double-round).
    total = np.float64(0)
    for a, b in zip(row, vector):
        total = np.float64(np.float32(np.float64(a) * np.float64(b) + total))
    return np.float32(total)


@pytest.mark.spec("LAX-19")
@pytest.mark.parametrize("k", [2, 3, 4, 5, 7])
@pytest.mark.parametrize("rows", [1, 4, 100])
def test_short_matrix_vector_products_use_fused_multiply_adds(jnp, k, rows):
    rng = np.random.default_rng(10 * k + rows)
    for _ in range(5):
        matrix = _spread(rng, (rows, k), np.float32)
        vector = rng.standard_normal(k).astype(np.float32)
        got = np.asarray(jnp.dot(jnp.asarray(matrix), jnp.asarray(vector)))
        expected = np.array([_fma_sequential(r, vector) for r in matrix], np.float32)
        np.testing.assert_array_equal(got, expected)
