"""The active backend (SPEC BE-1, BE-2).

``get()`` is the one way the rest of refjax reaches array kernels.  The
backend is chosen by the ``refjax_backend`` option (or ``REFJAX_BACKEND``)
and loaded on first use, so importing refjax never imports CuPy.
"""
import importlib
import importlib.util
import os
import sys

from refjax._src import config as _config

_active = None
# Called with each backend when it becomes active: the device layer starts
# its client then, so the device count is fixed at the first operation, as
# JAX fixes it when its backend starts (SPEC SHD-105).
_on_start = []


def _backends_package():
    """Import ``refjax.backends``.

    An installed refjax has it (pyproject maps ``backends/`` there); in a
    source checkout it is the top-level ``backends/`` directory next to
    ``refjax/``, which we load under the same name.
    """
    name = "refjax.backends"
    if name in sys.modules:
        return sys.modules[name]
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
    here = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
    path = os.path.join(here, "backends")
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(path, "__init__.py"),
        submodule_search_locations=[path])
    if spec is None:
        raise ImportError(f"cannot find refjax.backends (looked in {path})")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def select(name):
    """Make backend ``name`` active; raises RuntimeError if it cannot run."""
    global _active
    _active = _backends_package().load(name)
    for hook in _on_start:
        hook(_active)
    return _active


def get():
    """The active backend, loading the configured one on first use."""
    if _active is None:
        return select(refjax_backend.value)
    return _active


def _switch_backend(option, value):
    select(value)


refjax_backend = _config._define(
    "refjax_backend", "numpy", ("numpy", "cupy"), env="REFJAX_BACKEND",
    on_update=_switch_backend,
    help="Array library that runs primitive kernels (refjax only).")
