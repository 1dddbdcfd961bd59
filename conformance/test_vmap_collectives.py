"""Collectives over named axes under ``vmap`` (SPEC VMAP-70 .. VMAP-79).

Values are checked against NumPy computations over the whole batch (member
``k`` of axis ``'i'`` is row ``k``); jaxprs by their equations; errors by
class and message.  Shapes are few and small: real JAX compiles every op
per shape.
"""
import numpy as np
import pytest

X = np.arange(6., dtype=np.float32).reshape(3, 2) + 1      # 3 members, f32[2] each
Y = np.arange(9., dtype=np.float32).reshape(3, 3)          # 3 members, f32[3] each
Z = np.arange(18., dtype=np.float32).reshape(3, 2, 3)      # 3 members, f32[2,3] each
CYCLE = [(0, 1), (1, 2), (2, 0)]


def vmap_i(jax, f, **kw):
    return jax.vmap(f, axis_name="i", **kw)


def nested(jax, f):
    """``f`` under an inner vmap named 'j' inside an outer one named 'i'."""
    return jax.vmap(jax.vmap(f, axis_name="j"), axis_name="i")


def eqn_names(closed):
    return [e.primitive.name for e in closed.jaxpr.eqns]


def close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)


# -- VMAP-70: named axes ---------------------------------------------------------

@pytest.mark.spec("VMAP-70")
def test_axis_env_stages_collectives_with_their_parameters(jax, jnp):
    lax = jax.lax
    x = jnp.arange(3.)

    def f(a):
        return (lax.psum(a, "i"), lax.pmax(a, "i"), lax.axis_index("i"),
                lax.all_gather(a, "i"), lax.ppermute(a, "i", [(0, 1)]),
                lax.psum_scatter(a, "i"), lax.all_to_all(a, "i", 0, 0))
    text = str(jax.make_jaxpr(f, axis_env=[("i", 3)])(x))
    assert text == """{ lambda ; a:f32[3]. let
    b:f32[3] = psum[axes=('i',) axis_index_groups=None] a
    c:f32[3] = pmax[axes=('i',) axis_index_groups=None] a
    d:i32[] = axis_index[axis_name=i] 
    e:f32[3,3] = all_gather[
      all_gather_dimension=0
      axis_index_groups=None
      axis_name=('i',)
      axis_size=3
      tiled=False
    ] a
    f:f32[3] = ppermute[axis_name=('i',) perm=((0, 1),)] a
    g:f32[] = reduce_scatter[
      axis_index_groups=None
      axis_name=('i',)
      axis_size=3
      scatter_dimension=0
      tiled=False
    ] a
    h:f32[3] = all_to_all[
      axis_index_groups=None
      axis_name=i
      concat_axis=0
      split_axis=0
      tiled=False
    ] a
  in (b, c, d, e, f, g, h) }"""


@pytest.mark.spec("VMAP-70")
def test_axis_env_sizes_fold_to_constants(jax, jnp):
    lax = jax.lax
    x = jnp.arange(3.)
    assert str(jax.make_jaxpr(lambda a: lax.pmean(a, "i"), axis_env=[("i", 3)])(x)) == (
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32[3] = psum[axes=('i',) axis_index_groups=None] a\n"
        "    c:f32[3] = div b 3.0:f32[]\n"
        "  in (c,) }")
    assert str(jax.make_jaxpr(lambda: lax.psum(2., ("i", "i")), axis_env=[("i", 3)])()) == (
        "{ lambda ; . let  in (18.0:f32[],) }")


@pytest.mark.spec("VMAP-70")
def test_inner_name_shadows_outer_name(jax, jnp):
    out = jax.vmap(jax.vmap(lambda a: jax.lax.psum(a, "i"), axis_name="i"),
                   axis_name="i")(jnp.asarray(X))
    close(out, np.broadcast_to(X.sum(1, keepdims=True), X.shape))


@pytest.mark.spec("VMAP-70")
def test_vmap_without_mapped_inputs_binds_its_axis_size(jax, jnp):
    lax = jax.lax
    close(jax.vmap(lambda: lax.axis_index("i"), axis_size=4, axis_name="i")(), np.arange(4))
    out = jax.vmap(lambda a: lax.psum(a, "i"), in_axes=None, axis_size=4,
                   axis_name="i")(jnp.asarray(X[0]))
    close(out, np.broadcast_to(4 * X[0], (4, 2)))


@pytest.mark.spec("VMAP-70")
def test_collectives_inside_jit_inside_vmap(jax, jnp):
    lax = jax.lax
    x = jnp.asarray(X[:, 0])
    close(vmap_i(jax, jax.jit(lambda a: a * lax.psum(a, "i")))(x), X[:, 0] * X[:, 0].sum())
    closed = jax.make_jaxpr(vmap_i(jax, jax.jit(lambda a: a * lax.psum(a, "i"))))(x)
    assert eqn_names(closed) == ["jit"]
    inner = closed.jaxpr.eqns[0].params["jaxpr"].jaxpr
    assert [e.primitive.name for e in inner.eqns] == ["psum", "mul"]
    assert inner.eqns[0].params["axes"] == (0,)


