"""Errors raised while tracing, leaked tracers, NaN debugging and checkify
(SPEC ERR-2 .. ERR-8, LEAK-1 .. LEAK-3, NAN-1 .. NAN-5).

Exception classes are asserted exactly and messages by their documented
phrases; JAX appends its documentation link (``See https://docs.jax.dev/...``)
to every ``jax.errors`` message.
"""
import importlib
import os
import subprocess
import sys

import numpy as np
import pytest


def raised(fn, *args, **kwargs):
    """The exception ``fn(*args, **kwargs)`` raises (the test fails if none)."""
    with pytest.raises(Exception) as info:
        fn(*args, **kwargs)
    return info.value


def lines(e):
    return str(e).splitlines()


# -- ERR-2: ConcretizationTypeError ---------------------------------------------

@pytest.mark.spec("ERR-2")
@pytest.mark.parametrize("conversion", ["int", "float", "complex"])
def test_g_conc_013_python_scalar_conversions(jax, jnp, conversion):
    fn = {"int": int, "float": float, "complex": complex}[conversion]
    e = raised(jax.jit(lambda x: fn(x)), jnp.int32(3))
    assert type(e) is jax.errors.ConcretizationTypeError
    assert lines(e)[:2] == [
        "Abstract tracer value encountered where concrete value is expected: "
        "traced array with shape int32[]",
        f"The problem arose with the `{conversion}` function. If trying to convert "
        f"the data type of a value, try using `x.astype({conversion})` or "
        f"`jnp.array(x, {conversion})` instead."]


@pytest.mark.spec("ERR-2")
def test_g_conc_013_item_and_tolist(jax, jnp):
    e = raised(jax.jit(lambda x: x.item()), jnp.int32(3))
    assert type(e) is jax.errors.ConcretizationTypeError
    assert lines(e)[1] == "This occurred in the item() method of jax.Array"
    e = raised(jax.jit(lambda x: x.tolist()), jnp.int32(3))
    assert type(e) is jax.errors.ConcretizationTypeError
    assert lines(e)[1] == "The tolist() method was called on traced array with shape int32[]."


@pytest.mark.spec("ERR-2")
def test_g_conc_015_message_and_documentation_footer(jax, jnp):
    e = raised(jax.jit(lambda x: jnp.arange(x)), 3)
    assert type(e) is jax.errors.ConcretizationTypeError
    assert lines(e)[0] == ("Abstract tracer value encountered where concrete value is "
                           "expected: traced array with shape int32[]")
    assert "See https://docs.jax.dev/en/latest/errors.html#jax.errors." \
        "ConcretizationTypeError" in lines(e)


@pytest.mark.spec("ERR-2")
def test_g_conc_006_shapes_must_be_concrete(jax, jnp):
    def example_fun(length, val):
        return jnp.ones((length,)) * val

    assert str(example_fun(5, 4)) == "[4. 4. 4. 4. 4.]"
    e = raised(jax.jit(example_fun), 10, 4)
    assert type(e) is TypeError
    assert lines(e)[0] == ("Shapes must be 1D sequences of concrete values of integer "
                           "type, got (JitTracer(~int32[]),).")
    assert str(jax.jit(example_fun, static_argnames='length')(3, 4)) == "[4. 4. 4.]"


@pytest.mark.spec("ERR-2")
def test_g_conc_017_sizes_must_be_concrete(jax, jnp):
    e = raised(jax.jit(lambda n: jnp.arange(n)), 3)
    assert type(e) is jax.errors.ConcretizationTypeError
    e = raised(jax.jit(lambda n: jnp.zeros(n)), 3)
    assert type(e) is TypeError
    assert lines(e)[0] == ("Shapes must be 1D sequences of concrete values of integer "
                           "type, got (JitTracer(~int32[]),).")
    e = raised(jax.jit(lambda n: jnp.zeros((n, 2))), 3)
    assert lines(e)[0] == ("Shapes must be 1D sequences of concrete values of integer "
                           "type, got (JitTracer(~int32[]), 2).")


@pytest.mark.spec("ERR-2")
def test_g_conc_017_reshape_needs_a_concrete_shape(jax, jnp):
    e = raised(jax.jit(lambda n: jnp.ones(6).reshape((n, -1))), 3)
    assert type(e) is TypeError
    assert lines(e)[0] == ("Shapes must be 1D sequences of concrete values of integer "
                           "type, got (JitTracer(~int32[]), -1).")


@pytest.mark.spec("ERR-2")
def test_g_conc_007_axis_must_be_static(jax, jnp):
    def func(x, axis):
        return x.min(axis)

    e = raised(jax.jit(func), jnp.arange(4), 0)
    assert type(e) is jax.errors.ConcretizationTypeError
    assert lines(e)[1] == "The axis argument must be known statically."
    assert "This concrete value was not available in Python because it depends on " \
        "the value of the argument axis." in str(e)
    assert int(jax.jit(func, static_argnums=1)(jnp.arange(4), 0)) == 0


