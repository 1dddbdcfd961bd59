"""Conformance: the PRNG implementations JAX 0.10 accepts by name besides
threefry2x32 and rbg: philox2x32, philox4x32 and threefry4x32 (SPEC RNG-100).

The block hashes are written here once more, on Python ints, and checked
against Random123's published known-answer vectors; the tests then check
how the library builds keys, splits, folds and bits from them.
"""
import numpy as np
import pytest

M32 = 0xFFFFFFFF


def philox2(key, ctr, rounds=10):
    (k,), (x0, x1) = key, ctr
    for r in range(rounds):
        if r:
            k = (k + 0x9E3779B9) & M32
        prod = 0xD256D193 * x0
        x0, x1 = (prod >> 32) ^ x1 ^ k, prod & M32
    return [x0, x1]


def philox4(key, ctr, rounds=10):
    (k0, k1), (x0, x1, x2, x3) = key, ctr
    for r in range(rounds):
        if r:
            k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
        p0, p1 = 0xD2511F53 * x0, 0xCD9E8D57 * x2
        x0, x1, x2, x3 = (p1 >> 32) ^ x1 ^ k0, p1 & M32, (p0 >> 32) ^ x3 ^ k1, p0 & M32
    return [x0, x1, x2, x3]


ROT = [(10, 26), (11, 21), (13, 27), (23, 5), (6, 20), (17, 11), (25, 10), (18, 20)]


def threefry4(key, ctr, rounds=20):
    ks = list(key) + [key[0] ^ key[1] ^ key[2] ^ key[3] ^ 0x1BD11BDA]
    x = [(c + k) & M32 for c, k in zip(ctr, key)]
    rotl = lambda v, d: ((v << d) | (v >> (32 - d))) & M32  # noqa: E731
    for r in range(rounds):
        a, b, c, d = (0, 1, 2, 3) if r % 2 == 0 else (0, 3, 2, 1)
        x[a] = (x[a] + x[b]) & M32
        x[b] = x[a] ^ rotl(x[b], ROT[r % 8][0])
        x[c] = (x[c] + x[d]) & M32
        x[d] = x[c] ^ rotl(x[d], ROT[r % 8][1])
        if r % 4 == 3:
            s = r // 4 + 1
            x = [(x[i] + ks[(s + i) % 5]) & M32 for i in range(4)]
            x[3] = (x[3] + s) & M32
    return x


