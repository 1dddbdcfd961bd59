"""Conformance: arrays stay immutable through every NumPy, buffer-protocol
and DLPack path, and those paths work read-only (SPEC ARR-2, ARR-11)."""
import sys

import numpy as np
import pytest


def _cannot_make_writeable(view):
    with pytest.raises(ValueError, match="WRITEABLE"):
        view.setflags(write=True)
    with pytest.raises(ValueError):
        view[...] = 100


def _memoryview(x):
    """``memoryview(x)``.  refjax exports the buffer protocol with PEP 688's
    ``__buffer__``, which Python ignores before 3.12: there ``memoryview``
    raises TypeError and the hook itself is checked (SPEC ARR-11)."""
    if sys.version_info < (3, 12) and hasattr(type(x), "__buffer__"):
        with pytest.raises(TypeError):
            memoryview(x)
        return x.__buffer__(0)
    return memoryview(x)


def _arrays(jax, jnp):
    """One array of each kind whose NumPy view must stay read-only."""
    base = jnp.arange(6.0, dtype=jnp.float32).reshape(2, 3)
    return {
        "matrix": base,
        "scalar": jnp.float32(3),
        "empty": jnp.zeros((0, 3)),
        "transposed": base.T,
        "column": base[:, 1],
        "bool": jnp.array([True, False]),
        "bfloat16": jnp.ones(3, jnp.bfloat16),
        "int8": jnp.arange(4, dtype=jnp.int8),
        "jit output": jax.jit(lambda v: v * 2)(base),
        "key data": jax.random.key_data(jax.random.key(0)),
        "legacy key": jax.random.PRNGKey(0),
    }


@pytest.mark.spec("ARR-11")
@pytest.mark.parametrize("kind", ["matrix", "scalar", "empty", "transposed",
                                  "column", "bool", "bfloat16", "int8",
                                  "jit output", "key data", "legacy key"])
def test_numpy_views_cannot_be_made_writeable(jax, jnp, kind):
    x = _arrays(jax, jnp)[kind]
    before = np.array(x)
    view = np.asarray(x)
    assert not view.flags.writeable
    _cannot_make_writeable(view)
    _cannot_make_writeable(x.__array__())
    _cannot_make_writeable(np.asarray(x, copy=False))
    np.testing.assert_array_equal(np.asarray(x), before)


@pytest.mark.spec("ARR-2")
def test_buffers_shared_with_other_arrays_constants_and_keys_are_safe(jax, jnp):
    x = jnp.arange(4.0)
    same = jnp.asarray(x)                     # may share x's buffer
    f = jax.jit(lambda v: v + x)              # captures x as a constant
    key = jax.random.key(0)
    bits = jax.random.bits(key, (3,))
    for target in (x, same, jax.random.key_data(key)):
        _cannot_make_writeable(np.asarray(target))
    assert same.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert f(jnp.ones(4)).tolist() == [1.0, 2.0, 3.0, 4.0]
    assert jax.random.bits(key, (3,)).tolist() == bits.tolist()


@pytest.mark.spec("ARR-11")
def test_copies_are_ordinary_writeable_arrays(jax, jnp):
    x = jnp.arange(3.0)
    copies = [np.array(x), np.asarray(x, copy=True), x.__array__(copy=True),
              np.asarray(x, dtype=np.float64), x.__array__(np.int32)]
    for c in copies:
        assert c.flags.writeable
        c[0] = 100
    assert x.tolist() == [0.0, 1.0, 2.0]
    assert np.shares_memory(np.asarray(x), np.asarray(x))
    assert np.asarray(x, dtype=np.float32).dtype == np.float32


@pytest.mark.spec("ARR-11")
def test_array_copy_false_with_another_dtype_raises(jax, jnp):
    x = jnp.arange(3.0)
    with pytest.raises(ValueError):
        x.__array__(np.float64, copy=False)
    with pytest.raises(ValueError):
        np.asarray(x, dtype=np.float64, copy=False)
    assert not x.__array__(np.float32, copy=False).flags.writeable


@pytest.mark.spec("ARR-11")
@pytest.mark.parametrize("kind", ["matrix", "scalar", "empty", "transposed",
                                  "bool", "int8"])
def test_memoryview_is_read_only(jax, jnp, kind):
    x = _arrays(jax, jnp)[kind]
    host = np.array(x)
    view = _memoryview(x)
    assert view.readonly
    assert view.shape == host.shape
    assert view.c_contiguous
    assert view.tobytes() == host.tobytes()
    assert view.itemsize == host.itemsize
    if kind == "bool":
        assert view.format == "?"
    if host.size:
        with pytest.raises(TypeError):
            view.cast("B")[0] = 1
        _cannot_make_writeable(np.frombuffer(view, np.uint8))


@pytest.mark.spec("ARR-11")
def test_memoryview_refuses_bfloat16_and_deleted_arrays(jax, jnp):
    with pytest.raises(BufferError):
        _memoryview(jnp.ones(2, jnp.bfloat16))
    x = jnp.ones(2)
    x.delete()
    with pytest.raises(BufferError):
        _memoryview(x)


@pytest.mark.spec("ARR-11")
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_tobytes(jax, jnp, order):
    x = jnp.arange(6.0, dtype=jnp.float32).reshape(2, 3)
    assert x.tobytes(order) == np.array(x).tobytes(order)
    # An Array is row-major whatever produced it, a transpose included.
    assert x.T.tobytes(order=order) == np.ascontiguousarray(
        np.array(x).T).tobytes(order)
    assert jnp.float32(3).tobytes() == np.float32(3).tobytes()
    assert jnp.ones(2, jnp.bfloat16).tobytes() == np.array(
        jnp.ones(2, jnp.bfloat16)).tobytes()


@pytest.mark.spec("ARR-11")
def test_tobytes_rejects_unknown_orders(jax, jnp):
    with pytest.raises(ValueError):
        jnp.ones(2).tobytes(order="Z")


@pytest.mark.spec("ARR-11")
@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8", "bool",
                                   "complex64", "float16"])
def test_from_dlpack_is_an_equal_read_only_array(jax, jnp, dtype):
    x = jnp.arange(6).reshape(2, 3).astype(dtype)
    y = np.from_dlpack(x)
    assert y.dtype == np.dtype(dtype) and y.shape == (2, 3)
    np.testing.assert_array_equal(y, np.array(x))
    _cannot_make_writeable(y)
    assert tuple(x.__dlpack_device__()) == (1, 0)
    assert type(x.__dlpack__()).__name__ == "PyCapsule"
    assert type(x.__dlpack__(max_version=(1, 0))).__name__ == "PyCapsule"


@pytest.mark.spec("ARR-11")
def test_key_arrays_have_no_buffer(jax, jnp):
    key = jax.random.key(0)
    with pytest.raises(TypeError):
        np.asarray(key)
    with pytest.raises(TypeError):
        memoryview(key)


@pytest.mark.spec("ARR-11")
def test_deleted_arrays_raise_runtime_error(jax, jnp):
    x = jnp.ones(3)
    x.delete()
    for convert in (np.asarray, lambda a: a.tobytes(), lambda a: a.__dlpack__()):
        with pytest.raises(RuntimeError, match="deleted"):
            convert(x)
