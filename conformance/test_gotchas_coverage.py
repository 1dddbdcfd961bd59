"""Gotchas of gotchas.md that no other conformance file checks: subnormals
and autodiff dtypes (G-DT), dynamic shapes (G-DYN), non-array inputs
(G-LIST) and custom pytrees whose __init__ converts (G-TREE-011)."""
import numpy as np
import pytest


# ---------------------------------------------------------------------------
# Dtypes
# ---------------------------------------------------------------------------

@pytest.mark.spec("DT-16")
def test_subnormal_float32_is_representable(jax, jnp):
    # G-DT-019: the value itself survives creation, printing and jit's
    # identity; only arithmetic may flush it (backend dependent).
    x = jnp.float32(1e-45)
    assert repr(x) == "Array(1.e-45, dtype=float32)"
    assert np.asarray(x) == np.float32(1e-45)
    assert np.asarray(jax.jit(lambda v: v)(x)) == np.float32(1e-45)


@pytest.mark.spec("DT-16")
def test_subnormal_arithmetic_is_exact_or_flushed(jax, jnp):
    # G-DT-019: XLA:CPU flushes to zero; refjax's NumPy backend keeps the
    # subnormal. Nothing else (no rounding to another value) is allowed.
    sub = np.float32(1e-45)
    for out in (jnp.float32(1e-45) + 0, jnp.float32(1e-45) * 1):
        assert out.dtype == jnp.float32
        assert np.asarray(out) in (np.float32(0), sub)


@pytest.mark.spec("DT-17")
def test_grad_of_float64_numpy_primal_is_float32(jax, jnp):
    # G-DT-036
    g = jax.grad(lambda x: x * 3.)(np.float64(1.))
    assert repr(g) == "Array(3., dtype=float32)"


@pytest.mark.spec("DT-17")
def test_vjp_of_float64_numpy_primal_is_float32(jax, jnp):
    # G-DT-036
    y, f_vjp = jax.vjp(lambda x: x * 2, np.array([1., 2.], np.float64))
    ct, = f_vjp(jnp.ones(2))
    assert (y.dtype, ct.dtype) == (jnp.float32, jnp.float32)
    assert ct.tolist() == [2., 2.]


@pytest.mark.spec("DT-17")
def test_grad_of_float64_primal_under_x64_stays_float64(jax, jnp, x64):
    g = jax.grad(lambda x: x * 3.)(np.float64(1.))
    assert g.dtype == np.float64


# ---------------------------------------------------------------------------
# Dynamic shapes
# ---------------------------------------------------------------------------

def _nansum(jnp, x):
    return x[~jnp.isnan(x)].sum()


@pytest.mark.spec("IDX-35")
def test_mask_nansum_eager_but_not_under_jit(jax, jnp):
    # G-DYN-002
    x = jnp.array([1, 2, jnp.nan, 3, 4])
    assert float(_nansum(jnp, x)) == 10.0
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError,
                       match=r"Array boolean indices must be concrete; got bool\[5\]"):
        jax.jit(lambda x: _nansum(jnp, x))(x)
    masked = jax.jit(lambda x: jnp.where(~jnp.isnan(x), x, 0).sum())(x)
    assert float(masked) == 10.0


@pytest.mark.spec("IDX-35")
def test_masked_reduction_with_where_under_jit(jax, jnp):
    # G-DYN-003
    x = jnp.arange(-5, 5)
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError):
        jax.jit(lambda x: x[x > 0].sum())(x)
    by_where = jax.jit(lambda x: jnp.where(x > 0, x, 0).sum())(x)
    by_kwarg = jax.jit(lambda x: jnp.sum(x, where=x > 0))(x)
    assert repr(by_where) == repr(by_kwarg) == "Array(10, dtype=int32)"


@pytest.mark.spec("IDX-35")
def test_concrete_numpy_mask_inside_jit(jax, jnp):
    # G-DYN-004: the mask is a constant of the trace, so the shape is known.
    mask = np.array([True, False, True])
    assert jax.jit(lambda x: x[mask])(jnp.arange(3.)).tolist() == [0., 2.]
    assert jax.jit(lambda x: x.at[mask].set(7.))(jnp.arange(3.)).tolist() == [7., 1., 7.]


@pytest.mark.spec("IDX-35")
def test_boolean_mask_eager_numpy_semantics(jax, jnp):
    # G-DYN-008
    x = jnp.arange(6).reshape(2, 3)
    assert x[x % 2 == 0].tolist() == [0, 2, 4]
    assert x[jnp.array([True, False])].tolist() == [[0, 1, 2]]
    assert x.at[x % 2 == 0].set(-1).tolist() == [[-1, 1, -1], [3, -1, 5]]
    assert x.at[jnp.array([True, False])].add(10).tolist() == [[10, 11, 12], [3, 4, 5]]


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


@pytest.mark.spec("IDX-36")
def test_traced_start_with_dynamic_slice(jax, jnp):
    # G-DYN-009
    x = jnp.arange(10)
    out = jax.jit(lambda x, i: jax.lax.dynamic_slice(x, (i,), (2,)))(x, 3)
    assert out.tolist() == [3, 4]


