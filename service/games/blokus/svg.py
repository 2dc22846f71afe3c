"""A picture of a Blokus view: the board, one square per cell, in the colours' own colours."""

from __future__ import annotations

from html import escape

from service.games.blokus.names import colour_name
from service.games.texts import catalogue

_ = catalogue(__file__).gettext

FILL = {
    "blue": "#2f6fd6",
    "yellow": "#f2c21b",
    "red": "#d8342c",
    "green": "#2e9d47",
    "purple": "#7b3fb0",
    "orange": "#ee7d1f",
}
CELL = 22


def render_svg(view: dict) -> str:
    width, height = view["width"], view["height"]
    board_w, board_h = width * CELL, height * CELL
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{board_w + 220}" height="{max(board_h, 140) + 8}" '
        f'viewBox="0 0 {board_w + 220} {max(board_h, 140) + 8}" font-family="sans-serif" font-size="12">',
        f'<rect x="0" y="0" width="{board_w}" height="{board_h}" fill="#f4f1ea" stroke="#555"/>',
    ]
    for y, row in enumerate(view["board"]):
        for x, colour in enumerate(row):
            fill = FILL.get(colour, "#888") if colour else "none"
            parts.append(
                f'<rect x="{x * CELL}" y="{y * CELL}" width="{CELL}" height="{CELL}" '
                f'fill="{fill}" stroke="#bbb" stroke-width="0.5"/>'
            )
    for entry in view["colours"]:
        if entry["start"]:
            x, y = entry["start"]
            parts.append(
                f'<circle cx="{x * CELL + CELL / 2}" cy="{y * CELL + CELL / 2}" r="3" '
                f'fill="{FILL.get(entry["colour"], "#888")}"/>'
            )
    for i, entry in enumerate(view["colours"]):
        held = _("shared") if entry["seat"] is None else _("seat {seat}", seat=entry["seat"])  # whose colour
        line = (
            _(
                "{colour} ({held}): {squares} left (out)",
                colour=colour_name(entry["colour"]),
                held=held,
                squares=entry["squares_left"],
            )
            if entry["out"]
            else _(
                "{colour} ({held}): {squares} left",
                colour=colour_name(entry["colour"]),
                held=held,
                squares=entry["squares_left"],
            )
        )
        parts.append(
            f'<rect x="{board_w + 12}" y="{12 + i * 22}" width="14" height="14" '
            f'fill="{FILL.get(entry["colour"], "#888")}"/>'
            f'<text x="{board_w + 32}" y="{24 + i * 22}">{escape(line)}</text>'
        )
    status = (
        _("game over")
        if view["over"]
        else (
            _("{colour} to move", colour=colour_name(view["to_move"]["colour"]))
            if view["to_move"]
            else _("any colour may move")
        )
    )
    parts.append(f'<text x="{board_w + 12}" y="{24 + len(view["colours"]) * 22}">{escape(status)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)
