"""The engine kit: what every game gets for free, so that an engine is only its rules.

An engine subclasses ``Engine`` and writes the parts that are its own (``setup``, ``to_act``,
``_legal_actions``, ``_play``, ``view``, ``is_over``, ``scores`` and one small method per event
type, marked with ``@applies``). The kit supplies the rest of the protocol of
``service.games.protocol``:

- ``resolve_options``: every default of ``options_schema`` filled in, then the engine's own
  ``complete_options`` for what a JSON Schema cannot say;
- the turn guard: ``legal_actions`` is empty for a seat that may not act, and ``play`` refuses
  ``game_over`` and ``not_your_turn`` before the engine's ``_play`` sees the action;
- ``play`` returns a ``Played`` (events and the state after each), built by a ``Turn`` that folds
  each event once, as it is emitted, so neither the engine nor the server folds it again;
- ``apply``: dispatch by event type through the table of ``@applies`` methods;
- ``event_view``: every event public, for games without hidden information;
- ``pack_path`` for pack errors and ``enum_option`` for options, written once.

A game is one package under ``service/games/`` whose ``__init__`` exposes ``GAME``; the registry
(``service.games``) finds it, and the server builds the catalogue, the OpenAPI document, the pack
lookup, pictures, records and the benchmarks from what the engine declares.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

import marshmallow

from service.games.bots import Bot
from service.games.protocol import (
    Action,
    ActionNames,
    ActionParameters,
    Contract,
    Event,
    GameInfo,
    IllegalAction,
    Packs,
    Played,
    RecordFormat,
    Refusals,
    SetupChance,
    State,
    check_not_over,
    check_turn,
)
from service.games.texts import catalogue

_ = catalogue(__file__).gettext

Fold = TypeVar("Fold", bound=Callable[..., None])


def applies(*event_types: str) -> Callable[[Fold], Fold]:
    """Mark a method as the fold of these event types: ``method(self, state, data, seat)`` updates
    ``state``, a shallow copy of the state before the event (copy nested parts before changing them).
    ``seat`` is the event's: a fold of events that always belong to a seat may type it ``int``."""

    def mark(method: Fold) -> Fold:
        # the mark is an attribute of the function itself, which a Callable type does not declare
        vars(method)["applies"] = (*getattr(method, "applies", ()), *event_types)
        return method

    return mark


def event(kind: str, seat: int | None = None, **data: Any) -> Event:
    return {"type": kind, "seat": seat, "data": data}


class Turn:
    """One action being judged: the events emitted so far and the state after each.

    ``state`` is always the state after the last event, so the rules that follow an event (a colour
    that can no longer place, a market to refill) look at the state as it now is."""

    def __init__(self, engine: Engine, state: State):
        self.engine = engine
        self.state = state
        self.events: list[Event] = []
        self.states: list[State] = []

    def add(self, new_event: Event) -> State:
        self.state = self.engine.apply(self.state, new_event)
        self.events.append(new_event)
        self.states.append(self.state)
        return self.state

    def emit(self, kind: str, seat: int | None = None, **data: Any) -> State:
        return self.add(event(kind, seat, **data))

    def played(self) -> Played:
        return Played(self.events, self.states)


