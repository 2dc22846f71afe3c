"""The play page (``/play/<match>``) in a real browser against ``matchlog serve``: whole matches played
as a person would, by keyboard in the text mode and by pointing, against bots."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.slow


def created(http, game: str, players: list[dict], **options) -> dict:
    status, body = http("POST", "/v1/matches", {"game": game, "players": players, "options": options})
    assert status == 201, body
    return body


def test_a_whole_blokus_duo_game_is_played_by_keyboard_in_the_text_mode(server, page):
    body = created(server, "blokus", [{"name": "ann"}, {"bot": "random"}], variant="duo")
    page.goto(server.base + body["seats"][0]["play_url"])
    assert "token" not in page.url  # out of the address bar once kept
    moves = 0
    while not page.locator("#result").is_visible():
        page.wait_for_selector("#actions button, #result:not([hidden])", timeout=60_000)
        if page.locator("#result").is_visible():
            break
        version = int(page.locator("#actions").get_attribute("data-version"))
        page.locator("#filter").focus()
        page.keyboard.press("Enter")  # the first action listed
        moves += 1
        page.wait_for_function(
            f"() => Number(document.querySelector('#actions').dataset.version) > {version}"
            " || !document.querySelector('#result').hidden"
        )
    assert moves > 5
    _, match = server("GET", f"/v1/matches/{body['id']}")
    assert match["status"] == "finished"
    assert page.locator("#result-table tbody tr").count() == 2
    assert page.locator("#replay-link").get_attribute("href") == body["spectate_url"]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "play-blokus-duo-end.png"), full_page=True)


def test_a_person_starts_blokus_duo_against_a_bot_from_the_front_page_and_moves(server, page):
    """From ``/`` to the first move as a newcomer makes it: the game, the variant, start, play, a move. The
    clicks and seconds it took are printed (the issue's measure), not asserted."""
    started = time.monotonic()
    loaded = []
    page.on("requestfinished", lambda request: loaded.append(request))
    page.goto(server.base + "/")
    page.wait_for_selector("#seat-list li")
    weight = sum(r.sizes()["responseBodySize"] + r.sizes()["responseHeadersSize"] for r in loaded)
    print(f"\nfirst load of /: {len(loaded)} requests, {weight} bytes")
    clicks = 0
    page.select_option("#game", "blokus")
    page.click("#options-details summary")
    page.select_option("#option-variant", '"duo"')
    page.click("#create")
    page.click("#created a.play")
    clicks += 5
    page.wait_for_selector("#actions button")
    first = page.locator("#actions button").first.inner_text()
    page.locator("#actions button").first.click()
    clicks += 1
    page.wait_for_function(
        "(text) => [...document.querySelectorAll('#events li')].some((li) => li.textContent === text)",
        arg=first,
    )
    seconds = time.monotonic() - started
    print(f"\nfirst move of a Blokus Duo game against a bot from /: {clicks} clicks, {seconds:.1f} s")
    match_id = page.url.split("/play/")[1]
    _, match = server("GET", f"/v1/matches/{match_id}")
    assert match["options"]["variant"] == "duo" and match["players"][1].get("bot")
    page.goto(server.base + "/")  # the match is found again: the browser holds its seat
    expect(page.locator(f"#mine-list a[href='/play/{match_id}']")).to_have_count(1)


def _place_by_pointing(page) -> bool:
    """One move made as a person makes it on the board: a piece from the tray, turned until the preview
    says legal over a square the board marks as reachable, and a click there. False if none fits."""
    for piece in page.locator(".blokus-tray button:not([aria-disabled])").all():
        piece.click()
        for turn in range(8):
            for cell in page.locator(".blokus-cell.corner").all() + page.locator(".blokus-cell.reach").all():
                cell.hover()
                if page.locator(".blokus-cell.preview.legal").count():
                    cell.click()
                    return True
            page.click("#flip" if turn == 3 else "#rotate")
    return False


def test_a_whole_blokus_duo_game_is_played_against_a_bot_by_pointing_on_the_board(server, page):
    body = created(server, "blokus", [{"name": "ann"}, {"bot": "random"}], variant="duo")
    page.goto(server.base + body["seats"][0]["play_url"])
    moves = 0
    while True:
        page.wait_for_selector(".blokus-tray, #result:not([hidden])", timeout=60_000)
        if page.locator("#result").is_visible():
            _shoot(page, "blokus-end")
            break
        if moves == 0:
            _shoot(page, "blokus-start")
        if moves == 1:
            ARTIFACTS.mkdir(exist_ok=True)
            page.locator(".blokus-tray button:not([aria-disabled])").first.click()
            page.locator(".blokus-cell.corner").first.hover()
            page.screenshot(path=str(ARTIFACTS / "play-blokus-duo-pointing.png"), full_page=True)
            _shoot(page, "blokus-middle")
        version = int(page.locator("#board").get_attribute("data-version"))
        if not _place_by_pointing(page):  # only a pass is left: the text mode has it
            page.locator("#actions button").first.click()
        moves += 1
        page.wait_for_function(f"() => Number(document.querySelector('#board').dataset.version) > {version}")
    assert moves > 5
    _, match = server("GET", f"/v1/matches/{body['id']}")
    assert match["status"] == "finished"
    placed = [
        e
        for e in server("GET", f"/v1/matches/{body['id']}/events?limit=1000")[1]["events"]
        if e["type"] == "placed"
    ]
    assert sum(e["seat"] == 0 for e in placed) >= moves - 1


def _strings(value) -> set[str]:
    if isinstance(value, dict):
        return set().union(*map(_strings, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(_strings, value)) if value else set()
    return {value} if isinstance(value, str) else set()


# The live feed stays open while the match goes on, so Playwright never has its whole body: the page's own
# fetch of it is teed (Response.clone) from before the page's scripts run, and what arrived is kept.
TEE_THE_FEED = """(() => {
  const heard = [];
  window.__feedHeard = heard;
  const fetched = window.fetch.bind(window);
  window.fetch = async (...args) => {
    const response = await fetched(...args);
    if (response.url.includes("/events/stream") && response.body) {
      const reader = response.clone().body.getReader();
      const decoder = new TextDecoder();
      (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          heard.push(decoder.decode(value, { stream: true }));
        }
      })().catch(() => {});
    }
    return response;
  };
})()"""


def _log_entries(text: str) -> list[dict]:
    """The log's entries in an ``events`` answer or a stretch of the live feed (its ``data:`` lines)."""
    if text.lstrip().startswith("{"):
        return list(json.loads(text).get("events", []))
    blocks = [line[6:] for line in text.split("\n") if line.startswith("data: ")]
    return [json.loads(block) for block in blocks]


def _words_of_entry(entry: dict) -> set[str]:
    """An entry's words, but the content pack that ``match_created`` records: the pack lists every card
    there is (public, as the box's contents are), not who holds which."""
    said = dict(entry)
    if entry.get("type") == "match_created":
        said["data"] = {k: v for k, v in entry.get("data", {}).items() if k != "content"}
    return set(re.findall(r"[A-Za-z0-9-]+", json.dumps(said)))


def _holds_nothing_hidden(
    server,
    browser,
    body: dict,
    ann: str,
    hidden: Callable[[], set[str]],
    names: Callable[[set[str]], set[str]],
    ready: str,
    meanwhile: Callable[[], int] | None = None,
):
    """Ann's page (its requests, their answers, the log's pages and the live feed it received, its console,
    its DOM, its storage) holds ann's token alone, none of the ``hidden()`` values (as whole words) and none
    of the ``names`` the board would give them. ``meanwhile`` moves the match on while the page is open,
    answering the version it reached; ``hidden`` is read once it has."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.add_init_script(TEE_THE_FEED)
    page = context.new_page()
    sent, answers, consoled = [], [], []
    page.on("request", lambda request: sent.append((request.url, request.headers.get("authorization"))))
    page.on("response", lambda response: answers.append(response))
    page.on("console", lambda message: consoled.append(message.text))
    page.goto(server.base + body["seats"][0]["play_url"])
    page.wait_for_function("() => document.querySelector('#action-count').textContent !== ''")
    page.wait_for_selector(ready)
    if meanwhile is not None:
        reached = meanwhile()  # the other seats move: their entries reach the page by the live feed
        expect(page.locator(f"#events li[value='{reached}']")).to_have_count(1, timeout=60_000)
        page.wait_for_function(f"() => Number(document.querySelector('#board').dataset.version) >= {reached}")
    secret = hidden()
    page.evaluate("() => console.info('the console is heard')")
    assert all(url.startswith(server.base) for url, _ in sent), sent
    assert {auth for _, auth in sent} <= {None, f"Bearer {ann}"}
    stored = page.evaluate("() => JSON.stringify(localStorage)")
    assert ann in stored
    assert not {seat["token"] for seat in body["seats"][1:]} & set(re.findall(r"[A-Za-z0-9_-]+", stored))
    text = page.locator("body").inner_text() + page.content()
    words = set(re.findall(r"[A-Za-z0-9-]+", text)) | set(re.findall(r"[A-Za-z0-9]+", text))
    assert not secret & words
    assert not [name for name in names(secret) if name in text]
    assert "the console is heard" in consoled
    assert not secret & set(re.findall(r"[A-Za-z0-9-]+", "\n".join(consoled))), consoled
    entries = []
    for answer in answers:
        # the views and listings the page reads
        if "/state" in answer.url or "/legal-actions" in answer.url:
            said = answer.text()
            assert not secret & set(re.findall(r"[A-Za-z0-9-]+", said)), answer.url
        # the log's pages (the feed is read below, as it arrived)
        elif ("/events" in answer.url or "/log" in answer.url) and "/events/stream" not in answer.url:
            entries += _log_entries(answer.text())
    fed = _log_entries("".join(page.evaluate("() => window.__feedHeard")))
    if meanwhile is not None:
        assert any(entry["version"] == reached for entry in fed), "the feed was not heard"
    assert entries
    for entry in entries + fed:
        assert not secret & _words_of_entry(entry), entry
    context.close()


def test_a_seats_page_holds_nothing_of_another_seats_hidden_hand(server, browser):
    """Chock-a-Block's hands are hidden: ann's page holds none of the cards in bob's hand that ann's own
    view never showed, by id or by the name the board gives a card, also once bob has drawn from the deck
    while her page listened to the feed."""
    body = created(server, "chock-a-block", [{"name": "ann"}, {"name": "bob"}])
    tokens = [seat["token"] for seat in body["seats"]]

    def cards(token: str) -> set[str]:
        view = server("GET", f"/v1/matches/{body['id']}/state", token=token)[1]["state"]
        return {s for s in _strings(view) if s[:1] == "C" and s[1:].isdigit()}

    held, shown = cards(tokens[1]), cards(tokens[0])
    assert held - shown  # bob holds cards ann cannot see

    def bob_draws_from_the_deck() -> int:
        """Each seat to act plays, a draw from the deck where one is listed, until bob has drawn."""
        for _ in range(60):
            _, match = server("GET", f"/v1/matches/{body['id']}")
            seat = match["to_act"][0]
            _, listing = server("GET", f"/v1/matches/{body['id']}/legal-actions", token=tokens[seat])
            drawn = [a for a in listing["actions"] if a["type"] == "draw_card" and a.get("source") == "DECK"]
            action = (drawn or listing["actions"])[0]
            status, _ = server(
                "POST",
                f"/v1/matches/{body['id']}/actions",
                {"expected_version": listing["version"], "action": action},
                token=tokens[seat],
            )
            assert status == 201
            held.update(cards(tokens[1]))
            shown.update(cards(tokens[0]))
            if seat == 1 and drawn:
                return server("GET", f"/v1/matches/{body['id']}")[1]["version"]
        raise AssertionError("bob never drew from the deck")

    def names(hidden: set[str]) -> set[str]:
        return {f"card {card[1:]}," for card in hidden} | {f"card {card[1:]}<" for card in hidden}

    _holds_nothing_hidden(
        server,
        browser,
        body,
        tokens[0],
        lambda: held - shown,
        names,
        ".cab-building",
        bob_draws_from_the_deck,
    )


def test_a_blackout_seats_page_holds_nothing_of_the_other_seats_plan_or_hand(server, browser):
    """Blackout's plans are made in secret: once bob has planned, ann's page (still planning) holds none
    of the cards of bob's plan or hand that ann's own view does not show."""
    body = created(server, "blackout-hong-kong", [{"name": "ann"}, {"name": "bob"}])
    ann, bob = (seat["token"] for seat in body["seats"])
    for _ in range(20):  # the start cubes, placed as listed, up to the planning
        _, match = server("GET", f"/v1/matches/{body['id']}")
        token = body["seats"][match["to_act"][0]]["token"]
        _, listing = server("GET", f"/v1/matches/{body['id']}/legal-actions", token=token)
        if listing["actions"][0]["type"] == "submit_plan":
            break
        status, _ = server(
            "POST",
            f"/v1/matches/{body['id']}/actions",
            {"expected_version": listing["version"], "action": listing["actions"][0]},
            token=token,
        )
        assert status == 201
    _, listing = server("GET", f"/v1/matches/{body['id']}/legal-actions", token=bob)
    plan = next(a for a in listing["actions"] if a["type"] == "submit_plan" and a["slots"])
    status, _ = server(
        "POST",
        f"/v1/matches/{body['id']}/actions",
        {"expected_version": listing["version"], "action": plan},
        token=bob,
    )
    assert status == 201
    _, ann_view = server("GET", f"/v1/matches/{body['id']}/state", token=ann)
    _, bob_view = server("GET", f"/v1/matches/{body['id']}/state", token=bob)
    hidden = {
        s for s in _strings(bob_view["state"]) - _strings(ann_view["state"]) if "-" in s and s.isupper()
    }
    assert set(plan["slots"].values()) <= hidden  # bob's plan is not in ann's view
    _holds_nothing_hidden(
        server,
        browser,
        body,
        ann,
        lambda: hidden,
        lambda cards: {f"({card})" for card in cards},
        "#submit-plan",
    )


def test_the_play_page_on_a_phone_places_blokus_pieces_by_touch(server, browser):
    """390 x 844, touch: the board fits the screen's width, a touch shows the preview (a pointer that hovers
    has none) and Place here places the piece."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    body = created(server, "blokus", [{"name": "ann"}, {"bot": "random"}], variant="duo")
    page.goto(server.base + body["seats"][0]["play_url"])
    page.wait_for_selector(".blokus-tray")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.locator(".blokus-tray button[data-piece='1']").tap()
    start = page.locator(".blokus-cell.corner").first
    start.tap()
    assert page.locator(".blokus-cell.preview.legal").count() == 1  # shown, not placed yet
    page.locator("#place-here").tap()
    page.wait_for_function(
        "() => [...document.querySelectorAll('#events li')].some((li) => li.textContent.startsWith('purple placed 1'))"
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "play-blokus-duo-phone.png"), full_page=True)
    context.close()


