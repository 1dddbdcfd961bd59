"""Python scalars that remember the dtype they were given (SPEC AD-104).

``jax.vjp`` (and so ``jax.grad``) fixes the type of a Python scalar primal
when it is called: ``vjp(f, 1.0)`` differentiates at a weakly typed float32
(x64 off), even if ``f`` enters ``jax.enable_x64`` later, and the primal
output of ``vjp(lambda x: x, 1.0)`` is ``TypedFloat(1.0, dtype=float32)``.
A typed scalar is still a ``float`` (``int``, ``complex``) for Python code;
arithmetic on it gives plain Python numbers, as in JAX.
"""
import numpy as np


class _Typed:
    __slots__ = ()
    weak_type = True        # a Python scalar's type: weak (DT-3)

    def __new__(cls, value, dtype):
        out = cls._base.__new__(cls, value)
        out.dtype = np.dtype(dtype)
        return out

    def __repr__(self):
        return f"{type(self).__name__}({self._base(self)!r}, dtype={self.dtype.name})"

    def __str__(self):
        return str(self._base(self))

    def __reduce__(self):
        return type(self), (self._base(self), self.dtype)


class TypedInt(_Typed, int):
    _base = int


class TypedFloat(_Typed, float):
    _base = float


class TypedComplex(_Typed, complex):
    _base = complex


TYPED = {int: TypedInt, float: TypedFloat, complex: TypedComplex}
