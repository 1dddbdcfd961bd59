"""Every primitive's rules are complete, and docs/primitives.md is current.

For every primitive, each of impl, abstract_eval, jvp and batch is a rule or
an explicit ``prim.not_supported(rule, reason)``, and that matches JAX: a
rule JAX defines is never "not supported".  Transpose applies to linear
primitives (those with a transpose rule or a stated reason); that it matches
JAX is checked the same way.

A reason starts with what makes it true, which the last tests check on an
example of each:

* ``no operands:``   the primitive takes no inputs, so no tangent or batched
  operand ever reaches it (``iota``);
* ``integer-only:``  its operands and results are integers or booleans, whose
  tangents are ``float0`` zeros, so forward mode never calls the rule;
* ``key-only:``      likewise for PRNG keys;
* ``undefined in JAX:``  JAX has no such rule, so the transformation raises
  ``NotImplementedError`` (as refjax does).

The primitive index (docs/primitives.md) is generated from the same data by
refjax._src.primitive_index.
"""
import difflib
import os

import numpy as np
import pytest

import refjax
import refjax.extend.random
from refjax import lax
from refjax._src import dtypes
from refjax._src import primitive_index as index
from refjax._src.core import ShapedArray

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "primitives.md")
REGENERATE = "python -m refjax._src.primitive_index > docs/primitives.md"

PRIMITIVES = index.all_primitives()
BY_NAME = {p.name: p for p in PRIMITIVES}


def _lacking(rules, prims=PRIMITIVES):
    """``name.rule`` for each rule that is neither defined nor explained."""
    return [f"{p.name}.{r}" for p in prims for r in rules
            if index.rule_status(p, r) == index.MISSING]


# ---------------------------------------------------------------------------
# The index finds every primitive
# ---------------------------------------------------------------------------

def test_index_finds_primitives_of_every_kind():
    # One per defining module, including checkify's, which `import refjax`
    # does not load.
    for name in ("add", "dot_general", "scan", "cond", "while", "jit", "psum",
                 "custom_jvp_call", "remat2", "sharding_constraint", "check",
                 "random_bits", "threefry2x32", "debug_callback", "add_any"):
        assert name in BY_NAME, name
    assert len(BY_NAME) == len(PRIMITIVES), "two primitives share a name"


def test_every_primitive_has_a_definition_site():
    unknown = [p.name for p in PRIMITIVES if index.definition_site(p) == index.MISSING]
    assert not unknown, f"no `name = ...` line creates these: {unknown}"


# ---------------------------------------------------------------------------
# Completeness
# ---------------------------------------------------------------------------

def test_every_primitive_has_impl_and_abstract_eval():
    lacking = _lacking(("impl", "abstract_eval"))
    assert not lacking, f"no rule and no stated reason: {lacking}"


@pytest.mark.parametrize("rule", ["jvp", "batch"])
def test_every_primitive_has_the_rule_or_a_reason(rule):
    lacking = _lacking((rule,))
    assert not lacking, (
        f"{len(lacking)} primitives have no {rule} rule and no reason; add the "
        f"rule or `prim.not_supported({rule!r}, reason)` as JAX behaves: {lacking}")


def test_reasons_are_stated_for_absent_rules_only():
    bad = []
    for p in PRIMITIVES:
        for rule, reason in p.unsupported.items():
            if not hasattr(p, rule):
                bad.append(f"{p.name}: {rule!r} is not a rule slot")
            elif getattr(p, rule) is not None:
                bad.append(f"{p.name}: {rule} is both defined and 'not supported'")
            if not (isinstance(reason, str) and reason.strip()):
                bad.append(f"{p.name}: {rule} has an empty reason")
    assert not bad, bad


# ---------------------------------------------------------------------------
# The index document
# ---------------------------------------------------------------------------

def test_primitive_index_is_current():
    with open(DOC) as f:
        checked_in = f.read()
    now = index.render()
    if checked_in != now:
        diff = "".join(list(difflib.unified_diff(
            checked_in.splitlines(True), now.splitlines(True),
            "docs/primitives.md", "generated now"))[:40])
        pytest.fail(f"docs/primitives.md is stale; regenerate it with\n\n"
                    f"    {REGENERATE}\n\n{diff}")


# ---------------------------------------------------------------------------
# Agreement with JAX
# ---------------------------------------------------------------------------

def _jax_rule_names():
    """{rule: names of the JAX primitives that have that rule}."""
    pytest.importorskip("jax.experimental.checkify")   # also registers check's rules
    from jax._src.interpreters import ad, batching
    tables = {
        "jvp": [ad.primitive_jvps],
        "transpose": [ad.primitive_transposes, ad.fancy_transposes,
                      ad.reducing_transposes],
        "batch": [batching.fancy_primitive_batchers],   # primitive_batchers writes here
    }
    return {rule: {p.name for t in ts for p in t} for rule, ts in tables.items()}


