"""Run documentation pages cell by cell on refjax and on JAX, and compare
(SPEC API-102..API-106).

This module imports only the standard library: the same file is the cell
runner that each child process executes (``--run-cells``), under ``python
-m refjax.as_jax`` for refjax and under plain ``python`` for JAX, so running
it must not import refjax (nor put ``refjax/_src`` on ``sys.path``: the
children are started with ``-P``).
"""
import argparse
import ast
import builtins
import contextlib
import dataclasses
import io
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

IMPLEMENTATIONS = ("refjax", "jax")
CLASSES = IDENTICAL, ROUNDING, DIFFERS, NOT_COMPARABLE = (
    "identical", "rounding", "differs", "not comparable")
REFJAX_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ---------------------------------------------------------------- pages ---

_FENCE = re.compile(r"^(`{3,}|~{3,})\{code-cell\}")
_OPTION = re.compile(r"^:[\w-]+:")


@dataclasses.dataclass
class Cell:
    """One code cell: its source, its line in the page (1-based; the cell's
    index for a notebook) and its tags."""
    source: str
    line: int
    tags: tuple = ()


def _myst_options(body):
    """Split a MyST cell body into (tags, code): a leading ``---`` YAML
    block or ``:key: value`` lines are options, not code."""
    options = []
    if body and body[0].strip() == "---":
        end = next((i for i in range(1, len(body)) if body[i].strip() == "---"), 0)
        options, body = body[1:end], body[end + 1:]
    else:
        while body and _OPTION.match(body[0]):
            options.append(body.pop(0))
    tags = []
    for option in options:
        key, _, value = option.strip().lstrip(":").partition(":")
        if key.strip() == "tags":
            tags += re.findall(r"[\w-]+", value)
    return tuple(tags), body


def myst_cells(text):
    """The ```{code-cell}`` blocks of a MyST page, in order (SPEC API-102)."""
    cells, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        i += 1
        if not match:
            continue
        fence, start, body = match.group(1), i, []
        while i < len(lines) and not (lines[i].strip().startswith(fence)
                                      and set(lines[i].strip()) == {fence[0]}):
            body.append(lines[i])
            i += 1
        i += 1
        tags, code = _myst_options(body)
        cells.append(Cell("\n".join(code), start, tags))
    return cells


def notebook_cells(text):
    """The code cells of an ``.ipynb`` notebook, in order (SPEC API-102)."""
    cells = []
    for index, cell in enumerate(json.loads(text).get("cells", []), 1):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        tags = tuple(cell.get("metadata", {}).get("tags", ()))
        cells.append(Cell(source, index, tags))
    return cells


