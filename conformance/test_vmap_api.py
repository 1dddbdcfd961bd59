"""``jax.vmap``: axis specifications, sizes, outputs, metadata and errors
(SPEC VMAP-10 .. VMAP-19).

Expected values are built with NumPy by applying the function to each slice
and stacking, which is what ``vmap`` promises.  Error messages are JAX
0.10.2's, matched exactly.
"""
import collections
import contextlib
import functools

import numpy as np
import pytest

P = collections.namedtuple("P", "x y")


def check(out, expected, dtype="float32", weak=None):
    """``out`` is an array equal to ``expected`` with the given dtype (and
    weak type, when ``weak`` is given)."""
    assert out.dtype == np.dtype(dtype)
    assert out.shape == np.shape(expected)
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-6)
    if weak is not None:
        assert out.weak_type is weak


@contextlib.contextmanager
def raises_exactly(cls, message):
    """The block raises ``cls`` whose message is exactly ``message`` (JAX's
    traceback-filtering note, added apart from the message, is not part of
    it)."""
    with pytest.raises(cls) as e:
        yield
    assert type(e.value) is cls
    assert str(e.value) == message


@pytest.fixture
def x3(jnp):
    return jnp.arange(3.)


@pytest.fixture
def m23(jnp):
    return jnp.arange(6.).reshape(2, 3)


@pytest.fixture
def t234(jnp):
    return jnp.arange(24.).reshape(2, 3, 4)


T234 = np.arange(24.).reshape(2, 3, 4)


# -- VMAP-10: one result per slice, stacked ------------------------------------

@pytest.mark.spec("VMAP-10")
def test_vmap_stacks_results_over_axis_0(jax, jnp, m23):
    out = jax.vmap(lambda r: jnp.sin(r) * r[0])(m23)
    m = np.arange(6.).reshape(2, 3)
    check(out, np.stack([np.sin(r) * r[0] for r in m]))


@pytest.mark.spec("VMAP-10")
@pytest.mark.parametrize("axis", [1, -2])
def test_in_axes_int_picks_the_mapped_axis(jax, jnp, t234, axis):
    out = jax.vmap(lambda s: s * 2. + 1., in_axes=axis)(t234)
    check(out, np.moveaxis(T234, 1, 0) * 2. + 1.)


@pytest.mark.spec("VMAP-10")
def test_in_axes_last_axis(jax, m23):
    out = jax.vmap(lambda c: c, in_axes=-1)(m23)
    check(out, np.arange(6.).reshape(2, 3).T)


@pytest.mark.spec("VMAP-10")
def test_integer_inputs_keep_their_dtype(jax, jnp):
    check(jax.vmap(lambda a: a + 1)(jnp.arange(3)), [1, 2, 3], "int32")


@pytest.mark.spec("VMAP-10")
def test_numpy_array_arguments_are_mapped(jax):
    check(jax.vmap(lambda a: a * 2)(np.arange(3.)), [0., 2., 4.])


@pytest.mark.spec("VMAP-10")
def test_per_example_tracer_has_the_unbatched_shape(jax, t234):
    seen = []

    def f(s):
        seen.append((s.shape, s.ndim, str(s.dtype), len(s)))
        return s
    check(jax.vmap(f, in_axes=1)(t234), np.moveaxis(T234, 1, 0))
    assert seen == [((2, 4), 2, "float32", 2)]


# -- VMAP-11: in_axes as a prefix of the positional arguments -----------------

@pytest.mark.spec("VMAP-11")
def test_in_axes_none_broadcasts_an_argument(jax, x3):
    out = jax.vmap(lambda a, b: a + b, in_axes=(0, None))(x3, jax.numpy.ones(3))
    check(out, np.arange(3.)[:, None] + np.ones(3))


@pytest.mark.spec("VMAP-11")
def test_in_axes_list_is_treated_as_tuple(jax, x3):
    check(jax.vmap(lambda a, b: a + b, in_axes=[0, None])(x3, 1.), [1., 2., 3.])


@pytest.mark.spec("VMAP-11")
def test_a_leaf_of_in_axes_applies_to_a_whole_subtree(jax, m23):
    out = jax.vmap(lambda p: p[0] + p[1][0], in_axes=(1,))((m23, [m23]))
    check(out, 2 * np.arange(6.).reshape(2, 3).T)