STALE_CLICK = "responded with a status of 409"


def _seat_page(browser, server, body: dict, seat: int, problems: list[str]):
    """A seat's play page in a browser context of its own, as a second person's would be; the page's
    errors go to ``problems``. A click on a board the other person's move has just made stale is answered
    ``409 version_conflict``, which the page shows and redraws after, as it would for two people: the
    browser's own line for that answer is not a problem of the page."""
    context = browser.new_context(viewport={"width": 1000, "height": 760})
    opened = context.new_page()
    opened.on("pageerror", lambda error: problems.append(str(error)))
    opened.on(
        "console",
        lambda m: problems.append(m.text) if m.type == "error" and STALE_CLICK not in m.text else None,
    )
    opened.on(  # a 409 is a stale click only where a move is posted
        "response",
        lambda r: (
            problems.append(f"409 from {r.url}")
            if r.status == 409 and not r.url.endswith("/actions")
            else None
        ),
    )
    opened.goto(server.base + body["seats"][seat]["play_url"])
    return opened


def _drawn(page, version: int) -> None:
    """Waits until the page's board shows ``version`` or later, with the seat's actions listed (or the
    result shown)."""
    page.wait_for_function(
        f"() => Number(document.querySelector('#board').dataset.version) >= {version}"
        " && (document.querySelectorAll('#actions button').length > 0"
        " || !document.querySelector('#result').hidden)",
        timeout=60_000,
    )


