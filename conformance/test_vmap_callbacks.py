"""Host callbacks under vmap: debug.print, debug.callback, pure_callback and
io_callback (SPEC VMAP-80 .. VMAP-86)."""
import importlib

import numpy as np
import pytest


def _io_callback(jax):
    return importlib.import_module(jax.__name__ + ".experimental").io_callback


def _lines(jax, capsys):
    jax.effects_barrier()
    return capsys.readouterr().out.splitlines()


def _recorder(log):
    """A host function ``a + b`` that logs the shapes and values it gets."""
    def cb(a, b):
        log.append((np.shape(a), np.shape(b), np.asarray(a).tolist(),
                    np.asarray(b).tolist()))
        return np.asarray(a) + np.asarray(b)
    return cb


def _pure_add(jax, jnp, cb, vmap_method):
    """``pure_callback(cb, ..., a, b)`` declaring the broadcast of a and b."""
    def f(a, b):
        out = jax.ShapeDtypeStruct(jnp.broadcast_shapes(jnp.shape(a), jnp.shape(b)),
                                   jnp.float32)
        return jax.pure_callback(cb, out, a, b, vmap_method=vmap_method)
    return f


# ---------------------------------------------------------------------------
# VMAP-80: debug callbacks run once per example
# ---------------------------------------------------------------------------

@pytest.mark.spec("VMAP-80")
@pytest.mark.parametrize("wrap", ["eager", "jit"])
def test_debug_print_once_per_example_in_order(jax, jnp, capsys, wrap):
    f = jax.vmap(lambda a, b: jax.debug.print("a={} b={}", a, b), in_axes=(0, None))
    if wrap == "jit":
        f = jax.jit(f)
    f(jnp.arange(3.), jnp.float32(7))
    assert _lines(jax, capsys) == ["a=0.0 b=7.0", "a=1.0 b=7.0", "a=2.0 b=7.0"]


@pytest.mark.spec("VMAP-80")
def test_debug_print_mapped_along_axis_1(jax, jnp, capsys):
    x = jnp.arange(6.).reshape(2, 3)
    f = jax.vmap(lambda a, b: jax.debug.print("a={a} b={b}", a=a, b=b), in_axes=(1, 0))
    jax.jit(f)(x, jnp.arange(3))
    assert _lines(jax, capsys) == ["a=[0. 3.] b=0", "a=[1. 4.] b=1", "a=[2. 5.] b=2"]


@pytest.mark.spec("VMAP-80")
def test_debug_print_nested_vmap_inner_axis_outermost(jax, jnp, capsys):
    x = jnp.arange(6.).reshape(2, 3)
    f = lambda a: jax.debug.print("a={}", a)
    jax.vmap(jax.vmap(f))(x)
    assert _lines(jax, capsys) == ["a=0.0", "a=3.0", "a=1.0", "a=4.0", "a=2.0", "a=5.0"]
    jax.vmap(jax.vmap(f), in_axes=1)(x)
    assert _lines(jax, capsys) == [f"a={v}.0" for v in range(6)]


@pytest.mark.spec("VMAP-80")
def test_debug_print_jaxpr_unrolls_the_batch(jax, jnp):
    jaxpr = jax.make_jaxpr(jax.vmap(lambda a: jax.debug.print("{}", a)))(jnp.arange(3.))
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == (
        ["slice", "squeeze", "debug_print"] * 3)
    starts = [e.params["start_indices"] for e in jaxpr.jaxpr.eqns[::3]]
    assert starts == [(0,), (1,), (2,)]


@pytest.mark.spec("VMAP-80")
def test_debug_print_ordered_and_returned_values(jax, jnp, capsys):
    def f(a):
        jax.debug.print("o {}", a, ordered=True)
        return a * 2
    out = jax.jit(jax.vmap(f))(jnp.arange(3.))
    assert out.tolist() == [0.0, 2.0, 4.0]
    assert _lines(jax, capsys) == ["o 0.0", "o 1.0", "o 2.0"]


@pytest.mark.spec("VMAP-80")
def test_debug_print_pytree_kwargs_sliced_per_leaf(jax, jnp, capsys):
    d = {"p": jnp.arange(2.), "q": jnp.arange(4.).reshape(2, 2)}
    jax.vmap(lambda d: jax.debug.print("p={d[p]} q={d[q]}", d=d))(d)
    assert _lines(jax, capsys) == ["p=0.0 q=[0. 1.]", "p=1.0 q=[2. 3.]"]


