"""refjax's build backend: setuptools', with one change to editable installs.

``pip install -e .`` makes setuptools install a finder that maps ``refjax``
to this checkout.  setuptools appends that finder *after* Python's path
search, so a folder named ``refjax`` beside the user's script (the usual case:
the clone itself, with ``script.py`` next to it) is found first, as an empty
namespace package, and ``refjax.jit`` fails with an AttributeError.  The
editable wheel here also installs a small guard ahead of the path search:
a regular ``refjax`` package on the path (a tree on ``PYTHONPATH``) still
wins, but where the path holds only a namespace folder, the checkout is
imported (SPEC BE-15).  Regular (non-editable) installs are setuptools' own:
site-packages holds a regular package, which a namespace folder never shadows.
"""
import base64
import hashlib
import os
import re
import zipfile

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401  (the other hooks, unchanged)
    build_sdist, build_wheel, get_requires_for_build_editable, get_requires_for_build_sdist,
    get_requires_for_build_wheel, prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

__all__ = ["build_editable", "build_sdist", "build_wheel", "get_requires_for_build_editable",
           "get_requires_for_build_sdist", "get_requires_for_build_wheel",
           "prepare_metadata_for_build_editable", "prepare_metadata_for_build_wheel"]

GUARD = "__editable___refjax_guard"
_GUARD_SOURCE = '''"""Put the editable refjax ahead of namespace folders named refjax (SPEC BE-15)."""
import sys
from importlib.machinery import PathFinder


class RefjaxGuard:
    """Finds ``refjax`` on the path first; a namespace folder is passed over
    for the editable checkout."""
    editable = None

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != "refjax":
            return None
        spec = PathFinder.find_spec(name, path)
        if spec is not None and spec.origin is not None:
            return spec             # a regular package on the path wins
        return cls.editable.find_spec(name, path, target)


def install(editable):
    RefjaxGuard.editable = editable
    if RefjaxGuard not in sys.meta_path:
        sys.meta_path.insert(0, RefjaxGuard)
'''


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    name = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    _finder_first(os.path.join(wheel_directory, name))
    return name


def _finder_first(wheel_path):
    """Add the guard module to the wheel and call it from its ``.pth``."""
    with zipfile.ZipFile(wheel_path) as wheel:
        files = {info.filename: wheel.read(info) for info in wheel.infolist()}
    pth = [n for n in files if re.fullmatch(r"__editable__\..*\.pth", n)]
    if len(pth) != 1:
        return              # a layout setuptools chose without a finder
    text = files[pth[0]].decode()
    match = re.match(r"import (__editable___\w+_finder); \1\.install\(\)\s*$", text)
    if match is None:
        return
    finder = match.group(1)
    files[pth[0]] = (f"{text.rstrip()}; import {GUARD}; "
                     f"{GUARD}.install({finder}._EditableFinder)\n").encode()
    files[GUARD + ".py"] = _GUARD_SOURCE.encode()
    record = next(n for n in files if n.endswith(".dist-info/RECORD"))
    text = files[record].decode()
    for name in (pth[0], GUARD + ".py"):
        text = _rewrite_record(text, name, files[name])
    files[record] = text.encode()
    with zipfile.ZipFile(wheel_path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for filename, data in files.items():
            wheel.writestr(filename, data)


def _rewrite_record(record, filename, data):
    """RECORD with ``filename``'s line for ``data`` (added if missing)."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    entry = f"{filename},sha256={digest},{len(data)}"
    lines = [line for line in record.splitlines() if not line.startswith(filename + ",")]
    return "\n".join([entry] + lines) + "\n"
