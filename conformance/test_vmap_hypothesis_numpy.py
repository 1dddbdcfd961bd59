"""The vmap acceptance sweep over ``jax.numpy`` (SPEC VMAP-100 .. VMAP-103):
ufuncs, reductions (axis/keepdims/where forms and the nan-variants),
statistics, shape manipulation, selection, sorting and searching, linear
algebra, indexing and ``.at`` updates, creation functions with traced
arguments, and array methods.

The harness and the signature syntax are in ``test_vmap_hypothesis.py``;
the letters ``a``, ``b``, ``c`` are the sizes 3, 2, 4, other letters 2.
Arguments that JAX requires to be static (axes, sizes, ``num``...) are bound
in the case; every array argument may be batched or not (SPEC VMAP-103).
"""
import numpy as np
import pytest

from test_vmap_hypothesis import LOOSE, case, sweep_tests


def J(function, *sigs, **kw):
    """A case for ``jax.numpy.<function>`` with keyword arguments bound."""
    return case("numpy." + function, *sigs, **kw)


def fn(name, make, *sigs, tol=None):
    """A case from ``make(jnp)``, for calls that need more than keywords."""
    return case(lambda jax: make(jax.numpy), *sigs, name=name, tol=tol)


def unary(kind="f32"):
    return (f"ab:{kind}", f":{kind}", f"abc:{kind}")


def binary(k1="f32", k2=None):
    """Equal shapes, NumPy broadcasting, a scalar operand."""
    k2 = k2 or k1
    return (f"ab:{k1},ab:{k2}", f"ab:{k1},b:{k2}", f":{k1},ab:{k2}", f"a1:{k1},b:{k2}")


# ---------------------------------------------------------------------------
# Elementwise ufuncs
# ---------------------------------------------------------------------------

UNARY = {"abs": "f32", "absolute": "i32", "fabs": "f32", "negative": "i32",
         "positive": "f32", "sign": "f32", "sqrt": "pos", "cbrt": "f32",
         "square": "i32", "exp": "f32", "exp2": "f32", "expm1": "f32", "log": "pos",
         "log2": "pos", "log10": "pos", "log1p": "pos", "sin": "f32", "cos": "f32",
         "tan": "f32", "arcsin": "unit", "arccos": "unit", "arctan": "f32",
         "sinh": "f32", "cosh": "f32", "tanh": "f32", "arcsinh": "f32",
         "arccosh": "pos", "arctanh": "unit", "deg2rad": "f32", "rad2deg": "f32",
         "floor": "f32", "ceil": "f32", "trunc": "f32", "rint": "ties",
         "reciprocal": "pos", "sinc": "f32", "signbit": "f32", "isnan": "nan",
         "isinf": "f32", "isfinite": "nan", "isposinf": "f32", "isneginf": "f32",
         "nan_to_num": "nan", "spacing": "f32", "real": "c64", "imag": "c64",
         "conj": "c64", "angle": "c64", "iscomplex": "c64", "isreal": "c64",
         "logical_not": "bool", "invert": "i32", "bitwise_not": "u8",
         "bitwise_count": "i32", "modf": "f32", "frexp": "f32", "acos": "unit",
         "asin": "unit", "atan": "f32", "acosh": "pos", "asinh": "f32", "atanh": "unit",
         "conjugate": "c64", "degrees": "f32", "radians": "f32", "bitwise_invert": "i32"}

BINARY = {"add": "f32", "subtract": "i32", "multiply": "f32", "divide": "pos",
          "true_divide": "i32", "floor_divide": "nz", "remainder": "nz", "mod": "pos",
          "fmod": "pos", "power": "pos", "float_power": "pos", "arctan2": "f32",
          "hypot": "f32", "logaddexp": "f32", "logaddexp2": "f32", "maximum": "ties",
          "minimum": "ties", "fmax": "nan", "fmin": "nan", "copysign": "f32",
          "nextafter": "f32", "heaviside": "ties", "equal": "ties", "not_equal": "i32",
          "less": "ties", "less_equal": "i32", "greater": "ties", "greater_equal": "ties",
          "logical_and": "bool", "logical_or": "bool", "logical_xor": "bool",
          "bitwise_and": "i32", "bitwise_or": "bool", "bitwise_xor": "u8",
          "left_shift": "shift", "right_shift": "shift", "gcd": "nz", "lcm": "nz",
          "divmod": "nz", "isclose": "ties", "atan2": "f32", "pow": "pos",
          "bitwise_left_shift": "shift", "bitwise_right_shift": "shift"}

