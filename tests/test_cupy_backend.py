"""The CuPy backend's code paths, run on the NumPy-backed stand-in for CuPy
(SPEC BE-4 .. BE-7).

This is *not* a GPU run.  ``tests/cupy_standin`` imitates CuPy's interface
and its refusals (no implicit device-to-host conversion, no NumPy operands in
kernels, ``ufunc.accumulate`` only for add/multiply, 2-D ``lexsort``...) and
simulates two GPUs, so these tests catch refjax code that would break on
CuPy and check per-device placement.  Each check runs in a fresh interpreter
with ``REFJAX_BACKEND=cupy`` and the stand-in first on the path, so the
session's own backend is untouched.
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STANDIN = os.path.join(HERE, "cupy_standin")


def _run_cupy(code, gpus=2, check=True):
    """Run ``code`` on the CuPy backend over the stand-in; its stdout."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("REFJAX_BACKEND", "REFJAX_CUPY_STANDIN_GPUS")}
    env.update(REFJAX_BACKEND="cupy", REFJAX_CUPY_STANDIN_GPUS=str(gpus),
               PYTHONPATH=os.pathsep.join([STANDIN, ROOT]))
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                            capture_output=True, text=True, env=env, cwd=ROOT)
    if check:
        assert result.returncode == 0, result.stderr[-3000:]
    return result


@pytest.mark.spec("BE-4")
def test_standin_refuses_what_cupy_refuses():
    """The stand-in is only useful if it fails where CuPy fails."""
    out = _run_cupy("""
        import numpy as np, cupy
        x = cupy.arange(3.0)
        def refused(f):
            try:
                f()
            except (TypeError, NotImplementedError, AttributeError) as e:
                return type(e).__name__ + ": " + str(e)
            return "accepted"
        print(refused(lambda: np.asarray(x)))
        print(refused(lambda: x + np.ones(3)))
        print(refused(lambda: cupy.maximum.accumulate(x)))
        print(refused(lambda: x.tobytes()))
        print(type(x.sum()).__name__, type(np.sum(x)).__name__)
    """).stdout.splitlines()
    assert out[0].startswith("TypeError: Implicit conversion to a NumPy array")
    assert out[1] == "TypeError: Unsupported type <class 'numpy.ndarray'>"
    assert out[2].startswith("NotImplementedError: `cupy_maximum.accumulate`")
    assert out[3].startswith("AttributeError")
    assert out[4] == "ndarray ndarray"


@pytest.mark.spec("BE-4")
def test_arrays_hold_device_buffers_and_convert_explicitly():
    out = _run_cupy("""
        import numpy as np, cupy, refjax, refjax.numpy as jnp
        x = jnp.arange(6.0).reshape(2, 3)
        y = (x * 2).sum(axis=0)
        print(type(x._value) is cupy.ndarray, type(y._value) is cupy.ndarray)
        print(np.asarray(y).tolist(), float(y[1]), repr(y))
        print(refjax.default_backend())
    """).stdout.splitlines()
    assert out == ["True True", "[6.0, 10.0, 14.0] 10.0 "
                   "Array([ 6., 10., 14.], dtype=float32)", "gpu"]


@pytest.mark.spec("BE-7")
def test_one_device_per_gpu_printed_as_jax_prints_them():
    out = _run_cupy("""
        import refjax as jax
        d = jax.devices()
        print(d, str(d[1]), d[0].platform, jax.device_count(), d[0].device_kind)
    """, gpus=3).stdout.strip()
    assert out == ("[CudaDevice(id=0), CudaDevice(id=1), CudaDevice(id=2)] "
                   "cuda:1 gpu 3 Stand-in GPU (NumPy, not CUDA)")


