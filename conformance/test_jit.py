"""``jax.jit``: caching, static arguments, AOT, eval_shape, donation, and the
dtypes operators give (SPEC JIT-1 .. JIT-10, DON-1 .. DON-4, TRC-7).

Tracing is counted with a Python side effect in the jitted function, since
side effects run exactly once per trace.
"""
import functools
import os
import warnings

import numpy as np
import pytest


def counting(jax, **jit_kwargs):
    """(jitted f(x, y=1.), list whose length is the number of traces)."""
    traces = []

    def f(x, y=1.):
        traces.append(None)
        return x * y

    return jax.jit(f, **jit_kwargs), traces


# -- JIT-1: the jit callable ----------------------------------------------------

@pytest.mark.spec("JIT-1")
def test_g_jit_024_jit_needs_a_callable(jax):
    with pytest.raises(TypeError, match="(?m)^Expected a callable value, got 3$"):
        jax.jit(3)


@pytest.mark.spec("JIT-1")
def test_g_jit_027_options_are_keyword_only(jax):
    with pytest.raises(TypeError, match=r"jit\(\) takes from 0 to 1 positional "
                                        "arguments but 2 were given"):
        jax.jit(lambda x: x, (0,))


@pytest.mark.spec("JIT-1")
def test_g_jit_012_decorator_factory(jax):
    @jax.jit(static_argnames=['n'])
    def g(x, n):
        i = 0
        while i < n:
            i += 1
        return x + i

    assert repr(g(10, 20)) == "Array(30, dtype=int32, weak_type=True)"


@pytest.mark.spec("JIT-1")
def test_jit_wraps_the_function(jax):
    def add(x, y):
        """Adds."""
        return x + y

    f = jax.jit(add)
    assert f.__wrapped__ is add
    assert (f.__name__, f.__doc__) == ("add", "Adds.")
    assert repr(f).startswith("<PjitFunction of <function ")


@pytest.mark.spec("JIT-1")
def test_jit_as_a_method_decorator(jax):
    class Scale:
        factor = 3

        @functools.partial(jax.jit, static_argnums=0)
        def apply(self, x):
            return x * self.factor

    assert float(Scale().apply(2.)) == 6.0


# -- JIT-2: the cache key is the abstract signature --------------------------------

@pytest.mark.spec("JIT-2")
def test_g_jit_001_values_do_not_retrace_types_do(jax, jnp):
    f, n = counting(jax)
    f(1.)
    f(2.)
    assert len(n) == 1                  # python float: weak float32
    f(jnp.float32(3.))
    assert len(n) == 2                  # strong float32
    f(jnp.array([1., 2.]))
    f(jnp.array([3., 4.]))
    assert len(n) == 3                  # new shape, then the same shape
    f(1)
    assert len(n) == 4                  # python int: weak int32
    f(jnp.array([1, 2], jnp.int8))
    assert len(n) == 5                  # new dtype


@pytest.mark.spec("JIT-2")
def test_cache_size_counts_signatures(jax, jnp):
    f, n = counting(jax)
    assert f._cache_size() == 0
    f(jnp.ones(3))
    f(jnp.zeros(3))
    assert (len(n), f._cache_size()) == (1, 1)
    f(jnp.ones(4))
    assert (len(n), f._cache_size()) == (2, 2)
    f(jnp.ones(4), 2.)
    assert (len(n), f._cache_size()) == (3, 3)
    f(jnp.ones(4), 3.)
    assert (len(n), f._cache_size()) == (3, 3)


@pytest.mark.spec("JIT-2")
def test_python_scalar_values_do_not_retrace(jax, jnp):
    f, n = counting(jax)
    results = [f(float(v)) for v in range(5)] + [f(v) for v in range(5)]
    assert len(n) == 2 and f._cache_size() == 2
    assert [float(r) for r in results] == [0., 1., 2., 3., 4.] * 2


@pytest.mark.spec("JIT-2")
def test_numpy_and_jax_arguments_share_the_trace(jax, jnp):
    """A NumPy value and a jax.Array of the same type trace once, but are two
    entries of the call cache."""
    f, n = counting(jax)
    f(jnp.ones(3, jnp.float32))
    f(np.ones(3, np.float32))
    assert (len(n), f._cache_size()) == (1, 2)
    f(np.ones(3, np.float32))
    assert (len(n), f._cache_size()) == (1, 2)


@pytest.mark.spec("JIT-2")
def test_keyword_and_positional_calls_are_different_signatures(jax):
    f, n = counting(jax)
    f(1., 2.)
    f(1., y=2.)
    f(x=1., y=2.)
    f(1., 3.)
    f(x=1., y=4.)
    assert len(n) == 3


@pytest.mark.spec("JIT-2")
def test_g_jit_019_pytree_structure_is_part_of_the_key(jax):
    traces = []

    @jax.jit
    def f(d):
        traces.append(None)
        return sum(jax.tree.leaves(d))

    f({'a': 1., 'b': 2.})
    f({'a': 3., 'b': 4.})
    assert len(traces) == 1
    f({'a': 1., 'c': 2.})
    f([1., 2.])
    f([1., 2., 3.])
    assert len(traces) == 4
    f((1., None))
    f((1., 2.))
    assert len(traces) == 6


