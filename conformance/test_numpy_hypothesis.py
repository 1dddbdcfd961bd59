"""Property-based conformance: ``jax.numpy`` against NumPy (SPEC NPH-*).

Hypothesis draws shapes (0 to 3 dimensions, sides 0 to 4), dtypes and values;
each test computes the same function with NumPy in a wide type (float64, or
int64 for integers) on the *same* inputs converted the way JAX converts them,
rounds that reference to the output dtype, and compares.  Integer and boolean
results must match exactly (integer overflow wraps in both); floating results
within a tolerance of the output dtype.

The expected result dtype is never asked of the implementation under test: it
is derived from the promotion tables observed on JAX (``test_dtypes.py``) and
from each family's rule, written out below (``to_inexact``, ``to_numeric``,
``sum_dtype``...).  This module holds the shared machinery and the elementwise
families; ``test_numpy_hypothesis_reductions.py`` and
``test_numpy_hypothesis_arrays.py`` hold the rest.
"""
import math
import os
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from test_dtypes import CODES, TABLE_X32, TABLE_X64, expected_dtype, parse_table

# ---------------------------------------------------------------------------
# Settings shared by every test in the NPH-* files.
# ---------------------------------------------------------------------------

# Reproducible (derandomize, no example database) and quick; set
# NPH_MAX_EXAMPLES=300 for a deeper search.  The health checks are off because
# the harness's autouse fixtures are function scoped (they only toggle
# jax_enable_x64, which is safe to share between examples) and because some
# families filter values (non-zero divisors).
HYP = settings(max_examples=int(os.environ.get("NPH_MAX_EXAMPLES", 20)),
               deadline=None, derandomize=True,
               database=None, suppress_health_check=list(HealthCheck))

# Each test runs once with x64 off and once with it on (then int64/float64
# join the drawn dtypes).
MODES = [pytest.param(False, id="x32"), pytest.param(True, id="x64")]

# Hypothesis starts from (and shrinks towards) the first entry, so the most
# used types come first; under x64 the 64-bit types lead.
BASE_DTYPES = ["float32", "int32", "bool", "float16", "bfloat16", "int8",
               "uint8", "int16", "uint32"]
X64_DTYPES = ["float64", "int64"]

# (rtol, atol) per floating output dtype: a few units in the last place.
TOLERANCE = {"float16": (4e-3, 1e-3), "bfloat16": (3e-2, 1e-2),
             "float32": (2e-5, 1e-6), "float64": (1e-12, 1e-14)}

SPECIALS = [math.nan, math.inf, -math.inf, -0.0]


def set_mode(request, x64_on):
    """Turn jax_enable_x64 on for this test when the mode asks for it (the
    ``x64`` fixture restores the setting afterwards); returns the mode."""
    if x64_on:
        request.getfixturevalue("x64")
    return x64_on


def npdtype(name):
    """NumPy dtype object for a dtype name (bfloat16 comes from ml_dtypes)."""
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def kind(name):
    """'b', 'i', 'u' or 'f' (bfloat16 counts as 'f')."""
    return "f" if name == "bfloat16" else npdtype(name).kind


def dtype_pool(x64, kinds="biuf"):
    names = (X64_DTYPES if x64 else []) + BASE_DTYPES
    return [n for n in names if kind(n) in kinds]


def draw_dtypes(data, x64, n, kinds="biuf"):
    """n dtype names: half the time one shared dtype (so that same-type
    operands such as bool with bool come up often), else drawn independently."""
    pool = st.sampled_from(dtype_pool(x64, kinds))
    if data.draw(st.booleans()):
        return [data.draw(pool)] * n
    return [data.draw(pool) for _ in range(n)]


# ---------------------------------------------------------------------------
# Dtype rules, encoded independently of the implementation under test.
# ---------------------------------------------------------------------------

_CODE = {name: code for code, name in CODES.items()}
_TABLES = {False: parse_table(TABLE_X32)[1], True: parse_table(TABLE_X64)[1]}


