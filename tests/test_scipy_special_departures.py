"""Where refjax's jax.scipy.special departs from JAX 0.10.2 (SPEC SPC-40).

refjax only: JAX 0.10.2 gives the defective values these tests exclude."""
import numpy as np
import pytest
import scipy.special as osp

import refjax.scipy.special as special


@pytest.mark.spec("SPC-40")
def test_expn_at_zero_is_scipys_value():
    out = special.expn(np.array([2, 3, 5]), np.float32([0, 0, 0]))
    np.testing.assert_array_equal(np.asarray(out), np.float32([1.0, 0.5, 0.25]))


@pytest.mark.spec("SPC-40")
def test_exponential_integrals_of_float16_are_computed_in_float32():
    out = special.expi(np.float16(1.5))
    assert out.dtype == np.float16
    np.testing.assert_allclose(float(out), osp.expi(1.5), rtol=2e-3)
    np.testing.assert_allclose(float(special.exp1(np.float16(0.5))), osp.exp1(0.5), rtol=2e-3)
