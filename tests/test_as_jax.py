"""``refjax.as_jax``: running JAX programs and test suites on refjax
(SPEC API-101).  Each case runs in a fresh interpreter, since the alias
changes what ``import jax`` means for the whole process."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROGRAM = textwrap.dedent("""
    import sys
    import jax, jax.numpy as jnp, refjax, refjax.numpy
    import jax._src.core
    import refjax.as_jax
    assert jnp is refjax.numpy and jax.lax is refjax.lax
    assert jax._src.core is sys.modules["refjax._src.core"]
    assert isinstance(jnp.ones(2), jax.Array) and isinstance(jnp.ones(2), refjax.Array)
    assert refjax.numpy.__spec__.name == "refjax.numpy"
    assert refjax.as_jax.installed()
    assert jax.__version_info__ == tuple(int(p) for p in jax.__version__.split("."))
    assert "__version_info__" in dir(jax)
    print(jax.__version__, refjax.__version__, float(jax.grad(jnp.sin)(0.0)), sys.argv[1:])
""")


def _run(args, cwd, **kwargs):
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, **kwargs)


@pytest.mark.spec("API-101")
def test_script_runs_with_jax_as_refjax(tmp_path):
    from refjax import as_jax
    from refjax._src.version import __version__
    (tmp_path / "prog.py").write_text(PROGRAM)
    out = _run(["-m", "refjax.as_jax", "prog.py", "a", "b"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [as_jax.JAX_VERSION, __version__, "1.0", "['a',", "'b']"]


@pytest.mark.spec("API-101")
def test_module_runs_with_jax_as_refjax(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    out = _run(["-m", "refjax.as_jax", "-m", "prog", "x"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-1] == "['x']"
    command = _run(["-m", "refjax.as_jax", "-c", PROGRAM, "y"], tmp_path)
    assert command.returncode == 0, command.stderr
    assert command.stdout.split()[-1] == "['y']"


@pytest.mark.spec("API-101")
def test_install_in_process(tmp_path):
    code = "import refjax.as_jax as a; a.install(); a.install()\n" + PROGRAM
    out = _run(["-c", code], tmp_path)
    assert out.returncode == 0, out.stderr


@pytest.mark.spec("API-101")
def test_pytest_plugin_and_module_form(tmp_path):
    (tmp_path / "test_user.py").write_text(textwrap.dedent("""
        import jax, jax.numpy as jnp
        def test_on_refjax():
            import refjax
            assert jnp is refjax.numpy
            assert float(jax.jit(lambda x: x * 3)(2.0)) == 6.0
    """))
    flags = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "test_user.py"]
    for args in (["-m", "pytest", "-p", "refjax.as_jax", *flags],
                 ["-m", "refjax.as_jax", "-m", "pytest", *flags]):
        out = _run(args, tmp_path)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "1 passed" in out.stdout


@pytest.mark.spec("API-101")
def test_missing_jax_module_and_usage(tmp_path):
    code = ("import refjax.as_jax as a; a.install()\n"
            "try:\n    import jax.no_such_module\nexcept ModuleNotFoundError as e:\n"
            "    print('missing', e.name)\n")
    out = _run(["-c", code], tmp_path)
    assert out.stdout.strip() == "missing jax.no_such_module", out.stderr
    usage = _run(["-m", "refjax.as_jax"], tmp_path)
    assert usage.returncode == 2 and "usage" in usage.stdout


@pytest.mark.spec("API-101")
def test_install_after_real_jax_is_refused(tmp_path):
    if importlib.util.find_spec("jax") is None:     # the test extra installs JAX
        pytest.skip("real JAX is not installed (pip install -e .[test])")
    code = ("import jax, refjax.as_jax as a\n"
            "try:\n    a.install()\nexcept RuntimeError as e:\n    print('refused')\n")
    out = _run(["-c", code], tmp_path)
    assert out.stdout.strip() == "refused", out.stderr
