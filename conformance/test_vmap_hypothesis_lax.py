"""The vmap acceptance sweep over the structural ``jax.lax`` primitives
(SPEC VMAP-100 .. VMAP-102, VMAP-104): shapes, reductions, cumulative ops,
sorting, slicing, gather/scatter, dot/conv, linear algebra, the primitives
that hold programs (jit, checkpoint, custom derivatives, callbacks), and the
collectives over the mapped axis.

The harness and the signature syntax are in ``test_vmap_hypothesis.py``;
the letters ``a``, ``b``, ``c`` are the sizes 3, 2, 4, other letters 2.
"""
import functools

import numpy as np

from test_vmap_hypothesis import LOOSE, case, sweep_tests

P = functools.partial


def gather_dnums(jax, **kw):
    return jax.lax.GatherDimensionNumbers(**kw)


def scatter_dnums(jax, **kw):
    return jax.lax.ScatterDimensionNumbers(**kw)


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------

SHAPES = [
    case(lambda jax: lambda x: jax.lax.broadcast_in_dim(
        x, (2,) + x.shape, tuple(range(1, x.ndim + 1))),
         "ab:f32", "a:f32", name="lax.broadcast_in_dim"),
    case(lambda jax: lambda x: jax.lax.broadcast_in_dim(x, (4, x.shape[0], 5), (1, 2)),
         "a1:f32", name="lax.broadcast_in_dim[size1]"),
    case(lambda jax: lambda x: jax.lax.broadcast_in_dim(x, (3, 2), ()),
         ":f32", name="lax.broadcast_in_dim[scalar]"),
    case("lax.broadcast", "ab:f32", ":i32", sizes=(2,)),
    case("lax.broadcast_to_rank", "ab:f32", "a:f32", rank=3),
    case(lambda jax: lambda x: jax.lax.reshape(x, (x.size,)),
         "abc:f32", "ab:i32", name="lax.reshape[flatten]"),
    case(lambda jax: lambda x: jax.lax.reshape(x, (x.shape[0] * x.shape[1], x.shape[2])),
         "abc:f32", name="lax.reshape[merge]"),
    case(lambda jax: lambda x: jax.lax.reshape(x, (x.shape[1], x.shape[0]), dimensions=(1, 0)),
         "ab:f32", name="lax.reshape[dimensions]"),
    case(lambda jax: lambda x: jax.lax.reshape(x, (1, 1)), ":f32",
         name="lax.reshape[scalar]"),
    case("lax.squeeze", "1ab:f32", "1:f32", dimensions=(0,), name="lax.squeeze[0]"),
    case("lax.squeeze", "a1b1:f32", dimensions=(1, 3)),
    case("lax.expand_dims", "ab:f32", ":f32", dimensions=(0,)),
    case("lax.expand_dims", "ab:f32", dimensions=(0, 3)),
    case("lax.transpose", "abc:f32", permutation=(2, 0, 1)),
    case("lax.transpose", "ab:bool", permutation=(1, 0)),
    case("lax.rev", "abc:f32", "a:f32", dimensions=(0,)),
    case("lax.rev", "abc:i32", dimensions=(0, 2)),
    case(lambda jax: lambda x, v: jax.lax.pad(x, v, ((1, 0, 0), (0, 2, 1))),
         "ab:f32,:f32", name="lax.pad"),
    case(lambda jax: lambda x, v: jax.lax.pad(x, v, ((-1, 1, 0), (1, -1, 2))),
         "ab:f32,:f32", name="lax.pad[negative]"),
    case(lambda jax: lambda x, v: jax.lax.pad(x, v, ((1, 1, 1),)),
         "a:i32,:i32", name="lax.pad[int32]"),
    case(lambda jax: lambda x, y: jax.lax.concatenate([x, y], 1),
         "ab:f32,ac:f32", name="lax.concatenate"),
    case(lambda jax: lambda x, y, z: jax.lax.concatenate([x, y, z], 0),
         "ab:f32,ab:f32,cb:f32", "a:i32,a:i32,b:i32", name="lax.concatenate[3]"),
    case("lax.slice", "ab:f32", start_indices=(0, 1), limit_indices=(2, 2)),
    case("lax.slice", "ac:f32", start_indices=(0, 0), limit_indices=(3, 4), strides=(2, 3)),
    case("lax.slice_in_dim", "ac:f32", start_index=1, limit_index=3, axis=1),
    case("lax.index_in_dim", "ac:f32", index=1, axis=1, keepdims=False),
    case("lax.collapse", "abc:f32", start_dimension=1, stop_dimension=3),
    case("lax.tile", "ab:f32", reps=(2, 1)),
    case("lax.tile", "a:i32", reps=(3,), name="lax.tile[1d]"),
    case(lambda jax: lambda x: jax.lax.split(x, (1, x.shape[1] - 1), axis=1),
         "ac:f32", name="lax.split"),
    case(lambda jax: lambda x: jax.lax.split(x, (2, 1, 0), axis=0),
         "a:f32", "ab:i32", name="lax.split[axis0]"),
    case(lambda jax: lambda x, y: jax.lax.stack([x, y], axis=1),
         "ab:f32,ab:f32", name="lax.stack"),
    case(lambda jax: lambda v: jax.lax.full((2, 3), v), ":f32", ":i32", name="lax.full"),
    case(lambda jax: lambda x: jax.lax.full_like(x, 2.0), "ab:f32",
         name="lax.full_like[constant]"),
    case(lambda jax: lambda x, v: jax.lax.full_like(x, v), "ab:f32,:f32",
         name="lax.full_like"),
    case(lambda jax: lambda x: x + jax.lax.broadcasted_iota(np.float32, x.shape, 1),
         "ab:f32", name="lax.broadcasted_iota"),
    case(lambda jax: lambda x: x * jax.lax.iota(np.int32, 3), "a:i32", ":i32",
         name="lax.iota"),
]

