"""refjax computes ``jax.nn.scaled_matmul`` on CPU, where JAX 0.10.2 needs
cuDNN (SPEC NN-13): its values against the definition."""
import numpy as np
import pytest

import refjax as jax


@pytest.mark.spec("NN-13")
def test_scaled_matmul_matches_definition():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 4, 64)).astype(np.float32)
    b = rng.standard_normal((2, 3, 64)).astype(np.float32)
    sa = np.abs(rng.standard_normal((2, 4, 2))).astype(np.float32)
    sb = np.abs(rng.standard_normal((2, 3, 2))).astype(np.float32)
    ref = np.einsum("bmk,bnk->bmn", a * np.repeat(sa, 32, 2), b * np.repeat(sb, 32, 2))
    out = jax.nn.scaled_matmul(a, b, sa, sb)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    assert jax.nn.scaled_matmul(a, b, sa, sb, preferred_element_type=np.float16).dtype == np.float16


@pytest.mark.spec("NN-13")
def test_quantizing_configs_raise_as_on_jax_cpu():
    cfg = jax.nn.get_scaled_dot_general_config("mxfp8")
    with pytest.raises(NotImplementedError, match="cuDNN"):
        jax.nn.scaled_dot_general(np.ones((2, 32), np.float32), np.ones((32, 2), np.float32),
                                  (((1,), (0,)), ((), ())), configs=[cfg, cfg, cfg])
