"""Every player's language (issue 46): a client picks the language of the texts it reads with
``Accept-Language`` or ``?lang=``, English the fallback; the answer says which in ``Content-Language``. Texts are
presentation: the machine-readable fields, the stored log, its hashes and its audit are the same in every
language."""

from __future__ import annotations

import dataclasses
import json
import random
import re

import pytest

from service.cli import replay_log
from service.domain.chain import Recorded
from service.games.texts import SCHEMA_TEXTS, schema_texts
from service.http.app import create_app
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.helpers import PLAYERS, act, bearer, create, play_random_game

TWO = PLAYERS[:2]


def without_texts(value):
    """``value`` with every entry's ``text`` and answer's ``texts`` left out: what no language changes."""
    if isinstance(value, dict):
        return {k: without_texts(v) for k, v in value.items() if k not in ("text", "texts")}
    if isinstance(value, list):
        return [without_texts(v) for v in value]
    return value


def texts_of(events):
    return [event["text"] for event in events]


@pytest.fixture
def played(client):
    """A Blokus match for two, a few moves in: its id and seat tokens."""
    match_id, tokens = create(client, "blokus", TWO, seed="languages", seed_known_to_creator=True)
    play_random_game(client, match_id, tokens, random.Random(46), max_actions=4)
    return match_id, tokens


def test_a_client_sending_no_accept_language_reads_todays_english(client, played):
    match_id, tokens = played
    plain = client.get(f"/v1/matches/{match_id}/events")
    english = client.get(f"/v1/matches/{match_id}/events", headers={"Accept-Language": "en-GB"})
    assert plain.data == english.data
    assert plain.headers["Content-Language"] == "en" and "Accept-Language" in plain.headers["Vary"]
    said = texts_of(plain.json["events"])
    assert said[0] == "a Blokus match for ann, bob"  # the words of the server before catalogues
    assert said[1].startswith("blue placed ") and " on (" in said[1]
    refused = act(client, match_id, tokens[0], 1, {"type": "pass"})
    assert refused.json == {
        "error": "version_conflict",
        "message": "the match is at version 5: read it again and choose an action at that version",
        "current_version": 5,
    }


@pytest.mark.parametrize(
    ("header", "query", "chosen"),
    [
        ("ko-KR,ko;q=0.9,en-US;q=0.8", "", "ko"),
        ("ja", "", "ja"),
        ("ja-JP, ko;q=0.9", "", "ja"),  # the client's first choice, though it names a region
        ("fr, ja;q=0.5", "", "ja"),
        ("fr, de;q=0.5", "", "en"),
        ("ko;q=0, ja;q=0.1", "", "ja"),
        ("*", "", "en"),
        ("ko", "?lang=ja", "ja"),  # a link's language wins
        ("ko", "?lang=xx", "ko"),  # one the server does not speak is no choice
        ("", "?lang=ko", "ko"),
    ],
)
def test_the_language_is_the_query_s_then_the_best_the_client_accepts(client, played, header, query, chosen):
    match_id, _ = played
    answer = client.get(f"/v1/matches/{match_id}/events{query}", headers={"Accept-Language": header})
    assert answer.status_code == 200
    assert answer.headers["Content-Language"] == chosen
    assert "Accept-Language" in answer.headers["Vary"]


@pytest.mark.parametrize("lang", ["ko", "ja"])
def test_only_the_texts_change_with_the_language(client, played, lang):
    match_id, tokens = played
    seat = client.get(f"/v1/matches/{match_id}").json["to_act"][0]
    for path, headers in [
        (f"/v1/matches/{match_id}/events", {}),
        (f"/v1/matches/{match_id}/legal-actions?text=true", bearer(tokens[seat])),
    ]:
        english = client.get(path, headers=headers)
        other = client.get(path, headers={**headers, "Accept-Language": lang})
        assert other.headers["Content-Language"] == lang
        assert without_texts(other.json) == without_texts(english.json)
        said, said_in_english = (
            other.json.get("events") or other.json["texts"],
            english.json.get("events") or english.json["texts"],
        )
        assert len(said) == len(said_in_english)
        assert all(a != b for a, b in zip(said, said_in_english))


