"""Differential testing: random JAX programs run on two implementations.

The generator (``generate.programs``) draws programs as data (``program``),
the runner (``runner``) runs each on an implementation and a reference and
compares values, dtypes, shapes, weak types, pytree structure and error
classes (``compare``).  See SPEC.md, area DIFF, and README "Differential
testing".
"""
from .compare import compare
from .generate import FAMILIES, programs
from .program import Outcome, Program, run
from .runner import (DEFAULT_EXAMPLES, DEFAULT_SEED, Disagreement, Pair, default_reference,
                     find_disagreement, load, per_family)

__all__ = ["FAMILIES", "DEFAULT_EXAMPLES", "DEFAULT_SEED", "Disagreement", "Outcome", "Pair",
           "Program", "compare", "default_reference", "find_disagreement", "load",
           "per_family", "programs", "run"]
