"""``lax.while_loop``: values, carry types, printed form, forward and
reverse mode, batching (SPEC CF-30 .. CF-44)."""
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st


def py_while(cond_fun, body_fun, val):
    while cond_fun(val):
        val = body_fun(val)
    return val


def collatz_steps(n):
    """(n, steps): the number of Collatz steps from ``n`` to 1."""
    return py_while(lambda c: c[0] != 1,
                    lambda c: (c[0] // 2 if c[0] % 2 == 0 else 3 * c[0] + 1, c[1] + 1),
                    (n, 0))


def jax_collatz(jax, n):
    lax, jnp = jax.lax, jax.numpy
    return lax.while_loop(
        lambda c: c[0] != 1,
        lambda c: (jnp.where(c[0] % 2 == 0, c[0] // 2, 3 * c[0] + 1), c[1] + 1),
        (n, 0))


def doubling(jax, x):
    return jax.lax.while_loop(lambda c: c < 10., lambda c: c * 2., x)


# -- CF-30: semantics of the Python loop ------------------------------------------

@pytest.mark.spec("CF-30")
@pytest.mark.spec("CF-37")
@settings(max_examples=8, deadline=None)
@given(st.integers(1, 60))
def test_while_matches_python_loop_eagerly_and_under_jit(jax, jnp, n):
    want = collatz_steps(n)
    eager = jax_collatz(jax, jnp.int32(n))
    jitted = jax.jit(lambda m: jax_collatz(jax, m))(jnp.int32(n))
    for got in (eager, jitted):
        assert [int(v) for v in got] == list(want)


@pytest.mark.spec("CF-30")
def test_while_pytree_carry_keeps_its_structure(jax, jnp):
    init = {"i": 0, "acc": (jnp.float32(1.), jnp.zeros(2, jnp.float32))}
    out = jax.lax.while_loop(
        lambda c: c["i"] < 3,
        lambda c: {"i": c["i"] + 1,
                   "acc": (c["acc"][0] * 2, c["acc"][1] + c["acc"][0])},
        init)
    assert set(out) == {"i", "acc"} and isinstance(out["acc"], tuple)
    assert int(out["i"]) == 3 and float(out["acc"][0]) == 8.
    np.testing.assert_allclose(out["acc"][1], [7., 7.])


@pytest.mark.spec("CF-30")
def test_while_body_never_runs_when_predicate_starts_false(jax, jnp):
    out = jax.lax.while_loop(lambda c: c > 5., lambda c: c + 1., jnp.float32(2.))
    assert float(out) == 2.


@pytest.mark.spec("CF-30")
def test_while_needs_callables(jax):
    with pytest.raises(TypeError, match=re.escape(
            "lax.while_loop: body_fun and cond_fun arguments should be callable.")):
        jax.lax.while_loop(True, lambda c: c, 1.)


# -- CF-31: the predicate ------------------------------------------------------

@pytest.mark.spec("CF-31")
@pytest.mark.parametrize("cond_fun, msg", [
    (lambda c: c, "cond_fun must return a boolean scalar, but got output type(s) "
                  "[ShapedArray(float32[])]."),
    (lambda c: c > np.zeros(1, np.float32),
     "cond_fun must return a boolean scalar, but got output type(s) "
     "[ShapedArray(bool[1])]."),
    (lambda c: (True, True), "cond_fun must return a boolean scalar, but got pytree "
                             "PyTreeDef((*, *))."),
    (lambda c: 1, "cond_fun must return a boolean scalar, but got output type(s) "
                  "[ShapedArray(int32[], weak_type=True)]."),
])
def test_predicate_must_be_a_boolean_scalar(jax, jnp, cond_fun, msg):
    with pytest.raises(TypeError, match="^" + re.escape(msg)):
        jax.lax.while_loop(cond_fun, lambda c: c, jnp.float32(1.))


# -- CF-32: weakly typed initial values ----------------------------------------

@pytest.mark.spec("CF-32")
def test_weak_int_init_takes_the_body_output_dtype(jax):
    out = jax.lax.while_loop(lambda c: c < 10, lambda c: c * 1.5, 1)
    assert out.dtype == np.float32 and float(out) == 1.5 ** 6


@pytest.mark.spec("CF-32")
def test_weak_float_init_with_strong_float_body_is_accepted(jax, jnp):
    out = jax.lax.while_loop(lambda c: c < 10., lambda c: c + jnp.float32(4.), 1.)
    assert out.dtype == np.float32 and float(out) == 13.


# -- CF-33, CF-34: the carry's type must not change ----------------------------

PREFIX = ("while_loop body function carry input and carry output must have "
          "equal types, but they differ:\n\n")
SUFFIX = ("\n\nRevise the function so that all output types match the "
          "corresponding input types.")


@pytest.mark.spec("CF-34")
def test_dtype_change_is_a_type_error(jax, jnp):
    with pytest.raises(TypeError) as e:
        jax.lax.while_loop(lambda c: False, lambda c: c.astype(jnp.int32), 1.)
    assert str(e.value) == PREFIX + (
        "The input carry c has type float32[] but the corresponding output carry "
        "component has type int32[], so the dtypes do not match.") + SUFFIX


@pytest.mark.spec("CF-34")
def test_shape_change_is_a_type_error(jax, jnp):
    with pytest.raises(TypeError) as e:
        jax.lax.while_loop(lambda c: False, lambda c: jnp.zeros(3), jnp.float32(1.))
    assert str(e.value) == PREFIX + (
        "The input carry c has type float32[] but the corresponding output carry "
        "component has type float32[3], so the shapes do not match.") + SUFFIX


@pytest.mark.spec("CF-34")
def test_several_changed_leaves_are_listed(jax, jnp):
    def body(carry):
        return carry[0].astype(jnp.int32), carry[1] * 1.5

    with pytest.raises(TypeError) as e:
        jax.lax.while_loop(lambda c: False, body, (jnp.float32(1), jnp.int32(2)))
    assert str(e.value) == PREFIX + (
        "  * the input carry component carry[0] has type float32[] but the "
        "corresponding output carry component has type int32[], so the dtypes do "
        "not match;\n"
        "  * the input carry component carry[1] has type int32[] but the "
        "corresponding output carry component has type float32[], so the dtypes "
        "do not match.") + SUFFIX


@pytest.mark.spec("CF-33")
def test_structure_change_is_a_type_error(jax, jnp):
    with pytest.raises(TypeError) as e:
        jax.lax.while_loop(lambda c: False, lambda c: (c[0], c[1], c[0]),
                           (jnp.float32(1.), jnp.float32(2.)))
    assert str(e.value) == (
        "while_loop body function carry input and carry output must have the same "
        "pytree structure, but they differ:\n\n"
        "The input carry c is a tuple of length 2 but the corresponding component "
        "of the carry output is a tuple of length 3, so the lengths do not match.\n\n"
        "Revise the function so that the carry output has the same pytree "
        "structure as the carry input.")


# -- CF-35: the printed form ---------------------------------------------------

@pytest.mark.spec("CF-35")
def test_printed_simple_loop(jax):
    text = str(jax.make_jaxpr(lambda x: doubling(jax, x))(1.))
    assert text == """\
{ lambda ; a:f32[]. let
    b:f32[] = while[
      body_jaxpr={ lambda ; c:f32[]. let d:f32[] = mul c 2.0:f32[] in (d,) }
      body_nconsts=0
      cond_jaxpr={ lambda ; e:f32[]. let f:bool[] = lt e 10.0:f32[] in (f,) }
      cond_nconsts=0
    ] a
  in (b,) }"""


@pytest.mark.spec("CF-35")
def test_printed_closure_and_forwarded_carry(jax):
    """A closed-over tracer is a body const; a carry the body forwards and
    the predicate ignores is moved to the body consts."""
    def g(x, y):
        return jax.lax.while_loop(lambda c: c[0] < 10,
                                  lambda c: (c[0] + 1, c[1] * y, c[2]), (0, x, y))

    assert str(jax.make_jaxpr(g)(1., 2.)) == """\
{ lambda ; a:f32[] b:f32[]. let
    c:i32[] d:f32[] = while[
      body_jaxpr={ lambda ; e:f32[] f:f32[] g:i32[] h:f32[]. let
          i:i32[] = add g 1:i32[]
          j:f32[] = mul h f
        in (i, j) }
      body_nconsts=2
      cond_jaxpr={ lambda ; k:i32[] l:f32[]. let
          m:bool[] = lt k 10:i32[]
        in (m,) }
      cond_nconsts=0
    ] b b 0:i32[] a
  in (c, d, b) }"""


# -- CF-36: closures -----------------------------------------------------------

@pytest.mark.spec("CF-36")
def test_closed_over_values_in_cond_and_body(jax, jnp):
    def f(limit, step):
        return jax.lax.while_loop(lambda c: c < limit, lambda c: c + step,
                                  jnp.float32(0.))

    assert float(f(10., 3.)) == 12.
    assert float(jax.jit(f)(10., 3.)) == 12.
    np.testing.assert_allclose(jax.vmap(f)(jnp.array([5., 10.]), jnp.array([2., 3.])),
                               [6., 12.])


# -- CF-39: forward mode -------------------------------------------------------

@pytest.mark.spec("CF-39")
def test_jvp_and_jacfwd(jax, jnp):
    out, tan = jax.jvp(lambda x: doubling(jax, x), (1.,), (1.,))
    assert float(out) == 16. and float(tan) == 16.
    jac = jax.jacfwd(lambda x: jax.lax.while_loop(
        lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1])), (0, x))[1])(
        jnp.array([0.5, 1.], jnp.float32))
    d = lambda v: np.cos(v)
    x = np.array([0.5, 1.], np.float32)
    want = d(x) * d(np.sin(x)) * d(np.sin(np.sin(x)))
    np.testing.assert_allclose(jac, np.diag(want), rtol=1e-5)


