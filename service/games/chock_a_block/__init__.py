"""Chock-a-Block (spec: ``service/games/chock_a_block/rules.md``): apartment building for 1-5 players, with
the Autoblock automa. Cards, tiles and tokens come from a content pack (``packs/``)."""

from service.games.chock_a_block.contract import CONTRACT
from service.games.chock_a_block.engine import ChockABlock

GAME = ChockABlock()
# what it shows, as JSON Schemas (``contract.json``): openapi.yaml is built from them
GAME.contract = CONTRACT
