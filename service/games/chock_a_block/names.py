"""The names the box gives Chock-a-Block's cards, tiles, tokens, colours and features, in the reader's
language: what the picture and the entries' texts call them (the board's page says the same in
``board.js``). An id such as ``C31`` or ``CAT-6`` is the pack's, a detail, not a name."""

from __future__ import annotations

import re

from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

FEATURES = {"CAT": N_("cat"), "UNDERWEAR": N_("underwear"), "FLOWER": N_("flower"), "BIRD": N_("bird")}
"""The rulebooks' feature icons (고양이, 속옷, 꽃, 새; ネコ, パンツ, ハナ, トリ)."""

COLOURS = {
    "PINK": N_("pink"),
    "BLUE": N_("blue"),
    "GREEN": N_("green"),
    "YELLOW": N_("yellow"),
    "ORANGE": N_("orange"),
}
"""The rooms' colours (the pack's ``displayName`` for a colour of another pack)."""

GENERATED_NOTE = N_("generated data, not the publisher's (P-10)")
"""The view's note on a pack the project generated (kept in English in the view, a field of its data; the
picture says it in the reader's language)."""


def feature_name(feature: str) -> str:
    return _(FEATURES[feature]) if feature in FEATURES else feature.lower().replace("_", " ")


def features_named(features: list[str]) -> str:
    return _(" and ").join(feature_name(f) for f in features)


def colour_name(colour: str | None) -> str:
    return _(COLOURS[colour]) if colour in COLOURS else (colour or "").lower().replace("_", " ")


def card_name(card_id: str) -> str:
    """A block card (블록 카드, ブロックカード) by its number."""
    return _("block card {number}", number=_number(card_id, "C"))


def tile_name(tile_id: str, features: list[str] | None = None) -> str:
    """A neighbour tile (이웃 타일, 住人タイル) by its number and, where known, the features it shows."""
    number = _number(tile_id, "N")
    if features:
        return _("neighbour tile {number} ({features})", number=number, features=features_named(features))
    return _("neighbour tile {number}", number=number)


def token_name(feature: str, value: int) -> str:
    """A score token (점수 토큰, スコアトークン) by its feature and its points."""
    return _("{feature} token, {value} points", feature=feature_name(feature), value=value)


def _number(item_id: str, prefix: str) -> str:
    found = re.fullmatch(re.escape(prefix) + r"(\d+)", item_id)
    return found.group(1) if found else item_id