def page_cells(path):
    """The code cells of a page, ``.md`` (MyST) or ``.ipynb``."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return notebook_cells(text) if path.endswith(".ipynb") else myst_cells(text)


def find_pages(paths):
    """The pages named or found under ``paths`` (SPEC API-102)."""
    pages = []
    for path in paths:
        if os.path.isdir(path):
            pages += _pages_under(path)
        elif os.path.exists(path):
            pages.append(path)
        else:
            raise SystemExit(f"doccheck: no such file or folder: {path}")
    return pages


def _pages_under(root):
    """Under a folder an ``.md`` file counts only if it has code cells, and
    a notebook paired with such a MyST page (``x.ipynb`` beside ``x.md``, as
    jupytext keeps them) is the same page, so it is skipped."""
    pages = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_build")))
        mysts = {name[:-3] for name in files
                 if name.endswith(".md") and page_cells(os.path.join(folder, name))}
        for name in sorted(files):
            stem, ext = os.path.splitext(name)
            if (ext == ".md" and stem in mysts) or (ext == ".ipynb" and stem not in mysts):
                pages.append(os.path.join(folder, name))
    return pages


# ---------------------------------------------------------- cell runner ---

_MAGIC = re.compile(r"^(\s*)[%!]")


def _strip_magics(source):
    """The cell without IPython magics and shell escapes (``%``/``!`` lines
    become ``pass``); None for a cell magic (``%%``), which is not Python."""
    if source.lstrip().startswith("%%"):
        return None
    return "\n".join(_MAGIC.sub(r"\1pass  # ", line) for line in source.splitlines())


def _show_warning(message, category, filename, lineno, file=None, line=None):
    # Where a warning comes from differs between the implementations; what
    # it says is what a notebook reader sees and what is compared.
    sys.stderr.write(f"{category.__name__}: {message}\n")


def _execute(source, namespace):
    """Run a cell like IPython: the value of a last bare expression is
    printed with ``repr`` unless the cell ends with ``;`` or it is None."""
    tree = ast.parse(source, "<cell>")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not source.rstrip().endswith(";"):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, "<cell>", "exec"), namespace)
    if last is not None:
        value = eval(compile(last, "<cell>", "eval"), namespace)
        if value is not None:
            print(repr(value))


def _effects_barrier():
    jax = sys.modules.get("jax")
    if jax is not None and hasattr(jax, "effects_barrier"):
        jax.effects_barrier()


def run_cell(source, namespace):
    """Run one cell; its record is ``{"output": stdout and stderr,
    "error": "Class: message" or None}`` (SPEC API-103)."""
    code = _strip_magics(source)
    buffer, error = io.StringIO(), None
    warnings.showwarning = _show_warning
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        try:
            if code is not None:
                _execute(code, namespace)
            _effects_barrier()
        except BaseException as e:      # noqa: B036 -- a cell may even sys.exit()
            if isinstance(e, KeyboardInterrupt):
                raise
            error = type(e).__name__ + (f": {e}" if str(e) else "")
    return {"output": buffer.getvalue(), "error": error}


def _seed_global_generators():
    # Pages that draw unseeded numbers (np.random.randn) then give both
    # implementations the same inputs.
    random.seed(0)
    try:
        import numpy
    except ImportError:
        return
    numpy.random.seed(0)


def _reseed_after_importing_jax():
    """Seed again once ``import jax`` has first run: importing JAX draws
    from NumPy's global generator and importing refjax does not."""
    original = builtins.__import__

    def importing(name, *args, **kwargs):
        first = "jax" not in sys.modules
        module = original(name, *args, **kwargs)
        if first and "jax" in sys.modules:
            builtins.__import__ = original
            _seed_global_generators()
        return module
    builtins.__import__ = importing


def run_cells(cells_file, out_file):
    """The child process: run the cells of ``cells_file`` (a JSON list of
    sources) in one namespace, appending each record to ``out_file`` as a
    JSON line as soon as it is known (so a timeout keeps what ran)."""
    with open(cells_file, encoding="utf-8") as f:
        sources = json.load(f)
    _seed_global_generators()
    _reseed_after_importing_jax()
    namespace = {"__name__": "__main__"}
    with open(out_file, "w", encoding="utf-8") as out:
        for source in sources:
            out.write(json.dumps(run_cell(source, namespace)) + "\n")
            out.flush()


# ------------------------------------------------------------- running ---

def _command(impl, jax_python):
    runner = [os.path.abspath(__file__), "--run-cells"]
    if impl == "refjax":
        return [sys.executable, "-P", "-m", "refjax.as_jax", *runner]
    return [jax_python or sys.executable, "-P", *runner]


def _environment(impl):
    env = dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg")
    env.setdefault("JAX_PLATFORMS", "cpu")
    if impl == "refjax":
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (REFJAX_ROOT, os.environ.get("PYTHONPATH")) if p)
    return env


def _read_records(path, count, rc, stderr, timed_out):
    """The child's records, completed for the cells it never finished."""
    records = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.endswith("\n")]
    reason = ("TimeoutError: the page ran past --timeout" if timed_out
              else f"ProcessExit: the process ended (status {rc}): {stderr[-300:].strip()}")
    while len(records) < count:
        records.append({"output": "", "error": reason})
    return records


def run_page(cells, impls, timeout, jax_python=None):
    """Run a page's cells in one fresh process per implementation, the
    implementations side by side; ``{impl: [record per cell]}``
    (SPEC API-103, API-106)."""
    sources = [c.source for c in cells]
    with tempfile.TemporaryDirectory(prefix="doccheck-") as tmp:
        cells_file = os.path.join(tmp, "cells.json")
        with open(cells_file, "w", encoding="utf-8") as f:
            json.dump(sources, f)
        children = {impl: _start(impl, jax_python, cells_file, tmp) for impl in impls}
        deadline = time.monotonic() + timeout
        return {impl: _finish(child, deadline, len(sources))
                for impl, child in children.items()}


