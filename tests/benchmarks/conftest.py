"""Record what report.py prints in its header into the benchmark JSON.

pytest-benchmark stores ``machine_info`` in every ``--benchmark-json``
file; this adds the CPU model, core count, OS, the library versions, the
backends, the settings that change timings and the exact command, so that
a table rebuilt later from the JSON (``report.py --json FILE``) describes
the run that produced it.
"""
import importlib.metadata
import importlib.util
import os
import platform
import shlex
import sys

TIMING_ENV = ("OPENBLAS_NUM_THREADS", "XLA_FLAGS", "REFJAX_BACKEND", "REFJAX_CUPY_STANDIN")
PACKAGES = ("numpy", "autograd", "jax", "jaxlib", "cupy-cuda12x", "pytest-benchmark")


def cpu_model():
    """The ``model name`` line of /proc/cpuinfo, else what platform knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(package):
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _devices(module_name):
    """The platform (and device kind, when it says more) of the first device
    of an already-imported JAX-like module: ``cpu``, ``gpu (NVIDIA H100)``."""
    module = sys.modules.get(module_name)
    if module is None:
        return None
    try:
        device = module.devices()[0]
    except RuntimeError as e:  # e.g. REFJAX_BACKEND=cupy without a GPU
        return f"unavailable ({e})"
    kind = device.device_kind
    return device.platform if kind.lower() == device.platform else f"{device.platform} ({kind})"


def command():
    """The command line that ran pytest, with the timing-relevant settings."""
    env = [f"{k}={shlex.quote(os.environ[k])}" for k in TIMING_ENV if k in os.environ]
    return " ".join(env + [shlex.join(sys.orig_argv)])


def describe_run():
    """What report.py's header shows about this run."""
    return {
        "cpu_model": cpu_model(), "cores": os.cpu_count(), "os": platform.platform(),
        "python": platform.python_version(),
        "versions": {p: v for p in PACKAGES if (v := _version(p)) is not None},
        "refjax_backend": os.environ.get("REFJAX_BACKEND", "numpy"),
        "refjax_device": _devices("refjax"), "jax_device": _devices("jax"),
        "timing_env": {k: os.environ[k] for k in TIMING_ENV if k in os.environ},
        "command": command(),
    }


if importlib.util.find_spec("pytest_benchmark") is not None:
    def pytest_benchmark_update_machine_info(config, machine_info):
        machine_info["refjax_bench"] = describe_run()


# -- timings only when asked for ---------------------------------------------
# A plain `pytest` runs each benchmark once, as a test, with no timing rounds
# and no table (pytest-benchmark's --benchmark-disable); these options ask
# for the timings (SPEC BE-13).
TIMING_OPTIONS = ("benchmark_enable", "benchmark_only", "benchmark_json", "benchmark_save",
                  "benchmark_autosave", "benchmark_compare", "benchmark_histogram")


def timings_requested(config):
    return any(config.getoption(name, None) for name in TIMING_OPTIONS)


if importlib.util.find_spec("pytest_benchmark") is not None:
    import pytest

    @pytest.hookimpl(trylast=True)     # after pytest-benchmark made its session
    def pytest_configure(config):
        session = getattr(config, "_benchmarksession", None)
        if session is not None and not timings_requested(config):
            session.disabled = True
