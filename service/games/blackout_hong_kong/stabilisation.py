"""Phase 7, district stabilisation (§3.7): a district whose whole boundary holds one seat's cubes is
stabilised (R-7.1); its tiles go back to the box, each seat with cubes on it scores (R-7.2), and each
stabiliser puts a house from a check-mark space on it, or a cube when it has no house left (R-7.3).
House choices are collected like the discards of Phase 6 (``cleanup.finish_collection``)."""

from __future__ import annotations

from service.games.blackout_hong_kong.board import board_of, table_value
from service.games.blackout_hong_kong.common import refuse, scoring_table
from service.games.kit import Turn
from service.games.protocol import Action, State
from service.games.texts import catalogue

_ = catalogue(__file__).gettext


def stabilise(turn: Turn) -> None:
    due: dict[str, list[str]] = {}
    for district_id in list(turn.state["districts"]):
        stabilisers = _stabilise_district(turn, district_id)
        for seat in stabilisers:
            houses = sum(1 for space in turn.state["players"][seat]["spaces"] if space["covered"])
            if houses > len(due.get(str(seat), [])):
                due.setdefault(str(seat), []).append(district_id)
            elif turn.state["players"][seat]["supply"] > 0:  # R-7.3(b): a cube instead of a house
                turn.emit("substitute_cube_placed", seat, district=district_id)
    if due:
        waiting = [seat for seat in turn.state["order"] if str(seat) in due]
        turn.emit("collection_started", None, purpose="house", waiting=waiting, due=due)


def _stabilise_district(turn: Turn, district_id: str) -> list[int]:
    """R-7.1, R-7.2: the district stabilised if a seat holds its whole boundary; its stabilisers."""
    district = turn.state["districts"][district_id]
    if district["stabilised"]:
        return []
    boundary = set(board_of(turn.state["content"]).districts[district_id]["boundary"])
    held = {player["seat"]: len(boundary & set(player["cubes"])) for player in turn.state["players"]}
    stabilisers = [seat for seat in turn.state["order"] if held[seat] == len(boundary)]
    if not stabilisers:
        return []
    table = scoring_table(turn.state)
    scores = {str(seat): table_value(table, k) for seat, k in sorted(held.items()) if k}
    turn.emit(
        "district_stabilised",
        None,
        district=district_id,
        stabilisers=stabilisers,
        tiles=list(district["tiles"]),
        held={str(k): v for k, v in sorted(held.items())},
        scores=scores,
    )
    return stabilisers


def choose_house(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    collect = state["collect"]
    if (
        not collect
        or collect["kind"] != "house"
        or action["districtId"] not in collect["due"].get(str(seat), [])
    ):
        raise refuse("no_house_due", _("R-7.3(b): no house of yours is due on that district"))
    chosen = collect["submitted"].get(str(seat), {}).values()
    covered = [space["action"] for space in state["players"][seat]["spaces"] if space["covered"]]
    if action["checkSpaceId"] not in covered or action["checkSpaceId"] in chosen:
        raise refuse("space_uncovered", _("R-7.3(b): that check-mark space holds no house any more"))
    turn.emit(
        "house_chosen",
        seat,
        district=action["districtId"],
        space=action["checkSpaceId"],
        hidden=state["options"]["P6_P7_SIMULTANEOUS"],
    )


def house_entries(state: State, seat: int) -> list[Action]:
    collect = state["collect"]
    chosen = set(collect["submitted"].get(str(seat), {}).values())
    spaces = [
        space["action"]
        for space in state["players"][seat]["spaces"]
        if space["covered"] and space["action"] not in chosen
    ]
    return [
        {"type": "CHOOSE_HOUSE", "districtId": d, "checkSpaceId": space}
        for d in collect["due"][str(seat)]
        for space in spaces
    ]