@pytest.mark.spec("VMAP-70")
def test_collectives_inside_jit_without_mapped_operands(jax, jnp):
    lax = jax.lax
    x = jnp.asarray(X[:, 0])
    unmapped = vmap_i(jax, lambda a, b: jax.jit(lambda c: lax.psum(c, "i"))(b),
                      in_axes=(0, None))(x, 2.)
    close(unmapped, [6., 6., 6.])
    index = vmap_i(jax, lambda a: jax.jit(lambda: lax.axis_index("i"))())(x)
    close(index, [0, 1, 2])
    closed = jax.make_jaxpr(vmap_i(jax, lambda a: jax.jit(lambda: lax.axis_index("i"))()))(x)
    inner = closed.jaxpr.eqns[0].params["jaxpr"].jaxpr
    assert [e.primitive.name for e in inner.eqns] == ["iota"]


@pytest.mark.spec("VMAP-70")
def test_jit_outside_vmap_with_collectives(jax, jnp):
    f = jax.jit(vmap_i(jax, lambda a: jax.lax.pmean(a, "i")))
    close(f(jnp.asarray(X)), np.broadcast_to(X.mean(0), X.shape))


# -- VMAP-71: psum, pmean, axis_size ------------------------------------------

@pytest.mark.spec("VMAP-71")
@pytest.mark.parametrize("in_axes", [0, 1])
def test_psum_and_pmean_values(jax, jnp, in_axes):
    lax = jax.lax
    data = X if in_axes == 0 else X.T
    total = X.sum(0)
    close(vmap_i(jax, lambda a: lax.psum(a, "i"), in_axes=in_axes)(jnp.asarray(data)),
          np.broadcast_to(total, X.shape))
    close(vmap_i(jax, lambda a: lax.pmean(a, "i"), in_axes=in_axes)(jnp.asarray(data)),
          np.broadcast_to(total / 3, X.shape))


@pytest.mark.spec("VMAP-71")
def test_psum_of_a_pytree(jax, jnp):
    out = vmap_i(jax, lambda a: jax.lax.psum({"a": a, "b": (a * 2, 1.)}, "i"))(
        jnp.asarray(X[:, 0]))
    s = X[:, 0].sum()
    close(out["a"], [s] * 3)
    close(out["b"][0], [2 * s] * 3)
    close(out["b"][1], [3.] * 3)
    assert out["b"][1].weak_type


@pytest.mark.spec("VMAP-71")
def test_psum_of_constants_is_times_axis_size(jax, jnp):
    lax = jax.lax
    seen = {}

    def f(a):
        seen["int"] = lax.psum(1, "i")
        seen["float"] = lax.psum(1., "i")
        seen["size"] = lax.axis_size("i")
        seen["mean"] = lax.pmean(2, "i")
        seen["bool"] = lax.psum(True, "i")
        return a
    vmap_i(jax, f)(jnp.asarray(X))
    assert type(seen["int"]) is int and seen["int"] == 3
    assert type(seen["float"]) is float and seen["float"] == 3.
    assert type(seen["size"]) is int and seen["size"] == 3
    assert type(seen["mean"]) is float and seen["mean"] == 2.
    assert seen["bool"].dtype == np.int32 and int(seen["bool"]) == 3


@pytest.mark.spec("VMAP-71")
def test_psum_of_unmapped_value_is_value_times_size(jax, jnp):
    lax = jax.lax
    xs, w = jnp.asarray(X), jnp.asarray(X[0])
    close(vmap_i(jax, lambda a, b: lax.psum(b, "i"), in_axes=(0, None))(xs, w),
          np.broadcast_to(3 * X[0], (3, 2)))
    closed = jax.make_jaxpr(vmap_i(jax, lambda a, b: lax.psum(b, "i"),
                                   in_axes=(0, None)))(xs, w)
    assert eqn_names(closed) == ["mul", "broadcast_in_dim"]
    assert "c:f32[2] = mul 3.0:f32[] b\n" in str(closed)


@pytest.mark.spec("VMAP-71")
def test_psum_of_booleans_counts(jax, jnp):
    out = vmap_i(jax, lambda a: jax.lax.psum(a > 2, "i"))(jnp.asarray(X[:, 0]))
    assert out.dtype == np.int32
    close(out, [2, 2, 2])


@pytest.mark.spec("VMAP-71")
def test_psum_over_positional_axes(jax, jnp):
    lax = jax.lax
    close(lax.psum(jnp.asarray(X), 0), X.sum(0))
    close(jax.jit(lambda a: lax.psum(a, 0))(jnp.asarray(X)), X.sum(0))
    close(vmap_i(jax, lambda a: lax.psum(a, ("i", 0)))(jnp.asarray(X)), [X.sum()] * 3)
    closed = jax.make_jaxpr(vmap_i(jax, lambda a: lax.psum(a, 0)))(jnp.asarray(X))
    assert eqn_names(closed) == ["psum"]
    assert closed.jaxpr.eqns[0].params["axes"] == (1,)


@pytest.mark.spec("VMAP-71")
def test_psum_over_no_axes_is_identity(jax, jnp):
    close(vmap_i(jax, lambda a: jax.lax.psum(a, ()))(jnp.asarray(X)), X)