@pytest.mark.spec("JIT-2")
def test_g_jit_022_weak_types_survive_jit(jax, jnp):
    f = jax.jit(lambda x: x)
    assert [repr(f(1.)), repr(f(1)), repr(f(jnp.float32(1)))] == [
        "Array(1., dtype=float32, weak_type=True)",
        "Array(1, dtype=int32, weak_type=True)",
        "Array(1., dtype=float32)"]
    assert repr(f(True)) == "Array(True, dtype=bool)"
    assert repr(f(np.float64(2.))) == "Array(2., dtype=float32)"


@pytest.mark.spec("JIT-2")
def test_x64_mode_is_part_of_the_key(jax, jnp):
    f, n = counting(jax)
    assert f(1.).dtype == np.float32
    with jax.enable_x64(True):
        assert f(1.).dtype == np.float64
    assert f(1.).dtype == np.float32
    assert len(n) == 2


@pytest.mark.spec("JIT-2")
def test_jitted_results_match_eager(jax, jnp):
    x = jnp.array([[0., 1., 2.], [3., 4., 5.]])
    f = lambda a, b: jnp.sin(a) * b - a / 2
    eager, jitted = f(x, 3.), jax.jit(f)(x, 3.)
    assert repr(eager) == repr(jitted)


# -- JIT-3: the cache belongs to the function object ---------------------------------

@pytest.mark.spec("JIT-3")
def test_g_jit_008_cache_is_keyed_on_the_function_object(jax):
    n = [0]

    def body(i):
        n[0] += 1
        return i + 1

    for _ in range(3):
        jax.jit(lambda x: body(x))(1)
    assert n[0] == 3
    n[0] = 0
    for _ in range(3):
        jax.jit(functools.partial(body))(1)
    assert n[0] == 3
    n[0] = 0
    for _ in range(3):
        jax.jit(body)(1)
    assert n[0] == 1


# -- JIT-4: static arguments ------------------------------------------------------------

@pytest.mark.spec("JIT-4")
def test_g_jit_002_static_values_drive_python_and_retrace(jax):
    n = [0]

    def f(x, flag):
        n[0] += 1
        if flag:
            return x
        return 2 * x

    fj = jax.jit(f, static_argnums=1)
    assert [float(fj(10., True)), float(fj(10., False)), float(fj(11., True))] == \
        [10., 20., 11.]
    assert n[0] == 2
    fk = jax.jit(f, static_argnames=['flag'])
    assert [float(fk(10., flag=False)), float(fk(10., False))] == [20., 20.]


@pytest.mark.spec("JIT-4")
def test_g_jit_013_argnums_and_argnames_are_inferred(jax):
    n = [0]

    def f(x, k):
        n[0] += 1
        return x * k

    fj = jax.jit(f, static_argnums=1)
    assert [float(fj(2., 3)), float(fj(2., k=3)), float(fj(2., k=4))] == [6., 6., 8.]
    assert n[0] == 3
    fk = jax.jit(f, static_argnames="k")
    fk(2., 5)           # passed by position, static through the inferred argnum
    fk(2., k=5)
    assert n[0] == 5


@pytest.mark.spec("JIT-4")
def test_negative_static_argnums(jax):
    n = [0]

    def f(x, k):
        n[0] += 1
        return x * int(k)

    g = jax.jit(f, static_argnums=-1)
    assert float(g(2., 3)) == 6.0
    assert float(g(2., 3)) == 6.0
    assert n[0] == 1


@pytest.mark.spec("JIT-4")
def test_static_argnames_on_keyword_only_and_var_keyword(jax):
    assert float(jax.jit(lambda x, *, n: x * int(n), static_argnames='n')(2., n=3)) == 6.
    assert float(jax.jit(lambda *a, **k: a[0] * int(k['m']), static_argnames='m')(2., m=3)) == 6.
    assert float(jax.jit(lambda *a: a[0] * int(a[1]), static_argnums=1)(2., 3)) == 6.


@pytest.mark.spec("JIT-4")
def test_g_jit_010_unpassed_defaults_are_not_traced(jax, capsys):
    @jax.jit
    def f(x, n=3):
        print("n is", type(n).__name__)
        if n > 2:
            return x * n
        return x

    assert float(f(1.)) == 3.0
    with pytest.raises(jax.errors.TracerBoolConversionError):
        f(1., 5)
    assert capsys.readouterr().out == "n is int\nn is DynamicJaxprTracer\n"


@pytest.mark.spec("JIT-4")
def test_g_jit_011_keyword_arguments_are_traced(jax):
    @jax.jit
    def f(x, flag=True):
        if flag:
            return x
        return -x

    with pytest.raises(jax.errors.TracerBoolConversionError):
        f(1., flag=False)
    assert float(jax.jit(f.__wrapped__, static_argnames='flag')(1., flag=False)) == -1.0


@pytest.mark.spec("JIT-4")
@pytest.mark.parametrize("bad, type_name", [
    ([1, 2], "list"), ({'a': 1}, "dict"), (np.arange(2), "numpy.ndarray")])
def test_g_jit_004_static_arguments_must_be_hashable(jax, bad, type_name):
    f = jax.jit(lambda x, s: x, static_argnums=1)
    with pytest.raises(ValueError) as info:
        f(1., bad)
    first = str(info.value).splitlines()[0]
    assert first == ("Non-hashable static arguments are not supported. An error "
                     f"occurred while trying to hash an object of type <class "
                     f"'{type_name}'>, {bad}. The error was:")
    assert "TypeError: unhashable type" in str(info.value)
    assert float(f(1., (1, 2))) == 1.0


