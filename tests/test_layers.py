"""The import structure of ``refjax`` (README "Layout").

The import graph is read from the source (every ``import`` statement, at
the top of a module or inside a function), so the test needs no import of
refjax and sees the imports that only run later.  Three rules:

* **Layers.**  Every module belongs to one layer; a module-level import
  never names a module of a higher layer.
* **Late imports go down too**, except the few in ``UPWARD_ALLOWED``, each
  with the reason it cannot be a registration at import time.
* **No cycles** among refjax modules, counting late imports, except those
  in ``CYCLES_ALLOWED`` (at most three modules each, with a reason).
"""
import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (module prefix, layer); the longest matching prefix decides.
LAYERS = [
    # 0: base. Options, dtypes, pytrees, errors, devices, the backend
    # registry and the concrete Array; nothing here knows about tracing.
    ("refjax._src.config", 0), ("refjax._src.errors", 0),
    ("refjax._src.pretty_printer", 0), ("refjax._src.fperrors", 0),
    ("refjax._src.tree_util", 0), ("refjax._src.key_paths", 0), ("refjax._src.backend", 0),
    ("refjax._src.devices", 0), ("refjax._src.dtypes", 0),
    ("refjax._src.casting", 0), ("refjax._src.mesh", 0),
    ("refjax._src.array", 0), ("refjax.backends", 0),
    ("refjax._src.lru", 0), ("refjax._src.config_options", 0),
    ("refjax._src.monitoring", 0), ("refjax._src.profiler", 0), ("refjax._src.version", 0),
    ("refjax._src.lax.xla_cpu_math", 0), ("refjax._src.literals", 0),
    ("refjax._src.xla_bridge", 0), ("refjax._src.traceback_util", 0),
    # 1: core. Avals, Primitive and its rule slots, traces, tracers,
    # jaxprs, eval_jaxpr and the jaxpr printer.
    ("refjax._src.core", 1),
    # 2: the interpreters: partial evaluation, JVP/transpose, batching.
    ("refjax._src.interpreters", 2),
    # 3: running primitives and jaxprs: eager dispatch, the jaxpr compiler.
    ("refjax._src.dispatch", 3), ("refjax._src.compiler", 3),
    ("refjax._src.placement", 3),
    # 4: the transformations that lax and numpy use: jit, vmap, custom
    # derivatives.
    ("refjax._src.api", 4), ("refjax._src.vmap_api", 4),
    ("refjax._src.shape_dtype_struct", 4), ("refjax._src.stages", 4),
    ("refjax._src.custom_derivatives", 4), ("refjax._src.custom_gradient", 4),
    # 5: lax, every primitive with all of its rules.
    ("refjax._src.lax", 5),
    # 6: features built on lax: the derivative APIs (grad, jacobians),
    # remat, callbacks, numpy, nn, scipy, random, shard_map and pmap.
    ("refjax._src.ad_api", 6), ("refjax._src.ad_checkpoint", 6),
    ("refjax._src.debugging", 6), ("refjax._src.numpy", 6), ("refjax._src.nn", 6), ("refjax._src.scipy", 6),
    ("refjax._src.random", 6), ("refjax._src.sharding", 6),
    ("refjax._src.checkify", 6), ("refjax._src.ops", 6), ("refjax._src.flatten_util", 6),
    ("refjax._src.custom_batching", 6), ("refjax._src.debugger", 6),
    ("refjax._src.extension", 6), ("refjax._src.refs", 6),
    ("refjax._src.toplevel", 6), ("refjax._src.image", 6),
    # 7: the public modules, and tools built on them.
    ("refjax", 7), ("refjax._src.public_test_util", 7),
    ("refjax._src.conformance_cli", 7),
    ("refjax._src.doccheck", 7),
    ("refjax._src.conformance_progress", 7),
]

# Late (function-local) imports that go up a layer: (importer, imported).
UPWARD_ALLOWED = {
}