@pytest.mark.spec("VMAP-71")
def test_axis_index_groups_errors(jax, jnp):
    lax = jax.lax
    x = jnp.asarray(X[:, 0])
    with pytest.raises(NotImplementedError, match="(?m)^axis_index_groups not supported in "
                       "vmap collectives. Please open a feature request!$"):
        vmap_i(jax, lambda a: lax.psum(a, "i", axis_index_groups=[[0, 1], [2]]))(x)
    with pytest.raises(ValueError, match="(?m)^axis_index_groups must cover all indices "
                       "exactly once$"):
        vmap_i(jax, lambda a: lax.psum(a, "i", axis_index_groups=[[0, 1], [1]]))(x)
    with pytest.raises(ValueError, match="(?m)^axis_index_groups only supported for sums "
                       "over just named axes$"):
        lax.psum(x, 0, axis_index_groups=[[0]])
    text = str(jax.make_jaxpr(lambda a: lax.psum(a, "i", axis_index_groups=[[0, 1], [2]]),
                              axis_env=[("i", 3)])(x))
    assert "psum[axes=('i',) axis_index_groups=((0, 1), (2,))] a" in text


# -- VMAP-72: pmax, pmin ------------------------------------------------------

@pytest.mark.spec("VMAP-72")
def test_pmax_pmin_values(jax, jnp):
    lax = jax.lax
    data = np.array([[3., -1.], [5., 2.], [-4., 0.]], np.float32)
    close(vmap_i(jax, lambda a: lax.pmax(a, "i"))(jnp.asarray(data)),
          np.broadcast_to(data.max(0), data.shape))
    close(vmap_i(jax, lambda a: lax.pmin(a, "i"))(jnp.asarray(data)),
          np.broadcast_to(data.min(0), data.shape))
    close(vmap_i(jax, lambda a: lax.pmax(a, "i"))(jnp.array([4, 9, 1])), [9, 9, 9])


@pytest.mark.spec("VMAP-72")
def test_pmax_of_unmapped_and_positional(jax, jnp):
    lax = jax.lax
    xs, w = jnp.asarray(X), jnp.asarray(X[1])
    close(vmap_i(jax, lambda a, b: lax.pmin(b, "i"), in_axes=(0, None))(xs, w),
          np.broadcast_to(X[1], (3, 2)))
    closed = jax.make_jaxpr(vmap_i(jax, lambda a, b: lax.pmax(b, "i"), in_axes=(0, None)))(xs, w)
    assert eqn_names(closed) == ["broadcast_in_dim"]
    close(vmap_i(jax, lambda a: lax.pmax(a, 0))(xs), X.max(1))


@pytest.mark.spec("VMAP-72")
def test_pmax_pmin_have_no_derivative(jax, jnp):
    lax = jax.lax
    for name, fn in (("pmax", lax.pmax), ("pmin", lax.pmin)):
        with pytest.raises(NotImplementedError,
                           match=f"(?m)^Differentiation rule for '{name}' not implemented$"):
            vmap_i(jax, jax.grad(lambda a: fn(a, "i") * a))(jnp.asarray(X[:, 0]))


# -- VMAP-73: reductions under vmap: the equations -----------------------------

@pytest.mark.spec("VMAP-73")
@pytest.mark.parametrize("name", ["psum", "pmax", "pmin"])
def test_reduction_becomes_positional_and_unmapped(jax, jnp, name):
    fn = getattr(jax.lax, name)
    closed = jax.make_jaxpr(vmap_i(jax, lambda a: fn(a, "i")))(jnp.asarray(X))
    assert eqn_names(closed) == [name, "broadcast_in_dim"]
    eqn = closed.jaxpr.eqns[0]
    assert eqn.params == {"axes": (0,), "axis_index_groups": None}
    assert f"b:f32[2] = {name}[axes=(0,) axis_index_groups=None] a\n" in str(closed)


@pytest.mark.spec("VMAP-73")
def test_reduction_moves_batch_axis_to_front(jax, jnp):
    closed = jax.make_jaxpr(vmap_i(jax, lambda a: jax.lax.psum(a, "i"), in_axes=1))(
        jnp.asarray(X))
    assert eqn_names(closed) == ["transpose", "psum", "broadcast_in_dim"]


@pytest.mark.spec("VMAP-73")
def test_pmean_divides_by_size(jax, jnp):
    closed = jax.make_jaxpr(vmap_i(jax, lambda a: jax.lax.pmean(a, "i")))(jnp.asarray(X))
    assert eqn_names(closed) == ["psum", "div", "broadcast_in_dim"]


@pytest.mark.spec("VMAP-73")
def test_outer_name_inside_inner_vmap(jax, jnp):
    lax = jax.lax
    z = jnp.asarray(X.T)                                    # i: 2 members, j: 3
    close(nested(jax, lambda a: lax.psum(a, "i"))(z), np.broadcast_to(X.T.sum(0), (2, 3)))
    close(nested(jax, lambda a: lax.psum(a, "j"))(z),
          np.broadcast_to(X.T.sum(1, keepdims=True), (2, 3)))
    closed = jax.make_jaxpr(nested(jax, lambda a: lax.psum(a, "i")))(z)
    assert eqn_names(closed) == ["psum", "broadcast_in_dim"]
    assert closed.jaxpr.eqns[0].params["axes"] == (0,)


