"""Control-flow gotchas of gotchas.md: G-LAX-001 .. G-LAX-026 (without
G-LAX-020, in test_lax.py), G-AD-028 .. G-AD-030 and G-DBG-010
(SPEC CF-80 .. CF-84).

Each test runs the gotcha's sample and checks what JAX 0.10.2 was observed
to do: values, dtypes and weak types, the first lines of error messages,
and printed output.
"""
import re

import numpy as np
import pytest


def first_lines(e, n=2):
    return [line.strip() for line in str(e).splitlines() if line.strip()][:n]


def raises(cls, prefix):
    return pytest.raises(cls, match="^" + re.escape(prefix))


# -- CF-80: cond and switch ------------------------------------------------------

@pytest.mark.spec("CF-80")
def test_cond_basics(jax, jnp):
    # G-LAX-001
    lax = jax.lax
    operand = jnp.array([0.])
    np.testing.assert_array_equal(lax.cond(True, lambda x: x + 1, lambda x: x - 1, operand), [1.])
    np.testing.assert_array_equal(lax.cond(False, lambda x: x + 1, lambda x: x - 1, operand), [-1.])
    f = jax.jit(lambda p, x: lax.cond(p, lambda x: x + 1, lambda x: x - 1, x))
    np.testing.assert_array_equal(f(False, operand), [-1.])
    assert float(lax.cond(True, lambda: 1., lambda: 2.)) == 1.0


@pytest.mark.spec("CF-80")
def test_cond_predicate(jax, jnp):
    # G-LAX-002
    lax = jax.lax
    assert int(lax.cond(2, lambda: 1, lambda: 0)) == 1
    assert int(lax.cond(0., lambda: 1, lambda: 0)) == 0
    with raises(TypeError, "Pred must be a scalar, got [ True False] of shape (2,)."):
        lax.cond(jnp.array([True, False]), lambda: 1, lambda: 0)
    with raises(TypeError, "cond predicate is None"):
        lax.cond(None, lambda: 1, lambda: 0)


@pytest.mark.spec("CF-80")
def test_cond_branch_types(jax, jnp):
    # G-LAX-003
    lax = jax.lax
    for tf, ff, msg in [
            (lambda x: x, lambda x: x.astype(jnp.int32),
             "cond branches must have equal output types but they differ."),
            (lambda x: x, lambda x: jnp.stack([x, x]),
             "cond branches must have equal output types but they differ."),
            (lambda x: (x, x), lambda x: x,
             "cond branch outputs must have the same pytree structure, but they differ:")]:
        with pytest.raises(TypeError) as info:
            lax.cond(True, tf, ff, jnp.float32(1.))
        assert first_lines(info.value, 1) == [msg]
    out = lax.cond(True, lambda x: x, lambda x: 1., jnp.float32(1.))
    assert repr(out) == "Array(1., dtype=float32, weak_type=True)"


@pytest.mark.spec("CF-80")
def test_cond_traces_both_runs_one(jax, jnp, capsys):
    # G-LAX-004
    def tf(x):
        print("tracing true")
        jax.debug.print("running true")
        return x

    def ff(x):
        print("tracing false")
        jax.debug.print("running false")
        return -x

    assert float(jax.lax.cond(True, tf, ff, 1.)) == 1.0
    jax.effects_barrier()
    assert capsys.readouterr().out == "tracing true\ntracing false\nrunning true\n"


@pytest.mark.spec("CF-80")
def test_switch_clamps_index(jax, jnp):
    # G-LAX-005
    lax = jax.lax
    branches = [lambda x: x * 0, lambda x: x * 1, lambda x: x * 2]
    assert [float(lax.switch(i, branches, 10.)) for i in (5, -1, 1)] == [20.0, 0.0, 10.0]
    assert float(jax.jit(lambda i: lax.switch(i, branches, 10.))(7)) == 20.0


@pytest.mark.spec("CF-80")
def test_switch_index_errors(jax, jnp):
    # G-LAX-006
    lax = jax.lax
    branches = [lambda: 0, lambda: 1]
    with raises(TypeError, "Index type must be an integer, got 1.0 as float32"):
        lax.switch(1.0, branches)
    with raises(TypeError, "Branch index must be scalar, got [0 1] of shape (2,)."):
        lax.switch(jnp.array([0, 1]), branches)
    with raises(ValueError, "Empty branch sequence"):
        lax.switch(0, [])


