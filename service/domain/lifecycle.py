"""The life of a match, as pure decisions: which options it gets, what its log starts with, which
entries an action adds, when the seed is revealed and when the result is recorded.

Nothing here touches Redis, a clock or the network: ``at`` (the time stamped on entries) and the
seed are given. The application (``service.application.matches``) stores what these functions decide; the
benchmarks and tests call them directly to play matches with no server. Each returns a ``Step``:
the new log entries and the match after each of them, folded once, so that storing a step never
folds its events again.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jsonschema

from service.domain import clocks, replay
from service.domain.chain import Recorded, commitment_key
from service.domain.errors import IllegalRecordMove
from service.domain.immutable import replaced
from service.domain.replay import MatchState
from service.games import GAMES
from service.games.bots import BOTS, SeatView, bot_name, bots_of
from service.games.protocol import (
    Action,
    Game,
    IllegalAction,
    InvalidOptions,
    Refusal,
    Refusals,
    looked_ahead_on,
)
from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

# The server's own refusals (422 illegal_action, as a game's): whatever the game, before or instead of its
# rules. Every game's list in the catalogue includes them; the rule is the README section that explains it.
SHELL_REFUSALS: Refusals = {
    "match_aborted": Refusal("README: The API", N_("the match was aborted by its platform")),
    "match_not_started": Refusal(
        "README: The API", N_("seats are still open: play starts when every seat is filled")
    ),
    "seat_played_by_a_bot": Refusal("README: Seat replacement", N_("a bot plays this seat now")),
    "game_over": Refusal(
        "README: Undo", N_("the game is over: no action, concession or undo comes after its end")
    ),
    "undo_off": Refusal("README: Undo", N_("the match was created without undo")),
    "nothing_to_undo": Refusal(
        "README: Undo", N_("only the last move is taken back, by the seat that made it")
    ),
    "hidden_information_revealed": Refusal(
        "README: Undo", N_("that move showed someone what was hidden: it stands")
    ),
    "undo_pending": Refusal("README: Undo", N_("an undo is already waiting for the other seats")),
    "no_undo_request": Refusal("README: Undo", N_("nobody has asked for an undo, or it lapsed")),
    "undo_already_answered": Refusal("README: Undo", N_("this seat has asked or answered already")),
    "seat_conceded": Refusal(
        "howto: Retries and ending a match",
        N_("the seat has conceded: it is out of play, the server moves for it"),
    ),
}


def refusals_of(game: Game) -> dict[str, Refusal]:
    """Every reason a match of ``game`` may be refused with: the game's own, then the server's."""
    return {
        **game.refusals,
        **{code: refusal for code, refusal in SHELL_REFUSALS.items() if code not in game.refusals},
    }


@dataclass(frozen=True)
class SeedSecret:
    """What a match keeps secret until it ends: the seed all its chance comes from, and the salt of
    the commitment to it in ``match_created``."""

    seed: str
    salt: str | None  # None: a match created before seeds were salted (its seed kept in clear)

    @classmethod
    def new(cls, client_seed: str | None = None, known_to_creator: bool = False) -> SeedSecret:
        """At least 128 bits of the server's own entropy; a client's seed is only mixed in, unless the
        creator asks for a match whose seed they know (a deterministic test match)."""
        salt = secrets.token_hex(16)
        if known_to_creator:
            if client_seed is None:
                raise InvalidOptions("seed", "a match whose seed is known to its creator needs a seed")
            return cls(client_seed, salt)
        entropy = secrets.token_hex(16)
        if client_seed is None:
            return cls(entropy, salt)
        return cls(hashlib.sha256(f"{entropy}:{client_seed}".encode()).hexdigest(), salt)


@dataclass(frozen=True)
class Step:
    """What one command adds to a match: log entries, and the match after each (``states``)."""

    base: MatchState | None
    entries: tuple[Recorded, ...] = ()
    states: tuple[MatchState, ...] = ()

    @property
    def state(self) -> MatchState:
        state = self.states[-1] if self.states else self.base
        assert state is not None, "a step holds a state: the one it starts from, or those it made"
        return state

    def then(self, other: Step) -> Step:
        return Step(self.base, self.entries + other.entries, self.states + other.states)


# JSON Schema counts 4.0 as an integer; an engine slicing or indexing with it would fail at play
# time, long after the match was accepted. Options that are integers must be sent as integers.
_OptionsValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
    ),
)


def game_named(game_id: str) -> Game:
    game = GAMES.get(game_id)
    if game is None:
        raise InvalidOptions("game", f"unknown game {game_id!r}; GET /v1/games lists them")
    return game


def check_options(game_id: str, options: dict[str, Any], players: int) -> dict[str, Any]:
    """The resolved options of a new match, or InvalidOptions naming the field at fault."""
    game = game_named(game_id)
    if players not in game.info.counts():
        raise InvalidOptions(
            "players", f"{game.info.name} is for {game.info.counts()} players, not {players}"
        )
    known = game.options_schema.get("properties", {})
    for key in options:
        if key not in known:
            raise InvalidOptions(f"options.{key}", f"unknown option; {game.info.name} has {sorted(known)}")
    # best_match looks inside anyOf/oneOf for the error that says what is wrong ("0 is less than the
    # minimum of 1"), rather than "0 is not valid under any of the given schemas"
    error = jsonschema.exceptions.best_match(_OptionsValidator(game.options_schema).iter_errors(options))
    if error is not None:  # the field is the option; the message says where inside it, if deeper
        path = [str(p) for p in error.absolute_path]
        inside = f"at {'.'.join(path[1:])}: " if len(path) > 1 else ""
        message = inside + error.message
        if error.validator in ("anyOf", "oneOf") and path:  # "not valid under any of..." says too little
            message += f"; expected: {known[path[0]].get('description', known[path[0]])}"
        raise InvalidOptions(f"options.{path[0]}" if path else "options", message)
    return game.resolve_options(options, players)


def begin(
    game_id: str,
    options: dict[str, Any],
    players: Sequence[str | None],
    secret: SeedSecret,
    at: str,
    content: Any = None,
    record: Sequence[Action] = (),
    seed_known_to_creator: bool = False,
    bots: Sequence[str | None] = (),
    undo: str = "none",
    clock: Mapping[str, Any] | None = None,
    player_ids: Sequence[str | None] = (),
    match_id: str | None = None,
    tournament: Mapping[str, Any] | None = None,
) -> Step:
    """A new match's log: ``match_created`` (naming ``match_id``, which the chain then binds: see
    ``replay.match_created``) and, for an imported game record, its moves played through the rules in order,
    each by the seat to act (IllegalRecordMove at the first illegal one)."""
    created = replay.match_created(
        game_id,
        options,
        list(players),
        secret.seed,
        secret.salt,
        content,
        seed_known_to_creator,
        bots,
        undo,
        dict(clock) if clock else None,
        player_ids,
        match_id,
        tournament,
    )
    entry = Recorded(1, created["type"], None, created["data"], at).chained(None)
    step = Step(None, (entry,), (replay.start(entry, secret.seed, secret.salt),))
    step = step.then(_ending(step.state, secret, at))  # a game can be over before anyone acts
    for number, action in enumerate(record, start=1):
        to_act = step.state.engine.to_act(step.state.game)
        try:
            if not to_act:
                raise IllegalAction("game_over", _("the game is already over"))
            step = step.then(act(step.state, to_act[0], action, secret, at))
        except IllegalAction as error:
            raise IllegalRecordMove(number, error) from error
    return step


def join(state: MatchState, seat: int, name: str, at: str, player: str | None = None) -> Step:
    """``seat_joined`` for an open seat, and ``match_started`` with it when it was the last one open."""
    step = _append(state, replay.seat_joined(seat, name, player), at)
    if step.state.started:
        step = step.then(_append(step.state, replay.match_started(), at))
    return step


def replace_seat(
    state: MatchState, seat: int, name: str, bot: str | None, at: str, player: str | None = None
) -> Step:
    """``seat_replaced``: a bot (``bot``) or a person (``name``) plays the seat from now on."""
    return _append(state, replay.seat_replaced(seat, name, bot, player), at)


def refuse_after_end(state: MatchState) -> None:
    """IllegalAction for a seat's action or concession on a match that has ended: ``match_aborted`` when
    it was aborted, else ``game_over`` (the rules ended it, or the concessions did). Judged on the state
    alone, so every process answers alike, whether or not it has heard yet that the seed is revealed."""
    if state.aborted:
        raise IllegalAction("match_aborted", _("the match was aborted"))
    if state.finished:
        raise IllegalAction("game_over", _("the game is over"))


def act(
    state: MatchState, seat: int, action: Action, secret: SeedSecret, at: str, by: str | None = None
) -> Step:
    """The entries ``action`` of ``seat`` adds (IllegalAction if the rules refuse it), after an
    ``acted_by`` entry when ``by`` (a bot) made it. When they end the game, the seed is revealed in
    the same step, so anyone can re-run the match from the log."""
    refuse_after_end(state)
    if not state.started:
        raise IllegalAction(
            "match_not_started",
            _("seats {seats} are still open: play starts when every seat is filled", seats=state.open_seats),
        )
    if seat in state.conceded and by != replay.BY_CONCESSION:
        raise IllegalAction(
            "seat_conceded", _("seat {seat} has conceded: the server plays its turns", seat=seat)
        )
    if state.bot_of(seat) and not replay.made_by_a_bot(by):  # a token a process still trusted for a moment
        raise IllegalAction(
            "seat_played_by_a_bot",
            _("seat {seat} is played by the {bot} bot now", seat=seat, bot=state.bot_of(seat)),
        )
    played = state.engine.play(state.game, seat, action)
    # who moved, when a bot did; where undo is on, every move is marked, so an undo knows where it began
    marked = by or state.undo != "none"
    step = _append(state, replay.acted_by(seat, by), at) if marked else Step(state, (), ())
    entries, states = list(step.entries), list(step.states)
    base = step.state  # the events' states come from play: folded once, here only put in place
    seal = _sealer(state, secret)
    for event, game_state in zip(played, played.states):
        version = state.version + len(entries) + 1
        entry = seal(Recorded(version, event["type"], event.get("seat"), event["data"], at)).chained(
            base.head_hash
        )
        base = replay.clocked(
            replaced(
                replay.revealing(base, entry),
                version=version,
                game=game_state,
                head_hash=entry.hash,
                updated_at=at,
            ),
            at,
        )
        entries.append(entry)
        states.append(base)
    step = Step(state, tuple(entries), tuple(states))
    if by != replay.BY_CONCESSION:
        step = _play_for_conceded(step, secret, at)
    return step.then(_ending(step.state, secret, at))


def concede(state: MatchState, seat: int, secret: SeedSecret, at: str) -> Step:
    """``seat_conceded``: the seat gives up. With fewer than two seats left in play the match ends there
    (the seed revealed); otherwise the others play on and the server takes the seat's turns (its pass or
    forfeit where the game has one, else a random legal move). It ranks after every seat still in play
    (``replay.result``). IllegalAction says why not."""
    refuse_after_end(state)
    if not state.started:
        raise IllegalAction(
            "match_not_started",
            _("seats {seats} are still open: nothing to concede yet", seats=state.open_seats),
        )
    if seat in state.conceded:
        raise IllegalAction("seat_conceded", _("seat {seat} has conceded already", seat=seat))
    if state.bot_of(seat):
        raise IllegalAction(
            "seat_played_by_a_bot",
            _("seat {seat} is played by the {bot} bot now", seat=seat, bot=state.bot_of(seat)),
        )
    step = _append(state, replay.seat_conceded(seat), at)
    step = _play_for_conceded(step, secret, at)
    return step.then(_ending(step.state, secret, at))


def _play_for_conceded(step: Step, secret: SeedSecret, at: str) -> Step:
    """While a seat that conceded is to act (and the match goes on), the server's move for it."""
    for _turn in range(100_000):
        state = step.state
        if not state.conceded:  # nobody conceded: the common case, without asking who is to act
            return step
        seats = [seat for seat in state.to_act() if seat in state.conceded] if not state.finished else []
        if not seats:
            return step
        step = step.then(_concession_move(state, seats[0], secret, at))
    return step


