"""The engine protocol: the one contract every game under ``service/games`` keeps.

A game engine is a pure state machine. It is given plain data and returns
plain data; it never reads a clock, a file at play time, a socket or a global
random generator, and it imports nothing from Flask, Redis or RQ. Everything
it needs to be deterministic comes in through ``setup``: the options, the
number of seats and the match seed. That is what lets the server keep only
the event log and rebuild any state at any version by folding it again.

The life of a match, as the server drives it::

    options = game.resolve_options(options, players)   # defaults filled in, or InvalidOptions
    state = game.setup(options, players, seed)          # version 1: the initial state
    game.to_act(state)                                  # -> [seat, ...] who may act now
    game.legal_actions(state, seat)                     # -> [action, ...], each postable as is
    played = game.play(state, seat, action)             # -> Played [event, ...] or IllegalAction
    state = played.states[-1]                           # each event folded once, by the engine's Turn
    game.apply(state, event)                            # the fold: how a log is replayed
    game.is_over(state); game.scores(state)             # the end, and the result

Terms:

state
    A JSON-serialisable dict (ints may be large), never mutated in place:
    ``apply`` returns a new dict and may share unchanged parts with the old.
action
    A dict with a ``type`` key, as a client posts it. Its shape is checked by
    the game's ``action_schema`` (marshmallow) before ``play`` sees it, so
    ``play`` only judges legality.
event
    ``{"type": str, "seat": int | None, "data": dict}``. ``play`` returns
    every consequence of an action as events, automatic ones included (a turn
    skipped, the game ending), so that the log alone explains the match.
seat
    An int, ``0 .. players-1``. ``None`` stands for a spectator in ``view``
    and ``event_view``.
IllegalAction
    Raised by ``play`` with a stable ``reason`` code (``corner_rule``,
    ``not_your_turn``...) and a sentence for people. Codes are part of the
    API: never rename one. Every code a game's ``play`` may raise is declared in
    its ``refusals`` (``Refusals``: code -> the rule it enforces), which the
    catalogue and the OpenAPI document list; refusing with an undeclared code is
    a programming error (the test suite fails on it).

Hidden information has exactly one gate per game: ``view`` for states and
``event_view`` for log entries. The server passes everything it shows through
them, legal actions included (they are computed for the asking seat only).

Optional parts are declared, not probed: each is an attribute that is either ``None`` or a
value of its own type (the kit, ``service.games.kit.Engine``, declares every one with its default), so
the server reads what a game can do from the game itself and never asks ``getattr(game, ..., None)``.

``packs: Packs | None``
    The game's rules refer to a content pack (cards, tiles, piece sets): data, not code.
    ``Packs.load(document, options)`` checks a parsed JSON document against the pack's JSON Schema
    and its semantic checks (some of which the resolved match options may relax), raising
    InvalidPack naming the item and field at fault, and returns what ``setup`` gets as
    ``content``. The server finds packs by name (the option ``Packs.option``, ``Packs.default``
    when omitted) in ``Packs.folder`` and in ``$MATCHLOG_PACKS/<game id>/<name>.json``, and records
    the loaded pack in ``match_created``, so that the log alone is enough to replay the match.
``svg: Callable[[view], str] | None``
    An SVG drawing of what ``view`` returned, served for ``Accept: image/svg+xml``.
``record: RecordFormat | None``
    A game record format (MIME type ``RecordFormat.mime``), such as Blokus SGF. The server plays
    imported actions through ``play`` in order, each by the seat to act, so a record becomes an
    ordinary match with an ordinary log; reading errors are InvalidRecord.

``setup_chance: SetupChance | None``
    For a game that says what chance draws (shuffles and picks from the seed): what setup draws
    (``Draw``), what a seed draws, and the state dealt from what was drawn, which is ``setup``'s for that
    seed. A game that draws during play too (``SetupChance.given``) draws each item through one point,
    which in a state dealt from a seed picks what the seed's generator picks, and in one dealt from
    drawn items (the faces') raises ``Undrawn`` naming the draw. The AI faces offer every draw as a
    chance decision, each outcome with its probability (``service.faces.table``). None: a game without
    chance (the faces refuse a game with chance that does not say what it draws).
``action_names: ActionNames | None``
    The API's names for the game's actions where they differ from its engine's and rules spec's.
``action_parameters: Mapping[str, ActionParameters] | None``
    The fields each action type takes (``ActionParameters``), in the engine's names: the OpenAPI document
    shows each type as a shape of its own, so that a generated client narrows an action by its ``type``.
    None: one shape for every type (``action_schema``'s).
``analyst: Analyst | None``
    How the analysis of a finished match values a seat's choices (``service.domain.analysis``); None: no analysis.
``legal_action_keys(state, seat) -> (family, keys) | None``
    ``legal_actions`` as keys that each stand for the same action for ever (``keyed_action(family,
    key)``), so that the API makes an action's JSON once per key; None (the kit's default): not keyed.
``contract: Contract | None``
    JSON Schemas of what the game shows: its ``view`` (as a seat and as a spectator sees it), the
    ``data`` of each of its event types as ``event_view`` shows it to each viewer, what ``scores``
    returns, and the content pack ``match_created`` records. ``openapi.yaml`` is built from them
    (``service.http.openapi_components``), beside ``options_schema`` and ``action_schema``.

``play`` returns a ``Played``: the events, in order, as a list that also carries the state after
each of them, so that the server keeps those states instead of folding the events a second time.
The engine kit (``service.games.kit``) builds it; an engine written without the kit must too.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

import marshmallow

from service.games.bots import Bot
from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

State = dict[str, Any]
Event = dict[str, Any]
Action = dict[str, Any]


class IllegalAction(Exception):
    """An action the rules refuse. ``reason`` is a stable machine-readable code."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class Refusal:
    """What one refusal code means: the rule it enforces (an id of the game's spec, ``"spec 2.2"``,
    ``"R-4.5"``; for the server's own refusals, the README section) and a short sentence."""

    rule: str
    description: str


