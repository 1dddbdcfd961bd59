"""Checking derivatives against finite differences, as ``jax.test_util``.

``check_grads(f, args, order)`` compares what automatic differentiation says
about ``f`` at ``args`` with central finite differences, in one random
direction (SPEC AD-40):

* forward mode (``"fwd"``): the tangent output of ``jvp`` against
  ``(f(x + eps t) - f(x - eps t)) / (2 eps)``;
* reverse mode (``"rev"``): the cotangent ``vjp`` returns is checked through
  the identity ``<t, vjp(c)> == <jvp(t), c>``, with the finite-difference JVP
  on the right, so no Jacobian is ever built;
* ``"lin"``: like ``"fwd"`` but through ``linearize``;
* ``order > 1`` repeats the check on the derivative itself: on
  ``x, t -> jvp(f, x, t)`` for forward mode and on ``x -> vjp(f, x)(f(x))``
  for reverse mode.

Only the public API is used (``jvp``, ``vjp``, ``linearize``, ``tree_util``,
``dtypes``, ``config``), reached through :func:`_impl`, so these checks read
the same on any JAX-like library.  The finite differences and comparisons
are plain NumPy.
"""
import functools
import operator

import numpy as np

__all__ = ["check_grads", "check_jvp", "check_vjp"]

EPS = 1e-4
"""The default finite-difference step."""


def _impl():
    """The library whose ``jvp``/``vjp`` are checked (imported late, so that
    ``refjax`` may import this module while it initialises)."""
    import refjax
    return refjax


# ---------------------------------------------------------------------------
# Tolerances
# ---------------------------------------------------------------------------

# Per-dtype tolerances, by NumPy-style dtype name.  Dtypes missing from a
# table (integers, booleans, float0) compare exactly.
_VALUE_TOLERANCE = {
    "float4_e2m1fn": 1e0, "float8_e8m0fnu": 1e0,
    "float8_e3m4": 1e-1, "float8_e4m3": 1e-1, "float8_e4m3b11fnuz": 1e-1,
    "float8_e4m3fn": 1e-1, "float8_e4m3fnuz": 1e-1, "float8_e5m2": 1e-1,
    "float8_e5m2fnuz": 1e-1,
    "bfloat16": 1e-2, "float16": 1e-3, "float32": 1e-6, "float64": 1e-15,
    "complex64": 1e-6, "complex128": 1e-15,
}

# Finite differences in float32 with a step of 1e-4 lose about three digits,
# hence looser defaults for the derivative checks.
_GRADIENT_TOLERANCE = dict(
    _VALUE_TOLERANCE,
    bfloat16=1e-1, float16=1e-2, float32=2e-3, float64=1e-5,
    complex64=1e-3, complex128=1e-5,
)


@functools.lru_cache(maxsize=None)
def _dtype_table(kind):
    """The ``"value"`` or ``"gradient"`` table keyed by ``np.dtype``, for
    the dtypes the library knows."""
    by_name = _VALUE_TOLERANCE if kind == "value" else _GRADIENT_TOLERANCE
    jnp = _impl().numpy
    table = {}
    for name, tol in by_name.items():
        scalar_type = getattr(jnp, name, None) or getattr(np, name, None)
        if scalar_type is not None:
            table[np.dtype(scalar_type)] = tol
    return table


def _merge_tolerance(tol):
    """A user's tolerance over the gradient defaults: a number replaces them
    all, a dict replaces the dtypes it names."""
    if tol is None:
        return _dtype_table("gradient")
    if not isinstance(tol, dict):
        return tol
    merged = dict(_dtype_table("gradient"))
    merged.update({np.dtype(k): v for k, v in tol.items()})
    return merged


def _tolerance_for(dtype, tol):
    """The tolerance for values of ``dtype``: ``tol`` itself when it is a
    number, else its entry for the canonical dtype, else the value
    default."""
    if tol is None:
        tol = {}
    if not isinstance(tol, dict):
        return tol
    dtype = np.dtype(_impl().dtypes.canonicalize_dtype(np.dtype(dtype)))
    tol = {np.dtype(k): v for k, v in tol.items()}
    if dtype in tol:
        return tol[dtype]
    return _dtype_table("value").get(dtype, 0)


# ---------------------------------------------------------------------------
# Comparing values
# ---------------------------------------------------------------------------

def _dtype(x):
    """The dtype of an array or scalar; Python scalars count as 64-bit."""
    if hasattr(x, "dtype"):
        return np.dtype(x.dtype)
    python_types = {bool: np.bool_, int: np.int64, float: np.float64,
                    complex: np.complex128}
    if type(x) in python_types:
        return np.dtype(python_types[type(x)])
    return np.asarray(x).dtype


def _is_python_scalar(x):
    return type(x) in (bool, int, float, complex)


def _is_float0(dtype):
    return np.dtype(dtype) == np.dtype(_impl().dtypes.float0)


