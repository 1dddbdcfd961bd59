"""Running generated programs on two implementations (SPEC DIFF-2, DIFF-12).

``find_disagreement(impl, reference, family, examples, seed)`` lets
Hypothesis draw ``examples`` programs of one family, runs each on both modules
and compares the outcomes; on the first disagreement Hypothesis shrinks the
program and the minimal one comes back as a ``Disagreement`` whose ``report()``
holds the reproducer.  ``python -m conformance.differential`` runs every family
from the command line.
"""
import contextlib
import dataclasses
import importlib
import math

from hypothesis import HealthCheck, given
from hypothesis import seed as hypothesis_seed
from hypothesis import settings
from hypothesis.internal.conjecture import engine
from hypothesis.reporting import with_reporter

from .compare import compare, program_rtol
from .generate import FAMILIES, programs
from .program import run

DEFAULT_EXAMPLES = 200      # programs per run, spread over the families
DEFAULT_SEED = 0
_CLEAR_EVERY = 200          # programs between clearing the modules' caches
SHRINK_SECONDS = 10         # time Hypothesis may spend shrinking a failure


@dataclasses.dataclass
class Disagreement(AssertionError):
    program: object
    problem: str
    impl: str = "implementation"
    reference: str = "reference"

    def __str__(self):
        return self.report()

    def report(self):
        return (f"{self.impl} and {self.reference} disagree on a generated "
                f"{self.program.family} program: {self.problem}\n"
                f"Reproducer (run it with each library as `jax`):\n\n{self.program.source()}")


def load(name):
    """Import an implementation and the submodules programs use."""
    module = importlib.import_module(name)
    for sub in ("numpy", "lax", "random", "nn"):
        importlib.import_module(f"{name}.{sub}")
    return module


def default_reference(impl_name):
    """The reference when none is named: real JAX for any other library,
    refjax for JAX; a library compared with itself is checked jit against
    eager (``disable_jit``)."""
    if impl_name != "jax":
        try:
            importlib.import_module("jax")
            return "jax"
        except ImportError:
            return "refjax"
    return "refjax"


def per_family(examples, families=FAMILIES):
    return max(1, math.ceil(examples / len(families)))


class Pair:
    """The two modules under comparison and a count of programs run.  A
    module paired with itself runs the reference side under ``disable_jit``:
    values must agree wherever both sides run (JAX documents that some
    programs, such as concretising a traced value or a zero-length ``scan``,
    run in only one of the two modes)."""

    def __init__(self, impl, reference):
        self.impl, self.reference = impl, reference
        self.eager = impl is reference
        self.count = 0

    def check(self, program):
        """None if both modules agree on ``program``, else the difference."""
        self.count += 1
        if self.count % _CLEAR_EVERY == 0:
            for m in (self.impl, self.reference):
                getattr(m, "clear_caches", lambda: None)()
        got = run(program, self.impl, python_as_arrays=self.eager)
        want = run(program, self.reference, eager=self.eager, python_as_arrays=self.eager)
        if self.eager and (got.error is None) != (want.error is None):
            return None     # jit and disable_jit may legitimately differ in what they reject
        return compare(got, want, program_rtol(program.source()))


@contextlib.contextmanager
def own_constants_only():
    """Hypothesis also draws literals it finds in the local modules imported
    so far (refjax's, this suite's helpers).  Which those are depends on what
    ran earlier in the process, so the programs of a seed would depend on the
    test order and on the xdist worker; without them a shard's programs are
    a function of its budget and seed alone (SPEC DIFF-17)."""
    try:
        from hypothesis.internal.conjecture import providers
        empty = providers.Constants()
    except (ImportError, AttributeError):    # a Hypothesis without the pool
        yield
        return
    gather = providers._get_local_constants
    providers._get_local_constants = lambda: empty
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = gather
        providers.CONSTANTS_CACHE.cache.clear()


def find_disagreement(pair, family, examples, seed=DEFAULT_SEED, shrink_seconds=SHRINK_SECONDS):
    """Run ``examples`` programs of ``family``; the shrunk Disagreement, or
    None if every program agreed."""
    names = (pair.impl.__name__, pair.reference.__name__ + (" (eager)" if pair.eager else ""))

    @hypothesis_seed(seed)
    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              report_multiple_bugs=False, suppress_health_check=list(HealthCheck),
              print_blob=False)
    @given(programs(family))
    def agree(program):
        problem = pair.check(program)
        if problem:
            raise Disagreement(program, problem, *names)

    # Hypothesis lets its shrinking time limit be set (it then prints a
    # warning about it, which is silenced with the rest of its reports: the
    # Disagreement carries everything).
    old = engine.MAX_SHRINKING_SECONDS
    engine.MAX_SHRINKING_SECONDS = shrink_seconds
    try:
        with with_reporter(lambda text: None), own_constants_only():
            agree()
    except Disagreement as d:
        return d
    finally:
        engine.MAX_SHRINKING_SECONDS = old
    return None