Refusals = Mapping[str, Refusal]
"""Every reason an engine's ``play`` may refuse with: ``IllegalAction.reason`` -> ``Refusal``."""


def turn_refusals(turn_rule: str, over_rule: str) -> dict[str, Refusal]:
    """The two refusals of ``check_turn`` (``game_over``, ``not_your_turn``), with where the game's
    rules say whose turn it is and when it ends: every engine declares them."""
    return {
        "game_over": Refusal(over_rule, N_("the game is over: no action is taken after its end")),
        "not_your_turn": Refusal(turn_rule, N_("this seat may not act now")),
    }


class InvalidOptions(Exception):
    """Options (or a player count) a game cannot be set up with. ``field`` names the culprit."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


class InvalidPack(Exception):
    """A content pack that fails its schema or its semantic checks. ``path`` names the item and
    field, e.g. ``cards[12] (C13).front.TL.colour``."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class InvalidRecord(Exception):
    """A game record (e.g. an SGF file) that cannot be read."""


DYNAMICS = ("sequential", "simultaneous")
UTILITIES = ("competitive", "cooperative", "mixed")


@dataclass(frozen=True)
class GameInfo:
    """What kind of game this is, in the manner of OpenSpiel's game type."""

    id: str
    name: str
    min_players: int
    max_players: int
    hidden_information: bool
    chance: bool
    description: str = ""
    player_counts: tuple[int, ...] = field(default=())
    rules_version: str = "1"
    """Raise it when a change of the engine changes the state it folds: snapshots of other versions
    are then ignored and rebuilt from the log."""
    views_version: str = "1"
    """Raise it when a change of ``event_view`` changes what a spectator sees of an event: a sealed log
    records the version it was written with (``match_created``'s ``views``), and the audit compares an
    entry's public data with the game's view only for logs of the current version (older ones: their
    commitments, and the chain, still prove them)."""
    dynamics: str = "sequential"
    """``"sequential"``: one seat acts at a time; ``"simultaneous"``: somewhere in the game several seats
    act at once (``to_act`` names more than one), as OpenSpiel's GameType.Dynamics."""
    utility: str = "competitive"
    """How the seats' results relate under the default options: ``"competitive"`` (ranked against each
    other: one's gain is another's loss), ``"cooperative"`` (the seats win or lose together) or ``"mixed"``
    (each seat has a goal of its own that the others can help or hinder but not take: general-sum). A
    one-seat match has no other seat to relate to, so it does not change the word."""
    utility_by_option: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """The option values under which ``utility`` is another, e.g. ``{"mode": {"COOP": "cooperative"}}``:
    a mode is a match option, so the catalogue can say which options make a game co-operative."""

    def __post_init__(self) -> None:
        # a typo here would reach every client through the catalogue
        readings = [self.utility, *(u for values in self.utility_by_option.values() for u in values.values())]
        if self.dynamics not in DYNAMICS or not set(readings) <= set(UTILITIES):
            raise ValueError(f"{self.id}: dynamics one of {DYNAMICS}, utility one of {UTILITIES}")

    def counts(self) -> list[int]:
        return list(self.player_counts or range(self.min_players, self.max_players + 1))


