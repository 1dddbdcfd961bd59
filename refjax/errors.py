"""Public error classes, as ``jax.errors``."""
from refjax._src.errors import (  # noqa: F401
    ConcretizationTypeError, InconclusiveDimensionOperation, JAXIndexError,
    JAXTypeError, JaxprTypeError, JaxRuntimeError, KeyReuseError,
    NonConcreteBooleanIndexError, TracerArrayConversionError,
    TracerBoolConversionError, TracerIntegerConversionError,
    UnexpectedTracerError,
)