# ---------------------------------------------------------------------------
# Reductions, cumulative ops, sorting
# ---------------------------------------------------------------------------

REDUCTIONS = [
    case("lax.reduce_sum", "abc:f32", "ab:i32", axes=(1,)),
    case("lax.reduce_sum", "abc:f32", axes=(0, 2)),
    case("lax.reduce_sum", "a:f32", axes=(0,), name="lax.reduce_sum[all]"),
    case("lax.reduce_prod", "abc:f32", "ab:i32", axes=(1,)),
    case("lax.reduce_max", "abc:ties", "ab:i32", axes=(0,)),
    case("lax.reduce_max", "abc:f32", axes=(0, 1, 2), name="lax.reduce_max[all]"),
    case("lax.reduce_min", "abc:ties", "abc:u8", axes=(2,)),
    case("lax.reduce_and", "abc:bool", axes=(1,)),
    case("lax.reduce_or", "abc:bool", axes=(0, 2)),
    case("lax.reduce_xor", "ab:bool", "ab:i32", axes=(1,)),
    case("lax.reduce_and", "ab:i32", axes=(0,), name="lax.reduce_and[int32]"),
    case("lax.argmax", "ab:ties", "abc:ties", axis=1, index_dtype=np.int32),
    case("lax.argmax", "a:nan", axis=0, index_dtype=np.int32, name="lax.argmax[nan]"),
    case("lax.argmin", "ab:ties", "ab:i32", axis=0, index_dtype=np.int32),
    case("lax.cumsum", "abc:f32", "ab:i32", axis=1),
    case("lax.cumsum", "ab:f32", axis=0, reverse=True),
    case("lax.cumprod", "abc:unit", "ab:i32", axis=1),
    case("lax.cummax", "abc:ties", "a:i32", axis=0),
    case("lax.cummin", "ab:ties", axis=1, reverse=True),
    case("lax.cumlogsumexp", "abc:f32", "a:f32", axis=0, tol=LOOSE),
    case("lax.sort", "ab:ties", "abc:f32", "a:i32", dimension=-1),
    case("lax.sort", "ab:ties", dimension=0, name="lax.sort[dimension=0]"),
    case("lax.sort", "ab:nan", dimension=1, name="lax.sort[nan]"),
    case(lambda jax: lambda k, v: jax.lax.sort((k, v), dimension=-1, num_keys=1),
         "ab:ties,ab:f32", "a:ties,a:i32", name="lax.sort[key,value]"),
    case(lambda jax: lambda k1, k2, v: jax.lax.sort((k1, k2, v), dimension=0, num_keys=2),
         "ab:ties,ab:ties,ab:f32", name="lax.sort[num_keys=2]"),
    case("lax.sort_key_val", "ab:ties,ab:f32", "a:ties,a:i32", dimension=0),
    case("lax.top_k", "ac:f32", "c:ties", k=2),
    case("lax.top_k", "ab:i32", k=2, axis=0, name="lax.top_k[axis=0]"),
]