@pytest.mark.spec("ERR-2")
def test_g_conc_008_value_dependent_output_sizes(jax, jnp):
    @jax.jit
    def func(x):
        return jnp.where(x < 0)

    e = raised(func, jnp.arange(4))
    assert type(e) is jax.errors.ConcretizationTypeError
    assert lines(e)[1] == ("The size argument of jnp.nonzero must be statically "
                           "specified to use jnp.nonzero within JAX transformations.")
    assert int(jax.jit(lambda x: jnp.where(x > 1, x, 0).sum())(jnp.arange(4))) == 5
    out = jax.jit(lambda x: jnp.nonzero(x > 1, size=3, fill_value=-1))(jnp.arange(4))
    assert repr(out) == "(Array([ 2,  3, -1], dtype=int32),)"


# -- ERR-3: TracerBoolConversionError --------------------------------------------

@pytest.mark.spec("ERR-3")
def test_g_jit_003_if_on_a_traced_value(jax):
    def f(x):
        if x > 0:
            return x
        else:
            return 2 * x

    e = raised(jax.jit(f), 10)
    assert type(e) is jax.errors.TracerBoolConversionError
    assert isinstance(e, jax.errors.ConcretizationTypeError)
    assert lines(e)[0] == "Attempted boolean conversion of traced array with shape bool[]."
    assert repr(jax.jit(f, static_argnums=0)(10)) == \
        "Array(10, dtype=int32, weak_type=True)"


@pytest.mark.spec("ERR-3")
def test_g_conc_001_while_on_a_traced_value(jax):
    def g(x, n):
        i = 0
        while i < n:
            i += 1
        return x + i

    e = raised(jax.jit(g), 10, 20)
    assert type(e) is jax.errors.TracerBoolConversionError
    assert lines(e)[0] == "Attempted boolean conversion of traced array with shape bool[]."
    assert int(jax.jit(g, static_argnames=['n'])(10, 20)) == 30


@pytest.mark.spec("ERR-3")
def test_g_conc_002_and_or_not(jax, jnp):
    for fn in (lambda x: (x > 0) and (x < 3), lambda x: (x > 0) or (x < 3),
               lambda x: not (x > 0)):
        assert type(raised(jax.jit(fn), 2)) is jax.errors.TracerBoolConversionError

    @jax.jit
    def h(x):
        return jnp.logical_and(x > 0, x < 3), (x > 0) & (x < 3)

    assert repr(h(jnp.array([-1, 2, 5]))) == (
        "(Array([False,  True, False], dtype=bool), "
        "Array([False,  True, False], dtype=bool))")


@pytest.mark.spec("ERR-3")
def test_g_conc_002_elementwise_and_of_scalars(jax, jnp):
    @jax.jit
    def h(x):
        return (x > 0) & (x < 3)

    assert bool(h(2)) is True and bool(h(5)) is False


@pytest.mark.spec("ERR-3")
def test_g_conc_003_python_min_and_max(jax, jnp):
    for fn in (lambda x: min(x, 0), lambda x: max(x, 0)):
        assert type(raised(jax.jit(fn), 2)) is jax.errors.TracerBoolConversionError
    assert int(jax.jit(lambda x: jnp.minimum(x, 0))(2)) == 0


@pytest.mark.spec("ERR-3")
def test_bool_conversion_checks_the_size_first(jax, jnp):
    e = raised(jax.jit(lambda x: bool(x)), jnp.ones((1, 1)))
    assert type(e) is jax.errors.TracerBoolConversionError
    assert lines(e)[0] == ("Attempted boolean conversion of traced array with shape "
                           "float32[1,1].")
    e = raised(jax.jit(lambda x: bool(x)), jnp.ones(3))
    assert type(e) is ValueError
    assert str(e) == ("The truth value of an array with more than one element is "
                      "ambiguous. Use a.any() or a.all()")
    e = raised(jax.jit(lambda x: bool(x)), jnp.ones(0))
    assert type(e) is ValueError
    assert str(e).startswith("The truth value of an empty array is ambiguous.")
    e = raised(jax.make_jaxpr(lambda x: 1 if x > 0 else 2), 3)
    assert type(e) is jax.errors.TracerBoolConversionError


@pytest.mark.spec("ERR-2")
def test_scalar_conversions_check_the_shape_first(jax, jnp):
    e = raised(jax.jit(lambda x: int(x)), jnp.ones(2))
    assert type(e) is TypeError
    assert str(e) == "Only scalar arrays can be converted to Python scalars; got arr.ndim=1"
    e = raised(jax.jit(lambda x: float(x)), jnp.ones((2, 2)))
    assert str(e) == "Only scalar arrays can be converted to Python scalars; got arr.ndim=2"
    e = raised(jax.jit(lambda x: x.item()), jnp.ones(3))
    assert type(e) is jax.errors.ConcretizationTypeError


# -- ERR-4: TracerIntegerConversionError -----------------------------------------

@pytest.mark.spec("ERR-4")
def test_g_conc_011_list_index_with_a_tracer(jax, jnp):
    L = [1, 2, 3]
    e = raised(jax.jit(lambda i: L[i]), 0)
    assert type(e) is jax.errors.TracerIntegerConversionError
    assert lines(e)[0] == "The __index__() method was called on traced array with shape int32[]"
    assert repr(jax.jit(lambda i: jnp.array(L)[i])(0)) == "Array(1, dtype=int32)"
    assert repr(jax.jit(lambda i: L[i], static_argnums=0)(0)) == \
        "Array(1, dtype=int32, weak_type=True)"


