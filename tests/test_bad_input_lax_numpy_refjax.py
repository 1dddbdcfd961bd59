"""Bad input where JAX 0.10.2 itself fails with an internal error: refjax's
own, deliberate classes (SPEC IDX-37, CF-91, NP-71).

The conformance file ``conformance/test_bad_input_lax_numpy.py`` holds the
cases where refjax and JAX agree.
"""
import numpy as np
import pytest

import refjax as jax
import refjax.numpy as jnp
from refjax import lax

A = jnp.ones((2, 3))


@pytest.mark.spec("IDX-37")
def test_zero_stride_is_a_type_error_not_a_division_by_zero():
    # JAX: ZeroDivisionError.
    for call in (lambda: lax.slice_in_dim(A, 0, 1, stride=0),
                 lambda: lax.slice(A, (0, 0), (1, 1), (0, 1))):
        with pytest.raises(TypeError, match="strides"):
            call()


@pytest.mark.spec("IDX-37")
def test_in_dim_helpers_of_a_python_scalar():
    # JAX: AttributeError ('float' object has no attribute 'ndim').
    for call in (lambda: lax.dynamic_slice_in_dim(1.0, 0, 1),
                 lambda: lax.slice_in_dim(1.0, 0, 1),
                 lambda: lax.index_in_dim(1.0, 0)):
        with pytest.raises(IndexError, match="axis 0 is out of bounds for array of "
                           "dimension 0"):
            call()


@pytest.mark.spec("CF-91")
def test_stacking_scan_too_long_is_an_overflow_error():
    # JAX: a TypeError from its MLIR bindings.
    with pytest.raises(OverflowError, match="does not fit the int32 iteration counter"):
        lax.scan(lambda c, x: (c, c), 0., None, length=2**70)


@pytest.mark.spec("CF-91")
def test_scan_length_error_names_the_argument():
    with pytest.raises(ValueError, match="The `length` argument to `scan` must be an "
                       "integer, got 'a'"):
        lax.scan(lambda c, x: (c, x), 0., None, length="a")


@pytest.mark.spec("CF-91")
def test_a_body_with_effects_still_runs_every_iteration(capsys):
    def body(c, x):
        jax.debug.print("tick")
        return c, None
    lax.scan(body, 0., None, length=3)
    assert capsys.readouterr().out.count("tick") == 3


@pytest.mark.spec("NP-71")
def test_rfft_of_an_empty_axis_says_why():
    # JAX: a ValueError from its MLIR verifier.
    with pytest.raises(ValueError, match="zero-length axis"):
        jnp.fft.rfft(jnp.zeros(0))


@pytest.mark.spec("NP-71")
def test_empty_quantile_message_says_what_is_missing():
    with pytest.raises(TypeError, match="need at least one element along the reduced "
                       "axes"):
        jnp.median(jnp.zeros(0))


@pytest.mark.spec("NP-71")
def test_empty_lu_factorisation():
    lu, pivots, perm = lax.linalg.lu(jnp.zeros((3, 0, 0)))
    assert lu.shape == (3, 0, 0) and pivots.shape == (3, 0) and perm.shape == (3, 0)
    np.testing.assert_array_equal(jnp.linalg.inv(jnp.zeros((0, 0))), np.zeros((0, 0)))


@pytest.mark.spec("NP-71")
def test_negative_tile_and_huge_shapes_are_value_errors():
    # JAX: an MLIRError, and a TypeError from its MLIR bindings.
    with pytest.raises(ValueError, match="non-negative repetitions"):
        jnp.tile(jnp.float32(2.), (2, -1))
    for shape in (2**70, (0, 2**70), (2**40, 2**40)):
        with pytest.raises(ValueError, match="too large"):
            jnp.ones(shape)


@pytest.mark.spec("LAX-14")
def test_shapes_numpy_cannot_allocate_are_value_errors():
    # JAX: a TypeError from its MLIR bindings, or the process aborts.
    for call in (lambda: jnp.zeros(0).repeat(2**70),
                 lambda: jax.random.poisson(jax.random.key(0), 2, shape=(2**70, 1)),
                 lambda: jax.random.ball(jax.random.key(0), 2**62, shape=()),
                 lambda: lax.broadcast_in_dim(1., (2**62, 4), ())):
        with pytest.raises(ValueError, match="is too large"):
            call()


@pytest.mark.spec("LAX-14")
def test_zero_d_arrays_as_shapes():
    from refjax._src import core
    assert core.canonicalize_shape(np.int64(3)) == (3,)
    assert core.canonicalize_shape(jnp.array(3)) == (3,)
    with pytest.raises(TypeError, match="0-d array"):
        core.canonicalize_shape(jnp.array(3), allow_0d_array=False)
    # jax.numpy's reading: any value NumPy sees as 0-d is one dimension.
    assert core.canonicalize_jnp_shape(np.array(2)) == (2,)
    with pytest.raises(TypeError):
        core.canonicalize_jnp_shape(b"ab")
    assert core.canonicalize_shape(b"ab") == (97, 98)


@pytest.mark.spec("LAX-14")
def test_out_of_memory_inside_a_handler_is_not_rewritten():
    # A compiled program converts only a MemoryError raised while it runs,
    # not one its caller is handling.
    f = jax.jit(lambda x: x + 1)
    try:
        raise MemoryError
    except MemoryError:
        assert int(f(1)) == 2
    with pytest.raises(jax.errors.JaxRuntimeError, match="Out of memory allocating"):
        jax.jit(lambda x: x + lax.iota(jnp.int8, 2**44))(1)


@pytest.mark.spec("LAX-15")
def test_sorting_keys_as_values_is_a_type_error():
    # JAX: ValueError from its MLIR verifier ("requires the same shape").
    keys = jax.random.split(jax.random.key(0))
    with pytest.raises(TypeError, match="sort does not accept dtype key<fry> at position 1"):
        lax.sort_key_val(jnp.ones(2), keys)
    with pytest.raises(TypeError, match="sort does not accept dtype key<fry>"):
        jax.random.permutation(jax.random.key(0), keys)


@pytest.mark.spec("DT-18")
def test_isdtype_reads_arrays_as_dtypes():
    from refjax._src import dtypes
    with pytest.warns(DeprecationWarning):
        assert dtypes.isdtype(jnp.zeros(2), "real floating")
    with pytest.warns(DeprecationWarning):
        assert not dtypes.isdtype(jnp.uint8, jnp.zeros((0, 0)))
    assert dtypes.isdtype(jnp.int8, ("bool", "signed integer"))
    assert not dtypes.isdtype(jnp.bool_, "numeric")
    with pytest.raises(ValueError, match="Unrecognized kind='foo'"):
        dtypes.isdtype(jnp.float32, "foo")
    with pytest.raises(TypeError, match="Expected kind to be a dtype, string, or tuple"):
        dtypes.isdtype(jnp.float32, 3)
