"""JAX's error classes, with JAX's names and base classes (SPEC ERR-1, ERR-7).

Each message ends with a pointer to JAX's documentation of the error, as
JAX's own messages do, so users can look the error up by name.

The tracer errors are built, as in JAX, from the offending tracer
(``TracerBoolConversionError(tracer)``, ``ConcretizationTypeError(tracer,
context)``): the message then describes its abstract value and where it came
from (SPEC ERR-6).  They also accept a ready-made message string.
"""

_DOCS = "https://docs.jax.dev/en/latest/errors.html"


class _JAXErrorMixin:
    """Appends the documentation link for the concrete error class."""

    _error_page = _DOCS

    def __init__(self, message: str):
        name = type(self).__name__
        super().__init__(f"{message}\nSee {self._error_page}#jax.errors.{name}")


def _is_tracer(x):
    # Tracers describe themselves; this module cannot import core (cycle).
    return hasattr(x, "_error_repr") and hasattr(x, "_origin_msg")


class JAXTypeError(_JAXErrorMixin, TypeError):
    pass


class JAXIndexError(_JAXErrorMixin, IndexError):
    pass


class ConcretizationTypeError(JAXTypeError):
    """A concrete value was needed where a tracer was given (SPEC ERR-2)."""

    def __init__(self, tracer, context=""):
        if not _is_tracer(tracer):
            super().__init__(tracer if not context else f"{tracer}\n{context}")
            return
        super().__init__(
            "Abstract tracer value encountered where concrete value is expected: "
            f"{tracer._error_repr()}\n{context}{tracer._origin_msg()}\n")


class NonConcreteBooleanIndexError(JAXIndexError):
    def __init__(self, tracer):
        if not _is_tracer(tracer):
            super().__init__(tracer)
            return
        super().__init__(f"Array boolean indices must be concrete; got {tracer}\n")


class TracerArrayConversionError(JAXTypeError):
    """``np.asarray(tracer)``, a NumPy function on a tracer (SPEC ERR-5)."""

    def __init__(self, tracer):
        if not _is_tracer(tracer):
            super().__init__(tracer)
            return
        super().__init__("The numpy.ndarray conversion method __array__() was called "
                         f"on {tracer._error_repr()}{tracer._origin_msg()}")


class TracerIntegerConversionError(JAXTypeError):
    """A tracer used as a Python index (SPEC ERR-4)."""

    def __init__(self, tracer):
        if not _is_tracer(tracer):
            super().__init__(tracer)
            return
        super().__init__(f"The __index__() method was called on "
                         f"{tracer._error_repr()}{tracer._origin_msg()}")


class TracerBoolConversionError(ConcretizationTypeError):
    """A tracer used as a Python bool: ``if``, ``and``, ``min`` (SPEC ERR-3)."""

    def __init__(self, tracer):
        if not _is_tracer(tracer):
            JAXTypeError.__init__(self, tracer)
            return
        JAXTypeError.__init__(self, f"Attempted boolean conversion of "
                                    f"{tracer._error_repr()}.{tracer._origin_msg()}")


class UnexpectedTracerError(JAXTypeError):
    """A tracer used after its transformation ended (SPEC LEAK-1)."""

    def __init__(self, msg):
        super().__init__(msg)


class KeyReuseError(JAXTypeError):
    pass


class JaxRuntimeError(RuntimeError):
    pass


class JaxprTypeError(TypeError):
    pass


class InconclusiveDimensionOperation(Exception):
    pass