def code_of(x):
    """Promotion-table code of an operand: a dtype name, or a Python scalar."""
    if isinstance(x, str):
        return _CODE[x]
    if isinstance(x, bool):
        return "b1"                     # Python bools are not weakly typed
    return "i*" if isinstance(x, int) else "f*"


def join(codes, x64):
    """JAX's result_type of operands with these table codes: (name, weak)."""
    table = _TABLES[x64]
    acc = codes[0]
    for c in codes[1:]:
        acc = table[c, acc]
    return expected_dtype(acc, x64) if acc.endswith("*") else (CODES[acc], False)


def result_name(codes, x64):
    return join(codes, x64)[0]


def canonical(name, x64):
    """The dtype a request for `name` gives (64-bit types narrow under x32)."""
    if x64:
        return name
    return {"int64": "int32", "uint64": "uint32", "float64": "float32"}.get(name, name)


def to_inexact(name, x64):
    """Inexact functions: bool and integers up to 32 bits give float32,
    64-bit integers float64; floating types are kept."""
    if kind(name) in "biu":
        name = "float64" if name in ("int64", "uint64") else "float32"
    return canonical(name, x64)


def to_numeric(name):
    """Numeric-only functions turn bool into int32 (also under x64)."""
    return "int32" if name == "bool" else name


def default_float(x64):
    return "float64" if x64 else "float32"


def default_int(x64):
    return "int64" if x64 else "int32"


def sum_dtype(name, x64):
    """sum/prod/trace: bool and narrower integers accumulate in the default
    integer of their signedness; other types are kept."""
    if name == "bool" or kind(name) == "i":
        return default_int(x64)
    if kind(name) == "u":
        return "uint64" if x64 else "uint32"
    return name


def wide(name):
    """Type the NumPy reference computes in."""
    return {"b": "bool", "i": "int64", "u": "int64", "f": "float64"}[kind(name)]


# ---------------------------------------------------------------------------
# Drawing inputs.
# ---------------------------------------------------------------------------

def elements(name, lo, hi, specials=False, nonzero=False):
    """Strategy for values of dtype `name` in [lo, hi] (clipped to the type)."""
    if name == "bool":
        return st.just(True) if nonzero else st.booleans()
    if kind(name) in "iu":
        info = np.iinfo(npdtype(name))
        lo_i, hi_i = max(math.ceil(lo), info.min), min(math.floor(hi), info.max)
        if hi_i < lo_i:
            lo_i = hi_i = max(0, info.min)
        values = st.integers(lo_i, hi_i)
        return values.filter(bool) if nonzero and (lo_i, hi_i) != (0, 0) else values
    width = 64 if name == "float64" else 32
    cast = float if width == 64 else (lambda v: float(np.float32(v)))
    values = st.floats(cast(lo), cast(hi), width=width, allow_subnormal=False)
    if nonzero:
        values = values.filter(bool)
    if specials:
        values = st.one_of(values, st.sampled_from(SPECIALS))
    return values


def draw_array(data, name, shape, lo=-100, hi=100, specials=False, nonzero=False):
    """A NumPy array of dtype `name` (bfloat16/float16 drawn as float32)."""
    base = npdtype(name)
    if kind(name) == "f" and name != "float64":
        base = np.dtype("float32")
    if name == "bool":
        base = np.dtype(bool)
    arr = data.draw(hnp.arrays(base, shape, elements=elements(
        name, lo, hi, specials, nonzero)))
    return arr.astype(npdtype(name))


def draw_shape(data, min_dims=0, max_dims=3, min_side=0, max_side=4):
    return data.draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims,
                                      min_side=min_side, max_side=max_side))


def draw_shapes(data, n, max_dims=3):
    """n mutually broadcastable shapes."""
    return data.draw(hnp.mutually_broadcastable_shapes(
        num_shapes=n, min_dims=0, max_dims=max_dims, min_side=0,
        max_side=4)).input_shapes


