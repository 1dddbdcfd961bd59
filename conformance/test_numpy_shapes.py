"""Conformance: jax.numpy shapes, joining, rearranging, selection and
creation under tracing (SPEC NP-30 .. NP-46, NP-53).

Expected values come from NumPy where the semantics agree, else from JAX
0.10.2 itself (reprs, error messages and jaxpr texts recorded from it).
"""
import warnings

import numpy as np
import pytest

R = np.random.RandomState(0)
F23 = R.randn(2, 3).astype(np.float32)
F234 = R.randn(2, 3, 4).astype(np.float32)
I23 = np.arange(6, dtype=np.int32).reshape(2, 3)
V3 = np.array([3., 1., 2.], np.float32)


def check(got, want, dtype=None):
    """Same values (NaN-aware, exact) and dtype as ``want`` (or ``dtype``)."""
    want = np.asarray(want)
    assert str(got.dtype) == str(dtype or want.dtype), (got.dtype, dtype or want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(np.asarray(got), want)


def jaxpr_text(jax, f, *args):
    return str(jax.make_jaxpr(f)(*args))


# Jaxprs printed by JAX 0.10.2 (jax.make_jaxpr) for the programs in the tests.

JAXPRS = {
    "arange2": """\
{ lambda ; . let
    a:i32[3] = iota[dimension=0 dtype=int32 shape=(3,) sharding=None] 
    b:i32[3] = mul 2:i32[] a
    c:i32[3] = add 1:i32[] b
  in (c,) }""",
    "array": """\
{ lambda ; a:f32[2,3]. let b:f32[2,3] = copy a in (b,) }""",
    "array_list_scalars": """\
{ lambda ; a:f32[]. let
    b:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a
    c:f32[1] = broadcast_in_dim b
    d:f32[1] = broadcast_in_dim 2.0:f32[]
    e:f32[2] = concatenate[dimension=0] c d
  in (e,) }""",
    "asarray_dtype": """\
{ lambda ; a:f32[2,3]. let
    b:i32[2,3] = convert_element_type[new_dtype=int32 weak_type=False] a
  in (b,) }""",
    "atleast_3d": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3,1] = jit[
      name=atleast_3d
      jaxpr={ lambda ; a:f32[2,3]. let
          b:f32[2,3,1] = broadcast_in_dim[broadcast_dimensions=(0, 1)] a
        in (b,) }
    ] a
  in (b,) }""",
    "broadcast_to": """\
{ lambda ; a:f32[3]. let
    b:f32[4,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a
  in (b,) }""",
    "concat_mixed": """\
{ lambda ; a:f32[2,3] b:i32[2,3]. let
    c:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] b
    d:f32[4,3] = concatenate[dimension=0] a c
  in (d,) }""",
    "expand": """\
{ lambda ; a:f32[2,3]. let
    b:f32[1,2,1,3] = broadcast_in_dim[broadcast_dimensions=(1, 3)] a
  in (b,) }""",
    "eye": """\
{ lambda ; . let
    a:i32[2,3] = iota[dimension=0 dtype=int32 shape=(2, 3) sharding=None] 
    b:i32[2,3] = iota[dimension=1 dtype=int32 shape=(2, 3) sharding=None] 
    c:i32[2,3] = add a 1:i32[]
    d:bool[2,3] = eq c b
    e:i32[2,3] = convert_element_type[new_dtype=int32 weak_type=False] d
  in (e,) }""",
    "flip": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] = jit[
      name=_flip
      jaxpr={ lambda ; a:f32[2,3]. let
          b:f32[2,3] = rev[dimensions=(0, 1)] a
        in (b,) }
    ] a
  in (b,) }""",
    "full_like_tr": """\
{ lambda ; a:f32[2,3] b:i32[]. let
    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
    d:f32[2,3] = broadcast_in_dim c
  in (d,) }""",
    "linspace": """\
let _linspace = { lambda ; a:i32[] b:i32[]. let
    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a
    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
    e:f32[] = sub d c
    f:f32[] = div e 4.0:f32[]
    g:f32[4] = iota[dimension=0 dtype=float32 shape=(4,) sharding=None] 
    h:f32[4] = div g 4.0:f32[]
    i:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] c
    j:f32[4] = sub 1.0:f32[] h
    k:f32[4] = mul i j
    l:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] d
    m:f32[4] = mul l h
    n:f32[4] = add k m
    o:f32[1] = broadcast_in_dim d
    p:f32[5] = concatenate[dimension=0] n o
  in (p,) } in
{ lambda ; . let
    q:f32[5] = jit[name=_linspace jaxpr=_linspace] 0:i32[] 1:i32[]
  in (q,) }""",
    "pad": """\
{ lambda ; a:f32[2,3]. let
    b:f32[4,5] = jit[
      name=_pad
      jaxpr={ lambda ; a:f32[2,3] c:i32[]. let
          d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
          b:f32[4,5] = pad[
            padding_config=((np.int64(1), np.int64(1), 0), (np.int64(1), np.int64(1), 0))
          ] a d
        in (b,) }
    ] a 0:i32[]
  in (b,) }""",
    "ravelF": """\
{ lambda ; a:f32[2,3]. let
    b:f32[6] = reshape[dimensions=(1, 0) new_sizes=(6,) sharding=None] a
  in (b,) }""",
    "repeat": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,2,3] = broadcast_in_dim[broadcast_dimensions=(0, 2)] a
    c:f32[4,3] = reshape[dimensions=None new_sizes=(4, 3) sharding=None] b
  in (c,) }""",
    "reshapeF": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] = reshape[dimensions=(1, 0) new_sizes=(2, 3) sharding=None] a
    c:f32[3,2] = transpose[permutation=(1, 0)] b
  in (c,) }""",
    "roll_axis": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] = jit[
      name=_roll_static
      jaxpr={ lambda ; a:f32[2,3]. let
          c:f32[2,1] = slice[
            limit_indices=(2, 3)
            start_indices=(0, 2)
            strides=(1, 1)
          ] a
          d:f32[2,2] = slice[
            limit_indices=(2, 2)
            start_indices=(0, 0)
            strides=(1, 1)
          ] a
          b:f32[2,3] = concatenate[dimension=1] c d
        in (b,) }
    ] a
  in (b,) }""",
    "select": """\
{ lambda ; a:f32[3]. let
    b:bool[3] = gt a 0.0:f32[]
    c:bool[3] = lt a 0.0:f32[]
    d:f32[3] = neg a
    e:bool[3] = broadcast_in_dim False:bool[]
    f:bool[3,3] = stack[axis=0] e b c
    g:i32[3] = argmax[axes=(0,) index_dtype=int32] f
    h:f32[3] = broadcast_in_dim 0.0:f32[]
    i:f32[3] = select_n g h a d
  in (i,) }""",
    "split": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,1] c:f32[2,1] d:f32[2,1] = split[
      axis=1
      sizes=(np.int64(1), np.int64(1), np.int64(1))
    ] a
  in (b, c, d) }""",
    "squeeze": """\
{ lambda ; a:f32[1,3,1]. let b:f32[3] = squeeze[dimensions=(0, 2)] a in (b,) }""",
    "stack_mixed": """\
{ lambda ; a:f32[2,3] b:i32[2,3]. let
    c:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] b
    d:f32[2,2,3] = stack[axis=0] a c
  in (d,) }""",
    "swapaxes": """\
{ lambda ; a:f32[2,3,4]. let
    b:f32[4,3,2] = transpose[permutation=(2, 1, 0)] a
  in (b,) }""",
    "tile3": """\
{ lambda ; a:f32[2,3]. let
    b:f32[1,2,3] = broadcast_in_dim[broadcast_dimensions=(1, 2)] a
    c:f32[2,2,3] = tile[reps=(2, 1, 1)] b
  in (c,) }""",
    "vstack": """\
let atleast_2d = { lambda ; a:f32[3]. let
    b:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a
  in (b,) } in
{ lambda ; c:f32[3]. let
    d:f32[1,3] = jit[name=atleast_2d jaxpr=atleast_2d] c
    e:f32[1,3] = jit[name=atleast_2d jaxpr=atleast_2d] c
    f:f32[2,3] = concatenate[dimension=0] d e
  in (f,) }""",
    "where": """\
{ lambda ; a:f32[2,3]. let
    b:bool[2,3] = gt a 0.0:f32[]
    c:f32[2,3] = jit[
      name=_where
      jaxpr={ lambda ; b:bool[2,3] a:f32[2,3] d:f32[]. let
          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          f:f32[2,3] = broadcast_in_dim e
          c:f32[2,3] = select_n b f a
        in (c,) }
    ] b a 0.0:f32[]
  in (c,) }""",
    "where_bcast_cond": """\
{ lambda ; a:bool[3] b:f32[2,3] c:i32[]. let
    d:f32[2,3] = jit[
      name=_where
      jaxpr={ lambda ; a:bool[3] b:f32[2,3] c:i32[]. let
          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
          f:bool[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a
          g:f32[2,3] = broadcast_in_dim e
          d:f32[2,3] = select_n f g b
        in (d,) }
    ] a b c
  in (d,) }""",
    "where_int_float": """\
{ lambda ; a:f32[3]. let
    b:bool[3] = gt a 0.0:f32[]
    c:f32[3] = jit[
      name=_where
      jaxpr={ lambda ; b:bool[3] d:i32[] e:f32[]. let
          f:f32[] = convert_element_type[new_dtype=float32 weak_type=True] d
          g:f32[3] = broadcast_in_dim f
          h:f32[3] = broadcast_in_dim e
          c:f32[3] = select_n b h g
        in (c,) }
    ] b 1:i32[] 2.0:f32[]
  in (c,) }""",
    "where_intcond": """\
{ lambda ; a:i32[3] b:f32[3] c:i32[]. let
    d:f32[3] = jit[
      name=_where
      jaxpr={ lambda ; a:i32[3] b:f32[3] c:i32[]. let
          e:bool[3] = ne a 0:i32[]
          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
          g:f32[3] = broadcast_in_dim f
          d:f32[3] = select_n e g b
        in (d,) }
    ] a b c
  in (d,) }""",
    "where_scalar_cond": """\
{ lambda ; a:bool[] b:f32[2,3] c:f32[3]. let
    d:f32[2,3] = jit[
      name=_where
      jaxpr={ lambda ; a:bool[] b:f32[2,3] c:f32[3]. let
          e:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] c
          d:f32[2,3] = select_n a e b
        in (d,) }
    ] a b c
  in (d,) }""",
}

