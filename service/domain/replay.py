"""A match as a fold over its log. Pure: no Redis, no clock; the API, the workers and an auditor
holding an exported log all rebuild state with these same functions.

The log holds the game's own events plus matchlog's own, the shell's (``SHELL_EVENTS``): the three
below, which frame every match, and those of seats, bots, undo, clocks and concessions (``seat_joined``,
``match_started``, ``match_aborted``, ``acted_by``, ``seat_replaced``, ``undone``, ``undo_requested``,
``undo_accepted``, ``undo_refused``, ``timed_out``, ``seat_conceded``), each folded by ``_SHELL_FOLDS``:

``match_created`` (version 1)
    game, resolved options, players and ``seed_commitment``, SHA-256 of ``<salt>:<seed>`` with a
    128-bit random salt: a commitment that cannot be brute-forced, so that the seed stays secret while
    the match runs and can be checked once revealed; and, for games with content packs, the pack.
    ``seed_known_to_creator`` says the creator chose the seed (a deterministic test match).
    ``chain: 2`` says the log's hidden data is chained through keyed commitments (``service.domain.chain``);
    ``chain: 3`` also names the match (``match``, its id), which the chain then covers.
    Logs written before salted commitments carry ``seed_sha256`` (SHA-256 of the seed) instead.
``seed_revealed``
    appended with the events that end the game: the seed and its salt. Anyone can then check them
    against the commitment and replay the whole match from the log alone.
``match_scored``
    the result, appended by the asynchronous scoring job once the game is over.

Once the match is over only these two follow, in this order, once each: the fold refuses anything
else after the end (``EntryOutOfPlace``).

Every entry also carries ``hash``, its link in the hash chain (``service.domain.chain.verify_chain``).
Game engines must not use any of the shell's type names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from service.domain import clocks
from service.domain.chain import (
    MATCH_CHAIN,
    SEALED_CHAIN,
    BrokenChain,
    BrokenSeal,
    Recorded,
    canonical_json,
    chain_version,
    commitment,
    commitment_key,
    verify_chain,
)
from service.domain.immutable import Pack, replaced
from service.games import GAMES
from service.games.bots import bot_name
from service.games.protocol import Game, legal_action_keys, reveals
from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

SHELL_EVENTS = (
    "match_created",
    "seat_joined",
    "match_started",
    "match_aborted",
    "seed_revealed",
    "match_scored",
    "acted_by",
    "seat_replaced",
    "undone",
    "undo_requested",
    "undo_accepted",
    "undo_refused",
    "timed_out",
    "seat_conceded",
)


SHELL_FOLD = 2
"""The version of what the shell's fold keeps beside the game (clocks, undo): snapshots taken by another
are not used but folded again from the log. 2: clocks keep the time each seat used, an undo takes back
only what the undone moves earned; a bot's reply leaves a person's move undoable."""


@dataclass(frozen=True)
class MatchState:
    version: int
    game_id: str
    options: dict[str, Any]
    players: tuple[str | None, ...]  # None: a seat left open for someone to join (the lobby)
    commitment: str
    game: dict[str, Any]
    head_hash: str | None = None  # the hash of the entry at ``version``: where the state sits in the chain
    seed: str | None = None  # known to everyone once revealed
    result: dict[str, Any] | None = None
    seed_known_to_creator: bool = False
    aborted: bool = False  # stopped by its platform: over, whatever the rules would say
    bots: tuple[str | None, ...] = ()  # per seat: the bot that plays it, if one does
    undo: str = "none"  # none, until_next_action or with_consent
    # {seat, before (its version), revealed}: what an undo goes back on
    last_action: dict[str, Any] | None = None
    undo_request: dict[str, Any] | None = None  # {seat, to_version, accepted: [seats]}: waiting for consent
    clock: dict[str, Any] | None = None  # the turn clocks (service.domain.clocks), when the match has them
    tournament: dict[str, Any] | None = None  # {id, round}: the tournament round the match is played for
    sealed_chain: bool = False  # hidden data chained through commitments (``chain`` 2 on), not whole
    conceded: tuple[int, ...] = ()  # seats that conceded, in the order they did: out of play
    # the times of entries (``Recorded.at``), kept by the fold: ``match_created``'s, the entry at ``version``'s
    # and ``seed_revealed``'s (appended with the end, so at the end's time); None in a snapshot from before
    # states kept them (``MatchRepository`` dates such a state from its log)
    created_at: str | None = None
    updated_at: str | None = None
    ended_at: str | None = None

    @property
    def conceded_out(self) -> bool:
        """Fewer than two seats are left in play: the concessions ended the match."""
        return bool(self.conceded) and len(self.players) - len(self.conceded) < 2

    @property
    def engine(self) -> Game:
        return GAMES[self.game_id]

    @property
    def finished(self) -> bool:
        return self.aborted or self.conceded_out or self.engine.is_over(self.game)

    @property
    def started(self) -> bool:
        """Every seat is filled: nobody acts before (``match_started`` marks the moment in the log)."""
        return all(name is not None for name in self.players)

    @property
    def in_play(self) -> bool:
        """Seats may act: every seat is filled and nobody stopped the match."""
        return self.started and not self.aborted and not self.conceded_out

    def to_act(self) -> list[int]:
        return self.engine.to_act(self.game) if self.in_play else []

    def legal_actions(self, seat: int) -> list[dict[str, Any]]:
        return self.engine.legal_actions(self.game, seat) if self.in_play else []

    def legal_action_keys(self, seat: int) -> tuple[Hashable, Sequence[Hashable]] | None:
        """``legal_actions`` as keys (``protocol.legal_action_keys``); None where the game has none, and out of
        play (where there is nothing to list)."""
        return legal_action_keys(self.engine, self.game, seat) if self.in_play else None

    def bot_of(self, seat: int) -> str | None:
        """The bot that plays ``seat``, if one does."""
        return self.bots[seat] if seat < len(self.bots) else None

    @property
    def bots_only(self) -> bool:
        """Bots play every seat still in play: nobody waits on the match's moves (a match of bots only, by its
        creation or by a handover: ``service.store.budgets``)."""
        in_play = [seat for seat in range(len(self.players)) if seat not in self.conceded]
        return bool(in_play) and all(self.bot_of(seat) for seat in in_play)

    @property
    def open_seats(self) -> list[int]:
        return [seat for seat, name in enumerate(self.players) if name is None]

    def to_json(self) -> dict[str, Any]:
        """The state's fields as a dict for ``json.dumps``: what ``asdict`` gives, without its deep copy of the
        game (a snapshot's ``asdict`` cost more than the move that made it); ``tests/store/test_events_snapshots.py``
        checks that the JSON text is the same on random games of every game."""
        return {name: getattr(self, name) for name in _STATE_FIELDS}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchState:
        return cls(
            **{
                **data,
                "players": tuple(data["players"]),
                "bots": tuple(data.get("bots", ())),
                "conceded": tuple(data.get("conceded", ())),
            }
        )


_STATE_FIELDS = tuple(f.name for f in fields(MatchState))


def content_digest(content: Any) -> str:
    """SHA-256 of a content pack's canonical JSON (a shared ``Pack`` knows its own: it cannot have changed)."""
    if isinstance(content, Pack):
        return content.sha256
    return hashlib.sha256(canonical_json(content)).hexdigest()


def seed_commitment(seed: str, salt: str | None) -> str:
    """SHA-256 of ``<salt>:<seed>``; of the seed alone for logs from before salted commitments."""
    text = seed if salt is None else f"{salt}:{seed}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def match_created(
    game_id: str,
    options: dict[str, Any],
    players: list[str | None],
    seed: str,
    salt: str | None,
    content: Any = None,
    seed_known_to_creator: bool = False,
    bots: Sequence[str | None] = (),
    undo: str = "none",
    clock: dict[str, Any] | None = None,
    player_ids: Sequence[str | None] = (),
    match_id: str | None = None,
    tournament: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The first entry of a match's log; with ``match_id`` (as the server writes it) of chain 3, which names
    the match, else of chain 2 (a log of no match: tests, benchmarks). ``tournament``: the tournament and
    round a tournament's match is played for (``{id, round}``), which the chain then covers."""
    bots = list(bots) or [None] * len(players)
    ids = list(player_ids) or [None] * len(players)
    data: dict[str, Any] = {
        "game": game_id,
        "options": options,
        "players": [
            {
                "seat": i,
                "name": name,
                **({"bot": bots[i]} if bots[i] else {}),
                **({"player": ids[i]} if ids[i] else {}),
            }
            if name is not None
            else {"seat": i, "open": True}
            for i, name in enumerate(players)
        ],
        "seed_commitment": seed_commitment(seed, salt),
    }
    data["chain"] = SEALED_CHAIN if match_id is None else MATCH_CHAIN
    if match_id is not None:
        data["match"] = match_id
    data["views"] = GAMES[game_id].info.views_version
    if seed_known_to_creator:
        data["seed_known_to_creator"] = True
    if undo != "none":
        data["undo"] = undo
    if clock:
        data["clock"] = clock
    if tournament is not None:
        data["tournament"] = {"id": tournament["id"], "round": tournament["round"]}
    if content is not None:  # the pack, and its digest: the log must replay without the server
        data["content_sha256"] = content_digest(content)
        data["content"] = content
    return {"type": "match_created", "seat": None, "data": data}


def seed_revealed(seed: str, salt: str | None) -> dict[str, Any]:
    return {"type": "seed_revealed", "seat": None, "data": {"seed": seed, "salt": salt}}


def acted_by(seat: int, by: str | None) -> dict[str, Any]:
    """Who made the move whose entries follow in the same append, when it was not the seat's person."""
    return {"type": "acted_by", "seat": seat, "data": {"by": by}}


BY_TIMEOUT = "timeout"
"""``acted_by``'s ``by`` for a move the clock made for a seat out of time."""

BY_CONCESSION = "conceded"
"""``acted_by``'s ``by`` for a move the server made for a seat that conceded (its pass, forfeit, or a random
legal move): the others play on."""


def by_bot(name: str) -> str:
    """``acted_by``'s ``by`` for a move of the seat's bot ``name``."""
    return f"bot:{name}"


def made_by_a_bot(by: str | None) -> bool:
    return (by or "").startswith("bot:")


def timed_out(seat: int, policy: str) -> dict[str, Any]:
    """The seat's clock ran out; what follows in the same append is ``policy``'s doing."""
    return {"type": "timed_out", "seat": seat, "data": {"on_timeout": policy}}


def undone(seat: int, to_version: int) -> dict[str, Any]:
    """The match goes back to its state at ``to_version``: the entries in between stay in the log."""
    return {"type": "undone", "seat": seat, "data": {"to_version": to_version}}


def undo_requested(seat: int, to_version: int) -> dict[str, Any]:
    return {"type": "undo_requested", "seat": seat, "data": {"to_version": to_version}}


def undo_answered(seat: int, accepted: bool) -> dict[str, Any]:
    return {"type": "undo_accepted" if accepted else "undo_refused", "seat": seat, "data": {}}


def seat_replaced(seat: int, name: str, bot: str | None, player: str | None = None) -> dict[str, Any]:
    """Someone else plays the seat from now on: a bot, or a person (with a new token); ``player``: the
    platform's own id of whoever plays it now (``service.domain.ratings`` reads it)."""
    return {
        "type": "seat_replaced",
        "seat": seat,
        "data": {
            "seat": seat,
            "name": name,
            **({"bot": bot} if bot else {}),
            **({"player": player} if player else {}),
        },
    }


def seat_conceded(seat: int) -> dict[str, Any]:
    """The seat gives up: out of play from now on (``MatchState.conceded``)."""
    return {"type": "seat_conceded", "seat": seat, "data": {"seat": seat}}


def seat_joined(seat: int, name: str, player: str | None = None) -> dict[str, Any]:
    return {
        "type": "seat_joined",
        "seat": seat,
        "data": {"seat": seat, "name": name, **({"player": player} if player else {})},
    }


def match_started() -> dict[str, Any]:
    return {"type": "match_started", "seat": None, "data": {}}


def match_aborted(reason: str) -> dict[str, Any]:
    return {"type": "match_aborted", "seat": None, "data": {"reason": reason}}


def match_scored(result: dict[str, Any]) -> dict[str, Any]:
    return {"type": "match_scored", "seat": None, "data": result}


SHELL_WORDS = {
    "aborted by its creator": N_("aborted by its creator"),
    "aborted by its platform": N_("aborted by its platform"),
    "abandoned": N_("abandoned"),
    "dropped from its tournament round": N_("dropped from its tournament round"),
    "bot": N_("bot"),
    "pass": N_("pass"),
    "forfeit": N_("forfeit"),
}
"""The values the shell's entries hold in words of the server's own (the default reasons of an abort, the
timeout policies), said in the reader's language; a platform's own reason is said as it wrote it."""


def _word(value: Any) -> Any:
    return _(SHELL_WORDS[value]) if isinstance(value, str) and value in SHELL_WORDS else value


def _scored_text(result: dict[str, Any]) -> str:
    ranked = sorted(range(len(result.get("ranks", []))), key=lambda seat: result["ranks"][seat])
    return _(
        "scored: {ranking}",
        ranking=_(", ").join(
            _(
                "seat {seat} ranked {rank} with {score}",
                seat=seat,
                rank=result["ranks"][seat],
                score=result["scores"][seat],
            )
            for seat in ranked
        ),
    )


def _created_text(data: dict[str, Any]) -> str:
    game = GAMES.get(data["game"])
    return _(
        "a {game} match for {players}",
        # the box's name, as GET /v1/games and the pages' titles say it; the id is a machine's
        game=data["game"] if game is None else game.info.name,
        players=_(", ").join(
            player.get("name") or _("an open seat {seat}", seat=player["seat"]) for player in data["players"]
        ),
    )


def _acted_by_text(data: dict[str, Any]) -> str:
    by = data.get("by")
    if by is None:
        return _("a move:")
    if by == BY_TIMEOUT:
        return _("on its timeout:")
    if by == BY_CONCESSION:
        return _("for a seat that conceded:")
    return _("the {bot} bot moves:", bot=bot_name(str(by).removeprefix("bot:"))[0])


def _replaced_text(data: dict[str, Any]) -> str:
    if data.get("bot"):
        return _(
            "seat {seat} is now played by the {bot} bot", seat=data["seat"], bot=bot_name(data["bot"])[0]
        )
    return _("seat {seat} is now played by {name}", seat=data["seat"], name=data["name"])


SHELL_TEXT: dict[str, Callable[[dict[str, Any]], str]] = {
    "match_created": _created_text,
    "seat_joined": lambda data: _("{name} took seat {seat}", name=data["name"], seat=data["seat"]),
    "match_started": lambda data: _("every seat is taken: the match starts"),
    "seat_conceded": lambda data: _("seat {seat} concedes", seat=data["seat"]),
    "acted_by": _acted_by_text,
    "undone": lambda data: _("undone: back to version {version}", version=data["to_version"]),
    "timed_out": lambda data: _("out of time: {on_timeout}", on_timeout=_word(data["on_timeout"])),
    "undo_requested": lambda data: _(
        "an undo back to version {version} is asked for", version=data["to_version"]
    ),
    "undo_accepted": lambda data: _("the undo is accepted"),
    "undo_refused": lambda data: _("the undo is refused"),
    "seat_replaced": _replaced_text,
    "match_aborted": lambda data: _("aborted: {reason}", reason=_word(data["reason"])),
    "seed_revealed": lambda data: _(
        "the seed is revealed: anyone can now check every hidden card in the log"
    ),
    "match_scored": _scored_text,
}
"""Each shell entry in plain words, in the reader's language (``service.games.texts``)."""


def describe(engine: Game, event: dict[str, Any], game: dict[str, Any] | None = None) -> str:
    """A log entry in plain words (as a seat sees it): the shell's own entries here, the game's by the game,
    which names its cards and places from ``game``'s content where the caller has the match's state."""
    shell = SHELL_TEXT.get(event["type"])
    return shell(event["data"]) if shell else engine.describe(event, game)


def action_text(engine: Game, game: dict[str, Any], seat: int, action: dict[str, Any]) -> str:
    """A legal action in the words its log entry will use once taken (``describe`` of its first event, as
    ``seat`` will see it), so that a person or a screen reader can pick it by what it says.

    The first event is the action's own; those after it are its consequences, which the action's words do
    not need. An action whose first event would show someone what is hidden (a card drawn: ``reveals``)
    is said by its type and values instead: its text must not tell the seat a draw or a roll before it
    is made."""
    first = engine.play(game, seat, action)[0]
    if reveals(engine, first):
        first = {
            "type": action["type"],
            "seat": seat,
            "data": {k: v for k, v in action.items() if k != "type"},
        }
    return describe(engine, engine.event_view(first, seat), game)


def result(state: MatchState) -> dict[str, Any]:
    """The result as the log records it: whether it is final, and the game's scores and ranks. Seats that
    conceded rank after every seat still in play (the last to concede first among them); the others keep
    their order by the game's standing."""
    aborted = {"aborted": True} if state.aborted else {}
    scored = state.engine.scores(state.game)
    if state.conceded:
        scored = {
            **scored,
            "ranks": conceded_ranks(scored["ranks"], state.conceded),
            "conceded": list(state.conceded),
        }
    return {"final": state.finished, **aborted, **scored}


def conceded_ranks(ranks: Sequence[int], conceded: Sequence[int]) -> list[int]:
    """``ranks`` (1 = best, ties share) with the ``conceded`` seats moved to the bottom: the seats in play keep
    their order and ties among themselves, then the conceded ones, the latest to concede ranking highest."""
    playing = sorted(
        (seat for seat in range(len(ranks)) if seat not in conceded), key=lambda seat: ranks[seat]
    )
    out = [0] * len(ranks)
    for position, seat in enumerate(playing):
        tied = position and ranks[seat] == ranks[playing[position - 1]]
        out[seat] = out[playing[position - 1]] if tied else position + 1
    for offset, seat in enumerate(reversed(list(conceded))):
        out[seat] = len(playing) + offset + 1
    return out


def start(created: Recorded, seed: str, salt: str | None = None) -> MatchState:
    """The state at version 1, from the ``match_created`` entry and the seed (and salt) it commits to."""
    data = created.data
    if chain_version(created) >= MATCH_CHAIN and not isinstance(data.get("match"), str):
        raise EntryOutOfPlace(created, f"names no match: a log of chain {data['chain']} always does")
    commitment = data.get("seed_commitment") or data["seed_sha256"]  # the second: logs from before salts
    if seed_commitment(seed, salt if "seed_commitment" in data else None) != commitment:
        raise ValueError("the seed does not match the commitment in match_created")
    if "content_sha256" in data and (
        "content" not in data  # the chain covers the digest, not the pack
        or content_digest(data["content"]) != data["content_sha256"]
    ):
        raise BrokenChain(
            created.version,
            "has a content pack that does not match its content_sha256: the log was changed at it",
        )
    game = GAMES[data["game"]]
    players = tuple(p.get("name") for p in data["players"])
    return clocked(
        MatchState(
            version=created.version,
            game_id=data["game"],
            options=data["options"],
            players=players,
            commitment=commitment,
            game=game.setup(data["options"], len(players), seed, data.get("content")),
            head_hash=created.hash,
            seed_known_to_creator=bool(data.get("seed_known_to_creator")),
            bots=tuple(p.get("bot") for p in data["players"]),
            undo=data.get("undo", "none"),
            clock=clocks.started(data["clock"], len(players), created.at) if "clock" in data else None,
            tournament=data.get("tournament"),
            sealed_chain=chain_version(created) >= SEALED_CHAIN,
            created_at=created.at,
            updated_at=created.at,
        ),
        created.at,
    )


def _seat_set(values: tuple, seat: int, value: Any) -> tuple:
    return tuple(value if i == seat else old for i, old in enumerate(values))


def _acted_by(state: MatchState, entry: Recorded) -> MatchState:
    """Who made the move ``entry`` marks, and what an undo would go back on after it. A bot's reply to
    another seat's move leaves the undo (and an undo asked for) that seat's: a person playing bots takes
    back the move and the replies together, and a reply that reveals something makes the whole of it
    stand (``revealing``). A move the clock made (``timeout``) stands: nobody can undo it."""
    by = entry.data.get("by")
    if made_by_a_bot(by) and state.last_action is not None and state.last_action["seat"] != entry.seat:
        return state
    last = (
        None
        if by in (BY_TIMEOUT, BY_CONCESSION)
        else {"seat": entry.seat, "before": entry.version - 1, "revealed": False}
    )
    return replace(state, last_action=last, undo_request=None)


_SHELL_FOLDS = {
    "seat_joined": lambda state, entry: replace(
        state,
        players=tuple(
            entry.data["name"] if seat == entry.data["seat"] else name
            for seat, name in enumerate(state.players)
        ),
    ),
    "match_started": lambda state, entry: state,
    "acted_by": lambda state, entry: _acted_by(state, entry),
    "undo_requested": lambda state, entry: replace(
        state, undo_request={"seat": entry.seat, "to_version": entry.data["to_version"], "accepted": []}
    ),
    "undo_accepted": lambda state, entry: replace(
        state, undo_request={**state.undo_request, "accepted": [*state.undo_request["accepted"], entry.seat]}
    ),
    "undo_refused": lambda state, entry: replace(state, undo_request=None),
    "timed_out": lambda state, entry: state,
    "seat_conceded": lambda state, entry: replace(
        state, conceded=(*state.conceded, entry.data["seat"]), last_action=None, undo_request=None
    ),
    "seat_replaced": lambda state, entry: replace(
        state,
        players=_seat_set(state.players, entry.data["seat"], entry.data["name"]),
        bots=_seat_set(state.bots or (None,) * len(state.players), entry.data["seat"], entry.data.get("bot")),
    ),
    "match_aborted": lambda state, entry: replace(state, aborted=True),
    "seed_revealed": lambda state, entry: replace(state, seed=entry.data["seed"], ended_at=entry.at),
    "match_scored": lambda state, entry: replace(state, result=entry.data),
}


def revealing(state: MatchState, entry: Recorded) -> MatchState:
    """The match noting that its last move showed someone hidden information, when ``entry`` (one of
    that move's events) is one the game says reveals (``reveals``): an undo cannot go back on it."""
    if state.last_action is None or not reveals(state.engine, entry.event()):
        return state
    return replace(state, last_action={**state.last_action, "revealed": True})


def clocked(state: MatchState, at: str) -> MatchState:
    """The match with its clocks moved on to an entry at ``at`` (nothing to do without clocks)."""
    if state.clock is None:
        return state
    people = [seat for seat in state.to_act() if not state.bot_of(seat)]  # a bot plays at once: no clock
    return replace(state, clock=clocks.advanced(state.clock, people, at))


class EntryOutOfPlace(ValueError):
    """A log entry the server never appends where it stands (``version`` names it): the log was forged,
    even if its hash chain holds (whoever rewrites a log can re-chain it)."""

    def __init__(self, entry: Recorded, why: str):
        super().__init__(f"log entry {entry.version} ({entry.type}) {why}")
        self.version = entry.version


def _out_of_place(state: MatchState, entry: Recorded) -> str | None:
    """Why ``entry`` cannot follow ``state``, or None. Once the match is over only its seed (once) and
    then its result (once) follow, as ``lifecycle`` appends them, and nothing follows the result: else
    a forger could extend a finished, signed log (undo back to the start, play again, score again)."""
    if state.result is not None:
        return "follows match_scored: nothing follows the result"
    if entry.type == "seed_revealed":
        return (
            None
            if state.finished and state.seed is None
            else "reveals the seed " + ("again" if state.seed is not None else "before the match is over")
        )
    if entry.type == "match_scored":
        return (
            None
            if state.finished and state.seed is not None
            else "records a result before the match is over and its seed revealed"
        )
    if state.finished:
        return "follows the end of the match: only seed_revealed and match_scored may"
    if entry.type == "seat_conceded":
        seat = entry.data.get("seat") if isinstance(entry.data, dict) else None
        if not (type(seat) is int and 0 <= seat < len(state.players) and entry.seat == seat):
            return "concedes for a seat the match does not have"
        if not state.started:
            return "concedes before the match started"
        if seat in state.conceded or state.bot_of(seat):
            return "concedes for a seat that has conceded already, or a bot's"
    if entry.seat in state.conceded:
        if entry.type == "acted_by" and entry.data.get("by") != BY_CONCESSION:
            return "marks a move of a seat that conceded as made by someone else than the server"
        if entry.type in (
            "undone",
            "undo_requested",
            "undo_accepted",
            "undo_refused",
            "seat_replaced",
            "timed_out",
        ):
            return "is a seat's doing after it conceded"
    to_version = entry.data.get("to_version")
    if entry.type == "undone" and not (type(to_version) is int and 1 <= to_version < entry.version):
        return "undoes back to a version that is not an earlier one"
    return None


def advance(
    state: MatchState, entry: Recorded, earlier: Callable[[int], MatchState] | None = None
) -> MatchState:
    """Fold one more log entry into the match (its clocks too). ``earlier(version)`` gives the match
    at an earlier version, which an ``undone`` entry goes back to."""
    return clocked(_advance(state, entry, earlier), entry.at)


def _advance(state: MatchState, entry: Recorded, earlier: Callable[[int], MatchState] | None) -> MatchState:
    if entry.version != state.version + 1:
        raise ValueError(f"log entry {entry.version} does not follow version {state.version}")
    why = _out_of_place(state, entry)
    if why is not None:
        raise EntryOutOfPlace(entry, why)
    state = replaced(state, version=entry.version, head_hash=entry.hash, updated_at=entry.at)
    if entry.type == "undone":
        if earlier is None:
            raise ValueError(f"entry {entry.version} undoes back to an earlier version: fold it with the log")
        back = earlier(entry.data["to_version"])
        clock = state.clock and back.clock and clocks.taken_back(back.clock, state.clock, entry.at)
        return replace(state, game=back.game, clock=clock, last_action=None, undo_request=None)
    shell_fold = _SHELL_FOLDS.get(entry.type)
    if shell_fold is not None:
        return shell_fold(state, entry)
    state = revealing(state, entry)
    return replaced(state, game=state.engine.apply(state.game, entry.event()))


def fold(
    state: MatchState, entries: list[Recorded], earlier: Callable[[int], MatchState] | None = None
) -> MatchState:
    """Fold entries in order; an ``undone`` among them goes back to a state of this fold or ``earlier``."""
    seen = {state.version: state}
    for entry in entries:
        state = advance(
            state,
            entry,
            lambda version: earlier(version) if earlier and version not in seen else seen[version],
        )
        seen[state.version] = state
    return state


def replay(entries: list[Recorded], seed: str | None = None, salt: str | None = None) -> MatchState:
    """Rebuild a match from its whole log, checking its hash chain first (BrokenChain names the first
    entry that breaks it); the seed and salt come from ``seed_revealed`` when not given."""
    verify_chain(entries)
    if seed is None:
        revealed = [e for e in entries if e.type == "seed_revealed"]
        if not revealed:
            raise ValueError("the log reveals no seed (the match is still running); pass the seed")
        seed, salt = revealed[0].data["seed"], revealed[0].data.get("salt")
    state = start(entries[0], seed, salt)
    if state.sealed_chain:
        check_sealed(state.engine, entries, commitment_key(seed, salt or ""))
    return fold(state, entries[1:])


def check_sealed(engine: Game, entries: Sequence[Recorded], key: bytes) -> None:
    """The full check of a sealed log (``chain: 2``), once its seed is known: every entry of the game's
    whose spectator view is not the whole of it carries that view as its public data and the
    commitment to its whole data; every other entry carries neither. What a spectator sees is the
    game's view as it was when the log was written: where the game's views have changed since
    (``GameInfo.views_version``), public data is not compared with today's view."""
    same_views = entries[0].data.get("views", "1") == engine.info.views_version
    for entry in entries:
        # a sealed entry's data is covered by its commitment only, not by the chain: anything may stand
        # there in a forged log, so it is checked against the commitment before the game reads it
        if entry.commitment is not None and (
            not isinstance(entry.data, dict) or entry.commitment != commitment(key, entry)
        ):
            raise BrokenSeal(entry.version, "commitment")
        if not same_views:
            continue  # the commitment, checked above, and the chain prove it
        public = entry.data if entry.type in SHELL_EVENTS else engine.event_view(entry.event(), None)["data"]
        if public == entry.data:
            if entry.commitment is not None:
                raise BrokenSeal(entry.version, "commitment")
            continue
        if entry.public_data != public:
            raise BrokenSeal(entry.version, "public data")
        if entry.commitment is None:
            raise BrokenSeal(entry.version, "commitment")


def kept_moves(entries: Sequence[Recorded]) -> list[Recorded]:
    """The game's entries of a log that the match's state kept: an ``undone`` goes back to the moves kept at
    its ``to_version``, as the fold does (the log keeps what it took back; a record or a replay leaves it out)."""
    kept: tuple[Recorded, ...] = ()
    kept_at: dict[int, tuple[Recorded, ...]] = {0: kept}
    for entry in entries:
        if entry.type == "undone":
            kept = kept_at[entry.data["to_version"]]
        elif entry.type not in SHELL_EVENTS:
            kept = (*kept, entry)
        kept_at[entry.version] = kept
    return list(kept)
