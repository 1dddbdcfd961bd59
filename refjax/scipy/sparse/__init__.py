"""``refjax.scipy.sparse``, as ``jax.scipy.sparse``: its ``linalg``
submodule of iterative solvers (SPEC SOP-11)."""
from refjax.scipy.sparse import linalg  # noqa: F401
