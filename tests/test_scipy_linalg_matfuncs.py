"""refjax-only checks of ``refjax._src.scipy.linalg_matfuncs`` and
``linalg_matrices`` internals (SPEC SLA-40 .. SLA-43)."""
import math

import numpy as np
import scipy.linalg as sl

import refjax
import refjax.numpy as jnp
import refjax.scipy.linalg as linalg
from refjax._src.scipy import linalg_matfuncs


def test_pade_coefficients_are_higham_s():
    assert linalg_matfuncs._pade_coefficients(3) == (120.0, 60.0, 12.0, 1.0)
    b13 = linalg_matfuncs._pade_coefficients(13)
    assert b13[0] == 64764752532480000.0 and b13[-2] == 182.0
    for m in (3, 5, 7, 9, 13):
        b = linalg_matfuncs._pade_coefficients(m)
        x = 0.01
        p = sum(c * x ** k for k, c in enumerate(b))
        q = sum(c * (-x) ** k for k, c in enumerate(b))
        assert math.isclose(p / q, math.exp(x), rel_tol=1e-14)


def test_empty_matrices_give_empty_results():
    """SPEC SLA-42, SLA-43: JAX and SciPy fail with an IndexError here."""
    out = linalg.sqrtm(jnp.zeros((0, 0)))
    assert out.shape == (0, 0) and out.dtype == np.complex64
    f, err = linalg.funm(jnp.zeros((0, 0)), jnp.exp, disp=False)
    assert f.shape == (0, 0) and f.dtype == np.complex64
    assert float(err) == np.finfo(np.float32).eps


def test_expm_second_derivative_is_finite():
    b = jnp.asarray(np.array([[0.3, -0.2], [0.5, 0.1]], np.float32))
    hess = refjax.hessian(lambda x: linalg.expm(x).sum())(b)
    assert hess.shape == (2, 2, 2, 2) and np.isfinite(np.asarray(hess)).all()


def test_funm_of_real_matrix_with_complex_pair_uses_rsf2csf():
    a = np.array([[0.0, -2.0, 1.0], [2.0, 0.0, 0.5], [0.0, 0.0, 1.0]])
    out, err = linalg.funm(jnp.asarray(a, jnp.float32), jnp.exp, disp=False)
    want, want_err = sl.funm(a.astype(np.float32), np.exp, disp=False)
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(float(err), want_err, rtol=1e-3)