@pytest.mark.parametrize("lang", ["ko", "ja"])
def test_a_picture_is_drawn_in_the_language_and_says_which(client, played, lang):
    """A picture carries words: it says its language and varies with the asked one, as a JSON text does,
    so that no cache hands a Korean picture to an English reader; the state's deprecated picture too."""
    match_id, tokens = played
    for path in (f"/v1/matches/{match_id}/picture", f"/v1/matches/{match_id}/state"):
        headers = {**bearer(tokens[0]), "Accept": "image/svg+xml"}
        english = client.get(path, headers=headers)
        other = client.get(path, headers={**headers, "Accept-Language": lang})
        queried = client.get(f"{path}?lang={lang}", headers=headers)
        assert english.headers["Content-Language"] == "en" and other.headers["Content-Language"] == lang
        for answer in (english, other):
            varies = [v.strip() for v in answer.headers["Vary"].split(",")]
            assert "Accept" in varies and "Accept-Language" in varies
        assert other.data == queried.data != english.data
        assert "to move" in english.get_data(as_text=True) and "to move" not in other.get_data(as_text=True)
        assert "ETag" not in other.headers  # none to vary: nothing keeps a picture across languages


def test_a_refusal_keeps_its_reason_and_says_its_message_in_the_language(client, played):
    match_id, tokens = played
    version = client.get(f"/v1/matches/{match_id}").json["version"]
    seat = client.get(f"/v1/matches/{match_id}").json["to_act"][0]
    english = act(client, match_id, tokens[1 - seat], version, {"type": "pass"})
    korean = act(client, match_id, tokens[1 - seat], version, {"type": "pass"}, **{"Accept-Language": "ko"})
    assert english.status_code == korean.status_code == 422
    assert korean.json["reason"] == english.json["reason"] and korean.json["error"] == "illegal_action"
    assert korean.json["message"] != english.json["message"]
    assert korean.headers["Content-Language"] == "ko"
    missing = client.get("/v1/matches/" + "0" * 32, headers={"Accept-Language": "ja"})
    assert missing.status_code == 404 and missing.json["error"] == "match_not_found"
    assert missing.json["message"] == "その対局はありません"
    assert missing.headers["Content-Language"] == "ja"


def test_an_answer_without_texts_says_no_language(client):
    created = client.post(
        "/v1/matches", json={"game": "blokus", "players": TWO}, headers={"Accept-Language": "ko"}
    )
    assert created.status_code == 201
    assert "Content-Language" not in created.headers


def test_a_log_read_in_korean_is_the_same_log_and_audits_the_same(client, capsys, tmp_path):
    """The log a Korean reader exports differs from the English one in its texts only: the same entries, the
    same hashes, and ``matchlog replay`` says the same of both against the same checkpoint."""
    match_id, tokens = create(client, "blokus", TWO)
    assert play_random_game(client, match_id, tokens, random.Random(5))["status"] == "finished"
    key = client.get("/v1/signing-key").json["public_key"]
    checkpoint = tmp_path / "checkpoint.json"
    checkpoint.write_text(json.dumps(client.get(f"/v1/matches/{match_id}/checkpoint").json))
    reports, logs = {}, {}
    for lang in ("en", "ko"):
        log = client.get(f"/v1/matches/{match_id}/log", headers={"Accept-Language": lang})
        assert log.headers["Content-Language"] == lang
        logs[lang] = [json.loads(line) for line in log.data.decode().splitlines()]
        path = tmp_path / f"{lang}.jsonl"
        path.write_bytes(log.data)
        assert replay_log(str(path), None, None, str(checkpoint), key) == 0
        reports[lang] = json.loads(capsys.readouterr().out)
    assert reports["ko"] == reports["en"] and reports["en"]["checkpoint_verified"]
    assert without_texts(logs["ko"]) == without_texts(logs["en"])
    assert all(a["text"] != b["text"] for a, b in zip(logs["ko"], logs["en"]))
    # what is stored, and chained, holds no text: each entry's hash follows from its fields alone
    stored = client.application.extensions["matchlog"].repository.read(match_id)[1]
    assert [e.hash for e in stored] == [entry["hash"] for entry in logs["ko"]]
    assert all("text" not in json.dumps(Recorded.as_dict(e)) for e in stored)


