"""The mutation catalogue still applies to the tree (SPEC MUT-1 .. MUT-4).

The mutation tool itself (``python -m tests.mutation``) is run by hand; this
fast check keeps its catalogue from rotting as the code moves."""
import os
import subprocess
import sys

import pytest

from tests.mutation import catalogue
from tests.mutation.guard import WRONG_COPY
from tests.mutation.planting import ROOT, PlantError, checkout_path, copy_refjax, plant

MUTANTS = catalogue.MUTANTS


@pytest.mark.spec("MUT-1")
def test_catalogue_is_large_and_spread():
    assert len(MUTANTS) >= 40
    ids = [m.id for m in MUTANTS]
    assert len(set(ids)) == len(ids), "mutant ids must be unique"
    areas = {m.area for m in MUTANTS}
    assert {"dt", "lax", "np", "ad", "vmap", "cf", "rng", "tree", "jit", "idx"} <= areas


@pytest.mark.spec("MUT-1")
@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.id)
def test_mutant_applies_exactly_once(mutant):
    with open(checkout_path(mutant.file)) as f:
        text = f.read()
    assert text.count(mutant.old) == 1, (
        f"{mutant.id}: its original text must occur exactly once in {mutant.file}")
    assert mutant.new != mutant.old and mutant.description
    assert mutant.tests
    for t in mutant.tests:
        assert os.path.exists(os.path.join(ROOT, t.split("::")[0])), t


@pytest.mark.spec("MUT-4")
def test_equivalent_mutants_give_a_reason():
    for m in MUTANTS:
        if m.equivalent is not None:
            assert len(m.equivalent) > 40, f"{m.id}: say why it is equivalent"


@pytest.mark.spec("MUT-3")
def test_planting_stale_text_raises(tmp_path):
    package = copy_refjax(str(tmp_path))
    m = catalogue.by_id()["dt-int8-edge"]
    plant(package, m.file, m.old, m.new, m.id)
    with open(os.path.join(package, m.file)) as f:
        assert m.new in f.read()
    with pytest.raises(PlantError, match="occurs 0 times"):
        plant(package, m.file, m.old, m.new, m.id)
    with pytest.raises(PlantError, match="no file"):
        plant(package, "_src/no_such_file.py", "x", "y")


@pytest.mark.spec("MUT-3")
def test_runner_stops_on_a_stale_mutant(monkeypatch):
    from tests.mutation import __main__ as runner
    stale = catalogue.Mutant("stale", "_src/dtypes.py", "text that is not there", "x",
                             ("conformance/test_dtypes.py",), "stale")
    with pytest.raises(SystemExit, match="stale: original text .* found 0 times"):
        runner.check_applies([stale])


@pytest.mark.spec("MUT-2")
def test_guard_rejects_a_refjax_outside_the_copy(tmp_path):
    """With the checkout's refjax on the path, not the copy's, the guard
    stops pytest before any test runs."""
    env = dict(os.environ, REFJAX_MUTATION_COPY=str(tmp_path), PYTHONPATH=ROOT)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.mutation.guard",
         "--collect-only", "conformance/test_config.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == WRONG_COPY, done.stdout[-2000:] + done.stderr[-2000:]
    assert "outside the copy" in done.stdout + done.stderr


@pytest.mark.spec("MUT-2")
def test_runner_kills_a_planted_mutant(tmp_path):
    """End to end on one cheap mutant: the copy gets the fault, its tests
    import the copy and fail, the mutant is reported killed."""
    md = tmp_path / "score.md"
    done = subprocess.run(
        [sys.executable, "-m", "tests.mutation", "--only", "dt-int8-edge",
         "--no-baseline", "--markdown", str(md)],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "dt-int8-edge: killed" in done.stdout
    assert "Mutation score: 1/1 = 100.0 %" in md.read_text()