# ---------------------------------------------------------------------------
# Creation under tracing, arange, linspace (NP-30 .. NP-32)
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-30")
def test_array_and_asarray_of_tracers(jax, jnp):
    x = jnp.ones((2, 3))
    assert jaxpr_text(jax, lambda a: jnp.array(a), x) == JAXPRS["array"]
    assert jaxpr_text(jax, lambda a: jnp.asarray(a), x) == \
        "{ lambda ; a:f32[2,3]. let  in (a,) }"
    assert jaxpr_text(jax, lambda a: jnp.asarray(a, dtype=jnp.int32), x) == \
        JAXPRS["asarray_dtype"]
    assert jaxpr_text(jax, lambda a: jnp.array([a, 2]), 1.0) == JAXPRS["array_list_scalars"]
    out = jax.jit(lambda a: (jnp.array(a), jnp.array([a, 2 * a]), jnp.array(a, ndmin=2),
                             jnp.copy(a)))(1.5)
    assert [repr(o) for o in out] == [
        "Array(1.5, dtype=float32, weak_type=True)", "Array([1.5, 3. ], dtype=float32)",
        "Array([[1.5]], dtype=float32, weak_type=True)",
        "Array(1.5, dtype=float32, weak_type=True)"]


@pytest.mark.spec("NP-31")
def test_filled_arrays_under_tracing(jax, jnp):
    x = jnp.ones((2, 3))
    assert jaxpr_text(jax, lambda a: jnp.zeros_like(a), x) == \
        "{ lambda ; a:f32[2,3]. let b:f32[2,3] = broadcast_in_dim 0.0:f32[] in (b,) }"
    assert jaxpr_text(jax, lambda a: jnp.zeros_like(a), 1.0) == \
        "{ lambda ; a:f32[]. let  in (0.0:f32[],) }"
    assert jaxpr_text(jax, lambda a, b: jnp.full_like(a, b), x, 1) == JAXPRS["full_like_tr"]
    assert jaxpr_text(jax, lambda a: jnp.full((2,), a), 1.0) == \
        "{ lambda ; a:f32[]. let b:f32[2] = broadcast_in_dim a in (b,) }"
    assert jaxpr_text(jax, lambda: jnp.ones((2,), jnp.bfloat16)) == \
        "{ lambda ; . let a:bf16[2] = broadcast_in_dim 1.0:bf16[] in (a,) }"
    assert jaxpr_text(jax, lambda: jnp.eye(2, 3, 1, dtype=jnp.int32)) == JAXPRS["eye"]
    out = jax.jit(lambda a: (jnp.zeros_like(a), jnp.ones_like(a, shape=(2,)),
                             jnp.full_like(a, 3, dtype=int), jnp.full((2,), a)))(1.5)
    assert [repr(o) for o in out] == [
        "Array(0., dtype=float32, weak_type=True)",
        "Array([1., 1.], dtype=float32, weak_type=True)", "Array(3, dtype=int32)",
        "Array([1.5, 1.5], dtype=float32, weak_type=True)"]