@pytest.mark.spec("IDX-36")
@pytest.mark.parametrize("index, shown", [
    (lambda i: slice(i, i + 2), "slice(JitTracer(~int32[]), JitTracer(~int32[]), None)"),
    (lambda i: slice(i, None), "slice(JitTracer(~int32[]), None, None)"),
    (lambda i: slice(None, i), "slice(None, JitTracer(~int32[]), None)"),
])
def test_traced_python_slice_raises(jax, jnp, index, shown):
    # G-DYN-009
    with pytest.raises(IndexError) as info:
        jax.jit(lambda x, i: x[index(i)])(jnp.arange(10), 3)
    assert str(info.value).splitlines()[0] == (
        f"Slice entries must be static integers. Got {shown} at position 0")


# ---------------------------------------------------------------------------
# Non-array inputs
# ---------------------------------------------------------------------------

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


@pytest.mark.spec("DT-8")
@pytest.mark.parametrize("value", [2**31, -2**31 - 1, 2**40])
def test_python_int_out_of_int32_range(jax, jnp, value):
    # G-LIST-005
    with pytest.raises(OverflowError, match=rf"^Python int {value} too large to "
                                            r"convert to int32$"):
        jnp.array(value)


@pytest.mark.spec("DT-8")
def test_python_int_at_int32_limits(jax, jnp):
    # G-LIST-005
    assert repr(jnp.array(2**31 - 1)) == "Array(2147483647, dtype=int32, weak_type=True)"
    assert repr(jnp.array(-2**31)) == "Array(-2147483648, dtype=int32, weak_type=True)"


@pytest.mark.spec("JIT-5")
def test_jit_argument_int_overflow(jax, jnp):
    # G-LIST-005
    with pytest.raises(OverflowError) as info:
        jax.jit(lambda x: x)(2**31)
    # JAX may append a note on its filtered traceback after the first line.
    assert str(info.value).splitlines()[0] == (
        "An overflow was encountered while parsing an argument to a jitted "
        "computation, whose argument path is x. Got <class 'int'> with value "
        "2147483648")


@pytest.mark.spec("DT-5")
def test_numpy_arrays_are_accepted_and_canonicalized(jax, jnp):
    # G-LIST-006
    assert repr(jnp.sum(np.array([1., 2.]))) == "Array(3., dtype=float32)"
    assert repr(jax.jit(lambda x: x)(np.arange(3.))) == "Array([0., 1., 2.], dtype=float32)"
    assert repr(jnp.asarray(np.arange(3, dtype=np.int64))) == "Array([0, 1, 2], dtype=int32)"
    assert repr(jax.vmap(lambda x: x * 2)(np.arange(3.))) == "Array([0., 2., 4.], dtype=float32)"
    grad = jax.grad(lambda x: (x ** 2).sum())(np.arange(3.))
    assert repr(grad) == "Array([0., 2., 4.], dtype=float32)"


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


# ---------------------------------------------------------------------------
# Custom pytrees rebuilt with placeholder leaves
# ---------------------------------------------------------------------------

def _converting_tree_class(jax, jnp):
    class MyTree:
        def __init__(self, a):
            self.a = jnp.asarray(a)
    jax.tree_util.register_pytree_node(
        MyTree, lambda tree: ((tree.a,), None), lambda _, args: MyTree(*args))
    return MyTree


@pytest.mark.spec("TREE-27")
def test_vmap_never_rebuilds_custom_nodes_with_placeholders(jax, jnp):
    # G-TREE-011: vmap succeeds in 0.10.2 (the docs say it fails).
    MyTree = _converting_tree_class(jax, jnp)
    out = jax.vmap(lambda t: t)(MyTree(jnp.arange(5.0)))
    assert type(out) is MyTree and out.a.tolist() == [0., 1., 2., 3., 4.]
    out = jax.vmap(lambda t: t, out_axes=1)(MyTree(jnp.ones((3, 2))))
    assert out.a.shape == (2, 3)


@pytest.mark.spec("TREE-27")
def test_vmap_with_validating_init(jax, jnp):
    # G-TREE-011: an __init__ that rejects non-arrays is never fed anything else.
    class Strict:
        def __init__(self, a):
            if not isinstance(a, (jax.Array, np.ndarray)):
                raise TypeError(f"bad leaf {type(a).__name__}")
            self.a = a
    jax.tree_util.register_pytree_node(
        Strict, lambda t: ((t.a,), None), lambda _, args: Strict(*args))
    assert jax.vmap(lambda t: t)(Strict(jnp.arange(3.))).a.tolist() == [0., 1., 2.]
    with pytest.raises(TypeError, match="bad leaf NoneType"):
        jax.jacobian(lambda t: t)(Strict(jnp.arange(3.)))


@pytest.mark.spec("TREE-27")
@pytest.mark.parametrize("transform", ["jacobian", "jacfwd", "jacrev"])
def test_jacobian_rebuilds_custom_nodes_with_none(jax, jnp, transform):
    # G-TREE-011
    MyTree = _converting_tree_class(jax, jnp)
    with pytest.raises(ValueError, match="^None is not a valid value for jnp.array$"):
        getattr(jax, transform)(lambda t: t)(MyTree(jnp.arange(5.0)))


@pytest.mark.spec("TREE-27")
def test_grad_of_converting_custom_node(jax, jnp):
    # G-TREE-011: grad checks the leaves without rebuilding the tree.
    MyTree = _converting_tree_class(jax, jnp)
    g = jax.grad(lambda t: t.a.sum())(MyTree(jnp.arange(5.0)))
    assert type(g) is MyTree and g.a.tolist() == [1.] * 5
