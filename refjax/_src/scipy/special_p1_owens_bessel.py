"""``jax.scipy.special.owens_t`` and ``bessel_jn`` (SPEC SPC-16, SPC-17).

``owens_t`` is a fixed 13-point quadrature (Patefield and Tandy's method
T5) with the exact formulas JAX uses at ``h = 0`` and ``|a| = 1`` and the
reciprocal identity for ``|a| > 1``; it is a ``custom_jvp`` function whose
derivatives are the closed forms of the integrand.  ``bessel_jn`` runs
Miller's backward recurrence as a reverse ``scan``.
"""
import operator

import numpy as np

from refjax._src import core
from refjax._src.api import jit
from refjax._src.custom_derivatives import custom_jvp
from refjax._src.lax import lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.lax.control_flow.scan import scan
from refjax._src.numpy import contractions, creation, lax_numpy, ufuncs
from refjax._src.numpy import util as np_util
from refjax._src.numpy.util import _const
from refjax._src.scipy.special_lax import promote_args_inexact

__all__ = ["bessel_jn", "owens_t"]


# ---------------------------------------------------------------------------
# Owen's T function (SPEC SPC-16)
# ---------------------------------------------------------------------------

# Patefield and Tandy (J. Stat. Software 5(5), 2000), method T5: nodes t_i
# and weights w_i such that T(h, a) ~ a sum_i w_i exp(-h^2 (1 + a^2 t_i) / 2)
# / (1 + a^2 t_i) for |a| <= 1 (the 1/(2 pi) and the change of variables
# u^2 = a^2 t are folded into the weights).  They are float64 NumPy arrays,
# so with x64 on they promote the result to float64, as in JAX.
_T5_NODES = np.array([
    0.0035082039676451715, 0.031279042338030754, 0.085266826283219451,
    0.16245071730812277, 0.25851196049125435, 0.36807553840697534,
    0.48501092905604697, 0.60277514152618577, 0.71477884217753227,
    0.81475510988760099, 0.89711029755948966, 0.95723808085944262,
    0.99178832974629704,
])
_T5_WEIGHTS = np.array([
    0.018831438115323503, 0.018567086243977649, 0.018042093461223386,
    0.017263829606398753, 0.016243219975989857, 0.014994592034116705,
    0.013535474469662088, 0.011886351605820165, 0.010070377242777432,
    0.0081130545742299587, 0.0060419009528470239, 0.0038862217010742058,
    0.0016793031084546090,
])


def owens_t(h, a):
    """Owen's T function ``T(h, a) = 1/(2 pi) int_0^a exp(-h^2 (1 + x^2) / 2)
    / (1 + x^2) dx`` (SPEC SPC-16).

    Even in ``h``, odd in ``a``; NaN where ``h`` or ``a`` is NaN.
    """
    h, a = promote_args_inexact("owens_t", h, a)
    return _owens_t(h, a)


def _t5_quadrature(h, a):
    """T5's sum, for ``0 <= a <= 1``; the nodes run along a new last axis."""
    nodes = _T5_NODES.reshape((1,) * a.ndim + _T5_NODES.shape)
    r = ufuncs.multiply(ufuncs.square(a)[..., None], nodes)
    integrand = ufuncs.exp(-0.5 * ufuncs.square(h)[..., None] * (1. + r)) / (1. + r)
    return a * contractions.matmul(integrand, _T5_WEIGHTS)


@custom_jvp
def _owens_t(h, a):
    h = ufuncs.abs(h)
    abs_a = ufuncs.abs(a)
    root_2 = _const(h, np.sqrt(2))
    small_a = abs_a <= 1.
    # For |a| > 1 the quadrature is done for T(|a| h, 1/|a|) and converted
    # below by T(h, a) + T(a h, 1/a) = (Phi(h) + Phi(ah))/2 - Phi(h) Phi(ah)
    # - [h < 0] / 2 written with erf/erfc.
    quad_a = lax_numpy.where(small_a, abs_a, ufuncs.reciprocal(abs_a))
    quad_h = lax_numpy.where(small_a, h, abs_a * h)
    result = _t5_quadrature(quad_h, quad_a)
    result = lax_numpy.where(quad_h == 0., ufuncs.arctan(quad_a) / (2 * np.pi), result)
    result = lax_numpy.where(
        quad_a == 1.,
        0.125 * lax.erfc(-quad_h / root_2) * lax.erfc(quad_h / root_2), result)
    result = lax_numpy.where(abs_a > 1., _reciprocal_identity(h, abs_a, result), result)
    result = lax.sign(a) * result
    undefined = ufuncs.isnan(a) | ufuncs.isnan(h)
    return lax_numpy.where(undefined, creation.full_like(result, np.nan), result)


