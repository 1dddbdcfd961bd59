"""refjax-only tests of the compiler and eager dispatch (SPEC PERF-1..3):
what the generated program contains, that it agrees with the jaxpr it was
written from, and that eager plans are remembered and dropped correctly."""
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import refjax as jax
import refjax.numpy as jnp
from refjax import lax
from refjax._src import api, backend, compiler, core, dispatch
from refjax._src.lax import lax as lax_internal


def _program(f, *args):
    return jax.jit(f).lower(*args).as_text()


def _body(text):
    """The lines of ``run`` that compute something (no bookkeeping)."""
    return [line.strip() for line in text.splitlines()
            if re.match(r"\s+v\d+ = ", line)]


# -- PERF-2: the generated program ------------------------------------------

@pytest.mark.spec("PERF-2")
def test_as_text_is_the_source_that_runs():
    text = _program(lambda x: jnp.sin(x) * 2, jnp.ones(3))
    assert text.startswith("# module @jit__lambda")
    assert "#   { lambda ; a:f32[3]. let" in text      # the jaxpr, as comments
    assert "def run(a0):" in text
    assert _body(text) == ["v0 = _as_dtype(k_sin(a0), t_f32_3)",
                           "v1 = _as_dtype(k_mul(v0, c0), t_f32_3)"]
    assert "# c0: f32[] = 2.0" in text                   # the hoisted literal
    f = jax.jit(lambda x: jnp.sin(x) * 2)
    assert f.lower(jnp.ones(3)).compile().as_text() == text


@pytest.mark.spec("PERF-2")
def test_calls_are_inlined():
    inner = jax.jit(lambda y: y * 3)

    @jax.custom_jvp
    def twice(y):
        return y * 2
    twice.defjvp(lambda p, t: (twice(p[0]), 2 * t[0]))

    def f(x):
        return inner(x) + twice(x) + jax.checkpoint(jnp.cos)(x)

    x = jnp.arange(3.)
    jaxpr = str(jax.make_jaxpr(f)(x))
    assert "jit[" in jaxpr and "custom_jvp_call[" in jaxpr and "remat2[" in jaxpr
    text = _program(f, x)
    body = " ".join(_body(text))
    assert "jit" not in body and "custom_jvp_call" not in body and "remat" not in body
    assert re.findall(r"\bk_(mul|cos|add)\(", body) == ["mul", "mul", "add", "cos", "add"]
    np.testing.assert_allclose(jax.jit(f)(x), 3 * x + 2 * x + np.cos(x), rtol=1e-6)


@pytest.mark.spec("PERF-2")
def test_dead_code_is_removed_after_inlining():
    def f(x):
        unused = jax.jit(lambda y: (jnp.exp(y), jnp.log(y)))(x)[1]   # noqa: F841
        return jnp.sin(x)

    text = _program(f, jnp.ones(2))
    assert re.findall(r"\bk_(exp|log|sin)\(", " ".join(_body(text))) == ["sin"]
    assert "exp" in text.split("def run")[0]          # still in the jaxpr


@pytest.mark.spec("PERF-2")
def test_effects_survive_dead_code_elimination(capsys):
    def f(x):
        jax.debug.print("x={x}", x=x)
        jax.pure_callback(lambda v: v, jax.ShapeDtypeStruct((), jnp.float32), x)
        return x + 1

    jax.jit(f)(jnp.float32(1.))
    assert capsys.readouterr().out == "x=1.0\n"


@pytest.mark.spec("PERF-2")
def test_intermediates_are_deleted_after_last_use():
    text = _program(lambda x: jnp.tanh(jnp.sin(x) + jnp.cos(x)), jnp.ones(2))
    lines = [line.strip() for line in text.splitlines()]
    add = next(i for i, line in enumerate(lines) if "add(" in line)
    assert lines[add + 1] == "del v0, v1"


@pytest.mark.spec("PERF-2")
def test_constants_are_hoisted_once():
    table = np.arange(6, dtype=np.float32).reshape(2, 3)
    f = jax.jit(lambda x: x @ jnp.asarray(table))
    text = f.lower(jnp.ones((4, 2))).as_text()
    assert "# c0: f32[2,3] = array of shape (2, 3)" in text
    run = compiler.executable_for(f.trace(jnp.ones((4, 2))).jaxpr)
    assert run.__globals__["c0"].dtype == np.float32
    np.testing.assert_array_equal(f(jnp.ones((4, 2))), np.ones((4, 2)) @ table)