@pytest.mark.spec("VMAP-11")
def test_none_inside_a_dict_of_in_axes(jax, x3):
    out = jax.vmap(lambda d: d["a"] + d["b"],
                   in_axes=({"a": 0, "b": None},))({"a": x3, "b": 1.})
    check(out, [1., 2., 3.])


@pytest.mark.spec("VMAP-11")
def test_nested_list_in_axes_for_a_list_argument(jax, x3):
    out = jax.vmap(lambda a: a[0] + a[1], in_axes=([0, None],))([x3, 1.])
    check(out, [1., 2., 3.])


@pytest.mark.spec("VMAP-11")
def test_namedtuple_in_axes(jax, x3):
    out = jax.vmap(lambda p: p.x + p.y, in_axes=(P(0, None),))(P(x3, 10.))
    check(out, [10., 11., 12.])


@pytest.mark.spec("VMAP-11")
def test_different_axes_per_argument(jax, m23, x3):
    out = jax.vmap(lambda a, b: a * b, in_axes=(1, 0))(m23, x3)
    m = np.arange(6.).reshape(2, 3)
    check(out, m.T * np.arange(3.)[:, None])


@pytest.mark.spec("VMAP-11")
def test_none_leaves_in_arguments_are_passed_through(jax, x3):
    seen = []

    def f(a, b, c):
        seen.append((b, c))
        return a
    check(jax.vmap(f)(x3, None, ()), [0., 1., 2.])
    assert seen == [(None, ())]


@pytest.mark.spec("VMAP-11")
def test_unmapped_non_array_arguments_are_passed_through(jax, x3):
    out = jax.vmap(lambda a, s: a * len(s), in_axes=(0, None))(x3, "abc")
    check(out, [0., 3., 6.])


@pytest.mark.spec("VMAP-11")
def test_unmapped_python_scalar_stays_weak(jax, x3):
    out = jax.vmap(lambda a, b: b * 2., in_axes=(0, None))(x3, 4.)
    check(out, [8., 8., 8.], weak=True)


# -- VMAP-12: keyword arguments ------------------------------------------------

@pytest.mark.spec("VMAP-12")
def test_keyword_arguments_are_mapped_along_axis_0(jax, x3):
    out = jax.vmap(lambda a, b: a * b, in_axes=(None,))(2., b=x3)
    check(out, [0., 2., 4.])


@pytest.mark.spec("VMAP-12")
def test_keyword_arguments_ignore_an_int_in_axes(jax, jnp, x3):
    out = jax.vmap(lambda a, b: a + b, in_axes=None)(1., b=x3)
    check(out, [1., 2., 3.])


@pytest.mark.spec("VMAP-12")
def test_keyword_only_call(jax, x3):
    check(jax.vmap(lambda b: b * 2)(b=x3), [0., 2., 4.])
    check(jax.vmap(lambda b: b * 2, in_axes=())(b=x3), [0., 2., 4.])


# -- VMAP-13: out_axes ---------------------------------------------------------

@pytest.mark.spec("VMAP-13")
@pytest.mark.parametrize("out_axes, src_dst", [(1, (0, 1)), (-1, (0, 2)), (-2, (0, 1)),
                                               (2, (0, 2))])
def test_out_axes_places_the_mapped_axis(jax, t234, out_axes, src_dst):
    out = jax.vmap(lambda s: s, out_axes=out_axes)(t234)
    check(out, np.moveaxis(T234, *src_dst))


@pytest.mark.spec("VMAP-13")
def test_out_axes_none_returns_an_unbatched_output_as_is(jax, x3):
    out = jax.vmap(lambda a, b: (a + b, b * 2.), in_axes=(0, None),
                   out_axes=(0, None))(x3, 4.)
    check(out[0], [4., 5., 6.])
    assert type(out[1]) is float and out[1] == 8.


@pytest.mark.spec("VMAP-13")
def test_out_axes_none_for_an_unbatched_array(jax, jnp, x3):
    out = jax.vmap(lambda a: jnp.ones(2), out_axes=None)(x3)
    check(out, [1., 1.])


@pytest.mark.spec("VMAP-13")
def test_out_axes_none_with_python_scalar_output(jax, x3):
    out = jax.vmap(lambda a: 1, out_axes=None)(x3)
    assert type(out) is int and out == 1


@pytest.mark.spec("VMAP-13")
def test_unbatched_output_is_broadcast(jax, jnp, x3):
    check(jax.vmap(lambda a: jnp.ones(2))(x3), np.ones((3, 2)))
    check(jax.vmap(lambda a: jnp.ones(2), out_axes=1)(x3), np.ones((2, 3)))
    check(jax.vmap(lambda a: jnp.ones(2), out_axes=-1)(x3), np.ones((2, 3)))


