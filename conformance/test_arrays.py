"""Conformance: jax.Array behaviour, creation functions, reprs and lists as
inputs (SPEC ARR-*)."""
import copy
import warnings

import numpy as np
import pytest


@pytest.mark.spec("ARR-1")
def test_arrays_are_jax_array_instances(jax, jnp):
    x = jnp.arange(3)
    assert isinstance(x, jax.Array)
    assert isinstance(x, jnp.ndarray)
    assert type(x).__name__ == "ArrayImpl"
    assert not isinstance(np.arange(3), jax.Array)
    assert isinstance(jnp.float32(1), jax.Array)


@pytest.mark.spec("ARR-2")
def test_item_assignment_raises_type_error_pointing_to_at(jax, jnp):
    x = jnp.arange(3)
    with pytest.raises(TypeError) as info:
        x[0] = 1
    assert str(info.value).startswith(
        "JAX arrays are immutable and do not support in-place item assignment. "
        "Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method")
    assert x.tolist() == [0, 1, 2]


@pytest.mark.spec("ARR-2")
def test_numpy_views_are_read_only(jax, jnp):
    x = jnp.arange(3)
    view = np.asarray(x)
    assert not view.flags.writeable
    with pytest.raises(ValueError):
        view[0] = 5
    assert x.tolist() == [0, 1, 2]


@pytest.mark.spec("ARR-2")
def test_creation_copies_numpy_input(jax, jnp):
    source = np.arange(3.0, dtype=np.float32)
    x = jnp.array(source)
    y = jnp.asarray(source)
    source[0] = 10.0
    assert x.tolist() == [0.0, 1.0, 2.0] and y.tolist() == [0.0, 1.0, 2.0]
    assert source.flags.writeable


@pytest.mark.spec("ARR-2")
def test_array_copies_numpy_and_asarray_view_is_read_only(jax, jnp):
    # G-LIST-008
    a = np.arange(3.)
    j, k = jnp.array(a), jnp.asarray(a)
    a[0] = 100.
    assert j.tolist() == k.tolist() == [0., 1., 2.]
    n = np.asarray(jnp.arange(3))
    assert type(n) is np.ndarray and not n.flags.writeable
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        n[0] = 5


@pytest.mark.spec("ARR-3")
def test_arrays_are_unhashable(jax, jnp):
    with pytest.raises(TypeError, match="unhashable type"):
        hash(jnp.arange(3))
    with pytest.raises(TypeError, match="unhashable type"):
        {jnp.float32(1): 1}


REPRS = [
    # (expression, repr observed on JAX 0.10.2, str observed)
    ("jnp.arange(3)", "Array([0, 1, 2], dtype=int32)", "[0 1 2]"),
    ("jnp.array(1.0)", "Array(1., dtype=float32, weak_type=True)", "1.0"),
    ("jnp.array([[0., 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]])",
     "Array([[ 0.,  1.,  2.,  3.],\n       [ 4.,  5.,  6.,  7.],\n       [ 8.,  9., 10., 11.]], dtype=float32)",
     "[[ 0.  1.  2.  3.]\n [ 4.  5.  6.  7.]\n [ 8.  9. 10. 11.]]"),
    ("jnp.zeros((2, 0))", "Array([], shape=(2, 0), dtype=float32)", "[]"),
    ("jnp.zeros((0,), jnp.int8)", "Array([], shape=(0,), dtype=int8)", "[]"),
    ("jnp.array(1.5, jnp.bfloat16)", "Array(1.5, dtype=bfloat16)", "1.5"),
    ("jnp.array([True, False])", "Array([ True, False], dtype=bool)", "[ True False]"),
    ("jnp.array([1+2j])", "Array([1.+2.j], dtype=complex64)", "[1.+2.j]"),
    ("jnp.array(3, jnp.uint8)", "Array(3, dtype=uint8)", "3"),
    ("jnp.array([1., np.nan, -np.inf])", "Array([  1.,  nan, -inf], dtype=float32)", "[  1.  nan -inf]"),
    ("jnp.arange(0.0, 1.0, 0.25)", "Array([0.  , 0.25, 0.5 , 0.75], dtype=float32)", "[0.   0.25 0.5  0.75]"),
    ("jnp.arange(30.)",
     "Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n"
     "       13., 14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25.,\n"
     "       26., 27., 28., 29.], dtype=float32)", None),
    ("jnp.arange(2000.)",
     "Array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03,\n"
     "       1.999e+03], dtype=float32)", None),
    ("jnp.ones((2, 2, 2), jnp.int16)",
     "Array([[[1, 1],\n        [1, 1]],\n\n       [[1, 1],\n        [1, 1]]], dtype=int16)", None),
    ("jnp.full(3, 0.5)",
     "Array([0.5, 0.5, 0.5], dtype=float32, weak_type=True)", "[0.5 0.5 0.5]"),
]


