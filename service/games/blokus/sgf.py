"""Blokus game records in Pentobi's SGF dialect (spec 5.2; MIME ``application/x-blokus-sgf``).

A record is a game-information node, then one node per move::

    (;GM[Blokus]CA[UTF-8]P1[ann]P2[bob]P3[cat]P4[dan]
    ;1[a20,b20];2[t20,s20];3[t1];4[a1] ...)

``GM`` names the game (``Blokus``, ``Blokus Two-Player``, ``Blokus Three-Player``, ``Blokus Duo``);
moves are properties ``1``..``4`` for the four colours in play order, or ``B``/``W`` in two-colour
games; a move lists its squares as column letters from ``a`` at the left and row numbers from ``1``
at the BOTTOM. Pentobi has no solo variants: we write them as ``GM[Blokus]`` with our own ``MLV``
property naming the variant, which other readers ignore.

Reading is lenient where Pentobi is (whitespace anywhere, unknown properties, side variations: only
the main line is read) and strict where a move could be misread.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from service.games.protocol import InvalidRecord

MIME = "application/x-blokus-sgf"
GAME_NAMES = {
    "four_player": "Blokus",
    "two_player": "Blokus Two-Player",
    "three_player": "Blokus Three-Player",
    "duo": "Blokus Duo",
}
VARIANT_OF_GAME = {name: variant for variant, name in GAME_NAMES.items()}
TWO_COLOUR_MOVES = ("B", "W")
SETUP_PROPERTIES = {"AB", "AW", "AE", "A1", "A2", "A3", "A4"}
_LOOKS_LIKE_A_MOVE = re.compile(r"[0-9]+|B|W")


# -- writing -------------------------------------------------------------------------------------


class Layout(Protocol):
    """What a record reads of a variant (``engine.Variant``, which imports this module)."""

    @property
    def name(self) -> str: ...

    @property
    def width(self) -> int: ...

    @property
    def height(self) -> int: ...

    @property
    def colours(self) -> tuple[str, ...]: ...

    @property
    def players(self) -> int: ...


def move_tag(variant: Layout, colour: int) -> str:
    """The property (and Pentobi's GTP colour) of a colour's moves: ``B``/``W`` with two colours, else ``1``..``4``."""
    return TWO_COLOUR_MOVES[colour] if len(variant.colours) == 2 else str(colour + 1)


def move_text(variant: Layout, cells: list[list[int]]) -> str:
    """A placement's squares as a move value (and Pentobi's GTP move): ``e10,d9``, rows from the bottom."""
    return ",".join(f"{chr(ord('a') + x)}{variant.height - y}" for x, y in cells)


def move_cells(variant: Layout, text: str) -> list[list[int]]:
    """The squares ``[x, y]`` (from the top-left) of a move value; InvalidRecord if one cannot be read."""
    squares = [s for s in text.split(",") if s.strip()]
    if not squares:
        raise InvalidRecord("no squares")
    return [_cell(s, variant) for s in squares]


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def export(variant: Layout, players: list[str], events: list[dict[str, Any]]) -> str:
    game = GAME_NAMES.get(variant.name, "Blokus")
    info = f"GM[{game}]CA[UTF-8]AP[matchlog]"
    if variant.name not in GAME_NAMES:
        info += f"MLV[{variant.name}]"
    if len(variant.colours) == 2:
        info += "".join(f"{tag}[{_escape(name)}]" for tag, name in zip(("PB", "PW"), players))
    else:
        info += "".join(f"P{i}[{_escape(name)}]" for i, name in enumerate(players, start=1))
    nodes = [info]
    for event in events:
        if event["type"] != "placed":
            continue
        tag = move_tag(variant, variant.colours.index(event["data"]["colour"]))
        nodes.append(f"{tag}[{move_text(variant, event['data']['cells'])}]")
    return "(;" + "\n;".join(nodes) + ")\n"


# -- reading -------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"\s*(?:(?P<punct>[();])|(?P<ident>[A-Za-z0-9]+)\s*(?P<values>(?:\[(?:\\.|[^\]\\])*\]\s*)+))", re.S
)
_VALUE = re.compile(r"\[((?:\\.|[^\]\\])*)\]", re.S)


def _tokens(text: str) -> list[tuple[str, Any]]:
    tokens: list[tuple[str, Any]] = []
    pos, end = 0, len(text.rstrip())
    while pos < end:
        match = _TOKEN.match(text, pos)
        if not match:
            raise InvalidRecord(f"unreadable SGF at character {pos}: {text[pos : pos + 20]!r}")
        pos = match.end()
        if match["punct"]:
            tokens.append((match["punct"], None))
        else:
            values = [re.sub(r"\\(.)", r"\1", v) for v in _VALUE.findall(match["values"])]
            tokens.append(("property", (match["ident"].upper(), values)))
    return tokens


def _main_line(tokens: list[tuple[str, Any]], at: int = 0) -> tuple[list[dict[str, list[str]]], int]:
    """The nodes of the game tree starting at ``tokens[at]``, following the first variation at each
    branch (the main line); returns them and the index after the tree."""
    if at >= len(tokens) or tokens[at][0] != "(":
        raise InvalidRecord("a game tree must start with '('")
    at += 1
    nodes: list[dict[str, list[str]]] = []
    while at < len(tokens) and tokens[at][0] == ";":
        node: dict[str, list[str]] = {}
        at += 1
        while at < len(tokens) and tokens[at][0] == "property":
            ident, values = tokens[at][1]
            node.setdefault(ident, []).extend(values)
            at += 1
        nodes.append(node)
    first = True
    while at < len(tokens) and tokens[at][0] == "(":
        branch, at = _main_line(tokens, at)
        if first:
            nodes += branch
            first = False
    if at >= len(tokens) or tokens[at][0] != ")":
        raise InvalidRecord("unbalanced parentheses: the record is cut short or malformed")
    return nodes, at + 1


def _cell(square: str, variant: Layout) -> list[int]:
    match = re.fullmatch(r"([a-z])(\d{1,2})", square.strip())
    if not match:
        raise InvalidRecord(f"{square!r} is not a square like 'c18'")
    x = ord(match[1]) - ord("a")
    y = variant.height - int(match[2])
    if not (0 <= x < variant.width and 0 <= y < variant.height):
        raise InvalidRecord(f"square {square!r} is off the {variant.width}x{variant.height} board")
    return [x, y]


def parse(text: str, variants: dict[str, Any]) -> tuple[dict[str, Any], list[str], list[dict[str, Any]]]:
    """(options, player names, actions) of a record; InvalidRecord if it cannot be read.

    Whether the moves are legal is not judged here: the caller plays them through the rules."""
    nodes, _ = _main_line(_tokens(text))
    root = nodes[0]
    if SETUP_PROPERTIES & root.keys():
        raise InvalidRecord(
            f"setup properties ({sorted(SETUP_PROPERTIES & root.keys())}) are not supported: "
            "a record must start from the empty board"
        )
    game = (root.get("GM") or [""])[0].strip()
    if game not in VARIANT_OF_GAME:
        raise InvalidRecord(
            f"GM[{game}] is not a Blokus game this server plays; expected one of {sorted(VARIANT_OF_GAME)}"
        )
    name = (root.get("MLV") or [VARIANT_OF_GAME[game]])[0]
    if name not in variants:
        raise InvalidRecord(f"MLV[{name}] is not a Blokus variant")
    variant = variants[name]
    two_colour = len(variant.colours) == 2
    if two_colour:
        names = [
            (root.get(tag) or root.get(f"P{i}") or [""])[0] for i, tag in enumerate(("PB", "PW"), start=1)
        ]
    else:
        names = [(root.get(f"P{i}") or [""])[0] for i in range(1, variant.players + 1)]
    players = [n.strip() or f"player {i + 1}" for i, n in enumerate(names[: variant.players])]

    move_tags = TWO_COLOUR_MOVES if two_colour else tuple(str(i + 1) for i in range(len(variant.colours)))
    actions = []
    for number, node in enumerate(nodes[1:], start=1):
        if SETUP_PROPERTIES & node.keys():
            raise InvalidRecord(
                f"move {number}: setup properties ({sorted(SETUP_PROPERTIES & node.keys())}) "
                "are not supported: a record must start from the empty board"
            )
        foreign = sorted(tag for tag in node if tag not in move_tags and _LOOKS_LIKE_A_MOVE.fullmatch(tag))
        if foreign:  # a move of another variant's dialect: dropping it would play a different game
            raise InvalidRecord(
                f"move {number}: {foreign[0]}[...] is not a move in GM[{game}], whose moves are "
                + ", ".join(f"{tag}[...]" for tag in move_tags)
            )
        moves = [(tag, values) for tag, values in node.items() if tag in move_tags]
        if not moves:
            continue  # a node with only comments or markup
        if len(moves) > 1 or len(moves[0][1]) != 1:
            raise InvalidRecord(f"move {number}: a node must hold exactly one move")
        tag, (value,) = moves[0]
        if not any(s.strip() for s in value.split(",")):
            raise InvalidRecord(f"move {number}: no squares")
        actions.append(
            {
                "type": "place",
                "colour": variant.colours[move_tags.index(tag)],
                "cells": move_cells(variant, value),
            }
        )
    return {"variant": name}, players, actions
