"""Free actions (R-0.4): transport tokens bought for VP, batteries for HK$, in the seat's own turn or
while it has a decision pending; and how a listed entry that costs something is paid (§8.3)."""

from __future__ import annotations

from service.games.blackout_hong_kong import payments
from service.games.blackout_hong_kong.common import held, refuse, transport_pool
from service.games.kit import Turn
from service.games.protocol import Action, State
from service.games.texts import catalogue

_ = catalogue(__file__).gettext

FREE_ACTIONS = ("BUY_TRANSPORT", "BUY_BATTERY")


def buy_transport_tokens(turn: Turn, seat: int, n: int) -> None:
    if transport_pool(turn.state) < n:
        raise refuse("pool_empty", _("R-0.4(a), A-37: the transport pool is empty"))
    turn.emit("transport_bought", seat, n=n)


def buy_transport(turn: Turn, seat: int, action: Action) -> None:
    buy_transport_tokens(turn, seat, action["count"])


def buy_battery(turn: Turn, seat: int, action: Action) -> None:
    player = turn.state["players"][seat]
    n = action["count"]
    if player["hkd"] < 5 * n:
        raise refuse("cannot_afford", _("R-0.4(b): {n} batteries cost {price} HK$", n=n, price=5 * n))
    if turn.state["options"]["CUBES_LIMITED"] and player["supply"] < n:
        raise refuse("no_cube", _("R-0.4(b): not enough cubes in your supply"))
    turn.emit("battery_bought", seat, n=n)


def free_entries(state: State, seat: int) -> list[Action]:
    player = state["players"][seat]
    out = []
    pool = min(25, transport_pool(state))
    if pool >= 1:
        out.append({"type": "BUY_TRANSPORT", "count": 1, "choices": {"count": [1, pool]}})
    batteries = min(player["hkd"] // 5, player["supply"] if state["options"]["CUBES_LIMITED"] else 25, 25)
    if batteries >= 1:
        out.append({"type": "BUY_BATTERY", "count": 1, "choices": {"count": [1, batteries]}})
    return out


def paying(entry: Action, costs: list, player: dict) -> Action | None:
    """A listed entry with its cost: ``"AUTO"`` and every exact payment the player can make, or None
    when it can make none."""
    if not costs:
        return entry
    options = payments.payments(costs, held(player))
    if not options:
        return None
    return {**entry, "payment": "AUTO", "choices": {"payment": options}}