def _concession_move(state: MatchState, seat: int, secret: SeedSecret, at: str) -> Step:
    """A conceded seat's turn: the game's pass or forfeit (as for a clock's timeout), else a random legal move
    drawn from the match's secret seed (the log records it, so replays agree)."""
    offered = state.engine.timeouts(state.options)
    for name in ("pass", "forfeit"):
        if name in offered:
            try:
                return act(state, seat, offered[name], secret, at, by=replay.BY_CONCESSION)
            except IllegalAction:
                pass
    action = random.Random(f"{secret.seed}:conceded:{state.version}").choice(state.legal_actions(seat))
    return act(state, seat, action, secret, at, by=replay.BY_CONCESSION)


def _sealer(state: MatchState, secret: SeedSecret) -> Callable[[Recorded], Recorded]:
    """How the match's game entries are chained: through a commitment to whatever a spectator may not
    see of them (``service.domain.chain``), or whole in a match created before sealed chains."""
    if not state.sealed_chain:
        return lambda entry: entry
    assert secret.salt is not None, "sealed chains came after salted seeds"
    key, view = commitment_key(secret.seed, secret.salt), state.engine.event_view
    return lambda entry: entry.sealed(key, view(entry.event(), None)["data"])


def abort(state: MatchState, reason: str, secret: SeedSecret, at: str) -> Step:
    """``match_aborted`` (by the match's platform), and the seed revealed with it so the log stays auditable."""
    step = _append(state, replay.match_aborted(reason), at)
    return step.then(_ending(step.state, secret, at))


