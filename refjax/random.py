"""``jax.random``: explicit PRNG keys and samplers (SPEC RNG-1 .. RNG-29)."""
from refjax._src.random import (  # noqa: F401
    KeyArray, PRNGKey, bits, clone, fold_in, key, key_data, key_impl, normal,
    randint, split, uniform, wrap_key_data,
)
from refjax._src.random_discrete import *  # noqa
from refjax._src.random_continuous import *  # noqa