@pytest.mark.spec("ERR-4")
def test_g_conc_013_range_of_a_tracer(jax, jnp):
    e = raised(jax.jit(lambda x: range(x)), jnp.int32(3))
    assert type(e) is jax.errors.TracerIntegerConversionError
    assert not isinstance(e, jax.errors.ConcretizationTypeError)


@pytest.mark.spec("ERR-4")
def test_index_needs_an_integer_scalar(jax, jnp):
    for bad in (1., jnp.ones(2, jnp.int32)):
        e = raised(jax.jit(lambda x: [1, 2][x]), bad)
        assert type(e) is TypeError
        assert str(e) == "Only integer scalar arrays can be converted to a scalar index."


@pytest.mark.spec("ERR-4")
def test_g_conc_012_numpy_split_with_a_traced_axis(jax, jnp):
    def func(x, axis):
        return np.split(x, 2, axis)

    e = raised(jax.jit(func), np.arange(4), 0)
    assert type(e) is jax.errors.TracerIntegerConversionError
    assert lines(e)[0] == "The __index__() method was called on traced array with shape int32[]"


@pytest.mark.spec("ERR-4")
def test_g_conc_012_numpy_split_of_a_tracer_with_static_axis(jax, jnp):
    def func(x, axis):
        return np.split(x, 2, axis)

    assert repr(jax.jit(func, static_argnums=1)(np.arange(10), 0)) == \
        "[Array([0, 1, 2, 3, 4], dtype=int32), Array([5, 6, 7, 8, 9], dtype=int32)]"
    assert repr(jax.jit(lambda arr: np.split(arr, 2, 0))(np.arange(4))) == \
        "[Array([0, 1], dtype=int32), Array([2, 3], dtype=int32)]"


# -- ERR-5: TracerArrayConversionError -------------------------------------------

@pytest.mark.spec("ERR-5")
@pytest.mark.parametrize("conversion", ["np.sin", "np.asarray", "np.array"])
def test_g_conc_009_numpy_functions_on_tracers(jax, jnp, conversion):
    fn = {"np.sin": np.sin, "np.asarray": np.asarray, "np.array": np.array}[conversion]
    e = raised(jax.jit(lambda x: fn(x)), np.arange(4))
    assert type(e) is jax.errors.TracerArrayConversionError
    assert lines(e)[0] == ("The numpy.ndarray conversion method __array__() was called "
                           "on traced array with shape int32[4]")


@pytest.mark.spec("ERR-5")
def test_g_conc_010_indexing_numpy_with_a_tracer(jax, jnp):
    x = np.arange(10)
    e = raised(jax.jit(lambda i: x[i]), 0)
    assert type(e) is jax.errors.TracerArrayConversionError
    assert lines(e)[0] == ("The numpy.ndarray conversion method __array__() was called "
                           "on traced array with shape int32[]")
    assert int(jax.jit(lambda i: jnp.asarray(x)[i])(3)) == 3


# -- ERR-6: messages name the function and the argument -----------------------------

def named(alpha, beta):
    return int(beta)


@pytest.mark.spec("ERR-6")
def test_message_names_the_function_and_argument(jax):
    e = raised(jax.jit(named), 1, 2)
    line = f"The error occurred while tracing the function named at {__file__}:"
    assert lines(e)[2].startswith(line)
    assert lines(e)[2].endswith(
        " for jit. This concrete value was not available in Python because it "
        "depends on the value of the argument beta.")
    e = raised(jax.jit(named), 1, beta=2)
    assert lines(e)[2].endswith("depends on the value of the argument beta.")


@pytest.mark.spec("ERR-6")
@pytest.mark.parametrize("fn, args, kwargs, expected", [
    (lambda x, y: 1 if x > y else 2, (3, 4), {},
     "the values of the arguments x and y."),
    (lambda x, y, z: 1 if x + y > z else 2, (3, 4, 5), {},
     "the values of the arguments x, y, and z."),
    (lambda d: int(d['a'][1]), ({'a': [1, 2]},), {}, "the value of the argument d['a'][1]."),
    (lambda x, *args, **kw: int(args[1]), (1., 2., 3.), {'m': 3},
     "the value of the argument args[1]."),
    (lambda x, *args, **kw: int(kw['m']), (1., 2., 3.), {'m': 3},
     "the value of the argument kw['m']."),
])
def test_message_names_the_arguments_a_value_depends_on(jax, fn, args, kwargs, expected):
    e = raised(jax.jit(fn), *args, **kwargs)
    assert isinstance(e, jax.errors.ConcretizationTypeError)
    assert "This concrete value was not available in Python because it depends on " \
        + expected in str(e)


@pytest.mark.spec("ERR-6")
def test_message_names_the_inner_function_argument(jax):
    e = raised(jax.jit(lambda x: jax.jit(lambda y: int(y))(x)), 3)
    assert "depends on the value of the argument y." in str(e)
    e = raised(jax.jit(lambda a, b, c: int(a + c), static_argnums=1), 1., 2, 3)
    assert "depends on the values of the arguments a and c." in str(e)


@pytest.mark.spec("ERR-6")
def test_message_for_a_value_computed_from_constants(jax, jnp):
    e = raised(jax.jit(lambda x: bool(jnp.sin(1.0))), 1)
    assert type(e) is jax.errors.TracerBoolConversionError
    text = str(e)
    assert "This value became a tracer due to JAX operations on these lines:" in text
    assert "  operation a:f32[] = sin 1.0:f32[]" in text
    assert f"    from line {__file__}:" in text


