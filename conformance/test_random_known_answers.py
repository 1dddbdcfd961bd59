"""Known-answer tests for refjax's PRNG keys and basic samplers (SPEC RNG-75
.. RNG-80): the Threefry-2x32 Random123 vectors, seed -> key data, and the
``split``/``fold_in``/``bits``/``randint``/``uniform``/``normal`` values of
JAX 0.10.2 in both ``jax_threefry_partitionable`` modes.

The vectors come from jax-ml/jax ``tests/random_test.py`` at tag jax-v0.10.2
(``testThreefry2x32``, ``test_prng_seeds_and_keys``, ``testPRNGValues``,
``testRngRandomBits``), which hold for partitionable=False, and from real
JAX 0.10.2 for the default partitionable=True (see /work/shared/known_answers.md).
"""
import re
import warnings

import numpy as np
import pytest

BOTH_MODES = pytest.mark.parametrize("partitionable", [True, False], indirect=True)


def values(x):
    return np.asarray(x).tolist()


# -- Threefry-2x32 (Random123 test_threefry.cpp vectors) --------------------------

THREEFRY_KATS = [
    ([0x00000000, 0x00000000], [0x00000000, 0x00000000], [0x6b200159, 0x99ba4efe]),
    ([0xffffffff, 0xffffffff], [0xffffffff, 0xffffffff], [0x1cb996fc, 0xbb002be7]),
    ([0x13198a2e, 0x03707344], [0x243f6a88, 0x85a308d3], [0xc4923a9c, 0x483df7a0]),
]


@pytest.mark.spec("RNG-75")
@BOTH_MODES
def test_threefry_zero_vector_through_fold_in(jax, jnp, partitionable):
    """fold_in(key, d) hashes the counter pair [0, d] under the key, so the
    all-zero Random123 vector is reachable publicly (SPEC RNG-75)."""
    key = jax.random.wrap_key_data(jnp.zeros(2, jnp.uint32))
    assert values(jax.random.key_data(jax.random.fold_in(key, 0))) == THREEFRY_KATS[0][2]


@pytest.mark.spec("RNG-75")
@pytest.mark.parametrize("key,count,expected", THREEFRY_KATS)
def test_threefry_2x32_random123_vectors(jax, jnp, key, count, expected):
    """``jax.extend.random.threefry_2x32`` is the raw block cipher (SPEC RNG-75)."""
    import importlib
    ext = importlib.import_module(jax.__name__ + ".extend.random")
    out = ext.threefry_2x32(jnp.array(key, jnp.uint32), jnp.array(count, jnp.uint32))
    assert out.dtype == jnp.uint32
    assert values(out) == expected


@pytest.mark.spec("RNG-75")
def test_threefry_2x32_splits_count_in_halves(jax, jnp):
    """A longer count is split into halves forming the (x0, x1) pairs; an
    empty count gives an empty result of the same shape (SPEC RNG-75)."""
    import importlib
    ext = importlib.import_module(jax.__name__ + ".extend.random")
    key = jnp.array([0x13198a2e, 0x03707344], jnp.uint32)
    count = jnp.array([0x243f6a88] * 3 + [0x85a308d3] * 3, jnp.uint32)
    assert values(ext.threefry_2x32(key, count)) == [0xc4923a9c] * 3 + [0x483df7a0] * 3
    assert ext.threefry_2x32(key, jnp.zeros((10, 0), jnp.uint32)).shape == (10, 0)


# -- seeds -> key data ------------------------------------------------------------

# (seed, numpy type or None for a Python int, data with x64 off, data with x64 on)
SEEDS = [
    (0, None, [0, 0], [0, 0]),
    (1, np.int32, [0, 1], [0, 1]),
    (2, np.uint32, [0, 2], [0, 2]),
    (3, np.int64, [0, 3], [0, 3]),
    (-1, None, [0, 4294967295], [4294967295, 4294967295]),
    (-2, np.int32, [0, 4294967294], [0, 4294967294]),
    (-3, np.int64, [0, 4294967293], [4294967295, 4294967293]),
    (2**31 - 1 + 100, None, [0, 2147483747], [0, 2147483747]),
    (2**31 - 1 + 101, np.uint32, [0, 2147483748], [0, 2147483748]),
    (-2**31 - 100, None, [0, 2147483548], [4294967295, 2147483548]),
    (-2**31 - 101, np.int64, [0, 2147483547], [4294967295, 2147483547]),
]


def _seed(value, typ):
    return value if typ is None else typ(value)


