"""Nim: a toy game that lives only under ``tests/``, to prove that a game is one package.

Nothing under ``service/`` names it. The tests register it, and the server then lists it, documents
its action shape, serves its pictures and records, loads its packs, plays, scores and replays it; and
tests/test_new_game_package.py copies this folder into ``service/games/`` of a copy of the tree, where
every check a new game meets passes with no other file edited. Its page is ``game.md``, its rules spec
``rules.md`` (heaps of counters from a pack; in turn, a player takes 1 to ``max_take`` counters from one
heap; whoever takes the last counter wins; the seed chooses who starts).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from marshmallow import Schema, fields, validate

from service.games.kit import Engine, Turn, applies, enum_option
from service.games.protocol import (
    ActionParameters,
    GameInfo,
    IllegalAction,
    InvalidPack,
    InvalidRecord,
    Packs,
    RecordFormat,
    Refusal,
    ranks,
    turn_refusals,
)


class NimAction(Schema):
    type = fields.String(required=True, validate=validate.OneOf(["take"]))
    heap = fields.Integer(required=True, strict=True, validate=validate.Range(min=0, max=15))
    count = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=99))


def load_pack(document: Any, options: dict[str, Any]) -> dict[str, Any]:
    heaps = document.get("heaps") if isinstance(document, dict) else None
    if not isinstance(heaps, list) or not heaps or not all(isinstance(h, int) and h > 0 for h in heaps):
        raise InvalidPack("heaps", "a list of positive heap sizes")
    return {"heaps": heaps}


def render_svg(view: dict[str, Any]) -> str:
    bars = "".join(
        f'<rect x="10" y="{10 + 20 * i}" width="{10 * h}" height="12"/>' for i, h in enumerate(view["heaps"])
    )
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><title>Nim</title>{bars}</svg>'


def export_record(options: dict[str, Any], players: list[str], events: list[dict[str, Any]]) -> str:
    moves = " ".join(f"{e['data']['heap']}:{e['data']['count']}" for e in events if e["type"] == "took")
    return f"nim {options['max_take']} {','.join(players)} {moves}".strip()


def parse_record(text: str):
    parts = text.split()
    if len(parts) < 3 or parts[0] != "nim":
        raise InvalidRecord("a Nim record reads: nim <max_take> <player,player> <heap:count> ...")
    try:
        actions = [
            {"type": "take", "heap": int(h), "count": int(c)} for h, c in (m.split(":") for m in parts[3:])
        ]
        return {"max_take": int(parts[1])}, parts[2].split(","), actions
    except ValueError as error:
        raise InvalidRecord(f"unreadable move: {error}") from error


class Nim(Engine):
    info = GameInfo(
        id="toy-nim",
        name="Nim (toy)",
        min_players=2,
        max_players=2,
        hidden_information=False,
        chance=False,  # the seed draws who starts at setup only: after it, nothing is left to chance
        description="Take the last counter.",
    )
    options_schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "max_take": {"type": "integer", "minimum": 1, "maximum": 9, "default": 3},
            "pack": {"type": "string", "default": "classic"},
            "misere": enum_option([False, True], False, "whoever takes the last counter loses"),
        },
    }
    action_schema = NimAction
    action_parameters = {"take": ActionParameters(required=("heap", "count"))}  # each type its own shape
    refusals = {
        **turn_refusals("R-1", "R-3"),
        "too_many": Refusal("R-2", "take 1 to max_take counters from a heap that has them"),
    }
    packs = Packs(load=load_pack, default="classic", folder=Path(__file__).parent / "packs")
    svg = staticmethod(render_svg)
    record = RecordFormat(
        mime="text/x-nim",
        export=export_record,
        parse=parse_record,
        description="nim <max_take> <players> <heap:count>...",
        example="nim 3 ann,bob 0:2 1:1",
    )

    def setup(self, options, players, seed, content=None):
        first = random.Random(f"{seed}:nim").randrange(players)
        return {
            "heaps": list(content["heaps"]),
            "to_move": first,
            "max_take": options["max_take"],
            "misere": options["misere"],
            "winner": None,
        }

    def to_act(self, state):
        return [] if state["winner"] is not None else [state["to_move"]]

    def is_over(self, state):
        return state["winner"] is not None

    def _legal_actions(self, state, seat):
        return [
            {"type": "take", "heap": h, "count": c}
            for h, size in enumerate(state["heaps"])
            for c in range(1, min(size, state["max_take"]) + 1)
        ]

    def _play(self, turn: Turn, seat, action):
        heaps = turn.state["heaps"]
        if action["heap"] >= len(heaps) or not 1 <= action["count"] <= min(
            heaps[action["heap"]], turn.state["max_take"]
        ):
            raise IllegalAction("too_many", "take 1 to max_take counters from a heap that has them")
        turn.emit("took", seat, heap=action["heap"], count=action["count"])
        if not any(turn.state["heaps"]):
            turn.emit("game_over", None, winner=1 - seat if turn.state["misere"] else seat)

    @applies("took")
    def _took(self, state, data, seat):
        heaps = list(state["heaps"])
        heaps[data["heap"]] -= data["count"]
        state.update(heaps=heaps, to_move=1 - seat)

    @applies("game_over")
    def _game_over(self, state, data, seat):
        state["winner"] = data["winner"]

    def view(self, state, seat):
        return dict(state)

    def scores(self, state):
        scores = [int(state["winner"] == seat) for seat in range(2)]
        return {"scores": scores, "ranks": ranks(scores, higher_is_better=True)}


GAME = Nim()
