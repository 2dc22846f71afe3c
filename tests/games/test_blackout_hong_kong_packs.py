"""Blackout: Hong Kong content packs (spec 1.10): the JSON Schema of 1.10.1, the semantic checks of
``content.py`` with errors naming the item (index and id) and the field (one test per check, named
after it), the shipped default pack, which the generator reproduces byte for byte, and the anchor
values the rulebook's examples (Appendix A) fix."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections import Counter, deque
from pathlib import Path

import jsonschema
import pytest

from service.games.blackout_hong_kong import content, packgen
from service.games.blackout_hong_kong.content import (
    ANIMALS,
    DEFAULT_PACK,
    PACKS_DIR,
    RESOURCES,
    SCHEMA_PATH,
    default_content,
    load_pack,
)
from service.games.protocol import InvalidPack

REPO = Path(__file__).resolve().parents[2]
SHIPPED = PACKS_DIR / f"{DEFAULT_PACK}.json"


def document() -> dict:
    return json.loads(SHIPPED.read_text(encoding="utf-8"))


def refused(data) -> InvalidPack:
    with pytest.raises(InvalidPack) as error:
        load_pack(data)
    return error.value


def district(data: dict, size: int) -> tuple[int, dict]:
    return next((i, d) for i, d in enumerate(data["map"]["districts"]) if len(d["boundary"]) == size)


# -- the shipped pack and its generator ------------------------------------------------------------------


def test_the_generator_reproduces_the_committed_pack_byte_for_byte():
    assert packgen.dumps(packgen.generate()) == SHIPPED.read_text(encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "service.games.blackout_hong_kong.packgen"],
        cwd=REPO,
        capture_output=True,
        check=True,
    )
    assert run.stdout == SHIPPED.read_bytes()
    check = subprocess.run(
        [sys.executable, "-m", "service.games.blackout_hong_kong.packgen", "--check"],
        cwd=REPO,
        capture_output=True,
    )
    assert check.returncode == 0


def test_the_default_pack_is_generated_and_says_it_is_not_the_publishers():
    data = document()
    assert data["id"] == DEFAULT_PACK and data["provenance"].startswith("GENERATED")
    assert "not the publisher's data" in data["provenance"]
    assert "THE DATA IS GENERATED, NOT THE PUBLISHER'S" in packgen.__doc__
    assert "$MATCHLOG_PACKS/blackout-hong-kong/<name>.json" in packgen.__doc__
    assert "CONTENT_PACK_ID" in packgen.__doc__


def test_the_default_pack_loads_and_comes_back_unchanged():
    data = document()
    assert load_pack(data) is data and data == document()
    assert default_content() == data and default_content() is default_content()


def test_the_schema_is_a_valid_draft_2020_12_schema():
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    assert not SCHEMA_PATH.is_relative_to(PACKS_DIR)  # every *.json in packs/ is an installable pack


# -- schema refusals ----------------------------------------------------------------------------------------


def test_a_schema_error_names_the_item_and_field():
    data = document()
    data["objectiveCards"][12]["objectives"][0]["requirements"] = [
        {"type": "RESOURCE", "resource": "FOOD", "n": 1},
        {"type": "RESOURCE", "resource": "GOLD", "n": 1},
    ]
    error = refused(data)
    assert error.path == "objectiveCards[12] (OC13).objectives[0].requirements[1].resource"
    assert "GOLD" in error.message


def test_an_unknown_effect_type_is_refused_saying_which_the_engine_knows():
    data = document()
    data["objectiveCards"][40]["objectives"][0]["immediateEffects"] = [{"type": "STEAL_CUBE", "n": 1}]
    error = refused(data)
    assert error.path == "objectiveCards[40] (OC41).objectives[0].immediateEffects[0].type"
    assert (
        "engine knows" in error.message and "STEAL_CUBE" in error.message and "UNLOCK_SLOT4" in error.message
    )


def test_an_effect_with_a_missing_parameter_is_refused():
    data = document()
    data["personalBoard"]["checkActions"][0]["effects"] = [{"type": "GAIN_RESOURCE", "n": 1}]
    error = refused(data)
    assert (
        error.path == "personalBoard.checkActions[0] (petrol-reward).effects[0]"
        and "resource" in error.message
    )


@pytest.mark.parametrize(
    "effect",
    [{"type": "PLACE_CUBE", "colour": "ANY"}, {"type": "GAIN_RESOURCE", "resource": "CHOICE", "n": 1}],
)
def test_an_ongoing_effect_that_needs_a_choice_is_refused(effect):
    data = document()
    plan = next(i for i, c in enumerate(data["objectiveCards"]) if c.get("ongoingEffect"))
    data["objectiveCards"][plan]["ongoingEffect"]["effect"] = effect
    error = refused(data)
    assert error.path.startswith(f"objectiveCards[{plan}] (OC{plan + 1}).ongoingEffect.effect.")
    assert "ongoing effect" in error.message


# -- the semantic checks, one test each -----------------------------------------------------------------------


@pytest.mark.parametrize("where", ["card", "tile"])
def test_ids_unique(where):
    data = document()
    if where == "card":
        data["objectiveCards"][1]["id"] = "OC1"
        expected = "objectiveCards[1] (OC1).id"
    else:
        data["patrolTiles"][3]["id"] = "HORSE-LEADER"  # cards and tiles share one namespace
        expected = "patrolTiles[3] (HORSE-LEADER).id"
    error = refused(data)
    assert error.path == expected and "duplicate" in error.message


@pytest.mark.parametrize(
    "section, expected",
    [
        ("objectiveCards", "objectiveCards"),
        ("patrolTiles", "patrolTiles"),
        ("districts", "map.districts"),
        ("startingVolunteers", "startingVolunteers"),
        ("emergencyPlans", "emergencyPlans"),
        ("TIGER", "playerSets.TIGER"),
    ],
)
def test_counts(section, expected):
    data = document()
    if section == "districts":
        data["map"]["districts"].pop()
    elif section == "TIGER":
        data["playerSets"]["TIGER"].pop()
    else:
        data[section].pop()
    error = refused(data)
    assert error.path == expected and "has " in error.message


@pytest.mark.parametrize(
    "change, path",
    [
        (lambda d: d["objectiveCards"][0].pop("gatherCount"), "objectiveCards[0] (OC1).gatherCount"),
        (lambda d: d["objectiveCards"][24].update(colour="RED"), "objectiveCards[24] (OC25).colour"),
        (lambda d: d["objectiveCards"][40].update(colour="RED"), "objectiveCards[40] (OC41).colour"),
        (lambda d: d["objectiveCards"][40].update(origin="PLAYER_SET"), "objectiveCards[40] (OC41).origin"),
        (lambda d: d["startingVolunteers"][0].update(kind="SPECIALIST"), "startingVolunteers[0] (SV1).kind"),
        (lambda d: d["emergencyPlans"][1]["objectives"].pop(), "emergencyPlans[1] (EP-B).objectives"),
        (
            lambda d: d["objectiveCards"][2].update(destination="CHECK_AREA"),
            "objectiveCards[2] (OC3).destination",
        ),
        (lambda d: d["objectiveCards"][2].update(bonusEffects=[]), "objectiveCards[2] (OC3).bonusEffects"),
        (lambda d: d["objectiveCards"][24].update(role="MECHANIC"), "objectiveCards[24] (OC25).role"),
        (
            lambda d: d["playerSets"]["SHEEP"][2].update(objectives=[]),
            "playerSets.SHEEP[2] (SHEEP-Y1).objectives",
        ),
        (lambda d: d["objectiveCards"][5].update(animal="HORSE"), "objectiveCards[5] (OC6).animal"),
    ],
)
def test_card_kinds(change, path):
    data = document()
    change(data)
    assert refused(data).path == path


@pytest.mark.parametrize("field", ["animal", "setupPosition"])
def test_player_cards(field):
    data = document()
    card = data["playerSets"]["HORSE"][4]
    if field == "animal":
        card["animal"] = "TIGER"
    else:
        del card["setupPosition"]
    assert refused(data).path == f"playerSets.HORSE[4] ({card['id']}).{field}"


@pytest.mark.parametrize(
    "change, path, words",
    [
        (lambda s: s[2].update(colour="RED"), "playerSets.DRAGON[2] (DRAGON-Y1).setupPosition", "SLOT1"),
        (
            lambda s: s[10].update(setupPosition="SLOT1"),
            "playerSets.DRAGON[10] (DRAGON-MECHANIC).setupPosition",
            "MECHANIC",
        ),
        (lambda s: s[1].update(gatherCount=1), "playerSets.DRAGON[1] (DRAGON-B1).gatherCount", "gathers 2"),
        (
            lambda s: s[11].update(searchIcons=1),
            "playerSets.DRAGON[11] (DRAGON-DOCTOR).searchIcons",
            "doctor",
        ),
        (
            lambda s: s[0].update(setupPosition="HAND"),
            "playerSets.DRAGON[0] (DRAGON-LEADER).setupPosition",
            "HAND",
        ),
    ],
)
def test_set_composition(change, path, words):
    data = document()
    change(data["playerSets"]["DRAGON"])
    error = refused(data)
    assert error.path == path and words in error.message


def test_crisis_letters():
    data = document()
    locations = data["map"]["locations"]
    i = next(i for i, loc in enumerate(locations) if not loc.get("crisisLetter") and i > 30)
    locations[i]["crisisLetter"] = "A"
    error = refused(data)
    assert (
        error.path == f"map.locations[{i}] ({locations[i]['id']}).crisisLetter"
        and "exactly 2" in error.message
    )


@pytest.mark.parametrize("where", ["edge", "boundary"])
def test_map_references(where):
    data = document()
    if where == "edge":
        data["map"]["edges"][5][1] = "L99"
        expected = "map.edges[5][1]"
    else:
        data["map"]["districts"][3]["boundary"][2] = "L99"
        expected = "map.districts[3] (D04).boundary[2]"
    error = refused(data)
    assert error.path == expected and "'L99' is not a location" in error.message


def test_district_cycles():
    data = document()
    i, square = district(data, 4)
    a, b, c, d = square["boundary"]
    square["boundary"] = [a, c, b, d]  # a and c are opposite corners
    error = refused(data)
    assert (
        error.path == f"map.districts[{i}] ({square['id']}).boundary[0]" and "no edge joins" in error.message
    )


def test_connected():
    data = document()
    data["map"]["locations"].append({"id": "L99", "colour": "BLUE", "x": 990, "y": 990})
    error = refused(data)
    assert (
        error.path == f"map.locations[{len(data['map']['locations']) - 1}] (L99)"
        and "connected" in error.message
    )


def test_scoring_table():
    data = document()
    data["scoringTable"] = data["scoringTable"][:6]
    error = refused(data)
    assert error.path == "scoringTable" and "needs 7" in error.message


def test_rondel():
    data = document()
    data["rondelOrder"][0] = "FOOD"
    assert refused(data).path == "rondelOrder"


def test_dice():
    data = document()
    data["dice"][1]["colour"] = "RED"
    error = refused(data)
    assert error.path == "dice[1].colour" and "one die per colour" in error.message


@pytest.mark.parametrize("field", ["requiredIcons", "rewardAmount"])
def test_tiles(field):
    data = document()
    tile = data["patrolTiles"][7]
    tile["hard"][field] = tile["easy"][field]
    assert refused(data).path == f"patrolTiles[7] ({tile['id']}).hard.{field}"


@pytest.mark.parametrize("where", ["SLOT_COLOURS", "PLACE_CUBE"])
def test_colours(where):
    data = document()
    if where == "SLOT_COLOURS":
        data["objectiveCards"][0]["objectives"][0]["requirements"][0]["colours"][2] = "GREEN"
        expected = "objectiveCards[0] (OC1).objectives[0].requirements[0].colours[2]"
    else:
        data["emergencyPlans"][3]["completionEffects"][0]["colour"] = "GREEN"
        expected = "emergencyPlans[3] (EP-D).completionEffects[0].colour"
    error = refused(data)
    assert error.path == expected and "'GREEN'" in error.message


def test_link_letters():
    data = document()
    data["personalBoard"]["powerRestoration"]["B"]["requirements"].append(
        {"type": "CRISIS_CENTRE_LINK", "letter": "Q"}
    )
    error = refused(data)
    assert error.path == "personalBoard.powerRestoration.B.requirements[3].letter" and "'Q'" in error.message


def test_patrol_reward_types():
    data = document()
    data["objectiveCards"][7]["objectives"][0]["requirements"] = [
        {"type": "PATROL_TILES", "rewardTypes": ["GOLD"]}
    ]
    error = refused(data)
    assert error.path == "objectiveCards[7] (OC8).objectives[0].requirements[0].rewardTypes[0]"


def test_emergency_letters():
    data = document()
    data["emergencyPlans"][2]["letter"] = "A"
    error = refused(data)
    assert error.path == "emergencyPlans[2] (EP-C).letter" and "EP-A" in error.message


def test_chapter_plans():
    data = document()
    data["emergencyPlans"][3]["letter"] = "C"
    data["emergencyPlans"][2]["letter"] = "B"
    data["emergencyPlans"][1]["letter"] = "A"
    data["emergencyPlans"][0]["letter"] = "D"
    assert load_pack(data)  # the letters, not the order, matter
    data["campaign"]["chapters"][0]["emergencyPlans"]["4"] = ["A", "E"]
    error = refused(data)
    assert error.path == "campaign.chapters[0].emergencyPlans.4[1]" and "'E'" in error.message


def test_check_action_ids():
    data = document()
    data["personalBoard"]["checkActions"][3]["id"] = "tools-reward"
    assert refused(data).path == "personalBoard.checkActions[3] (tools-reward).id"


# -- anchor values (Appendix A and the spec's fixed facts) ----------------------------------------------------


def test_the_scoring_table_holds_the_anchor_values():
    table = default_content()["scoringTable"]
    assert (table[2 - 1], table[3 - 1], table[4 - 1], table[7 - 1]) == (2, 3, 5, 14)  # T-15, T-16, T-17
    assert table == sorted(table)


def test_the_rondel_order_fits_the_example():
    """1.2.4: FOOD-TOOLS-PETROL consecutive, BOOKS opposite TOOLS."""
    ring = default_content()["rondelOrder"]
    at = {r: ring.index(r) for r in RESOURCES}
    distance = lambda a, b: min(abs(at[a] - at[b]), 6 - abs(at[a] - at[b]))  # noqa: E731
    assert sorted(ring) == sorted(RESOURCES)
    assert (
        distance("FOOD", "TOOLS") == 1
        and distance("TOOLS", "PETROL") == 1
        and distance("FOOD", "PETROL") == 2
    )
    assert distance("BOOKS", "TOOLS") == 3


def test_the_dice_differ_and_allow_the_example_rolls():
    dice = {d["colour"]: d["faces"] for d in default_content()["dice"]}
    assert set(dice) == {"RED", "YELLOW", "BLUE"}
    assert all(len(f) == 6 and set(f) <= set(RESOURCES) for f in dice.values())
    assert len({tuple(sorted(f)) for f in dice.values()}) == 3
    assert "MEDICINE" in dice["RED"] and "MEDICINE" in dice["BLUE"] and "WATER" in dice["YELLOW"]  # T-1
    assert "TOOLS" in dice["BLUE"] and "PETROL" in dice["RED"]  # T-2, T-3


def test_the_map_is_a_plane_graph_with_16_districts_of_3_to_7_locations():
    board_map = default_content()["map"]
    locations, edges, districts = board_map["locations"], board_map["edges"], board_map["districts"]
    assert 35 <= len(locations) <= 50
    assert len(locations) - len(edges) + 17 == 2  # Euler: V - E + F = 2 with 16 bounded faces + the outer one
    sizes = Counter(len(d["boundary"]) for d in districts)
    assert set(sizes) <= {3, 4, 5, 6, 7} and {3, 4, 7} <= set(sizes)
    assert len(edges) == len({tuple(sorted(e)) for e in edges})  # no edge twice
    # every edge lies on exactly two district boundaries, or on one if it is on the outline
    sides = Counter()
    for d in districts:
        ring = d["boundary"]
        sides.update(tuple(sorted((ring[k], ring[(k + 1) % len(ring)]))) for k in range(len(ring)))
    assert set(sides) == {tuple(sorted(e)) for e in edges} and set(sides.values()) == {1, 2}
    # the drawing: in the box, and no two edges cross
    xy = {loc["id"]: (loc["x"], loc["y"]) for loc in locations}
    assert all(0 <= x <= 1000 and 0 <= y <= 1000 for x, y in xy.values())

    def cross(p, q, r, s):
        def orient(a, b, c):
            return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

        return (orient(p, q, r) * orient(p, q, s) < 0) and (orient(r, s, p) * orient(r, s, q) < 0)

    segments = [(xy[a], xy[b], {a, b}) for a, b in edges]
    for n, (p, q, ends) in enumerate(segments):
        for r, s, other in segments[n + 1 :]:
            assert ends & other or not cross(p, q, r, s)


def test_the_map_colours_and_crisis_centres():
    board_map = default_content()["map"]
    colours = Counter(loc["colour"] for loc in board_map["locations"])
    assert set(colours) == {"YELLOW", "BLUE", "PURPLE"} and max(colours.values()) - min(colours.values()) <= 1
    pairs: dict[str, list[str]] = {}
    for loc in board_map["locations"]:
        if loc.get("crisisLetter"):
            pairs.setdefault(loc["crisisLetter"], []).append(loc["id"])
    assert sorted(pairs) == ["A", "B", "C", "D"] and all(len(p) == 2 for p in pairs.values())
    neighbours = content._neighbours(default_content())
    for a, b in pairs.values():
        seen, queue = {a: 0}, deque([a])
        while queue:
            here = queue.popleft()
            for nxt in neighbours[here]:
                if nxt not in seen:
                    seen[nxt] = seen[here] + 1
                    queue.append(nxt)
        assert seen[b] >= packgen.CRISIS_MIN_DISTANCE


def test_the_patrol_tiles():
    tiles = default_content()["patrolTiles"]
    types = Counter(t["rewardType"] for t in tiles)
    assert set(types) == {"POINTS", *RESOURCES}
    assert {"requiredIcons": 6, "rewardAmount": 2} in [
        t["easy"] for t in tiles if t["rewardType"] == "BOOKS"
    ]  # T-8
    assert {t["backSearchIcons"] for t in tiles} == {0, 1, 2}


def test_the_player_sets_follow_s_10_and_the_examples():
    for animal in ANIMALS:
        cards = {
            c.get("role") or c["id"].split("-", 1)[1]: c for c in default_content()["playerSets"][animal]
        }
        volunteers = [c for c in cards.values() if c["kind"] == "VOLUNTEER"]
        assert Counter(c["colour"] for c in volunteers) == {"YELLOW": 2, "RED": 3, "BLUE": 3}
        assert cards["LEADER"]["searchIcons"] == 2 and cards["DOCTOR"]["searchIcons"] == 0  # T-8
        assert cards["LEADER"]["setupPosition"] == "HOSPITAL"
        assert any(c["colour"] == "RED" and c["gatherCount"] == 1 for c in volunteers)  # T-3
        assert any(c["colour"] == "RED" and c["searchIcons"] == 1 for c in volunteers)  # T-8
        assert any(c["colour"] == "BLUE" and c["searchIcons"] == 1 for c in volunteers)  # T-8
        assert all(1 <= c["gatherCount"] <= 3 and 0 <= c["searchIcons"] <= 2 for c in volunteers)

        def rows(role, cards=cards):
            return [[(a["cost"], a["effects"]) for a in r["alternatives"]] for r in cards[role]["actions"]]

        assert rows("LEADER") == [
            [([], [{"type": "ACTIVATE_CHECK_ACTION"}])],
            [([], [{"type": "GAIN_BATTERY", "n": 1}])],
        ]
        assert rows("MECHANIC") == [
            [([{"type": "RESOURCE", "resource": "TOOLS", "n": 1}], [{"type": "HKD", "n": 3}])],
            [([], [{"type": "HKD", "n": 3}])],
        ]
        assert rows("PATROL_OFFICER")[0] == [
            (
                [{"type": "RESOURCE_ONE_OF", "options": ["PETROL", "BOOKS"], "n": 1}],
                [{"type": "GAIN_GPS", "n": 1}],
            )
        ]
        assert rows("DOCTOR") == [
            [
                (
                    [{"type": "RESOURCE", "resource": "MEDICINE", "n": 1}],
                    [{"type": "RETRIEVE_FROM_HOSPITAL", "scorePoints": True}],
                )
            ]
        ]


def test_the_objective_deck_holds_the_examples_cards():
    cards = default_content()["objectiveCards"]
    kinds = Counter(c["kind"] for c in cards)
    assert kinds == {"VOLUNTEER": 24, "SPECIALIST": 12, "CRISIS_PLAN": 36}
    assert {c["role"] for c in cards if c["kind"] == "SPECIALIST"} == {f"OD-{n}" for n in range(1, 7)}
    od5 = next(c for c in cards if c.get("role") == "OD-5")
    assert len(od5["actions"][0]["alternatives"]) == 2
    t4 = [
        c
        for c in cards
        if c["objectives"][0]
        == {
            "requirements": [
                {"type": "SLOT_COLOURS", "colours": ["YELLOW", "RED", "RED"]},
                {"type": "HKD", "n": 4},
            ],
            "immediateEffects": [{"type": "PLACE_CUBE", "colour": "YELLOW"}],
        }
    ]
    assert t4 and t4[0]["destination"] == "HAND"
    plans = [c for c in cards if c["kind"] == "CRISIS_PLAN"]
    assert any(
        len(p["objectives"]) >= 2 and {"type": "HKD", "n": 6} in o["immediateEffects"]
        for p in plans
        for o in p["objectives"]
    )  # T-5
    assert any(
        p["objectives"][-1]["immediateEffects"] == [{"type": "POINTS", "n": 2}]
        and p["bonusEffects"] == [{"type": "POINTS", "n": 5}]
        for p in plans
    )  # T-7
    requirements = [r for _, r in content.requirements(default_content())]
    assert any(
        r["type"] == "PATROL_TILES" and "POINTS" in r["rewardTypes"] and len(r["rewardTypes"]) == 2
        for r in requirements
    )
    assert any(r["type"] == "CRISIS_CENTRE_LINK" for r in requirements)
    assert 3 <= sum("ongoingEffect" in p for p in plans) <= 5 and any("checkAction" in p for p in plans)
    assert Counter(len(p["objectives"]) for p in plans).keys() == {1, 2, 3}
    for r in requirements:  # modest sizes, so that requirements can be met in play
        if r["type"] in ("RESOURCE", "ANY_SINGLE_RESOURCE", "RESOURCE_ONE_OF"):
            assert 1 <= r["n"] <= 3
        if r["type"] == "HKD":
            assert r["n"] <= 6
        if r["type"] == "SLOT_COLOURS":
            assert len(r["colours"]) <= 3


def test_the_emergency_plans_the_personal_board_and_chapter_1():
    data = default_content()
    plans = data["emergencyPlans"]
    assert [p["letter"] for p in plans] == ["A", "B", "C", "D"]
    assert all(
        len(p["objectives"]) == 3 and p["completionEffects"] == [{"type": "PLACE_CUBE", "colour": "ANY"}]
        for p in plans
    )
    assert plans[0]["objectives"][0]["immediateEffects"] == [{"type": "HKD", "n": 5}]  # T-6
    board = data["personalBoard"]
    actions = {a["id"]: a["effects"] for a in board["checkActions"]}
    assert len(actions) == 5
    assert actions["petrol-reward"] == [{"type": "GAIN_RESOURCE", "resource": "PETROL", "n": 1}]
    assert actions["tools-reward"] == [{"type": "GAIN_RESOURCE", "resource": "TOOLS", "n": 1}]
    for which in ("A", "B"):
        objective = board["powerRestoration"][which]
        assert objective["immediateEffects"] == []
        assert {r["type"] for r in objective["requirements"]} <= {"RESOURCE", "ANY_SINGLE_RESOURCE", "HKD"}
    assert board["refillThreshold"] == {"base": 4, "upgraded": 6}
    chapter = data["campaign"]["chapters"][0]
    assert chapter["reserveSize"] == {"1": 33, "2": 24, "3": 18, "4": 12}  # C-9
    assert chapter["emergencyPlans"] == {"1": ["A"], "2": ["A"], "3": ["A", "D"], "4": ["A", "D"]}  # C-10


def test_a_copy_of_the_default_pack_with_other_seed_also_passes_every_check():
    """The recipe, not just seed 1, yields valid packs."""
    for seed in (2, 3, 4):
        load_pack(copy.deepcopy(packgen.generate(seed)))