# ---------------------------------------------------------------------------
# Slicing: dynamic slices, gather, scatter
# ---------------------------------------------------------------------------


def _gather_rows(jax, mode=None, fill_value=None):
    dn = gather_dnums(jax, offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
    return lambda x, i: jax.lax.gather(x, i, dn, (1, x.shape[1]), mode=mode,
                                       fill_value=fill_value)


def _gather_elements(jax):
    dn = gather_dnums(jax, offset_dims=(), collapsed_slice_dims=(0, 1),
                      start_index_map=(0, 1))
    return lambda x, i: jax.lax.gather(x, i, dn, (1, 1))


def _gather_batched(jax):
    # x: (c, a), i: (c, 1) -> x[k, i[k, 0]]: operand batching dims.
    dn = gather_dnums(jax, offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
                      operand_batching_dims=(0,), start_indices_batching_dims=(0,))
    return lambda x, i: jax.lax.gather(x, i, dn, (1, 1))


def _gather_window(jax):
    # 2x1 windows starting at (i0, i1), index vector along the last axis.
    dn = gather_dnums(jax, offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1))
    return lambda x, i: jax.lax.gather(x, i, dn, (2, 1), mode="clip")


ROW_SCATTER = dict(update_window_dims=(1,), inserted_window_dims=(0,),
                   scatter_dims_to_operand_dims=(0,))


def _scatter(name, mode=None):
    def make(jax):
        dn = scatter_dnums(jax, **ROW_SCATTER)
        return lambda x, i, u: getattr(jax.lax, name)(x, i, u, dn, mode=mode)
    return make


def _scatter_elements(jax):
    dn = scatter_dnums(jax, update_window_dims=(), inserted_window_dims=(0, 1),
                       scatter_dims_to_operand_dims=(0, 1))
    return lambda x, i, u: jax.lax.scatter_add(x, i, u, dn)


def _scatter_batched(jax):
    # x: (c, a), i: (c, 1), u: (c,) -> x[k, i[k, 0]] += u[k].
    dn = scatter_dnums(jax, update_window_dims=(), inserted_window_dims=(1,),
                       scatter_dims_to_operand_dims=(1,), operand_batching_dims=(0,),
                       scatter_indices_batching_dims=(0,))
    return lambda x, i, u: jax.lax.scatter_add(x, i, u, dn)


def _scatter_apply(jax):
    dn = scatter_dnums(jax, update_window_dims=(), inserted_window_dims=(0,),
                       scatter_dims_to_operand_dims=(0,))
    return lambda x, i: jax.lax.scatter_apply(x, i, jax.lax.neg, dn, update_shape=(i.shape[0],))


