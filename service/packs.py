"""Content packs on disk: finding a game's packs by name and loading them through the game.

The checking itself belongs to each game (``Packs.load``, pure); this module only reads files.
Packs shipped with a game live in its ``Packs.folder``; a server can install more in
``$MATCHLOG_PACKS/<game id>/``. A pack's name is its file name without ``.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from service.games.protocol import Game, InvalidOptions, InvalidPack


def folders(game: Game, packs_dir: Path | None) -> list[Path]:
    if game.packs is None:
        return []
    return [game.packs.folder] + ([Path(packs_dir) / game.info.id] if packs_dir else [])


def installed(game: Game, packs_dir: Path | None) -> list[str]:
    return sorted({p.stem for folder in folders(game, packs_dir) if folder.is_dir() for p in folder.glob("*.json")})


def load(game: Game, name: str, packs_dir: Path | None, options: dict[str, Any]) -> Any:
    """The named pack, checked by the game under the match's resolved ``options``; InvalidOptions
    (naming the game's pack option) if it is missing or does not pass its checks."""
    field = f"options.{game.packs.option}"
    for folder in reversed(folders(game, packs_dir)):  # an installed pack overrides a shipped one
        path = folder / f"{name}.json"
        if name and "/" not in name and path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                if isinstance(data, dict) and data.get("packId", name) != name:
                    raise InvalidPack("packId", f"is {data['packId']!r} but the file is {path.name}: "
                                                "a pack is named by its file")
                return game.packs.load(data, options)
            except json.JSONDecodeError as error:
                raise InvalidOptions(field, f"pack {name!r} is not valid JSON: {error}") from error
            except InvalidPack as error:
                raise InvalidOptions(field, f"pack {name!r} is invalid: {error}") from error
    raise InvalidOptions(field, f"no pack {name!r} for {game.info.name}; installed: {installed(game, packs_dir)}")


def content_for(game: Game, options: dict[str, Any], packs_dir: Path | None = None) -> Any:
    """The content a match with these resolved options is set up with: the pack its options name
    (the game's default when they name none), or None for a game without packs."""
    if game.packs is None:
        return None
    return load(game, options.get(game.packs.option) or game.packs.default, packs_dir, options)