@dataclass(frozen=True)
class Packs:
    """The game reads content packs: how to load one, which one is the default, where they ship."""

    load: Callable[[Any, dict[str, Any]], Any]
    """``(parsed JSON document, resolved options) -> content`` for ``setup``; raises InvalidPack."""
    default: str
    """The pack a match gets when its options name none."""
    folder: Path
    """Where the game ships its packs, as ``<name>.json``."""
    option: str = "pack"
    """The match option that names the pack (its default in ``options_schema`` is ``default``)."""
    checked_by: tuple[str, ...] | None = None
    """The options ``load`` reads (a checked pack is reused for any match that agrees on them);
    None: any option may change the checks."""


@dataclass(frozen=True)
class Draw:
    """One chance draw: a shuffle of ``items`` (every order equally likely) or a pick of one."""

    name: str
    items: tuple[Any, ...]
    shuffle: bool
    """True: the items in an order drawn at random; False: one item, drawn at random."""
    weights: tuple[int, ...] | None = None
    """A pick's chances, one per item, in proportion (a die's face that two sides show weighs 2); None:
    every item equally likely."""


class Undrawn(Exception):
    """``play`` needs a draw of play (``draw``, a pick) that the state, dealt from drawn items, was not
    given: the faces make it a chance decision, give its outcome (``SetupChance.given``) and play again."""

    def __init__(self, draw: Draw):
        super().__init__(f"the draw {draw.name!r} is not given")
        self.draw = draw


@dataclass(frozen=True)
class SetupChance:
    """What chance draws (see the module's doc): ``setup(options, players, seed, content)`` is ``deal(options,
    players, content, drawn(options, players, content, seed))``. ``content`` is the loaded pack (or None)."""

    draws: Callable[[dict[str, Any], int, Any], list[Draw]]
    """``(resolved options, players, content) -> the draws``, in the order the faces offer them."""
    drawn: Callable[[dict[str, Any], int, Any, str], dict[str, Any]]
    """What a seed draws: each draw's name -> its items in order (a shuffle) or the one item (a pick); a game
    that draws during play adds what the seed decides those draws with (under a name of no setup draw)."""
    deal: Callable[[dict[str, Any], int, Any, dict[str, Any]], State]
    """The state set up with what was drawn."""
    given: Callable[[State, str, Any], State] | None = None
    """For a game that draws during play too: ``(state, draw's name, item) -> the state with that draw
    given``; a state dealt from ``drawn``'s items alone (not a seed's) raises ``Undrawn`` in ``play`` for each
    draw it was not given. None: setup draws all there is."""