class Arg:
    """One operand: `value` goes to jnp, `array` to NumPy, `dtype` names its
    dtype, or is the Python scalar itself for a weakly typed operand."""

    def __init__(self, value, array, dtype):
        self.value, self.array, self.dtype = value, array, dtype

    @property
    def code(self):
        return code_of(self.dtype)

    def to(self, name):
        """The operand converted to `name` (as JAX converts it), then widened
        to the type the reference computes in."""
        with np.errstate(all="ignore"):
            return np.asarray(self.array).astype(npdtype(name)).astype(npdtype(wide(name)))


def draw_arg(data, jnp, name, shape, lo=-100, hi=100, specials=False,
             nonzero=False):
    """An array operand of dtype `name` (see `elements` for the values)."""
    arr = draw_array(data, name, shape, lo, hi, specials, nonzero)
    return Arg(jnp.asarray(arr), arr, name)


def draw_scalar(data, use_float, lo, hi, nonzero=False):
    """A weakly typed Python scalar operand.  Ints are kept small and >= 0 so
    that they fit every integer dtype; floats are float32 values that are
    normal in float32 (XLA on CPU flushes subnormals to zero, NumPy does not:
    backend behaviour, not a rule)."""
    if use_float:
        v = data.draw(elements("float32", lo, hi, nonzero=nonzero))
    else:
        v = data.draw(elements("int8", max(lo, 0), min(hi, 100), nonzero=nonzero))
    return Arg(v, np.asarray(v), v)


def draw_operands(data, jnp, x64, n, kinds="biuf", lo=-100, hi=100,
                  specials=False, scalars=True, nonzero_last=False):
    """n operands with broadcastable shapes; with `scalars`, the last one is
    sometimes a Python scalar (weakly typed)."""
    shapes = draw_shapes(data, n)
    names = draw_dtypes(data, x64, n, kinds)
    args = []
    for i, (shape, name) in enumerate(zip(shapes, names)):
        nonzero = nonzero_last and i == n - 1
        if scalars and i == n - 1 and data.draw(st.integers(0, 3)) == 0:
            use_float = "f" in kinds and data.draw(st.booleans())
            args.append(draw_scalar(data, use_float, lo, hi, nonzero))
        else:
            args.append(draw_arg(data, jnp, name, shape, lo, hi, specials, nonzero))
    return args


# ---------------------------------------------------------------------------
# Comparing.
# ---------------------------------------------------------------------------

def check(got, want, dtype, mag=None, what=""):
    """`got` (from jnp) has dtype `dtype` and matches the wide reference
    `want` rounded to `dtype`: exactly for bool/integers; for floating types
    within TOLERANCE (plus rtol * `mag` where a magnitude bound is given, for
    sums whose terms may cancel), NaN where NaN, infinities equal."""
    assert str(got.dtype) == dtype, f"{what}: dtype {got.dtype}, expected {dtype}"
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    with np.errstate(all="ignore"):
        want = want.astype(npdtype(dtype))
    if kind(dtype) != "f":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    g, w = got.astype(np.float64), want.astype(np.float64)
    rtol, atol = TOLERANCE[dtype]
    bound = atol + rtol * np.abs(w)
    if mag is not None:
        bound = bound + rtol * np.abs(np.asarray(mag, np.float64))
    with np.errstate(all="ignore"):
        ok = (g == w) | (np.isnan(g) & np.isnan(w)) | (np.abs(g - w) <= bound)
    if not ok.all():
        bad = np.argwhere(~ok)[:5]
        rows = [f"  at {tuple(i)}: got {g[tuple(i)]!r}, want {w[tuple(i)]!r}" for i in bad]
        raise AssertionError(f"{what}: {int((~ok).sum())} of {ok.size} differ\n"
                             + "\n".join(rows))


def reference(fn, *args, **kwargs):
    """fn(*args, **kwargs) with NumPy's floating-point warnings silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def describe(*args, **kw):
    """A short text naming a call's operands (dtype[shape]) and options."""
    parts = [f"{a.dtype}{list(np.shape(a.array))}" if isinstance(a, Arg) else repr(a)
             for a in args]
    parts += [f"{k}={v!r}" for k, v in kw.items()]
    return ", ".join(parts)


