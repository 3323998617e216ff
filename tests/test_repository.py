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


def test_the_constraints_file_pins_every_dependency_within_its_range() -> None:
    """constraints.txt (``bash .ci/lock``) pins each dependency of pyproject.toml (the extras
    included) at a version its range allows: a range changed without a refreshed lock fails."""
    import tomllib

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        wanted += extra
    pins: dict[str, str] = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version
    for text in wanted:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not in constraints.txt: run bash .ci/lock"
        assert requirement.specifier.contains(pins[name]), f"{text}: {pins[name]} is pinned"
