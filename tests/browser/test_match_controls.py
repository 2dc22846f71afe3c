"""The play page's controls around the moves, as two people use them in two pages: the clocks tick down for
the seat to move, undo is asked and granted, a match is conceded (service/http/viewer/static/play.js)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.test_play import _drawn, _moved_on, _seat_page


def _match(server, **fields) -> dict:
    status, body = server(
        "POST",
        "/v1/matches",
        {
            "game": "blokus",
            "players": [{"name": "ann"}, {"name": "bob"}],
            "options": {"variant": "duo"},
            **fields,
        },
    )
    assert status == 201, body
    return body


def _move(page, server, match_id: str) -> int:
    """The seat's first listed action, chosen in the text mode; the version it made."""
    _, match = server("GET", f"/v1/matches/{match_id}")
    _drawn(page, match["version"])
    page.locator("#actions button").first.click()
    _moved_on(page, match["version"])
    return server("GET", f"/v1/matches/{match_id}")[1]["version"]


def test_the_clock_of_the_seat_to_move_ticks_down_on_the_page_and_passes_with_the_move(server, browser):
    """The page reads the clocks with the match and counts the running one down each second between reads,
    marked as running; after the move the other seat's clock is the one that runs. The title names the game
    as its box does."""
    body = _match(server, clock={"initial_s": 300})
    problems: list[str] = []
    page = _seat_page(browser, server, body, 0, problems)
    clocks = page.locator("#clocks")
    expect(clocks).to_be_visible(timeout=60_000)
    expect(clocks).to_have_attribute("data-running", "0")
    assert "▶" in clocks.inner_text()
    first = clocks.inner_text()
    page.wait_for_function(  # a second later, without any read of the match
        f"() => document.querySelector('#clocks').textContent !== {first!r}", timeout=10_000
    )
    assert page.locator("#title").inner_text().startswith("Blokus: ")
    _move(page, server, body["id"])
    expect(clocks).to_have_attribute("data-running", "1", timeout=30_000)
    page.context.close()
    assert not problems, problems


def test_undo_asked_on_one_page_is_granted_on_the_other(server, browser):
    """With ``with_consent``, ann takes back her move with the Undo button; bob's page offers Accept and
    Refuse, and his Accept puts the match back where it was before her move, in both pages."""
    body = _match(server, undo="with_consent")
    problems: list[str] = []
    ann, bob = (_seat_page(browser, server, body, seat, problems) for seat in (0, 1))
    before = server("GET", f"/v1/matches/{body['id']}")[1]["version"]
    _move(ann, server, body["id"])
    expect(ann.locator("#undo")).to_be_visible(timeout=30_000)
    ann.click("#undo")
    expect(bob.locator("#accept-undo")).to_be_visible(timeout=60_000)
    expect(bob.locator("#refuse-undo")).to_be_visible()
    bob.click("#accept-undo")
    expect(bob.locator("#accept-undo")).to_be_hidden(timeout=30_000)
    _, match = server("GET", f"/v1/matches/{body['id']}")
    assert match["to_act"] == [0] and "undo_request" not in match
    events = server("GET", f"/v1/matches/{body['id']}/events?limit=100")[1]["events"]
    assert any(e["type"] == "undone" for e in events), [e["type"] for e in events]
    ann.wait_for_function("() => document.querySelectorAll('#actions button').length > 0", timeout=30_000)
    assert match["version"] > before  # an undo is an entry of its own: the log keeps the taken-back move
    for page in (ann, bob):
        page.context.close()
    assert not problems, problems


def test_a_match_conceded_from_the_page_ends_with_the_result_in_both_pages(server, browser):
    """Concede asks first (the browser's confirm); once confirmed the match ends, and both pages show the
    result beside the board."""
    body = _match(server)
    problems: list[str] = []
    ann, bob = (_seat_page(browser, server, body, seat, problems) for seat in (0, 1))
    _move(ann, server, body["id"])
    bob.once("dialog", lambda dialog: dialog.accept())
    bob.click("#concede")
    for page in (ann, bob):
        expect(page.locator("#result")).to_be_visible(timeout=60_000)
    _, match = server("GET", f"/v1/matches/{body['id']}")
    assert match["status"] == "finished"
    events = server("GET", f"/v1/matches/{body['id']}/events?limit=100")[1]["events"]
    assert [e["seat"] for e in events if e["type"] == "seat_conceded"] == [1]
    for page in (ann, bob):
        page.context.close()
    assert not problems, problems


PREVIEWED = (
    "() => Array.from(document.querySelectorAll('.blokus-cell'))"
    ".flatMap((cell, i) => cell.classList.contains('preview') ? [i] : [])"
)


def test_a_blokus_piece_is_turned_with_r_and_flipped_with_f_on_the_board(server, browser):
    """A piece taken from the tray and held over the board turns a quarter with R and flips with F: the
    previewed squares change with each key, and R four times brings the first shape back."""
    body = _match(server)
    problems: list[str] = []
    page = _seat_page(browser, server, body, 0, problems)
    page.wait_for_selector('.blokus-tray button[data-piece="F5"]:not([aria-disabled])', timeout=60_000)
    page.locator('.blokus-tray button[data-piece="F5"]').click()  # no turn or flip of F5 is F5 again
    middle = page.locator(".blokus-cell").nth(7 * 14 + 7)  # the middle of Duo's 14 x 14 board
    middle.hover()
    middle.focus()  # the keys go to the board's grid, where the pointer holds the piece
    first = page.evaluate(PREVIEWED)
    assert len(first) == 5
    page.keyboard.press("r")
    turned = page.evaluate(PREVIEWED)
    page.keyboard.press("f")
    flipped = page.evaluate(PREVIEWED)
    assert len({tuple(first), tuple(turned), tuple(flipped)}) == 3
    page.keyboard.press("F")  # flipped back, then three more turns make four
    for _ in range(3):
        page.keyboard.press("R")
    assert page.evaluate(PREVIEWED) == first
    page.context.close()
    assert not problems, problems


