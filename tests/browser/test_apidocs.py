"""``/docs``, the interactive API reference, in a real browser (headless Chromium, as the viewer's tests
drive it) against ``matchlog serve``: it shows every operation of the served ``/openapi.json``, is
linked from the front page, and asks nothing of any other server (it must work offline)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.slow


def test_the_reference_shows_every_operation_and_fetches_only_this_server(server, page):
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    _, contract = server("GET", "/openapi.json")
    expected = {
        (method.upper(), path)
        for path, operations in contract["paths"].items()
        for method in operations
        if method in {"get", "post", "put", "patch", "delete"}
    }
    page.goto(server.base + "/docs")
    page.wait_for_selector(".opblock-summary-path")
    page.wait_for_function("n => document.querySelectorAll('.opblock').length >= n", arg=len(expected))
    shown = {
        tuple(pair)
        for pair in page.evaluate("""() => [...document.querySelectorAll('.opblock')].map(
        (block) => [block.querySelector('.opblock-summary-method').textContent.trim(),
                    block.querySelector('.opblock-summary-path').getAttribute('data-path')])""")
    }
    assert shown == expected
    assert page.locator(".info .title").inner_text().startswith("matchlog")
    here = urlsplit(server.base).netloc
    assert asked and all(urlsplit(url).scheme == "data" or urlsplit(url).netloc == here for url in asked), (
        asked
    )


def test_the_front_page_links_the_reference(server, page):
    page.goto(server.base + "/")
    page.get_by_role("link", name="API reference").click()
    page.wait_for_selector(".opblock")
    assert page.url == server.base + "/docs/"


def test_the_reference_files_come_from_the_installed_package(server):
    status, _ = server("GET", "/docs/swagger-ui/no-such-file.js")
    assert status == 404
