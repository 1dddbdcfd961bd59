"""The conformance harness.

Every test here receives the implementation under test through the ``jax``
fixture (``refjax`` by default, ``--impl=jax`` for real JAX, or any importable
module name), so one test body runs against any JAX-like library.  Each test
cites the SPEC.md clause it checks with ``@pytest.mark.spec("AREA-N")``;
collection fails for a test that cites nothing.
"""
import importlib
import warnings

import pytest

# Sharding, pmap and shard_map tests need several devices; JAX (and refjax)
# fix the device count when the backend first starts, so it is set as soon as
# pytest is configured, before any test module runs an operation (SPEC SHD-1).
NUM_DEVICES = 8


def pytest_configure(config):
    try:
        module = importlib.import_module(config.getoption("--impl"))
        module.config.update("jax_num_cpu_devices", NUM_DEVICES)
    except Exception:  # noqa: BLE001 -- a library without the option, or
        pass           # one already started: its device tests say so.


def pytest_collection_modifyitems(config, items):
    missing = [item.nodeid for item in items
               if "conformance" in item.nodeid.split("::")[0]
               and item.get_closest_marker("spec") is None]
    if missing:
        raise pytest.UsageError(
            "conformance tests must cite a SPEC.md clause with "
            "@pytest.mark.spec(...); missing on:\n  " + "\n  ".join(missing))


@pytest.fixture(scope="session")
def impl_name(request):
    return request.config.getoption("--impl")


@pytest.fixture(scope="session")
def jax(impl_name):
    """The top module of the implementation under test."""
    try:
        module = importlib.import_module(impl_name)
    except ImportError as e:
        pytest.exit(f"--impl={impl_name}: cannot import it ({e})", returncode=4)
    # Submodules that `import jax` alone may not load.
    for sub in ("numpy", "lax", "tree_util", "tree", "dtypes", "errors"):
        try:
            importlib.import_module(f"{impl_name}.{sub}")
        except ImportError:
            pass
    return module


@pytest.fixture(scope="session")
def impl_module(impl_name):
    """``impl_module("extend.core")``: that submodule of the implementation."""
    return lambda name: importlib.import_module(f"{impl_name}.{name}")


@pytest.fixture(scope="session")
def jnp(jax):
    return jax.numpy


@pytest.fixture(scope="session")
def test_util(jax):
    """The implementation's ``jax.test_util`` (``check_grads``...)."""
    return importlib.import_module(jax.__name__ + ".test_util")


@pytest.fixture(scope="session")
def special(jax):
    """The implementation's ``jax.scipy.special``."""
    return importlib.import_module(jax.__name__ + ".scipy.special")


@pytest.fixture
def x64(jax):
    """Run the test with jax_enable_x64 on, restoring the previous value."""
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", old)


@pytest.fixture(autouse=True)
def _restore_x32(jax):
    """Each test starts with the default configuration (x64 off)."""
    old = jax.config.jax_enable_x64
    if old:
        jax.config.update("jax_enable_x64", False)
    yield
    jax.config.update("jax_enable_x64", old)


@pytest.fixture
def no_warnings():
    """Fail the test if it emits any warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


@pytest.fixture(scope="session")
def oracle():
    """refjax itself, as the reference for differential tests: a test
    compares the implementation under test (``jax``) with it value for
    value.  On ``--impl=refjax`` such a test checks self-consistency."""
    return importlib.import_module("refjax")


@pytest.fixture
def partitionable(jax, request):
    """Run the test under both ``jax_threefry_partitionable`` settings
    (parametrize indirectly with ``True``/``False``), restoring the flag."""
    import refjax
    old = jax.config.jax_threefry_partitionable
    jax.config.update("jax_threefry_partitionable", request.param)
    refjax.config.update("jax_threefry_partitionable", request.param)
    try:
        yield request.param
    finally:
        jax.config.update("jax_threefry_partitionable", old)
        refjax.config.update("jax_threefry_partitionable", old)
