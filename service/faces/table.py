"""One game and mode as a machine of decisions, the state that both faces adapt (OpenSpiel, PettingZoo).

The engine stays the rules: a ``Table`` holds a game, the resolved options of one of its modes, its pack
and its codec's vocabulary; a ``Seating`` holds the engine's state and each seat's unfinished choice of an
action, token by token (``service.faces.codec``). Nothing here decides what is legal: the tokens a seat
may pick are those that continue one of ``legal_actions(state, seat)``, and a finished choice is played
through the engine's ``play``.

- **Chance.** All chance in a match comes from its seed (``service.games.protocol``): the shuffles, the
  draws and the rolls are the engine's generators' given it. A game that says what it draws
  (``Game.setup_chance``) starts with setup's draws as chance decisions: a shuffle of n items is n - 1
  decisions, each an item not drawn yet, all equally likely (the last one follows), a pick one decision;
  the outcomes are the items' indices in the draw (``Draw.items``), and once all are drawn the engine
  deals the game with them. Where such a game draws during play (a die's roll, a card from a hand), the
  action that draws waits (``pending``) while each of its draws is a chance decision, an outcome the
  index of an item with the draw's chances (``Draw.weights``); given every one, the action is played.
  What was drawn stays as hidden as on the server (no seat's view holds it). A game dealt a seed (``deal``)
  draws from it alone, as the server does. A game without chance is set up with the seed ``FIXED_SEED``.
- **Whose decision.** The seats the engine names in ``to_act`` that have a legal action. One: that seat
  decides. Several (a planning phase): they decide at once, a token each, and each that has not begun
  an action may also pick ``WAIT`` (as on the server, where such seats act in any order); a seat that is
  not among them waits (its one legal token is ``WAIT``). Their tokens are applied in seat order; a seat whose
  unfinished choice no longer continues any legal action (a seat before it changed what it may do) starts
  its choice again.
- **Forced tokens** are taken for the seat: after each pick, while exactly one token can follow and it
  does not finish the action, it is added. So a decision always offers at least one token, and the last
  token of an action (the closing ``}``) is always picked.
- **What a seat sees**: ``game.view(state, seat)``, the events as ``game.event_view`` shows them to it, and
  its own unfinished choice; never another seat's in a game with hidden information (in one without,
  every seat's: nobody else decides while one seat spells its action out).
"""

from __future__ import annotations

import bisect
import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import orjson

from service.domain import lifecycle
from service.faces.codec import WAIT, Vocabulary, continuations
from service.games import GAMES
from service.games.protocol import Action, Draw, Event, Game, State, Undrawn

FIXED_SEED = "openspiel"
OBSERVATION_BYTES = 1 << 17
"""The length of an observation as bytes (``Seating.view_bytes``): the longest view's JSON of a random game
of every game and mode (about 66 KB, for five seats) with room to spare."""
INFORMATION_STATE_BYTES = 1 << 19
"""The length of an information state as bytes (``Seating.recall_bytes``): the longest of random games of
every game and mode at its most seats (about 131 KB, a campaign for four seats) four times over."""
MODE_OPTIONS = ("variant", "mode")
"""The option that names a game's modes, where it has one (the first of these its options list with an
``enum``): one face per value. A game without one has a single mode, ``default``."""


def canonical(value: Any) -> str:
    """A JSON value as the faces show it: keys sorted, no spaces. orjson (the server's encoder) makes the
    largest view (18 KB) in a tenth of the standard encoder's time; integers past 64 bits go to the latter."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))


def packaged() -> dict[str, Game]:
    """The games of ``service/games``' packages: those the faces serve (not a game a test or a plugin
    registered, which may come and go)."""
    return {gid: game for gid, game in GAMES.items() if type(game).__module__.startswith("service.games.")}


def modes(game: Game) -> dict[str, dict[str, Any]]:
    """The game's modes: name -> the options that choose it."""
    properties = game.options_schema.get("properties", {})
    for option in MODE_OPTIONS:
        values = properties.get(option, {}).get("enum")
        if values:
            return {str(v).lower(): {option: v} for v in values}
    return {"default": {}}


def player_counts(game: Game, options: Mapping[str, Any]) -> list[int]:
    """The player counts a mode can be set up for (those its options resolve for)."""
    counts = []
    for players in game.info.counts():
        try:
            lifecycle.check_options(game.info.id, dict(options), players)
        except Exception:  # InvalidOptions: not a count of this mode
            continue
        counts.append(players)
    return counts