@pytest.mark.spec("VMAP-80")
def test_debug_print_empty_batch_prints_nothing(jax, jnp, capsys):
    jax.vmap(lambda a: jax.debug.print("z {}", a))(jnp.zeros((0,)))
    assert _lines(jax, capsys) == []


@pytest.mark.spec("VMAP-80")
def test_debug_print_under_grad_and_vmap(jax, jnp, capsys):
    def f(a):
        jax.debug.print("g {}", a)
        return a * a
    g = jax.grad(lambda x: jax.vmap(f)(x).sum())(jnp.arange(2.))
    assert g.tolist() == [0.0, 2.0]
    assert _lines(jax, capsys) == ["g 0.0", "g 1.0"]
    assert jax.vmap(jax.grad(f))(jnp.arange(2.)).tolist() == [0.0, 2.0]
    assert _lines(jax, capsys) == ["g 0.0", "g 1.0"]


@pytest.mark.spec("VMAP-80")
def test_debug_callback_gets_one_example_per_call(jax, jnp):
    calls = []

    def cb(u, v):
        calls.append((isinstance(u, jax.Array), np.shape(u), np.asarray(u).tolist(),
                      np.shape(v)))

    x = jnp.arange(6.).reshape(2, 3)
    jax.vmap(lambda a, b: jax.debug.callback(cb, a, b), in_axes=(1, None))(x, jnp.ones(2))
    jax.effects_barrier()
    assert calls == [(True, (2,), [0.0, 3.0], (2,)), (True, (2,), [1.0, 4.0], (2,)),
                     (True, (2,), [2.0, 5.0], (2,))]


# ---------------------------------------------------------------------------
# VMAP-81: pure_callback's vmap_method
# ---------------------------------------------------------------------------

@pytest.mark.spec("VMAP-81")
def test_pure_callback_rejects_unknown_vmap_method(jax, jnp):
    with pytest.raises(ValueError) as info:
        jax.pure_callback(lambda a: a, jax.ShapeDtypeStruct((), jnp.float32), 1.,
                          vmap_method="foo")
    assert str(info.value) == (
        "vmap_method must be on of the allowed methods ['sequential', "
        "'sequential_unrolled', 'expand_dims', 'broadcast_all', "
        "'legacy_vectorized', None], but got: foo")


@pytest.mark.spec("VMAP-81")
@pytest.mark.parametrize("wrap", ["eager", "jit"])
def test_pure_callback_without_vmap_method_cannot_be_batched(jax, jnp, wrap):
    log = []
    f = jax.vmap(_pure_add(jax, jnp, _recorder(log), None), in_axes=(0, None))
    if wrap == "jit":
        f = jax.jit(f)
    with pytest.raises(NotImplementedError) as info:
        f(jnp.arange(3.), 1.)
    assert str(info.value) == (
        "vmap is only supported for the pure_callback primitive when vmap_method "
        "is one of 'sequential', 'sequential_unrolled', 'expand_dims', "
        "'broadcast_all', or 'legacy_vectorized'. Got vmap_method=None.")
    assert log == []


# ---------------------------------------------------------------------------
# VMAP-82: sequential
# ---------------------------------------------------------------------------

_X23 = np.arange(6., dtype=np.float32).reshape(2, 3)
_SEQ_CALLS = [((2,), (), [0.0, 3.0], 10.0), ((2,), (), [1.0, 4.0], 10.0),
              ((2,), (), [2.0, 5.0], 10.0)]


@pytest.mark.spec("VMAP-82")
@pytest.mark.parametrize("wrap", ["eager", "jit"])
def test_pure_callback_sequential_calls_once_per_example(jax, jnp, wrap):
    log = []
    f = jax.vmap(_pure_add(jax, jnp, _recorder(log), "sequential"), in_axes=(1, None))
    if wrap == "jit":
        f = jax.jit(f)
    out = f(jnp.asarray(_X23), jnp.float32(10))
    assert out.shape == (3, 2) and out.dtype == jnp.float32
    assert out.tolist() == [[10.0, 13.0], [11.0, 14.0], [12.0, 15.0]]
    assert log == _SEQ_CALLS


