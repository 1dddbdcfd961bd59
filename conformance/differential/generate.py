"""Hypothesis strategies for whole programs (SPEC DIFF-1).

``programs(family)`` draws a body of operations from ``ops.OPS`` (the family's
own operations eight times as often as the others), wraps it in
transformations -- at most one of ``grad``, ``value_and_grad``, ``jvp``,
``vjp`` innermost, then up to two ``vmap``s with random ``in_axes`` and
``out_axes``, and ``jit`` inside or outside them -- and finally draws the
argument values for the shapes the transformations need.  Shrinking a failing
example gives a program with fewer operations, fewer stages and smaller
values.
"""
import re

from hypothesis import strategies as st

from . import ops as _ops
from .program import Input, Program
from .scope import Gen, Scope
from .types import Abstract

FAMILIES = ("elementwise", "reduction", "shape", "indexing", "control", "random",
            "errors", "autodiff", "vmap", "mixed")
AD_STAGES = ("grad", "value_and_grad", "jvp", "vjp")
# Families without operations of their own draw these more often.
FOCUS = {"autodiff": ("elementwise", "reduction"), "vmap": ("shape", "indexing")}


def op_pool(family, depth):
    """Operations to draw from, repeated by weight (sampled_from is uniform
    and shrinks towards the front, where the simplest operations are)."""
    pool = []
    for fam, weight, fn in _ops.OPS:
        if depth and fam == "control":
            continue                  # nesting: one level of control flow
        if fam == "errors" and family not in ("errors", "mixed"):
            continue                  # errors only where they are the point
        focus = fam == family or fam in FOCUS.get(family, ())
        pool += [fn] * (weight * (8 if focus else 1))
    return pool


_POOLS = {}


def draw_ops(sc, n, depth=0):
    key = (sc.gen.family, depth)
    pool = _POOLS.get(key) or _POOLS.setdefault(key, op_pool(*key))
    for _ in range(n):
        for _attempt in range(3):
            if sc.gen.one_of(pool)(sc):
                break


def body_inputs(gen, ad):
    """One to three arguments; with a derivative the first is a float."""
    for i in range(gen.integer(1, 3)):
        python = gen.chance(6)
        dtype = gen.dtype("f") if (ad and i == 0) else gen.dtype()
        gen.new_input(() if python else gen.shape(), dtype, python=python)


def unconsumed(sc):
    """Names of the body's values that no later node uses: returning all of
    them makes every operation observable."""
    lines = sc.block("f", "None").lines()
    text = "\n".join(lines)
    names = [n.strip() for node in sc.nodes for n in node.out.split(",")]
    return [n for n in names if len(re.findall(rf"\b{n}\b", text)) == 1]


def result_of(gen, sc, ad):
    """The body's return value: a loss for grad (the sum of every unused
    value), floats for vjp, else the unused values as a pytree."""
    outs = [(n, sc.local[n]) for n in unconsumed(sc)][-4:] or [sc.pick()]
    if ad in ("grad", "value_and_grad"):
        terms = [f"jnp.sum({n})" if t.kind == "f" else f"jnp.sum({n} * 1.5)" for n, t in outs]
        return sc.emit(" + ".join(terms), Abstract((), "float32"))
    if ad == "vjp":
        outs = [(n, t) if t.kind == "f" else (sc.emit(f"{n} * 1.5", t.replace(dtype="float32")), t)
                for n, t in outs]
    names = [n for n, _ in outs]
    if len(names) == 1:
        return names[0]
    if ad or gen.integer(0, 2):
        return "(" + ", ".join(names) + ")"
    return "{" + ", ".join(f"'{k}': {n}" for k, n in zip("abcd", names)) + "}"


