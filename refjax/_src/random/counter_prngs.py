"""The counter-based PRNGs JAX 0.10 accepts by name besides threefry2x32:
``philox2x32``, ``philox4x32`` and ``threefry4x32`` (SPEC RNG-100).

Each is a keyed block hash applied to counters, as in Salmon et al.,
"Parallel random numbers: as easy as 1, 2, 3" (SC 2011).  The way JAX
builds keys and counters from them is the same for all three:

* seeding hashes the seed's (high, low) 32-bit words;
* ``split(key, shape)`` and ``random_bits(key, width, shape)`` hash each
  element's row-major index, a 64-bit counter given as (high, low) words,
  in the counter slots each PRNG uses, and combine the output words;
* ``fold_in(key, data)`` hashes the counter whose last word is ``data``.

The functions act on backend uint32 buffers with leading key axes, like
those of threefry2x32 (``refjax._src.random.prng``), which registers them.
"""
import numpy as np

from refjax._src.lax.lax import _xp

_u32 = np.uint32
_BIT_DTYPES = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
_ROUND_KEY = _u32(0x9E3779B9), _u32(0xBB67AE85)      # Weyl increments
_PHILOX2_MUL = 0xD256D193
_PHILOX4_MUL = 0xD2511F53, 0xCD9E8D57
_THREEFRY4_ROTATIONS = ((10, 26), (11, 21), (13, 27), (23, 5),
                        (6, 20), (17, 11), (25, 10), (18, 20))
_KEY_PARITY = _u32(0x1BD11BDA)


def _wrapping(kernel):
    """Run ``kernel`` with NumPy's overflow warnings off: uint32 arithmetic
    wraps around by design (0-d operands are NumPy scalars, which warn)."""
    def wrapped(*args):
        with np.errstate(over="ignore"):
            return kernel(*args)
    wrapped.__name__ = wrapped.__qualname__ = kernel.__name__
    wrapped.__doc__ = kernel.__doc__
    return wrapped


def _mul_hi_lo(a, x):
    """(high, low) 32-bit words of the 64-bit product of constant ``a`` and ``x``."""
    wide = x.astype(np.uint64) * np.uint64(a)
    return (wide >> np.uint64(32)).astype(_u32), wide.astype(_u32)


@_wrapping
def philox2x32_kernel(k0, x0, x1, rounds=10):
    """Philox-2x32-10: the counter ``(x0, x1)`` hashed under the key word ``k0``."""
    for r in range(rounds):
        if r:
            k0 = k0 + _ROUND_KEY[0]
        hi, lo = _mul_hi_lo(_PHILOX2_MUL, x0)
        x0, x1 = hi ^ x1 ^ k0, lo
    return x0, x1


@_wrapping
def philox4x32_kernel(k0, k1, x0, x1, x2, x3, rounds=10):
    """Philox-4x32-10: the counter ``(x0..x3)`` hashed under the key ``(k0, k1)``."""
    for r in range(rounds):
        if r:
            k0, k1 = k0 + _ROUND_KEY[0], k1 + _ROUND_KEY[1]
        hi0, lo0 = _mul_hi_lo(_PHILOX4_MUL[0], x0)
        hi1, lo1 = _mul_hi_lo(_PHILOX4_MUL[1], x2)
        x0, x1, x2, x3 = hi1 ^ x1 ^ k0, lo1, hi0 ^ x3 ^ k1, lo0
    return x0, x1, x2, x3


def _rotl(x, d):
    return (x << _u32(d)) | (x >> _u32(32 - d))


@_wrapping
def threefry4x32_kernel(k0, k1, k2, k3, x0, x1, x2, x3, rounds=20):
    """Threefry-4x32-20: the counter ``(x0..x3)`` hashed under ``(k0..k3)``,
    the key schedule injected after every fourth round."""
    ks = (k0, k1, k2, k3, k0 ^ k1 ^ k2 ^ k3 ^ _KEY_PARITY)
    x = [x0 + k0, x1 + k1, x2 + k2, x3 + k3]
    for r in range(rounds):
        rot0, rot1 = _THREEFRY4_ROTATIONS[r % 8]
        a, b, c, d = (0, 1, 2, 3) if r % 2 == 0 else (0, 3, 2, 1)
        x[a] = x[a] + x[b]
        x[b] = x[a] ^ _rotl(x[b], rot0)
        x[c] = x[c] + x[d]
        x[d] = x[c] ^ _rotl(x[d], rot1)
        if r % 4 == 3:
            s = r // 4 + 1
            x = [x[i] + ks[(s + i) % 5] for i in range(4)]
            x[3] = x[3] + _u32(s)
    return tuple(x)


# -- what the three PRNGs share ---------------------------------------------

def _seed_words(seeds):
    """The (high, low) 32-bit words of integer seeds (a zero high word for
    seeds narrower than 64 bits; negative seeds keep their two's-complement
    bits)."""
    xp = _xp()
    lo = seeds.astype(_u32)
    if seeds.dtype.itemsize == 8:
        return (seeds.astype(np.uint64) >> np.uint64(32)).astype(_u32), lo
    return xp.zeros_like(lo), lo