@pytest.mark.spec("CF-80")
def test_cond_operand_keyword(jax, jnp):
    # G-LAX-022
    lax = jax.lax
    assert float(lax.cond(True, lambda x: x + 1, lambda x: x - 1, operand=1.)) == 2.0
    with raises(TypeError, "if 'operand' keyword is passed then no positional operands "
                           "can be passed, got operand=1.0 and positional operands (1.0,)"):
        lax.cond(True, lambda x: x, lambda x: x, 1., operand=1.)


@pytest.mark.spec("CF-80")
def test_non_callable_branches(jax, jnp):
    # G-LAX-023
    lax = jax.lax
    with raises(TypeError, "lax.cond: true_fun and false_fun arguments should be callable."):
        lax.cond(True, 1, 2)
    with raises(TypeError, "lax.while_loop: body_fun and cond_fun arguments should be "
                           "callable."):
        lax.while_loop(1, lambda x: x, 0)


@pytest.mark.spec("CF-80")
def test_cond_closes_over_tracers(jax, jnp):
    # G-LAX-026
    f = jax.jit(lambda x, y: jax.lax.cond(x > 0, lambda: x + y, lambda: x - y))
    assert (float(f(1., 10.)), float(f(-1., 10.))) == (11.0, -11.0)


@pytest.mark.spec("CF-80")
def test_debug_print_in_cond_branch_prints_when_taken(jax, jnp, capsys):
    # G-DBG-010
    lax = jax.lax

    @jax.jit
    def f(x):
        return lax.cond(x > 0, lambda v: (jax.debug.print("pos {}", v), v)[1],
                        lambda v: (jax.debug.print("neg {}", v), v)[1], x)

    f(1.)
    f(-1.)
    jax.effects_barrier()
    assert capsys.readouterr().out == "pos 1.0\nneg -1.0\n"


# -- CF-81: while_loop and fori_loop ------------------------------------------------

@pytest.mark.spec("CF-81")
def test_while_loop_basics(jax, jnp):
    # G-LAX-007
    lax = jax.lax
    assert repr(lax.while_loop(lambda x: x < 10, lambda x: x + 1, 0)) == \
        "Array(10, dtype=int32, weak_type=True)"
    out = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + c[0] * 2.), (0, 0.))
    assert (repr(out[0]), repr(out[1])) == (
        "Array(3, dtype=int32, weak_type=True)", "Array(6., dtype=float32, weak_type=True)")


@pytest.mark.spec("CF-81")
def test_while_loop_carry_type_fixed(jax, jnp):
    # G-LAX-008
    lax = jax.lax
    head = ("while_loop body function carry input and carry output must have equal "
            "types, but they differ:")
    for body, detail in [
            (lambda x: x + 1.5, "The input carry x has type int32[] but the corresponding "
             "output carry component has type float32[], so the dtypes do not match."),
            (lambda x: jnp.stack([x, x]), "The input carry x has type int32[] but the "
             "corresponding output carry component has type int32[2], so the shapes do "
             "not match.")]:
        with pytest.raises(TypeError) as info:
            lax.while_loop(lambda x: jnp.all(x < 10), body, jnp.int32(0))
        assert first_lines(info.value) == [head, detail]


@pytest.mark.spec("CF-81")
def test_weak_init_takes_body_type(jax, jnp):
    # G-LAX-009
    lax = jax.lax
    assert repr(lax.while_loop(lambda x: x < 3, lambda x: x + jnp.float32(1), 0.)) == \
        "Array(3., dtype=float32)"
    assert repr(lax.fori_loop(0, 3, lambda i, x: x + jnp.float16(1), 0.)) == \
        "Array(3., dtype=float16)"
    assert repr(lax.scan(lambda c, x: (c + x, c), 0., jnp.arange(3.))[0]) == \
        "Array(3., dtype=float32)"


@pytest.mark.spec("CF-81")
def test_while_cond_must_be_boolean_scalar(jax, jnp):
    # G-LAX-010
    lax = jax.lax
    for cond, got in [(lambda x: x, "[ShapedArray(int32[], weak_type=True)]"),
                      (lambda x: x < jnp.array([1, 2]), "[ShapedArray(bool[2])]")]:
        with pytest.raises(TypeError) as info:
            lax.while_loop(cond, lambda x: x - 1, 3)
        assert first_lines(info.value, 1) == [
            f"cond_fun must return a boolean scalar, but got output type(s) {got}."]


