"""A picture of what ``view`` returned: ``render_svg(view) -> str``, a standalone SVG document.

It draws from the view only, so it can never show more than the viewer may see: each player's
building (rooms in their colours, vacant "for rent" rooms hatched and marked R, feature icons as
letters C/U/F/B, closed icons struck through, neighbour tiles as white discs with their icons, card
outlines), the tokens each player claimed, the markets, the token supply, Autoblock, and the viewer's
own hand. The pack's provenance note is printed when the data is generated (P-10).
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

CELL = 30
HAND_CELL = 26  # a card in the hand, large enough to read its rooms' letters
LETTER = {"CAT": "C", "UNDERWEAR": "U", "FLOWER": "F", "BIRD": "B"}
KEY = "C cat · U underwear · F flower · B bird · struck through: closed · R: a room for rent · discs: neighbour tiles"
INK = "#222222"


def _text(
    x: float,
    y: float,
    text: str,
    size: int = 12,
    anchor: str = "start",
    weight: str = "normal",
    fill: str = INK,
    decoration: str | None = None,
) -> str:
    extra = f' text-decoration="{decoration}"' if decoration else ""
    return (
        f'<text x="{x:g}" y="{y:g}" font-family="sans-serif" font-size="{size}" text-anchor="{anchor}" '
        f'font-weight="{weight}" fill="{fill}"{extra}>{escape(str(text))}</text>'
    )


def _rect(
    x: float, y: float, w: float, h: float, fill: str, stroke: str = INK, width: float = 1, extra: str = ""
) -> str:
    return (
        f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill={quoteattr(fill)} '
        f'stroke="{stroke}" stroke-width="{width:g}"{extra}/>'
    )


def _room(x: float, y: float, size: float, room: dict[str, Any], rgb: dict[str, str]) -> list[str]:
    """One room, its top-left corner at (x, y)."""
    out = []
    if room.get("tile"):
        out.append(_rect(x, y, size, size, "#FFFFFF", "#888888"))
        out.append(
            f'<circle cx="{x + size / 2:g}" cy="{y + size / 2:g}" r="{size * 0.42:g}" fill="#FFFFFF" '
            f'stroke="{INK}" stroke-width="1.5"/>'
        )
    else:
        fill = rgb.get(room.get("colour") or "", "#CCCCCC")  # a room of no colour is grey
        out.append(_rect(x, y, size, size, fill, "#666666"))
        if room.get("vacant"):
            out.append(_rect(x, y, size, size, "url(#rent)", "#666666"))
            out.append(
                _text(x + size / 2, y + size / 2 + 4, "R", int(size * 0.4), "middle", "bold", "#555555")
            )
    closed = set(room.get("closed") or [])
    features = room.get("features") or []
    for i, feature in enumerate(features):
        fx = x + size / 2 + (i - (len(features) - 1) / 2) * size * 0.32
        out.append(
            _text(
                fx,
                y + size / 2 + 4,
                LETTER.get(feature, feature[:1]),
                int(size * 0.36),
                "middle",
                "bold",
                "#777777" if feature in closed else INK,
                "line-through" if feature in closed else None,
            )
        )
    return out


def _face(x: float, y: float, face: dict[str, Any] | None, rgb: dict[str, str], size: float) -> list[str]:
    """A card face (2 x 2 rooms) with its top-left corner at (x, y)."""
    if face is None:
        return [_rect(x, y, 2 * size, 2 * size, "#EEEEEE", "#999999")]
    out = []
    for corner, (dx, dy) in {"TL": (0, 0), "TR": (1, 0), "BL": (0, 1), "BR": (1, 1)}.items():
        out += _room(x + dx * size, y + dy * size, size, face[corner], rgb)
    out.append(_rect(x, y, 2 * size, 2 * size, "none", INK, 2))
    return out


def _tile(x: float, y: float, tile: str | None, features: list[str] | None, size: float = 26) -> list[str]:
    if tile is None:
        return [_rect(x, y, size, size, "#F4F4F4", "#BBBBBB")]
    letters = "".join(LETTER.get(f, "?") for f in features or [])
    return [
        _rect(x, y, size, size, "#FFFFFF", INK, 1, ' rx="13"'),
        _text(x + size / 2, y + size / 2 + 4, letters, 11, "middle", "bold"),
        _text(x + size / 2, y + size + 11, tile, 9, "middle"),
    ]


def _building(
    x0: float, y0: float, player: dict[str, Any], rgb: dict[str, str]
) -> tuple[list[str], float, float]:
    rooms = player.get("rooms") or []
    if not rooms:
        return [_text(x0, y0 + 14, "(no card yet)", 11, fill="#777777")], 6 * CELL, 2 * CELL
    xs = [r["x"] for r in rooms]
    ys = [r["y"] for r in rooms]
    min_x, max_x, max_y = min(xs), max(xs), max(ys)
    width, height = (max_x - min_x + 1) * CELL, (max_y + 1) * CELL

    def at(x: int, y: int) -> tuple[float, float]:
        return x0 + (x - min_x) * CELL, y0 + (max_y - y) * CELL

    out = [
        f'<line x1="{x0 - 4:g}" y1="{y0 + height:g}" x2="{x0 + width + 4:g}" y2="{y0 + height:g}" '
        f'stroke="{INK}" stroke-width="3"/>'
    ]
    for room in rooms:
        px, py = at(room["x"], room["y"])
        out += _room(px, py, CELL, room, rgb)
    for card in player.get("cards") or []:
        cx, cy = (
            (2 * card["column"], 2 * card["row"]) if "column" in card else (card["room_x"], card["room_y"])
        )
        px, py = at(cx, cy + 1)
        out.append(_rect(px, py, 2 * CELL, 2 * CELL, "none", INK, 2))
        mark = "" if card["face"] == "FRONT" else " (back)"
        out.append(_text(px + 2, py + 8, card["card"] + mark, 7, fill="#333333"))
    return out, width, height


def render_svg(view: dict[str, Any]) -> str:
    rgb = {c["id"]: c.get("rgb") or "#CCCCCC" for c in view.get("colours", [])}
    faces = view.get("card_faces", {})
    tiles = view.get("tile_features", {})
    body: list[str] = []
    y: float = 24
    title = (
        f"Chock-a-Block - {view.get('mode')} {view.get('building_rules')} - round {view.get('round')}/"
        f"{view.get('rounds')} - step {view.get('step')}"
    )
    if view.get("active") is not None:
        title += f" - seat {view['active']} to act"
    if view.get("over"):
        title += " - game over"
    body.append(_text(12, y, title, 16, weight="bold"))
    pack = view.get("pack") or {}
    y += 18
    body.append(
        _text(
            12,
            y,
            f"pack {pack.get('id')} {pack.get('version')}"
            + (f" ({pack.get('note')})" if pack.get("note") else ""),
            11,
            fill="#884400",
        )
    )

    # markets
    y += 14
    body.append(
        _text(
            12,
            y + 12,
            f"Block market ({view.get('layout')}), deck {view.get('deck_size')}:",
            12,
            weight="bold",
        )
    )
    mx = 12
    for slot, card in enumerate(view.get("block_market", [])):
        face = faces.get(card, {}).get("FRONT") if card else None
        body += _face(mx, y + 20, face, rgb, 18)
        body.append(_text(mx + 18, y + 20 + 36 + 11, f"{slot}: {card or '-'}", 9, "middle"))
        mx += 46
    tx = max(mx + 40, 250)
    body.append(_text(tx, y + 12, f"Neighbour market, pile {view.get('tile_pile_size')}:", 12, weight="bold"))
    for slot, tile in enumerate(view.get("neighbour_market", [])):
        body += _tile(tx + slot * 34, y + 22, tile, tiles.get(tile) if tile else None)
    sx = tx + 34 * max(5, len(view.get("neighbour_market", []))) + 20
    body.append(_text(sx, y + 12, "Token supply:", 12, weight="bold"))
    supply = [t["token"] for t in view.get("token_supply", [])]
    for i in range(0, len(supply), 4):
        body.append(_text(sx, y + 28 + 13 * (i // 4), " ".join(supply[i : i + 4]), 10))
    y += 80

    ab = view.get("autoblock")
    if ab:
        body.append(
            _text(
                12,
                y,
                f"Autoblock ({ab['level']}, excluded {ab.get('excluded_feature') or 'none'}): "
                f"{ab['score']} points, turns {ab['turns']}, tiles {len(ab['tiles'])}, icons "
                + ", ".join(f"{LETTER.get(f, f)}{n}" for f, n in ab["icons"].items()),
                12,
            )
        )
        body.append(_text(24, y + 15, f"tokens: {' '.join(ab['tokens']) or 'none'}", 11))
        y += 34
    if view.get("discard"):
        body.append(_text(12, y, f"Discarded by Autoblock: {len(view['discard'])} cards", 11, fill="#555555"))
        y += 16

    # buildings, side by side
    y += 10
    x: float = 12
    tallest = 0.0
    panels = []
    for player in view.get("players", []):
        drawn, width, height = _building(x, y + 40, player, rgb)
        head = [
            _text(
                x,
                y + 12,
                f"Seat {player['seat']}: {player.get('score', 0)} points, {player['neighbours']} neighbours",
                12,
                weight="bold",
            ),
            _text(
                x,
                y + 27,
                f"hand {player['hand_size']}"
                + (f": {' '.join(player['hand'])}" if player.get("hand") is not None else ""),
                10,
            ),
        ]
        tokens = player.get("tokens") or []
        foot = [
            _text(
                x,
                y + 40 + height + 18,
                "tokens: " + (", ".join(f"{t['token']}" for t in tokens) or "none"),
                10,
            )
        ]
        panels += head + drawn + foot
        tallest = max(tallest, height)
        x += max(width, 6 * CELL) + 40
    body += panels
    y += 40 + tallest + 50

    # the viewer's hand, both faces
    me = next(
        (p for p in view.get("players", []) if p.get("hand") is not None and p["seat"] == view.get("viewer")),
        None,
    )
    if me and me["hand"]:
        body.append(_text(12, y, "Your hand (front, back):", 12, weight="bold"))
        hx = 12
        for card in me["hand"]:
            for face in ("FRONT", "BACK"):
                body += _face(hx, y + 8, faces.get(card, {}).get(face), rgb, HAND_CELL)
                hx += 2 * HAND_CELL + 6
            body.append(_text(hx - 2 * HAND_CELL - 6, y + 8 + 2 * HAND_CELL + 14, card, 11, "middle", "bold"))
            hx += 18
        y += 2 * HAND_CELL + 34
    body.append(_text(12, y, KEY, 11, fill="#555555"))  # what the letters on rooms and tiles stand for
    y += 16

    width = max(x, 760, 24 + 9.5 * len(title))
    height = y + 10
    defs = (
        '<defs><pattern id="rent" patternUnits="userSpaceOnUse" width="6" height="6" '
        'patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="#FFFFFF" '
        'stroke-width="2" stroke-opacity="0.8"/></pattern></defs>'
    )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
        f'viewBox="0 0 {width:g} {height:g}">'
        f"<title>Chock-a-Block</title>{defs}"
        f"{_rect(0, 0, width, height, '#FBFAF6', 'none', 0)}" + "".join(body) + "</svg>\n"
    )