@pytest.mark.spec("NP-32")
def test_arange_values_and_dtypes(jax, jnp):
    assert repr(jnp.arange(1, 7, 2)) == "Array([1, 3, 5], dtype=int32)"
    assert repr(jnp.arange(np.int8(3))) == "Array([0, 1, 2], dtype=int8)"
    assert repr(jnp.arange(10, 0, -3)) == "Array([10,  7,  4,  1], dtype=int32)"
    assert repr(jnp.arange(1.5, 4)) == "Array([1.5, 2.5, 3.5], dtype=float32)"
    # start + step * iota in float32: not NumPy's float64 arange cast down.
    np.testing.assert_array_equal(
        jnp.arange(0., 1., 0.1), np.float32(0.1) * np.arange(10, dtype=np.float32))
    assert jaxpr_text(jax, lambda: jnp.arange(1, 7, 2)) == JAXPRS["arange2"]


@pytest.mark.spec("NP-32")
def test_arange_needs_concrete_bounds(jax, jnp):
    with pytest.raises(jax.errors.ConcretizationTypeError,
                       match="It arose in the jnp.arange argument 'stop'"):
        jax.jit(lambda n: jnp.arange(n))(3)
    with pytest.raises(ValueError, match="arguments must be scalars"):
        jnp.arange(np.array([1, 2]))
    with pytest.raises(ValueError, match="Passing complex start/stop/step"):
        jnp.arange(1j)


@pytest.mark.spec("NP-32")
def test_linspace_formula_and_tracing(jax, jnp):
    assert repr(jnp.linspace(2, 10, 4, dtype=int)) == \
        "Array([ 2,  4,  7, 10], dtype=int32)"
    out, step = jnp.linspace(0., 1., 5, endpoint=False, retstep=True)
    check(out, np.arange(5, dtype=np.float32) / np.float32(5))
    assert repr(step) == "Array(0.2, dtype=float32)"
    got = jax.jit(lambda a, b: jnp.linspace(a, b, 3, axis=-1))(jnp.array([0., 5.]), 10.)
    check(got, [[0., 5., 10.], [5., 7.5, 10.]], "float32")
    assert jaxpr_text(jax, lambda: jnp.linspace(0, 1, 5)) == JAXPRS["linspace"]


# ---------------------------------------------------------------------------
# astype and metadata (NP-33, NP-42)
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-33")
def test_astype_rules(jax, jnp):
    assert repr(jnp.astype(jnp.array([1.7, -2.5, 1e10]), jnp.int32)) == \
        "Array([         1,         -2, 2147483647], dtype=int32)"
    assert repr(jnp.astype(jnp.asarray(2.), jnp.float32)) == "Array(2., dtype=float32)"
    assert repr(jnp.astype(jnp.arange(2), None)) == "Array([0., 1.], dtype=float32)"
    assert repr(jnp.astype(jnp.array([1 + 1j, 0]), bool)) == \
        "Array([ True, False], dtype=bool)"
    with pytest.warns(DeprecationWarning, match="Casting from complex to real"):
        jnp.astype(jnp.array([1j]), jnp.int32)
    with pytest.raises(TypeError, match="astype requires ndarray or scalar arguments"):
        jnp.astype([1, 2], jnp.float32)
    x = jnp.ones(3)
    assert jaxpr_text(jax, lambda a: a.astype(jnp.float32), x) == \
        "{ lambda ; a:f32[3]. let  in (a,) }"
    assert jaxpr_text(jax, lambda a: jnp.astype(a, jnp.float32, copy=True), x) == \
        "{ lambda ; a:f32[3]. let b:f32[3] = copy a in (b,) }"