@pytest.mark.spec("BE-7")
def test_device_put_copies_the_buffer_onto_that_gpu():
    out = _run_cupy("""
        import refjax as jax, refjax.numpy as jnp
        x = jnp.arange(4.0)
        d1 = jax.devices()[1]
        y = jax.device_put(x, d1)
        z = y + 1
        print(x._value.device.id, y._value.device.id, z._value.device.id)
        print(y.devices() == {d1}, z.devices() == {d1}, z.tolist())
    """).stdout.splitlines()
    assert out == ["0 1 1", "True True [1.0, 2.0, 3.0, 4.0]"]


@pytest.mark.spec("BE-7")
def test_sharded_arrays_keep_each_block_on_its_gpu():
    out = _run_cupy("""
        import numpy as np, refjax as jax, refjax.numpy as jnp
        from refjax.sharding import Mesh, NamedSharding, PartitionSpec as P
        mesh = Mesh(np.array(jax.devices()), ("x",))
        x = jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P("x")))
        for s in x.addressable_shards:
            print(s.device.id, s.data._value.device.id, s.data.tolist())
        print((x * 2).sum().item())
    """).stdout.splitlines()
    assert out == ["0 0 [0.0, 1.0, 2.0, 3.0]", "1 1 [4.0, 5.0, 6.0, 7.0]", "56.0"]


# Each entry: an expression on ``x`` (float32 [3, 5] with NaNs, ties and
# signed zeros), ``i`` (int32 [3, 5]), ``k`` (a PRNG key) and ``a`` (a
# positive-definite float32 [2, 3, 3] stack), evaluated on both backends.
_CASES = {
    "sort_two_keys": "lax.sort((x, i), dimension=1, num_keys=2)",
    "top_k": "lax.top_k(x, 3)",
    "argsort": "jnp.argsort(x, axis=0)",
    "cummax": "lax.cummax(x, axis=1)",
    "cummin_rev": "lax.cummin(x, axis=0, reverse=True)",
    "cumlogsumexp": "lax.cumlogsumexp(jnp.nan_to_num(x), axis=1)",
    "reduce_and": "lax.reduce_and(i, (0,))",
    "reduce_or": "lax.reduce_or(i, (0, 1))",
    "reduce_xor": "lax.reduce_xor(i, (1,))",
    "scatter_add": "jnp.zeros(4).at[jnp.array([1, 1, 3])].add(2.0)",
    "scatter_mul": "jnp.ones(4).at[jnp.array([1, 1, 3])].multiply(3.0)",
    "scatter_mul_transposed":
        "(2 * jnp.ones((3, 4))).T.at[jnp.array([1, 1, 2])].multiply(3.0)",
    "scatter_min": "jnp.zeros(4).at[jnp.array([2, 2, 0])].min(jnp.array([-1., -5., 2.]))",
    "scatter_max": "jnp.zeros(4).at[jnp.array([2, 2, 0])].max(jnp.array([1., 5., -2.]))",
    "erf": "lax.erf(x)",
    "erfinv": "lax.erf_inv(jnp.array([-1., -0.5, 0., 0.999, 1., 2.]))",
    "lgamma_edges": "lax.lgamma(jnp.array([0., -2., jnp.inf, -jnp.inf, 0.5]))",
    "digamma_edges": "lax.digamma(jnp.array([0., -2., jnp.inf, -jnp.inf, 0.5]))",
    "random_bits": "jax.random.bits(k, (6,))",
    "random_normal": "jax.random.normal(k, (4,))",
    "cholesky": "jnp.linalg.cholesky(a)",
    "cholesky_fails_to_nan": "jnp.linalg.cholesky(-a)",
    "solve_singular": "jnp.linalg.solve(jnp.zeros((3, 3)), jnp.ones(3))",
    "eigh": "jnp.linalg.eigh(a)[0]",
    "svd": "jnp.linalg.svd(a, compute_uv=False)",
    "qr_r_abs": "jnp.abs(jnp.linalg.qr(a)[1])",
    "conv": "lax.conv(x[None, None], jnp.ones((2, 1, 2, 2)), (1, 1), 'SAME')",
    "cond": "lax.cond(x[0, 0] > 0, lambda v: v + 1, lambda v: v - 1, x)",
    "while": "lax.while_loop(lambda c: c < 10, lambda c: c * 2, 1)",
    "convert": "jnp.array([jnp.nan, 1e10, -3.7]).astype(jnp.int32)",
}

