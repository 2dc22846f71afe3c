"""The pages in the player's language (issue 46 point 4) in a real browser: a browser set to Korean reads the
pages' words and the server's texts in Korean, the switch to Japanese changes both and is kept across a
reload, and no page shows one of its words untranslated."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from service.games import GAMES, texts
from service.http import viewer
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_play import created

pytestmark = pytest.mark.slow

HANGUL = re.compile(r"[\uac00-\ud7a3]")
KANA = re.compile(r"[\u3040-\u30ff]")
SCRIPT = {"ko": HANGUL, "ja": KANA}


@pytest.fixture
def reader(browser):
    """A page in a browser whose languages are the test's (``navigator.languages`` and ``Accept-Language``)."""
    contexts = []
    problems: list[str] = []

    def open_page(locale: str, **options):
        context = browser.new_context(locale=locale, viewport={"width": 1200, "height": 900}, **options)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert not problems, problems


def test_a_korean_browser_reads_the_pages_and_the_servers_texts_in_korean(server, reader):
    page = reader("ko-KR")
    duo = created(server, "blokus", [{"name": "ann"}, {"bot": "random"}], variant="duo")
    page.goto(server.base + "/")
    page.wait_for_selector("#seat-list li")
    assert page.evaluate("document.documentElement.lang") == "ko"
    expect(page.locator("#start-title")).to_have_text("대국 시작")
    expect(page.locator("#create")).to_have_text("대국 시작하기")
    assert page.locator("#language").input_value() == "ko"
    assert HANGUL.search(page.locator("#seat-0-kind").get_attribute("aria-label"))
    row = page.locator(f"#matches tr[data-match='{duo['id']}']")
    assert HANGUL.search(row.locator("td").nth(2).inner_text())  # its status, in words
    assert re.search(r"오[전후]", row.locator("time").inner_text())  # the date, as Korean writes it

    page.goto(server.base + duo["seats"][0]["play_url"])
    page.wait_for_selector(".blokus-tray")
    assert page.evaluate("document.documentElement.lang") == "ko"
    expect(page.locator("#rotate")).to_have_text("회전 (R)")
    assert HANGUL.search(page.locator("#status").inner_text())
    assert HANGUL.search(page.locator("#events li").first.inner_text())  # the log's text, from the server
    first = page.locator("#actions button").first
    assert HANGUL.search(first.inner_text())  # the listed actions' texts
    first.click()
    # the bot's reply comes by the live feed, in the language the page asked it for
    page.wait_for_function("() => document.querySelectorAll('#events li').length >= 3")
    assert all(HANGUL.search(text) for text in page.locator("#events li").all_inner_texts())
    # the docs' picture: ann's next piece held over a corner of hers, the preview saying where it goes
    page.locator(".blokus-tray button:not([aria-disabled])").last.click(timeout=60_000)
    page.evaluate("() => window.scrollTo(0, 0)")  # the piece's choice moved the focus down to the board
    page.locator(".blokus-cell.corner").first.hover()
    expect(page.locator(".blokus-cell.preview")).not_to_have_count(0)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(
        path=str(ARTIFACTS / "play-blokus-korean.png"),
        full_page=True,
        clip={"x": 0, "y": 0, "width": 1200, "height": 820},
    )

    page.goto(server.base + duo["spectate_url"])
    page.wait_for_selector("#board svg")
    assert HANGUL.search(page.locator("#summary").inner_text())
    assert HANGUL.search(page.locator("#step-text").inner_text())