def utility(game: Game, options: Mapping[str, Any]) -> str:
    """The catalogue's word for how the seats' results relate under these options."""
    for option, values in game.info.utility_by_option.items():
        if options.get(option) in values:
            return values[options[option]]
    return game.info.utility


def pack_content(game: Game, options: Mapping[str, Any]) -> Any:
    """The pack a match with these resolved options is set up with, from the game's own folder."""
    if game.packs is None:
        return None
    name = options.get(game.packs.option) or game.packs.default
    document = json.loads((game.packs.folder / f"{name}.json").read_text(encoding="utf-8"))
    return game.packs.load(document, dict(options))


@dataclass(frozen=True)
class Table:
    """A game, one of its modes and a player count: everything a face needs but the state."""

    game_id: str
    mode: str
    players: int
    options: dict[str, Any] = field(default_factory=dict)
    """Options besides the mode's (a variant's scoring, a house rule)."""

    @classmethod
    def of_match(cls, game_id: str, resolved: dict[str, Any], players: int) -> Table:
        """The table of a server match, from its ``match_created``'s game, resolved options and seats."""
        game = GAMES[game_id]
        for mode, chosen in modes(game).items():
            if chosen.items() <= resolved.items():
                defaults = lifecycle.check_options(game_id, chosen, players)
                return cls(
                    game_id, mode, players, {k: v for k, v in resolved.items() if defaults.get(k) != v}
                )
        raise ValueError(f"no mode of {game_id} has the options {resolved}")

    @cached_property
    def game(self) -> Game:
        return GAMES[self.game_id]

    @cached_property
    def resolved(self) -> dict[str, Any]:
        chosen = {**modes(self.game)[self.mode], **self.options}
        return lifecycle.check_options(self.game_id, chosen, self.players)

    @cached_property
    def content(self) -> Any:
        return pack_content(self.game, self.resolved)

    @property
    def chance(self) -> bool:
        return self.game.info.chance

    @cached_property
    def vocabulary(self) -> Vocabulary:
        """The codec's tokens, the same for every player count of the mode: one number, one token."""
        return vocabulary(self.game_id, self.mode, json.dumps(self.options, sort_keys=True))

    def setup(self, seed: str) -> State:
        return self.game.setup(self.resolved, self.players, seed, self.content)

    @cached_property
    def setup_draws(self) -> list[Draw]:
        """The draws of setup, offered one by one (``Game.setup_chance``); none in a game without chance."""
        if not self.chance:
            return []
        chance = self.game.setup_chance
        if chance is None:
            raise ValueError(f"{self.game_id} has chance but does not say what it draws (setup_chance)")
        return chance.draws(self.resolved, self.players, self.content)

    @property
    def max_chance_outcomes(self) -> int:
        """The most outcomes of a chance decision: the largest of setup's draws, which bounds those of play
        too (a die has a few faces, a hand a few cards, where setup shuffles whole decks)."""
        return max((len(draw.items) for draw in self.setup_draws), default=0)

    def deal_drawn(self, drawn: dict[str, Any]) -> State:
        """The game set up with what its setup's draws drew (``setup_draws``)."""
        chance = self.game.setup_chance
        assert chance is not None
        return chance.deal(self.resolved, self.players, self.content, drawn)

    def given(self, state: State, name: str, item: Any) -> State:
        """The state with a draw of play given (``SetupChance.given``), for the action waiting for it."""
        chance = self.game.setup_chance
        assert chance is not None and chance.given is not None
        return chance.given(state, name, item)

    def start(self) -> Seating:
        """The state before anything is decided (before the chance draws, in a game with chance)."""
        seating = Seating(self)
        if not self.chance:
            seating.deal(FIXED_SEED)
        else:
            seating.settle()  # nothing left to chance (every draw of one item): dealt at once
        return seating

    def __reduce__(self) -> tuple[Any, tuple[str, str, int, str]]:
        # pickled (OpenSpiel serialises a state by pickling it) as what makes it, not with its engine and
        # pack: unpickled, it is the process's one table of these (``shared_table``), its engine the registry's
        return shared_table, (self.game_id, self.mode, self.players, json.dumps(self.options, sort_keys=True))


@functools.cache
def shared_table(game_id: str, mode: str, players: int, options: str) -> Table:
    """The one table of a game, mode, player count and options (as JSON) in this process: the states of a
    game and those deserialised for it share its engine, pack and vocabulary."""
    return Table(game_id, mode, players, json.loads(options))


