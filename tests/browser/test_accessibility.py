"""axe-core, at the version tests/browser/axe/package-lock.json pins, run inside each page a person uses (the
front page, a seat's play page on each game's board, the viewer): no serious or critical
violation."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.browser.test_tournament_page import tournament
from tests.npm import installed

pytestmark = pytest.mark.slow

AXE = Path(__file__).resolve().parent / "axe"


@pytest.fixture(scope="module")
def axe_source(tmp_path_factory) -> str:
    folder = installed(AXE, tmp_path_factory.mktemp("axe"), "the axe-core check")
    return (folder / "node_modules" / "axe-core" / "axe.min.js").read_text()


def violations(browser, url: str, ready: str, axe_source: str, **context) -> list[str]:
    """The serious and critical violations axe-core finds on ``url`` once ``ready`` shows; the page's own
    Content-Security-Policy is bypassed only to inject axe itself."""
    opened = browser.new_context(bypass_csp=True, **context)
    page = opened.new_page()
    page.goto(url)
    page.wait_for_selector(ready)
    page.add_script_tag(content=axe_source)
    found = page.evaluate("async () => (await axe.run(document)).violations")
    opened.close()
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


def created(http, game: str, players: list[dict], **options) -> dict:
    status, body = http("POST", "/v1/matches", {"game": game, "players": players, "options": options})
    assert status == 201, body
    return body


@pytest.mark.parametrize(
    "viewport, locale",
    [
        ({"width": 1200, "height": 900}, "en-US"),
        ({"width": 390, "height": 844}, "en-US"),
        ({"width": 1200, "height": 900}, "ko-KR"),
        ({"width": 390, "height": 844}, "ja-JP"),
    ],
)
def test_no_page_has_a_serious_or_critical_violation(server, browser, axe_source, viewport, locale):
    """In English, and in Korean and Japanese: the pages then say ``<html lang>`` in the reader's language."""
    duo = created(server, "blokus", [{"name": "ann"}, {"bot": "random"}], variant="duo")
    towers = created(server, "block-block", [{"name": "ann"}, {"name": "bob"}])
    chock = created(server, "chock-a-block", [{"name": "ann"}, {"name": "bob"}, {"bot": "random"}])
    blackout = created(server, "blackout-hong-kong", [{"name": "ann"}, {"name": "bob"}])
    _, first = server("GET", f"/v1/matches/{towers['id']}")  # the seat to move: its board has the tray
    pages = {
        "/": "#seat-list li",
        duo["seats"][0]["play_url"]: ".blokus-tray",
        towers["seats"][first["to_act"][0]]["play_url"]: ".bb-tray",
        chock["seats"][0]["play_url"]: ".cab-building",
        blackout["seats"][0]["play_url"]: ".bhk-map",
        duo["spectate_url"]: "#board svg",
    }
    found = {
        url: violations(browser, server.base + url, ready, axe_source, viewport=viewport, locale=locale)
        for url, ready in pages.items()
    }
    assert not any(found.values()), found


def test_no_state_of_a_match_has_a_serious_or_critical_violation(server, browser, axe_source):
    """The states a page goes through after its start: a match in the middle with an undo asked of the other
    seat (its Accept and Refuse showing), Blackout some moves in, a finished match with its result table,
    and the front page's lobby with an open seat to join; on the phone's viewport."""
    rng = random.Random(11)
    status, middle = server(
        "POST",
        "/v1/matches",
        {"game": "blokus", "players": [{"name": "ann"}, {"name": "bob"}], "undo": "with_consent"},
    )
    assert status == 201, middle
    tokens = [seat["token"] for seat in middle["seats"]]
    server.play(middle["id"], tokens, rng, actions=3)
    mover = 1 - server("GET", f"/v1/matches/{middle['id']}")[1]["to_act"][0]
    assert server("POST", f"/v1/matches/{middle['id']}/undo", None, tokens[mover])[0] == 201
    finished = created(server, "block-block", [{"name": "ann"}, {"name": "bob"}])
    server.play(finished["id"], [seat["token"] for seat in finished["seats"]], rng)
    blackout = created(server, "blackout-hong-kong", [{"name": "ann"}, {"name": "bob"}])
    server.play(blackout["id"], [seat["token"] for seat in blackout["seats"]], rng, actions=6)
    created(server, "blokus", [{"name": "ann"}, {"open": True}])  # the lobby lists its open seat
    pages = {
        middle["seats"][1 - mover]["play_url"]: "#accept-undo:not([hidden])",
        finished["seats"][0]["play_url"]: "#result:not([hidden])",
        blackout["seats"][0]["play_url"]: ".bhk-map",
        "/": "#lobby-list li",
    }
    found = {
        url: violations(browser, server.base + url, ready, axe_source, viewport={"width": 390, "height": 844})
        for url, ready in pages.items()
    }
    assert not any(found.values()), found


@pytest.mark.parametrize(
    "viewport, locale",
    [
        ({"width": 1200, "height": 900}, "en-US"),
        ({"width": 390, "height": 844}, "ko-KR"),
        ({"width": 390, "height": 844}, "ja-JP"),
    ],
)
def test_the_tournament_page_has_no_serious_or_critical_violation(
    server, browser, axe_source, platform_key, viewport, locale
):
    """A Swiss's page (its standings and its rounds) and a knockout's (its bracket), a round in: one of each
    round's games ended, the other still played."""
    swiss = tournament(server, platform_key, "swiss", ["ann", "bob", "cat", "dan"], rounds=3)
    knockout = tournament(server, platform_key, "single_elimination", ["ann", "bob", "cat", "dan"])
    for started in (swiss, knockout):
        game = started["current_round"]["matches"][0]
        assert (
            server("POST", f"/v1/matches/{game['match']}/concede", None, game["seats"][1]["token"])[0] == 201
        )
    pages = {
        f"/tournaments/{swiss['id']}": "#rounds li[data-ended]",
        f"/tournaments/{knockout['id']}": "#bracket .side.won",
    }
    for started in (
        swiss,
        knockout,
    ):  # the organiser's read takes the ended game in, if the scoring job has not
        server("GET", f"/v1/tournaments/{started['id']}", None, platform_key)
    found = {
        url: violations(browser, server.base + url, ready, axe_source, viewport=viewport, locale=locale)
        for url, ready in pages.items()
    }
    assert not any(found.values()), found