def _ending(state: MatchState, secret: SeedSecret, at: str) -> Step:
    if not state.finished or state.seed is not None:
        return Step(state)
    return _append(state, replay.seed_revealed(secret.seed, secret.salt), at)


def score(state: MatchState, at: str) -> Step:
    """``match_scored`` for a finished match not yet scored; an empty step otherwise."""
    if not state.finished or state.result is not None:
        return Step(state)
    return _append(state, replay.match_scored(replay.result(state)), at)


def _append(state: MatchState, shell_event: dict[str, Any], at: str) -> Step:
    entry = Recorded(
        state.version + 1, shell_event["type"], shell_event["seat"], shell_event["data"], at
    ).chained(state.head_hash)
    return Step(state, (entry,), (replay.advance(state, entry),))


def time_out(state: MatchState, secret: SeedSecret | None, at: str) -> Step | None:
    """``timed_out`` for the first seat whose clock has run out at ``at``, and what the match's
    ``on_timeout`` makes of it: a bot takes the seat over, or the seat passes or forfeits (the game's
    own action for it; a random legal move when the game has none to offer now). None: no clock is out."""
    if state.clock is None or state.finished:
        return None
    assert secret is not None, "a running match keeps its secret"  # only a finished match's is dropped
    late = clocks.expired(state.clock, at)
    if not late:
        return None
    seat, policy = late[0], state.clock["on_timeout"]
    step = _append(state, replay.timed_out(seat, policy), at)
    if policy == "bot":
        return step.then(replace_seat(step.state, seat, "random bot", "random", at))
    try:
        return step.then(
            act(step.state, seat, state.engine.timeout_actions[policy], secret, at, by=replay.BY_TIMEOUT)
        )
    except IllegalAction:  # not a move the rules allow at this point: any legal one instead
        action = random.Random(f"{secret.seed}:timeout:{step.state.version}").choice(
            step.state.legal_actions(seat)
        )
        return step.then(act(step.state, seat, action, secret, at, by=replay.BY_TIMEOUT))