@pytest.mark.spec("VMAP-13")
def test_python_scalar_outputs_become_weak_arrays(jax, x3):
    check(jax.vmap(lambda a: 1.)(x3), [1., 1., 1.], weak=True)
    check(jax.vmap(lambda a: 1)(x3), [1, 1, 1], "int32", weak=True)


@pytest.mark.spec("VMAP-13")
def test_mapped_output_is_not_weak(jax, x3):
    check(jax.vmap(lambda a: a * 2.)(x3), [0., 2., 4.], weak=False)


@pytest.mark.spec("VMAP-13")
def test_out_axes_broadcasts_an_unbatched_output_of_a_tuple(jax, x3):
    out = jax.vmap(lambda a, b: (a + b, b * 2.), in_axes=(0, None), out_axes=0)(x3, 4.)
    check(out[0], [4., 5., 6.])
    check(out[1], [8., 8., 8.], weak=True)


@pytest.mark.spec("VMAP-13")
def test_out_axes_dict(jax, jnp, x3):
    out = jax.vmap(lambda a: {"x": a, "y": jnp.stack([a, 2 * a])},
                   out_axes={"x": 0, "y": 1})(x3)
    check(out["x"], [0., 1., 2.])
    check(out["y"], [[0., 1., 2.], [0., 2., 4.]])


@pytest.mark.spec("VMAP-13")
def test_out_axes_nested_tuple_with_none(jax, jnp, x3):
    out = jax.vmap(lambda a: (a, (jnp.stack([a, a]), jnp.ones(2))),
                   out_axes=(0, (-1, None)))(x3)
    check(out[0], [0., 1., 2.])
    check(out[1][0], np.stack([np.arange(3.)] * 2))
    check(out[1][1], [1., 1.])


@pytest.mark.spec("VMAP-13")
def test_out_axes_namedtuple(jax, x3):
    out = jax.vmap(lambda a: P(a, 2 * a), out_axes=P(0, 0))(x3)
    assert type(out) is P
    check(out.y, [0., 2., 4.])


@pytest.mark.spec("VMAP-13")
def test_none_in_the_output_stays_none(jax, x3):
    out = jax.vmap(lambda a: (a, None))(x3)
    assert out[1] is None
    assert jax.vmap(lambda a: None)(x3) is None


@pytest.mark.spec("VMAP-13")
def test_scalar_output_with_negative_out_axes(jax, x3):
    check(jax.vmap(lambda a: a, out_axes=-1)(x3), [0., 1., 2.])


# -- VMAP-14: the mapped size ----------------------------------------------------

@pytest.mark.spec("VMAP-14")
def test_axis_size_with_no_mapped_input(jax, jnp):
    out = jax.vmap(lambda a: a * 2, in_axes=None, axis_size=3)(jnp.ones(2))
    check(out, 2 * np.ones((3, 2)))


@pytest.mark.spec("VMAP-14")
def test_axis_size_with_no_arguments(jax, jnp):
    check(jax.vmap(lambda: jnp.float32(1.), axis_size=3)(), [1., 1., 1.])
    check(jax.vmap(lambda: 1., axis_size=3)(), [1., 1., 1.], weak=True)


@pytest.mark.spec("VMAP-14")
def test_axis_size_with_only_none_arguments(jax):
    check(jax.vmap(lambda a: 1., axis_size=2)(None), [1., 1.])


@pytest.mark.spec("VMAP-14")
def test_axis_size_agreeing_with_the_inputs(jax, x3):
    check(jax.vmap(lambda a: a + 1., axis_size=3)(x3), [1., 2., 3.])


@pytest.mark.spec("VMAP-14")
def test_size_zero_batch(jax, jnp):
    z = jnp.zeros((0, 3))
    check(jax.vmap(lambda a: jnp.sin(a) * 2)(z), np.zeros((0, 3)))
    check(jax.vmap(lambda a: a.sum())(z), np.zeros((0,)))
    check(jax.vmap(lambda a: jnp.ones(2))(z), np.zeros((0, 2)))
    check(jax.vmap(lambda: jnp.ones(2), axis_size=0)(), np.zeros((0, 2)))


