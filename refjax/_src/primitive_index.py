"""The primitive index: where each primitive and each of its rules is defined.

Every primitive is a :class:`refjax._src.core.Primitive` whose rules are
attributes (SPEC JXP-4).  For each primitive and each rule in ``RULES``
this module reports one of

* where the rule is defined, ``path:line`` (``(via f)`` when the rule is a
  function made inside the helper ``f``, such as ``ad.defjvp_zero``);
* ``not supported: <reason>``: the primitive lacks the rule on purpose, as
  in JAX, recorded with ``prim.not_supported(rule, reason)``;
* ``MISSING``.

The same data renders docs/primitives.md, and tests/test_primitive_rules.py
checks both that no rule is MISSING and that the document is current.
Regenerate it with::

    python -m refjax._src.primitive_index > docs/primitives.md
"""
import ast
import functools
import importlib
import inspect
import os
import pkgutil
import sys

import refjax  # noqa: F401  (registers every rule the package installs)
import refjax._src
from refjax._src.core import Primitive

RULES = ("impl", "abstract_eval", "jvp", "transpose", "batch")
MISSING = "MISSING"
NOT_SUPPORTED = "not supported: "

SRC = os.path.dirname(os.path.abspath(__file__))         # refjax/_src
ROOT = os.path.dirname(os.path.dirname(SRC))             # the repository


def all_primitives():
    """Every Primitive that a module under ``refjax._src`` names at top level,
    once each, sorted by name.

    Every submodule is imported first: some (``checkify``) are not imported
    by ``import refjax`` but still define primitives.
    """
    for info in pkgutil.walk_packages(refjax._src.__path__, "refjax._src."):
        importlib.import_module(info.name)
    found = {}
    for name, module in list(sys.modules.items()):
        if name.startswith("refjax._src.") and module is not None:
            for value in list(vars(module).values()):
                if isinstance(value, Primitive):
                    found[id(value)] = value
    return sorted(found.values(), key=lambda p: p.name)


def is_linear(prim):
    """Transpose applies to linear primitives only: those with a transpose
    rule, or that state why they have none."""
    return prim.transpose is not None or "transpose" in prim.unsupported


def rule_status(prim, rule):
    """``path:line`` of ``prim``'s ``rule``, ``not supported: <reason>``, or MISSING."""
    fn = getattr(prim, rule)
    if fn is not None:
        return source_site(fn)
    if rule in prim.unsupported:
        return NOT_SUPPORTED + prim.unsupported[rule]
    return MISSING


def source_site(fn):
    """``path:line`` where the function behind a rule is written.

    ``functools.partial`` and bound methods are looked through.  A rule made
    by a helper (a closure or lambda inside it) is reported where it is
    written in the helper, followed by ``(via helper)``.
    """
    while True:
        if isinstance(fn, functools.partial):
            fn = fn.func
        elif inspect.ismethod(fn):
            fn = fn.__func__
        else:
            break
    fn = inspect.unwrap(fn)
    if not (inspect.isfunction(fn) or inspect.isclass(fn)):
        fn = type(fn)                      # a callable object: its class
    try:
        path = _repo_path(inspect.getsourcefile(fn))
        line = inspect.getsourcelines(fn)[1]
    except (TypeError, OSError):           # a builtin such as a NumPy ufunc
        return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', fn)}"
    site = f"{path}:{line}"
    if ".<locals>." in fn.__qualname__:
        site += f" (via {fn.__qualname__.split('.<locals>.')[0]})"
    return site


def definition_site(prim):
    """``path:line`` of the module-level assignment that creates ``prim``
    (``x_p = Primitive("x")``, or ``x_p, x = _unary("x", ...)`` for a
    primitive made by a helper), found by reading its module's source."""
    module = _module_of(prim)
    if module is None:
        return MISSING
    path = inspect.getsourcefile(sys.modules[module])
    for name in _names_of(prim, sys.modules[module]):
        line = _assignment_line(path, name)
        if line is not None:
            return f"{_repo_path(path)}:{line}"
    return MISSING


def _names_of(prim, module):
    return [k for k, v in vars(module).items() if v is prim]


def _module_of(prim):
    """The module whose own source assigns ``prim`` to a top-level name
    (re-exports are imports, and loop variables are not assignments)."""
    for name, module in sorted(sys.modules.items()):
        if not name.startswith("refjax._src.") or module is None:
            continue
        names = _names_of(prim, module)
        path = getattr(module, "__file__", None)
        if names and path and any(_assignment_line(path, n) for n in names):
            return name
    return None


@functools.lru_cache(maxsize=None)
def _assignments(path):
    """{name: line} of the top-level ``name = <call>`` statements in ``path``;
    a plain alias (``y_p = x_p``) does not count as creating a primitive."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    found = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
            for target in stmt.targets:
                elts = target.elts if isinstance(target, ast.Tuple) else [target]
                for t in elts:
                    if isinstance(t, ast.Name):
                        found.setdefault(t.id, stmt.lineno)
    return found


def _assignment_line(path, name):
    return _assignments(path).get(name)


def _repo_path(path):
    return os.path.relpath(os.path.abspath(path), ROOT).replace(os.sep, "/")


def _short(site):
    """A site as shown in the table: relative to refjax/_src/."""
    return site.removeprefix("refjax/_src/")


def render():
    """docs/primitives.md: a table of every primitive's rules."""
    prims = all_primitives()
    lines = [
        "# Primitive index",
        "",
        "<!-- Generated by refjax/_src/primitive_index.py; do not edit by hand. -->",
        "",
        "For every primitive: where it is created, and where each of its rules",
        "is defined (`file:line` under `refjax/_src/`; `(via f)`: a rule made",
        "inside the helper `f`, e.g. `ad.defjvp_zero`).  *not supported*: the",
        "primitive lacks the rule on purpose, as in JAX (reasons below); `—`:",
        "the primitive is not linear, so it has no transpose.  The table is",
        "read from the `Primitive` objects; tests/test_primitive_rules.py fails",
        "when this file is stale.  Regenerate it with",
        "",
        "    python -m refjax._src.primitive_index > docs/primitives.md",
        "",
        f"{len(prims)} primitives.",
        "",
        "| primitive | defined at | impl | abstract eval | jvp | transpose | batch |",
        "|---|---|---|---|---|---|---|",
    ]
    reasons = []
    for prim in prims:
        cells = [f"`{prim.name}`", _cell(definition_site(prim))]
        for rule in RULES:
            if rule == "transpose" and not is_linear(prim):
                cells.append("—")
                continue
            status = rule_status(prim, rule)
            if status.startswith(NOT_SUPPORTED):
                reasons.append(f"- `{prim.name}` {rule}: {prim.unsupported[rule]}")
            cells.append(_cell(status))
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "## Rules not supported, and why", ""]
    lines += reasons or ["None."]
    return "\n".join(lines) + "\n"


def _cell(status):
    if status == MISSING:
        return f"**{MISSING}**"
    if status.startswith(NOT_SUPPORTED):
        return "*not supported*"
    return f"`{_short(status)}`"


def main():
    sys.stdout.write(render())


if __name__ == "__main__":
    main()