@pytest.mark.spec("CF-81")
def test_fori_loop_basics(jax, jnp, capsys):
    # G-LAX-011
    lax = jax.lax
    assert repr(lax.fori_loop(0, 10, lambda i, x: x + i, 0)) == \
        "Array(45, dtype=int32, weak_type=True)"
    assert repr(lax.fori_loop(5, 2, lambda i, x: x + i, 100)) == \
        "Array(100, dtype=int32, weak_type=True)"
    lax.fori_loop(0, 1, lambda i, x: (print("i:", i), x)[1], 0)
    assert capsys.readouterr().out == "i: JitTracer(~int32[])\n"


@pytest.mark.spec("CF-81")
def test_fori_loop_lowering(jax, jnp):
    # G-LAX-012
    lax = jax.lax
    text = str(jax.make_jaxpr(lambda x: lax.fori_loop(0, 3, lambda i, c: c + i, x))(0))
    assert text == """{ lambda ; a:i32[]. let
    _:i32[] b:i32[] = scan[
      jaxpr={ lambda ; c:i32[] d:i32[]. let
          e:i32[] = add c 1:i32[]
          f:i32[] = add d c
        in (e, f) }
      length=3
      num_carry=2
      num_consts=0
      reverse=False
      unroll=1
    ] 0:i32[] a
  in (b,) }"""
    jaxpr = jax.make_jaxpr(lambda x, n: lax.fori_loop(0, n, lambda i, c: c + i, x))(0, 3)
    assert str(jaxpr.eqns[-1].primitive) == "while"


@pytest.mark.spec("CF-81")
def test_fori_loop_bound_types(jax, jnp):
    # G-LAX-013
    lax = jax.lax
    assert repr(lax.fori_loop(0, jnp.int32(3), lambda i, x: x + i, 0)) == \
        "Array(3, dtype=int32, weak_type=True)"
    with raises(TypeError, "lower and upper arguments to fori_loop must have equal types, "
                           "got int16 and int32"):
        lax.fori_loop(jnp.int16(0), jnp.int32(3), lambda i, x: x + i, 0)


@pytest.mark.spec("CF-81")
def test_python_loops_unroll_fori_does_not(jax, jnp):
    # G-LAX-021
    def py(x):
        for _ in range(50):
            x = x * 2
        return x

    loop = jax.make_jaxpr(lambda x: jax.lax.fori_loop(0, 50, lambda i, v: v * 2, x))(1.)
    assert (len(jax.make_jaxpr(py)(1.).eqns), len(loop.eqns)) == (50, 1)


# -- CF-82: scan, map, associative_scan ----------------------------------------------

@pytest.mark.spec("CF-82")
def test_scan_basics(jax, jnp):
    # G-LAX-014
    def cumsum_step(c, x):
        c = c + x
        return c, c

    c, ys = jax.lax.scan(cumsum_step, 0, jnp.arange(1, 5))
    assert int(c) == 10 and np.asarray(ys).tolist() == [1, 3, 6, 10]
    c, ys = jax.lax.scan(cumsum_step, 0, jnp.arange(1, 5), reverse=True)
    assert int(c) == 10 and np.asarray(ys).tolist() == [10, 9, 7, 4]


@pytest.mark.spec("CF-82")
def test_scan_length_and_pytrees(jax, jnp):
    # G-LAX-015
    lax = jax.lax
    c, ys = lax.scan(lambda c, _: (c + 1, c), 0, None, length=3)
    assert repr(c) == "Array(3, dtype=int32, weak_type=True)"
    assert repr(ys) == "Array([0, 1, 2], dtype=int32, weak_type=True)"
    c, ys = lax.scan(lambda c, x: (c + x[0] * x[1], None), 0., (jnp.arange(3.), jnp.ones(3)))
    assert repr(c) == "Array(3., dtype=float32)" and ys is None
    with raises(ValueError, "scan got no values to scan over and `length` not provided."):
        lax.scan(lambda c, x: (c, x), 0, None)