# ---------------------------------------------------------------------------
# NPH-1: unary functions that promote to inexact.
# ---------------------------------------------------------------------------

# name: (NumPy reference, low, high).  Ranges cover the domain and a little
# outside it (where the result is NaN in both), and keep float32 conditioning
# sane (tan away from its poles).
UNARY_INEXACT = {
    "sin": (np.sin, -20, 20), "cos": (np.cos, -20, 20), "tan": (np.tan, -1.5, 1.5),
    "arcsin": (np.arcsin, -1.2, 1.2), "arccos": (np.arccos, -1.2, 1.2),
    "arctan": (np.arctan, -100, 100), "sinh": (np.sinh, -10, 10),
    "cosh": (np.cosh, -10, 10), "tanh": (np.tanh, -20, 20),
    "arcsinh": (np.arcsinh, -100, 100), "arccosh": (np.arccosh, 0.5, 100),
    "arctanh": (np.arctanh, -1.1, 1.1), "exp": (np.exp, -20, 20),
    "exp2": (np.exp2, -30, 30), "expm1": (np.expm1, -20, 20),
    "log": (np.log, -1, 1000), "log2": (np.log2, -1, 1000),
    "log10": (np.log10, -1, 1000), "log1p": (np.log1p, -1.5, 100),
    "sqrt": (np.sqrt, -1, 1000), "cbrt": (np.cbrt, -1000, 1000),
    "reciprocal": (np.reciprocal, -100, 100),
}


def sensitivity(np_fn, v, out):
    """How far fn moves when its input moves by one rtol (relative), divided
    by rtol: ill-conditioned points (exp2 of large x, tan near a pole) get a
    proportionally wider band.  JAX computes narrow types with narrow
    intermediates (bfloat16 exp2(11) is 1984, not 2048), so the check is
    that the result is fn of an input within one rtol of the given one."""
    rtol = TOLERANCE[out][0]
    f0 = reference(np_fn, v)
    moved = [reference(np_fn, v * (1 + d)) for d in (rtol, -rtol)]
    with np.errstate(all="ignore"):
        spread = sum(np.abs(m - f0) for m in moved) / rtol
    return np.nan_to_num(spread, nan=0.0, posinf=np.inf)


@pytest.mark.spec("NPH-1")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", sorted(UNARY_INEXACT))
@HYP
@given(data=st.data())
def test_unary_inexact(jnp, request, x64_on, name, data):
    """Bool and integers of up to 32 bits give float32, 64-bit integers
    float64, floating types are kept; values as NumPy's in float64."""
    x64 = set_mode(request, x64_on)
    np_fn, lo, hi = UNARY_INEXACT[name]
    x, = draw_operands(data, jnp, x64, 1, lo=lo, hi=hi, scalars=False)
    out = to_inexact(x.dtype, x64)
    v = x.to(out)
    want = reference(np_fn, v)
    check(getattr(jnp, name)(x.value), want, out, mag=sensitivity(np_fn, v, out),
          what=f"{name}({describe(x)})")


# ---------------------------------------------------------------------------
# NPH-2: unary numeric functions that keep the dtype; rounding.
# ---------------------------------------------------------------------------

# name: (reference, dtype rule, dtypes allowed).
UNARY_NUMERIC = {
    "square": (np.square, "numeric", "biuf"),
    "abs": (np.abs, "same", "biuf"),
    "sign": (np.sign, "same", "iuf"),
    "floor": (np.floor, "same", "biuf"),
    "ceil": (np.ceil, "same", "biuf"),
    "trunc": (np.trunc, "same", "biuf"),
    "rint": (np.rint, "rint", "biuf"),
    "round": (np.round, "same", "iuf"),       # half to even
}


def _halves():
    """Values with many exact halves, so round-half-to-even is exercised."""
    return st.integers(-40, 40).map(lambda k: k / 2)