def _start(impl, jax_python, cells_file, tmp):
    """Start ``impl``'s process in a folder of its own; (process, records
    file, stderr file)."""
    workdir = os.path.join(tmp, impl)
    os.mkdir(workdir)
    out, err = os.path.join(tmp, impl + ".jsonl"), os.path.join(tmp, impl + ".err")
    with open(err, "w") as stderr:
        process = subprocess.Popen(
            [*_command(impl, jax_python), cells_file, out], cwd=workdir,
            env=_environment(impl), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=stderr)
    return process, out, err


def _finish(child, deadline, count):
    process, out, err = child
    try:
        process.wait(timeout=max(0.0, deadline - time.monotonic()))
        timed_out = False
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        timed_out = True
    with open(err, encoding="utf-8", errors="replace") as f:
        stderr = f.read()
    return _read_records(out, count, process.returncode, stderr, timed_out)


# ----------------------------------------------------------- comparing ---

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_HLO = re.compile(r"HloModule|\bstablehlo\.|\bmhlo\.|\bfunc\.func\b|^module @|\bENTRY\b", re.M)
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
_TRACEBACK = re.compile(r"^Traceback \(most recent call last\):\n(?:[ \t]+.*\n)*", re.M)
_TIMING = re.compile(r"^\s*%%?timeit\b|^\s*%%?time\b", re.M)


def comparable_text(record):
    """What is compared of a cell: its output, then the class of the
    exception it raised (messages are each implementation's own), with the
    frames of printed tracebacks left out (they show each implementation's
    own files)."""
    text = _TRACEBACK.sub("Traceback (most recent call last):\n  ...\n", record["output"])
    if record["error"]:
        text += "raises " + record["error"].partition(":")[0]
    return text


def _numbers(text):
    skeleton = "".join(_NUMBER.sub("#", text).split())
    return skeleton, _NUMBER.findall(text)


def _close(a, b, rtol):
    if not any(c in s for s in (a, b) for c in ".eE"):
        return int(a) == int(b)        # integers are exact: shapes, counts, ints
    return math.isclose(float(a), float(b), rel_tol=rtol, abs_tol=rtol / 10)


def within_rounding(a, b, rtol=1e-5):
    """Whether two outputs differ only in their numbers, each within
    ``rtol`` relatively (layout whitespace ignored) (SPEC API-104)."""
    (skeleton_a, numbers_a), (skeleton_b, numbers_b) = _numbers(a), _numbers(b)
    return (skeleton_a == skeleton_b and len(numbers_a) == len(numbers_b)
            and all(_close(x, y, rtol) for x, y in zip(numbers_a, numbers_b)))


def not_comparable(source, jax_record):
    """Why a cell is not comparable (None if it is): it times code, or JAX
    printed HLO/StableHLO/XLA text or a memory address (SPEC API-104)."""
    text = jax_record["output"] + (jax_record["error"] or "")
    if _TIMING.search(source):
        return "timing (%timeit/%time)"
    if _HLO.search(text):
        return "HLO/StableHLO/XLA text"
    if _ADDRESS.search(text):
        return "memory address"
    return None


def classify(source, refjax_record, jax_record, rtol=1e-5):
    """``(class, reason)`` of one cell (SPEC API-104)."""
    reason = not_comparable(source, jax_record)
    if reason:
        return NOT_COMPARABLE, reason
    a, b = comparable_text(refjax_record), comparable_text(jax_record)
    if a == b:
        return IDENTICAL, ""
    if within_rounding(a, b, rtol):
        return ROUNDING, ""
    return DIFFERS, ""


# ------------------------------------------------------------ checking ---

def check_page(path, impls, timeout, jax_python=None):
    """One page's result: its cells with each implementation's record and,
    when both ran, the cell's class (SPEC API-103, API-104)."""
    cells = page_cells(path)
    records = run_page(cells, impls, timeout, jax_python)
    rows = []
    for i, cell in enumerate(cells):
        row = {"line": cell.line, "source": cell.source,
               **{impl: records[impl][i] for impl in impls}}
        if len(impls) == 2:
            row["class"], row["reason"] = classify(cell.source, row["refjax"], row["jax"])
        rows.append(row)
    return {"page": path, "cells": rows}


