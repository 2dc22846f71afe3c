"""Blokus test helpers, shared by the rule and variant tests: a new game, a move, a placement."""

from __future__ import annotations

from service.games.blokus import GAME
from tests import engines


def new_game(players: int = 4, **options):
    return engines.new_state(GAME, players, "test", **options)


def play(state, seat, action):
    return engines.play(GAME, state, seat, action)


def place(state, seat, cells, piece=None, colour=None):
    action = {"type": "place", "cells": [list(c) for c in cells]}
    if piece:
        action["piece"] = piece
    if colour:
        action["colour"] = colour
    return play(state, seat, action)