@pytest.mark.spec("JIT-4")
def test_g_jit_004_arrays_cannot_be_static(jax, jnp):
    f = jax.jit(lambda x, s: x, static_argnames='s')
    with pytest.raises(ValueError, match="^Non-hashable static arguments are not "
                                         "supported. An error occurred while trying "
                                         "to hash an object of type <class '"):
        f(1., s=jnp.arange(2))


@pytest.mark.spec("JIT-4")
def test_g_jit_023_arrays_cannot_be_hashed(jax, jnp):
    for x in (jnp.arange(3), jnp.float32(1)):
        with pytest.raises(TypeError, match="unhashable type"):
            hash(x)


@pytest.mark.spec("JIT-4")
def test_g_jit_005_static_objects_hash_by_identity(jax):
    class CustomClass:
        def __init__(self, x, mul):
            self.x = x
            self.mul = mul

        @functools.partial(jax.jit, static_argnums=0)
        def calc(self, y):
            if self.mul:
                return self.x * y
            return y

    c = CustomClass(2, True)
    assert int(c.calc(3)) == 6
    c.mul = False
    assert int(c.calc(3)) == 6          # the stale trace is reused


@pytest.mark.spec("JIT-4")
def test_g_jit_014_static_values_compare_by_type(jax, jnp):
    n = [0]

    def f(x, s):
        n[0] += 1
        return x * s

    fj = jax.jit(f, static_argnums=1)
    fj(jnp.float32(2.), 1)
    assert n[0] == 1
    fj(jnp.float32(2.), 1.0)
    assert n[0] == 2
    fj(jnp.float32(2.), 1.0)
    assert n[0] == 2
    assert repr(fj(jnp.int32(2), 1)) == "Array(2, dtype=int32)"
    assert repr(fj(jnp.int32(2), 1.0)) == "Array(2., dtype=float32, weak_type=True)"


@pytest.mark.spec("JIT-4")
@pytest.mark.parametrize("kwargs, message", [
    (dict(static_argnums=3),
     "Jitted function has static_argnums=(3,), but only accepts 1 positional arguments."),
    (dict(static_argnums=-2),
     "Jitted function has static_argnums=(-2,), but only accepts 1 positional arguments."),
    (dict(static_argnames='y'),
     "Jitted function has invalid argnames {'y'} in static_argnames. Function "
     "does not take these args."),
    (dict(donate_argnums=(0, 4)),
     "Jitted function has donate_argnums=(0, 4), but only accepts 1 positional arguments."),
    (dict(donate_argnames='z'),
     "Jitted function has invalid argnames {'z'} in donate_argnames. Function "
     "does not take these args."),
])
def test_g_jit_025_argnums_are_checked_against_the_signature(jax, kwargs, message):
    with pytest.raises(ValueError) as info:
        jax.jit(lambda x: x + 1, **kwargs)
    assert str(info.value).splitlines()[0] == message


@pytest.mark.spec("JIT-4")
def test_positional_only_parameters_cannot_be_static_by_name(jax):
    def f(x, /, k):
        return x * k

    with pytest.raises(ValueError, match=r"^Jitted function has invalid argnames "
                                         r"\{'x'\} in static_argnames. These are "
                                         "positional-only"):
        jax.jit(f, static_argnames='x')
    assert float(jax.jit(f, static_argnums=0)(2., 3)) == 6.0


@pytest.mark.spec("JIT-4")
def test_static_argnums_must_be_integers(jax):
    with pytest.raises(TypeError):
        jax.jit(lambda x, k: x, static_argnums='k')
    with pytest.raises(TypeError):
        jax.jit(lambda x, k: x, static_argnums=1.5)


@pytest.mark.spec("JIT-4")
def test_g_jit_007_pytree_aux_data_is_static(jax, jnp):
    class CustomClass:
        def __init__(self, x, mul):
            self.x = x
            self.mul = mul

        @jax.jit
        def calc(self, y):
            if self.mul:
                return self.x * y
            return y

    jax.tree_util.register_pytree_node(
        CustomClass, lambda c: ((c.x,), {'mul': c.mul}),
        lambda aux, children: CustomClass(*children, **aux))
    c = CustomClass(2, True)
    assert int(c.calc(3)) == 6
    c.mul = False
    assert int(c.calc(3)) == 3
    assert int(CustomClass(jnp.array(2), True).calc(3)) == 6


@pytest.mark.spec("JIT-4")
def test_g_conc_020_outer_static_does_not_make_inner_static(jax, jnp):
    @jax.jit
    def inner(x, axis):
        return jnp.zeros((axis,)) + x

    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete "
                                        "values of integer type"):
        jax.jit(inner, static_argnums=1)(1., 2)
    assert jax.jit(inner.__wrapped__, static_argnums=1)(1., 2).shape == (2,)


@pytest.mark.spec("JIT-4")
def test_g_conc_020_with_a_reduction_axis(jax, jnp):
    @jax.jit
    def inner(x, axis):
        return x.min(axis)

    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(inner, static_argnums=1)(jnp.arange(4), 0)
    assert int(jax.jit(inner.__wrapped__, static_argnums=1)(jnp.arange(4), 0)) == 0