@pytest.mark.spec("NPH-2")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", sorted(UNARY_NUMERIC))
@HYP
@given(data=st.data())
def test_unary_numeric(jnp, request, x64_on, name, data):
    """Rounding keeps the dtype (rint: integers -> default float); many
    exact halves are drawn so that round-half-to-even is exercised."""
    x64 = set_mode(request, x64_on)
    np_fn, rule, kinds = UNARY_NUMERIC[name]
    dtype = data.draw(st.sampled_from(dtype_pool(x64, kinds)))
    shape = draw_shape(data)
    if kind(dtype) == "f" and data.draw(st.booleans()):
        arr = data.draw(hnp.arrays(np.float32, shape, elements=_halves())).astype(npdtype(dtype))
        x = Arg(jnp.asarray(arr), arr, dtype)
    else:
        x = draw_arg(data, jnp, dtype, shape, -200, 200, specials=True)
    out = {"numeric": to_numeric(dtype), "same": dtype,
           "rint": dtype if kind(dtype) == "f" else default_float(x64)}[rule]
    want = reference(np_fn, x.to(out))
    check(getattr(jnp, name)(x.value), want, out, what=f"{name}({describe(x)})")


# ---------------------------------------------------------------------------
# NPH-3 .. NPH-6: binary elementwise functions.
# ---------------------------------------------------------------------------

# name: (reference, dtype rule, dtype kinds, low, high, divisor non-zero).
# Rules: "same" = the promoted type, "numeric" = promoted with bool -> int32,
# "inexact" = promoted then to_inexact, "nobool" = promoted, never bool.
BINARY_ARITH = {
    "add": (np.add, "same", "biuf", -1000, 1000, False),
    "subtract": (np.subtract, "nobool", "biuf", -1000, 1000, False),
    "multiply": (np.multiply, "same", "biuf", -1000, 1000, False),
    "maximum": (np.maximum, "same", "biuf", -1000, 1000, False),
    "minimum": (np.minimum, "same", "biuf", -1000, 1000, False),
    "fmax": (np.fmax, "same", "biuf", -1000, 1000, False),
    "fmin": (np.fmin, "same", "biuf", -1000, 1000, False),
}
BINARY_DIVISION = {
    "divide": (np.divide, "inexact", "biuf", -100, 100, True),
    "true_divide": (np.true_divide, "inexact", "biuf", -100, 100, True),
    "floor_divide": (np.floor_divide, "numeric", "biuf", -100, 100, True),
    "remainder": (np.remainder, "numeric", "biuf", -100, 100, True),
    "mod": (np.mod, "numeric", "biuf", -100, 100, True),
    "fmod": (np.fmod, "numeric", "biuf", -100, 100, True),
}
BINARY_INEXACT = {
    "arctan2": (np.arctan2, "inexact", "biuf", -100, 100, False),
    "hypot": (np.hypot, "inexact", "biuf", -100, 100, False),
    "logaddexp": (np.logaddexp, "inexact", "biuf", -100, 100, False),
    "copysign": (np.copysign, "inexact", "biuf", -100, 100, False),
}


def binary_out(rule, promoted, x64):
    """The computation (and result) type of a binary family."""
    return {"same": promoted, "nobool": promoted, "numeric": to_numeric(promoted),
            "inexact": to_inexact(promoted, x64)}[rule]


def run_binary(jnp, x64, name, spec, data, specials=False):
    """Draw two operands (the second sometimes a Python scalar), convert both
    to the family's computation type, compare with NumPy there."""
    np_fn, rule, kinds, lo, hi, nonzero = spec
    x, y = draw_operands(data, jnp, x64, 2, kinds, lo, hi, specials,
                         nonzero_last=nonzero)
    promoted = result_name([x.code, y.code], x64)
    assume(rule != "nobool" or promoted != "bool")  # JAX rejects bool - bool
    out = binary_out(rule, promoted, x64)
    want = reference(np_fn, x.to(out), y.to(out))
    check(getattr(jnp, name)(x.value, y.value), want, out,
          what=f"{name}({describe(x, y)})")


