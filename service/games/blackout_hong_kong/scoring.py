"""The end (section 5): final scoring (E-5), the winners and the tie-break (E-7), and in a campaign
each player's chapter result (C-11, C-15)."""

from __future__ import annotations

from typing import Any

from service.games.blackout_hong_kong.board import RESOURCES, table_value
from service.games.blackout_hong_kong.common import card, scoring_table
from service.games.protocol import State, ranks


def final_scoring(state: State) -> dict[str, Any]:
    rows = [_score_row(state, player) for player in state["players"]]
    best = max((row["total"], row["hkd_left"]) for row in rows)
    winners = [row["seat"] for row in rows if (row["total"], row["hkd_left"]) == best]  # E-7
    top = max(row["total"] for row in rows)
    tied_on_vp = [row["seat"] for row in rows if row["total"] == top]
    data: dict[str, Any] = {
        "players": rows,
        "winners": winners,
        "tie_break": "HK$ left" if len(tied_on_vp) > 1 else None,
    }
    if state["mode"] == "CAMPAIGN":
        data["campaign"] = _campaign(state, rows)
    return data


def _score_row(state: State, player: dict) -> dict[str, Any]:
    kinds = list(RESOURCES) + (["BATTERY"] if state["options"]["SELL_BATTERIES_AT_END"] else [])
    sold = {kind: player["rondel"][kind] for kind in kinds if player["rondel"][kind]}
    money = player["hkd"] + sum(sold.values())  # E-5(A)
    face_up = sum(1 for t in player["tiles"] if t["faceUp"])
    cards = player["hand"] + [entry["card"] for stack in player["slots"] for entry in stack]
    row = {
        "seat": player["seat"],
        "vp_before": player["vp"],
        "sold": sold,
        "hkd_total": money,
        "vp_from_hkd": money // 5,
        "hkd_left": money % 5,
        "face_up_tiles": face_up,
        "vp_from_tiles": table_value(scoring_table(state), face_up),  # E-5(B)
        "vp_from_cards": sum(card(state, c)["points"] for c in cards),
    }  # E-5(C)
    row["total"] = row["vp_before"] + row["vp_from_hkd"] + row["vp_from_tiles"] + row["vp_from_cards"]
    return row


def _campaign(state: State, rows: list[dict]) -> dict[str, Any]:
    """C-11: a player wins chapter 1 with their cube on every objective of one shared plan and at least
    N VP; N is unknown unless CAMPAIGN_MIN_VP gives it (reported as "unknown")."""
    return {"chapter": state["options"]["chapter"], "players": [_chapter_result(state, row) for row in rows]}


def _chapter_result(state: State, row: dict) -> dict[str, Any]:
    n = state["options"]["CAMPAIGN_MIN_VP"]
    thresholds = state["options"]["CAMPAIGN_FLOWER_THRESHOLDS"]
    seat = row["seat"]
    plan_done = any(
        all(seat in plan["done"].get(str(k), []) for k in range(len(card(state, plan["card"])["objectives"])))
        for plan in state["shared_plans"]
    )
    vp_ok = None if n is None else row["total"] >= n
    victory = plan_done and vp_ok if vp_ok is not None else (False if not plan_done else "unknown")
    entry = {
        "seat": seat,
        "shared_plan_completed": plan_done,
        "min_vp": n,
        "min_vp_met": vp_ok,
        "victory": victory,
    }
    if thresholds is not None:
        entry["flowers"] = sum(1 for t in thresholds if row["total"] >= t) if victory is True else 0
        if state["n"] == 1:
            entry["failed"] = entry["flowers"] < state["options"]["SOLO_FAIL_BELOW"]  # C-15(b)
    return entry


def scores(state: State) -> dict[str, Any]:
    result = state["result"] or final_scoring(state)
    totals = [row["total"] for row in result["players"]]
    keys = [row["total"] * 10 + row["hkd_left"] for row in result["players"]]
    return {
        "scores": totals,
        "ranks": ranks(keys, True),
        "winners": result["winners"],
        "tie_break": result["tie_break"],
        "breakdown": result,
    }
