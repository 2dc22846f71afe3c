"""Content packs on disk: finding a game's packs by name and loading them through the game.

The checking itself belongs to each game (``Packs.load``, pure); this module only reads files.
Packs shipped with a game live in its ``Packs.folder``; a server can install more in
``$MATCHLOG_PACKS/<game id>/``. A pack's name is its file name without ``.json``.
"""

from __future__ import annotations

import hashlib
import json
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.domain.chain import canonical_json
from service.domain.immutable import Pack, frozen
from service.games.protocol import Game, InvalidOptions, InvalidPack, Packs

CHECKED_KEPT = 64
"""How many checked packs (or their refusals) a process keeps: checking one costs up to 0.4 s of CPU
(the largest game's schema), so a create reuses the check of the same file's bytes under the same options."""

_checked: OrderedDict[tuple, Any] = OrderedDict()
_lock = threading.Lock()
_shared: weakref.WeakValueDictionary[str, Pack] = weakref.WeakValueDictionary()
"""The packs in use in this process, by digest: every state of every match on a pack holds the one object."""


def shared(content: Any) -> Any:
    """The process's one frozen copy of the pack ``content`` (equal to it, and encoding as the same JSON), made
    on first use: a state holds a reference to it, not a copy (the largest shipped pack is some 400 KiB of objects).
    Anything but a JSON object (None: a game without packs) is returned as it is."""
    if not isinstance(content, dict):
        return content
    if isinstance(content, Pack):
        return content
    digest = hashlib.sha256(canonical_json(content)).hexdigest()
    with _lock:
        found = _shared.get(digest)
        if found is None:
            # in the canonical order, whichever copy came first (a file's, or Redis's): every process and
            # every state then reads and encodes the pack's parts in one order
            found = Pack(frozen(json.loads(canonical_json(content))))
            found.sha256 = digest
            _shared[digest] = found
    return found


def known(digest: str, load: Callable[[], Any]) -> Any:
    """The shared pack whose digest is ``digest``, or ``shared(load())`` if none is in use (``load`` reads it:
    from Redis, say). The pack loaded is shared under its own digest, whatever ``digest`` claims."""
    with _lock:
        found = _shared.get(digest)
    return found if found is not None else shared(load())


def folders(game: Game, packs_dir: Path | None) -> list[Path]:
    if game.packs is None:
        return []
    return [_packs(game).folder] + ([Path(packs_dir) / game.info.id] if packs_dir else [])


def installed(game: Game, packs_dir: Path | None) -> list[str]:
    return sorted(
        {p.stem for folder in folders(game, packs_dir) if folder.is_dir() for p in folder.glob("*.json")}
    )


def _packs(game: Game) -> Packs:
    assert game.packs is not None, f"{game.info.name} has no content packs"
    return game.packs


def load(game: Game, name: str, packs_dir: Path | None, options: dict[str, Any]) -> Any:
    """The named pack, checked by the game under the match's resolved ``options``; InvalidOptions
    (naming the game's pack option) if it is missing or does not pass its checks."""
    field = f"options.{_packs(game).option}"
    for folder in reversed(folders(game, packs_dir)):  # an installed pack overrides a shipped one
        path = folder / f"{name}.json"
        if name and "/" not in name and path.is_file():
            return _checked_once(game, name, path.read_bytes(), options)
    raise InvalidOptions(
        field, f"no pack {name!r} for {game.info.name}; installed: {installed(game, packs_dir)}"
    )


def _checked_once(game: Game, name: str, raw: bytes, options: dict[str, Any]) -> Any:
    """The pack checked, or its refusal, remembered by the digest of the file's bytes (an edited file is
    checked again) and the options its checks read, shared (``shared``): nothing can change it."""
    checked_by = _packs(game).checked_by
    read = options if checked_by is None else {k: options.get(k) for k in checked_by}
    key = (game.info.id, name, hashlib.sha256(raw).hexdigest(), json.dumps(read, sort_keys=True, default=str))
    with _lock:
        found = _checked.get(key)
        if found is not None:
            _checked.move_to_end(key)
    if found is None:
        try:
            found = shared(_check(game, name, raw, options))
        except InvalidOptions as refusal:
            found = refusal
        with _lock:
            _checked[key] = found
            while len(_checked) > CHECKED_KEPT:
                _checked.popitem(last=False)
    if isinstance(found, InvalidOptions):
        raise InvalidOptions(found.field, found.message)
    return found


def _check(game: Game, name: str, raw: bytes, options: dict[str, Any]) -> Any:
    field = f"options.{_packs(game).option}"
    try:
        data = json.loads(raw.decode("utf-8"))
        if isinstance(data, dict) and data.get("packId", name) != name:
            raise InvalidPack(
                "packId", f"is {data['packId']!r} but the file is {name}.json: a pack is named by its file"
            )
        return _packs(game).load(data, options)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InvalidOptions(field, f"pack {name!r} is not valid JSON: {error}") from error
    except InvalidPack as error:
        raise InvalidOptions(field, f"pack {name!r} is invalid: {error}") from error


def content_for(game: Game, options: dict[str, Any], packs_dir: Path | None = None) -> Any:
    """The content a match with these resolved options is set up with: the pack its options name
    (the game's default when they name none), or None for a game without packs."""
    if game.packs is None:
        return None
    return load(game, options.get(_packs(game).option) or _packs(game).default, packs_dir, options)