UFUNCS = (
    [J(n, *unary(k)) for n, k in UNARY.items()]
    + [J(n, *binary(k)) for n, k in BINARY.items()]
    + [
        J("exp", *unary("c64"), name="jnp.exp[complex64]"),
        J("add", *binary("i32", "f32"), name="jnp.add[int32,float32]"),
        J("multiply", *binary("bool", "i8"), name="jnp.multiply[bool,int8]"),
        J("maximum", *binary("u8", "i32"), name="jnp.maximum[uint8,int32]"),
        J("power", *binary("i32", "nat"), name="jnp.power[int32]"),
        J("ldexp", *binary("f32", "i32")),
        J("round", *unary("f32"), decimals=1),
        J("isclose", "ab:nan,ab:nan", equal_nan=True, name="jnp.isclose[equal_nan]"),
        fn("jnp.nan_to_num[traced]", lambda jnp: lambda x, v: jnp.nan_to_num(x, nan=v),
           "ab:nan,:f32"),
        fn("jnp.add.reduce", lambda jnp: lambda x: jnp.add.reduce(x, axis=1), "ab:f32", "abc:i32"),
        fn("jnp.multiply.accumulate", lambda jnp: lambda x: jnp.multiply.accumulate(x),
           "ab:unit"),
        fn("jnp.maximum.outer", lambda jnp: jnp.maximum.outer, "a:f32,b:f32"),
        fn("jnp.add.at", lambda jnp: lambda x, i, v: jnp.add.at(x, i, v, inplace=False),
           "a:f32,c:idx.a,c:f32", "ab:f32,:idx.a,:f32"),
        J("around", *unary("ties")),
        J("clip", "ab:f32", ":f32", min=-1.0, max=1.0, name="jnp.clip[constants]"),
        fn("jnp.clip", lambda jnp: lambda x, lo, hi: jnp.clip(x, lo, hi),
           "ab:f32,:f32,:f32", "ab:f32,b:f32,ab:f32", "ab:i32,:i32,:i32"),
        fn("jnp.where", lambda jnp: jnp.where, "ab:bool,ab:f32,ab:f32",
           ":bool,ab:f32,b:f32", "ab:bool,:f32,:i32"),
        fn("jnp.select", lambda jnp: lambda c1, c2, x, y: jnp.select([c1, c2], [x, y], -1.0),
           "ab:bool,ab:bool,ab:f32,ab:f32", "ab:bool,b:bool,ab:f32,:f32"),
        fn("jnp.choose", lambda jnp: lambda i, x, y, z: jnp.choose(i, [x, y, z], mode="clip"),
           "ab:idx.3,ab:f32,ab:f32,ab:f32", "ab:sidx.3,b:i32,ab:i32,:i32"),
        fn("jnp.where[composite]",
           lambda jnp: lambda x: jnp.where(x > 0, jnp.sqrt(jnp.abs(x)), jnp.exp(x)),
           *unary("f32")),
    ])

# ---------------------------------------------------------------------------
# Reductions and statistics
# ---------------------------------------------------------------------------

REDUCTIONS = []
for _name, _kind in [("sum", "f32"), ("prod", "unit"), ("max", "ties"), ("min", "ties"),
                     ("amax", "i32"), ("amin", "u8"), ("mean", "f32"), ("var", "f32"),
                     ("std", "f32"), ("all", "bool"), ("any", "bool"), ("ptp", "f32"),
                     ("count_nonzero", "i32"), ("nansum", "nan"), ("nanprod", "nan"),
                     ("nanmax", "nan"), ("nanmin", "nan"), ("nanmean", "nan"),
                     ("nanvar", "nan"), ("nanstd", "nan"), ("median", "f32"),
                     ("nanmedian", "nan")]:
    REDUCTIONS += [
        J(_name, f"abc:{_kind}", f"a:{_kind}", tol=LOOSE),
        J(_name, f"abc:{_kind}", f"ab:{_kind}", axis=1, tol=LOOSE),
        J(_name, f"abc:{_kind}", axis=(0, 2), keepdims=True, tol=LOOSE),
    ]