@pytest.mark.spec("ARR-5")
@pytest.mark.parametrize("expr, want_repr, want_str", REPRS)
def test_repr_and_str(jax, jnp, expr, want_repr, want_str):
    x = eval(expr, {"jnp": jnp, "np": np})
    assert repr(x) == want_repr
    if want_str is not None:
        assert str(x) == want_str


@pytest.mark.spec("ARR-5")
def test_repr_x64(jax, jnp, x64):
    assert repr(jnp.arange(3)) == "Array([0, 1, 2], dtype=int64)"
    assert repr(jnp.array([1.5])) == "Array([1.5], dtype=float64)"


@pytest.mark.spec("ARR-4")
def test_attributes(jax, jnp):
    x = jnp.ones((2, 3), jnp.float16)
    assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6
    assert x.dtype == np.float16 and x.weak_type is False
    assert x.T.shape == (3, 2)
    assert x.itemsize == 2 and x.nbytes == 12
    assert jnp.asarray(1.0).weak_type is True
    assert jnp.ones((2, 3, 4)).transpose((2, 0, 1)).shape == (4, 2, 3)


@pytest.mark.spec("ARR-4")
def test_python_conversions(jax, jnp):
    assert jnp.array(2.0).item() == 2.0 and type(jnp.array(2.0).item()) is float
    assert type(jnp.array(1.5, jnp.bfloat16).item()) is float
    assert jnp.array([[0, 1, 2], [3, 4, 5]]).tolist() == [[0, 1, 2], [3, 4, 5]]
    assert int(jnp.array(2.7)) == 2
    assert float(jnp.array(2)) == 2.0
    assert complex(jnp.array(2.0)) == 2 + 0j
    assert bool(jnp.array([1])) is True
    assert len(jnp.ones((4, 2))) == 4
    assert list(range(jnp.int32(3))) == [0, 1, 2]
    assert [10, 20, 30][jnp.int32(1)] == 20
    items = list(jnp.arange(3))
    assert [repr(i) for i in items] == ["Array(0, dtype=int32)", "Array(1, dtype=int32)",
                                        "Array(2, dtype=int32)"]


@pytest.mark.spec("ARR-4")
@pytest.mark.parametrize("action, error, message", [
    ("float(jnp.ones(3))", TypeError,
     "Only scalar arrays can be converted to Python scalars; got arr.ndim=1"),
    ("int(jnp.ones((1, 1)))", TypeError,
     "Only scalar arrays can be converted to Python scalars; got arr.ndim=2"),
    ("bool(jnp.ones(3))", ValueError,
     "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()"),
    ("bool(jnp.ones(0))", ValueError, "The truth value of an empty array is ambiguous."),
    ("jnp.ones(3).__index__()", TypeError,
     "Only integer scalar arrays can be converted to a scalar index."),
    ("jnp.array(1.5).__index__()", TypeError,
     "Only integer scalar arrays can be converted to a scalar index."),
    ("jnp.ones(3).item()", ValueError, "can only convert an array of size 1 to a Python scalar"),
    ("len(jnp.array(1.))", TypeError, "len() of unsized object"),
    ("iter(jnp.array(1.))", TypeError, "iteration over a 0-d array"),
])
def test_conversion_errors(jax, jnp, action, error, message):
    with pytest.raises(error) as info:
        eval(action, {"jnp": jnp})
    assert str(info.value).startswith(message)


