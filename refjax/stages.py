"""``jax.stages``: the objects of ahead-of-time compilation (SPEC API-11).

``jax.jit(f)`` is a ``Wrapped``; ``.trace(...)`` gives a ``Traced``,
``.lower(...)`` a ``Lowered`` and ``.compile()`` a ``Compiled``.
"""
from refjax._src.api import PjitFunction as Wrapped  # noqa: F401
from refjax._src.stages import ArgInfo, Compiled, Lowered, Traced  # noqa: F401

# Options a compiler takes: names to strings or booleans (refjax ignores them).
CompilerOptions = dict[str, str | bool]
