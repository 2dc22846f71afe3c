"""A client generated from ``openapi.yaml`` with openapi-python-client works first time: with the
generated code only, it creates a match of every game, takes an action from the legal-actions listing
(typed per game, so a BLOCK.BLOCK action stays one), posts it back (201), gets a 422 with its reason,
and downloads a Blokus record. Requests go to the app in-process through httpx's WSGI transport."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx
import pytest
import yaml

from service.games import GAMES
from tests.integration.test_serve import free_port, serve_env, start_serve, stop_serve
from tests.npm import installed

CONTRACT = Path(__file__).resolve().parents[1] / "openapi.yaml"
PYTHON_CONFIG = Path(__file__).resolve().parent / "clients" / "python" / "config.yaml"


def warnings_in(output: str, said: tuple[str, ...]) -> list[str]:
    """The lines of a generator's output other than those it ``said`` on a clean run (its banner, where
    it wrote): a warning, or anything new, fails the test that generated with it."""
    plain = re.sub(r"\x1b\[[0-9;]*m", "", output)  # colours
    return [line for line in plain.splitlines() if line.strip() and not line.strip().startswith(said)]


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
            "--config",
            str(PYTHON_CONFIG),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # nothing left out: openapi-python-client says what it skips ("Warning(s) encountered...")
    assert warnings_in(done.stdout + done.stderr, ("Generating ",)) == []
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
    create = module(generated, "api.v1.create_match")
    listing = module(generated, "api.v1.list_legal_actions")
    submit = module(generated, "api.v1.submit_action")
    match = module(generated, "api.v1.get_match")

    players = 2 if 2 in GAMES[game_id].info.counts() else GAMES[game_id].info.counts()[0]
    prefix = {g: "".join(p.capitalize() for p in g.split("-")) for g in GAMES}[game_id]
    created = create.sync_detailed(
        client=anonymous,
        body=getattr(models, f"{prefix}CreateMatch")(  # the game's body, its options typed
            game=getattr(models, f"{prefix}CreateMatchGame")(game_id),
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
    # parsed as its type's shape, by the discriminator: BlokusPlaceAction
    kind = "".join(part.capitalize() for part in action.type_.value.split("_"))
    assert type(action).__name__ == f"{prefix}{kind}Action"
    body = getattr(models, f"{prefix}SubmitAction")  # this game's body: another game's action is a type error
    posted = submit.sync_detailed(
        match_id=match_id,
        client=seat,
        body=body(expected_version=legal.version, action=action),
    )
    assert posted.status_code == 201, posted.content
    version = posted.parsed.version
    again = submit.sync_detailed(
        match_id=match_id, client=seat, body=body(expected_version=version, action=action)
    )
    assert again.status_code == 422 and again.parsed.error == "illegal_action" and again.parsed.reason

    # the state, the match and the entries parse as this game's models, with typed fields
    state = module(generated, "api.v1.get_state").sync(match_id=match_id, client=seat)
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
    page = module(generated, "api.v1.list_events").sync(match_id=match_id, client=seat)
    assert type(page).__name__ == f"{prefix}Events" and page.game.value == game_id
    assert type(page.events[0]).__name__ == f"{prefix}MatchCreatedEntry"


def test_the_generated_client_downloads_a_blokus_record(generated, app):
    transport = httpx.WSGITransport(app=app)
    client = generated.Client(base_url="http://matchlog.test", httpx_args={"transport": transport})
    models = module(generated, "models")
    created = module(generated, "api.v1.create_match").sync(
        client=client,
        body=models.BlokusCreateMatch(
            game=models.BlokusCreateMatchGame("blokus"),
            players=[models.Player(name="ann"), models.Player(name="bob")],
        ),
    )
    record = module(generated, "api.v1.get_record").sync(match_id=created.id, client=client)
    assert isinstance(record, str) and record.startswith("(;GM[Blokus") and "P1[ann]" in record


def test_anonymous_and_spectator_calls_take_the_plain_client(generated):
    """An operation a credential is optional for takes the generated ``Client`` (openapi-python-client asks
    an ``AuthenticatedClient`` of an operation that declares security of its own); one that needs a
    credential takes only the authenticated one."""
    for name in (
        "create_match",
        "list_matches",
        "get_match",
        "get_state",
        "list_events",
        "list_games",
    ):
        assert clients(module(generated, f"api.v1.{name}")) == {"AuthenticatedClient", "Client"}, name
    assert clients(module(generated, "api.v1.submit_action")) == {"AuthenticatedClient"}


def clients(operation) -> set[str]:
    """The client classes an operation's ``sync_detailed`` takes."""
    annotation = inspect.signature(operation.sync_detailed).parameters["client"].annotation
    return {kind.__name__ for kind in getattr(annotation, "__args__", (annotation,))}


