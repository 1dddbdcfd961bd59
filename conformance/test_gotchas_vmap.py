"""vmap gotchas of gotchas.md: G-VMAP-001 .. G-VMAP-020 (in_axes and out_axes
rules, their errors, axis_size, axis names and collectives, nesting, debug
prints and composition with jit and grad).

Each test runs the gotcha's snippet and asserts what it printed on JAX 0.10.2;
a comment names the gotcha.  The gotchas that need control flow (G-VMAP-013,
G-VMAP-014 and the ``lax.map`` half of G-VMAP-015) are in
test_gotchas_vmap_control_flow.py.
"""
import re

import numpy as np
import pytest


def raises(cls, message):
    """``pytest.raises`` for ``message``, whole lines of it: JAX may append a
    note on traceback filtering after a blank line."""
    return pytest.raises(cls, match="^" + re.escape(message) + "($|\n)")


def raises_prefix(cls, prefix):
    """``pytest.raises`` for a message starting with the literal ``prefix``."""
    return pytest.raises(cls, match="^" + re.escape(prefix))


def values(x):
    return np.asarray(x).tolist()


AXES_MESSAGE = ("vmap in_axes must be an int, None, or a tuple of entries corresponding "
                "to the positional arguments passed to the function, but got ")


# -- in_axes and out_axes -------------------------------------------------------

def _convolve(jnp):
    def convolve(x, w):
        output = []
        for i in range(1, len(x) - 1):
            output.append(jnp.dot(x[i - 1:i + 2], w))
        return jnp.array(output)
    return convolve


@pytest.mark.spec("VMAP-10")
def test_default_in_axes_maps_axis_0_of_every_argument(jax, jnp):
    # G-VMAP-001
    convolve = _convolve(jnp)
    x = jnp.arange(5); w = jnp.array([2., 3., 4.])
    xs = jnp.stack([x, x]); ws = jnp.stack([w, w])
    out = jax.vmap(convolve)(xs, ws)
    assert out.dtype == jnp.float32
    assert values(out) == [[11., 20., 29.], [11., 20., 29.]]


@pytest.mark.spec("VMAP-11")
def test_in_axes_list_is_a_tuple_and_none_broadcasts(jax, jnp):
    # G-VMAP-001
    convolve = _convolve(jnp)
    x = jnp.arange(5); w = jnp.array([2., 3., 4.])
    xs = jnp.stack([x, x])
    out = jax.vmap(convolve, in_axes=[0, None])(xs, w)
    assert values(out) == [[11., 20., 29.], [11., 20., 29.]]


@pytest.mark.spec("VMAP-13")
def test_in_axes_1_out_axes_1_maps_columns(jax, jnp):
    # G-VMAP-001
    convolve = _convolve(jnp)
    x = jnp.arange(5); w = jnp.array([2., 3., 4.])
    xs = jnp.stack([x, x]); ws = jnp.stack([w, w])
    out = jax.vmap(convolve, in_axes=1, out_axes=1)(xs.T, ws.T)
    assert values(out) == [[11., 11.], [20., 20.], [29., 29.]]


@pytest.mark.spec("VMAP-15")
def test_inconsistent_sizes_list_each_argument(jax, jnp):
    # G-VMAP-002
    with raises(ValueError, "vmap got inconsistent sizes for array axes to be mapped:\n"
                            "  * one axis had size 3: axis 0 of argument x of type float32[3];\n"
                            "  * one axis had size 4: axis 0 of argument y of type float32[4]"):
        jax.vmap(lambda x, y: x + y)(jnp.ones(3), jnp.ones(4))


@pytest.mark.spec("VMAP-16")
def test_in_axes_tuple_length_and_type_errors(jax, jnp):
    # G-VMAP-003
    with raises(ValueError, AXES_MESSAGE + "len(in_axes)=1, len(args)=2"):
        jax.vmap(lambda x, y: x + y, in_axes=(0,))(jnp.ones(3), jnp.ones(3))
    for bad, shown in (({'a': 0}, "{'a': 0}"), ('x', "x"), (1.0, "1.0")):
        with raises(TypeError, AXES_MESSAGE + shown + "."):
            jax.vmap(lambda x: x, in_axes=bad)


@pytest.mark.spec("VMAP-18")
def test_nothing_mapped_without_axis_size_is_an_error(jax, jnp):
    # G-VMAP-004
    with raises(ValueError, "vmap must have at least one non-None value in in_axes "
                            "or axis_size must be specified"):
        jax.vmap(lambda x: x, in_axes=None)(jnp.ones(3))
    with raises_prefix(ValueError, "vmap wrapped function must be passed at least one "
                                   "argument containing an array or axis_size must be "
                                   "specified, got empty *args=() and **kwargs={}"):
        jax.vmap(lambda: 1.)()


@pytest.mark.spec("VMAP-14")
def test_axis_size_with_nothing_mapped(jax, jnp):
    # G-VMAP-004
    out = jax.vmap(lambda x: x * 2, in_axes=None, axis_size=2)(jnp.ones(3))
    assert out.shape == (2, 3) and out.dtype == jnp.float32
    assert values(out) == [[2., 2., 2.], [2., 2., 2.]]


