"""Blackout: Hong Kong content packs: the map, dice, cards, tiles, scoring table and personal board as data.

Spec 1.10. The rulebook describes these components only by role and by example, so the engine reads
all of them from a pack: a JSON document that must validate against ``pack_schema.json`` (spec
1.10.1 with camelCase field names, kept out of ``packs/`` because every ``*.json`` there is an
installable pack) and pass the semantic checks below. ``load_pack`` returns the document itself,
unchanged plain JSON: the engine plays with the pack's own field names, and the server records it as
is in ``match_created`` so that the log alone replays the match.

The semantic checks are the validation rules under spec 1.10.1 plus the cross-references the engine
relies on; each is a function ``_check_*`` named after what it checks, run in the order of
``CHECKS``. Every error is an ``InvalidPack`` whose ``path`` names the item by index and id and the
field, for example ``objectiveCards[12] (OC13).objectives[0].requirements[1].resource``.

No check depends on match options yet; ``load_pack`` takes them for the ``Packs.load`` signature.
The shipped pack is generated (``packgen.py``); a licensed one is installed as
``$MATCHLOG_PACKS/blackout-hong-kong/<name>.json`` and chosen with the option ``CONTENT_PACK_ID``.
"""

from __future__ import annotations

import functools
import json
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema

from service.games.kit import pack_path, shipped_pack
from service.games.protocol import InvalidPack

HERE = Path(__file__).resolve().parent
SCHEMA_PATH = HERE / "pack_schema.json"
PACKS_DIR = HERE / "packs"
DEFAULT_PACK = "bhk-default-generated"

RESOURCES = ("FOOD", "TOOLS", "PETROL", "WATER", "BOOKS", "MEDICINE")  # 1.2.1
ANIMALS = ("HORSE", "TIGER", "SHEEP", "DRAGON")  # 1.1
DICE_COLOURS = ("RED", "YELLOW", "BLUE")  # 1.3.1
VOLUNTEER_COLOURS = ("RED", "YELLOW", "BLUE")  # 1.4.2
CARD_COLOURS = ("RED", "YELLOW", "BLUE", "PURPLE")  # 1.4.1, what SLOT_COLOURS may ask for
SET_ROLES = ("LEADER", "PATROL_OFFICER", "MECHANIC", "DOCTOR")  # 4.1
DECK_ROLES = ("OD-1", "OD-2", "OD-3", "OD-4", "OD-5", "OD-6")  # 4.2
PLANS = ("CRISIS_PLAN", "EMERGENCY_PLAN")

# Full counts (1.1, 1.10.1). A pack for the physical game has exactly these; setup relies on them
# (16 districts x 3 tiles = 48, 2 starting volunteers x 4 players = 8, one plan per player).
COUNTS = {
    "objectiveCards": 72,
    "patrolTiles": 48,
    "map.districts": 16,
    "startingVolunteers": 8,
    "emergencyPlans": 4,
}
SET_SIZE = 12

# S-10: where each card of a player set starts, as (kind, colour or role) per setupPosition.
SETUP = {
    "HOSPITAL": [("SPECIALIST", "LEADER"), ("VOLUNTEER", "BLUE")],
    "SLOT1": [("VOLUNTEER", "YELLOW")],
    "SLOT2_BOTTOM": [("VOLUNTEER", "RED")],
    "SLOT2_TOP": [("VOLUNTEER", "BLUE")],
    "HAND": [
        ("VOLUNTEER", "YELLOW"),
        ("VOLUNTEER", "RED"),
        ("VOLUNTEER", "RED"),
        ("VOLUNTEER", "BLUE"),
        ("SPECIALIST", "PATROL_OFFICER"),
        ("SPECIALIST", "MECHANIC"),
        ("SPECIALIST", "DOCTOR"),
    ],
}

