"""``lax.cond`` and ``lax.switch`` (SPEC CF-10 .. CF-23).

Values are checked against the Python meaning of the construct
(``true_fun(x) if pred else false_fun(x)``) eagerly, under ``jit`` and
under ``vmap``; derivatives with ``check_grads`` and against the chosen
branch's derivative; printed jaxprs and error messages against JAX's text.
"""
import re
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

HYP = settings(max_examples=8, deadline=None, derandomize=True, database=None)


@pytest.fixture(scope="module")
def lax(jax):
    return jax.lax


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------------
# Values (CF-10, CF-11)
# ---------------------------------------------------------------------------

@pytest.mark.spec("CF-10")
@given(pred=st.sampled_from([True, False, 0, 3, -1, 0.0, 2.5]),
       x=st.floats(-3, 3, width=32))
@HYP
def test_cond_value_matches_python(jax, lax, pred, x):
    f = lambda p, x: lax.cond(p, lambda y: y * 2.0, lambda y: y - 1.0, x)
    want = np.float32(x) * 2 if pred else np.float32(x) - 1
    _close(f(pred, np.float32(x)), want)
    _close(jax.jit(f)(pred, np.float32(x)), want)


@pytest.mark.spec("CF-11")
@given(i=st.integers(-3, 5), x=st.floats(-2, 2, width=32))
@HYP
def test_switch_value_clamps_index(jax, jnp, lax, i, x):
    branches = [lambda y: y + 1.0, jnp.sin, lambda y: y * y]
    ref = [lambda y: y + 1, np.sin, lambda y: y * y]
    want = ref[min(max(i, 0), 2)](np.float32(x))
    f = lambda i, x: lax.switch(i, branches, x)
    np.testing.assert_allclose(f(i, np.float32(x)), want, rtol=1e-5)
    np.testing.assert_allclose(jax.jit(f)(i, np.float32(x)), want, rtol=1e-5)


@pytest.mark.spec("CF-11")
def test_switch_one_branch_calls_it(jax, lax):
    jaxpr = jax.make_jaxpr(lambda i, x: lax.switch(i, [lambda y: y + 1.0], x))(0, 1.0)
    assert "cond" not in str(jaxpr)
    assert float(lax.switch(7, [lambda y: y + 1.0], 1.0)) == 2.0


@pytest.mark.spec("CF-11")
def test_switch_operand_keyword_and_no_operands(lax):
    assert float(lax.switch(1, [lambda: 1.0, lambda: 2.0])) == 2.0
    assert float(lax.cond(False, lambda x: x, lambda x: -x, operand=3.0)) == -3.0


# ---------------------------------------------------------------------------
# Predicate and index checks (CF-12)
# ---------------------------------------------------------------------------

@pytest.mark.spec("CF-12")
def test_pred_errors(jnp, lax):
    with pytest.raises(TypeError, match=re.escape(
            "Pred must be a scalar, got [1. 1.] of shape (2,).")):
        lax.cond(jnp.ones(2), lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match=re.escape(
            "Pred must be a scalar, got a of type <class 'str'>")):
        lax.cond("a", lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="cond predicate is None"):
        lax.cond(None, lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match=re.escape(
            "lax.cond: true_fun and false_fun arguments should be callable.")):
        lax.cond(True, 1.0, 2.0)


@pytest.mark.spec("CF-12")
def test_switch_index_errors(jnp, lax):
    with pytest.raises(TypeError, match=re.escape(
            "Branch index must be scalar, got [1. 1.] of shape (2,).")):
        lax.switch(jnp.ones(2), [lambda: 1.0, lambda: 2.0])
    with pytest.raises(TypeError, match=re.escape(
            "Index type must be an integer, got 1.0 as float32")):
        lax.switch(1.0, [lambda: 1.0, lambda: 2.0])
    with pytest.raises(ValueError, match="Empty branch sequence"):
        lax.switch(0, [])
    with pytest.raises(TypeError, match=re.escape(
            "lax.switch: branches argument should be a sequence of callables.")):
        lax.switch(0, [1.0])


@pytest.mark.spec("CF-12")
def test_pred_conversion_printed(jax, lax):
    text = str(jax.make_jaxpr(
        lambda p, x: lax.cond(p, lambda: x * 2.0, lambda: x + 1.0))(1.5, 1.0))
    assert text.splitlines()[1:3] == [
        "    c:bool[] = ne a 0.0:f32[]",
        "    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c"]