SLICING = [
    case(lambda jax: lambda x, i, j: jax.lax.dynamic_slice(x, (i, j), (2, 2)),
         "ab:f32,:idx.a,:idx.b", "ac:i32,:sidx.a,:sidx.c", name="lax.dynamic_slice"),
    case(lambda jax: lambda x, i: jax.lax.dynamic_slice_in_dim(x, i, 2, axis=1),
         "ac:f32,:idx.c", name="lax.dynamic_slice_in_dim"),
    case(lambda jax: lambda x, i: jax.lax.dynamic_index_in_dim(x, i, axis=0, keepdims=False),
         "ab:f32,:sidx.a", "a:i32,:idx.a", name="lax.dynamic_index_in_dim"),
    case(lambda jax: lambda x, u, i, j: jax.lax.dynamic_update_slice(x, u, (i, j)),
         "ac:f32,22:f32,:idx.a,:idx.c", "ab:i32,1b:i32,:sidx.a,:idx.b",
         name="lax.dynamic_update_slice"),
    case(lambda jax: lambda x, u, i: jax.lax.dynamic_update_slice_in_dim(x, u, i, axis=0),
         "ab:f32,1b:f32,:idx.a", name="lax.dynamic_update_slice_in_dim"),
    case(lambda jax: lambda x, u, i: jax.lax.dynamic_update_index_in_dim(x, u, i, axis=1),
         "ab:f32,a:f32,:idx.b", name="lax.dynamic_update_index_in_dim"),
    case(_gather_rows, "ab:f32,c1:idx.a", "ab:i32,11:idx.a", name="lax.gather[rows]"),
    case(lambda jax: _gather_rows(jax, mode="clip"), "ab:f32,c1:sidx.5",
         name="lax.gather[clip]"),
    case(lambda jax: _gather_rows(jax, mode="fill", fill_value=-1.0), "ab:f32,c1:sidx.5",
         name="lax.gather[fill]"),
    case(_gather_elements, "ab:f32,c2:idx.2", "ab:f32,2:idx.2", name="lax.gather[elements]"),
    case(_gather_batched, "ca:f32,c1:idx.a", name="lax.gather[batching_dims]"),
    case(_gather_window, "ac:f32,b2:idx.4", name="lax.gather[window]"),
    case(lambda jax: lambda x, i: jax.lax.index_take(x, (i,), (0,)), "ab:f32,c:idx.a",
         name="lax.index_take"),
    case(lambda jax: lambda x, i, j: jax.lax.index_take(x, (i, j), (0, 1)),
         "ab:f32,c:idx.a,c:idx.b", name="lax.index_take[2]"),
    case(_scatter("scatter"), "ab:f32,a1:perm.a,ab:f32", name="lax.scatter"),
    case(_scatter("scatter_add"), "ab:f32,c1:idx.a,cb:f32", "ab:i32,c1:idx.a,cb:i32",
         name="lax.scatter_add"),
    case(_scatter("scatter_sub"), "ab:f32,c1:idx.a,cb:f32", name="lax.scatter_sub"),
    case(_scatter("scatter_mul"), "ab:f32,c1:idx.a,cb:unit", name="lax.scatter_mul"),
    case(_scatter("scatter_min"), "ab:f32,c1:idx.a,cb:f32", name="lax.scatter_min"),
    case(_scatter("scatter_max"), "ab:i32,c1:idx.a,cb:i32", name="lax.scatter_max"),
    case(_scatter("scatter_add", mode="drop"), "ab:f32,c1:sidx.5,cb:f32",
         name="lax.scatter_add[drop]"),
    case(_scatter("scatter", mode="clip"), "ab:f32,11:idx.5,1b:f32",
         name="lax.scatter[clip]"),
    case(_scatter_elements, "ab:f32,c2:idx.2,c:f32", name="lax.scatter_add[elements]"),
    case(_scatter_batched, "ca:f32,c1:idx.a,c:f32", name="lax.scatter_add[batching_dims]"),
    case(_scatter_apply, "a:f32,c1:idx.a", name="lax.scatter_apply"),
]

