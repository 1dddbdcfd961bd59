"""``refjax.extend``: the parts of ``jax.extend`` refjax provides."""
from refjax.extend import core, random  # noqa: F401
