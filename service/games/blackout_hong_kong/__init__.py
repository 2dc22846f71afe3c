"""Blackout: Hong Kong (spec: ``service/games/blackout_hong_kong/rules.md``): rounds of eight phases for 1-4 players,
single game, campaign chapter 1 and solo. Cards, tiles, the map and the dice come from a content pack
(``packs/``, made by ``packgen``: generated, not the publisher's data)."""

from service.games.blackout_hong_kong.contract import CONTRACT
from service.games.blackout_hong_kong.engine import BlackoutHongKong
from service.games.blackout_hong_kong.naming import ACTION_NAMES

GAME = BlackoutHongKong()
# what it shows, as JSON Schemas (``contract.json``): openapi.yaml is built from them
GAME.contract = CONTRACT
GAME.action_names = ACTION_NAMES  # the API's snake_case names; the spec's are deprecated aliases