@pytest.mark.spec("RNG-76")
@pytest.mark.parametrize("seed,typ,x32,x64_data", SEEDS)
def test_seed_to_key_data_x64_off(jax, seed, typ, x32, x64_data):
    """With x64 off a seed keeps its low 32 bits in the second word; the first
    word is 0; key and PRNGKey agree (SPEC RNG-76)."""
    s = _seed(seed, typ)
    assert values(jax.random.PRNGKey(s)) == x32
    assert values(jax.random.key_data(jax.random.key(s))) == x32


@pytest.mark.spec("RNG-76")
@pytest.mark.parametrize("seed,typ,x32,x64_data", SEEDS)
def test_seed_to_key_data_x64_on(jax, x64, seed, typ, x32, x64_data):
    """With x64 on a 64-bit seed fills both words: [high, low] (SPEC RNG-76)."""
    s = _seed(seed, typ)
    assert values(jax.random.PRNGKey(s)) == x64_data
    assert values(jax.random.key_data(jax.random.key(s))) == x64_data


@pytest.mark.spec("RNG-76")
@pytest.mark.parametrize("seed,typ,x32,x64_data",
                         [s for s in SEEDS if not (s[1] is None and not -2**31 <= s[0] < 2**31)])
def test_seed_to_key_data_under_jit(jax, seed, typ, x32, x64_data):
    """Under jit the seed is an argument of the seed's dtype; the data match
    eager (SPEC RNG-76)."""
    s = _seed(seed, typ)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # int64 argument with x64 off
        assert values(jax.jit(jax.random.PRNGKey)(s)) == x32
        data = jax.jit(lambda t: jax.random.key_data(jax.random.key(t)))(s)
    assert values(data) == x32


@pytest.mark.spec("RNG-76")
@pytest.mark.parametrize("seed", [2**31 - 1 + 100, -2**31 - 100])
def test_python_int_seed_out_of_int32_overflows_under_jit(jax, seed):
    """A Python int seed outside int32 passed to a jitted function raises
    OverflowError while parsing the argument (x64 off) (SPEC RNG-76)."""
    message = ("An overflow was encountered while parsing an argument to a jitted "
               f"computation, whose argument path is seed. Got <class 'int'> with value {seed}")
    with pytest.raises(OverflowError, match="^" + re.escape(message)):
        jax.jit(jax.random.PRNGKey)(seed)


# -- split / fold_in / bits / randint / uniform / normal ---------------------------

KNOWN = {
    True: {
        "split0": [[1797259609, 2579123966], [928981903, 3453687069]],
        "split0_4": [[1797259609, 2579123966], [928981903, 3453687069],
                     [4146024105, 2718843009], [2467461003, 3840466878]],
        "split42_3": [[1832780943, 270669613], [64467757, 2916123636], [2465931498, 255383827]],
        "randint": [[5, 0, 0], [5, 3, 3], [0, 7, 5]],
        "bits1701": {"uint8": [37, 59, 52], "uint16": [42789, 29755, 60468],
                     "uint32": [1111271205, 2679469115, 974515252]},
        "bits0_8": [4070199207, 4202968722, 1427181096, 2012915765,
                    2447653815, 710830403, 1332275837, 2961296638],
        "bits0_3": [4070199207, 4202968722, 1427181096],
        "uniform5": [0.9476670026779175, 0.9785798788070679, 0.33229148387908936,
                     0.46866846084594727, 0.569888710975647],
        "normal5": [1.622642159461975, 2.0252647399902344, -0.4335944354534149,
                    -0.07861734926700592, 0.17609089612960815],
        "uniform_scalar": 0.9476670026779175,
        "normal_scalar": 1.622642159461975,
        "table_uniform": [0.6815470457077026, 0.8570847511291504, 0.11141419410705566,
                          0.05772256851196289, 0.43833673000335693],
        "table_normal": [0.6053598523139954, -0.7860029935836792, -1.2520534992218018,
                         -0.20597290992736816, 0.12061446160078049],
        "table_bits": {"uint32": [4038424914, 1672141972, 3132287730, 1558872429, 1728513782],
                       "uint8": [82, 148, 242, 109, 246],
                       "uint16": [31058, 56468, 60146, 33133, 1782]},
        "table_randint": [4, 1, 3, 8, 4],
        "bits1701_u64": [3182764935064573181, 366096495144982249, 241365115613244543],
        "randint_i64": [[7, 7, 7], [5, 5, 7], [2, 0, 0]],
    },
    False: {
        "split0": [[4146024105, 967050713], [2718843009, 1272950319]],
        "split0_4": [[2285895361, 1501764800], [1518642379, 4090693311],
                     [433833334, 4221794875], [839183663, 3740430601]],
        "split42_3": [[3134548294, 3733159049], [3746501087, 894150801], [801545058, 2363201431]],
        "randint": [[2, 1, 3], [6, 1, 5], [6, 3, 4]],
        "bits1701": {"uint8": [216, 115, 43], "uint16": [41682, 1300, 55017],
                     "uint32": [56197195, 4200222568, 961309823]},
        "bits0_8": [2285895361, 1501764800, 1518642379, 4090693311,
                    433833334, 4221794875, 839183663, 3740430601],
        "bits0_3": [4146024105, 1351547692, 2718843009],
        "uniform5": [0.5745004415512085, 0.09968602657318115, 0.39316022396087646,
                     0.8941782712936401, 0.5965665578842163],
        "normal5": [0.18784384429454803, -1.2833425998687744, -0.2710916996002197,
                    1.2490594387054443, 0.2444700300693512],
        "uniform_scalar": 0.41845703125,
        "normal_scalar": -0.2058422565460205,
        "table_uniform": [0.2986714839935303, 0.07321286201477051, 0.8733557462692261,
                          0.26054883003234863, 0.41279661655426025],
        "table_normal": [-1.1732335090637207, -1.5116621255874634, 0.0705929547548294,
                         -0.09976384043693542, 1.0528450012207031],
        "table_bits": {"uint32": [1978747883, 4134381225, 3628107870, 689687174, 2788938207],
                       "uint8": [10, 158, 82, 54, 158],
                       "uint16": [6738, 38161, 50695, 57337, 61600]},
        "table_randint": [0, 5, 7, 7, 5],
        "bits1701_u64": [3982329540505020460, 16822122385914693683, 7882654074788531506],
        "randint_i64": [[7, 2, 6], [2, 1, 0], [6, 7, 7]],
    },
}