# -- ERR-7: the error classes ---------------------------------------------------------

@pytest.mark.spec("ERR-7")
def test_g_conc_016_class_hierarchy(jax):
    E = jax.errors
    got = {c.__name__: [b.__name__ for b in c.__mro__[1:-2]]
           for c in [E.TracerBoolConversionError, E.ConcretizationTypeError,
                     E.TracerIntegerConversionError, E.TracerArrayConversionError,
                     E.NonConcreteBooleanIndexError, E.UnexpectedTracerError,
                     E.KeyReuseError]}
    type_error = ['JAXTypeError', '_JAXErrorMixin', 'TypeError', 'Exception']
    assert got == {
        "TracerBoolConversionError": ['ConcretizationTypeError'] + type_error,
        "ConcretizationTypeError": type_error,
        "TracerIntegerConversionError": type_error,
        "TracerArrayConversionError": type_error,
        "NonConcreteBooleanIndexError": ['JAXIndexError', '_JAXErrorMixin',
                                         'IndexError', 'LookupError', 'Exception'],
        "UnexpectedTracerError": type_error,
        "KeyReuseError": type_error,
    }


@pytest.mark.spec("ERR-7")
@pytest.mark.parametrize("name", ["UnexpectedTracerError", "KeyReuseError"])
def test_messages_end_with_the_documentation_link(jax, name):
    e = getattr(jax.errors, name)("something went wrong")
    assert str(e) == ("something went wrong\nSee https://docs.jax.dev/en/latest/"
                      f"errors.html#jax.errors.{name}")


@pytest.mark.spec("ERR-7")
def test_tracer_errors_are_built_from_the_tracer(jax, jnp):
    """As in JAX, these classes take the offending tracer."""
    E = jax.errors
    made = {}

    def f(x):
        made["bool"] = E.TracerBoolConversionError(x)
        made["index"] = E.TracerIntegerConversionError(x)
        made["array"] = E.TracerArrayConversionError(x)
        made["concrete"] = E.ConcretizationTypeError(x, "Some context.")
        made["boolean_index"] = E.NonConcreteBooleanIndexError(x > 0)
        return x

    jax.jit(f)(jnp.ones(3))
    where = ("The error occurred while tracing the function f at "
             f"{__file__}:")
    assert lines(made["bool"])[0] == \
        "Attempted boolean conversion of traced array with shape float32[3]."
    assert lines(made["index"])[0] == \
        "The __index__() method was called on traced array with shape float32[3]"
    assert lines(made["array"])[0] == ("The numpy.ndarray conversion method "
                                       "__array__() was called on traced array "
                                       "with shape float32[3]")
    assert lines(made["concrete"])[:2] == [
        "Abstract tracer value encountered where concrete value is expected: "
        "traced array with shape float32[3]", "Some context."]
    assert lines(made["boolean_index"])[0] == \
        "Array boolean indices must be concrete; got JitTracer(bool[3])"
    for name in ("bool", "index", "array", "concrete"):
        assert lines(made[name])[-1] == ("See https://docs.jax.dev/en/latest/errors.html"
                                         f"#jax.errors.{type(made[name]).__name__}")
        assert any(line.startswith(where) for line in lines(made[name]))


# -- ERR-8: concrete arrays in Python control flow --------------------------------------

@pytest.mark.spec("ERR-8")
def test_g_conc_004_truth_of_concrete_arrays(jax, jnp):
    x = jnp.array([-1, 2, 5])
    e = raised(bool, x)
    assert type(e) is ValueError
    assert str(e) == ("The truth value of an array with more than one element is "
                      "ambiguous. Use a.any() or a.all()")
    assert type(raised(lambda: (x % 2 == 0) and (x > 0))) is ValueError
    assert (bool(jnp.array([3])), bool(jnp.array(0))) == (True, False)


@pytest.mark.spec("ERR-8")
def test_g_conc_005_control_flow_on_concrete_values(jax, jnp):
    """Outside ``jit`` values are concrete, so Python control flow works.

    (The gotcha shows this under ``jax.grad``, which traces with concrete
    primal values; ``grad`` is not checked here.)
    """
    def f(x):
        if x < 3:
            return 3. * x ** 2
        return -4 * x

    assert (float(f(jnp.float32(2.))), float(f(jnp.float32(4.)))) == (12.0, -16.0)


# -- LEAK-1: leaked tracers ---------------------------------------------------------------

def _leak():
    outs = []

    def side_effecting(x):
        y = x + 1
        outs.append(y)
    return side_effecting, outs


@pytest.mark.spec("LEAK-1")
def test_g_leak_001_leaked_tracer_raises_when_used(jax, jnp):
    side_effecting, outs = _leak()
    jax.jit(side_effecting)(1)
    assert type(outs[0]).__name__ == "DynamicJaxprTracer"
    e = raised(lambda: outs[0] + 1)
    assert type(e) is jax.errors.UnexpectedTracerError
    text = str(e)
    assert lines(e)[0] == (
        "Encountered an unexpected tracer. A function transformed by JAX had a side "
        "effect, allowing for a reference to an intermediate value with type int32[] "
        "wrapped in a DynamicJaxprTracer to escape the scope of the transformation.")
    assert lines(e)[1] == ("JAX transformations require that functions explicitly "
                           "return their outputs, and disallow saving intermediate "
                           "values to global state.")
    assert lines(e)[2].startswith("The function being traced when the value leaked was "
                                  "side_effecting at ")
    assert lines(e)[2].endswith(" traced for jit.")
    assert "The leaked intermediate value was created on line " \
        f"{__file__}:" in text
    assert "side_effecting). " in text
    assert "To catch the leak earlier, try setting the environment variable " \
        "JAX_CHECK_TRACER_LEAKS or using the `jax.checking_leaks` context manager." in text


