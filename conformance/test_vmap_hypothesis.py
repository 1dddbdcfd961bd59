"""The vmap acceptance sweep: every primitive, every ``jax.numpy`` function
(SPEC VMAP-100 .. VMAP-103).

Each case is a function of a few array arguments with a family of per-example
signatures.  Hypothesis draws a signature, each argument's batch axis
(``None``: the argument is the same for every example; otherwise any
position, negative ones included), ``out_axes`` and a seed for the values,
and two tests check:

* ``vmap(f, in_axes, out_axes)(*xs)`` equals ``f`` applied to each example
  and stacked along ``out_axes``: same structure, shapes, dtypes and values
  (exactly for integers and booleans; to a few ulps for floats, since a
  batched kernel may round differently) (SPEC VMAP-100, VMAP-102);
* ``make_jaxpr`` of the vmapped function has as many equations (nested
  jaxprs included) at batch size 2 as at batch size 64: batching never loops
  over the examples (SPEC VMAP-101).

This module holds the harness and the elementwise ``jax.lax`` cases;
``test_vmap_hypothesis_lax.py`` holds the other primitives and
``test_vmap_hypothesis_numpy.py`` the ``jax.numpy`` functions.

A signature is a string with one ``template:kind`` per argument, comma
separated.  The template spells the per-example shape, one character per
dimension: a letter is a named size (``SIZES``: the same letter is the same
size in every argument), a digit is that size, an empty template a scalar.
The kind names the values (``KINDS``): ``f32``, ``pos``, ``unit``, ``i32``,
``bool``, ``c64``...; ``idx.a`` is an index valid for dimension ``a`` (or for
a literal size, ``idx.5``), ``sidx.a`` one in ``[-a, a)``, ``perm.a`` a
permutation of ``range(a)`` along the first axis.
"""
import functools
import os
import string

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

# Reproducible and quick: the sweep has hundreds of cases and real JAX
# compiles every kernel of every new shape (tens of milliseconds each), so a
# case gets one example there (whose draws, being hypothesis's first, are
# each list's first entry: batch axes last, out_axes last) and several on
# refjax, where examples are cheap.  VMAP_MAX_EXAMPLES=50 searches deeper
# (``VMAP_MAX_EXAMPLES=6 --impl=jax`` checks the whole table against JAX).
EXAMPLES = {"refjax": 6}
DEFAULT_EXAMPLES = 1
# Implementations whose eager dispatch is cheap run the functions eagerly, as
# users call them; the others (real JAX compiles each eagerly run operation
# separately) run the batched and the per-example function under ``jit``,
# one fused program each.
EAGER_IMPLS = {"refjax"}


def max_examples(impl_name):
    return int(os.environ.get("VMAP_MAX_EXAMPLES",
                              EXAMPLES.get(impl_name, DEFAULT_EXAMPLES)))


def hyp(n):
    return settings(max_examples=n, deadline=None, derandomize=True,
                    database=None, suppress_health_check=list(HealthCheck))


# Fixed, distinct sizes per named dimension (an axis mixed up with another
# shows as a shape error) and a batch size unlike any of them; the drawn
# signature varies ranks, the drawn axes vary where the batch dimension sits.
# Few distinct shapes keep real JAX's compilation cache warm.
SIZES = {"a": 3, "b": 2, "c": 4}
OTHER_SIZE = 2
BATCH_SIZE = 5
# Batch sizes whose jaxprs must have the same number of equations.
UNROLL_SIZES = (2, 64)

# (rtol, atol) per floating dtype; cases with long reductions or
# factorizations pass their own.
TOLERANCE = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2),
             "float32": (2e-5, 2e-6), "complex64": (2e-5, 2e-6),
             "float64": (1e-12, 1e-14), "complex128": (1e-12, 1e-14)}
LOOSE = (2e-4, 2e-5)