@pytest.mark.spec("VMAP-73")
def test_reduction_over_both_names(jax, jnp):
    lax = jax.lax
    z = jnp.asarray(X.T)
    for names in (("i", "j"), ["i", "j"], ("j", "i")):
        close(nested(jax, lambda a: lax.psum(a, names))(z), np.full((2, 3), X.sum()))
    close(nested(jax, lambda a: lax.pmax(a, ("j", "i")))(z), np.full((2, 3), X.max()))
    close(nested(jax, lambda a: lax.pmean(a, ("i", "j")))(z), np.full((2, 3), X.mean()))
    close(nested(jax, lambda a: lax.axis_size(("i", "j")) + 0 * a)(z), np.full((2, 3), 6))
    closed = jax.make_jaxpr(nested(jax, lambda a: lax.psum(a, ("i", "j"))))(z)
    assert eqn_names(closed) == ["psum", "broadcast_in_dim", "broadcast_in_dim"]
    assert closed.jaxpr.eqns[0].params["axes"] == (0, 1)


# -- VMAP-74: axis_index --------------------------------------------------------

@pytest.mark.spec("VMAP-74")
def test_axis_index_is_iota(jax, jnp):
    lax = jax.lax
    close(vmap_i(jax, lambda a: lax.axis_index("i"))(jnp.asarray(X)), [0, 1, 2])
    closed = jax.make_jaxpr(vmap_i(jax, lambda a: lax.axis_index("i")))(jnp.asarray(X))
    assert eqn_names(closed) == ["iota"]
    assert closed.jaxpr.eqns[0].params["shape"] == (3,)
    assert closed.jaxpr.outvars[0].aval.dtype == np.int32
    text = str(jax.make_jaxpr(lambda: lax.axis_index("i"), axis_env=[("i", 3)])())
    assert text == "{ lambda ; . let a:i32[] = axis_index[axis_name=i]  in (a,) }"


@pytest.mark.spec("VMAP-74")
def test_axis_index_over_several_names_is_row_major(jax, jnp):
    lax = jax.lax
    z = jnp.asarray(X.T)                                    # i: 2, j: 3
    close(nested(jax, lambda a: lax.axis_index(("i", "j")))(z), np.arange(6).reshape(2, 3))
    close(nested(jax, lambda a: lax.axis_index("i"))(z), [[0] * 3, [1] * 3])
    close(vmap_i(jax, lambda a: lax.axis_index(["i"]))(jnp.asarray(X)), [0, 1, 2])


@pytest.mark.spec("VMAP-74")
def test_axis_index_has_zero_derivative(jax, jnp):
    out = vmap_i(jax, jax.grad(lambda a: a * jax.lax.axis_index("i")))(jnp.asarray(X[:, 0]))
    close(out, [0., 1., 2.])


# -- VMAP-75: all_gather and psum_scatter --------------------------------------

@pytest.mark.spec("VMAP-75")
@pytest.mark.parametrize("axis,tiled,expected", [
    (0, False, np.broadcast_to(X, (3, 3, 2))),
    (1, False, np.broadcast_to(X.T, (3, 2, 3))),
    (-1, False, np.broadcast_to(X.T, (3, 2, 3))),
    (0, True, np.broadcast_to(X.reshape(6), (3, 6))),
])
def test_all_gather_values(jax, jnp, axis, tiled, expected):
    out = vmap_i(jax, lambda a: jax.lax.all_gather(a, "i", axis=axis, tiled=tiled))(
        jnp.asarray(X))
    close(out, expected)


@pytest.mark.spec("VMAP-75")
def test_all_gather_equations(jax, jnp):
    lax = jax.lax
    xs = jnp.asarray(X)
    closed = jax.make_jaxpr(vmap_i(jax, lambda a: lax.all_gather(a, "i")))(xs)
    assert eqn_names(closed) == ["broadcast_in_dim"]
    closed = jax.make_jaxpr(vmap_i(jax, lambda a: lax.all_gather(a, "i", axis=1)))(xs)
    assert eqn_names(closed) == ["transpose", "broadcast_in_dim"]
    closed = jax.make_jaxpr(vmap_i(jax, lambda a: lax.all_gather(a, "i", tiled=True)))(xs)
    assert eqn_names(closed) == ["reshape", "broadcast_in_dim"]
    closed = jax.make_jaxpr(vmap_i(jax, lambda a, b: lax.all_gather(b, "i"),
                                   in_axes=(0, None)))(xs, xs[0])
    assert eqn_names(closed) == ["broadcast_in_dim", "broadcast_in_dim"]


@pytest.mark.spec("VMAP-75")
def test_all_gather_of_pytree_and_outer_name(jax, jnp):
    lax = jax.lax
    a, b = vmap_i(jax, lambda a: lax.all_gather([a, a + 1], "i"))(jnp.asarray(X[:, 0]))
    close(a, np.broadcast_to(X[:, 0], (3, 3)))
    close(b, np.broadcast_to(X[:, 0] + 1, (3, 3)))
    out = nested(jax, lambda a: lax.all_gather(a, "i"))(jnp.asarray(X.T))
    close(out, np.broadcast_to(np.transpose(X.T)[None, :, :], (2, 3, 2)))


@pytest.mark.spec("VMAP-75")
def test_all_gather_errors(jax, jnp):
    lax = jax.lax
    with pytest.raises(ValueError, match="(?m)^axis 3 is out of bounds for array of dimension 2$"):
        vmap_i(jax, lambda a: lax.all_gather(a, "i", axis=3))(jnp.asarray(X))
    with pytest.raises(ValueError, match="(?m)^axis 0 is out of bounds for array of dimension 0$"):
        vmap_i(jax, lambda a: lax.all_gather(a, "i", tiled=True))(jnp.asarray(X[:, 0]))
    with pytest.raises(NotImplementedError, match="(?m)^axis_index_groups not supported in vmap$"):
        vmap_i(jax, lambda a: lax.all_gather(a, "i", axis_index_groups=[[0, 1, 2]]))(
            jnp.asarray(X[:, 0]))