@pytest.mark.spec("PERF-2")
def test_control_flow_bodies_are_compiled_once_per_jaxpr():
    def f(x):
        return lax.scan(lambda c, v: (c + v, c * v), 0., x)

    x = jnp.arange(4.)
    closed = jax.make_jaxpr(f)(x)
    body = closed.jaxpr.eqns[0].params["jaxpr"]
    jax.jit(f)(x)
    run = compiler.executable_for(body)
    assert compiler.executable_for(body) is run
    assert "def run(a0, a1):" in run.source
    carry, ys = jax.jit(f)(x)
    assert float(carry) == 6.0 and ys.tolist() == [0.0, 0.0, 2.0, 9.0]


@pytest.mark.spec("PERF-2")
def test_programs_do_not_warn_or_touch_the_error_state():
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = jax.jit(lambda x: (x / 0, jnp.log(x - 2)))(jnp.ones(2))
    assert np.isinf(out[0]).all() and np.isnan(out[1]).all()
    assert np.geterr() == before


@pytest.mark.spec("PERF-2")
@pytest.mark.parametrize("name", ["and", "or", "not", "xor"])
def test_keyword_named_primitives_compile(name):
    fn = {"and": lambda a, b: a & b, "or": lambda a, b: a | b,
          "not": lambda a, b: ~a, "xor": lambda a, b: a ^ b}[name]
    a, b = jnp.array([True, False]), jnp.array([True, True])
    assert jax.jit(fn)(a, b).tolist() == fn(np.asarray(a), np.asarray(b)).tolist()


# -- PERF-3: specialized kernels ---------------------------------------------

_DOT_CASES = [
    ((3, 4), (4, 5), (((1,), (0,)), ((), ())), np.float32),
    ((4, 3), (4, 5), (((0,), (0,)), ((), ())), np.float32),      # transposed lhs
    ((2, 3, 4), (2, 5, 4), (((2,), (2,)), ((0,), (0,))), np.float32),
    ((3,), (3,), (((0,), (0,)), ((), ())), np.int8),            # widened
    ((3, 1), (1, 4), (((1,), (0,)), ((), ())), np.float16),     # k == 1
]


@pytest.mark.spec("PERF-3")
@pytest.mark.parametrize("lhs_shape, rhs_shape, dims, dtype", _DOT_CASES)
def test_specialized_dot_general_matches_impl(lhs_shape, rhs_shape, dims, dtype):
    rng = np.random.default_rng(0)
    be = backend.get()
    a = be.asarray(rng.integers(-3, 4, lhs_shape).astype(dtype))
    b = be.asarray(rng.integers(-3, 4, rhs_shape).astype(dtype))
    params = dict(dimension_numbers=dims, precision=None,
                  preferred_element_type=None, out_sharding=None)
    avals = [core.ShapedArray(a.shape, a.dtype), core.ShapedArray(b.shape, b.dtype)]
    out_aval = lax.dot_general_p.abstract_eval(*avals, **params)
    kernel = lax.dot_general_p.specialize(avals, [out_aval], **params)
    want = lax.dot_general_p.impl(a, b, **params)
    got = kernel(a, b)
    assert got.dtype == want.dtype == out_aval.dtype
    np.testing.assert_array_equal(be.to_host(got), be.to_host(want))


@pytest.mark.spec("PERF-3")
def test_compiled_programs_use_specialized_kernels():
    f = jax.jit(lambda a, b: a @ b)
    a, b = jnp.ones((2, 3)), jnp.ones((3, 4))
    run = compiler.executable_for(f.trace(a, b).jaxpr)
    kernel = run.__globals__["k_dot_general"]
    assert kernel.__qualname__.startswith("_specialize_dot_general")
    np.testing.assert_array_equal(f(a, b), np.full((2, 4), 3.0))


# -- PERF-1: eager plans -----------------------------------------------------

@pytest.fixture
def fresh_plans():
    dispatch._eager_plans.clear()
    yield dispatch._eager_plans
    dispatch._eager_plans.clear()


