"""The pages' words (``GET /viewer/messages``): the shell's, or a game's board's, in the language
``Accept-Language`` or ``?lang=`` picks, as the API's texts are; English, the ids themselves, needs none."""

from __future__ import annotations


def test_a_korean_browser_gets_the_pages_words_in_korean(client):
    answer = client.get("/viewer/messages", headers={"Accept-Language": "ko-KR,ko;q=0.9,en;q=0.8"})
    assert answer.status_code == 200
    assert answer.headers["Content-Language"] == "ko" and "Accept-Language" in answer.headers["Vary"]
    body = answer.get_json()
    assert body["language"] == "ko"
    assert body["languages"] == {"en": "English", "ko": "한국어", "ja": "日本語"}
    assert body["messages"]["Start a match"] == "대국 시작"
    assert body["messages"]["Seat {seat}: who plays it"] == "자리 {seat}: 누가 플레이하나요"
    # the pages' words only: a refusal of the API's is no word of a page
    assert "the server answered {status}" in body["messages"]
    assert not any(msgid.startswith("seat {seat} has conceded") for msgid in body["messages"])


def test_a_games_board_words_come_from_its_own_catalogue(client):
    body = client.get("/viewer/messages?game=blokus&lang=ja").get_json()
    assert body["language"] == "ja"
    assert body["messages"]["Rotate (R)"] == "回転 (R)"
    assert body["messages"]["blue"] == "青"  # the entries' colour, the board's too
    assert "Start a match" not in body["messages"]
    assert "the piece would cover a square already taken" not in body["messages"]


def test_english_and_an_unspoken_language_need_no_words(client):
    for headers in ({}, {"Accept-Language": "fr-FR,fr;q=0.9"}):
        body = client.get("/viewer/messages", headers=headers).get_json()
        assert body["language"] == "en" and body["messages"] == {}


def test_an_unknown_game_has_no_words(client):
    assert client.get("/viewer/messages?game=chess").status_code == 404
    assert client.get("/viewer/messages?game=" + "x" * 5000).status_code == 404


def test_a_tournaments_page_is_served_as_the_others_are(client):
    """``/tournaments/{id}``: the page, under the pages' Content-Security-Policy and with no referrer, its
    script its own; which tournament it shows, and whether there is one, it reads from the API itself."""
    page = client.get("/tournaments/0123456789abcdef0123456789abcdef")
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert page.headers["Content-Security-Policy"].startswith("default-src 'self'")
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert b'src="/viewer/static/tournament.js"' in page.data
    assert client.get("/viewer/static/tournament.js").status_code == 200
    words = client.get("/viewer/messages?lang=ja").get_json()["messages"]
    assert words["Standings"] == "順位" and words["winner"] == "勝者"