@pytest.mark.spec("VMAP-75")
@pytest.mark.parametrize("dim,tiled,data,expected", [
    (0, False, Y, Y.sum(0)),
    (0, True, np.arange(18., dtype=np.float32).reshape(3, 6),
     np.arange(18., dtype=np.float32).reshape(3, 6).sum(0).reshape(3, 2)),
    (1, False, Z, Z.sum(0).T),
])
def test_psum_scatter_values(jax, jnp, dim, tiled, data, expected):
    out = vmap_i(jax, lambda a: jax.lax.psum_scatter(a, "i", scatter_dimension=dim,
                                                     tiled=tiled))(jnp.asarray(data))
    close(out, expected)


@pytest.mark.spec("VMAP-75")
def test_psum_scatter_equations(jax, jnp):
    lax = jax.lax
    closed = jax.make_jaxpr(vmap_i(jax, lambda a: lax.psum_scatter(a, "i")))(jnp.asarray(Y))
    assert eqn_names(closed) == ["reduce_sum"]
    assert closed.jaxpr.eqns[0].params["axes"] == (0,)
    closed = jax.make_jaxpr(vmap_i(jax, lambda a: lax.psum_scatter(a, "i", tiled=True)))(
        jnp.ones((3, 6)))
    assert eqn_names(closed) == ["reduce_sum", "reshape"]


@pytest.mark.spec("VMAP-75")
def test_psum_scatter_of_unmapped_and_outer_name(jax, jnp):
    lax = jax.lax
    out = vmap_i(jax, lambda a, b: lax.psum_scatter(b, "i"), in_axes=(0, None))(
        jnp.asarray(Y), jnp.asarray(Y[1]))
    close(out, 3 * Y[1])
    data = np.arange(12., dtype=np.float32).reshape(2, 3, 2)      # i: 2, j: 3
    out = nested(jax, lambda a: lax.psum_scatter(a, "i"))(jnp.asarray(data))
    close(out, data.sum(0).T)


# -- VMAP-76: ppermute ----------------------------------------------------------

@pytest.mark.spec("VMAP-76")
def test_ppermute_values(jax, jnp):
    lax = jax.lax
    out = vmap_i(jax, lambda a: lax.ppermute(a, "i", CYCLE))(jnp.asarray(X))
    close(out, X[[2, 0, 1]])
    out = vmap_i(jax, lambda a: lax.ppermute({"k": a}, "i", [(0, 1), (1, 2), (2, -3)]))(
        jnp.asarray(X))
    close(out["k"], X[[2, 0, 1]])
    out = vmap_i(jax, lambda a: lax.pshuffle(a, "i", [1, 2, 0]))(jnp.asarray(X))
    close(out, X[[1, 2, 0]])


@pytest.mark.spec("VMAP-76")
def test_ppermute_equations(jax, jnp):
    lax = jax.lax
    xs = jnp.asarray(X)
    closed = jax.make_jaxpr(vmap_i(jax, lambda a: lax.ppermute(a, "i", CYCLE)))(xs)
    assert eqn_names(closed) == ["jit"]
    assert closed.jaxpr.eqns[0].params["name"] == "_take"
    close(closed.consts[0], [2, 0, 1])
    closed = jax.make_jaxpr(vmap_i(jax, lambda a, b: lax.ppermute(b, "i", CYCLE),
                                   in_axes=(0, None)))(xs, xs[0])
    assert eqn_names(closed) == ["broadcast_in_dim"]


@pytest.mark.spec("VMAP-76")
def test_ppermute_outer_name_and_both_names(jax, jnp):
    lax = jax.lax
    z = jnp.asarray(X.T)                                    # i: 2, j: 3
    swap = [(0, 1), (1, 0)]
    close(nested(jax, lambda a: lax.ppermute(a, "i", swap))(z), X.T[::-1])
    # JAX drops the inner name and permutes along the outer one.
    close(nested(jax, lambda a: lax.ppermute(a, ("i", "j"), swap))(z), X.T[::-1])


@pytest.mark.spec("VMAP-76")
def test_ppermute_bad_perms(jax, jnp):
    lax = jax.lax
    xs = jnp.asarray(X)
    with pytest.raises(AssertionError, match="(?m)^Permutation doesn't match the axis size!$"):
        vmap_i(jax, lambda a: lax.ppermute(a, "i", [(0, 1), (1, 2)]))(xs)
    with pytest.raises(IndexError, match="(?m)^index 5 is out of bounds for axis 0 with size 3$"):
        vmap_i(jax, lambda a: lax.ppermute(a, "i", [(0, 1), (1, 5), (2, 0)]))(xs)
    with pytest.raises(TypeError, match="(?m)^'int' object is not iterable$"):
        vmap_i(jax, lambda a: lax.ppermute(a, "i", [0, 1]))(xs)
    with pytest.raises(ValueError,
                       match=r"(?m)^`perm` does not represent a permutation: \[0, 0\]$"):
        vmap_i(jax, lambda a: lax.pshuffle(a, "i", [0, 0]))(xs)
    # Repeated sources are not checked: both destinations read member 0.
    out = vmap_i(jax, lambda a: lax.ppermute(a, "i", [(0, 1), (0, 2), (2, 0)]))(xs)
    close(out, X[[2, 0, 0]])