def f32_bits(x):
    """The float32 values as their uint32 bit patterns, for exact comparison."""
    return np.asarray(x, np.float32).view(np.uint32).tolist()


@pytest.mark.spec("RNG-77")
@BOTH_MODES
def test_split_known_values(jax, partitionable):
    """split's key data in each partitionable mode (SPEC RNG-77)."""
    want = KNOWN[partitionable]
    key_data, split, PRNGKey = jax.random.key_data, jax.random.split, jax.random.PRNGKey
    assert values(split(PRNGKey(0))) == want["split0"]
    assert values(key_data(split(jax.random.key(0)))) == want["split0"]
    assert values(split(PRNGKey(0), 4)) == want["split0_4"]
    assert values(key_data(split(PRNGKey(42), 3))) == want["split42_3"]


@pytest.mark.spec("RNG-77")
@BOTH_MODES
def test_fold_in_known_values_same_in_both_modes(jax, partitionable):
    """fold_in does not depend on the partitionable flag (SPEC RNG-77)."""
    fold_in, PRNGKey = jax.random.fold_in, jax.random.PRNGKey
    assert values(fold_in(PRNGKey(0), 4)) == [2285895361, 433833334]
    assert values(fold_in(PRNGKey(0), 0)) == [1797259609, 2579123966]
    assert values(jax.random.key_data(fold_in(jax.random.key(0), 1))) == [928981903, 3453687069]


@pytest.mark.spec("RNG-78")
@BOTH_MODES
@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32"])
def test_bits_known_values(jax, jnp, partitionable, dtype):
    """bits of PRNGKey(1701) and of the _RANDOM_VALUES_CASES key (SPEC RNG-78)."""
    want = KNOWN[partitionable]
    out = jax.random.bits(jax.random.PRNGKey(1701), (3,), getattr(jnp, dtype))
    assert out.dtype == getattr(jnp, dtype)
    assert values(out) == want["bits1701"][dtype]
    table = jax.random.bits(jax.random.PRNGKey(942802475), shape=(5,), dtype=getattr(jnp, dtype))
    assert values(table) == want["table_bits"][dtype]


@pytest.mark.spec("RNG-78")
@BOTH_MODES
def test_bits_default_uint32_prefix_depends_on_mode(jax, partitionable):
    """With partitionable=True a shorter draw is a prefix of a longer one;
    with False it is not (SPEC RNG-78)."""
    want = KNOWN[partitionable]
    assert values(jax.random.bits(jax.random.PRNGKey(0), (8,))) == want["bits0_8"]
    assert values(jax.random.bits(jax.random.PRNGKey(0), (3,))) == want["bits0_3"]


