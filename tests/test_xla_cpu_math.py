"""XLA's CPU elementary functions as refjax reproduces them (SPEC LAX-11).

Bit-for-bit agreement with JAX is checked by the conformance suite
(``conformance/test_lax.py``, ``--impl=jax``); these tests pin the
building blocks: single-rounding multiply-adds, special values, blocking,
and that each approximation is still the function it claims to be.
"""
from fractions import Fraction

import numpy as np
import pytest

import refjax
import refjax.numpy as jnp
from refjax._src.lax import precision
from refjax._src.lax import xla_cpu_math as m

pytestmark = pytest.mark.spec("LAX-11")

F32 = np.float32


def _ulps32(a, b):
    a, b = (np.asarray(v, F32).view(np.int32).astype(np.int64) for v in (a, b))
    return np.abs(np.where(a < 0, -2**31 - a, a) - np.where(b < 0, -2**31 - b, b))


def test_fma64_rounds_once():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(3000) * 10.0 ** rng.integers(-5, 5, 3000)
    b = rng.standard_normal(3000)
    # Half the addends nearly cancel the product, where double rounding shows.
    c = np.where(np.arange(3000) % 2 == 0, -(a * b), rng.standard_normal(3000))
    got = m.fma64(a, b, c)
    want = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)]
    np.testing.assert_array_equal(got, np.array(want))
    assert not np.array_equal(got, a * b + c)


def test_fma_primitive_float64_rounds_once():
    refjax.config.update("jax_enable_x64", True)
    try:
        x, y = np.float64(1 + 2.0 ** -30), np.float64(1 - 2.0 ** -30)
        got = float(precision.fma(jnp.asarray(x), jnp.asarray(y), jnp.asarray(-1.0)))
    finally:
        refjax.config.update("jax_enable_x64", False)
    assert got == -2.0 ** -60 and float(x) * float(y) - 1.0 == 0.0


def test_fma32_rounds_once():
    # (1 + 2**-12)**2 = 1 + 2**-11 + 2**-24 is a tie that rounds to even.
    a, c = F32(1 + 2.0 ** -12), F32(-(1 + 2.0 ** -11))
    assert m.fma32(np.array([a]), a, c)[0] == F32(2.0 ** -24)
    assert F32(a * a) + c == 0


@pytest.mark.parametrize("name,reference", [("log", np.log), ("exp", np.exp),
                                            ("log1p", np.log1p)])
def test_approximations_within_two_ulp_of_true_value(name, reference):
    x = np.linspace(-80 if name == "exp" else 0.01, 80 if name == "exp" else 50, 100001,
                    dtype=F32)
    got = np.asarray(getattr(jnp, name)(x))
    want = reference(x.astype(np.float64)).astype(F32)
    assert _ulps32(got, want).max() <= 2
    assert (got != want).any()       # not the correctly rounded function


def test_special_values():
    inf, nan, tiny = F32(np.inf), F32(np.nan), F32(1e-40)
    log = np.asarray(jnp.log(np.array([0, -0.0, -1, inf, nan, tiny, -tiny], F32)))
    np.testing.assert_array_equal(log[[0, 1, 3, 5, 6]], [-inf, -inf, inf, -inf, -inf])
    assert np.isnan(log[[2, 4]]).all()
    exp = np.asarray(jnp.exp(np.array([inf, -inf, nan, 89, -104, 0], F32)))
    np.testing.assert_array_equal(exp[[0, 1, 3, 4, 5]], [inf, 0, inf, 0, 1])
    assert np.isnan(exp[2])
    log1p = np.asarray(jnp.log1p(np.array([-1, -2, inf, -0.0, -tiny, 0.25], F32)))
    assert log1p[0] == -inf and np.isnan(log1p[1]) and log1p[2] == inf
    assert log1p[3] == 0 and np.signbit(log1p[3]) and log1p[4] == 0 and np.signbit(log1p[4])
    assert _ulps32(log1p[5], np.log1p(0.25)) <= 1


def test_narrow_floats_round_the_float32_result():
    x = np.linspace(0.1, 8, 50).astype(np.float16)
    np.testing.assert_array_equal(np.asarray(jnp.log(x)),
                                  m.log_f32(np, x.astype(F32)).astype(np.float16))


@pytest.mark.parametrize("kernel", [m.log_f32, m.exp_f32, m.log1p_f32, m.erf_inv_f32])
def test_blocks_give_the_unblocked_result(kernel):
    x = np.random.default_rng(1).uniform(-0.99, 0.99, (3, 70001)).astype(F32)
    if kernel is m.log_f32:
        x = np.abs(x)
    got = kernel(np, x)
    assert got.shape == x.shape and got.dtype == F32
    np.testing.assert_array_equal(got, kernel.__wrapped__(np, x))


def test_erf_inv_float64_pieces_and_edges():
    x = np.array([0.0, 0.5, -0.9999, 1 - 1e-12, 1.0, -1.0, 1.5, np.nan])
    with np.errstate(all="ignore"):
        got = m.erf_inv_f64(np, x)
    from scipy import special
    np.testing.assert_allclose(got[:4], special.erfinv(x[:4]), rtol=1e-13)
    assert got[4] == np.inf and got[5] == -np.inf and np.isnan(got[6:]).all()


def test_rsqrt_refines_the_hardware_estimate():
    x = np.array([1.0, 2.0, 3.0, 0.25, 1e30], F32)
    est = m._rsqrt_estimate(np, x)
    exact = 1 / np.sqrt(x.astype(np.float64))
    assert (np.abs(est / exact - 1) < 2.0 ** -11).all()     # a 12-bit estimate
    assert (est.view(np.uint32) & 0x7FF == 0).all()
    assert _ulps32(m.rsqrt_f32(np, x), exact.astype(F32)).max() <= 1


def test_numpy_backend_offers_scipys_lapack():
    from refjax._src import backend
    be = backend.get()
    assert be.lapack("syevd", np.float32).__name__.endswith("ssyevd")
    assert be.lapack("geqrf", np.complex128).__name__.endswith("zgeqrf")
    assert be.lapack("syevd", np.float16) is None


def test_factorizations_without_lapack_fall_back_to_xp_linalg(monkeypatch):
    from refjax._src import backend
    be = backend.get()
    monkeypatch.setattr(type(be), "lapack", lambda self, name, dtype: None)
    a = np.random.default_rng(2).standard_normal((4, 3)).astype(F32)
    q, r = (np.asarray(v) for v in jnp.linalg.qr(a))
    np.testing.assert_allclose(q @ r, a, atol=1e-5)
    w, v = (np.asarray(t) for t in jnp.linalg.eigh(a.T @ a))
    np.testing.assert_allclose(v @ np.diag(w) @ v.T, a.T @ a, atol=1e-4)
    s = np.asarray(jnp.linalg.svd(a, compute_uv=False))
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-5)