@pytest.mark.spec("ARR-4")
def test_numpy_interop(jax, jnp):
    x = jnp.array([1.5, 2.5], jnp.float32)
    host = np.asarray(x)
    assert isinstance(host, np.ndarray) and host.dtype == np.float32
    np.testing.assert_array_equal(host, [1.5, 2.5])
    assert np.array(x, dtype=np.float64).dtype == np.float64
    assert jnp.asarray(np.array([1, 2], np.int8)).dtype == np.int8
    assert x.block_until_ready() is x


@pytest.mark.spec("ARR-4")
def test_copy(jax, jnp):
    x = jnp.asarray(2.0)
    for y in (x.copy(), copy.copy(x), copy.deepcopy(x)):
        assert y is not x
        assert repr(y) == repr(x)


@pytest.mark.spec("ARR-6")
def test_array_and_asarray(jax, jnp):
    x = jnp.ones(2)
    assert jnp.asarray(x) is x
    assert jnp.array(x) is not x
    assert repr(jnp.array([1, 2.0])) == "Array([1., 2.], dtype=float32)"
    assert repr(jnp.array([1, True])) == "Array([1, 1], dtype=int32)"
    assert repr(jnp.array([jnp.array(1.0), 2])) == "Array([1., 2.], dtype=float32)"
    assert repr(jnp.array([jnp.ones(2), jnp.zeros(2, jnp.int8)])) == \
        "Array([[1., 1.],\n       [0., 0.]], dtype=float32)"
    assert repr(jnp.array((1, 2), dtype=jnp.int8)) == "Array([1, 2], dtype=int8)"
    assert repr(jnp.array(3.7, dtype=jnp.int32)) == "Array(3, dtype=int32)"
    assert repr(jnp.array([])) == "Array([], shape=(0,), dtype=float32)"
    assert repr(jnp.array(1, ndmin=2)) == "Array([[1]], dtype=int32, weak_type=True)"
    assert repr(jnp.asarray([1, 2], dtype=jnp.float16)) == "Array([1., 2.], dtype=float16)"


@pytest.mark.spec("ARR-6")
@pytest.mark.parametrize("value, error, message", [
    ("abc", TypeError, "Value 'abc' with dtype <U3 is not a valid JAX array type. "
                       "Only arrays of numeric types are supported by JAX."),
    (None, ValueError, "None is not a valid value for jnp.array"),
    ([[1, 2], [3]], ValueError, "setting an array element with a sequence"),
])
def test_array_rejects_non_numeric(jax, jnp, value, error, message):
    with pytest.raises(error) as info:
        jnp.array(value)
    assert str(info.value).startswith(message)


@pytest.mark.spec("ARR-6")
def test_filled_creation(jax, jnp):
    assert repr(jnp.zeros_like(jnp.array(1.0))) == "Array(0., dtype=float32, weak_type=True)"
    assert repr(jnp.full_like(jnp.array(1.0), 2)) == "Array(2., dtype=float32, weak_type=True)"
    assert repr(jnp.full(3, 1.0)) == "Array([1., 1., 1.], dtype=float32, weak_type=True)"
    assert repr(jnp.full((2,), 1, dtype=jnp.int8)) == "Array([1, 1], dtype=int8)"
    assert repr(jnp.full(2, jnp.arange(2))) == "Array([0, 1], dtype=int32)"
    assert repr(jnp.zeros((2, 3), jnp.bool_)) == \
        "Array([[False, False, False],\n       [False, False, False]], dtype=bool)"
    assert repr(jnp.ones(np.int64(3))) == "Array([1., 1., 1.], dtype=float32)"
    assert repr(jnp.empty((2,))) == "Array([0., 0.], dtype=float32)"
    assert repr(jnp.zeros_like(np.ones(2))) == "Array([0., 0.], dtype=float32)"
    assert repr(jnp.ones_like(jnp.zeros(2, jnp.int8), shape=(1, 2))) == "Array([[1, 1]], dtype=int8)"