@pytest.mark.spec("NP-42")
def test_shape_queries(jnp):
    assert (jnp.shape(F23), jnp.ndim(F234), jnp.size(F23), jnp.size(F234, (0, 2))) == \
        ((2, 3), 3, 6, 8)
    assert jnp.shape(3.0) == () and jnp.ndim(jnp.ones(2)) == 1
    with pytest.warns(DeprecationWarning, match="shape requires ndarray or scalar"):
        assert jnp.shape([[1, 2]]) == (1, 2)
    assert [jnp.isscalar(v) for v in (1, jnp.array(1), np.float32(1), np.array(1), "a",
                                      [1], jnp.ones(2))] == \
        [True, True, True, True, True, False, False]
    assert [jnp.iscomplexobj(v) for v in (1j, jnp.ones(2), [1j], None)] == \
        [True, False, True, False]
    assert jnp.isrealobj(2.0)


# ---------------------------------------------------------------------------
# Reshaping and transposing (NP-34, NP-35)
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-34")
def test_reshape_and_ravel(jax, jnp):
    x = jnp.asarray(F234)
    check(jnp.reshape(x, (4, -1)), F234.reshape(4, -1))
    check(jnp.reshape(x, (4, 6), order="F"), F234.reshape((4, 6), order="F"))
    check(jnp.ravel(x, order="F"), F234.ravel(order="F"))
    check(x.reshape(6, 4), F234.reshape(6, 4))
    check(x.flatten(), F234.ravel())
    assert jaxpr_text(jax, lambda a: jnp.reshape(a, (3, 2), order="F"), jnp.ones((2, 3))) \
        == JAXPRS["reshapeF"]
    assert jaxpr_text(jax, lambda a: jnp.ravel(a, order="F"), jnp.ones((2, 3))) \
        == JAXPRS["ravelF"]


@pytest.mark.spec("NP-34")
def test_reshape_errors(jnp):
    x = jnp.asarray(F23)
    with pytest.raises(TypeError, match=r"cannot reshape array of shape \(2, 3\) \(size 6\) "
                       r"into shape \(4, 2\) \(size 8\)"):
        jnp.reshape(x, (4, 2))
    with pytest.raises(TypeError, match="can only specify one unknown axis size"):
        jnp.reshape(x, (-1, -1))
    with pytest.raises(TypeError, match=r"product of specified axis sizes \(4\) does not "
                       "evenly divide 6"):
        jnp.reshape(x, (-1, 4))
    with pytest.raises(NotImplementedError, match="np.reshape order=A"):
        jnp.reshape(x, 6, order="A")
    with pytest.raises(TypeError, match="unexpected keyword argument 'newshape'"):
        jnp.reshape(x, newshape=6)
    with pytest.raises(TypeError, match="reshape requires ndarray or scalar arguments"):
        jnp.reshape([1, 2], (2,))


@pytest.mark.spec("NP-35")
def test_axis_permutations(jax, jnp):
    x = jnp.asarray(F234)
    check(jnp.transpose(x, (-1, 0, 1)), F234.transpose(2, 0, 1))
    check(x.T, F234.T)
    check(x.mT, np.swapaxes(F234, -1, -2))
    check(x.transpose(2, 0, 1), F234.transpose(2, 0, 1))
    check(jnp.permute_dims(x, (2, 0, 1)), F234.transpose(2, 0, 1))
    check(jnp.matrix_transpose(x), np.swapaxes(F234, -1, -2))
    check(jnp.swapaxes(x, 0, -1), np.swapaxes(F234, 0, -1))
    check(jnp.moveaxis(x, (0, 1), (-1, 0)), np.moveaxis(F234, (0, 1), (-1, 0)))
    check(jnp.rollaxis(x, 2, 0), np.rollaxis(F234, 2, 0))
    assert jaxpr_text(jax, lambda a: jnp.swapaxes(a, 0, 2), jnp.ones((2, 3, 4))) == \
        JAXPRS["swapaxes"]
    with pytest.raises(TypeError, match="transpose permutation isn't a permutation"):
        jnp.transpose(x, (0, 0, 1))
    with pytest.raises(ValueError, match="axis 5 is out of bounds for array of dimension 3"):
        jnp.moveaxis(x, 0, 5)
    with pytest.raises(ValueError, match="Inconsistent number of elements: 2 vs 1"):
        jnp.moveaxis(x, (0, 1), (1,))


@pytest.mark.spec("NP-35")
def test_expand_squeeze_atleast(jax, jnp):
    check(jnp.expand_dims(F23, (0, -1)), np.expand_dims(F23, (0, -1)))
    ones = np.ones((1, 3, 1), np.float32)
    check(jnp.squeeze(ones), np.squeeze(ones))
    check(jnp.squeeze(ones, -1), np.squeeze(ones, -1))
    assert [jnp.atleast_3d(v).shape for v in (2.0, V3, F23)] == [(1, 1, 1), (1, 3, 1), (2, 3, 1)]
    assert jnp.atleast_1d(1.0).shape == (1,) and jnp.atleast_2d(V3).shape == (1, 3)
    assert [a.shape for a in jnp.atleast_1d(V3, 1)] == [(3,), (1,)]
    assert jaxpr_text(jax, lambda a: jnp.expand_dims(a, (0, 2)), jnp.ones((2, 3))) == \
        JAXPRS["expand"]
    assert jaxpr_text(jax, lambda a: jnp.squeeze(a), jnp.ones((1, 3, 1))) == JAXPRS["squeeze"]
    assert jaxpr_text(jax, lambda a: jnp.atleast_3d(a), jnp.ones((2, 3))) == \
        JAXPRS["atleast_3d"]
    with pytest.raises(ValueError, match="cannot select an axis to squeeze out which has "
                       "size not equal to one"):
        jnp.squeeze(F23, 0)
    with pytest.raises(ValueError, match="axis 3 is out of bounds for array of dimension 3"):
        jnp.expand_dims(F23, 3)
    with pytest.raises(ValueError, match="repeated axis in lax.expand_dims"):
        jnp.expand_dims(F23, (0, 0))


