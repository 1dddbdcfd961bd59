"""Matrix-vector products and contraction paths in ``jax.numpy``
(SPEC NPP-9, NPP-10).

``matvec`` and ``vecmat`` are ``matmul`` vectorized over broadcast batch
axes, as in JAX.  ``einsum_path`` asks ``opt_einsum`` (the package JAX
uses) for a contraction order and returns its answer unchanged; refjax's
own ``einsum`` does not need the package, so it is imported only here.
"""
from refjax._src.api import jit
from refjax._src.numpy import ufuncs, util
from refjax._src.numpy.contractions import matmul
from refjax._src.numpy.vectorize import vectorize

__all__ = ["einsum_path", "matvec", "vecmat"]


@jit
def matvec(x1, x2, /):
    """Matrix ``x1`` times vector ``x2`` over broadcast leading axes:
    ``(..., n, m), (..., m) -> (..., n)`` (SPEC NPP-9)."""
    x1, x2 = util.ensure_arraylike("matvec", x1, x2)
    return vectorize(matmul, signature="(n,m),(m)->(n)")(x1, x2)


@jit
def vecmat(x1, x2, /):
    """The conjugate of vector ``x1`` times matrix ``x2`` over broadcast
    leading axes: ``(..., n), (..., n, m) -> (..., m)`` (SPEC NPP-9)."""
    # JAX names matvec in vecmat's argument errors too.
    x1, x2 = util.ensure_arraylike("matvec", x1, x2)
    return vectorize(matmul, signature="(n),(n,m)->(m)")(ufuncs.conj(x1), x2)


def _opt_einsum():
    try:
        import opt_einsum
    except ImportError as err:
        raise ImportError("jnp.einsum_path needs the opt_einsum package (as "
                          "jax.numpy.einsum_path does); install opt_einsum") from err
    return opt_einsum


def _unoptimized(opt_einsum):
    """A path optimizer contracting the first two operands each time."""
    class Unoptimized(opt_einsum.paths.PathOptimizer):
        def __call__(self, inputs, *args, **kwargs):
            return [(0, 1)] * (len(inputs) - 1)
    return Unoptimized()


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """``opt_einsum.contract_path``'s ``(path, PathInfo)`` for an einsum:
    ``optimize=True`` means ``'optimal'`` and ``False`` the left-to-right
    pairwise order; strings and explicit paths go to opt_einsum as given
    (SPEC NPP-10)."""
    opt_einsum = _opt_einsum()
    if isinstance(optimize, bool):
        optimize = "optimal" if optimize else _unoptimized(opt_einsum)
    return opt_einsum.contract_path(subscripts, *operands, optimize=optimize)
