"""The front page (``/``) in a real browser against ``matchlog serve``: matches of every kind started from its
form (more seats than two, bots, solo and co-operative modes, a campaign), and an open seat taken from its
lobby by a second person (service/http/viewer/static/start.js)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.slow


def _start(page, server, game: str, count: int, seats: dict[int, str], options: dict[str, str]) -> None:
    """Fills the front page's form as a person does: the game, the number of players, who plays each seat
    (``seats``: a seat's choice's value, ``bot:random``, ``open``), the options (``options``: a field's
    value as its select offers it), then Start."""
    page.goto(server.base + "/")
    page.wait_for_selector("#seat-list li")
    page.select_option("#game", game)
    page.select_option("#count", str(count))
    for seat, kind in seats.items():
        page.select_option(f"#seat-{seat}-kind", kind)
    if options:
        page.click("#options-details summary")
    for name, value in options.items():
        page.select_option(f"#option-{name}", value)
    page.click("#create")


def _first_move(page, server) -> dict:
    """From the created match's links to the seat's page, and its first listed action played there: the
    log's entry it made, as the server has it."""
    page.click("#created a.play")
    page.wait_for_selector("#actions button", timeout=60_000)  # after the bots' moves, where they start
    version = int(page.locator("#actions").get_attribute("data-version"))
    page.locator("#actions button").first.click()
    entry = page.locator(f"#events li[value='{version + 1}']")
    expect(entry).not_to_be_empty(timeout=60_000)
    match_id = page.url.split("/play/")[1]
    _, events = server("GET", f"/v1/matches/{match_id}/events?after={version}&limit=1")
    assert events["events"][0]["seat"] == 0, events
    assert entry.inner_text() == events["events"][0]["text"]
    return server("GET", f"/v1/matches/{match_id}")[1]


@pytest.mark.parametrize(
    "game, count, seats, options, mode",
    [
        ("blokus", 4, {1: "bot:random", 2: "bot:random", 3: "bot:greedy"}, {}, ("variant", "four_player")),
        ("chock-a-block", 1, {}, {}, ("mode", "SOLO")),
        ("chock-a-block", 2, {1: "bot:random"}, {"mode": '"COOP"'}, ("mode", "COOP")),
        ("blackout-hong-kong", 1, {}, {"mode": '"CAMPAIGN"'}, ("mode", "CAMPAIGN")),
    ],
    ids=["blokus-four-players-three-bots", "chock-a-block-solo", "chock-a-block-coop", "blackout-campaign"],
)
def test_a_match_of_another_mode_is_started_from_the_front_page_and_moved_in(
    server, page, game, count, seats, options, mode
):
    """Four seats with three bots, a solo game against Autoblock, a co-operative one with a bot beside the
    person, the campaign's first chapter alone: each made from the form and its first move played."""
    _start(page, server, game, count, seats, options)
    match = _first_move(page, server)
    assert match["game"] == game and len(match["players"]) == count
    assert [bool(p.get("bot")) for p in match["players"]] == [False] + [True] * (count - 1)
    name, value = mode
    assert match["options"][name] == value, match["options"]


def test_an_open_seat_made_on_the_front_page_is_joined_from_the_lobby_by_a_second_person(server, browser):
    """Ann makes a Blokus Duo match with seat 1 open and goes to her seat's page, which waits; Bob, in a
    browser of his own, finds the seat in the front page's lobby and joins it under his name; both pages
    then show the match started, ann to move, and ann's move reaches bob's page."""
    ann_context, bob_context = (
        browser.new_context(viewport={"width": 1000, "height": 760}) for _ in range(2)
    )
    ann, bob = ann_context.new_page(), bob_context.new_page()
    problems: list[str] = []
    for opened in (ann, bob):
        opened.on("pageerror", lambda error: problems.append(str(error)))
        opened.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    ann.goto(server.base + "/")
    ann.wait_for_selector("#seat-list li")
    ann.select_option("#game", "blokus")
    ann.fill("#seat-0-name", "ann")
    ann.select_option("#seat-1-kind", "open")
    ann.click("#options-details summary")
    ann.select_option("#option-variant", '"duo"')
    ann.click("#create")
    ann.click("#created a.play")
    expect(ann.locator("#status")).to_have_text("Waiting for players to take the open seats.", timeout=60_000)
    match_id = ann.url.split("/play/")[1]

    bob.goto(server.base + "/")
    join = bob.locator(f"#lobby-list button[data-match='{match_id}'][data-seat='1']")
    expect(join).to_have_text("Join Blokus in seat 1", timeout=60_000)
    bob.once("dialog", lambda dialog: dialog.accept("bob"))
    join.click()
    bob.wait_for_url(f"**/play/{match_id}", timeout=60_000)

    expect(ann.locator("#status")).to_have_text(
        "Your move, ann (seat 0): make it on the board, or choose it from the actions below.", timeout=60_000
    )
    expect(bob.locator("#status")).to_have_text("Waiting for ann (seat 0) to move.", timeout=60_000)
    expect(bob.locator("#title")).to_have_text("Blokus: ann, bob")
    _, match = server("GET", f"/v1/matches/{match_id}")
    assert match["status"] == "active" and [p["name"] for p in match["players"]] == ["ann", "bob"]
    ann.wait_for_selector("#actions button", timeout=60_000)
    ann.locator("#actions button").first.click()
    expect(bob.locator("#status")).to_have_text(
        "Your move, bob (seat 1): make it on the board, or choose it from the actions below.", timeout=60_000
    )
    expect(bob.locator("#events li[value='3']")).not_to_be_empty()
    ann_context.close()
    bob_context.close()
    assert not problems, problems


def test_an_option_of_several_shapes_is_a_choice_of_them_then_the_chosen_ones_fields(server, page):
    """BLOCK.BLOCK's ``board_size`` is ``"pack"`` or two numbers, its ``max_height`` ``"pack"``, none or a
    number (``anyOf``): each is a select of those shapes at the default's, then the chosen shape's own
    fields, never JSON to type. A board of 5 by 3 and a height of 6 reach the match's options."""
    page.goto(server.base + "/")
    page.wait_for_selector("#seat-list li")
    page.select_option("#game", "block-block")
    page.select_option("#seat-1-kind", "bot:random")
    page.click("#options-details summary")
    board = page.locator("#option-board_size")
    expect(board.locator("option")).to_have_text(["pack", "2 numbers"])
    expect(board).to_have_value("0")  # the default's shape, with nothing to type
    expect(page.locator("#option-board_size-value")).to_have_count(0)
    board.select_option(label="2 numbers")
    page.get_by_label("board_size: number 1 of 2").fill("5")
    page.get_by_label("board_size: number 2 of 2").fill("3")
    height = page.locator("#option-max_height")
    expect(height.locator("option")).to_have_text(["pack", "none", "a number from 1 to 64"])
    height.select_option(label="a number from 1 to 64")
    page.get_by_label("max_height: its value").fill("6")
    page.click("#create")
    page.click("#created a.play")
    page.wait_for_selector(".bb-tray", timeout=60_000)
    match_id = page.url.split("/play/")[1]
    _, match = server("GET", f"/v1/matches/{match_id}")
    assert match["options"]["board_size"] == [5, 3] and match["options"]["max_height"] == 6, match["options"]
    assert page.locator(".bb-cell").count() == 5 * 3  # the board the page draws is the one chosen