# ---------------------------------------------------------------------------
# Broadcasting (NP-36)
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-36")
def test_broadcasting_functions(jax, jnp):
    check(jnp.broadcast_to(V3, (2, 3)), np.broadcast_to(V3, (2, 3)))
    assert repr(jnp.broadcast_to(1., 2)) == "Array([1., 1.], dtype=float32, weak_type=True)"
    a, b, c = jnp.broadcast_arrays(F23, V3, 1.0)
    assert (a.shape, b.shape, c.shape, c.weak_type) == ((2, 3), (2, 3), (2, 3), True)
    assert jnp.broadcast_shapes((2, 1), (3,)) == (2, 3)
    assert jnp.broadcast_shapes(3, (2, 1)) == (2, 3)
    assert jaxpr_text(jax, lambda a: jnp.broadcast_to(a, (4, 3)), jnp.ones(3)) == \
        JAXPRS["broadcast_to"]
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting: "
                       r"shapes=\[\(2, 3\), \(4, 3\)\]"):
        jnp.broadcast_shapes((2, 3), (4, 3))
    with pytest.raises(ValueError, match=r"Incompatible types for broadcasting: input "
                       r"type=float32\[2,3\] and requested type=float32\[3,3\]"):
        jnp.broadcast_to(F23, (3, 3))
    with pytest.raises(ValueError, match="Cannot broadcast to shape with fewer dimensions"):
        jnp.broadcast_to(F23, (3,))


# ---------------------------------------------------------------------------
# Joining and splitting (NP-37, NP-38)
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-37")
def test_concatenate_and_stack(jax, jnp):
    # JAX promotes int32 with float32 to float32 (NumPy: float64).
    check(jnp.concatenate([F23, I23], axis=1), np.concatenate([F23, I23], axis=1), "float32")
    check(jnp.concatenate([F23, V3], axis=None), np.concatenate([F23, V3], axis=None))
    check(jnp.concatenate([F23, I23], dtype=jnp.int8),
          np.concatenate([F23, I23]).astype(np.int8))
    check(jnp.concatenate(jnp.asarray(F234), axis=1), np.concatenate(F234, axis=1))
    check(jnp.concat([F23, F23], axis=-1), np.concatenate([F23, F23], -1))
    check(jnp.stack([F23, I23], axis=-1), np.stack([F23, I23.astype(np.float32)], -1))
    assert repr(jnp.stack([1, 2.5])) == "Array([1. , 2.5], dtype=float32, weak_type=True)"
    check(jnp.hstack([V3, V3]), np.hstack([V3, V3]))
    check(jnp.vstack([F23, V3]), np.vstack([F23, V3]))
    check(jnp.dstack([V3, V3]), np.dstack([V3, V3]))
    check(jnp.column_stack([V3, F23.T]), np.column_stack([V3, F23.T]))
    check(jnp.append(F23, V3), np.append(F23, V3))
    assert [u.shape for u in jnp.unstack(F23, axis=1)] == [(2,)] * 3
    x, i = jnp.ones((2, 3)), jnp.ones((2, 3), jnp.int32)
    assert jaxpr_text(jax, lambda a, b: jnp.concatenate([a, b]), x, i) == \
        JAXPRS["concat_mixed"]
    assert jaxpr_text(jax, lambda a, b: jnp.stack([a, b]), x, i) == JAXPRS["stack_mixed"]
    assert jaxpr_text(jax, lambda a: jnp.vstack([a, a]), jnp.ones(3)) == JAXPRS["vstack"]


@pytest.mark.spec("NP-37")
def test_joining_errors(jnp):
    with pytest.raises(TypeError, match="Cannot concatenate arrays with shapes that differ"):
        jnp.concatenate([F23, np.ones((3, 3))], axis=1)
    with pytest.raises(ValueError, match="Need at least one array to concatenate."):
        jnp.concatenate([])
    with pytest.raises(ValueError, match="Zero-dimensional arrays cannot be concatenated."):
        jnp.concatenate([1.0, 2.0])
    with pytest.raises(TypeError, match="Cannot concatenate arrays with different numbers "
                       "of dimensions"):
        jnp.concatenate([F23, V3])
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
        jnp.concatenate([F23, F23], axis=2)
    with pytest.raises(ValueError, match=r"All input arrays must have the same shape. Got "
                       r"\(2, 3\), \(3, 3\)."):
        jnp.stack([F23, np.ones((3, 3))])
    with pytest.raises(ValueError, match="Need at least one array to stack."):
        jnp.stack([])


@pytest.mark.spec("NP-38")
def test_split_family(jax, jnp):
    x = np.arange(12).reshape(3, 4)
    for got, want in [(jnp.split(x, 2, axis=1), np.split(x, 2, axis=1)),
                      (jnp.split(np.arange(7), [2, 5]), np.split(np.arange(7), [2, 5])),
                      (jnp.array_split(np.arange(7), 3), np.array_split(np.arange(7), 3)),
                      (jnp.hsplit(x, 2), np.hsplit(x, 2)),
                      (jnp.vsplit(x, [1]), np.vsplit(x, [1])),
                      (jnp.dsplit(np.arange(24).reshape(2, 3, 4), 2),
                       np.dsplit(np.arange(24).reshape(2, 3, 4), 2))]:
        assert len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w, "int32")
    assert jaxpr_text(jax, lambda a: jnp.split(a, 3, axis=1), jnp.ones((2, 3))) == \
        JAXPRS["split"]
    with pytest.raises(ValueError, match="array split does not result in an equal "
                       "division: rest is 1"):
        jnp.split(np.arange(7), 2)
    # Unlike NumPy, indices past the end or decreasing give negative sizes.
    with pytest.raises(ValueError, match="Sizes passed to split must be nonnegative"):
        jnp.split(np.arange(7), [5, 2])