# -- JIT-5: what may go in and come out ---------------------------------------------------

@pytest.mark.spec("JIT-5")
def test_g_jit_006_unregistered_self_is_not_a_valid_argument(jax):
    class CustomClass:
        def __init__(self, x, mul):
            self.x, self.mul = x, mul

        @jax.jit
        def calc(self, y):
            return self.x * y if self.mul else y

    with pytest.raises(TypeError) as info:
        CustomClass(2, True).calc(3)
    first = str(info.value).splitlines()[0]
    assert first.startswith("Error interpreting argument to <function ")
    assert first.endswith("CustomClass.calc at 0x" + first.split(" at 0x")[1].split(">")[0]
                          + "> as an abstract array. The problematic value is of type "
                          f"{CustomClass!r} and was passed to the function at path self.")


@pytest.mark.spec("JIT-5")
def test_g_jit_009_strings_are_not_valid_arguments_or_results(jax):
    with pytest.raises(TypeError) as info:
        jax.jit(lambda s: s)("hello")
    lines = str(info.value).splitlines()
    assert lines[0].endswith("as an abstract array. The problematic value is of type "
                             "<class 'str'> and was passed to the function at path s.")
    assert lines[1] == (
        "This typically means that a jit-wrapped function was called with a "
        "non-array argument, and this argument was not marked as static using the "
        "static_argnums or static_argnames parameters of jax.jit.")

    def returns_str(x):
        return "a string"

    with pytest.raises(TypeError, match=r"(?m)^function returns_str at .*:\d+ traced for "
                                        r"jit returned a value of type <class 'str'>, "
                                        "which is not a valid JAX type$"):
        jax.jit(returns_str)(1.)
    with pytest.raises(TypeError, match=r"returned a value of type <class 'str'> at "
                                        r"output component \[1\]\['a'\], which is not "
                                        "a valid JAX type"):
        jax.jit(lambda x: (x, {'a': "s"}))(1.)


@pytest.mark.spec("JIT-5")
def test_g_jit_009_none_and_containers_are_fine(jax):
    assert jax.jit(lambda x: None)(1.) is None
    out = jax.jit(lambda x: (x, [x], {'a': x}))(1.)
    assert repr(out) == (
        "(Array(1., dtype=float32, weak_type=True), [Array(1., dtype=float32, "
        "weak_type=True)], {'a': Array(1., dtype=float32, weak_type=True)})")
    assert repr(jax.jit(lambda x: 3)(1.)) == "Array(3, dtype=int32, weak_type=True)"
    assert repr(jax.jit(lambda x: np.ones(2))(1.)) == "Array([1., 1.], dtype=float32)"


@pytest.mark.spec("JIT-5")
def test_g_jit_026_varargs_and_kwargs_are_traced(jax, jnp):
    @jax.jit
    def f(*args, **kwargs):
        return args, kwargs

    assert repr(f(1., 2, a=jnp.ones(2))) == (
        "((Array(1., dtype=float32, weak_type=True), Array(2, dtype=int32, "
        "weak_type=True)), {'a': Array([1., 1.], dtype=float32)})")


@pytest.mark.spec("JIT-5")
def test_argument_paths_in_messages(jax):
    with pytest.raises(TypeError, match=r"(?m)passed to the function at path a\[1\]\.$"):
        jax.jit(lambda *a: a)(1., 's')
    with pytest.raises(TypeError, match=r"(?m)at path kw\['z'\]\['q'\]\[1\]\.$"):
        jax.jit(lambda x, **kw: x)(1., z={'q': [1, 's']})
    with pytest.raises(TypeError, match=r"(?m)at path z\.$"):
        jax.jit(lambda x, y, z: x, static_argnums=1)(1., 2, 's')


@pytest.mark.spec("JIT-5")
def test_python_int_overflow_names_the_argument(jax):
    with pytest.raises(OverflowError, match=r"(?m)^An overflow was encountered while "
                                            "parsing an argument to a jitted computation, "
                                            r"whose argument path is x\[1\]\. Got <class "
                                            "'int'> with value 1099511627776$"):
        jax.jit(lambda x: x)([1, 2 ** 40])


@pytest.mark.spec("JIT-5")
def test_g_pure_006_iterators_are_not_valid_arguments(jax, jnp):
    def func11(arr, extra):
        return arr

    with pytest.raises(TypeError) as info:
        jax.make_jaxpr(func11)(iter(range(16)), 5.)
    first = str(info.value).splitlines()[0]
    assert first.startswith("Error interpreting argument to <function ")
    assert first.endswith("as an abstract array. The problematic value is of type "
                          "<class 'range_iterator'> and was passed to the function "
                          "at path arr.")


@pytest.mark.spec("JIT-5")
def test_wrong_number_of_arguments_is_pythons_error(jax):
    def two(x, y):
        return x

    with pytest.raises(TypeError, match=r"two\(\) missing 1 required positional "
                                        "argument: 'y'"):
        jax.jit(two)(1.)
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'z'"):
        jax.jit(two)(1., 2., z=3.)