# -- VMAP-77: all_to_all --------------------------------------------------------

@pytest.mark.spec("VMAP-77")
@pytest.mark.parametrize("split,concat,tiled,data,expected", [
    (0, 0, False, Y, Y.T),
    (0, 1, False, Z.reshape(3, 3, 2), Z.reshape(3, 3, 2).transpose(1, 2, 0)),
    (1, 0, False, Z, Z.transpose(2, 0, 1)),
    (0, 0, True, np.arange(18., dtype=np.float32).reshape(3, 6),
     np.arange(18., dtype=np.float32).reshape(3, 3, 2).transpose(1, 0, 2).reshape(3, 6)),
])
def test_all_to_all_values(jax, jnp, split, concat, tiled, data, expected):
    out = vmap_i(jax, lambda a: jax.lax.all_to_all(a, "i", split, concat, tiled=tiled))(
        jnp.asarray(data))
    close(out, expected)


@pytest.mark.spec("VMAP-77")
def test_all_to_all_equations(jax, jnp):
    lax = jax.lax
    closed = jax.make_jaxpr(vmap_i(jax, lambda a: lax.all_to_all(a, "i", 0, 0)))(jnp.asarray(Y))
    assert eqn_names(closed) == ["reshape", "transpose", "reshape"]
    closed = jax.make_jaxpr(vmap_i(jax, lambda a: lax.all_to_all(a, "i", 0, 1)))(
        jnp.asarray(Z.reshape(3, 3, 2)))
    assert eqn_names(closed) == ["broadcast_in_dim", "transpose", "reshape", "reshape",
                                 "squeeze"]


@pytest.mark.spec("VMAP-77")
def test_all_to_all_over_outer_and_both_names(jax, jnp):
    lax = jax.lax
    data = np.arange(12., dtype=np.float32).reshape(2, 3, 2)      # i: 2, j: 3
    out = nested(jax, lambda a: lax.all_to_all(a, "i", 0, 0))(jnp.asarray(data))
    close(out, data.transpose(2, 1, 0))
    data = np.arange(36., dtype=np.float32).reshape(2, 3, 6)      # 6 members in all
    out = nested(jax, lambda a: lax.all_to_all(a, ("i", "j"), 0, 0))(jnp.asarray(data))
    close(out, data.reshape(6, 6).T.reshape(2, 3, 6))
    close(nested(jax, lambda a: lax.pswapaxes(a, ("i", "j"), 0))(jnp.asarray(data)),
          data.reshape(6, 6).T.reshape(2, 3, 6))


@pytest.mark.spec("VMAP-77")
def test_all_to_all_size_errors(jax, jnp):
    lax = jax.lax
    with pytest.raises(ValueError, match=r"(?m)^all_to_all requires the size of the mapped axis "
                       r"axis_name to equal x.shape\[split_axis\], but they are 3 and 2 "
                       r"respectively.$"):
        vmap_i(jax, lambda a: lax.all_to_all(a, "i", 0, 0))(jnp.asarray(X))
    with pytest.raises(ValueError, match=r"(?m)^The size of all_to_all split_axis \(4\) has to be "
                       r"divisible by the size of the named axis i \(3\)$"):
        vmap_i(jax, lambda a: lax.all_to_all(a, "i", 0, 0, tiled=True))(jnp.ones((3, 4)))


# -- VMAP-78: unbound axis names --------------------------------------------------

def _found(name, api):
    return (f"(?m)^Found an unbound axis name: {name}. To fix this, please call {api} "
            "under `jax.shard_map`.$")


UNBOUND = "(?m)^unbound axis name: j$"


@pytest.mark.spec("VMAP-78")
def test_unbound_name_at_top_level(jax, jnp):
    lax = jax.lax
    x = jnp.asarray(X[:, 0])
    cases = [
        (lambda: lax.psum(x, "j"), UNBOUND),
        (lambda: lax.pmean(x, "j"), UNBOUND),
        (lambda: lax.pmax(x, "j"), _found("j", "psum")),
        (lambda: lax.pmin(x, "j"), _found("j", "psum")),
        (lambda: lax.axis_index("j"), _found("j", "axis_index")),
        (lambda: lax.axis_size("j"), UNBOUND),
        (lambda: lax.all_gather(x, "j"), UNBOUND),
        (lambda: lax.psum_scatter(x, "j"), UNBOUND),
        (lambda: lax.all_to_all(x, "j", 0, 0), UNBOUND),
    ]
    for f, message in cases:
        with pytest.raises(NameError, match=message):
            f()
    with pytest.raises(NotImplementedError, match="(?m)^Evaluation rule for 'ppermute' not "
                       "implemented$"):
        lax.ppermute(x, "j", [(0, 1)])