class Engine:
    """The base of every engine: subclass it, declare, and write the rules."""

    info: GameInfo
    words: ClassVar[tuple[str, ...]] = ()
    """The plain words the kit's ``describe`` says the game's events with (types, keys, enum values: ``words_of``),
    each marked ``N_`` for the game's catalogue: tests/games/test_texts.py checks random games say no other."""
    options_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {},
    }
    action_schema: type[marshmallow.Schema]
    packs: Packs | None = None
    svg: Callable[[dict[str, Any]], str] | None = None
    record: RecordFormat | None = None
    setup_chance: SetupChance | None = None
    """Every chance drawn at setup, one draw at a time (``protocol.SetupChance``); None: the seed's alone."""
    turn_rule: str = ""
    """Where the rules say whose turn it is (``"R-0.4"``), quoted when a seat acts out of turn."""
    over_rule: str = ""
    """Where the rules say the game has ended, quoted when an action comes after the end."""
    refusals: ClassVar[Refusals] = {}
    """Every reason ``play`` may refuse with and the rule it enforces, ``turn_refusals(turn_rule, over_rule)``
    included: the catalogue lists them, and the tests fail on a refusal that is not declared."""
    out_of_turn: frozenset[str] = frozenset()
    """Action types any seat may take while the game runs (a resignation)."""
    bots: Mapping[str, Bot] = MappingProxyType({})
    """The game's own bots beyond random and greedy, by name; its package sets them on the instance
    (a bot module imports the engine, so the engine cannot name its bots)."""
    timeout_actions: ClassVar[dict[str, dict[str, Any]]] = {}
    """For an ``on_timeout`` policy (``pass``, ``forfeit``): the action that carries it out."""
    irreversible: frozenset[str] = frozenset()
    """Event types that show someone what was hidden (a card drawn, a die rolled): no undo past them."""
    contract: Contract | None = None
    """JSON Schemas of what the game shows; its package sets them on the instance from ``contract.json``."""
    action_names: ActionNames | None = None
    """The API's names for the game's actions where they differ from its engine's (``protocol.ActionNames``)."""
    action_parameters: Mapping[str, ActionParameters] | None = None
    """The fields each action type takes (``protocol.ActionParameters``): each type its own shape in the document."""
    analyst: Analyst | None = None
    """How the analysis of a finished match (``service.domain.analysis``) values a seat's choices; None: the game
    has no analysis (the API says ``analysis_unavailable``). A game need not have one."""

    _appliers: ClassVar[dict[str, Callable]] = {}
    event_types: frozenset[str] = frozenset()
    """Every event type the rules append: those ``apply`` folds (made from the table)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        table: dict[str, Callable] = {}
        for klass in reversed(cls.__mro__):
            own: dict[str, Callable] = {}
            for member in vars(klass).values():
                for kind in getattr(member, "applies", ()):
                    if kind in own:
                        raise TypeError(f"{cls.__name__}: two methods fold {kind!r}")
                    own[kind] = member
            table.update(own)  # a subclass may fold an event type its base folds
        cls._appliers = table
        cls.event_types = frozenset(table)

    # -- options ---------------------------------------------------------------------------------

    def resolve_options(self, options: dict[str, Any], players: int) -> dict[str, Any]:
        return self.complete_options({**option_defaults(self.options_schema), **options}, players, options)

    def timeouts(self, options: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return self.timeout_actions

    def complete_options(
        self, resolved: dict[str, Any], players: int, given: dict[str, Any]
    ) -> dict[str, Any]:
        """What a JSON Schema cannot check (options that go together, counts per variant), and defaults
        that depend on the player count. ``given`` is what the client sent; raise InvalidOptions."""
        return resolved

    # -- turns -----------------------------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if self.is_over(state) or seat not in self.to_act(state):
            return []
        return self._legal_actions(state, seat)

    def play(self, state: State, seat: int, action: Action) -> Played:
        if action.get("type") in self.out_of_turn:
            check_not_over(self, state, self.over_rule)
        else:
            check_turn(self, state, seat, self.turn_rule, self.over_rule)
        turn = Turn(self, state)
        self._play(turn, seat, action)
        return turn.played()

    def _legal_actions(self, state: State, seat: int) -> list[Action]:
        raise NotImplementedError

    def _play(self, turn: Turn, seat: int, action: Action) -> None:
        """Emit the action's events on ``turn``, automatic consequences included, or raise IllegalAction."""
        raise NotImplementedError

    # -- the fold --------------------------------------------------------------------------------

    def apply(self, state: State, event: Event) -> State:
        fold_one = self._appliers.get(event["type"])
        if fold_one is None:
            raise ValueError(f"{self.info.id}: unknown event type {event['type']!r}")
        new = dict(state)
        fold_one(self, new, event["data"], event["seat"])
        return new

    # -- what a seat may see -----------------------------------------------------------------------

    def event_view(self, event: Event, seat: int | None) -> Event:
        return event

    def seen_by(self, state: State, seat: int) -> State | None:
        """A state made only of what ``seat`` may see, for the analysis to judge its choices from: every
        hidden part replaced by what the seat's view alone decides (a determinization). The state itself
        in a game with neither hidden information nor chance; None (no analysis) in any other game that
        does not say how."""
        hidden = self.info.hidden_information or self.info.chance
        return None if hidden else state

    def legal_action_keys(self, state: State, seat: int) -> tuple[Hashable, Sequence[Hashable]] | None:
        """``legal_actions`` as keys of a family, each the same action for ever (``keyed_action``), for a game
        whose listings are long and repeat (placements on a board): None by default, not keyed."""
        return None

    def keyed_action(self, family: Any, key: Any) -> Action:
        """The action of a key of ``legal_action_keys``: a game that keys its actions says how."""
        raise NotImplementedError

    def reveals(self, event: Event) -> bool:
        """Whether ``event`` showed someone what was hidden (no undo past it): by default, whether its
        type is ``irreversible``; a game overrides it where one type reveals only sometimes."""
        return event["type"] in self.irreversible

    def describe(self, event: Event, state: State | None = None) -> str:
        """The event in plain words (as a seat saw it, after ``event_view``): its type and its simple
        values, each word in the reader's language where the game's catalogue has it (``words``). Games
        override it where their own words say more ("blue placed F5 at c3")."""
        word = game_words(type(self).__module__)
        details = [
            _("{key} {value}", key=word(key), value=word(value) if isinstance(value, str) else value)
            for key, value in described(event)
        ]
        what = word(event["type"].replace("_", " "))
        if event["seat"] is None:
            return _("{event}: {details}", event=what, details=_(", ").join(details)) if details else what
        if details:
            return _(
                "seat {seat} {event}: {details}",
                seat=event["seat"],
                event=what,
                details=_(", ").join(details),
            )
        return _("seat {seat} {event}", seat=event["seat"], event=what)

    # the rest of the protocol is the game's own
    def setup(self, options: dict[str, Any], players: int, seed: str, content: Any = None) -> State:
        raise NotImplementedError

    def to_act(self, state: State) -> list[int]:
        raise NotImplementedError

    def is_over(self, state: State) -> bool:
        raise NotImplementedError

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        raise NotImplementedError

    def scores(self, state: State) -> dict[str, Any]:
        raise NotImplementedError