@pytest.mark.spec("VMAP-82")
@pytest.mark.parametrize("wrap", ["eager", "jit"])
def test_pure_callback_sequential_unrolled_same_calls(jax, jnp, wrap):
    log = []
    f = jax.vmap(_pure_add(jax, jnp, _recorder(log), "sequential_unrolled"),
                 in_axes=(1, None))
    if wrap == "jit":
        f = jax.jit(f)
    out = f(jnp.asarray(_X23), jnp.float32(10))
    assert out.tolist() == [[10.0, 13.0], [11.0, 14.0], [12.0, 15.0]]
    # The unrolled calls are independent, so XLA may run them in any order.
    assert sorted(log) == _SEQ_CALLS


@pytest.mark.spec("VMAP-82")
def test_pure_callback_sequential_nested_order(jax, jnp):
    log = []
    f = _pure_add(jax, jnp, _recorder(log), "sequential")
    out = jax.vmap(jax.vmap(f, in_axes=(0, None)), in_axes=(0, 0))(
        jnp.asarray(_X23), jnp.array([100., 200.]))
    assert out.tolist() == [[100.0, 101.0, 102.0], [203.0, 204.0, 205.0]]
    # The inner vmap's loop is the outer one.
    assert [(a, b) for _, _, a, b in log] == [
        (0.0, 100.0), (3.0, 200.0), (1.0, 100.0), (4.0, 200.0), (2.0, 100.0),
        (5.0, 200.0)]
    assert {(sa, sb) for sa, sb, _, _ in log} == {((), ())}


@pytest.mark.spec("VMAP-82")
def test_pure_callback_sequential_outer_maps_other_operand(jax, jnp):
    log = []
    f = _pure_add(jax, jnp, _recorder(log), "sequential")
    out = jax.vmap(jax.vmap(f, in_axes=(0, None)), in_axes=(None, 0))(
        jnp.arange(3.), jnp.array([100., 200.]))
    assert out.tolist() == [[100.0, 101.0, 102.0], [200.0, 201.0, 202.0]]
    assert [(a, b) for _, _, a, b in log] == [
        (0.0, 100.0), (0.0, 200.0), (1.0, 100.0), (1.0, 200.0), (2.0, 100.0),
        (2.0, 200.0)]


@pytest.mark.spec("VMAP-82")
def test_pure_callback_sequential_three_levels(jax, jnp):
    log = []
    f = _pure_add(jax, jnp, _recorder(log), "sequential")
    y = jnp.arange(8.).reshape(2, 2, 2)
    b = jnp.arange(4.).reshape(2, 2) * 100
    g = jax.vmap(jax.vmap(jax.vmap(f, in_axes=(0, 0)), in_axes=(0, None)),
                 in_axes=(1, 0))
    out = g(y, b)
    assert out.tolist() == [[[0.0, 101.0], [4.0, 105.0]], [[202.0, 303.0], [206.0, 307.0]]]
    assert [(a, b) for _, _, a, b in log] == [
        (0.0, 0.0), (2.0, 200.0), (4.0, 0.0), (6.0, 200.0), (1.0, 100.0),
        (3.0, 300.0), (5.0, 100.0), (7.0, 300.0)]


@pytest.mark.spec("VMAP-82")
def test_pure_callback_sequential_pytree_results_and_kwargs(jax, jnp):
    seen = []

    def cb(a, *, scale):
        seen.append((np.shape(a), float(scale)))
        return {"s": np.asarray(a).sum() * scale, "d": (np.asarray(a), np.asarray(a) * 2)}

    def f(a):
        spec = jax.ShapeDtypeStruct(a.shape, jnp.float32)
        out = {"s": jax.ShapeDtypeStruct((), jnp.float32), "d": (spec, spec)}
        return jax.pure_callback(cb, out, a, scale=jnp.float32(2),
                                 vmap_method="sequential")

    r = jax.vmap(f, in_axes=1)(jnp.asarray(_X23))
    assert r["s"].tolist() == [6.0, 10.0, 14.0]
    assert r["d"][0].tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert r["d"][1].tolist() == [[0.0, 6.0], [2.0, 8.0], [4.0, 10.0]]
    assert seen == [((2,), 2.0)] * 3


@pytest.mark.spec("VMAP-82")
def test_pure_callback_sequential_result_dtype_cast(jax, jnp):
    f = lambda a: jax.pure_callback(lambda v: np.asarray(v, np.float64) * 2,
                                    jax.ShapeDtypeStruct((), jnp.float32), a,
                                    vmap_method="sequential")
    out = jax.vmap(f)(jnp.arange(3.))
    assert out.dtype == jnp.float32 and out.tolist() == [0.0, 2.0, 4.0]