def _moved_on(page, version: int) -> None:
    page.wait_for_function(
        f"() => Number(document.querySelector('#board').dataset.version) > {version}", timeout=60_000
    )


def _shoot(page, name: str) -> None:
    """A screenshot for the docs: the title, the sentence and the board's column, as far down as the
    window shows (small enough for a page of the docs)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.evaluate("() => window.scrollTo(0, 0)")
    box = page.locator(".board-column").bounding_box()
    width = min(page.viewport_size["width"], box["x"] + box["width"] + 8)
    page.screenshot(
        path=str(ARTIFACTS / f"play-{name}.png"), clip={"x": 0, "y": 0, "width": width, "height": 760}
    )


def test_a_whole_block_block_game_is_played_by_two_people_in_two_pages(server, browser):
    """Each seat in its own page: the mover picks a piece and one of its ways on the board and clicks a
    marked square; the other page follows live, until the result shows in both."""
    body = created(server, "block-block", [{"name": "ann"}, {"name": "bob"}])
    rng = random.Random(3)  # which marked square: spread over the board, the same each run
    problems: list[str] = []
    pages = [_seat_page(browser, server, body, seat, problems) for seat in (0, 1)]
    moves = 0
    while True:
        _, match = server("GET", f"/v1/matches/{body['id']}")
        if match["status"] != "active":
            break
        page = pages[match["to_act"][0]]
        _drawn(page, match["version"])
        if moves == 0:
            _shoot(page, "block-block-start")
        tray = page.locator(".bb-tray button:not([aria-disabled])")
        if tray.count():
            tray.first.click()
            page.locator(".bb-ways button").last.click()  # a way other than the first, where it has one
            targets = page.locator(".bb-cell.target")
            target = targets.nth(rng.randrange(targets.count()))
            target.hover()
            if moves == 6:
                _shoot(page, "block-block-middle")
            target.click()
        else:  # no placement listed: what is listed is in the text mode
            page.locator("#actions button").first.click()
        moves += 1
        _moved_on(page, match["version"])
    assert match["status"] == "finished" and moves > 5
    for page in pages:
        expect(page.locator("#result")).to_be_visible(timeout=60_000)
        assert page.locator("#result-table tbody tr").count() == 2
    _shoot(pages[0], "block-block-end")
    placed = [
        e
        for e in server("GET", f"/v1/matches/{body['id']}/events?limit=1000")[1]["events"]
        if e["type"] == "piece_placed"
    ]
    assert {e["seat"] for e in placed} == {0, 1}  # both people moved, each from their own page
    for page in pages:
        page.context.close()
    assert not problems, problems


def test_a_whole_chock_a_block_game_is_played_with_two_bots_by_pointing(server, browser):
    """Three seats, bots in two: ann's cards, neighbours and tokens are chosen and put on a marked room of
    her building, her draws made from the market, until the result."""
    body = created(server, "chock-a-block", [{"name": "ann"}, {"bot": "random"}, {"bot": "random"}])
    problems: list[str] = []
    page = _seat_page(browser, server, body, 0, problems)
    moves, shot = 0, False
    while True:
        page.wait_for_selector("#actions button, #result:not([hidden])", timeout=60_000)
        if page.locator("#result").is_visible():
            break
        _, match = server("GET", f"/v1/matches/{body['id']}")
        if match["status"] != "active":
            continue
        if 0 not in match["to_act"]:  # the bots' turns: ann's page follows them
            _moved_on(page, match["version"])
            continue
        version = match["version"]
        _drawn(page, version)
        if moves == 0:
            _shoot(page, "chock-a-block-start")
        choices, draws = page.locator(".cab-choice"), page.locator(".cab-draw")
        if choices.count():
            choices.first.click()
            if moves >= 12 and not shot:
                _shoot(page, "chock-a-block-middle")  # a card's face chosen, its rooms marked
                shot = True
            page.locator(".cab-room.target").first.click()
        elif draws.count():
            draws.first.click()
        elif page.locator(".cab-others button").count():
            page.locator(".cab-others button").first.click()
        else:
            page.locator("#actions button").first.click()
        moves += 1
        _moved_on(page, version)
    _, match = server("GET", f"/v1/matches/{body['id']}")
    assert match["status"] == "finished" and moves > 10
    assert page.locator("#result-table tbody tr").count() == 3
    _shoot(page, "chock-a-block-end")
    page.context.close()
    assert not problems, problems


def _plan(page, slots: int) -> None:
    """Puts a different card from the listing's choices in each of the first ``slots`` slots."""
    selects = page.locator(".bhk-plan select")
    for n in range(min(slots, selects.count())):
        values = [v for v in selects.nth(n).locator("option").evaluate_all("os => os.map(o => o.value)") if v]
        if len(values) > n:
            selects.nth(n).select_option(values[n])