class Analyst:
    """Values a seat's choices for the analysis of a finished match: the base one, for any game, is one
    step ahead, each legal action by the points it leaves the seat with (``scores`` right after it).

    ``values`` gets the state ``Engine.seen_by`` made for the seat (never the true state of a game with
    hidden information), the seat, its legal actions there and the index of the one it played; it gives
    each action's value for the seat in points, higher better, or None for one it did not look at (a
    search looks at its most promising few, and always at the played one)."""

    method = "one step: the points each choice leaves the seat with"

    def values(
        self, engine: Engine, state: State, seat: int, actions: list[Action], played: int
    ) -> list[float | None]:
        return [self._points_after(engine, state, seat, action) for action in actions]

    @staticmethod
    def _points_after(engine: Engine, state: State, seat: int, action: Action) -> float | None:
        try:
            after = engine.play(state, seat, action).states[-1]
        except IllegalAction:  # refused only in the seat's picture of the game: not an alternative it had
            return None
        return engine.scores(after)["scores"][seat]


def option_defaults(schema: dict[str, Any]) -> dict[str, Any]:
    """Every option of a JSON Schema that has a ``default``, with it."""
    return {key: spec["default"] for key, spec in schema.get("properties", {}).items() if "default" in spec}


def enum_option(values: Iterable[Any], default: Any, description: str) -> dict[str, Any]:
    """The JSON Schema of an option that takes one of ``values``."""
    return {"enum": list(values), "default": default, "description": description}


