"""Autoblock, the automa (spec 6.3 to 6.6, AE-7 and AE-8).

Autoblock is not a seat. It takes one turn after the last human of every round: it discards the
bottom card of the block market, takes the bottom tile of the neighbour market, the markets slide
and refill, and then it re-chooses its score tokens. For every feature it scores (all four for
Grand Autoblock, all but the excluded one otherwise) its budget is ``points_per_icon x icons`` over
the tiles it holds; it keeps the tokens chosen within that budget from the supply and its own
tokens, and returns the others (AE-8). This module holds the choice; the engine turns it into events.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any


def icon_counts(tiles: list[str], content: dict[str, Any]) -> dict[str, int]:
    counts = dict.fromkeys(content["features"], 0)
    for tile in tiles:
        for feature in content["tiles"][tile]:
            counts[feature] += 1
    return counts


def scored_features(autoblock: dict[str, Any], content: dict[str, Any]) -> list[str]:
    return [f for f in content["features"] if f != autoblock["excluded"]]


def select(budget: int, available: dict[str, int], rule: str) -> set[str]:
    """The tokens (id -> value) Autoblock holds within ``budget`` (AE-8 step 3, A-35).

    GREEDY_DESCENDING: through the values from high to low, take each that still fits.
    MAX_SUM: the subset with the largest sum within the budget; among equal sums, the one whose
    values sorted high to low are largest (so it keeps big tokens), then by id."""
    ordered = sorted(available.items(), key=lambda kv: (-kv[1], kv[0]))
    if rule == "GREEDY_DESCENDING":
        chosen, total = set(), 0
        for token, value in ordered:
            if total + value <= budget:
                chosen.add(token)
                total += value
        return chosen
    best: tuple = ((-1,), ())
    for size in range(len(ordered) + 1):
        for subset in combinations(ordered, size):
            total = sum(v for _, v in subset)
            if total > budget:
                continue
            rank = (total, tuple(v for _, v in subset))
            if rank > best[0]:
                best = (rank, tuple(t for t, _ in subset))
    return set(best[1])


def token_plan(
    autoblock: dict[str, Any], supply: list[str], content: dict[str, Any], rule: str, points_per_icon: int
) -> tuple[list[str], list[str]]:
    """(tokens to return, tokens to take), in the pack's token order (AE-8 step 4)."""
    counts = icon_counts(autoblock["tiles"], content)
    held = set(autoblock["tokens"])
    keep: set[str] = set()
    for feature in scored_features(autoblock, content):
        available = {
            t: content["tokens"][t]["value"]
            for t in content["token_ids"]
            if content["tokens"][t]["feature"] == feature and (t in supply or t in held)
        }
        keep |= select(points_per_icon * counts[feature], available, rule)
    order = content["token_ids"]
    returned = [t for t in order if t in held and t not in keep]
    taken = [t for t in order if t in keep and t not in held]
    return returned, taken