@pytest.mark.spec("VMAP-14")
def test_size_zero_batch_with_unbatched_output(jax, jnp):
    out = jax.vmap(lambda a: (a, 1.), out_axes=(0, None))(jnp.zeros((0, 3)))
    check(out[0], np.zeros((0, 3)))
    assert out[1] == 1.


@pytest.mark.spec("VMAP-14")
def test_size_one_batch(jax, jnp):
    check(jax.vmap(lambda a: a.sum())(jnp.ones((1, 3))), [3.])
    check(jax.vmap(lambda a: a * 2, in_axes=1)(jnp.ones((3, 1))), 2 * np.ones((1, 3)))


# -- VMAP-15: inconsistent sizes ----------------------------------------------------

@pytest.mark.spec("VMAP-15")
def test_inconsistent_sizes_lists_each_argument(jax, jnp, x3):
    with raises_exactly(ValueError,
                        "vmap got inconsistent sizes for array axes to be mapped:\n"
                        "  * one axis had size 3: axis 0 of argument a of type float32[3];\n"
                        "  * one axis had size 2: axis 0 of argument b of type float32[2]"):
        jax.vmap(lambda a, b: a + b)(x3, jnp.ones(2))


@pytest.mark.spec("VMAP-15")
def test_inconsistent_sizes_name_nested_paths(jax, jnp, x3):
    with raises_exactly(ValueError,
                        "vmap got inconsistent sizes for array axes to be mapped:\n"
                        "  * one axis had size 3: axis 0 of argument a['a'] of type float32[3];\n"
                        "  * one axis had size 2: axis 0 of argument b[0] of type float32[2];\n"
                        "  * one axis had size 4: axis 0 of argument b[1] of type float32[4,5]"):
        jax.vmap(lambda a, b: a)({"a": x3}, [jnp.ones(2), jnp.ones((4, 5))])


@pytest.mark.spec("VMAP-15")
def test_inconsistent_sizes_name_nested_dict_and_attribute_paths(jax, jnp, x3):
    with raises_exactly(ValueError,
                        "vmap got inconsistent sizes for array axes to be mapped:\n"
                        "  * one axis had size 3: axis 0 of argument d['a'] of type float32[3];\n"
                        "  * one axis had size 2: axis 0 of argument d['b']['c'] of type float32[2]"):
        jax.vmap(lambda d: d["a"])({"a": x3, "b": {"c": jnp.ones(2)}})
    with raises_exactly(ValueError,
                        "vmap got inconsistent sizes for array axes to be mapped:\n"
                        "  * one axis had size 3: axis 0 of argument p.x of type float32[3];\n"
                        "  * one axis had size 2: axis 0 of argument p.y of type float32[2]"):
        jax.vmap(lambda p: p.x)(P(x3, jnp.ones(2)))


@pytest.mark.spec("VMAP-15")
def test_inconsistent_sizes_name_the_mapped_axis(jax, jnp, x3):
    with raises_exactly(ValueError,
                        "vmap got inconsistent sizes for array axes to be mapped:\n"
                        "  * one axis had size 3: axis 0 of argument a of type float32[3];\n"
                        "  * one axis had size 5: axis 1 of argument b of type float32[4,5]"):
        jax.vmap(lambda a, b: a, in_axes=(0, 1))(x3, jnp.ones((4, 5)))


@pytest.mark.spec("VMAP-15")
def test_inconsistent_sizes_name_keyword_arguments(jax, jnp, x3):
    with raises_exactly(ValueError,
                        "vmap got inconsistent sizes for array axes to be mapped:\n"
                        "  * one axis had size 3: axis 0 of argument a of type float32[3];\n"
                        "  * one axis had size 2: axis 0 of kwargs['b'] of type float32[2]"):
        jax.vmap(lambda a, b: a + b, in_axes=(0,))(x3, b=jnp.ones(2))


@pytest.mark.spec("VMAP-15")
def test_inconsistent_sizes_most_and_some_axes(jax, jnp, x3):
    x2 = jnp.ones(2)
    with raises_exactly(ValueError,
                        "vmap got inconsistent sizes for array axes to be mapped:\n"
                        "  * most axes (2 of them) had size 3, e.g. axis 0 of argument a "
                        "of type float32[3];\n"
                        "  * one axis had size 2: axis 0 of argument c of type float32[2]"):
        jax.vmap(lambda a, b, c: a)(x3, x3, x2)
    with raises_exactly(ValueError,
                        "vmap got inconsistent sizes for array axes to be mapped:\n"
                        "  * most axes (3 of them) had size 3, e.g. axis 0 of argument a "
                        "of type float32[3];\n"
                        "  * some axes (2 of them) had size 2, e.g. axis 0 of argument d "
                        "of type float32[2]"):
        jax.vmap(lambda a, b, c, d, e: a)(x3, x3, x3, x2, x2)


