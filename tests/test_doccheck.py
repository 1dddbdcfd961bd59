"""``python -m refjax.doccheck``: documentation pages run cell by cell on
refjax and on JAX and compared (SPEC API-102..API-106), on tiny pages
written here."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from refjax._src import doccheck

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# refjax prints 1.0000001 where JAX prints 1.0, and True where JAX prints
# False: one cell within rounding and one that differs, whatever the two
# implementations compute.
MYST_PAGE = textwrap.dedent("""\
    ---
    jupytext:
      formats: ipynb,md:myst
    ---
    # A page

    ```{code-cell} ipython3
    import jax
    import jax.numpy as jnp
    x = jnp.arange(3.0)
    x * 2
    ```

    Some text.

    ```{code-cell} ipython3
    :tags: [raises-exception]

    print("before")
    1 / 0
    ```

    ````{code-cell}
    ---
    tags: [hide-output]
    ---
    on_refjax = jax.numpy.__name__.startswith("refjax")
    print(1.0000001 if on_refjax else 1.0)
    ````

    ```{code-cell}
    print(on_refjax)
    ```

    ```{code-cell}
    print(object())
    ```

    ```{code-cell}
    %timeit x + 1
    ```

    ```{code-cell}
    :tags: [skip-execution]
    import this_module_does_not_exist
    ```
    """)


def notebook(*sources):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# title\n"]}]
    cells += [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
               "source": source.splitlines(keepends=True)} for source in sources]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def run_tool(*args, cwd):
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, "-m", "refjax.doccheck", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.spec("API-102")
def test_myst_cells_options_and_fences():
    cells = doccheck.myst_cells(MYST_PAGE)
    assert [c.source.splitlines()[0] for c in cells] == [
        "import jax", "", "on_refjax = jax.numpy.__name__.startswith(\"refjax\")",
        "print(on_refjax)", "print(object())", "%timeit x + 1", "import this_module_does_not_exist"]
    assert cells[1].tags == ("raises-exception",) and cells[2].tags == ("hide-output",)
    assert cells[0].line == 7 and cells[-1].tags == ("skip-execution",)


@pytest.mark.spec("API-102")
def test_find_pages_pairs_and_notebooks(tmp_path):
    (tmp_path / "a.md").write_text(MYST_PAGE)
    (tmp_path / "a.ipynb").write_text(notebook("1"))          # a's jupytext twin
    (tmp_path / "prose.md").write_text("# no code cells\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.ipynb").write_text(notebook("x = 1", "x + 1"))
    pages = doccheck.find_pages([str(tmp_path)])
    assert [os.path.relpath(p, tmp_path) for p in pages] == ["a.md", os.path.join("sub", "b.ipynb")]
    assert [c.source for c in doccheck.page_cells(pages[1])] == ["x = 1", "x + 1"]
    with pytest.raises(SystemExit, match="no such file"):
        doccheck.find_pages([str(tmp_path / "missing")])


@pytest.mark.spec("API-103")
def test_cells_run_like_a_notebook():
    namespace = {"__name__": "__main__"}
    run = lambda source: doccheck.run_cell(source, namespace)   # noqa: E731
    assert run("x = [1, 2]\nprint('hi')\nx") == {"output": "hi\n[1, 2]\n", "error": None}
    assert run("x;") == {"output": "", "error": None}
    assert run("!ls\nfor i in x:\n    %time i\n    print(i)\nNone") == {
        "output": "1\n2\n", "error": None}
    assert run("%%bash\necho no") == {"output": "", "error": None}
    assert run("print('a')\nx[5]") == {"output": "a\n", "error": "IndexError: list index out of range"}
    assert run("import warnings; warnings.warn('careful')")["output"] == "UserWarning: careful\n"
    assert run("raise SystemExit(3)")["error"] == "SystemExit: 3"
    assert run("x")["output"] == "[1, 2]\n"      # the state survives a raising cell


@pytest.mark.spec("API-104")
@pytest.mark.parametrize("source, refjax_out, jax_out, expected", [
    ("x", "Array([1., 2.], dtype=float32)\n", "Array([1., 2.], dtype=float32)\n", "identical"),
    ("x", "[0.        0.841471  0.9092974]\n", "[0.         0.84147096 0.9092974 ]\n", "rounding"),
    ("x", "1.0000001\n", "1.0\n", "rounding"),
    ("x", "[1.e-08 1.e+00]\n", "[0. 1.]\n", "rounding"),
    ("x", "1.001\n", "1.0\n", "differs"),
    ("x", "(3, 4)\n", "(3, 5)\n", "differs"),           # integers are exact
    ("x", "float32\n", "float64\n", "differs"),
    ("x", "Array(1., dtype=float32)\n", "Array(1., dtype=float32, weak_type=True)\n", "differs"),
    ("x", "<function f at 0x7f00aa11>\n", "<function f at 0x7f00bb22>\n", "not comparable"),
    ("x", "module @jit_f {}", "module @jit_f attributes {}\n  func.func public @main", "not comparable"),
    ("%timeit f(x)", "1 ms per loop", "2 ms per loop", "not comparable"),
    ("x", "failed\nTraceback (most recent call last):\n  File \"refjax/a.py\", line 1\n    f()\n"
          "SystemExit: 0\n",
     "failed\nTraceback (most recent call last):\n  File \"jax/b.py\", line 9, in g\n"
     "SystemExit: 0\n", "identical"),
    ("x", "Traceback (most recent call last):\n  File \"a.py\"\nKeyError: 1\n",
     "Traceback (most recent call last):\n  File \"b.py\"\nSystemExit: 0\n", "differs"),
])
def test_classify(source, refjax_out, jax_out, expected):
    record = lambda out: {"output": out, "error": None}       # noqa: E731
    assert doccheck.classify(source, record(refjax_out), record(jax_out))[0] == expected


@pytest.mark.spec("API-104")
def test_raising_cells_compare_output_and_exception_class():
    jax_rec = {"output": "a\n", "error": "TypeError: JAX's words"}
    assert doccheck.classify("f()", {"output": "a\n", "error": "TypeError: refjax's words"},
                             jax_rec)[0] == "identical"
    assert doccheck.classify("f()", {"output": "a\n", "error": "ValueError: x"}, jax_rec)[0] == "differs"
    assert doccheck.classify("f()", {"output": "a\n", "error": None}, jax_rec)[0] == "differs"


@pytest.mark.spec("API-105")
def test_only_refjax_on_myst_and_notebook_pages(tmp_path):
    (tmp_path / "page.md").write_text(MYST_PAGE)
    (tmp_path / "nb.ipynb").write_text(notebook(
        "import jax.numpy as jnp\nimport jax", "print(jax.grad(jnp.sin)(0.0))", "undefined_name",
        "import numpy as np\nprint(repr(np.random.rand()))"))
    out = run_tool(str(tmp_path), "--only", "refjax", "--json", "r.json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    rows = {os.path.basename(r["page"]): r["cells"] for r in json.loads((tmp_path / "r.json").read_text())}
    page, nb = rows["page.md"], rows["nb.ipynb"]
    assert len(page) == 7 and "jax" not in page[0] and "class" not in page[0]
    assert page[0]["refjax"] == {"output": "Array([0., 2., 4.], dtype=float32)\n", "error": None}
    assert page[1]["refjax"] == {"output": "before\n", "error": "ZeroDivisionError: division by zero"}
    assert page[3]["refjax"]["output"] == "True\n"
    seeded = repr(np.random.RandomState(0).rand())      # the runner seeds NumPy with 0
    assert [c["refjax"]["output"] for c in nb] == ["", "1.0\n", "", seeded + "\n"]
    assert nb[2]["refjax"]["error"].startswith("NameError")
    assert page[6]["refjax"]["error"].startswith("ModuleNotFoundError")   # skip-execution runs
    table = out.stdout.splitlines()
    assert table[0].split() == ["page", "cells", "ran", "raised"]
    assert table[1].split() == ["nb.ipynb", "4", "3", "1"]
    assert table[3].split() == ["total", "11", "8", "3"]


@pytest.mark.spec("API-106")
def test_timeout_keeps_the_cells_that_ran(tmp_path):
    (tmp_path / "slow.ipynb").write_text(notebook("print('done')", "import time\ntime.sleep(60)", "1"))
    out = run_tool("slow.ipynb", "--only", "refjax", "--timeout", "20", "--json", "r.json",
                   cwd=tmp_path)
    cells = json.loads((tmp_path / "r.json").read_text())[0]["cells"]
    assert out.returncode == 0
    assert cells[0]["refjax"] == {"output": "done\n", "error": None}
    assert [c["refjax"]["error"].split(":")[0] for c in cells[1:]] == ["TimeoutError"] * 2


@pytest.mark.spec("API-105")
def test_against_jax(tmp_path):
    # Real JAX is in the test extra (CI installs it).
    (tmp_path / "page.md").write_text(MYST_PAGE)
    out = run_tool("page.md", "--json", "r.json", cwd=tmp_path)
    assert out.returncode == 1, out.stderr          # one comparable cell differs
    cells = json.loads((tmp_path / "r.json").read_text())[0]["cells"]
    assert [c["class"] for c in cells] == [
        "identical", "identical", "rounding", "differs", "not comparable", "not comparable",
        "identical"]
    assert [c["reason"] for c in cells[4:6]] == ["memory address", "timing (%timeit/%time)"]
    assert cells[3]["jax"]["output"] == "False\n" and cells[3]["refjax"]["output"] == "True\n"
    lines = out.stdout.splitlines()
    assert lines[1].split() == ["page.md", "7", "3", "1", "1", "2"]
    assert any(line.startswith("differs: page.md:") and "print(on_refjax)" in line for line in lines)
    assert "memory address" in out.stdout