# ---------------------------------------------------------------------------
# Tile, repeat, flip, roll, rot90 (NP-39 .. NP-41)
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-39")
def test_tile(jax, jnp):
    for reps in (2, (2, 1, 2), (1,), 0):
        check(jnp.tile(F23, reps), np.tile(F23, reps))
    assert repr(jnp.tile(1.0, 3)) == "Array([1., 1., 1.], dtype=float32, weak_type=True)"
    assert jaxpr_text(jax, lambda a: jnp.tile(a, (2, 1, 1)), jnp.ones((2, 3))) == \
        JAXPRS["tile3"]


@pytest.mark.spec("NP-40")
def test_repeat(jax, jnp):
    check(jnp.repeat(F23, 2), np.repeat(F23, 2))
    check(jnp.repeat(F23, 2, axis=1), np.repeat(F23, 2, axis=1))
    check(jnp.repeat(F23, np.array([1, 3]), axis=0), np.repeat(F23, [1, 3], axis=0))
    check(jnp.repeat(V3, np.array([0, 1, 2])), np.repeat(V3, [0, 1, 2]))
    check(jnp.repeat(2.0, 3), [2., 2., 2.], "float32")
    # total_repeat_length pads with the last element or truncates, and
    # allows traced repeats.
    r = np.array([1, 0, 2])
    check(jnp.repeat(np.arange(3), r, total_repeat_length=4), [0, 2, 2, 2], "int32")
    check(jnp.repeat(np.arange(3), r, total_repeat_length=2), [0, 2], "int32")
    got = jax.jit(lambda a, n: jnp.repeat(a, n, total_repeat_length=5))(V3, np.array([2, 0, 3]))
    check(got, np.repeat(V3, [2, 0, 3]))
    assert jaxpr_text(jax, lambda a: jnp.repeat(a, 2, axis=0), jnp.ones((2, 3))) == \
        JAXPRS["repeat"]
    with pytest.raises(jax.errors.ConcretizationTypeError,
                       match="the total number of repeats must be static"):
        jax.jit(lambda a, n: jnp.repeat(a, n))(V3, np.array([1, 2, 3]))


@pytest.mark.spec("NP-41")
def test_flip_roll_rot90(jax, jnp):
    check(jnp.flip(F234), np.flip(F234))
    check(jnp.flip(F234, (0, 2)), np.flip(F234, (0, 2)))
    check(jnp.fliplr(F23), np.fliplr(F23))
    check(jnp.flipud(F23), np.flipud(F23))
    check(jnp.roll(F23, 1), np.roll(F23, 1))
    check(jnp.roll(F23, -4, axis=1), np.roll(F23, -4, axis=1))
    check(jnp.roll(F234, (1, 2), (0, 2)), np.roll(F234, (1, 2), (0, 2)))
    check(jax.jit(lambda a, s: jnp.roll(a, s, axis=1))(F23, -7), np.roll(F23, -7, axis=1))
    for k in (1, 2, 3, -1):
        check(jnp.rot90(F23, k), np.rot90(F23, k))
    check(jnp.rot90(F234, 1, (2, 1)), np.rot90(F234, 1, (2, 1)))
    assert jaxpr_text(jax, lambda a: jnp.flip(a), jnp.ones((2, 3))) == JAXPRS["flip"]
    assert jaxpr_text(jax, lambda a: jnp.roll(a, 1, axis=1), jnp.ones((2, 3))) == \
        JAXPRS["roll_axis"]
    with pytest.raises(ValueError, match="rot90 requires its first argument to have ndim "
                       "at least two"):
        jnp.rot90(V3)


# ---------------------------------------------------------------------------
# pad (NP-44)
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-44")
@pytest.mark.parametrize("mode,width,kw", [
    ("constant", 1, {}), ("constant", ((1, 0), (0, 2)), {"constant_values": 5}),
    ("constant", (1, 2), {"constant_values": ((1, 2), (3, 4))}),
    ("edge", ((1, 2), (3, 1)), {}), ("wrap", ((4, 2), (3, 7)), {}),
    ("reflect", ((3, 4), (5, 2)), {}), ("symmetric", ((3, 4), (5, 2)), {}),
    ("reflect", ((4, 5), (1, 0)), {"reflect_type": "odd"}),
    ("symmetric", ((4, 5), (0, 1)), {"reflect_type": "odd"}),
])
def test_pad_modes(jnp, mode, width, kw):
    check(jnp.pad(I23, width, mode=mode, **kw), np.pad(I23, width, mode=mode, **kw))


@pytest.mark.spec("NP-44")
@pytest.mark.parametrize("mode", ["maximum", "minimum", "mean", "median"])
@pytest.mark.parametrize("width,kw", [
    (2, {}), (((1, 2), (2, 1)), {"stat_length": 2}),
    (((1, 0), (2, 3)), {"stat_length": ((1, 2), (2, 1))}),
])
def test_pad_statistics(jnp, mode, width, kw):
    ints = np.array([[1, 2, 4], [7, 3, 5]], np.int32)   # integer stats are rounded
    check(jnp.pad(ints, width, mode=mode, **kw), np.pad(ints, width, mode=mode, **kw))
    floats = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3) ** 2
    np.testing.assert_allclose(jnp.pad(floats, width, mode=mode, **kw),
                               np.pad(floats, width, mode=mode, **kw), rtol=1e-6)


@pytest.mark.spec("NP-44")
def test_pad_linear_ramp_and_function(jnp):
    floats = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)
    for width, kw in ((2, {}), (((1, 3), (2, 2)), {"end_values": ((5, -1), (2, 10))})):
        got = jnp.pad(floats, width, mode="linear_ramp", **kw)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, np.pad(floats, width, mode="linear_ramp", **kw),
                                   rtol=1e-6, atol=1e-6)

    def pad_with(vector, width, axis, kwargs):
        # JAX uses the returned vector; NumPy wants it changed in place.
        n = vector.shape[0]
        inside = (np.arange(n) >= width[0]) & (np.arange(n) < n - width[1])
        result = vector * inside + kwargs.get("value", 10) * ~inside
        if isinstance(vector, np.ndarray):
            vector[:] = result
        return result

    check(jnp.pad(I23, 2, pad_with), np.pad(I23, 2, pad_with))
    check(jnp.pad(I23, 1, pad_with, value=-3), np.pad(I23, 1, pad_with, value=-3))
    with pytest.raises(ValueError, match="stat_length of 0 yields no value for padding"):
        jnp.pad(F23, 1, mode="mean", stat_length=0)


