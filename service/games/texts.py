"""The words the server writes for people, in the reader's language: gettext catalogues read with Babel.

Texts are presentation: an entry's ``text``, a listed action's, a refusal's ``message``. They are made when an
answer is, in the language of whoever asked (``speaking``), never stored in a log, and no hash, checkpoint or
machine-readable field (a type, a ``reason``, an id) depends on them.

The source language is English: a message's id is its English text, with ``{name}`` placeholders that
``str.format`` fills (``_("{colour} placed {piece}", colour=..., piece=...)``). Each other language is a ``.po``
file in a ``locales/`` folder beside the code it belongs to: the shell's in ``service/locales/``, each game's in
its own package (``service/games/<game>/locales/``), so a new game stays one package. ``catalogue(__file__)``
finds a module's folder, the nearest ``locales/`` above it; ``locales/messages.pot`` lists every message of the
folder's code, as ``python -m tests.catalogues update`` extracts them with Babel (``tests/games/test_texts.py``
checks it is up to date, that every language translates every message, and that each translation keeps the
original's placeholders).

A message missing from a language is said in English: a client never gets less than today's answer.

The pages' words (``PAGE_FILES``: the scripts and HTML the viewer serves, each game's ``board.js``) are messages of
the same catalogues, extracted from those files; ``Catalogue.page_messages`` gives a page the ones it uses.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from pathlib import Path
from typing import Any

SOURCE = "en"
LANGUAGES = ("en", "ko", "ja")
"""The languages the server speaks, its source first: each has a ``<language>.po`` in every ``locales/``
folder but the source's (the ids are its texts)."""


PAGE_FILES = (".js", ".html")
"""The files of the pages people read: their messages are handed to the browser (``Catalogue.page_messages``)."""


def endonyms() -> dict[str, str]:
    """Each language the server speaks, named in itself (as a language switch lists them: whoever cannot read
    the page's language still finds their own)."""
    from babel import Locale

    return {lang: Locale.parse(lang).get_display_name(lang) or lang for lang in LANGUAGES}


def page_text(text: str) -> str:
    """A page's words as a message id: white space runs are one space, none at the ends (as the page reads
    them from its HTML)."""
    return " ".join(text.split())


class Reader:
    """Who an answer is for: the language it is written in, and whether a text was made for it (the HTTP
    layer then says ``Content-Language``)."""

    __slots__ = ("language", "said")

    def __init__(self, language: str = SOURCE):
        self.language = language
        self.said = False


_reader: ContextVar[Reader | None] = ContextVar("matchlog_reader", default=None)
"""Who the texts made now are for; None outside any ``speaking``: English, as for a worker's own texts."""


def reader() -> Reader:
    return _reader.get() or Reader()


def language() -> str:
    """The language the texts made now are written in."""
    return reader().language


@contextmanager
def speaking(lang: str | None) -> Iterator[Reader]:
    """Texts made inside are in ``lang`` (English for None, or a language the server does not speak)."""
    chosen = Reader(lang if lang in LANGUAGES else SOURCE)
    token = _reader.set(chosen)
    try:
        yield chosen
    finally:
        _reader.reset(token)


def start_speaking(reader: Reader) -> Token[Reader | None]:
    """``speaking`` for a caller that ends it elsewhere (a request's steps): ``stop_speaking(token)``."""
    return _reader.set(reader)


def stop_speaking(token: Token[Reader | None]) -> None:
    _reader.reset(token)


def carries_texts() -> None:
    """Note that the answer being made carries texts made elsewhere (kept, or streamed later)."""
    reader().said = True


def N_(message: str) -> str:
    """Mark ``message`` for the catalogues where it is only named (a table made at import): it is
    translated where it is said, with ``Catalogue.gettext``."""
    return message


SCHEMA_TEXTS = ("description", "title")
"""The keys of a JSON Schema whose values people read (an options schema's): translated in ``GET /v1/games``,
every other key (a type, an enum, a default) a machine's."""


