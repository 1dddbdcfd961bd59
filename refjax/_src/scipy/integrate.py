"""``jax.scipy.integrate``: the trapezoidal rule (SPEC SIG-12)."""
from refjax._src.api import jit
from refjax._src.numpy import statistics

__all__ = ["trapezoid"]


@jit(static_argnames=("axis",))
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` along ``axis`` by the trapezoidal rule, at the
    sample points ``x`` or at spacing ``dx``: ``jnp.trapezoid`` under a
    ``jit`` of its own, as in JAX (SPEC SIG-12)."""
    return statistics.trapezoid(y, x, dx, axis)