def _comparable(x):
    """``x`` in a dtype ``np.testing`` can compare: the low-precision
    floats of ml_dtypes as float32, the sub-byte integers as 8-bit ones."""
    if x.dtype.kind != "V" or _is_float0(x.dtype):
        return x
    dtypes = _impl().dtypes
    if dtypes.issubdtype(x.dtype, np.floating):
        return x.astype(np.float32)
    signed = dtypes.iinfo(x.dtype).min < 0
    return x.astype(np.int8 if signed else np.uint8)


def _assert_allclose(a, b, atol, rtol, err_msg):
    if _is_float0(a.dtype) and _is_float0(b.dtype):
        np.testing.assert_array_equal(a, b, err_msg=err_msg)
        return
    # A zero tolerance means "NumPy's default" (an exact atol, rtol 1e-7).
    kw = {}
    if atol:
        kw["atol"] = atol
    if rtol:
        kw["rtol"] = rtol
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(_comparable(a), _comparable(b), **kw,
                                   err_msg=err_msg)


def _assert_close(a, b, atol=None, rtol=None, err_msg=""):
    """One pair of leaves; the tolerances grow with the number of elements
    (SPEC AD-40)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"{err_msg}: shapes {a.shape} != {b.shape}"
    atol = max(_tolerance_for(a.dtype, atol), _tolerance_for(b.dtype, atol))
    rtol = max(_tolerance_for(a.dtype, rtol), _tolerance_for(b.dtype, rtol))
    _assert_allclose(a, b, atol * a.size, rtol * b.size, err_msg)


def _check_close(xs, ys, atol=None, rtol=None, err_msg=""):
    assert_close = functools.partial(_assert_close, atol=atol, rtol=rtol,
                                     err_msg=err_msg)
    _impl().tree_util.tree_map(assert_close, xs, ys)


def _check_dtypes_match(xs, ys):
    """Leaf by leaf equal dtypes (compared canonically when x64 is off)."""
    api = _impl()

    def check(x, y):
        dx, dy = _dtype(x), _dtype(y)
        if not api.config.jax_enable_x64:
            dx = api.dtypes.canonicalize_dtype(dx)
            dy = api.dtypes.canonicalize_dtype(dy)
        assert dx == dy, f"dtype mismatch: {dx} != {dy}"

    api.tree_util.tree_map(check, xs, ys)


# ---------------------------------------------------------------------------
# Pytree arithmetic in NumPy, keeping each leaf's dtype and keeping Python
# scalars as Python scalars, so that ``f`` sees the kinds of arguments given
# ---------------------------------------------------------------------------

def _keeping_type(op):
    def apply(x, *rest):
        out = np.array(op(np.asarray(x), *map(np.asarray, rest)), dtype=_dtype(x))
        if _is_python_scalar(x) and all(map(_is_python_scalar, rest)):
            return out.item()
        return out
    return apply


def _tree_op(op, *trees):
    return _impl().tree_util.tree_map(_keeping_type(op), *trees)


def _safe_sub(x, y):
    """``x - y`` with ``inf - inf == 0``: an output stuck at infinity has no
    finite-difference derivative."""
    x, y = np.asarray(x), np.asarray(y)
    with np.errstate(invalid="ignore"):
        return np.where(np.equal(x, y), np.zeros((), x.dtype),
                        np.subtract(x, y, dtype=x.dtype))


def _scale(xs, a):
    def scale(x):
        dtype = _dtype(x)
        out = np.multiply(np.asarray(x), np.array(a, dtype=dtype), dtype=dtype)
        return out.item() if _is_python_scalar(x) else out
    return _impl().tree_util.tree_map(scale, xs)


def _inner_product(xs, ys):
    """``sum Re(conj(x) . y)`` over all leaves."""
    def contract(x, y):
        x, y = np.asarray(x), np.asarray(y)
        return np.real(np.dot(np.conj(x).reshape(-1), y.reshape(-1)))
    tu = _impl().tree_util
    return tu.tree_reduce(np.add, tu.tree_map(contract, xs, ys))


def _rand_like(rng, x):
    """A standard normal draw of ``x``'s shape and dtype (complex for complex
    ``x``)."""
    shape, dtype = np.shape(x), _dtype(x)
    def randn():
        return np.asarray(rng.randn(*shape), dtype=dtype)
    out = randn()
    if np.issubdtype(dtype, np.complexfloating):
        out = out + dtype.type(1j) * randn()
    return out.item() if _is_python_scalar(x) else out


def _numerical_jvp(f, primals, tangents, eps=EPS):
    """Central differences: ``(f(x + eps t) - f(x - eps t)) / (2 eps)``."""
    delta = _scale(tangents, eps)
    f_pos = f(*_tree_op(operator.add, primals, delta))
    f_neg = f(*_tree_op(operator.sub, primals, delta))
    diff = _impl().tree_util.tree_map(_safe_sub, f_pos, f_neg)
    return _scale(diff, 0.5 / eps)


def _with_label(err_msg, what):
    return f"{err_msg} {what}" if err_msg else what


# ---------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------

def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """Check ``f_jvp`` (usually ``partial(jax.jvp, f)``) at ``args`` against
    finite differences of ``f`` in one random direction (SPEC AD-40).

    Raises ``AssertionError`` when the primal outputs or the tangent outputs
    differ beyond ``atol``/``rtol`` (numbers, or dicts by dtype over the
    gradient defaults)."""
    atol = _merge_tolerance(atol)
    rtol = _merge_tolerance(rtol)
    rng = np.random.RandomState(0)
    tangent = _impl().tree_util.tree_map(functools.partial(_rand_like, rng), args)
    v_out, t_out = f_jvp(args, tangent)
    _check_dtypes_match(v_out, t_out)
    v_expected = f(*args)
    _check_dtypes_match(v_out, v_expected)
    t_expected = _numerical_jvp(f, args, tangent, eps=eps)
    _check_close(v_out, v_expected, atol, rtol, _with_label(err_msg, "primal"))
    _check_close(t_out, t_expected, atol, rtol, _with_label(err_msg, "tangent"))


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """Check ``f_vjp`` (usually ``partial(jax.vjp, f)``) at ``args``: for a
    random tangent ``t`` and cotangent ``c``, ``<t, vjp(c)>`` must equal
    ``<c, J t>`` with ``J t`` from finite differences (SPEC AD-40)."""
    atol = _merge_tolerance(atol)
    rtol = _merge_tolerance(rtol)
    rand_like = functools.partial(_rand_like, np.random.RandomState(0))
    tree_map = _impl().tree_util.tree_map
    v_out, pullback = f_vjp(*args)
    _check_close(v_out, f(*args), atol, rtol, _with_label(err_msg, "primal"))
    tangent = tree_map(rand_like, args)
    tangent_out = _numerical_jvp(f, args, tangent, eps=eps)
    cotangent = tree_map(rand_like, v_out)
    # vjp is linear, not antilinear: conjugating around it gives the adjoint
    # with respect to the real inner product used below.
    cotangent_in = _tree_op(np.conj, pullback(_tree_op(np.conj, cotangent)))
    _check_close(_inner_product(tangent, cotangent_in),
                 _inner_product(tangent_out, cotangent), atol, rtol,
                 _with_label(err_msg, "cotangent projection"))


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None,
                eps=None):
    """Check the derivatives of ``f`` at ``args`` up to ``order`` against
    finite differences, in one random direction (SPEC AD-40).

    ``modes`` picks ``"fwd"`` (``jvp``), ``"rev"`` (``vjp``) and/or ``"lin"``
    (``linearize``); ``order=2`` also checks the derivative of the
    derivative, and so on.  ``atol``/``rtol`` are numbers or dicts keyed by
    dtype (defaults: 2e-3 for float32, 1e-5 for float64...); ``eps`` is the
    finite-difference step (default 1e-4).  Raises ``AssertionError``
    naming the failing check (e.g. ``"VJP of JVP tangent"``)."""
    checks = dict(atol=atol, rtol=rtol, eps=eps or EPS)
    _check_to_order(f, tuple(args), order, modes, checks, "")


def _check_to_order(f, args, order, modes, checks, err_msg):
    api = _impl()
    if "fwd" in modes:
        msg = _nested("JVP", err_msg)
        check_jvp(f, functools.partial(api.jvp, f), args, err_msg=msg, **checks)
        if order > 1:
            _check_to_order(functools.partial(api.jvp, f), (args, args),
                            order - 1, modes, checks, msg)
    if "rev" in modes:
        msg = _nested("VJP", err_msg)
        check_vjp(f, functools.partial(api.vjp, f), args, err_msg=msg, **checks)
        if order > 1:
            _check_to_order(functools.partial(_pull_back_output, f), args,
                            order - 1, modes, checks, msg)
    if "lin" in modes:
        msg = _nested("LIN", err_msg)
        check_jvp(f, functools.partial(_jvp_by_linearize, f), args,
                  err_msg=msg, **checks)
        if order > 1:
            _check_to_order(functools.partial(_jvp_by_linearize, f),
                            (args, args), order - 1, modes, checks, msg)


def _nested(mode, err_msg):
    return f"{mode} of {err_msg}" if err_msg else mode


def _pull_back_output(f, *args):
    """``vjp(f, *args)`` applied to ``f``'s own output: a function of
    ``args`` whose derivative involves the second derivative of ``f``."""
    out, pullback = _impl().vjp(f, *args)
    return pullback(out)


def _jvp_by_linearize(f, primals, tangents):
    out, f_lin = _impl().linearize(f, *primals)
    return out, f_lin(*tangents)
