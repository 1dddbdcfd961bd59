"""The PRNG examples of the project's seed documents give JAX's values (SPEC RNG-23).

Key data and normal samples are compared exactly (RNG-21), both with the
values JAX 0.10.2 printed and, differentially, with refjax (``oracle``).
"""
import numpy as np
import pytest

pytestmark = pytest.mark.spec("RNG-23")

# refjax's erf_inv is XLA's, operation by operation (RNG-21, LAX-11).
NORMAL_ULP = 0


def ulp_distance(a, b):
    a = np.asarray(a, np.float32).view(np.int32).astype(np.int64)
    b = np.asarray(b, np.float32).view(np.int32).astype(np.int64)
    return int(np.abs(a - b).max()) if a.size else 0


def data(jax, keys):
    return np.asarray(jax.random.key_data(keys)).tolist()


def test_split_then_normal_then_ten_keys(jax, oracle):
    """``key, subkey = split(key(42)); normal(subkey, (3, 3)); split(key, num=10)``."""
    def run(jx):
        key = jx.random.key(42)
        key, subkey = jx.random.split(key)
        noise = jx.random.normal(subkey, shape=(3, 3))
        keys = jx.random.split(key, num=10)
        return data(jx, key), data(jx, subkey), np.asarray(noise), data(jx, keys)

    key, subkey, noise, keys = run(jax)
    assert key == [1832780943, 270669613]
    assert subkey == [64467757, 2916123636]
    assert keys[:3] == [[1012194634, 3152801799], [1705926158, 899080142],
                        [4095997477, 317277840]]
    assert len(keys) == 10
    ref = run(oracle)
    assert (key, subkey, keys) == (ref[0], ref[1], ref[3])
    assert ulp_distance(noise, ref[2]) <= NORMAL_ULP
    assert noise.dtype == np.float32 and noise.shape == (3, 3)


def test_training_loop_split_into_three(jax, oracle):
    """``key, dropout_key, noise_key = split(key, 3)`` each step from ``key(0)``."""
    def run(jx):
        key, out = jx.random.key(0), []
        for _ in range(3):
            key, dropout_key, noise_key = jx.random.split(key, 3)
            out.append([data(jx, k) for k in (key, dropout_key, noise_key)])
        return out

    steps = run(jax)
    assert steps[0] == [[1797259609, 2579123966], [928981903, 3453687069],
                        [4146024105, 2718843009]]
    assert steps[1] == [[4165894930, 804218099], [1353695780, 2116000888],
                        [2839387376, 2467677468]]
    assert steps[2] == [[683029726, 1624662641], [3531307783, 465290248],
                        [4021395286, 2323224092]]
    assert steps == run(oracle)


def test_prngkey_split_normal_ten(jax, oracle):
    """``key, subkey = split(PRNGKey(0)); normal(subkey, (10,))`` with raw keys."""
    def run(jx):
        key, subkey = jx.random.split(jx.random.PRNGKey(0))
        return np.asarray(key), np.asarray(jx.random.normal(subkey, (10,)))

    key, x = run(jax)
    assert key.dtype == np.uint32 and key.tolist() == [1797259609, 2579123966]
    expected = [-2.442455768585205, -2.0356805324554443, 0.20554423332214355,
                -0.3535501956939697, -0.761974036693573, -1.1785517930984497,
                -1.1482195854187012, 0.29716578125953674, -1.3105359077453613]
    assert ulp_distance(x[:9], expected) <= NORMAL_ULP
    assert ulp_distance(x, run(oracle)[1]) <= NORMAL_ULP


def test_init_params_split(jax, oracle):
    """The MLP initialisation: ``k1, k2 = split(key(42))``, normal weights * 0.01."""
    def run(jx):
        k1, k2 = jx.random.split(jx.random.key(42))
        return (np.asarray(jx.random.normal(k1, (784, 256)) * 0.01),
                np.asarray(jx.random.normal(k2, (256, 10)) * 0.01))

    w1, w2 = run(jax)
    assert w1.shape == (784, 256) and w2.shape == (256, 10)
    assert ulp_distance(w1[0, :4], [0.0007592553738504648, -0.004863426089286804,
                                    0.012903206050395966, 0.005196118727326393]) <= NORMAL_ULP
    r1, r2 = run(oracle)
    assert ulp_distance(w1, r1) <= NORMAL_ULP and ulp_distance(w2, r2) <= NORMAL_ULP
