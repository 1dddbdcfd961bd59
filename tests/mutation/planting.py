"""Copies of refjax with one textual fault planted.

Shared by the mutation tool (``python -m tests.mutation``) and the planted
faults of the differential runner (tests/test_differential_faults.py).  A
copy holds ``refjax/`` with ``backends/`` inside it as ``refjax/backends``
(where an installed refjax has it), so nothing in the copy falls back on the
checkout's files.
"""
import os
import re
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")


class PlantError(Exception):
    """A fault's original text is not found exactly once in its file."""


def copy_refjax(parent, name="refjax"):
    """``refjax/`` (and ``backends/`` inside it) copied to ``parent/name``.

    Under another ``name`` every ``refjax`` identifier in the copy is
    renamed, so the copy and the checkout can be imported side by side.
    Returns the copy's package directory."""
    target = os.path.join(parent, name)
    shutil.copytree(os.path.join(ROOT, "refjax"), target, ignore=_IGNORE)
    shutil.copytree(os.path.join(ROOT, "backends"), os.path.join(target, "backends"),
                    ignore=_IGNORE)
    if name != "refjax":
        for folder, _, files in os.walk(target):
            for f in files:
                if f.endswith(".py"):
                    _rename(os.path.join(folder, f), name)
    return target


def _rename(path, name):
    with open(path) as f:
        text = f.read()
    renamed = re.sub(r"\brefjax\b", name, text)
    if renamed != text:
        with open(path, "w") as f:
            f.write(renamed)


def source_path(package_dir, where):
    """The file ``where`` (relative to ``refjax/``; ``backends/...`` means the
    top-level backends directory) inside ``package_dir``."""
    return os.path.join(package_dir, *where.split("/"))


def checkout_path(where):
    """The file ``where`` (as for :func:`source_path`) in the checkout."""
    if where.startswith("backends/"):
        return os.path.join(ROOT, *where.split("/"))
    return os.path.join(ROOT, "refjax", *where.split("/"))



def plant(package_dir, where, old, new, label="fault"):
    """Replace ``old`` by ``new`` in ``where`` of the copy at ``package_dir``.

    Raises PlantError unless ``old`` occurs exactly once: a fault whose text
    moved or was duplicated must fail loudly, never plant nothing or the
    wrong thing."""
    path = source_path(package_dir, where)
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        raise PlantError(f"cannot plant {label!r}: no file {where}") from None
    n = text.count(old)
    if n != 1:
        raise PlantError(f"cannot plant {label!r}: its original text occurs {n} times "
                         f"in {where} (must be exactly once); update the catalogue:\n"
                         f"{old}")
    with open(path, "w") as f:
        f.write(text.replace(old, new))