def _clip(text, limit=600):
    text = text.rstrip("\n")
    return text if len(text) <= limit else text[:limit] + f" ... [{len(text) - limit} more]"


def _indent(text, prefix="      "):
    return "\n".join(prefix + line for line in (text or "(no output)").splitlines())


def format_table(results, impls):
    """The per-page table (SPEC API-105): with both implementations the
    cells of each class, with one the cells that ran and that raised."""
    heads = CLASSES if len(impls) == 2 else ("ran", "raised")
    width = max([len(os.path.basename(r["page"])) for r in results] + [5])
    lines = [f"{'page':<{width}}  {'cells':>5}  " + "  ".join(heads)]
    totals = [0] * (len(heads) + 1)
    for result in results:
        counts = [len(result["cells"]), *_counts(result["cells"], impls)]
        totals = [t + c for t, c in zip(totals, counts)]
        lines.append(_row(os.path.basename(result["page"]), width, counts, heads))
    lines.append(_row("total", width, totals, heads))
    return "\n".join(lines)


def _counts(rows, impls):
    if len(impls) == 2:
        return [sum(row["class"] == head for row in rows) for head in CLASSES]
    ran = sum(row[impls[0]]["error"] is None for row in rows)
    return [ran, len(rows) - ran]


def _row(name, width, counts, heads):
    return (f"{name:<{width}}  {counts[0]:>5}  "
            + "  ".join(f"{c:>{len(h)}}" for c, h in zip(counts[1:], heads)))


def format_cells(results):
    """The differing cells with both outputs, and the cells not compared
    with why (SPEC API-105)."""
    lines = []
    for kind in (DIFFERS, NOT_COMPARABLE):
        for result in results:
            for row in result["cells"]:
                if row.get("class") != kind:
                    continue
                first = (row["source"].strip().splitlines() or [""])[0]
                lines.append(f"{kind}: {result['page']}:{row['line']}: {first[:70]}"
                             + (f"  [{row['reason']}]" if row["reason"] else ""))
                if kind == DIFFERS:
                    for impl in ("jax", "refjax"):
                        lines.append(f"    {impl}:")
                        lines.append(_indent(_clip(comparable_text(row[impl])
                                                   + _message(row[impl]))))
    return "\n".join(lines)


def _message(record):
    return f" ({record['error']})" if record["error"] else ""


def main(argv=None):
    """``python -m refjax.doccheck PATH... [--only refjax|jax] [--timeout S]
    [--json F] [--jax-python EXE]`` (SPEC API-102..API-106). Exits 1 if a
    comparable cell differs."""
    parser = argparse.ArgumentParser(
        prog="python -m refjax.doccheck",
        description="Run documentation pages (MyST .md with {code-cell} blocks, "
                    ".ipynb) cell by cell on refjax and on JAX and compare the outputs.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a page or a folder of pages")
    parser.add_argument("--only", choices=IMPLEMENTATIONS, help="run one implementation only")
    parser.add_argument("--timeout", type=float, default=900, metavar="S",
                        help="seconds each page may run (default 900)")
    parser.add_argument("--json", metavar="F", help="write every cell's outputs and class to F")
    parser.add_argument("--jax-python", metavar="EXE",
                        help="the Python that has JAX (default: this one)")
    args = parser.parse_args(argv)
    impls = (args.only,) if args.only else IMPLEMENTATIONS
    results = []
    for page in find_pages(args.paths):
        print(f"doccheck: {page}", file=sys.stderr, flush=True)
        results.append(check_page(page, impls, args.timeout, args.jax_python))
    print(format_table(results, impls))
    details = format_cells(results)
    if details:
        print("\n" + details)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    differs = any(row.get("class") == DIFFERS for r in results for row in r["cells"])
    return 1 if differs else 0


if __name__ == "__main__" and sys.argv[1:2] == ["--run-cells"]:
    try:
        run_cells(*sys.argv[2:4])
    except Exception:
        traceback.print_exc()
        sys.exit(2)