@pytest.mark.spec("NPH-3")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", sorted(BINARY_ARITH))
@HYP
@given(data=st.data())
def test_binary_arithmetic(jnp, request, x64_on, name, data):
    """Computed in the promoted type; integers wrap; NaN handling of
    maximum/minimum (propagate) and fmax/fmin (ignore) as NumPy."""
    x64 = set_mode(request, x64_on)
    run_binary(jnp, x64, name, BINARY_ARITH[name], data,
               specials=name in ("maximum", "minimum", "fmax", "fmin"))


@pytest.mark.spec("NPH-4")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", sorted(BINARY_DIVISION))
@HYP
@given(data=st.data())
def test_binary_division(jnp, request, x64_on, name, data):
    """divide: to_inexact; floor_divide/remainder/mod/fmod: to_numeric, with
    NumPy's sign conventions.  Divisors are non-zero: XLA folds some float
    divisions by zero differently (bool / 0.0 gives 0), backend behaviour."""
    x64 = set_mode(request, x64_on)
    run_binary(jnp, x64, name, BINARY_DIVISION[name], data)


def is_concrete_index(arg):
    """A Python int, or a 0-d bool/integer array: `operator.index` accepts it."""
    if not isinstance(arg.dtype, str):
        return isinstance(arg.dtype, int)
    return np.ndim(arg.array) == 0 and kind(arg.dtype) in "biu"


@pytest.mark.spec("NPH-4")
@pytest.mark.parametrize("x64_on", MODES)
@HYP
@given(data=st.data())
def test_power(jnp, request, x64_on, data):
    """Integer powers take exponents >= 0 (JAX rejects negative ones); float
    powers of negative bases give NaN in both.  A concrete integer exponent
    (Python int, or 0-d bool/integer array) does not take part in promotion:
    the result has x's dtype, made numeric."""
    x64 = set_mode(request, x64_on)
    shape_x, shape_y = draw_shapes(data, 2)
    x_name, y_name = draw_dtypes(data, x64, 2)
    x = draw_arg(data, jnp, x_name, shape_x, -10, 10)
    if data.draw(st.integers(0, 3)) == 0:
        y = draw_scalar(data, data.draw(st.booleans()), 0, 4)
    else:
        lo = 0 if kind(x_name) in "biu" and kind(y_name) in "biu" else -4
        y = draw_arg(data, jnp, y_name, shape_y, lo, 4)
    promoted = x.dtype if is_concrete_index(y) else result_name([x.code, y.code], x64)
    out = to_numeric(promoted)
    want = reference(np.power, x.to(out), y.to(out))
    check(jnp.power(x.value, y.value), want, out, what=f"power({describe(x, y)})")


@pytest.mark.spec("NPH-5")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", sorted(BINARY_INEXACT))
@HYP
@given(data=st.data())
def test_binary_inexact(jnp, request, x64_on, name, data):
    """Computed in to_inexact(promoted type)."""
    x64 = set_mode(request, x64_on)
    run_binary(jnp, x64, name, BINARY_INEXACT[name], data)


COMPARISONS = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less,
               "less_equal": np.less_equal, "greater": np.greater,
               "greater_equal": np.greater_equal}


@pytest.mark.spec("NPH-6")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", sorted(COMPARISONS))
@HYP
@given(data=st.data())
def test_comparison(jnp, request, x64_on, name, data):
    """Both operands are converted to their promoted type, then compared."""
    x64 = set_mode(request, x64_on)
    x, y = draw_operands(data, jnp, x64, 2, lo=-5, hi=5, specials=True)
    promoted = result_name([x.code, y.code], x64)
    want = reference(COMPARISONS[name], x.to(promoted), y.to(promoted))
    check(getattr(jnp, name)(x.value, y.value), want, "bool",
          what=f"{name}({describe(x, y)})")


# ---------------------------------------------------------------------------
# NPH-7: logical and bitwise functions.
# ---------------------------------------------------------------------------

LOGICAL = {"logical_and": np.logical_and, "logical_or": np.logical_or,
           "logical_xor": np.logical_xor}


