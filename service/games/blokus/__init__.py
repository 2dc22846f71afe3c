"""Blokus (spec: ``../shared/rules/blokus.md``)."""

from service.games.blokus.engine import Blokus

GAME = Blokus()
