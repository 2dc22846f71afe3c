"""The documentation's game pages, generated from the game packages, so that a game is one package.

When MkDocs builds the site (the mkdocs-gen-files plugin runs this), each game of ``service/games/`` gets:

- ``games/<game id>.md``: its package's ``game.md`` (what the game is and how its actions read), then a
  reference section made from what the server itself answers, so the page cannot drift from it: the
  catalogue (``GET /v1/games``: players, kind of game, bots, timeouts, entry types, the JSON Schema of the
  options) and the contract (``GET /openapi.json``: the action schema, and the state and refusal reasons
  where the contract types them). The app runs in-process on fakeredis (a test extra, as MkDocs is);
- ``rules/<game id>.md``: its package's ``rules.md``, the rules spec its code and refusals cite;
- a line in the tables of ``games/index.md`` and ``rules/README.md``, and in the home page's list of
  games (between the ``<!-- games -->`` markers of ``docs/index.md``);
- its two pages in the site's navigation, after ``games/index.md`` and ``rules/README.md``.

The README's list of games is the same list, committed between its markers (GitHub shows the file as it
is): ``python docs/gen_reference.py --readme`` writes it, ``tests/test_docs.py`` checks it is current.
Run it with no argument to print the pages.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BEGIN = "<!-- games: generated from service/games/ by docs/gen_reference.py; do not edit -->"
END = "<!-- /games -->"
MARKED = re.compile(re.escape(BEGIN) + r"\n.*?" + re.escape(END), re.S)


def _served() -> tuple[list[dict], dict]:
    import fakeredis

    from service.config import Settings
    from service.http.app import create_app

    app = create_app(
        Settings(namespace="docs", secret_key="ZG9jcy1vbmx5LWEtc2VjcmV0LW9mLTMyLWJ5dGVzLWZvci1kb2Nz"),
        fakeredis.FakeRedis(),
    )
    client = app.test_client()
    games, contract = client.get("/v1/games"), client.get("/openapi.json")
    assert games.status_code == 200 and contract.status_code == 200
    return games.get_json(), contract.get_json()


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _type(schema: dict) -> str:
    if "enum" in schema:
        return " ".join(f"`{json.dumps(value)}`" for value in schema["enum"])
    if "oneOf" in schema or "anyOf" in schema:
        return " or ".join(_type(one) for one in schema.get("oneOf") or schema["anyOf"])
    if "$ref" in schema:
        return f"`{schema['$ref'].rsplit('/', 1)[-1]}`"
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {_type(schema['items'])}"
    bounds = [f"{word} {schema[key]}" for key, word in (("minimum", "≥"), ("maximum", "≤")) if key in schema]
    return kind + (f" ({', '.join(bounds)})" if bounds else "")


def _properties(schema: dict, with_default: bool) -> list[str]:
    head = "| field | type | default | description |" if with_default else "| field | type | description |"
    lines = [head, "|---|---|---|---|" if with_default else "|---|---|---|"]
    required = set(schema.get("required", []))
    for name, field in schema.get("properties", {}).items():
        row = [f"`{name}`" + (" (required)" if name in required else ""), _cell(_type(field))]
        if with_default:
            row.append(f"`{json.dumps(field['default'])}`" if "default" in field else "")
        row.append(_cell(field.get("description", "")))
        lines.append("| " + " | ".join(row) + " |")
    return lines


def _reasons(entry: dict, contract: dict, prefix: str) -> list[str]:
    """Refusal reasons, where the catalogue or the contract declares them (a list, or reason -> rule)."""
    declared = entry.get("refusal_reasons")
    if declared is None:
        schema = contract["components"]["schemas"].get(f"{prefix}RefusalReason", {})
        declared = schema.get("enum")
    if not declared:
        return []
    lines = [
        "### Refusal reasons",
        "",
        "A refused action is `422 illegal_action` with one of these `reason`s:",
        "",
    ]
    if isinstance(declared, dict):
        lines += ["| reason | rule |", "|---|---|"]
        lines += [
            f"| `{reason}` | {_cell(rule if isinstance(rule, str) else json.dumps(rule))} |"
            for reason, rule in declared.items()
        ]
    else:
        items = [item if isinstance(item, str) else item.get("reason", json.dumps(item)) for item in declared]
        lines += [", ".join(f"`{reason}`" for reason in items)]
    return lines + [""]


def reference(entry: dict, contract: dict) -> str:
    from service.games import GAMES, action_component, package_folder

    game = GAMES[entry["id"]]
    schemas = contract["components"]["schemas"]
    action = action_component(game)
    prefix = action.removesuffix("Action")
    kinds = [word for word in ("chance", "hidden_information") if entry.get(word)]
    record = f"`{entry['record_type']}`" if entry.get("record_type") else "none"
    out = [
        "",
        "## Reference",
        "",
        "Generated from `GET /v1/games` and `GET /openapi.json` when this site was built."
        + (
            f" The rules each action follows, and the ids refusals cite, are in the [rules "
            f"spec](../rules/{entry['id']}.md)."
            if (package_folder(game) / "rules.md").is_file()
            else ""
        ),
        "",
        "| | |",
        "|---|---|",
        f"| id | `{entry['id']}` |",
        f"| players | {', '.join(map(str, entry['player_counts']))} |",
        f"| kind | {', '.join(kinds) or 'perfect information, no chance'}; {entry['dynamics']}; "
        f"{entry['utility']} |",
        f"| bots | {', '.join(f'`{bot}`' for bot in entry['bots'])} |",
        f"| `on_timeout` | {', '.join(f'`{policy}`' for policy in entry['timeouts'])} |",
        f"| pictures (`Accept` on `state`) | {', '.join(f'`{p}`' for p in entry['pictures']) or 'none'} |",
        f"| game record | {record} |",
        f"| content packs | {', '.join(f'`{pack}`' for pack in entry['packs']) or 'none'} |",
        "",
    ]
    out += ["### Options", "", "`options` in `POST /v1/matches`, checked against this JSON Schema:", ""]
    out += _properties(entry["options_schema"], with_default=True) + [""]
    out += [
        f"### Actions (`{action}`)",
        "",
        "The body's `action` in `POST .../actions`; `legal-actions` lists them ready to post.",
        "",
    ]
    out += _properties(schemas[action], with_default=False) + [""]
    if f"{prefix}State" in schemas:
        out += [f"### State (`{prefix}State`)", ""] + _properties(schemas[f"{prefix}State"], False) + [""]
    out += _reasons(entry, contract, prefix)
    out += [
        "### Entry types",
        "",
        "The types of entry its matches log (what a webhook may ask for):",
        "",
        ", ".join(f"`{kind}`" for kind in entry["entry_types"]),
        "",
    ]
    return "\n".join(out)


def index(games: list[dict]) -> str:
    lines = ["", "| game | id | players | kind |", "|---|---|---|---|"]
    for entry in games:
        kinds = [word.replace("_", " ") for word in ("chance", "hidden_information") if entry.get(word)]
        lines.append(
            f"| [{entry['name']}]({entry['id']}.md) | `{entry['id']}` | "
            f"{', '.join(map(str, entry['player_counts']))} | {', '.join(kinds + [entry['dynamics']])} |"
        )
    return "\n".join(lines) + "\n"


def _packages() -> list[tuple[Any, Path]]:
    """Every game and its package's folder, in the registry's order (by id)."""
    from service.games import GAMES, package_folder

    return [(game, package_folder(game)) for game in GAMES.values()]


def game_page(game: Any, folder: Path) -> str:
    """The package's ``game.md``, or, for a package without one, the game's name and its catalogue
    description."""
    own = folder / "game.md"
    if own.is_file():
        return own.read_text(encoding="utf-8")
    return f"# {game.info.name}\n\n{game.info.description}\n"


def summary(game: Any, folder: Path) -> str:
    """What the game is, in a sentence or two: the first paragraph of its page after the title."""
    paragraphs = [p for p in game_page(game, folder).split("\n\n") if p.strip()]
    lead = next((p for p in paragraphs if not p.lstrip().startswith("#")), game.info.description)
    return " ".join(lead.split())


def rules_index() -> str:
    lines = ["", "| game | spec | players |", "|---|---|---|"]
    for game, folder in _packages():
        if (folder / "rules.md").is_file():
            counts = game.info.counts()
            players = f"{counts[0]}\u2013{counts[-1]}" if len(counts) > 1 else str(counts[0])
            lines.append(f"| {game.info.name} | [`{game.info.id}.md`]({game.info.id}.md) | {players} |")
    return "\n".join(lines) + "\n"


def game_list(pages: str | None, spec_of) -> str:
    """The list of games, one item each: its name, id, links (its reference page under ``pages``, when
    given, and its rules spec, at ``spec_of(id, folder)``) and its summary."""
    items = []
    for game, folder in _packages():
        links = [f"`{game.info.id}`"]
        if pages is not None:
            links.append(f"[reference]({pages}{game.info.id}.md)")
        if (folder / "rules.md").is_file():
            links.append(f"[spec]({spec_of(game.info.id, folder)})")
        text = f"**{game.info.name}** ({', '.join(links)}): {summary(game, folder)}"
        items.append(
            textwrap.fill(text, 105, initial_indent="- ", subsequent_indent="  ", break_on_hyphens=False)
        )
    return "\n".join(items)


def readme_list() -> str:
    return game_list(None, lambda game_id, folder: folder.relative_to(ROOT).as_posix() + "/rules.md")


def home_list() -> str:
    return game_list("games/", lambda game_id, folder: f"rules/{game_id}.md")


def with_list(text: str, listed: str, where: str) -> str:
    """``text`` with the list between its markers replaced by ``listed``."""
    if not MARKED.search(text):
        raise SystemExit(f"{where}: no {BEGIN} ... {END} block")
    return MARKED.sub(lambda _: f"{BEGIN}\n{listed}\n{END}", text)


def _nav_after(nav: list, target: str, items: list[dict[str, str]]) -> bool:
    """Put ``items`` after the entry of ``target`` in the nav list that holds it (searched depth first)."""
    for i, entry in enumerate(nav):
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        if value == target:
            nav[i + 1 : i + 1] = items
            return True
        if isinstance(value, list) and _nav_after(value, target, items):
            return True
    return False


def site(editor: Any) -> None:
    """Write every generated page into the site being built, and each game's pages into the nav."""
    games, contract = _served()
    from service.games import GAMES, package_folder

    written: dict[str, str] = {}
    game_nav, rules_nav = [], []
    for entry in games:
        game = GAMES[entry["id"]]
        folder = package_folder(game)
        page = f"games/{entry['id']}.md"
        written[page] = game_page(game, folder) + reference(entry, contract)
        game_nav.append({entry["name"]: page})
        if (folder / "rules.md").is_file():
            written[f"rules/{entry['id']}.md"] = (folder / "rules.md").read_text(encoding="utf-8")
            rules_nav.append({entry["name"]: f"rules/{entry['id']}.md"})
    for path, text in written.items():
        with editor.open(path, "w") as out:
            out.write(text)
    for path, text in (("games/index.md", index(games)), ("rules/README.md", rules_index())):
        with editor.open(path, "a") as out:
            out.write(text)
    with editor.open("index.md", "r") as home:
        text = home.read()
    with editor.open("index.md", "w") as home:
        home.write(with_list(text, home_list(), "docs/index.md"))
    nav = editor.config["nav"]
    if not (_nav_after(nav, "games/index.md", game_nav) and _nav_after(nav, "rules/README.md", rules_nav)):
        raise SystemExit("mkdocs.yml's nav needs games/index.md and rules/README.md: the games go after them")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python docs/gen_reference.py", description=__doc__.split("\n")[0])
    parser.add_argument("--readme", action="store_true", help="write the README's list of games")
    parser.add_argument("--check", action="store_true", help="with --readme: exit 1 if the README's differs")
    args = parser.parse_args(argv)
    if args.readme:
        readme = ROOT / "README.md"
        text = readme.read_text(encoding="utf-8")
        new = with_list(text, readme_list(), "README.md")
        if args.check:
            stale = f"the list of games DIFFERS: run {parser.prog} --readme"
            print(f"README.md: {'up to date' if new == text else stale}")
            return 0 if new == text else 1
        readme.write_text(new, encoding="utf-8")
        return 0
    games, contract = _served()
    from service.games import GAMES, package_folder

    for entry in games:
        print(
            f"--- games/{entry['id']}.md\n{game_page(GAMES[entry['id']], package_folder(GAMES[entry['id']]))}"
        )
        print(reference(entry, contract))
    print(
        f"--- games/index.md\n{index(games)}\n--- rules/README.md\n{rules_index()}\n--- index.md\n{home_list()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
elif __name__ == "<run_path>":  # run by mkdocs-gen-files while the site builds
    import mkdocs_gen_files

    site(mkdocs_gen_files)
