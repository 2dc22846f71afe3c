"""The documentation: the site in docs/ builds with MkDocs with every warning an error (a broken link or
anchor, a page left out of the nav), the README stays a newcomer's first page, and every command in
either uses the server's default port."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from service.games import GAMES
from service.http.app import spec

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TEST_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest"


def test_the_site_builds_strictly(tmp_path):
    quiet = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}  # plugins' own banners
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **quiet},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for game in GAMES:  # each game's page, from its package, with the generated reference
        page = (tmp_path / "site" / "games" / game / "index.html").read_text()
        assert "Options" in page and "Entry types" in page and "match_created" in page
    home = (tmp_path / "site" / "index.html").read_text()
    assert all(
        f'href="games/{game}/"' in home for game in GAMES
    )  # the home page's list (--strict: and the nav)


def test_the_readme_lists_the_games_of_the_packages():
    """The README's list of games is generated (GitHub shows the file as committed, so it is kept there)."""
    done = subprocess.run(
        [sys.executable, "docs/gen_reference.py", "--readme", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_readme_is_short_and_says_what_ci_runs():
    text = README.read_text()
    assert len(text.splitlines()) <= 250
    assert TEST_COMMAND in text
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith(TEST_COMMAND)


def test_the_readme_links_only_to_what_exists():
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text()):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def test_every_command_uses_the_default_port():
    game_pages = sorted((ROOT / "service" / "games").glob("*/*.md"))  # each game's page and rules spec
    for path in [README, *sorted((ROOT / "docs").rglob("*.md")), *game_pages]:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for scheme, port in re.findall(r"(\S*?)(?:localhost|127\.0\.0\.1|--port)[: ](\d+)", line):
                # Redis's own ports (redis://, redis+cluster://) and 8799, the webhook receiver the
                # examples register, are not matchlog's
                assert "redis" in scheme or port in {"8000", "8799"}, (
                    f"{path.relative_to(ROOT)}:{number}: {line}"
                )


def test_the_api_reference_lists_every_endpoint(app):
    """docs/reference/api.md's table has a row for each operation the served contract has, the moves
    socket's included, and none it does not (path parameters are compared by place, not by name)."""
    contract = spec(app)
    served = {
        (method.upper(), path)
        for path, item in contract["paths"].items()
        for method in item
        if method in ("get", "put", "post", "delete", "patch")
    } | {("GET", path) for path in contract["x-websockets"]}
    page = (ROOT / "docs" / "reference" / "api.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `(GET|PUT|POST|DELETE|PATCH) (/[^?` ]*)", page, re.MULTILINE))

    def by_place(endpoints: set[tuple[str, str]]) -> set[tuple[str, str]]:
        return {(method, re.sub(r"\{[^}]*\}", "{}", path)) for method, path in endpoints}

    assert len(listed) == len(by_place(listed))
    assert by_place(served) - by_place(listed) == set(), "operations the page leaves out"
    assert by_place(listed) - by_place(served) == set(), "rows of the page the contract does not have"