@pytest.mark.spec("NP-44")
def test_pad_details(jax, jnp):
    check(jnp.pad(F23, 1, mode="empty"), np.pad(F23, 1))
    assert repr(jnp.pad(jnp.expand_dims(jnp.asarray(1.0), 0), 1)) == \
        "Array([0., 1., 0.], dtype=float32, weak_type=True)"
    assert jaxpr_text(jax, lambda a: jnp.pad(a, 1), jnp.ones((2, 3))) == JAXPRS["pad"]
    with pytest.raises(NotImplementedError, match="Unimplemented padding mode 'foo'"):
        jnp.pad(F23, 1, mode="foo")
    with pytest.raises(ValueError, match="index can't contain negative values"):
        jnp.pad(F23, -1)
    with pytest.raises(ValueError, match=r"jnp.pad: pad_width with nd=2 has unsupported "
                       r"shape \(1, 3\)"):
        jnp.pad(F23, ((1, 2, 3),))
    with pytest.raises(ValueError, match="unsupported keyword arguments for mode 'edge'"):
        jnp.pad(F23, 1, mode="edge", constant_values=1)
    with pytest.raises(TypeError, match="`pad_width` must be of integral type."):
        jnp.pad(F23, 1.5)


# ---------------------------------------------------------------------------
# where, select, choose (NP-45)
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-45")
def test_where_values_and_dtypes(jnp):
    check(jnp.where(F23 > 0, F23, 0), np.where(F23 > 0, F23, 0))
    check(jnp.where(V3 > 1, I23, 2.5), np.where(V3 > 1, I23, 2.5), "float32")
    check(jnp.where(np.array([1, 0, 2]), V3, -V3), np.where([1, 0, 2], V3, -V3))
    assert repr(jnp.where(True, 1, 2)) == "Array(1, dtype=int32, weak_type=True)"
    assert repr(jnp.where(True, 1.0, 2)) == "Array(1., dtype=float32, weak_type=True)"
    rows, cols = jnp.where(F23 > 0)
    np.testing.assert_array_equal(rows, np.where(F23 > 0)[0])
    np.testing.assert_array_equal(cols, np.where(F23 > 0)[1])


@pytest.mark.spec("NP-45")
def test_where_jaxprs(jax, jnp):
    x, i, v = jnp.ones((2, 3)), jnp.ones((2, 3), jnp.int32), jnp.ones(3)
    assert jaxpr_text(jax, lambda a: jnp.where(a > 0, a, 0.), x) == JAXPRS["where"]
    assert jaxpr_text(jax, lambda a: jnp.where(a > 0, 1, 2.0), v) == JAXPRS["where_int_float"]
    assert jaxpr_text(jax, lambda c, a, b: jnp.where(c, a, b), True, x, v) == \
        JAXPRS["where_scalar_cond"]
    assert jaxpr_text(jax, lambda c, a, b: jnp.where(c, a, b), v > 0, x, 1) == \
        JAXPRS["where_bcast_cond"]
    assert jaxpr_text(jax, lambda c, a, b: jnp.where(c, a, b), jnp.ones(3, jnp.int32), v, 2) == \
        JAXPRS["where_intcond"]


@pytest.mark.spec("NP-45")
def test_where_errors(jnp):
    with pytest.raises(TypeError, match="where requires ndarray or scalar arguments, got "
                       "<class 'NoneType'> at position 2"):
        jnp.where(F23 > 0, F23)
    with pytest.raises(ValueError, match="size and fill_value arguments cannot be used in "
                       "three-term where function."):
        jnp.where(F23 > 0, F23, 0, size=3)
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting: "
                       r"shapes=\[\(4,\), \(2, 3\), \(\)\]"):
        jnp.where(np.ones(4) > 0, F23, 0)


@pytest.mark.spec("NP-45")
def test_select_and_choose(jax, jnp):
    check(jnp.select([V3 > 1, V3 > 2.5], [V3, -V3], 7),
          np.select([V3 > 1, V3 > 2.5], [V3, -V3], 7))
    # Conditions need not be boolean: they are converted.
    check(jnp.select([np.array([0.5, 0., 2.]), np.ones(3)], [np.ones(3), 2 * np.ones(3)]),
          [1., 2., 1.], "float32")
    assert jaxpr_text(jax, lambda a: jnp.select([a > 0, a < 0], [a, -a], 0), jnp.ones(3)) \
        == JAXPRS["select"]
    choices = [V3, 2 * V3, 3 * V3]
    check(jnp.choose(np.array([0, 1, 2]), choices), np.choose([0, 1, 2], choices))
    check(jnp.choose(np.array([3, -1, 5]), choices[:2], mode="wrap"),
          np.choose([3, -1, 5], choices[:2], mode="wrap"))
    check(jnp.choose(np.array([3, -1, 5]), choices[:2], mode="clip"),
          np.choose([3, -1, 5], choices[:2], mode="clip"))
    with pytest.raises(ValueError, match="condlist must have length equal to choicelist"):
        jnp.select([V3 > 1], [V3, V3])
    with pytest.raises(jax.errors.ConcretizationTypeError,
                       match="jnp.choose was jit-compiled with mode='raise'"):
        jax.jit(lambda i: jnp.choose(i, choices))(np.array([0, 1, 2]))


