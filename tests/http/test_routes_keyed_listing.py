"""The legal-actions answer put together from each action's JSON, kept per key (``protocol.legal_action_keys``,
``routes._keyed_listing``), is the answer encoded whole: the same bytes at every step of random games of every
game (every Blokus variant among them, with a voluntary pass), for every seat, the one to act and
the others, with the encoded actions made, found again, and dropped when a family outgrows its room."""

from __future__ import annotations

import random
import uuid

import pytest

from service.domain import lifecycle, replay
from service.games import GAMES
from service.games.blokus.engine import VARIANTS
from service.games.protocol import ActionNames
from service.http import routes
from service.store import packs

AT = "2026-01-01T00:00:01.000Z"


def _matches():
    """(game id, options, players): every game for its most players, default options, and every Blokus
    variant with a voluntary pass (where there is one)."""
    for game_id, game in sorted(GAMES.items()):
        yield game_id, {}, max(game.info.counts())
    for name, variant in VARIANTS.items():
        yield "blokus", {"variant": name, "allow_voluntary_pass": not variant.free_order}, variant.players


def _states(game_id: str, options: dict, players: int, seed: int, limit: int = 200):
    """The match states of a random game, from its start to its end (or ``limit`` actions on)."""
    game = GAMES[game_id]
    resolved = lifecycle.check_options(game_id, options, players)
    secret = lifecycle.SeedSecret(f"keyed-{seed}", "salt")
    names = [f"p{i}" for i in range(players)]
    state = lifecycle.begin(game_id, resolved, names, secret, AT, packs.content_for(game, resolved)).state
    rng = random.Random(seed)
    yield state
    for _ in range(limit):
        if state.finished:
            return
        seat = game.to_act(state.game)[0]
        state = lifecycle.act(state, seat, rng.choice(game.legal_actions(state.game, seat)), secret, AT).state
        yield state


def _reference(app, state, seat: int, texts: bool = False) -> bytes:
    """The answer as the whole list encoded at once (the path of a game that does not key its actions)."""
    actions = state.legal_actions(seat)
    said = [replay.action_text(state.engine, state.game, seat, a) for a in actions]
    names = state.engine.action_names
    if names is not None:
        actions = [names.for_clients(action) for action in actions]
    body = {"game": state.game_id, "version": state.version, "seat": seat, "actions": actions}
    if texts:
        body["texts"] = said
    return app.json.response(body).get_data()


@pytest.mark.parametrize(("game_id", "options", "players"), list(_matches()))
def test_the_keyed_answer_is_the_answer_encoded_whole(app, monkeypatch, game_id, options, players):
    monkeypatch.setattr(routes, "KEYED_PARTS", 300)  # small enough that a long game starts a family again
    monkeypatch.setattr(routes, "_parts", {})
    keyed = 0
    with app.test_request_context():
        for n, state in enumerate(_states(game_id, options, players, seed=len(options) + players)):
            for seat in range(players):
                reference = _reference(app, state, seat)
                for _ in range(2):  # encoding the actions, then finding them kept
                    made = routes._keyed_listing(app.json, state, seat)
                    if made is not None:
                        keyed += 1
                        assert made == (reference, len(state.legal_actions(seat))), (n, seat)
                    assert routes.legal_actions_body(app, uuid.uuid4().hex, state, seat) == reference, (
                        n,
                        seat,
                    )
                if n % 10 == 0:  # with each action's text
                    said = _reference(app, state, seat, texts=True)
                    for _ in range(2):
                        assert routes.legal_actions_body(app, uuid.uuid4().hex, state, seat, True) == said
    assert (keyed > 0) == (game_id == "blokus")  # the games that key their actions took the keyed path


def test_indented_answers_are_left_to_the_reference_path(app):
    app.json.compact = False
    with app.test_request_context():
        state = next(_states("blokus", {}, 4, seed=1))
        assert routes._keyed_listing(app.json, state, 0) is None
        assert routes.legal_actions_body(app, "m", state, 0) == _reference(app, state, 0)


def test_keyed_actions_are_listed_in_the_apis_names(app, monkeypatch):
    """A game that keys its actions and names them otherwise on the API (``action_names``) lists them in the
    API's names, as the reference path does: Blokus, given names for the test."""
    names = ActionNames(types={"place": "put"}, fields={"cells": "squares", "colour": "color"})
    monkeypatch.setattr(GAMES["blokus"], "action_names", names)
    monkeypatch.setattr(routes, "_parts", {})
    with app.test_request_context():
        for state in _states("blokus", {"allow_voluntary_pass": True}, 4, seed=3, limit=12):
            seat = state.engine.to_act(state.game)[0]
            reference = _reference(app, state, seat)
            assert b'"put"' in reference and b'"squares"' in reference
            assert routes._keyed_listing(app.json, state, seat) == (reference, len(state.legal_actions(seat)))
