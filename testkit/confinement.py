"""Running a process where the file system says no: a small disk, a read-only mount, a file or
folder it may not write. Root may write anything, so for root the process runs without the
capabilities that let it (``setpriv``); mounts are made in a mount namespace of the process's
own (``unshare``), gone when it ends, so nothing is left mounted on the machine.

Both tools come with util-linux. Root (this project's machines and CI) can always use them;
another user needs unprivileged user namespaces for the mounts (:func:`need_mounts` skips the
test otherwise).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence

import pytest

ROOT = os.geteuid() == 0
_OVERRIDES = "-dac_override,-dac_read_search,-fowner"


def as_unprivileged(command: Sequence[str]) -> list[str]:
    """``command`` run so that file permissions hold for it: as root, without the capabilities
    that bypass them (another user is held by them anyway)."""
    if not ROOT:
        return list(command)
    return ["setpriv", "--bounding-set", _OVERRIDES, "--inh-caps", _OVERRIDES, *command]


def with_mount(setup: str, command: Sequence[str]) -> list[str]:
    """``command`` run in a mount namespace of its own, after the shell commands ``setup``
    (``mount ...``) have run there."""
    unshare = ["unshare", "--mount"] if ROOT else ["unshare", "--map-root-user", "--mount"]
    return [*unshare, "sh", "-c", f'{setup} && exec "$@"', "sh", *command]


def need_mounts() -> None:
    """Skip the test where mounts in a namespace cannot be made (never as root)."""
    if ROOT:
        return
    done = subprocess.run(with_mount("true", ["true"]), capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip("this user cannot make a mount namespace (unshare --map-root-user)")
