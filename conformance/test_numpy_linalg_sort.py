"""Conformance: jax.numpy contractions, matrices, sorting and searching,
convolution and whole-array comparisons, and lax.conv_general_dilated,
lax.top_k, lax.reduce_precision (SPEC NP-43, NP-47 .. NP-59).

Expected values come from NumPy where the semantics agree, else from JAX
0.10.2 itself (reprs, error messages and jaxpr texts recorded from it).
Floating-point contractions are compared with a tolerance: the order of
accumulation is not specified.
"""
import numpy as np
import pytest

R = np.random.RandomState(1)
A = R.randn(2, 3).astype(np.float32)
B = R.randn(3, 4).astype(np.float32)
F234 = R.randn(2, 3, 4).astype(np.float32)
I23 = np.arange(6, dtype=np.int32).reshape(2, 3)
V3 = np.array([3., 1., 2.], np.float32)
M = np.arange(12., dtype=np.float32).reshape(3, 4)


def check(got, want, dtype=None, exact=True):
    """Same dtype (``dtype`` or NumPy's), shape and values as ``want``."""
    want = np.asarray(want)
    assert str(got.dtype) == str(dtype or want.dtype), (got.dtype, dtype or want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if exact:
        np.testing.assert_array_equal(np.asarray(got), want)
    else:
        np.testing.assert_allclose(np.asarray(got), want, rtol=2e-6, atol=2e-6)


def jaxpr_text(jax, f, *args):
    return str(jax.make_jaxpr(f)(*args))


# Jaxprs printed by JAX 0.10.2 (jax.make_jaxpr) for the programs in the tests.

JAXPRS = {
    "argsort_desc": """\
{ lambda ; a:f32[2,3]. let
    b:i32[2,3] = jit[
      name=argsort
      jaxpr={ lambda ; a:f32[2,3]. let
          c:i32[2,3] = iota[dimension=1 dtype=int32 shape=(2, 3) sharding=None] 
          d:f32[2,3] = rev[dimensions=(1,)] a
          e:i32[2,3] = rev[dimensions=(1,)] c
          f:f32[2,3] g:i32[2,3] = sort[dimension=1 is_stable=True num_keys=1] d e
          b:i32[2,3] = rev[dimensions=(1,)] g
        in (b,) }
    ] a
  in (b,) }""",
    "array_equal_weak": """\
{ lambda ; a:i32[] b:f32[]. let
    c:f32[] = convert_element_type[new_dtype=float32 weak_type=True] a
    d:bool[] = eq c b
    e:bool[] = convert_element_type[new_dtype=bool weak_type=False] d
    f:bool[] = reduce_and[axes=()] e
  in (f,) }""",
    "conv_general": """\
{ lambda ; a:f32[1,5,5,2] b:f32[3,3,2,4]. let
    c:f32[1,1,9,4] = conv_general_dilated[
      batch_group_count=1
      dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
      feature_group_count=1
      lhs_dilation=(1, 2)
      out_sharding=None
      padding=((1, 0), (0, 2))
      precision=None
      preferred_element_type=None
      rhs_dilation=(2, 1)
      window_strides=(2, 1)
    ] a b
  in (c,) }""",
    "convolve": """\
{ lambda ; a:f32[3] b:f32[2]. let
    c:f32[4] = jit[
      name=convolve
      jaxpr={ lambda ; a:f32[3] b:f32[2]. let
          c:f32[4] = jit[
            name=_conv
            jaxpr={ lambda ; a:f32[3] b:f32[2]. let
                d:f32[2] = jit[
                  name=_flip
                  jaxpr={ lambda ; b:f32[2]. let
                      d:f32[2] = rev[dimensions=(0,)] b
                    in (d,) }
                ] b
                e:f32[1,1,3] = broadcast_in_dim[broadcast_dimensions=(2,)] a
                f:f32[1,1,2] = broadcast_in_dim[broadcast_dimensions=(2,)] d
                g:f32[1,1,4] = conv_general_dilated[
                  batch_group_count=1
                  dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(0, 1, 2), out_spec=(0, 1, 2))
                  feature_group_count=1
                  lhs_dilation=(1,)
                  out_sharding=None
                  padding=((1, 1),)
                  precision=None
                  preferred_element_type=None
                  rhs_dilation=(1,)
                  window_strides=(1,)
                ] e f
                c:f32[4] = squeeze[dimensions=(0, 1)] g
              in (c,) }
          ] a b
        in (c,) }
    ] a b
  in (c,) }""",
    "correlate_c": """\
{ lambda ; a:c64[3] b:c64[2]. let
    c:c64[4] = jit[
      name=correlate
      jaxpr={ lambda ; a:c64[3] b:c64[2]. let
          c:c64[4] = jit[
            name=_conv
            jaxpr={ lambda ; a:c64[3] b:c64[2]. let
                d:c64[2] = conj[input_dtype=complex64] b
                e:c64[1,1,3] = broadcast_in_dim[broadcast_dimensions=(2,)] a
                f:c64[1,1,2] = broadcast_in_dim[broadcast_dimensions=(2,)] d
                g:c64[1,1,4] = conv_general_dilated[
                  batch_group_count=1
                  dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(0, 1, 2), out_spec=(0, 1, 2))
                  feature_group_count=1
                  lhs_dilation=(1,)
                  out_sharding=None
                  padding=((1, 1),)
                  precision=None
                  preferred_element_type=None
                  rhs_dilation=(1,)
                  window_strides=(1,)
                ] e f
                c:c64[4] = squeeze[dimensions=(0, 1)] g
              in (c,) }
          ] a b
        in (c,) }
    ] a b
  in (c,) }""",
    "diag_k": """\
{ lambda ; a:f32[3]. let
    b:f32[4,4] = jit[
      name=_diag
      jaxpr={ lambda ; a:f32[3]. let
          c:f32[4] = pad[padding_config=((0, 1, 0),)] a 0.0:f32[]
          d:i32[4,4] = iota[dimension=0 dtype=int32 shape=(4, 4) sharding=None] 
          e:i32[4,4] = iota[dimension=1 dtype=int32 shape=(4, 4) sharding=None] 
          f:i32[4,4] = add d 1:i32[]
          g:bool[4,4] = eq f e
          h:f32[4,1] = broadcast_in_dim[broadcast_dimensions=(0,)] c
          b:f32[4,4] = jit[
            name=_where
            jaxpr={ lambda ; g:bool[4,4] h:f32[4,1] i:f32[]. let
                j:f32[4,4] = broadcast_in_dim[broadcast_dimensions=(0, 1)] h
                k:f32[4,4] = broadcast_in_dim i
                b:f32[4,4] = select_n g k j
              in (b,) }
          ] g h 0.0:f32[]
        in (b,) }
    ] a
  in (b,) }""",
    "diff_prepend": """\
{ lambda ; a:f32[3]. let
    b:f32[3] = jit[
      name=diff
      jaxpr={ lambda ; a:f32[3] c:i32[]. let
          d:i32[1] = broadcast_in_dim c
          e:f32[1] = convert_element_type[new_dtype=float32 weak_type=False] d
          f:f32[4] = concatenate[dimension=0] e a
          g:f32[3] = slice[limit_indices=(4,) start_indices=(1,) strides=None] f
          h:f32[3] = slice[limit_indices=(3,) start_indices=(0,) strides=None] f
          b:f32[3] = sub g h
        in (b,) }
    ] a 0:i32[]
  in (b,) }""",
    "dot": """\
{ lambda ; a:f32[2,3]. let
    b:f32[3,2] = transpose[permutation=(1, 0)] a
    c:f32[2,2] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    "dot_mixed": """\
{ lambda ; a:f32[2,3] b:i32[3,2]. let
    c:f32[2,2] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    "einsum": """\
{ lambda ; a:f32[2,3] b:f32[3,2]. let
    c:f32[2,2] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    "einsum_ellipsis": """\
{ lambda ; a:f32[4,2,3] b:f32[4,3,2]. let
    c:f32[4,2,2] = dot_general[
      dimension_numbers=(([2], [1]), ([0], [0]))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    "einsum_sum2": """\
{ lambda ; a:f32[2,3] b:f32[2,3]. let
    c:f32[3] = reduce_sum[axes=(0,) out_sharding=None] b
    d:f32[3] = reduce_sum[axes=(0,) out_sharding=None] a
    e:f32[3,3] = dot_general[
      dimension_numbers=(([], []), ([], []))
      preferred_element_type=float32
    ] d c
  in (e,) }""",
    "einsum_trace": """\
{ lambda ; a:f32[3,3]. let
    b:u32[3,3] = iota[dimension=0 dtype=uint32 shape=(3, 3) sharding=None] 
    c:u32[3,3] = iota[dimension=1 dtype=uint32 shape=(3, 3) sharding=None] 
    d:bool[3,3] = eq b c
    e:f32[3,3] = broadcast_in_dim 0.0:f32[]
    f:f32[3,3] = select_n d e a
    g:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] f
  in (g,) }""",
    "indices": """\
{ lambda ; . let
    a:i32[2] = iota[dimension=0 dtype=int32 shape=(2,) sharding=None] 
    b:i32[2,3] = broadcast_in_dim[broadcast_dimensions=(0,)] a
    c:i32[3] = iota[dimension=0 dtype=int32 shape=(3,) sharding=None] 
    d:i32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] c
    e:i32[2,2,3] = stack[axis=0] b d
  in (e,) }""",
    "isclose": """\
let isclose = { lambda ; a:f32[3] b:f32[3]. let
    c:bool[3] = ne a a
    d:bool[3] = ne b b
    e:bool[3] = and c d
    f:bool[3] = is_finite b
    g:f32[3] = sub a b
    h:f32[3] = abs g
    i:f32[3] = abs b
    j:f32[3] = mul 9.999999747378752e-06:f32[] i
    k:f32[3] = add 9.99999993922529e-09:f32[] j
    l:bool[3] = le h k
    m:bool[3] = eq a b
    n:bool[3] = and f l
    o:bool[3] = or m n
  in (o,) } in
{ lambda ; p:f32[3] q:f32[3]. let
    r:bool[3] = jit[name=isclose jaxpr=isclose] p q
  in (r,) }""",
    "kron": """\
{ lambda ; a:f32[2,3]. let
    b:f32[4,9] = jit[
      name=kron
      jaxpr={ lambda ; a:f32[2,3] c:f32[2,3]. let
          d:f32[2,1,3,1] = broadcast_in_dim[broadcast_dimensions=(0, 2)] a
          e:f32[1,2,1,3] = broadcast_in_dim[broadcast_dimensions=(1, 3)] c
          f:f32[2,2,3,3] = mul d e
          b:f32[4,9] = reshape[dimensions=None new_sizes=(4, 9) sharding=None] f
        in (b,) }
    ] a a
  in (b,) }""",
    "lexsort": """\
{ lambda ; a:f32[3] b:f32[3]. let
    c:i32[3] = jit[
      name=lexsort
      jaxpr={ lambda ; a:f32[3] b:f32[3]. let
          d:i32[3] = iota[dimension=0 dtype=int32 shape=(3,) sharding=None] 
          e:f32[3] f:f32[3] c:i32[3] = sort[
            dimension=0
            is_stable=True
            num_keys=2
          ] b a d
        in (c,) }
    ] a b
  in (c,) }""",
    "matmul": """\
{ lambda ; a:f32[2,3]. let
    b:f32[3,2] = transpose[permutation=(1, 0)] a
    c:f32[2,2] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    "matmul_bcast": """\
{ lambda ; a:f32[4,1,2,3] b:f32[5,3,2]. let
    c:f32[4,2,3] = squeeze[dimensions=(1,)] a
    d:f32[4,2,5,2] = dot_general[
      dimension_numbers=(([2], [1]), ([], []))
      preferred_element_type=float32
    ] c b
    e:f32[4,5,2,2] = transpose[permutation=(0, 2, 1, 3)] d
  in (e,) }""",
    "meshgrid_3": """\
{ lambda ; a:f32[3] b:f32[2] c:f32[4]. let
    d:f32[2,3,4] = broadcast_in_dim[broadcast_dimensions=(0,)] b
    e:f32[2,3,4] = broadcast_in_dim[broadcast_dimensions=(1,)] a
    f:f32[2,3,4] = broadcast_in_dim[broadcast_dimensions=(2,)] c
  in (e, d, f) }""",
    "outer_mixed": """\
{ lambda ; a:f32[3] b:i32[2]. let
    c:f32[2] = convert_element_type[new_dtype=float32 weak_type=False] b
    d:f32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] a
    e:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(1,)] c
    f:f32[3,2] = mul d e
  in (f,) }""",
    "partition": """\
{ lambda ; a:f32[3]. let
    b:f32[3] = jit[
      name=partition
      jaxpr={ lambda ; a:f32[3]. let
          c:f32[3] = neg a
          d:f32[2] e:i32[2] = top_k[axis=0 k=2] c
          f:f32[2] = neg d
          g:f32[1] h:i32[1] = top_k[axis=0 k=1] a
          b:f32[3] = concatenate[dimension=0] f g
        in (b,) }
    ] a
  in (b,) }""",
    "reduce_precision": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] = reduce_precision[exponent_bits=5 mantissa_bits=10] a
  in (b,) }""",
    "sort_desc": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] = jit[
      name=sort
      jaxpr={ lambda ; a:f32[2,3]. let
          c:f32[2,3] = sort[dimension=1 is_stable=True num_keys=1] a
          b:f32[2,3] = rev[dimensions=(1,)] c
        in (b,) }
    ] a
  in (b,) }""",
    "top_k": """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,2] c:i32[2,2] = top_k[axis=1 k=2] a
  in (b, c) }""",
    "trace": """\
{ lambda ; a:f32[2,3]. let
    b:f32[] = jit[
      name=trace
      jaxpr={ lambda ; a:f32[2,3]. let
          c:i32[2,3] = iota[dimension=0 dtype=int32 shape=(2, 3) sharding=None] 
          d:i32[2,3] = iota[dimension=1 dtype=int32 shape=(2, 3) sharding=None] 
          e:i32[2,3] = add c 0:i32[]
          f:bool[2,3] = eq e d
          g:f32[2,3] = broadcast_in_dim 0.0:f32[]
          h:f32[2,3] = jit[
            name=_where
            jaxpr={ lambda ; f:bool[2,3] a:f32[2,3] g:f32[2,3]. let
                h:f32[2,3] = select_n f g a
              in (h,) }
          ] f a g
          b:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] h
        in (b,) }
    ] a
  in (b,) }""",
    "trace_off": """\
{ lambda ; a:f32[2,3]. let
    b:f32[] = jit[
      name=trace
      jaxpr={ lambda ; a:f32[2,3] c:i32[]. let
          d:i32[2,3] = iota[dimension=0 dtype=int32 shape=(2, 3) sharding=None] 
          e:i32[2,3] = iota[dimension=1 dtype=int32 shape=(2, 3) sharding=None] 
          f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c
          g:i32[2,3] = add d f
          h:bool[2,3] = eq g e
          i:f32[2,3] = broadcast_in_dim 0.0:f32[]
          j:f32[2,3] = jit[
            name=_where
            jaxpr={ lambda ; h:bool[2,3] a:f32[2,3] i:f32[2,3]. let
                j:f32[2,3] = select_n h i a
              in (j,) }
          ] h a i
          b:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] j
        in (b,) }
    ] a 1:i32[]
  in (b,) }""",
    "tril_3d": """\
{ lambda ; a:f32[2,3,3]. let
    b:f32[2,3,3] = jit[
      name=tril
      jaxpr={ lambda ; a:f32[2,3,3]. let
          c:i32[3,3] = iota[dimension=0 dtype=int32 shape=(3, 3) sharding=None] 
          d:i32[3,3] = add c -1:i32[]
          e:i32[3,3] = iota[dimension=1 dtype=int32 shape=(3, 3) sharding=None] 
          f:bool[3,3] = ge d e
          g:bool[2,3,3] = broadcast_in_dim[broadcast_dimensions=(1, 2)] f
          h:f32[2,3,3] = broadcast_in_dim 0.0:f32[]
          b:f32[2,3,3] = select_n g h a
        in (b,) }
    ] a
  in (b,) }""",
    "vdot_c": """\
{ lambda ; a:c64[3] b:c64[3]. let
    c:c64[3] = conj[input_dtype=complex64] a
    d:c64[] = dot_general[
      dimension_numbers=(([0], [0]), ([], []))
      preferred_element_type=complex64
    ] c b
  in (d,) }""",
}

# ---------------------------------------------------------------------------
# Contractions (NP-47)
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-47")
def test_dot_and_matmul_values(jnp):
    check(jnp.dot(A, B), A @ B, exact=False)
    check(jnp.dot(A, V3), A @ V3, exact=False)
    check(jnp.dot(2, A), 2 * A, exact=False)
    D = R.randn(5, 4, 2).astype(np.float32)
    check(jnp.dot(F234, D), np.dot(F234, D), exact=False)
    check(jnp.asarray(A).dot(B), A @ B, exact=False)
    check(jnp.matmul(V3, V3), V3 @ V3, exact=False)
    check(jnp.matmul(V3, B), V3 @ B, exact=False)
    x, y = np.ones((4, 1, 2, 3), np.float32), np.ones((5, 3, 2), np.float32)
    check(jnp.matmul(x, y), np.matmul(x, y))
    check(jnp.asarray(A) @ B, A @ B, exact=False)
    check(A @ jnp.asarray(B), A @ B, exact=False)


@pytest.mark.spec("NP-47")
def test_contraction_dtypes(jnp):
    # The promoted dtype is the dot_general's preferred_element_type.
    assert repr(jnp.dot(I23, I23.T)) == "Array([[ 5, 14],\n       [14, 50]], dtype=int32)"
    assert jnp.dot(A, I23.T).dtype == np.float32
    assert repr(jnp.dot(2.0, 3.0)) == "Array(6., dtype=float32, weak_type=True)"
    assert repr(jnp.dot(np.ones(2, np.int8), np.ones(2, np.uint8))) == \
        "Array(2, dtype=int16)"
    assert repr(jnp.dot(np.array([True, False]), np.array([True, True]))) == \
        "Array(True, dtype=bool)"
    assert jnp.dot(I23, I23.T, preferred_element_type=jnp.float32).dtype == np.float32
    assert jnp.einsum("ij,jk->ik", I23, I23.T, preferred_element_type=jnp.float32).dtype \
        == np.float32


@pytest.mark.spec("NP-47")
def test_contraction_errors(jnp):
    with pytest.raises(TypeError, match=r"dot_general requires contracting dimensions to "
                       r"have the same shape, got \(3,\) and \(2,\)."):
        jnp.dot(A, A)
    with pytest.raises(ValueError, match="matmul input operand 1 must have ndim at least 1, "
                       "but it has ndim 0"):
        jnp.matmul(A, 2.0)
    with pytest.raises(ValueError, match=r"Incompatible types for matmul arguments: "
                       r"float32\[2,2,3\] and float32\[3,3,2\]"):
        jnp.matmul(np.ones((2, 2, 3), np.float32), np.ones((3, 3, 2), np.float32))
    with pytest.raises(TypeError, match=r"Number of tensordot axes \(axes 3\) exceeds input "
                       "ranks"):
        jnp.tensordot(A, B, 3)
    with pytest.raises(TypeError, match="tensordot requires axes lists to have equal length"):
        jnp.tensordot(A, B, ((1,), (0, 1)))


@pytest.mark.spec("NP-47")
def test_other_products(jnp):
    c1, c2 = np.array([1 + 2j, 3j], np.complex64), np.array([2j, 1], np.complex64)
    check(jnp.vdot(A, A), np.vdot(A, A), exact=False)
    check(jnp.vdot(c1, c2), np.vdot(c1, c2), exact=False)
    check(jnp.vecdot(A, A), np.sum(A * A, -1), exact=False)
    check(jnp.vecdot(c1, c2), np.vdot(c1, c2), exact=False)
    check(jnp.vecdot(np.ones((3, 2)), np.ones((3, 1)), axis=0), [3., 3.], "float32")
    check(jnp.inner(A, A), np.inner(A, A), exact=False)
    check(jnp.inner(V3, 2.0), 2 * V3)
    check(jnp.outer(V3, np.arange(2)), np.outer(V3, np.arange(2)), "float32")
    check(jnp.outer(A, V3), np.outer(A, V3), exact=False)
    check(jnp.tensordot(A, B, 1), np.tensordot(A, B, 1), exact=False)
    check(jnp.tensordot(F234, F234, ((1, 2), (1, 2))),
          np.tensordot(F234, F234, ((1, 2), (1, 2))), exact=False)
    check(jnp.tensordot(V3, V3, 0), np.tensordot(V3, V3, 0))
    check(jnp.kron(np.array([1, 2]), I23), np.kron([1, 2], I23), "int32")
    check(jnp.kron(A, B), np.kron(A, B), exact=False)
    check(jnp.cross(V3, np.array([1., 0, 2])), np.cross(V3, [1., 0, 2]), "float32")
    check(jnp.cross(np.array([1., 2]), np.array([3., 4])), np.float64(-2.), "float32")
    check(jnp.cross(np.ones((3, 2)), np.arange(6.).reshape(3, 2), axisa=0, axisb=0),
          [[2., -4., 2.], [2., -4., 2.]], "float32")
    with pytest.raises(ValueError, match="Dimension must be either 2 or 3 for cross product"):
        jnp.cross(np.ones(4), np.ones(4))


@pytest.mark.spec("NP-47")
def test_contraction_jaxprs(jax, jnp):
    x, i, v = jnp.ones((2, 3)), jnp.ones((2, 3), jnp.int32), jnp.ones(3)
    assert jaxpr_text(jax, lambda a: jnp.dot(a, a.T), x) == JAXPRS["dot"]
    assert jaxpr_text(jax, lambda a, b: jnp.dot(a, b), x, i.T) == JAXPRS["dot_mixed"]
    assert jaxpr_text(jax, lambda a: a @ a.T, x) == JAXPRS["matmul"]
    assert jaxpr_text(jax, lambda a, b: a @ b, jnp.ones((4, 1, 2, 3)), jnp.ones((5, 3, 2))) \
        == JAXPRS["matmul_bcast"]
    c = jnp.ones(3, jnp.complex64)
    assert jaxpr_text(jax, lambda a, b: jnp.vdot(a, b), c, c) == JAXPRS["vdot_c"]
    assert jaxpr_text(jax, lambda a, b: jnp.outer(a, b), v, jnp.ones(2, jnp.int32)) == \
        JAXPRS["outer_mixed"]
    assert jaxpr_text(jax, lambda a: jnp.kron(a, a), x) == JAXPRS["kron"]


@pytest.mark.spec("NP-47")
def test_einsum_values(jnp):
    E1 = R.randn(2, 3, 4).astype(np.float32)
    E2 = R.randn(2, 4, 5).astype(np.float32)
    sq = np.arange(9., dtype=np.float32).reshape(3, 3)
    for spec, ops in [("ij,jk->ik", (A, B)), ("bij,bjk->bik", (E1, E2)), ("ii->i", (sq,)),
                      ("ii", (sq,)), ("ij->ji", (A,)), ("ij->", (A,)), ("i,j->ij", (V3, V3)),
                      ("...ij,...jk->...ik", (E1, E2)), ("...i,i", (A, V3)),
                      ("i...->...", (A,)), ("ij,jk,kl->il", (A, B, B.T)),
                      ("i,i,i->", (V3, V3, V3)), ("ij,ij->i", (A, A)),
                      ("ijk,ikj->", (F234, np.ones((2, 4, 3), np.float32))),
                      ("iij,jk->ik", (np.arange(18.).reshape(3, 3, 2).astype(np.float32),
                                      np.ones((2, 2), np.float32)))]:
        check(jnp.einsum(spec, *ops), np.einsum(spec, *ops), exact=False)
    check(jnp.einsum(A, [0, 1], B, [1, 2], [0, 2]), A @ B, exact=False)
    check(jnp.einsum("ij,jk->ik", A > 0, B > 0), np.einsum("ij,jk->ik", A > 0, B > 0))
    check(jnp.einsum("ij->", np.ones((2, 3), np.int8)), np.int8(6))
    # A size-1 axis broadcasts against the other operand's.
    check(jnp.einsum("ij,jk->ik", np.ones((2, 1), np.float32), B),
          np.ones((2, 1)) @ B.sum(0, keepdims=True), "float32", exact=False)


@pytest.mark.spec("NP-47")
def test_einsum_errors_and_jaxprs(jax, jnp):
    with pytest.raises(ValueError, match=r"Size of label 'j' for operand 1 \(3\) does not "
                       r"match previous terms \(2\)."):
        jnp.einsum("ij,jk->ik", A, A)
    with pytest.raises(ValueError, match="Output character 'k' did not appear in the input"):
        jnp.einsum("ij->ik", A)
    with pytest.raises(ValueError, match="Number of einsum subscripts, 2, must be equal to "
                       "the number of operands, 1."):
        jnp.einsum("ij,jk->ik", A)
    with pytest.raises(ValueError, match="Einstein sum subscript 'i' does not contain the "
                       "correct number of indices for operand 1."):
        jnp.einsum("i,i->", V3, 2.)
    x = jnp.ones((2, 3))
    assert jaxpr_text(jax, lambda a, b: jnp.einsum("ij,jk->ik", a, b), x, x.T) == \
        JAXPRS["einsum"]
    assert jaxpr_text(jax, lambda a: jnp.einsum("ii->", a), jnp.ones((3, 3))) == \
        JAXPRS["einsum_trace"]
    assert jaxpr_text(jax, lambda a, b: jnp.einsum("...ij,...jk->...ik", a, b),
                      jnp.ones((4, 2, 3)), jnp.ones((4, 3, 2))) == JAXPRS["einsum_ellipsis"]
    assert jaxpr_text(jax, lambda a, b: jnp.einsum("ij,kl->jl", a, b), x, x) == \
        JAXPRS["einsum_sum2"]


# ---------------------------------------------------------------------------
# Diagonals, triangles, grids (NP-52)
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-52")
def test_trace_and_diagonal(jax, jnp):
    for off in (0, 1, -1, 10):
        check(jnp.trace(M, off), np.trace(M, off))
        check(jnp.diagonal(M, off), np.diagonal(M, off))
    check(jnp.trace(F234, axis1=1, axis2=2), np.trace(F234, axis1=1, axis2=2), exact=False)
    check(jnp.diagonal(F234, -1, 1, 2), np.diagonal(F234, -1, 1, 2))
    check(jnp.diagonal(F234, 0, 2, 0), np.diagonal(F234, 0, 2, 0))
    # jnp.sum's accumulation dtype: small ints and bool widen to int32.
    assert repr(jnp.trace(np.ones((2, 2), np.int8))) == "Array(2, dtype=int32)"
    assert repr(jnp.trace(np.ones((2, 2), bool))) == "Array(2, dtype=int32)"
    assert repr(jnp.trace(M, dtype=jnp.int32)) == "Array(15, dtype=int32)"
    check(jnp.asarray(M).trace(1), np.trace(M, 1))
    check(jnp.asarray(M).diagonal(1), np.diagonal(M, 1))
    x = jnp.ones((2, 3))
    assert jaxpr_text(jax, lambda a: jnp.trace(a), x) == JAXPRS["trace"]
    assert jaxpr_text(jax, lambda a: jnp.trace(a, 1), x) == JAXPRS["trace_off"]
    with pytest.raises(ValueError, match="diagonal requires an array of at least two "
                       "dimensions."):
        jnp.diagonal(V3)


@pytest.mark.spec("NP-52")
def test_diag_tri_grids(jax, jnp):
    for k in (0, 1, -2):
        check(jnp.diag(V3, k), np.diag(V3, k))
        check(jnp.diagflat(A, k), np.diagflat(A, k))
        check(jnp.tril(M, k), np.tril(M, k))
        check(jnp.triu(M, k), np.triu(M, k))
    check(jnp.diag(M, -1), np.diag(M, -1))
    check(jnp.tril(F234, -1), np.tril(F234, -1))
    # tri defaults to float32 even with x64, as in JAX.
    check(jnp.tri(3), np.tri(3), "float32")
    check(jnp.tri(2, 3, 1, dtype=jnp.int32), np.tri(2, 3, 1, dtype=np.int32))
    for got, want in zip(jnp.meshgrid(V3, np.arange(2.)), np.meshgrid(V3, np.arange(2.))):
        check(got, want, "float32")
    for got, want in zip(jnp.meshgrid(V3, np.arange(2.), np.ones(4), sparse=True,
                                      indexing="ij"),
                         np.meshgrid(V3, np.arange(2.), np.ones(4), sparse=True,
                                     indexing="ij")):
        check(got, want, "float32")
    check(jnp.indices((2, 3)), np.indices((2, 3)), "int32")
    for got, want in zip(jnp.indices((2, 3), sparse=True), np.indices((2, 3), sparse=True)):
        check(got, want, "int32")
    v = jnp.ones(3)
    assert jaxpr_text(jax, lambda a: jnp.diag(a, 1), v) == JAXPRS["diag_k"]
    assert jaxpr_text(jax, lambda a: jnp.tril(a, -1), jnp.ones((2, 3, 3))) == \
        JAXPRS["tril_3d"]
    assert jaxpr_text(jax, lambda a, b, c: jnp.meshgrid(a, b, c), v, jnp.ones(2),
                      jnp.ones(4)) == JAXPRS["meshgrid_3"]
    assert jaxpr_text(jax, lambda: jnp.indices((2, 3))) == JAXPRS["indices"]
    with pytest.raises(ValueError, match="diag input must be 1d or 2d"):
        jnp.diag(F234)
    with pytest.raises(ValueError, match="Argument to jax.numpy.tril must be at least 2D"):
        jnp.tril(V3)
    with pytest.raises(ValueError, match="Arguments to jax.numpy.meshgrid must be 1D"):
        jnp.meshgrid(A, V3)


# ---------------------------------------------------------------------------
# Sorting (NP-48, NP-49)
# ---------------------------------------------------------------------------

S = np.array([[3., np.nan, 1., -0.0, 0.0, 2.], [5, 1, 1, -np.inf, np.nan, 0]], np.float32)


@pytest.mark.spec("NP-48")
def test_sort_and_argsort(jax, jnp):
    for axis in (-1, 0, None):
        check(jnp.sort(S, axis=axis), np.sort(S, axis=axis))
        check(jnp.argsort(S, axis=axis), np.argsort(S, axis=axis, kind="stable"), "int32")
    check(jnp.sort(S, descending=True), np.flip(np.sort(S), -1))
    # Stable descending keeps equal elements in index order.
    check(jnp.argsort(np.array([3, 1, 3, 1]), descending=True), [0, 2, 1, 3], "int32")
    check(jnp.argsort(V3, dtype=jnp.int8), [1, 2, 0], "int8")
    cx = np.array([1 + 1j, 1 - 1j, complex(np.nan, 0), 0j, complex(0, np.nan)], np.complex64)
    check(jnp.argsort(cx), [3, 4, 1, 0, 2], "int32")
    check(jnp.asarray(S).sort(axis=0), np.sort(S, axis=0))
    check(jnp.asarray(S).argsort(), np.argsort(S, kind="stable"), "int32")
    x = jnp.ones((2, 3))
    assert jaxpr_text(jax, lambda a: jnp.sort(a, descending=True), x) == JAXPRS["sort_desc"]
    assert jaxpr_text(jax, lambda a: jnp.argsort(a, descending=True), x) == \
        JAXPRS["argsort_desc"]
    with pytest.raises(TypeError, match="'kind' argument to sort is not supported"):
        jnp.sort(S, kind="quicksort")
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
        jnp.sort(S, axis=2)


@pytest.mark.spec("NP-48")
def test_lexsort(jax, jnp):
    k1, k2 = np.array([1, 2, 1, 2]), np.array([2, 2, 1, 1])
    check(jnp.lexsort((k1, k2)), np.lexsort((k1, k2)), "int32")
    check(jnp.lexsort([I23 % 2, I23 // 2], axis=0), np.lexsort([I23 % 2, I23 // 2], axis=0),
          "int32")
    v = jnp.ones(3)
    assert jaxpr_text(jax, lambda a, b: jnp.lexsort((a, b)), v, v) == JAXPRS["lexsort"]
    with pytest.raises(TypeError, match="need sequence of keys with len > 0 in lexsort"):
        jnp.lexsort(())
    with pytest.raises(ValueError, match="all keys need to be the same shape"):
        jnp.lexsort((np.ones(2), np.ones(3)))


@pytest.mark.spec("NP-49")
def test_partition(jax, jnp):
    x = np.array([5., 1, 4, 2, 3], np.float32)
    # top_k order on each side of the pivot, as JAX returns them.
    check(jnp.partition(x, 2), [1., 2., 3., 5., 4.], "float32")
    check(jnp.argpartition(x, 2), [1, 3, 4, 0, 2], "int32")
    check(jnp.partition(np.array([5, 0, 4, 2], np.uint8), -1), [0, 2, 4, 5], "uint8")
    got = jnp.partition(F234, 1, axis=1)
    np.testing.assert_array_equal(np.asarray(got)[:, 1], np.sort(F234, axis=1)[:, 1])
    idx = jnp.argpartition(F234, 1, axis=1)
    np.testing.assert_array_equal(np.sort(np.asarray(idx), axis=1),
                                  np.broadcast_to(np.arange(3)[:, None], (2, 3, 4)))
    assert jaxpr_text(jax, lambda a: jnp.partition(a, 1), jnp.ones(3)) == \
        JAXPRS["partition"]
    with pytest.raises(NotImplementedError, match="jnp.partition for complex dtype"):
        jnp.partition(np.array([1j]), 0)


# ---------------------------------------------------------------------------
# searchsorted and unique (NP-50, NP-51)
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-50")
def test_searchsorted(jax, jnp):
    a = np.array([1., 2, 2, 3], np.float32)
    v = np.array([2., 0, 5, 2.5], np.float32)
    for side in ("left", "right"):
        check(jnp.searchsorted(a, v, side=side), np.searchsorted(a, v, side=side), "int32")
    check(jnp.searchsorted(np.array([1, 2, 3]), np.array([[2, 0], [5, 1]])),
          [[1, 0], [3, 0]], "int32")
    check(jnp.searchsorted(np.array([3., 1, 2]), 2.5, sorter=np.array([1, 2, 0])),
          np.int32(2))
    # NaNs sort last and -0.0 equals 0.0.
    check(jnp.searchsorted(np.array([1., 2, np.nan]), np.array([np.nan, 2., -0.0, 3])),
          [2, 1, 0, 2], "int32")
    for method in ("scan", "scan_unrolled", "sort", "compare_all"):
        check(jnp.searchsorted(np.array([1, 3, 5]), np.array([0, 3, 4, 9]), method=method),
              [0, 1, 2, 3], "int32")
    check(jax.jit(jnp.searchsorted)(a, v), np.searchsorted(a, v), "int32")
    with pytest.raises(ValueError, match="a should be 1-dimensional"):
        jnp.searchsorted(np.ones((1, 3)), 2.)
    with pytest.raises(ValueError, match="invalid argument side='middle', expected 'left' "
                       "or 'right'"):
        jnp.searchsorted(np.ones(3), 1., side="middle")


@pytest.mark.spec("NP-51")
def test_unique(jax, jnp):
    u = np.array([3, 1, 3, 2], np.int32)
    check(jnp.unique(u), np.unique(u))
    got = jnp.unique(u, return_index=True, return_inverse=True, return_counts=True)
    for g, w in zip(got, np.unique(u, return_index=True, return_inverse=True,
                                   return_counts=True)):
        check(g, w, "int32")
    x2 = np.array([[3, 1], [3, 2], [1, 1], [3, 1]], np.int32)
    got = jnp.unique(x2, axis=0, return_index=True, return_inverse=True, return_counts=True)
    for g, w in zip(got, np.unique(x2, axis=0, return_index=True, return_inverse=True,
                                   return_counts=True)):
        check(g, w, "int32")
    # Flattened: the inverse has the input's shape (NumPy 2).
    check(jnp.unique(x2, return_inverse=True)[1], np.unique(x2, return_inverse=True)[1],
          "int32")
    # The first of equal values in sorted order is kept (-0.0 before 0.0).
    got = jnp.unique(np.array([np.nan, 1, np.nan, -0.0, 0.0], np.float32))
    check(got, [-0., 1., np.nan], "float32")
    assert np.signbit(np.asarray(got)[0])
    check(jnp.unique(np.array([np.nan, 1, np.nan], np.float32), equal_nan=False),
          [1., np.nan, np.nan], "float32")
    # With size: padded with the smallest value (its index), count 0; or cut.
    got = jnp.unique(u, size=5, return_index=True, return_inverse=True, return_counts=True)
    assert [np.asarray(g).tolist() for g in got] == \
        [[1, 2, 3, 1, 1], [1, 3, 0, 1, 1], [2, 0, 2, 1], [1, 1, 2, 0, 0]]
    got = jnp.unique(u, size=2, return_counts=True)
    assert [np.asarray(g).tolist() for g in got] == [[1, 2], [1, 1]]
    check(jnp.unique(u, size=5, fill_value=0), [1, 2, 3, 0, 0], "int32")
    check(jax.jit(lambda a: jnp.unique(a, size=3))(u), [1, 2, 3], "int32")
    res = jnp.unique_all(u)
    assert type(res).__name__ == "_UniqueAllResult"
    assert [np.asarray(r).tolist() for r in res] == [[1, 2, 3], [1, 3, 0], [2, 0, 2, 1],
                                                     [1, 1, 2]]
    assert np.asarray(jnp.unique_counts(u).counts).tolist() == [1, 1, 2]
    assert np.asarray(jnp.unique_inverse(u).inverse_indices).tolist() == [2, 0, 2, 1]
    check(jnp.unique_values(u), [1, 2, 3], "int32")
    with pytest.raises(jax.errors.ConcretizationTypeError,
                       match="The error arose for the first argument of jnp.unique()"):
        jax.jit(jnp.unique)(u)


@pytest.mark.spec("NP-51")
def test_unique_with_static_size(jax, jnp):
    # G-DYN-005: padding is fill_value, else the smallest value.
    x = jnp.array([0, 3, 0, 5, 3])
    assert jax.jit(lambda x: jnp.unique(x, size=4, fill_value=-1))(x).tolist() == [0, 3, 5, -1]
    assert jax.jit(lambda x: jnp.unique(x, size=5))(x).tolist() == [0, 3, 5, 0, 0]
    assert jax.jit(lambda x: jnp.unique(x, size=2))(x).tolist() == [0, 3]


@pytest.mark.spec("NP-51")
def test_unique_without_size_under_jit(jax, jnp):
    # G-DYN-006
    with pytest.raises(jax.errors.ConcretizationTypeError) as info:
        jax.jit(jnp.unique)(jnp.array([1, 1, 2]))
    lines = str(info.value).splitlines()
    assert lines[0] == ("Abstract tracer value encountered where concrete value is "
                        "expected: traced array with shape int32[3]")
    assert lines[1].startswith("The error arose for the first argument of jnp.unique(). "
                               "To make jnp.unique() compatible with JIT and other "
                               "transforms, you can specify a concrete value for the "
                               "size argument")


# ---------------------------------------------------------------------------
# convolve, correlate, diff (NP-55, NP-43)
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-55")
def test_convolve_and_correlate(jax, jnp):
    a, v = np.arange(5., dtype=np.float32), np.array([1., 2, 3], np.float32)
    short = np.array([1., 2], np.float32)
    for mode in ("full", "same", "valid"):
        check(jnp.convolve(a, v, mode=mode), np.convolve(a, v, mode=mode))
        check(jnp.correlate(a, v, mode=mode), np.correlate(a, v, mode=mode))
        check(jnp.convolve(short, a[:4], mode=mode), np.convolve(short, a[:4], mode=mode))
        check(jnp.correlate(short, a[:4], mode=mode), np.correlate(short, a[:4], mode=mode))
    # Integers are convolved as floats unless preferred_element_type is given.
    assert repr(jnp.convolve(np.array([1, 2]), np.array([1, 1, 1]))) == \
        "Array([1., 3., 3., 2.], dtype=float32)"
    assert repr(jnp.convolve(np.array([1, 2]), np.array([1, 1, 1]),
                             preferred_element_type=jnp.int32)) == \
        "Array([1, 3, 3, 2], dtype=int32)"
    c1, c2 = np.array([1 + 1j, 2], np.complex64), np.array([1j, 2], np.complex64)
    check(jnp.correlate(c1, c2, mode="full"), np.correlate(c1, c2, mode="full"))
    v3, v2 = jnp.ones(3), jnp.ones(2)
    assert jaxpr_text(jax, lambda x, y: jnp.convolve(x, y), v3, v2) == JAXPRS["convolve"]
    c = jnp.ones(3, jnp.complex64)
    assert jaxpr_text(jax, lambda x, y: jnp.correlate(x, y, mode="full"), c,
                      jnp.ones(2, jnp.complex64)) == JAXPRS["correlate_c"]
    with pytest.raises(ValueError, match=r"convolve\(\) only support 1-dimensional inputs."):
        jnp.convolve(np.ones((2, 2)), np.ones(2))
    with pytest.raises(ValueError, match="mode must be one of"):
        jnp.convolve(np.ones(3), np.ones(2), mode="foo")
    with pytest.raises(ValueError, match="convolve: inputs cannot be empty"):
        jnp.convolve(np.ones(0), np.ones(2))


@pytest.mark.spec("NP-43")
def test_diff_and_ediff1d(jax, jnp):
    check(jnp.diff(V3), np.diff(V3))
    check(jnp.diff(F234, n=2, axis=1), np.diff(F234, n=2, axis=1))
    check(jnp.diff(np.arange(4), prepend=0, append=np.array([9, 9])),
          np.diff(np.arange(4), prepend=0, append=[9, 9]), "int32")
    check(jnp.diff(np.array([True, False, False])), [True, False])
    check(jnp.diff(V3, n=5), np.zeros(0, np.float32))
    check(jnp.ediff1d(A), np.ediff1d(A))
    check(jnp.ediff1d(V3, to_end=np.array([1., 2]), to_begin=2),
          np.ediff1d(V3, to_end=[1., 2], to_begin=2), "float32")
    assert jaxpr_text(jax, lambda x: jnp.diff(x, prepend=0), jnp.ones(3)) == \
        JAXPRS["diff_prepend"]
    with pytest.raises(ValueError, match="diff requires input that is at least one "
                       "dimensional"):
        jnp.diff(np.array(1.0))
    with pytest.raises(ValueError, match="order must be non-negative but got -1"):
        jnp.diff(V3, n=-1)


# ---------------------------------------------------------------------------
# Whole-array comparisons (NP-54)
# ---------------------------------------------------------------------------

@pytest.mark.spec("NP-54")
def test_isclose_allclose_equal(jax, jnp):
    a = np.array([1., np.nan, np.inf, -np.inf, 1e-9], np.float32)
    b = np.array([1 + 1e-6, np.nan, np.inf, np.inf, 0.], np.float32)
    check(jnp.isclose(a, b), np.isclose(a, b))
    check(jnp.isclose(a, b, equal_nan=True), np.isclose(a, b, equal_nan=True))
    check(jnp.isclose(np.array([1, 2]), np.array([1, 3])), [True, False])
    assert bool(jnp.allclose(V3, V3 + 1e-7)) and not bool(jnp.allclose(V3, V3 + 1))
    assert repr(jnp.allclose(np.array([np.nan]), np.array([np.nan]), equal_nan=True)) == \
        "Array(True, dtype=bool)"
    assert repr(jnp.array_equal(V3, V3[:2])) == "Array(False, dtype=bool)"
    assert repr(jnp.array_equal(1, 1.0)) == "Array(True, dtype=bool)"
    assert not bool(jnp.array_equal(np.array([np.nan]), np.array([np.nan])))
    assert bool(jnp.array_equal(np.array([np.nan]), np.array([np.nan]), equal_nan=True))
    assert bool(jnp.array_equiv(A, A[0:1])) is False and bool(jnp.array_equiv(A, A))
    assert not bool(jnp.array_equiv(A, np.ones(4)))
    v = jnp.ones(3)
    assert jaxpr_text(jax, lambda x, y: jnp.isclose(x, y), v, v) == JAXPRS["isclose"]
    assert jaxpr_text(jax, lambda x, y: jnp.array_equal(x, y), 1, 1.0) == \
        JAXPRS["array_equal_weak"]


# ---------------------------------------------------------------------------
# lax: conv_general_dilated, top_k, reduce_precision (NP-56 .. NP-59)
# ---------------------------------------------------------------------------

def _np_conv(lhs, rhs, strides, padding, lhs_dil, rhs_dil, groups=1):
    """A direct NumPy reference for NC.../OI... convolutions."""
    n, c, *sp = lhs.shape
    o, i, *ks = rhs.shape
    dil = np.zeros([n, c] + [(s - 1) * d + 1 for s, d in zip(sp, lhs_dil)], lhs.dtype)
    dil[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in lhs_dil)] = lhs
    pad = [(0, 0), (0, 0)] + [(max(lo, 0), max(hi, 0)) for lo, hi in padding]
    x = np.pad(dil, pad)
    x = x[(slice(None), slice(None)) + tuple(
        slice(-lo if lo < 0 else 0, x.shape[2 + k] + hi if hi < 0 else None)
        for k, (lo, hi) in enumerate(padding))]
    kd = [(k - 1) * d + 1 for k, d in zip(ks, rhs_dil)]
    out_sp = [(s - k) // st + 1 for s, k, st in zip(x.shape[2:], kd, strides)]
    out = np.zeros([n, o] + out_sp, np.float64)
    og = o // groups
    for idx in np.ndindex(*out_sp):
        for kk in np.ndindex(*ks):
            pos = tuple(p * st + q * d for p, st, q, d in zip(idx, strides, kk, rhs_dil))
            patch = x[(slice(None), slice(None)) + pos]
            for g in range(groups):
                out[(slice(None), slice(g * og, (g + 1) * og)) + idx] += (
                    patch[:, g * i:(g + 1) * i] @ rhs[(slice(g * og, (g + 1) * og),
                                                       slice(None)) + kk].T)
    return out.astype(lhs.dtype)


@pytest.mark.spec("NP-56")
def test_conv_general_dilated_values(jax):
    lax = jax.lax
    lhs = R.randn(2, 4, 7, 6).astype(np.float32)
    rhs = R.randn(6, 2, 3, 2).astype(np.float32)
    got = lax.conv_general_dilated(lhs, rhs, (2, 1), [(1, 0), (-1, 2)], (1, 2), (2, 1),
                                   feature_group_count=2)
    check(got, _np_conv(lhs, rhs, (2, 1), [(1, 0), (-1, 2)], (1, 2), (2, 1), 2),
          exact=False)
    rhs1 = R.randn(3, 4, 3, 3).astype(np.float32)
    check(lax.conv(lhs, rhs1, (1, 1), "SAME"),
          _np_conv(lhs, rhs1, (1, 1), [(1, 1), (1, 1)], (1, 1), (1, 1)), exact=False)
    check(lax.conv(lhs, rhs1, (2, 3), "VALID"),
          _np_conv(lhs, rhs1, (2, 3), [(0, 0), (0, 0)], (1, 1), (1, 1)), exact=False)
    check(lax.conv_with_general_padding(lhs, rhs1, (1, 1), "SAME", None, (2, 2)),
          _np_conv(lhs, rhs1, (1, 1), [(2, 2), (2, 2)], (1, 1), (2, 2)), exact=False)
    # Layouts: the same convolution in NHWC / HWIO / NHWC.
    nhwc = lax.conv_general_dilated(lhs.transpose(0, 2, 3, 1), rhs1.transpose(2, 3, 1, 0),
                                    (1, 1), "SAME",
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))
    check(nhwc, np.asarray(lax.conv(lhs, rhs1, (1, 1), "SAME")).transpose(0, 2, 3, 1),
          exact=False)
    assert lax.conv_dimension_numbers((1, 5, 5, 2), (3, 3, 2, 4),
                                      ("NHWC", "HWIO", "NHWC")) == \
        lax.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    assert lax.padtype_to_pads((5, 6), (3, 2), (2, 2), "SAME") == [(1, 1), (0, 0)]
    assert repr(lax.conv(np.ones((1, 1, 3), np.int32), np.ones((1, 1, 2), np.int32), (1,),
                         "VALID")) == "Array([[[2, 2]]], dtype=int32)"


@pytest.mark.spec("NP-57")
def test_conv_general_dilated_jaxpr_and_errors(jax, jnp):
    lax = jax.lax
    assert jaxpr_text(jax, lambda x, w: lax.conv_general_dilated(
        x, w, (2, 1), [(1, 0), (0, 2)], (1, 2), (2, 1), ("NHWC", "HWIO", "NHWC")),
        jnp.ones((1, 5, 5, 2)), jnp.ones((3, 3, 2, 4))) == JAXPRS["conv_general"]
    x = np.ones((1, 2, 5), np.float32)
    with pytest.raises(ValueError, match="lhs feature dimension size divided by "
                       "feature_group_count must equal the rhs input feature dimension"):
        lax.conv(x, np.ones((3, 3, 3), np.float32), (1,), "SAME")
    with pytest.raises(RuntimeError, match="Unrecognized padding type: expected 'VALID', "
                       "'SAME', or 'SAME_LOWER', got FOO."):
        lax.conv(x, np.ones((3, 2, 3), np.float32), (1,), "FOO")
    with pytest.raises(ValueError, match="window and window_strides must have the same "
                       "number of dimensions, but got 1 and 2"):
        lax.conv(x, np.ones((3, 2, 3), np.float32), (1, 1), "SAME")
    with pytest.raises(TypeError, match="lax.conv_general_dilated requires arguments to "
                       "have the same dtypes, got int32, float32."):
        lax.conv(x.astype(np.int32), np.ones((3, 2, 3), np.float32), (1,), "SAME")
    with pytest.raises(TypeError, match="convolution requires lhs and rhs ndim to be equal"):
        lax.conv(x, np.ones((2, 3), np.float32), (1,), "SAME")


@pytest.mark.spec("NP-58")
def test_top_k(jax, jnp):
    lax = jax.lax
    x = np.array([1., np.nan, 3., -np.nan, 3., -np.inf, 0., -0.], np.float32)
    values, idx = lax.top_k(x, 8)
    # NaN > inf > ... > 0.0 > -0.0 > ... > -inf > -NaN; ties by lower index.
    check(idx, [1, 2, 4, 0, 6, 7, 5, 3], "int32")
    assert np.signbit(np.asarray(values)[5]) and np.isnan(np.asarray(values)[-1])
    values, idx = lax.top_k(I23, 2)
    check(values, [[2, 1], [5, 4]], "int32")
    check(idx, [[2, 1], [2, 1]], "int32")
    values, idx = lax.top_k(I23, 1, axis=0)
    check(idx, [[1, 1, 1]], "int32")
    assert jaxpr_text(jax, lambda a: lax.top_k(a, 2), jnp.ones((2, 3))) == JAXPRS["top_k"]
    with pytest.raises(ValueError, match="k argument to top_k must be no larger than size "
                       r"along axis; got k=4 with shape=\[3\] and axis=0"):
        lax.top_k(V3, 4)


@pytest.mark.spec("NP-59")
def test_reduce_precision(jax, jnp):
    lax = jax.lax
    x = np.array([1.1, 1e-6, 7e4, -3.33, np.nan, np.inf, 1e-3], np.float32)
    # (5, 10) is float16's layout, (8, 7) bfloat16's: the values round as in
    # those types (overflow to inf; float16 subnormals flush to zero).
    got = np.asarray(lax.reduce_precision(x, 5, 10))
    with np.errstate(over="ignore"):  # 7e4 overflows float16 on purpose
        want = x.astype(np.float16).astype(np.float32)
    want[1] = 0.0
    np.testing.assert_array_equal(got, want)
    import ml_dtypes
    np.testing.assert_array_equal(np.asarray(lax.reduce_precision(x, 8, 7)),
                                  x.astype(ml_dtypes.bfloat16).astype(np.float32))
    assert jaxpr_text(jax, lambda a: lax.reduce_precision(a, 5, 10), jnp.ones((2, 3))) == \
        JAXPRS["reduce_precision"]
