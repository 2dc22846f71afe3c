"""A tournament's page in a real browser (headless Chromium against ``matchlog serve``): its standings follow
the live feed as a round's games end, without a reload; a knockout's bracket marks its winners in words and
links each meeting's match; no seat's token reaches the page."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.slow


def tournament(http, key: str, kind: str, names: list[str], **settings) -> dict:
    """A tournament of BLOCK.BLOCK made, entered and its first round started through the API, as its
    platform does it: the answer has the round's seats and their tokens."""
    body = {"name": "Winter cup", "kind": kind, "game": "block-block", **settings}
    status, made = http("POST", "/v1/tournaments", body, key)
    assert status == 201, made
    for name in names:
        entry = {"player": f"u-{name}", "name": name}
        status, answer = http("POST", f"/v1/tournaments/{made['id']}/players", entry, key)
        assert status == 201, answer
    status, started = http("POST", f"/v1/tournaments/{made['id']}/rounds", None, key)
    assert status == 201, started
    return started


def finish_round(http, key: str, started: dict) -> dict:
    """Each game of the round ended by its second seat's concession; the tournament once it holds every
    result (the scoring job takes them in, and so does the organiser's read)."""
    for game in started["current_round"]["matches"]:
        status, answer = http("POST", f"/v1/matches/{game['match']}/concede", None, game["seats"][1]["token"])
        assert status == 201, answer
    deadline = time.monotonic() + 120  # a bound against a hang, not a measure
    while True:
        _, read = http("GET", f"/v1/tournaments/{started['id']}", None, key)
        if all(game["ranks"] for game in read["current_round"]["matches"]):
            return read
        assert time.monotonic() < deadline, read
        time.sleep(0.2)


def no_token_in(page, started: dict) -> None:
    shown = page.content()
    for game in started["current_round"]["matches"]:
        assert not any(seat["token"] in shown for seat in game["seats"])


def test_the_standings_follow_a_round_as_it_ends_without_a_reload(server, page, platform_key):
    started = tournament(server, platform_key, "swiss", ["ann", "bob", "cat"], rounds=2)
    game = started["current_round"]["matches"][0]
    winner, loser = game["players"]
    bye = started["current_round"]["byes"][0]["player"]
    page.goto(f"{server.base}/tournaments/{started['id']}")
    rows = page.locator("#standings tbody tr")
    expect(rows).to_have_count(3)
    expect(page.locator("#title")).to_have_text("Winter cup")
    expect(page.locator("#summary")).to_contain_text("A Swiss of BLOCK.BLOCK")
    expect(page.locator("#summary")).to_contain_text("round 1 of 2")
    expect(page.locator(f"#standings tr[data-player='{bye}'] td").nth(1)).to_have_text("1")
    expect(page.locator(f"#standings tr[data-player='{winner}'] td").nth(1)).to_have_text("0")
    assert page.locator("#standings thead th").all_inner_texts()[:3] == ["Rank", "Player", "Points"]
    link = page.locator(f"#rounds li[data-match='{game['match']}'] a")
    assert link.get_attribute("href") == f"/matches/{game['match']}"
    expect(page.locator(f"#rounds li[data-match='{game['match']}']")).to_contain_text("being played")
    expect(page.locator("#standings-note")).to_have_text("")
    page.evaluate("() => { window.notReloaded = true; }")

    read = finish_round(server, platform_key, started)

    winner_name = winner.removeprefix("u-")
    expect(page.locator(f"#standings tr[data-player='{winner}'] td").nth(1)).to_have_text("1", timeout=60_000)
    expect(page.locator(f"#rounds li[data-match='{game['match']}']")).to_contain_text(f"won by {winner_name}")
    expect(page.locator("#standings-note")).to_contain_text("Standings updated")
    assert page.evaluate("() => window.notReloaded") is True
    shown = [row.get_attribute("data-player") for row in rows.all()]
    assert shown == [s["player"] for s in read["standings"]]
    assert page.locator(f"#standings tr[data-player='{loser}'] td").nth(1).inner_text() == "0"
    no_token_in(page, started)

    status, second = server("POST", f"/v1/tournaments/{started['id']}/rounds", None, platform_key)
    assert status == 201, second
    expect(page.locator("#rounds .round")).to_have_count(2, timeout=60_000)
    expect(page.locator("#summary")).to_contain_text("round 2 of 2")
    final = finish_round(server, platform_key, second)
    assert final["status"] == "finished"
    expect(page.locator("#standings-note")).to_contain_text("Final standings", timeout=60_000)
    expect(page.locator("#summary")).to_contain_text("finished")
    assert [row.get_attribute("data-player") for row in rows.all()] == [
        s["player"] for s in final["standings"]
    ]
    assert page.evaluate("() => window.notReloaded") is True
    no_token_in(page, second)