@pytest.mark.spec("VMAP-78")
def test_unbound_name_inside_vmap_of_another_name(jax, jnp):
    lax = jax.lax
    x = jnp.asarray(X[:, 0])
    cases = [
        (lambda a: lax.psum(a, "j"), _found("j", "psum")),
        (lambda a: lax.pmean(a, "j"), _found("j", "psum")),
        (lambda a: lax.pmax(a, "j"), _found("j", "psum")),
        (lambda a: lax.axis_index("j"), _found("j", "axis_index")),
        (lambda a: lax.all_gather(a, "j"), UNBOUND),
        (lambda a: lax.axis_size("j"), UNBOUND),
    ]
    for f, message in cases:
        with pytest.raises(NameError, match=message):
            vmap_i(jax, f)(x)
        with pytest.raises(NameError, match=message):
            jax.vmap(f)(x)
    with pytest.raises(NameError, match=_found("j", "psum")):
        vmap_i(jax, lambda a: lax.psum(a, ("i", "j")))(x)
    with pytest.raises(NotImplementedError, match="(?m)^Evaluation rule for 'ppermute'"):
        vmap_i(jax, lambda a: lax.ppermute(a, "j", [(0, 1)]))(x)


@pytest.mark.spec("VMAP-78")
def test_unbound_name_under_jit(jax, jnp):
    lax = jax.lax
    x = jnp.asarray(X[:, 0])
    cases = [
        (lambda a: lax.psum(a, "j"), _found("j", "psum")),
        (lambda a: lax.pmax(a, "j"), _found("j", "psum")),
        (lambda a: lax.ppermute(a, "j", [(0, 1)]), _found("j", "ppermute")),
        (lambda a: lax.all_gather(a, "j"), UNBOUND),
        (lambda a: lax.psum_scatter(a, "j"), UNBOUND),
    ]
    for f, message in cases:
        with pytest.raises(NameError, match=message):
            jax.jit(f)(x)
        with pytest.raises(NameError, match=message):
            jax.make_jaxpr(f)(x)


@pytest.mark.spec("VMAP-78")
def test_non_array_operand(jax):
    with pytest.raises(TypeError, match="(?m)^Argument 's' of type <class 'str'> is not a "
                       "valid JAX type$"):
        vmap_i(jax, lambda a: jax.lax.psum("s", "i"))(np.ones(3))


# -- VMAP-79: differentiation -------------------------------------------------------

@pytest.mark.spec("VMAP-79")
def test_vmap_grad_through_psum(jax, jnp):
    x = jnp.array([1., 2., 4.])
    f = lambda a: a * jax.lax.psum(a, "i")                   # noqa: E731
    # Each member's cotangent reaches every member through psum's transpose.
    close(vmap_i(jax, jax.grad(f))(x), [14., 14., 14.])
    close(jax.grad(lambda v: vmap_i(jax, f)(v).sum())(x), [14., 14., 14.])
    closed = jax.make_jaxpr(vmap_i(jax, jax.grad(f)))(x)
    assert eqn_names(closed) == ["psum", "mul", "mul", "mul", "psum", "add_any",
                                 "broadcast_in_dim"]


@pytest.mark.spec("VMAP-79")
def test_grad_of_pmean_normalised_loss(jax, jnp):
    x = jnp.array([1., 2., 4.])
    f = lambda a: (a - jax.lax.pmean(a, "i")) ** 2          # noqa: E731
    m = 7. / 3
    # d/da_k of (a_k - m)^2; what pmean's transpose brings back from every
    # member's use of the mean sums to zero.
    close(vmap_i(jax, jax.grad(f))(x), 2 * (np.array([1., 2., 4.]) - m))
    w = jnp.array([1., 2.])
    loss = lambda w, d: jax.lax.pmean(jnp.sum((d * w) ** 2), "i")  # noqa: E731
    per_member = vmap_i(jax, jax.grad(loss), in_axes=(None, 0))(w, jnp.asarray(X))
    close(per_member, 2 * X ** 2 * np.array([1., 2.]))
    total = jax.grad(lambda w: jnp.sum(vmap_i(jax, lambda d: loss(w, d))(jnp.asarray(X))))(w)
    close(total, (2 * X ** 2 * np.array([1., 2.])).sum(0))


@pytest.mark.spec("VMAP-79")
def test_grad_with_unmapped_weights(jax, jnp):
    x = jnp.array([1., 2., 4.])
    out = vmap_i(jax, jax.grad(lambda w, d: jax.lax.psum(w * d, "i")), in_axes=(None, 0))(2., x)
    close(out, [3., 6., 12.])


@pytest.mark.spec("VMAP-79")
def test_jvp_and_jit_and_jacrev_through_psum(jax, jnp):
    lax = jax.lax
    x = jnp.array([1., 2., 4.])
    p, t = vmap_i(jax, lambda a, t: jax.jvp(lambda b: lax.psum(b * b, "i"), (a,), (t,)))(
        x, jnp.ones(3))
    close(p, [21.] * 3)
    close(t, [14.] * 3)
    close(vmap_i(jax, jax.grad(jax.jit(lambda a: a * lax.psum(a, "i"))))(x), [14.] * 3)
    jac = vmap_i(jax, jax.jacrev(lambda a: a * lax.psum(a, "i")))(jnp.asarray(X))
    # Row j of every member's Jacobian: e_j * s plus psum's transpose of
    # e_j * a, i.e. e_j * s again.
    close(jac, np.stack([np.diag(2 * X.sum(0))] * 3))