def test_the_live_feed_renders_each_entry_in_the_subscriber_s_language(client, played):
    match_id, _ = played
    feed = client.application.extensions["matchlog-livefeed"]
    app = client.application.extensions["matchlog"]
    state = app.load(match_id)
    entry = app.repository.read(match_id)[1][1]
    shown = {
        lang: json.loads(
            feed.render(match_id, entry, None, False, state.sealed_chain, lang).split("data: ", 1)[1]
        )
        for lang in ("en", "ko", "ja")
    }
    assert without_texts(shown["ko"]) == without_texts(shown["en"]) == without_texts(shown["ja"])
    assert len({shown[lang]["text"] for lang in shown}) == 3
    assert feed.render(match_id, entry, None, False, state.sealed_chain) == feed.render(
        match_id, entry, None, False, state.sealed_chain, "en"
    )


def test_a_webhook_names_a_language_the_server_speaks(fake_redis, settings):
    settings = dataclasses.replace(settings, webhooks_private=True)  # a loopback URL, never called here
    client = create_app(settings, fake_redis).test_client()
    _, key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")
    url = "http://127.0.0.1:9/matchlog"
    made = client.post(
        "/v1/webhooks", json={"url": url, "events": ["placed"], "language": "ja"}, headers=bearer(key)
    )
    assert made.status_code == 201, made.json
    assert made.json["language"] == "ja"
    listed = client.get("/v1/webhooks", headers=bearer(key)).json["webhooks"]
    assert [hook.get("language") for hook in listed] == ["ja"]
    refused = client.post(
        "/v1/webhooks", json={"url": url, "events": ["placed"], "language": "fr"}, headers=bearer(key)
    )
    assert refused.status_code == 400 and "language" in refused.json["fields"]


def schema_machine_part(schema):
    """An options schema without its texts for people (``texts.SCHEMA_TEXTS``): what no language changes."""
    if isinstance(schema, dict):
        return {
            k: v if k in ("enum", "const", "default", "examples") else schema_machine_part(v)
            for k, v in schema.items()
            if k not in SCHEMA_TEXTS
        }
    if isinstance(schema, list):
        return [schema_machine_part(v) for v in schema]
    return schema


@pytest.mark.parametrize("lang", ["ko", "ja"])
def test_the_catalogue_describes_every_game_option_and_refusal_in_the_language(client, lang):
    english = client.get("/v1/games").json
    other = client.get("/v1/games", headers={"Accept-Language": lang})
    assert other.headers["Content-Language"] == lang
    for game, translated in zip(english, other.json):
        said = {r["reason"]: r["description"] for r in translated["refusals"]}
        assert [r["reason"] for r in translated["refusals"]] == [r["reason"] for r in game["refusals"]]
        untranslated = [r["reason"] for r in game["refusals"] if said[r["reason"]] == r["description"]]
        assert not untranslated, (game["id"], untranslated)
        assert translated["description"] != game["description"]
        options = list(zip(schema_texts(game["options_schema"]), schema_texts(translated["options_schema"])))
        assert options and not [english_text for english_text, text in options if text == english_text]
        assert schema_machine_part(translated["options_schema"]) == schema_machine_part(
            game["options_schema"]
        )
        machine = {"refusals", "description", "options_schema"}
        assert {k: v for k, v in translated.items() if k not in machine} == {
            k: v for k, v in game.items() if k not in machine
        }


def test_the_catalogue_in_english_is_the_games_own_words(client):
    from service.games import GAMES

    listed = {game["id"]: game for game in client.get("/v1/games").json}
    for game in GAMES.values():
        assert listed[game.info.id]["description"] == game.info.description
        assert listed[game.info.id]["options_schema"] == game.options_schema


def test_werkzeug_s_own_answers_are_its_words_in_english_and_translated_otherwise(client):
    from werkzeug.exceptions import default_exceptions

    from service.http.errors import HTTP_STATUSES, WERKZEUG_MESSAGES

    assert sorted(WERKZEUG_MESSAGES) == sorted(default_exceptions[s]().description for s in HTTP_STATUSES)
    english = client.delete("/v1/games")
    korean = client.delete("/v1/games", headers={"Accept-Language": "ko"})
    assert english.status_code == korean.status_code == 405
    assert english.json["message"] == default_exceptions[405]().description
    assert korean.json["message"] == "요청한 URL에는 이 메서드를 쓸 수 없습니다."
    assert korean.json["error"] == english.json["error"] == "method_not_allowed"