def test_typescript_narrows_actions_by_type_and_bodies_by_game(typescript):
    """A Blokus action narrows by its type; a body naming its game (or typed as one game's) takes that game's
    actions, and one naming none any game's (as before); a create body's options, the state answer (JSON
    alone), the record import and the bots' names are typed."""
    (typescript / "narrowed.ts").write_text(NARROWED)
    compiled = tsc(typescript, "narrowed.ts")
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr


def test_typescript_refuses_another_game_s_action_a_mistyped_option_and_a_picture_as_state(typescript):
    """Each line after the imports is a type error: another game's action in a body naming Blokus, an
    option's typo, an unknown variant, an unknown bot, a field another type has, the SVG picture as the
    state's answer, another game's action in a Blokus match's moves-socket message."""
    (typescript / "refused.ts").write_text(REFUSED)
    compiled = tsc(typescript, "refused.ts")
    lines = {
        int(line.split("(")[1].split(",")[0])
        for line in compiled.stdout.splitlines()
        if "refused.ts(" in line
    }
    assert lines == {3, 4, 5, 6, 7, 9, 10}, compiled.stdout


NARROWED = """\
import createClient from "openapi-fetch";
import type { components, paths } from "./matchlog";
type S = components["schemas"];
const client = createClient<paths>({ baseUrl: "http://localhost:8000" });
const draw: S["ChockABlockDrawCardAction"] = { type: "draw_card", source: "DECK" };
const place: S["BlokusPlaceAction"] = { type: "place", cells: [[0, 0]] };
export const said: S["SubmitAction"] = { game: "blokus", expected_version: 1, action: place };
export const unsaid: S["SubmitAction"] = { expected_version: 1, action: draw };
export const typed: S["ChockABlockSubmitAction"] = { expected_version: 1, action: draw };
export const socketMove: S["BlokusMovesSocketMove"] = { expected_version: 1, action: place, idempotency_key: "k" };
export function cells(action: S["BlokusAction"]): number {
  return action.type === "place" ? action.cells.length : 0;  // narrowed by type: BlokusPlaceAction
}
export async function play(): Promise<number> {
  const body: S["CreateMatch"] = { game: "blokus", players: [{ name: "ann" }], options: { variant: "duo" } };
  const created = await client.POST("/v1/matches", { body });
  if (!created.data) return 0;
  const path = { match_id: created.data.id };
  const read = await client.GET("/v1/matches/{match_id}/state", { params: { path } });
  if (!read.data) return 0;
  const version: number = read.data.version;  // JSON alone: no string to rule out
  const posted = await client.POST("/v1/matches/{match_id}/actions", {
    params: { path },
    body: { game: "blokus", expected_version: version, action: { type: "pass" } },
  });
  const record = { record_type: "application/x-blokus-sgf", record: "(;GM[Blokus])" } as const;
  const imported = await client.POST("/v1/imports", { body: record });
  const bot: S["BotName"] = "greedy";
  return (posted.data?.version ?? 0) + (imported.data?.version ?? 0) + bot.length;
}
"""