def test_the_switch_to_japanese_changes_the_words_and_is_kept_on_reload(server, reader):
    duo = created(server, "blokus", [{"name": "ann"}, {"bot": "random"}], variant="duo")
    page = reader("ko-KR")
    page.goto(server.base + duo["seats"][0]["play_url"])
    page.wait_for_selector(".blokus-tray")
    expect(page.locator("#log-title")).to_have_text("기록")
    with page.expect_navigation():
        page.select_option("#language", "ja")
    page.wait_for_selector(".blokus-tray")
    assert page.evaluate("document.documentElement.lang") == "ja"
    expect(page.locator("#log-title")).to_have_text("記録")
    expect(page.locator("#rotate")).to_have_text("回転 (R)")
    expect(page.locator("#flip")).to_have_text("裏返す (F)")
    assert KANA.search(page.locator("#events li").first.inner_text())
    assert KANA.search(page.locator("#actions button").first.inner_text())
    assert page.evaluate("localStorage.getItem('matchlog.language')") == "ja"
    page.reload()
    page.wait_for_selector(".blokus-tray")
    assert page.evaluate("document.documentElement.lang") == "ja"
    expect(page.locator("#log-title")).to_have_text("記録")
    page.goto(server.base + "/")  # every page of this origin follows the choice
    page.wait_for_selector("#seat-list li")
    expect(page.locator("#start-title")).to_have_text("対局を始める")
    with page.expect_navigation():
        page.select_option("#language", "en")
    page.wait_for_selector("#seat-list li")
    assert page.evaluate("document.documentElement.lang") == "en"
    expect(page.locator("#start-title")).to_have_text("Start a match")


# Every text a person reads on the page: each element's own text, the attributes read out, the title.
SHOWN = """() => {
  const found = [document.title];
  for (const node of document.querySelectorAll("body *")) {
    const own = [...node.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join("");
    found.push(own.trim().replace(/\\s+/g, " "));
    for (const name of ["aria-label", "title", "placeholder"]) {
      if (node.getAttribute(name)) found.push(node.getAttribute(name));
    }
  }
  return found.filter(Boolean);
}"""


def english_words(lang: str) -> set[str]:
    """The pages' words that read differently in ``lang``, as their English ids (those without
    placeholders: the ones a page could show as they are)."""
    folders = [texts.catalogue(viewer.__file__)] + [
        texts.catalogue(str(viewer._package(game) / "board.js")) for game in GAMES
    ]
    return {
        msgid
        for folder in folders
        for msgid, said in folder.page_messages(lang).items()
        if "{" not in msgid and said != msgid and re.search(r"[A-Za-z]{2}", msgid)
    }


@pytest.mark.parametrize("locale", ["ko-KR", "ja-JP"])
def test_no_page_shows_one_of_its_words_untranslated(server, reader, locale):
    lang = locale[:2]
    english = english_words(lang)
    assert len(english) > 100
    duo = created(server, "blokus", [{"name": "ann"}, {"bot": "random"}], variant="duo")
    towers = created(server, "block-block", [{"name": "ann"}, {"name": "bob"}])
    chock = created(server, "chock-a-block", [{"name": "ann"}, {"name": "bob"}, {"bot": "random"}])
    blackout = created(server, "blackout-hong-kong", [{"name": "ann"}, {"name": "bob"}])
    created(server, "blokus", [{"name": "ann"}, {"open": True}])  # the lobby shows an open seat
    _, first = server("GET", f"/v1/matches/{towers['id']}")
    pages = {
        "/": "#lobby:not([hidden]) button",
        duo["seats"][0]["play_url"]: ".blokus-tray",
        towers["seats"][first["to_act"][0]]["play_url"]: ".bb-tray",
        chock["seats"][0]["play_url"]: ".cab-building",
        blackout["seats"][0]["play_url"]: ".bhk-map",
        duo["spectate_url"]: "#board svg",
    }
    page = reader(locale)
    for url, ready in pages.items():
        page.goto(server.base + url)
        page.wait_for_selector(ready)
        page.wait_for_timeout(300)  # the status sentence and the log, written after the board
        shown = page.evaluate(SHOWN)
        assert page.evaluate("document.documentElement.lang") == lang
        untranslated = sorted({text for text in shown if text in english})
        assert untranslated == [], (url, untranslated)
        assert any(SCRIPT[lang].search(text) for text in shown), url
