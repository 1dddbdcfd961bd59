"""vmap of products, convolutions and linear algebra (SPEC VMAP-60..VMAP-67).

Each check compares ``vmap(f)`` with ``f`` applied to every example and
stacked, with the mapped axis in various positions and some operands
unmapped.  Matrices are well conditioned (``randn + 4 I``) and compared with
float32 tolerances.  Shapes are few and small, because real JAX compiles
every operation per shape.
"""
import numpy as np
import pytest

B = 3                      # examples per vmap
TOL = dict(rtol=2e-4, atol=2e-4)


def _rng(seed=0):
    return np.random.RandomState(seed)


def _square(seed=0, batch=B):
    return (_rng(seed).randn(batch, 4, 4) + 4 * np.eye(4)).astype(np.float32)


def _spd(seed=0):
    a = _square(seed)
    return np.einsum("bij,bkj->bik", a, a).astype(np.float32)


def _tall(seed=1, batch=B):
    return _rng(seed).randn(batch, 4, 2).astype(np.float32)


def _vec(seed=2, batch=B):
    return _rng(seed).randn(batch, 4).astype(np.float32)


def _example(args, in_axes, i):
    return [a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, in_axes)]


def _stacked(jax, f, args, in_axes):
    """``f`` on each example, outputs stacked along a new leading axis."""
    size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = [f(*_example(args, in_axes, i)) for i in range(size)]
    return jax.tree_util.tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs]),
                                  *outs)


def _check_vmap(jax, f, args, in_axes, tol=TOL):
    got = jax.vmap(f, in_axes=in_axes)(*args)
    want = _stacked(jax, f, args, in_axes)
    got_leaves = jax.tree_util.tree_leaves(got)
    want_leaves = jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        assert g.shape == w.shape
        assert g.dtype == w.dtype
        np.testing.assert_allclose(np.asarray(g), w, **tol)


def _eqn_names(jax, f, args, in_axes):
    jaxpr = jax.make_jaxpr(jax.vmap(f, in_axes=in_axes))(*args).jaxpr
    return [e.primitive.name for e in jaxpr.eqns], jaxpr


# ---------------------------------------------------------------------------
# dot_general (VMAP-60)
# ---------------------------------------------------------------------------

_DN_MATMUL = (((1,), (0,)), ((), ()))
_DN_BATCHED = (((2,), (1,)), ((0,), (0,)))


@pytest.mark.spec("VMAP-60")
@pytest.mark.parametrize("in_axes", [(0, 0), (1, 2), (0, None), (2, None),
                                     (None, 0), (None, 1)])
def test_dot_general_batched_operands(jax, in_axes):
    lhs = np.moveaxis(_square(), 0, in_axes[0]) if in_axes[0] is not None else _square()[0]
    rhs = np.moveaxis(_tall(), 0, in_axes[1]) if in_axes[1] is not None else _tall()[0]
    f = lambda a, b: jax.lax.dot_general(a, b, _DN_MATMUL)
    _check_vmap(jax, f, (lhs, rhs), in_axes)


@pytest.mark.spec("VMAP-60")
@pytest.mark.parametrize("in_axes", [(0, 3), (3, None), (None, 1)])
def test_dot_general_with_own_batch_dims(jax, in_axes):
    rng = _rng(3)
    lhs = rng.randn(B, 2, 4, 5).astype(np.float32)
    rhs = rng.randn(B, 2, 5, 3).astype(np.float32)
    lhs = np.moveaxis(lhs, 0, in_axes[0]) if in_axes[0] is not None else lhs[0]
    rhs = np.moveaxis(rhs, 0, in_axes[1]) if in_axes[1] is not None else rhs[0]
    f = lambda a, b: jax.lax.dot_general(a, b, _DN_BATCHED)
    _check_vmap(jax, f, (lhs, rhs), in_axes)


@pytest.mark.spec("VMAP-60")
def test_dot_general_both_mapped_is_one_new_batch_pair(jax):
    f = lambda a, b: jax.lax.dot_general(a, b, _DN_MATMUL)
    names, jaxpr = _eqn_names(jax, f, (_square(), np.moveaxis(_tall(), 0, 2)), (0, 2))
    assert names == ["dot_general"]
    dn = jaxpr.eqns[0].params["dimension_numbers"]
    assert tuple(map(tuple, dn[1])) == ((0,), (2,))
    assert tuple(map(tuple, dn[0])) == ((2,), (0,))