@pytest.mark.spec("CF-82")
def test_scan_errors(jax, jnp):
    # G-LAX-016
    lax = jax.lax
    with raises(ValueError, "scan got values with different leading axis sizes: 3, 4."):
        lax.scan(lambda c, x: (c, x), 0, (jnp.ones(3), jnp.ones(4)))
    with raises(ValueError, "scan got `length` argument of 4 which disagrees with leading "
                            "axis sizes [3]."):
        lax.scan(lambda c, x: (c, x), 0, jnp.ones(3), length=4)
    with raises(TypeError, "scan body output must be a pair, got float32[]."):
        lax.scan(lambda c, x: c + x, 0., jnp.ones(3))
    with pytest.raises(TypeError) as info:
        lax.scan(lambda c, x: (c + x, x), jnp.int32(0), jnp.ones(3))
    assert first_lines(info.value) == [
        "scan body function carry input and carry output must have equal types, but they "
        "differ:",
        "The input carry c has type int32[] but the corresponding output carry component "
        "has type float32[], so the dtypes do not match."]


@pytest.mark.spec("CF-82")
def test_disable_jit_runs_python_loops(jax, jnp):
    # G-LAX-017
    lax = jax.lax
    with jax.disable_jit():
        c, ys = lax.scan(lambda c, x: (c + x, c), 0., jnp.arange(3.))
        assert float(c) == 3.0 and np.asarray(ys).tolist() == [0., 0., 1.]
        with raises(ValueError, "zero-length scan is not supported in disable_jit() mode "
                                "because the output type is unknown."):
            lax.scan(lambda c, x: (c + x, c), 0., jnp.zeros(0))
    c, ys = lax.scan(lambda c, x: (c + x, c), 0., jnp.zeros(0))
    assert float(c) == 0.0 and ys.shape == (0,)


@pytest.mark.spec("CF-82")
def test_map_and_batch_size(jax, jnp):
    # G-LAX-018
    want = [0., 1., 4., 9., 16.]
    assert np.asarray(jax.lax.map(lambda x: x ** 2, jnp.arange(5.))).tolist() == want
    out = jax.lax.map(lambda x: x ** 2, jnp.arange(5.), batch_size=2)
    assert np.asarray(out).tolist() == want


@pytest.mark.spec("CF-82")
def test_associative_scan(jax, jnp):
    # G-LAX-019
    lax = jax.lax
    assert np.asarray(lax.associative_scan(jnp.add, jnp.arange(1, 6))).tolist() == \
        [1, 3, 6, 10, 15]
    assert np.asarray(lax.associative_scan(jnp.add, jnp.arange(1, 6), reverse=True)
                      ).tolist() == [15, 14, 12, 9, 5]


@pytest.mark.spec("CF-82")
def test_disable_jit_cond_runs_one_branch(jax, jnp, capsys):
    # G-LAX-024
    def tf(x):
        print("true branch ran")
        return x

    def ff(x):
        print("false branch ran")
        return x

    with jax.disable_jit():
        jax.lax.cond(True, tf, ff, 1.)
    assert capsys.readouterr().out == "true branch ran\n"


@pytest.mark.spec("CF-82")
def test_scan_unroll_keeps_values(jax, jnp):
    # G-LAX-025
    def f(c, x):
        return c * 2 + x, c

    a = jax.lax.scan(f, 0., jnp.arange(5.))
    b = jax.lax.scan(f, 0., jnp.arange(5.), unroll=True)
    c = jax.lax.scan(f, 0., jnp.arange(5.), unroll=2)
    assert float(a[0]) == float(b[0]) == float(c[0]) == 26.0
    assert bool((a[1] == b[1]).all())


# -- CF-83: differentiating loops ----------------------------------------------------

@pytest.mark.spec("CF-83")
def test_while_loop_forward_only(jax, jnp):
    # G-AD-028
    lax = jax.lax

    def f(x):
        return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.), (0, x))[1]

    primal, tangent = jax.jvp(f, (1.,), (1.,))
    assert (float(primal), float(tangent)) == (8.0, 8.0)
    with pytest.raises(ValueError) as info:
        jax.grad(f)(1.)
    assert str(info.value).startswith(
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop "
        "with dynamic start/stop values.")