def test_typing_in_the_filter_narrows_the_listed_actions_and_enter_plays_the_first(server, browser):
    """In the text mode a player types part of an action's words, as in lichess's blind mode: only the
    actions whose text holds them stay listed, and Enter plays the first of those."""
    body = _match(server)
    problems: list[str] = []
    page = _seat_page(browser, server, body, 0, problems)
    _, match = server("GET", f"/v1/matches/{body['id']}")
    _drawn(page, match["version"])
    buttons = page.locator("#actions button")
    listed = buttons.count()
    wanted = buttons.nth(listed - 1).inner_text()  # the last listed: not what Enter plays unfiltered
    page.locator("#filter").fill(wanted)
    expect(buttons.first).to_have_text(wanted)
    words = wanted.lower().split()  # each typed word, anywhere in an action's words
    shown = buttons.all_inner_texts()
    assert len(shown) < listed and all(all(w in text.lower() for w in words) for text in shown), shown
    page.locator("#filter").press("Enter")
    _moved_on(page, match["version"])
    events = server("GET", f"/v1/matches/{body['id']}/events?after={match['version']}")[1]["events"]
    assert events[0]["text"].endswith(wanted.split(": ", 1)[-1]) or wanted in events[0]["text"], (
        events[0]["text"],
        wanted,
    )
    page.context.close()
    assert not problems, problems


def test_the_creator_aborts_the_match_from_the_play_page_and_both_pages_say_so(server, browser):
    """The browser that made the match keeps its creator token (as the front page does on creating it):
    its play page offers Abort, which asks first; once confirmed the match is aborted, both pages say so
    and offer no move. The other seat's page, made by no one there, offers no Abort."""
    body = _match(server)
    assert body["creator_token"]
    problems: list[str] = []
    ann, bob = (_seat_page(browser, server, body, seat, problems) for seat in (0, 1))
    ann.evaluate(
        "([id, token]) => localStorage.setItem('matchlog.created', JSON.stringify({[id]: token}))",
        [body["id"], body["creator_token"]],
    )
    ann.reload()
    expect(ann.locator("#abort")).to_be_visible(timeout=60_000)
    expect(bob.locator("#abort")).to_be_hidden()
    ann.once("dialog", lambda dialog: dialog.accept())
    ann.click("#abort")
    for page in (ann, bob):
        expect(page.locator("#status")).to_have_text("The match was aborted.", timeout=60_000)
        expect(page.locator("#actions button")).to_have_count(0)
    assert server("GET", f"/v1/matches/{body['id']}")[1]["status"] == "aborted"
    for page in (ann, bob):
        page.context.close()
    assert not problems, problems


def test_the_live_regions_announce_the_other_seats_move_and_the_end_and_say_more_than_colour(server, browser):
    """What a screen reader is told without looking: in bob's page the log (``role=log``, polite) gains
    ann's move in the log's words and the status (``role=status``) says it is his move; the colour to
    move is said in the board's legend, and each covered square names its colour by a letter and in
    words; once ann concedes, bob's status names the winner and his log ends with the match's last
    entry. Only text is read here, no colour."""
    body = _match(server)
    problems: list[str] = []
    ann, bob = (_seat_page(browser, server, body, seat, problems) for seat in (0, 1))
    status, log = bob.locator("#status"), bob.locator("[role=log]")
    assert status.get_attribute("role") == "status" and status.get_attribute("aria-live") == "polite"
    assert log.get_attribute("aria-live") == "polite"
    expect(status).to_have_text("Waiting for ann (seat 0) to move.", timeout=60_000)
    expect(bob.locator(".blokus-legend li[data-colour='purple']")).to_contain_text("▶ to move")
    version = _move(ann, server, body["id"])
    said = server("GET", f"/v1/matches/{body['id']}/events?after={version - 1}")[1]["events"][0]["text"]
    assert said.startswith("purple placed")
    expect(log.locator("li").last).to_have_text(said, timeout=60_000)
    expect(status).to_have_text(
        "Your move, bob (seat 1): make it on the board, or choose it from the actions below.", timeout=60_000
    )
    expect(bob.locator(".blokus-legend li[data-colour='orange']")).to_contain_text("▶ to move")
    expect(bob.locator(".blokus-legend li[data-colour='purple']")).not_to_contain_text("to move")
    covered = bob.locator(".blokus-cell.taken")
    assert covered.count() > 0
    for cell in covered.all():
        assert cell.inner_text() == "P" and ": purple" in cell.get_attribute("aria-label")
    ann.once("dialog", lambda dialog: dialog.accept())
    ann.click("#concede")
    expect(status).to_have_text(
        "The match is over: bob (seat 1) wins. The result is beside the board.", timeout=60_000
    )
    last = server("GET", f"/v1/matches/{body['id']}/events?limit=100")[1]["events"][-1]
    expect(log.locator("li").last).to_have_text(last["text"], timeout=60_000)
    for page in (ann, bob):
        page.context.close()
    assert not problems, problems
