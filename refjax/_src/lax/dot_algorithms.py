"""The types that name how a dot product or an approximate function is
computed: ``DotAlgorithm``, ``DotAlgorithmPreset``, ``AccuracyMode``,
``Tolerance`` and the type aliases ``DotDimensionNumbers`` and
``PrecisionLike`` (SPEC LXM-14).

refjax computes every product one way (in the operands' precision); an
algorithm only travels as the ``precision`` parameter of ``dot_general``,
except that presets XLA's CPU backend rejects are rejected here too.
"""
import enum
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from refjax._src import dtypes

DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]],
                            tuple[Sequence[int], Sequence[int]]]


class DotAlgorithm(NamedTuple):
    """An explicit dot algorithm: operand and accumulation types and the
    number of component products (SPEC LXM-14)."""
    lhs_precision_type: object
    rhs_precision_type: object
    accumulation_type: object
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False

    def __repr__(self):
        fields = ", ".join(f"{k}={_type_repr(v)}" for k, v in zip(self._fields, self))
        return f"DotAlgorithm({fields})"

    __str__ = __repr__


def _type_repr(v):
    """A dtype field as JAX prints it (``<class 'jax.numpy.float32'>``)."""
    if isinstance(v, (bool, int)):
        return repr(v)
    try:
        return f"<class 'jax.numpy.{np.dtype(dtypes.to_dtype(v)).name}'>"
    except TypeError:
        return repr(v)


class DotAlgorithmPreset(enum.Enum):
    """The named dot algorithms, with JAX's members (SPEC LXM-14)."""
    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self):
        return f"{type(self).__name__}.{self.name}"

    def __str__(self):
        return self.name

    @property
    def supported_lhs_types(self):
        """The operand storage types the algorithm takes (None: any)."""
        name = self.name
        if name == "DEFAULT" or name.startswith("ANY_F8"):
            return None
        if name.startswith("F16"):
            return (np.float16,)
        if name in ("BF16_BF16_BF16", "BF16_BF16_F32"):
            return (dtypes.bfloat16, np.float32)
        if name == "F64_F64_F64":
            return (np.float64,)
        return (np.float32,)

    @property
    def supported_rhs_types(self):
        return self.supported_lhs_types

    @property
    def accumulation_type(self):
        """The type products are summed in (None: the backend's choice)."""
        return {"DEFAULT": None, "ANY_F8_ANY_F8_ANY": None,
                "ANY_F8_ANY_F8_ANY_FAST_ACCUM": None, "F16_F16_F16": np.float16,
                "BF16_BF16_BF16": dtypes.bfloat16,
                "F64_F64_F64": np.float64}.get(self.name, np.float32)


# The presets XLA's CPU backend cannot run (JAX raises when compiling).
_CPU_UNSUPPORTED = frozenset({
    "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F32", "BF16_BF16_BF16",
    "BF16_BF16_F32_X9", "TF32_TF32_F32", "TF32_TF32_F32_X3"})


def check_cpu_algorithm(precision):
    """JAX's ``ValueError`` for a preset the CPU backend does not run
    (SPEC LXM-14)."""
    if isinstance(precision, DotAlgorithmPreset) and precision.name in _CPU_UNSUPPORTED:
        raise ValueError(f"The precision '{precision}' is not supported by "
                         "dot_general on CPU")


def is_algorithm(precision):
    return isinstance(precision, (DotAlgorithm, DotAlgorithmPreset))


class AccuracyMode(enum.Enum):
    """How accurately a transcendental function should be computed."""
    HIGHEST = 1
    DEFAULT = 2


class Tolerance:
    """An accuracy request for a transcendental function: at most two of
    ``atol``, ``rtol`` and ``ulps``, non-negative, one non-zero
    (SPEC LXM-14)."""

    def __init__(self, atol=0.0, rtol=0.0, ulps=0):
        if atol < 0.0 or rtol < 0.0 or ulps < 0.0:
            raise ValueError("Tolerances must be non-negative.")
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ValueError("At least one of atol, rtol, or ulps must be set.")
        self.atol = atol
        self.rtol = rtol
        self.ulps = ulps
