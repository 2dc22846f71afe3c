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

from service.games.chock_a_block.names import GENERATED_NOTE, card_name, tile_name, token_name
from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

CELL = 30
HAND_CELL = 26  # a card in the hand, large enough to read its rooms' letters
LETTER = {"CAT": "C", "UNDERWEAR": "U", "FLOWER": "F", "BIRD": "B"}
KEY = N_(
    "C cat · U underwear · F flower · B bird · struck through: closed · R: a room for rent · discs: neighbour tiles"
)
"""What the letters on rooms and tiles stand for (the letters are the English initials in every language: the
picture's own marks, explained here)."""
FEATURE_IDS = {"CAT": N_("CAT"), "UNDERWEAR": N_("UNDERWEAR"), "FLOWER": N_("FLOWER"), "BIRD": N_("BIRD")}
"""Autoblock's excluded feature as the English picture has always said it (the view's id, upper case)."""
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
        _named(x + size / 2, y + size + 11, tile_name(tile, features), tile, size + 6),
    ]


def _named(x: float, y: float, name: str, item_id: str, width: float, weight: str = "normal") -> str:
    """An item's name (the box's word for it) centred at (x, y), squeezed into ``width`` if longer; its id
    is the tooltip."""
    fit = f' textLength="{width:g}" lengthAdjust="spacingAndGlyphs"' if len(name) * 5 > width else ""
    return (
        f'<text x="{x:g}" y="{y:g}" font-family="sans-serif" font-size="9" text-anchor="middle" '
        f'font-weight="{weight}" fill="{INK}"{fit}><title>{escape(name)} ({escape(item_id)})</title>'
        f"{escape(name)}</text>"
    )


def _building(
    x0: float, y0: float, player: dict[str, Any], rgb: dict[str, str]
) -> tuple[list[str], float, float]:
    rooms = player.get("rooms") or []
    if not rooms:
        return [_text(x0, y0 + 14, _("(no card yet)"), 11, fill="#777777")], 6 * CELL, 2 * CELL
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
        mark = card["card"] if card["face"] == "FRONT" else _("{card} (back)", card=card["card"])
        out.append(_text(px + 2, py + 8, mark, 7, fill="#333333"))
    return out, width, height


def _excluded(feature: str | None) -> str:
    if not feature:
        return _("none")
    return _(FEATURE_IDS[feature]) if feature in FEATURE_IDS else feature


def _note(note: str) -> str:
    return _(GENERATED_NOTE) if note == GENERATED_NOTE else note


def render_svg(view: dict[str, Any]) -> str:
    rgb = {c["id"]: c.get("rgb") or "#CCCCCC" for c in view.get("colours", [])}
    faces = view.get("card_faces", {})
    tiles = view.get("tile_features", {})
    body: list[str] = []
    y: float = 24
    title = _(
        "Chock-a-Block - {mode} {rules} - round {round}/{rounds} - step {step}",
        mode=view.get("mode"),
        rules=view.get("building_rules"),
        round=view.get("round"),
        rounds=view.get("rounds"),
        step=view.get("step"),
    )
    if view.get("active") is not None:
        title += " - " + _("seat {seat} to act", seat=view["active"])
    if view.get("over"):
        title += " - " + _("game over")
    body.append(_text(12, y, title, 16, weight="bold"))
    pack = view.get("pack") or {}
    y += 18
    body.append(
        _text(
            12,
            y,
            _("pack {id} {version}", id=pack.get("id"), version=pack.get("version"))
            + (f" ({_note(pack['note'])})" if pack.get("note") else ""),
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
            _("Block market ({layout}), deck {deck}:", layout=view.get("layout"), deck=view.get("deck_size")),
            12,
            weight="bold",
        )
    )
    mx = 12
    for card in view.get("block_market", []):
        face = faces.get(card, {}).get("FRONT") if card else None
        body += _face(mx, y + 20, face, rgb, 18)
        body.append(
            _named(mx + 18, y + 20 + 36 + 11, card_name(card), card, 40)
            if card
            else _text(mx + 18, y + 67, "-", 9)
        )
        mx += 46
    tx = max(mx + 40, 250)
    body.append(
        _text(
            tx,
            y + 12,
            _("Neighbour market, pile {pile}:", pile=view.get("tile_pile_size")),
            12,
            weight="bold",
        )
    )
    for slot, tile in enumerate(view.get("neighbour_market", [])):
        body += _tile(tx + slot * 34, y + 22, tile, tiles.get(tile) if tile else None)
    sx = tx + 34 * max(5, len(view.get("neighbour_market", []))) + 20
    body.append(_text(sx, y + 12, _("Token supply:"), 12, weight="bold"))
    supply = [token_name(t["feature"], t["value"]) for t in view.get("token_supply", [])]
    for i in range(0, len(supply), 3):
        body.append(_text(sx, y + 28 + 13 * (i // 3), "; ".join(supply[i : i + 3]), 10))
    y += 80

    ab = view.get("autoblock")
    if ab:
        body.append(
            _text(
                12,
                y,
                _(
                    "Autoblock ({level}, excluded {feature}): {score} points, turns {turns}, tiles {tiles}, "
                    "icons {icons}",
                    level=ab["level"],
                    feature=_excluded(ab.get("excluded_feature")),
                    score=ab["score"],
                    turns=ab["turns"],
                    tiles=len(ab["tiles"]),
                    icons=", ".join(f"{LETTER.get(f, f)}{n}" for f, n in ab["icons"].items()),
                ),
                12,
            )
        )
        body.append(_text(24, y + 15, _("tokens: {tokens}", tokens=" ".join(ab["tokens"]) or _("none")), 11))
        y += 34
    if view.get("discard"):
        body.append(
            _text(
                12,
                y,
                _("Discarded by Autoblock: {count} cards", count=len(view["discard"])),
                11,
                fill="#555555",
            )
        )
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
                _(
                    "Seat {seat}: {score} points, {neighbours} neighbours",
                    seat=player["seat"],
                    score=player.get("score", 0),
                    neighbours=player["neighbours"],
                ),
                12,
                weight="bold",
            ),
            _text(
                x,
                y + 27,
                _(
                    "hand {size}: {cards}",
                    size=player["hand_size"],
                    cards=", ".join(map(card_name, player["hand"])),
                )
                if player.get("hand") is not None
                else _("hand {size}", size=player["hand_size"]),
                10,
            ),
        ]
        tokens = player.get("tokens") or []
        foot = [
            _text(
                x,
                y + 40 + height + 18,
                _(
                    "tokens: {tokens}",
                    tokens="; ".join(token_name(t["feature"], t["value"]) for t in tokens) or _("none"),
                ),
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
        body.append(_text(12, y, _("Your hand (front, back):"), 12, weight="bold"))
        hx = 12
        for card in me["hand"]:
            for face in ("FRONT", "BACK"):
                body += _face(hx, y + 8, faces.get(card, {}).get(face), rgb, HAND_CELL)
                hx += 2 * HAND_CELL + 6
            body.append(
                _named(hx - 2 * HAND_CELL - 6, y + 8 + 2 * HAND_CELL + 14, card_name(card), card, 60, "bold")
            )
            hx += 18
        y += 2 * HAND_CELL + 34
    body.append(_text(12, y, _(KEY), 11, fill="#555555"))  # what the letters on rooms and tiles stand for
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
