"""An editable install is found ahead of a folder named ``refjax`` (SPEC BE-15)."""
import base64
import hashlib
import os
import subprocess
import sys
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def editable_wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    code = ("import sys; sys.path.insert(0, '.build_backend'); import refjax_build; "
            f"print(refjax_build.build_editable({str(out)!r}))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    return out / result.stdout.strip().splitlines()[-1]


def _unpack(wheel_path, target):
    with zipfile.ZipFile(wheel_path) as wheel:
        wheel.extractall(target)
        return {n: wheel.read(n) for n in wheel.namelist()}


def _digest(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


@pytest.mark.spec("BE-15")
def test_editable_wheel_installs_the_guard_and_records_it(editable_wheel, tmp_path):
    files = _unpack(editable_wheel, tmp_path)
    (pth,) = [n for n in files if n.startswith("__editable__.") and n.endswith(".pth")]
    assert b"__editable___refjax_guard.install(" in files[pth]
    record = next(files[n] for n in files if n.endswith(".dist-info/RECORD")).decode()
    for name in (pth, "__editable___refjax_guard.py"):
        assert f"{name},sha256={_digest(files[name])},{len(files[name])}" in record.splitlines()


def _find_refjax(site_dir, cwd, pythonpath=None):
    # -S: only the unpacked wheel provides refjax, as in a fresh virtualenv.
    code = ("import importlib.util, site, sys; sys.path.insert(0, ''); "
            + (f"sys.path.insert(1, {str(pythonpath)!r}); " if pythonpath else "")
            + f"site.addsitedir({str(site_dir)!r}); "
            "print(importlib.util.find_spec('refjax').origin)")
    result = subprocess.run([sys.executable, "-S", "-c", code], cwd=cwd,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip()


@pytest.mark.spec("BE-15")
def test_a_refjax_folder_beside_the_script_does_not_shadow_the_install(editable_wheel, tmp_path):
    site_dir, work = tmp_path / "site", tmp_path / "work"
    _unpack(editable_wheel, site_dir)
    (work / "refjax").mkdir(parents=True)       # e.g. the clone, next to script.py
    assert _find_refjax(site_dir, work) == os.path.join(ROOT, "refjax", "__init__.py")


@pytest.mark.spec("BE-15")
def test_a_refjax_tree_on_the_path_still_wins(editable_wheel, tmp_path):
    site_dir, other = tmp_path / "site", tmp_path / "other"
    _unpack(editable_wheel, site_dir)
    (other / "refjax").mkdir(parents=True)
    (other / "refjax" / "__init__.py").write_text("")
    found = _find_refjax(site_dir, tmp_path, pythonpath=other)
    assert found == str(other / "refjax" / "__init__.py")
