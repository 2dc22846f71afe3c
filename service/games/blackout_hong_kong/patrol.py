"""Phase 4, patrol (§3.4): in turn, each seat may choose a district it borders (R-4.2), look at its
face-down tiles in private, then take one with a party of hand cards and GPS tokens that meets a
challenge (easy, hard or exploration: R-4.5), or decline; a party card is injured (R-4.6.4). What a look
and a take do to the districts, tiles and player is here too: the engine's folds of those events call it."""

from __future__ import annotations

from service.games.blackout_hong_kong.board import board_of
from service.games.blackout_hong_kong.common import card, gainable, picked, refuse, require_phase, tile
from service.games.kit import Turn
from service.games.protocol import Action, IllegalAction, State
from service.games.texts import catalogue

_ = catalogue(__file__).gettext

CHALLENGES = ("EASY", "HARD", "EXPLORATION")


def eligible_districts(state: State, seat: int) -> list[str]:
    """R-4.2: not chosen by another player this round, tiles left, a boundary location held."""
    if state["turn"].get("patrol") or (
        state["turn"].get("chosen") and state["options"]["PATROL_DECLINE_ENDS_TURN"]
    ):
        return []
    board = board_of(state["content"])
    cubes = set(state["players"][seat]["cubes"])
    return [
        district_id
        for district_id, district in state["districts"].items()
        if district["chosen_by"] is None
        and district["tiles"]
        and cubes & set(board.districts[district_id]["boundary"])
    ]


def search_total(state: State, seat: int, party: list[str], gps: int) -> tuple[int, int]:
    """R-4.5: (full total S, the party's icons alone)."""
    player = state["players"][seat]
    party_icons = sum(card(state, c)["searchIcons"] for c in party)
    crisis_only = state["options"]["PASSIVE_ICON_SOURCES"] == "CRISIS_PLANS_ONLY"
    passive = sum(
        card(state, c)["searchIcons"]
        for c in player["check_area"]
        if not crisis_only or card(state, c)["kind"] == "CRISIS_PLAN"
    )
    backs = sum(tile(state, t["tile"])["backSearchIcons"] for t in player["tiles"] if not t["faceUp"])
    return party_icons + passive + backs + 3 * gps, party_icons


def _exploration_tiles(state: State, district: str) -> list[str]:
    tiles = state["districts"][district]["tiles"]
    low = min(tile(state, t)["easy"]["requiredIcons"] for t in tiles)
    return [t for t in tiles if tile(state, t)["easy"]["requiredIcons"] == low]


