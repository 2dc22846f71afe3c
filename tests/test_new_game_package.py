"""A new game is one package under ``service/games/`` and nothing else: the toy game of ``tests/toy_nim/``
is copied, as it is, into ``service/games/`` of a copy of this tree, the generated files are made again the
way docs/contributing/adding-a-game.md says (``openapi.yaml``, the README's list of games), and every check
a new game meets passes there, with no other file edited: the contract (the app's OpenAPI document has the
game, is what ``openapi.yaml`` holds, and tells its answers apart), the catalogue, a match played to the end
over HTTP whose every answer fits the contract, the documentation site (``mkdocs build --strict``: the
game's page, rules spec and nav entries), the layer test, the test that no line outside the packages names
a game, the generic per-game tests and the generated clients (Python, and TypeScript where npm is).

The checks run in subprocesses on the copy, so this tree is never touched, whatever happens."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOY = ROOT / "tests" / "toy_nim"
LEFT_OUT = {".venv", "site", "node_modules", "__pycache__", ".pytest_cache", ".hypothesis", "matchlog-data"}

GENERIC = [  # whole tests that look at every game
    "tests/http/test_openapi_components.py::test_openapi_yaml_is_what_the_app_serves",
    "tests/http/test_openapi_components_typed.py::test_answers_with_a_game_s_data_are_told_apart_by_game",
    "tests/test_docs.py",
    "tests/test_layers.py",
    "tests/test_rule_ids.py",
    "tests/test_one_package_per_game.py::test_no_line_outside_the_game_packages_names_a_game",
    "tests/test_generated_client.py::test_a_typescript_client_creates_a_match_and_reads_typed_state",
]
PER_GAME = [  # tests parametrized by game, run for the new one (-k toy)
    "tests/games/test_kit.py",
    "tests/games/test_engines_robust.py",
    "tests/games/test_bots.py",
    "tests/domain/test_lifecycle_refusals.py",
    "tests/domain/test_lifecycle_undo.py",
    "tests/domain/test_chain_hidden.py",
    "tests/test_generated_client.py",
]

PLAYED = """
import random, fakeredis
from service.http.app import create_app
from service.config import Settings
from service.http.openapi_components import prefix
from service.games import GAMES
from tests.helpers import create, play_random_game
from tests.http.test_openapi_components_typed import problems

app = create_app(Settings(namespace="new-game"), fakeredis.FakeRedis())
client = app.test_client()
entry = next(g for g in client.get("/v1/games").json if g["id"] == "toy-nim")
assert entry["packs"] == ["classic", "tiny"] and entry["record_type"] == "text/x-nim", entry
match_id, tokens = create(client, "toy-nim", [{"name": "ann"}, {"name": "bob"}])
final = play_random_game(client, match_id, tokens, random.Random(3))
assert final["status"] == "finished", final
shape = prefix(GAMES["toy-nim"])
found = problems("match", shape, client.get(f"/v1/matches/{match_id}").json)
found += problems("events", shape, client.get(f"/v1/matches/{match_id}/events?limit=1000").json)
assert found == [], found
print("played")
"""


def copy_of_the_tree(target: Path) -> None:
    """This checkout as its files are now (tracked and new, not ignored ones), or, outside git, its folders
    but what is installed or built."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if listed.returncode != 0:
        shutil.copytree(ROOT, target, ignore=shutil.ignore_patterns(*LEFT_OUT))
        return
    for name in listed.stdout.decode().split("\0"):
        source = ROOT / name
        if name and source.is_file() and not LEFT_OUT & set(Path(name).parts):
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def run(tree: Path, *command: str, **kwargs) -> subprocess.CompletedProcess:
    quiet = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    return subprocess.run(
        [sys.executable, *command],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=1200,
        # a copy's run is not this run's coverage: untraced (no COVERAGE_PROCESS_CONFIG), as it is not measured
        env={
            **{k: v for k, v in os.environ.items() if k != "COVERAGE_PROCESS_CONFIG"},
            **quiet,
            "PYTHONPATH": str(tree),
        },
        **kwargs,
    )


@pytest.mark.slow
def test_the_toy_game_copied_into_service_games_meets_every_check(tmp_path):
    tree = tmp_path / "tree"
    copy_of_the_tree(tree)
    shutil.copytree(TOY, tree / "service" / "games" / TOY.name, ignore=shutil.ignore_patterns("__pycache__"))

    # the files made from the packages, made again (docs/contributing/adding-a-game.md)
    contract = run(tree, "-m", "service.cli", "openapi")
    assert contract.returncode == 0, contract.stderr
    (tree / "openapi.yaml").write_text(contract.stdout, encoding="utf-8")
    readme = run(tree, "docs/gen_reference.py", "--readme")
    assert readme.returncode == 0, readme.stdout + readme.stderr
    assert "ToyNimAction:" in contract.stdout and "toy-nim" in (tree / "README.md").read_text(
        encoding="utf-8"
    )

    played = run(tree, "-c", PLAYED)
    assert played.returncode == 0 and played.stdout.strip() == "played", played.stdout + played.stderr

    pytest_run = ("-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-cov", "-n", "0")
    generic = run(tree, *pytest_run, *GENERIC)
    assert generic.returncode == 0, generic.stdout[-6000:] + generic.stderr[-2000:]
    per_game = run(tree, *pytest_run, "-k", "toy", *PER_GAME)
    assert per_game.returncode == 0, per_game.stdout[-6000:] + per_game.stderr[-2000:]
    assert " passed" in per_game.stdout and "ToyNim" not in (ROOT / "openapi.yaml").read_text(
        encoding="utf-8"
    )