@pytest.mark.spec("ARR-6")
@pytest.mark.parametrize("action, error, message", [
    ("jnp.zeros(-1)", TypeError,
     "broadcast_in_dim shape must have every element be nonnegative, got (-1,)."),
    ("jnp.zeros((2, -1))", TypeError,
     "broadcast_in_dim shape must have every element be nonnegative, got (2, -1)."),
    ("jnp.zeros(2.5)", TypeError,
     "Shapes must be 1D sequences of concrete values of integer type, got (2.5,)."),
    ("jnp.ones('a')", TypeError,
     "Shapes must be 1D sequences of concrete values of integer type, got ('a',)."),
    ("jnp.zeros(3, 'foo')", TypeError, "data type 'foo' not understood"),
    ("jnp.ones_like([1, 2])", TypeError,
     "ones_like requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ("jnp.linspace(0, 1, -1)", ValueError, "Number of samples, -1, must be non-negative."),
    ("jnp.arange(0, 10, 0)", ZeroDivisionError, "division by zero"),
])
def test_creation_errors(jax, jnp, action, error, message):
    with pytest.raises(error) as info:
        eval(action, {"jnp": jnp})
    assert str(info.value).startswith(message)


@pytest.mark.spec("ARR-6")
def test_ranges(jax, jnp):
    assert repr(jnp.arange(5)) == "Array([0, 1, 2, 3, 4], dtype=int32)"
    assert repr(jnp.arange(1, 2, 0.25)) == "Array([1.  , 1.25, 1.5 , 1.75], dtype=float32)"
    assert repr(jnp.arange(5.0, dtype=int)) == "Array([0, 1, 2, 3, 4], dtype=int32)"
    assert repr(jnp.arange(3, 1)) == "Array([], shape=(0,), dtype=int32)"
    assert repr(jnp.arange(np.float64(3))) == "Array([0., 1., 2.], dtype=float32)"
    assert repr(jnp.arange(jnp.int8(3))) == "Array([0, 1, 2], dtype=int8)"
    assert repr(jnp.linspace(0, 1, 5)) == \
        "Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)"
    assert repr(jnp.linspace(0, 10, 4, endpoint=False)) == \
        "Array([0. , 2.5, 5. , 7.5], dtype=float32)"
    values, step = jnp.linspace(0, 1, 3, retstep=True)
    assert (repr(values), repr(step)) == ("Array([0. , 0.5, 1. ], dtype=float32)",
                                          "Array(0.5, dtype=float32)")
    assert repr(jnp.linspace(0, 10, 3, dtype=int)) == "Array([ 0,  5, 10], dtype=int32)"
    assert repr(jnp.linspace(jnp.array([0., 1.]), 2., 3)) == \
        "Array([[0. , 1. ],\n       [1. , 1.5],\n       [2. , 2. ]], dtype=float32)"
    assert repr(jnp.eye(2)) == "Array([[1., 0.],\n       [0., 1.]], dtype=float32)"
    assert repr(jnp.eye(2, 3, k=1, dtype=int)) == \
        "Array([[0, 1, 0],\n       [0, 0, 1]], dtype=int32)"
    assert repr(jnp.identity(2, bool)) == \
        "Array([[ True, False],\n       [False,  True]], dtype=bool)"


@pytest.mark.spec("ARR-6")
def test_constructors_take_sequences(jax, jnp):
    # G-LIST-003
    assert jnp.zeros([2, 3]).shape == (2, 3)
    assert jnp.full([2], 3.).shape == (2,)
    assert repr(jnp.asarray((1, 2))) == "Array([1, 2], dtype=int32)"
    assert repr(jnp.array([1, 2.5])) == "Array([1. , 2.5], dtype=float32)"
    assert repr(jnp.array([True, 2])) == "Array([1, 2], dtype=int32)"
    assert repr(jnp.array([1, 2j])) == "Array([1.+0.j, 0.+2.j], dtype=complex64)"


@pytest.mark.spec("ARR-6")
@pytest.mark.parametrize("make", ["array", "asarray"])
def test_non_numeric_values_are_rejected(jax, jnp, make):
    # G-LIST-004: the message quotes str() of the offending value.
    build = getattr(jnp, make)
    with pytest.raises(TypeError, match=r"^Value 'abc' with dtype <U3 is not a valid "
                                        r"JAX array type\. Only arrays of numeric "
                                        r"types are supported by JAX\.$"):
        build("abc")
    thing = object()
    with pytest.raises(TypeError) as info:
        build(thing)
    assert str(info.value).startswith(f"Value '{thing}' with dtype object is not")
    with pytest.raises(TypeError, match=r"^Value 'a' with dtype <U1 is not"):
        build([1, "a"])
    with pytest.raises(TypeError, match=r"^Value '\{'a': 1\}' with dtype object"):
        build({"a": 1})


@pytest.mark.spec("ARR-8")
def test_deleted_arrays_raise(jax, jnp):
    x = jnp.arange(3.0)
    assert not x.is_deleted()
    x.delete()
    assert x.is_deleted()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        np.asarray(x)


@pytest.mark.spec("ARR-9")
def test_devices(jax, jnp):
    x = jnp.arange(3)
    (device,) = x.devices()
    assert device == jax.devices()[0]
    assert repr(device) == "CpuDevice(id=0)"
    assert device.platform == "cpu" and device.id == 0
    # The harness runs with several CPU devices (SHD-1); one process sees all.
    assert jax.device_count() == len(jax.devices()) == jax.local_device_count()
    assert jax.process_index() == 0 and jax.process_count() == 1
    assert jax.default_backend() == "cpu"


@pytest.mark.spec("ARR-8")
def test_deleted_array_message_and_shape(jax, jnp):
    x = jnp.ones((2, 3))
    x.delete()
    with pytest.raises(RuntimeError) as info:
        x + 1
    # JAX appends a note about filtered frames on later lines.
    assert str(info.value).splitlines()[0] == "Array has been deleted with shape=float32[2,3]."
    assert x.shape == (2, 3) and x.is_deleted()


_ARRAY_OF_LIST_JAXPR = """\
{ lambda ; a:i32[] b:i32[] c:i32[]. let
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    e:i32[1] = broadcast_in_dim d
    f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    g:i32[1] = broadcast_in_dim f
    h:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c
    i:i32[1] = broadcast_in_dim h
    j:i32[3] = concatenate[dimension=0] e g i
    k:i32[] = reduce_sum[axes=(0,) out_sharding=None] j
  in (k,) }"""


@pytest.mark.spec("ARR-10")
def test_array_of_list_has_one_input_per_element(jax, jnp):
    # G-LIST-002
    def permissive_sum(x):
        return jnp.sum(jnp.array(x))
    assert repr(permissive_sum(list(range(10)))) == "Array(45, dtype=int32)"
    assert len(jax.make_jaxpr(permissive_sum)(list(range(10))).jaxpr.invars) == 10
    assert str(jax.make_jaxpr(permissive_sum)([0, 1, 2])) == _ARRAY_OF_LIST_JAXPR


@pytest.mark.spec("ARR-10")
def test_list_argument_to_jit_is_a_pytree(jax, jnp):
    # G-LIST-007
    out = jax.jit(lambda xs: [x * 2 for x in xs])([1., 2., 3.])
    assert isinstance(out, list) and len(out) == 3
    assert [repr(v) for v in out] == [
        f"Array({v}., dtype=float32, weak_type=True)" for v in (2, 4, 6)]
    assert str(jax.make_jaxpr(lambda xs: sum(xs))([1., 2., 3.])) == (
        "{ lambda ; a:f32[] b:f32[] c:f32[]. let\n"
        "    d:f32[] = add 0.0:f32[] a\n"
        "    e:f32[] = add d b\n"
        "    f:f32[] = add e c\n"
        "  in (f,) }")