@pytest.mark.spec("VMAP-15")
def test_inconsistent_sizes_star_args_are_named_by_position(jax, jnp, x3):
    with raises_exactly(ValueError,
                        "vmap got inconsistent sizes for array axes to be mapped:\n"
                        "  * one axis had size 3: axis 0 of argument a of type float32[3];\n"
                        "  * one axis had size 2: axis 0 of args[1] of type float32[2]"):
        jax.vmap(lambda *a: a[0])(x3, jnp.ones(2))


@pytest.mark.spec("VMAP-15")
def test_inconsistent_sizes_with_axis_size(jax, jnp, x3):
    with raises_exactly(ValueError,
                        "vmap got inconsistent sizes for array axes to be mapped:\n"
                        "  * the `axis_size` argument was 4;\n"
                        "  * one axis had size 3: axis 0 of argument a of type float32[3]"):
        jax.vmap(lambda a: a, axis_size=4)(x3)
    with raises_exactly(ValueError,
                        "vmap got inconsistent sizes for array axes to be mapped:\n"
                        "  * the `axis_size` argument was 4;\n"
                        "  * most axes (2 of them) had size 3, e.g. axis 0 of argument a "
                        "of type float32[3]"):
        jax.vmap(lambda a, b: a, axis_size=4)(x3, x3)


@pytest.mark.spec("VMAP-15")
def test_inconsistent_sizes_under_jit_describe_tracers(jax, jnp, x3):
    with raises_exactly(ValueError,
                        "vmap got inconsistent sizes for array axes to be mapped:\n"
                        "  * one axis had size 3: axis 0 of argument u of type float32[3];\n"
                        "  * one axis had size 2: axis 0 of argument v of type float32[2]"):
        jax.jit(lambda a, b: jax.vmap(lambda u, v: u)(a, b))(x3, jnp.ones(2))


# -- VMAP-16: axis specification errors ------------------------------------------

IN_AXES_TOP = ("vmap in_axes must be an int, None, or a tuple of entries corresponding "
               "to the positional arguments passed to the function, but got ")
IN_AXES_LEAF = ("vmap in_axes must be an int, None, or (nested) container with those "
                "types as leaves, but got ")
OUT_AXES_LEAF = ("vmap out_axes must be an int, None, or (nested) container with those "
                 "types as leaves, but got ")


@pytest.mark.spec("VMAP-16")
@pytest.mark.parametrize("spec, shown", [("a", "a"), (True, "True"), ({"a": 0}, "{'a': 0}"),
                                         (np.int64(0), "0")])
def test_in_axes_of_a_wrong_type(jax, spec, shown):
    with raises_exactly(TypeError, IN_AXES_TOP + shown + "."):
        jax.vmap(lambda a: a, in_axes=spec)


@pytest.mark.spec("VMAP-16")
@pytest.mark.parametrize("spec", [(1.0,), (True,), ("a",), ([0, "b"],)])
def test_in_axes_with_a_wrong_leaf(jax, spec):
    with raises_exactly(TypeError, IN_AXES_LEAF + f"{spec}."):
        jax.vmap(lambda a: a, in_axes=spec)


@pytest.mark.spec("VMAP-16")
@pytest.mark.parametrize("spec", ["a", 1.0, (0, "b")])
def test_out_axes_with_a_wrong_leaf(jax, spec):
    with raises_exactly(TypeError, OUT_AXES_LEAF + f"{spec}."):
        jax.vmap(lambda a: a, out_axes=spec)


@pytest.mark.spec("VMAP-16")
def test_in_axes_length_differs_from_the_arguments(jax, x3):
    with raises_exactly(ValueError, IN_AXES_TOP + "len(in_axes)=3, len(args)=2"):
        jax.vmap(lambda a, b: a, in_axes=(0, 0, 0))(x3, x3)
    with raises_exactly(ValueError, IN_AXES_TOP + "len(in_axes)=2, len(args)=1"):
        jax.vmap(lambda a, b: a + b, in_axes=(0, 0))(x3, b=x3)


