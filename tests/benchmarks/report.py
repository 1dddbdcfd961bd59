"""Run the benchmarks and print the table that README.md's "Benchmarks" shows.

    python tests/benchmarks/report.py                 # run them, print the table
    python tests/benchmarks/report.py --json FILE     # table of an earlier run
    python tests/benchmarks/report.py -k mlp          # a quick partial run

It runs ``python -m pytest tests/benchmarks --benchmark-only
--benchmark-json=FILE`` in a subprocess with one BLAS thread
(``OPENBLAS_NUM_THREADS=1``) and XLA pinned to one thread too, so that the
hand-written NumPy, autograd, JAX and refjax rows compare like with like;
pytest's own output goes to stderr.  Then it prints, on stdout, a header
(date, machine, versions, backend, the exact command) and one markdown row
per benchmark: a column per implementation, ratios to NumPy where the work
is the same arithmetic, and whether refjax meets its goal.  Goals and labels
are read from each result's ``extra_info`` (see bench_impls.tag), and the
machine from the JSON's ``machine_info`` (see conftest.py), so a table
rebuilt from an old JSON describes the run that produced it.
"""
import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ONE_THREAD_XLA = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
COLUMNS = ("numpy", "autograd", "jax", "refjax")

# Row titles for the README, by ``extra_info["bench"]``, in table order;
# a benchmark not listed here gets its pytest-benchmark group as title.
TITLES = {
    "eager_sin": "eager `sin(x)`, 8 × float32",
    "jit_call": "warmed-up `jit(lambda x: x * 2 + 1)` call, 8 × float32",
    "import": "`import MODULE` (fresh interpreter, minus `python -c pass`)",
    "mlp_first_call": "first call of a fresh `jit(step)` of the MLP training step below: "
                      "trace + compile + run",
    "mlp_step": "MLP training step (loss, grads, SGD update), 784-512-512-10 tanh, "
                "batch 128, float32, softmax cross-entropy",
    "per_example": "per-example gradients, 32-64-64-10 tanh MLP, batch 128, float32",
    "rnn_scan": "`value_and_grad` of a 100-step `scan` RNN (tanh, 32 → 64, batch 16), float32",
    "random_normal": "`random.normal(key, (100000,))`, eager, float32",
    "random_split": "`random.split(key, 1000)`",
}
# Benchmarks doing the same arithmetic in every row: these get "× NumPy".
RATIO_BENCHES = {"mlp_step", "per_example", "rnn_scan"}
# Where a row's number needs a word of explanation.
NOTES = {("mlp_first_call", "numpy"): "a plain call: nothing to compile",
         ("mlp_first_call", "autograd"): "a plain call: nothing to compile",
         ("mlp_step", "numpy"): "forward + backward + update by hand",
         ("rnn_scan", "numpy"): "backprop through time by hand",
         ("rnn_scan", "autograd"): "Python loop for `scan`"}
MAIN_VARIANT = "vmap"  # when a column has several variants, the one ratios use


def run_benchmarks(json_path, extra_args):
    """Run the benchmark directory once; returns the pytest exit status."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {ONE_THREAD_XLA}".strip()
    cmd = [sys.executable, "-m", "pytest", "tests/benchmarks", "--benchmark-only",
           f"--benchmark-json={json_path}", "-q", "-p", "no:randomly", *extra_args]
    print("running:", shlex.join(cmd), file=sys.stderr)
    return subprocess.run(cmd, cwd=ROOT, env=env, stdout=sys.stderr).returncode


# -- numbers ------------------------------------------------------------------

def fmt_time(seconds):
    """Seconds with three significant digits in a readable unit."""
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if abs(seconds) >= scale or unit == "ns":
            value = seconds / scale
            digits = 0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 2
            return f"{value:.{digits}f} {unit}"


def fmt_limit(seconds):
    """A goal's time limit as written: 3 µs, 0.1 s."""
    if seconds >= 0.01:
        return f"{seconds:g} s"
    unit, scale = ("ms", 1e-3) if seconds >= 1e-3 else ("µs", 1e-6)
    return f"{seconds / scale:g} {unit}"


