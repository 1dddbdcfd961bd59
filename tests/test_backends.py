"""The backend layer (SPEC BE-1, BE-2, BE-3)."""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

import refjax
from refjax._src import backend

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAVE_CUPY = importlib.util.find_spec("cupy") is not None


def _run(code, **env):
    base = {k: v for k, v in os.environ.items() if k != "REFJAX_BACKEND"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**base, **env}, cwd=ROOT)


@pytest.mark.spec("BE-1")
def test_backend_interface_is_importable_under_refjax():
    from refjax.backends import REGISTRY, Backend
    assert set(REGISTRY) == {"numpy", "cupy"}
    assert issubclass(type(backend.get()), Backend)
    assert refjax.backends.Backend is Backend


@pytest.mark.spec("BE-1")
def test_numpy_backend_is_default_and_arrays_hold_its_buffers():
    # In a fresh interpreter: this session may run on REFJAX_BACKEND=cupy.
    result = _run("import numpy as np, refjax\n"
                  "from refjax._src import backend\n"
                  "be = backend.get()\n"
                  "x = refjax.numpy.arange(4)\n"
                  "print(be.name, be.platform, be.xp is np, be.is_array(x._value),\n"
                  "      be.to_host(x._value).tolist())")
    assert result.stdout.strip() == "numpy cpu True True [0, 1, 2, 3]", result.stderr


@pytest.mark.spec("BE-1")
@pytest.mark.parametrize("kernel, expected", [
    ("scatter_add", [1.0, 9.0, 4.0]),
    ("scatter_mul", [1.0, 12.0, 4.0]),
    ("scatter_min", [1.0, 1.0, 4.0]),
    ("scatter_max", [1.0, 4.0, 4.0]),
])
def test_scatter_kernels_accumulate_duplicates(kernel, expected):
    be = backend.get()
    target = be.asarray(np.array([1.0, 1.0, 4.0]))
    out = getattr(be, kernel)(target, (be.asarray(np.array([1, 1, 1])),),
                              be.asarray(np.array([3.0, 4.0, 1.0])))
    np.testing.assert_array_equal(be.to_host(out), expected)


@pytest.mark.spec("BE-2")
def test_unknown_backend_is_a_value_error():
    before = refjax.config.refjax_backend
    with pytest.raises(ValueError, match="unknown refjax backend 'torch'"):
        refjax.backends.load("torch")
    with pytest.raises(ValueError, match="new enum value must be in"):
        refjax.config.update("refjax_backend", "torch")
    assert refjax.config.refjax_backend == before


@pytest.mark.spec("BE-2")
def test_import_does_not_load_cupy():
    result = _run("import sys, refjax, refjax.numpy as jnp; jnp.ones(2); "
                  "print('cupy' in sys.modules)")
    assert result.stdout.strip() == "False", result.stderr


@pytest.mark.spec("BE-2")
@pytest.mark.skipif(HAVE_CUPY, reason="CuPy (or its stand-in) is importable here; "
                    "the missing-CuPy error cannot occur (the GPU run covers "
                    "the CuPy backend)")
def test_choosing_cupy_without_cupy_is_a_clear_runtime_error():
    with pytest.raises(RuntimeError, match="needs CuPy, which is not installed"):
        refjax.config.update("refjax_backend", "cupy")
    assert refjax.config.refjax_backend == "numpy"
    assert backend.get().name == "numpy"
    result = _run("import refjax.numpy as jnp; jnp.ones(2)", REFJAX_BACKEND="cupy")
    assert result.returncode != 0
    assert "RuntimeError: The 'cupy' backend needs CuPy" in result.stderr


@pytest.mark.spec("BE-3")
def test_pyproject_lists_every_package():
    import tomllib
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        config = tomllib.load(f)["tool"]["setuptools"]
    listed = set(config["packages"])
    on_disk = {"refjax"} | {
        "refjax." + os.path.relpath(d, os.path.join(ROOT, "refjax")).replace(os.sep, ".")
        for d, _, files in os.walk(os.path.join(ROOT, "refjax"))
        if "__init__.py" in files and d != os.path.join(ROOT, "refjax")}
    assert on_disk | {"refjax.backends"} == listed
    assert config["package-dir"]["refjax.backends"] == "backends"


@pytest.mark.spec("BE-3")
def test_wheel_has_no_top_level_backends(tmp_path):
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                             "--no-build-isolation", "-w", str(tmp_path), ROOT],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    import zipfile
    (wheel,) = tmp_path.glob("refjax-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "refjax/backends/__init__.py" in names
    assert "refjax/backends/cupy_backend.py" in names
    assert not any(n.startswith("backends/") for n in names)
    tops = {n.split("/")[0] for n in names}
    assert tops <= {"refjax", f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info"}


def _pytest_on_cupy(*args, **env):
    """``pytest`` on one small test file with REFJAX_BACKEND=cupy."""
    base = {k: v for k, v in os.environ.items()
            if k not in ("REFJAX_BACKEND", "REFJAX_CUPY_STANDIN", "PYTHONPATH")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:randomly",
         "-p", "no:cacheprovider", "tests/test_tree_util_internals.py", *args],
        capture_output=True, text=True, cwd=ROOT,
        env={**base, "REFJAX_BACKEND": "cupy", **env})


@pytest.mark.spec("BE-5")
@pytest.mark.skipif(HAVE_CUPY, reason="CuPy (or its stand-in) is importable here; "
                    "the missing-CuPy skip cannot occur")
def test_pytest_skips_everything_when_cupy_is_missing():
    result = _pytest_on_cupy()
    assert result.returncode == 0, result.stdout[-2000:]
    summary = result.stdout.strip().splitlines()[-1]
    assert " skipped" in summary and "passed" not in summary, summary
    assert ("REFJAX_BACKEND=cupy requested but unavailable: The 'cupy' backend "
            "needs CuPy, which is not installed here") in result.stdout


@pytest.mark.spec("BE-5")
def test_pytest_skips_everything_when_no_gpu_is_visible():
    # The stand-in with 0 GPUs plays a machine whose driver sees none.
    result = _pytest_on_cupy(REFJAX_CUPY_STANDIN="1", REFJAX_CUPY_STANDIN_GPUS="0")
    assert result.returncode == 0, result.stdout[-2000:]
    summary = result.stdout.strip().splitlines()[-1]
    assert " skipped" in summary and "passed" not in summary, summary
    assert "needs a CUDA GPU, but none is visible" in result.stdout
