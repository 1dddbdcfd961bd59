"""refjax-only tests of ``refjax.test_util.check_grads`` (SPEC AD-40).

The checker must catch wrong rules: primitives defined here carry a
deliberately wrong JVP, a wrong transpose, or a JVP that is right but whose
own derivative is wrong, and each must fail the check of the matching mode
and order while the correct twin passes.  The same code, pointed at real
JAX's ``jvp``/``vjp``, must agree with ``jax.test_util`` outcome for outcome.
"""
import functools

import jax as real_jax
import jax.test_util as real_test_util
import numpy as np
import pytest

import refjax
import refjax.numpy as jnp
from refjax import test_util
from refjax._src.interpreters import ad
from refjax._src import core, public_test_util
from refjax.extend.core import Primitive


def _elementwise(name, impl, jvp=None):
    """A unary elementwise primitive and its function; ``jvp(t, x)`` is its
    tangent rule."""
    prim = Primitive(name)
    prim.def_impl(impl)
    prim.def_abstract_eval(lambda aval: aval)
    if jvp is not None:
        ad.defjvp(prim, jvp)
    return lambda x: prim.bind(x)


cube = _elementwise("cube", lambda x: x ** 3, lambda t, x: 3.0 * x * x * t)
wrong_cube = _elementwise("wrong_cube", lambda x: x ** 3, lambda t, x: 2.0 * x * x * t)

# `cos_wrong` is cos with the derivative +sin: `sin_on_cos_wrong` has the
# right first derivative but a wrong second one.
cos_wrong = _elementwise("cos_wrong", np.cos, lambda t, x: jnp.sin(x) * t)
sin_on_cos_wrong = _elementwise("sin_on_cos_wrong", np.sin,
                                lambda t, x: cos_wrong(x) * t)


def _scaling(name, transpose_factor):
    """``x -> 2 x`` as a linear primitive whose transpose multiplies by
    ``transpose_factor`` (2 is right)."""
    prim = Primitive(name)
    prim.def_impl(lambda x: 2.0 * x)
    prim.def_abstract_eval(lambda aval: aval)
    ad.deflinear(prim, lambda ct, x: [transpose_factor * ct])
    return lambda x: prim.bind(x)


double = _scaling("double", 2.0)
double_wrong_transpose = _scaling("double_wrong_transpose", 3.0)

X = np.array([0.4, -1.1, 1.7], np.float32)


@pytest.mark.spec("AD-40")
def test_public_module():
    assert public_test_util.__all__ == ["check_grads", "check_jvp", "check_vjp"]
    assert test_util.check_grads is public_test_util.check_grads
    assert test_util.check_jvp is public_test_util.check_jvp
    assert test_util.check_vjp is public_test_util.check_vjp


@pytest.mark.spec("AD-40")
def test_correct_rules_pass():
    for f in (cube, double, lambda x: jnp.sin(cube(x))):
        test_util.check_grads(f, (X,), 2, modes=("fwd", "rev", "lin"))


@pytest.mark.spec("AD-40")
@pytest.mark.parametrize("mode, message", [("fwd", "JVP tangent"),
                                           ("rev", "VJP cotangent projection"),
                                           ("lin", "LIN tangent")])
def test_wrong_jvp_is_caught_in_every_mode(mode, message):
    with pytest.raises(AssertionError, match=message):
        test_util.check_grads(wrong_cube, (X,), 1, modes=(mode,))


@pytest.mark.spec("AD-40")
def test_wrong_transpose_is_caught_in_reverse_mode_only():
    test_util.check_grads(double_wrong_transpose, (X,), 2, modes=("fwd", "lin"))
    with pytest.raises(AssertionError, match="VJP cotangent projection"):
        test_util.check_grads(double_wrong_transpose, (X,), 1, modes=("rev",))


@pytest.mark.spec("AD-40")
def test_wrong_second_derivative_is_caught_at_order_two():
    test_util.check_grads(sin_on_cos_wrong, (X,), 1)
    with pytest.raises(AssertionError, match="JVP of JVP tangent"):
        test_util.check_grads(sin_on_cos_wrong, (X,), 2, modes=("fwd",))
    with pytest.raises(AssertionError, match="VJP of VJP cotangent projection"):
        test_util.check_grads(sin_on_cos_wrong, (X,), 2, modes=("rev",))


@pytest.mark.spec("AD-40")
def test_wrong_dtype_or_primal_is_caught():
    def jvp_in_float64(primals, tangents):
        out, t = refjax.jvp(jnp.sin, primals, tangents)
        return out, np.asarray(t, np.float64)

    with refjax.enable_x64(True):
        with pytest.raises(AssertionError, match="dtype mismatch"):
            test_util.check_jvp(jnp.sin, jvp_in_float64, (X,))

    def jvp_wrong_primal(primals, tangents):
        out, t = refjax.jvp(jnp.sin, primals, tangents)
        return out + 1.0, t

    with pytest.raises(AssertionError, match="primal"):
        test_util.check_jvp(jnp.sin, jvp_wrong_primal, (X,))


