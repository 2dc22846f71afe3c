"""The message catalogues of ``service.games.texts``, for whoever changes a text: every ``locales/`` folder's
messages as Babel extracts them from its code, and the update of its files.

    python -m tests.catalogues update    # messages.pot written again, each <language>.po merged with it
    python -m tests.catalogues check     # what tests/games/test_texts.py asserts, as a list

A folder's code is every ``.py`` file below it but those of a folder with its own ``locales/`` (a game's
package); the messages are the first arguments of ``_(...)`` and ``N_(...)``. The pages' words are the same
catalogues' (``service.games.texts.PAGE_FILES``): a ``.js`` file's are the first arguments of ``t(...)``, an
``.html`` file's the text of each element marked ``data-t`` and the attributes its ``data-t-attrs`` names.
A new message lands in every ``.po`` with an empty translation (the test fails until it is written); a
message gone from the code leaves them.
"""

from __future__ import annotations

import io
import json
import re
import string
import sys
from html.parser import HTMLParser
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po, write_po

from service.games.texts import LANGUAGES, PAGE_FILES, SOURCE, page_text

ROOT = Path(__file__).resolve().parents[1]
KEYWORDS = {"_": None, "N_": None}
PAGE_KEYWORDS = {"t": None}
"""The pages' scripts say ``t("...", {values})``: ``_`` is JavaScript's usual name for an unused argument."""


def folders() -> list[Path]:
    """Every ``locales/`` folder of the server."""
    return sorted((ROOT / "service").rglob("locales"))


def code_of(locales: Path) -> list[Path]:
    """The files whose messages ``locales`` holds: its code and its pages."""
    below = {folder.parent for folder in folders() if locales.parent in folder.parent.parents}
    return sorted(
        path
        for suffix in (".py", *PAGE_FILES)
        for path in locales.parent.rglob(f"*{suffix}")
        if not any(owner in path.parents for owner in below) and "node_modules" not in path.parts
    )


class _MarkedWords(HTMLParser):
    """An HTML page's words: each ``data-t`` element's text, each attribute its ``data-t-attrs`` names."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self._open: list[tuple[str, int, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        given = dict(attrs)
        line = self.getpos()[0]
        for name in (given.get("data-t-attrs") or "").split():
            if given.get(name):
                self.found.append((line, page_text(str(given[name]))))
        if "data-t" in given:
            self._open.append((tag, line, []))

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1][2].append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1][0] == tag:
            _, line, parts = self._open.pop()
            if page_text("".join(parts)):
                self.found.append((line, page_text("".join(parts))))


def extract_html(fileobj, keywords, comment_tags, options):
    """Babel's extraction method for the pages' HTML (its signature is Babel's)."""
    parser = _MarkedWords()
    parser.feed(fileobj.read().decode("utf-8"))
    parser.close()
    for line, text in parser.found:
        yield line, None, text, []


def _messages(path: Path):
    if path.suffix == ".py":
        return extract_from_file("python", str(path), keywords=KEYWORDS, comment_tags=("Translators:",))
    if path.suffix == ".js":
        return extract_from_file(
            "javascript", str(path), keywords=PAGE_KEYWORDS, comment_tags=("Translators:",)
        )
    return extract_from_file(extract_html, str(path))


def extracted(locales: Path) -> Catalog:
    """The folder's messages as its code says them today."""
    catalog = Catalog(project="matchlog", fuzzy=False)
    for path in code_of(locales):
        for line, message, comments, _context in _messages(path):
            if isinstance(message, str) and message:
                catalog.add(
                    message,
                    locations=[(str(path.relative_to(ROOT)), line)],
                    auto_comments=comments,
                )
    for message, place in catalogue_texts(locales):
        catalog.add(message, locations=[(place, 0)])
    return catalog


def catalogue_texts(locales: Path) -> list[tuple[str, str]]:
    """The texts for people a game's entry of ``GET /v1/games`` says (``texts.schema_texts``: its
    description, its options' descriptions and titles), each placed in the file of the game's engine: messages
    of the game's catalogue, as its code's are."""
    from service.games import GAMES, _discover, package_folder
    from service.games.texts import schema_texts

    if not GAMES:
        _discover()
    for game in GAMES.values():
        if package_folder(game) == locales.parent:
            place = str(Path(sys.modules[type(game).__module__].__file__ or "").resolve().relative_to(ROOT))
            return [
                (text, place) for text in [game.info.description, *schema_texts(game.options_schema)] if text
            ]
    return []


def template_text(catalog: Catalog) -> bytes:
    """A ``messages.pot`` as ``update`` writes it: sorted, without dates, so that it changes only with the
    messages."""
    out = io.BytesIO()
    write_po(out, catalog, omit_header=True, sort_output=True, include_lineno=False, width=110)
    return out.getvalue()


def read(path: Path, lang: str | None = None) -> Catalog:
    with path.open("rb") as po:
        return read_po(po, locale=lang)


def update() -> None:
    for locales in folders():
        template = extracted(locales)
        (locales / "messages.pot").write_bytes(template_text(template))
        for lang in LANGUAGES:
            if lang == SOURCE:
                continue
            path = locales / f"{lang}.po"
            catalog = read(path, lang) if path.is_file() else Catalog(locale=lang, project="matchlog")
            catalog.update(template, no_fuzzy_matching=True)
            catalog.obsolete.clear()
            out = io.BytesIO()
            write_po(out, catalog, omit_header=True, sort_output=True, include_lineno=False, width=110)
            path.write_bytes(out.getvalue())


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


CALLED = re.compile(r"""(?<![\w.$])t\(\s*("(?:[^"\\\n]|\\.)*")""")


def unseen(locales: Path, template: Catalog) -> list[str]:
    """The ``t("...")`` of the folder's scripts that Babel does not extract (one inside another's arguments):
    their words would never be translated."""
    found = []
    for path in code_of(locales):
        if path.suffix != ".js":
            continue
        for literal in CALLED.findall(path.read_text(encoding="utf-8")):
            if json.loads(literal) not in template:
                found.append(
                    f"{path.relative_to(ROOT)}: t({literal}) is not extracted (a t() inside another's "
                    "arguments is not seen): say it in a variable first"
                )
    return found


def problems() -> list[str]:
    """What is wrong with the catalogues: a template behind its code, a page's word its extraction misses,
    a message without a translation in a language, a translation whose placeholders are not the original's."""
    found = []
    for locales in folders():
        where = locales.relative_to(ROOT)
        template = extracted(locales)
        found.extend(unseen(locales, template))
        pot = locales / "messages.pot"
        if not pot.is_file() or pot.read_bytes() != template_text(template):
            found.append(
                f"{where}/messages.pot is not the code's messages: python -m tests.catalogues update"
            )
        for lang in LANGUAGES:
            if lang == SOURCE:
                continue
            path = locales / f"{lang}.po"
            translated = (
                {str(m.id): m for m in read(path, lang) if m.id and not m.fuzzy} if path.is_file() else {}
            )
            for message in template:
                if not message.id:
                    continue
                done = translated.get(str(message.id))
                if done is None or not done.string:
                    found.append(f"{where}/{lang}.po: no translation of {message.id!r}")
                elif placeholders(str(done.string)) != placeholders(str(message.id)):
                    found.append(
                        f"{where}/{lang}.po: {done.string!r} has placeholders other than {message.id!r}'s"
                    )
    return found


if __name__ == "__main__":
    if sys.argv[1:] == ["update"]:
        update()
    elif sys.argv[1:] == ["check"]:
        print("\n".join(problems()) or "every catalogue is complete")
    else:
        sys.exit(__doc__)
