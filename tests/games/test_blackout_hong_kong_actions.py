"""One case style for every game's actions on the API (docs/reference/naming.md): snake_case types and
fields. Blackout: Hong Kong's spec spelling (``PLACE_START_CUBE``, ``locationId``) is listed no more but
still accepted, a deprecated alias that plays exactly as the new name does."""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path

import pytest
import yaml

from service.games import GAMES
from service.games.blackout_hong_kong.actions import TYPES
from tests.helpers import act, bearer, create

BLACKOUT = GAMES["blackout-hong-kong"]
SNAKE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")


CONTRACT = Path(__file__).resolve().parents[2] / "openapi.yaml"


@cache
def schemas() -> dict:
    return yaml.safe_load(CONTRACT.read_text(encoding="utf-8"))["components"]["schemas"]


def variants(schema: dict) -> list[dict]:
    """The action schemas a game's ``<Game>Action`` is one of, one per type."""
    return [schemas()[ref["$ref"].rsplit("/", 1)[1]] for ref in schema["oneOf"]]


def field_names(schema: dict) -> set[str]:
    """The property names of an action schema, nested objects' included."""
    names = set()
    for name, field in schema.get("properties", {}).items():
        names.add(name)
        names |= field_names(field)
    return names


@pytest.mark.parametrize(
    "component", ["BlokusAction", "BlockBlockAction", "ChockABlockAction", "BlackoutHongKongAction"]
)
def test_every_game_lists_its_actions_in_snake_case(component):
    actions = variants(schemas()[component])
    kinds = [kind for action in actions for kind in action["properties"]["type"]["enum"]]
    names = set().union(*map(field_names, actions))
    assert kinds and all(SNAKE.fullmatch(kind) for kind in kinds), kinds
    assert all(SNAKE.fullmatch(name) for name in names), sorted(names)


def test_the_spec_spelling_is_in_the_contract_as_deprecated():
    old = schemas()["BlackoutHongKongActionDeprecated"]
    assert old["deprecated"] is True and set(old["properties"]["type"]["enum"]) == set(TYPES)
    assert {"$ref": "#/components/schemas/BlackoutHongKongActionDeprecated"} in schemas()["Action"]["anyOf"]
    listed = schemas()["BlackoutHongKongLegalActions"]["properties"]["actions"]["items"]
    assert listed == {"$ref": "#/components/schemas/BlackoutHongKongAction"}


def test_every_renamed_type_and_field_goes_back_to_the_engine_s():
    names = BLACKOUT.action_names
    assert set(names.types) == set(TYPES) and all(SNAKE.fullmatch(new) for new in names.types.values())
    for old, new in names.fields.items():
        action = {"type": "GATHER", old: "x", "source": {old: "y"}}
        renamed = names.for_clients(action)
        assert renamed == {"type": "gather", new: "x", "source": {new: "y"}}
        assert names.for_engine(renamed) == names.for_engine(action) == action


def twin_matches(client, seed: str) -> tuple[tuple[str, list[str]], tuple[str, list[str]]]:
    """Two Blackout matches with the same seed (known to their creator): the same deal, the same dice."""
    players = [{"name": "ann"}, {"name": "bob"}]
    made = [
        create(client, game="blackout-hong-kong", players=players, seed=seed, seed_known_to_creator=True)
        for _ in range(2)
    ]
    return made[0], made[1]


def test_a_spec_named_action_plays_as_its_new_name(client):
    """Played side by side: one match gets each listed action as listed (the new names), its twin the same
    action in the spec's names; after every action both have the same version and every seat the same
    state. Every type met in 300 actions is checked both ways."""
    (new_id, new_tokens), (old_id, old_tokens) = twin_matches(client, "naming")
    rng, met = random.Random(5), set()
    for _ in range(300):
        match = client.get(f"/v1/matches/{new_id}").json
        if match["status"] != "active" or not match["to_act"]:
            break
        seat = match["to_act"][0]
        listing = client.get(f"/v1/matches/{new_id}/legal-actions", headers=bearer(new_tokens[seat])).json
        action = rng.choice(listing["actions"])
        old = BLACKOUT.action_names.for_engine(action)
        assert action["type"] != old["type"]  # a new name, and an old one
        new_answer = act(client, new_id, new_tokens[seat], listing["version"], action)
        old_answer = act(client, old_id, old_tokens[seat], listing["version"], old)
        assert new_answer.status_code == old_answer.status_code == 201, (new_answer.json, old_answer.json)
        assert new_answer.json["version"] == old_answer.json["version"]
        met.add(old["type"])
        for i, token in enumerate(new_tokens):
            views = [
                client.get(f"/v1/matches/{m}/state", headers=bearer(t)).json["state"]
                for m, t in ((new_id, token), (old_id, old_tokens[i]))
            ]
            assert views[0] == views[1]
    print("types met both ways:", sorted(met))
    assert len(met) >= 8, sorted(met)  # a short game meets most of the main phases' types


def test_a_new_name_is_refused_in_its_own_words(client):
    match_id, tokens = create(
        client,
        game="blackout-hong-kong",
        players=[{"name": "ann"}, {"name": "bob"}],
        seed="x",
        seed_known_to_creator=True,
    )
    answer = act(client, match_id, tokens[0], 1, {"type": "gather", "card_id": "C1"})
    assert answer.status_code == 400 and "target_resource" in str(answer.json), answer.json
