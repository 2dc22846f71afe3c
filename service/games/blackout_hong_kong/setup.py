"""Setup (section 2): the state a game starts from, and the start cubes placed before round 1 (S-12).

Every chance of setup is drawn here (``draws``): the shuffles of the tiles, the objective cards, the
starting volunteers and the emergency plans, each from the match seed with a stream of its own, and the
start seat. ``deal`` sets the game up with what was drawn, which lets the AI faces draw one item at a
time. Play draws too (dice, injuries: ``common.picked``): a seed's game from ``rng``, a key derived from the
seed and never shown (``drawn`` adds it); a game dealt from drawn items alone asks for each of those draws.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from service.games.blackout_hong_kong import content as pack_data
from service.games.blackout_hong_kong.board import RESOURCES, board_of
from service.games.blackout_hong_kong.common import refuse
from service.games.kit import Turn
from service.games.protocol import Action, Draw, InvalidOptions, State
from service.games.texts import catalogue

_ = catalogue(__file__).gettext

SINGLE_RESERVE = {1: 33, 2: 36, 3: 21, 4: 15}  # S-5 (1 player: A-40's variant)
SHUFFLED = {  # each shuffle of setup: the pack's list of the items
    "tiles": "patrolTiles",  # S-4
    "objectives": "objectiveCards",  # S-5
    "volunteers": "startingVolunteers",  # S-8
    "emergency": "emergencyPlans",  # S-9
}


def draws(options: dict[str, Any], players: int, content: Any) -> list[Draw]:
    """Setup's chance: the four shuffles, then the start seat when no option names it (S-11, A-53)."""
    content = pack_data.default_content() if content is None else content
    out = [Draw(name, tuple(c["id"] for c in content[key]), True) for name, key in SHUFFLED.items()]
    if options["START_SEAT"] is None:
        out.append(Draw("start", tuple(range(players)), False))
    return out


def drawn(options: dict[str, Any], players: int, content: Any, seed: str) -> dict[str, Any]:
    """What ``seed`` draws, each draw from a generator of its own (``<seed>:blackout-hong-kong:<name>``), and
    ``rng``: the key play's draws come from."""
    result: dict[str, Any] = {}
    for draw in draws(options, players, content):
        rng = random.Random(f"{seed}:blackout-hong-kong:{draw.name}")
        result[draw.name] = (
            rng.sample(draw.items, len(draw.items)) if draw.shuffle else rng.choice(draw.items)
        )
    result["rng"] = hashlib.sha256(f"{seed}:blackout-hong-kong:rng".encode()).hexdigest()
    return result


def setup(options: dict[str, Any], players: int, seed: str, content: Any) -> State:
    return deal(options, players, content, drawn(options, players, content, seed))


def deal(options: dict[str, Any], players: int, content: Any, drawn: dict[str, Any]) -> State:
    """The state set up with what was drawn; without ``rng`` (the faces'), play asks for its draws."""
    content = pack_data.default_content() if content is None else content
    chapter = _chapter(options, content)
    tiles = drawn["tiles"]
    objective_cards = drawn["objectives"]
    reserve_size = chapter["reserveSize"][str(players)] if chapter else SINGLE_RESERVE[players]
    reserve, rest = objective_cards[:reserve_size], objective_cards[reserve_size:]
    volunteers = drawn["volunteers"]
    plans = drawn["emergency"]
    seats = [_seat(options, content, seat, players, volunteers, plans) for seat in range(players)]
    start = options["START_SEAT"]
    if start is None:
        start = drawn["start"]
    return {
        "options": options,
        "content": content,
        "n": players,
        "mode": options["mode"],
        "rng": drawn.get("rng", {}),
        "round": 0,
        "step": "start_cubes",
        "start_seat": start,
        "order": [(start + i) % players for i in range(players)],
        "start_queue": [(start - 1 - i) % players for i in range(players)],  # S-12: s-1, s-2, ..., s
        "active": (start - 1) % players,
        "turn": {},
        "dice": None,
        "market": [rest[0:3], rest[3:6], rest[6:9]],
        "deck": rest[9:],
        "reserve": reserve,
        "discard": [],
        "districts": _districts(content, tiles),
        "tiles": {t: {"faceUp": False, "seenBy": []} for t in tiles},
        "box_tiles": [],
        "shared_plans": _shared_plans(content, chapter, players),
        "end_round": None,
        "final_round": None,
        "pass_streak": 0,
        "bought": False,
        "queue": [],
        "plans": {},
        "collect": None,
        "leader_checks": {},
        "players": seats,
        "result": None,
    }


