"""``jax.export``: serializing jitted functions (SPEC API-14).

JAX exports a function as a StableHLO module that XLA can run later, maybe
elsewhere.  refjax produces no StableHLO (it runs jaxprs on NumPy), so
``export``, ``deserialize`` and symbolic shapes raise NotImplementedError
naming that reason.  The constants and registrations that need no module
work as in JAX.
"""
from refjax._src.api import PjitFunction

__all__ = [
    "DisabledSafetyCheck", "Exported", "SymbolicScope", "default_export_platform",
    "deserialize", "export", "is_symbolic_dim",
    "maximum_supported_calling_convention_version",
    "minimum_supported_calling_convention_version",
    "register_namedtuple_serialization", "register_pytree_node_serialization",
    "symbolic_args_specs", "symbolic_shape",
]

minimum_supported_calling_convention_version = 9
maximum_supported_calling_convention_version = 10

_NO_STABLEHLO = ("refjax runs jaxprs on NumPy and produces no StableHLO "
                 "module, so it cannot {}")


class Exported:
    """An exported function (never built by refjax: see ``export``)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NO_STABLEHLO.format("build an Exported"))


class DisabledSafetyCheck:
    """A safety check to skip when exporting: ``platform()`` or
    ``custom_call(target_name)``."""

    def __init__(self, _impl):
        self._impl = _impl

    @classmethod
    def platform(cls):
        return cls("platform")

    @classmethod
    def custom_call(cls, target_name):
        return cls(f"custom_call:{target_name}")

    def is_custom_call(self):
        return self._impl[len("custom_call:"):] if \
            self._impl.startswith("custom_call:") else None

    def __eq__(self, other):
        return isinstance(other, DisabledSafetyCheck) and other._impl == self._impl

    def __hash__(self):
        return hash(self._impl)

    def __repr__(self):
        return f"DisabledSafetyCheck({self._impl})"


class SymbolicScope:
    """The scope of symbolic dimensions (needs shape polymorphism)."""

    def __init__(self, constraints_str=()):
        raise NotImplementedError(_NO_STABLEHLO.format(
            "export with symbolic (shape-polymorphic) dimensions"))


def default_export_platform():
    """The platform functions are exported for by default: the current one."""
    return "cpu"


def export(fun_jit, *, platforms=None, disabled_checks=()):
    """``export(jax.jit(f))(*args)``: refused, with the reason (API-14)."""
    if not isinstance(fun_jit, PjitFunction):
        raise ValueError(
            f"Function to be exported must be the result of `jit` but is: {fun_jit}")

    def do_export(*args, **kwargs):
        raise NotImplementedError(_NO_STABLEHLO.format("export a function"))
    return do_export


def deserialize(blob):
    raise NotImplementedError(_NO_STABLEHLO.format("deserialize an Exported"))


def is_symbolic_dim(p):
    """Whether ``p`` is a symbolic dimension: never, in refjax."""
    return False


def symbolic_shape(shape_spec, *, constraints=(), scope=None, like=None):
    raise NotImplementedError(_NO_STABLEHLO.format(
        "export with symbolic (shape-polymorphic) dimensions"))


def symbolic_args_specs(args, shapes_specs, constraints=(), scope=None):
    raise NotImplementedError(_NO_STABLEHLO.format(
        "export with symbolic (shape-polymorphic) dimensions"))


_serializations = {}


def register_pytree_node_serialization(nodetype, *, serialized_name,
                                       serialize_auxdata, deserialize_auxdata,
                                       from_children=None):
    """Record how to serialize ``nodetype``; returns it, as in JAX."""
    if nodetype in _serializations:
        raise ValueError(
            f"Duplicate serialization registration for type `{nodetype}`. "
            f"Previous registration was with serialized_name "
            f"`{_serializations[nodetype]}`.")
    _serializations[nodetype] = serialized_name
    return nodetype


def register_namedtuple_serialization(nodetype, *, serialized_name):
    """As ``register_pytree_node_serialization``, for a namedtuple."""
    if not hasattr(nodetype, "_fields"):
        raise ValueError(f"Cannot register {nodetype} for serialization: it "
                         "is not a namedtuple type.")
    return register_pytree_node_serialization(
        nodetype, serialized_name=serialized_name,
        serialize_auxdata=lambda aux: b"", deserialize_auxdata=lambda b: None)