def _reciprocal_identity(h, abs_a, t_swapped):
    """``T(h, |a|)`` from ``T(|a| h, 1/|a|)``: the erf form where ``|a| h``
    is small, the erfc form (no cancellation in the tails) elsewhere."""
    h_scaled = h / _const(h, np.sqrt(2))
    erfc_h, erfc_ah = lax.erfc(h_scaled), lax.erfc(abs_a * h_scaled)
    near = 0.25 - 0.25 * lax.erf(h_scaled) * lax.erf(abs_a * h_scaled) - t_swapped
    far = 0.25 * (erfc_h + erfc_ah - erfc_h * erfc_ah) - t_swapped
    return lax_numpy.where(abs_a * h <= 0.67, near, far)


@_owens_t.defjvp
def _owens_t_jvp(primals, tangents):
    """``dT/dh = -exp(-h^2/2) erf(a h / sqrt 2) / (2 sqrt(2 pi))`` and
    ``dT/da = exp(-(1 + a^2) h^2 / 2) / (2 pi (1 + a^2))``."""
    (h, a), (h_dot, a_dot) = primals, tangents
    result = _owens_t(h, a)
    root_2 = _const(h, np.sqrt(2))
    d_h = (-lax.exp(-0.5 * lax.square(h)) * lax.erf(a * h / root_2)
           / (2. * _const(h, np.sqrt(2. * np.pi))))
    one_plus_a_sq = lax.square(a) + 1.
    d_a = lax.exp(-0.5 * one_plus_a_sq * lax.square(h)) / (2. * np.pi * one_plus_a_sq)
    return result, (d_h * h_dot + d_a * a_dot).astype(result.dtype)


# ---------------------------------------------------------------------------
# Bessel functions of the first kind (SPEC SPC-17)
# ---------------------------------------------------------------------------

@jit(static_argnames=("v", "n_iter"))
def bessel_jn(z, *, v, n_iter=50):
    """``J_0(z) .. J_v(z)``, stacked on a new leading axis (SPEC SPC-17).

    Miller's algorithm (Zhang and Jin, Computation of Special Functions):
    ``f_k`` starts at ``f_{n_iter+2} = 0``, ``f_{n_iter+1} = 1e-16`` and runs
    down by ``f_k = 2(k+1) f_{k+1} / z - f_{k+2}``; dividing by
    ``f_0 + 2 (f_2 + f_4 + ...)`` (equal to 1 for the true ``J_k``)
    normalizes.  Too many iterations for ``z`` overflow (NaN), as in JAX.
    ``v`` and ``n_iter`` are static; ``v`` must be an integer.
    """
    z = creation.asarray(z)
    z, = np_util.promote_dtypes_inexact(z)
    if z.dtype == np.complex128:
        # JAX tests the dtype against Python's ``complex`` (complex128);
        # complex64 fails later, in ``rem``, with a TypeError.
        raise ValueError("complex input not supported.")
    v = core.concrete_or_error(operator.index, v, "Argument v of bessel_jn.")
    n_iter = core.concrete_or_error(int, n_iter, "Argument n_iter of bessel_jn.")
    zero = creation.full_like(z, 0.0)

    def step_down(carry, k):
        f_k2, f_k1, even_sum = carry          # f_{k+2}, f_{k+1}
        f_k = 2.0 * (k + 1.0) * f_k1 / z - f_k2
        # (A complex z fails here, in rem, with JAX's TypeError.)
        is_even = lax.rem(k, _const(k, 2)) == 0
        even_sum = lax_numpy.where(is_even, even_sum + 2.0 * f_k, even_sum)
        return (f_k1, f_k, even_sum), f_k

    init = (zero, creation.full_like(z, 1e-16), zero)
    ks = lax_shapes.iota(z.dtype, n_iter + 1)
    (_, _, even_sum), f = scan(step_down, init, ks, reverse=True)
    return f[:v + 1] / (even_sum - f[0])[None]
