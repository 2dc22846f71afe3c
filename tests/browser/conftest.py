"""The browser tests' fixtures: headless Chromium (Debian's ``chromium``, driven by playwright) and a
``matchlog serve`` for it, shared by the viewer's and the play page's tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.integration.test_serve import free_port, serve_env, start_serve, stop_serve

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM = os.environ.get("MATCHLOG_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
# As the machine's probe starts it: headless, and no background calls to a network that is not there.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        if os.environ.get("MATCHLOG_BROWSER_REQUIRED"):  # .ci/run installs it: there, a missing one fails
            pytest.fail("no Chromium: install Debian's chromium package (apt-get install chromium)")
        pytest.skip(
            "no Chromium on this machine: install Debian's chromium package (apt-get install chromium)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def server():
    folder = tempfile.mkdtemp(prefix="mlv-", dir="/tmp")
    process, http = start_serve(  # the test plays whole matches at full speed from one address
        folder, free_port(), MATCHLOG_RATE_LIMIT_PER_TOKEN="off", MATCHLOG_RATE_LIMIT_READS_PER_ADDRESS="off"
    )
    try:
        yield http
    finally:
        stop_serve(process)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def platform_key(server) -> str:
    """A platform's key on the served server, made as an operator makes one (``matchlog keys create``): what
    only a platform may do, a tournament, needs it."""
    made = subprocess.run(
        [sys.executable, "-m", "service.cli", "keys", "create", "club", "--data", server.data],
        env=serve_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(made.stdout.splitlines()[-1])["key"]


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    problems = []
    opened.on("pageerror", lambda error: problems.append(str(error)))
    opened.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    yield opened
    context.close()
    assert not problems, problems