# ---------------------------------------------------------------------------
# nonzero and friends (NP-46)
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-46")
def test_nonzero(jax, jnp):
    for got, want in zip(jnp.nonzero(I23 % 2), np.nonzero(I23 % 2)):
        check(got, want, "int32")
    got = jnp.nonzero(np.array([0, 1, 0, 2]), size=3)
    check(got[0], [1, 3, 0], "int32")
    got = jnp.nonzero(I23 % 2, size=4, fill_value=(7, 8))
    check(got[0], [0, 1, 1, 7], "int32")
    check(got[1], [1, 0, 2, 8], "int32")
    got = jax.jit(lambda a: jnp.nonzero(a, size=3, fill_value=9))(np.array([0, 1, 0, 2]))
    check(got[0], [1, 3, 9], "int32")
    check(jnp.argwhere(I23 % 2), np.argwhere(I23 % 2), "int32")
    check(jnp.argwhere(np.array([0, 3]), size=3, fill_value=-1), [[1], [-1], [-1]], "int32")
    check(jnp.flatnonzero(I23, size=7), [1, 2, 3, 4, 5, 0, 0], "int32")
    with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
        jnp.nonzero(np.array(1))
    with pytest.raises(jax.errors.ConcretizationTypeError,
                       match="The size argument of jnp.nonzero must be statically specified"):
        jax.jit(jnp.nonzero)(np.array([0, 1]))


@pytest.mark.spec("NP-46")
def test_nonzero_argwhere_where_with_static_size(jax, jnp):
    # G-DYN-005
    x = jnp.array([0, 3, 0, 5, 3])
    padded, = jax.jit(lambda x: jnp.nonzero(x, size=4))(x)
    assert repr(padded) == "Array([1, 3, 4, 0], dtype=int32)"
    assert jax.jit(lambda x: jnp.nonzero(x, size=1))(x)[0].tolist() == [1]
    filled, = jax.jit(lambda x: jnp.nonzero(x, size=5, fill_value=9))(x)
    assert filled.tolist() == [1, 3, 4, 9, 9]
    rows = jax.jit(lambda x: jnp.argwhere(x, size=3, fill_value=-1))(x)
    assert rows.shape == (3, 1) and rows.tolist() == [[1], [3], [4]]
    rows = jax.jit(lambda x: jnp.argwhere(x, size=5, fill_value=-1))(x)
    assert rows.tolist() == [[1], [3], [4], [-1], [-1]]
    assert jax.jit(lambda x: jnp.where(x > 0, size=3))(x)[0].tolist() == [1, 3, 4]


# ---------------------------------------------------------------------------
# take and take_along_axis (NP-53)
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-53")
def test_take_modes(jax, jnp):
    check(jnp.take(F23, np.array([[2, 0]]), axis=1), np.take(F23, [[2, 0]], axis=1))
    check(jnp.take(F234, np.array([1]), axis=-1), np.take(F234, [1], axis=-1))
    idx = np.array([5, -1, -5])
    # Default 'fill': negative indices wrap once, others read a fill value.
    check(jnp.take(np.arange(3.), idx), [np.nan, 2., np.nan], "float32")
    check(jnp.take(np.arange(3), idx), [-2147483648, 2, -2147483648], "int32")
    check(jnp.take(np.arange(3, dtype=np.uint8), idx[:1]), [255], "uint8")
    check(jnp.take(np.array([True, False]), np.array([5, 1])), [True, False])
    check(jnp.take(np.arange(3.), idx[:1], fill_value=-2.0), [-2.], "float32")
    check(jnp.take(np.arange(3), idx, mode="clip"), [2, 0, 0], "int32")
    check(jnp.take(np.arange(3), idx, mode="wrap"), [2, 2, 1], "int32")
    special = np.array([-0.0, np.inf, np.nan, -np.inf], np.float32)
    got = jnp.take(special, np.array([0, 1, 2, 3]))
    assert np.signbit(np.asarray(got)[0]) and np.isnan(np.asarray(got)[2])
    check(jax.jit(lambda a, i: jnp.take(a, i, axis=0))(F23, np.array([1, 1, 0])),
          F23[[1, 1, 0]])
    with pytest.raises(NotImplementedError, match="The 'raise' mode to jnp.take is not "
                       "supported."):
        jnp.take(np.arange(3), np.array([1]), mode="raise")


@pytest.mark.spec("NP-53")
def test_take_along_axis(jnp):
    idx = np.array([[2, 0, 1], [0, 0, 0]])
    check(jnp.take_along_axis(F23, idx, axis=1), np.take_along_axis(F23, idx, axis=1))
    idx3 = np.array([[[0]], [[2]]])
    check(jnp.take_along_axis(F234, idx3, axis=1), np.take_along_axis(F234, idx3, axis=1))
    check(jnp.take_along_axis(F23, np.array([4, -1]), axis=None), F23.ravel()[[4, -1]])
    check(jnp.take_along_axis(np.arange(3), np.array([5, -1, -5]), axis=0),
          [-2147483648, 2, -2147483648], "int32")
    # The other axes broadcast against each other.
    check(jnp.take_along_axis(np.arange(6.).reshape(1, 6), np.array([[1], [3]]), axis=1),
          [[1.], [3.]], "float32")
    with pytest.raises(ValueError, match="indices and arr must have the same number of "
                       "dimensions; 1 vs. 2"):
        jnp.take_along_axis(F23, np.array([1]), axis=1)


@pytest.mark.spec("NP-53")
def test_compress(jax, jnp):
    x = jnp.arange(6).reshape(2, 3)
    assert x.compress(jnp.array([True, False]), axis=0).tolist() == [[0, 1, 2]]
    assert jnp.compress(jnp.array([1, 0, 1]), x, axis=1).tolist() == [[0, 2], [3, 5]]
    assert jnp.compress(jnp.array([True, False, True]), jnp.arange(3.0)).tolist() == [0.0, 2.0]
    got = jnp.compress(jnp.array([False, True, False]), jnp.arange(3), size=2)
    assert got.tolist() == [1, 0]
