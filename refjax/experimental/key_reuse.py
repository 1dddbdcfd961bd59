"""``jax.experimental.key_reuse``: documentation of the key-reuse checker.

As in JAX 0.10.2, this module exports no names: the checker is switched on
with the ``jax_debug_key_reuse`` option (``jax.debug_key_reuse(True)`` or
``jax.config.update('jax_debug_key_reuse', True)``) and reports reuse with
``jax.errors.KeyReuseError``.  Consuming a typed key twice (drawing bits,
splitting it) then raises, eagerly or when a jitted function is traced::

    >>> with jax.debug_key_reuse(True):
    ...   key = jax.random.key(0)
    ...   val1 = jax.random.normal(key)
    ...   val2 = jax.random.normal(key)
    Traceback (most recent call last):
     ...
    KeyReuseError: Previously-consumed key passed to jit-compiled function at index 0

The implementation is ``refjax._src.random.key_reuse`` (SPEC RNG-65 .. RNG-74).
"""