def test_marshmallow_s_messages_are_its_own_word_for_word():
    """``errors.MARSHMALLOW_MESSAGES`` are the messages marshmallow says (Range's with its comparisons
    filled in), so that an English answer says them as marshmallow does."""
    import inspect

    from marshmallow import Schema, fields, validate

    from service.http.errors import MARSHMALLOW_MESSAGES

    own = set(Schema._default_error_messages.values())
    for _, kind in inspect.getmembers(fields, inspect.isclass):
        if issubclass(kind, fields.Field):
            own |= {m for c in kind.__mro__ for m in getattr(c, "default_error_messages", {}).values()}
    for _, kind in inspect.getmembers(validate, inspect.isclass):
        own |= {
            v
            for k, v in vars(kind).items()
            if k.startswith(("message", "default_message")) and isinstance(v, str)
        }
    ranges = {r.message_min, r.message_max, r.message_all} if (r := validate.Range) else set()
    own -= ranges | {r.message_gt, r.message_gte, r.message_lt, r.message_lte}
    own |= {
        template.format(min_op=low, max_op=high).replace("{{", "{").replace("}}", "}")
        for template in ranges
        for low in (r.message_gte, r.message_gt)
        for high in (r.message_lte, r.message_lt)
    }
    own = {m for m in own if "!r" not in m}  # a timedelta's format: no field of ours is one
    assert sorted(MARSHMALLOW_MESSAGES) == sorted(own)


@pytest.mark.parametrize(
    ("lang", "required", "integer"),
    [
        ("ko", "필수 필드의 값이 없습니다.", "{min} 이상 {max} 이하여야 합니다."),
        ("ja", "必須フィールドの値がありません。", "{min} 以上 {max} 以下でなければなりません。"),
    ],
)
def test_an_invalid_request_names_its_fields_in_the_language(client, played, lang, required, integer):
    match_id, tokens = played
    body = {"expected_version": -1, "unknown_key": 1}
    english = client.post(f"/v1/matches/{match_id}/actions", json=body, headers=bearer(tokens[0]))
    other = client.post(
        f"/v1/matches/{match_id}/actions", json=body, headers={**bearer(tokens[0]), "Accept-Language": lang}
    )
    assert english.status_code == other.status_code == 400
    assert english.json["error"] == other.json["error"] == "invalid_request"
    assert sorted(english.json["fields"]) == sorted(other.json["fields"])
    assert english.json["fields"]["action"] == ["Missing data for required field."]
    assert other.json["fields"]["action"] == [required]
    bounds = re.fullmatch(
        r"Must be greater than or equal to (\d+) and less than or equal to (\d+)\.",
        english.json["fields"]["expected_version"][0],
    )
    assert bounds, english.json["fields"]["expected_version"]
    assert other.json["fields"]["expected_version"] == [integer.format(min=bounds[1], max=bounds[2])]


@pytest.mark.parametrize(
    ("path", "body", "field", "english", "korean"),
    [
        (
            "/v1/matches?game=chess",
            None,
            "game",
            "unknown game 'chess'; GET /v1/games lists them",
            "알 수 없는 게임 'chess'; GET /v1/games가 게임 목록을 줍니다",
        ),
        (
            "/v1/matches",
            {"game": "blokus", "players": [{"name": "ann"}, {"level": 2}]},
            "players.1._schema",
            'give a seat a "name", a "bot", or "open": true to leave it for someone to join',
            '자리에 "name"이나 "bot"을 주거나, 누군가 앉도록 비워 두려면 "open": true를 주십시오',
        ),
        (
            "/v1/matches",
            {"game": "blokus", "players": [{"name": "ann\u202e"}, {"name": "bob"}]},
            "players.0.name",
            "no control, line-break or direction characters (U+202E)",
            "제어 문자, 줄바꿈 문자, 방향 문자는 쓸 수 없습니다 (U+202E)",
        ),
    ],
    ids=["unknown-game", "seat-without-name", "direction-mark"],
)
def test_the_server_s_own_field_messages_are_said_in_the_language(client, path, body, field, english, korean):
    """The server's own words for a wrong field (not marshmallow's), in English as before and in Korean
    when asked for; the field and the code stay."""
    method = client.post if body is not None else client.get
    said = {lang: method(path, json=body, headers={"Accept-Language": lang}) for lang in ("en", "ko")}
    assert said["en"].status_code == said["ko"].status_code == 400
    assert said["en"].json["fields"][field] == [english], said["en"].json
    assert said["ko"].json["fields"][field] == [korean], said["ko"].json