@pytest.mark.parametrize("rule", ["jvp", "transpose", "batch"])
def test_rules_jax_defines_are_defined(rule):
    jax_has = _jax_rule_names()[rule]
    lacking = [p.name for p in PRIMITIVES
               if p.name in jax_has and getattr(p, rule) is None]
    assert not lacking, (f"JAX defines a {rule} rule for these primitives, so "
                         f"refjax needs one (not a 'not supported'): {lacking}")


# ---------------------------------------------------------------------------
# Each reason holds on an example
# ---------------------------------------------------------------------------

def _custom_vjp_sin():
    @refjax.custom_vjp
    def f(x):
        return refjax.numpy.sin(x)
    f.defvjp(lambda x: (f(x), refjax.numpy.cos(x)), lambda cos_x, g: (g * cos_x,))
    return f


def _jvp_of(f, *args, axis_env=()):
    """An example: forward mode of ``f`` at ``args``, with unit tangents
    (``float0`` zeros for integer and key operands)."""
    def tangent(x):
        if dtypes.issubdtype(x.dtype, np.inexact):
            return np.ones(x.shape, x.dtype)
        return np.zeros(x.shape, dtypes.float0)
    tangents = tuple(tangent(x) for x in args)
    return (lambda *xs: refjax.jvp(f, xs, tangents)), args, axis_env


def _vmap_of(f, *args, axis_env=()):
    """An example: ``f`` mapped over the leading axis of ``args``."""
    return refjax.vmap(f), args, axis_env


def _select_and_scatter_example(x):
    from refjax._src.lax.generic_reduce import reduction_jaxpr
    aval = ShapedArray((), np.dtype(np.float32))
    tree = refjax.tree_util.tree_structure(0.)
    select, _ = reduction_jaxpr(lax.ge, [aval], tree, "select")
    scatter, _ = reduction_jaxpr(lax.add, [aval], tree, "scatter")
    return lax.select_and_scatter_p.bind(
        x, x[:3], np.float32(0), select_jaxpr=select.jaxpr, select_consts=(),
        scatter_jaxpr=scatter.jaxpr, scatter_consts=(), window_dimensions=(2,),
        window_strides=(1,), padding=((0, 0),))


def _linear_call_identity(x):
    return refjax.custom_derivatives.linear_call(lambda r, x: x, lambda r, t: t, (), x)


F32 = np.arange(1, 5, dtype=np.float32)
U32 = np.arange(4, dtype=np.uint32)
EYE2 = np.eye(2, dtype=np.float32)
KEY = refjax.random.key(0)