def _counters(keys, shape):
    """Each element's row-major index of ``shape`` as (high, low) words,
    broadcastable against key words of ``keys``'s batch."""
    xp = _xp()
    size = int(np.prod(shape, dtype=np.int64))
    flat = xp.arange(size, dtype=np.uint64)
    hi = (flat >> np.uint64(32)).astype(_u32).reshape(shape)
    return hi, flat.astype(_u32).reshape(shape)


def _words(keys, extra_rank):
    """The key words, each shaped to broadcast against ``extra_rank`` more axes."""
    pad = (1,) * extra_rank
    return [keys[..., i].reshape(keys.shape[:-1] + pad) for i in range(keys.shape[-1])]


def _zeros_like(x, batch_shape):
    return _xp().zeros(batch_shape + x.shape, dtype=_u32)


def _combine(outs, bit_width, hi_lo):
    """Bits of ``bit_width`` from the output words: 32 bits or fewer xor all
    words (then truncate); 64 bits join the two words ``hi_lo`` picks."""
    if bit_width == 64:
        hi, lo = hi_lo(outs)
        return (hi.astype(np.uint64) << np.uint64(32)) | lo.astype(np.uint64)
    folded = outs[0]
    for w in outs[1:]:
        folded = folded ^ w
    return folded.astype(_BIT_DTYPES[bit_width])


def _stack(outs):
    return _xp().stack(list(outs), axis=-1)


# -- philox2x32: one key word -----------------------------------------------

def philox2x32_seed(seeds):
    k0, k1 = _seed_words(seeds)
    out0, _ = philox2x32_kernel(_xp().zeros_like(k0), k0, k1)
    return out0[..., None]


def philox2x32_split(keys, shape):
    hi, lo = _counters(keys, shape)
    k0, = _words(keys, len(shape))
    out0, _ = philox2x32_kernel(k0, hi + _zeros_like(hi, keys.shape[:-1]), lo)
    return out0[..., None]


def philox2x32_fold_in(keys, data):
    out0, _ = philox2x32_kernel(keys[..., 0], _xp().zeros_like(data, dtype=_u32),
                                data.astype(_u32))
    return out0[..., None]


def philox2x32_random_bits(keys, bit_width, shape):
    hi, lo = _counters(keys, shape)
    k0, = _words(keys, len(shape))
    outs = philox2x32_kernel(k0, hi + _zeros_like(hi, keys.shape[:-1]), lo)
    return _combine(outs, bit_width, lambda o: (o[0], o[1]))


# -- philox4x32: a two-word key, counters in words 0-1 (bits) or 2-3 (split)

def philox4x32_seed(seeds):
    k0, k1 = _seed_words(seeds)
    zero = _xp().zeros_like(k0)
    out = philox4x32_kernel(zero, zero, k0, k1, zero, zero)
    return _stack(out[:2])


def philox4x32_split(keys, shape):
    hi, lo = _counters(keys, shape)
    k0, k1 = _words(keys, len(shape))
    zero = _zeros_like(hi, keys.shape[:-1])
    out = philox4x32_kernel(k0, k1, zero, zero, hi + zero, lo + zero)
    return _stack(out[:2])


def philox4x32_fold_in(keys, data):
    zero = _xp().zeros_like(data, dtype=_u32)
    out = philox4x32_kernel(keys[..., 0], keys[..., 1], zero, zero, zero, data.astype(_u32))
    return _stack(out[:2])


def philox4x32_random_bits(keys, bit_width, shape):
    hi, lo = _counters(keys, shape)
    k0, k1 = _words(keys, len(shape))
    zero = _zeros_like(hi, keys.shape[:-1])
    outs = philox4x32_kernel(k0, k1, hi + zero, lo + zero, zero, zero)
    return _combine(outs, bit_width, lambda o: (o[0], o[1]))


# -- threefry4x32: a four-word key ------------------------------------------

def threefry4x32_seed(seeds):
    k0, k1 = _seed_words(seeds)
    zero = _xp().zeros_like(k0)
    return _stack(threefry4x32_kernel(k0, k1, zero, zero, zero, zero, zero, zero))


def threefry4x32_split(keys, shape):
    hi, lo = _counters(keys, shape)
    zero = _zeros_like(hi, keys.shape[:-1])
    return _stack(threefry4x32_kernel(*_words(keys, len(shape)), zero, zero, hi + zero,
                                      lo + zero))


def threefry4x32_fold_in(keys, data):
    zero = _xp().zeros_like(data, dtype=_u32)
    k = [keys[..., i] for i in range(4)]
    return _stack(threefry4x32_kernel(*k, zero, zero, zero, data.astype(_u32)))


def threefry4x32_random_bits(keys, bit_width, shape):
    hi, lo = _counters(keys, shape)
    zero = _zeros_like(hi, keys.shape[:-1])
    outs = threefry4x32_kernel(*_words(keys, len(shape)), hi + zero, lo + zero, zero, zero)
    return _combine(outs, bit_width, lambda o: (o[0] ^ o[2], o[1] ^ o[3]))