@pytest.mark.spec("LEAK-1")
def test_leaked_tracer_in_jnp_functions(jax, jnp):
    side_effecting, outs = _leak()
    jax.jit(side_effecting)(1.)
    for use in (lambda: jnp.sin(outs[0]), lambda: jnp.add(outs[0], 1)):
        assert type(raised(use)) is jax.errors.UnexpectedTracerError
    assert outs[0].shape == () and outs[0].dtype == np.float32


@pytest.mark.spec("LEAK-1")
def test_leaked_tracer_conversions(jax, jnp):
    side_effecting, outs = _leak()
    jax.jit(side_effecting)(1)
    assert type(raised(bool, outs[0])) is jax.errors.TracerBoolConversionError
    assert type(raised(int, outs[0])) is jax.errors.ConcretizationTypeError
    assert type(raised(np.asarray, outs[0])) is jax.errors.TracerArrayConversionError


@pytest.mark.spec("LEAK-1")
def test_g_leak_002_returning_the_value_is_fine(jax):
    outs = [jax.jit(lambda x: x + 1)(1)]
    assert repr(outs[0] + 1) == "Array(3, dtype=int32, weak_type=True)"


@pytest.mark.spec("LEAK-1")
def test_g_leak_005_leaked_tracer_in_a_later_jit(jax):
    saved = []

    @jax.jit
    def f(x):
        saved.append(x)
        return x

    f(1.)
    e = raised(jax.jit(lambda y: y + saved[0]), 2.)
    assert type(e) is jax.errors.UnexpectedTracerError
    assert lines(e)[0].startswith(
        "Encountered an unexpected tracer. A function transformed by JAX had a side "
        "effect, allowing for a reference to an intermediate value with type "
        "float32[] wrapped in a DynamicJaxprTracer to escape the sco")


@pytest.mark.spec("LEAK-1")
def test_g_leak_004_leaks_from_make_jaxpr(jax, jnp):
    """(The gotcha leaks from ``grad`` and ``vmap``; those are not checked here.)"""
    leaked = []

    def f(x):
        leaked.append(x * 2)
        return x * 3

    jax.make_jaxpr(f)(1.)
    assert type(raised(lambda: leaked[0] + 1)) is jax.errors.UnexpectedTracerError


# -- LEAK-2: checking_leaks ----------------------------------------------------------------

@pytest.mark.spec("LEAK-2")
def test_g_leak_003_checking_leaks(jax, jnp):
    outs = []

    def side_effecting(x):
        y = x * 2
        outs.append(y)
        return x

    with jax.checking_leaks():
        e = raised(jax.jit(side_effecting), jnp.ones(3))
    assert type(e) is Exception
    assert lines(e)[:3] == ["Leaked trace DynamicJaxprTrace. Leaked tracer(s):", "",
                            "JitTracer(float32[3])"]


@pytest.mark.spec("LEAK-2")
def test_checking_leaks_passes_clean_functions(jax, jnp):
    with jax.checking_leaks():
        out = jax.jit(lambda x: x * 2)(jnp.ones(3))
        closed = jax.make_jaxpr(lambda x: jnp.sin(x) + 1)(1.)
    assert out.tolist() == [2., 2., 2.] and len(closed.eqns) == 2


@pytest.mark.spec("LEAK-2")
def test_checking_leaks_with_make_jaxpr(jax, jnp):
    outs = []
    with jax.checking_leaks():
        e = raised(jax.make_jaxpr(lambda x: outs.append(x) or x), jnp.ones(4))
    assert lines(e)[0] == "Leaked trace DynamicJaxprTrace. Leaked tracer(s):"
    assert "JitTracer(float32[4])" in lines(e)


# -- LEAK-3: closing over an enclosing trace's tracer ------------------------------------

@pytest.mark.spec("LEAK-3")
def test_g_leak_006_closure_over_an_outer_tracer(jax, jnp):
    """An inner jit closing over the outer function's tracer is not a leak.

    (The gotcha also takes ``grad`` of such a closure; not checked here.)
    """
    @jax.jit
    def outer(x):
        inner = jax.jit(lambda y: x * y)
        return inner(3.) + x * 2 ** 2

    assert float(outer(2.)) == 14.0
    closed = jax.make_jaxpr(outer.__wrapped__)(2.)
    assert closed.eqns[0].primitive.name == "jit"


@pytest.mark.spec("LEAK-3")
def test_checking_leaks_allows_outer_closures(jax, jnp):
    with jax.checking_leaks():
        out = jax.jit(lambda x: jax.jit(lambda y: x + y)(1.))(2.)
    assert float(out) == 3.0


# -- NAN-1: NaN and Inf are silent by default -------------------------------------------

