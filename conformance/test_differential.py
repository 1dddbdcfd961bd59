"""Differential testing: generated programs agree with a reference (SPEC DIFF-*).

Each family test draws programs (``conformance/differential``), runs every
one on the implementation under test (``--impl``) and on the reference
(``--reference``; by default real JAX, or refjax when ``--impl=jax``) and
fails with the shrunk program's reproducer on the first disagreement.
``--diff-examples`` (total programs, spread over the families; default 200)
and ``--diff-seed`` (default 0) set the run; README "Differential testing"
gives the long run.  A family's programs are drawn in shards of at most
``SHARD_SIZE``, one test each, so that ``-n`` (pytest-xdist) spreads them
over the cores; the shards depend on the budget and seed alone, never on
the number of workers (SPEC DIFF-16, DIFF-17).
"""
import collections
import difflib
import json
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, seed, settings

from conformance.differential import (
    DEFAULT_EXAMPLES, DEFAULT_SEED, FAMILIES, Outcome, Pair, compare, default_reference,
    find_disagreement, load, per_family, programs, run,
)
from conformance.differential.compare import to_host
from conformance.differential.program import Block, Input, Node, Program
from conformance.differential.types import Abstract

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FAMILY_CLAUSE = {"elementwise": "DIFF-4", "reduction": "DIFF-5", "shape": "DIFF-6",
                 "indexing": "DIFF-7", "control": "DIFF-8", "random": "DIFF-9",
                 "errors": "DIFF-10", "autodiff": "DIFF-11", "vmap": "DIFF-12",
                 "mixed": "DIFF-13"}


@pytest.fixture(scope="session")
def pair(request, impl_name, jax):
    name = request.config.getoption("--reference") or default_reference(impl_name)
    try:
        reference = load(name)
    except ImportError as e:
        pytest.exit(f"--reference={name}: cannot import it ({e})", returncode=4)
    return Pair(load(impl_name), reference)


SHARD_SIZE = 50    # programs per test at most (seconds each, refjax against JAX)


class Shard(collections.namedtuple("Shard", "index count programs seed")):
    """One test's part of a family's programs: ``programs`` drawn by
    Hypothesis from ``seed``."""

    def id(self, family):
        return family if self.count == 1 else f"{family}-{self.index + 1}of{self.count}"


def shard_seed(chosen, index):
    """The first shard draws from the chosen seed itself (so a run of one
    shard per family draws what an unsharded run drew); shard ``i`` from the
    string ``"S.i"``, which no integer seed ``S`` can repeat."""
    return chosen if index == 0 else f"{chosen}.{index}"


