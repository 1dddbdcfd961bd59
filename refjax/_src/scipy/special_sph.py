"""Spherical harmonics, ``jax.scipy.special.sph_harm_y`` (SPEC SPC-38).

``Y_n^m(theta, phi) = N_n^m P_n^m(cos theta) exp(i m phi)`` with the
orthonormal ``N_n^m`` and the Condon-Shortley phase.  The normalized
associated Legendre functions ``N_l^m P_l^m`` for every ``0 <= m <= l <=
n_max`` are built by the standard three recurrences (the diagonal
``l = m``, the first off-diagonal ``l = m + 1``, then upward in ``l``),
written with the normalization folded in so that no factorial overflows;
``n_max`` is static, so these are Python loops over degrees and orders.
"""
import functools
import math

import numpy as np

from refjax._src import core
from refjax._src.api import jit
from refjax._src.lax import lax
from refjax._src.lax import shapes as lax_shapes
from refjax._src.numpy import creation, lax_numpy, ufuncs

__all__ = ["sph_harm_y"]


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonic of degree ``n`` and order ``m`` at colatitude
    ``theta`` and longitude ``phi`` (SPEC SPC-38).

    ``n``, ``m`` and ``phi`` are 1-D arrays of one length; ``theta`` is one
    too, or a scalar.  ``n_max`` (static) bounds ``n``; larger degrees are
    clipped to it, and by default it is ``max(n)``, which needs a concrete
    ``n``.  ``diff_n`` (derivatives) is not supported: ``NotImplementedError``
    as in JAX.
    """
    if diff_n is not None:
        raise NotImplementedError(
            "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported.")
    if lax_numpy.isscalar(theta):
        theta = creation.array([theta])
    if n_max is None:
        n_max = _concrete_max(n)
    n_max = core.concrete_or_error(
        int, n_max, "The `n_max` argument of `jnp.scipy.special.sph_harm` must be "
        "statically specified to use `sph_harm` within JAX transformations.")
    return _sph_harm(n, m, theta, phi, n_max)


def _concrete_max(n):
    """``max(n)`` read from a concrete array (``np.max`` in JAX)."""
    return np.max(n)


@functools.partial(jit, static_argnums=(4,))
def _sph_harm(n, m, theta, phi, n_max):
    x = ufuncs.cos(theta)
    table = _normalized_legendre(n_max, x)
    points = creation.arange(len(n))
    value = table.at[ufuncs.abs(m), n, points].get(mode="clip")
    angle = ufuncs.abs(m) * phi
    phase = lax.complex(ufuncs.cos(angle), ufuncs.sin(angle))
    harmonic = lax.complex(value * ufuncs.real(phase), value * ufuncs.imag(phase))
    # Y_n^{-m} = (-1)^m conj(Y_n^m).
    return lax_numpy.where(m < 0, (-1.0) ** ufuncs.abs(m) * ufuncs.conjugate(harmonic),
                           harmonic)


def _normalized_legendre(l_max, x):
    """``N_l^m P_l^m(x)`` as an array indexed ``[m, l, point]``; zero for
    ``m > l``."""
    zero = lax.full_like(x, 0)
    rows = [[zero] * (l_max + 1) for _ in range(l_max + 1)]
    sin_theta = ufuncs.sqrt(1.0 - x * x)
    diagonal = lax.full_like(x, 0.5 / math.sqrt(math.pi))      # Y_0^0
    for mm in range(l_max + 1):
        if mm > 0:
            diagonal = diagonal * -math.sqrt(1.0 + 0.5 / mm) * sin_theta
        rows[mm][mm] = diagonal
        if mm < l_max:
            rows[mm][mm + 1] = math.sqrt(2.0 * mm + 3.0) * x * diagonal
        for ll in range(mm + 2, l_max + 1):
            a, b = _upward_coefficients(ll, mm)
            rows[mm][ll] = a * x * rows[mm][ll - 1] - b * rows[mm][ll - 2]
    return lax_shapes.stack([lax_shapes.stack(row) for row in rows])


def _upward_coefficients(ll, mm):
    """``a``, ``b`` in ``P_l^m = a x P_{l-1}^m - b P_{l-2}^m`` for the
    normalized functions."""
    l2, m2 = ll * ll, mm * mm
    a = math.sqrt((4.0 * l2 - 1.0) / (l2 - m2))
    b = math.sqrt((2.0 * ll + 1.0) * ((ll - 1.0) ** 2 - m2) / ((2.0 * ll - 3.0) * (l2 - m2)))
    return a, b

