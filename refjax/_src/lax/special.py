"""The special-function primitives of ``jax.lax`` (SPEC SPF-1 .. SPF-7, SPF-12).

``bessel_i0e``, ``bessel_i1e``, ``igamma``, ``igammac``, ``igamma_grad_a``,
``random_gamma_grad``, ``polygamma``, ``zeta`` and
``regularized_incomplete_beta`` (bound by ``betainc``) are elementwise
primitives of floating operands, built like the others in
:mod:`refjax._src.lax.lax`: operands of one float dtype (rank-0 or size-1
axes broadcast), weak only when every operand is weak, batched by
broadcasting (SPEC SPF-1).  Their kernels, in
:mod:`refjax._src.lax.special_kernels`, compute in float64 and round once
to the operands' dtype.

Each block gives the primitive's JVP as JAX defines it (SPEC SPF-7),
including the derivatives JAX refuses: ``zeta`` and ``igamma_grad_a`` have
none, ``polygamma`` in its order and ``betainc`` in ``a`` and ``b`` raise
``ValueError``.  ``random_gamma_grad`` is differentiable in ``a`` to any
order through refjax's ``random_gamma_grad_da[order=k]`` (SPEC SPF-12).
"""
import functools

import numpy as np

from refjax._src import core, dtypes
from refjax._src.fperrors import quiet
from refjax._src.interpreters import ad
from refjax._src.lax import lax, shapes
from refjax._src.lax import special_kernels as kernels
from refjax._src.lax.lax import (
    _binary, _const, _float, _unary, _xp, abs, add, div, exp, full_like, gt, lgamma,
    log, log1p, mul, naryop, neg, reciprocal, select, sign, sub,
)


def _float64_kernel(kernel, with_dtype=False):
    """A primitive implementation: operands broadcast and widened to float64,
    ``kernel`` applied, the result rounded to the operands' dtype."""
    def impl(*operands):
        xp = _xp()
        dtype = operands[0].dtype
        wide = [xp.asarray(o).astype(np.float64) for o in operands]
        wide = [xp.array(w) for w in xp.broadcast_arrays(*wide)]
        out = kernel(*wide, dtype) if with_dtype else kernel(*wide)
        return xp.asarray(out).astype(dtype)
    impl.__name__ = kernel.__name__
    return impl


# ---------------------------------------------------------------------------
# Exponentially scaled Bessel functions (SPEC SPF-2)
# ---------------------------------------------------------------------------

bessel_i0e_p, bessel_i0e = _unary("bessel_i0e", _float, _float64_kernel(kernels.bessel_i0e))
bessel_i1e_p, bessel_i1e = _unary("bessel_i1e", _float, _float64_kernel(kernels.bessel_i1e))
bessel_i0e.__doc__ = "``exp(-|x|) I0(x)``, elementwise (SPEC SPF-2)."
bessel_i1e.__doc__ = "``exp(-|x|) I1(x)``, elementwise (SPEC SPF-2)."

# d/dx e^-|x| I0(x) = e^-|x| I1(x) - sign(x) e^-|x| I0(x).
ad.defjvp2(bessel_i0e_p, lambda g, y, x: mul(g, sub(bessel_i1e(x), mul(sign(x), y))))


def _bessel_i1e_jvp(g, y, x):
    """I1'(x) = I0(x) - I1(x) / x, scaled; near 0 (|x| <= eps) the limit
    1/2 replaces the quotient, as JAX's rule does (SPEC SPF-7)."""
    eps = float(dtypes.finfo(core.get_aval(x).dtype).eps)
    not_tiny = gt(abs(x), _const(x, eps))
    safe_x = select(not_tiny, x, full_like(x, eps))
    slope = sub(bessel_i0e(safe_x), mul(y, add(sign(safe_x), reciprocal(safe_x))))
    return mul(g, select(not_tiny, slope, full_like(x, 0.5)))


ad.defjvp2(bessel_i1e_p, _bessel_i1e_jvp)


# ---------------------------------------------------------------------------
# Incomplete gamma functions (SPEC SPF-3, SPF-4)
# ---------------------------------------------------------------------------

igamma_p, igamma = _binary("igamma", _float, _float64_kernel(kernels.igamma, True))
igammac_p, igammac = _binary("igammac", _float, _float64_kernel(kernels.igammac, True))
igamma_grad_a_p, igamma_grad_a = _binary(
    "igamma_grad_a", _float, _float64_kernel(kernels.igamma_grad_a, True))
