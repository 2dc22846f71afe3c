"""``python -m tests.bench.first_move [RUNS] [--locale TAG]``: a person new to the page, from ``/`` to the
first move of a Blokus Duo game against a bot (issue 42's measure), and what the pages weigh.

Starts ``matchlog serve`` on a free loopback port with a temporary data folder. For each of RUNS (default 3)
runs, Chromium (Debian's, driven by Playwright) opens ``/`` in a new browser profile, its cache empty, and
does what a newcomer does there: chooses Blokus in the game list, opens the options, chooses the Duo
variant (seat 1 is a bot already: the form's default), starts the match, follows the link to play its
seat, chooses a piece from the tray, turns it (Rotate, Flip) until the preview says it fits a marked corner
and clicks there. Counted:

- the clicks: each press of the pointer, a choice in a drop-down list counting two (open it, pick);
- the seconds from the page's first request to the ``201`` answering the move's ``POST``, as the browser
  timed them (``Request.timing``): the machine's time, a person's reading and pointing time left out;
- the bytes received (headers and bodies, as sent: the server compresses nothing) on the first load of
  ``/`` and of the play page reached from it, and of the play page opened cold (a seat's link opened in a
  new browser, as the other players open theirs); the live feed's stream, never finished, is left out.

Prints the machine, a table (medians of the runs, and the worst seconds) and, last, one JSON line."""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field

from tests.bench.common import Figure, json_figures, machine, table

READY_FRONT = "#seat-list li"
READY_PLAY = ".blokus-tray"


@dataclass
class Weighed:
    """The requests a page made and the bytes it received for them, by the phase that started them."""

    phase: str = "front"
    requests: dict[str, int] = field(default_factory=dict)
    received: dict[str, int] = field(default_factory=dict)
    started: dict[int, str] = field(default_factory=dict)

    def start(self, request) -> None:
        self.started[id(request)] = self.phase

    def finish(self, request) -> None:
        phase = self.started.get(id(request), self.phase)
        sizes = request.sizes()
        self.requests[phase] = self.requests.get(phase, 0) + 1
        self.received[phase] = (
            self.received.get(phase, 0) + sizes["responseBodySize"] + sizes["responseHeadersSize"]
        )


def settle(page, selector: str) -> None:
    """Until ``selector`` shows and the page's requests have answered (the live feed's stream aside)."""
    page.wait_for_selector(selector, timeout=60_000)
    page.wait_for_timeout(500)


def point_a_piece(page) -> int:
    """The first move made by pointing as a newcomer makes it: a piece from the tray, turned until the
    preview over one of the marked corners says it fits, and a click there. The clicks it took."""
    clicks = 0
    for piece in page.locator(".blokus-tray button:not([aria-disabled])").all():
        piece.click()
        clicks += 1
        for turn in range(8):
            for cell in page.locator(".blokus-cell.corner").all():
                cell.hover()
                if page.locator(".blokus-cell.preview.legal").count():
                    cell.click()
                    return clicks + 1
            page.click("#flip" if turn == 3 else "#rotate")
            clicks += 1
    raise AssertionError("no piece fits a marked corner")


def one_run(browser, base: str, locale: str) -> dict:
    context = browser.new_context(locale=locale, viewport={"width": 1200, "height": 900})
    page = context.new_page()
    weighed = Weighed()
    page.on("request", weighed.start)
    page.on("requestfinished", weighed.finish)
    first = []
    page.on("request", lambda request: first.append(request) if not first else None)
    clicks = 0
    page.goto(base + "/")
    settle(page, READY_FRONT)
    page.select_option("#game", "blokus")
    page.click("#options-details summary")
    page.select_option("#option-variant", '"duo"')
    page.click("#create")
    clicks += 2 + 1 + 2 + 1
    page.wait_for_selector("#created a.play")
    weighed.phase = "play"
    page.click("#created a.play")
    clicks += 1
    settle(page, READY_PLAY)
    weighed.phase = "move"
    with page.expect_response(
        lambda answer: answer.request.method == "POST" and answer.url.endswith("/actions")
    ) as moved:
        clicks += point_a_piece(page)
    answer = moved.value
    assert answer.status == 201, answer.status
    start, end = first[0].timing, answer.request.timing
    seconds = (end["startTime"] + end["responseEnd"] - start["startTime"]) / 1000
    context.close()
    return {
        "clicks": clicks,
        "seconds": seconds,
        "front_bytes": weighed.received.get("front", 0),
        "front_requests": weighed.requests.get("front", 0),
        "play_bytes": weighed.received.get("play", 0),
        "play_requests": weighed.requests.get("play", 0),
    }