@functools.cache
def vocabulary(game_id: str, mode: str, options: str) -> Vocabulary:
    """A mode's vocabulary (with these options, as JSON), from the states it starts with at each of its
    player counts."""
    game, chosen = GAMES[game_id], json.loads(options)
    starts = [
        Table(game_id, mode, players, chosen).setup(FIXED_SEED)
        for players in player_counts(game, {**modes(game)[mode], **chosen})
    ]
    return Vocabulary.of(game.action_schema, starts)


def drawing(draws: Sequence[Draw], outcomes: Sequence[int]) -> tuple[dict[str, Any], Draw | None, list[int]]:
    """Where the setup's draws stand after these outcomes: what is drawn whole, the draw under way (None
    when all are drawn) and the outcomes it may draw next (indices of its items not drawn yet)."""
    drawn: dict[str, Any] = {}
    at = 0
    for draw in draws:
        if not draw.shuffle:
            if at == len(outcomes):
                return drawn, draw, list(range(len(draw.items)))
            drawn[draw.name] = draw.items[outcomes[at]]
            at += 1
            continue
        order = list(outcomes[at : at + max(len(draw.items) - 1, 0)])
        at += len(order)
        taken = set(order)
        left = [i for i in range(len(draw.items)) if i not in taken]
        if len(left) > 1:
            return drawn, draw, left
        drawn[draw.name] = [draw.items[i] for i in order + left]
    return drawn, None, []