@pytest.mark.spec("VMAP-16")
def test_mapped_axis_beyond_rank_is_an_error(jax, jnp):
    # G-VMAP-005
    with raises(ValueError, "vmap was requested to map its argument along axis 1, which "
                            "implies that its rank should be at least 2, but is only 1 "
                            "(its shape is (3,))"):
        jax.vmap(lambda x: x, in_axes=1)(jnp.ones(3))
    with raises(ValueError, "vmap was requested to map its argument along axis 0, which "
                            "implies that its rank should be at least 1, but is only 0 "
                            "(its shape is ())"):
        jax.vmap(lambda x, y: x + y)(jnp.ones(3), 2.)


@pytest.mark.spec("VMAP-10")
def test_negative_in_axes_counts_from_the_end(jax, jnp):
    # G-VMAP-005
    out = jax.vmap(lambda x: x.sum(), in_axes=-1)(jnp.ones((2, 3)))
    assert values(out) == [2., 2., 2.]


@pytest.mark.spec("VMAP-13")
def test_out_axes_none_and_broadcast_of_unmapped_output(jax, jnp):
    # G-VMAP-006
    f = lambda x, y: (x + y, y * 2.)
    a, b = jax.vmap(f, in_axes=(0, None), out_axes=(0, None))(jnp.arange(2.), 4.)
    assert repr(a) == "Array([4., 5.], dtype=float32)"
    assert type(b) is float and b == 8.0
    a, b = jax.vmap(f, in_axes=(0, None), out_axes=0)(jnp.arange(2.), 4.)
    assert repr(a) == "Array([4., 5.], dtype=float32)"
    assert repr(b) == "Array([8., 8.], dtype=float32, weak_type=True)"


@pytest.mark.spec("VMAP-16")
def test_out_axes_none_on_batched_output_is_an_error(jax, jnp):
    # G-VMAP-006
    with raises(ValueError, "at vmap out_axes, got axis spec None but output was "
                            "batched on axis 0"):
        jax.vmap(lambda x: x, out_axes=None)(jnp.arange(3.))


@pytest.mark.spec("VMAP-13")
def test_out_axes_places_the_mapped_axis(jax, jnp):
    # G-VMAP-007
    assert jax.vmap(lambda x: x * 2, out_axes=1)(jnp.ones((4, 3))).shape == (3, 4)
    assert jax.vmap(lambda x: x * 2, out_axes=-1)(jnp.ones((4, 3, 5))).shape == (3, 5, 4)


@pytest.mark.spec("VMAP-12")
def test_keyword_arguments_are_mapped_along_axis_0(jax, jnp):
    # G-VMAP-008
    f = lambda x, y: x + y
    out = jax.vmap(f, in_axes=(None,))(jnp.arange(3.), y=jnp.ones((2, 3)))
    assert values(out) == [[1., 2., 3.], [1., 2., 3.]]
    with raises_prefix(ValueError, AXES_MESSAGE + "len(in_axes)=2, len(args)=1"):
        jax.vmap(f, in_axes=(0, None))(jnp.arange(3.), y=jnp.ones(3))
    with raises_prefix(ValueError, "vmap was requested to map its argument along axis 0, "
                                   "which implies that its rank should be at least 1, but "
                                   "is only 0 (its shape is ())"):
        jax.vmap(f)(jnp.arange(3.), y=1.)


@pytest.mark.spec("VMAP-11")
def test_in_axes_is_a_pytree_prefix(jax, jnp):
    # G-VMAP-009
    dct = {'a': 0., 'b': jnp.arange(5.)}
    out = jax.vmap(lambda d, x: d['a'] + d['b'] + x,
                   in_axes=({'a': None, 'b': 0}, None))(dct, 1.)
    assert values(out) == [1., 2., 3., 4., 5.]
    A, B, C_, D, K = 2, 3, 4, 5, 6

    def foo(tree_arg):
        x, (y, z) = tree_arg
        return jnp.dot(x, jnp.dot(y, z))
    tree = (jnp.ones((K, A, B)), (jnp.ones((B, K, C_)), jnp.ones((C_, D, K))))
    out = jax.vmap(foo, in_axes=((0, (1, 2)),))(tree)
    assert out.shape == (6, 2, 5)
    # Each entry sums B * C_ products of ones.
    assert np.all(np.asarray(out) == B * C_)


# -- axis names and collectives ---------------------------------------------------

@pytest.mark.spec("VMAP-71")
def test_axis_name_enables_psum_and_pmean(jax, jnp):
    # G-VMAP-010
    lax = jax.lax
    xs = jnp.arange(3. * 4.).reshape(3, 4)
    out = jax.vmap(lambda x: lax.psum(x, 'i'), axis_name='i')(xs)
    assert values(out) == [[12., 15., 18., 21.]] * 3
    out = jax.vmap(lambda x: x - lax.pmean(x, 'i'), axis_name='i')(jnp.arange(4.))
    assert values(out) == [-1.5, -0.5, 0.5, 1.5]