# ---------------------------------------------------------------------------
# Values: kind -> (rng, shape) -> numpy array.
# ---------------------------------------------------------------------------

def _normal(dtype, scale=2.0):
    return lambda rng, shape: (rng.standard_normal(shape) * scale).astype(dtype)


def _uniform(lo, hi, dtype="float32"):
    return lambda rng, shape: rng.uniform(lo, hi, shape).astype(dtype)


def _ints(lo, hi, dtype="int32"):
    return lambda rng, shape: rng.integers(lo, hi, shape).astype(dtype)


def _complex(rng, shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype("complex64")


def _sorted(rng, shape):
    return np.sort(rng.integers(-4, 5, shape), axis=-1).astype("float32")


KINDS = {
    "f32": _normal("float32"), "f16": _normal("float16"),
    "bf16": _normal(ml_dtypes.bfloat16),
    "pos": _uniform(0.5, 3.0), "unit": _uniform(-0.9, 0.9), "prob": _uniform(0.0, 1.0),
    "c64": _complex, "sorted": _sorted,
    # Small integers so that products, powers and cumulative sums stay exact.
    "i32": _ints(-5, 6), "nz": _ints(1, 6), "nat": _ints(0, 4),
    "shift": _ints(0, 9), "ushift": _ints(0, 9, "uint32"), "i8": _ints(-100, 100, "int8"),
    "u8": _ints(0, 256, "uint8"), "u32": _ints(0, 1000, "uint32"),
    "bool": lambda rng, shape: rng.random(shape) < 0.5,
    # Floats with repeats (ties for sorting, argmax, unique...).
    "ties": lambda rng, shape: rng.integers(-2, 3, shape).astype("float32"),
    # Floats with NaNs (for the nan-functions).
    "nan": lambda rng, shape: np.where(rng.random(shape) < 0.25, np.nan,
                                       rng.standard_normal(shape)).astype("float32"),
}


def generate(kind, rng, shape, sizes, batched):
    """An array of ``kind`` and ``shape``, whose first axis is the batch axis
    when ``batched``."""
    if "." not in kind:
        return np.asarray(KINDS[kind](rng, shape))
    kind, dim = kind.split(".")
    n = sizes[dim] if dim in sizes else int(dim)
    if kind == "idx":
        return rng.integers(0, n, shape).astype("int32")
    if kind == "sidx":
        return rng.integers(-n, n, shape).astype("int32")
    # perm: the per-example first axis is a permutation of range(n).
    return np.argsort(rng.random(shape), axis=1 if batched else 0).astype("int32")


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

class Case:
    """One function under test: ``make(jax)`` returns it; ``sigs`` are its
    per-example signatures; ``tol`` overrides the float tolerance;
    ``batch_last=False`` keeps batch axes off the last position.

    A collective over the mapped axis (named ``"i"``) couples the examples,
    so its case gives ``ref``: a NumPy function from the stacked per-example
    arguments (batch axis first) to the stacked results (SPEC VMAP-104)."""

    def __init__(self, name, make, sigs, tol=None, batch_last=True, ref=None):
        self.name, self.make, self.sigs, self.tol = name, make, sigs, tol
        self.batch_last, self.ref = batch_last, ref
        self.axis_name = None if ref is None else "i"
        for sig in sigs:
            parse(sig)

    def __repr__(self):
        return self.name


def parse(sig):
    """``"ab:f32,b:i32"`` -> ``[("ab", "f32"), ("b", "i32")]``."""
    args = []
    for part in sig.split(","):
        template, kind = part.split(":")
        base = kind.split(".")[0]
        assert base in KINDS or base in ("idx", "sidx", "perm"), kind
        args.append((template, kind))
    return args


def resolve(jax, path):
    obj = jax
    for attr in path.split("."):
        obj = getattr(obj, attr)
    return obj


def case(fn, *sigs, name=None, tol=None, batch_last=True, ref=None, **kwargs):
    """A case from a dotted path under the ``jax`` module (``"lax.sin"``,
    ``"numpy.sum"``) with keyword arguments bound, or from a function of the
    module (``lambda jax: ...``), which then needs a ``name``."""
    if isinstance(fn, str):
        path = fn
        label = name or _label(path, kwargs)
        make = lambda jax: functools.partial(resolve(jax, path), **kwargs)
    else:
        assert name and not kwargs
        label, make = name, fn
    return Case(label, make, sigs, tol, batch_last, ref)


def _label(path, kwargs):
    path = path.replace("numpy.", "jnp.", 1)
    if not kwargs:
        return path
    return path + "[" + ",".join(f"{k}={_short(v)}" for k, v in kwargs.items()) + "]"


def _short(v):
    return getattr(v, "__name__", None) or str(v).replace(" ", "")


def params(cases):
    """Cases as pytest params named after the function (unique names)."""
    names = [c.name for c in cases]
    dupes = sorted({n for n in names if names.count(n) > 1})
    assert not dupes, dupes
    return [pytest.param(c, id=c.name) for c in cases]


# ---------------------------------------------------------------------------
# Drawing an example
# ---------------------------------------------------------------------------

class Example:
    """A drawn signature, sizes, batch axes and seed."""

    def __init__(self, args, sizes, in_axes, out_axis, seed):
        self.args, self.sizes = args, sizes
        self.in_axes, self.out_axis, self.seed = in_axes, out_axis, seed

    def shape(self, template, batch=BATCH_SIZE):
        """The per-example shape; ``B`` in a template is the batch size."""
        sizes = dict(self.sizes, B=batch)
        return tuple(sizes[c] if c in sizes else int(c) for c in template)

    def arrays(self, batch):
        """The arguments (numpy), batched ones with ``batch`` examples."""
        rng = np.random.default_rng(self.seed)
        out = []
        for (template, kind), axis in zip(self.args, self.in_axes):
            shape = self.shape(template, batch)
            if axis is None:
                out.append(generate(kind, rng, shape, self.sizes, False))
            else:
                x = generate(kind, rng, (batch,) + shape, self.sizes, True)
                out.append(np.moveaxis(x, 0, axis))
        return out

    def __repr__(self):
        shapes = ",".join(f"{self.shape(t)}:{k}" for t, k in self.args)
        return (f"Example({shapes}, in_axes={self.in_axes}, "
                f"out_axes={self.out_axis}, seed={self.seed})")


def draw_example(data, case):
    sig = data.draw(st.sampled_from(case.sigs), label="signature")
    args = parse(sig)
    letters = {c for t, _ in args for c in t if c in string.ascii_letters} - {"B"}
    sizes = {c: SIZES.get(c, OTHER_SIZE) for c in letters}
    in_axes = []
    for template, _ in args:
        ndim = len(template) + 1
        axes = [-1, 0, None] + list(range(1, ndim - 1)) + list(range(-ndim, -1))
        if not case.batch_last:
            axes = [a for a in axes if a is None or a % ndim != ndim - 1] or [None]
        in_axes.append(data.draw(st.sampled_from(axes), label="in_axis"))
    if all(a is None for a in in_axes):
        in_axes[0] = 0
    out_axis = data.draw(st.sampled_from([-1, 0]), label="out_axes")
    seed = data.draw(st.integers(0, 2**16), label="seed")
    return Example(args, sizes, tuple(in_axes), out_axis, seed)


# ---------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------

def example_args(xs, in_axes, i):
    """Example ``i`` of the (numpy) arguments: unmapped ones whole."""
    return [x if a is None else np.take(x, i, axis=a) for x, a in zip(xs, in_axes)]


def check_matches_stacking(jax, case, ex, batch, eager=True):
    """vmap equals stacking the per-example results (SPEC VMAP-100), or for
    a collective, its NumPy reference (SPEC VMAP-104)."""
    f = case.make(jax)
    vf = jax.vmap(f, in_axes=ex.in_axes, out_axes=ex.out_axis, axis_name=case.axis_name)
    # Eager calls get arrays (``x.at`` needs them); jitted ones take the
    # numpy inputs as they are (real JAX compiles ``asarray`` per shape).
    asarray = jax.numpy.asarray
    if not eager:
        f, vf, asarray = jax.jit(f), jax.jit(vf), np.asarray
    xs = ex.arrays(batch)
    got_leaves, got_tree = jax.tree_util.tree_flatten(vf(*map(asarray, xs)))
    examples = [example_args(xs, ex.in_axes, i) for i in range(batch)]
    if case.ref is None:
        rows = [jax.tree_util.tree_flatten(f(*map(asarray, args))) for args in examples]
        assert all(tree == got_tree for _, tree in rows), (got_tree, rows[0][1])
        wants = [np.stack([np.asarray(leaves[k]) for leaves, _ in rows], axis=ex.out_axis)
                 for k in range(len(got_leaves))]
    else:
        stacked = [np.stack(arg) for arg in zip(*examples)]
        wants = [np.moveaxis(np.asarray(w), 0, ex.out_axis)
                 for w in jax.tree_util.tree_leaves(case.ref(*stacked))]
    assert len(wants) == len(got_leaves), (case.name, got_tree)
    for k, (leaf, want) in enumerate(zip(got_leaves, wants)):
        compare(np.asarray(leaf), want, case.tol, f"{case.name} output {k} for {ex}")


def compare(got, want, tol, what):
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    if got.dtype.name not in TOLERANCE:
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    rtol, atol = tol or TOLERANCE[got.dtype.name]
    wide = "complex128" if got.dtype.kind == "c" else "float64"
    np.testing.assert_allclose(got.astype(wide), want.astype(wide), rtol=rtol,
                               atol=atol, equal_nan=True, err_msg=what)


def count_eqns(jaxpr):
    """Equations of a jaxpr and of every jaxpr nested in its parameters."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
    return sum(1 + sum(count_eqns(j) for j in _nested(eqn.params))
               for eqn in jaxpr.eqns)


def _nested(params):
    for value in params.values():
        for v in (value if isinstance(value, (tuple, list)) else (value,)):
            if hasattr(v, "eqns") or hasattr(getattr(v, "jaxpr", None), "eqns"):
                yield v


def check_no_unrolling(jax, case, ex):
    """The batched program does not grow with the batch size (SPEC VMAP-101)."""
    f = jax.vmap(case.make(jax), in_axes=ex.in_axes, out_axes=ex.out_axis,
                 axis_name=case.axis_name)
    counts = [count_eqns(jax.make_jaxpr(f)(*ex.arrays(b)))
              for b in UNROLL_SIZES]
    assert counts[0] == counts[1], (
        f"{case.name}: {counts[0]} equations at batch size {UNROLL_SIZES[0]} but "
        f"{counts[1]} at {UNROLL_SIZES[1]} for {ex}")


def sweep_tests(cases, *clauses, value_clauses=("VMAP-100", "VMAP-102")):
    """The two sweep tests over ``cases``, for a test module to bind; the
    value test cites ``value_clauses`` and ``clauses``."""

    @pytest.mark.parametrize("case", params(cases))
    def test_matches_stacking(jax, impl_name, case):
        @hyp(max_examples(impl_name))
        @given(data=st.data())
        def run(data):
            check_matches_stacking(jax, case, draw_example(data, case), BATCH_SIZE,
                                   eager=impl_name in EAGER_IMPLS)
        run()

    @pytest.mark.spec("VMAP-101")
    @pytest.mark.parametrize("case", params(cases))
    def test_no_unrolling(jax, impl_name, case):
        @hyp(max(1, max_examples(impl_name) // 2))
        @given(data=st.data())
        def run(data):
            check_no_unrolling(jax, case, draw_example(data, case))
        run()

    for clause in value_clauses + clauses:
        test_matches_stacking = pytest.mark.spec(clause)(test_matches_stacking)
    return test_matches_stacking, test_no_unrolling


# ---------------------------------------------------------------------------
# jax.lax elementwise primitives
# ---------------------------------------------------------------------------

def unary(dtype_kind):
    return (f"ab:{dtype_kind}", f":{dtype_kind}", f"abc:{dtype_kind}")


def binary(k1, k2=None):
    """Equal shapes, a scalar on either side, and size-1 broadcasting."""
    k2 = k2 or k1
    return (f"ab:{k1},ab:{k2}", f"ab:{k1},:{k2}", f":{k1},ab:{k2}",
            f"a1:{k1},ab:{k2}")


FLOAT_UNARY = {"abs": "f32", "ceil": "f32", "cos": "f32", "cosh": "f32",
               "erf": "f32", "erfc": "f32", "exp": "f32", "exp2": "f32",
               "expm1": "f32", "floor": "f32", "is_finite": "nan", "logistic": "f32",
               "neg": "f32", "round": "f32", "sign": "f32", "sin": "f32",
               "sinh": "f32", "square": "f32", "tan": "f32", "tanh": "f32",
               "atan": "f32", "asinh": "f32", "cbrt": "f32", "reciprocal": "pos",
               "log": "pos", "log1p": "pos", "sqrt": "pos", "rsqrt": "pos",
               "acos": "unit", "asin": "unit", "atanh": "unit", "erf_inv": "unit",
               "acosh": "pos", "lgamma": "pos", "digamma": "pos",
               "stop_gradient": "f32"}

FLOAT_BINARY = {"add": "f32", "sub": "f32", "mul": "f32", "div": "pos",
                "rem": "pos", "pow": "pos", "atan2": "f32", "max": "ties",
                "min": "ties", "nextafter": "f32", "eq": "ties", "ne": "ties",
                "lt": "ties", "le": "ties", "gt": "ties", "ge": "ties"}

INT_BINARY = {"add": "i32", "sub": "i32", "mul": "i32", "div": "nz", "rem": "nz",
              "max": "i32", "min": "i32", "eq": "i32", "lt": "i32",
              "bitwise_and": "i32", "bitwise_or": "i32", "bitwise_xor": "i32",
              "shift_left": "shift", "shift_right_arithmetic": "shift",
              "shift_right_logical": "shift"}

LAX_ELEMENTWISE = (
    [case(f"lax.{n}", *unary(k)) for n, k in FLOAT_UNARY.items()]
    + [case(f"lax.{n}", *binary("f32", k)) for n, k in FLOAT_BINARY.items()]
    + [case(f"lax.{n}", *binary("i32", k), name=f"lax.{n}[int32]")
       for n, k in INT_BINARY.items()]
    + [
        case("lax.abs", *unary("i32"), name="lax.abs[int32]"),
        case("lax.neg", *unary("i8"), name="lax.neg[int8]"),
        case("lax.sign", *unary("i32"), name="lax.sign[int32]"),
        case("lax.sin", *unary("f16"), name="lax.sin[float16]"),
        case("lax.exp", *unary("bf16"), name="lax.exp[bfloat16]"),
        case("lax.add", *binary("u8"), name="lax.add[uint8]"),
        case("lax.bitwise_not", *unary("i32")),
        case("lax.bitwise_not", *unary("bool"), name="lax.bitwise_not[bool]"),
        case("lax.bitwise_and", *binary("bool"), name="lax.bitwise_and[bool]"),
        case("lax.bitwise_or", *binary("bool"), name="lax.bitwise_or[bool]"),
        case("lax.bitwise_xor", *binary("u8"), name="lax.bitwise_xor[uint8]"),
        case("lax.shift_right_logical", *binary("u32", "ushift"),
             name="lax.shift_right_logical[uint32]"),
        case("lax.clz", *unary("i32")),
        case("lax.clz", *unary("u32"), name="lax.clz[uint32]"),
        case("lax.population_count", *unary("i32")),
        case("lax.population_count", *unary("u8"), name="lax.population_count[uint8]"),
        case("lax.pow", *binary("f32", "i32"), name="lax.pow[float32,int32]"),
        case("lax.integer_pow", *unary("f32"), y=3),
        case("lax.integer_pow", *unary("pos"), y=-2),
        case("lax.integer_pow", *unary("i32"), y=2, name="lax.integer_pow[int32]"),
        case(lambda jax: functools.partial(
            jax.lax.round, rounding_method=jax.lax.RoundingMethod.TO_NEAREST_EVEN),
            *unary("ties"), name="lax.round[TO_NEAREST_EVEN]"),
        case("lax.real", *unary("c64")),
        case("lax.imag", *unary("c64")),
        case("lax.conj", *unary("c64")),
        case("lax.conj", *unary("f32"), name="lax.conj[float32]"),
        case("lax.abs", *unary("c64"), name="lax.abs[complex64]"),
        case("lax.exp", *unary("c64"), name="lax.exp[complex64]"),
        case("lax.sqrt", *unary("c64"), name="lax.sqrt[complex64]"),
        case("lax.sign", *unary("c64"), name="lax.sign[complex64]"),
        case("lax.complex", *binary("f32")),
        case("lax.mul", *binary("c64"), name="lax.mul[complex64]"),
        case("lax.div", *binary("c64"), name="lax.div[complex64]"),
        case("lax.clamp", ":f32,ab:f32,:f32", "ab:f32,ab:f32,ab:f32", "ab:i32,ab:i32,ab:i32"),
        case("lax.select_n", "ab:bool,ab:f32,ab:f32", ":bool,ab:f32,ab:f32",
             "ab:idx.3,ab:f32,ab:f32,ab:f32", ":idx.3,ab:i32,ab:i32,ab:i32",
             "ab:bool,ab:f32"),
        case("lax.select", "ab:bool,ab:f32,ab:f32", ":bool,ab:f32,ab:f32"),
        case("lax.convert_element_type", *unary("f32"), new_dtype="int32"),
        case("lax.convert_element_type", *unary("i32"), new_dtype="float32",
             name="lax.convert_element_type[int32->float32]"),
        case("lax.convert_element_type", *unary("f32"), new_dtype="bool"),
        case("lax.convert_element_type", *unary("bool"), new_dtype="float32",
             name="lax.convert_element_type[bool->float32]"),
        case("lax.convert_element_type", *unary("f32"), new_dtype="bfloat16"),
        case("lax.convert_element_type", *unary("f32"), new_dtype="complex64"),
        case("lax.bitcast_convert_type", *unary("f32"), new_dtype="int32"),
        case("lax.bitcast_convert_type", *unary("i32"), new_dtype="float32",
             name="lax.bitcast_convert_type[int32->float32]"),
        case("lax.bitcast_convert_type", *unary("f32"), new_dtype="uint8"),
        # JAX's rule cannot batch along the trailing axis that the
        # conversion consumes.
        case("lax.bitcast_convert_type", "a4:u8", "ab4:u8", new_dtype="float32",
             name="lax.bitcast_convert_type[uint8->float32]", batch_last=False),
        case("lax.bitcast_convert_type", *unary("f16"), new_dtype="int16"),
        case("lax.reduce_precision", *unary("f32"), exponent_bits=5, mantissa_bits=10),
        case("lax.reduce_precision", *unary("f32"), exponent_bits=8, mantissa_bits=7),
    ])

test_lax_elementwise_matches_stacking, test_lax_elementwise_no_unrolling = \
    sweep_tests(LAX_ELEMENTWISE)
