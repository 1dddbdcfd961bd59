"""Check documentation pages against JAX: ``python -m refjax.doccheck PATH...``
(SPEC API-102..API-106).

Finds the pages under each PATH (MyST ``.md`` pages with ``{code-cell}``
blocks and ``.ipynb`` notebooks), runs each page's code cells in order in one
fresh process per implementation, once with ``import jax`` giving refjax
(``python -m refjax.as_jax``) and once under real JAX, and compares the cells'
outputs: identical, within float32 rounding, or differing; cells whose JAX
output shows HLO/XLA text or memory addresses, and timing cells, are not
comparable.  Prints a table per page and the differing cells with both
outputs; exits 1 if a comparable cell differs.  Downloads nothing: point it
at pages you have::

    python -m refjax.doccheck docs/ [--only refjax|jax] [--timeout S] [--json F]
"""
import sys

from refjax._src.doccheck import (
    check_page, classify, find_pages, main, page_cells, within_rounding,
)

__all__ = ["check_page", "classify", "find_pages", "main", "page_cells", "within_rounding"]

if __name__ == "__main__":
    sys.exit(main())