def test_a_whole_blackout_game_is_played_by_two_people_planning_at_once(server, browser):
    """Two seats, two pages: in each planning step both plans are put together on the board before either
    is sent; the rest of each turn is made on the board (a location on the map, a market card, the listed
    buttons). Moves are picked by a seeded random choice among the board's buttons; a bound on the number
    of moves keeps a run from going on forever, and the match must end well within it."""
    rng = random.Random(7)
    body = created(server, "blackout-hong-kong", [{"name": "ann"}, {"name": "bob"}])
    problems: list[str] = []
    pages = [_seat_page(browser, server, body, seat, problems) for seat in (0, 1)]
    planned_together = retried = 0
    for moves in range(1500):
        _, match = server("GET", f"/v1/matches/{body['id']}")
        if match["status"] != "active":
            break
        for seat in match["to_act"]:
            _drawn(pages[seat], match["version"])
        if moves == 0:
            _shoot(pages[0], "blackout-start")
        planners = [pages[s] for s in match["to_act"] if pages[s].locator("#submit-plan").count()]
        if len(planners) == 2:  # both plan at once: both put together, then both sent
            for page in planners:
                _plan(page, 2)
            if planned_together == 1:
                _shoot(planners[0], "blackout-planning")
            for page in planners:
                page.click("#submit-plan")
            for page in planners:
                _moved_on(page, match["version"])
            planned_together += 1
            continue
        page = pages[rng.choice(match["to_act"])]
        buttons = page.locator("#board button")
        try:  # a board redrawn under the pointer (the match moved on meanwhile) is tried again
            if page.locator("#submit-plan").count():
                _plan(page, 2)
                page.click("#submit-plan", timeout=10_000)
            elif buttons.count():
                buttons.nth(rng.randrange(buttons.count())).click(timeout=10_000)
            else:
                page.locator("#actions button").first.click(timeout=10_000)
        except PlaywrightTimeout:
            retried += 1
            continue
        if moves == 60:
            _shoot(page, "blackout-middle")
        try:  # slow to redraw under a loaded machine: read the match again (a refusal is a page problem)
            _moved_on(page, match["version"])
        except PlaywrightTimeout:
            retried += 1
    assert match["status"] == "finished", "no end within the bound"
    assert planned_together > 1 and retried < 20
    for page in pages:
        expect(page.locator("#result")).to_be_visible(timeout=60_000)
    _shoot(pages[0], "blackout-end")
    submitted = [
        e
        for e in server("GET", f"/v1/matches/{body['id']}/events?limit=1000")[1]["events"]
        if e["type"] == "plan_submitted"
    ]
    assert {e["seat"] for e in submitted} == {0, 1}
    for page in pages:
        page.context.close()
    assert not problems, problems