def _chapter(options: dict[str, Any], content: Any) -> dict | None:
    """The campaign chapter played, None in a single game."""
    if options["mode"] != "CAMPAIGN":
        return None
    chapter = next(
        (c for c in content.get("campaign", {}).get("chapters", []) if c["number"] == options["chapter"]),
        None,
    )
    if chapter is None:
        raise InvalidOptions("options.chapter", f"pack {content['id']!r} has no chapter {options['chapter']}")
    return chapter


def _districts(content: Any, tiles: list[str]) -> dict[str, dict]:
    """S-4: three patrol tiles face down on each district."""
    return {
        district["id"]: {
            "tiles": tiles[3 * i : 3 * i + 3],
            "stabilised": False,
            "houses": [],
            "substitutes": [],
            "chosen_by": None,
        }
        for i, district in enumerate(content["map"]["districts"])
    }


def _shared_plans(content: Any, chapter: dict | None, players: int) -> list[dict]:
    """C-10: the chapter's shared emergency plans (none in a single game)."""
    if chapter is None:
        return []
    plans = board_of(content).plans_by_letter
    return [
        {"card": plans[letter]["id"], "done": {}, "cubes": {}}
        for letter in chapter["emergencyPlans"][str(players)]
    ]


def _seat(
    options: dict[str, Any], content: Any, seat: int, players: int, volunteers: list[str], plans: list[str]
) -> dict:
    """One player's board, cards and supply (S-6 to S-10)."""
    campaign = options["mode"] == "CAMPAIGN"
    hkd = 4
    if campaign and players == 1:
        hkd += options["RETRY_BONUS_HKD"] * (options["CAMPAIGN_ATTEMPT"] - 1)  # C-15(c)
    animal = options["animal_sets"][seat]
    cards = content["playerSets"][animal]  # S-10

    def at(where: str) -> list[str]:
        return [c["id"] for c in cards if c["setupPosition"] == where]

    per = options["STARTING_VOLUNTEERS_PER_PLAYER"]
    objectives = [{"card": c, "done": [], "markers": 0} for c in volunteers[seat * per : (seat + 1) * per]]
    return {
        "seat": seat,
        "animal": animal,
        "vp": 0,
        "hkd": hkd,
        "transport": 5,
        "gps": 0,
        "supply": 24,  # S-6, S-7
        "rondel": {**dict.fromkeys(RESOURCES, 0), "BATTERY": 1},
        "cubes": [],
        "hand": at("HAND"),
        "slots": [
            [{"card": c, "faceUp": True, "round": 0} for c in at("SLOT1")],
            [{"card": c, "faceUp": True, "round": 0} for c in at("SLOT2_BOTTOM") + at("SLOT2_TOP")],
            [],
            [],
        ],
        "slot4": False,
        "objectives": (objectives + [None, None, None])[:3],
        "emergency": None if campaign else {"card": plans[seat], "done": [], "markers": 0},
        "hospital": at("HOSPITAL"),
        "check_area": [],
        "spaces": [{"action": a["id"], "covered": True} for a in content["personalBoard"]["checkActions"]],
        "power": {"A": False, "B": False},
        "threshold": content["personalBoard"]["refillThreshold"]["base"],
        "tiles": [],
    }


# -- start cubes (S-12) ----------------------------------------------------------------------------------


def place_start_cube(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    if state["step"] != "start_cubes":
        raise refuse("wrong_phase", _("S-12: start cubes are placed before round 1"))
    location = action["locationId"]
    if location not in board_of(state["content"]).locations:
        raise refuse("unknown_location", _("S-12: no location {location!r}", location=location))
    if any(location in player["cubes"] for player in state["players"]):
        raise refuse("location_taken", _("S-12, A-16: another player's start cube is already there"))
    turn.emit("start_cube_placed", seat, location=location)


def start_cube_entries(state: State, seat: int) -> list[Action]:
    taken = {location for player in state["players"] for location in player["cubes"]}
    return [
        {"type": "PLACE_START_CUBE", "locationId": location}
        for location in board_of(state["content"]).locations
        if location not in taken
    ]
