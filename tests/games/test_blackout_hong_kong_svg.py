"""Blackout: Hong Kong's picture (``Accept: image/svg+xml``): well-formed, accessible, every location of
the map drawn, the final totals shown, and nothing the view hides; and the check actions it names, by label."""

from __future__ import annotations

import copy
import random
import xml.etree.ElementTree as ET

from service.games.blackout_hong_kong import GAME
from service.games.texts import speaking
from tests.games.blackout_support import new_game, random_game

SVG = "{http://www.w3.org/2000/svg}"


def mid_game(players: int = 4, plies: int = 300) -> dict:
    state = new_game(players, "svg")
    rng = random.Random(3)
    for _ in range(plies):
        seat = rng.choice(GAME.to_act(state))
        state = GAME.play(state, seat, rng.choice(GAME.legal_actions(state, seat))).states[-1]
    return state


def test_the_picture_is_well_formed_accessible_and_draws_every_location():
    state = mid_game()
    root = ET.fromstring(GAME.svg(GAME.view(state, None)))
    assert root.tag == f"{SVG}svg" and root.get("role") == "img" and root.get("viewBox")
    assert root.find(f"{SVG}title").text and root.find(f"{SVG}desc").text
    drawn = {e.get("data-location") for e in root.iter(f"{SVG}circle")}
    assert {loc["id"] for loc in state["content"]["map"]["locations"]} <= drawn
    assert len({e.get("data-district") for e in root.iter(f"{SVG}polygon")}) == 16


def test_the_picture_shows_a_hand_to_its_owner_only():
    state = mid_game()
    hand = [c for p in state["players"] for c in p["hand"] if p["seat"] == 0]
    assert hand
    own, spectator = GAME.svg(GAME.view(state, 0)), GAME.svg(GAME.view(state, None))
    assert all(card in own for card in hand)
    assert not any(
        f">{card}<" in spectator or f"{card}," in spectator or f" {card}" in spectator for card in hand
    )


def test_the_final_picture_shows_the_totals_and_winners():
    state = random_game(2, "svg-final")
    svg = GAME.svg(GAME.view(state, None))
    ET.fromstring(svg)
    assert "Final:" in svg and all(f"{r['total']} VP" in svg for r in state["result"]["players"])


def test_a_check_action_of_the_personal_board_is_said_by_its_label_in_the_language():
    """Issue 46: the pack's label of a check-mark action, not "card petrol-reward"; another pack's label as
    it is written, a card's check action by the card."""
    state = new_game(2, "check-labels")
    event = {"type": "check_action_activated", "seat": 0, "data": {"source": "petrol-reward"}}
    assert GAME.describe(event, state) == "seat 0 activated the check action of Petrol reward"
    assert GAME.describe(event) == "seat 0 activated the check action of Petrol reward"
    with speaking("ko"):
        assert "휘발유 보상" in GAME.describe(event, state)
    with speaking("ja"):
        assert "ガソリンの報酬" in GAME.describe(event)
    relabelled = copy.deepcopy(state)
    relabelled["content"]["personalBoard"]["checkActions"][0]["label"] = "Fuel bonus"
    with speaking("ko"):
        assert "Fuel bonus" in GAME.describe(event, relabelled)
    card = {"type": "check_action_activated", "seat": 0, "data": {"source": "OC12"}}
    assert GAME.describe(card) == "seat 0 activated the check action of card OC12"
