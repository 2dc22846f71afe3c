"""The games' pictures in the reader's language (issue 46): every word a picture writes for people comes from the
game's catalogue, and the English picture is the one the server drew before there were catalogues."""

from __future__ import annotations

import hashlib
import random
import re

import pytest

from service.games import GAMES
from service.games.texts import speaking
from tests.engines import new_state

DRAWN = sorted(game_id for game_id, game in GAMES.items() if game.svg is not None)

ENGLISH = {
    "blackout-hong-kong": "0a9a235faf7a27144125a2d3b87400ddb87fc2af71d2e5ae1bcdbfbf30f3a690",
    "block-block": "de4c27ac6fb7acccc5999d269abc6d0abf2711ffdeb5b0821c8dff23de627de2",
    "blokus": "3ccfc2b9d84bad22f3a344c9586deca050dbacedac8cb3c804a0af99bfde954c",
    "chock-a-block": "fb7ce370d568621bb8ef797b9739722090f6022e6c35a937efa713e7d0e66d8e",
}
"""The SHA-256 of the English pictures along ``_walk`` (seat 0's and a spectator's), as the server drew them
before the pictures spoke other languages (main at 386ad14)."""

TOKEN = re.compile(r"[^\s()\[\]{}:;,.·/✓▢]+")


def _walk(game_id: str) -> list[dict]:
    """The views of a deterministic game of ``game_id`` for two (every fifth position and the last): seat 0's
    and a spectator's."""
    engine = GAMES[game_id]
    state = new_state(engine, 2, "pictures")
    rng = random.Random(46)
    views = []
    for move in range(300):
        over = engine.is_over(state)
        if move % 5 == 0 or over:
            views += [engine.view(state, 0), engine.view(state, None)]
        if over:
            break
        seat = engine.to_act(state)[0]
        state = engine.play(state, seat, rng.choice(engine.legal_actions(state, seat))).states[-1]
    return views


def _words(svg: str) -> set[str]:
    """The words of a picture's text nodes (texts, titles, its description)."""
    return {token for text in re.findall(r">([^<>]+)<", svg) for token in TOKEN.findall(text)}


def _named(token: str) -> bool:
    """Whether a token is an id or a number (``C24``, ``HORSE-Y1``, ``start_cubes``, ``GPS``, ``HK$``), which
    a picture shows as it is: not a word of its language."""
    return bool(re.search(r"[\d_]", token)) or not re.search(r"[a-z]", token)


@pytest.mark.parametrize("game_id", DRAWN)
def test_the_english_picture_is_unchanged(game_id):
    engine = GAMES[game_id]
    views = _walk(game_id)
    plain = "\n".join(engine.svg(view) for view in views)
    with speaking("en"):
        assert "\n".join(engine.svg(view) for view in views) == plain
    assert hashlib.sha256(plain.encode()).hexdigest() == ENGLISH[game_id]


@pytest.mark.parametrize("lang", ["ko", "ja"])
@pytest.mark.parametrize("game_id", DRAWN)
def test_a_picture_in_another_language_keeps_no_english_word(game_id, lang):
    """What stays is an id, a number, the game's name, or a value of the view shown as it is (the step, the
    pack's id): the picture's own words are all said in the language."""
    engine = GAMES[game_id]
    names = set(TOKEN.findall(engine.info.name))
    left: set[str] = set()
    for view in _walk(game_id):
        english = _words(engine.svg(view))
        with speaking(lang):
            said = _words(engine.svg(view))
        shown = set(TOKEN.findall(str(view.get("step", "")))) | set(
            TOKEN.findall(str(view.get("pack", {}).get("id")))
        )
        left |= {word for word in english & said if not _named(word)} - names - shown
    assert left == set()
