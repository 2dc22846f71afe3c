"""Chock-a-Block hidden information (spec 8.4): one gate, ``view`` for states and ``event_view`` for
log entries, and legal actions computed for the asking seat only.

A card is hidden from a viewer while it lies in the deck or in another seat's hand without ever
having been face up (dealt, or drawn from the deck); a tile while it lies in the pile. A hidden id
must never appear in the serialised JSON of anything the viewer is shown: views, filtered events,
legal actions, the SVG picture. Cards that were face up in a market (and then drawn) are public.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.games.chock_a_block import GAME
from service.games.protocol import IllegalAction, fold
from tests.conftest import examples
from tests.games.test_chock_a_block_support import at_step, new_game, play, random_game

CONFIGS = [
    (2, {}),
    (5, {}),
    (1, {"excluded_feature": "FLOWER"}),
    (3, {"mode": "AUTOBLOCK_EXTRA", "grand_autoblock": True}),
    (4, {"mode": "COOP"}),
    (3, {"building_rules": "BUILDING_BLOCK", "neighbour_tile_source": "MARKET_OR_PILE_TOP"}),
]


def quoted(ids) -> list[str]:
    return [json.dumps(i) for i in ids]


def leaks(text: str, hidden) -> list[str]:
    return [i for i in quoted(hidden) if i in text]


class Knowledge:
    """What is public so far: every card or tile that has been face up."""

    def __init__(self, state):
        self.cards = {c for c in state["block_market"] if c}
        self.tiles = {t for t in state["neighbour_market"] if t}

    def learn(self, event):
        data = event["data"]
        if event["type"] == "market_refilled" and data["item"]:
            (self.cards if data["market"] == "block" else self.tiles).add(data["item"])
        if event["type"] == "card_placed":
            self.cards.add(data["card"])
        if event["type"] == "neighbour_tile_placed":
            self.tiles.add(data["tile"])

    def hidden_from(self, state, viewer):
        cards = set(state["deck"])
        for seat, player in enumerate(state["seats"]):
            if seat != viewer:
                cards |= set(player["hand"])
        return (cards - self.cards) | set(state["tile_pile"]) - self.tiles


def check_all_views(state, log_views, knowledge, players):
    for viewer in list(range(players)) + [None]:
        hidden = knowledge.hidden_from(state, viewer)
        view = GAME.view(state, viewer)
        assert not leaks(json.dumps(view), hidden), viewer
        if viewer is not None:
            assert not leaks(json.dumps(GAME.legal_actions(state, viewer)), hidden)
        else:
            assert all(p["hand"] is None for p in view["players"])
        for event in log_views:
            assert not leaks(json.dumps(GAME.event_view(event, viewer)), hidden), (viewer, event)


@pytest.mark.parametrize("players, options", CONFIGS)
@settings(
    max_examples=examples(2),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_no_view_event_or_legal_list_shows_another_seats_hidden_cards(players, options, data):
    """8.4: every view, every event of the log as each viewer sees it and every legal list, at every
    step of random games of every mode: no hidden card or tile id in the serialised JSON."""
    seed = data.draw(st.integers(min_value=0, max_value=10**6))
    state = new_game(players, seed=str(seed), **options)
    knowledge = Knowledge(state)
    assert leaks(json.dumps(state), knowledge.hidden_from(state, 0)), (
        "the detector finds ids in the raw state"
    )
    log = []
    check_all_views(state, log, knowledge, players)
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        events = GAME.play(state, seat, data.draw(st.sampled_from(GAME.legal_actions(state, seat))))
        state = fold(GAME, state, events)
        log += events
        for event in events:
            knowledge.learn(event)
        # check the newest events against what is hidden now, all views every few steps (cost)
        for viewer in list(range(players)) + [None]:
            hidden = knowledge.hidden_from(state, viewer)
            for event in events:
                assert not leaks(json.dumps(GAME.event_view(event, viewer)), hidden), (viewer, event)
        if len(log) % 5 == 0:
            check_all_views(state, [], knowledge, players)
    check_all_views(state, log, knowledge, players)


def test_a_seat_sees_its_own_hand_and_only_the_sizes_of_others():
    """8.4: hands: identities for the owner, counts for the others; spectators see no hand."""
    state = new_game(3, seed="h1")
    for viewer in range(3):
        view = GAME.view(state, viewer)
        for p in view["players"]:
            assert p["hand_size"] == 2
            assert p["hand"] == (state["seats"][viewer]["hand"] if p["seat"] == viewer else None)
        assert set(view["card_faces"]) == set(state["seats"][viewer]["hand"]) | set(state["block_market"])
    assert all(p["hand"] is None for p in GAME.view(state, None)["players"])


def test_deck_and_pile_orders_are_never_shown():
    """8.4: the deck and the tile pile appear as counts only."""
    state = new_game(2, seed="h2")
    view = GAME.view(state, 0)
    assert view["deck_size"] == len(state["deck"]) and view["tile_pile_size"] == len(state["tile_pile"])
    assert "deck" not in view and "tile_pile" not in view
    text = json.dumps(view)
    assert not leaks(text, state["deck"]) and not leaks(text, state["tile_pile"])


def test_a_deck_draw_shows_its_card_to_the_drawer_only_and_a_market_draw_to_all():
    """8.4: "a card drawn from the deck top: identity for the owner, 'drew from the deck' for the
    others"; a market card was face up, so everyone sees it."""
    state = at_step(new_game(2, seed="h3"), 0, "tokens", cards=[{"card": "X"}])
    [deck_draw, _] = GAME.play(state, 0, {"type": "draw_card", "source": "DECK"})[:2]
    assert GAME.event_view(deck_draw, 0) == deck_draw
    assert GAME.event_view(deck_draw, 1) == {
        "type": "card_drawn",
        "seat": 0,
        "data": {"source": "DECK", "private": True},
    }
    assert GAME.event_view(deck_draw, None)["data"] == {"source": "DECK", "private": True}
    market_draw = GAME.play(state, 0, {"type": "draw_card", "source": "MARKET", "slot": 0})[0]
    assert GAME.event_view(market_draw, 1) == market_draw