@pytest.mark.spec("VMAP-16")
def test_in_axes_dict_keys_differ(jax, x3):
    with raises_exactly(ValueError,
                        "vmap in_axes specification must be a tree prefix of the "
                        "corresponding value; \n"
                        "  Mismatch details (1 found):\n"
                        "  pytree structure error: different pytree metadata at key path\n"
                        "    vmap in_axes[0]\n"
                        "At that key path, the prefix pytree vmap in_axes has a subtree of type\n"
                        "    <class 'dict'>\n"
                        "with metadata\n"
                        "    ('b',)\n"
                        "but at the same key path the full pytree has a subtree of the same "
                        "type but with metadata\n"
                        "    ('a',)\n"
                        "so the diff in the metadata at these pytree nodes is\n"
                        "    - ('b',)\n"
                        "    ?   ^\n\n"
                        "    + ('a',)\n"
                        "    ?   ^\n"):
        jax.vmap(lambda a: a, in_axes=({"b": 0},))({"a": x3})


@pytest.mark.spec("VMAP-16")
def test_in_axes_tuple_for_a_list_argument(jax, x3):
    with raises_exactly(ValueError,
                        "vmap in_axes specification must be a tree prefix of the "
                        "corresponding value; \n"
                        "  Mismatch details (1 found):\n"
                        "  pytree structure error: different types at key path\n"
                        "    vmap in_axes[0]\n"
                        "At that key path, the prefix pytree vmap in_axes has a subtree of type\n"
                        "    <class 'tuple'>\n"
                        "but at the same key path the full pytree has a subtree of different "
                        "type\n"
                        "    <class 'list'>."):
        jax.vmap(lambda a: a[0] + a[1], in_axes=((0, None),))([x3, 1.])


@pytest.mark.spec("VMAP-16")
@pytest.mark.parametrize("axis, rank, shape", [(2, 3, "(3,)"), (-3, 3, "(3,)")])
def test_in_axis_out_of_range(jax, x3, axis, rank, shape):
    with raises_exactly(ValueError,
                        f"vmap was requested to map its argument along axis {axis}, which "
                        f"implies that its rank should be at least {rank}, but is only 1 "
                        f"(its shape is {shape})"):
        jax.vmap(lambda a: a, in_axes=axis)(x3)


@pytest.mark.spec("VMAP-16")
def test_mapping_a_scalar(jax):
    with raises_exactly(ValueError,
                        "vmap was requested to map its argument along axis 0, which "
                        "implies that its rank should be at least 1, but is only 0 "
                        "(its shape is ())"):
        jax.vmap(lambda a: a)(1.0)
    with raises_exactly(ValueError,
                        "vmap was requested to map its argument along axis 0, which "
                        "implies that its rank should be at least 1, but is only 0 "
                        "(its shape is ())"):
        jax.vmap(lambda a: a)(np.float32(1.0))


@pytest.mark.spec("VMAP-16")
def test_out_axes_none_for_a_batched_output(jax, jnp, x3):
    with raises_exactly(ValueError, "at vmap out_axes, got axis spec None but output "
                                    "was batched on axis 0"):
        jax.vmap(lambda a: a, out_axes=None)(x3)
    with raises_exactly(ValueError, "at vmap out_axes[1], got axis spec None but output "
                                    "was batched on axis 0"):
        jax.vmap(lambda a: (a * 0 + 1., a), out_axes=(0, None))(x3)
    with raises_exactly(ValueError, "at vmap out_axes[1], got axis spec None but output "
                                    "was batched on axis 0"):
        jax.vmap(lambda a: [1., a], out_axes=None)(x3)
    with raises_exactly(ValueError, "at vmap out_axes[1]['k'], got axis spec None but "
                                    "output was batched on axis 0"):
        jax.vmap(lambda a: (a, {"k": a}), out_axes=(0, {"k": None}))(x3)


@pytest.mark.spec("VMAP-16")
def test_out_axes_none_reports_where_the_batch_axis_is(jax, m23):
    with raises_exactly(ValueError, "at vmap out_axes, got axis spec None but output "
                                    "was batched on axis 1"):
        jax.vmap(lambda a: a, in_axes=1, out_axes=None)(jax.numpy.ones((2, 3)) + m23)


@pytest.mark.spec("VMAP-16")
@pytest.mark.parametrize("out_axes", [2, -3])
def test_out_axes_out_of_range(jax, x3, out_axes):
    with raises_exactly(ValueError, f"axis {out_axes} is out of bounds for array of "
                                    "dimension 1"):
        jax.vmap(lambda a: a, out_axes=out_axes)(x3)


