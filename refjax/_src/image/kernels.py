"""The resampling methods of ``jax.image`` and their kernels (SPEC IMG-2,
IMG-3).

A kernel maps the distance ``x >= 0`` (in input pixels, already divided by
the antialiasing stretch) between an output pixel's sample point and an
input pixel's centre to that input pixel's unnormalized weight.  Every
kernel here interpolates: it is 1 at 0 and 0 at the other integers, which
is why ``resize`` may skip an axis whose size does not change.
"""
import enum

import numpy as np

from refjax._src.numpy import lax_numpy, ufuncs


class ResizeMethod(enum.Enum):
    """The resampling methods (SPEC IMG-2): ``NEAREST`` (nearest neighbour,
    ``resize`` only), ``LINEAR`` (triangle kernel, radius 1), ``LANCZOS3``
    and ``LANCZOS5`` (windowed sinc of radius 3 and 5), ``CUBIC`` (Keys'
    cubic, ``a = -0.5``), ``CUBIC_PYTORCH`` (OpenCV's cubic, ``a = -0.75``,
    edges repeated, used only without antialiasing) and ``AREA`` (box
    average over each output pixel's footprint).  The values are JAX's."""

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s):
        """The method a name stands for (SPEC IMG-2); ``ValueError: Unknown
        resize method "..."`` for any other value."""
        for method, names in _NAMES.items():
            if isinstance(s, str) and s in names:
                return method
        raise ValueError(f'Unknown resize method "{s}"')


_NAMES = {
    ResizeMethod.NEAREST: ("nearest",),
    ResizeMethod.LINEAR: ("linear", "bilinear", "trilinear", "triangle"),
    ResizeMethod.LANCZOS3: ("lanczos3",),
    ResizeMethod.LANCZOS5: ("lanczos5",),
    ResizeMethod.CUBIC: ("cubic", "bicubic", "tricubic"),
    ResizeMethod.CUBIC_PYTORCH: ("cubic-pytorch", "bicubic-pytorch"),
    ResizeMethod.AREA: ("area",),
}


def canonical_method(method, antialias):
    """``method`` as a ResizeMethod (SPEC IMG-2).  With antialiasing, the
    PyTorch cubic is Keys' cubic: PyTorch itself switches kernels then."""
    if isinstance(method, str):
        method = ResizeMethod.from_string(method)
    if isinstance(method, np.ndarray) and method.size > 1:
        # JAX compares the array with a string first, as NumPy refuses to.
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous: resize method must be a string or a "
                         f"jax.image.ResizeMethod, got {method!r}")
    if not isinstance(method, ResizeMethod):
        raise TypeError("resize method must be a string or a jax.image.ResizeMethod, "
                        f"got {method!r}")
    if method is ResizeMethod.CUBIC_PYTORCH and antialias:
        return ResizeMethod.CUBIC
    return method


def triangle(x):
    """``max(0, 1 - |x|)`` (SPEC IMG-3)."""
    return ufuncs.maximum(0, 1 - ufuncs.abs(x))


def lanczos(radius, x):
    """``sinc(x) sinc(x / radius)`` for ``x <= radius``, else 0 (SPEC IMG-3).

    Below ``1e-3`` the kernel is taken as exactly 1: the quotient loses all
    precision there, and the inner ``where`` keeps its derivative finite."""
    numerator = radius * ufuncs.sin(np.pi * x) * ufuncs.sin(np.pi * x / radius)
    safe_denominator = lax_numpy.where(x != 0, np.pi ** 2 * x ** 2, 1)
    value = lax_numpy.where(x > 1e-3, ufuncs.divide(numerator, safe_denominator), 1)
    return lax_numpy.where(x > radius, 0., value)


def _cubic(a, x):
    """The cubic convolution kernel with parameter ``a``: two cubics in
    Horner form, on ``[0, 1)`` and ``[1, 2)``, and 0 beyond."""
    near = ((a + 2.) * x - (a + 3.)) * x * x + 1.
    far = ((a * x - 5. * a) * x + 8. * a) * x - 4. * a
    value = lax_numpy.where(x >= 1., far, near)
    return lax_numpy.where(x >= 2., 0., value)


def keys_cubic(x):
    """Keys' cubic, ``a = -0.5`` (SPEC IMG-3)."""
    return _cubic(-0.5, x)


def opencv_cubic(x):
    """OpenCV's (and PyTorch's non-antialiased) cubic, ``a = -0.75``
    (SPEC IMG-3)."""
    return _cubic(-0.75, x)


# The area method has no pointwise kernel: its weights are overlaps of
# intervals (resize.area_weights).
AREA = object()

# method -> (radius, kernel).
KERNELS = {
    ResizeMethod.LINEAR: (1, triangle),
    ResizeMethod.LANCZOS3: (3, lambda x: lanczos(3., x)),
    ResizeMethod.LANCZOS5: (5, lambda x: lanczos(5., x)),
    ResizeMethod.CUBIC: (2, keys_cubic),
    ResizeMethod.CUBIC_PYTORCH: (2, opencv_cubic),
    ResizeMethod.AREA: (1, AREA),
}
