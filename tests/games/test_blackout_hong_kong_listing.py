"""Blackout: Hong Kong legal actions (issue: "legal-actions is complete and postable as it is").

Every listed entry is accepted as it is, and every entry that carries ``choices`` is accepted
completed in every listed way: each listed payment, each party drawn from ``choices.party`` with each
GPS count of ``choices.gps`` whose search total reaches ``choices.needs`` (and a party short of it is
refused), each count of a free action, and plans built from ``choices.slots``.
"""

from __future__ import annotations

import itertools
import random

import pytest

from service.games.blackout_hong_kong import GAME, patrol
from service.games.protocol import IllegalAction
from tests.games.blackout_support import new_game


def positions(players: int, seed: str, every: int = 3) -> list[tuple[dict, int]]:
    """Every ``every``-th position of a random game, with each seat that may act there."""
    rng = random.Random(seed)
    state = new_game(players, seed)
    out = []
    step = 0
    while not GAME.is_over(state):
        seats = GAME.to_act(state)
        if step % every == 0:
            out += [(state, seat) for seat in seats]
        seat = rng.choice(seats)
        state = GAME.play(state, seat, rng.choice(GAME.legal_actions(state, seat))).states[-1]
        step += 1
    return out


def completions(state: dict, seat: int, entry: dict, rng: random.Random) -> list[tuple[dict, bool]]:
    """(action, accepted?) for each way the entry's choices complete it."""
    choices = entry.get("choices")
    base = {k: v for k, v in entry.items() if k != "choices"}
    if not choices:
        return [(base, True)]
    if "payment" in choices:
        return [({**base, "payment": payment}, True) for payment in choices["payment"]]
    if "party" in choices:
        out = []
        for size in range(1, len(choices["party"]) + 1):
            for party in itertools.combinations(choices["party"], size):
                for gps in choices["gps"]:
                    total, party_icons = patrol.search_total(state, seat, list(party), gps)
                    counted = (
                        party_icons
                        if (
                            entry["challenge"] == "EXPLORATION"
                            and state["options"]["EXPLORATION_TOTAL_MODE"] == "PARTY_ONLY"
                        )
                        else total
                    )
                    out.append(
                        ({**base, "partyCardIds": list(party), "gps": gps}, counted >= choices["needs"])
                    )
        return out
    if "count" in choices:
        low, high = choices["count"]
        return [({**base, "count": n}, True) for n in {low, high, (low + high) // 2}]
    if "slots" in choices:
        out = []
        for _ in range(5):
            cards = list(next(iter(choices["slots"].values()), []))
            rng.shuffle(cards)
            plan = {slot: card for slot, card in zip(choices["slots"], cards) if rng.random() < 0.7}
            out.append(({**base, "slots": plan}, True))
        return out
    return [(base, True)]


@pytest.mark.parametrize("players", [1, 2, 4])
def test_every_listed_entry_completed_every_listed_way_is_accepted(players):
    rng = random.Random(players)
    checked = 0
    for state, seat in positions(players, f"listing-{players}"):
        for entry in GAME.legal_actions(state, seat):
            assert GAME.action_schema().validate(entry) == {}, entry
            for action, accepted in completions(state, seat, entry, rng):
                if accepted:
                    assert len(GAME.play(state, seat, action)) >= 1
                else:
                    with pytest.raises(IllegalAction) as refusal:
                        GAME.play(state, seat, action)
                    assert refusal.value.reason == "challenge_unmet"
                checked += 1
    assert checked > 300, checked


def test_a_seat_that_may_not_act_is_offered_nothing():
    state = new_game(3, "idle")
    idle = [s for s in range(3) if s not in GAME.to_act(state)]
    assert idle and all(GAME.legal_actions(state, s) == [] for s in idle)