# ---------------------------------------------------------------------------
# dot_general and convolutions
# ---------------------------------------------------------------------------


def _dot(dims):
    return lambda jax: lambda x, y: jax.lax.dot_general(x, y, dims)


def _conv(**kw):
    def make(jax):
        return lambda x, w: jax.lax.conv_general_dilated(x, w, **kw)
    return make


CONV1D = dict(window_strides=(1,), padding="VALID")

DOT_CONV = [
    case(_dot((((1,), (0,)), ((), ()))), "ab:f32,bc:f32", "ab:i32,bc:i32",
         name="lax.dot_general[matmul]"),
    case(_dot((((2,), (1,)), ((0,), (0,)))), "cab:f32,cbd:f32",
         name="lax.dot_general[batch]"),
    case(_dot((((0,), (0,)), ((), ()))), "a:f32,a:f32", "ab:f32,a:f32",
         name="lax.dot_general[vector]"),
    case(_dot((((), ()), ((), ()))), "a:f32,b:f32", "ab:f32,c:f32",
         name="lax.dot_general[outer]"),
    case(_dot((((0, 1), (1, 0)), ((), ()))), "abc:f32,bad:f32",
         name="lax.dot_general[two_contracting]"),
    case(_dot((((2,), (2,)), ((0,), (1,)))), "cab:f32,dcb:f32",
         name="lax.dot_general[batch_not_leading]"),
    case(lambda jax: lambda x, y: jax.lax.dot_general(
        x, y, (((1,), (0,)), ((), ())), preferred_element_type=np.int32),
        "ab:i8,bc:i8", name="lax.dot_general[preferred_element_type]"),
    case("lax.dot", "ab:f32,b:f32", "ab:f32,bc:f32", "a:f32,a:f32"),
    case("lax.batch_matmul", "cab:f32,cbd:f32"),
    case(_conv(**CONV1D), "ab6:f32,cb2:f32", name="lax.conv_general_dilated"),
    case(_conv(window_strides=(2, 1), padding="SAME"), "1b45:f32,3b22:f32",
         name="lax.conv_general_dilated[2d]", tol=LOOSE),
    case(_conv(window_strides=(1,), padding=((1, 2),), lhs_dilation=(2,), rhs_dilation=(2,)),
         "ab6:f32,cb2:f32", name="lax.conv_general_dilated[dilated]"),
    case(_conv(**CONV1D, feature_group_count=2), "ab6:f32,c12:f32",
         name="lax.conv_general_dilated[feature_groups]"),
    case(_conv(**CONV1D, batch_group_count=2), "2b6:f32,cb2:f32",
         name="lax.conv_general_dilated[batch_groups]"),
    case(_conv(**CONV1D, dimension_numbers=("NWC", "WIO", "NWC")), "a6b:f32,2bc:f32",
         name="lax.conv_general_dilated[NWC]"),
    case(lambda jax: lambda x, w: jax.lax.conv(x, w, (1, 1), "SAME"),
         "1b45:f32,3b22:f32", name="lax.conv", tol=LOOSE),
    case(lambda jax: lambda x, w: jax.lax.conv_with_general_padding(
        x, w, (1,), ((0, 1),), (1,), (2,)), "ab6:f32,cb2:f32",
        name="lax.conv_with_general_padding"),
]

# ---------------------------------------------------------------------------
# Linear algebra (lax.linalg)
# ---------------------------------------------------------------------------


def _spd(jnp, a):
    return a @ a.T + 3 * jnp.eye(a.shape[0], dtype=a.dtype)