@pytest.mark.spec("AD-40")
def test_numerical_jvp_is_a_central_difference():
    x, t = np.array([0.5, 2.0]), np.array([1.0, -1.0])
    got = public_test_util._numerical_jvp(lambda a: a ** 3, (x,), (t,), eps=1e-3)
    # Central differences of a cubic are exact up to eps**2 * t**3.
    np.testing.assert_allclose(got, 3 * x ** 2 * t + 1e-6 * t ** 3, rtol=1e-9)
    # An output stuck at infinity has derivative 0, not nan.
    inf = public_test_util._numerical_jvp(lambda a: a * np.inf, (x,), (t,))
    assert (inf == 0).all()


@pytest.mark.spec("AD-40")
def test_python_scalars_stay_python_scalars():
    seen = []

    def f(a):
        seen.append(type(a))
        return jnp.sin(a)

    test_util.check_grads(f, (0.3,), 1, modes=("fwd",))
    concrete = [t for t in seen if not issubclass(t, core.Tracer)]
    assert len(concrete) == 3 and set(concrete) == {float}   # f(x), f(x +- eps t)


@pytest.mark.spec("AD-40")
def test_tolerances_scale_with_size_and_take_dtype_dicts():
    tol = public_test_util._tolerance_for
    assert tol(np.float32, public_test_util._merge_tolerance(None)) == 2e-3
    assert tol(np.int32, public_test_util._merge_tolerance(None)) == 0
    assert tol(np.float32, 0.5) == 0.5
    merged = public_test_util._merge_tolerance({np.float32: 0.1})
    assert tol(np.float32, merged) == 0.1 and tol(np.float16, merged) == 1e-2
    # Under x32 a float64 value is judged by the float32 entry.
    assert tol(np.float64, merged) == 0.1
    with refjax.enable_x64(True):
        assert tol(np.float64, merged) == 1e-5
    with pytest.raises(AssertionError):
        public_test_util._check_close(np.ones(1), np.ones(1) * 1.01)
    public_test_util._check_close(np.ones(10), np.ones(10) * 1.01,
                                  atol=public_test_util._merge_tolerance(None),
                                  rtol=public_test_util._merge_tolerance(None))


# ---------------------------------------------------------------------------
# Same verdicts as jax.test_util when both drive real JAX
# ---------------------------------------------------------------------------

def _verdict(check, *a, **kw):
    try:
        check(*a, **kw)
    except AssertionError as e:
        # The tolerances used and the failing check ("VJP of JVP tangent"...).
        return str(e).strip().splitlines()[:2]
    return "ok"


def _real_jax_functions():
    jnp_ = real_jax.numpy

    @real_jax.custom_jvp
    def off(x):
        return jnp_.sin(x)

    @off.defjvp
    def _(p, t):
        return jnp_.sin(p[0]), 1.02 * jnp_.cos(p[0]) * t[0]

    return {"sin": jnp_.sin, "off": off,
            "tree": lambda d: {"p": d["a"] * d["b"], "q": [jnp_.tanh(d["a"])]},
            "complex": lambda z: jnp_.abs(z) ** 3 + jnp_.exp(z)}


@pytest.mark.spec("AD-40")
@pytest.mark.parametrize("name", ["sin", "off", "tree", "complex"])
@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("size", [1, 6])
def test_same_verdicts_as_jax_test_util(monkeypatch, name, order, size):
    f = _real_jax_functions()[name]
    x = np.linspace(0.3, 1.4, size, dtype=np.float32)
    args = {"tree": ({"a": x, "b": x[::-1]},),
            "complex": (x + 0.5j * x,)}.get(name, (x,))
    expected = _verdict(real_test_util.check_grads, f, args, order,
                        modes=("fwd", "rev", "lin"))
    monkeypatch.setattr(public_test_util, "_impl", lambda: real_jax)
    got = _verdict(public_test_util.check_grads, f, args, order,
                   modes=("fwd", "rev", "lin"))
    assert got == expected


@pytest.mark.spec("AD-40")
def test_check_jvp_and_vjp_agree_with_jax_on_a_partial(monkeypatch):
    f = real_jax.numpy.cos
    x = (np.array([0.2, 0.9], np.float32),)
    monkeypatch.setattr(public_test_util, "_impl", lambda: real_jax)
    public_test_util.check_jvp(f, functools.partial(real_jax.jvp, f), x)
    public_test_util.check_vjp(f, functools.partial(real_jax.vjp, f), x)
