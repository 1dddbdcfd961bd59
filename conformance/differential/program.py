"""Generated programs as data: printable as Python source, runnable on any
JAX-like module (SPEC DIFF-1).

A ``Program`` is a function body (``Block``: named parameters, a list of
``Node`` assignments, a result), the transformation stages wrapped around it
(``jax.grad``, ``jax.vmap``, ``jax.jit``..., each one line of source), and the
concrete arguments (``Input``: dtype, shape and values as nested lists).
``source()`` is a complete script; running a program executes exactly that
script's definitions with ``jax``, ``jnp`` and ``lax`` bound to the module
under test, so the printed reproducer is what ran.
"""
import dataclasses
import math
import warnings

from .types import Abstract


def literal(value):
    """Python source for a scalar value (nan and inf spelled through jnp)."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "jnp.nan"
        if math.isinf(value):
            return "jnp.inf" if value > 0 else "-jnp.inf"
    return repr(value)


def nested(values):
    if isinstance(values, list):
        return "[" + ", ".join(nested(v) for v in values) + "]"
    return literal(values)


@dataclasses.dataclass(frozen=True)
class Input:
    """One argument: a Python scalar (weak type) or an array built with
    ``jnp.array(values, dtype=...)``."""
    name: str
    type: Abstract
    values: object = None
    python: bool = False

    def source(self):
        if self.python:
            return literal(self.values)
        if 0 in self.type.shape:
            return f"jnp.zeros({self.type.shape}, dtype=jnp.{self.type.dtype})"
        return f"jnp.array({nested(self.values)}, dtype=jnp.{self.type.dtype})"


@dataclasses.dataclass(frozen=True)
class Node:
    """``out = expr``, after the nested function definitions ``defs`` that
    the expression calls (branches of ``cond``, bodies of ``scan``...)."""
    out: str
    expr: str
    defs: tuple = ()


@dataclasses.dataclass(frozen=True)
class Block:
    name: str
    params: tuple
    nodes: tuple
    result: str

    def lines(self, indent=0):
        pad, inner = "    " * indent, "    " * (indent + 1)
        out = [f"{pad}def {self.name}({', '.join(self.params)}):"]
        for node in self.nodes:
            for block in node.defs:
                out += block.lines(indent + 1)
            out.append(f"{inner}{node.out} = {node.expr}")
        out.append(f"{inner}return {self.result}")
        return out


@dataclasses.dataclass(frozen=True)
class Program:
    """A body, its transformation stages (source lines defining g1, g2...,
    innermost first) and the arguments of the final call."""
    body: Block
    stages: tuple
    args: tuple
    x64: bool = False
    family: str = "mixed"

    @property
    def entry(self):
        return f"g{len(self.stages)}" if self.stages else self.body.name

    def definitions(self):
        """The part of the script that runs on the module under test."""
        lines = self.body.lines()
        for stage in self.stages:
            lines += stage.splitlines()
        lines += [f"{a.name} = {a.source()}" for a in self.args]
        lines.append(f"out = {self.entry}({', '.join(a.name for a in self.args)})")
        return "\n".join(lines) + "\n"

    def source(self):
        """A runnable reproducer."""
        head = ["import jax", "import jax.numpy as jnp", "from jax import lax"]
        if self.x64:
            head.append('jax.config.update("jax_enable_x64", True)')
        return "\n".join(head) + "\n\n" + self.definitions() + "print(out)\n"

    def __str__(self):
        return self.source()


@dataclasses.dataclass
class Outcome:
    """What running a program gave: a pytree of host leaves, or an error."""
    value: object = None
    error: BaseException = None


_CODE_CACHE = {}


def _compiled(program):
    text = program.definitions()
    code = _CODE_CACHE.get(text)
    if code is None:
        if len(_CODE_CACHE) > 256:
            _CODE_CACHE.clear()
        code = _CODE_CACHE[text] = compile(text, "<generated program>", "exec")
    return code


def run(program, module, eager=False, python_as_arrays=False):
    """Execute ``program`` on ``module`` (a JAX-like top-level module) and
    bring its result to the host.  ``eager=True`` runs it under
    ``module.disable_jit()`` (the self-check reference, SPEC DIFF-2), where
    a function may return a Python scalar that ``jit`` would return as a
    weakly typed array: ``python_as_arrays`` compares them as such."""
    from .compare import to_host
    namespace = {"jax": module, "jnp": module.numpy, "lax": module.lax}
    old = module.config.jax_enable_x64
    module.config.update("jax_enable_x64", program.x64)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if eager:
                with module.disable_jit():
                    exec(_compiled(program), namespace)
            else:
                exec(_compiled(program), namespace)
            return Outcome(value=to_host(namespace["out"], module, python_as_arrays))
    except Exception as e:  # noqa: BLE001 -- the error is the outcome compared
        return Outcome(error=e)
    finally:
        module.config.update("jax_enable_x64", old)
