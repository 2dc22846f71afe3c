"""End scoring (spec section 5): a breakdown a person can check, the ranks and the outcome per mode.

A human scores the tokens they hold plus the open-chain points (E-2, E-3): every open chain of
``open_chain_min_size`` or more icons scores ``open_chain_points`` (PER_CHAIN), or each feature with
such a chain scores once (PER_FEATURE). Autoblock scores its tokens only (E-6).

Ranks (1 = best) per mode:

* STANDARD: by score, ties broken by neighbour tiles (E-7, ``tie_break``), then shared.
* AUTOBLOCK_EXTRA: Autoblock is ranked among the humans (E-8): a human's rank counts Autoblock when
  Autoblock is ahead. With HUMAN_MUST_EXCEED a tied Autoblock is ahead; with NEIGHBOUR_TIEBREAK its
  tile count breaks the tie like a neighbour count.
* SOLO: rank 1 if the human beats Autoblock (strictly, unless NEIGHBOUR_TIEBREAK breaks a tie in the
  human's favour), else rank 2 (Autoblock is first).
* COOP: everyone rank 1 if the team wins by ``coop_win_condition``, else everyone rank 2.

``scores`` are always the humans' own points, one per seat; Autoblock's result is in
``breakdown.autoblock`` and the verdict in ``outcome``.
"""

from __future__ import annotations

from typing import Any

from service.games.chock_a_block import building
from service.games.chock_a_block.autoblock import icon_counts


def open_chains(rooms: dict[str, Any], options: dict[str, Any], features: list[str]) -> list[dict[str, Any]]:
    """Every open chain of the building, all sizes, feature by feature."""
    out = []
    for feature in features:
        for chain in building.chains(
            rooms, feature, options["chain_connectivity"], options["closed_chain_absorbs_new_icons"]
        ):
            out.append({"feature": feature, "rooms": [list(c) for c in chain], "size": len(chain)})
    return out


def player_breakdown(player: dict[str, Any], options: dict[str, Any], features: list[str]) -> dict[str, Any]:
    tokens = [
        {
            "token": t["token"],
            "feature": t["feature"],
            "value": t["value"],
            "chain": t["chain"],
            "placement": t["placement"],
        }
        for t in player["tokens"]
    ]
    scoring = []
    seen_features = set()
    for chain in open_chains(player["rooms"], options, features):
        if chain["size"] < options["open_chain_min_size"]:
            continue
        points = options["open_chain_points"]
        if options["open_chain_scope"] == "PER_FEATURE":
            points = 0 if chain["feature"] in seen_features else points
            seen_features.add(chain["feature"])
        scoring.append({**chain, "points": points})
    token_points = sum(t["value"] for t in tokens)
    chain_points = sum(c["points"] for c in scoring)
    leftover = options["leftover_card_points"] * len(player["hand"])
    return {
        "tokens": tokens,
        "token_points": token_points,
        "open_chains": scoring,
        "open_chain_points": chain_points,
        "leftover_cards": len(player["hand"]),
        "leftover_points": leftover,
        "total": token_points + chain_points + leftover,
        "neighbours": player["neighbours"],
    }


def autoblock_breakdown(state: dict[str, Any]) -> dict[str, Any] | None:
    ab = state["autoblock"]
    if ab is None:
        return None
    content = state["content"]
    tokens = [{"token": t, **content["tokens"][t]} for t in ab["tokens"]]
    return {
        "level": ab["level"],
        "excluded_feature": ab["excluded"],
        "tiles": list(ab["tiles"]),
        "icons": icon_counts(ab["tiles"], content),
        "tokens": tokens,
        "total": sum(t["value"] for t in tokens),
        "neighbours": len(ab["tiles"]),
    }


def _ahead(a: tuple[int, int], b: tuple[int, int], use_neighbours: bool) -> bool:
    """Whether (score, neighbours) ``a`` ranks strictly above ``b``."""
    if a[0] != b[0]:
        return a[0] > b[0]
    return use_neighbours and a[1] > b[1]


def judge(
    mode: str, keys: list[tuple[int, int]], ab_key: tuple[int, int] | None, options: dict[str, Any]
) -> tuple[list[int], dict[str, Any], int | None]:
    """(ranks of the seats, outcome, Autoblock's rank) from each seat's (score, neighbours) and
    Autoblock's (score, tiles taken): E-7 and E-8."""
    use_neighbours = options["tie_break"] == "NEIGHBOURS_THEN_SHARED"
    scores = [k[0] for k in keys]
    if mode == "STANDARD" or ab_key is None:
        ranks = [1 + sum(_ahead(o, k, use_neighbours) for o in keys) for k in keys]
        return ranks, {"winners": [i for i, r in enumerate(ranks) if r == 1]}, None
    tiebreak_ab = options["autoblock_tie_rule"] == "NEIGHBOUR_TIEBREAK" and use_neighbours

    def beats_autoblock(k: tuple[int, int]) -> bool:
        return _ahead(k, ab_key, tiebreak_ab)

    def autoblock_beats(k: tuple[int, int]) -> bool:
        if options["autoblock_tie_rule"] == "HUMAN_MUST_EXCEED":
            return not beats_autoblock(k)
        return _ahead(ab_key, k, tiebreak_ab)

    if mode == "AUTOBLOCK_EXTRA":
        ranks = [1 + sum(_ahead(o, k, use_neighbours) for o in keys) + autoblock_beats(k) for k in keys]
        ab_rank = 1 + sum(beats_autoblock(k) for k in keys)
        return (
            ranks,
            {"winners": [i for i, r in enumerate(ranks) if r == 1], "autoblock_wins": ab_rank == 1},
            ab_rank,
        )
    if mode == "SOLO":
        won = beats_autoblock(keys[0])
        return [1 if won else 2], {"human_wins": won, "rule": options["autoblock_tie_rule"]}, 2 if won else 1
    condition = options["coop_win_condition"]  # COOP, V-20
    if condition == "ALL_EXCEED":
        won = all(s > ab_key[0] for s in scores)
    elif condition == "ANY_EXCEEDS":
        won = any(s > ab_key[0] for s in scores)
    else:
        won = sum(scores) > ab_key[0]
    return (
        [1 if won else 2] * len(scores),
        {"team_wins": won, "condition": condition, "team_total": sum(scores)},
        2 if won else 1,
    )


def result(state: dict[str, Any]) -> dict[str, Any]:
    options = state["options"]
    features = state["content"]["features"]
    players = [player_breakdown(p, options, features) for p in state["seats"]]
    ab = autoblock_breakdown(state)
    keys = [(p["total"], p["neighbours"]) for p in players]
    ranks, outcome, ab_rank = judge(
        state["mode"], keys, None if ab is None else (ab["total"], ab["neighbours"]), options
    )
    if ab is not None:
        ab["rank"] = ab_rank
    return {
        "mode": state["mode"],
        "scores": [p["total"] for p in players],
        "ranks": ranks,
        "outcome": outcome,
        "breakdown": {
            "players": [{"seat": i, **p} for i, p in enumerate(players)],
            "autoblock": ab,
            "rules": {
                k: options[k]
                for k in (
                    "open_chain_scope",
                    "open_chain_points",
                    "open_chain_min_size",
                    "tie_break",
                    "autoblock_tie_rule",
                    "coop_win_condition",
                )
            },
        },
    }