def choose_district(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    require_phase(state, "p4", "R-4.1")
    if state["turn"].get("patrol"):
        raise refuse("already_patrolling", _("R-4.1: you are already looking at a district"))
    district = action["districtId"]
    if district not in state["districts"]:
        raise refuse("unknown_district", _("R-4.2: no district {district!r}", district=district))
    if district not in eligible_districts(state, seat):
        raise refuse(
            "not_eligible",
            _(
                "R-4.2: that district was chosen this round, has no tiles, or has none "
                "of your cubes on its boundary (R-4.2c)"
            ),
        )
    tiles = [
        {**tile(state, t), "faceUp": state["tiles"][t]["faceUp"]}
        for t in state["districts"][district]["tiles"]
    ]
    turn.emit("patrol_viewed", seat, district=district, tiles=tiles)


def _take_blocker(
    state: State, seat: int, tile_id: str, challenge: str, party: list[str], gps: int
) -> IllegalAction | None:
    """Why the seat may not take this tile with this party and GPS, or None."""
    player = state["players"][seat]
    district = state["turn"].get("patrol")
    if tile_id not in state["districts"][district]["tiles"]:
        return refuse("unknown_tile", _("R-4.4: that tile is not in the district you are looking at"))
    party_refused = _party_blocker(state, player, party)
    if party_refused:
        return party_refused
    if gps > player["gps"]:
        return refuse("not_enough_gps", _("R-4.5: you do not hold that many GPS tokens"))
    total, party_icons = search_total(state, seat, party, gps)
    if challenge == "EXPLORATION":
        if tile_id not in _exploration_tiles(state, district):
            return refuse(
                "not_exploration_tile",
                _("R-4.5: exploration takes a tile with the lowest easy requirement in the district"),
            )
        counted = total if state["options"]["EXPLORATION_TOTAL_MODE"] == "FULL" else party_icons
        if counted < 4:
            return refuse(
                "challenge_unmet",
                _("R-4.5, A-24: exploration needs 4 icons, the party has {counted}", counted=counted),
            )
        return None
    needed = tile(state, tile_id)[challenge.lower()]["requiredIcons"]
    if total < needed:
        return refuse(
            "challenge_unmet",
            _(
                "R-4.5: the {challenge} challenge needs {needed} icons, S = {total}",
                challenge=challenge,
                needed=needed,
                total=total,
            ),
        )
    return None


def _party_blocker(state: State, player: dict, party: list[str]) -> IllegalAction | None:
    if not party or len(set(party)) != len(party):
        return refuse("bad_party", _("R-4.5: the party is one or more distinct cards"))
    for member in party:
        if member not in player["hand"]:
            return refuse("not_in_hand", _("R-4.5: {member} is not in your hand", member=member))
        if card(state, member)["searchIcons"] < 1:
            return refuse(
                "bad_party",
                _("R-4.5: {member} has no search icon (the doctor can never join)", member=member),
            )
    return None


def take(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    require_phase(state, "p4", "R-4.4")
    district = state["turn"].get("patrol")
    if not district:
        raise refuse("no_patrol", _("R-4.4: choose a district first (PATROL_CHOOSE_DISTRICT)"))
    tile_id, challenge, party = action["tileId"], action["challenge"], list(action["partyCardIds"])
    gps = action.get("gps", 0)
    blocker = _take_blocker(state, seat, tile_id, challenge, party, gps)
    if blocker:
        raise blocker
    front = tile(state, tile_id)
    reward, face_up = _reward(state, state["players"][seat], front, challenge)
    others = [
        {**tile(state, t), "faceUp": True} for t in state["districts"][district]["tiles"] if t != tile_id
    ]
    total = search_total(state, seat, party, gps)[0]
    turn.emit(
        "patrol_taken",
        seat,
        district=district,
        tile=tile_id,
        tile_front=front,
        challenge=challenge,
        party=sorted(party),
        gps=gps,
        total=total,
        reward=reward,
        faceUp=face_up,
        revealed=others,
    )
    if challenge != "EXPLORATION" or state["options"]["EXPLORATION_INJURY"]:
        hurt = picked(state, f"injury:{state['round']}:{seat}", sorted(party))
        turn.emit("injured", seat, card=hurt)
    turn.emit("turn_ended", seat)


def _reward(state: State, player: dict, front: dict, challenge: str) -> tuple[dict, bool]:
    """The tile's reward for the challenge met, and whether the tile lies face up (R-4.6.2, R-4.6.3, A-25)."""
    if challenge == "EXPLORATION":
        return {"type": front["rewardType"], "n": 0}, False
    n = front[challenge.lower()]["rewardAmount"]
    if front["rewardType"] != "POINTS":
        n = gainable(state, player, n)
    face_up = not any(
        t["faceUp"] and tile(state, t["tile"])["rewardType"] == front["rewardType"] for t in player["tiles"]
    )
    return {"type": front["rewardType"], "n": n}, face_up


def district_viewed(districts: dict, tiles: dict, turn: dict, district: str, seat: int | None) -> dict:
    """A look at a district's tiles (R-4.3): the district chosen this round and its tiles seen by
    ``seat``, in the copies of ``districts`` and ``tiles`` given; the turn's record after the look."""
    districts[district]["chosen_by"] = seat
    for tile_id in districts[district]["tiles"]:
        if seat not in tiles[tile_id]["seenBy"]:
            tiles[tile_id]["seenBy"].append(seat)
    return {**turn, "patrol": district, "chosen": list(turn.get("chosen", [])) + [district]}


def tile_taken(districts: dict, tiles: dict, player: dict, data: dict) -> None:
    """A tile taken (R-4.6), in the copies given: the tile to the player with its reward, the
    district's other tiles turned face up (R-4.6.1), the GPS tokens spent."""
    district = districts[data["district"]]
    district["tiles"].remove(data["tile"])
    for other in district["tiles"]:
        tiles[other]["faceUp"] = True
    del tiles[data["tile"]]
    player["gps"] -= data["gps"]
    player["tiles"].append({"tile": data["tile"], "faceUp": data["faceUp"]})
    reward = data["reward"]
    if reward["type"] == "POINTS":
        player["vp"] += reward["n"]
    elif reward["n"]:
        player["rondel"][reward["type"]] += reward["n"]
        player["supply"] -= reward["n"]


def decline(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    require_phase(state, "p4", "R-4.4")
    if not state["turn"].get("patrol"):
        raise refuse("no_patrol", _("R-4.4: you are not looking at a district"))
    turn.emit("patrol_declined", seat, district=state["turn"]["patrol"])
    if state["options"]["PATROL_DECLINE_ENDS_TURN"] or not eligible_districts(turn.state, seat):
        turn.emit("turn_ended", seat)


def skip(turn: Turn, seat: int, action: Action) -> None:
    require_phase(turn.state, "p4", "R-4.1")
    if turn.state["turn"].get("patrol"):
        raise refuse("already_patrolling", _("R-4.4: take a tile or decline"))
    turn.emit("turn_ended", seat, patrol="skipped")


def patrol_entries(state: State, seat: int) -> list[Action]:
    district = state["turn"].get("patrol")
    if not district:
        return [
            {"type": "PATROL_CHOOSE_DISTRICT", "districtId": d} for d in eligible_districts(state, seat)
        ] + [{"type": "PATROL_SKIP"}]
    board = board_of(state["content"])
    searchers = sorted(
        (c for c in state["players"][seat]["hand"] if board.cards[c]["searchIcons"] >= 1),
        key=lambda c: (-board.cards[c]["searchIcons"], c),
    )
    out = []
    for tile_id in state["districts"][district]["tiles"]:
        for challenge in CHALLENGES:
            entry = _smallest_party(state, seat, tile_id, challenge, searchers)
            if entry:
                out.append(entry)
    return out + [{"type": "PATROL_DECLINE"}]


def _smallest_party(
    state: State, seat: int, tile_id: str, challenge: str, searchers: list[str]
) -> Action | None:
    gps_held = state["players"][seat]["gps"]
    for gps in range(gps_held + 1):
        for size in range(1, len(searchers) + 1):
            party = searchers[:size]
            if _take_blocker(state, seat, tile_id, challenge, party, gps) is None:
                return {
                    "type": "PATROL_TAKE",
                    "tileId": tile_id,
                    "challenge": challenge,
                    "partyCardIds": party,
                    "gps": gps,
                    "choices": {
                        "party": sorted(searchers),
                        "gps": list(range(gps_held + 1)),
                        "needs": _needs(state, tile_id, challenge),
                    },
                }
    return None


def _needs(state: State, tile_id: str, challenge: str) -> int:
    """The icons the search total must reach (the party's alone, for exploration with PARTY_ONLY)."""
    return 4 if challenge == "EXPLORATION" else tile(state, tile_id)[challenge.lower()]["requiredIcons"]