# Cycles of at most three modules, counting late imports: frozenset -> why.
CYCLES_ALLOWED = {
    frozenset({"refjax._src.lax.lax", "refjax._src.lax.shapes",
               "refjax._src.lax.reductions"}):
        "the elementwise primitives' rules broadcast operands and sum "
        "cotangents over broadcast axes, while shapes and reductions build "
        "on the elementwise ops; lax.py imports the two last (JAX keeps all "
        "three in one lax.py)",
    frozenset({"refjax._src.numpy.ufuncs", "refjax._src.numpy.reductions"}):
        "reductions are built from ufuncs, and jnp.gcd's loop tests "
        "reductions.any; ufuncs imports reductions where gcd runs",
    frozenset({"refjax._src.numpy.lax_numpy", "refjax._src.numpy.contractions",
               "refjax._src.numpy.signal"}):
        "contractions and signal build on lax_numpy's shape functions, and "
        "take_along_axis's one-hot mode is an einsum (imported where it runs)",
}


def layer_of(module):
    best = max((p for p, _ in LAYERS if module == p or module.startswith(p + ".")),
               key=len, default=None)
    assert best is not None, f"{module} has no layer: add it to LAYERS"
    return dict(LAYERS)[best]


def _modules():
    """{dotted name: file} for refjax and refjax.backends (shipped from backends/)."""
    found = {}
    for top, package in (("refjax", "refjax"), ("backends", "refjax.backends")):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if not name.endswith(".py"):
                    continue
                rel = os.path.relpath(os.path.join(folder, name), os.path.join(ROOT, top))
                parts = rel[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                found[".".join([package] + parts)] = os.path.join(folder, name)
    return found


MODULES = _modules()


def _target(name):
    """The refjax module an import of ``name`` loads (None outside refjax)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module, path):
    """[(imported module, late, line)] of one file."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    found = []

    def visit(node, late):
        for child in ast.iter_child_nodes(node):
            is_late = late or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                 ast.Lambda))
            names = []
            if isinstance(child, ast.Import):
                names = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package
                    for _ in range(child.level - 1):
                        anchor = anchor.rpartition(".")[0]
                    base = anchor + ("." + base if base else "")
                names = [base + "." + a.name for a in child.names]
            for name in names:
                target = _target(name)
                if target and target != module:
                    found.append((target, late, child.lineno))
            visit(child, is_late)

    visit(tree, False)
    return found


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


# Private modules that belong with the public ones (layer 7).
PRIVATE_TOP = {"refjax._src", "refjax._src.public_test_util", "refjax._src.conformance_cli",
               "refjax._src.primitive_index"}


def test_private_modules_name_their_layer():
    """A module of refjax._src must be placed deliberately: falling under
    the "refjax" prefix (layer 7) would let it import anything."""
    unplaced = [m for m in MODULES if m.startswith("refjax._src") and m not in PRIVATE_TOP
                and max((p for p, _ in LAYERS if m == p or m.startswith(p + ".")),
                        key=len) == "refjax"]
    assert not unplaced, f"add these to LAYERS: {unplaced}"


def test_module_level_imports_go_down():
    bad = [f"{m} (layer {layer_of(m)}) imports {t} (layer {layer_of(t)}) at line {line}"
           for m, imports in GRAPH.items() for t, late, line in imports
           if not late and layer_of(t) > layer_of(m)]
    assert not bad, "\n".join(bad)


def test_late_imports_go_down_except_the_allowlist():
    assert len(UPWARD_ALLOWED) <= 10
    upward = {(m, t) for m, imports in GRAPH.items() for t, late, _ in imports
              if late and layer_of(t) > layer_of(m)}
    assert upward <= set(UPWARD_ALLOWED), "\n".join(
        f"{m} imports {t} (layer {layer_of(t)}) inside a function"
        for m, t in sorted(upward - set(UPWARD_ALLOWED)))
    stale = set(UPWARD_ALLOWED) - upward
    assert not stale, f"allowlisted imports that no longer exist: {sorted(stale)}"


def _cycles():
    """Strongly connected components of more than one module (Tarjan)."""
    edges = {m: {t for t, _, _ in imports} for m, imports in GRAPH.items()}
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return found


def test_no_import_cycles_but_the_named_ones():
    assert all(len(c) <= 3 for c in CYCLES_ALLOWED)
    cycles = set(_cycles())
    unexpected = cycles - set(CYCLES_ALLOWED)
    assert not unexpected, "import cycles:\n" + "\n".join(
        ", ".join(sorted(c)) for c in unexpected)
    stale = set(CYCLES_ALLOWED) - cycles
    assert not stale, f"allowlisted cycles that no longer exist: {stale}"