def test_a_block_block_piece_is_placed_by_keyboard_alone(server, page):
    """A piece chosen by Enter on its button, then on the board the arrow keys to a marked square and
    Enter: placed, with no pointer at all."""
    body = created(server, "block-block", [{"name": "ann"}, {"name": "bob"}], first_player=0)
    page.goto(server.base + body["seats"][0]["play_url"])
    page.wait_for_selector(".bb-tray")
    page.locator(".bb-tray button:not([aria-disabled])").first.focus()
    page.keyboard.press("Enter")
    page.locator(".bb-cell[tabindex='0']").focus()
    target = page.locator(".bb-cell.target").last
    x, y = int(target.get_attribute("data-x")), int(target.get_attribute("data-y"))
    at = page.locator(".bb-cell[tabindex='0']")
    start = int(at.get_attribute("data-x")), int(at.get_attribute("data-y"))
    for key, steps in (("ArrowRight", x - start[0]), ("ArrowLeft", start[0] - x)):
        for _ in range(max(0, steps)):
            page.keyboard.press(key)
    for key, steps in (("ArrowDown", y - start[1]), ("ArrowUp", start[1] - y)):
        for _ in range(max(0, steps)):
            page.keyboard.press(key)
    expect(page.locator(".bb-cell.preview.legal")).not_to_have_count(0)
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#events li')].some((li) => li.textContent.startsWith('brown placed'))"
    )
    events = server("GET", f"/v1/matches/{body['id']}/events")[1]["events"]
    assert [e["seat"] for e in events if e["type"] == "piece_placed"] == [0]


