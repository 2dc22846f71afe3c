"""A picture of what ``view`` returned: ``render_svg(view) -> str``, a standalone SVG document.

It draws from the view only, so it never shows more than the viewer may see: the map (districts as
faint polygons with their tile count, houses and a mark once stabilised; locations in their colours
with crisis letters; each player's cubes as small squares in the player's colour), the rondel with the
dice on their sectors and each player's cubes per sector and batteries, the market with its prices
and the deck counts, and one panel per personal board (hidden cards as face-down boxes).
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

from service.games.blackout_hong_kong.names import card_name, district_name, location_name, number_of
from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

INK = "#222222"
PLAYER = ["#2E8B57", "#F5F5F5", "#C0392B", "#111111"]  # green, white, red, black
LOCATION = {"YELLOW": "#F4D03F", "BLUE": "#5DADE2", "PURPLE": "#A569BD"}
DIE = {"RED": "#E74C3C", "YELLOW": "#F1C40F", "BLUE": "#3498DB"}
WORDS = {
    "FOOD": N_("FOOD"),
    "TOOLS": N_("TOOLS"),
    "PETROL": N_("PETROL"),
    "WATER": N_("WATER"),
    "BOOKS": N_("BOOKS"),
    "MEDICINE": N_("MEDICINE"),
    "BATTERY": N_("BATTERY"),
    "POINTS": N_("POINTS"),
    "HORSE": N_("HORSE"),
    "TIGER": N_("TIGER"),
    "SHEEP": N_("SHEEP"),
    "DRAGON": N_("DRAGON"),
}
"""The resources, rewards and animals as the picture shows them: the view's own words (upper case), as the
English picture has always said them; another language says the rulebook's."""
DESCRIPTION = N_(
    "The map of Hong Kong with each player's cubes, the rondel and dice, the market, and each personal board "
    "as this viewer may see it."
)
MAP_SIZE = 560
PANEL_W = 560


def _text(
    x: float,
    y: float,
    text: Any,
    size: int = 12,
    anchor: str = "start",
    weight: str = "normal",
    fill: str = INK,
) -> str:
    return (
        f'<text x="{x:g}" y="{y:g}" font-family="sans-serif" font-size="{size}" text-anchor="{anchor}" '
        f'font-weight="{weight}" fill="{fill}">{escape(str(text))}</text>'
    )


def _rect(x: float, y: float, w: float, h: float, fill: str, stroke: str = INK, extra: str = "") -> str:
    return f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill={quoteattr(fill)} stroke="{stroke}"{extra}/>'


def _word(word: str) -> str:
    return _(WORDS[word]) if word in WORDS else word


