"""``python -m tests.mutation [--only ID ...] [--jobs N]``: the mutation tool.

For each selected mutant of tests/mutation/catalogue.py: copy the checkout's
``refjax/`` (with ``backends/``), ``conformance/`` and ``tests/`` to a
temporary directory, plant the mutant, and run its test files there with
``pytest -x -q -p no:randomly``, ``PYTHONPATH`` and the working directory
pointing at the copy (the guard plugin, tests/mutation/guard.py, checks
that the tests really imported the copy).  A failing run kills the mutant;
a passing one lets it survive; a run past ``--timeout`` counts as killed
(the suite notices a hang) and is shown as ``timeout``.  Prints a table and
the score: killed / (mutants - equivalent ones) (SPEC MUT-1 .. MUT-4).

First, the union of the selected mutants' tests runs on an unmutated copy;
tests failing there (another change in progress) are deselected from every
mutant's run, so they cannot kill a mutant.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from tests.mutation import catalogue
from tests.mutation.guard import WRONG_COPY
from tests.mutation.planting import ROOT, PlantError, checkout_path, copy_refjax, plant

_TREE_FILES = ("conftest.py", "pyproject.toml", "SPEC.md")
_TREE_DIRS = ("conformance", "tests")
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", "benchmarks")


class Result:
    def __init__(self, mutant, status, seconds, detail=""):
        self.mutant, self.status, self.seconds, self.detail = mutant, status, seconds, detail

    @property
    def detected(self):
        return self.status in ("killed", "timeout")


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m tests.mutation", description=__doc__.split("\n")[0])
    p.add_argument("--only", nargs="+", metavar="ID", help="run only these mutants")
    p.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    p.add_argument("--timeout", type=float, default=180.0,
                   help="seconds a mutant's test run may take (default 180)")
    p.add_argument("--no-baseline", action="store_true",
                   help="skip the run of the tests on the unmutated copy")
    p.add_argument("--list", action="store_true", help="list the catalogue and exit")
    p.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown")
    p.add_argument("--keep", action="store_true", help="keep the temporary copies")
    return p.parse_args(argv)


def select(only):
    """The mutants to run; an unknown id is an error."""
    if not only:
        return list(catalogue.MUTANTS)
    table = catalogue.by_id()
    unknown = [i for i in only if i not in table]
    if unknown:
        sys.exit(f"unknown mutant id(s): {', '.join(unknown)} (see --list)")
    return [table[i] for i in only]


def check_applies(mutants):
    """Every mutant's original text must occur exactly once in the checkout;
    otherwise stop before running anything, naming each stale mutant."""
    stale = []
    for m in mutants:
        try:
            with open(checkout_path(m.file)) as f:
                n = f.read().count(m.old)
        except FileNotFoundError:
            n = None
        if n != 1:
            where = "file missing" if n is None else f"found {n} times"
            stale.append(f"  {m.id}: original text in refjax/{m.file}: {where}")
    if stale:
        sys.exit("mutants that no longer apply (their text must occur exactly once; "
                 "update tests/mutation/catalogue.py):\n" + "\n".join(stale))


def make_tree(parent):
    """The tree a test run needs, copied under ``parent``; returns its path."""
    os.makedirs(parent)
    for d in _TREE_DIRS:
        shutil.copytree(os.path.join(ROOT, d), os.path.join(parent, d), ignore=_IGNORE)
    for f in _TREE_FILES:
        shutil.copy2(os.path.join(ROOT, f), parent)
    copy_refjax(parent)
    return parent


def run_pytest(tree, tests, timeout, deselect=(), failures_file=None):
    """(return code or None on timeout, output) of pytest on ``tests`` in ``tree``."""
    env = dict(os.environ, PYTHONPATH=tree, REFJAX_MUTATION_COPY=tree,
               OPENBLAS_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
    env.pop("REFJAX_MUTATION_FAILURES", None)
    if failures_file:
        env["REFJAX_MUTATION_FAILURES"] = failures_file
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
           "-p", "tests.mutation.guard", *tests]
    if failures_file is None:
        cmd.insert(3, "-x")
    for node in deselect:
        cmd += ["--deselect", node]
    try:
        done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out
    out = done.stdout + done.stderr
    if done.returncode == WRONG_COPY:
        sys.exit(f"the tests did not import the copy in {tree}:\n{out[-3000:]}")
    return done.returncode, out


def baseline(mutants, workdir, timeout):
    """Node ids (and files) failing on the unmutated copy."""
    tests = sorted({t for m in mutants for t in m.tests})
    tree = make_tree(os.path.join(workdir, "baseline"))
    failures = os.path.join(workdir, "baseline-failures.txt")
    open(failures, "w").close()
    start = time.monotonic()
    rc, out = run_pytest(tree, tests, timeout * 4, failures_file=failures)
    with open(failures) as f:
        failing = sorted(set(f.read().split()))
    print(f"baseline: {len(tests)} test files on the unmutated copy, "
          f"{time.monotonic() - start:.0f} s, {len(failing)} failing"
          + ("" if rc is not None else " (timed out)"))
    for node in failing:
        print(f"  deselected (fails unmutated): {node}")
    shutil.rmtree(tree, ignore_errors=True)
    return failing


def _first_failure(out):
    """The first failing node id of a pytest run, else its last line."""
    m = re.search(r"^(FAILED|ERROR) (\S+)", out, re.M)
    if m:
        return m.group(2)
    lines = out.strip().splitlines()
    return lines[-1][:120] if lines else ""


def run_mutant(m, workdir, timeout, failing, keep):
    """Plant ``m`` in a fresh copy and run its tests."""
    tree = make_tree(os.path.join(workdir, m.id))
    start = time.monotonic()
    try:
        plant(os.path.join(tree, "refjax"), m.file, m.old, m.new, m.id)
        broken_files = {f for f in failing if "::" not in f}
        tests = [t for t in m.tests if t not in broken_files]
        if not tests:
            return Result(m, "error", 0.0, "every test file fails unmutated")
        deselect = [f for f in failing if "::" in f]
        rc, out = run_pytest(tree, tests, timeout, deselect)
    except PlantError as e:
        return Result(m, "error", 0.0, str(e).splitlines()[0])
    finally:
        if not keep:
            shutil.rmtree(tree, ignore_errors=True)
    seconds = time.monotonic() - start
    if rc is None:
        return Result(m, "timeout", seconds, f"over {timeout:.0f} s")
    if rc == 0:
        return Result(m, "survived", seconds)
    if rc == 5:
        return Result(m, "error", seconds, "no tests collected")
    return Result(m, "killed", seconds, _first_failure(out))


def score(results):
    """(detected, counted, percent) over the mutants not marked equivalent."""
    counted = [r for r in results if not r.mutant.equivalent]
    detected = sum(r.detected for r in counted)
    return detected, len(counted), 100.0 * detected / len(counted) if counted else 100.0


def table(results):
    rows = [("id", "area", "result", "seconds", "killed by / note")]
    for r in results:
        note = r.detail
        if r.mutant.equivalent:
            note = "equivalent: " + r.mutant.equivalent
        rows.append((r.mutant.id, r.mutant.area, r.status, f"{r.seconds:.1f}", note))
    return rows


def print_table(rows):
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[4])


def write_markdown(path, rows, summary):
    with open(path, "w") as f:
        f.write("| " + " | ".join(rows[0]) + " |\n|" + "---|" * len(rows[0]) + "\n")
        for row in rows[1:]:
            f.write("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |\n")
        f.write(f"\n{summary}\n")


def main(argv=None):
    args = parse_args(argv)
    mutants = select(args.only)
    if args.list:
        for m in mutants:
            print(f"{m.id:34} refjax/{m.file:36} {m.description}")
        return 0
    check_applies(mutants)
    workdir = tempfile.mkdtemp(prefix="refjax-mutation-")
    try:
        failing = [] if args.no_baseline else baseline(mutants, workdir, args.timeout)
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            futures = [pool.submit(run_mutant, m, workdir, args.timeout, failing, args.keep)
                       for m in mutants]
            results = []
            for m, fut in zip(mutants, futures):
                r = fut.result()
                results.append(r)
                print(f"[{len(results)}/{len(mutants)}] {m.id}: {r.status} "
                      f"({r.seconds:.1f} s)", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"copies kept in {workdir}")
    rows = table(results)
    print()
    print_table(rows)
    detected, counted, pct = score(results)
    equivalent = len(results) - counted
    summary = (f"Mutation score: {detected}/{counted} = {pct:.1f} % "
               f"({len(results)} mutants, {equivalent} equivalent, "
               f"{sum(r.status == 'survived' and not r.mutant.equivalent for r in results)} "
               "survived)")
    print("\n" + summary)
    wrong = [r.mutant.id for r in results if r.mutant.equivalent and r.detected]
    if wrong:
        print("marked equivalent but killed (fix the catalogue): " + ", ".join(wrong))
    errors = [r.mutant.id for r in results if r.status == "error"]
    if errors:
        print("errors: " + ", ".join(errors))
    if args.markdown:
        write_markdown(args.markdown, rows, summary)
    return 0 if detected == counted and not wrong and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
