"""The games matchlog hosts. Each is one package exposing ``GAME``, an object that keeps the
protocol written down in ``service.games.protocol``; adding a game means adding it here."""

from service.games.block_block import GAME as BLOCK_BLOCK
from service.games.blokus import GAME as BLOKUS
from service.games.chock_a_block import GAME as CHOCK_A_BLOCK
from service.games.protocol import Game

GAMES: dict[str, Game] = {game.info.id: game for game in (BLOKUS, BLOCK_BLOCK, CHOCK_A_BLOCK)}