REDUCTIONS += [
    J("sum", "abc:i32", "ab:bool", axis=-1, name="jnp.sum[int]"),
    J("sum", "ab:f32", axis=0, dtype="int32", name="jnp.sum[dtype]"),
    J("mean", "ab:i32", axis=1, name="jnp.mean[int32]"),
    fn("jnp.sum[where]", lambda jnp: lambda x, m: jnp.sum(x, axis=1, where=m),
       "ab:f32,ab:bool", "abc:f32,bc:bool"),
    fn("jnp.max[where]", lambda jnp: lambda x, m: jnp.max(x, axis=0, where=m, initial=-9.0),
       "ab:f32,ab:bool", "ab:i32,b:bool"),
    fn("jnp.mean[where]", lambda jnp: lambda x, m: jnp.mean(x, where=m), "ab:f32,ab:bool",
       tol=LOOSE),
    fn("jnp.var[where]", lambda jnp: lambda x, m: jnp.var(x, axis=1, where=m), "ab:f32,ab:bool",
       tol=LOOSE),
    J("var", "abc:f32", axis=1, ddof=1, name="jnp.var[ddof]", tol=LOOSE),
    J("std", "ab:f32", axis=0, ddof=1, keepdims=True, name="jnp.std[ddof]", tol=LOOSE),
    J("prod", "abc:i32", axis=1, name="jnp.prod[int32]"),
    J("argmax", "abc:ties", "a:ties"),
    J("argmax", "abc:ties", axis=1, keepdims=True),
    J("argmin", "abc:ties", "a:i32"),
    J("argmin", "abc:ties", axis=-1),
    J("nanargmax", "abc:nan", axis=1),
    J("nanargmin", "ab:nan", "a:nan"),
    fn("jnp.average", lambda jnp: lambda x, w: jnp.average(x, axis=1, weights=w),
       "ab:f32,b:pos", "ab:f32,ab:pos", tol=LOOSE),
    J("average", "abc:f32", axis=(0, 1), name="jnp.average[unweighted]", tol=LOOSE),
    fn("jnp.average[returned]", lambda jnp: lambda x, w: jnp.average(x, 0, w, returned=True),
       "ab:f32,ab:pos", tol=LOOSE),
    fn("jnp.quantile", lambda jnp: lambda x, q: jnp.quantile(x, q, axis=1),
       "ab:f32,:prob", "abc:f32,c:prob", tol=LOOSE),
    fn("jnp.quantile[methods]", lambda jnp: lambda x, q: [
        jnp.quantile(x, q, method=m) for m in ("lower", "higher", "midpoint", "nearest")],
       "ab:f32,:prob"),
    fn("jnp.percentile", lambda jnp: lambda x: jnp.percentile(x, 30.0, axis=0,
                                                              method="nearest"),
       "ab:f32", "a:f32"),
    fn("jnp.nanquantile", lambda jnp: lambda x, q: jnp.nanquantile(x, q, axis=-1,
                                                                    keepdims=True),
       "ab:nan,:prob", tol=LOOSE),
    fn("jnp.nanpercentile", lambda jnp: lambda x: jnp.nanpercentile(x, 50.0),
       "ab:nan", tol=LOOSE),
    J("cumsum", "abc:f32", "ab:i32", axis=1),
    J("cumsum", "ab:f32", name="jnp.cumsum[flat]"),
    J("cumprod", "abc:unit", axis=0),
    J("nancumsum", "ab:nan", axis=1),
    J("nancumprod", "ab:nan", axis=0),
    J("cumulative_sum", "ab:i32", axis=1, include_initial=True),
    J("cumulative_prod", "a:unit", "ab:unit", axis=0),
    J("diff", "abc:f32", "a:i32", axis=0),
    J("diff", "ac:f32", n=2, name="jnp.diff[n=2]"),
    fn("jnp.diff[prepend]", lambda jnp: lambda x, p: jnp.diff(x, axis=1, prepend=p),
       "ab:f32,a1:f32", "ab:f32,:f32"),
    J("ediff1d", "ab:f32", "a:i32"),
    fn("jnp.ediff1d[traced]", lambda jnp: lambda x, b, e: jnp.ediff1d(x, to_end=e, to_begin=b),
       "a:f32,:f32,b:f32"),
    J("trace", "aa:f32", "aab:i32"),
    J("trace", "ac:f32", offset=1, name="jnp.trace[offset]"),
    fn("jnp.allclose", lambda jnp: jnp.allclose, "ab:ties,ab:ties", "ab:f32,b:f32"),
    fn("jnp.array_equal", lambda jnp: jnp.array_equal, "ab:i32,ab:i32"),
    fn("jnp.array_equiv", lambda jnp: jnp.array_equiv, "ab:i32,b:i32"),
]

# ---------------------------------------------------------------------------
# Shape manipulation
# ---------------------------------------------------------------------------