def _map(view: dict[str, Any], x0: float, y0: float) -> list[str]:
    locations = {loc["id"]: loc for loc in view["map"]["locations"]}
    xs = [loc.get("x", 0) for loc in locations.values()] or [0]
    ys = [loc.get("y", 0) for loc in locations.values()] or [0]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1)

    def at(loc_id: str) -> tuple[float, float]:
        loc = locations[loc_id]
        return (
            x0 + 30 + (loc.get("x", 0) - min(xs)) * (MAP_SIZE - 60) / span,
            y0 + 30 + (loc.get("y", 0) - min(ys)) * (MAP_SIZE - 60) / span,
        )

    out = [_rect(x0, y0, MAP_SIZE, MAP_SIZE, "#FBFBF8")]
    state = {d["id"]: d for d in view["districts"]}
    for district in view["map"]["districts"]:
        points = [at(loc) for loc in district["boundary"] if loc in locations]
        d = state.get(district["id"], {})
        fill = "#D5F5E3" if d.get("stabilised") else "#F2F3F4"
        out.append(
            f'<polygon points="{" ".join(f"{px:g},{py:g}" for px, py in points)}" fill="{fill}" '
            f'stroke="none" data-district={quoteattr(district["id"])}>'
            f"<title>{escape(district_name(district['id']))} ({escape(district['id'])})</title></polygon>"
        )
        cx = sum(p[0] for p in points) / max(len(points), 1)
        cy = sum(p[1] for p in points) / max(len(points), 1)
        label = (
            f"{number_of(district['id'])} ✓"
            if d.get("stabilised")
            else f"{number_of(district['id'])} ▢{d.get('tile_count', 0)}"
        )
        out.append(_text(cx, cy, label, 10, "middle", fill="#555555"))
        for i, seat in enumerate(d.get("houses", [])):
            out.append(
                f'<path d="M{cx - 14 + i * 10:g},{cy + 12:g} l4,-5 l4,5 z" fill="{PLAYER[seat % 4]}" '
                f'stroke="{INK}"/>'
            )
    for a, b in view["map"]["edges"]:
        if a in locations and b in locations:
            (ax, ay), (bx, by) = at(a), at(b)
            out.append(
                f'<line x1="{ax:g}" y1="{ay:g}" x2="{bx:g}" y2="{by:g}" stroke="#7F8C8D" stroke-width="2"/>'
            )
    cubes: dict[str, list[int]] = {}
    for player in view["players"]:
        for loc in player["cubes"]:
            cubes.setdefault(loc, []).append(player["seat"])
    for loc_id, loc in locations.items():
        x, y = at(loc_id)
        out.append(
            f'<circle cx="{x:g}" cy="{y:g}" r="9" fill="{LOCATION.get(loc.get("colour"), "#CCCCCC")}" '
            f'stroke="{INK}" data-location={quoteattr(loc_id)}>'
            f"<title>{escape(location_name(loc_id, loc))} ({escape(loc_id)})</title></circle>"
        )
        if loc.get("crisisLetter"):
            out.append(_text(x, y + 4, loc["crisisLetter"], 10, "middle", "bold"))
        for i, seat in enumerate(cubes.get(loc_id, [])):
            out.append(_rect(x + 8 + (i % 2) * 7, y - 12 + (i // 2) * 7, 6, 6, PLAYER[seat % 4]))
    return out


def _rondel(view: dict[str, Any], x0: float, y0: float) -> list[str]:
    out = [_text(x0, y0, _("Rondel"), 14, weight="bold")]
    dice = {face: colour for colour, face in (view.get("dice") or {}).items()}
    for i, resource in enumerate(view["rondel_order"]):
        y = y0 + 10 + i * 22
        out.append(_rect(x0, y, 190, 20, "#FDFEFE"))
        out.append(_text(x0 + 5, y + 14, _word(resource), 11))
        if resource in dice:
            out.append(_rect(x0 + 80, y + 3, 14, 14, DIE[dice[resource]], extra=' rx="3"'))
        for player in view["players"]:
            out.append(
                _text(
                    x0 + 105 + player["seat"] * 22,
                    y + 14,
                    player["rondel"].get(resource, 0),
                    11,
                    "middle",
                    "bold",
                    "#444444",
                )
            )
    y = y0 + 10 + 6 * 22
    out.append(_text(x0 + 5, y + 14, _word("BATTERY"), 11))
    for player in view["players"]:
        out.append(
            _text(
                x0 + 105 + player["seat"] * 22,
                y + 14,
                player["rondel"].get("BATTERY", 0),
                11,
                "middle",
                "bold",
                "#444444",
            )
        )
    return out


def _market(view: dict[str, Any], x0: float, y0: float) -> list[str]:
    out = [
        _text(
            x0,
            y0,
            _(
                "Market (deck {deck}, reserve {reserve})",
                deck=view["objective_deck"],
                reserve=view["reserve_deck"],
            ),
            14,
            weight="bold",
        )
    ]
    for r, row in enumerate(view["market"]):
        price = (view.get("market_prices") or [None] * 3)[r]
        out.append(_text(x0, y0 + 24 + r * 24, f"{price if price is not None else '-'} HK$", 11))
        for c, card in enumerate(row):
            out.append(_rect(x0 + 50 + c * 60, y0 + 10 + r * 24, 56, 20, "#FEF9E7" if card else "#EEEEEE"))
            if card:
                out.append(_named(x0 + 78 + c * 60, y0 + 24 + r * 24, card, view.get("cards", {}), 52))
    return out


def _card(x: float, y: float, card: dict[str, Any] | str | None, cards: dict[str, Any]) -> list[str]:
    if card is None:
        return [_rect(x, y, 62, 18, "#F8F9F9", "#BBBBBB")]
    if isinstance(card, dict) and not card.get("card"):
        return [
            _rect(x, y, 62, 18, "#5D6D7E"),
            _text(x + 31, y + 13, _("face down"), 9, "middle", fill="#FFFFFF"),
        ]
    card_id = card["card"] if isinstance(card, dict) else card
    colour = {"RED": "#FADBD8", "YELLOW": "#FCF3CF", "BLUE": "#D6EAF8", "PURPLE": "#E8DAEF"}.get(
        cards.get(card_id, {}).get("colour"), "#FFFFFF"
    )
    return [_rect(x, y, 62, 18, colour), _named(x + 31, y + 13, card_id, cards, 58)]


def _named(x: float, y: float, card_id: str, cards: dict[str, Any], width: float) -> str:
    """A card's name (the box's word for it) centred at (x, y), squeezed into ``width`` if longer; its id
    is the tooltip."""
    name = card_name(card_id, cards.get(card_id))
    fit = f' textLength="{width:g}" lengthAdjust="spacingAndGlyphs"' if len(name) * 5 > width else ""
    return (
        f'<text x="{x:g}" y="{y:g}" font-family="sans-serif" font-size="9" text-anchor="middle" fill="{INK}"'
        f"{fit}><title>{escape(name)} ({escape(card_id)})</title>{escape(name)}</text>"
    )


def _names(ids: list[str], cards: dict[str, Any]) -> str:
    return ", ".join(card_name(card_id, cards.get(card_id)) for card_id in ids)


def _board(view: dict[str, Any], player: dict[str, Any], x0: float, y0: float) -> list[str]:
    cards = view.get("cards", {})
    seat = player["seat"]
    out = [_rect(x0, y0, PANEL_W, 150, "#FFFFFF"), _rect(x0 + 6, y0 + 6, 12, 12, PLAYER[seat % 4])]
    out.append(
        _text(
            x0 + 24,
            y0 + 17,
            _(
                "Seat {seat} ({animal}): VP {vp}, HK$ {hkd}, transport {transport}, GPS {gps}, supply {supply}, "
                "houses {houses}",
                seat=seat,
                animal=_word(player["animal"]),
                vp=player["vp"],
                hkd=player["hkd"],
                transport=player["transport"],
                gps=player["gps"],
                supply=player["cube_supply"],
                houses=player["houses_left"],
            ),
            12,
            weight="bold",
        )
    )
    hand = player["hand"]
    line = _text(
        x0 + 8,
        y0 + 36,
        _(
            "Hand: {cards}",
            cards=_names(hand, cards) if hand is not None else _("{count} cards", count=player["hand_size"]),
        ),
        10,
    )
    if hand:  # the cards' ids as the line's tooltip
        line = line.replace(">", f"><title>{escape(', '.join(hand))}</title>", 1)
    out.append(line)
    for s, stack in enumerate(player["slots"]):
        x = x0 + 8 + s * 70
        locked = s == 3 and not player["slot4_unlocked"]
        out.append(
            _text(
                x,
                y0 + 52,
                _("Slot {slot} (locked)", slot=s + 1) if locked else _("Slot {slot}", slot=s + 1),
                10,
            )
        )
        for i, entry in enumerate(stack[-4:]):
            out += _card(x, y0 + 56 + i * 20, entry, cards)
    x = x0 + 290
    out.append(_text(x, y0 + 52, _("Objectives"), 10))
    for i, held in enumerate(player["objective_area"]):
        out += _card(x, y0 + 56 + i * 20, held, cards)
    emergency = player["emergency_plan"]
    out.append(_text(x + 70, y0 + 52, _("Emergency"), 10))
    out += _card(x + 70, y0 + 56, emergency if isinstance(emergency, dict) else None, cards)
    out.append(_text(x + 140, y0 + 52, _("Tiles"), 10))
    for i, tile in enumerate(player["patrol_tiles"][:5]):
        label = (
            _word(tile.get("rewardType", "?"))
            if tile.get("faceUp")
            else _("back {icons}", icons=tile.get("backSearchIcons", 0))
        )
        out.append(_rect(x + 140, y0 + 56 + i * 16, 90, 14, "#FDEBD0" if tile.get("faceUp") else "#AAB7B8"))
        out.append(_text(x + 185, y0 + 67 + i * 16, label, 9, "middle"))
    out.append(
        _text(
            x0 + 8,
            y0 + 142,
            _(
                "Hospital: {hospital}   Check-mark area: {checks}",
                hospital=_names(player["hospital"], cards) or "-",
                checks=_names(player["check_area"], cards) or "-",
            ),
            9,
        )
    )
    return out


def render_svg(view: dict[str, Any]) -> str:
    width = MAP_SIZE + 40 + 260
    boards_y = MAP_SIZE + 60
    height = boards_y + 160 * len(view["players"]) + 10
    header = _(
        "Round {round}, phase {phase} ({step}); to act: {seats}",
        round=view["round"],
        phase=view["phase"],
        step=view["step"],
        seats=view["to_act"] or "-",
    )
    if view.get("result"):
        totals = ", ".join(
            _("seat {seat}: {vp} VP", seat=r["seat"], vp=r["total"]) for r in view["result"]["players"]
        )
        header = _("Final: {totals}; winners {winners}", totals=totals, winners=view["result"]["winners"])
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}">',
        "<title>Blackout: Hong Kong</title>",
        f"<desc>{escape(header)}. {escape(_(DESCRIPTION))}</desc>",
        _rect(0, 0, width, height, "#FFFFFF", "none"),
        _text(20, 30, header, 16, weight="bold"),
    ]
    parts += _map(view, 20, 45)
    parts += _rondel(view, MAP_SIZE + 40, 60)
    parts += _market(view, MAP_SIZE + 40, 260)
    for i, player in enumerate(view["players"]):
        parts += _board(view, player, 20, boards_y + i * 160)
    parts.append("</svg>")
    return "\n".join(parts)