def pack_path(document: Any, parts: Iterable[str | int], names: tuple[str, ...] = ("id", "shapeId")) -> str:
    """A JSON path in a pack, readable: ``['cards', 12, 'front', 'TL']`` -> ``cards[12] (C13).front.TL``,
    list items named by the first of ``names`` they carry."""
    out = ""
    node = document
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
            node = node[part] if isinstance(node, list) and 0 <= part < len(node) else None
            name = next(
                (node[n] for n in names if isinstance(node, dict) and isinstance(node.get(n), str)), None
            )
            if name is not None:
                out += f" ({name})"
        else:
            out += f".{part}" if out else str(part)
            node = node.get(part) if isinstance(node, dict) else None
    return out or "pack"  # the path of the whole document


@functools.cache
def shipped_pack(load: Callable[[Any], Any], folder: Path, name: str) -> Any:
    """A game's shipped pack ``<folder>/<name>.json``, loaded once, for engine use without a server
    (tests, benchmarks). Shared between callers: like every pack in a state, it is never mutated."""
    return load(json.loads((folder / f"{name}.json").read_text(encoding="utf-8")))


def packgen_main(
    module: str, doc: str | None, target: Path, text: Callable[[], str], argv: list[str] | None = None
) -> int:
    """The command line of a pack generator: the pack on stdout, to a path, or ``--check`` against the
    committed file (exit 1 when it differs)."""
    parser = argparse.ArgumentParser(
        prog=f"python -m {module}", description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("path", nargs="?", default="-", help="where to write the pack (default: stdout)")
    parser.add_argument("--check", action="store_true", help=f"compare with the committed {target.name}")
    args = parser.parse_args(argv)
    generated = text()
    if args.check:
        same = target.is_file() and target.read_text(encoding="utf-8") == generated
        print(f"{target}: {'up to date' if same else 'DIFFERS from the generator output'}")
        return 0 if same else 1
    if args.path == "-":
        sys.stdout.write(generated)
    else:
        Path(args.path).write_text(generated, encoding="utf-8")
    return 0


def described(event: Event) -> list[tuple[str, str | int | float]]:
    """The (key, value) pairs ``Engine.describe`` says of an event, each key and each enum word as plain
    words (``_plain``): the words a game's catalogue translates."""
    return [
        (key.replace("_", " "), _plain(value) if isinstance(value, str) else value)
        for key, value in event["data"].items()
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and key != "queued"
    ]


def words_of(event: Event) -> list[str]:
    """The words of an event ``Engine.describe`` translates with the game's catalogue: its type, its keys and
    its enum values (ids such as C61 are said as they are)."""
    said = [event["type"].replace("_", " ")]
    for key, value in described(event):
        said.append(key)
        if isinstance(value, str) and re.fullmatch(r"[a-z]+( [a-z]+)*", value):
            said.append(value)
    return said


@functools.lru_cache(maxsize=64)
def game_words(module: str) -> Callable[[Any], Any]:
    """The words of the game whose engine is in ``module``, in the reader's language: each plain word its
    catalogue translates (its ``locales/``, listed there with ``N_``), anything else as it is."""
    path = getattr(sys.modules.get(module), "__file__", None)
    try:
        own = catalogue(path) if path else None
    except LookupError:  # a game without catalogues (a test's toy): its words are English
        own = None

    def word(value: Any) -> Any:
        if own is None or not isinstance(value, str):
            return value
        return own.gettext(value)

    return word


def _plain(value: str | int | float) -> str:
    """An enum word (BACK, NO_LEGAL_MOVE) as a word; ids such as C61 or L09 as they are."""
    if (
        isinstance(value, str)
        and re.fullmatch(r"[A-Za-z]+(_[A-Za-z]+)*", value)
        and not re.fullmatch(r"[A-Z]\d*", value)
    ):
        return value.replace("_", " ").lower()
    return str(value)