def fmt_ratio(ratio):
    return f"{ratio:.2f}×" if ratio < 10 else f"{ratio:.0f}×"


class Row:
    """One benchmark result: its implementation, variant and time."""

    def __init__(self, result, stat):
        info = result["extra_info"]
        self.bench = info.get("bench") or result["group"]
        self.group, self.impl = result["group"], info.get("implementation", result["name"])
        self.variant, self.goal = info.get("variant"), info.get("goal")
        # import timings include the interpreter's start-up; take it off
        self.seconds = result["stats"][stat] - info.get("startup_s", 0.0)


def load_rows(data, stat):
    """``{bench: [Row, ...]}`` in table order."""
    rows = {}
    for result in data["benchmarks"]:
        row = Row(result, stat)
        rows.setdefault(row.bench, []).append(row)
    rank = {bench: i for i, bench in enumerate(TITLES)}
    return dict(sorted(rows.items(), key=lambda kv: rank.get(kv[0], len(rank))))


def main_row(rows, impl):
    """``impl``'s row in a benchmark, preferring the main variant."""
    mine = [r for r in rows if r.impl == impl]
    preferred = [r for r in mine if r.variant == MAIN_VARIANT]
    return (preferred or mine or [None])[0]


# -- cells --------------------------------------------------------------------

def cell(rows, impl):
    """The table cell of column ``impl``: its time(s), ratio to NumPy, note."""
    mine = sorted((r for r in rows if r.impl == impl), key=lambda r: r.variant != MAIN_VARIANT)
    if not mine:
        return "—"
    numpy = main_row(rows, "numpy")
    parts = []
    for r in mine:
        text = fmt_time(r.seconds)
        if r.variant:
            text = f"{r.variant} {text}"
        if r.bench in RATIO_BENCHES and numpy is not None and impl != "numpy":
            text += f" ({fmt_ratio(r.seconds / numpy.seconds)} NumPy)"
        parts.append(text)
    note = NOTES.get((mine[0].bench, impl))
    return "; ".join(parts) + (f", {note}" if note else "")


def goal_cell(rows):
    """refjax's goal for this benchmark and whether this run meets it."""
    owner = next((r for r in rows if r.impl == "refjax" and r.goal), None)
    if owner is None:
        return "—"
    return "; ".join(_goal_part(key, value, owner, rows) for key, value in owner.goal.items())


def _verdict(met, detail=""):
    word = "met" if met else "**not met**"
    return f"{word} ({detail})" if detail else word


def _goal_part(key, value, owner, rows):
    if key == "max_s":
        return f"≤ {fmt_limit(value)}: {_verdict(owner.seconds <= value)}"
    if key == "max_ratio_to_numpy":
        numpy = main_row(rows, "numpy")
        if numpy is None:
            return f"≤ {value}× NumPy: no NumPy row"
        ratio = owner.seconds / numpy.seconds
        return f"≤ {value}× NumPy: {_verdict(ratio <= value, f'{ratio:.3f}×')}"
    if key == "faster_than":
        other = main_row(rows, value)
        if other is None:
            return f"faster than {value}: no {value} row"
        return f"faster than {value}: {_verdict(owner.seconds < other.seconds)}"
    if key == "min_speedup_over_loop":
        loop = next((r for r in rows if r.impl == "refjax" and r.variant == "loop"), None)
        if loop is None:
            return f"{owner.variant} ≥ {value}× faster than a loop: no loop row"
        speedup = loop.seconds / owner.seconds
        return (f"{owner.variant} ≥ {value}× faster than the loop: "
                f"{_verdict(speedup >= value, fmt_ratio(speedup))}")
    return f"{key} = {value}: not evaluated"


# -- the table ----------------------------------------------------------------