SHAPES = [
    J("reshape", "abc:f32", shape=(-1,)),
    J("reshape", "ac:f32", shape=(2, 2, 3), name="jnp.reshape[split]"),
    J("reshape", "ab:f32", shape=(2, 3), order="F", name="jnp.reshape[F]"),
    J("ravel", "abc:f32", ":i32"),
    J("transpose", "abc:f32", "ab:i32"),
    J("transpose", "abc:f32", axes=(1, 2, 0), name="jnp.transpose[axes]"),
    J("permute_dims", "abc:f32", axes=(2, 0, 1)),
    J("matrix_transpose", "abc:f32", "ab:f32"),
    J("moveaxis", "abc:f32", source=0, destination=-1),
    J("swapaxes", "abc:f32", axis1=0, axis2=2),
    J("rollaxis", "abc:f32", axis=2),
    J("squeeze", "a1b:f32", "1:f32"),
    J("squeeze", "1a1:f32", axis=2, name="jnp.squeeze[axis]"),
    J("expand_dims", "ab:f32", ":f32", axis=0),
    J("expand_dims", "ab:f32", axis=(1, 3), name="jnp.expand_dims[tuple]"),
    J("atleast_1d", ":f32", "ab:f32"),
    J("atleast_2d", ":f32", "a:f32"),
    J("atleast_3d", "a:f32", "ab:f32"),
    J("broadcast_to", "b:f32", "1b:f32", shape=(3, 2)),
    fn("jnp.broadcast_arrays", lambda jnp: jnp.broadcast_arrays, "ab:f32,b:i32", "a1:f32,:f32"),
    fn("jnp.concatenate", lambda jnp: lambda x, y: jnp.concatenate([x, y], axis=1),
       "ab:f32,ac:f32", "ab:f32,ab:i32"),
    fn("jnp.concatenate[None]", lambda jnp: lambda x, y: jnp.concatenate([x, y], axis=None),
       "ab:f32,c:f32"),
    fn("jnp.concat", lambda jnp: lambda x, y: jnp.concat([x, y]), "ab:f32,cb:f32"),
    fn("jnp.stack", lambda jnp: lambda x, y: jnp.stack([x, y], axis=-1), "ab:f32,ab:f32",
       ":f32,:f32"),
    fn("jnp.hstack", lambda jnp: lambda x, y: jnp.hstack([x, y]), "ab:f32,ac:f32", "a:f32,b:f32"),
    fn("jnp.vstack", lambda jnp: lambda x, y: jnp.vstack([x, y]), "ab:f32,cb:f32", "b:f32,b:f32"),
    fn("jnp.dstack", lambda jnp: lambda x, y: jnp.dstack([x, y]), "ab:f32,ab:f32"),
    fn("jnp.column_stack", lambda jnp: lambda x, y: jnp.column_stack([x, y]),
       "a:f32,ab:f32", "a:f32,a:f32"),
    fn("jnp.append", lambda jnp: lambda x, y: jnp.append(x, y, axis=0), "ab:f32,cb:f32"),
    fn("jnp.append[flat]", lambda jnp: jnp.append, "ab:f32,:f32"),
    J("split", "ac:f32", indices_or_sections=2, axis=1),
    J("split", "c:f32", indices_or_sections=(1, 3), name="jnp.split[indices]"),
    J("array_split", "ca:f32", indices_or_sections=3, axis=0),
    J("hsplit", "ac:f32", indices_or_sections=2),
    J("vsplit", "cb:f32", indices_or_sections=2),
    J("dsplit", "abc:f32", indices_or_sections=2),
    J("unstack", "ab:f32", axis=1),
    J("tile", "ab:f32", ":i32", reps=(2, 1)),
    J("repeat", "ab:f32", ":f32", repeats=2),
    fn("jnp.repeat[array]", lambda jnp: lambda x: jnp.repeat(x, np.array([1, 2, 0]), axis=0),
       "ab:f32"),
    fn("jnp.repeat[traced]", lambda jnp: lambda x, r: jnp.repeat(x, r, axis=0,
                                                                  total_repeat_length=5),
       "ab:f32,a:nat"),
    J("pad", "ab:f32", ":i32", pad_width=1),
    J("pad", "ab:f32", pad_width=((1, 0), (0, 2)), mode="edge", name="jnp.pad[edge]"),
    J("pad", "ab:f32", pad_width=((2, 1), (1, 1)), mode="reflect", name="jnp.pad[reflect]"),
    J("pad", "ab:f32", pad_width=((2, 3), (0, 1)), mode="wrap", name="jnp.pad[wrap]"),
    J("pad", "ab:f32", pad_width=((1, 1), (2, 0)), mode="symmetric",
      name="jnp.pad[symmetric]"),
    fn("jnp.pad[constant_values]", lambda jnp: lambda x, v: jnp.pad(x, ((1, 0), (0, 2)),
                                                                     constant_values=v),
       "ab:f32,:f32"),
    J("flip", "abc:f32", ":f32"),
    J("flip", "abc:f32", axis=(0, 2), name="jnp.flip[axes]"),
    J("fliplr", "ab:f32"),
    J("flipud", "ab:i32"),
    J("roll", "abc:f32", shift=1, axis=1),
    J("roll", "ab:f32", shift=-4, name="jnp.roll[flat]"),
    fn("jnp.roll[traced]", lambda jnp: lambda x, s: jnp.roll(x, s, axis=0), "ab:f32,:sidx.5"),
    J("rot90", "ab:f32", "abc:f32"),
    J("rot90", "ab:f32", k=3, axes=(1, 0), name="jnp.rot90[k=3]"),
    J("diagonal", "ab:f32", "abc:f32"),
    J("diagonal", "abc:f32", offset=-1, axis1=2, axis2=0, name="jnp.diagonal[axes]"),
    J("diag", "a:f32", "ab:f32"),
    J("diag", "a:f32", k=1, name="jnp.diag[k=1]"),
    J("diagflat", "ab:f32"),
    J("tril", "ab:f32", "cab:f32"),
    J("triu", "ac:f32", k=1),
    J("copy", "ab:f32"),
    J("asarray", "ab:f32", dtype="float16"),
    fn("jnp.astype", lambda jnp: lambda x: jnp.astype(x, "int32"), "ab:f32"),
    fn("jnp.astype[bool]", lambda jnp: lambda x: jnp.astype(x, bool), "ab:i32"),
]

# ---------------------------------------------------------------------------
# Sorting, searching, selection
# ---------------------------------------------------------------------------

SORTING = [
    J("sort", "abc:ties", "a:i32"),
    J("sort", "ab:nan", axis=0, name="jnp.sort[axis=0]"),
    J("sort", "ab:f32", axis=None, name="jnp.sort[flat]"),
    J("sort", "ab:ties", descending=True, stable=True, name="jnp.sort[descending]"),
    J("argsort", "abc:ties", "a:i32"),
    J("argsort", "ab:ties", axis=0, descending=True, name="jnp.argsort[descending]"),
    J("partition", "ac:f32", kth=1),
    J("argpartition", "ac:f32", kth=2),
    fn("jnp.lexsort", lambda jnp: lambda k1, k2: jnp.lexsort((k1, k2)),
       "ab:ties,ab:ties", "a:ties,a:i32"),
    J("searchsorted", "c:sorted,ab:f32", "c:sorted,:f32"),
    J("searchsorted", "c:sorted,a:ties", side="right", name="jnp.searchsorted[right]"),
    J("searchsorted", "c:sorted,a:ties", method="sort", name="jnp.searchsorted[sort]"),
    J("searchsorted", "c:sorted,a:ties", method="compare_all",
      name="jnp.searchsorted[compare_all]"),
    J("unique", "c:ties", "ab:ties", size=3, fill_value=0.0),
    fn("jnp.unique[inverse,counts]",
       lambda jnp: lambda x: jnp.unique(x, return_inverse=True, return_counts=True, size=4),
       "c:ties"),
    fn("jnp.unique_counts", lambda jnp: lambda x: jnp.unique_counts(x, size=3), "c:ties"),
    fn("jnp.unique_all", lambda jnp: lambda x: tuple(jnp.unique_all(x, size=3)), "c:ties"),
    fn("jnp.unique_inverse", lambda jnp: lambda x: tuple(jnp.unique_inverse(x, size=3)),
       "ab:ties"),
    fn("jnp.unique_values", lambda jnp: lambda x: jnp.unique_values(x, size=2), "c:ties"),
    J("nonzero", "ab:i32", "a:bool", size=3),
    J("argwhere", "ab:bool", size=4, fill_value=-1),
    J("flatnonzero", "ab:ties", size=2),
    fn("jnp.compress", lambda jnp: lambda c, x: jnp.compress(c, x, axis=0, size=2),
       "a:bool,ab:f32"),
    J("bincount", "c:idx.3", length=5),
    fn("jnp.bincount[weights]", lambda jnp: lambda x, w: jnp.bincount(x, w, length=3),
       "c:idx.3,c:f32"),
    J("count_nonzero", "ab:bool", axis=0, keepdims=True, name="jnp.count_nonzero[bool]"),
]