def _tab_to(page, selector: str) -> None:
    """Tab (forwards, as a person without a pointer does) until the focus is on ``selector``; a bound on
    the presses fails a page whose Tab order never reaches it."""
    for _ in range(400):
        if page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reaches {selector}")


def _arrows_to(page, cell) -> None:
    """The arrow keys from the grid's focused square to ``cell``."""
    x, y = int(cell.get_attribute("data-x")), int(cell.get_attribute("data-y"))
    at = page.locator(".bb-cell[tabindex='0']")
    start = int(at.get_attribute("data-x")), int(at.get_attribute("data-y"))
    for key, steps in (("ArrowRight", x - start[0]), ("ArrowLeft", start[0] - x)):
        for _ in range(max(0, steps)):
            page.keyboard.press(key)
    for key, steps in (("ArrowDown", y - start[1]), ("ArrowUp", start[1] - y)):
        for _ in range(max(0, steps)):
            page.keyboard.press(key)


def _ann_to_move(server, page, body: dict) -> dict | None:
    """Waits through the bot's turns; the match when ann's board is drawn for her move, None once ended."""
    while True:
        _, match = server("GET", f"/v1/matches/{body['id']}")
        if match["status"] != "active":
            expect(page.locator("#result")).to_be_visible(timeout=60_000)
            return None
        if 0 in match["to_act"]:
            _drawn(page, match["version"])
            # the listing can come before the board drawn with it: her pieces show once it is
            page.wait_for_selector(".bb-tray button:not([aria-disabled])", timeout=60_000)
            return match
        _moved_on(page, match["version"])