@pytest.mark.spec("VMAP-82")
def test_pure_callback_sequential_empty_batch(jax, jnp):
    log = []
    f = _pure_add(jax, jnp, _recorder(log), "sequential")
    out = jax.vmap(f, in_axes=(0, None))(jnp.zeros((0, 2)), 1.)
    assert out.shape == (0, 2) and log == []


@pytest.mark.spec("VMAP-82")
def test_pure_callback_without_results_never_runs(jax, jnp):
    log = []

    def cb(a):
        log.append(np.shape(a))
        return ()

    jax.pure_callback(cb, (), jnp.arange(3.))
    jax.vmap(lambda a: jax.pure_callback(cb, (), a, vmap_method="sequential"))(
        jnp.arange(3.))
    assert log == []


@pytest.mark.spec("VMAP-82")
def test_pure_callback_sequential_wrong_shape(jax, jnp):
    f = lambda a: jax.pure_callback(lambda v: np.zeros(2, np.float32),
                                    jax.ShapeDtypeStruct((), jnp.float32), a,
                                    vmap_method="sequential")
    with pytest.raises(Exception) as info:
        jax.vmap(f)(jnp.arange(3.))
    assert type(info.value).__name__ == "JaxRuntimeError"
    assert str(info.value).startswith("INTERNAL: CpuCallback error calling callback")
    assert str(info.value).endswith(
        "Incorrect output shape for return value #0: Expected: (), Actual: (2,)")


@pytest.mark.spec("VMAP-82")
def test_pure_callback_sequential_under_grad_raises(jax, jnp):
    f = lambda a: jax.pure_callback(lambda v: v, jax.ShapeDtypeStruct((), jnp.float32),
                                    a, vmap_method="sequential")
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
        jax.grad(lambda x: jax.vmap(f)(x).sum())(jnp.arange(3.))


# ---------------------------------------------------------------------------
# VMAP-83 / VMAP-84: one call on the whole batch
# ---------------------------------------------------------------------------

@pytest.mark.spec("VMAP-83")
@pytest.mark.parametrize("method,b_shape,b_value", [
    ("expand_dims", (1,), [10.0]),
    ("broadcast_all", (3,), [10.0, 10.0, 10.0]),
])
def test_pure_callback_expand_dims_and_broadcast_all(jax, jnp, method, b_shape, b_value):
    log = []

    def cb(a, b):
        log.append((np.shape(a), np.shape(b), np.asarray(b).tolist()))
        return np.asarray(a) + np.asarray(b)[:, None]

    f = lambda a, b: jax.pure_callback(cb, jax.ShapeDtypeStruct(a.shape, jnp.float32),
                                       a, b, vmap_method=method)
    out = jax.vmap(f, in_axes=(1, None))(jnp.asarray(_X23), jnp.float32(10))
    assert out.tolist() == [[10.0, 13.0], [11.0, 14.0], [12.0, 15.0]]
    assert log == [((3, 2), b_shape, b_value)]


@pytest.mark.spec("VMAP-83")
def test_pure_callback_expand_dims_nested(jax, jnp):
    log = []
    f = _pure_add(jax, jnp, _recorder(log), "expand_dims")
    out = jax.vmap(jax.vmap(f, in_axes=(0, None)), in_axes=(0, None))(
        jnp.asarray(_X23), jnp.float32(1))
    assert out.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert [(sa, sb, b) for sa, sb, _, b in log] == [((2, 3), (1, 1), [[1.0]])]
    log.clear()
    f = _pure_add(jax, jnp, _recorder(log), "broadcast_all")
    jax.vmap(jax.vmap(f, in_axes=(0, None)), in_axes=(1, None))(
        jnp.asarray(_X23), jnp.float32(1))
    assert [(sa, sb) for sa, sb, _, _ in log] == [((3, 2), (3, 2))]


@pytest.mark.spec("VMAP-83")
def test_pure_callback_expand_dims_wrong_shape(jax, jnp):
    f = lambda a: jax.pure_callback(lambda v: np.asarray(v)[0],
                                    jax.ShapeDtypeStruct((3,), jnp.float32), a,
                                    vmap_method="expand_dims")
    with pytest.raises(Exception) as info:
        jax.vmap(f)(jnp.ones((2, 3)))
    assert type(info.value).__name__ == "JaxRuntimeError"
    assert str(info.value).endswith(
        "Incorrect output shape for return value #0: Expected: (2, 3), Actual: (3,)")


