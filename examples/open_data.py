"""Loads a server's open data (the finished public matches, ``GET /v1/exports/matches``) into matchlog's OpenSpiel
face: each match's log is replayed there, move by move, and must end where the server's match ended. Run it
from a checkout with the ai extra (``pip install -e '.[ai]'``). Usage:

    python examples/open_data.py http://127.0.0.1:8000 [--game blokus] [--limit 10] [--pages 1]

A log records what each move did, not the move: ``service.faces.logs.replayed`` finds each seat's action
through the engine, and ``MatchlogState.play`` spells it into the face's tokens, so ``state.history()`` is
the match as OpenSpiel actions, for a learner to train on.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# the checkout's own service package, whichever matchlog the interpreter has installed (if any)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.faces import logs, openspiel


def exported(base: str, game: str | None, limit: int, pages: int) -> Iterator[dict[str, Any]]:
    """The export's matches, page by page (``next_cursor``), at most ``pages`` pages."""
    cursor = None
    for _ in range(pages):
        query = {"limit": limit, **({"game": game} if game else {}), **({"cursor": cursor} if cursor else {})}
        with urllib.request.urlopen(f"{base}/v1/exports/matches?{urllib.parse.urlencode(query)}") as answer:
            page = json.loads(answer.read())
        yield from page["matches"]
        cursor = page["next_cursor"]
        if cursor is None:
            return


def replay(item: dict[str, Any]) -> tuple[Any, int]:
    """The OpenSpiel state at the end of an exported match's log, and the moves replayed."""
    match = logs.replayed(item["log"])
    state = openspiel.game_of(match.table).new_initial_state()
    state.deal(match.seed)  # the seed the log reveals: every draw as it was
    for seat, action in match.actions:
        state.play(seat, action)
    return state, len(match.actions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("server")
    parser.add_argument("--game", help="only this game's matches")
    parser.add_argument("--limit", type=int, default=10, help="matches a page (at most 20)")
    parser.add_argument("--pages", type=int, default=1)
    args = parser.parse_args()
    for item in exported(args.server.rstrip("/"), args.game, args.limit, args.pages):
        match = item["match"]
        state, moves = replay(item)
        name = state.get_game().get_type().short_name
        if not state.is_terminal():  # the server ended it (a concession) before the rules did
            print(f"{match['id']} {name}: {moves} moves replayed; it ended before the game was over")
            continue
        scores = state.scores()["scores"]
        server = (match.get("result") or {}).get("scores")
        if server is not None and server != scores:
            raise SystemExit(f"{match['id']}: the face scores {scores}, the server {server}")
        print(
            f"{match['id']} {name}: {moves} moves, {len(state.history())} OpenSpiel actions, scores {scores}"
            + (" (the server's)" if server is not None else "")
        )


if __name__ == "__main__":
    main()
