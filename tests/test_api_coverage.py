"""refjax has every public name of JAX 0.10.2's modules (SPEC API-100).

With JAX importable, the public names (``dir()`` without ``_`` names) of
each module below are read from JAX and from refjax, each in a fresh
process so that one library's imports do not add names to the other's
modules.  A name JAX has and refjax lacks fails the test unless it is in
``EXCLUDED`` with its reason; at most 3 % of a module's names may be
excluded.  The README's coverage table is this test's table:
``python tests/test_api_coverage.py`` prints it, and the test fails when
the README's copy differs (for the pinned JAX version).
"""
import json
import math
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PINNED_JAX = "0.10.2"

# The modules of issues 22 and 23, in the README table's order.
MODULES = [
    "", "numpy", "numpy.linalg", "numpy.fft", "lax", "lax.linalg", "nn", "nn.initializers",
    "random", "sharding", "custom_derivatives", "custom_batching", "debug", "ad_checkpoint",
    "ops", "flatten_util", "typing", "stages", "tree", "tree_util", "dtypes", "errors",
    "core", "extend.core", "interpreters", "interpreters.ad", "interpreters.batching",
    "interpreters.partial_eval", "interpreters.mlir",
    # issue 23
    "scipy", "scipy.linalg", "scipy.special", "scipy.stats",
] + ["scipy.stats." + d for d in (
    "bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon", "gamma",
    "gennorm", "geom", "gumbel_l", "gumbel_r", "laplace", "logistic", "multinomial",
    "multivariate_normal", "nbinom", "norm", "pareto", "poisson", "t", "truncnorm", "uniform",
    "vonmises", "wrapcauchy")] + [
    "scipy.signal", "scipy.fft", "scipy.optimize", "scipy.integrate", "scipy.interpolate",
    "scipy.ndimage", "scipy.sparse", "scipy.sparse.linalg", "scipy.spatial.transform",
    "scipy.cluster", "scipy.cluster.vq", "image", "example_libraries.stax",
    "example_libraries.optimizers",
]

# Dunder names that are part of a module's public surface.
DUNDERS = {"numpy": ["__array_api_version__", "__array_namespace_info__"]}

# module -> {name: why refjax does not have it}.  At most 3 % of a module's
# names (SPEC API-100).
EXCLUDED = {}

MAX_EXCLUDED = 0.03

_LISTER = """
import importlib, json, sys, warnings
warnings.simplefilter("ignore")
out = {}
for suffix in sys.argv[2:]:
    name = sys.argv[1] + ("." + suffix if suffix else "")
    try:
        module = importlib.import_module(name)
    except Exception as e:  # noqa: BLE001 - reported as a missing module
        out[suffix] = None
        continue
    names = {n for n in dir(module) if not n.startswith("_")}
    names |= {n for n in DUNDERS.get(suffix, []) if hasattr(module, n)}
    out[suffix] = sorted(names)
print(json.dumps(out))
"""


def public_names(library, modules=MODULES):
    """{module suffix: sorted public names, or None if it cannot be imported},
    read in a fresh process."""
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=ROOT)
    code = f"DUNDERS = {DUNDERS!r}\n" + _LISTER
    result = subprocess.run([sys.executable, "-c", code, library, *modules],
                            capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    if result.returncode:
        raise RuntimeError(result.stderr)
    return json.loads(result.stdout.strip().splitlines()[-1])


def jax_version():
    try:
        import jax
    except ImportError:
        return None
    return jax.__version__


def coverage():
    """[(module, JAX's count, refjax's count of those, excluded, missing)]."""
    theirs, ours = public_names("jax"), public_names("refjax")
    rows = []
    for suffix in MODULES:
        want = set(theirs[suffix] or [])
        have = set(ours.get(suffix) or [])
        excluded = set(EXCLUDED.get(suffix, {})) & want - have
        missing = sorted(want - have - excluded)
        rows.append((suffix, len(want), len(want & have), sorted(excluded), missing))
    return rows


def table(rows):
    """The README's markdown table."""
    lines = ["| module | JAX 0.10.2 names | refjax has | excluded (reason in the test) |",
             "|---|---|---|---|"]
    for suffix, total, have, excluded, _ in rows:
        name = "jax" + ("." + suffix if suffix else "")
        lines.append(f"| `{name}` | {total} | {have} | {', '.join(excluded) or '-'} |")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def rows():
    if jax_version() is None:
        pytest.skip("JAX is not installed: nothing to compare with")
    return coverage()


@pytest.mark.spec("API-100")
def test_every_public_name_of_jax_is_in_refjax(rows):
    gaps = {("jax." + s).rstrip("."): missing for s, _, _, _, missing in rows if missing}
    assert not gaps, "names JAX has and refjax lacks:\n" + "\n".join(
        f"  {m}: {' '.join(names)}" for m, names in gaps.items())


@pytest.mark.spec("API-100")
def test_exclusions_are_few_and_explained(rows):
    for suffix, total, _, _, _ in rows:
        reasons = EXCLUDED.get(suffix, {})
        assert len(reasons) <= math.floor(MAX_EXCLUDED * total), (suffix, len(reasons), total)
        assert all(isinstance(r, str) and len(r) > 10 for r in reasons.values())


@pytest.mark.spec("API-100")
def test_readme_shows_this_table(rows):
    if jax_version() != PINNED_JAX:
        pytest.skip(f"the README's table is for JAX {PINNED_JAX}")
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    assert table(rows) in readme, "README's coverage table is stale; the current one:\n" + \
        table(rows)


if __name__ == "__main__":
    print(table(coverage()))