@pytest.mark.spec("JIT-5")
def test_jit_argument_int_overflow(jax, jnp):
    # G-LIST-005
    with pytest.raises(OverflowError) as info:
        jax.jit(lambda x: x)(2**31)
    # JAX may append a note on its filtered traceback after the first line.
    assert str(info.value).splitlines()[0] == (
        "An overflow was encountered while parsing an argument to a jitted "
        "computation, whose argument path is x. Got <class 'int'> with value "
        "2147483648")


# -- JIT-6: clearing caches -------------------------------------------------------------

@pytest.mark.spec("JIT-6")
def test_clear_caches_forces_a_retrace(jax, jnp):
    f, n = counting(jax)
    f(jnp.ones(2))
    f(jnp.ones(2))
    assert (len(n), f._cache_size()) == (1, 1)
    jax.clear_caches()
    assert f._cache_size() == 0
    f(jnp.ones(2))
    assert (len(n), f._cache_size()) == (2, 1)


@pytest.mark.spec("JIT-6")
def test_clear_cache_of_one_function(jax, jnp):
    f, n = counting(jax)
    f(jnp.ones(2))
    f.clear_cache()
    assert f._cache_size() == 0
    f(jnp.ones(2))
    assert len(n) == 2


# -- JIT-7: ahead-of-time lowering -----------------------------------------------------

@pytest.mark.spec("JIT-7")
def test_lower_as_text_and_compile(jax, jnp):
    def double(x):
        return x * 2

    lowered = jax.jit(double).lower(jnp.ones(3))
    text = lowered.as_text()
    assert isinstance(text, str) and "module @jit_double" in text
    compiled = lowered.compile()
    assert isinstance(compiled.as_text(), str)
    assert repr(compiled(jnp.arange(3.))) == "Array([0., 2., 4.], dtype=float32)"
    assert repr(jax.jit(lambda x: x).lower(1.).compile()(2.)) == \
        "Array(2., dtype=float32, weak_type=True)"


@pytest.mark.spec("JIT-7")
def test_g_jit_015_compiled_is_fixed_to_its_types(jax, jnp):
    f = jax.jit(lambda x: x * 2)
    compiled = f.lower(jnp.ones(3)).compile()
    with pytest.raises(TypeError) as info:
        compiled(jnp.ones(4))
    assert str(info.value).splitlines()[:2] == [
        "Argument types differ from the types for which this computation was "
        "compiled. Perhaps you are calling the compiled executable with a different "
        "enable_x64 mode than when it was AOT compiled? The mismatches are:",
        "Argument 'x' compiled with float32[3] and called with float32[4]"]
    with pytest.raises(TypeError, match="compiled with float32\\[3\\] and called "
                                        "with int32\\[3\\]"):
        compiled(jnp.ones(3, jnp.int32))


@pytest.mark.spec("JIT-7")
def test_g_jit_016_compiled_functions_cannot_be_transformed(jax, jnp):
    compiled = jax.jit(lambda x: x * 2.).lower(1.).compile()
    for transform in (jax.jit, jax.make_jaxpr):
        with pytest.raises(TypeError, match="^Cannot apply JAX transformations to a "
                                            "function lowered and compiled for a "
                                            "particular signature. Detected argument "
                                            "of Tracer type <class '.*DynamicJaxprTracer'>"):
            transform(compiled)(1.)


@pytest.mark.spec("JIT-7")
def test_g_jit_017_static_arguments_are_baked_in(jax, jnp):
    f = jax.jit(lambda x, n: x * n, static_argnums=1)
    c = f.lower(jnp.float32(2.), 3).compile()
    assert float(c(jnp.float32(5.))) == 15.0
    with pytest.raises(TypeError, match="^Function compiled with input pytree does not "
                                        "match the input pytree it was called with"):
        c(jnp.float32(5.), 3)


@pytest.mark.spec("JIT-7")
def test_trace_and_out_info(jax, jnp):
    f = jax.jit(lambda x: (x * 2., x > 0))
    traced = f.trace(1.)
    assert str(traced.jaxpr) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = mul a 2.0:f32[]\n"
        "    c:bool[] = gt a 0.0:f32[]\n"
        "  in (b, c) }")
    assert repr(traced.out_info) == (
        "(ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True), "
        "ShapeDtypeStruct(shape=(), dtype=bool, weak_type=True))")
    assert repr(traced.lower().compile()(3.)) == (
        "(Array(6., dtype=float32, weak_type=True), "
        "Array(True, dtype=bool, weak_type=True))")


@pytest.mark.spec("JIT-7")
def test_lowering_shares_the_trace(jax, jnp):
    f, n = counting(jax)
    f(jnp.ones(2))
    f.lower(jnp.ones(2)).compile()
    f.eval_shape(jnp.ones(2))
    assert len(n) == 1


# -- JIT-8: eval_shape, ShapeDtypeStruct, typeof ---------------------------------------

@pytest.mark.spec("JIT-8")
def test_g_jit_028_eval_shape_and_typeof(jax, jnp):
    out = jax.eval_shape(lambda x: (x * 2, x > 0), jnp.ones((2, 3)))
    assert repr(out) == ("(ShapeDtypeStruct(shape=(2, 3), dtype=float32), "
                         "ShapeDtypeStruct(shape=(2, 3), dtype=bool))")
    assert repr(jax.eval_shape(lambda x: x * 2, 1.)) == \
        "ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)"
    assert [str(jax.typeof(v)) for v in (jnp.ones((2, 3)), 1., jnp.asarray(1.))] == \
        ["float32[2,3]", "~float32[]", "~float32[]"]


