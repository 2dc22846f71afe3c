"""Undo keeps secrets (issue 39): after any sequence of moves and undos, in every game, nothing a seat was
shown is back among what it cannot see.

Random matches of every game with undo on (both modes), bots in some seats, are played through the pure
steps the server stores (``service.domain.lifecycle``): people move, undo, accept and refuse at random, bots
answer. After each undo that went through, every seat's views over the versions it took back are compared
with its view now: a value (a string of a view: a card's, a tile's id) it was shown there, that it no
longer sees and that is still somewhere in the match (another hand, the deck, the pile) is a secret
given away, unless the seat that undid could see it before (its own card, shown to the others and
taken back: its own to show). The content pack and the options are public (``match_created`` shows
them to everyone), so their strings do not count as somewhere hidden. What no seat could see (a draw, a
roll, a look at a face-down tile) the games declare (``reveals``): no undo takes back an entry so declared.

Sized to run in seconds (``examples(30)``); ``--hypothesis-profile=long`` runs ten times as many.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.domain import lifecycle, replay
from service.games import GAMES
from service.games.protocol import IllegalAction, reveals
from service.store import packs
from tests.conftest import examples

AT = "2026-01-01T00:00:00.000Z"
EXAMPLES = examples(30)
PUBLIC_PARTS = ("content", "options")  # recorded in match_created, for everyone

# every game, with the modes whose hidden information differs; bots a game plays too slowly to fit
CONFIGS = [
    ("chock-a-block", 2, {"last_draw_placement": 0}, ("random", "greedy")),
    (
        "chock-a-block",
        3,
        {"neighbour_tile_source": "MARKET_OR_PILE_TOP", "neighbour_group_min": 1},
        ("random",),
    ),
    ("chock-a-block", 4, {"mode": "COOP"}, ("random", "greedy")),
    ("chock-a-block", 2, {"building_rules": "BUILDING_BLOCK"}, ("greedy",)),
    ("blackout-hong-kong", 2, {}, ("random",)),
    ("blackout-hong-kong", 4, {}, ("random",)),
    ("blokus", 2, {}, ("random",)),
    ("block-block", 2, {}, ("random",)),
]
UNDO_ANSWERS = {
    "nothing_to_undo",
    "hidden_information_revealed",
    "undo_pending",
    "game_over",
    "seat_conceded",
}


def _strings(node: Any) -> set[str]:
    if isinstance(node, str):
        return {node}
    if isinstance(node, dict):
        return set().union(*map(_strings, node.values())) if node else set()
    if isinstance(node, list):
        return set().union(*map(_strings, node)) if node else set()
    return set()


class Match:
    """A match played step by step, with every state kept (what an undo goes back to) and each seat's
    view of each version worked out when an undo asks for it."""

    def __init__(
        self, game_id: str, players: int, options: dict, bots: list[str | None], undo: str, seed: int
    ):
        self.game = GAMES[game_id]
        resolved = lifecycle.check_options(game_id, options, players)
        self.secret = lifecycle.SeedSecret(f"seed{seed}", "salt")
        self.bots = bots
        names = [f"{bot} bot" if bot else f"p{i}" for i, bot in enumerate(bots)]
        step = lifecycle.begin(
            game_id,
            resolved,
            names,
            self.secret,
            AT,
            packs.content_for(self.game, resolved),
            bots=bots,
            undo=undo,
        )
        self.states = {s.version: s for s in step.states}
        self.entries = {e.version: e for e in step.entries}
        self.state = step.state
        self._seen: dict[tuple[int, int], set[str]] = {}

    def seen(self, version: int, seat: int) -> set[str]:
        if (version, seat) not in self._seen:
            self._seen[(version, seat)] = _strings(self.game.view(self.states[version].game, seat))
        return self._seen[(version, seat)]

    def take(self, step: lifecycle.Step) -> None:
        self.states.update({s.version: s for s in step.states})
        self.entries.update({e.version: e for e in step.entries})
        self.state = step.state
        for entry in step.entries:
            if entry.type == "undone":
                self.check_undone(entry.seat, entry.data["to_version"], entry.version - 1)

    def people(self) -> list[int]:
        return [seat for seat, bot in enumerate(self.bots) if bot is None]

    def step(self, choice: int) -> None:
        """One person's or bot's doing, picked by ``choice``: an answer to an undo asked for, an undo, a move."""
        state, earlier = self.state, self.states.__getitem__
        request = state.undo_request
        if request is not None:
            waiting = [s for s in self.people() if s != request["seat"] and s not in request["accepted"]]
            if waiting and choice % 4:
                seat = waiting[choice % len(waiting)]
                try:
                    self.take(lifecycle.answer_undo(state, seat, choice % 3 != 0, AT, earlier))
                except IllegalAction as refused:  # a bot's reply since the request showed the asker something
                    assert refused.reason == "hidden_information_revealed", refused.reason
                return
        seat = state.to_act()[choice % len(state.to_act())]
        last = state.last_action
        if (
            self.bots[seat] is None
            and last is not None
            and self.bots[last["seat"]] is None
            and choice % 3 == 0
        ):
            try:
                self.take(lifecycle.undo(state, last["seat"], AT, earlier))
            except IllegalAction as refused:
                assert refused.reason in UNDO_ANSWERS, refused.reason
            return
        if self.bots[seat] is not None:
            action, by = lifecycle.bot_action(state, seat, self.secret), replay.by_bot(self.bots[seat])
        else:
            legal = state.legal_actions(seat)
            action, by = legal[choice % len(legal)], None
        self.take(lifecycle.act(state, seat, action, self.secret, AT, by))

    def check_undone(self, undoer: int, back: int, upto: int) -> None:
        """What each seat saw of versions ``back + 1 .. upto``, just taken back, is not hidden from it again."""
        now = self.state.game
        assert now == self.states[back].game
        declared = [
            self.entries[v] for v in range(back + 1, upto + 1) if reveals(self.game, self.entries[v].event())
        ]
        assert not declared, f"seat {undoer} undid {[e.type for e in declared]}, which the game says reveal"
        if not (self.game.info.hidden_information or self.game.info.chance):
            return  # every seat sees the whole state (in its own shape): nothing to keep
        hidden = _strings({key: value for key, value in now.items() if key not in PUBLIC_PARTS})
        for seat in range(len(self.bots)):
            shown = set().union(*(self.seen(v, seat) for v in range(back + 1, upto + 1))) - self.seen(
                back, seat
            )
            given_away = (shown - _strings(self.game.view(now, seat))) & hidden
            if seat != undoer:
                given_away -= self.seen(back, undoer)  # the undoer's own, shown and taken back: its to show
            assert not given_away, (
                f"seat {seat} saw {sorted(given_away)} in versions {back + 1}..{upto}, which seat {undoer} "
                "undid: hidden from it again"
            )


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.sampled_from(CONFIGS),
    undo=st.sampled_from(["until_next_action", "with_consent"]),
    bot_seats=st.lists(st.booleans(), min_size=4, max_size=4),
    bot_pick=st.integers(0, 1),
    seed=st.integers(0, 2**16),
    choices=st.lists(st.integers(0, 2**16), min_size=10, max_size=80),
)
def test_no_undo_hides_again_what_a_seat_was_shown(config, undo, bot_seats, bot_pick, seed, choices):
    game_id, players, options, kinds = config
    bots = [kinds[bot_pick % len(kinds)] if seat and bot_seats[seat] else None for seat in range(players)]
    match = Match(game_id, players, options, bots, undo, seed)
    rng = random.Random(seed)
    for choice in choices:
        if match.state.finished or not match.state.to_act():
            break
        match.step(choice ^ rng.getrandbits(4))