# Which section holds which origin, and which kinds each origin may have (1.4).
SECTION_ORIGIN = {
    "playerSets": "PLAYER_SET",
    "startingVolunteers": "STARTING_VOLUNTEER",
    "emergencyPlans": "EMERGENCY_PLAN",
    "objectiveCards": "OBJECTIVE_DECK",
}
ORIGIN_KINDS = {
    "PLAYER_SET": ("VOLUNTEER", "SPECIALIST"),
    "STARTING_VOLUNTEER": ("VOLUNTEER",),
    "EMERGENCY_PLAN": ("EMERGENCY_PLAN",),
    "OBJECTIVE_DECK": ("VOLUNTEER", "SPECIALIST", "CRISIS_PLAN"),
}
# How many objectives a card of each kind carries when it carries any (1.4.2-1.4.5).
OBJECTIVES = {"VOLUNTEER": (1, 1), "SPECIALIST": (1, 1), "CRISIS_PLAN": (1, 3), "EMERGENCY_PLAN": (3, 3)}
DESTINATION = {
    "VOLUNTEER": "HAND",
    "SPECIALIST": "HAND",
    "CRISIS_PLAN": "CHECK_AREA",
    "EMERGENCY_PLAN": "CHECK_AREA",
}


@functools.cache
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema())


