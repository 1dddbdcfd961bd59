"""``jax.experimental.shard_map``: the older spelling of ``jax.shard_map``
(``check_rep`` for ``check_vma``), deprecated since JAX 0.8 (SPEC SHD-50)."""
import warnings


def __getattr__(name):
    if name == "shard_map":
        warnings.warn("jax.experimental.shard_map is deprecated in v0.8.0. Used "
                      "jax.shard_map instead.", DeprecationWarning, stacklevel=2)
        from refjax._src.sharding.shard_map import experimental_shard_map
        return experimental_shard_map
    raise AttributeError(f"module 'refjax.experimental.shard_map' has no attribute {name!r}")
