"""jax.debug.print, jax.debug.callback and host callbacks (SPEC DBG-1 .. DBG-6)."""
import numpy as np
import pytest


@pytest.mark.spec("DBG-1")
def test_debug_print_runs_at_every_call(jax, jnp, capsys):
    @jax.jit
    def f(x):
        print("print(x) ->", x)
        jax.debug.print("jax.debug.print(x) -> {x}", x=x)
        y = jnp.sin(x)
        jax.debug.print("jax.debug.print(y) -> {y}", y=y)
        return y

    f(2.)
    f(2.)
    jax.effects_barrier()
    assert capsys.readouterr().out.splitlines() == [
        "print(x) -> JitTracer(~float32[])",
        "jax.debug.print(x) -> 2.0",
        "jax.debug.print(y) -> 0.9092974066734314",
        "jax.debug.print(x) -> 2.0",
        "jax.debug.print(y) -> 0.9092974066734314",
    ]


@pytest.mark.spec("DBG-2")
def test_debug_print_format_template(jax, jnp, capsys):
    @jax.jit
    def f(x):
        jax.debug.print("positional: {} {}", x, x + 1)
        jax.debug.print(f"f-string: {x}")
        jax.debug.print("array: {a} tag={t}", a=jnp.arange(3) * 2, t="static")
        return x

    f(1.)
    jax.effects_barrier()
    # Unordered prints may run in any order (XLA schedules them freely).
    assert sorted(capsys.readouterr().out.splitlines()) == [
        "array: [0 2 4] tag=static",
        "f-string: JitTracer(~float32[])",
        "positional: 1.0 2.0",
    ]


@pytest.mark.spec("DBG-2")
def test_debug_print_eager_and_printoptions(jax, jnp, capsys):
    jax.debug.print("{}", jnp.array([1.0, 2.5]))
    with np.printoptions(precision=2):
        jax.debug.print("{}", jnp.array([1 / 3]))
    assert capsys.readouterr().out.splitlines() == ["[1.  2.5]", "[0.33]"]


@pytest.mark.spec("DBG-3")
def test_debug_print_ordered_program_order(jax, capsys):
    @jax.jit
    def f(x, y):
        jax.debug.print("x: {}", x, ordered=True)
        jax.debug.print("y: {}", y, ordered=True)
        return x + y

    f(2., 3.)
    jax.effects_barrier()
    assert capsys.readouterr().out.splitlines() == ["x: 2.0", "y: 3.0"]


@pytest.mark.spec("DBG-4")
def test_debug_print_missing_field_raises_at_trace_time(jax):
    calls = []

    def f(x):
        calls.append(1)
        jax.debug.print("{y}", x=x)
        return x

    with pytest.raises(KeyError, match="'y'"):
        jax.jit(f)(1.)
    assert calls == [1]


@pytest.mark.spec("DBG-5")
def test_debug_callback_receives_arrays(jax, jnp, capsys):
    seen = []

    def cb(v):
        seen.append(v)
        print("callback got", type(v).__name__, v)

    @jax.jit
    def f(x):
        jax.debug.callback(cb, x)
        return x + 1

    out = f(jnp.arange(3))
    assert str(out) == "[1 2 3]"
    out = f(jnp.arange(3))
    jax.effects_barrier()
    assert capsys.readouterr().out.splitlines() == ["callback got ArrayImpl [0 1 2]"] * 2
    assert isinstance(seen[0], jax.Array)
    assert jax.debug.callback(lambda v: None, 1.0) is None


@pytest.mark.spec("DBG-5")
def test_debug_callback_kept_without_outputs(jax, jnp):
    calls = []
    jax.jit(lambda x: (jax.debug.callback(lambda v: calls.append(1), x), x)[1])(1.)
    assert calls == [1]


@pytest.mark.spec("DBG-6")
def test_pure_callback_under_jit(jax, jnp):
    def host_sin(x):
        return np.sin(np.asarray(x))

    f = lambda x: jax.pure_callback(host_sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    out = jax.jit(f)(jnp.arange(3.))
    assert str(out) == "[0.        0.841471  0.9092974]"


@pytest.mark.spec("DBG-6")
def test_pure_callback_result_dtype_is_declared(jax, jnp):
    f = lambda x: jax.pure_callback(lambda v: np.asarray(v, np.float64),
                                    jax.ShapeDtypeStruct(x.shape, jnp.float32), x)
    assert repr(jax.jit(f)(jnp.arange(3.))) == "Array([0., 1., 2.], dtype=float32)"


@pytest.mark.spec("DBG-6")
def test_pure_callback_shape_mismatch_raises(jax, jnp):
    g = lambda x: jax.pure_callback(lambda v: np.zeros(4, np.float32),
                                    jax.ShapeDtypeStruct(x.shape, jnp.float32), x)
    with pytest.raises(Exception) as info:
        jax.jit(g)(jnp.arange(3.))
    assert type(info.value).__name__ == "JaxRuntimeError"
    assert str(info.value).startswith("INTERNAL: CpuCallback error calling callback")


@pytest.mark.spec("DBG-6")
def test_unused_pure_callback_is_dead_code(jax, jnp):
    calls = []

    def side(v):
        calls.append(1)
        return v

    jax.jit(lambda x: (jax.pure_callback(side, jax.ShapeDtypeStruct((), jnp.float32), x),
                       x)[1])(1.)
    assert calls == []


@pytest.mark.spec("DBG-6")
def test_io_callback_runs_even_when_unused(jax, jnp):
    import importlib
    io_callback = importlib.import_module(jax.__name__ + ".experimental").io_callback
    log = []

    def record(v):
        log.append(float(v))
        return np.float32(0)

    @jax.jit
    def f(x):
        io_callback(record, jax.ShapeDtypeStruct((), jnp.float32), x, ordered=True)
        return x * 2

    assert float(f(3.)) == 6.0 and log == [3.0]


@pytest.mark.spec("DBG-7")
def test_block_until_ready_returns_argument(jax, jnp):
    x = jnp.ones(3) * 2
    assert x.block_until_ready() is x
    assert jax.block_until_ready({"a": x})["a"] is x


@pytest.mark.spec("DBG-8")
def test_disable_jit_runs_op_by_op(jax, capsys):
    @jax.jit
    def f(x):
        print("x =", x)
        if x > 0:
            return x
        return -x

    with jax.disable_jit():
        assert float(f(-2.)) == 2.0
    with pytest.raises(jax.errors.TracerBoolConversionError):
        f(-2.)
    assert capsys.readouterr().out.splitlines() == ["x = -2.0", "x = JitTracer(~float32[])"]