def load_pack(document: Any, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Check ``document`` (a parsed pack) against the schema, then the semantic checks; return it
    unchanged. InvalidPack (naming the item and field) otherwise. ``options`` is unused for now."""
    _check_schema(document)
    for check in CHECKS:
        check(document)
    return document


def _check_schema(document: Any) -> None:
    """The first schema error by path, made readable. An "unevaluated properties" error on a payment,
    requirement or effect is mostly the echo of an error inside it (a field of its type that failed),
    so an error inside the same item is reported instead; and where the schema carries an
    ``x-refusal`` (unknown effect, requirement or payment types, ongoing effects that would need a
    choice) that sentence is the message, because the bare enum error would not tell the author why."""
    key = lambda e: ([str(p) for p in e.absolute_path], e.message)  # noqa: E731
    errors = sorted(_validator().iter_errors(document), key=key)
    if not errors:
        return
    error = errors[0]
    path = list(error.absolute_path)
    within = [e for e in errors if list(e.absolute_path)[: len(path)] == path]
    explained = [e for e in within if "x-refusal" in e.schema]
    if explained:
        error = explained[0]
        raise InvalidPack(
            pack_path(document, list(error.absolute_path)), f"{error.instance!r} {error.schema['x-refusal']}"
        )
    if error.validator == "unevaluatedProperties":
        error = next((e for e in within if e.validator != "unevaluatedProperties"), error)
    raise InvalidPack(pack_path(document, list(error.absolute_path)), error.message)


# -- walking the pack ---------------------------------------------------------------------------------------


def _item(section: str, i: int, item: dict) -> str:
    return f"{section}[{i}] ({item['id']})" if isinstance(item.get("id"), str) else f"{section}[{i}]"


def cards(document: dict) -> Iterator[tuple[str, str, dict]]:
    """(section, path of the card, card) for every card, in pack order."""
    for animal, cards_of_set in document["playerSets"].items():
        for i, card in enumerate(cards_of_set):
            yield "playerSets", _item(f"playerSets.{animal}", i, card), card
    for section in ("startingVolunteers", "emergencyPlans", "objectiveCards"):
        for i, card in enumerate(document[section]):
            yield section, _item(section, i, card), card


def _objectives(document: dict) -> Iterator[tuple[str, dict]]:
    for _, where, card in cards(document):
        for k, objective in enumerate(card.get("objectives") or []):
            yield f"{where}.objectives[{k}]", objective
    for which, objective in document["personalBoard"]["powerRestoration"].items():
        yield f"personalBoard.powerRestoration.{which}", objective


def requirements(document: dict) -> Iterator[tuple[str, dict]]:
    """(path, requirement or payment) for every objective requirement and specialist cost."""
    for where, objective in _objectives(document):
        for k, requirement in enumerate(objective["requirements"]):
            yield f"{where}.requirements[{k}]", requirement
    for _, where, card in cards(document):
        for r, action in enumerate(card.get("actions") or []):
            for a, alternative in enumerate(action["alternatives"]):
                for k, payment in enumerate(alternative["cost"]):
                    yield f"{where}.actions[{r}].alternatives[{a}].cost[{k}]", payment


def effects(document: dict) -> Iterator[tuple[str, dict]]:
    """(path, effect) for every effect in the pack."""
    for where, objective in _objectives(document):
        for k, effect in enumerate(objective["immediateEffects"]):
            yield f"{where}.immediateEffects[{k}]", effect
    for _, where, card in cards(document):
        for r, action in enumerate(card.get("actions") or []):
            for a, alternative in enumerate(action["alternatives"]):
                for k, effect in enumerate(alternative["effects"]):
                    yield f"{where}.actions[{r}].alternatives[{a}].effects[{k}]", effect
        for field in ("bonusEffects", "completionEffects", "checkAction"):
            for k, effect in enumerate(card.get(field) or []):
                yield f"{where}.{field}[{k}]", effect
        if card.get("ongoingEffect"):
            yield f"{where}.ongoingEffect.effect", card["ongoingEffect"]["effect"]
    for i, action in enumerate(document["personalBoard"]["checkActions"]):
        for k, effect in enumerate(action["effects"]):
            yield f"{_item('personalBoard.checkActions', i, action)}.effects[{k}]", effect


def _neighbours(document: dict) -> dict[str, set[str]]:
    table: dict[str, set[str]] = {loc["id"]: set() for loc in document["map"]["locations"]}
    for a, b in document["map"]["edges"]:
        table[a].add(b)
        table[b].add(a)
    return table


# -- the semantic checks ---------------------------------------------------------------------------------


def _check_ids_unique(document: dict) -> None:
    """Cards and tiles share one namespace (the engine finds both by id); locations and districts
    each have their own."""
    namespaces = [
        [(where, card) for _, where, card in cards(document)]
        + [(_item("patrolTiles", i, tile), tile) for i, tile in enumerate(document["patrolTiles"])],
        [(_item("map.locations", i, loc), loc) for i, loc in enumerate(document["map"]["locations"])],
        [(_item("map.districts", i, d), d) for i, d in enumerate(document["map"]["districts"])],
    ]
    for items in namespaces:
        seen: dict[str, str] = {}
        for where, item in items:
            if item["id"] in seen:
                raise InvalidPack(f"{where}.id", f"duplicate id: {seen[item['id']]} has it too")
            seen[item["id"]] = where


def _check_counts(document: dict) -> None:
    for section, count in COUNTS.items():
        items = document["map"]["districts"] if section == "map.districts" else document[section]
        if len(items) != count:
            raise InvalidPack(section, f"has {len(items)} items; the game has {count} (spec 1.1, 1.10.1)")
    for animal in ANIMALS:
        if len(document["playerSets"][animal]) != SET_SIZE:
            raise InvalidPack(
                f"playerSets.{animal}",
                f"has {len(document['playerSets'][animal])} cards; a player set has {SET_SIZE} (S-10)",
            )


def _check_card_kinds(document: dict) -> None:
    """Kind, origin, colour and the kind-specific fields agree (1.4): volunteers have a card colour
    and a gather count, specialists are purple with actions, plans have no colour; objectives and a
    destination exactly where a card can be completed."""
    for section, where, card in cards(document):
        kind, origin = card["kind"], card["origin"]
        if origin != SECTION_ORIGIN[section]:
            raise InvalidPack(f"{where}.origin", f"a card in {section} has origin {SECTION_ORIGIN[section]}")
        if kind not in ORIGIN_KINDS[origin]:
            raise InvalidPack(f"{where}.kind", f"a {origin} card is one of {list(ORIGIN_KINDS[origin])}")
        colour = card.get("colour")
        if kind == "VOLUNTEER" and colour not in VOLUNTEER_COLOURS:
            raise InvalidPack(f"{where}.colour", f"a volunteer is one of {list(VOLUNTEER_COLOURS)}")
        if kind == "SPECIALIST" and colour != "PURPLE":
            raise InvalidPack(f"{where}.colour", "a specialist is PURPLE")
        if kind in PLANS and colour is not None:
            raise InvalidPack(f"{where}.colour", "a plan has no colour")
        if (kind == "VOLUNTEER") != ("gatherCount" in card):
            raise InvalidPack(f"{where}.gatherCount", "volunteers, and only they, have a gather count")
        if (kind == "SPECIALIST") != ("actions" in card):
            raise InvalidPack(f"{where}.actions", "specialists, and only they, have action rows")
        role = card.get("role")
        roles = SET_ROLES if origin == "PLAYER_SET" else DECK_ROLES
        if kind == "SPECIALIST" and origin == "PLAYER_SET" and role is None:
            raise InvalidPack(
                f"{where}.role", f"a player-set specialist has a role, one of {list(SET_ROLES)}"
            )
        if role is not None and (kind != "SPECIALIST" or role not in roles):
            raise InvalidPack(
                f"{where}.role",
                f"only specialists have a role; a {origin} specialist's is one of {list(roles)}",
            )
        if origin != "PLAYER_SET":
            for field in ("animal", "setupPosition"):
                if card.get(field) is not None:
                    raise InvalidPack(f"{where}.{field}", "only player-set cards have one")
        if (kind == "EMERGENCY_PLAN") != ("letter" in card):
            raise InvalidPack(f"{where}.letter", "emergency plans, and only they, have a letter")
        if kind not in PLANS:
            for field in ("bonusEffects", "completionEffects", "checkAction", "ongoingEffect"):
                if field in card:
                    raise InvalidPack(f"{where}.{field}", "only plans have one")
        if origin == "PLAYER_SET":
            if "objectives" in card or "destination" in card:
                field = "objectives" if "objectives" in card else "destination"
                raise InvalidPack(f"{where}.{field}", "player-set cards carry no objective")
            continue
        low, high = OBJECTIVES[kind]
        count = len(card.get("objectives") or [])
        if not low <= count <= high:
            wanted = str(low) if low == high else f"{low} to {high}"
            raise InvalidPack(
                f"{where}.objectives", f"a {kind} carries {wanted} objective(s), this one {count}"
            )
        if card.get("destination") != DESTINATION[kind]:
            raise InvalidPack(f"{where}.destination", f"a completed {kind} goes to {DESTINATION[kind]}")


def _check_player_cards(document: dict) -> None:
    """Every player card names its set's animal and a setup position (S-10, 1.10.1)."""
    for animal in ANIMALS:
        for i, card in enumerate(document["playerSets"][animal]):
            where = _item(f"playerSets.{animal}", i, card)
            if card.get("animal") != animal:
                raise InvalidPack(f"{where}.animal", f"a card of the {animal} set has animal {animal}")
            if card.get("setupPosition") is None:
                raise InvalidPack(f"{where}.setupPosition", "every player card has a setup position (S-10)")


def _check_set_composition(document: dict) -> None:
    """S-10: 2 yellow, 3 red and 3 blue volunteers and the 4 specialists of 4.1, each where setup puts
    it; the blue volunteer in the hospital gathers 2; the doctor has no search icon (4.1)."""
    for animal in ANIMALS:
        cards_of_set = document["playerSets"][animal]
        signature = lambda card: (card["kind"], card.get("role") or card.get("colour"))  # noqa: E731
        left = {position: list(expected) for position, expected in SETUP.items()}
        for i, card in enumerate(cards_of_set):  # first a card where S-10 puts no such card ...
            position = card["setupPosition"]
            if signature(card) in left[position]:
                left[position].remove(signature(card))
            else:
                raise InvalidPack(
                    f"{_item(f'playerSets.{animal}', i, card)}.setupPosition",
                    f"S-10 puts no {' '.join(signature(card))} card in {position}; it puts "
                    f"{[' '.join(s) for s in SETUP[position]]} there",
                )
        for position, missing in left.items():  # ... then a card S-10 wants and the set lacks
            if missing:
                raise InvalidPack(
                    f"playerSets.{animal}",
                    f"S-10 puts {[' '.join(s) for s in missing]} in "
                    f"{position}, and this set has no such card there",
                )
        for i, card in enumerate(cards_of_set):
            where = _item(f"playerSets.{animal}", i, card)
            if (
                card["setupPosition"] == "HOSPITAL"
                and card["kind"] == "VOLUNTEER"
                and card["gatherCount"] != 2
            ):
                raise InvalidPack(
                    f"{where}.gatherCount", "the blue volunteer in the hospital gathers 2 (S-10)"
                )
            if card.get("role") == "DOCTOR" and card["searchIcons"] != 0:
                raise InvalidPack(
                    f"{where}.searchIcons", "the doctor has no search icon: it never patrols (4.1)"
                )


def _check_crisis_letters(document: dict) -> None:
    """1.6.1: crisis centres come in pairs, which CRISIS_CENTRE_LINK joins (R-3.13)."""
    where: dict[str, list[str]] = {}
    for i, loc in enumerate(document["map"]["locations"]):
        if loc.get("crisisLetter"):
            where.setdefault(loc["crisisLetter"], []).append(f"{_item('map.locations', i, loc)}.crisisLetter")
    for letter, paths in where.items():
        if len(paths) != 2:
            raise InvalidPack(
                paths[-1],
                f"crisis letter {letter!r} is on {len(paths)} locations; each letter is on exactly 2 (1.6.1)",
            )


def _check_map_references(document: dict) -> None:
    """Every edge and district boundary names a known location; an edge joins two different ones."""
    known = {loc["id"] for loc in document["map"]["locations"]}
    for i, edge in enumerate(document["map"]["edges"]):
        for k, loc in enumerate(edge):
            if loc not in known:
                raise InvalidPack(f"map.edges[{i}][{k}]", f"{loc!r} is not a location")
        if edge[0] == edge[1]:
            raise InvalidPack(f"map.edges[{i}]", "an edge joins two different locations")
    for i, district in enumerate(document["map"]["districts"]):
        for k, loc in enumerate(district["boundary"]):
            if loc not in known:
                raise InvalidPack(
                    f"{_item('map.districts', i, district)}.boundary[{k}]", f"{loc!r} is not a location"
                )


def _check_district_cycles(document: dict) -> None:
    """1.6.3: a district is a face of the graph, so its boundary, in order, is a cycle of it: distinct
    locations, each joined by an edge to the next and the last to the first."""
    neighbours = _neighbours(document)
    for i, district in enumerate(document["map"]["districts"]):
        boundary = district["boundary"]
        where = f"{_item('map.districts', i, district)}.boundary"
        for k, loc in enumerate(boundary):
            if loc in boundary[:k]:
                raise InvalidPack(f"{where}[{k}]", f"{loc!r} is already on the boundary")
            nxt = boundary[(k + 1) % len(boundary)]
            if nxt not in neighbours[loc]:
                raise InvalidPack(
                    f"{where}[{k}]", f"no edge joins {loc!r} to the next boundary location {nxt!r}"
                )


def _check_connected(document: dict) -> None:
    """1.10.1: cube placement measures distances along the graph, so every location must be reachable."""
    neighbours = _neighbours(document)
    locations = document["map"]["locations"]
    seen, queue = {locations[0]["id"]}, deque([locations[0]["id"]])
    while queue:
        for nxt in neighbours[queue.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    for i, loc in enumerate(locations):
        if loc["id"] not in seen:
            raise InvalidPack(
                _item("map.locations", i, loc),
                f"cannot be reached from {locations[0]['id']}: the map must be connected (1.10.1)",
            )


def _check_scoring_table(document: dict) -> None:
    """1.10.1: the table scores a district by its boundary size (R-7.3c) and face-up tiles by the number
    of reward types (E-5), so it must reach both."""
    largest = max(len(d["boundary"]) for d in document["map"]["districts"])
    types = len({tile["rewardType"] for tile in document["patrolTiles"]})
    if len(document["scoringTable"]) < max(largest, types):
        raise InvalidPack(
            "scoringTable",
            f"has {len(document['scoringTable'])} entries; it needs "
            f"{max(largest, types)} (largest district {largest}, {types} tile reward "
            "types; 1.10.1)",
        )


def _check_rondel(document: dict) -> None:
    if sorted(document["rondelOrder"]) != sorted(RESOURCES):
        raise InvalidPack("rondelOrder", f"must hold each of {list(RESOURCES)} once (1.2.4)")


def _check_dice(document: dict) -> None:
    colours = [die["colour"] for die in document["dice"]]
    for i, colour in enumerate(colours):
        if colour in colours[:i]:
            raise InvalidPack(
                f"dice[{i}].colour", f"two dice are {colour}; there is one die per colour (1.3.1)"
            )
    if sorted(colours) != sorted(DICE_COLOURS):
        raise InvalidPack("dice", f"the game has 3 dice, {list(DICE_COLOURS)} (1.3.1)")


def _check_tiles(document: dict) -> None:
    """1.5: the hard challenge asks for more icons and gives more than the easy one."""
    for i, tile in enumerate(document["patrolTiles"]):
        where = _item("patrolTiles", i, tile)
        for field in ("requiredIcons", "rewardAmount"):
            if tile["hard"][field] <= tile["easy"][field]:
                raise InvalidPack(
                    f"{where}.hard.{field}", f"must be more than easy.{field} ({tile['easy'][field]})"
                )


def _check_colours(document: dict) -> None:
    """SLOT_COLOURS asks for card colours (R-3.4); PLACE_CUBE targets a location colour of the map, or
    ANY (R-3.12)."""
    map_colours = {loc["colour"] for loc in document["map"]["locations"]}
    for where, requirement in requirements(document):
        if requirement["type"] == "SLOT_COLOURS":
            for k, colour in enumerate(requirement["colours"]):
                if colour not in CARD_COLOURS:
                    raise InvalidPack(
                        f"{where}.colours[{k}]", f"{colour!r} is not a card colour {list(CARD_COLOURS)}"
                    )
    for where, effect in effects(document):
        if (
            effect["type"] == "PLACE_CUBE"
            and effect["colour"] != "ANY"
            and effect["colour"] not in map_colours
        ):
            raise InvalidPack(
                f"{where}.colour",
                f"{effect['colour']!r} is the colour of no location; the map has "
                f"{sorted(map_colours)} (or ANY)",
            )


def _check_link_letters(document: dict) -> None:
    """CRISIS_CENTRE_LINK joins the two locations of a letter (R-3.13): the letter must be on the map."""
    letters = {loc["crisisLetter"] for loc in document["map"]["locations"] if loc.get("crisisLetter")}
    for where, requirement in requirements(document):
        if requirement["type"] == "CRISIS_CENTRE_LINK" and requirement["letter"] not in letters | {"ANY"}:
            raise InvalidPack(
                f"{where}.letter",
                f"{requirement['letter']!r} is on no location; the map has {sorted(letters)} (or ANY)",
            )


def _check_patrol_reward_types(document: dict) -> None:
    """A PATROL_TILES requirement (R-3.4) can only be met with reward types some tile has."""
    types = {tile["rewardType"] for tile in document["patrolTiles"]}
    for where, requirement in requirements(document):
        if requirement["type"] == "PATROL_TILES":
            for k, reward in enumerate(requirement["rewardTypes"]):
                if reward not in types:
                    raise InvalidPack(
                        f"{where}.rewardTypes[{k}]",
                        f"{reward!r} is the reward type of no tile; the tiles have {sorted(types)}",
                    )


def _check_emergency_letters(document: dict) -> None:
    seen: dict[str, str] = {}
    for i, plan in enumerate(document["emergencyPlans"]):
        where = _item("emergencyPlans", i, plan)
        if plan["letter"] in seen:
            raise InvalidPack(f"{where}.letter", f"{seen[plan['letter']]} has letter {plan['letter']} too")
        seen[plan["letter"]] = where


def _check_chapter_plans(document: dict) -> None:
    """A chapter lays out emergency plans by letter (C-10): they must exist."""
    letters = {plan["letter"] for plan in document["emergencyPlans"]}
    for i, chapter in enumerate(document.get("campaign", {}).get("chapters", [])):
        for players, named in chapter["emergencyPlans"].items():
            for k, letter in enumerate(named):
                if letter not in letters:
                    raise InvalidPack(
                        f"campaign.chapters[{i}].emergencyPlans.{players}[{k}]",
                        f"there is no emergency plan {letter!r}; the pack has {sorted(letters)}",
                    )


def _check_check_action_ids(document: dict) -> None:
    """Houses cover and uncover check-mark spaces by id (R-7.3)."""
    seen: set[str] = set()
    for i, action in enumerate(document["personalBoard"]["checkActions"]):
        if action["id"] in seen:
            raise InvalidPack(
                f"{_item('personalBoard.checkActions', i, action)}.id", "duplicate check-action id"
            )
        seen.add(action["id"])


CHECKS = (
    _check_ids_unique,
    _check_counts,
    _check_card_kinds,
    _check_player_cards,
    _check_set_composition,
    _check_crisis_letters,
    _check_map_references,
    _check_district_cycles,
    _check_connected,
    _check_scoring_table,
    _check_rondel,
    _check_dice,
    _check_tiles,
    _check_colours,
    _check_link_letters,
    _check_patrol_reward_types,
    _check_emergency_letters,
    _check_chapter_plans,
    _check_check_action_ids,
)


def default_content() -> dict[str, Any]:
    """The shipped default pack, loaded once (engine use without a server: tests, benchmarks)."""
    return shipped_pack(load_pack, PACKS_DIR, DEFAULT_PACK)