@pytest.mark.spec("NPH-7")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", sorted(LOGICAL) + ["logical_not"])
@HYP
@given(data=st.data())
def test_logical(jnp, request, x64_on, name, data):
    """Any dtype; non-zero (NaN included) is true; the result is bool."""
    x64 = set_mode(request, x64_on)
    n = 1 if name == "logical_not" else 2
    args = draw_operands(data, jnp, x64, n, lo=-2, hi=2, specials=True)
    fn = np.logical_not if n == 1 else LOGICAL[name]
    want = reference(fn, *(np.asarray(a.array).astype(bool) for a in args))
    check(getattr(jnp, name)(*(a.value for a in args)), want, "bool",
          what=f"{name}({describe(*args)})")


BITWISE = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
           "bitwise_xor": np.bitwise_xor}


@pytest.mark.spec("NPH-7")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", sorted(BITWISE))
@HYP
@given(data=st.data())
def test_bitwise_binary(jnp, request, x64_on, name, data):
    """Bool and integers only; the promoted type, two's complement."""
    x64 = set_mode(request, x64_on)
    x, y = draw_operands(data, jnp, x64, 2, kinds="biu", lo=-10**6, hi=10**6)
    out = result_name([x.code, y.code], x64)
    want = reference(BITWISE[name], x.to(out), y.to(out))
    check(getattr(jnp, name)(x.value, y.value), want, out,
          what=f"{name}({describe(x, y)})")


@pytest.mark.spec("NPH-7")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", ["bitwise_not", "invert"])
@HYP
@given(data=st.data())
def test_bitwise_not(jnp, request, x64_on, name, data):
    """~x keeps the dtype; on bool it is logical not."""
    x64 = set_mode(request, x64_on)
    x, = draw_operands(data, jnp, x64, 1, kinds="biu", lo=-10**6, hi=10**6,
                       scalars=False)
    want = reference(np.invert, x.to(x.dtype))
    check(getattr(jnp, name)(x.value), want, x.dtype, what=f"{name}({describe(x)})")


@pytest.mark.spec("NPH-7")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", ["left_shift", "right_shift"])
@HYP
@given(data=st.data())
def test_shift(jnp, request, x64_on, name, data):
    """Shifts promote like numeric functions (bool -> int32); shift amounts
    are drawn in [0, bits) of the promoted type, where the result is defined
    (left shifts wrap, right shifts of signed types are arithmetic)."""
    x64 = set_mode(request, x64_on)
    shape_x, shape_y = draw_shapes(data, 2)
    x_name, y_name = draw_dtypes(data, x64, 2, "biu")
    x = draw_arg(data, jnp, x_name, shape_x, -10**6, 10**6)
    bits = npdtype(to_numeric(result_name([x.code, code_of(y_name)], x64))).itemsize * 8
    if data.draw(st.integers(0, 3)) == 0:
        y = draw_scalar(data, False, 0, min(bits - 1, 100))
        bits = npdtype(to_numeric(result_name([x.code, "i*"], x64))).itemsize * 8
    else:
        y = draw_arg(data, jnp, y_name, shape_y, 0, bits - 1)
    out = to_numeric(result_name([x.code, y.code], x64))
    np_fn = np.left_shift if name == "left_shift" else np.right_shift
    want = reference(np_fn, x.to(out), y.to(out))
    check(getattr(jnp, name)(x.value, y.value), want, out,
          what=f"{name}({describe(x, y)})")


# ---------------------------------------------------------------------------
# NPH-8: predicates on values.
# ---------------------------------------------------------------------------

PREDICATES = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
              "signbit": np.signbit}


@pytest.mark.spec("NPH-8")
@pytest.mark.parametrize("x64_on", MODES)
@pytest.mark.parametrize("name", sorted(PREDICATES))
@HYP
@given(data=st.data())
def test_predicate(jnp, request, x64_on, name, data):
    """Every dtype gives bool; integers are finite, never NaN or infinite,
    and have their sign bit set exactly when negative."""
    x64 = set_mode(request, x64_on)
    x, = draw_operands(data, jnp, x64, 1, lo=-100, hi=100, specials=True,
                       scalars=False)
    want = reference(PREDICATES[name], x.to(wide(x.dtype)))
    check(getattr(jnp, name)(x.value), want, "bool", what=f"{name}({describe(x)})")