@pytest.mark.spec("CF-39")
def test_jvp_carry_tangent_made_nonzero_by_the_body(jax, jnp):
    """Only ``x`` has a tangent at first; the body feeds it into ``y``."""
    def f(x):
        return jax.lax.while_loop(lambda c: c[0] < 3,
                                  lambda c: (c[0] + 1, c[1] * 2., c[2] + c[1]),
                                  (0, x, jnp.float32(0.)))

    (_, x, y), (_, tx, ty) = jax.jvp(f, (jnp.float32(1.),), (jnp.float32(1.),))
    assert (float(x), float(y), float(tx), float(ty)) == (8., 7., 8., 7.)


@pytest.mark.spec("CF-39")
def test_printed_jvp(jax):
    text = str(jax.make_jaxpr(lambda x, t: jax.jvp(lambda v: doubling(jax, v),
                                                  (x,), (t,)))(1., 1.))
    assert text == """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] d:f32[] = while[
      body_jaxpr={ lambda ; e:f32[] f:f32[]. let
          g:f32[] = mul e 2.0:f32[]
          h:f32[] = mul f 2.0:f32[]
        in (g, h) }
      body_nconsts=0
      cond_jaxpr={ lambda ; i:f32[] j:f32[]. let
          k:bool[] = lt i 10.0:f32[]
        in (k,) }
      cond_nconsts=0
    ] a b
  in (c, d) }"""