@pytest.mark.spec("CF-83")
def test_fori_loop_grad_needs_static_bounds(jax, jnp):
    # G-AD-029
    lax = jax.lax

    def f(x, n):
        return lax.fori_loop(0, n, lambda i, c: c * 2., x)

    assert float(jax.grad(lambda x: f(x, 3))(1.)) == 8.0
    assert str(jax.make_jaxpr(lambda x: f(x, 3))(1.).eqns[0].primitive) == "scan"
    # grad traces only x: n stays a concrete int, so this is a scan too.
    assert float(jax.grad(f)(1., 3)) == 8.0
    assert str(jax.make_jaxpr(f)(1., 3).eqns[-1].primitive) == "while"


@pytest.mark.spec("CF-83")
def test_grad_through_cond_switch_scan(jax, jnp):
    # G-AD-030
    lax = jax.lax
    np.testing.assert_allclose(
        jax.grad(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x))(1.), np.cos(1.), rtol=1e-6)
    np.testing.assert_allclose(
        jax.grad(lambda x: lax.switch(1, [jnp.sin, jnp.cos, jnp.tan], x))(1.), -np.sin(1.),
        rtol=1e-6)
    g = jax.grad(lambda x: lax.scan(lambda c, _: (c * x, None), 1., None, length=3)[0])(2.)
    assert float(g) == 12.0


# -- CF-1: tracing ---------------------------------------------------------------------

@pytest.mark.spec("CF-1")
def test_bodies_traced_once_closures_become_operands(jax, jnp):
    calls = []

    def body(i, x):
        calls.append(i)          # a Python side effect: runs at trace time only
        return x + 1

    assert float(jax.lax.fori_loop(0, 5, body, 0.)) == 5.0
    assert len(calls) == 1
    jaxpr = jax.make_jaxpr(lambda y: jax.lax.cond(True, lambda: y * 2., lambda: y))(1.)
    cond = [e for e in jaxpr.eqns if str(e.primitive) == "cond"]
    assert len(cond) == 1 and len(cond[0].invars) == 2      # the index, then y


@pytest.mark.spec("CF-1")
def test_iterator_in_fori_loop_advances_once(jax, jnp):
    # G-PURE-005: the documented "unexpected result 0"
    lax = jax.lax
    array = jnp.arange(10)
    assert int(lax.fori_loop(0, 10, lambda i, x: x + array[i], 0)) == 45
    iterator = iter(range(10))
    assert int(lax.fori_loop(0, 10, lambda i, x: x + next(iterator), 0)) == 0
    assert next(iterator) == 1


@pytest.mark.spec("CF-1")
def test_iterator_operands_are_rejected(jax, jnp):
    # G-PURE-006
    lax = jax.lax

    def func11(arr, extra):
        ones = jnp.ones(arr.shape)

        def body(carry, aelems):
            ae1, ae2 = aelems
            return (carry + ae1 * ae2 + extra, carry)
        return lax.scan(body, 0., (arr, ones))

    with pytest.raises(TypeError) as info:
        jax.make_jaxpr(func11)(iter(range(16)), 5.)
    assert "The problematic value is of type <class 'range_iterator'> and was passed to " \
           "the function at path arr." in str(info.value)
    with pytest.raises(TypeError, match="of type '<class 'range_iterator'>' is not a valid "
                                        "JAX type"):
        lax.cond(True, lambda x: next(x) + 1, lambda x: next(x) - 1, iter(range(10)))


@pytest.mark.spec("CF-81")
def test_fori_loop_traced_bounds_jaxpr_text(jax, jnp):
    f = lambda x, n: jax.lax.fori_loop(0, n, lambda i, c: c * 2., x)  # noqa: E731
    assert str(jax.make_jaxpr(f)(1., 3)) == """{ lambda ; a:f32[] b:i32[]. let
    _:i32[] _:i32[] c:f32[] = while[
      body_jaxpr={ lambda ; d:i32[] e:i32[] f:f32[]. let
          g:i32[] = add d 1:i32[]
          h:f32[] = mul f 2.0:f32[]
        in (g, e, h) }
      body_nconsts=0
      cond_jaxpr={ lambda ; i:i32[] j:i32[] k:f32[]. let
          l:bool[] = lt i j
        in (l,) }
      cond_nconsts=0
    ] 0:i32[] b a
  in (c,) }"""