def test_open_hands_show_every_hand_and_every_draw():
    """8.4 open_hands: nothing about hands is hidden; the deck still is."""
    state = at_step(new_game(2, seed="h4", open_hands=True), 0, "tokens", cards=[{"card": "X"}])
    assert GAME.view(state, 1)["players"][0]["hand"] == state["seats"][0]["hand"]
    deck_draw = GAME.play(state, 0, {"type": "draw_card", "source": "DECK"})[0]
    assert GAME.event_view(deck_draw, 1)["data"]["card"] == state["deck"][0]
    assert not leaks(json.dumps(GAME.view(state, 1)), state["deck"])


def test_the_picture_is_drawn_from_the_view_and_shows_no_hidden_card():
    """The SVG of a view never holds another seat's hand or the deck."""
    final, _, _ = random_game(3, "h5")
    state = new_game(3, seed="h5")
    for viewer in (0, 1, None):
        svg = GAME.svg(GAME.view(state, viewer))
        others = [c for s, p in enumerate(state["seats"]) if s != viewer for c in p["hand"]]
        assert not [
            c for c in others + state["deck"] if f">{c}<" in svg or f" {c}<" in svg or f">{c} " in svg
        ]
    assert "Chock-a-Block" in GAME.svg(GAME.view(final, None))


def test_play_of_another_seat_reveals_nothing_in_its_refusal():
    """R-0.4: a refusal for a seat that is not to act names no card."""
    state = new_game(2, seed="h6", start_seat=0)
    with pytest.raises(IllegalAction) as refusal:
        play(
            state,
            1,
            {"type": "place_card", "card": state["seats"][0]["hand"][0], "face": "FRONT", "column": 0},
        )
    assert refusal.value.reason == "not_your_turn"
    assert state["seats"][0]["hand"][0] not in str(refusal.value)