igamma.__doc__ = "Regularized lower incomplete gamma ``P(a, x)`` (SPEC SPF-3)."
igammac.__doc__ = "Regularized upper incomplete gamma ``Q(a, x)`` (SPEC SPF-3)."
igamma_grad_a.__doc__ = "``dP(a, x)/da``, elementwise (SPEC SPF-4)."


def _igamma_dx(g, a, x):
    """dP/dx = x^(a-1) e^-x / Gamma(a)."""
    return mul(g, exp(sub(add(neg(x), mul(sub(a, _const(a, 1)), log(x))), lgamma(a))))


ad.defjvp(igamma_p, lambda g, a, x: mul(g, igamma_grad_a(a, x)), _igamma_dx)
ad.defjvp(igammac_p, lambda g, a, x: neg(mul(g, igamma_grad_a(a, x))),
          lambda g, a, x: neg(_igamma_dx(g, a, x)))
igamma_grad_a_p.not_supported(
    "jvp", "undefined in JAX: JAX defines no JVP for igamma_grad_a, so "
    "differentiating it raises NotImplementedError, as here")

random_gamma_grad_p = naryop("random_gamma_grad", _float,
                             _float64_kernel(kernels.random_gamma_grad, True))


def random_gamma_grad(a, x):
    """d x / d a of a Gamma(a, 1) sample ``x`` held at the same quantile
    (implicit reparameterization).  As in JAX, both operands are first
    broadcast to their common shape with their axes leading
    (``broadcast_in_dim`` onto the first axes) (SPEC SPF-4)."""
    # Shapes are compared before the operands are checked, as in JAX.
    given = [tuple(v.shape) if hasattr(v, "shape") else core.get_aval(v).shape
             for v in (a, x)]
    try:
        shape = np.broadcast_shapes(*given)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={given}") from None
    a, x = (v if s == shape else shapes.broadcast_in_dim(v, shape, tuple(range(len(s))))
            for v, s in zip((a, x), given))
    return random_gamma_grad_p.bind(a, x)


def _random_gamma_grad_jvp_a(g, a, x):
    """d/da random_gamma_grad = random_gamma_grad_da[order=1] (SPEC SPF-12)."""
    return mul(g, random_gamma_grad_da_p.bind(a, x, order=1))


def _where_jax_differentiates(a, x, slope):
    """``slope`` where a > 0 and x > 0, else 0: JAX's rules select a
    constant there (0 at x = 0, NaN outside the domain), whose tangent is
    zero (SPEC SPF-7)."""
    inside = lax.bitwise_and(gt(a, _const(a, 0)), gt(x, _const(x, 0)))
    return select(inside, slope, full_like(slope, 0))


def _random_gamma_grad_jvp_x(g, a, x):
    """d/dx of -(dP/da)/(dP/dx) = psi(a) - log x - r ((a-1)/x - 1), with
    r = random_gamma_grad(a, x), since d(dP/dx)/da = (log x - psi(a)) dP/dx.
    The product is formed as (r (a-1)) / x, not r ((a-1)/x): r vanishes
    with x, and (a-1)/x alone overflows for tiny x."""
    r = random_gamma_grad_p.bind(a, x)
    slope = add(sub(sub(lax.digamma(a), log(x)),
                    div(mul(r, sub(a, _const(a, 1))), x)), r)
    return mul(g, _where_jax_differentiates(a, x, slope))


ad.defjvp(random_gamma_grad_p, _random_gamma_grad_jvp_a, _random_gamma_grad_jvp_x)


def _random_gamma_grad_da_impl(a, x, *, order):
    kernel = functools.partial(kernels.random_gamma_grad_da, order=order)
    kernel.__name__ = "random_gamma_grad_da"
    return _float64_kernel(kernel, True)(a, x)


# The order-th derivative in a of random_gamma_grad, x held: JAX
# differentiates its loops forward to any order, so refjax needs every
# order; one primitive with an ``order`` parameter gives them all.
random_gamma_grad_da_p = naryop("random_gamma_grad_da", _float, None)
random_gamma_grad_da_p.def_impl(lambda a, x, *, order: quiet(
    _random_gamma_grad_da_impl, a, x, order=order))
random_gamma_grad_da_p.specialize = lambda avals_in, avals_out, *, order: (
    functools.partial(_random_gamma_grad_da_impl, order=order))


def random_gamma_grad_da(a, x, order=1):
    """The ``order``-th derivative of ``random_gamma_grad(a, x)`` in ``a``,
    ``x`` held (refjax's; JAX differentiates its loops instead).  Operands
    as for ``random_gamma_grad`` (SPEC SPF-12)."""
    if type(order) is not int or order < 1:
        raise ValueError(f"random_gamma_grad_da: order must be a positive int, got {order!r}")
    return random_gamma_grad_da_p.bind(a, x, order=order)