@pytest.mark.spec("JIT-8")
def test_g_jit_028_eval_shape_with_matmul_and_sum(jax, jnp):
    out = jax.eval_shape(lambda x, y: (x @ y, x.sum()), jnp.ones((2, 3)), jnp.ones((3, 4)))
    assert repr(out) == ("(ShapeDtypeStruct(shape=(2, 4), dtype=float32), "
                         "ShapeDtypeStruct(shape=(), dtype=float32))")


@pytest.mark.spec("JIT-8")
def test_eval_shape_does_not_run_the_program(jax, jnp):
    def f(x):
        return jnp.log(x) * 2

    with jax.debug_nans(True):
        out = jax.eval_shape(f, -1.)
    assert repr(out) == "ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)"
    s = jax.ShapeDtypeStruct((2, 3), jnp.int8)
    assert repr(jax.eval_shape(lambda a, b: a * b, s, 2)) == \
        "ShapeDtypeStruct(shape=(2, 3), dtype=int8)"


@pytest.mark.spec("JIT-8")
def test_shape_dtype_struct(jax, jnp):
    s = jax.ShapeDtypeStruct((2, 3), jnp.float32)
    assert repr(s) == "ShapeDtypeStruct(shape=(2, 3), dtype=float32)"
    assert (s.shape, s.dtype, s.ndim, s.size) == ((2, 3), np.dtype("float32"), 2, 6)
    assert s == jax.ShapeDtypeStruct((2, 3), jnp.float32)
    assert hash(s) == hash(jax.ShapeDtypeStruct((2, 3), jnp.float32))
    assert s != jax.ShapeDtypeStruct((2, 3), jnp.float32, weak_type=True)
    assert repr(jax.ShapeDtypeStruct((2, 3), 'int64', weak_type=True)) == \
        "ShapeDtypeStruct(shape=(2, 3), dtype=int64, weak_type=True)"
    assert repr(jax.ShapeDtypeStruct([4], jnp.float64)) == \
        "ShapeDtypeStruct(shape=(4,), dtype=float64)"
    # used as an argument, the dtype is canonicalized
    assert repr(jax.eval_shape(lambda a: a, jax.ShapeDtypeStruct([4], jnp.float64))) == \
        "ShapeDtypeStruct(shape=(4,), dtype=float32)"


@pytest.mark.spec("JIT-8")
def test_eval_shape_shares_the_trace_with_jit(jax, jnp):
    n = []

    def f(x):
        n.append(None)
        return x + 1

    jax.jit(f)(jnp.ones(3))
    jax.eval_shape(f, jnp.ones(3))
    jax.make_jaxpr(f)(jnp.ones(3))
    assert len(n) == 1


# -- JIT-9: nested jit ------------------------------------------------------------------

@pytest.mark.spec("JIT-9")
def test_nested_jit_records_one_equation(jax, jnp):
    @jax.jit
    def inner(y):
        return y * 2

    closed = jax.make_jaxpr(lambda x: inner(x) + 1)(jnp.ones(3))
    assert [e.primitive.name for e in closed.eqns] == ["jit", "add"]
    assert closed.eqns[0].params["name"] == "inner"
    assert str(closed).splitlines()[1].strip() == "b:f32[3] = jit["


@pytest.mark.spec("JIT-9")
def test_g_jit_021_jnp_functions_may_be_nested_jits(jax, jnp):
    """Whether a jnp function shows up as a nested ``jit`` is an
    implementation detail; the result must be the same either way."""
    f = lambda x: jnp.where(x > 0, x, 0.)
    closed = jax.make_jaxpr(f)(jnp.ones(3))
    assert {e.primitive.name for e in closed.eqns} <= {"gt", "jit", "select_n",
                                                       "convert_element_type",
                                                       "broadcast_in_dim"}
    assert repr(jax.jit(f)(jnp.array([-1., 2.]))) == "Array([0., 2.], dtype=float32)"


@pytest.mark.spec("JIT-9")
def test_g_leak_006_inner_jit_closing_over_outer_tracer(jax, jnp):
    @jax.jit
    def outer(x):
        inner = jax.jit(lambda y: x * y)
        return inner(3.) + inner(4.)

    assert float(outer(2.)) == 14.0


@pytest.mark.spec("JIT-9")
def test_inline_jit_records_the_body(jax, jnp):
    inner = jax.jit(lambda y: y * 2, inline=True)
    closed = jax.make_jaxpr(lambda x: inner(x) + 1)(1.)
    assert [e.primitive.name for e in closed.eqns] == ["mul", "add"]


# -- JIT-10: disabling jit ------------------------------------------------------------------

@pytest.mark.spec("JIT-10")
def test_g_conc_019_disable_jit_runs_eagerly(jax, jnp, capsys):
    def f(x):
        print("x =", x)
        if x > 0:
            return x
        return -x

    with jax.disable_jit():
        assert float(jax.jit(f)(-3.)) == 3.0
    assert capsys.readouterr().out == "x = -3.0\n"