# -- CF-40, CF-41: reverse mode ------------------------------------------------

REVERSE = ("Reverse-mode differentiation does not work for lax.while_loop or "
           "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or "
           "using fori_loop with static start/stop.")


@pytest.mark.spec("CF-40")
def test_grad_through_while_raises(jax):
    with pytest.raises(ValueError, match="^" + re.escape(REVERSE)):
        jax.grad(lambda x: doubling(jax, x))(1.)


@pytest.mark.spec("CF-40")
def test_grad_with_a_known_counter_raises(jax, jnp):
    def f(x):
        return jax.lax.while_loop(lambda c: c[0] < 3,
                                  lambda c: (c[0] + 1, c[1] * 2.), (0, x))[1]

    with pytest.raises(ValueError, match="^" + re.escape(REVERSE)):
        jax.grad(f)(jnp.float32(1.))


@pytest.mark.spec("CF-41")
def test_linearize_works_forward(jax, jnp):
    def f(x):
        return jax.lax.while_loop(lambda c: c[0] < 3,
                                  lambda c: (c[0] + 1, c[1] * 2.), (0, x))[1]

    out, f_jvp = jax.linearize(f, jnp.float32(1.))
    assert float(out) == 8. and float(f_jvp(jnp.float32(1.))) == 8.


# -- CF-42, CF-43: batching ----------------------------------------------------

@pytest.mark.spec("CF-42")
def test_vmap_unbatched_predicate(jax, jnp):
    def f(x):
        return jax.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2),
                                  (0, x))

    i, x = jax.vmap(f)(jnp.ones(3))
    np.testing.assert_array_equal(i, [3, 3, 3])
    np.testing.assert_array_equal(x, [8., 8., 8.])
    assert str(jax.make_jaxpr(jax.vmap(f))(jnp.ones(3))) == """\
{ lambda ; a:f32[3]. let
    b:i32[] c:f32[3] = while[
      body_jaxpr={ lambda ; d:i32[] e:f32[3]. let
          f:i32[] = add d 1:i32[]
          g:f32[3] = mul e 2.0:f32[]
        in (f, g) }
      body_nconsts=0
      cond_jaxpr={ lambda ; h:i32[] i:f32[3]. let
          j:bool[] = lt h 3:i32[]
        in (j,) }
      cond_nconsts=0
    ] 0:i32[] a
    k:i32[3] = broadcast_in_dim b
  in (k, c) }"""


