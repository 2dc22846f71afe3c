"""A picture of a BLOCK.BLOCK view: the top view (each cell's top colour and height, which is what
scores, E-2) beside a simple isometric view of the stack. Pure: ``render_svg(view) -> str``, a
standalone SVG document built from nothing but what ``BlockBlock.view`` returned.

The top view draws row y = depth - 1 at the top, as the spec's tables do; the isometric view shows
the same board turned 45 degrees, seen from the corner (width - 1, 0), so its +X and -Y sides. Side
faces take the owner's colour (the coloured end faces of I3 and I4 are shown where they count: on
top).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from xml.sax.saxutils import escape

from service.games.block_block.names import colour_word, end_reason
from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

FILL = {"BROWN": "#8b5a2b", "WHITE": "#f3efe4", "HALF": "url(#half)", None: "#e6e6e6"}
SIDE = {
    "BROWN": ("#6f4622", "#5a391b"),
    "WHITE": ("#d9d4c5", "#c4bfae"),
    "HALF": ("url(#half)", "url(#half)"),
}
TOPS = {"BROWN": N_("BROWN"), "WHITE": N_("WHITE"), "HALF": N_("HALF"), None: N_("empty")}
"""A cell's top in its tooltip (upper case: the view's own words, as the English picture has always said)."""
INK = {"BROWN": "#ffffff", "WHITE": "#222222", "HALF": "#222222", None: "#777777"}

CELL = 44  # top view cell, px
A, B, C = 18, 9, 18  # isometric: half width and half depth of a cube's top, and its height
MARGIN = 28


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _polygon(points: Iterable[tuple[float, float]], fill: str, stroke: str = "#333333") -> str:
    coords = " ".join(f"{_num(x)},{_num(y)}" for x, y in points)
    return f'<polygon points="{coords}" fill="{fill}" stroke="{stroke}" stroke-width="0.8"/>'


def _text(
    x: float,
    y: float,
    text: str,
    size: int = 12,
    fill: str = "#222222",
    anchor: str = "middle",
    weight: str = "normal",
) -> str:
    return (
        f'<text x="{_num(x)}" y="{_num(y)}" font-family="sans-serif" font-size="{size}" fill="{fill}" '
        f'text-anchor="{anchor}" font-weight="{weight}">{escape(text)}</text>'
    )


def _status(view: dict[str, Any]) -> str:
    result = view.get("result")
    if result:
        if result["winner"] is None:
            return _("Game over: draw ({reason})", reason=end_reason(result["reason"]))
        return _(
            "Game over: {colour} wins ({reason})",
            colour=colour_word(result["winner"]),
            reason=end_reason(result["reason"]),
        )
    to_move = view.get("to_move")
    if not to_move:
        return ""
    return _(
        "Move {number}: {colour} to play", number=view["move_no"] + 1, colour=colour_word(to_move["colour"])
    )


def _top(top: str | None) -> str:
    return _(TOPS[top]) if top in TOPS else str(top)


def render_svg(view: dict[str, Any]) -> str:
    width, depth = view["board"]["width"], view["board"]["depth"]
    heights, tops = view["heights"], view["tops"]
    tallest = max([max(row) for row in heights] + [1])

    top_w = width * CELL
    top_h = depth * CELL
    iso_w = (width + depth) * A
    iso_h = (width + depth) * B + tallest * C
    header = 64
    gap = 48  # between the views: room for the isometric view's "(0, 0)" label
    colours = view["colours"]
    score = "   ".join(
        _("{colour}: {score}", colour=colour_word(c["colour"]), score=_num(c["visible_score"]))
        for c in colours
    )
    pack = view.get("pack", {})
    note = (
        "" if pack.get("publisher_data", False) else "   " + _("(generated piece set, not the publisher's)")
    )
    title = f"BLOCK.BLOCK   {_status(view)}"
    subtitle = _("seen from above: {scores}", scores=score) + note
    # text is measured roughly (0.62 em a character, bold): wide enough that the header never clips
    text_w = MARGIN * 2 + max(len(title) * 15, len(subtitle) * 12) * 0.62
    total_w = round(max(MARGIN * 2 + gap + top_w + iso_w + MARGIN, text_w))
    total_h = header + max(top_h + 24, iso_h) + MARGIN + 20

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{total_h}" '
        f'viewBox="0 0 {total_w} {total_h}">',
        "<title>BLOCK.BLOCK</title>",
        '<defs><linearGradient id="half" x1="0" y1="0" x2="1" y2="1">'
        f'<stop offset="0.5" stop-color="{FILL["BROWN"]}"/><stop offset="0.5" stop-color="{FILL["WHITE"]}"/>'
        "</linearGradient></defs>",
        f'<rect x="0" y="0" width="{total_w}" height="{total_h}" fill="#ffffff"/>',
    ]
    out.append(_text(MARGIN, 24, title, 15, anchor="start", weight="bold"))
    out.append(_text(MARGIN, 44, subtitle, 12, anchor="start"))

    # -- top view -----------------------------------------------------------------------------------
    ox, oy = MARGIN * 2, header
    out.append('<g id="top-view">')
    for y in range(depth):
        for x in range(width):
            px, py = ox + x * CELL, oy + (depth - 1 - y) * CELL
            top = tops[y][x]
            tip = _("({x}, {y}): {top}, height {height}", x=x, y=y, top=_top(top), height=heights[y][x])
            out.append(
                f'<rect x="{px}" y="{py}" width="{CELL}" height="{CELL}" fill="{FILL[top]}" '
                f'stroke="#333333" stroke-width="1"><title>{escape(tip)}</title></rect>'
            )
            if heights[y][x]:
                out.append(
                    _text(px + CELL / 2, py + CELL / 2 + 5, str(heights[y][x]), 15, INK[top], weight="bold")
                )
    for x in range(width):
        out.append(_text(ox + x * CELL + CELL / 2, oy + top_h + 16, str(x), 11, "#555555"))
    for y in range(depth):
        out.append(_text(ox - 10, oy + (depth - 1 - y) * CELL + CELL / 2 + 4, str(y), 11, "#555555"))
    out.append(_text(ox + top_w / 2, oy + top_h + 32, _("top view (top colour / height)"), 11, "#555555"))
    out.append("</g>")

    # -- isometric view -----------------------------------------------------------------------------
    base_x = MARGIN * 2 + gap + top_w + depth * A
    base_y = header + tallest * C

    def p(x: float, v: float, z: float) -> tuple[float, float]:
        # v = depth - y: the row y = 0 is nearest, as at the bottom of the top view
        return base_x + (x - v) * A, base_y + (x + v) * B - z * C

    out.append('<g id="isometric-view">')
    out.append(
        _polygon([p(0, 0, 0), p(width, 0, 0), p(width, depth, 0), p(0, depth, 0)], "#eeeeee", "#999999")
    )
    cubes = []
    for piece in view.get("placed", []):
        for (x, y, z), top in zip(piece["cubes"], piece["top_colours"]):
            v = depth - 1 - y
            cubes.append((x + v, z, x, v, piece["colour"], top))
    for _nearness, z, x, v, owner, top in sorted(cubes):  # far to near, bottom to top: the painter's order
        side = SIDE["HALF"] if top == "HALF" else SIDE[owner]
        x1, v1, z1 = x + 1, v + 1, z + 1
        out.append(_polygon([p(x1, v, z), p(x1, v1, z), p(x1, v1, z1), p(x1, v, z1)], side[0]))  # +X side
        out.append(_polygon([p(x, v1, z), p(x1, v1, z), p(x1, v1, z1), p(x, v1, z1)], side[1]))  # front side
        out.append(_polygon([p(x, v, z1), p(x1, v, z1), p(x1, v1, z1), p(x, v1, z1)], FILL[top]))  # top
    lx, ly = p(0, depth, 0)
    out.append(_text(lx - 4, ly + 12, "(0, 0)", 10, "#777777", anchor="end"))
    lx, ly = p(width, depth, 0)
    out.append(_text(lx, ly + 16, _("isometric view"), 11, "#555555"))
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
