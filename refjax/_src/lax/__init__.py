"""The primitives, each defined once with all of its rules (SPEC JXP-4):
elementwise ops and conversions (``lax``), shapes (``shapes``), reductions,
``dot_general``, sorting and ``top_k``, gathers, scatters and dynamic slices
(``gather_scatter``, ``dynamic_slice``), convolutions, FFTs, linear algebra, collectives (``parallel``)
and structured control flow (``control_flow/``).  ``docs/primitives.md``
lists where each rule is."""