# ---------------------------------------------------------------------------
# Tracing: both branches, closures, disable_jit (CF-13, CF-14)
# ---------------------------------------------------------------------------

@pytest.mark.spec("CF-13")
def test_both_branches_traced_for_concrete_pred(lax):
    seen = []

    def t(x):
        seen.append("t")
        return x + 1.0

    def f(x):
        seen.append("f")
        return x - 1.0

    assert float(lax.cond(True, t, f, 1.0)) == 2.0
    assert seen == ["t", "f"]
    seen.clear()
    assert float(lax.switch(0, [f, t], 1.0)) == 0.0
    assert seen == ["f", "t"]


@pytest.mark.spec("CF-13")
def test_disable_jit_runs_only_chosen_branch(jax, lax):
    seen = []

    def t(x):
        seen.append("t")
        return x + 1.0

    def f(x):
        seen.append("f")
        return x - 1.0

    with jax.disable_jit():
        assert float(lax.cond(False, t, f, 1.0)) == 0.0
        assert float(lax.switch(5, [f, t], 1.0)) == 2.0
    assert seen == ["f", "t"]


@pytest.mark.spec("CF-14")
def test_closed_over_tracers_and_arrays(jax, jnp, lax):
    c = np.arange(3.0, dtype=np.float32)

    def f(p, x, y):
        return lax.cond(p, lambda z: z * y + c, lambda z: z - y, x)

    x = np.ones(3, np.float32)
    _close(jax.jit(f)(True, x, 2.0), x * 2 + c)
    _close(jax.jit(f)(False, x, 2.0), x - 2)
    g = jax.grad(lambda y: f(True, x, y).sum())(2.0)
    _close(g, 3.0)
    text = str(jax.make_jaxpr(lambda p, x: lax.cond(p, lambda z: z + c, lambda z: z * c, x))(
        True, x))
    assert text == textwrap.dedent("""\
        { lambda a:f32[3]; b:bool[] c:f32[3]. let
            d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
            e:f32[3] = cond[
              branches=(
                { lambda ; f:f32[3] g:f32[3]. let h:f32[3] = mul g f in (h,) }
                { lambda ; i:f32[3] j:f32[3]. let k:f32[3] = add j i in (k,) }
              )
            ] d a c
          in (e,) }""")


# ---------------------------------------------------------------------------
# Branch output agreement (CF-15)
# ---------------------------------------------------------------------------

@pytest.mark.spec("CF-15")
def test_structure_mismatch_message(lax):
    t, f = (lambda: (1.0,)), (lambda: 2.0)
    with pytest.raises(TypeError) as info:
        lax.cond(True, t, f)
    msg = str(info.value)
    assert msg.startswith("cond branch outputs must have the same pytree structure, "
                          "but they differ:\n\ntrue_fun is <lambda> at ")
    assert msg.endswith(
        "true_fun output is a <class 'tuple'> but false_fun output is a pytree leaf, "
        "so their Python types differ.\n\nRevise true_fun and/or false_fun so that "
        "they have the same pytree structure.")


@pytest.mark.spec("CF-15")
def test_type_mismatch_message(jnp, lax):
    with pytest.raises(TypeError) as info:
        lax.switch(1, [lambda: 1.0, lambda: jnp.ones(2)])
    msg = str(info.value)
    assert msg.startswith("switch branches must have equal output types but they "
                          "differ.\n\nbranch 0 is <lambda> at ")
    assert msg.endswith(
        "The output of branch 0 has type float32[] but the corresponding output of "
        "branch1 has type float32[2], so the shapes do not match.\n\n"
        "Revise branch 0 and/or branch1 so that all output types match.")
    with pytest.raises(TypeError, match=re.escape(
            "  * the output of true_fun at path [0] has type float32[] but the "
            "corresponding output of false_fun has type int32[], so the dtypes do "
            "not match;\n  * the output of true_fun at path [1]")):
        lax.cond(True, lambda: (1.0, jnp.ones(2)),
                 lambda: (jnp.int32(1), jnp.ones(3, jnp.int32)))


@pytest.mark.spec("CF-18")
def test_weak_type_difference_allowed_output_typed_like_false_fun(jax, jnp, lax):
    out = jax.eval_shape(lambda p: lax.cond(p, lambda: jnp.float32(2.0), lambda: 1.0), True)
    assert out.weak_type
    out = jax.eval_shape(lambda p: lax.cond(p, lambda: 1.0, lambda: jnp.float32(2.0)), True)
    assert not out.weak_type