_SETUP = """
import numpy as np
import refjax as jax, refjax.numpy as jnp
from refjax import lax
x = jnp.array([[0.5, -0.0, 0.0, np.nan, 2.0], [1.0, 1.0, -np.inf, 3.0, -2.0],
               [np.nan, 0.5, 7.0, -1.0, 1.0]], jnp.float32)
i = jnp.array([[5, 3, 3, 1, 0], [6, 3, 2, 1, 7], [4, 4, 12, 9, 1]], jnp.int32)
k = jax.random.key(42)
m = jnp.array([[4., 1., 0.], [1., 3., 1.], [0., 1., 2.]])
a = jnp.stack([m, m * 2 + jnp.eye(3)])

def values(case):
    out = eval(case)
    if isinstance(out, (list, tuple)):
        return [np.asarray(o).tolist() for o in out]
    return np.asarray(out).tolist()
"""


def _values_here(case):
    scope = {}
    exec(_SETUP, scope)
    return json.loads(json.dumps(scope["values"](case)))


@pytest.fixture(scope="module")
def cupy_values():
    code = _SETUP + textwrap.dedent(f"""
        import json
        print(json.dumps({{name: values(expr) for name, expr in {_CASES!r}.items()}}))
    """)
    return json.loads(_run_cupy(code).stdout)


@pytest.mark.spec("BE-6")
@pytest.mark.parametrize("name", sorted(_CASES))
def test_kernels_agree_with_the_numpy_backend(cupy_values, name):
    """Every primitive family gives the NumPy backend's values on CuPy's
    code paths: threefry bit for bit, special functions and linear algebra
    to float32 rounding (cupyx works in the input's precision)."""
    here = np.asarray(_values_here(_CASES[name]), dtype=object)
    there = np.asarray(cupy_values[name], dtype=object)
    np.testing.assert_allclose(np.asarray(there.tolist(), dtype=float),
                               np.asarray(here.tolist(), dtype=float),
                               rtol=2e-6, atol=1e-6)


@pytest.mark.spec("BE-6")
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_portable_kernel_defaults_match_numpy(dtype):
    """The Backend defaults (written with basic array operations for CuPy)
    agree with NumPy's one-call spellings."""
    from refjax.backends import Backend
    from refjax.backends.numpy_backend import NumpyBackend
    be = NumpyBackend()
    rng = np.random.default_rng(0)
    x = rng.integers(-3, 4, size=(4, 7, 5)).astype(dtype)
    if dtype == np.float32:
        x[0, 1, 2] = x[2, 3, 0] = np.nan
    keys = [x[..., 0, :], rng.integers(0, 2, size=(4, 5))]
    np.testing.assert_array_equal(Backend.lexsort(be, keys), be.lexsort(keys))
    for op in ("maximum", "minimum"):
        for axis in range(3):
            np.testing.assert_array_equal(Backend.cumulative(be, op, x, axis),
                                          be.cumulative(op, x, axis))
    if dtype == np.int32:
        for op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
            for axes in [(0,), (1, 2), (0, 1, 2), ()]:
                np.testing.assert_array_equal(Backend.reduce(be, op, x, axes),
                                              be.reduce(op, x, axes))
        empty = np.zeros((3, 0), np.uint8)
        np.testing.assert_array_equal(Backend.reduce(be, "bitwise_and", empty, (1,)),
                                      [255, 255, 255])


@pytest.mark.spec("BE-5")
def test_no_visible_gpu_is_a_clear_runtime_error():
    result = _run_cupy("import refjax.numpy as jnp; jnp.ones(2)", gpus=0,
                       check=False)
    assert result.returncode != 0
    assert ("RuntimeError: The 'cupy' backend needs a CUDA GPU, but none is "
            "visible") in result.stderr