@pytest.mark.spec("VMAP-60")
@pytest.mark.parametrize("in_axes,dot_out", [((1, None), (4, B, 2)),
                                             ((None, 2), (4, 2, B))])
def test_dot_general_one_mapped_is_a_free_axis(jax, in_axes, dot_out):
    lhs = np.moveaxis(_square(), 0, 1) if in_axes[0] is not None else _square()[0]
    rhs = np.moveaxis(_tall(), 0, 2) if in_axes[1] is not None else _tall()[0]
    f = lambda a, b: jax.lax.dot_general(a, b, _DN_MATMUL)
    names, jaxpr = _eqn_names(jax, f, (lhs, rhs), in_axes)
    # The operand is used where it is; only the output is moved.
    assert names == ["dot_general", "transpose"]
    assert tuple(jaxpr.eqns[0].outvars[0].aval.shape) == dot_out


@pytest.mark.spec("VMAP-60")
def test_dot_general_keeps_precision_and_preferred_type(jax):
    f = lambda a, b: jax.lax.dot_general(
        a, b, _DN_MATMUL, precision=jax.lax.Precision.HIGHEST,
        preferred_element_type=np.float32)
    a = (_square() * 4).astype(np.int8)
    b = (_tall()[0] * 4).astype(np.int8)
    _, jaxpr = _eqn_names(jax, f, (a, b), (0, None))
    params = jaxpr.eqns[0].params
    assert params["preferred_element_type"] == np.float32
    assert str(params["precision"][0]) == "HIGHEST"
    out = jax.vmap(f, in_axes=(0, None))(a, b)
    assert out.dtype == np.float32
    want = np.einsum("bij,jk->bik", a.astype(np.float32), b.astype(np.float32))
    np.testing.assert_array_equal(np.asarray(out), want)


# ---------------------------------------------------------------------------
# Products of jax.numpy (VMAP-65)
# ---------------------------------------------------------------------------

_PRODUCTS = {
    "matmul": (lambda jnp: jnp.matmul, "AM"),
    "matmul_vec": (lambda jnp: jnp.matmul, "Av"),
    "dot": (lambda jnp: jnp.dot, "AM"),
    "dot_vec": (lambda jnp: jnp.dot, "vw"),
    "einsum": (lambda jnp: lambda a, b: jnp.einsum("ij,jk->ki", a, b), "AM"),
    "tensordot": (lambda jnp: lambda a, b: jnp.tensordot(a, b, axes=([0], [0])), "AM"),
    "inner": (lambda jnp: jnp.inner, "Aw"),
    "outer": (lambda jnp: jnp.outer, "vw"),
    "vdot": (lambda jnp: jnp.vdot, "vw"),
}
_OPERANDS = {"A": _square, "M": _tall, "v": _vec, "w": lambda: _vec(5)}


@pytest.mark.spec("VMAP-65")
@pytest.mark.parametrize("name", sorted(_PRODUCTS))
@pytest.mark.parametrize("in_axes", [(1, 0), (0, None), (None, 1)])
def test_numpy_products(jax, jnp, name, in_axes):
    make, kinds = _PRODUCTS[name]
    args = []
    for kind, ax in zip(kinds, in_axes):
        x = _OPERANDS[kind]()
        args.append(x[0] if ax is None else np.moveaxis(x, 0, ax))
    _check_vmap(jax, make(jnp), tuple(args), in_axes)


@pytest.mark.spec("VMAP-65")
def test_einsum_three_operands_mixed(jax, jnp):
    f = lambda a, b, c: jnp.einsum("ij,jk,i->k", a, b, c)
    _check_vmap(jax, f, (_square(), _tall()[0], np.moveaxis(_vec(), 0, 1)), (0, None, 1))


# ---------------------------------------------------------------------------
# conv_general_dilated (VMAP-61)
# ---------------------------------------------------------------------------

def _conv(jax, groups=1, batch_groups=1, dn=("NCH", "OIH", "NCH")):
    def f(x, w):
        return jax.lax.conv_general_dilated(
            x, w, (1,), "SAME", dimension_numbers=dn, feature_group_count=groups,
            batch_group_count=batch_groups)
    return f