@pytest.mark.spec("NAN-1")
def test_g_nan_001_nans_and_infs_are_produced_silently(jax, jnp):
    assert [repr(jnp.log(-1.)), repr(jnp.float32(1.) / 0.), repr(jnp.sqrt(-1.)),
            repr(jnp.log(0.))] == [
        "Array(nan, dtype=float32, weak_type=True)", "Array(inf, dtype=float32)",
        "Array(nan, dtype=float32, weak_type=True)",
        "Array(-inf, dtype=float32, weak_type=True)"]
    assert repr(jax.jit(lambda x: jnp.log(x))(-1.)) == \
        "Array(nan, dtype=float32, weak_type=True)"


@pytest.mark.spec("NAN-1")
def test_g_nan_007_reductions_and_nan(jax, jnp):
    x = jnp.array([1., jnp.nan, 3.])
    assert [repr(jnp.max(x)), repr(jnp.maximum(jnp.nan, 1.)), repr(jnp.nanmax(x)),
            repr(jnp.argmax(x)), repr(jnp.argmin(x))] == [
        "Array(nan, dtype=float32)", "Array(nan, dtype=float32, weak_type=True)",
        "Array(3., dtype=float32)", "Array(1, dtype=int32)", "Array(1, dtype=int32)"]
    assert repr(jax.lax.max(jnp.float32(jnp.nan), 1.)) == "Array(nan, dtype=float32)"


@pytest.mark.spec("NAN-1")
def test_g_nan_008_sort_and_unique_with_nan(jax, jnp):
    x = jnp.array([3., jnp.nan, 1., -jnp.inf, jnp.nan])
    assert str(jnp.sort(x)) == "[-inf   1.   3.  nan  nan]"
    assert str(jnp.argsort(x)) == "[3 2 0 1 4]"
    assert str(jnp.unique(x)) == "[-inf   1.   3.  nan]"


@pytest.mark.spec("NAN-1")
def test_g_nan_009_nan_comparisons(jax, jnp):
    x = jnp.array([jnp.nan, 1.])
    assert str(x == x) == "[False  True]"
    assert bool(jnp.array_equal(x, x)) is False
    assert bool(jnp.array_equal(x, x, equal_nan=True)) is True
    assert str(jnp.isnan(x)) == "[ True False]"
    assert str(jnp.isfinite(jnp.array([jnp.inf, 1.]))) == "[False  True]"


# -- NAN-2: debug_nans and debug_infs on eager operations -------------------------------------

@pytest.mark.spec("NAN-2")
def test_g_nan_002_debug_nans_names_the_primitive(jax, jnp):
    def f(x):
        w = 3 * x * x
        return jnp.log(-w)

    with jax.debug_nans(True):
        e = raised(f, 5.)
    assert type(e) is FloatingPointError
    assert lines(e)[0] == "invalid value (nan) encountered in log"


@pytest.mark.spec("NAN-2")
def test_g_nan_002_with_square(jax, jnp):
    def f(x):
        w = 3 * jnp.square(x)
        return jnp.log(-w)

    with jax.debug_nans(True):
        assert lines(raised(f, 5.))[0] == "invalid value (nan) encountered in log"


@pytest.mark.spec("NAN-2")
@pytest.mark.parametrize("fn, message", [
    (lambda jnp: jnp.sqrt(-1.), "invalid value (nan) encountered in sqrt"),
    (lambda jnp: jnp.float32(0.) / 0., "invalid value (nan) encountered in div"),
    (lambda jnp: jnp.array([0., -1.]) ** 0.5, "invalid value (nan) encountered in "),
])
def test_debug_nans_eager_primitives(jax, jnp, fn, message):
    with jax.debug_nans(True):
        e = raised(fn, jnp)
    assert type(e) is FloatingPointError and lines(e)[0].startswith(message)


@pytest.mark.spec("NAN-2")
def test_debug_nans_ignores_inf_and_debug_infs_catches_it(jax, jnp):
    with jax.debug_nans(True):
        assert repr(jnp.float32(1.) / 0.) == "Array(inf, dtype=float32)"
    with jax.debug_infs(True):
        e = raised(lambda: jnp.float32(1.) / 0.)
        assert type(e) is FloatingPointError
        assert lines(e)[0] == "invalid value (inf) encountered in div"
        assert repr(jnp.log(-1.)) == "Array(nan, dtype=float32, weak_type=True)"


@pytest.mark.spec("NAN-2")
def test_g_nan_006_nan_inputs_are_flagged_too(jax, jnp):
    """An operation whose output holds a NaN raises even when the NaN came in
    as an input.  (JAX 0.10.2 reports the primitive of the array constructor,
    ``stage``; the gotcha's ``grad`` half is not checked here.)"""
    with jax.debug_nans(True):
        e = raised(lambda: jnp.array(jnp.nan) + 1.)
    assert type(e) is FloatingPointError
    assert lines(e)[0].startswith("invalid value (nan) encountered in ")