@dataclass(frozen=True)
class RecordFormat:
    """A game record format (e.g. Blokus SGF): a match can be exported to it and created from it."""

    mime: str
    export: Callable[[dict[str, Any], list[str], list[Event]], str]
    """``(options, player names, the game's events as a spectator sees them) -> text``."""
    parse: Callable[[str], tuple[dict[str, Any], list[str], list[Action]]]
    """``text -> (options, player names, actions)``; raises InvalidRecord."""
    description: str
    example: str
    """A short record, shown in the OpenAPI document."""


@dataclass(frozen=True)
class Contract:
    """JSON Schemas (draft 2020-12 vocabulary: ``type`` lists with ``"null"``, ``enum``, ``anyOf``) of what a
    game shows. The server's own entries (``match_created``, ``seat_joined``...) are the shell's to describe."""

    state: dict[str, Any]
    """``view(state, seat)``, for any seat and for a spectator."""
    events: dict[str, dict[str, Any]]
    """Each event type the rules append -> its ``data``, as every viewer may see it (redacted forms too)."""
    result: dict[str, Any]
    """What ``scores(state)`` returns: ``scores`` and ``ranks`` and the game's breakdown."""
    content: dict[str, Any] | None = None
    """The loaded content pack, as ``match_created`` records it (games with packs)."""
    defs: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Shapes that several of the schemas above share, each written once (``$defs``): the schemas refer to
    one as ``{"$ref": "#/$defs/<Name>"}``, and openapi.yaml has it as the component ``<Game><Name>``."""

    @classmethod
    def load(cls, path: Path) -> Contract:
        """A contract kept as a JSON document beside the engine: {state, events, result, content?}."""
        import json

        document = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            state=document["state"],
            events=document["events"],
            result=document["result"],
            content=document.get("content"),
            defs=document.get("$defs", {}),
        )


@dataclass(frozen=True)
class ActionNames:
    """What a game's actions are called on the API, where that differs from what its engine and rules spec
    call them: ``types`` and ``fields``, each the engine's name -> the API's. The API lists actions by the
    API's names and takes either (the engine's are deprecated aliases); the engine sees its own. Keys are
    renamed wherever they stand in an action (a nested source's too); values other than ``type`` stay."""

    types: Mapping[str, str]
    fields: Mapping[str, str]

    def for_clients(self, action: Any) -> Any:
        """An action as the engine has it, in the API's names."""
        return _renamed(action, self.types, self.fields)

    def for_engine(self, action: Any) -> Any:
        """An action a client sent, in either names, in the engine's."""
        return _renamed(action, *self._engine_names)

    @cached_property
    def _engine_names(self) -> tuple[dict[str, str], dict[str, str]]:
        """The API's names -> the engine's, made once (an action is loaded through them at every move)."""
        return {new: old for old, new in self.types.items()}, {new: old for old, new in self.fields.items()}


def _renamed(node: Any, types: Mapping[str, str], names: Mapping[str, str], top: bool = True) -> Any:
    if isinstance(node, list):
        return [_renamed(item, types, names, False) for item in node]
    if not isinstance(node, dict):
        return node
    out = {names.get(key, key): _renamed(value, types, names, False) for key, value in node.items()}
    if top and isinstance(out.get("type"), str):
        out["type"] = types.get(out["type"], out["type"])
    return out


@dataclass(frozen=True)
class ActionParameters:
    """The fields an action of one type takes, beside ``type``: those it must have and those it may.

    Only the document reads it (each type a shape of its own); ``action_schema`` still checks what is
    posted, so a field this leaves out is not refused for it."""

    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()


class Played(list[Event]):
    """The events of one action, in order, with ``states``: the state after each event.

    It is an ordinary list of events to whoever does not need the states."""

    def __init__(self, events: Sequence[Event] = (), states: Sequence[State] = ()):
        super().__init__(events)
        self.states = list(states)
        if len(self.states) != len(self):
            raise ValueError("Played needs one state per event")


class Game(Protocol):
    """What the server needs of a game. Its tables are read-only properties here: the server only reads
    them, so an engine may declare them as class variables (the kit's ``ClassVar`` tables) or set them
    on the instance (``contract``, a game's own ``bots``)."""

    @property
    def info(self) -> GameInfo: ...

    @property
    def options_schema(self) -> dict[str, Any]:
        """JSON Schema of the match options, shown in the catalogue and checked at creation."""

    @property
    def action_schema(self) -> type[marshmallow.Schema]:
        """The shape of an action; legality is ``play``'s business."""

    @property
    def packs(self) -> Packs | None: ...

    @property
    def svg(self) -> Callable[[dict[str, Any]], str] | None: ...

    @property
    def record(self) -> RecordFormat | None: ...

    @property
    def setup_chance(self) -> SetupChance | None: ...

    @property
    def refusals(self) -> Refusals:
        """Every ``IllegalAction.reason`` ``play`` may raise, with the rule each enforces (``turn_refusals``
        included); the server's own refusals (``service.domain.lifecycle.SHELL_REFUSALS``) come on top."""

    @property
    def bots(self) -> Mapping[str, Bot]:
        """The game's own bots beside the common random and greedy ones,
        such as a search bot for a game without hidden information."""

    @property
    def timeout_actions(self) -> dict[str, Action]:
        """The on_timeout policies the game supports beyond ``bot`` (``pass``, ``forfeit``), each with the
        action that carries it out for a seat whose clock ran out (a random legal move where the rules
        refuse it at that point)."""

    @property
    def event_types(self) -> frozenset[str]:
        """Every type of event the game's rules append (what ``apply`` folds): the entry types a webhook
        may ask for, beside the shell's own."""

    @property
    def contract(self) -> Contract | None:
        """JSON Schemas of the view, the events' data and the result (see the module's doc)."""

    @property
    def irreversible(self) -> frozenset[str]:
        """Event types that reveal hidden information to someone (a card drawn, a die rolled, a private
        look): an action that brought one cannot be undone. A game whose event reveals only in some
        cases (a tile placed from a face-down pile, not from the market) says so with ``reveals``."""

    @property
    def action_names(self) -> ActionNames | None:
        """The API's names for the game's actions where they differ from its engine's (``ActionNames``);
        None: the same names."""

    @property
    def action_parameters(self) -> Mapping[str, ActionParameters] | None:
        """Each action type's fields, in the engine's names (``ActionParameters``); None: one shape for all."""

    @property
    def analyst(self) -> Any:
        """``service.games.kit.Analyst`` or None: how the analysis of a finished match values a seat's
        choices (``service.domain.analysis``); it is given only ``seen_by``'s state. None: the game has no
        analysis."""

    def seen_by(self, state: State, seat: int) -> State | None:
        """A state made only of what ``seat`` may see (every hidden part decided by its view alone), for
        the analysis and for a bot's look ahead; None when the game cannot make one."""

    def legal_action_keys(self, state: State, seat: int) -> tuple[Hashable, Sequence[Hashable]] | None:
        """``legal_actions`` in its order as keys of a family, each standing for the same action for ever
        (``keyed_action(family, key)`` is it); None: the game does not key its actions."""

    def keyed_action(self, family: Any, key: Any) -> Action:
        """The action of a key of ``legal_action_keys`` (only called for a game that keys them)."""

    def reveals(self, event: Event) -> bool:
        """Whether ``event`` showed someone what was hidden (no undo past it): the kit's default is whether
        its type is ``irreversible``."""

    def resolve_options(self, options: dict[str, Any], players: int) -> dict[str, Any]:
        """Options with every default filled in; raises InvalidOptions.

        The resolved options are what the log records, so that a later change
        of a default never changes how an old match replays."""

    def timeouts(self, options: dict[str, Any]) -> dict[str, Action]:
        """The ``timeout_actions`` a match with these resolved options can use: those its rules give it
        a move for at all (a Blokus colour may pass only where ``allow_voluntary_pass`` says so)."""

    def setup(self, options: dict[str, Any], players: int, seed: str, content: Any = None) -> State:
        """The state at version 1. ``content`` is the loaded content pack, for games that have them."""

    def to_act(self, state: State) -> list[int]: ...

    def legal_actions(self, state: State, seat: int) -> list[Action]: ...

    def play(self, state: State, seat: int, action: Action) -> Played: ...

    def apply(self, state: State, event: Event) -> State: ...

    def view(self, state: State, seat: int | None) -> dict[str, Any]: ...

    def event_view(self, event: Event, seat: int | None) -> Event: ...

    def describe(self, event: Event, state: State | None = None) -> str:
        """The event in plain words for people, from what ``event_view`` let the seat see (the kit
        gives a default from the event's type and values). ``state``, where the caller has the match's,
        lends the game its content (the pack) to name the cards and places the event's ids stand for;
        nothing else of it may show in the text, which the seat reads."""

    def is_over(self, state: State) -> bool: ...

    def scores(self, state: State) -> dict[str, Any]:
        """The result: at least ``scores`` and ``ranks`` (1 = best, ties share), one per seat."""


def looked_ahead_on(game: Game, state: State, seat: int) -> State:
    """The state a bot of ``seat`` plays its moves ahead on (the greedy bot's standing after each legal
    action): the game's ``seen_by(state, seat)``, where every hidden part (another hand, the deck's order,
    rolls to come) is decided by the seat's view alone, so a bot's choice never tells anyone what its seat
    could not see; the state itself in a game that has nothing hidden (every game with hidden information
    or chance makes one: tests/games/test_bots.py)."""
    seen = game.seen_by(state, seat)
    return state if seen is None else seen


def legal_action_keys(game: Game, state: State, seat: int) -> tuple[Hashable, Sequence[Hashable]] | None:
    """The game's ``legal_action_keys(state, seat)``: ``legal_actions`` in its order as keys of a family, each
    standing for the same action for ever (``keyed_action(family, key)`` is it), so that whoever makes
    something costly of an action (the API's JSON) can make it once per key. None: the game does not key
    its actions."""
    return game.legal_action_keys(state, seat)


def reveals(game: Game, event: Event) -> bool:
    """Whether ``event`` showed someone what was hidden: the game's ``reveals(event)`` (the kit's: whether
    its type is ``irreversible``)."""
    return game.reveals(event)


def check_not_over(game: Game, state: State, rule: str = "") -> None:
    """The refusal of any action after the end; ``rule`` names where the rules say the game ends."""
    if game.is_over(state):
        raise IllegalAction(
            "game_over", _("the game is over ({rule})", rule=rule) if rule else _("the game is over")
        )


def check_turn(game: Game, state: State, seat: int, rule: str = "", over_rule: str = "") -> None:
    """The two refusals every game starts ``play`` with: the game is over, or it is not this seat's
    turn. ``rule`` and ``over_rule`` name where the game's rules say so, e.g. ``"R-0.4"``."""
    check_not_over(game, state, over_rule)
    if seat not in game.to_act(state):
        raise IllegalAction(
            "not_your_turn",
            _("it is not this seat's turn ({rule})", rule=rule) if rule else _("it is not this seat's turn"),
        )


def fold(game: Game, state: State, events: list[Event]) -> State:
    for event in events:
        state = game.apply(state, event)
    return state


def ranks(scores: Sequence[float], higher_is_better: bool) -> list[int]:
    """Competition ranking (1, 2, 2, 4): tied seats share a place."""
    sign = -1 if higher_is_better else 1
    return [1 + sum(1 for other in scores if sign * other < sign * mine) for mine in scores]