@pytest.mark.spec("VMAP-16")
def test_out_axes_out_of_range_for_an_unbatched_output(jax, x3):
    with raises_exactly(ValueError, "axis 2 is out of bounds for array of dimension 1"):
        jax.vmap(lambda a: 1., out_axes=2)(x3)


@pytest.mark.spec("VMAP-16")
def test_out_axes_tuple_of_the_wrong_length(jax, x3):
    with raises_exactly(ValueError,
                        "vmap out_axes specification must be a tree prefix of the "
                        "corresponding value; \n"
                        "  Mismatch details (1 found):\n"
                        "  pytree structure error: different lengths of tuple at key path\n"
                        "    vmap out_axes\n"
                        "At that key path, the prefix pytree vmap out_axes has a subtree of "
                        "type tuple of length 3, but the full pytree has a subtree of the "
                        "same type but of length 2."):
        jax.vmap(lambda a: (a, a), out_axes=(0, 0, 0))(x3)


@pytest.mark.spec("VMAP-16")
def test_out_axes_tuple_for_a_list_output(jax, x3):
    with raises_exactly(ValueError,
                        "vmap out_axes specification must be a tree prefix of the "
                        "corresponding value; \n"
                        "  Mismatch details (1 found):\n"
                        "  pytree structure error: different types at key path\n"
                        "    vmap out_axes\n"
                        "At that key path, the prefix pytree vmap out_axes has a subtree of type\n"
                        "    <class 'tuple'>\n"
                        "but at the same key path the full pytree has a subtree of different "
                        "type\n"
                        "    <class 'list'>."):
        jax.vmap(lambda a: [a, a], out_axes=(0, 1))(x3)


@pytest.mark.spec("VMAP-16")
def test_out_axes_dict_keys_differ(jax, x3):
    with pytest.raises(ValueError) as e:
        jax.vmap(lambda a: {"x": a}, out_axes={"y": 0})(x3)
    assert str(e.value).startswith(
        "vmap out_axes specification must be a tree prefix of the corresponding value; \n"
        "  Mismatch details (1 found):\n"
        "  pytree structure error: different pytree metadata at key path\n"
        "    vmap out_axes\n")


# -- VMAP-17: metadata of the vmapped function -----------------------------------

@pytest.mark.spec("VMAP-17")
def test_vmapped_function_keeps_name_and_quotes_doc(jax):
    def f(x):
        """Doc of f."""
        return x
    g = jax.vmap(f)
    assert g.__name__ == "f"
    assert g.__qualname__ == f.__qualname__
    assert g.__wrapped__ is f
    assert g.__module__ == __name__
    assert g.__doc__ == ("Vectorized version of f. Takes similar arguments as f but with "
                         "additional array axes over which f is mapped.\n\n"
                         "Original documentation:\n\nDoc of f.")


@pytest.mark.spec("VMAP-17")
def test_vmapped_function_without_a_docstring(jax):
    g = jax.vmap(lambda x: x)
    assert g.__name__ == "<lambda>"
    assert g.__doc__ == ("Vectorized version of <lambda>. Takes similar arguments as "
                         "<lambda> but with additional array axes over which <lambda> "
                         "is mapped.")


@pytest.mark.spec("VMAP-17")
def test_vmapped_partial_and_callable_object_names(jax):
    def f(x, y):
        return x
    assert jax.vmap(functools.partial(f, y=1)).__name__ == "f"

    class C:
        def __call__(self, x):
            return x
    assert jax.vmap(C()).__name__ == "<unnamed function>"


# -- VMAP-18: bad functions, arguments and outputs -------------------------------

@pytest.mark.spec("VMAP-18")
@pytest.mark.parametrize("fun, shown", [(3, "3"), (None, "None"), ("abc", "abc")])
def test_vmap_needs_a_callable(jax, fun, shown):
    with raises_exactly(TypeError, f"Expected a callable value, got {shown}"):
        jax.vmap(fun)


@pytest.mark.spec("VMAP-18")
def test_vmap_rejects_generator_functions_and_staticmethods(jax):
    def gen(x):
        yield x
    with raises_exactly(TypeError, f"Expected a function, got a generator function: {gen}"):
        jax.vmap(gen)
    sm = staticmethod(lambda x: x)
    with raises_exactly(TypeError, f"staticmethod arguments are not supported, got {sm}"):
        jax.vmap(sm)