# ---------------------------------------------------------------------------
# Products and linear algebra
# ---------------------------------------------------------------------------


def _spd(jnp, a):
    return a @ a.T + 3 * jnp.eye(a.shape[0], dtype=a.dtype)


def _well_conditioned(jnp, a):
    return a + 4 * jnp.eye(a.shape[0], dtype=a.dtype)


PRODUCTS = [
    J("matmul", "ab:f32,bc:f32", "ab:f32,b:f32", "a:f32,ab:f32", "cab:f32,bd:f32"),
    J("matmul", "ab:i32,bc:i32", name="jnp.matmul[int32]"),
    J("dot", "ab:f32,bc:f32", "a:f32,a:f32", ":f32,ab:f32", "cab:f32,bd:f32"),
    J("vdot", "ab:f32,ab:f32", "a:c64,a:c64"),
    J("vecdot", "ab:f32,ab:f32", "ab:f32,b:f32"),
    J("inner", "ab:f32,cb:f32", "a:f32,a:f32"),
    J("outer", "a:f32,b:f32", "ab:f32,c:i32"),
    J("tensordot", "ab:f32,bc:f32", axes=1),
    J("tensordot", "abc:f32,bcd:f32", axes=2, name="jnp.tensordot[axes=2]"),
    J("tensordot", "abc:f32,cda:f32", axes=((0, 2), (2, 0)), name="jnp.tensordot[pairs]"),
    J("kron", "ab:f32,ba:f32", "a:i32,b:i32"),
    fn("jnp.einsum[ij,jk]", lambda jnp: lambda x, y: jnp.einsum("ij,jk->ik", x, y),
       "ab:f32,bc:f32"),
    fn("jnp.einsum[ii]", lambda jnp: lambda x: jnp.einsum("ii->i", x), "aa:f32"),
    fn("jnp.einsum[batch]", lambda jnp: lambda x, y: jnp.einsum("bij,bjk->bik", x, y),
       "cab:f32,cbd:f32"),
    fn("jnp.einsum[i,i]", lambda jnp: lambda x, y: jnp.einsum("i,i->", x, y), "a:f32,a:f32"),
    fn("jnp.einsum[ellipsis]", lambda jnp: lambda x, y: jnp.einsum("...ij,j->...i", x, y),
       "cab:f32,b:f32"),
    fn("jnp.einsum[three]", lambda jnp: lambda x, y, z: jnp.einsum("ij,jk,kl->il", x, y, z),
       "ab:f32,bc:f32,cd:f32", tol=LOOSE),
    J("cross", "a3:f32,a3:f32", "3:f32,a3:f32"),
    J("convolve", "c:f32,b:f32", "a:i32,a:i32"),
    J("convolve", "c:f32,b:f32", mode="same", name="jnp.convolve[same]"),
    J("correlate", "c:f32,b:f32", mode="full"),
    fn("jnp.linalg.inv", lambda jnp: lambda a: jnp.linalg.inv(_well_conditioned(jnp, a)),
       "aa:unit", tol=LOOSE),
    fn("jnp.linalg.solve", lambda jnp: lambda a, b: jnp.linalg.solve(_well_conditioned(jnp, a),
                                                                      b),
       "aa:unit,ab:f32", "aa:unit,a:f32", tol=LOOSE),
    J("linalg.det", "aa:f32", "caa:f32", tol=LOOSE),
    J("linalg.slogdet", "aa:f32", tol=LOOSE),
    fn("jnp.linalg.cholesky", lambda jnp: lambda a: jnp.linalg.cholesky(_spd(jnp, a)),
       "aa:f32", tol=LOOSE),
    fn("jnp.linalg.eigh", lambda jnp: lambda a: jnp.linalg.eigh(a + a.T), "aa:f32", tol=LOOSE),
    fn("jnp.linalg.eigvalsh", lambda jnp: lambda a: jnp.linalg.eigvalsh(a + a.T), "aa:f32",
       tol=LOOSE),
    J("linalg.svd", "ab:f32", full_matrices=False, tol=LOOSE),
    J("linalg.svdvals", "ab:f32", "aa:f32", tol=LOOSE),
    J("linalg.qr", "ab:f32", "aa:f32", tol=LOOSE),
    J("linalg.qr", "ab:f32", mode="r", name="jnp.linalg.qr[r]", tol=LOOSE),
    J("linalg.norm", "ab:f32", "a:f32", tol=LOOSE),
    J("linalg.norm", "ab:f32", ord=1, name="jnp.linalg.norm[ord=1]", tol=LOOSE),
    J("linalg.norm", "ab:f32", ord=2, name="jnp.linalg.norm[ord=2]", tol=LOOSE),
    J("linalg.norm", "ab:f32", ord="nuc", name="jnp.linalg.norm[nuc]", tol=LOOSE),
    J("linalg.norm", "abc:f32", axis=1, ord=3, name="jnp.linalg.norm[vector]", tol=LOOSE),
    J("linalg.vector_norm", "ab:f32", ord=1, tol=LOOSE),
    J("linalg.matrix_norm", "cab:f32", ord="fro", tol=LOOSE),
    J("linalg.pinv", "ab:f32", tol=(1e-3, 1e-4)),
    J("linalg.matrix_power", "aa:f32", n=3, tol=LOOSE),
    J("linalg.matrix_power", "aa:i32", n=0, name="jnp.linalg.matrix_power[n=0]"),
    J("linalg.matrix_rank", "ab:f32", "aa:f32"),
    J("linalg.trace", "aa:f32", "caa:f32"),
    J("linalg.diagonal", "cab:f32"),
    J("linalg.outer", "a:f32,b:f32"),
    J("linalg.tensordot", "ab:f32,bc:f32", axes=1),
    J("linalg.vecdot", "ab:f32,ab:f32"),
    J("linalg.cross", "a3:f32,3:f32"),
    J("linalg.matmul", "cab:f32,bd:f32"),
    J("linalg.matrix_transpose", "cab:f32"),
]

