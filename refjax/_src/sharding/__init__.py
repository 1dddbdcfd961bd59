"""``shard_map`` and ``pmap`` on simulated devices, and
``visualize_array_sharding``.  The sharding types live in ``mesh.py`` (the
concrete Array holds one) and placement in ``placement.py`` (``jit`` and
eager dispatch use it), both lower layers."""
