"""The match viewer in a real browser: headless Chromium (Debian's ``chromium``, driven by playwright)
against ``matchlog serve``, reading only the public API. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import random
import time

import pytest

from service.games import GAMES
from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.slow


def play(http, game: str, actions: int | None = None, seed: int = 3):
    """A match of ``game`` through the API: to the end and scored, or ``actions`` moves in."""
    status, created = http(
        "POST", "/v1/matches", {"game": game, "players": [{"name": "ann"}, {"name": "bob"}]}
    )
    assert status == 201, created
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    match = http.play(match_id, tokens, random.Random(seed), actions)
    if actions is None:
        while "result" not in match:  # serve's worker scores it
            _, match = http("GET", f"/v1/matches/{match_id}")
    return match_id, tokens


def shown_equals_api(page, version: int) -> bool:
    """The board on the page is the API's SVG of that version (less the page's own title/description)."""
    page.wait_for_selector(f"#board[data-version='{version}'] svg")
    return page.evaluate(
        """async (version) => {
        const id = location.pathname.split("/").pop();
        const answer = await fetch(`/v1/matches/${id}/state?version=${version}`, {headers: {Accept: "image/svg+xml"}});
        const api = new DOMParser().parseFromString(await answer.text(), "image/svg+xml").documentElement;
        const shown = document.querySelector("#board svg").cloneNode(true);
        shown.querySelectorAll("[data-viewer]").forEach((node) => node.remove());
        const text = (node) => new XMLSerializer().serializeToString(node);
        return text(api) === text(shown);
    }""",
        version,
    )


@pytest.mark.parametrize("game", list(GAMES))
def test_a_finished_match_steps_through_every_version(server, page, game):
    match_id, _ = play(server, game)
    _, match = server("GET", f"/v1/matches/{match_id}")
    last = match["version"]
    page.goto(f"{server.base}/matches/{match_id}")
    assert shown_equals_api(page, last)
    assert page.locator("#result").is_visible() and page.locator("#result-table tbody tr").count() == 2
    assert page.locator("#events li").count() == last
    assert page.locator(f"#events li[data-version='{last}']").inner_text() == "scored: " + ", ".join(
        f"seat {s} ranked {match['result']['ranks'][s]} with {match['result']['scores'][s]}"
        for s in sorted(range(2), key=lambda s: match["result"]["ranks"][s])
    )
    page.keyboard.press("Home")
    assert shown_equals_api(page, 1)
    assert (
        page.locator("#step-text").inner_text().startswith(f"1. a {GAMES[game].info.name} match for ann, bob")
    )
    page.keyboard.press("ArrowRight")
    assert shown_equals_api(page, 2)
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#board[data-version='1']")
    page.keyboard.press("End")
    page.wait_for_selector(f"#board[data-version='{last}']")
    page.locator("#slider").fill(str(last // 2))
    assert shown_equals_api(page, last // 2)
    board = page.locator("#board svg")
    assert board.locator(":scope > title").count() == 1 and board.locator(":scope > desc").count() == 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"viewer-{game}.png"), full_page=True)


def test_a_running_match_shows_a_new_action_without_reloading(server, page):
    match_id, tokens = play(server, "blokus", actions=2)
    page.goto(f"{server.base}/matches/{match_id}")
    page.wait_for_selector("#board[data-version='3'] svg")
    page.evaluate("window.notReloaded = true")
    _, match = server("GET", f"/v1/matches/{match_id}")
    seat = match["to_act"][0]
    _, legal = server("GET", f"/v1/matches/{match_id}/legal-actions", token=tokens[seat])
    status, answer = server(
        "POST",
        f"/v1/matches/{match_id}/actions",
        {"expected_version": 3, "action": legal["actions"][0]},
        token=tokens[seat],
    )
    assert status == 201
    page.wait_for_selector("#board[data-version='4'] svg")
    assert page.locator("#events li[data-version='4']").inner_text() == answer["events"][0]["text"]
    assert page.evaluate("window.notReloaded") is True
    assert shown_equals_api(page, 4)


def test_a_seat_sees_its_hand_and_a_spectator_does_not(server, page):
    match_id, tokens = play(server, "chock-a-block", actions=1)
    page.goto(f"{server.base}/matches/{match_id}")
    page.wait_for_selector("#board svg")
    assert "Your hand" not in page.locator("#board").inner_text()
    page.goto(f"{server.base}/matches/{match_id}#token={tokens[0]}")
    page.reload()  # a new fragment alone does not load the page again
    page.wait_for_selector("#board svg")
    assert "Your hand" in page.locator("#board").inner_text()
    assert "seen by your seat" in page.locator("#summary").inner_text()


def test_the_front_page_lists_recent_matches_and_fits_a_phone(server, browser):
    newest, _ = play(server, "block-block", actions=1)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(server.base + "/")
        row = page.locator(f"tr[data-match='{newest}']")
        row.wait_for()
        assert page.locator("#matches tbody tr").first.get_attribute("data-match") == newest
        assert "BLOCK.BLOCK" in row.inner_text() and "ann, bob" in row.inner_text()
        row.locator("a").click()
        page.wait_for_selector("#board svg")
        assert page.url.endswith(f"/matches/{newest}")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        for button in page.locator(".controls button").all():
            assert button.get_attribute("aria-label")
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [{"width": 1200, "height": 900}, {"width": 390, "height": 844}])
def test_opening_a_long_match_keeps_the_title_and_board_on_screen(server, browser, viewport):
    """The current entry is scrolled into view inside the event list only: the window stays at the top,
    with the title and the board visible, on a desktop and on a phone."""
    match_id, _ = play(server, "blokus")
    context = browser.new_context(viewport=viewport, is_mobile=viewport["width"] < 500)
    try:
        page = context.new_page()
        page.goto(f"{server.base}/matches/{match_id}")
        page.wait_for_selector("#board svg")
        page.wait_for_selector("#events li[aria-current='step']")
        assert page.evaluate("window.scrollY") == 0
        board = page.locator("#board").bounding_box()
        assert board["y"] < viewport["height"], "the board starts below the screen"
        assert page.locator("#title").is_visible()
        current = page.locator("#events li[aria-current='step']")
        assert page.evaluate("""() => {  // the current entry is visible inside the list
            const list = document.getElementById("events"), item = list.querySelector("[aria-current]");
            return item.offsetTop >= list.scrollTop
                && item.offsetTop + item.offsetHeight <= list.scrollTop + list.clientHeight + 1;
        }""")
        assert current.get_attribute("data-version")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"viewer-open-{viewport['width']}.png"))
    finally:
        context.close()


def test_the_viewer_says_who_a_bot_moves_for_whose_colours_and_which_score_wins(server, page):
    status, created = server(
        "POST",
        "/v1/matches",
        {
            "game": "blokus",
            "players": [{"name": "ann"}, {"name": "greedy", "bot": "greedy"}],
            "options": {"variant": "duo"},
        },
    )
    assert status == 201, created
    match_id, ann = created["id"], created["seats"][0]["token"]
    rng = random.Random(1)
    for _ in range(200):  # ann's moves, and the bot's answers (serve's worker plays them)
        _, match = server("GET", f"/v1/matches/{match_id}")
        if match["version"] >= 8 or match["status"] != "active":
            break
        if match["to_act"] != [0]:
            time.sleep(0.05)
            continue
        _, legal = server("GET", f"/v1/matches/{match_id}/legal-actions", token=ann)
        server(
            "POST",
            f"/v1/matches/{match_id}/actions",
            {"expected_version": legal["version"], "action": rng.choice(legal["actions"])},
            token=ann,
        )
    page.goto(f"{server.base}/matches/{match_id}")
    page.wait_for_selector("#board svg")
    page.wait_for_selector("#events li:has-text('bot moves for seat 1 (greedy):')")
    assert "seat 0 (ann)" in page.locator("#seats").inner_text()
    assert "seat 1 (greedy), the greedy bot" in page.locator("#seats").inner_text()
    legend = page.locator("#board svg text").all_text_contents()
    assert any("(seat 0)" in line for line in legend) and any("(seat 1)" in line for line in legend)
    finished, _ = play(server, "blokus")
    page.goto(f"{server.base}/matches/{finished}")
    page.wait_for_selector("#result:not([hidden])")
    assert page.locator("#result-order").inner_text().startswith("Rank 1 wins")


def test_an_ended_match_is_analysed_from_the_viewer_with_a_graph_and_classes(server, page):
    match_id, _ = play(server, "block-block")
    page.goto(f"{server.base}/matches/{match_id}")
    page.wait_for_selector("#board svg")
    page.locator("#analyse").click()  # the viewer asks; serve's worker analyses
    page.wait_for_selector("#analysis-graph svg polyline", timeout=120_000)
    status, answer = server("GET", f"/v1/matches/{match_id}/analysis")
    assert status == 200 and answer["status"] == "done"
    moves = answer["analysis"]["moves"]
    lines = page.locator("#analysis-graph svg polyline")
    assert sorted(lines.nth(i).get_attribute("data-seat") for i in range(lines.count())) == ["0", "1"]
    assert page.locator("#analysis-graph svg circle").count() == len([m for m in moves if not m["forced"]])
    badges = page.locator("#events li .judged")
    assert badges.count() == len(moves)
    for move in moves:
        badge = page.locator(f"#events li[data-version='{move['version']}'] .judged")
        assert badge.inner_text() == move["classification"]
    assert page.locator("#analysis-seats tbody tr").count() == 2
    page.locator(f"#analysis-graph svg circle[data-version='{moves[-1]['version']}']").click()
    page.wait_for_selector(f"#board[data-version='{moves[-1]['version']}']")
    # a second visit finds the analysis kept, and shows it at once
    page.reload()
    page.wait_for_selector("#analysis-graph svg polyline")
    assert page.locator("#analyse").is_hidden()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "viewer-analysis.png"), full_page=True)