LINALG = [
    case(lambda jax: lambda a: jax.lax.linalg.cholesky(_spd(jax.numpy, a)), "aa:f32",
         name="lax.linalg.cholesky", tol=LOOSE),
    case(lambda jax: lambda a: jax.lax.linalg.eigh(a + a.T), "aa:f32",
         name="lax.linalg.eigh", tol=LOOSE),
    case(lambda jax: lambda a: jax.lax.linalg.lu(a), "aa:f32", name="lax.linalg.lu",
         tol=LOOSE),
    case(lambda jax: lambda a: jax.lax.linalg.qr(a, full_matrices=False), "ab:f32", "aa:f32",
         name="lax.linalg.qr", tol=LOOSE),
    case(lambda jax: lambda a: jax.lax.linalg.svd(a, full_matrices=False), "ab:f32",
         name="lax.linalg.svd", tol=LOOSE),
    case(lambda jax: lambda a: jax.lax.linalg.svd(a, compute_uv=False), "ab:f32", "aa:f32",
         name="lax.linalg.svd[values]", tol=LOOSE),
    case(lambda jax: lambda a, b: jax.lax.linalg.triangular_solve(
        a + 4 * jax.numpy.eye(a.shape[0]), b, left_side=True, lower=True),
        "aa:unit,ab:f32", name="lax.linalg.triangular_solve", tol=LOOSE),
    case(lambda jax: lambda a, b: jax.lax.linalg.triangular_solve(
        a + 4 * jax.numpy.eye(a.shape[0]), b, transpose_a=True),
        "aa:unit,ba:f32", name="lax.linalg.triangular_solve[right,transpose]", tol=LOOSE),
]

# ---------------------------------------------------------------------------
# Primitives that hold programs, and callbacks
# ---------------------------------------------------------------------------


def _custom_jvp(jax):
    @jax.custom_jvp
    def f(x, y):
        return jax.numpy.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, y), (dx, dy) = primals, tangents
        return f(x, y), jax.numpy.cos(x) * y * dx + jax.numpy.sin(x) * dy
    return f


def _custom_vjp(jax):
    @jax.custom_vjp
    def f(x, y):
        return x * y + 1.0

    f.defvjp(lambda x, y: (f(x, y), (x, y)), lambda res, g: (g * res[1], g * res[0]))
    return f


def _pure_callback(vmap_method):
    def make(jax):
        def f(x, y):
            out = jax.ShapeDtypeStruct(np.broadcast_shapes(x.shape, y.shape), x.dtype)
            return jax.pure_callback(lambda a, b: (np.asarray(a) * np.asarray(b) + 1)
                                     .astype(np.float32), out, x, y,
                                     vmap_method=vmap_method)
        return f
    return make


PROGRAMS = [
    case(lambda jax: jax.jit(lambda x, y: jax.numpy.sin(x) * y), "ab:f32,ab:f32",
         ":f32,ab:f32", name="jit"),
    case(lambda jax: jax.jit(lambda x, y: (x @ y, y.sum())),
         "ab:f32,bc:f32", name="jit[two_outputs]"),
    case(lambda jax: jax.checkpoint(lambda x, y: jax.numpy.exp(x) * y), "ab:f32,ab:f32",
         name="checkpoint"),
    case(_custom_jvp, "ab:f32,ab:f32", "ab:f32,:f32", name="custom_jvp"),
    case(_custom_vjp, "ab:f32,ab:f32", ":f32,ab:f32", name="custom_vjp"),
    case(lambda jax: jax.nn.relu, "ab:f32", name="nn.relu"),
    case(_pure_callback("sequential"), "ab:f32,ab:f32", ":f32,ab:f32",
         name="pure_callback[sequential]"),
    # The callback itself broadcasts: it sees the batch axis in front.
    case(_pure_callback("expand_dims"), "ab:f32,ab:f32", "ab:f32,1b:f32",
         name="pure_callback[expand_dims]"),
    case(_pure_callback("broadcast_all"), "ab:f32,ab:f32", "ab:f32,1b:f32",
         name="pure_callback[broadcast_all]"),
]