@pytest.mark.spec("VMAP-84")
def test_pure_callback_legacy_vectorized(jax, jnp):
    log = []
    f = _pure_add(jax, jnp, _recorder(log), "legacy_vectorized")
    out = jax.jit(jax.vmap(f, in_axes=(1, None)))(jnp.asarray(_X23), jnp.float32(10))
    assert out.tolist() == [[10.0, 13.0], [11.0, 14.0], [12.0, 15.0]]
    assert log == [((3, 2), (), [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]], 10.0)]


# ---------------------------------------------------------------------------
# VMAP-85: io_callback
# ---------------------------------------------------------------------------

@pytest.mark.spec("VMAP-85")
def test_ordered_io_callback_cannot_be_batched(jax, jnp):
    io_callback = _io_callback(jax)
    f = lambda a: io_callback(lambda v: v, jax.ShapeDtypeStruct((), jnp.float32), a,
                              ordered=True)
    with pytest.raises(ValueError) as info:
        jax.vmap(f)(jnp.arange(3.))
    assert str(info.value) == "Cannot `vmap` ordered IO callback."


@pytest.mark.spec("VMAP-85")
@pytest.mark.parametrize("wrap", ["eager", "jit"])
def test_io_callback_once_per_example_in_order(jax, jnp, wrap):
    io_callback = _io_callback(jax)
    log = []
    f = jax.vmap(lambda a, b: io_callback(_recorder(log), jax.ShapeDtypeStruct(
        a.shape, jnp.float32), a, b), in_axes=(1, None))
    if wrap == "jit":
        f = jax.jit(f)
    out = f(jnp.asarray(_X23), jnp.float32(10))
    assert out.tolist() == [[10.0, 13.0], [11.0, 14.0], [12.0, 15.0]]
    assert log == _SEQ_CALLS


@pytest.mark.spec("VMAP-85")
def test_io_callback_nested_and_unused(jax, jnp):
    io_callback = _io_callback(jax)
    log = []
    f = lambda a, b: io_callback(_recorder(log), jax.ShapeDtypeStruct((), jnp.float32),
                                 a, b)
    out = jax.vmap(jax.vmap(f, in_axes=(0, None)), in_axes=(0, 0))(
        jnp.asarray(_X23), jnp.array([100., 200.]))
    assert out.tolist() == [[100.0, 101.0, 102.0], [203.0, 204.0, 205.0]]
    assert [a for _, _, a, _ in log] == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    log.clear()
    jax.jit(jax.vmap(lambda a: (f(a, 1.), a)[1]))(jnp.arange(2.))
    assert [a for _, _, a, _ in log] == [0.0, 1.0]


# ---------------------------------------------------------------------------
# VMAP-86: callbacks on unmapped operands
# ---------------------------------------------------------------------------

@pytest.mark.spec("VMAP-86")
def test_callbacks_on_unmapped_operands_run_once(jax, jnp, capsys):
    io_callback = _io_callback(jax)
    log = []
    scalar = jax.ShapeDtypeStruct((), jnp.float32)
    xs = jnp.arange(3.)
    # No vmap_method needed: nothing is batched.
    out = jax.vmap(lambda a: jax.pure_callback(_recorder(log), scalar, 1., 2.) + a)(xs)
    assert out.tolist() == [3.0, 4.0, 5.0] and len(log) == 1
    out = jax.vmap(lambda a: io_callback(_recorder(log), scalar, 1., 2.,
                                         ordered=True) + a)(xs)
    assert out.tolist() == [3.0, 4.0, 5.0] and len(log) == 2
    jax.vmap(lambda a: jax.debug.print("u {}", jnp.float32(5)))(xs)
    assert _lines(jax, capsys) == ["u 5.0"]


@pytest.mark.spec("VMAP-80")
def test_debug_print_template_checked_on_one_example(jax, jnp, capsys):
    x = jnp.arange(4.).reshape(2, 2)
    jax.vmap(lambda a: jax.debug.print("{a.shape} {a[1]}", a=a))(x)
    assert _lines(jax, capsys) == ["(2,) 1.0", "(2,) 3.0"]
    with pytest.raises(ValueError) as info:
        jax.vmap(lambda a: jax.debug.print("{}", a, a))(x)
    assert str(info.value).startswith("Unused positional arguments to `jax.debug.print`: ")
    assert _lines(jax, capsys) == []