# ---------------------------------------------------------------------------
# NPH-9: clip, where, select.
# ---------------------------------------------------------------------------

def draw_bound(data, jnp, x64, shape):
    """A clip bound: omitted (None), an array, or a Python scalar."""
    choice = data.draw(st.sampled_from(["array", "none", "scalar"]))
    if choice == "none":
        return None
    if choice == "scalar":
        return draw_scalar(data, data.draw(st.booleans()), 0, 50)
    return draw_arg(data, jnp, data.draw(st.sampled_from(dtype_pool(x64))), shape, 0, 50)


@pytest.mark.spec("NPH-9")
@pytest.mark.parametrize("x64_on", MODES)
@HYP
@given(data=st.data())
def test_clip(jnp, request, x64_on, data):
    """clip(x, lo, hi) = minimum(maximum(x, lo), hi) in the type promoted from
    x and the bounds given; lo > hi gives hi."""
    x64 = set_mode(request, x64_on)
    shapes = draw_shapes(data, 3)
    x = draw_arg(data, jnp, data.draw(st.sampled_from(dtype_pool(x64))), shapes[0], 0, 50)
    lo, hi = (draw_bound(data, jnp, x64, s) for s in shapes[1:])
    out = result_name([x.code] + [b.code for b in (lo, hi) if b is not None], x64)

    def np_clip(v):
        if lo is not None:
            v = np.maximum(v, lo.to(out))
        return v if hi is None else np.minimum(v, hi.to(out))
    want = reference(np_clip, x.to(out))
    got = jnp.clip(x.value, None if lo is None else lo.value,
                   None if hi is None else hi.value)
    check(got, want, out, what=f"clip({describe(x, lo, hi)})")


@pytest.mark.spec("NPH-9")
@pytest.mark.parametrize("x64_on", MODES)
@HYP
@given(data=st.data())
def test_where(jnp, request, x64_on, data):
    """where(c, x, y): c tested for non-zero, result in the type of x and y."""
    x64 = set_mode(request, x64_on)
    c, x, y = draw_operands(data, jnp, x64, 3, lo=-3, hi=3, specials=True)
    out = result_name([x.code, y.code], x64)
    want = reference(np.where, c.to("bool"), x.to(out), y.to(out))
    check(jnp.where(c.value, x.value, y.value), want, out,
          what=f"where({describe(c, x, y)})")


@pytest.mark.spec("NPH-9")
@pytest.mark.parametrize("x64_on", MODES)
@HYP
@given(data=st.data())
def test_select(jnp, request, x64_on, data):
    """select(conds, choices, default=0): first true condition wins; the
    result type joins the choices and the default (a weak 0 if omitted)."""
    x64 = set_mode(request, x64_on)
    n = data.draw(st.integers(1, 3))
    shapes = draw_shapes(data, 2 * n + 1)
    names = draw_dtypes(data, x64, n + 1)
    conds = [draw_arg(data, jnp, "bool", s) for s in shapes[:n]]
    choices = [draw_arg(data, jnp, name, s, -50, 50)
               for name, s in zip(names, shapes[n:2 * n])]
    default = None
    if data.draw(st.booleans()):
        default = draw_arg(data, jnp, names[-1], shapes[-1], -50, 50)
    codes = [c.code for c in choices] + [default.code if default else "i*"]
    out = result_name(codes, x64)
    default_w = default.to(out) if default else np.zeros((), npdtype(wide(out)))
    want = reference(lambda: np.select([c.array for c in conds],
                                       [c.to(out) for c in choices], default_w))
    kw = {"default": default.value} if default else {}
    got = jnp.select([c.value for c in conds], [c.value for c in choices], **kw)
    check(got, want, out, what=f"select({describe(*conds, *choices, default)})")