def test_a_knockouts_bracket_on_a_phone_in_japanese(server, browser, platform_key):
    """Rounds as columns (one under another on a 390 px phone), each meeting's two players, its winner
    said in words, its match linked; in Japanese."""
    started = tournament(server, platform_key, "single_elimination", ["ann", "bob", "cat", "dan"])
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="ja-JP")
    problems: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(f"{server.base}/tournaments/{started['id']}")
    expect(page.locator("#bracket .meeting")).to_have_count(3)
    assert page.evaluate("document.documentElement.lang") == "ja"
    expect(page.locator("#standings-title")).to_have_text("順位")
    final = page.locator("#bracket .meeting[data-meeting='W2-1']")
    expect(final.locator(".side")).to_have_text(["未定", "未定"])
    expect(page.locator("#rounds-section")).to_be_hidden()
    page.evaluate("() => { window.notReloaded = true; }")

    read = finish_round(server, platform_key, started)

    meetings = {m["meeting"]: m for m in read["bracket"]["meetings"]}
    for name in ("W1-1", "W1-2"):
        shown = page.locator(f"#bracket .meeting[data-meeting='{name}']")
        won = shown.locator(".side.won")
        expect(won).to_have_count(1, timeout=60_000)
        expect(won.locator(".mark")).to_have_text("勝者")
        expect(won).to_contain_text(meetings[name]["winner"].removeprefix("u-"))
        link = shown.locator("a")
        assert link.get_attribute("href") == f"/matches/{meetings[name]['match']}"
    finalists = [p.removeprefix("u-") for p in meetings["W2-1"]["players"]]
    expect(final.locator(".side")).to_contain_text(finalists)
    assert page.evaluate("() => window.notReloaded") is True
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    no_token_in(page, started)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "tournament-knockout-phone.png"), full_page=True)
    context.close()
    assert not problems, problems


def test_a_double_elimination_shows_both_brackets_and_the_grand_final(server, page, platform_key):
    started = tournament(server, platform_key, "double_elimination", ["ann", "bob", "cat", "dan"])
    page.goto(f"{server.base}/tournaments/{started['id']}")
    expect(page.locator("#bracket .bracket-part > h3")).to_have_text(["Winners' bracket", "Losers' bracket"])
    expect(page.locator("#bracket [data-part='W'] .bracket-round h4")).to_have_text(["Round 1", "Round 2"])
    expect(page.locator("#bracket [data-part='GF'] .bracket-round h3")).to_have_text(
        ["Grand final", "Grand final, deciding game"]
    )
    first = started["current_round"]["matches"][0]
    meeting = page.locator("#bracket [data-part='W'] .meeting").first
    expect(meeting.locator("a")).to_have_attribute("href", f"/matches/{first['match']}")
    expect(meeting.locator(".side")).to_contain_text([p.removeprefix("u-") for p in first["players"]])
    expect(page.locator("#bracket .meeting[data-meeting='L1-1'] .side")).to_have_text(
        ["to be decided", "to be decided"]
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "tournament-double-elimination.png"), full_page=True)


def test_a_round_s_match_links_back_to_its_tournament(server, page, platform_key):
    """The viewer and a seat's play page of a round's match both link to the tournament's page, naming the
    round; a match no tournament made has no such link."""
    started = tournament(server, platform_key, "single_elimination", ["ann", "bob"])
    game = started["current_round"]["matches"][0]
    page.goto(f"{server.base}/matches/{game['match']}")
    link = page.locator("#tournament-link")
    expect(link).to_have_text("Its tournament, round 1")
    assert link.get_attribute("href") == f"/tournaments/{started['id']}"
    page.goto(f"{server.base}/play/{game['match']}#token={game['seats'][0]['token']}")
    expect(page.locator("#tournament-link")).to_have_text("Its tournament, round 1")
    page.locator("#tournament-link").click()
    expect(page).to_have_url(f"{server.base}/tournaments/{started['id']}")
    expect(page.locator("#title")).to_have_text("Winter cup")
    status, alone = server(
        "POST", "/v1/matches", {"game": "block-block", "players": [{"name": "cy"}, {"name": "di"}]}, None
    )
    assert status == 201, alone
    page.goto(f"{server.base}/matches/{alone['id']}")
    expect(page.locator("#seats")).to_contain_text("cy")
    expect(page.locator("#tournament")).to_be_hidden()