@pytest.mark.spec("JIT-10")
def test_disable_jit_runs_every_call(jax, jnp):
    f, n = counting(jax)
    with jax.disable_jit():
        f(1.)
        f(1.)
    assert len(n) == 2 and f._cache_size() == 0
    f(1.)
    f(1.)
    assert len(n) == 3


@pytest.mark.spec("JIT-10")
def test_jax_disable_jit_config_option(jax, jnp):
    f, n = counting(jax)
    old = jax.config.jax_disable_jit
    try:
        jax.config.update("jax_disable_jit", True)
        assert jax.config.jax_disable_jit is True
        out = f(2.)
        f(2.)
    finally:
        jax.config.update("jax_disable_jit", old)
    assert len(n) == 2 and float(out) == 2.0


# -- DON: buffer donation ---------------------------------------------------------------------

def _add(x, y):
    return x + y


@pytest.mark.spec("DON-1")
def test_g_don_001_donated_buffers_are_deleted(jax, jnp):
    x = jax.device_put(np.ones((2, 3)))
    y = jax.device_put(np.ones((2, 3)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z = jax.jit(_add, donate_argnums=(1,))(x, y)
    assert str(z) == "[[2. 2. 2.]\n [2. 2. 2.]]"
    assert (y.is_deleted(), x.is_deleted()) == (True, False)
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        y + 1
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        np.asarray(y)
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        jax.jit(lambda a: a)(y)


@pytest.mark.spec("DON-1")
def test_g_don_005_deleted_arrays_raise(jax, jnp):
    x = jnp.ones(3)
    x.delete()
    assert x.is_deleted()
    for use in (lambda: x + 1, lambda: jax.jit(lambda a: a * 2)(x), lambda: repr(x)):
        with pytest.raises(RuntimeError, match="Array has been deleted"):
            use()


@pytest.mark.spec("DON-1")
def test_g_don_003_donation_by_keyword(jax, jnp):
    x, y = jnp.ones(3), jnp.ones(3)
    jax.jit(_add, donate_argnums=(1,))(x, y=y)
    assert (x.is_deleted(), y.is_deleted()) == (False, True)
    x, y = jnp.ones(3), jnp.ones(3)
    jax.jit(_add, donate_argnames=('y',))(x, y=y)
    assert y.is_deleted()
    x, y = jnp.ones(3), jnp.ones(3)
    jax.jit(_add, donate_argnames=('y',))(x, y)
    assert y.is_deleted()


@pytest.mark.spec("DON-1")
def test_donated_identity_and_dtype_change(jax, jnp):
    x = jnp.ones(3)
    out = jax.jit(lambda a: a, donate_argnums=0)(x)
    assert x.is_deleted() and repr(out) == "Array([1., 1., 1.], dtype=float32)"
    x = jnp.ones(3, jnp.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jax.jit(lambda a: a * 1.5, donate_argnums=0)(x)
    assert x.is_deleted()           # same element count: usable


@pytest.mark.spec("DON-1")
def test_donated_numpy_input_is_left_alone(jax, jnp):
    a = np.ones(3, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = jax.jit(_add, donate_argnums=(0,))(a, jnp.ones(3))
    assert out.tolist() == [2., 2., 2.] and a.tolist() == [1., 1., 1.]


@pytest.mark.spec("DON-2")
def test_g_don_002_unusable_donations_warn(jax, jnp):
    x = jax.device_put(np.ones((2, 3)))
    y = jax.device_put(np.ones((2, 3)))
    with pytest.warns(UserWarning) as record:
        jax.jit(_add, donate_argnums=(0, 1))(x, y)
    assert str(record[0].message).splitlines()[0] == \
        "Some donated buffers were not usable: float32[2,3]."
    assert (x.is_deleted(), y.is_deleted()) == (True, False)
    a = jax.device_put(np.ones((2, 3)))
    b = jax.device_put(np.ones((1, 3)))
    with pytest.warns(UserWarning, match=r"^Some donated buffers were not usable: "
                                         r"float32\[1,3\]\."):
        jax.jit(_add, donate_argnums=(1,))(a, b)
    assert not b.is_deleted()


@pytest.mark.spec("DON-2")
def test_donated_python_scalar_is_reported_weak(jax, jnp):
    with pytest.warns(UserWarning, match=r"^Some donated buffers were not usable: "
                                         r"~float32\[\]\."):
        jax.jit(_add, donate_argnums=(0,))(1., jnp.ones(3))


@pytest.mark.spec("DON-2")
def test_negative_donate_argnums_donate_nothing(jax, jnp):
    x, y = jnp.ones(3), jnp.ones(3)
    jax.jit(_add, donate_argnums=-1)(x, y)
    assert (x.is_deleted(), y.is_deleted()) == (False, False)


@pytest.mark.spec("DON-3")
def test_g_don_004_pytree_donation(jax, jnp):
    xs = [jax.device_put(np.ones((2, 3))), jax.device_put(np.ones((3, 4)))]
    z = jax.jit(lambda xs: [x + 1 for x in xs], donate_argnums=0)(xs)
    assert [x.is_deleted() for x in xs] == [True, True]
    assert [v.shape for v in z] == [(2, 3), (3, 4)]


@pytest.mark.spec("DON-3")
def test_donating_a_dict_argument_by_name(jax, jnp):
    params = {"w": jnp.ones(2), "b": jnp.zeros(2)}
    out = jax.jit(lambda p, x: {k: v + x for k, v in p.items()},
                  donate_argnames="p")(params, 1.)
    assert params["w"].is_deleted() and params["b"].is_deleted()
    assert out["w"].tolist() == [2., 2.]


@pytest.mark.spec("DON-4")
def test_static_and_donated_cannot_overlap(jax):
    with pytest.raises(ValueError, match=r"(?m)^static_argnames and donate_argnames cannot "
                                         r"intersect. Argument names \{'x'\} appear in "
                                         "both static_argnames and donate_argnames$"):
        jax.jit(_add, static_argnums=0, donate_argnums=0)


# -- TRC-7: operators give JAX's dtypes, traced or not --------------------------------

_TABLE = os.path.join(os.path.dirname(__file__), "data", "operator_dtypes.txt")
_SCALARS = {"int": 1, "float": 1.0, "complex": 1j}


def _load_table():
    rows = {}
    with open(_TABLE) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            head, results = line.split(" : ")
            x64, op, side = head.split()
            rows.setdefault((x64 == "1", op), {})[side] = results.split()
    return rows


_OPERATORS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b, "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b, "pow": lambda a, b: a ** b, "and": lambda a, b: a & b,
    "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b, "lshift": lambda a, b: a << b,
    "rshift": lambda a, b: a >> b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
}
_DTYPES = ["bool", "uint8", "uint32", "int8", "int16", "int32", "int64",
           "bfloat16", "float16", "float32", "float64", "complex64"]


def _describe(thunk):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = thunk()
    except Exception as e:
        return "!" + type(e).__name__
    return ("~" if out.weak_type else "") + np.dtype(out.dtype).name


@pytest.mark.spec("TRC-7")
@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("op", list(_OPERATORS))
def test_binary_operator_dtypes_when_traced(jax, jnp, op, x64):
    """Every operator over 12 dtypes and the weak Python scalars, on tracers
    (``eval_shape``; a Python scalar operand is closed over, as it would be
    in user code): dtype names and weak types as in JAX's table."""
    table = _load_table()[(x64, op)]
    fn = _OPERATORS[op]
    wrong = []
    with jax.enable_x64(x64):
        def struct(name):
            return jax.ShapeDtypeStruct((2,), jnp.dtype(name))
        for lhs in _DTYPES:
            row = iter(table["L" + lhs])
            for rhs in _DTYPES:
                got = _describe(lambda: jax.eval_shape(fn, struct(lhs), struct(rhs)))
                want = next(row)
                if got != want:
                    wrong.append(f"{lhs} {op} {rhs}: {got} != {want}")
            for s_name, s in _SCALARS.items():
                got = _describe(lambda: jax.eval_shape(lambda a: fn(a, s), struct(lhs)))
                want = next(row)
                if got != want:
                    wrong.append(f"{lhs} {op} {s_name}: {got} != {want}")
        for s_name, s in _SCALARS.items():
            for rhs, want in zip(_DTYPES, table["R" + s_name]):
                got = _describe(lambda: jax.eval_shape(lambda b: fn(s, b), struct(rhs)))
                if got != want:
                    wrong.append(f"{s_name} {op} {rhs}: {got} != {want}")
        for w_name, w in _SCALARS.items():      # a weakly typed traced value
            row = iter(table["L~" + w_name])
            for rhs in _DTYPES:
                got = _describe(lambda: jax.eval_shape(fn, w, struct(rhs)))
                want = next(row)
                if got != want:
                    wrong.append(f"~{w_name} {op} {rhs}: {got} != {want}")
            for s_name, s in _SCALARS.items():
                got = _describe(lambda: jax.eval_shape(lambda a: fn(a, s), w))
                want = next(row)
                if got != want:
                    wrong.append(f"~{w_name} {op} {s_name}: {got} != {want}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.spec("TRC-7")
@pytest.mark.parametrize("op", list(_OPERATORS))
def test_binary_operator_dtypes_eagerly(jax, jnp, op):
    """The same table on concrete arrays, for a sample of dtypes."""
    table = _load_table()[(False, op)]
    fn = _OPERATORS[op]
    sample = ["bool", "int8", "float16"]
    columns = _DTYPES + list(_SCALARS)
    wrong = []
    for lhs in sample:
        for rhs in sample + list(_SCALARS):
            want = table["L" + lhs][columns.index(rhs)]
            b = _SCALARS[rhs] if rhs in _SCALARS else jnp.ones(2, jnp.dtype(rhs))
            got = _describe(lambda: fn(jnp.ones(2, jnp.dtype(lhs)), b))
            if got != want:
                wrong.append(f"{lhs} {op} {rhs}: {got} != {want}")
    for s_name, s in _SCALARS.items():
        for rhs in sample:
            want = table["R" + s_name][_DTYPES.index(rhs)]
            got = _describe(lambda: fn(s, jnp.ones(2, jnp.dtype(rhs))))
            if got != want:
                wrong.append(f"{s_name} {op} {rhs}: {got} != {want}")
        for rhs in list(_SCALARS):
            want = table["L~" + s_name][columns.index(rhs)]
            got = _describe(lambda: fn(jnp.asarray(s), _SCALARS[rhs]))
            if got != want:
                wrong.append(f"~{s_name} {op} {rhs}: {got} != {want}")
    assert not wrong, "\n".join(wrong)