def header(data, argv):
    """Date, machine, versions, backend and commands of the run."""
    machine = data["machine_info"]
    info, cpu = machine.get("refjax_bench", {}), machine.get("cpu", {})
    when = datetime.datetime.fromisoformat(data["datetime"]).strftime("%Y-%m-%d %H:%M %Z")
    model = info.get("cpu_model") or cpu.get("brand_raw", "unknown CPU")
    if "Hz" not in model and cpu.get("hz_advertised_friendly"):
        model += f" ({cpu['hz_advertised_friendly']})"
    cores = info.get("cores") or cpu.get("count", "?")
    system = info.get("os") or f"{machine.get('system', '?')} {machine.get('release', '')}"
    python = info.get("python") or machine.get("python_version", "?")
    versions = ", ".join(f"{k} {v}" for k, v in info.get("versions", {}).items())
    commit = data.get("commit_info") or {}
    rev = (commit.get("id") or "?")[:10]
    rev += " with uncommitted changes" if commit.get("dirty") else ""
    report_cmd = shlex.join(["python", os.path.relpath(__file__, ROOT), *argv])
    return "\n".join([
        f"Measured {when} on {model}, {cores} cores, {system.strip()}, Python {python}"
        + (f"; {versions}." if versions else "."),
        f"refjax backend: {info.get('refjax_backend', '?')} (device: {info.get('refjax_device')}); "
        f"JAX device: {info.get('jax_device')}; refjax commit {rev}.",
        f"Command: `{report_cmd}`, which ran `{info.get('command', '?')}`.",
    ])


def column_titles(data):
    """``NumPy 2.4.6``, ``JAX 0.10.2 (CPU)``, ``refjax (numpy)``, ..."""
    info = data["machine_info"].get("refjax_bench", {})
    versions = info.get("versions", {})
    device = (info.get("jax_device") or "").split(" ")[0].rstrip(":").upper()
    titles = {"numpy": "NumPy", "autograd": "autograd", "jax": "JAX"}
    titles = {k: f"{v} {versions.get(k, '')}".strip() for k, v in titles.items()}
    if device:
        titles["jax"] += f" ({device})"
    titles["refjax"] = f"refjax ({info.get('refjax_backend', 'numpy')})"
    return titles


def table(data, stat):
    titles = column_titles(data)
    lines = ["| benchmark | " + " | ".join(titles[c] for c in COLUMNS) + " | refjax goal |",
             "| --- " * (len(COLUMNS) + 2) + "|"]
    for bench, rows in load_rows(data, stat).items():
        cells = [TITLES.get(bench, rows[0].group)] + [cell(rows, c) for c in COLUMNS]
        lines.append("| " + " | ".join(cells + [goal_cell(rows)]) + " |")
    return "\n".join(lines)


def read_results(path):
    """The benchmark JSON at ``path``, or None when it holds no results
    (pytest-benchmark leaves the file empty when every benchmark skipped)."""
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return None
    data = json.loads(text) if text.strip() else None
    return data if data and data.get("benchmarks") else None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", help="build the table from this benchmark JSON, no run")
    parser.add_argument("--out", help="where the new run writes its JSON (default: a temp file)")
    parser.add_argument("--stat", default="median", choices=("min", "median", "mean"),
                        help="which statistic of each benchmark's rounds to show")
    parser.add_argument("-k", dest="keyword", help="only the benchmarks pytest -k selects")
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    json_path = args.json
    if json_path is None:
        json_path = args.out or os.path.join(tempfile.mkdtemp(prefix="refjax-bench-"),
                                             "benchmarks.json")
        status = run_benchmarks(json_path, ["-k", args.keyword] if args.keyword else [])
        if status:
            print(f"pytest exited with status {status}: no table from a failing run",
                  file=sys.stderr)
            return status
        print(f"benchmark JSON: {json_path} (reuse it with --json)", file=sys.stderr)
    data = read_results(json_path)
    if data is None:
        print(f"{json_path}: no benchmark results (did every benchmark skip?)", file=sys.stderr)
        return 1
    print(header(data, argv))
    print(f"Each time is the {args.stat} of a fixed number of rounds.\n")
    print(table(data, args.stat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