def undo(state: MatchState, seat: int, at: str, earlier: Callable[[int], MatchState]) -> Step:
    """``seat`` asks to take back its last move: ``undone`` at once (``until_next_action``), or a
    request the other seats answer (``with_consent``; bots accept). IllegalAction says why not."""
    if seat in state.conceded:
        raise IllegalAction("seat_conceded", _("seat {seat} has conceded", seat=seat))
    last = _undoable(state, seat, earlier)
    if state.undo == "until_next_action":
        return _undo_to(state, seat, last["before"], at, earlier)
    step = _append(state, replay.undo_requested(seat, last["before"]), at)
    for other in range(len(state.players)):
        if other != seat and state.bot_of(other) and other not in state.conceded:
            step = step.then(answer_undo(step.state, other, True, at, _with_states_of(step, earlier)))
    return step


def _with_states_of(step: Step, earlier: Callable[[int], MatchState]) -> Callable[[int], MatchState]:
    """``earlier``, knowing the versions ``step`` made too (not stored yet: the bots' answers judge them)."""
    made = {state.version: state for state in step.states}
    return lambda version: made[version] if version in made else earlier(version)


def answer_undo(
    state: MatchState, seat: int, accepted: bool, at: str, earlier: Callable[[int], MatchState]
) -> Step:
    """Another seat accepts or refuses the undo asked for; the last acceptance undoes."""
    request = state.undo_request
    if request is None:
        raise IllegalAction(
            "no_undo_request", _("nobody has asked for an undo (or it lapsed: someone moved)")
        )
    if state.finished:  # a bot's reply can end the game while the request waits: nothing follows the end
        raise IllegalAction("game_over", _("the game is over"))
    if seat in state.conceded:
        raise IllegalAction("seat_conceded", _("seat {seat} has conceded: the others answer", seat=seat))
    if seat == request["seat"] or seat in request["accepted"]:
        raise IllegalAction("undo_already_answered", _("this seat has asked or answered already"))
    step = _append(state, replay.undo_answered(seat, accepted), at)
    others = {s for s in range(len(state.players)) if s != request["seat"] and s not in state.conceded}
    answered = step.state.undo_request
    if accepted and answered is not None and others <= set(answered["accepted"]):
        # a bot's reply since the request may have shown the asking seat something: judged again here
        _refuse_past_a_reveal(state, request["seat"], request["to_version"], earlier)
        step = step.then(_undo_to(step.state, request["seat"], request["to_version"], at, earlier))
    return step