# ---------------------------------------------------------------------------
# Indexing, take, .at updates
# ---------------------------------------------------------------------------

INDEXING = [
    fn("x[i]", lambda jnp: lambda x, i: x[i], "ab:f32,:sidx.a", "ab:f32,c:idx.a",
       "a:i32,cb:sidx.a"),
    fn("x[:,i]", lambda jnp: lambda x, i: x[:, i], "ab:f32,:idx.b", "abc:f32,c:sidx.b"),
    fn("x[i,j]", lambda jnp: lambda x, i, j: x[i, j], "ab:f32,c:idx.a,c:idx.b",
       "ab:f32,:idx.a,c:idx.b"),
    fn("x[i,:,j]", lambda jnp: lambda x, i, j: x[i, :, j], "abc:f32,d:idx.a,d:idx.c"),
    fn("x[static]", lambda jnp: lambda x: x[1:, ::-1, None, 0], "abc:f32"),
    fn("x[...,0]", lambda jnp: lambda x: x[..., 0], "abc:f32", "a:i32"),
    fn("x[mask_static]", lambda jnp: lambda x: x[np.array([True, False, True])], "ab:f32"),
    fn("x.at[i].set", lambda jnp: lambda x, i, v: x.at[i].set(v),
       "ab:f32,:idx.a,b:f32", "ab:f32,:sidx.a,:f32", "ab:i32,a1:perm.a,1b:i32"),
    fn("x.at[i].add", lambda jnp: lambda x, i, v: x.at[i].add(v),
       "ab:f32,c:idx.a,cb:f32", "ab:f32,:idx.a,:f32"),
    fn("x.at[:,i].mul", lambda jnp: lambda x, i, v: x.at[:, i].multiply(v),
       "ab:f32,:idx.b,a:f32", "ab:f32,c:idx.b,:f32"),
    fn("x.at[i].min", lambda jnp: lambda x, i, v: x.at[i].min(v), "ab:f32,c:idx.a,cb:f32"),
    fn("x.at[i,j].max", lambda jnp: lambda x, i, j, v: x.at[i, j].max(v),
       "ab:i32,c:idx.a,c:idx.b,c:i32"),
    fn("x.at[i].get[fill]", lambda jnp: lambda x, i: x.at[i].get(mode="fill", fill_value=-1.0),
       "ab:f32,c:sidx.5"),
    fn("x.at[i].set[drop]", lambda jnp: lambda x, i, v: x.at[i].set(v, mode="drop"),
       "a:f32,c:idx.5,c:f32"),
    fn("x.at[1:].set", lambda jnp: lambda x, v: x.at[1:].set(v), "ab:f32,b:f32", "ab:f32,:f32"),
    fn("x.at[i].apply", lambda jnp: lambda x, i: x.at[i].apply(jnp.negative), "a:f32,c:idx.a"),
    J("take", "ab:f32,c:idx.a", "ab:f32,:idx.3", axis=0),
    J("take", "ab:f32,c:sidx.b", axis=1, mode="wrap", name="jnp.take[wrap]"),
    J("take", "ab:f32,c:sidx.8", mode="fill", fill_value=0.0, name="jnp.take[fill]"),
    J("take", "ab:f32,c:sidx.8", mode="clip", name="jnp.take[clip]"),
    J("take_along_axis", "ab:f32,cb:idx.a", "ab:f32,1b:idx.a", axis=0),
    J("take_along_axis", "ab:f32,ac:sidx.b", axis=-1, name="jnp.take_along_axis[-1]"),
    fn("jnp.put_along_axis", lambda jnp: lambda x, i, v: jnp.put_along_axis(
        x, i, v, axis=1, inplace=False), "ab:f32,a1:idx.b,a1:f32", "ab:f32,a1:idx.b,:f32"),
    fn("jnp.put", lambda jnp: lambda x, i, v: jnp.put(x, i, v, inplace=False),
       "ab:f32,c:perm.c,c:f32"),
    fn("jnp.place", lambda jnp: lambda x, m, v: jnp.place(x, m, v, inplace=False),
       "ab:f32,ab:bool,c:f32"),
    fn("jnp.unravel_index", lambda jnp: lambda i: jnp.unravel_index(i, (3, 2)), "c:sidx.6"),
    fn("jnp.ravel_multi_index", lambda jnp: lambda i, j: jnp.ravel_multi_index(
        (i, j), (3, 2), mode="clip"), "c:idx.3,c:idx.2", ":idx.3,c:idx.5"),
    fn("jnp.diag_indices[x]", lambda jnp: lambda x: x[jnp.diag_indices(3)], "aa:f32"),
    fn("jnp.tril_indices[x]", lambda jnp: lambda x: x[jnp.tril_indices(3)], "aa:f32"),
    fn("jnp.triu_indices[x]", lambda jnp: lambda x: x[jnp.triu_indices(3, k=1)], "aa:f32"),
    fn("jnp.indices_from[x]", lambda jnp: lambda x: (x[jnp.tril_indices_from(x)],
                                                     x[jnp.triu_indices_from(x, k=-1)],
                                                     x[jnp.diag_indices_from(x)]), "aa:f32"),
    fn("jnp.ix_", lambda jnp: lambda x, i, j: x[jnp.ix_(i, j)], "ab:f32,c:idx.a,d:idx.b"),
]