@pytest.mark.spec("PERF-1")
def test_eager_operations_remember_a_plan_per_signature(fresh_plans, monkeypatch):
    x = jnp.ones(8)
    calls = []
    original = lax.sin_p.abstract_eval
    monkeypatch.setattr(lax.sin_p, "abstract_eval",
                        lambda *a, **k: calls.append(1) or original(*a, **k))
    for _ in range(3):
        y = jnp.sin(x)
    assert len(calls) == 1 and len(fresh_plans) == 1
    jnp.sin(jnp.ones(4))                    # another shape: another plan
    assert len(calls) == 2 and len(fresh_plans) == 2
    assert repr(y) == repr(jnp.sin(jnp.ones(8)))


@pytest.mark.spec("PERF-1")
def test_eager_plans_build_no_jaxpr(fresh_plans, monkeypatch):
    built = []
    monkeypatch.setattr(core.Jaxpr, "__init__",
                        lambda self, *a, **k: built.append(1))
    x = jnp.ones(8)
    jnp.sin(x), x * 2, x + x, jnp.sum(x)
    assert built == []


@pytest.mark.spec("PERF-1")
def test_plans_are_dropped_when_the_configuration_changes(fresh_plans):
    x = jnp.array([1.0, 2.0])
    assert np.isinf(np.asarray(x / 0)).all()
    jax.config.update("jax_debug_nans", True)
    try:
        assert not fresh_plans
        with pytest.raises(FloatingPointError):
            jnp.log(x - 3)                  # nan: the plan checks it
    finally:
        jax.config.update("jax_debug_nans", False)
    assert np.isnan(np.asarray(jnp.log(x - 3))).all()


@pytest.mark.spec("PERF-1")
def test_overrides_take_the_general_path(fresh_plans):
    x = jnp.array([0.0])
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError):
            jnp.log(x - 1)
    assert np.isnan(np.asarray(jnp.log(x - 1))).all()


@pytest.mark.spec("PERF-1")
@pytest.mark.parametrize("value, dtype", [
    (2, jnp.float32), (2.5, jnp.float32), (7, jnp.int8), (-7, jnp.uint8),
    (3.0e38, jnp.float32), (float("nan"), jnp.float32), (float("-inf"), jnp.float32),
    (1.5, jnp.float16), (300, jnp.int8), (2 ** 20 + 1, jnp.float16),
    (16777217, jnp.float32), (1e300, jnp.float32), (2.5, jnp.int32), (3, jnp.complex64),
])
@pytest.mark.parametrize("weak", [False, True])
def test_scalar_fast_conversion_matches_the_general_path(value, dtype, weak, monkeypatch):
    dtype = np.dtype(dtype)
    with warnings.catch_warnings(record=True) as fast_warnings:
        warnings.simplefilter("always")
        fast = lax_internal._convert_element_type(value, dtype, weak)
    monkeypatch.setattr(lax_internal, "_scalar_array", lambda *args: None)
    with warnings.catch_warnings(record=True) as general_warnings:
        warnings.simplefilter("always")
        general = lax_internal._convert_element_type(value, dtype, weak)
    # Overflowing scalars warn as NumPy (and JAX) do, on either path (LAX-10).
    assert [str(w.message) for w in fast_warnings] == \
        [str(w.message) for w in general_warnings]
    assert (fast.dtype, fast.weak_type) == (general.dtype, general.weak_type) == (dtype, weak)
    np.testing.assert_array_equal(np.asarray(fast), np.asarray(general))


# -- PERF-4: import ------------------------------------------------------------

@pytest.mark.spec("PERF-4")
def test_import_loads_no_optional_library_and_defers_submodules():
    code = (
        "import sys; import refjax\n"
        "loaded = {m.split('.')[0] for m in sys.modules}\n"
        "assert not loaded & {'cupy', 'cupyx', 'scipy', 'jax', 'rich', 'autograd'}, loaded\n"
        "assert 'refjax.test_util' not in sys.modules\n"
        "assert 'refjax.scipy.special' not in sys.modules\n"
        "assert float(refjax.scipy.special.erf(0.0)) == 0.0\n"
        "assert callable(refjax.test_util.check_grads)\n"
        "print('ok')\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=root, env=dict(os.environ, REFJAX_BACKEND="numpy"))
    assert out.stdout.strip() == "ok", out.stderr