def test_a_whole_block_block_game_is_played_against_a_bot_by_keyboard_alone_on_the_board(server, page):
    """No pointer at all, and not the text mode: each move Tab to a piece and Enter, Tab to a way and
    Enter, Tab into the board, the arrow keys to a marked square and Enter; a bot answers, to the end."""
    body = created(server, "block-block", [{"name": "ann"}, {"bot": "random"}], first_player=0)
    page.goto(server.base + body["seats"][0]["play_url"])
    rng = random.Random(5)
    moves = 0
    while (match := _ann_to_move(server, page, body)) is not None:
        pieces = page.locator(".bb-tray button:not([aria-disabled])")
        shape = pieces.nth(rng.randrange(pieces.count())).get_attribute("data-shape")
        _tab_to(page, f".bb-tray button[data-shape='{shape}']")
        page.keyboard.press("Enter")
        ways = page.locator(".bb-ways button")
        way = ways.nth(rng.randrange(ways.count())).get_attribute("data-way")
        _tab_to(page, f".bb-ways button[data-way='{way}']")
        page.keyboard.press("Enter")
        expect(page.locator(f".bb-ways button[data-way='{way}']")).to_have_attribute("aria-pressed", "true")
        _tab_to(page, ".bb-cell")
        targets = page.locator(".bb-cell.target")
        _arrows_to(page, targets.nth(rng.randrange(targets.count())))
        expect(page.locator(".bb-cell.preview.legal")).not_to_have_count(0)
        page.keyboard.press("Enter")
        moves += 1
        _moved_on(page, match["version"])
    _, match = server("GET", f"/v1/matches/{body['id']}")
    assert match["status"] == "finished" and moves > 1
    assert page.locator("#result-table tbody tr").count() == 2
    placed = [
        e
        for e in server("GET", f"/v1/matches/{body['id']}/events?limit=1000")[1]["events"]
        if e["type"] == "piece_placed"
    ]
    assert sum(e["seat"] == 0 for e in placed) == moves  # each of ann's moves made on the board


def _tapped(control) -> None:
    """A tap on ``control``, once it is found big enough for a finger: 24 px each way at least (WCAG 2.5.8's
    target size), or the phone's user would hit its neighbour."""
    # measured where it is found, in one step: the board may be redrawn (same version) meanwhile. Once in a
    # loaded CI run a way's button, connected and displayed, measured 0 x 0 for a moment (cause unknown,
    # see the 2026-12-07 note): measured again until it is laid out, a few times at most
    size = [0.0, 0.0]
    for _ in range(20):
        size = control.evaluate("(e) => { const r = e.getBoundingClientRect(); return [r.width, r.height]; }")
        if min(size) > 0:
            break
        control.page.wait_for_timeout(100)
    assert min(size) >= 24, size
    control.tap()


def test_a_whole_block_block_game_is_played_against_a_bot_by_touch_on_a_phone(server, browser):
    """390 x 844, touch: each move a tap on a piece, one on a way, one on a marked square (which shows the
    placement, not makes it) and one on Place here, a bot answering, until the scores show."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    body = created(server, "block-block", [{"name": "ann"}, {"bot": "random"}], first_player=0)
    page.goto(server.base + body["seats"][0]["play_url"])
    rng = random.Random(11)
    moves = 0
    while (match := _ann_to_move(server, page, body)) is not None:
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # nothing off the screen
        pieces = page.locator(".bb-tray button:not([aria-disabled])")
        _tapped(pieces.nth(rng.randrange(pieces.count())))
        ways = page.locator(".bb-ways button")
        _tapped(ways.nth(rng.randrange(ways.count())))
        targets = page.locator(".bb-cell.target")
        _tapped(targets.nth(rng.randrange(targets.count())))
        expect(page.locator(".bb-cell.preview.legal")).not_to_have_count(0)
        assert page.locator("#board").get_attribute("data-version") == str(match["version"])  # not placed yet
        _tapped(page.locator("#place-here"))
        moves += 1
        _moved_on(page, match["version"])
    _, match = server("GET", f"/v1/matches/{body['id']}")
    assert match["status"] == "finished" and moves > 1
    assert page.locator("#result-table tbody tr").count() == 2
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "play-block-block-phone-end.png"), full_page=True)
    context.close()
    assert not problems, problems


def test_chock_a_block_names_the_draw_as_the_step_when_only_draws_are_listed(server, page):
    """The engine's tokens step holds the claims and the draw that ends the turn: once ann's listing holds
    only draws, her board's round line names the draw, not the claims (issue 42)."""
    body = created(server, "chock-a-block", [{"name": "ann"}, {"name": "bob"}], start_seat=0)
    tokens = [seat["token"] for seat in body["seats"]]
    for _ in range(60):  # each seat plays its first listed action until ann has only draws left
        _, match = server("GET", f"/v1/matches/{body['id']}")
        seat = match["to_act"][0]
        _, listing = server("GET", f"/v1/matches/{body['id']}/legal-actions", token=tokens[seat])
        if seat == 0 and {a["type"] for a in listing["actions"]} == {"draw_card"}:
            break
        status, _ = server(
            "POST",
            f"/v1/matches/{body['id']}/actions",
            {"expected_version": listing["version"], "action": listing["actions"][0]},
            token=tokens[seat],
        )
        assert status == 201
    else:
        raise AssertionError("ann never had only draws to choose from")
    view = server("GET", f"/v1/matches/{body['id']}/state", token=tokens[0])[1]["state"]
    assert view["step"] == "tokens" and view["draw"]["applies"]
    page.goto(server.base + body["seats"][0]["play_url"])
    _drawn(page, listing["version"])
    assert page.locator(".cab-draw").count() > 0
    expect(page.locator(".cab-round")).to_contain_text("step: draw a card.")