REFUSED = """\
import type { components, paths } from "./matchlog";
type S = components["schemas"];
export const otherGame: S["SubmitAction"] = { game: "blokus", expected_version: 1, action: { type: "draw_card" } };
export const typo: S["CreateMatch"] = { game: "blokus", players: [{ name: "ann" }], options: { varient: "duo" } };
export const variant: S["CreateMatch"] = { game: "blokus", players: [{ name: "ann" }], options: { variant: "x" } };
export const badBot: S["Player"] = { bot: "grredy" };
export const passCells: S["BlokusPassAction"] = { type: "pass", cells: [[0, 0]] };
type StateAnswer = paths["/v1/matches/{match_id}/state"]["get"]["responses"][200]["content"];
export const svg: StateAnswer = { "image/svg+xml": "<svg/>" };
export const otherSocket: S["BlokusMovesSocketMove"] = { expected_version: 1, action: { type: "draw_card" } };
"""


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
    folder = installed(
        TS_CLIENT,
        tmp_path_factory.mktemp("ts"),
        "the TypeScript check",
        *(path.name for path in [*TS_CLIENT.glob("*.ts"), *TS_CLIENT.glob("*.mjs")]),
    )
    types = subprocess.run(
        [str(folder / "node_modules" / ".bin" / "openapi-typescript"), str(CONTRACT), "-o", "matchlog.d.ts"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert types.returncode == 0, types.stdout + types.stderr
    assert warnings_in(types.stdout + types.stderr, ("✨ openapi-typescript", "🚀")) == []
    hey = subprocess.run(
        [
            str(folder / "node_modules" / ".bin" / "openapi-ts"),
            "--input",
            str(CONTRACT),
            "--output",
            "hey",
            "--client",
            "@hey-api/client-fetch",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert hey.returncode == 0, hey.stdout + hey.stderr
    assert warnings_in(hey.stdout + hey.stderr, ("@hey-api/openapi-ts v", "[Job 1]")) == []
    return folder


def tsc(folder: Path, *files: str, out: str | None = None) -> subprocess.CompletedProcess:
    """``tsc --strict`` on ``files``: a check, or with ``out``, JavaScript written there for node to run."""
    return subprocess.run(
        [
            str(folder / "node_modules" / ".bin" / "tsc"),
            "--strict",
            *(["--outDir", out] if out else ["--noEmit"]),
            "--target",
            "es2022",
            "--module",
            "nodenext",
            "--moduleResolution",
            "nodenext",
            *files,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=folder,
    )


def test_typescript_types_compile_under_strict(typescript):
    (typescript / "use.ts").write_text(USE_TYPES)
    compiled = tsc(typescript, "use.ts", "matchlog.d.ts")
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr


def test_a_typescript_client_creates_a_match_and_reads_typed_state(typescript):
    """tests/clients/ts/play.ts, with openapi-fetch: the simplest create body ({game, players}), then the
    state's fields (a Blokus board cell, whose turn it is, a Blackout hand size), a match's score and
    entries' data, each typed, under tsc --strict."""
    compiled = tsc(typescript, "play.ts", "matchlog.d.ts")
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr


def test_typed_reads_that_the_contract_does_not_allow_do_not_compile(typescript):
    """The types are not any: a field a view does not have, or a string read as a number, is an error."""
    (typescript / "wrong.ts").write_text(
        'import type { components } from "./matchlog";\n'
        'export const f = (v: components["schemas"]["BlokusView"]): number => v.board[0][0] + v.no_such_field;\n'
    )
    compiled = tsc(typescript, "wrong.ts", "matchlog.d.ts")
    assert compiled.returncode != 0 and "no_such_field" in compiled.stdout, compiled.stdout


def test_a_hey_api_client_creates_imports_plays_and_reads_the_feed_typed(typescript):
    """tests/clients/ts/hey.ts, against @hey-api/openapi-ts's client: a match created and an action posted
    back, a record imported as JSON and its log read as a JSON array, a live-feed event (FeedEvent) narrowed
    to its entry, under tsc --strict."""
    compiled = tsc(typescript, "hey.ts")
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr


PYTHON_PROGRAM = Path(__file__).resolve().parent / "clients" / "python" / "every.py"


def test_the_generated_python_package_and_a_program_against_it_pass_mypy_strict(generated):
    """The package, and tests/clients/python/every.py (every operation, the feed's events, the socket's
    messages) written against it, under mypy --strict."""
    folder = Path(generated.__file__).parents[1]
    shutil.copy(PYTHON_PROGRAM, folder / "every.py")
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", generated.__name__, "every.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert checked.returncode == 0, checked.stdout[-5000:] + checked.stderr


def contract_operations() -> dict[tuple[str, str], str]:
    """(method, path) -> operationId, for every operation of openapi.yaml."""
    contract = yaml.safe_load(CONTRACT.read_text(encoding="utf-8"))
    return {
        (method.upper(), path): operation["operationId"]
        for path, item in contract["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and "operationId" in operation
    }


def test_the_openapi_fetch_program_calls_every_operation():
    """tests/clients/ts/every.ts calls each operation of the contract (by its method and path)."""
    program = (TS_CLIENT / "every.ts").read_text(encoding="utf-8")
    called = set(re.findall(r'client\.(GET|POST|PUT|PATCH|DELETE)\("([^"]+)"', program))
    operations = contract_operations()
    assert called - set(operations) == set(), "calls of no operation"
    assert sorted(operations[call] for call in set(operations) - called) == []


def test_the_openapi_fetch_program_compiles_under_strict_and_calls_every_operation_of_a_server(
    typescript, served
):
    compiled = tsc(typescript, "every.ts", "matchlog.d.ts", out="out")
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    check_every_operation(ran([*node(), "run.mjs", "out/every.js", *served], typescript))


def test_the_hey_api_program_calls_every_operation():
    """tests/clients/ts/hey_every.ts imports and calls the SDK function of each operation of the contract."""
    program = (TS_CLIENT / "hey_every.ts").read_text(encoding="utf-8")
    imported = re.search(r"import \{([^}]*)\} from \"./hey/sdk.gen\"", program)
    assert imported is not None
    functions = {name.strip() for name in imported.group(1).split(",") if name.strip()}
    called = {name for name in functions if re.search(rf"\b{name}\(\{{", program)}
    operations = set(contract_operations().values())
    assert sorted(operations - called) == [] and sorted(functions - operations) == []


def test_the_hey_api_program_compiles_under_strict_and_calls_every_operation_of_a_server(typescript, served):
    compiled = tsc(typescript, "hey_every.ts", out="out")
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    check_every_operation(ran([*node(), "run.mjs", "out/hey_every.js", *served], typescript))


def test_the_python_program_calls_every_operation():
    """tests/clients/python/every.py imports the module of each operation of the contract."""
    program = ast.parse(PYTHON_PROGRAM.read_text(encoding="utf-8"))
    imported = {
        alias.name
        for node in ast.walk(program)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("matchlog_client.api.")
        for alias in node.names
    }
    snake = {re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower() for name in contract_operations().values()}
    assert sorted(snake - imported) == [] and sorted(imported - snake) == []


def test_the_python_program_calls_every_operation_of_a_server(generated, served):
    folder = Path(generated.__file__).parents[1]
    shutil.copy(PYTHON_PROGRAM, folder / "every.py")
    check_every_operation(ran([sys.executable, "every.py", *served], folder))


@pytest.fixture(scope="module")
def served():
    """A real ``matchlog serve`` on loopback (its API, worker and embedded Redis), the programs' server: its
    base URL, and a platform key made for them. No rate limit (the programs call as fast as it answers);
    webhooks may point at loopback (the programs' hook is the server's own address, and no event it asks
    for happens while it exists)."""
    folder = tempfile.mkdtemp(prefix="mlc-", dir="/tmp")
    settings = {
        "MATCHLOG_RATE_LIMIT_PER_TOKEN": "off",
        "MATCHLOG_RATE_LIMIT_READS_PER_ADDRESS": "off",
        "MATCHLOG_WEBHOOKS_PRIVATE": "1",
    }
    process, http = start_serve(folder, free_port(), **settings)
    try:
        made = subprocess.run(
            [sys.executable, "-m", "service.cli", "keys", "create", "programs", "--data", folder],
            env=serve_env(**settings),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert made.returncode == 0, made.stdout + made.stderr
        yield http.base, json.loads(made.stdout.splitlines()[-1])["key"]
    finally:
        stop_serve(process)
        shutil.rmtree(folder, ignore_errors=True)


def node() -> list[str]:
    """node, with Node 20's WebSocket (behind a flag until Node 22) for the moves socket."""
    version = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=60).stdout
    return ["node", "--experimental-websocket"] if int(version.lstrip("v").split(".")[0]) < 22 else ["node"]


def ran(command: list[str], folder: Path) -> list[str]:
    """The lines a program printed, once it exited 0 (bounded: a program waits a minute at most for the
    server's workers)."""
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout.splitlines()


def check_every_operation(lines: list[str]) -> None:
    """A program's lines: each operation of the contract answered (``<operationId> <status>``: the program
    stops at a status it did not expect), the live feed read to its end, a move accepted on the socket."""
    called = {line.split()[0] for line in lines if line.split()[0] not in ("feed", "socket")}
    assert sorted(called ^ set(contract_operations().values())) == [], lines
    assert "socket 201" in lines, lines
    assert any(re.fullmatch(r"feed [1-9]\d* match_scored end", line) for line in lines), lines


PAGES = Path(__file__).resolve().parents[1] / "service" / "http" / "viewer" / "static"
TYPED_PAGES = (
    "api.js",
    "i18n.js",
    "index.js",
    "match.js",
    "play.js",
    "seats.js",
    "start.js",
    "tournament.js",
)
BOARDS = sorted((Path(__file__).resolve().parents[1] / "service" / "games").glob("*/board.js"))
"""The games' boards, each checked beside the pages as ``<game package>-board.js``."""
"""The pages' scripts typed against the contract: JSDoc types importing ``./matchlog`` (the types generated
from openapi.yaml), checked here, never built: browsers run the files as served."""


def test_the_pages_scripts_are_typed_against_the_contract_under_strict(typescript):
    """The pages talk to the API only through the contract's types (``tsc --strict
    --checkJs``, with the declarations generated from openapi.yaml in the test, not committed: they cannot
    drift from it)."""
    folder = typescript / "pages"
    folder.mkdir()
    for name in TYPED_PAGES:
        shutil.copy(PAGES / name, folder / name)
    boards = [f"{board.parent.name}-board.js" for board in BOARDS]
    for board, name in zip(BOARDS, boards, strict=True):
        shutil.copy(board, folder / name)
    shutil.copy(typescript / "matchlog.d.ts", folder / "matchlog.d.ts")
    compiled = subprocess.run(
        [
            str(typescript / "node_modules" / ".bin" / "tsc"),
            "--strict",
            "--checkJs",
            "--allowJs",
            "--noEmit",
            "--target",
            "es2022",
            "--module",
            "es2022",
            "--moduleResolution",
            "bundler",
            "--lib",
            "es2022,dom,dom.iterable",
            *[f"pages/{name}" for name in (*TYPED_PAGES, *boards)],
            "pages/matchlog.d.ts",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=typescript,
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
