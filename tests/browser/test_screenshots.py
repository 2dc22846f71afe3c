"""``python -m tests.browser.screenshots``: the docs' pictures of the play page, each kept current by a
browser test's screenshot (no browser here: the script's finding and copying)."""

from __future__ import annotations

from tests.browser import screenshots


def test_every_picture_of_the_play_page_in_the_docs_is_taken_by_a_browser_test():
    taken = screenshots.takers()
    pictures = sorted(screenshots.DOCS.glob("play-*.png"))
    assert pictures
    assert [p.name for p in pictures if p.name not in taken] == []
    assert taken["play-blokus-end.png"] == (
        "tests/browser/test_play.py::test_a_whole_blokus_duo_game_is_played_against_a_bot_by_pointing_on_the_board"
    )
    assert taken["play-blokus-korean.png"].startswith("tests/browser/test_languages.py::")


def test_a_picture_is_replaced_by_its_artifact_and_one_without_is_named_with_its_test(
    tmp_path, monkeypatch, capsys
):
    docs, artifacts = tmp_path / "docs", tmp_path / "artifacts"
    docs.mkdir()
    artifacts.mkdir()
    monkeypatch.setattr(screenshots, "ARTIFACTS", artifacts)
    kept, missing, stray = (docs / name for name in ("play-a.png", "play-b.png", "play-c.png"))
    for picture in (kept, missing, stray):
        picture.write_bytes(b"as drawn once")
    (artifacts / "play-a.png").write_bytes(b"as the page is today")
    taken = {"play-a.png": "tests/browser/test_x.py::test_a", "play-b.png": "tests/browser/test_x.py::test_b"}
    problems = screenshots.refresh([kept, missing, stray], taken)
    assert kept.read_bytes() == b"as the page is today"
    assert missing.read_bytes() == stray.read_bytes() == b"as drawn once"
    assert problems == [
        f"play-b.png: not in {artifacts}: run tests/browser/test_x.py::test_b",
        "play-c.png: no browser test takes it",
    ]
    assert "play-a.png: replaced by" in capsys.readouterr().out


def test_a_picture_in_another_script_is_kept_where_the_machine_has_no_font_for_it(tmp_path, monkeypatch):
    docs, artifacts = tmp_path / "docs", tmp_path / "artifacts"
    docs.mkdir()
    artifacts.mkdir()
    monkeypatch.setattr(screenshots, "ARTIFACTS", artifacts)
    monkeypatch.setattr(screenshots, "has_font", lambda language: language != "ko")
    korean, japanese = docs / "play-x-korean.png", docs / "play-x-japanese.png"
    for picture in (korean, japanese):
        picture.write_bytes(b"drawn with the script's font")
        (artifacts / picture.name).write_bytes(b"as today")
    taken = {korean.name: "tests/browser/test_x.py::test_x", japanese.name: "tests/browser/test_x.py::test_y"}
    problems = screenshots.refresh([korean, japanese], taken)
    assert problems == ["play-x-korean.png: this machine has no font for ko (fonts-noto-cjk): kept"]
    assert korean.read_bytes() == b"drawn with the script's font"
    assert japanese.read_bytes() == b"as today"
