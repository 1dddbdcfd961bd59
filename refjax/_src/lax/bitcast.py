"""The ``bitcast_convert_type`` primitive: the bits of each element read as
another dtype (SPEC LAX-12, LXM-32).

Widths are counted in bits, so the 4-bit integers pack and unpack like the
others: ``int4[..., 4]`` becomes ``float16[...]``, element ``k`` of the last
axis holding bits ``4k .. 4k+3`` (little-endian, as XLA packs them).

Import these names from :mod:`refjax._src.lax.lax`, which re-exports them.
"""
import numpy as np

from refjax._src import backend as _backend
from refjax._src import core, dtypes
from refjax._src.core import Primitive, ShapedArray
from refjax._src.interpreters import ad, batching

bitcast_convert_type_p = Primitive("bitcast_convert_type")


@bitcast_convert_type_p.def_abstract_eval
def _bitcast_abstract_eval(x, new_dtype):
    """Same width: same shape; narrower: a trailing axis of ``old // new``
    elements; wider: the last axis must hold exactly one new element, else
    JAX's ``ValueError`` (SPEC LXM-32)."""
    old, new = dtypes.itemsize_bits(x.dtype), dtypes.itemsize_bits(new_dtype)
    if old == new:
        return ShapedArray(x.shape, new_dtype)
    if old > new:
        return ShapedArray(x.shape + (old // new,), new_dtype)
    last = x.shape[-1] if x.shape else 1
    if last * old != new:
        raise ValueError(f"Attempting to convert array of shape {x.shape} from "
                         f"{x.dtype.name} of size {old} bits to {new_dtype.name} of "
                         f"size {new}, bits but {last} * {old} != {new}")
    return ShapedArray(x.shape[:-1], new_dtype)


def _is_narrow(dtype):
    return dtypes.itemsize_bits(dtype) < 8 * dtype.itemsize


@bitcast_convert_type_p.def_impl
def _bitcast_impl(x, new_dtype):
    if _is_narrow(x.dtype) or _is_narrow(new_dtype):
        return _bitcast_by_patterns(x, new_dtype)
    x = x.copy()  # C-contiguous, and keeps 0-d arrays 0-d
    if x.dtype.itemsize == new_dtype.itemsize:
        return x.view(new_dtype)
    if x.dtype.itemsize > new_dtype.itemsize:
        # Viewing a trailing axis of length 1 splits each element's bytes
        # along it; NumPy refuses to change the itemsize of a 0-d view.
        return x.reshape(x.shape + (1,)).view(new_dtype)
    return x.view(new_dtype).reshape(x.shape[:-1])


def _bit_patterns(x):
    """Each element's bits as an unsigned 64-bit integer (a narrow type's
    low bits only)."""
    bits = dtypes.itemsize_bits(x.dtype)
    raw = x.view(np.dtype(f"uint{8 * x.dtype.itemsize}")).astype(np.uint64)
    return raw & np.uint64((1 << bits) - 1)


def _from_patterns(patterns, dtype):
    """Elements of ``dtype`` with the given bit patterns."""
    bits = dtypes.itemsize_bits(dtype)
    if not _is_narrow(dtype):
        return patterns.astype(np.dtype(f"uint{bits}")).view(dtype)
    values = patterns.astype(np.int16)
    if dtypes.issubdtype(dtype, np.signedinteger):
        values = _backend.get().xp.where(values >= 1 << (bits - 1), values - (1 << bits),
                                         values)
    return values.astype(dtype)


def _bitcast_by_patterns(x, new_dtype):
    """Bitcast through integer bit patterns, for 4-bit (and narrower) types."""
    xp = _backend.get().xp
    old, new = dtypes.itemsize_bits(x.dtype), dtypes.itemsize_bits(new_dtype)
    patterns = _bit_patterns(x)
    if old > new:
        shifts = xp.arange(old // new, dtype=np.uint64) * np.uint64(new)
        patterns = (patterns[..., None] >> shifts) & np.uint64((1 << new) - 1)
    elif old < new:
        # The pieces' bits do not overlap, so their sum is their union.
        shifts = xp.arange(new // old, dtype=np.uint64) * np.uint64(old)
        patterns = xp.sum(patterns << shifts, axis=-1, dtype=np.uint64)
    return _from_patterns(xp.asarray(patterns), new_dtype)


def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits of ``operand`` as ``new_dtype``; PRNG keys have
    no bits to reinterpret (ValueError, as in JAX; SPEC LAX-12)."""
    old_dtype = core.get_aval(operand).dtype
    if dtypes.is_extended(old_dtype):
        raise ValueError(f"unexpected input: dtype={old_dtype}; use "
                         "jax.random.key_data to get a key's bits.")
    if new_dtype is None:
        raise ValueError("dtype must be specified.")
    new_dtype = dtypes.canonicalize_dtype(
        dtypes.check_user_dtype(new_dtype, "bitcast_convert_type"))
    return bitcast_convert_type_p.bind(operand, new_dtype=new_dtype)


ad.defjvp_zero(bitcast_convert_type_p)


def _bitcast_batch(axis_data, vals, dims, *, new_dtype):
    """Each element is reinterpreted alone (SPEC VMAP-31).  A wider new dtype
    consumes the operand's last axis, which must then not be the batch
    axis: a batch axis there is moved to the front first.  A narrower one
    appends an axis, after the batch axis wherever it is."""
    (x,), (bdim,) = vals, dims
    aval = core.get_aval(x)
    wider = dtypes.itemsize_bits(new_dtype) > dtypes.itemsize_bits(aval.dtype)
    if wider and bdim == aval.ndim - 1:
        x, bdim = batching.moveaxis(x, bdim, 0), 0
    return bitcast_convert_type_p.bind(x, new_dtype=new_dtype), bdim


bitcast_convert_type_p.batch = _bitcast_batch
