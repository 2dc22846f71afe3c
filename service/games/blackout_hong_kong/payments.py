"""The payment object of spec §8.3, matched against a cost list (R-0.5, R-3.4).

A cost list holds ``RESOURCE``, ``RESOURCE_ONE_OF``, ``ANY_SINGLE_RESOURCE`` and ``HKD`` items. A
payment is ``{"resources": {type: n, "BATTERY": n}, "hkd": n}``: it must be exact (no overpayment),
each normal unit must be of a type some item accepts, the units of a one-of or any-single item all
of one type, and batteries cover whatever the normal units leave. Every way of reading the items
(which type each one-of or any-single item takes) is tried, so the check is exact, not greedy.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from service.games.blackout_hong_kong.board import RESOURCES
from service.games.protocol import IllegalAction
from service.games.texts import catalogue

_ = catalogue(__file__).gettext

PAYMENT_TYPES = ("RESOURCE", "RESOURCE_ONE_OF", "ANY_SINGLE_RESOURCE", "HKD")


def costs_of(requirements: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items of a requirement list that are paid (the rest are only checked)."""
    return [r for r in requirements if r["type"] in PAYMENT_TYPES]


def _readings(costs: list[dict[str, Any]]) -> Iterator[dict[str, int]]:
    """Each way to give every resource item one type: the units needed per type."""
    items = [c for c in costs if c["type"] != "HKD"]
    choices = [
        [c["resource"]]
        if c["type"] == "RESOURCE"
        else list(c["options"])
        if c["type"] == "RESOURCE_ONE_OF"
        else list(RESOURCES)
        for c in items
    ]
    seen = set()
    for types in itertools.product(*choices):
        need: dict[str, int] = {}
        for item, kind in zip(items, types):
            need[kind] = need.get(kind, 0) + item["n"]
        key = tuple(sorted(need.items()))
        if key not in seen:
            seen.add(key)
            yield need


def hkd_due(costs: list[dict[str, Any]]) -> int:
    return sum(c["n"] for c in costs if c["type"] == "HKD")


def units_due(costs: list[dict[str, Any]]) -> int:
    return sum(c["n"] for c in costs if c["type"] != "HKD")


def payments(costs: list[dict[str, Any]], held: dict[str, int]) -> list[dict[str, Any]]:
    """Every exact payment the holder can make, fewest batteries first."""
    hkd = hkd_due(costs)
    if held.get("hkd", 0) < hkd:
        return []
    total = units_due(costs)
    found: dict[tuple, dict[str, Any]] = {}
    for need in _readings(costs):
        kinds = sorted(need)
        ranges = [range(min(need[k], held.get(k, 0)), -1, -1) for k in kinds]
        for paid in itertools.product(*ranges):
            batteries = total - sum(paid)
            if batteries > held.get("BATTERY", 0):
                continue
            resources = {k: n for k, n in zip(kinds, paid) if n}
            if batteries:
                resources["BATTERY"] = batteries
            found.setdefault(tuple(sorted(resources.items())), {"resources": resources, "hkd": hkd})
    return sorted(
        found.values(), key=lambda p: (p["resources"].get("BATTERY", 0), sorted(p["resources"].items()))
    )


def affordable(costs: list[dict[str, Any]], held: dict[str, int]) -> bool:
    return bool(payments(costs, held)) if costs else True


def normalise(payment: Any) -> dict[str, Any]:
    resources = {k: n for k, n in (payment.get("resources") or {}).items() if n}
    return {"resources": resources, "hkd": payment.get("hkd", 0) or 0}


def settle(costs: list[dict[str, Any]], payment: Any, held: dict[str, int], rule: str) -> dict[str, Any]:
    """The payment to make: ``"AUTO"`` picks the one with fewest batteries; an explicit one must be exact
    and held. IllegalAction names ``rule`` otherwise."""
    options = payments(costs, held)
    if not costs:
        if payment not in (None, "AUTO") and (normalise(payment)["resources"] or normalise(payment)["hkd"]):
            raise IllegalAction("overpayment", _("{rule}, §8.3: nothing is owed here", rule=rule))
        return {"resources": {}, "hkd": 0}
    if payment in (None, "AUTO"):
        if not options:
            raise IllegalAction(
                "cannot_afford",
                _("{rule}, R-0.5: you cannot pay {costs}", rule=rule, costs=describe(costs)),
            )
        return options[0]
    wanted = normalise(payment)
    for kind, n in wanted["resources"].items():
        if kind not in RESOURCES and kind != "BATTERY":
            raise IllegalAction("unknown_resource", _("§8.3: {kind!r} is not a resource", kind=kind))
        if n < 0:
            raise IllegalAction("payment_mismatch", _("§8.3: amounts are never negative"))
    if wanted["hkd"] > hkd_due(costs) or sum(wanted["resources"].values()) > units_due(costs):
        raise IllegalAction(
            "overpayment",
            _("{rule}, §8.3: the payment is more than {costs}", rule=rule, costs=describe(costs)),
        )
    if wanted in options:
        return wanted
    if any(held.get(k, 0) < n for k, n in wanted["resources"].items()) or held.get("hkd", 0) < wanted["hkd"]:
        raise IllegalAction("cannot_afford", _("{rule}, R-0.5: you do not hold that payment", rule=rule))
    raise IllegalAction(
        "payment_mismatch",
        _(
            "{rule}, R-0.5, §8.3: the payment does not match {costs} (batteries "
            "cover shortfalls; one-of and any-single items take one type)",
            rule=rule,
            costs=describe(costs),
        ),
    )


def describe(costs: list[dict[str, Any]]) -> str:
    parts = []
    for c in costs:
        if c["type"] == "RESOURCE":
            parts.append(f"{c['n']} {c['resource']}")
        elif c["type"] == "RESOURCE_ONE_OF":
            parts.append(f"{c['n']} of {' or '.join(c['options'])}")
        elif c["type"] == "ANY_SINGLE_RESOURCE":
            parts.append(f"{c['n']} of any one resource")
        else:
            parts.append(f"{c['n']} HK$")
    return " + ".join(parts) or "nothing"
