"""The npm tools some tests run (openapi-typescript, @hey-api/openapi-ts, tsc, axe-core), installed with
``npm ci`` at the versions a folder's package-lock.json pins, into a test's own folder."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def installed(pinned: Path, folder: Path, needed_for: str, *files: str) -> Path:
    """``folder`` with ``pinned``'s package.json, package-lock.json and ``files`` copied in and its
    node_modules installed as the lock file says; the test is skipped where npm is not installed (it says
    what for: ``needed_for``)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(f"node is not installed (Debian: apt-get install nodejs npm); {needed_for} needs npm")
    for name in ("package.json", "package-lock.json", *files):
        shutil.copy(pinned / name, folder / name)
    done = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--prefer-offline"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return folder
