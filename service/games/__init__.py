"""The games matchlog hosts, found by scanning this package: every subpackage whose ``__init__``
exposes ``GAME`` (an engine keeping ``service.games.protocol``, usually built on
``service.games.kit``) is a game. Adding a game is adding its package; nothing else names it.

``register`` adds a game that lives elsewhere (a test's toy game, a plugin) before the app is built.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

from service.games.protocol import Game

GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    if game.info.id in GAMES and GAMES[game.info.id] is not game:
        raise ValueError(f"two games claim the id {game.info.id!r}")
    GAMES[game.info.id] = game
    return game


def unregister(game_id: str) -> None:
    GAMES.pop(game_id, None)


def package_folder(game: Game) -> Path:
    """The folder of the package a game comes from: where its ``game.md`` (the documentation site's page of
    the game) and ``rules.md`` (its rules spec) are, beside its engine and packs. The package is the one
    whose module defines the engine's class (``engine.py`` or ``__init__.py`` of a game's package)."""
    module = sys.modules[type(game).__module__]
    return Path(module.__file__ or "").resolve().parent


def _discover() -> None:
    found = []
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:
            package = importlib.import_module(f"{__name__}.{module.name}")
            if hasattr(package, "GAME"):  # a package without GAME is a helper, not a game
                found.append(package.GAME)
    for game in sorted(found, key=lambda g: g.info.id):
        register(game)


def action_component(game: Game) -> str:
    """The name of a game's action shape in the OpenAPI document, from its id: ``BlockBlockAction``."""
    return "".join(part.capitalize() for part in game.info.id.replace("_", "-").split("-")) + "Action"


def deprecated_action_component(game: Game) -> str:
    """The name of a game's actions in its engine's own names, where the API's differ (``action_names``):
    still accepted, deprecated (``BlackoutHongKongActionDeprecated``)."""
    return action_component(game) + "Deprecated"


def refusals_component(game: Game) -> str:
    """The name of a game's refusal reasons (an enum) in the OpenAPI document: ``BlokusRefusalReason``."""
    return action_component(game).removesuffix("Action") + "RefusalReason"


def legal_actions_component(game: Game) -> str:
    """The name of a game's legal-actions answer in the OpenAPI document: ``BlockBlockLegalActions``."""
    return action_component(game).removesuffix("Action") + "LegalActions"


_discover()
