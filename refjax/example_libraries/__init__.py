"""``refjax.example_libraries``: JAX's small example libraries, ``stax``
(neural-network layers) and ``optimizers`` (SPEC EXL-1 .. EXL-20).

Like JAX's package, this one defines no names of its own: import the
submodules.  They are written on refjax's public API only.
"""