# ---------------------------------------------------------------------------
# Collectives over the mapped axis "i": references in NumPy on the stacked
# examples X (batch axis first); "B" in a template is the batch size.
# ---------------------------------------------------------------------------


def _like(x, y):
    return np.broadcast_to(y, x.shape).astype(x.dtype)


def _batch_index(x):
    return np.arange(len(x)).reshape((-1,) + (1,) * (x.ndim - 1))


def _cyclic(lax):
    n = lax.axis_size("i")
    return [(j, (j + 1) % n) for j in range(n)]


def _reversed(lax):
    return list(range(lax.axis_size("i")))[::-1]


def collective(name, make, *sigs, ref):
    return case(lambda jax: make(jax.lax), *sigs, name=name, ref=ref, tol=LOOSE)


COLLECTIVES = [
    collective("lax.psum", lambda lax: lambda x: lax.psum(x, "i"), "ab:f32", ":i32",
               ref=lambda x: _like(x, x.sum(0))),
    collective("lax.psum[tree]", lambda lax: lambda x, y: lax.psum((x, y), "i"),
               "a:f32,b:f32", ref=lambda x, y: (_like(x, x.sum(0)), _like(y, y.sum(0)))),
    collective("lax.pmean", lambda lax: lambda x: lax.pmean(x, "i"), "ab:f32",
               ref=lambda x: _like(x, x.mean(0))),
    collective("lax.pmax", lambda lax: lambda x: lax.pmax(x, "i"), "ab:f32", "a:i32",
               ref=lambda x: _like(x, x.max(0))),
    collective("lax.pmin", lambda lax: lambda x: lax.pmin(x, "i"), "ab:f32",
               ref=lambda x: _like(x, x.min(0))),
    collective("lax.axis_index", lambda lax: lambda x: x * lax.axis_index("i"), "ab:i32",
               ref=lambda x: x * _batch_index(x).astype(x.dtype)),
    collective("lax.axis_size", lambda lax: lambda x: x * lax.axis_size("i"), "a:i32",
               ref=lambda x: x * len(x)),
    collective("lax.all_gather", lambda lax: lambda x: lax.all_gather(x, "i"), "ab:f32",
               ref=lambda x: np.broadcast_to(x, (len(x),) + x.shape)),
    collective("lax.all_gather[tiled]",
               lambda lax: lambda x: lax.all_gather(x, "i", axis=1, tiled=True), "ab:f32",
               ref=lambda x: np.broadcast_to(np.concatenate(list(x), axis=1),
                                             (len(x), x.shape[1], len(x) * x.shape[2]))),
    collective("lax.ppermute", lambda lax: lambda x: lax.ppermute(x, "i", _cyclic(lax)),
               "ab:f32", ref=lambda x: np.roll(x, 1, axis=0)),
    collective("lax.pshuffle", lambda lax: lambda x: lax.pshuffle(x, "i", _reversed(lax)),
               "ab:f32", ref=lambda x: x[::-1]),
    collective("lax.psum_scatter", lambda lax: lambda x: lax.psum_scatter(x, "i"), "Bb:f32",
               ref=lambda x: x.sum(0)),
    collective("lax.all_to_all", lambda lax: lambda x: lax.all_to_all(x, "i", 0, 1), "Bb:f32",
               ref=lambda x: np.transpose(x, (1, 2, 0))),
    collective("lax.pswapaxes", lambda lax: lambda x: lax.pswapaxes(x, "i", 0), "Bb:f32",
               ref=lambda x: np.swapaxes(x, 0, 1)),
]

LAX_CASES = SHAPES + REDUCTIONS + SLICING + DOT_CONV + LINALG + PROGRAMS

test_lax_matches_stacking, test_lax_no_unrolling = sweep_tests(LAX_CASES)
test_collectives_match_reference, test_collectives_no_unrolling = sweep_tests(
    COLLECTIVES, "VMAP-104", value_clauses=("VMAP-102",))
