"""Comparing two outcomes of a program (SPEC DIFF-3).

Two results agree when they have the same pytree structure and, leaf by leaf,
the same shape, dtype and weak type, and values that are equal for booleans,
integers and PRNG keys and close for floats: NaN where the other has NaN,
infinities of the same sign, finite values within a tolerance of the dtype
scaled by the leaf's magnitude (a few units in the last place of a chain of
transcendental operations, summations in another order, or float16/bfloat16
arithmetic that XLA may carry out in float32, which is why a program that
uses those types compares every float result with their tolerance).  Two
errors agree when they have
the same class name and the same built-in base classes.
"""
import builtins
import dataclasses

import numpy as np

# Relative tolerance per float dtype; the absolute tolerance is the same times
# the leaf's largest finite magnitude (at least 1).
RTOL = {"float64": 1e-9, "float32": 2e-4, "float16": 2e-2, "bfloat16": 6e-2,
        # a Python float, such as float() of a float32 sum
        "float": 2e-4}


@dataclasses.dataclass
class Leaf:
    dtype: str
    shape: tuple
    weak: object
    value: np.ndarray

    def __repr__(self):
        weak = "*" if self.weak else ""
        return f"{self.dtype}{weak}{list(self.shape)} {self.value.tolist()!r}"


def _is_key(x):
    return "key<" in str(getattr(x, "dtype", ""))


def to_host(tree, module, python_as_arrays=False):
    """(structure string, [Leaf]) for a result pytree of ``module``."""
    leaves = []

    def walk(x):
        if isinstance(x, (tuple, list)):
            inner = ", ".join(walk(v) for v in x)
            return f"({inner},)" if isinstance(x, tuple) else f"[{inner}]"
        if isinstance(x, dict):
            return "{" + ", ".join(f"{k!r}: {walk(x[k])}" for k in sorted(x)) + "}"
        if x is None:
            return "None"
        if python_as_arrays and isinstance(x, (bool, int, float)):
            x = module.numpy.asarray(x)
        leaves.append(_leaf(x, module))
        return "*"

    return walk(tree), leaves


def _leaf(x, module):
    if isinstance(x, (bool, int, float)):
        return Leaf(type(x).__name__, (), None, np.asarray(x))
    if _is_key(x):
        data = np.asarray(module.random.key_data(x))
        return Leaf(str(x.dtype), tuple(x.shape), None, data)
    return Leaf(str(x.dtype), tuple(x.shape), bool(getattr(x, "weak_type", False)),
                np.asarray(x))


def error_signature(e):
    """Class name and built-in bases: implementations may differ in their
    private intermediate classes, not in what a user can catch."""
    bases = sorted({c.__name__ for c in type(e).__mro__
                    if getattr(builtins, c.__name__, None) is c})
    return type(e).__name__, tuple(bases)


def program_rtol(source):
    """The loosest tolerance of the float types a program names: a float32
    (or float16/bfloat16, which XLA may even keep in float32) intermediate
    carries its error into every float result computed from it, float64 ones
    included; x64 programs compare float64 with float32's tolerance."""
    named = [RTOL[t] for t in ("bfloat16", "float16", "float32") if f"jnp.{t}" in source]
    if "jax_enable_x64" in source:
        # some x64 results still come from float32 work (sin of a bool is
        # computed in float32 there), without the program naming float32
        named.append(RTOL["float32"])
    return max(named, default=0.0)


def compare(got, want, min_rtol=0.0):
    """None if the outcomes agree, else a sentence saying how they differ.
    Floats are compared with at least ``min_rtol`` (see program_rtol)."""
    if got.error is not None or want.error is not None:
        if got.error is None:
            return f"reference raised {_describe(want.error)}, implementation returned a value"
        if want.error is None:
            return f"implementation raised {_describe(got.error)}, reference returned a value"
        if error_signature(got.error) != error_signature(want.error):
            return (f"implementation raised {_describe(got.error)}, "
                    f"reference raised {_describe(want.error)}")
        return None
    (gs, gl), (ws, wl) = got.value, want.value
    if gs != ws:
        return f"pytree structure {gs} != reference {ws}"
    for i, (a, b) in enumerate(zip(gl, wl)):
        problem = compare_leaf(a, b, min_rtol)
        if problem:
            where = f"leaf {i}" if len(gl) > 1 else "result"
            return f"{where}: {problem}\n  implementation: {a!r}\n  reference:      {b!r}"
    return None


def _describe(e):
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{type(e).__name__}({text[:200]!r})"


def compare_leaf(a, b, min_rtol=0.0):
    if a.dtype != b.dtype:
        return f"dtype {a.dtype} != {b.dtype}"
    if a.shape != b.shape:
        return f"shape {a.shape} != {b.shape}"
    if a.weak != b.weak:
        return f"weak_type {a.weak} != {b.weak}"
    x, y = a.value, b.value
    if x.shape != y.shape:
        return f"host shape {x.shape} != {y.shape}"
    if a.dtype in RTOL:
        return _compare_floats(x.astype(np.float64), y.astype(np.float64),
                               max(RTOL[a.dtype], min_rtol))
    if not np.array_equal(x, y):
        return "values differ"
    return None


def _compare_floats(x, y, rtol):
    nan_x, nan_y = np.isnan(x), np.isnan(y)
    if not np.array_equal(nan_x, nan_y):
        return "NaN in different places"
    inf_x, inf_y = np.isinf(x), np.isinf(y)
    if not np.array_equal(inf_x, inf_y) or not np.array_equal(x[inf_x], y[inf_y]):
        return "infinities differ"
    finite = ~(nan_x | inf_x)
    x, y = x[finite], y[finite]
    if x.size == 0:
        return None
    scale = max(1.0, float(np.max(np.abs(y))), float(np.max(np.abs(x))))
    if np.all(np.abs(x - y) <= rtol * scale + rtol * np.abs(y)):
        return None
    worst = float(np.max(np.abs(x - y)))
    return f"values differ by up to {worst:.3g} (tolerance {rtol:g} x {scale:.3g})"