@pytest.mark.spec("RNG-78")
@BOTH_MODES
def test_bits_uint64_with_x64(jax, jnp, x64, partitionable):
    """uint64 bits with x64 on (SPEC RNG-78)."""
    out = jax.random.bits(jax.random.PRNGKey(1701), (3,), jnp.uint64)
    assert out.dtype == jnp.uint64
    assert values(out) == KNOWN[partitionable]["bits1701_u64"]


@pytest.mark.spec("RNG-78")
@BOTH_MODES
def test_bits_view_property(jax, jnp, partitionable):
    """testRngRandomBitsViewProperty (a partitionable=False test): 8/16/32-bit
    draws of the same number of bytes are the same bytes; with
    partitionable=True they all differ (SPEC RNG-78)."""
    key = jax.random.key(1701)
    views = [np.asarray(jax.random.bits(key, (10 * 64 // n,), getattr(jnp, f"uint{n}")))
             .view(np.uint32).tolist() for n in (8, 16, 32)]
    same = [views[0] == views[1], views[1] == views[2], views[0] == views[2]]
    assert same == [not partitionable] * 3


@pytest.mark.spec("RNG-78")
def test_bits_uint64_with_x64_off_warns_and_gives_uint32(jax, jnp):
    """Asking for uint64 with x64 off warns and returns the uint32 bits (SPEC RNG-78)."""
    with pytest.warns(UserWarning, match="Explicitly requested dtype uint64"):
        out = jax.random.bits(jax.random.PRNGKey(1701), (3,), jnp.uint64)
    assert out.dtype == jnp.uint32
    assert values(out) == KNOWN[True]["bits1701"]["uint32"]


@pytest.mark.spec("RNG-79")
@BOTH_MODES
def test_randint_known_values(jax, jnp, partitionable):
    """randint (SPEC RNG-79)."""
    want = KNOWN[partitionable]
    out = jax.random.randint(jax.random.PRNGKey(0), (3, 3), 0, 8, dtype="int32")
    assert out.dtype == jnp.int32 and values(out) == want["randint"]
    out = jax.random.randint(jax.random.PRNGKey(1319372649), minval=0, maxval=10,
                             shape=(5,), dtype=jnp.int32)
    assert values(out) == want["table_randint"]


@pytest.mark.spec("RNG-79")
@BOTH_MODES
def test_randint_int64_known_values(jax, jnp, x64, partitionable):
    """randint int64 with x64 on (SPEC RNG-79)."""
    out = jax.random.randint(jax.random.PRNGKey(0), (3, 3), 0, 8, dtype="int64")
    assert out.dtype == jnp.int64
    assert values(out) == KNOWN[partitionable]["randint_i64"]


@pytest.mark.spec("RNG-80")
@BOTH_MODES
def test_uniform_known_values_bit_exact(jax, jnp, partitionable):
    """uniform float32 values, bit for bit (SPEC RNG-80)."""
    want = KNOWN[partitionable]
    out = jax.random.uniform(jax.random.PRNGKey(0), (5,))
    assert out.dtype == jnp.float32
    assert f32_bits(out) == f32_bits(want["uniform5"])
    assert f32_bits(jax.random.uniform(jax.random.PRNGKey(0))) == f32_bits(want["uniform_scalar"])
    table = jax.random.uniform(jax.random.PRNGKey(1338574713), shape=(5,), dtype=jnp.float32)
    assert f32_bits(table) == f32_bits(want["table_uniform"])


def ulp_distance(a, b):
    """Distance in float32 units in the last place (same-sign values)."""
    ia = np.asarray(a, np.float32).view(np.int32).astype(np.int64)
    ib = np.asarray(b, np.float32).view(np.int32).astype(np.int64)
    return np.abs(ia - ib)


@pytest.mark.spec("RNG-80")
@BOTH_MODES
def test_normal_known_values_within_2ulp(jax, jnp, partitionable):
    """normal float32 values within 2 ulp (SPEC RNG-80)."""
    want = KNOWN[partitionable]
    out = jax.random.normal(jax.random.PRNGKey(0), (5,))
    assert out.dtype == jnp.float32
    assert ulp_distance(out, want["normal5"]).max() <= 2
    assert ulp_distance(jax.random.normal(jax.random.PRNGKey(0)), want["normal_scalar"]) <= 2
    table = jax.random.normal(jax.random.PRNGKey(1193674498), shape=(5,), dtype=jnp.float32)
    assert ulp_distance(table, want["table_normal"]).max() <= 2
