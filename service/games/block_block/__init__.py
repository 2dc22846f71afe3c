"""BLOCK.BLOCK (spec: ``service/games/block_block/rules.md``): 3D stacking for two players, with its
piece set as a content pack (``packs/bb-default-generated.json``, the spec's generated default)."""

from service.games.block_block.bot import ANALYST
from service.games.block_block.bot import BOT as STRONG_BOT
from service.games.block_block.contract import CONTRACT
from service.games.block_block.engine import BlockBlock

GAME = BlockBlock()
GAME.bots = {"block-block-strong": STRONG_BOT}  # an alpha-beta search bot (``bot.py``)
# what it shows, as JSON Schemas (``contract.json``): openapi.yaml is built from them
GAME.contract = CONTRACT
GAME.analyst = (
    ANALYST  # the strong bot's search judges a finished match's moves (``service.domain.analysis``)
)
