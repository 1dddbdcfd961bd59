"""refjax-only checks of pivoted QR derivatives (SPEC LIN-42).

JAX 0.10.2's pivoted-QR derivative is wrong for stacks of matrices and for
wide ones (it indexes the tangent with the batched order and uses the
unpermuted matrix), so these cases are checked here, on refjax alone,
numerically with ``check_grads``.
"""
import numpy as np
import pytest

import refjax
from refjax import lax
from refjax.test_util import check_grads

R = np.random.RandomState(5)


@pytest.mark.parametrize("shape", [(3, 5), (2, 4, 3), (2, 3, 4)])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_pivoted_qr_grads_batched_and_wide(shape, dtype):
    a = R.randn(*shape).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * R.randn(*shape)
    with refjax.enable_x64(True):
        check_grads(lambda x: lax.linalg.qr(x, pivoting=True)[:2], (a,), 1,
                    modes=["fwd", "rev"], atol=1e-5, rtol=1e-5)


def test_pivoted_qr_vmap_and_jit_match_loop():
    a = R.randn(3, 4, 3).astype(np.float32)
    batched = refjax.vmap(lambda x: lax.linalg.qr(x, pivoting=True))(a)
    jitted = refjax.jit(lambda x: lax.linalg.qr(x, pivoting=True))(a)
    for i in range(3):
        for got, want in zip(batched, lax.linalg.qr(a[i], pivoting=True)):
            np.testing.assert_allclose(np.asarray(got[i]), np.asarray(want), rtol=1e-6)
    for got, want in zip(jitted, lax.linalg.qr(a, pivoting=True)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
