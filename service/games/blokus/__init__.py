"""Blokus (spec: ``service/games/blokus/rules.md``)."""

from service.games.blokus.bot import ANALYST
from service.games.blokus.bot import BOT as STRONG_BOT
from service.games.blokus.contract import CONTRACT
from service.games.blokus.engine import Blokus

GAME = Blokus()
GAME.bots = {"blokus-strong": STRONG_BOT}  # a search bot (``bot.py``) beside random and greedy
# what it shows, as JSON Schemas (``contract.json``): openapi.yaml is built from them
GAME.contract = CONTRACT
GAME.analyst = (
    ANALYST  # the strong bot's search judges a finished match's moves (``service.domain.analysis``)
)