@pytest.mark.spec("NAN-2")
def test_debug_nans_config_option(impl_name):
    code = (f"import {impl_name} as jax\nimport {impl_name}.numpy as jnp\n"
            "jax.config.update('jax_debug_nans', True)\n"
            "try:\n    jnp.log(-1.)\nexcept FloatingPointError as e:\n"
            "    print(type(e).__name__, '|', str(e).splitlines()[0])\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert out.stdout.splitlines()[-1] == \
        "FloatingPointError | invalid value (nan) encountered in log", out.stderr


@pytest.mark.spec("NAN-2")
def test_debug_nans_env_variable(impl_name):
    code = (f"import {impl_name} as jax\nimport {impl_name}.numpy as jnp\n"
            "print(jax.config.jax_debug_nans)\n"
            "try:\n    jnp.sqrt(-1.)\nexcept FloatingPointError as e:\n"
            "    print(str(e).splitlines()[0])\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
    env["JAX_DEBUG_NANS"] = "1"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert out.stdout.splitlines()[0] == "True"
    assert out.stdout.splitlines()[-1] == "invalid value (nan) encountered in sqrt"


# -- NAN-3: debug_nans under jit ---------------------------------------------------------------

@pytest.mark.spec("NAN-3")
def test_g_nan_003_jit_reruns_op_by_op(jax, jnp, capsys):
    def f(x):
        w = 3 * x * x
        return jnp.log(-w)

    with jax.debug_nans(True):
        e = raised(jax.jit(f), 5.)
    assert type(e) is FloatingPointError
    assert lines(e)[0] == "invalid value (nan) encountered in log"
    assert ("Invalid nan value encountered in the output of a jax.jit function. "
            "Calling the de-optimized version.") in capsys.readouterr().out


@pytest.mark.spec("NAN-3")
def test_debug_nans_nested_jit(jax, jnp):
    inner = jax.jit(lambda x: jnp.log(x) - 1.)
    with jax.debug_nans(True):
        e = raised(jax.jit(lambda x: inner(x) * 2), jnp.array([1., -1.]))
    assert lines(e)[0] == "invalid value (nan) encountered in log"


@pytest.mark.spec("NAN-3")
def test_g_nan_004_debug_nans_context_turns_it_off(jax, jnp):
    with jax.debug_nans(True):
        with jax.debug_nans(False):
            assert str(jax.jit(lambda x: jnp.log(-x))(5.)) == "nan"
        assert type(raised(jnp.log, -5.)) is FloatingPointError


@pytest.mark.spec("NAN-3")
def test_nan_only_from_inputs_under_jit(jax, jnp):
    """The de-optimized run finds no primitive to blame: JAX's long message."""
    with jax.debug_nans(True):
        e = raised(jax.jit(lambda x: x + 1.), jnp.nan)
    assert type(e) is FloatingPointError
    assert str(e).startswith(
        "('jit(<lambda>)', 'nan'). Because jax_config.debug_nans.value and/or "
        "config.jax_debug_infs is set, the de-optimized function (i.e., the function "
        "as if the `jit` decorator were removed) was called in an attempt to get a "
        "more precise error message. However, the de-optimized function did not "
        "produce invalid values during its execution.")


@pytest.mark.spec("NAN-3")
def test_debug_nans_leaves_clean_and_integer_results_alone(jax, jnp):
    with jax.debug_nans(True), jax.debug_infs(True):
        assert repr(jax.jit(lambda x: x * 2)(3)) == "Array(6, dtype=int32, weak_type=True)"
        assert repr(jax.jit(lambda x: jnp.sin(x))(0.)) == \
            "Array(0., dtype=float32, weak_type=True)"


@pytest.mark.spec("NAN-3")
def test_g_nan_005_debug_infs_under_jit(jax, jnp):
    with jax.debug_infs(True):
        e = raised(jax.jit(lambda x: 1. / x), jnp.float32(0.))
        assert type(e) is FloatingPointError
        assert lines(e)[0] == "invalid value (inf) encountered in div"
        e = raised(jax.jit(lambda x: jnp.exp(x)), jnp.float32(1000.))
        assert lines(e)[0] == "invalid value (inf) encountered in exp"
        # the de-optimized run calls the function on the original Python
        # arguments, so Python's own division raises
        assert type(raised(jax.jit(lambda x: 1. / x), 0.)) is ZeroDivisionError


@pytest.mark.spec("NAN-3")
def test_debug_nans_does_not_apply_to_tracing(jax, jnp):
    def f(x):
        return jnp.log(-x)

    with jax.debug_nans(True):
        closed = jax.make_jaxpr(f)(5.)
    assert [e.primitive.name for e in closed.eqns] == ["neg", "log"]


# -- NAN-4, NAN-5: checkify -----------------------------------------------------------

@pytest.fixture(scope="module")
def checkify(impl_name):
    return importlib.import_module(f"{impl_name}.experimental.checkify")


def _log_at(jnp):
    return lambda x, i: jnp.log(x)[i]


@pytest.mark.spec("NAN-4")
def test_checkify_nan_and_index_errors_as_values(jax, jnp, checkify):
    # G-NAN-010
    cf = checkify.checkify(_log_at(jnp), errors=checkify.nan_checks | checkify.index_checks)
    err, _ = jax.jit(cf)(jnp.array([1., 2.]), 5)
    assert err.get() == ("out-of-bounds indexing for array of shape (2,): index 5 is "
                         "out of bounds for axis 0 with size 2. ")
    err, _ = jax.jit(cf)(jnp.array([-1., 2.]), 0)
    assert err.get() == "nan generated by primitive: log."
    with pytest.raises(checkify.JaxRuntimeError) as info:
        err.throw()
    assert isinstance(info.value, ValueError)
    assert str(info.value).splitlines()[0] == "nan generated by primitive: log."
    err, out = jax.jit(cf)(jnp.array([1., 2.]), 1)
    assert err.get() is None and str(err) == "Error(None)"
    assert abs(float(out) - float(np.log(2.))) < 1e-6
    err.throw()


@pytest.mark.spec("NAN-4")
def test_checkify_reports_first_failure_eagerly(jax, jnp, checkify):
    # G-NAN-010: a NaN and a bad index in one call: the log comes first.
    cf = checkify.checkify(_log_at(jnp), errors=checkify.automatic_checks)
    assert cf(jnp.array([-1., 2.]), 7)[0].get() == "nan generated by primitive: log."
    only_nans = checkify.checkify(_log_at(jnp), errors=checkify.nan_checks)
    assert only_nans(jnp.array([1., 2.]), 7)[0].get() is None


@pytest.mark.spec("NAN-4")
def test_checkify_error_categories(jax, jnp, checkify):
    # G-NAN-010
    divide = checkify.checkify(lambda x, y: x // y, errors=checkify.div_checks)
    assert divide(jnp.int32(5), jnp.int32(0))[0].get() == "division by zero"
    assert divide(jnp.int32(5), jnp.int32(2))[0].get() is None
    sqrt = checkify.checkify(jnp.sqrt, errors=checkify.float_checks)
    assert sqrt(jnp.float32(-1.))[0].get() == "nan generated by primitive: sqrt."
    index = checkify.checkify(lambda i: jnp.arange(3.)[i], errors=checkify.index_checks)
    assert index(-5)[0].get() == ("out-of-bounds indexing for array of shape (3,): "
                                  "index -2 is out of bounds for axis 0 with size 3. ")
    rows = checkify.checkify(lambda i: jnp.arange(6.).reshape(2, 3)[1, i],
                             errors=checkify.index_checks)
    assert "index 7 is out of bounds for axis 1 with size 3. " in rows(7)[0].get()
    scatter = checkify.checkify(lambda i: jnp.ones(3).at[i].set(0.),
                                errors=checkify.index_checks)
    assert "index 5 is out of bounds for axis 0 with size 3" in scatter(5)[0].get()
    user_only = checkify.checkify(jnp.log)
    assert user_only(jnp.float32(-1.))[0].get() is None
    assert checkify.all_checks == checkify.automatic_checks | checkify.user_checks


@pytest.mark.spec("NAN-4")
def test_checkify_error_of_vmap_lists_each_failed_index(jax, jnp):
    checkify = importlib.import_module(jax.__name__ + ".experimental.checkify")

    def f(x):
        checkify.check(x > 0, "x must be positive, got {}", x)
        return x

    err, out = jax.vmap(checkify.checkify(f))(jnp.array([1.0, -2.0, -3.0]))
    assert err.get() == ("at mapped index 1: x must be positive, got -2.0 (`check` failed)\n"
                         "at mapped index 2: x must be positive, got -3.0 (`check` failed)")
    assert out.tolist() == [1.0, -2.0, -3.0]
    err, _ = jax.vmap(checkify.checkify(f))(jnp.array([1.0, 2.0]))
    assert err.get() is None
    err, _ = jax.vmap(jax.vmap(checkify.checkify(f)))(jnp.array([[1.0, -2.0], [-3.0, 4.0]]))
    assert err.get() == ("at mapped index 0, 1: x must be positive, got -2.0 (`check` failed)\n"
                         "at mapped index 1, 0: x must be positive, got -3.0 (`check` failed)")


def _positive_log(jnp, checkify):
    def f(x):
        checkify.check(x > 0, "must be positive! got {x}", x=x)
        return jnp.log(x)
    return f


@pytest.mark.spec("NAN-5")
def test_check_must_be_functionalized_before_jit(jax, jnp, checkify):
    # G-NAN-011
    f = _positive_log(jnp, checkify)
    with pytest.raises(ValueError) as info:
        jax.jit(f)(-1.)
    assert str(info.value).splitlines()[0] == (
        "Cannot abstractly evaluate a checkify.check which was not functionalized. "
        "This probably means you tried to stage (jit/scan/pmap/...) a `check` without "
        "functionalizing it through `checkify.checkify`.")
    err, _ = jax.jit(checkify.checkify(f))(-1.)
    assert err.get() == "must be positive! got -1.0 (`check` failed)"
    err, out = jax.jit(checkify.checkify(f))(2.)
    assert err.get() is None and abs(float(out) - float(np.log(2.))) < 1e-6


@pytest.mark.spec("NAN-5")
def test_check_runs_eagerly(jax, jnp, checkify):
    # G-NAN-011: without staging, a failed check raises at once.
    f = _positive_log(jnp, checkify)
    with pytest.raises(checkify.JaxRuntimeError,
                       match=r"must be positive! got -1.0 \(`check` failed\)"):
        f(jnp.float32(-1.))
    assert abs(float(f(jnp.float32(2.))) - float(np.log(2.))) < 1e-6


@pytest.mark.spec("NAN-5")
def test_check_argument_errors(jax, jnp, checkify):
    with pytest.raises(TypeError, match=r"^Formatting arguments to checkify.check need "
                                        r"to be PyTrees of arrays, but got 3.0 of type "
                                        r"<class 'float'>\.$"):
        checkify.check(False, "bad {}", 3.)
    with pytest.raises(TypeError, match=r"^check takes a scalar pred as argument, "
                                        r"got \[ True\]$"):
        checkify.check(jnp.array([True]), "bad")
