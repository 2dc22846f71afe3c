"""The catalogues of the texts people read (``service.games.texts``): every message of the code is in its folder's
template, translated in every language the server speaks, with the original's placeholders, and a reader gets
English wherever a language has no text."""

from __future__ import annotations

import random
import re

import pytest

from service.domain.replay import describe
from service.games import GAMES, texts
from service.games.kit import game_words, words_of
from service.games.texts import Catalogue, catalogue, speaking
from tests import catalogues
from tests.engines import new_state


def test_every_message_is_translated_with_its_placeholders_in_every_language():
    found = catalogues.problems()
    assert not found, "\n".join(found)


def test_the_check_finds_a_missing_translation_and_a_changed_placeholder(tmp_path, monkeypatch):
    """The test above is not vacuous: a folder whose Korean misses a message and whose Japanese renames a
    placeholder fails it, naming both."""
    code = tmp_path / "game"
    (code / "locales").mkdir(parents=True)
    (code / "rules.py").write_text('_("{colour} placed {piece}")\n_("the game is over")\n', encoding="utf-8")
    monkeypatch.setattr(catalogues, "ROOT", tmp_path)
    monkeypatch.setattr(catalogues, "folders", lambda: [code / "locales"])
    catalogues.update()
    ko, ja = code / "locales" / "ko.po", code / "locales" / "ja.po"
    ko.write_text(
        ko.read_text(encoding="utf-8").replace(
            'msgid "{colour} placed {piece}"\nmsgstr ""',
            'msgid "{colour} placed {piece}"\nmsgstr "{colour}이(가) {piece}"',
        ),
        encoding="utf-8",
    )
    ja.write_text(
        ja.read_text(encoding="utf-8")
        .replace(
            'msgid "{colour} placed {piece}"\nmsgstr ""',
            'msgid "{colour} placed {piece}"\nmsgstr "{color}が{piece}"',
        )
        .replace('msgid "the game is over"\nmsgstr ""', 'msgid "the game is over"\nmsgstr "ゲーム終了"'),
        encoding="utf-8",
    )
    found = catalogues.problems()
    assert found == [
        "game/locales/ko.po: no translation of 'the game is over'",
        "game/locales/ja.po: '{color}が{piece}' has placeholders other than '{colour} placed {piece}''s",
    ]
    (code / "rules.py").write_text('_("a new message")\n', encoding="utf-8")
    assert "game/locales/messages.pot is not the code's messages: python -m tests.catalogues update" in (
        catalogues.problems()
    )


def test_a_pages_words_are_messages_and_a_missing_one_fails_the_check(tmp_path, monkeypatch):
    """A page's words are extracted as the code's are: a script's ``t("...")``, an HTML element marked
    ``data-t`` and the attributes its ``data-t-attrs`` names; an untranslated one fails the check, and so
    does a ``t()`` inside another's arguments (which Babel does not see); ``page_messages`` hands a page
    its words only, not the code's."""
    code = tmp_path / "game"
    (code / "locales").mkdir(parents=True)
    (code / "rules.py").write_text('_("the game is over")\n', encoding="utf-8")
    (code / "board.js").write_text(
        'el("p", {}, t("Rotate (R)"));\nel(t("{n} left", { n: 2 }));\n', encoding="utf-8"
    )
    (code / "page.html").write_text(
        '<h2 data-t>Your\n   pieces</h2><nav aria-label="Pages" data-t-attrs="aria-label"></nav>\n',
        encoding="utf-8",
    )
    monkeypatch.setattr(catalogues, "ROOT", tmp_path)
    monkeypatch.setattr(catalogues, "folders", lambda: [code / "locales"])
    catalogues.update()
    pot = (code / "locales" / "messages.pot").read_text(encoding="utf-8")
    for msgid in ("the game is over", "Rotate (R)", "{n} left", "Your pieces", "Pages"):
        assert f'msgid "{msgid}"' in pot
    assert "game/locales/ko.po: no translation of 'Your pieces'" in catalogues.problems()
    for lang in ("ko", "ja"):
        po = code / "locales" / f"{lang}.po"
        text = po.read_text(encoding="utf-8")
        for msgid in ("the game is over", "Rotate (R)", "{n} left", "Your pieces", "Pages"):
            text = text.replace(f'msgid "{msgid}"\nmsgstr ""', f'msgid "{msgid}"\nmsgstr "{lang}: {msgid}"')
        po.write_text(text, encoding="utf-8")
    assert catalogues.problems() == []
    words = Catalogue(code / "locales").page_messages("ko")
    assert words == {m: f"ko: {m}" for m in ("Pages", "Rotate (R)", "Your pieces", "{n} left")}
    assert Catalogue(code / "locales").page_messages("en") == {}
    (code / "board.js").write_text('t("Rotate (R)", { way: t("flipped") });\n', encoding="utf-8")
    catalogues.update()
    assert any('board.js: t("flipped") is not extracted' in found for found in catalogues.problems())