def _undoable(state: MatchState, seat: int, earlier: Callable[[int], MatchState]) -> dict[str, Any]:
    if state.undo == "none":
        raise IllegalAction("undo_off", _("this match was created without undo (undo: none)"))
    if state.finished:
        raise IllegalAction("game_over", _("the game is over"))
    last = state.last_action
    if last is None or last["seat"] != seat:
        raise IllegalAction(
            "nothing_to_undo",
            _(
                "only the last move can be taken back, by the seat that made it (with the bots' replies since)"
            ),
        )
    if state.undo_request is not None:
        raise IllegalAction("undo_pending", _("an undo is already waiting for the other seats"))
    _refuse_past_a_reveal(state, seat, last["before"], earlier)
    return last


def _refuse_past_a_reveal(
    state: MatchState, seat: int, before: int, earlier: Callable[[int], MatchState]
) -> None:
    """IllegalAction (``hidden_information_revealed``) when what an undo by ``seat`` back to ``before``
    would take back showed someone what was hidden: an event the game says reveals (a card drawn, a die
    rolled, a private look: ``replay.revealing``), or anything that showed ``seat`` itself what another
    seat could see and it could not (``showed_a_secret``), such as a bot's card from its hidden hand."""
    last = state.last_action
    if last is not None and last["revealed"]:
        raise IllegalAction(
            "hidden_information_revealed",
            _(
                "that move showed someone what was hidden (a card drawn, a die rolled, a private look): it stands"
            ),
        )
    if showed_a_secret(state, seat, before, earlier):
        raise IllegalAction(
            "hidden_information_revealed",
            _(
                "your move or the bots' replies since showed you what another seat could see and you could "
                "not (a card from a hidden hand): they stand"
            ),
        )


