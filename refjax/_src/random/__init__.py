"""``jax.random``'s internals: the PRNG primitives and key types (``prng``),
keys and the basic samplers (``basic``), the other samplers (``continuous``,
``discrete``) and the eager key-reuse checker (``key_reuse``)."""
