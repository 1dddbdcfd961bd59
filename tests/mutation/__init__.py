"""Mutation testing of refjax: realistic faults planted one at a time in a
copy of the library, each run against the tests that should catch it
(SPEC MUT-1 .. MUT-4).  ``python -m tests.mutation --help``."""
