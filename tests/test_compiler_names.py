"""refjax-only tests of the names in the program jit writes (SPEC PERF-5).

A primitive's name is the one user-chosen string that reaches the Python
source ``compiler.py`` writes and executes.  Whatever it is -- the name of a
built-in primitive in full-width letters (which Python's parser folds to
ASCII), the name of the program's own function, of one of its locals, of an
aval or helper, a keyword, something no identifier may contain -- the
primitive must run its own kernel and the program must stay valid.
"""
import re

import numpy as np
import pytest

import refjax as jax
import refjax.numpy as jnp
from refjax.extend.core import Primitive

NAMES = [
    "ｓｉｎ",          # NFKC-normalizes to ``sin``, a built-in kernel
    "run",             # the program's function
    "v0", "a0", "c0",  # its locals, arguments and constants
    "x²",              # not an identifier at all
    "f32_3", "t_f32_3", "k_sin",   # avals and kernels, old and new spellings
    "_as_dtype", "_silence", "_token",
    "and", "lambda", "None",
    "", "3d", "a b", "名前", "__builtins__",
]


def _offset_primitive(name, offset):
    """A unary primitive called ``name`` computing ``x + offset``."""
    prim = Primitive(name)
    prim.def_impl(lambda x: x + np.float32(offset))
    prim.def_abstract_eval(lambda aval: aval)
    return prim


def _program(f, *args):
    return jax.jit(f).lower(*args).as_text()


@pytest.mark.spec("PERF-5")
@pytest.mark.parametrize("name", NAMES)
def test_any_primitive_name_runs_its_own_kernel(name):
    prim = _offset_primitive(name, 100.0)
    x = jnp.arange(3, dtype=jnp.float32)

    def f(x):
        # Real sin and a constant first, so every namespace is populated.
        return prim.bind(jnp.sin(x) * 2.0)

    want = np.sin(np.arange(3, dtype=np.float32)) * 2 + 100
    np.testing.assert_allclose(jax.jit(f)(x), want, rtol=1e-6)
    np.testing.assert_allclose(f(x), want, rtol=1e-6)


@pytest.mark.spec("PERF-5")
def test_many_colliding_names_in_one_program():
    prims = [_offset_primitive(name, 10.0 ** k) for k, name in enumerate(
        ["sin", "ｓｉｎ", "run", "v0", "f32_3", "x²", "x_", "x_00b2"])]
    x = jnp.zeros(3, dtype=jnp.float32)

    def f(x):
        for p in prims:
            x = p.bind(x)
        return x

    want = sum(10.0 ** k for k in range(len(prims)))
    np.testing.assert_allclose(jax.jit(f)(x), np.full(3, want), rtol=1e-6)


@pytest.mark.spec("PERF-5")
def test_generated_names_are_prefixed_ascii():
    prim = _offset_primitive("ｓｉｎ", 1.0)
    text = _program(lambda x: prim.bind(jnp.sin(x) * 2.0), jnp.ones(3))
    source = text.split("def run(")[1]
    assert source.isascii()
    assert "k_sin(" in source and "k_uff53uff49uff4e(" in source
    names = set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", source))
    keywords = {"a0", "_token", "_silence", "_restore", "_as_dtype", "try",
                "finally", "return", "del"}
    for name in names - keywords:
        assert re.fullmatch(r"[avc]\d+|k_\w+|t_\w+", name), name


@pytest.mark.spec("PERF-5")
def test_same_kernel_text_gets_distinct_names():
    # Different kernels whose escaped names coincide (``x-1``, ``x_1``,
    # ``x 1``) and one whose name is another's suffixed form.
    prims = [_offset_primitive(name, k + 1.0)
             for k, name in enumerate(["x-1", "x_1", "x 1", "x_1_0"])]

    def f(x):
        return [p.bind(x) for p in prims]

    outs = jax.jit(f)(jnp.zeros(2, dtype=jnp.float32))
    assert [float(o[0]) for o in outs] == [1.0, 2.0, 3.0, 4.0]