# ---------------------------------------------------------------------------
# Creation functions with traced arguments
# ---------------------------------------------------------------------------

CREATION = [
    J("linspace", ":f32,:f32", "b:f32,b:f32", ":f32,b:f32", num=5),
    J("linspace", ":f32,:f32", num=4, endpoint=False, axis=0, name="jnp.linspace[endpoint]"),
    J("linspace", "b:f32,:f32", num=3, axis=1, name="jnp.linspace[axis=1]"),
    fn("jnp.linspace[int]", lambda jnp: lambda a, b: jnp.linspace(a, b, 4, dtype="int32"),
       ":i32,:i32"),
    J("zeros_like", "ab:f32", ":i32"),
    J("ones_like", "ab:f32", dtype="int32"),
    J("empty_like", "ab:bool"),
    fn("jnp.full_like", lambda jnp: jnp.full_like, "ab:f32,:f32", "ab:f32,b:i32"),
    fn("jnp.full", lambda jnp: lambda v: jnp.full((2, 3), v), ":f32", "3:i32"),
    fn("jnp.eye*x", lambda jnp: lambda x: jnp.eye(3, 4, k=1) * x, ":f32", "4:f32"),
    fn("jnp.identity*x", lambda jnp: lambda x: jnp.identity(3, dtype=x.dtype) + x, "a:i32"),
    fn("jnp.tri*x", lambda jnp: lambda x: jnp.tri(3, 2) * x, "b:f32"),
    fn("jnp.arange+x", lambda jnp: lambda x: jnp.arange(3) + x, "a:i32", ":f32"),
    fn("jnp.zeros,ones,empty+x", lambda jnp: lambda x: (
        jnp.zeros(2) + x, jnp.ones((2, 1), "int32") * x, jnp.empty(2) * 0 + x), ":i32"),
    fn("jnp.array[list]", lambda jnp: lambda x, y: jnp.array([x, y, x * y]), ":f32,:f32",
       "a:f32,a:f32"),
    fn("jnp.asarray[tuple]", lambda jnp: lambda x, y: jnp.asarray((x, 1.0, y)), ":f32,:f32"),
    fn("jnp.meshgrid", lambda jnp: lambda x, y: jnp.meshgrid(x, y), "a:f32,b:f32"),
    fn("jnp.meshgrid[ij,sparse]", lambda jnp: lambda x, y: jnp.meshgrid(
        x, y, indexing="ij", sparse=True), "a:f32,b:i32"),
    fn("jnp.indices+x", lambda jnp: lambda x: jnp.indices((3, 2)) * x, ":i32"),
]

# ---------------------------------------------------------------------------
# Array methods and properties
# ---------------------------------------------------------------------------