def showed_a_secret(state: MatchState, seat: int, before: int, earlier: Callable[[int], MatchState]) -> bool:
    """Whether an entry after version ``before`` showed ``seat`` a value another seat's view showed and its
    own did not: judged from the views alone (``Game.view``, the game's one gate for hidden information),
    entry by entry, so that it holds for every game and every way a value comes to light (placed, played,
    handed over). A value is a string of a view (a card's or a tile's id): numbers (scores, coordinates,
    counts) come from public rules as often as not. What no seat could see (the deck, the pile, rolls to
    come) is the game's to declare (``reveals``)."""
    engine = state.engine
    if not engine.info.hidden_information:
        return False
    others = [other for other in range(len(state.players)) if other != seat]
    previous = earlier(before)
    mine = _strings(engine.view(previous.game, seat))
    for version in range(before + 1, state.version + 1):
        current = state if version == state.version else earlier(version)
        if current.game == previous.game:  # a shell entry (a mark, a request): no view changed
            continue
        shown = _strings(engine.view(current.game, seat))
        new = shown - mine
        if new and any(new & _strings(engine.view(previous.game, other)) for other in others):
            return True
        previous, mine = current, shown
    return False


def _strings(node: Any) -> set[str]:
    """Every string value in a JSON value (not its keys, which name the parts of a view)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _undo_to(
    state: MatchState, seat: int, to_version: int, at: str, earlier: Callable[[int], MatchState]
) -> Step:
    entry = Recorded(state.version + 1, "undone", seat, replay.undone(seat, to_version)["data"], at).chained(
        state.head_hash
    )
    return Step(state, (entry,), (replay.advance(state, entry, earlier),))


class _OutOfThought(Exception):
    """The bot's move has used its CPU budget: it plays the cheapest move instead."""


def bot_action(
    state: MatchState,
    seat: int,
    secret: SeedSecret,
    cheapest: bool = False,
    out_of_thought: Callable[[], bool] = lambda: False,
) -> Action:
    """The action the seat's bot chooses now. The bot gets what the seat may see, never the state,
    and a generator seeded from the match's secret seed, the seat and the version: the same match
    replays the same bot moves, and nothing outside the server can foresee them.

    With ``cheapest`` (the match's bots have used their CPU budget), or once ``out_of_thought()`` says so
    while the bot weighs its moves (this move's budget), the seat plays the random bot's move, from the
    same generator: the log holds the move played, so the replay does not depend on which it was."""
    engine = state.engine
    legal = state.legal_actions(seat)
    bot = state.bot_of(seat)
    assert bot is not None, "only a bot's seat asks for a bot's action"
    name, level = bot_name(bot)
    mixed = hmac.new(secret.seed.encode(), f"bot:{seat}:{state.version}".encode(), hashlib.sha256).digest()
    if cheapest or bots_of(engine)[name] is BOTS["random"]:
        # the random bot reads the legal actions only: the seat's view and the state it looks ahead on are
        # not made for it (nine tenths of a cheapest move's CPU in the heaviest game)
        return BOTS["random"].choose(SeatView(seat, {}, legal, _not_asked, level=level), random.Random(mixed))
    ahead = looked_ahead_on(engine, state.game, seat)  # what the seat could know: no hand, no roll to come

    def standing_after(index: int) -> dict[str, Any]:
        if out_of_thought():
            raise _OutOfThought
        scores = engine.scores(engine.play(ahead, seat, legal[index]).states[-1])
        return {"scores": scores["scores"], "ranks": scores["ranks"]}

    open_game = not (engine.info.hidden_information or engine.info.chance)
    view = SeatView(
        seat,
        engine.view(state.game, seat),
        legal,
        standing_after,
        state.game if open_game else None,
        engine if open_game else None,
        level,
    )
    try:
        return bots_of(engine)[name].choose(view, random.Random(mixed))
    except _OutOfThought:
        return BOTS["random"].choose(view, random.Random(mixed))


def _not_asked(index: int) -> dict[str, Any]:
    raise AssertionError("the random bot does not weigh its moves")