@pytest.mark.spec("RNG-100")
def test_reference_hashes_match_random123_vectors():
    assert philox2([0], [0, 0]) == [0xff1dae59, 0x6cd10df2]
    assert philox4([0, 0], [0] * 4) == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
    assert philox4([M32] * 2, [M32] * 4) == [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
    assert threefry4([0] * 4, [0] * 4) == [0x9c6ca96a, 0xe17eae66, 0xfc10ecd4, 0x5256a7d8]
    assert threefry4([M32] * 4, [M32] * 4) == [0x2a881696, 0x57012287, 0xf6c7446e, 0xa16a6732]


# name -> (tag, key words, seed from (hi, lo), how split/bits/fold_in place counters)
def _seed(name, hi, lo):
    if name == "philox2x32":
        return philox2([0], [hi, lo])[:1]
    if name == "philox4x32":
        return philox4([0, 0], [hi, lo, 0, 0])[:2]
    return threefry4([hi, lo, 0, 0], [0] * 4)


def _split_one(name, key, hi, lo):
    if name == "philox2x32":
        return philox2(key, [hi, lo])[:1]
    if name == "philox4x32":
        return philox4(key, [0, 0, hi, lo])[:2]
    return threefry4(key, [0, 0, hi, lo])


def _fold(name, key, data):
    if name == "philox2x32":
        return philox2(key, [0, data])[:1]
    if name == "philox4x32":
        return philox4(key, [0, 0, 0, data])[:2]
    return threefry4(key, [0, 0, 0, data])


def _bits32(name, key, i):
    out = (philox2(key, [0, i]) if name == "philox2x32" else
           philox4(key, [0, i, 0, 0]) if name == "philox4x32" else
           threefry4(key, [0, i, 0, 0]))
    acc = 0
    for w in out:
        acc ^= w
    return acc


IMPLS = {"philox2x32": ("phx2", 1), "philox4x32": ("phx4", 2), "threefry4x32": ("fry4", 4)}


@pytest.mark.spec("RNG-100")
@pytest.mark.parametrize("name", sorted(IMPLS))
def test_keys_by_name(jax, name):
    tag, words = IMPLS[name]
    key = jax.random.key(0, impl=name)
    assert str(key.dtype) == f"key<{tag}>" and key.shape == ()
    assert jax.random.key_impl(key) == name
    data = np.asarray(jax.random.key_data(key))
    assert data.dtype == np.uint32 and data.shape == (words,)
    assert list(data) == _seed(name, 0, 0)
    assert list(np.asarray(jax.random.key_data(jax.random.key(-5, impl=name)))) == \
        _seed(name, 0, (-5) & M32)


@pytest.mark.spec("RNG-100")
@pytest.mark.parametrize("name", sorted(IMPLS))
def test_split_fold_in_and_bits(jax, name):
    key = jax.random.key(7, impl=name)
    kd = [int(v) for v in np.asarray(jax.random.key_data(key))]
    children = np.asarray(jax.random.key_data(jax.random.split(key, 3)))
    assert [list(c) for c in children] == [_split_one(name, kd, 0, i) for i in range(3)]
    folded = np.asarray(jax.random.key_data(jax.random.fold_in(key, 11)))
    assert list(folded) == _fold(name, kd, 11)
    bits = np.asarray(jax.random.bits(key, (2, 3)))
    assert bits.dtype == np.uint32
    assert list(bits.ravel()) == [_bits32(name, kd, i) for i in range(6)]
    small = np.asarray(jax.random.bits(key, (4,), np.uint8))
    assert list(small) == [_bits32(name, kd, i) & 0xFF for i in range(4)]


@pytest.mark.spec("RNG-100")
@pytest.mark.parametrize("name", sorted(IMPLS))
def test_samplers_vmap_and_jit_with_other_impls(jax, jnp, name):
    key = jax.random.key(3, impl=name)
    u = jax.random.uniform(key, (1000,))
    assert u.dtype == np.float32 and 0 <= float(u.min()) and float(u.max()) < 1
    assert abs(float(u.mean()) - 0.5) < 0.05
    keys = jax.random.split(key, 4)
    batched = jax.vmap(lambda k: jax.random.normal(k, (3,)))(keys)
    looped = jnp.stack([jax.random.normal(k, (3,)) for k in keys])
    np.testing.assert_array_equal(batched, looped)
    np.testing.assert_array_equal(jax.jit(lambda k: jax.random.bits(k, (5,)))(key),
                                  jax.random.bits(key, (5,)))


@pytest.mark.spec("RNG-100")
def test_unknown_impl_lists_every_name(jax):
    with pytest.raises(ValueError, match="philox2x32.*philox4x32.*threefry2x32.*rbg.*"
                                         "unsafe_rbg.*threefry4x32"):
        jax.random.key(0, impl="nope")


@pytest.mark.spec("RNG-100")
def test_sixty_four_bit_seeds_and_bits(jax, x64):
    for name in IMPLS:
        seed = 2 ** 40 + 3
        key = jax.random.key(seed, impl=name)
        kd = [int(v) for v in np.asarray(jax.random.key_data(key))]
        assert kd == _seed(name, seed >> 32, seed & M32)
        bits = np.asarray(jax.random.bits(key, (2,), np.uint64))
        for i, b in enumerate(bits):
            out = (philox2(kd, [0, i]) if name == "philox2x32" else
                   philox4(kd, [0, i, 0, 0]) if name == "philox4x32" else
                   threefry4(kd, [0, i, 0, 0]))
            hi, lo = (out[0], out[1]) if name != "threefry4x32" else \
                (out[0] ^ out[2], out[1] ^ out[3])
            assert int(b) == (hi << 32) | lo


@pytest.mark.spec("RNG-10")
@pytest.mark.parametrize("name", ["rbg", "unsafe_rbg"])
def test_rbg_keys_draw_varied_bits(jax, name):
    # A freshly seeded rbg key has two equal half-keys; its draws must still
    # be spread over [0, 1), not all zero.
    u = np.asarray(jax.random.uniform(jax.random.key(1, impl=name), (2000,)))
    assert len(np.unique(u)) > 1900
    assert abs(u.mean() - 0.5) < 0.03 and 0 <= u.min() and u.max() < 1
