"""Structured control flow: ``cond``/``switch``, ``while_loop``,
``fori_loop``, ``scan``, ``map`` and ``associative_scan`` (SPEC CF).

Each construct is a primitive holding closed jaxprs of the user's functions
(traced once, on abstract values), with its evaluation, JVP, partial
evaluation, transposition and batching rules beside it.
"""