@pytest.mark.spec("VMAP-18")
def test_no_mapped_input_and_no_axis_size(jax, x3):
    msg = ("vmap must have at least one non-None value in in_axes or axis_size must "
           "be specified")
    with raises_exactly(ValueError, msg):
        jax.vmap(lambda a: a, in_axes=None)(x3)
    with raises_exactly(ValueError, msg):
        jax.vmap(lambda a, b: a, in_axes=(None, None))(x3, x3)


@pytest.mark.spec("VMAP-18")
def test_no_arguments_and_no_axis_size(jax):
    with raises_exactly(ValueError,
                        "vmap wrapped function must be passed at least one argument "
                        "containing an array or axis_size must be specified, got empty "
                        "*args=() and **kwargs={}"):
        jax.vmap(lambda: 1.)()
    with raises_exactly(ValueError,
                        "vmap wrapped function must be passed at least one argument "
                        "containing an array or axis_size must be specified, got empty "
                        "*args=(None,) and **kwargs={}"):
        jax.vmap(lambda a: 1.)(None)


@pytest.mark.spec("VMAP-18")
def test_mapped_argument_of_a_non_jax_type(jax):
    with raises_exactly(TypeError, "Argument 'abc' of type <class 'str'> is not a valid "
                                   "JAX type"):
        jax.vmap(lambda a: a)("abc")
    obj = object()
    with raises_exactly(TypeError, f"Argument '{obj}' of type '<class 'object'>' is not a "
                                   "valid JAX type"):
        jax.vmap(lambda a: a)(obj)


@pytest.mark.spec("VMAP-18")
def test_output_of_a_non_jax_type(jax, x3):
    with raises_exactly(TypeError, "Output from batched function 's' with type "
                                   "<class 'str'> is not a valid JAX type"):
        jax.vmap(lambda a: "s")(x3)
    obj = object()
    with raises_exactly(TypeError, f"Output from batched function {obj!r} with type "
                                   "<class 'object'> is not a valid JAX type"):
        jax.vmap(lambda a: obj)(x3)


# -- VMAP-19: tracers inside vmap ----------------------------------------------------

@pytest.mark.spec("VMAP-19")
def test_batch_tracer_repr(jax, x3):
    seen = []
    jax.vmap(lambda a: seen.append((repr(a), str(a))) or a)(x3)
    assert seen == [("VmapTracer(aval=float32[], batched=float32[3])",) * 2]


@pytest.mark.spec("VMAP-19")
def test_batch_tracer_repr_shows_the_batched_shape(jax, jnp):
    seen = []
    jax.vmap(lambda a: seen.append(repr(a)) or a, in_axes=1)(jnp.ones((2, 3, 4), jnp.int32))
    assert seen == ["VmapTracer(aval=int32[2,4], batched=int32[2,3,4])"]


@pytest.mark.spec("VMAP-19")
def test_bool_conversion_of_a_batch_tracer(jax, x3):
    with pytest.raises(jax.errors.TracerBoolConversionError) as e:
        jax.vmap(lambda a: 1. if a > 0 else 2.)(x3)
    first, *_, last = str(e.value).splitlines()
    assert first == "Attempted boolean conversion of traced array with shape bool[]."
    assert last == ("See https://docs.jax.dev/en/latest/errors.html"
                    "#jax.errors.TracerBoolConversionError")


@pytest.mark.spec("VMAP-19")
@pytest.mark.parametrize("conv", [int, float])
def test_number_conversion_of_a_batch_tracer(jax, x3, conv):
    with pytest.raises(jax.errors.ConcretizationTypeError) as e:
        jax.vmap(lambda a: conv(a))(x3)
    lines = str(e.value).splitlines()
    assert lines[:2] == [
        "Abstract tracer value encountered where concrete value is expected: traced "
        "array with shape float32[]",
        f"The problem arose with the `{conv.__name__}` function. If trying to convert "
        f"the data type of a value, try using `x.astype({conv.__name__})` or "
        f"`jnp.array(x, {conv.__name__})` instead."]


@pytest.mark.spec("VMAP-19")
def test_index_conversion_of_a_batch_tracer(jax, jnp):
    with pytest.raises(jax.errors.TracerIntegerConversionError) as e:
        jax.vmap(lambda a: [1, 2, 3][a])(jnp.arange(3))
    assert str(e.value).splitlines()[0] == ("The __index__() method was called on traced "
                                            "array with shape int32[]")