@pytest.mark.spec("VMAP-79")
def test_grad_through_all_gather_ppermute_psum_scatter_all_to_all(jax, jnp):
    lax = jax.lax
    x = jnp.array([1., 2., 4.])
    c = jnp.array([1., 2., 3.])
    # all_gather's transpose is psum_scatter: member k collects c[k] from all.
    close(vmap_i(jax, jax.grad(lambda a: jnp.sum(lax.all_gather(a, "i") * c)))(x), [3., 6., 9.])
    close(jax.grad(lambda v: jnp.sum(vmap_i(jax, lambda a: lax.all_gather(a, "i")[0] * a)(v)))(x),
          [8., 1., 1.])
    # ppermute's transpose is the inverse permutation.
    close(vmap_i(jax, jax.grad(lambda a: lax.ppermute(a, "i", CYCLE) * a))(x), [6., 5., 3.])
    # psum_scatter's transpose is all_gather.
    data = jnp.asarray(np.tile(X[:, :1], (1, 3)))
    out = vmap_i(jax, jax.grad(lambda a: jnp.sum(lax.psum_scatter(a, "i") ** 2)))(data)
    close(out, np.full((3, 3), 18.))
    # all_to_all's transpose swaps split and concat axes: member k's
    # cotangent of a_k[j] is a_j[k] directly and a_j[k] through the exchange.
    out = vmap_i(jax, jax.grad(lambda a: jnp.sum(lax.all_to_all(a, "i", 0, 0) * a)))(
        jnp.asarray(Y))
    close(out, 2 * Y.T)


@pytest.mark.spec("VMAP-79")
def test_transposes_staged_under_axis_env(jax, jnp):
    lax = jax.lax
    x = jnp.arange(3.)

    def staged(f):
        closed = jax.make_jaxpr(jax.grad(f), axis_env=[("i", 3)])(x)
        return [(e.primitive.name, e.params.get("perm")) for e in closed.jaxpr.eqns
                if e.primitive.name in ("psum", "all_gather", "reduce_scatter",
                                        "ppermute", "all_to_all")]
    assert staged(lambda a: jnp.sum(a * lax.psum(a, "i"))) == [("psum", None)] * 2
    assert staged(lambda a: jnp.sum(lax.all_gather(a, "i"))) == [
        ("all_gather", None), ("reduce_scatter", None)]
    assert staged(lambda a: jnp.sum(jnp.sin(lax.psum_scatter(a, "i")))) == [
        ("reduce_scatter", None), ("all_gather", None)]
    assert staged(lambda a: jnp.sum(jnp.sin(lax.ppermute(a, "i", [(0, 1), (1, 2)])))) == [
        ("ppermute", ((0, 1), (1, 2))), ("ppermute", ((1, 0), (2, 1)))]
    assert staged(lambda a: jnp.sum(jnp.sin(lax.all_to_all(a, "i", 0, 0)))) == [
        ("all_to_all", None)] * 2


@pytest.mark.spec("VMAP-73")
def test_collectives_are_one_program_for_any_axis_size(jax, jnp):
    lax = jax.lax

    def counts(n):
        cycle = [(k, (k + 1) % n) for k in range(n)]

        def f(a):
            return (lax.psum(a, "i"), lax.pmean(a, "i"), lax.pmax(a, "i"),
                    lax.all_gather(a, "i"), lax.axis_index("i"),
                    lax.ppermute(a, "i", cycle), lax.psum_scatter(a, "i"),
                    lax.all_to_all(a, "i", 0, 0))
        closed = jax.make_jaxpr(vmap_i(jax, f))(jnp.ones((n, n)))
        return eqn_names(closed)
    assert counts(2) == counts(64)


@pytest.mark.spec("VMAP-79")
def test_derivatives_with_nested_names_match_plain_computation(jax, jnp):
    lax = jax.lax
    z = jnp.asarray(X.T)                                    # i: 2, j: 3
    # Every member's gradient: its own use of the column sum s_j plus the
    # cotangents of the column brought back by psum's transpose.
    out = nested(jax, jax.grad(lambda a: a * lax.psum(a, "i")))(z)
    close(out, np.broadcast_to(2 * X.T.sum(0), (2, 3)))
    g = jax.grad(lambda v: jnp.sum(nested(jax, lambda a: a * lax.psum(a, ("i", "j")))(v) ** 2))
    plain = jax.grad(lambda v: jnp.sum((v * jnp.sum(v)) ** 2))
    close(g(z), plain(z))
    g = jax.grad(lambda v: jnp.sum(nested(jax, lambda a: lax.all_gather(a, "i") * a)(v) ** 2))
    plain = jax.grad(lambda v: jnp.sum((v.T[None, :, :] * v[:, :, None]) ** 2))
    close(g(z), plain(z))


@pytest.mark.spec("VMAP-79")
def test_checkpoint_and_jit_around_collectives(jax, jnp):
    lax = jax.lax
    x = jnp.asarray(X[:, 0] / 10)
    f = lambda a: jnp.sin(a * lax.psum(a, "i"))             # noqa: E731
    expected = vmap_i(jax, jax.grad(f))(x)
    close(vmap_i(jax, jax.grad(jax.checkpoint(f)))(x), expected)
    close(jax.jit(vmap_i(jax, jax.grad(f)))(x), expected)
    s = float(np.sum(X[:, 0] / 10))
    close(expected, np.cos(X[:, 0] / 10 * s) * s + np.sum(np.cos(X[:, 0] / 10 * s) * X[:, 0] / 10))