def _conv_operands(seed=4):
    """Per example: input (N=4, C=4, H=5), kernel (O=6, I=4, K=3)."""
    rng = _rng(seed)
    return (rng.randn(B, 4, 4, 5).astype(np.float32),
            rng.randn(B, 6, 4, 3).astype(np.float32))


def _conv_args(in_axes, groups):
    x, w = _conv_operands()
    w = w[:, :, :4 // groups]
    x = x[0] if in_axes[0] is None else np.moveaxis(x, 0, in_axes[0])
    w = w[0] if in_axes[1] is None else np.moveaxis(w, 0, in_axes[1])
    return x, w


_CONV_AXES = [(2, 3), (3, None), (None, 2)]


@pytest.mark.spec("VMAP-61")
@pytest.mark.parametrize("in_axes", _CONV_AXES)
@pytest.mark.parametrize("groups,batch_groups", [(1, 1), (2, 1), (1, 2)])
def test_conv_batched_operands(jax, in_axes, groups, batch_groups):
    x, w = _conv_args(in_axes, groups)
    _check_vmap(jax, _conv(jax, groups, batch_groups), (x, w), in_axes)


@pytest.mark.spec("VMAP-61")
@pytest.mark.parametrize("in_axes", [(0, 0), (0, None), (None, 3)])
def test_conv_channels_last_layout(jax, in_axes):
    x, w = _conv_operands()
    x = np.swapaxes(x, 2, 3)                       # N H C
    w = np.transpose(w, (0, 3, 2, 1))[..., :2, :]  # H I O, two feature groups
    x = x[0] if in_axes[0] is None else np.moveaxis(x, 0, in_axes[0])
    w = w[0] if in_axes[1] is None else np.moveaxis(w, 0, in_axes[1])
    f = _conv(jax, 2, 1, ("NHC", "HIO", "NHC"))
    _check_vmap(jax, f, (x, w), in_axes)


@pytest.mark.spec("VMAP-61")
def test_conv_both_mapped_uses_feature_groups(jax):
    x, w = _conv_args((0, 0), 2)
    names, jaxpr = _eqn_names(jax, _conv(jax, 2), (x, w), (0, 0))
    conv, = [e for e in jaxpr.eqns if e.primitive.name == "conv_general_dilated"]
    assert conv.params["feature_group_count"] == 2 * B
    assert conv.params["batch_group_count"] == 1
    assert "broadcast_in_dim" not in names


@pytest.mark.spec("VMAP-61")
@pytest.mark.parametrize("in_axes,axis", [((0, None), 0), ((None, 0), 1)])
def test_conv_one_mapped_folds_into_an_axis(jax, in_axes, axis):
    x, w = _conv_args(in_axes, 1)
    _, jaxpr = _eqn_names(jax, _conv(jax), (x, w), in_axes)
    conv, = [e for e in jaxpr.eqns if e.primitive.name == "conv_general_dilated"]
    per_example = (4, 6, 5)
    assert conv.outvars[0].aval.shape[axis] == B * per_example[axis]
    assert conv.params["feature_group_count"] == 1


@pytest.mark.spec("VMAP-61")
def test_conv_empty_mapped_axis(jax):
    x, w = _conv_args((0, None), 1)
    out = jax.vmap(_conv(jax), in_axes=(0, None))(x[:0], w)
    assert out.shape == (0, 4, 6, 5)
    assert out.dtype == np.float32


# ---------------------------------------------------------------------------
# lax.linalg primitives (VMAP-62, VMAP-63)
# ---------------------------------------------------------------------------

def _tri_solve(jax, left_side, lower, transpose_a=False):
    def f(a, b):
        return jax.lax.linalg.triangular_solve(a, b, left_side=left_side, lower=lower,
                                               transpose_a=transpose_a)
    return f


@pytest.mark.spec("VMAP-62")
@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("in_axes", [(2, 1), (0, None), (None, 2)])
def test_triangular_solve(jax, left_side, in_axes):
    a = _square()
    b = _tall() if left_side else np.swapaxes(_tall(), 1, 2)
    a = a[0] if in_axes[0] is None else np.moveaxis(a, 0, in_axes[0])
    b = b[0] if in_axes[1] is None else np.moveaxis(b, 0, in_axes[1])
    f = _tri_solve(jax, left_side, lower=left_side, transpose_a=not left_side)
    _check_vmap(jax, f, (a, b), in_axes)


@pytest.mark.spec("VMAP-62")
@pytest.mark.parametrize("left_side,solve_shape", [(True, (4, 2 * B)),
                                                   (False, (2 * B, 4))])
def test_triangular_solve_unmapped_matrix_is_not_copied(jax, left_side, solve_shape):
    b = _tall() if left_side else np.swapaxes(_tall(), 1, 2)
    names, jaxpr = _eqn_names(jax, _tri_solve(jax, left_side, True),
                              (_square()[0], b), (None, 0))
    solve, = [e for e in jaxpr.eqns if e.primitive.name == "triangular_solve"]
    assert tuple(solve.invars[0].aval.shape) == (4, 4)
    assert tuple(solve.outvars[0].aval.shape) == solve_shape
    assert "broadcast_in_dim" not in names


@pytest.mark.spec("VMAP-62")
def test_triangular_solve_unmapped_rhs_is_broadcast(jax):
    _, jaxpr = _eqn_names(jax, _tri_solve(jax, True, True),
                              (_square(), _tall()[0]), (0, None))
    solve, = [e for e in jaxpr.eqns if e.primitive.name == "triangular_solve"]
    assert tuple(solve.invars[1].aval.shape) == (B, 4, 2)


def _svd_parts(jax):
    def f(x):
        u, s, vh = jax.lax.linalg.svd(x, full_matrices=False)
        return s, (u * s[None, :]) @ vh, abs(u)
    return f


def _eigh_parts(jax):
    def f(x):
        v, w = jax.lax.linalg.eigh(x)
        return w, (v * w[None, :]) @ v.T, abs(v)
    return f


def _qr_parts(jax):
    def f(x):
        q, r = jax.lax.linalg.qr(x, full_matrices=False)
        return q @ r, abs(r), abs(q)
    return f


_FACTORS = {
    "cholesky": (lambda jax: jax.lax.linalg.cholesky, _spd),
    "lu": (lambda jax: jax.lax.linalg.lu, _square),
    "svd": (_svd_parts, _tall),
    "eigh": (_eigh_parts, _spd),
    "qr": (_qr_parts, _tall),
}


@pytest.mark.spec("VMAP-63")
@pytest.mark.parametrize("name", sorted(_FACTORS))
@pytest.mark.parametrize("axis", [0, 2])
def test_factorisations(jax, name, axis):
    make, operand = _FACTORS[name]
    x = np.moveaxis(operand(), 0, axis)
    _check_vmap(jax, make(jax), (x,), (axis,), tol=dict(rtol=1e-3, atol=1e-3))


@pytest.mark.spec("VMAP-63")
def test_factorisation_maps_over_leading_axis(jax):
    names, jaxpr = _eqn_names(jax, jax.lax.linalg.lu, (np.moveaxis(_square(), 0, 2),), (2,))
    assert names == ["transpose", "lu"]
    assert [tuple(v.aval.shape) for v in jaxpr.eqns[1].outvars] == [
        (B, 4, 4), (B, 4), (B, 4)]


# ---------------------------------------------------------------------------
# jax.numpy.linalg (VMAP-64)
# ---------------------------------------------------------------------------

_LINALG = {
    "inv": (lambda jnp: jnp.linalg.inv, "A"),
    "solve": (lambda jnp: jnp.linalg.solve, "AM"),
    "solve_vec": (lambda jnp: jnp.linalg.solve, "Av"),
    "det": (lambda jnp: jnp.linalg.det, "A"),
    "slogdet": (lambda jnp: jnp.linalg.slogdet, "A"),
    "cholesky": (lambda jnp: jnp.linalg.cholesky, "S"),
    "qr": (lambda jnp: lambda a: abs(jnp.linalg.qr(a).R), "M"),
    "svdvals": (lambda jnp: lambda a: jnp.linalg.svd(a, compute_uv=False), "M"),
    "eigvalsh": (lambda jnp: jnp.linalg.eigvalsh, "S"),
    "norm": (lambda jnp: jnp.linalg.norm, "A"),
    "norm_2": (lambda jnp: lambda a: jnp.linalg.norm(a, 2), "A"),
    "norm_1_axis": (lambda jnp: lambda a: jnp.linalg.norm(a, 1, axis=0), "M"),
    "pinv": (lambda jnp: jnp.linalg.pinv, "M"),
    "matrix_power": (lambda jnp: lambda a: jnp.linalg.matrix_power(a, 3), "A"),
    "matrix_power_neg": (lambda jnp: lambda a: jnp.linalg.matrix_power(a, -2), "A"),
    "matrix_rank": (lambda jnp: jnp.linalg.matrix_rank, "M"),
}
_LINALG_OPERANDS = {"A": _square, "S": _spd, "M": _tall, "v": _vec}


@pytest.mark.spec("VMAP-64")
@pytest.mark.parametrize("name", sorted(_LINALG))
def test_numpy_linalg(jax, jnp, name):
    make, kinds = _LINALG[name]
    args = tuple(np.moveaxis(_LINALG_OPERANDS[k](), 0, 1) for k in kinds)
    tol = dict(rtol=1e-3, atol=1e-3)
    _check_vmap(jax, make(jnp), args, (1,) * len(args), tol=tol)


@pytest.mark.spec("VMAP-64")
@pytest.mark.parametrize("in_axes", [(None, 0), (0, None)])
@pytest.mark.parametrize("stack", [False, True])
def test_numpy_solve_one_side_unmapped(jax, jnp, in_axes, stack):
    """With ``stack``, each example's ``a`` is itself a stack of two
    matrices, one rank above ``b``: the solve broadcasts ``b``."""
    a = _square(batch=2 * B).reshape(B, 2, 4, 4) if stack else _square()
    a = a[0] if in_axes[0] is None else a
    b = _tall()[0] if in_axes[1] is None else _tall()
    _check_vmap(jax, jnp.linalg.solve, (a, b), in_axes, tol=dict(rtol=1e-3, atol=1e-3))


@pytest.mark.spec("NP-63")
@pytest.mark.parametrize("a_shape,b_shape,message", [
    ((4,), (4,), r"^left hand array must be at least two dimensional; got a\.shape=\(4,\)"),
    ((4, 4), (), r"^input with shape \(\) does not have enough dimensions"),
    ((2, 4, 4), (2, 4), r"^Invalid shapes for solve: \(2, 4, 4\), \(2, 4\)\. Prior"),
])
def test_solve_shape_errors(jnp, a_shape, b_shape, message):
    with pytest.raises(ValueError, match=message):
        jnp.linalg.solve(np.ones(a_shape, np.float32), np.ones(b_shape, np.float32))


@pytest.mark.spec("NP-63")
def test_solve_broadcasts_matrix_one_rank_short(jnp):
    a = _square(batch=2)
    b = _tall()[0]
    got = jnp.linalg.solve(a, b)
    np.testing.assert_allclose(np.asarray(got), np.linalg.solve(a, b), **TOL)


# ---------------------------------------------------------------------------
# One program whatever the batch size (VMAP-66)
# ---------------------------------------------------------------------------

def _count_case(jax, jnp, name):
    dn = _DN_MATMUL
    cases = {
        "dot_general": (lambda a, b: jax.lax.dot_general(a, b, dn), "AM", (0, 0)),
        "matmul_one_side": (jnp.matmul, "AM", (None, 0)),
        "einsum": (lambda a, b: jnp.einsum("ij,jk->ik", a, b), "AM", (0, 0)),
        "conv_groups": (_conv(jax, 2), "XW", (None, 0)),
        "conv_both": (_conv(jax, 2), "XW", (0, 0)),
        "triangular_solve": (_tri_solve(jax, True, True), "AM", (None, 0)),
        "solve": (jnp.linalg.solve, "AM", (0, 0)),
        "inv": (jnp.linalg.inv, "A", (0,)),
        "slogdet": (jnp.linalg.slogdet, "A", (0,)),
        "eigh": (jnp.linalg.eigh, "A", (0,)),
        "svd": (jnp.linalg.svd, "M", (0,)),
        "qr": (jnp.linalg.qr, "M", (0,)),
        "pinv": (jnp.linalg.pinv, "M", (0,)),
    }
    return cases[name]


def _operand_of_size(kind, size):
    x, w = _conv_operands()
    makers = {"A": lambda: _square(batch=size), "M": lambda: _tall(batch=size),
              "X": lambda: np.resize(x, (size,) + x.shape[1:]),
              "W": lambda: np.resize(w[:, :, :2], (size, 6, 2, 3))}
    return makers[kind]()


@pytest.mark.spec("VMAP-66")
@pytest.mark.parametrize("name", ["dot_general", "matmul_one_side", "einsum",
                                  "conv_groups", "conv_both", "triangular_solve",
                                  "solve", "inv", "slogdet", "eigh", "svd", "qr",
                                  "pinv"])
def test_equation_count_does_not_grow_with_batch(jax, jnp, name):
    f, kinds, in_axes = _count_case(jax, jnp, name)
    counts = []
    for size in (2, 64):
        args = [_operand_of_size(k, size) if ax is not None else _operand_of_size(k, 1)[0]
                for k, ax in zip(kinds, in_axes)]
        jaxpr = jax.make_jaxpr(jax.vmap(f, in_axes=in_axes))(*args)
        counts.append(_count_eqns(jaxpr.jaxpr))
    assert counts[0] == counts[1]


def _count_eqns(jaxpr):
    """Equations of ``jaxpr`` and of the jaxprs its equations hold."""
    total = 0
    for eqn in jaxpr.eqns:
        total += 1
        for value in eqn.params.values():
            for sub in value if isinstance(value, (tuple, list)) else (value,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    total += _count_eqns(inner)
    return total


# ---------------------------------------------------------------------------
# Derivatives through batched products (VMAP-67)
# ---------------------------------------------------------------------------

def _matmul_loss(jnp):
    def loss(w, x):
        return jnp.sum(jnp.tanh(x @ w) ** 2)
    return loss


def _conv_loss(jax, jnp):
    def loss(w, x):
        y = jax.lax.conv_general_dilated(x[None], w, (1,), "SAME",
                                         feature_group_count=2)
        return jnp.sum(jnp.tanh(y) ** 2)
    return loss


def _per_example_grads(jax, loss, argnums, w, xs):
    g = jax.grad(loss, argnums=argnums)
    return [g(w, x) for x in xs]


@pytest.mark.spec("VMAP-67")
@pytest.mark.parametrize("argnums", [0, 1])
def test_vmap_of_grad_of_matmul_loss(jax, jnp, argnums):
    w, xs = _tall()[0], _square()
    got = jax.vmap(jax.grad(_matmul_loss(jnp), argnums=argnums), in_axes=(None, 0))(w, xs)
    want = np.stack(_per_example_grads(jax, _matmul_loss(jnp), argnums, w, xs))
    np.testing.assert_allclose(np.asarray(got), want, **TOL)


@pytest.mark.spec("VMAP-67")
@pytest.mark.parametrize("argnums", [0, 1])
def test_vmap_of_grad_of_conv_loss(jax, jnp, argnums):
    x, w = _conv_operands()
    w = w[0, :, :2]                     # (O=6, I=2, K=3), two feature groups
    xs = x[:, 0]                        # per example (C=4, H=5)
    loss = _conv_loss(jax, jnp)
    got = jax.vmap(jax.grad(loss, argnums=argnums), in_axes=(None, 0))(w, xs)
    want = np.stack(_per_example_grads(jax, loss, argnums, w, xs))
    np.testing.assert_allclose(np.asarray(got), want, **TOL)


@pytest.mark.spec("VMAP-67")
def test_vmap_of_grad_with_mapped_weights(jax, jnp):
    x, w = _conv_operands()
    ws, x0 = w[:, :, :2], x[0, 0]
    loss = _conv_loss(jax, jnp)
    got = jax.vmap(jax.grad(loss), in_axes=(0, None))(ws, x0)
    want = np.stack([jax.grad(loss)(wi, x0) for wi in ws])
    np.testing.assert_allclose(np.asarray(got), want, **TOL)


@pytest.mark.spec("VMAP-67")
def test_grad_of_vmap_is_sum_of_per_example_grads(jax, jnp):
    w, xs = _tall()[0], _square()
    loss = _matmul_loss(jnp)
    got = jax.grad(lambda w: jnp.sum(jax.vmap(loss, in_axes=(None, 0))(w, xs)))(w)
    want = sum(np.asarray(jax.grad(loss)(w, x)) for x in xs)
    np.testing.assert_allclose(np.asarray(got), want, **TOL)


@pytest.mark.spec("VMAP-67")
@pytest.mark.parametrize("mode", ["jacfwd", "jacrev"])
def test_jacobian_of_solve_is_inverse(jax, jnp, mode):
    a = _square()[0]
    jac = getattr(jax, mode)(lambda b: jnp.linalg.solve(a, b))(_vec()[0])
    np.testing.assert_allclose(np.asarray(jac), np.linalg.inv(a), rtol=1e-3, atol=1e-4)
