"""Arithmetic gotchas of gotchas.md that span several clauses (DT-3, LAX-1,
NP-48, ARR-4)."""
import numpy as np
import pytest


@pytest.mark.spec("DT-3")
def test_python_int_wraps_into_narrow_operand(jax, jnp):
    # G-DT-023: no OverflowError in a binary operation, unlike jnp.array(2**31).
    assert repr(jnp.uint8(3) + 300) == "Array(47, dtype=uint8)"
    assert repr(jnp.int8(3) + 1000) == "Array(-21, dtype=int8)"
    assert repr(jnp.uint8(3) + (-1)) == "Array(2, dtype=uint8)"


@pytest.mark.spec("DT-3")
def test_numpy_array_is_strong_under_x64(jax, jnp, x64):
    # G-DT-008
    assert repr(jnp.int16(1) + 1) == "Array(2, dtype=int16)"
    assert repr(jnp.int16(1) + np.array(1)) == "Array(2, dtype=int64)"


@pytest.mark.spec("LAX-1")
def test_lax_does_not_promote(jax, jnp):
    # G-DT-017
    lax = jax.lax
    assert repr(jnp.add(1, 1.0)) == "Array(2., dtype=float32, weak_type=True)"
    with pytest.raises(TypeError, match=r"lax.add requires arguments to have the same "
                                        r"dtypes, got int32, float32."):
        lax.add(1, 1.0)
    assert repr(lax.add(jnp.float32(1), 1.0)) == "Array(2., dtype=float32)"
    with pytest.raises(TypeError, match="got float32, int32"):
        lax.add(jnp.float32(1), jnp.int32(1))


@pytest.mark.spec("NP-48")
def test_sort_method_returns_new_array(jax, jnp):
    # G-NP-003
    x = jnp.array([3, 1, 2])
    assert x.sort().tolist() == [1, 2, 3] and x.tolist() == [3, 1, 2]
    assert not any(hasattr(x, m) for m in ("fill", "resize", "setflags"))


@pytest.mark.spec("ARR-4")
def test_results_are_array_impl_and_convert(jax, jnp):
    # G-NP-014
    x = jnp.ones((100, 100)) @ jnp.ones((100, 100))
    assert type(x).__name__ == "ArrayImpl" and float(x[0, 0]) == 100.0


@pytest.mark.spec("DT-5")
def test_float64_numpy_operand_computes_as_float32(jax, jnp):
    # A NumPy float64 operand is canonicalized before the kernel runs, so
    # 0.1 rounds to float32 on both sides and the bits are float32's.
    lax = jax.lax
    assert bool(lax.eq(np.array([0.1]), jnp.array([0.1], jnp.float32))[0])
    bits = lax.bitcast_convert_type(np.array([1.0]), jnp.int32)
    assert bits.shape == (1,) and int(bits[0]) == 1065353216