class Seating:
    """A face's state: the engine's state (None until chance has drawn), the chance outcomes so far and each
    seat's unfinished choice. Mutable, as OpenSpiel's states are; ``copy`` gives an independent one."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.draws: list[int] = []
        self.engine: State | None = None
        self.pending: tuple[int, Action, Draw] | None = None
        """(seat, action, draw): an action that waits for a draw of play, the chance decision now."""
        self.choices: list[list[int]] = [[] for _ in range(table.players)]
        self.events: list[Event] = []
        self.actions: list[tuple[int, Action]] = []  # (seat, action) of every action played, in order
        self._seen: list[list[str]] = [[] for _ in range(table.players)]  # each event as each seat sees it
        self._listed: dict[int, list[tuple[tuple[int, ...], Action]]] = {}
        self._encoded: dict[int, list[tuple[int, ...]]] = {}

    def copy(self) -> Seating:
        other = Seating(self.table)
        other.draws = list(self.draws)
        other.engine = self.engine  # never mutated: the engine returns new states
        other.pending = self.pending
        other.choices = [list(c) for c in self.choices]
        other.events = list(self.events)
        other.actions = list(self.actions)
        other._seen = [list(seen) for seen in self._seen]
        other._listed = dict(self._listed)
        other._encoded = dict(self._encoded)
        return other

    def __getstate__(self) -> dict[str, Any]:
        # a pickle (OpenSpiel's serialisation) leaves out the legal listings, a cache made again when asked
        return {**self.__dict__, "_listed": {}, "_encoded": {}}

    def __deepcopy__(self, memo: dict[int, Any]) -> Seating:
        # OpenSpiel clones a Python state by deep copy: the engine's states are never changed in place, so
        # sharing them is safe, and copying them would cost more than the game (a whole state per clone)
        return self.copy()

    # -- chance ------------------------------------------------------------------------------

    @property
    def is_chance(self) -> bool:
        return self.engine is None or self.pending is not None

    def chance_outcomes(self) -> list[int]:
        """The outcomes of the chance decision now: the index of an item the setup's draw under way may draw
        (``drawing``), or of an item of the pending draw of play."""
        if not self.is_chance:
            return []
        if self.pending is not None:
            return list(range(len(self.pending[2].items)))
        return drawing(self.table.setup_draws, self.draws)[2]

    def chance_probabilities(self) -> list[tuple[int, float]]:
        """Each outcome of the chance decision now with its probability: a pending draw's weights, else
        all equally likely."""
        outcomes = self.chance_outcomes()
        weights = self.pending[2].weights if self.pending is not None else None
        if weights is None:
            return [(outcome, 1 / len(outcomes)) for outcome in outcomes]
        return [(outcome, weight / sum(weights)) for outcome, weight in zip(outcomes, weights, strict=True)]

    def chance_text(self, outcome: int) -> str:
        """A chance outcome as people read it: ``deck: C12``, ``dice:1:0:RED: WATER``."""
        if self.pending is not None:
            waiting = self.pending[2]
            return f"{waiting.name}: {waiting.items[outcome]}"
        _, draw, _ = drawing(self.table.setup_draws, self.draws)
        return f"{draw.name}: {draw.items[outcome]}" if draw else f"outcome {outcome}"

    def draw(self, outcome: int) -> None:
        """One chance outcome; the last of setup's deals the game, one of play's plays the action waiting."""
        if outcome not in self.chance_outcomes():
            raise ValueError(f"no chance outcome {outcome} here")
        if self.pending is not None:
            seat, action, draw = self.pending
            self.engine = self.table.given(self.state, draw.name, draw.items[outcome])
            self.pending = None
            self.play(seat, action)
            return
        self.draws.append(outcome)
        self.settle()

    def settle(self) -> None:
        """Deal the game once chance has drawn all setup draws."""
        drawn, under_way, _ = drawing(self.table.setup_draws, self.draws)
        if under_way is None:
            self.engine = self.table.deal_drawn(drawn)

    def deal(self, seed: str) -> None:
        """Set the game up with ``seed`` (a replay's, or the drawn one)."""
        self.engine = self.table.setup(seed)

    # -- decisions ---------------------------------------------------------------------------

    @property
    def state(self) -> State:
        if self.engine is None:
            raise ValueError("the seed is not drawn yet")
        return self.engine

    @property
    def is_over(self) -> bool:
        return self.engine is not None and self.table.game.is_over(self.engine)

    def acting(self) -> list[int]:
        """The seats that decide now: those the engine lets act that have a legal action."""
        if self.is_chance or self.is_over:
            return []
        return [seat for seat in sorted(self.table.game.to_act(self.state)) if self.listed(seat)]

    def listed(self, seat: int) -> list[tuple[tuple[int, ...], Action]]:
        """The seat's legal actions with their tokens' ids, in the engine's order."""
        if seat not in self._listed:
            vocabulary = self.table.vocabulary
            listed = [(tuple(vocabulary.ids(a)), a) for a in self.table.game.legal_actions(self.state, seat)]
            self._listed[seat] = listed
            self._encoded[seat] = sorted({ids for ids, _ in listed})
        return self._listed[seat]

    def encoded(self, seat: int) -> list[tuple[int, ...]]:
        """The tokens' ids of the seat's legal actions, sorted, each once."""
        self.listed(seat)
        return self._encoded[seat]

    def legal_actions(self, seat: int) -> list[Action]:
        return [action for _, action in self.listed(seat)]

    def _forced(self, seat: int, prefix: list[int]) -> list[int]:
        encoded = self.encoded(seat)
        while True:
            following = continuations(encoded, prefix)
            if len(following) != 1 or self._finished(seat, [*prefix, following[0]]) is not None:
                return prefix
            prefix = [*prefix, following[0]]

    def _finished(self, seat: int, prefix: list[int]) -> Action | None:
        """The legal action the prefix spells out whole (the first listed, if two are the same)."""
        wanted = tuple(prefix)
        encoded = self.encoded(seat)
        at = bisect.bisect_left(encoded, wanted)
        if at == len(encoded) or encoded[at] != wanted:
            return None
        return next(action for ids, action in self.listed(seat) if ids == wanted)

    def legal_tokens(self, seat: int) -> list[int]:
        """The token ids ``seat`` may pick now: ``[WAIT]``'s id when it does not decide; ``WAIT`` too where
        several seats decide and it has not begun an action (it lets the others go first)."""
        wait = self.table.vocabulary.id_of(WAIT)
        acting = self.acting()
        if seat not in acting:
            return [wait] if not self.is_over and not self.is_chance else []
        prefix = self._forced(seat, self.choices[seat])
        tokens = continuations(self.encoded(seat), prefix)
        return sorted([*tokens, wait]) if len(acting) > 1 and not self.choices[seat] else tokens

    def spelled(self, seat: int) -> list[int]:
        """The tokens of the seat's unfinished action so far, the forced ones that follow included."""
        return self._forced(seat, self.choices[seat])

    def next_pick(self, seat: int, action: Action) -> int:
        """The token ``seat`` picks next to spell ``action`` out (forced tokens are taken for it)."""
        return self.tokens_of(action)[len(self.spelled(seat))]

    def pick(self, seat: int, token: int) -> None:
        """``seat`` picks a token; an action it finishes is played."""
        if token not in self.legal_tokens(seat):
            raise ValueError(f"seat {seat} may not pick token {token} now")
        if token == self.table.vocabulary.id_of(WAIT):
            return
        prefix = [*self._forced(seat, self.choices[seat]), token]
        finished = self._finished(seat, prefix)
        if finished is not None:
            self.play(seat, finished)
        else:
            self.choices[seat] = self._forced(seat, prefix)

    def pick_together(self, tokens: Sequence[int]) -> None:
        """Every seat's token at a simultaneous decision, applied in seat order."""
        acting = self.acting()
        for seat, token in enumerate(tokens):
            if seat in acting and seat in self.acting():
                if token not in self.legal_tokens(seat):  # a seat before it changed what it may do
                    self.choices[seat] = []
                    continue
                self.pick(seat, token)

    def play(self, seat: int, action: Action) -> None:
        """An action of the seat, through the engine; every seat's listing is made again. An action that
        needs a draw of play not given yet waits for it (``pending``): chance decides next."""
        while True:
            try:
                played = self.table.game.play(self.state, seat, action)
                break
            except Undrawn as undrawn:
                draw = undrawn.draw
                if len(draw.items) == 1:  # a sure outcome is no chance decision (an injury of a party of one)
                    self.engine = self.table.given(self.state, draw.name, draw.items[0])
                    continue
                self.pending = (seat, action, draw)
                self.choices[seat] = []
                return
        if played:
            self.engine = played.states[-1]
        self.events.extend(played)
        self.actions.append((seat, action))
        for viewer, seen in enumerate(self._seen):
            seen.extend(canonical(self.table.game.event_view(e, viewer)) for e in played)
        self.choices[seat] = []
        self._listed, self._encoded = {}, {}
        for other, prefix in enumerate(self.choices):  # what others had begun may no longer continue
            if prefix and not continuations(self.encoded(other), prefix):
                self.choices[other] = []

    def tokens_of(self, action: Action) -> list[int]:
        """The ids of an action's tokens (the ones a seat picks, forced ones included)."""
        return self.table.vocabulary.ids(action)

    # -- what a seat sees, and the end ------------------------------------------------------

    def view(self, seat: int) -> dict[str, Any]:
        """What the server would show the seat, and its own unfinished choice."""
        if self.engine is None:
            return {"dealt": False, "choice": []}
        if not self.table.game.info.hidden_information:  # nobody else decides meanwhile: nothing to hide
            return {"view": self.table.game.view(self.engine, seat), "choices": self.choices}
        return {"view": self.table.game.view(self.engine, seat), "choice": self.choices[seat]}

    def view_bytes(self, seat: int) -> bytes:
        """``view`` as canonical JSON in UTF-8, zero-padded to ``OBSERVATION_BYTES``: the faces' tensors."""
        return _padded(canonical(self.view(seat)), OBSERVATION_BYTES, "observation")

    def seen(self, seat: int) -> str:
        """The events so far as the server shows them to the seat, as a JSON list (made as they come)."""
        return "[" + ",".join(self._seen[seat]) + "]"

    def recall(self, seat: int) -> str:
        """The seat's information state as JSON: every event as it saw it, then its view (perfect recall).
        Built from ``seen`` and ``view`` only, so it holds nothing the server would not show the seat."""
        return '{"events":' + self.seen(seat) + ',"view":' + canonical(self.view(seat)) + "}"

    def recall_bytes(self, seat: int) -> bytes:
        """``recall`` in UTF-8, zero-padded to ``INFORMATION_STATE_BYTES``: the information-state tensor."""
        return _padded(self.recall(seat), INFORMATION_STATE_BYTES, "information state")

    def scores(self) -> dict[str, Any]:
        return self.table.game.scores(self.state)

    def returns(self) -> list[float]:
        """Each seat's utility at the end, from the ranks (1 = best): against each other seat, +1 for a
        better rank, -1 for a worse one, averaged (zero-sum); with one seat, or seats that win or lose
        together, 1 for rank 1 and 0 otherwise."""
        if not self.is_over:
            return [0.0] * self.table.players
        ranks = self.scores()["ranks"]
        n = len(ranks)
        if n == 1 or utility(self.table.game, self.table.resolved) == "cooperative":
            return [1.0 if rank == 1 else 0.0 for rank in ranks]
        return [sum((o > r) - (o < r) for o in ranks) / (n - 1) for r in ranks]


def _padded(text: str, size: int, what: str) -> bytes:
    """``text`` in UTF-8, zero-padded to ``size`` bytes: a tensor of a fixed shape."""
    data = text.encode()
    if len(data) > size:
        raise ValueError(f"an {what} of {len(data)} bytes exceeds the {size} its tensor holds")
    return data.ljust(size, b"\0")