def shard_plan(examples, chosen_seed):
    """A family's ``examples`` programs split into shards of at most
    ``SHARD_SIZE``, as even as can be (SPEC DIFF-16)."""
    count = max(1, math.ceil(examples / SHARD_SIZE))
    return [Shard(i, count, examples // count + (i < examples % count), shard_seed(chosen_seed, i))
            for i in range(count)]


def chosen_budget(config):
    """Programs per family and the seed, as --diff-examples/--diff-seed say."""
    chosen = config.getoption("--diff-seed")
    return (per_family(config.getoption("--diff-examples") or DEFAULT_EXAMPLES),
            DEFAULT_SEED if chosen is None else chosen)


def pytest_generate_tests(metafunc):
    if metafunc.definition.name == "test_family_agrees_with_reference":
        plan = shard_plan(*chosen_budget(metafunc.config))
        metafunc.parametrize("family, shard", [
            pytest.param(f, shard, marks=pytest.mark.spec(FAMILY_CLAUSE[f]), id=shard.id(f))
            for f in FAMILIES for shard in plan])


def test_family_agrees_with_reference(pair, family, shard, record_property):
    found = find_disagreement(pair, family, shard.programs, shard.seed)
    if found is not None:
        record_property("reproducer", found.program.source())
        record_property("disagreement", found.problem)
        pytest.fail(f"{found.report()}\n(shard {shard.index + 1} of {shard.count}: "
                    f"{shard.programs} programs drawn from seed {shard.seed!r})", pytrace=False)


class Recorder:
    """A stand-in for a Pair that runs nothing: it keeps the source of each
    program drawn, and agrees."""
    eager = False

    def __init__(self, module):
        self.impl = self.reference = module
        self.sources = []

    def check(self, program):
        self.sources.append(program.source())


def drawn(plan, family, module):
    """The sources of the programs the shards of ``plan`` draw, in order."""
    recorder = Recorder(module)
    for shard in plan:
        assert find_disagreement(recorder, family, shard.programs, shard.seed) is None
    return recorder.sources


@pytest.mark.spec("DIFF-16")
@pytest.mark.parametrize("examples", [1, 20, 50, 51, 137, 1000])
def test_shards_split_the_budget(examples):
    plan = shard_plan(examples, 7)
    assert sum(shard.programs for shard in plan) == examples
    assert all(0 < shard.programs <= SHARD_SIZE for shard in plan)
    assert max(s.programs for s in plan) - min(s.programs for s in plan) <= 1
    assert [shard.index for shard in plan] == list(range(len(plan)))
    assert plan[0].seed == 7 and len({shard.seed for shard in plan}) == len(plan)
    assert len({shard.id("mixed") for shard in plan}) == len(plan)


@pytest.mark.spec("DIFF-16")
def test_seeds_of_two_runs_never_meet():
    seeds = [shard.seed for chosen in range(12) for shard in shard_plan(600, chosen)]
    assert len(set(seeds)) == len(seeds)


DRAW_ELSEWHERE = """
import importlib, json, sys
sys.path.insert(0, {root!r})
from conformance.test_differential import drawn, shard_plan
print(json.dumps(drawn(shard_plan({examples}, {chosen}), {family!r},
                       importlib.import_module({impl!r}))))
"""


@pytest.mark.spec("DIFF-17")
def test_shards_draw_the_same_programs_in_any_process(jax):
    """A shard's programs depend on the budget and the seed alone: a fresh
    interpreter (an xdist worker) draws what this one draws."""
    plan = shard_plan(70, 3)
    here = drawn(plan, "control", jax)
    first = drawn(plan[:1], "control", jax)
    assert here[:len(first)] == first and set(here[len(first):]) - set(first)
    script = DRAW_ELSEWHERE.format(root=ROOT, examples=70, chosen=3, family="control",
                                   impl=jax.__name__)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    elsewhere = json.loads(result.stdout)
    differ = [(a, b) for a, b in zip(here, elsewhere) if a != b]
    assert len(here) == len(elsewhere) and not differ, "\n".join(difflib.unified_diff(
        *(text.splitlines() for text in differ[0]), "here", "elsewhere", lineterm=""))


class Disagreeing(Recorder):
    """A stand-in pair that disagrees on every program."""

    def check(self, program):
        super().check(program)
        return "planted disagreement"


@pytest.mark.spec("DIFF-18")
def test_a_failing_shard_names_its_seed_and_reproducer(jax):
    properties = []
    shard = shard_plan(120, 9)[2]
    with pytest.raises(pytest.fail.Exception) as failed:
        test_family_agrees_with_reference(Disagreeing(jax), "elementwise", shard,
                                          lambda *kv: properties.append(kv))
    text, recorded = str(failed.value), dict(properties)
    assert "(shard 3 of 3: 40 programs drawn from seed '9.2')" in text
    assert recorded["disagreement"] == "planted disagreement"
    assert "Reproducer" in text and recorded["reproducer"] in text
    assert recorded["reproducer"].lstrip().startswith("import jax")


# ---------------------------------------------------------------------------
# The generator and the comparison themselves
# ---------------------------------------------------------------------------

def sample_programs(n, family="mixed", at=0):
    """``n`` programs drawn reproducibly."""
    drawn = []

    @seed(at)
    @settings(max_examples=n, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(programs(family))
    def collect(program):
        drawn.append(program)

    collect()
    return drawn


@pytest.mark.spec("DIFF-1")
def test_generator_covers_the_scope():
    """Across a few hundred programs every operation kind and transformation
    of the scope appears."""
    text = "\n".join(p.source() for fam in FAMILIES for p in sample_programs(40, fam, 1))
    for needle in ["jax.jit(", "jax.grad(", "jax.value_and_grad(", "jax.jvp(", "jax.vjp(",
                   "jax.vmap(", "in_axes=(", "out_axes=-1", "lax.cond(", "lax.switch(",
                   "lax.scan(", "lax.fori_loop(", "jax.random.uniform(", "jax.random.normal(",
                   "jax.random.fold_in(", ".at[", ".set(", ".add(", ".get(", "mode='clip'",
                   "mode='drop'", "jnp.sum(", "jnp.argmax(", "jnp.reshape(", "jnp.transpose(",
                   "jnp.concatenate(", "jnp.dot(", "lax.dynamic_slice(", "jnp.sin(", " + ",
                   "jnp.where(", ".astype(", "jax_enable_x64", "dtype=jnp.bfloat16",
                   "dtype=jnp.uint8", "jnp.nan"]:
        assert needle in text, needle


@pytest.mark.spec("DIFF-1")
def test_source_is_a_runnable_reproducer(jax, impl_name):
    """``program.source()`` run as a script, with the implementation
    imported as ``jax``, prints what the runner computed."""
    drawn = sample_programs(12, "mixed", 2) + sample_programs(6, "control", 3)
    expected = []
    for program in drawn:
        namespace = {"jax": jax, "jnp": jax.numpy, "lax": jax.lax}
        old = jax.config.jax_enable_x64
        jax.config.update("jax_enable_x64", program.x64)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(program.definitions(), namespace)
            expected.append(str(namespace["out"]))
            ran = run(program, jax)
            if ran.error is None:
                assert compare(ran, Outcome(value=to_host(namespace["out"], jax))) is None
        except Exception as e:  # noqa: BLE001
            expected.append(f"raised {type(e).__name__}")
        finally:
            jax.config.update("jax_enable_x64", old)
    script = SHIM.format(impl=impl_name, sources=[p.source() for p in drawn])
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    printed = result.stdout.split("\n<<end>>\n")[:-1]
    assert printed == expected


# Runs each source as a script in which `import jax` gives the implementation.
SHIM = """
import contextlib, importlib, io, sys, warnings
warnings.simplefilter("ignore")
impl = importlib.import_module({impl!r})
for sub in ("numpy", "lax"):
    sys.modules["jax." + sub] = importlib.import_module({impl!r} + "." + sub)
sys.modules["jax"] = impl
for source in {sources!r}:
    impl.config.update("jax_enable_x64", False)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(source, {{"__name__": "__main__"}})
        text = out.getvalue()[:-1]
    except Exception as e:
        text = "raised " + type(e).__name__
    print(text, end="\\n<<end>>\\n")
"""


def outcome(jax, value):
    return Outcome(value=to_host(value, jax))


@pytest.mark.spec("DIFF-3")
def test_comparison_checks_types_values_and_structure(jax):
    jnp = jax.numpy
    x = jnp.array([1.0, 2.0, np.nan], dtype=jnp.float32)
    assert compare(outcome(jax, x), outcome(jax, x)) is None
    near = x * jnp.float32(1 + 3e-7)
    assert compare(outcome(jax, near), outcome(jax, x)) is None
    far = x + jnp.float32(0.01)
    assert "values differ" in compare(outcome(jax, far), outcome(jax, x))
    moved = jnp.array([1.0, np.nan, 2.0], dtype=jnp.float32)
    assert "NaN" in compare(outcome(jax, moved), outcome(jax, x))
    assert "dtype" in compare(outcome(jax, x.astype(jnp.float16)), outcome(jax, x))
    assert "weak_type" in compare(outcome(jax, jnp.asarray(1.0) * 2.0),
                                  outcome(jax, jnp.float32(2.0)))
    assert "shape" in compare(outcome(jax, x[None]), outcome(jax, x))
    ints = jnp.array([1, 2], dtype=jnp.int32)
    assert compare(outcome(jax, ints + 1), outcome(jax, ints)) == "result: values differ" or \
        "values differ" in compare(outcome(jax, ints + 1), outcome(jax, ints))
    assert "structure" in compare(outcome(jax, (x, x)), outcome(jax, [x, x]))


@pytest.mark.spec("DIFF-3")
def test_comparison_of_errors_uses_the_class(jax):
    same = compare(Outcome(error=TypeError("a")), Outcome(error=TypeError("b")))
    assert same is None
    assert "raised" in compare(Outcome(error=ValueError("a")), Outcome(error=TypeError("a")))
    assert "returned a value" in compare(Outcome(error=ValueError("a")),
                                         outcome(jax, jax.numpy.ones(2)))


@pytest.mark.spec("DIFF-2")
def test_a_library_against_itself_compares_jit_with_eager(jax):
    """Paired with itself, a library runs the reference side under
    ``disable_jit``: concretising a traced value fails under jit only, and
    such a one-sided error is no verdict; values are still compared."""
    body = Block("f", ("x1",), (Node("v2", "float(jnp.sum(x1))"),), "v2")
    program = Program(body, ("g1 = jax.jit(f)",),
                      (Input("x1", Abstract((2,), "float32"), [1.0, 2.5]),))
    assert type(run(program, jax).error).__name__ == "ConcretizationTypeError"
    eager = run(program, jax, eager=True, python_as_arrays=True)
    assert eager.error is None and eager.value[1][0].value == 3.5
    same = Pair(jax, jax)
    assert same.eager and same.check(program) is None
    body = Block("f", ("x1",), (Node("v2", "jnp.sin(x1) * 2"),), "v2")
    program = Program(body, ("g1 = jax.jit(f)",), (Input("x1", Abstract((), "float32"), 1.0),))
    assert same.check(program) is None


# ---------------------------------------------------------------------------
# Programs the long runs found (shrunk reproducers, kept as regressions)
# ---------------------------------------------------------------------------

def parse_source(source):
    """A Program-like object for a reproducer's text (what ``run`` needs)."""
    lines = source.strip().splitlines()
    body = [ln for ln in lines if not ln.startswith(("import ", "from ", "print(", "jax.config"))]

    class Parsed:
        x64 = any("jax_enable_x64" in ln for ln in lines)

        @staticmethod
        def definitions():
            return "\n".join(body) + "\n"

        @staticmethod
        def source():
            return source

    return Parsed


REGRESSIONS = [
    # Two equal closed-over constants in one cond branch (refjax merged them
    # and left one variable unbound: KeyError).
    ("DIFF-8", """
import jax
import jax.numpy as jnp
from jax import lax

def f(x1, x4, x10):
    v5 = jnp.dot(x1, x4)
    v6 = lax.dynamic_slice(v5, (1,), (0,))
    v7 = jnp.sum(v6, axis=None)
    def true_fn14(a8):
        return -a8
    def false_fn15(a8):
        v11 = lax.dynamic_update_slice(v6, x10, (0,))
        return jnp.zeros(())
    return lax.cond(jnp.any(x4 > 1), true_fn14, false_fn15, v7)
x1 = jnp.array([[1.0]], dtype=jnp.float32)
x4 = jnp.array([1.0], dtype=jnp.float32)
x10 = jnp.zeros((0,), dtype=jnp.float32)
out = f(x1, x4, x10)
print(out)
"""),
    # The cotangent of a weakly typed array (rank >= 1) of a vjp: refjax's
    # derivative constants were strong for anything but scalars.
    ("DIFF-11", """
import jax
import jax.numpy as jnp
from jax import lax

def f(x1):
    v3 = jnp.reshape(jnp.negative(x1), (1,))
    return jnp.log1p(jnp.abs(v3))
def g1(x1):
    out, pullback = jax.vjp(lambda x1: f(x1), x1)
    return out, pullback(jax.tree.map(jnp.cos, out))
g2 = jax.jit(g1)
x1 = 1.0
out = g2(x1)
print(out)
"""),
]


@pytest.mark.parametrize("clause, source", [
    pytest.param(c, s, marks=pytest.mark.spec(c), id=f"{c}-{i}")
    for i, (c, s) in enumerate(REGRESSIONS)])
def test_found_program_agrees(pair, clause, source):
    program = parse_source(source)
    got = run(program, pair.impl)
    want = run(program, pair.reference, eager=pair.eager)
    problem = compare(got, want)
    assert problem is None, problem
    assert got.error is None, got.error
