"""``refjax.scipy``: SciPy-like functions, as ``jax.scipy``.

Only ``refjax.scipy.special`` exists so far; it is imported with the package
so that ``refjax.scipy.special`` works after ``import refjax.scipy``.
"""
from refjax.scipy import special  # noqa: F401