def test_chock_a_block_is_played_by_touch_on_a_phone(server, browser):
    """390 x 844, touch: ann's first turns against a bot made by taps alone (a card's face from her hand,
    then a marked room of her building; a neighbour or a token the same way; a draw from the market or the
    deck), the page never wider than the screen (a wide building scrolls in its own region)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    body = created(server, "chock-a-block", [{"name": "ann"}, {"bot": "random"}], start_seat=0)
    page.goto(server.base + body["seats"][0]["play_url"])
    placed = 0
    for _ in range(40):  # ann's steps, each a tap or two, until two of her cards are in her building
        _, match = server("GET", f"/v1/matches/{body['id']}")
        if 0 not in match["to_act"]:
            _moved_on(page, match["version"])
            continue
        _drawn(page, match["version"])
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # nothing off the screen
        choices, draws = page.locator(".cab-choice"), page.locator(".cab-draw")
        if choices.count():
            card = choices.first.get_attribute("data-choice").startswith("card:")
            choices.first.tap()
            page.locator(".cab-room.target").first.tap()
            placed += card
        elif draws.count():
            draws.first.tap()
        elif page.locator(".cab-others button").count():
            page.locator(".cab-others button").first.tap()
        else:
            page.locator("#actions button").first.tap()
        _moved_on(page, match["version"])
        if placed == 2:
            break
    assert placed == 2
    events = server("GET", f"/v1/matches/{body['id']}/events?limit=1000")[1]["events"]
    assert [e["seat"] for e in events if e["type"] == "card_placed"].count(0) == 2
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "play-chock-a-block-phone.png"), full_page=True)
    context.close()
    assert not problems, problems


def test_blackout_is_played_by_touch_on_a_phone(server, browser):
    """390 x 844, touch: ann's first moves against a bot made on the board by taps alone (her start cubes
    by a tap on a marked location of the map, then a plan put together and sent by a tap on its button),
    the page never wider than the screen (the map scales to it, the rondel and market scroll alone)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    body = created(server, "blackout-hong-kong", [{"name": "ann"}, {"bot": "random"}])
    page.goto(server.base + body["seats"][0]["play_url"])
    cubes = planned = 0
    for _ in range(20):  # ann's steps until her plan is sent; the bot's turns are followed
        _, match = server("GET", f"/v1/matches/{body['id']}")
        if match["to_act"] != [0]:  # the plans are made at once: ann's waits for the bot's, no stale tap
            _moved_on(page, match["version"])
            continue
        _drawn(page, match["version"])
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # nothing off the screen
        if page.locator("#submit-plan").count():
            _plan(page, 2)  # a select opens the phone's own picker: chosen as it answers
            _tapped(page.locator("#submit-plan"))
            planned += 1
        else:
            target = page.locator(".bhk-map .target").first
            _tapped(target)
            cubes += 1
        _moved_on(page, match["version"])
        if planned:
            break
    assert cubes > 0 and planned == 1
    events = server("GET", f"/v1/matches/{body['id']}/events?limit=1000")[1]["events"]
    assert [e["seat"] for e in events if e["type"] == "start_cube_placed"].count(0) == cubes
    assert [e["seat"] for e in events if e["type"] == "plan_submitted"].count(0) == 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "play-blackout-phone.png"), full_page=True)
    context.close()
    assert not problems, problems
