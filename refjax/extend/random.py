"""``jax.extend.random``: the raw threefry2x32 hash and PRNG
implementations (SPEC RNG-1, RNG-10)."""
from refjax._src.random.prng import (  # noqa: F401
    random_seed, rbg_prng_impl, threefry2x32_p, threefry_2x32,
    threefry_prng_impl, unsafe_rbg_prng_impl,
)