@pytest.mark.spec("VMAP-74")
def test_axis_index_numbers_the_examples(jax, jnp):
    # G-VMAP-010
    out = jax.vmap(lambda x: jax.lax.axis_index('i'), axis_name='i')(jnp.zeros(3))
    assert out.dtype == jnp.int32 and values(out) == [0, 1, 2]


@pytest.mark.spec("VMAP-78")
def test_unbound_axis_name_is_a_name_error(jax, jnp):
    # G-VMAP-011
    lax = jax.lax
    with raises_prefix(NameError, "Found an unbound axis name: j. To fix this, please "
                                  "call psum under `jax.shard_map`."):
        jax.vmap(lambda x: lax.psum(x, 'j'), axis_name='i')(jnp.ones(3))
    with raises_prefix(NameError, "unbound axis name: i"):
        lax.psum(jnp.ones(3), 'i')


# -- nesting, constants, axis_size, composition -----------------------------------

@pytest.mark.spec("VMAP-42")
def test_nested_vmap_pairwise_distances(jax, jnp):
    # G-VMAP-012
    def pairwise(f, xs):
        return jax.vmap(lambda x: jax.vmap(lambda y: f(x, y))(xs))(xs)
    xs = jnp.array([[0., 0.], [3., 4.], [6., 8.]])
    out = pairwise(lambda a, b: jnp.linalg.norm(a - b), xs)
    np.testing.assert_allclose(np.asarray(out),
                               [[0., 5., 10.], [5., 0., 5.], [10., 5., 0.]], rtol=1e-6)


@pytest.mark.spec("VMAP-80")
def test_debug_print_under_vmap_prints_once_per_example(jax, jnp, capsys):
    # G-VMAP-015 (the vmap half; lax.map is in test_gotchas_vmap_control_flow.py)
    def f(x):
        jax.debug.print("x: {}", x)
        y = jnp.sin(x)
        jax.debug.print("y: {}", y)
        return y
    jax.vmap(f)(jnp.arange(3.))
    jax.effects_barrier()
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[0] for line in lines] == ["x"] * 3 + ["y"] * 3
    assert lines[:3] == ["x: 0.0", "x: 1.0", "x: 2.0"]
    # The float32 sine may differ in the last bit from XLA's (0.8414709568023682).
    printed = [float(line.split(": ")[1]) for line in lines[3:]]
    np.testing.assert_allclose(printed, [0.0, 0.8414709568023682, 0.9092974066734314],
                               rtol=1e-6)


@pytest.mark.spec("VMAP-13")
def test_constant_output_is_broadcast_weakly_typed(jax, jnp):
    # G-VMAP-016
    assert (repr(jax.vmap(lambda x: 1.)(jnp.arange(3.)))
            == "Array([1., 1., 1.], dtype=float32, weak_type=True)")
    a, b = jax.vmap(lambda x: (x, 2))(jnp.arange(2.))
    assert repr(a) == "Array([0., 1.], dtype=float32)"
    assert repr(b) == "Array([2, 2], dtype=int32, weak_type=True)"


@pytest.mark.spec("VMAP-15")
def test_axis_size_must_agree_with_mapped_sizes(jax, jnp):
    # G-VMAP-017
    with raises(ValueError, "vmap got inconsistent sizes for array axes to be mapped:\n"
                            "  * the `axis_size` argument was 4;\n"
                            "  * one axis had size 3: axis 0 of argument x of type float32[3]"):
        jax.vmap(lambda x: x, axis_size=4)(jnp.ones(3))


@pytest.mark.spec("VMAP-40")
def test_per_example_gradients_under_jit(jax, jnp):
    # G-VMAP-018
    loss = lambda w, x: jnp.sum((w * x) ** 2)
    w = jnp.array([1., 2.]); xs = jnp.array([[1., 0.], [0., 1.], [1., 1.]])
    out = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0)))(w, xs)
    assert out.dtype == jnp.float32
    assert values(out) == [[2., 0.], [0., 4.], [2., 4.]]


@pytest.mark.spec("VMAP-10")
def test_in_axes_negative_per_argument_and_single_int_for_all(jax, jnp):
    # G-VMAP-019
    out = jax.vmap(jnp.dot, in_axes=(-1, 0))(jnp.ones((3, 2)), jnp.ones((2, 3)))
    assert out.shape == (2,) and values(out) == [3., 3.]
    out = jax.vmap(jnp.add, in_axes=1)(jnp.ones((3, 2)), jnp.ones((3, 2)))
    assert out.shape == (2, 3) and values(out) == [[2.] * 3] * 2


@pytest.mark.spec("VMAP-15")
def test_inconsistent_sizes_counts_most_common_size(jax, jnp):
    # G-VMAP-020
    with raises(ValueError, "vmap got inconsistent sizes for array axes to be mapped:\n"
                            "  * most axes (2 of them) had size 3, e.g. axis 0 of argument "
                            "a of type float32[3];\n"
                            "  * one axis had size 5: axis 0 of argument c of type "
                            "float32[5]"):
        jax.vmap(lambda a, b, c: a + b + c)(jnp.ones(3), jnp.ones(3), jnp.ones(5))