def schema_texts(schema: Any) -> list[str]:
    """Every text for people in a JSON Schema (``SCHEMA_TEXTS``), in the order met."""
    if isinstance(schema, dict):
        found = []
        for key, value in schema.items():
            if key in SCHEMA_TEXTS and isinstance(value, str):
                found.append(value)
            elif key not in ("enum", "const", "default", "examples"):
                found += schema_texts(value)
        return found
    if isinstance(schema, list):
        return [text for item in schema for text in schema_texts(item)]
    return []


def schema_said(schema: Any, say: Any) -> Any:
    """A copy of a JSON Schema with its texts for people (``SCHEMA_TEXTS``) said by ``say`` (a catalogue's
    ``gettext``); the rest, which machines read, as it is."""
    if isinstance(schema, dict):
        return {
            key: say(value)
            if key in SCHEMA_TEXTS and isinstance(value, str)
            else value
            if key in ("enum", "const", "default", "examples")
            else schema_said(value, say)
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [schema_said(item, say) for item in schema]
    return schema


class Catalogue:
    """The translations of one ``locales/`` folder, each language's read from its ``.po`` file when first
    asked for (an English answer reads none)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._languages: dict[str, dict[str, str]] = {}
        self._pages: frozenset[str] | None = None

    def translations(self, lang: str) -> dict[str, str]:
        """Every translated message of ``lang``: its id -> its text (fuzzy ones left out)."""
        known = self._languages.get(lang)
        if known is None:
            known = self._languages[lang] = self._read(lang)
        return known

    def _read(self, lang: str) -> dict[str, str]:
        from babel.messages.pofile import read_po  # only when a language other than English is asked for

        path = self.folder / f"{lang}.po"
        if lang == SOURCE or not path.is_file():
            return {}
        with path.open("rb") as po:
            catalog = read_po(po, locale=lang)
        return {
            str(message.id): str(message.string)
            for message in catalog
            if message.id and isinstance(message.id, str) and message.string and not message.fuzzy
        }

    def page_messages(self, lang: str) -> dict[str, str]:
        """The messages a page of this folder's code uses (``messages.pot`` places them in a ``PAGE_FILES``
        file), in ``lang``: id -> text, the untranslated left out (the page then says the id, English)."""
        if self._pages is None:
            self._pages = self._read_page_ids()
        translated = self.translations(lang)
        return {msgid: translated[msgid] for msgid in sorted(self._pages) if msgid in translated}

    def _read_page_ids(self) -> frozenset[str]:
        from babel.messages.pofile import read_po

        path = self.folder / "messages.pot"
        if not path.is_file():
            return frozenset()
        with path.open("rb") as pot:
            template = read_po(pot)
        return frozenset(
            str(message.id)
            for message in template
            if message.id
            and isinstance(message.id, str)
            and any(place.endswith(PAGE_FILES) for place, _ in message.locations)
        )

    def gettext(self, msgid: str, /, **values: Any) -> str:
        """The message ``msgid`` in the reader's language, its placeholders filled with ``values``."""
        text = msgid
        now = _reader.get()
        if now is not None:
            now.said = True
            if now.language != SOURCE:
                text = self.translations(now.language).get(msgid, msgid)
        return text.format(**values) if values else text


_CATALOGUES: dict[Path, Catalogue] = {}


def catalogue(module_file: str) -> Catalogue:
    """The catalogue of the code of ``module_file``: the nearest ``locales/`` folder above it."""
    folder = Path(module_file).resolve().parent
    while not (folder / "locales").is_dir():
        if folder.parent == folder:
            raise LookupError(f"no locales/ folder above {module_file}")
        folder = folder.parent
    found = _CATALOGUES.get(folder / "locales")
    if found is None:
        found = _CATALOGUES[folder / "locales"] = Catalogue(folder / "locales")
    return found