# ---------------------------------------------------------------------------
# Pytrees and forwarded operands (CF-16)
# ---------------------------------------------------------------------------

@pytest.mark.spec("CF-16")
def test_pytree_operands_and_outputs(jax, jnp, lax):
    def t(d, xs):
        return {"s": d["a"] + xs[0], "l": [xs[1] * 2.0]}

    def f(d, xs):
        return {"s": d["a"] - xs[0], "l": [xs[1]]}

    args = ({"a": 1.0}, (2.0, jnp.arange(2.0)))
    for p in (True, False):
        out = jax.jit(lambda p, *a: lax.cond(p, t, f, *a))(p, *args)
        assert sorted(out) == ["l", "s"]
        _close(out["s"], 3.0 if p else -1.0)
        _close(out["l"][0], np.arange(2.0) * (2 if p else 1))


@pytest.mark.spec("CF-16")
def test_forwarded_operand_not_an_output(jax, lax):
    text = str(jax.make_jaxpr(lambda p, x: lax.cond(p, lambda y: y, lambda y: y, x))(True, 1.0))
    assert text == textwrap.dedent("""\
        { lambda ; a:bool[] b:f32[]. let
            c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
            cond[
              branches=(
                { lambda ; d:f32[]. let  in () }
                { lambda ; e:f32[]. let  in () }
              )
            ] c b
          in (b,) }""")


# ---------------------------------------------------------------------------
# Printing (CF-17)
# ---------------------------------------------------------------------------

@pytest.mark.spec("CF-17")
def test_cond_jaxpr_text(jax, lax):
    f = lambda p, x: lax.cond(p, lambda x: x * 2.0, lambda x: x + 1.0, x)
    assert str(jax.make_jaxpr(f)(True, 1.0)) == textwrap.dedent("""\
        { lambda ; a:bool[] b:f32[]. let
            c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
            d:f32[] = cond[
              branches=(
                { lambda ; e:f32[]. let f:f32[] = add e 1.0:f32[] in (f,) }
                { lambda ; g:f32[]. let h:f32[] = mul g 2.0:f32[] in (h,) }
              )
            ] c b
          in (d,) }""")


@pytest.mark.spec("CF-17")
def test_switch_jaxpr_text(jax, jnp, lax):
    f = lambda i, x: lax.switch(i, [lambda x: x * 2.0, lambda x: x + 1.0, jnp.sin], x)
    assert str(jax.make_jaxpr(f)(1, 1.0)) == textwrap.dedent("""\
        { lambda ; a:i32[] b:f32[]. let
            c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
            d:i32[] = clamp 0:i32[] c 2:i32[]
            e:f32[] = cond[
              branches=(
                { lambda ; f:f32[]. let g:f32[] = mul f 2.0:f32[] in (g,) }
                { lambda ; h:f32[]. let i:f32[] = add h 1.0:f32[] in (i,) }
                { lambda ; j:f32[]. let k:f32[] = sin j in (k,) }
              )
            ] d b
          in (e,) }""")


@pytest.mark.spec("CF-17")
def test_concrete_pred_is_a_literal_index(jax, lax):
    text = str(jax.make_jaxpr(lambda x: lax.cond(True, lambda x: x * 2.0,
                                                   lambda x: x + 1.0, x))(1.0))
    assert text.splitlines()[-2] == "    ] 1:i32[] a"


# ---------------------------------------------------------------------------
# Differentiation (CF-19, CF-20, CF-21)
# ---------------------------------------------------------------------------

def _piecewise(lax, jnp):
    return lambda x: lax.cond(x > 0.5, lambda y: jnp.sin(y) * y, lambda y: jnp.cos(y) + 2.0 * y, x)


@pytest.mark.spec("CF-19")
@pytest.mark.parametrize("x", [-0.7, 1.3])
def test_check_grads(jnp, lax, test_util, x):
    test_util.check_grads(_piecewise(lax, jnp), (np.float32(x),), order=2,
                          modes=["fwd", "rev"], atol=2e-2, rtol=2e-2)


@pytest.mark.spec("CF-19")
def test_jvp_zero_tangent_in_one_branch(jax, jnp, lax):
    f = lambda x: lax.cond(x > 0, jnp.sin, lambda y: 2.0, x)
    p, t = jax.jvp(f, (1.0,), (1.0,))
    _close(p, np.sin(1.0))
    _close(t, np.cos(1.0))
    p, t = jax.jvp(f, (-1.0,), (1.0,))
    assert float(p) == 2.0 and float(t) == 0.0