METHODS = [
    fn("x.sum", lambda jnp: lambda x: x.sum(axis=1), "ab:f32", "abc:i32"),
    fn("x.mean", lambda jnp: lambda x: x.mean(), "ab:f32", tol=LOOSE),
    fn("x.std", lambda jnp: lambda x: x.std(axis=0, ddof=1), "ab:f32", tol=LOOSE),
    fn("x.var", lambda jnp: lambda x: x.var(keepdims=True), "ab:f32", tol=LOOSE),
    fn("x.max", lambda jnp: lambda x: x.max(axis=-1), "ab:ties"),
    fn("x.min", lambda jnp: lambda x: x.min(initial=0.0), "ab:f32"),
    fn("x.prod", lambda jnp: lambda x: x.prod(axis=0), "ab:i32"),
    fn("x.any", lambda jnp: lambda x: x.any(axis=1), "ab:bool"),
    fn("x.all", lambda jnp: lambda x: x.all(), "ab:bool"),
    fn("x.argmax", lambda jnp: lambda x: x.argmax(axis=0), "ab:ties"),
    fn("x.argmin", lambda jnp: lambda x: x.argmin(), "ab:ties"),
    fn("x.argsort", lambda jnp: lambda x: x.argsort(axis=0), "ab:ties"),
    fn("x.sort", lambda jnp: lambda x: x.sort(), "ab:ties"),
    fn("x.cumsum", lambda jnp: lambda x: x.cumsum(axis=1), "ab:f32"),
    fn("x.cumprod", lambda jnp: lambda x: x.cumprod(), "ab:i32"),
    fn("x.ptp", lambda jnp: lambda x: x.ptp(axis=1), "ab:f32"),
    fn("x.T", lambda jnp: lambda x: x.T, "abc:f32", "ab:i32"),
    fn("x.mT", lambda jnp: lambda x: x.mT, "abc:f32"),
    fn("x.reshape", lambda jnp: lambda x: x.reshape(2, -1), "ab:f32"),
    fn("x.flatten", lambda jnp: lambda x: x.flatten(), "abc:f32"),
    fn("x.ravel", lambda jnp: lambda x: x.ravel(), "ab:f32"),
    fn("x.squeeze", lambda jnp: lambda x: x.squeeze(), "a1:f32"),
    fn("x.swapaxes", lambda jnp: lambda x: x.swapaxes(0, 1), "ab:f32"),
    fn("x.transpose", lambda jnp: lambda x: x.transpose(2, 0, 1), "abc:f32"),
    fn("x.astype", lambda jnp: lambda x: x.astype("float16"), "ab:f32"),
    fn("x.clip", lambda jnp: lambda x, lo: x.clip(lo, 1.0), "ab:f32,:f32"),
    fn("x.round", lambda jnp: lambda x: x.round(1), "ab:f32"),
    fn("x.conj", lambda jnp: lambda x: x.conj(), "ab:c64"),
    fn("x.real+x.imag", lambda jnp: lambda x: x.real * x.imag, "ab:c64"),
    fn("x.dot", lambda jnp: lambda x, y: x.dot(y), "ab:f32,bc:f32"),
    fn("x@y", lambda jnp: lambda x, y: x @ y, "ab:f32,b:f32", "cab:f32,bd:f32"),
    fn("x.take", lambda jnp: lambda x, i: x.take(i), "ab:f32,c:idx.6"),
    fn("x.repeat", lambda jnp: lambda x: x.repeat(2, axis=1), "ab:f32"),
    fn("x.diagonal", lambda jnp: lambda x: x.diagonal(), "ab:f32"),
    fn("x.trace", lambda jnp: lambda x: x.trace(), "aa:i32"),
    fn("x.nonzero", lambda jnp: lambda x: x.nonzero(size=2), "ab:bool"),
    fn("x.item-free[size,ndim]", lambda jnp: lambda x: x * x.size + x.ndim + x.shape[0],
       "ab:f32"),
    fn("x.copy", lambda jnp: lambda x: x.copy(), "ab:f32"),
    fn("x.view", lambda jnp: lambda x: x.view("int32"), "ab:f32"),
    fn("x.operators", lambda jnp: lambda x, y: (-x + 2 * y - x / 3 >= y ** 2) | (x % 2 < 1),
       "ab:f32,ab:f32", "ab:f32,:f32"),
    fn("x.int_operators", lambda jnp: lambda x, y: (x // y) ^ (x << 1) & ~(x >> 1),
       "ab:i32,ab:nz", "ab:i32,:nz"),
    fn("abs(x)", lambda jnp: lambda x: abs(x), "ab:i32"),
]

# ---------------------------------------------------------------------------
# More arguments that JAX accepts traced (SPEC VMAP-103)
# ---------------------------------------------------------------------------

TRACED = [
    fn("jnp.diff[append]", lambda jnp: lambda x, v: jnp.diff(x, append=v), "ab:f32,:f32"),
    fn("jnp.select[default]", lambda jnp: lambda c, x, d: jnp.select([c], [x], default=d),
       "ab:bool,ab:f32,:f32"),
    fn("jnp.isclose[rtol]", lambda jnp: lambda x, y, r: jnp.isclose(x, y, rtol=r, atol=0.0),
       "ab:f32,ab:f32,:prob"),
    fn("jnp.unique[fill_value]", lambda jnp: lambda x, v: jnp.unique(x, size=4, fill_value=v),
       "c:ties,:f32"),
    fn("jnp.nonzero[fill_value]", lambda jnp: lambda x, v: jnp.nonzero(
        x, size=4, fill_value=v), "ab:bool,:i32"),
    fn("jnp.linalg.pinv[rtol]", lambda jnp: lambda x, r: jnp.linalg.pinv(x, rtol=r),
       "ab:f32,:prob", tol=(1e-3, 1e-4)),
    fn("jnp.linalg.matrix_rank[rtol]", lambda jnp: lambda x, r: jnp.linalg.matrix_rank(
        x, rtol=r), "ab:f32,:prob"),
]

NUMPY_CASES = (UFUNCS + REDUCTIONS + SHAPES + SORTING + PRODUCTS + INDEXING + CREATION
               + METHODS + TRACED)

test_numpy_matches_stacking, test_numpy_no_unrolling = sweep_tests(NUMPY_CASES, "VMAP-103")


@pytest.mark.spec("VMAP-103")
def test_take_fill_value_stays_static(jax, jnp):
    """``take``'s ``fill_value`` is static: a batched one is rejected."""
    take = jax.vmap(lambda x, v: jnp.take(x, jnp.array([0, 5]), mode="fill", fill_value=v))
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        take(jnp.ones((2, 3)), jnp.zeros(2))