def cold_play_page(browser, http, base: str, locale: str) -> tuple[int, int]:
    """The bytes and requests of a seat's play page opened in a new browser from its link."""
    status, made = http(
        "POST",
        "/v1/matches",
        {"game": "blokus", "players": [{"name": "ann"}, {"bot": "random"}], "options": {"variant": "duo"}},
    )
    assert status == 201, made
    context = browser.new_context(locale=locale, viewport={"width": 1200, "height": 900})
    page = context.new_page()
    weighed = Weighed(phase="cold")
    page.on("request", weighed.start)
    page.on("requestfinished", weighed.finish)
    page.goto(base + made["seats"][0]["play_url"])
    settle(page, READY_PLAY)
    context.close()
    return weighed.received.get("cold", 0), weighed.requests.get("cold", 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench.first_move",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("runs", nargs="?", type=int, default=3, help="runs, each a new browser (default 3)")
    parser.add_argument("--locale", default="en-US", help="the browser's language (default en-US)")
    args = parser.parse_args(argv)
    if not 1 <= args.runs <= 50:
        parser.error("RUNS is 1 to 50")

    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import CHROMIUM, FLAGS
    from tests.integration.test_serve import free_port, start_serve, stop_serve

    if CHROMIUM is None:
        print("no Chromium: install Debian's chromium package (apt-get install chromium)", file=sys.stderr)
        return 2
    folder = tempfile.mkdtemp(prefix="mlfm-", dir="/tmp")
    began = time.monotonic()
    process, http = start_serve(folder, free_port())
    serve_seconds = time.monotonic() - began
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            try:
                runs = [one_run(browser, http.base, args.locale) for _ in range(args.runs)]
                cold_bytes, cold_requests = cold_play_page(browser, http, http.base, args.locale)
            finally:
                browser.close()
    finally:
        stop_serve(process)
        shutil.rmtree(folder, ignore_errors=True)

    def median(key: str) -> float:
        return statistics.median(run[key] for run in runs)

    figures = machine() + [
        Figure("first_move.runs", "runs (each a new browser)", len(runs)),
        Figure("first_move.locale", "the browser's language", args.locale),
        Figure("first_move.serve_s", "matchlog serve: start to answering", serve_seconds, "s"),
        Figure("first_move.clicks", "clicks from / to the first move (median)", median("clicks")),
        Figure("first_move.seconds", "first request of / to the move's 201 (median)", median("seconds"), "s"),
        Figure(
            "first_move.seconds_max",
            "first request of / to the move's 201 (worst)",
            max(r["seconds"] for r in runs),
            "s",
        ),
        Figure("first_move.front_bytes", "first load of /: bytes received", int(median("front_bytes")), "B"),
        Figure("first_move.front_requests", "first load of /: requests", int(median("front_requests"))),
        Figure("first_move.play_bytes", "play page after /: bytes received", int(median("play_bytes")), "B"),
        Figure("first_move.play_requests", "play page after /: requests", int(median("play_requests"))),
        Figure("first_move.cold_play_bytes", "play page opened cold: bytes received", cold_bytes, "B"),
        Figure("first_move.cold_play_requests", "play page opened cold: requests", cold_requests),
    ]
    print(table(figures))
    print(json.dumps(json_figures(figures)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
