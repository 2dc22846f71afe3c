"""Content packs on disk: finding a game's packs by name and loading them through the game.

The checking itself belongs to each game (``load_pack``, pure); this module only reads files.
Packs shipped with a game live in ``service/games/<package>/packs/``; a server can install more in
``$MATCHLOG_PACKS/<game id>/``. A pack's name is its file name without ``.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from service.games.protocol import Game, InvalidOptions, InvalidPack


def uses_packs(game: Game) -> bool:
    return hasattr(game, "load_pack")


def folders(game: Game, packs_dir: Path | None) -> list[Path]:
    shipped = Path(sys.modules[type(game).__module__].__file__).parent / "packs"
    return [shipped] + ([Path(packs_dir) / game.info.id] if packs_dir else [])


def installed(game: Game, packs_dir: Path | None) -> list[str]:
    if not uses_packs(game):
        return []
    return sorted({p.stem for folder in folders(game, packs_dir) if folder.is_dir() for p in folder.glob("*.json")})


def load(game: Game, name: str, packs_dir: Path | None, options: dict[str, Any]) -> Any:
    """The named pack, checked by the game under the match's resolved ``options``; InvalidOptions
    (field ``options.pack``) if it is missing or does not pass its checks."""
    for folder in reversed(folders(game, packs_dir)):  # an installed pack overrides a shipped one
        path = folder / f"{name}.json"
        if name and "/" not in name and path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                if isinstance(data, dict) and data.get("packId", name) != name:
                    raise InvalidPack("packId", f"is {data['packId']!r} but the file is {path.name}: "
                                                "a pack is named by its file")
                return game.load_pack(data, options)
            except json.JSONDecodeError as error:
                raise InvalidOptions("options.pack", f"pack {name!r} is not valid JSON: {error}") from error
            except InvalidPack as error:
                raise InvalidOptions("options.pack", f"pack {name!r} is invalid: {error}") from error
    raise InvalidOptions("options.pack", f"no pack {name!r} for {game.info.name}; "
                                         f"installed: {installed(game, packs_dir)}")
