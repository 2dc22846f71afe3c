"""Adds a generated reference section to each game's page (docs/games/<game id>.md) when MkDocs builds
the site (the mkdocs-gen-files plugin runs this), and lists every game on docs/games/index.md.

Everything comes from what the server itself answers, so the pages cannot drift from it: the catalogue
(``GET /v1/games``: players, kind of game, bots, timeouts, entry types, the JSON Schema of the options)
and the contract (``GET /openapi.json``: each game's action schema, and its state and refusal reasons
where the contract types them). It runs the app in-process on fakeredis (a test extra, as MkDocs is).
Run it alone to print the pages: ``python docs/gen_reference.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


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
    from service.games import GAMES, action_component

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
        f"Generated from `GET /v1/games` and `GET /openapi.json` when this site was built. The rules each "
        f"action follows, and the ids refusals cite, are in the [rules spec](../rules/{entry['id']}.md).",
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


def main() -> None:
    games, contract = _served()
    try:
        import mkdocs_gen_files
    except ImportError:
        mkdocs_gen_files = None
    pages = {f"games/{entry['id']}.md": reference(entry, contract) for entry in games}
    pages["games/index.md"] = index(games)
    for path, text in pages.items():
        if mkdocs_gen_files is None or __name__ == "__main__":
            print(f"--- {path}\n{text}")
        else:
            with mkdocs_gen_files.open(path, "a") as page:
                page.write(text)


main()
