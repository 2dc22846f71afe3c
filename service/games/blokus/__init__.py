"""Blokus (spec: ``docs/rules/blokus.md``)."""

from service.games.blokus.bot import BOT as STRONG_BOT
from service.games.blokus.engine import Blokus

GAME = Blokus()
GAME.bots = {"blokus-strong": STRONG_BOT}  # a search bot (``bot.py``) beside random and greedy
