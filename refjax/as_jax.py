"""Run existing JAX code on refjax: ``import jax`` gives refjax (SPEC API-101).

Three ways in::

    import refjax.as_jax; refjax.as_jax.install()      # then: import jax
    python -m refjax.as_jax script.py [args]           # a script
    python -m refjax.as_jax -m pytest tests/ [args]    # a module (a test suite)
    python -m refjax.as_jax -c "import jax; ..."       # a command
    pytest -p refjax.as_jax tests/                     # as a pytest plugin

After ``install()``, ``jax.numpy``, ``jax.lax``, ``jax._src.core``... are the
very module objects of ``refjax.numpy``, ``refjax.lax``, ``refjax._src.core``,
so ``isinstance(x, jax.Array)`` and every other identity check hold.  Only the
top-level ``jax`` module is a view of ``refjax`` of its own: its
``__version__`` is the JAX version refjax follows (``jax.__version__`` checks
in libraries compare against JAX's numbering), while ``refjax.__version__``
stays refjax's.
"""
import importlib
import importlib.abc
import importlib.util
import runpy
import sys
import types

# The JAX release whose behaviour refjax reproduces (README, SPEC).
JAX_VERSION = "0.10.2"


class _JaxView(types.ModuleType):
    """``jax``: every attribute is refjax's, except the version."""

    def __getattr__(self, name):
        return getattr(importlib.import_module("refjax"), name)

    def __dir__(self):
        return sorted(set(dir(importlib.import_module("refjax"))) | {"__version__", "__version_info__"})


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers ``jax.X.Y`` with the module object of ``refjax.X.Y``."""

    def __init__(self):
        self._specs = {}

    def find_spec(self, name, path=None, target=None):
        if name != "jax" and not name.startswith("jax."):
            return None
        if name != "jax" and importlib.util.find_spec("refjax" + name[3:]) is None:
            return None         # then Python's own ModuleNotFoundError
        return importlib.util.spec_from_loader(name, self, is_package=True)

    def create_module(self, spec):
        if spec.name == "jax":
            view = _JaxView("jax", __doc__)
            view.__version__ = JAX_VERSION
            view.__version_info__ = tuple(int(p) for p in JAX_VERSION.split("."))
            view.__path__ = []
            return view
        module = importlib.import_module("refjax" + spec.name[3:])
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module):
        # A refjax module is already executed: importing it under its jax
        # name must not run it twice, nor leave it renamed (the import
        # system has just set its __spec__ to the jax name's).
        original = self._specs.pop(module.__spec__.name, None)
        if original is not None:
            module.__spec__ = original


_finder = _Finder()


def installed():
    """Whether ``import jax`` gives refjax in this process."""
    return _finder in sys.meta_path


def install():
    """Make ``import jax`` (and every ``jax.X.Y``) give refjax's modules.

    Call it before anything imports JAX: a process that already holds the
    real ``jax`` cannot mix the two, and this raises ``RuntimeError``.
    Calling it twice does nothing the second time.
    """
    if installed():
        return
    real = sys.modules.get("jax")
    if real is not None and not isinstance(real, _JaxView):
        raise RuntimeError(
            "refjax.as_jax.install() was called after the real `jax` was "
            "imported; call it first (or run the program with "
            "`python -m refjax.as_jax ...`), so that every `import jax` "
            "gives refjax.")
    importlib.import_module("refjax")
    sys.meta_path.insert(0, _finder)


def pytest_configure(config):
    """``pytest -p refjax.as_jax``: alias before any test module is imported."""
    install()


def main(argv=None):
    """``python -m refjax.as_jax SCRIPT [ARGS]``, ``-m MODULE [ARGS]`` or
    ``-c COMMAND [ARGS]``, as ``python`` itself takes them."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or argv in (["-m"], ["-c"]):
        print("usage: python -m refjax.as_jax SCRIPT [ARGS...]\n"
              "       python -m refjax.as_jax -m MODULE [ARGS...]\n"
              "       python -m refjax.as_jax -c COMMAND [ARGS...]\n"
              "Runs the program with `import jax` giving refjax.")
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    install()
    if argv[0] == "-m":
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    elif argv[0] == "-c":
        sys.argv = ["-c", *argv[2:]]
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
    else:
        sys.argv = argv
        runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    # Run by ``python -m``: use the package's copy of this module, so that
    # ``refjax.as_jax.installed()`` inside the program sees the same finder.
    from refjax import as_jax
    sys.exit(as_jax.main())
