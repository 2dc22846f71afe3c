"""Chock-a-Block (spec: ``docs/rules/chock-a-block.md``): apartment building for 1-5 players, with
the Autoblock automa. Cards, tiles and tokens come from a content pack (``packs/``)."""

from service.games.chock_a_block.engine import ChockABlock

GAME = ChockABlock()
