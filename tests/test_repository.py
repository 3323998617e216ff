"""The repository holds sources, not binaries: dependencies come from the package index, and
data files stay small (CONTRIBUTING.md, "Commits")."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LARGEST = 512 * 1024
"""Bytes: the largest file the repository may hold (the biggest source today is ~64 KB)."""
PACKAGES = (".whl", ".egg", ".zip", ".tar", ".tar.gz", ".tgz", ".so", ".pyd", ".dll", ".exe")


def tracked_files() -> list[Path]:
    """The files git tracks in this checkout (skipped outside a git checkout)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in listed.decode().split("\0") if name]


def test_no_packages_or_large_files_are_committed() -> None:
    """No wheel, archive or compiled library, and no file over :data:`LARGEST` bytes."""
    files = [path for path in tracked_files() if path.exists()]
    packages = [p.name for p in files if p.name.endswith(PACKAGES)]
    large = [p.name for p in files if p.stat().st_size > LARGEST]
    assert packages == [] and large == []
