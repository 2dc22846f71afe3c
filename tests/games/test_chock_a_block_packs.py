"""Chock-a-Block content packs (spec 1.9): the JSON Schema of 1.9.1, the semantic checks P-1 to P-12
of 1.9.2 with errors naming the item (index and id) and the field, and the shipped default pack,
which the generator of 1.9.3 reproduces byte for byte."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from service.games.chock_a_block import GAME, packgen
from service.games.chock_a_block.content import (
    DEFAULT_PACK,
    PACKS_DIR,
    SCHEMA_PATH,
    check_for_options,
    default_content,
    load_pack,
)
from service.games.protocol import InvalidOptions, InvalidPack
from tests.games.test_chock_a_block_support import fixture_document, new_game

REPO = Path(__file__).resolve().parents[2]
SHIPPED = PACKS_DIR / f"{DEFAULT_PACK}.json"


def document():
    return json.loads(SHIPPED.read_text(encoding="utf-8"))


def refused(data, options=None) -> InvalidPack:
    with pytest.raises(InvalidPack) as error:
        load_pack(data, options)
    return error.value


# -- the shipped pack and its generator ------------------------------------------------------------------


def test_the_generator_reproduces_the_committed_pack_byte_for_byte():
    """1.9.3.2: deterministic generator, committed output."""
    assert packgen.dumps(packgen.generate()) == SHIPPED.read_text(encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "service.games.chock_a_block.packgen"],
        cwd=REPO,
        capture_output=True,
        check=True,
    )
    assert run.stdout == SHIPPED.read_bytes()
    check = subprocess.run(
        [sys.executable, "-m", "service.games.chock_a_block.packgen", "--check"],
        cwd=REPO,
        capture_output=True,
    )
    assert check.returncode == 0


def test_the_default_pack_is_generated_and_says_it_is_not_the_publishers():
    """1.9.3.1, P-10: provenance GENERATED and a note saying so, shown in every view."""
    data = document()
    assert data["packId"] == DEFAULT_PACK and data["provenance"] == "GENERATED"
    assert "NOT the publisher's data" in data["provenanceNote"]
    assert "not the publisher" in GAME.view(new_game(), None)["pack"]["note"]
    assert "NOT THE PUBLISHER'S" in packgen.__doc__


def test_the_default_pack_passes_every_check_with_strict_counts_and_no_warning():
    """1.9.3.2: every error check of 1.9.2 with pack_strict_counts; no warning either."""
    content = load_pack(document(), {"pack_strict_counts": True})
    assert content["warnings"] == []
    assert GAME.packs.default == DEFAULT_PACK


def test_the_default_pack_follows_the_recipe():
    """1.9.3.3: 5 colours; one vacant room per card; 1 or 2 features per occupied room; colours and
    features balanced; 28 single and 12 double tiles (13 icons per feature)."""
    content = default_content()
    assert [c["id"] for c in content["colours"]] == ["PINK", "BLUE", "GREEN", "YELLOW", "ORANGE"]
    rooms = [r for c in content["card_ids"] for r in content["cards"][c]["FRONT"].values()]
    assert all(
        sum(r["vacant"] for r in content["cards"][c]["FRONT"].values()) == 1 for c in content["card_ids"]
    )
    assert {len(r["features"]) for r in rooms if not r["vacant"]} == {1, 2}
    colour_counts = [sum(r["colour"] == c["id"] for r in rooms) for c in content["colours"]]
    assert max(colour_counts) - min(colour_counts) <= 1
    assert {sum(f in r["features"] for r in rooms) for f in content["features"]} == {56}
    tiles = list(content["tiles"].values())
    assert sorted(len(t) for t in tiles) == [1] * 28 + [2] * 12
    assert {sum(f in t for t in tiles) for f in content["features"]} == {13}


def test_the_schema_file_is_the_specs_json_schema():
    """1.9.1: draft 2020-12, kept out of packs/ (every JSON there is an installable pack)."""
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == "urn:rules:chock-a-block:content-pack:1"
    assert SCHEMA_PATH.parent != PACKS_DIR
    assert sorted(p.stem for p in PACKS_DIR.glob("*.json")) == [DEFAULT_PACK]


# -- schema errors name the item and the field --------------------------------------------------------------------


@pytest.mark.parametrize(
    "mutate, path",
    [
        (lambda d: d["cards"][12]["front"]["TL"].update(colour=7), "cards[12] (C13).front.TL.colour"),
        (
            lambda d: d["cards"][3]["front"]["BR"].update(features=["DOG"]),
            "cards[3] (C4).front.BR.features[0]",
        ),
        (lambda d: d["cards"][5]["front"].pop("TR"), "cards[5] (C6).front"),
        (lambda d: d["cards"][0].update(rotation=90), "cards[0] (C1)"),
        (lambda d: d["neighbourTiles"][7].update(features="CAT"), "neighbourTiles[7] (N8).features"),
        (lambda d: d["scoreTokens"][2].update(value=0), "scoreTokens[2] (CAT-10).value"),
        (lambda d: d.update(provenance="STOLEN"), "provenance"),
        (lambda d: d.update(packId="Bad Id"), "packId"),
        (lambda d: d.pop("cards"), "pack"),
    ],
)
def test_schema_errors_name_the_item_and_the_field(mutate, path):
    """1.9.1: a pack that fails the schema is refused; the path says which card/tile/token and field."""
    data = document()
    mutate(data)
    assert refused(data).path == path


# -- semantic checks P-1 to P-12 ---------------------------------------------------------------------------------


def test_P1_ids_are_unique():
    data = document()
    data["cards"][9]["id"] = "C1"
    error = refused(data)
    assert error.path == "cards[9] (C1).id" and "P-1" in error.message


def test_P2_every_room_colour_is_in_the_colour_list():
    data = document()
    data["cards"][12]["front"]["TL"]["colour"] = "MAUVE"
    assert refused(data).path == "cards[12] (C13).front.TL.colour"


def test_P3_a_vacant_room_shows_no_feature():
    data = document()
    card = data["cards"][20]
    corner = next(c for c, r in card["front"].items() if r["vacant"])
    card["front"][corner]["features"] = ["CAT"]
    assert refused(data).path == f"cards[20] (C21).front.{corner}.features"


def test_P4_an_occupied_room_shows_a_feature_unless_relaxed():
    """P-4, A-06: pack_require_features_on_occupied."""
    data = document()
    card = data["cards"][30]
    corner = next(c for c, r in card["front"].items() if not r["vacant"])
    card["front"][corner]["features"] = []
    assert refused(data).path == f"cards[30] (C31).front.{corner}.features"
    assert (
        load_pack(data, {"pack_require_features_on_occupied": False})["cards"]["C31"]["FRONT"][corner][
            "features"
        ]
        == []
    )


def test_P5_the_features_are_the_four():
    data = document()
    data["features"] = ["CAT", "UNDERWEAR", "FLOWER", "FLOWER"]
    assert refused(data).path == "features"


def test_P6_strict_counts_need_64_40_12():
    """P-6: pack_strict_counts; the test fixtures relax it."""
    data = document()
    data["cards"].pop()
    assert refused(data).path == "cards"
    assert len(load_pack(data, {"pack_strict_counts": False})["card_ids"]) == 63


def test_P7_one_token_per_feature_and_value():
    """P-7: duplicates are always refused; missing pairs only with strict counts."""
    data = document()
    data["scoreTokens"][1] = {"id": "CAT-6b", "feature": "CAT", "value": 6}
    assert refused(data).path == "scoreTokens[1] (CAT-6b).value"
    data = document()
    data["scoreTokens"] = data["scoreTokens"][:11]
    assert refused(data).path == "scoreTokens"
    assert len(load_pack(data, {"pack_strict_counts": False})["token_ids"]) == 11
    data = document()
    data["scoreTokens"][0]["value"] = 7
    assert refused(data).path == "scoreTokens[0] (CAT-6).value"


def test_P8_P9_unused_data_is_only_a_warning():
    """P-8, P-9: no vacant room, an unused colour, a feature on no tile: warnings, not errors."""
    data = fixture_document()
    data["colours"].append({"id": "MAUVE"})
    data["neighbourTiles"] = [t for t in data["neighbourTiles"] if t["features"] != ["BIRD"]]
    for card in data["cards"]:
        for room in card["front"].values():
            if room["vacant"]:
                room.update(vacant=False, features=["CAT"])
    warnings = load_pack(data, {"pack_strict_counts": False})["warnings"]
    assert any(w.startswith("P-8") for w in warnings)
    assert "P-9: colour MAUVE is used by no room" in warnings
    assert "P-9: feature BIRD is on no tile" in warnings


def test_P11_a_given_back_must_be_the_mirror_unless_pack_back():
    """P-11, A-07: card_back_mode MIRROR checks a given back; PACK_BACK needs one on every card."""
    data = document()
    front = data["cards"][4]["front"]
    data["cards"][4]["back"] = {"TL": front["TR"], "TR": front["TL"], "BL": front["BR"], "BR": front["BL"]}
    assert load_pack(data)["cards"]["C5"]["back_given"] is True
    data["cards"][4]["back"] = copy.deepcopy(front)  # one vacant room per card: never its own mirror
    assert refused(data).path.startswith("cards[4] (C5).back.")
    assert refused(document(), {"card_back_mode": "PACK_BACK"}).path == "cards[0] (C1).back"
    everything = document()
    for card in everything["cards"]:
        card["back"] = copy.deepcopy(card["front"])
    content = load_pack(everything, {"card_back_mode": "PACK_BACK"})
    assert content["cards"]["C1"]["BACK"] == content["cards"]["C1"]["FRONT"]


def test_P12_tiles_show_at_least_the_minimum_of_icons():
    data = document()
    data["neighbourTiles"][3]["features"] = []
    assert refused(data).path == "neighbourTiles[3] (N4).features"
    assert load_pack(data, {"pack_tile_min_features": 0})["tiles"]["N4"] == []


# -- packs and match options ------------------------------------------------------------------------------------------


def test_options_that_change_the_checks_are_applied_again_at_setup():
    """1.9.2: a loaded pack that does not fit the match's options is refused (options.pack)."""
    options = GAME.resolve_options({"card_back_mode": "PACK_BACK"}, 2)
    with pytest.raises(InvalidOptions) as error:
        GAME.setup(options, 2, "seed", default_content())
    assert error.value.field == "options.pack" and "cards[0] (C1).back" in error.value.message
    with pytest.raises(InvalidOptions):
        check_for_options(default_content(), GAME.resolve_options({"pack_tile_min_features": 2}, 2))
    with pytest.raises(InvalidOptions) as error:
        new_game(2, load_pack(fixture_document(), {"pack_strict_counts": False}), pack_strict_counts=True)
    assert "P-6" in error.value.message


def test_a_loaded_pack_is_plain_json_and_replays_the_same():
    """The loaded pack is recorded in match_created: it survives JSON and sets up the same game; a pack
    document given to setup directly is loaded on the way."""
    options = GAME.resolve_options({}, 3)
    content = GAME.packs.load(document(), {})
    recorded = json.loads(json.dumps(content))
    assert GAME.setup(options, 3, "s", recorded) == GAME.setup(options, 3, "s", content)
    assert GAME.setup(options, 3, "s", document()) == GAME.setup(options, 3, "s", content)
    assert GAME.setup(options, 3, "s") == GAME.setup(options, 3, "s", content)


def test_a_pack_too_small_to_deal_is_refused_at_setup():
    data = fixture_document(cards={}, fillers=4)
    content = load_pack(data, {"pack_strict_counts": False})
    with pytest.raises(InvalidOptions) as error:
        new_game(3, content)
    assert error.value.field == "options.pack"
