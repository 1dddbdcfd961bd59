"""JAX's error classes, with JAX's names and base classes (SPEC ERR-1).

Each message ends with a pointer to JAX's documentation of the error, as
JAX's own messages do, so users can look the error up by name.
"""

_DOCS = "https://docs.jax.dev/en/latest/errors.html"


class _JAXErrorMixin:
    """Appends the documentation link for the concrete error class."""

    _error_page = _DOCS

    def __init__(self, message: str):
        name = type(self).__name__
        super().__init__(f"{message}\nSee {self._error_page}#jax.errors.{name}")


class JAXTypeError(_JAXErrorMixin, TypeError):
    pass


class JAXIndexError(_JAXErrorMixin, IndexError):
    pass


class ConcretizationTypeError(JAXTypeError):
    pass


class NonConcreteBooleanIndexError(JAXIndexError):
    pass


class TracerArrayConversionError(JAXTypeError):
    pass


class TracerIntegerConversionError(JAXTypeError):
    pass


class TracerBoolConversionError(ConcretizationTypeError):
    pass


class UnexpectedTracerError(JAXTypeError):
    pass


class KeyReuseError(JAXTypeError):
    pass


class JaxRuntimeError(RuntimeError):
    pass


class JaxprTypeError(TypeError):
    pass


class InconclusiveDimensionOperation(Exception):
    pass
