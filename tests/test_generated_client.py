"""A client generated from ``openapi.yaml`` with openapi-python-client works first time: with the
generated code only, it creates a match of every game, takes an action from the legal-actions listing
(typed per game, so a BLOCK.BLOCK action stays one), posts it back (201), gets a 422 with its reason,
and downloads a Blokus record. Requests go to the app in-process through httpx's WSGI transport."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from service.games import GAMES

CONTRACT = Path(__file__).resolve().parents[1] / "openapi.yaml"


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("generated")
    tool = Path(sys.executable).with_name("openapi-python-client")
    done = subprocess.run(
        [
            str(tool),
            "generate",
            "--path",
            str(CONTRACT),
            "--output-path",
            str(folder / "matchlog_client"),
            "--meta",
            "none",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("matchlog_client")
    finally:
        sys.path.remove(str(folder))
        for name in [n for n in sys.modules if n.split(".")[0] == "matchlog_client"]:
            del sys.modules[name]


def module(package, name):
    return importlib.import_module(f"{package.__name__}.{name}")


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_generated_client_plays_every_game(generated, app, game_id):
    transport = httpx.WSGITransport(app=app)
    anonymous = generated.Client(base_url="http://matchlog.test", httpx_args={"transport": transport})
    models = module(generated, "models")
    create = module(generated, "api.v1.post_v1_matches")
    listing = module(generated, "api.v1.get_v1_matches_match_id_legal_actions")
    submit = module(generated, "api.v1.post_v1_matches_match_id_actions")
    match = module(generated, "api.v1.get_v1_matches_match_id")

    players = 2 if 2 in GAMES[game_id].info.counts() else GAMES[game_id].info.counts()[0]
    created = create.sync_detailed(
        client=anonymous,
        body=models.CreateMatch(
            game=models.CreateMatchGame(game_id),
            players=[models.Player(name=f"p{i}") for i in range(players)],
        ),
    )
    assert created.status_code == 201, created.content
    match_id = created.parsed.id
    to_act = match.sync(match_id=match_id, client=anonymous).to_act[0]
    seat = generated.AuthenticatedClient(
        base_url="http://matchlog.test",
        token=created.parsed.seats[to_act].token,
        httpx_args={"transport": transport},
    )
    legal = listing.sync(match_id=match_id, client=seat)
    assert legal.game.value == game_id  # the listing parsed as this game's, by its discriminator
    action = legal.actions[0]
    assert (
        type(action).__name__
        == {g: f"{''.join(p.capitalize() for p in g.split('-'))}Action" for g in GAMES}[game_id]
    )
    posted = submit.sync_detailed(
        match_id=match_id,
        client=seat,
        body=models.SubmitAction(expected_version=legal.version, action=action),
    )
    assert posted.status_code == 201, posted.content
    version = posted.parsed.version
    again = submit.sync_detailed(
        match_id=match_id, client=seat, body=models.SubmitAction(expected_version=version, action=action)
    )
    assert again.status_code == 422 and again.parsed.error == "illegal_action" and again.parsed.reason

    # the state, the match and the entries parse as this game's models, with typed fields
    prefix = {g: "".join(p.capitalize() for p in g.split("-")) for g in GAMES}[game_id]
    state = module(generated, "api.v1.get_v1_matches_match_id_state").sync(match_id=match_id, client=seat)
    assert type(state).__name__ == f"{prefix}State" and type(state.state).__name__ == f"{prefix}View"
    assert state.version == version and state.game.value == game_id  # the discriminator, typed
    view = state.state
    read = {  # a switch on the answer's game: each branch reads its game's typed view
        "blokus": lambda: (view.board[0][0], view.colours[0].squares_left, view.variant),
        "block-block": lambda: (view.heights[0][0], view.move_no, view.status),
        "chock-a-block": lambda: (view.players[0].hand_size, view.round_, view.deck_size),
        "blackout-hong-kong": lambda: (view.players[0].hand_size, view.players[0].vp, view.round_),
    }.get(state.game.value)
    if read is not None:  # a game added since this switch was written: its view is still its own model
        values = read()
        assert all(value is not None for value in values[1:]) and isinstance(values[1], int)
    summary = match.sync(match_id=match_id, client=anonymous)
    assert type(summary).__name__ == f"{prefix}Match" and summary.game.value == game_id
    assert type(summary.options).__name__ == f"{prefix}Options"
    page = module(generated, "api.v1.get_v1_matches_match_id_events").sync(match_id=match_id, client=seat)
    assert type(page).__name__ == f"{prefix}Events" and page.game.value == game_id
    assert type(page.events[0]).__name__ == f"{prefix}MatchCreatedEntry"


def test_the_generated_client_downloads_a_blokus_record(generated, app):
    transport = httpx.WSGITransport(app=app)
    client = generated.Client(base_url="http://matchlog.test", httpx_args={"transport": transport})
    models = module(generated, "models")
    created = module(generated, "api.v1.post_v1_matches").sync(
        client=client,
        body=models.CreateMatch(
            game=models.CreateMatchGame("blokus"),
            players=[models.Player(name="ann"), models.Player(name="bob")],
        ),
    )
    record = module(generated, "api.v1.get_v1_matches_match_id_record").sync(
        match_id=created.id, client=client
    )
    assert isinstance(record, str) and record.startswith("(;GM[Blokus") and "P1[ann]" in record


USE_TYPES = """
import type { components, paths } from "./matchlog";
type Listing = paths["/v1/matches/{match_id}/legal-actions"]["get"]["responses"][200]["content"]["application/json"];
export function firstBlockBlockAction(listing: Listing): components["schemas"]["BlockBlockAction"] | undefined {
  return listing.game === "block-block" ? listing.actions[0] : undefined;  // narrowed by the discriminator
}
"""


TS_CLIENT = (
    Path(__file__).resolve().parent / "clients" / "ts"
)  # package.json and package-lock.json pin the tools


@pytest.fixture(scope="module")
def typescript(tmp_path_factory):
    """openapi-typescript, openapi-fetch and tsc at the versions package-lock.json pins, in a folder of their
    own, with the types generated from openapi.yaml in it (matchlog.d.ts)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(
            "node is not installed (Debian: apt-get install nodejs npm); the TypeScript check needs npm"
        )
    folder = tmp_path_factory.mktemp("ts")
    for name in ("package.json", "package-lock.json", "play.ts"):
        shutil.copy(TS_CLIENT / name, folder / name)
    installed = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--prefer-offline"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    types = subprocess.run(
        [str(folder / "node_modules" / ".bin" / "openapi-typescript"), str(CONTRACT), "-o", "matchlog.d.ts"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert types.returncode == 0, types.stdout + types.stderr
    return folder


def tsc(folder: Path, *files: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            str(folder / "node_modules" / ".bin" / "tsc"),
            "--strict",
            "--noEmit",
            "--target",
            "es2022",
            "--module",
            "nodenext",
            "--moduleResolution",
            "nodenext",
            *files,
            "matchlog.d.ts",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=folder,
    )


def test_typescript_types_compile_under_strict(typescript):
    (typescript / "use.ts").write_text(USE_TYPES)
    compiled = tsc(typescript, "use.ts")
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr


def test_a_typescript_client_creates_a_match_and_reads_typed_state(typescript):
    """tests/clients/ts/play.ts, with openapi-fetch: the simplest create body ({game, players}), then the
    state's fields (a Blokus board cell, whose turn it is, a Blackout hand size), a match's score and
    entries' data, each typed, under tsc --strict."""
    compiled = tsc(typescript, "play.ts")
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr


def test_typed_reads_that_the_contract_does_not_allow_do_not_compile(typescript):
    """The types are not any: a field a view does not have, or a string read as a number, is an error."""
    (typescript / "wrong.ts").write_text(
        'import type { components } from "./matchlog";\n'
        'export const f = (v: components["schemas"]["BlokusView"]): number => v.board[0][0] + v.no_such_field;\n'
    )
    compiled = tsc(typescript, "wrong.ts")
    assert compiled.returncode != 0 and "no_such_field" in compiled.stdout, compiled.stdout
