"""Every rule id cited in ``service/`` and ``tests/`` is defined by its game's spec, the ``rules.md`` of its
package (``service/games/<package>/rules.md``, the site's ``rules/<game id>.md``).

Error messages send clients to these ids ("must_cover_start ... (spec 2.2)"), so a typo'd id is a
dead end for whoever looks it up.

What a spec defines (``defined_ids``):
  - section numbers of its headings (``## 2.``, ``### 2.1``, ``#### 1.4.1``), its ``Appendix A``
    and the appendix's subsections (``### A.3`` -> ``A.3``);
  - numbered statements at the start of a line (Blokus ``2.2 ...``, BLOCK.BLOCK ``0.5.5 ...``);
  - labelled statements, ``R-2.8.``, ``S-1.``, ``E-5.``, ``AE-3.``, ``V-5.``, ``C-11.``, at the start
    of a line, and the first cell of a table row: ``| A-01 |`` (ambiguities), ``| T-12b |``
    (acceptance tests), ``| D-3 |``, ``| K-7 |``, ``| P-4 |``, ``| OD-2 |``;
  - a labelled statement's parts: its ``- (c)`` items are ``R-4.2c`` (also cited ``R-4.2(c)``)
    and its ``1.`` steps are ``R-4.6.1``; a table row's ``(i)``, ``(ii)`` questions are ``A-24(i)``.

What counts as a citation (``citations``): a labelled id anywhere (``R-4.5``, ``A-47``, ``T-12b``;
both ends of ``T-1..T-23`` or ``D-1 to D-16``), and a section number after ``spec``, ``§`` or
``section(s)`` (``spec 2.2``, ``spec §8.4``, ``§7.6``, ``sections 1, 2, 3.1 and 4``), or
``Appendix A`` / ``Appendix A.3``. Bare numbers ("the recipe of 1.9.3") are not collected: alone
they cannot be told from version numbers and arithmetic.

Whose spec a citation is checked against:
  - by place: ``service/games/<package>/`` and any file under ``tests/`` whose name holds the
    package name (``test_blokus_rules.py``, ``test_blackout_hong_kong_on_redis.py``; for
    ``blackout_support.py`` the short ``blackout``);
  - by an explicit marker, anywhere: the game's slug right before the id, ``blokus spec 2.7`` or
    ``chock-a-block R-0.4``;
  - otherwise (``protocol.py``, ``kit.py``: the contract quotes ids as examples of the format) the
    id must be defined by at least one spec.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from service.games import GAMES as REGISTRY
from service.games import package_folder
from tests import toy_nim

ROOT = Path(__file__).resolve().parent.parent
SCANNED = [ROOT / "service", ROOT / "tests"]
SUFFIXES = {".py", ".json", ".md", ".yaml", ".html", ".js"}
# package -> its rules spec, and the spec's slug: the game's id in the API, so it is the marker. The
# packages of service/games/, and the toy game's of tests/ (tests/test_one_package_per_game.py)
PACKAGED = [
    game for game in REGISTRY.values() if package_folder(game).parent == ROOT / "service" / "games"
] + [toy_nim.GAME]
SPECS = {
    package_folder(game).name: package_folder(game) / "rules.md"
    for game in PACKAGED
    if (package_folder(game) / "rules.md").is_file()
}
GAMES = {package_folder(game).name: game.info.id for game in PACKAGED if package_folder(game).name in SPECS}
SHORT = {"blackout": "blackout_hong_kong"}  # file names that use a shorter name for the game

NUM = r"\d+(?:\.\d+)*"
LABEL = r"[A-Z]{1,2}-\d+(?:\.\d+)*[a-z]?"
HEADING = re.compile(rf"^#{{2,4}} (?:({NUM})\.?|Appendix ([A-Z])\b|([A-Z]\.\d+))[ :]")
STATEMENT = re.compile(rf"^(?:({NUM}\.\d+)|\*{{0,2}}({LABEL})\.?\*{{0,2}}[ .]|\| *({LABEL})\b[^|]*\|)")
ROW_PART = re.compile(r"\(([ivx]+)\)")  # an ambiguity row's questions: A-24's "(i) ... (iii)"
ITEM = re.compile(r"^\s*- \(([a-z]|[ivx]+)\)")  # (c), or (ii) in C-11
STEP = re.compile(r"^(\d+)\. ")


def defined_ids(text: str) -> set[str]:
    """The ids a spec defines, read line by line (see the module docstring)."""
    ids: set[str] = set()
    parent = ""  # the labelled statement whose items and steps follow
    for line in text.splitlines():
        if head := HEADING.match(line):
            ids.update(_heading_ids(head))
            parent = ""
        elif statement := STATEMENT.match(line):
            number, label, row = statement.groups()
            ids.add(number or label or row)
            ids.update(row + part for part in ROW_PART.findall(line) if row)
            parent = label or ""
        elif parent and (part := ITEM.match(line) or STEP.match(line)):
            ids.add(parent + part.group(1) if part.re is ITEM else f"{parent}.{part.group(1)}")
    return ids


def _heading_ids(head: re.Match) -> set[str]:
    number, appendix, subsection = head.groups()
    if appendix:
        return {f"Appendix {appendix}"}
    return {number or subsection}


CITED_LABEL = re.compile(rf"\b({LABEL})(?:\(([a-z]|[ivx]+)\))?")
NUMBER_LIST = rf"{NUM}(?:(?:, | and | to ){NUM})*"
CITED_SECTION = re.compile(rf"(?:\bspec(?: section)?|\bsections?|§) ?§?({NUMBER_LIST})\b", re.I)
CITED_APPENDIX = re.compile(r"\bAppendix ([A-Z])(?:\.(\d+))?")
MARKER = re.compile(r"\b(" + "|".join(GAMES.values()) + r") $")


def citations(text: str) -> list[tuple[int, str, str]]:
    """(line, id, marked game's slug or "") for every rule id the text cites."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for start, rule in _cited_on(line):
            marker = MARKER.search(line[:start])
            found.append((number, rule, marker.group(1) if marker else ""))
    return found


def _cited_on(line: str) -> list[tuple[int, str]]:
    cited = [(m.start(), m.group(1) + (m.group(2) or "")) for m in CITED_LABEL.finditer(line)]
    for m in CITED_SECTION.finditer(line):
        cited += [(m.start(), n) for n in re.findall(NUM, m.group(1))]
    for m in CITED_APPENDIX.finditer(line):
        cited.append((m.start(), f"{m.group(1)}.{m.group(2)}" if m.group(2) else f"Appendix {m.group(1)}"))
    return cited


def game_of(path: Path) -> str:
    """The package whose spec a file's citations are checked against; "" for shared files."""
    relative = path.relative_to(ROOT).as_posix()
    for package in GAMES:
        if relative.startswith((f"service/games/{package}/", f"tests/{package}/")) or (
            relative.startswith("tests/") and package in path.name
        ):
            return package
    if relative.startswith("tests/"):
        return next((SHORT[name] for name in SHORT if name in path.name), "")
    return ""


def unknown_citations(files: list[Path], specs: dict[str, set[str]]) -> list[str]:
    """'path:line: id (spec)' for each cited id its spec does not define."""
    everything = set().union(*specs.values())
    slug_to_package = {slug: package for package, slug in GAMES.items()}
    wrong = []
    for path in files:
        home = game_of(path)
        for line, rule, marker in citations(path.read_text(encoding="utf-8")):
            game = slug_to_package[marker] if marker else home
            if rule not in (specs[game] if game else everything):
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {rule} ({GAMES.get(game, 'any spec')})")
    return wrong


def specs() -> dict[str, set[str]]:
    return {package: defined_ids(spec.read_text(encoding="utf-8")) for package, spec in SPECS.items()}


def scanned_files() -> list[Path]:
    """Every text file under service/ and tests/ but this one, whose self-check cites a made-up id, and but
    what is installed there (the peer bench's ``node_modules``, after a run)."""
    return sorted(
        p
        for folder in SCANNED
        for p in folder.rglob("*")
        if p.suffix in SUFFIXES
        and p.is_file()
        and not {"__pycache__", "node_modules"} & set(p.parts)
        and p != Path(__file__).resolve()
        and p.name != "rules.md"  # a spec itself
    )


def test_every_cited_rule_id_is_defined_by_its_games_spec():
    assert unknown_citations(scanned_files(), specs()) == []


def test_the_check_reports_a_made_up_id(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    made_up = tmp_path / "service" / "games" / "block_block" / "engine.py"
    made_up.parent.mkdir(parents=True)
    made_up.write_text('raise Illegal("no such rule (R-99.99)")  # R-2.8 and spec 1.5.3 exist\n')
    assert unknown_citations([made_up], specs()) == [
        "service/games/block_block/engine.py:1: R-99.99 (block-block)"
    ]


def test_the_spec_reader_finds_each_kind_of_id():
    block_block, blackout, chock, blokus = (
        specs()[g] for g in ("block_block", "blackout_hong_kong", "chock_a_block", "blokus")
    )
    assert {
        "R-2.8",
        "S-4",
        "E-6",
        "AE-1",
        "A-01",
        "T-23",
        "K-9",
        "D-6",
        "0.5.5",
        "1.8.1",
        "A.6",
        "Appendix A",
    } <= block_block
    assert {"R-4.2c", "R-4.6.1", "R-0.4b", "OD-6", "C-11", "A-47", "T-22", "3.9", "8.3"} <= blackout
    assert {"R-1.4a", "R-3.3c", "V-5", "P-9", "T-12b", "7.11", "A.3"} <= chock
    assert {"2.2", "2.7", "4.3", "1", "Appendix A"} <= blokus
    assert "R-99.99" not in block_block | blackout | chock | blokus


def test_citations_are_read_in_each_form():
    text = (
        "(spec 2.2) §7.6 spec §8.4 sections 1, 2, 3.1 and 4 Appendix A.3 R-4.2(c) T-1..T-23\n"
        "# blokus spec 2.7: no voluntary pass\n"
    )
    assert [(rule, marker) for _, rule, marker in citations(text)] == [
        ("R-4.2c", ""),
        ("T-1", ""),
        ("T-23", ""),
        ("2.2", ""),
        ("7.6", ""),
        ("8.4", ""),
        ("1", ""),
        ("2", ""),
        ("3.1", ""),
        ("4", ""),
        ("A.3", ""),
        ("2.7", "blokus"),
    ]
