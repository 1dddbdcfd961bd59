"""Two primitives about rounding: ``fma`` (a multiply-add rounded once,
refjax's own) and ``reduce_precision`` (SPEC NP-59, RNG-17, LAX-11).

They sit above ``lax.lax``, whose elementwise helpers they use; import them
from here (``refjax.lax`` re-exports ``reduce_precision``)."""
import operator

import numpy as np

from refjax._src import core, dtypes, mesh
from refjax._src.core import Primitive
from refjax._src.interpreters import ad, batching
from refjax._src.lax import shapes, xla_cpu_math
from refjax._src.lax.lax import _float, _xp, mul, naryop

# ---------------------------------------------------------------------------
# fma: a fused multiply-add (refjax's own primitive)
# ---------------------------------------------------------------------------
# JAX writes ``x * scale + shift`` in its samplers as a ``mul`` and an
# ``add``; XLA's CPU compiler fuses them into one multiply-add, rounding
# once.  refjax makes that fusion an explicit primitive where JAX's values
# depend on it (``random.uniform``'s scaling, SPEC RNG-17), so that the
# results are JAX's bit for bit.

def _fma_impl(x, y, z):
    """``x * y + z`` as XLA's CPU code computes it: float32 and float16
    round once (in float64, where the product of two float32 values is
    exact), and so does float64 (error-free transformations, SPEC LAX-11);
    bfloat16 rounds after each operation, as XLA does not fuse it."""
    if x.dtype == np.float64:
        return xla_cpu_math.fma64(x, y, z)
    if x.dtype not in _FUSED_DTYPES:
        return x * y + z
    return xla_cpu_math.fma32(x, y, z, x.dtype)


_FUSED_DTYPES = (np.dtype(np.float32), np.dtype(np.float16))


fma_p = naryop("fma", _float, _fma_impl)


def _to_shape_of(t, ans):
    """A tangent part broadcast to the output's shape (operands may be
    rank-0 or have size-1 axes)."""
    shape, t_shape = core.get_aval(ans).shape, core.get_aval(t).shape
    if t_shape == shape:
        return t
    return shapes.broadcast_in_dim(t, shape, tuple(range(len(shape) - len(t_shape), len(shape))))


ad.defjvp2(fma_p, lambda g, ans, x, y, z: _to_shape_of(mul(g, y), ans),
           lambda g, ans, x, y, z: _to_shape_of(mul(x, g), ans),
           lambda g, ans, x, y, z: _to_shape_of(g, ans))


def fma(x, y, z):
    """``x * y + z`` with one rounding (the ``fma`` primitive)."""
    return fma_p.bind(x, y, z)


# ---------------------------------------------------------------------------
# reduce_precision (SPEC NP-59)
# ---------------------------------------------------------------------------

reduce_precision_p = Primitive("reduce_precision")


@reduce_precision_p.def_abstract_eval
def _reduce_precision_abstract_eval(x, exponent_bits, mantissa_bits):
    if not dtypes.issubdtype(x.dtype, np.floating):
        raise TypeError("reduce_precision does not accept dtype "
                        f"{x.dtype.name}. Accepted dtypes are subtypes of floating.")
    if exponent_bits < 1:
        raise ValueError(f"exponent_bits argument must be at least 1, got {exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(f"mantissa_bits argument must be at least 0, got {mantissa_bits}")
    return x


def _float_layout(dt):
    info = dtypes.finfo(dt)
    return dt.itemsize * 8, int(info.nexp), int(info.nmant)


@reduce_precision_p.def_impl
def _reduce_precision_impl(x, exponent_bits, mantissa_bits):
    """Round the mantissa to nearest even, then flush exponents outside the
    reduced range to zero or infinity, working on the bit pattern."""
    xp = _xp()
    nbits, src_exp, src_mant = _float_layout(x.dtype)
    udt = np.dtype(f"u{x.dtype.itemsize}")
    one = udt.type(1)
    bits = x.copy().view(udt)
    if mantissa_bits < src_mant:
        shift = udt.type(src_mant - mantissa_bits)
        last_bit = one << shift
        bias = (last_bit >> one) - one
        odd = (bits & last_bit) >> shift
        bits = (bits + odd + bias) & ~(last_bit - one)
    if exponent_bits < src_exp:
        sign_mask = one << udt.type(nbits - 1)
        exp_mask = ((one << udt.type(src_exp)) - one) << udt.type(src_mant)
        src_bias = (1 << (src_exp - 1)) - 1
        red_bias = (1 << (exponent_bits - 1)) - 1
        exponent = bits & exp_mask
        over = exponent > udt.type((src_bias + red_bias) << src_mant)
        under = exponent <= udt.type((src_bias - red_bias) << src_mant)
        signed_zero = bits & sign_mask
        bits = xp.where(over, signed_zero | exp_mask,
                        xp.where(under, signed_zero, bits)).astype(udt)
    out = bits.view(x.dtype)
    if mantissa_bits > 0:
        out = xp.where(xp.isnan(x), x, out).astype(x.dtype)
    return out


def _reduce_precision_transpose(ct, x, *, exponent_bits, mantissa_bits):
    """Treated as linear, as JAX does: tangents and cotangents are rounded
    the same way (SPEC AD-37)."""
    return [reduce_precision_p.bind(ct, exponent_bits=exponent_bits,
                                    mantissa_bits=mantissa_bits)]


ad.deflinear(reduce_precision_p, _reduce_precision_transpose)
# Rounding acts on each element alone (SPEC VMAP-28).
batching.defvectorized(reduce_precision_p)
reduce_precision_p.sharding_rule = mesh.elementwise_sharding_rule


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """Round ``operand`` as if to a float with the given exponent and
    mantissa widths, keeping its dtype (SPEC NP-59)."""
    return reduce_precision_p.bind(operand, exponent_bits=operator.index(exponent_bits),
                                   mantissa_bits=operator.index(mantissa_bits))


# ---------------------------------------------------------------------------
# Shape and reduction primitives live in shapes.py and reductions.py, which
# build on this module; its rules use a few of them (broadcasting,
# reshaping, summing cotangents), so they are imported last, when the
# names they need from here exist.
# ---------------------------------------------------------------------------