@pytest.mark.spec("CF-20")
@given(i=st.integers(0, 2), x=st.floats(0.25, 2.0, width=32))
@HYP
def test_grad_switch_each_branch(jax, jnp, lax, i, x):
    branches = [lambda y, z: jnp.sin(y) * z, lambda y, z: y * y, lambda y, z: jnp.exp(y) + z]
    grads = [lambda y, z: (np.cos(y) * z, np.sin(y)), lambda y, z: (2 * y, 0.0),
             lambda y, z: (np.exp(y), 1.0)]
    g = jax.jit(jax.grad(lambda y, z: lax.switch(i, branches, y, z), argnums=(0, 1)))
    got = g(np.float32(x), np.float32(1.5))
    for a, b in zip(got, grads[i](np.float32(x), np.float32(1.5))):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.spec("CF-20")
def test_grad_jaxpr_has_known_and_tangent_conds(jax, jnp, lax):
    text = str(jax.make_jaxpr(jax.grad(_piecewise(lax, jnp)))(1.0))
    assert text.count("cond[") == 2


@pytest.mark.spec("CF-21")
def test_linear_transpose(jax, lax):
    for p, scale in ((True, 3.0), (False, -1.0)):
        f = lambda x, p=p: lax.cond(p, lambda y: 3.0 * y, lambda y: -y, x)
        (ct,) = jax.linear_transpose(f, 1.0)(2.0)
        _close(ct, 2.0 * scale)


# ---------------------------------------------------------------------------
# Batching (CF-22, CF-23)
# ---------------------------------------------------------------------------

@pytest.mark.spec("CF-22")
def test_vmap_batched_pred_is_select(jax, jnp, lax):
    f = lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x)
    p = np.array([True, False, True])
    x = np.array([0.1, 0.2, 0.3], np.float32)
    _close(jax.vmap(f)(p, x), np.where(p, np.sin(x), np.cos(x)))
    text = str(jax.make_jaxpr(jax.vmap(f))(p, x))
    assert "cond[" not in text and "select_n" in text and "stop_gradient" in text


@pytest.mark.spec("CF-22")
def test_vmap_batched_index_switch_and_grad(jax, jnp, lax):
    branches = [jnp.sin, jnp.cos, lambda y: y * y]
    i = np.array([0, 1, 2, 7])
    x = np.array([0.5, 1.5, 2.5, 1.0], np.float32)
    want = np.array([np.sin(0.5), np.cos(1.5), 2.5 ** 2, 1.0], np.float32)
    _close(jax.vmap(lambda i, x: lax.switch(i, branches, x))(i, x), want)
    g = jax.vmap(jax.grad(lambda i, x: lax.switch(i, branches, x), argnums=1))(i, x)
    _close(g, [np.cos(0.5), -np.sin(1.5), 5.0, 2.0])


@pytest.mark.spec("CF-23")
def test_vmap_unbatched_pred_keeps_cond(jax, jnp, lax):
    c = np.float32(2.0)
    f = lambda x: lax.cond(True, lambda y: (y * c, 1.0), lambda y: (y, 2.0), x)
    x = np.arange(3.0, dtype=np.float32)
    out = jax.vmap(f)(x)
    _close(out[0], x * 2)
    _close(out[1], [1.0, 1.0, 1.0])
    text = str(jax.make_jaxpr(jax.vmap(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x),
                                       in_axes=(None, 0)))(True, x))
    assert text == textwrap.dedent("""\
        { lambda ; a:bool[] b:f32[3]. let
            c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
            d:f32[3] = cond[
              branches=(
                { lambda ; e:f32[3]. let f:f32[3] = cos e in (f,) }
                { lambda ; g:f32[3]. let h:f32[3] = sin g in (h,) }
              )
            ] c b
          in (d,) }""")


@pytest.mark.spec("CF-23")
def test_vmap_unbatched_pred_grad(jax, jnp, lax):
    f = lambda p, x: lax.cond(p, lambda y: jnp.sin(y).sum(), lambda y: (y * y).sum(), x)
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    g = jax.vmap(jax.grad(f, argnums=1), in_axes=(None, 0))(False, x)
    _close(g, 2 * x)
