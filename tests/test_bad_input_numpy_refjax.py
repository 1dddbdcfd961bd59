"""Bad input to jax.numpy where JAX 0.10.2 fails by accident (an IndexError
from NumPy indexing inside JAX, a NumPy error): refjax's own, deliberate
classes (SPEC NP-72, FUZZ-3).

The conformance file ``conformance/test_bad_input_numpy.py`` holds the
cases where refjax and JAX agree.
"""
import pytest

import refjax.numpy as jnp


@pytest.mark.spec("NP-72")
def test_swapaxes_axes_that_are_no_integers():
    # JAX indexes a NumPy permutation with the axes: IndexError or NumPy's
    # ValueError, depending on the value.
    x = jnp.eye(3)
    for axis in ((1, 0), (1, 2)):
        with pytest.raises(ValueError, match="swapaxes takes two integer axes"):
            jnp.swapaxes(x, axis, 0)
    for axis in (1.0, "a"):
        with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
            x.swapaxes(axis, 0)
    for axis in (None, ...):
        with pytest.raises(ValueError, match="setting an array element with a sequence"):
            x.swapaxes(axis, 0)


@pytest.mark.spec("NP-72")
def test_hfft_axis_out_of_range_is_a_value_error():
    # JAX: IndexError (tuple index out of range).
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.fft.hfft(jnp.ones(2), axis=5, norm="bad")


@pytest.mark.spec("NP-72")
def test_fftfreq_sizes_that_are_no_whole_numbers():
    # JAX returns an array for a fractional n (arange over float bounds) and
    # fails inside a binding for 2**70; refjax refuses both.
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        jnp.fft.fftfreq(2.5)
    with pytest.raises(ValueError):
        jnp.fft.fftfreq(2**70)