@pytest.mark.parametrize("lang", ["ko", "ja"])
def test_a_message_is_said_in_the_readers_language_and_english_outside_any(lang):
    shell = catalogue(texts.__file__)
    with speaking(lang) as reader:
        said = shell.gettext("seat {seat} concedes", seat=2)
        assert reader.said
    assert said != "seat 2 concedes" and "2" in said
    assert shell.gettext("seat {seat} concedes", seat=2) == "seat 2 concedes"


def test_a_message_a_language_lacks_and_a_language_not_spoken_are_english(tmp_path):
    (tmp_path / "ko.po").write_text('msgid "known"\nmsgstr "알려진"\n', encoding="utf-8")
    own = Catalogue(tmp_path)
    with speaking("ko"):
        assert own.gettext("known") == "알려진"
        assert own.gettext("not in ko: {n}", n=1) == "not in ko: 1"
    with speaking("fr"):
        assert texts.language() == "en"
        assert own.gettext("known") == "known"


@pytest.mark.parametrize("lang", texts.LANGUAGES)
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_match_created_entry_names_the_game_by_its_boxs_name_in_every_language(game_id, lang):
    """The log's first entry names the game as ``GET /v1/games`` and the page's title do, never by its id."""
    game = GAMES[game_id]
    players = [{"seat": 0, "name": "Ann"}, {"seat": 1}]
    event = {"type": "match_created", "data": {"game": game_id, "players": players}}
    with speaking(lang):
        said = describe(game, event)
    assert game.info.name in said and "Ann" in said
    assert game_id not in said


WORDED = sorted(game_id for game_id, game in GAMES.items() if getattr(game, "words", ()))


@pytest.mark.parametrize("game_id", WORDED)
def test_a_game_says_its_entries_only_with_the_words_its_catalogue_has(game_id):
    """The kit says an entry with its type, keys and enum values (``kit.words_of``): every word random games
    of every player count say is one the game lists (``Engine.words``), so that its catalogue has it in every
    language, and the Korean text of such an entry has none of the English words."""
    game = GAMES[game_id]
    said: dict[str, str] = {}
    for players in game.info.counts():
        rng = random.Random(f"{game_id}:{players}")
        state = new_state(game, players, seed=f"words-{players}")
        for _move in range(300):
            if game.is_over(state):
                break
            seat = game.to_act(state)[0]
            played = game.play(state, seat, rng.choice(game.legal_actions(state, seat)))
            for event in played:
                for viewer in (None, *range(players)):
                    seen = game.event_view(event, viewer)
                    said.update((word, seen["type"]) for word in words_of(seen))
            state = played.states[-1]
    unlisted = sorted(set(said) - set(getattr(game, "words", ())))
    assert not unlisted, f"add to {game_id}'s words (N_) and translate: {unlisted}"
    with speaking("ko"):
        korean = [game_words(type(game).__module__)(word) for word in said]
    assert all(not re.search(r"[a-z]{3,}", text) for text in korean), korean