# (primitive, rule) -> (function, args, axis_env): tracing the function with
# make_jaxpr applies the transformation to the primitive.
EXAMPLES = {
    ("iota", "jvp"): _jvp_of(lambda x: x + lax.iota(np.float32, 4), F32),
    ("iota", "batch"): _vmap_of(lambda x: x + lax.iota(np.float32, 4),
                                np.ones((2, 4), np.float32)),
    ("axis_index", "jvp"): _jvp_of(lambda x: x * lax.axis_index("i"), F32,
                                   axis_env=[("i", 2)]),
    ("threefry2x32", "jvp"): _jvp_of(
        lambda c: refjax.extend.random.threefry_2x32(np.array([1, 2], np.uint32), c), U32),
    ("random_clone", "jvp"): _jvp_of(refjax.random.clone, KEY),
    ("nextafter", "jvp"): _jvp_of(lambda x: lax.nextafter(x, x + 1), F32),
    ("pmax", "jvp"): _jvp_of(lambda x: lax.pmax(x, "i"), F32, axis_env=[("i", 2)]),
    ("pmin", "jvp"): _jvp_of(lambda x: lax.pmin(x, "i"), F32, axis_env=[("i", 2)]),
    ("custom_lin", "jvp"): _jvp_of(
        lambda x: refjax.linearize(_custom_vjp_sin(), x)[1](x), np.float32(1)),
    ("select_and_scatter", "jvp"): _jvp_of(_select_and_scatter_example, F32),
    ("select_and_scatter", "batch"): _vmap_of(_select_and_scatter_example,
                                              np.ones((2, 4), np.float32)),
    ("linear_call", "batch"): _vmap_of(_linear_call_identity, np.ones((2, 4), np.float32)),
    ("composite", "batch"): _vmap_of(lax.composite(lambda x: x * 2, "my.op"),
                                     np.ones((2, 4), np.float32)),
    ("rng_uniform", "jvp"): _jvp_of(lambda x: lax.rng_uniform(x, x + 1, (2,)), np.float32(0)),
    ("rng_uniform", "batch"): _vmap_of(lambda x: lax.rng_uniform(x, x + 1, (2,)),
                                       np.zeros(2, np.float32)),
    ("rng_bit_generator", "jvp"): _jvp_of(lambda k: lax.rng_bit_generator(k, (2,))[1],
                                          np.array([1, 2, 3, 4], np.uint32)),
    ("scaled_dot", "jvp"): _jvp_of(lambda a: lax.scaled_dot(a, np.ones((3, 2), np.float32)),
                                   np.ones((2, 3), np.float32)),
    ("schur", "jvp"): _jvp_of(lambda x: lax.linalg.schur(x)[0], EYE2),
    ("hessenberg", "jvp"): _jvp_of(lambda x: lax.linalg.hessenberg(x)[0], EYE2),
    ("tridiagonal", "jvp"): _jvp_of(lambda x: lax.linalg.tridiagonal(x)[1], EYE2),
    ("householder_product", "jvp"): _jvp_of(lax.linalg.householder_product, EYE2, F32[:1]),
    ("ormqr", "jvp"): _jvp_of(lax.linalg.ormqr, EYE2, F32[:1], EYE2),
    ("geqrf", "jvp"): _jvp_of(refjax._src.lax.linalg.geqrf, EYE2),
    ("geqp3", "jvp"): _jvp_of(refjax._src.lax.linalg.geqp3, EYE2,
                              np.zeros(2, np.int32)),
    ("symmetric_product", "jvp"): _jvp_of(lax.linalg.symmetric_product, EYE2, EYE2),
    ("cholesky_update", "jvp"): _jvp_of(lax.linalg.cholesky_update, EYE2, F32[:2]),
    ("cholesky_update", "batch"): _vmap_of(lax.linalg.cholesky_update,
                                           np.ones((2, 2, 2), np.float32),
                                           np.ones((2, 2), np.float32)),
    ("igamma_grad_a", "jvp"): _jvp_of(lax.igamma_grad_a, F32, F32),
    ("zeta", "jvp"): _jvp_of(lax.zeta, F32 + 1, F32),
    ("lu_pivots_to_permutation", "jvp"): _jvp_of(
        lambda p: lax.linalg.lu_pivots_to_permutation(p, 3), np.array([1, 2], np.int32)),
}


def test_every_reason_has_an_example():
    declared = {(p.name, r) for p in PRIMITIVES for r in p.unsupported
                if r in ("jvp", "transpose", "batch")}
    assert not declared - set(EXAMPLES), (
        f"add an example to EXAMPLES for {sorted(declared - set(EXAMPLES))}")


def _is_int(aval):
    return dtypes.issubdtype(aval.dtype, np.integer) or aval.dtype == np.dtype(bool)


def _is_key(aval):
    return isinstance(aval.dtype, dtypes.ExtendedDType)


KINDS = ("no operands", "integer-only", "key-only", "undefined in JAX")


@pytest.mark.parametrize("name,rule", sorted(EXAMPLES))
def test_reason_holds(name, rule):
    prim = BY_NAME[name]
    if getattr(prim, rule) is not None:
        pytest.fail(f"{name} now has a {rule} rule: remove its EXAMPLES entry")
    reason = prim.unsupported.get(rule)
    assert reason is not None, (
        f"{name}.{rule} has neither a rule nor a stated reason: add "
        f"`{name}_p.not_supported({rule!r}, reason)` or remove its EXAMPLES entry")
    kind = reason.partition(":")[0]
    assert kind in KINDS, (f"{name}.{rule}: the reason {reason!r} should start "
                           f"with one of {[k + ':' for k in KINDS]}")
    fn, args, axis_env = EXAMPLES[name, rule]
    trace = refjax.make_jaxpr(fn, axis_env=axis_env)
    if kind == "undefined in JAX":
        message = "Differentiation" if rule == "jvp" else "Batching"
        with pytest.raises(NotImplementedError,
                           match=f"{message} rule for '{name}' not implemented"):
            trace(*args)
        return
    # The transformation went through without the rule; the primitive is
    # still in the program, and its operands are what the reason says.
    eqns = [e for e in trace(*args).jaxpr.eqns if e.primitive is prim]
    assert eqns, f"the example for {name}.{rule} does not bind {name}"
    for eqn in eqns:
        ins = [v.aval for v in eqn.invars]
        outs = [v.aval for v in eqn.outvars]
        if kind == "no operands":
            assert not ins
        elif kind == "integer-only":
            assert all(map(_is_int, ins + outs)), (ins, outs)
            with pytest.raises(TypeError):   # and float operands are refused
                prim.abstract_eval(*[ShapedArray(a.shape, np.float32) for a in ins],
                                   **eqn.params)
        else:  # key-only
            assert all(map(_is_key, ins + outs)), (ins, outs)