def ad_stage(gen, ad, params, types):
    """Source of stage g1 and its parameters (types) for a derivative."""
    diff = [i for i, t in enumerate(types) if t.kind == "f"]
    chosen = [i for i in diff if i == diff[0] or gen.chance(2)]
    names = ", ".join(params)
    if ad in ("grad", "value_and_grad"):
        argnums = chosen[0] if len(chosen) == 1 and gen.chance(2) else tuple(chosen)
        return f"g1 = jax.{ad}(f, argnums={argnums!r})", list(params), list(types)
    wrt = [params[i] for i in chosen]
    lam = f"lambda {', '.join(wrt)}: f({names})"
    if ad == "jvp":
        tangents = [gen.name("t") for _ in chosen]
        src = (f"def g1({', '.join(list(params) + tangents)}):\n"
               f"    return jax.jvp({lam}, ({', '.join(wrt)},), ({', '.join(tangents)},))")
        return src, list(params) + tangents, list(types) + [types[i] for i in chosen]
    src = (f"def g1({names}):\n"
           f"    out, pullback = jax.vjp({lam}, {', '.join(wrt)})\n"
           f"    return out, pullback(jax.tree.map(jnp.cos, out))")
    return src, list(params), list(types)


def vmap_stage(gen, n, fn, types):
    """``jax.vmap`` with an axis (or None) per argument; returns the source
    and the argument types the batched function takes."""
    size = gen.one_of([2, 3, 1])
    axes, new = [], []
    for t in types:
        if t.py or gen.chance(4):
            axes.append(None)
            new.append(t)
            continue
        axis = gen.integer(-t.rank - 1, t.rank)
        pos = axis % (t.rank + 1)
        axes.append(axis)
        new.append(t.replace(shape=t.shape[:pos] + (size,) + t.shape[pos:]))
    if all(a is None for a in axes) and not gen.chance(8):
        return None, types
    out_axes = gen.one_of([0, -1])
    return (f"g{n} = jax.vmap({fn}, in_axes={tuple(axes)!r}, out_axes={out_axes})", new)


@st.composite
def programs(draw, family="mixed", max_ops=8):
    """A random program of ``family`` (one of FAMILIES)."""
    x64 = draw(st.integers(0, 4)) == 4
    gen = Gen(draw, x64)
    gen.family = family
    ad = None
    if family == "autodiff" or (family == "mixed" and gen.chance(3)):
        ad = gen.one_of(AD_STAGES)
        # XLA rewrites t * convert(mask), as derivatives of max, abs, where...
        # produce, into a select, so JAX's own derivative at NaN or inf
        # depends on jit; derivatives are drawn at finite points.
        gen.specials = False
    body_inputs(gen, ad)
    sc = Scope(gen)
    draw_ops(sc, gen.integer(2, max_ops))
    result = result_of(gen, sc, ad)
    params = [i.name for i in gen.inputs]
    types = [i.type for i in gen.inputs]
    sc.params = params                  # every argument, fresh ones included
    body = sc.block("f", result)
    stages = []
    if ad:
        src, params, types = ad_stage(gen, ad, params, types)
        stages.append(src)
    n_vmaps = gen.integer(0, 2) if family in ("vmap", "mixed", "autodiff", "control") \
        else gen.integer(0, 1)
    jit_at = gen.integer(0, n_vmaps + 1)       # n_vmaps + 1: no jit
    for k in range(n_vmaps + 1):
        if k == jit_at:
            stages.append(f"g{len(stages) + 1} = jax.jit({_prev(stages)})")
        if k < n_vmaps:
            src, types = vmap_stage(gen, len(stages) + 1, _prev(stages), types)
            if src:
                stages.append(src)
    args = tuple(_argument(gen, name, t) for name, t in zip(params, types))
    return Program(body, tuple(stages), args, x64=x64, family=family)


def _prev(stages):
    return f"g{len(stages)}" if stages else "f"


def _argument(gen, name, t):
    if t.py:
        return Input(name, t, gen.scalar_value(t.dtype, gen.specials and gen.chance(8)),
                     python=True)
    return Input(name, t, gen.values(t.shape, t.dtype))