def _random_gamma_grad_da_jvp_x(g, a, x, *, order):
    """d/dx of the k-th a-derivative of r = random_gamma_grad is the k-th
    a-derivative of dr/dx = psi(a) - log x - r ((a-1)/x - 1): by Leibniz,
    psi^(k)(a) - r_k ((a-1)/x - 1) - k r_(k-1) / x (divided by x last,
    as for order 0)."""
    r_k = random_gamma_grad_da_p.bind(a, x, order=order)
    r_below = (random_gamma_grad_p.bind(a, x) if order == 1
               else random_gamma_grad_da_p.bind(a, x, order=order - 1))
    above_x = add(mul(r_k, sub(a, _const(a, 1))), mul(_const(x, order), r_below))
    slope = add(sub(polygamma(full_like(a, order), a), div(above_x, x)), r_k)
    return mul(g, _where_jax_differentiates(a, x, slope))


def _random_gamma_grad_da_jvp_a(g, a, x, *, order):
    """d/da of order k is order k + 1."""
    return mul(g, random_gamma_grad_da_p.bind(a, x, order=order + 1))


ad.defjvp(random_gamma_grad_da_p, _random_gamma_grad_da_jvp_a, _random_gamma_grad_da_jvp_x)


# ---------------------------------------------------------------------------
# Polygamma and Hurwitz zeta (SPEC SPF-5)
# ---------------------------------------------------------------------------

polygamma_p, polygamma = _binary("polygamma", _float, _float64_kernel(kernels.polygamma))
zeta_p, zeta = _binary("zeta", _float, _float64_kernel(kernels.zeta))
polygamma.__doc__ = "``psi^(m)(x)``, the m-th derivative of digamma (SPEC SPF-5)."
zeta.__doc__ = "Hurwitz zeta ``sum_k (q + k)^-x`` (SPEC SPF-5)."


def _polygamma_dm(g, m, x):
    raise ValueError("polygamma gradient with respect to m is not supported")


ad.defjvp(polygamma_p, _polygamma_dm,
          lambda g, m, x: mul(g, polygamma(add(m, _const(m, 1)), x)))
zeta_p.not_supported("jvp", "undefined in JAX: JAX defines no JVP for zeta (jax.scipy."
                      "special.zeta has a custom_jvp), so differentiating the "
                      "primitive raises NotImplementedError, as here")


# ---------------------------------------------------------------------------
# Regularized incomplete beta function (SPEC SPF-6)
# ---------------------------------------------------------------------------

regularized_incomplete_beta_p = naryop("regularized_incomplete_beta", _float,
                                       _float64_kernel(kernels.betainc))


def betainc(a, b, x):
    """``I_x(a, b)``, the regularized incomplete beta function (SPEC SPF-6)."""
    return regularized_incomplete_beta_p.bind(a, b, x)


def _betainc_dab(g, a, b, x):
    raise ValueError("Betainc gradient with respect to a and b not supported.")


def _betainc_dx(g, a, b, x):
    """dI/dx = x^(a-1) (1-x)^(b-1) / B(a, b)."""
    one = _const(a, 1)
    log_beta = sub(add(lgamma(a), lgamma(b)), lgamma(add(a, b)))
    return mul(exp(sub(add(mul(sub(b, one), log1p(neg(x))), mul(sub(a, one), log(x))),
                       log_beta)), g)


ad.defjvp(regularized_incomplete_beta_p, _betainc_dab, _betainc_dab, _betainc_dx)


def _same_dtypes_first(prim):
    """Operands of different float dtypes fail as in JAX, whose message for
    these primitives has no hint at a ``jnp`` twin (SPEC SPF-1)."""
    checked = prim.abstract_eval

    def abstract_eval(*avals, **params):
        names = [a.dtype.name for a in avals]
        if all(dtypes.issubdtype(a.dtype, np.floating) for a in avals) and (
                len(set(names)) > 1):
            raise TypeError(f"lax.{prim.name} requires arguments to have the same "
                            f"dtypes, got {', '.join(names)}.")
        return checked(*avals, **params)
    prim.abstract_eval = abstract_eval


for _prim in (igamma_p, igammac_p, igamma_grad_a_p, random_gamma_grad_p,
              random_gamma_grad_da_p, polygamma_p, zeta_p, regularized_incomplete_beta_p):
    _same_dtypes_first(_prim)