@pytest.mark.spec("CF-43")
@pytest.mark.spec("CF-38")
@settings(max_examples=5, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=3, max_size=3))
def test_vmap_batched_predicate_matches_per_member_loops(jax, jnp, ns):
    steps = jax.vmap(lambda n: jax_collatz(jax, n))(jnp.array(ns, jnp.int32))
    assert [int(s) for s in steps[1]] == [collatz_steps(n)[1] for n in ns]
    assert [int(s) for s in steps[0]] == [1, 1, 1]


@pytest.mark.spec("CF-43")
def test_printed_batched_predicate(jax, jnp):
    text = str(jax.make_jaxpr(jax.vmap(lambda x: doubling(jax, x)))(jnp.ones(3)))
    assert text == """\
{ lambda ; a:f32[3]. let
    b:f32[3] = while[
      body_jaxpr={ lambda ; c:f32[3]. let d:f32[3] = mul c 2.0:f32[] in (d,) }
      body_nconsts=0
      cond_jaxpr={ lambda ; e:f32[3]. let f:bool[3] = lt e 10.0:f32[] in (f,) }
      cond_nconsts=0
    ] a
  in (b,) }"""


@pytest.mark.spec("CF-43")
def test_vmap_batched_bound_freezes_finished_members(jax, jnp):
    """A batched bound (fori_loop's carry form): each member stops at its own."""
    def f(upper, x):
        return jax.lax.while_loop(lambda c: c[0] < c[1],
                                  lambda c: (c[0] + 1, c[1], c[2] * 2.), (0, upper, x))

    i, _, x = jax.vmap(f, in_axes=(0, None))(jnp.array([0, 2, 5]), jnp.float32(1.))
    np.testing.assert_array_equal(i, [0, 2, 5])
    np.testing.assert_array_equal(x, [1., 4., 32.])
    (_, _, x), (_, _, tx) = jax.jvp(jax.vmap(f, in_axes=(0, None)),
                                    (jnp.array([1, 3]), jnp.float32(1.)),
                                    (np.zeros(2, jax.dtypes.float0), jnp.float32(1.)))
    np.testing.assert_array_equal(tx, [2., 8.])


@pytest.mark.spec("CF-43")
def test_nested_vmap_of_batched_predicate(jax, jnp):
    ns = jnp.array([[3, 7], [1, 12]], jnp.int32)
    steps = jax.vmap(jax.vmap(lambda n: jax_collatz(jax, n)[1]))(ns)
    assert steps.tolist() == [[collatz_steps(int(n))[1] for n in row] for row in ns]


# -- CF-44: disable_jit --------------------------------------------------------

@pytest.mark.spec("CF-44")
def test_disable_jit_runs_the_python_loop(jax, jnp):
    calls = []

    def body(c):
        calls.append(None)
        return c + 1

    with jax.disable_jit():
        out = jax.lax.while_loop(lambda c: c < 4, body, jnp.int32(0))
    assert int(out) == 4 and len(calls) == 4


# -- CF-39, CF-41: carries whose tangent the body zeroes ---------------------------

@pytest.mark.spec("CF-41")
def test_linearize_carry_whose_tangent_the_body_zeroes(jax, jnp):
    def f(x):
        return jax.lax.while_loop(lambda c: c[0] < 3,
                                  lambda c: (c[0] + 1, c[1] * 2., jnp.float32(0.)),
                                  (0, x, x))

    _, (_, t1, t2) = jax.jvp(f, (1.,), (1.,))
    (_, x, y), lin = jax.linearize(f, 1.)
    _, l1, l2 = lin(1.)
    assert (float(x), float(y)) == (8., 0.)
    assert (float(t1), float(t2), float(l1), float(l2)) == (8., 0., 8., 0.)


@pytest.mark.spec("CF-43")
def test_jacfwd_of_vmap_with_batched_predicate(jax, jnp):
    """The tangent loop around a batched predicate keeps the primal carry
    unbatched over the tangent basis (its batch axis follows the predicate's)."""
    def f(x, k):
        return jax.lax.while_loop(lambda c: c[1] < k,
                                  lambda c: (c[0] * k, c[1] + 1.), (x, 0.))[0]

    ks = jnp.array([1., 2., 3.])
    jac = jax.jacfwd(jax.vmap(f))(jnp.ones(3), ks)
    np.testing.assert_allclose(jac, np.diag([1., 4., 27.]))
