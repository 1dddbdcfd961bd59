"""Repository-wide pytest options and hooks.

``--impl`` lives here (not in conformance/conftest.py) so that it is known
whichever directory pytest is pointed at.  ``--spec-report=FILE`` writes the
SPEC.md clauses each collected test cites, as JSON (used by
tests/test_spec_coverage.py).
"""
import json


def pytest_addoption(parser):
    parser.addoption(
        "--impl",
        default="refjax",
        help="module implementing the JAX API that conformance tests run "
        "against: refjax (default), jax, or any importable module name",
    )
    parser.addoption("--spec-report", default=None,
                     help="write {test id: [cited SPEC clauses]} as JSON here")


def pytest_collection_finish(session):
    path = session.config.getoption("--spec-report")
    if path:
        report = {item.nodeid: [m.args[0] for m in item.iter_markers("spec")]
                  for item in session.items}
        with open(path, "w") as f:
            json.dump(report, f, indent=1)
