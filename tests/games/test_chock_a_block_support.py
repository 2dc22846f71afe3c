"""Fixtures shared by the Chock-a-Block tests (this module holds no tests of its own).

* ``fixture_pack``: a TEST_FIXTURE pack (``pack_strict_counts`` false) holding the spec's cards C1
  and C2 of Appendix A.3, filler cards and tiles.
* ``new_game``: resolve the options and set a game up, with the default pack unless told otherwise.
* ``rig``: put named cards into hands, the market or the deck top, keeping every card in one place.
* ``inject``: set a building's rooms directly, the spec's "(inject)" test hook.
* ``at_step``: make a seat active in a given step.
* ``play``/``rejected``/``random_game``: drive the engine.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from service.games.chock_a_block import GAME
from service.games.chock_a_block.content import FEATURES, load_pack
from service.games.protocol import IllegalAction, fold
from tests import engines


def room(colour: str, vacant: bool = False, features=()) -> dict[str, Any]:
    return {"colour": colour, "vacant": vacant, "features": list(features)}


# Appendix A.3: the rulebook's neighbour example, made concrete by the spec.
C1 = {
    "TL": room("GREEN", False, ["CAT"]),
    "TR": room("PINK", True),
    "BL": room("PINK", True),
    "BR": room("PINK", False, ["FLOWER"]),
}
C2 = {
    "TL": room("PINK", False, ["BIRD"]),
    "TR": room("PINK", False, ["UNDERWEAR"]),
    "BL": room("YELLOW", False, ["CAT"]),
    "BR": room("BLUE", False, ["BIRD"]),
}


def filler(i: int) -> dict[str, Any]:
    """Filler cards: white, occupied, one feature per room, so they never call for a neighbour."""
    f = FEATURES
    return {
        "TL": room("WHITE", False, [f[i % 4]]),
        "TR": room("WHITE", False, [f[(i + 1) % 4]]),
        "BL": room("WHITE", False, [f[(i + 2) % 4]]),
        "BR": room("WHITE", False, [f[(i + 3) % 4]]),
    }


def fixture_document(
    cards: dict[str, dict] | None = None, fillers: int = 40, tiles: int = 20
) -> dict[str, Any]:
    """A fresh document (tests may change it freely)."""
    cards = copy.deepcopy({"C1": C1, "C2": C2} if cards is None else cards)
    return {
        "packId": "cab-test-fixture",
        "version": "test",
        "provenance": "TEST_FIXTURE",
        "colours": [{"id": c} for c in ("PINK", "GREEN", "YELLOW", "BLUE", "WHITE")],
        "features": list(FEATURES),
        "cards": [{"id": cid, "front": face} for cid, face in cards.items()]
        + [{"id": f"F{i + 1}", "front": filler(i)} for i in range(fillers)],
        "neighbourTiles": [{"id": f"N{i + 1}", "features": [FEATURES[i % 4]]} for i in range(tiles)],
        "scoreTokens": [{"id": f"{f}-{v}", "feature": f, "value": v} for f in FEATURES for v in (6, 8, 10)],
    }


def fixture_pack(**kwargs) -> dict[str, Any]:
    return load_pack(fixture_document(**kwargs), {"pack_strict_counts": False})


def new_game(players: int = 2, content=None, seed: str = "test", **options) -> dict[str, Any]:
    if content is not None and content["provenance"] == "TEST_FIXTURE":
        options.setdefault("pack_strict_counts", False)
    resolved = GAME.resolve_options(options, players)
    return GAME.setup(resolved, players, seed, content)


def play(state, seat, action):
    return engines.play(GAME, state, seat, action)


def events(state, seat, action):
    return GAME.play(state, seat, action)


def rejected(state, seat, action) -> str:
    with pytest.raises(IllegalAction) as refusal:
        GAME.play(state, seat, action)
    return refusal.value.reason


def rig(state, hands: dict[int, list[str]] | None = None, market: list | None = None, deck_top=()) -> dict:
    """A copy of ``state`` with the named cards moved: hands of the given seats, the block market
    (a full slot list), the top of the deck. The cards they displace keep the same counts elsewhere."""
    hands = hands or {}
    named = {c for h in hands.values() for c in h} | {c for c in (market or []) if c} | set(deck_top)
    seats = state["seats"]
    keep = {i: [c for c in p["hand"] if c not in named] for i, p in enumerate(seats) if i not in hands}
    keep_market = (
        None if market is not None else [c if c not in named else None for c in state["block_market"]]
    )
    kept = {c for h in keep.values() for c in h} | {c for c in (keep_market or []) if c}
    everything = (
        state["deck"] + [c for c in state["block_market"] if c] + [c for p in seats for c in p["hand"]]
    )
    pool = [c for c in everything if c not in named and c not in kept]
    new = dict(state)
    new_seats = []
    for i, p in enumerate(seats):
        if i in hands:
            new_seats.append({**p, "hand": list(hands[i])})
            continue
        dealt = [pool.pop(0) for _ in range(len(p["hand"]) - len(keep[i]))]
        hand = keep[i] + dealt
        new_seats.append({**p, "hand": hand})
    new["seats"] = new_seats
    if market is not None:
        new["block_market"] = list(market)
    else:
        new["block_market"] = [
            c if c is not None or old is None else pool.pop(0)
            for c, old in zip(keep_market, state["block_market"])
        ]
    new["deck"] = list(deck_top) + pool
    return new


def inject(state, seat: int, rooms: dict[tuple[int, int], tuple], keep: bool = False) -> dict:
    """A copy of ``state`` where ``seat``'s building holds ``rooms``: ``{(x, y): (colour, vacant,
    features[, closed])}``. With ``keep`` the rooms are added to the existing ones."""
    new_rooms = dict(state["seats"][seat]["rooms"]) if keep else {}
    for (x, y), spec in rooms.items():
        colour, vacant, features = spec[:3]
        closed = list(spec[3]) if len(spec) > 3 else []
        new_rooms[f"{x},{y}"] = {
            "card": "X",
            "corner": "BL",
            "colour": colour,
            "vacant": vacant,
            "features": list(features),
            "tile": None,
            "closed": closed,
        }
    seats = list(state["seats"])
    seats[seat] = {**seats[seat], "rooms": new_rooms}
    return {**state, "seats": seats}


def at_step(state, seat: int, step: str, **player) -> dict:
    seats = list(state["seats"])
    seats[seat] = {**seats[seat], **player}
    return {**state, "seats": seats, "active": seat, "step": step}


def icons_of(feature: str, coords) -> dict:
    return {c: ("WHITE", False, [feature]) for c in coords}


def random_game(players: int, seed: str, rng: random.Random | None = None, content=None, **options):
    """A random complete game: (final state, [(seat, action, events)...], initial state)."""
    rng = rng or random.Random(seed)
    start = new_game(players, content, seed, **options)
    moves = []
    state = engines.random_playout(
        GAME, start, rng, lambda _, seat, action, evs: moves.append((seat, action, evs))
    )
    return state, moves, start


# -- scenarios ---------------------------------------------------------------------------------------


def placed(state, seat, card, face="FRONT", **where):
    """``state`` after ``seat`` placed ``card`` (the event folded directly: a quick way to build)."""
    placement = len(state["seats"][seat]["cards"]) + 1
    return GAME.apply(
        state,
        {
            "type": "card_placed",
            "seat": seat,
            "data": {"card": card, "face": face, "placement": placement, **where},
        },
    )


def grid_building(state, seat, columns):
    """Cards (from the deck) stacked in the given columns, in order."""
    heights: dict[int, int] = {}
    for column in columns:
        card = state["deck"][0]
        state = {**state, "deck": state["deck"][1:]}
        state = placed(state, seat, card, column=column, row=heights.get(column, 0))
        heights[column] = heights.get(column, 0) + 1
    return state


def place(card, column=None, face="FRONT", **extra):
    action = {"type": "place_card", "card": card, "face": face, **extra}
    if column is not None:
        action["column"] = column
    return action


def rooms_of(state, seat):
    return state["seats"][seat]["rooms"]


A, B = {"x": 0, "y": 0}, {"x": 1, "y": 1}


def after_c1(**options):
    """Seat 0 placed C1 (FRONT, column 0) on turn 1; the step after the placement is returned too."""
    state = rig(new_game(2, fixture_pack(), start_seat=0, **options), hands={0: ["C1", "C2"]})
    evs = GAME.play(state, 0, place("C1", 0))
    return fold(GAME, state, evs), evs


def after_c2(**options):
    """T-12b: seat 0 then places C2 (FRONT) at column 1 on turn 2."""
    state, _ = after_c1(**options)
    state = play(state, 0, {"type": "draw_card", "source": "MARKET", "slot": 0})
    filler = state["seats"][1]["hand"][0]
    state = play(state, 1, place(filler, 0))
    state = play(state, 1, {"type": "draw_card", "source": "MARKET", "slot": 0})
    evs = GAME.play(state, 0, place("C2", 1))
    return fold(GAME, state, evs), evs


def tile_action(state, slot=0, **where):
    return {"type": "place_neighbour", "tile": state["neighbour_market"][slot], **where}
