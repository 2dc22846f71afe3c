"""The matchlog application: the commands and queries the API, the workers and the CLI call.

Each command is a thin sequence: load from the repository, let the pure lifecycle
(``service.domain.lifecycle``) decide, store the step. Rules live in the engines, decisions about a match in
the lifecycle, Redis in the repository.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import redis

from service.config import Settings
from service.domain import analysis, clocks, lifecycle, projections, replay
from service.domain.chain import Recorded, canonical_json, compact_encoder, utc_second
from service.domain.replay import SHELL_EVENTS, MatchState
from service.domain.serverkey import ServerKey
from service.domain.tokens import new_token, token_hash
from service.games import GAMES
from service.games.bots import BOTS, bot_name, bots_of, shown_bot
from service.games.protocol import Game, IllegalAction, InvalidOptions, InvalidRecord
from service.http.schemas import name_refusal
from service.store import budgets, packs
from service.store.analyses import Analyses
from service.store.budgets import BotBudgets
from service.store.events import PENDING, Remember, VersionConflict
from service.store.jobqueue import JobQueue
from service.store.keys import Keys
from service.store.listings import Listings
from service.store.platforms import Platforms
from service.store.redis_client import for_jobs
from service.store.repository import Lru, MatchNotFound, MatchRepository, Meta
from service.store.webhooks import Webhooks

_compact = compact_encoder(sort_keys=False)
"""A delivery body's text, and its parts'."""


class IdempotencyKeyReused(Exception):
    pass


class IdempotencyKeyInProgress(Exception):
    """The first request with this Idempotency-Key is still running: try again in a moment."""


class GuessableIdempotencyKey(Exception):
    """An Idempotency-Key shorter than ``ANONYMOUS_KEY_MIN`` where no caller scopes it."""


ANYONE = "anyone"
"""The caller of a request that has none (an anonymous create, a join): its Idempotency-Key alone scopes it."""

ANONYMOUS_KEY_MIN = 21
"""The fewest characters of an Idempotency-Key that ``ANYONE`` sends. Such a key is the only secret between
a stranger and the first answer (a create's seat tokens, a join's token): a retry of an anonymous create or
join with the same key and body gets that answer back, and the body of a join (a public name) is easy to
guess. 21 characters take a nanoid, a ULID, ``secrets.token_urlsafe(16)``, 32 hex digits or a UUID."""

IDEMPOTENCY_PENDING_S = 60
"""How long a request's claim of its Idempotency-Key stands while it runs (a crashed request's claim lapses)."""
IDEMPOTENCY_WAIT_S = 5.0
"""How long a retry waits for the first request with its key to answer before 409 idempotency_key_in_progress."""


def fingerprint_of(request: Any) -> str:
    """The digest of what a retry must repeat (its endpoint's body, as JSON)."""
    return hashlib.sha256(json.dumps(request, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class SeatTaken(Exception):
    """A join for a seat that is not open (any more)."""


class MatchOver(Exception):
    """An abort, a join or a seat replacement for a match that has ended."""


class OutOfTime(VersionConflict):
    """A move from a seat whose clock had run out: the timeout was appended instead."""


def _still_open(state: MatchState) -> None:
    if state.aborted or state.finished:
        raise MatchOver("the match is over: its seats can no longer be joined")


KNOWN_SEED_REASONS = {
    "open_seat": "a seat is left open for someone to join",
    "public": "the match would be listed for anyone",
}
"""The ``reason`` of a ``seed_known_to_creator_refused`` answer."""


class KnownSeedRefused(Exception):
    """``seed_known_to_creator`` where someone other than the creator could sit down unaware: a seat left
    open, or a match listed for anyone. ``reason``: one of ``KNOWN_SEED_REASONS``."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def _check_known_seed(players: list[str | None], public: bool | None) -> None:
    """A creator who chose the seed can compute every hand and the deck offline: such a match is only for
    people the creator seated (a test, a replayed deal), never one a stranger joins or finds listed."""
    if None in players:
        raise KnownSeedRefused(
            "open_seat",
            "seed_known_to_creator: the creator would know the hand of whoever "
            "joins; fill every seat, or let the server choose the seed",
        )
    if public:
        raise KnownSeedRefused(
            "public",
            "seed_known_to_creator: a match whose deal its creator knows is not "
            "listed for anyone; leave out public (or false)",
        )


class NoSuchSeat(Exception):
    """A join for a seat number the match does not have."""


class NoRecordFormat(Exception):
    """The game has no record format, or not the one asked for."""


class HiddenUntilRevealed(Exception):
    """What would tell hidden data (a legacy log's head hash) waits for the seed to be revealed."""


ACTIVITY_EVERY_S = 60.0
"""How often, at most, one process moves a match it appends to in the abandonment watch (``Matches._active``);
a hundredth of ``abandon_after_s`` when that is shorter."""

ABANDONED = "abandoned"
"""The ``reason`` of the ``match_aborted`` a match idle for ``MATCHLOG_ABANDON_AFTER_S`` ends with."""


class _NotNow(Exception):
    """A decision that finds nothing to do on the latest state."""


def _ms(at: str) -> float:
    """An entry's time (ISO 8601, Z) in ms since the epoch."""
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() * 1000


def now() -> str:
    """The time now, as entries record it: ``datetime.now(UTC).isoformat(timespec="milliseconds")`` with
    ``Z`` (and the same digits: both floor the clock's nanoseconds), its date and second formatted once a
    second instead of at every move."""
    seconds, nanoseconds = divmod(time.time_ns(), 1_000_000_000)
    return f"{utc_second(seconds)}.{nanoseconds // 1_000_000:03d}Z"


class TooManyBotMatches(Exception):
    """The creator has as many matches with only bots in them not over as it may (``MATCHLOG_BOT_MATCHES_PER_*``)."""

    def __init__(self, cap: int, creator: str):
        super().__init__(
            f"this {creator} has {cap} matches whose seats are all bots not over, as many as one {creator} may: "
            "wait for one to end (or abort one)"
        )
        self.cap = cap


@dataclass(frozen=True)
class NewMatch:
    """What a match is created with.

    ``players``: a name per seat, None for a seat left open (joined later). ``seed`` is mixed into the
    server's own entropy, or, with ``seed_known_to_creator``, is the match's seed (a deterministic
    match, which the log says). ``record``: an imported game record's actions, played through the rules
    in order. ``platform``: the platform whose key creates it. A ``public`` match is listed for anyone (by
    default a match is public unless a platform created it). ``bots``: a bot per seat, or None for a
    person. ``undo``: the match's undo rule. ``clock``: the clock settings as the log keeps them
    (milliseconds), with ``on_timeout``. ``player_ids``: the platform's own id of each seat's player, or
    None (``service.domain.ratings``); a platform match only."""

    game: str
    players: Sequence[str | None]
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: str | None = None
    seed_known_to_creator: bool = False
    record: Sequence[dict[str, Any]] = ()
    platform: str | None = None
    public: bool | None = None
    bots: Sequence[str | None] | None = None
    undo: str = "none"
    clock: Mapping[str, Any] | None = None
    player_ids: Sequence[str | None] | None = None
    client: str | None = None
    """The creating client's address, for a match without a platform: whose budget of bot-only matches it
    counts in (``MATCHLOG_BOT_MATCHES_PER_ADDRESS``; an IPv6 address's by its /64), now or once a handover
    leaves only bots in it."""


def _check_player(platform: str | None, player: str | None, where: str, bot: str | None = None) -> None:
    """InvalidOptions for a player id where none may stand: in an anonymous match (a player id is scoped
    to a platform), on a bot's seat (a bot is rated as ``bot:<name>``), or a person's id spelt ``bot:...``."""
    if not player:
        return
    if platform is None:
        raise InvalidOptions(
            where,
            "a player id is a platform's own: create the match with a platform key "
            "(anonymous matches have no player ids)",
        )
    if bot:
        raise InvalidOptions(
            where,
            f"a bot's seat is rated as bot:{bot} (or bot:{bot}@<its name>); give a player id to people only",
        )
    if player.startswith("bot:"):
        raise InvalidOptions(where, "player ids starting with bot: are the bots' own")


@dataclass(frozen=True)
class Created:
    """A match just created: its id, its state, a token per seat (None: open or a bot's) and, without a
    platform, the creator token (shown only now)."""

    match_id: str
    state: MatchState
    tokens: list[str | None]
    creator_token: str | None = None


class MatchNotOver(Exception):
    """Something only a finished match has (its analysis) asked of one still running."""


class Matches:
    def __init__(
        self,
        redis_client: redis.Redis,
        settings: Settings | None = None,
        cache_size: int = 2048,
        jobs_redis: redis.Redis | None = None,
    ):
        """``jobs_redis``: the job queue's Redis (by default ``RQ_REDIS_URL``'s, else the match store's)."""
        self.settings = settings or Settings()
        """The configuration it was made with (a value: read it, it changes nothing)."""
        self._keys = Keys(self.settings.namespace, self.settings.feed_partitions)
        self._server_key = ServerKey(self.settings.secret_key)
        self._repository = MatchRepository(
            redis_client,
            self._keys,
            self.settings.snapshot_every,
            self._server_key,
            cache_size,
            self.settings.durability,
            self.settings.replica_wait_ms,
            self.settings.state_cache_bytes,
        )
        self._jobs = JobQueue(jobs_redis or for_jobs(self.settings.rq_redis_url, redis_client), self._keys)
        self._platforms = Platforms(redis_client, self._keys)
        self._listings = Listings(redis_client, self._keys, lambda match_id: self.load(match_id))
        self._webhooks = Webhooks(
            redis_client,
            self._keys,
            self._server_key,
            self._repository.durably,
            self.settings.webhooks_per_platform,
            self.settings.webhook_disable_after,
        )
        self._repository.on_saved = self._relist
        self._redis = redis_client
        self._refused_undos = Lru(1024)  # (match, head hash, seat) -> the refusal (``_judged_undo``)
        self._analyses = Analyses(
            redis_client, self._keys
        )  # of finished matches (``service.store.analyses``)
        self._budgets = BotBudgets(redis_client, self._keys)  # of bot-only matches, by tenant
        self._watched = Lru(cache_size)  # match id -> when this process last put it under the watch

    def _secret(self, match_id: str, state: MatchState | None = None) -> lifecycle.SeedSecret:
        """The seed secret of a match still running (a finished match's log has revealed it: none is kept).
        With ``state``, a seat's action or concession on it: one that shows the end is refused as the rules
        refuse it (``lifecycle.refuse_after_end``), not by whether this process has heard of the seed's
        reveal yet; a state that does not show the end is behind the log, which is read for it."""
        secret = self._repository.meta(match_id).secret
        if secret is None:
            if state is not None:
                lifecycle.refuse_after_end(state if state.finished else self.load(match_id))
            raise MatchOver("the match is over already")
        return secret

    # -- creation ---------------------------------------------------------------------------

    def create(self, new: NewMatch) -> tuple[str, MatchState, list[str | None]]:
        """A new match: its id, its latest state and one token per seat (shown only now)."""
        created = self.open_match(new)
        return created.match_id, created.state, created.tokens

    def open_match(self, new: NewMatch) -> Created:
        """A new match (``create``), with the creator token of a match created without a platform (shown only
        now): it aborts the match as a platform key aborts its platform's.

        With ``seed_known_to_creator`` every seat must be filled now and the match is not listed
        (KnownSeedRefused otherwise). A ``record``'s actions are played through the rules in order; the
        first illegal move raises IllegalRecordMove and nothing is stored."""
        game_id, players, public = new.game, list(new.players), new.public
        if new.seed_known_to_creator:
            _check_known_seed(players, public)
            public = False  # reachable by its id only, whoever created it
        resolved = lifecycle.check_options(game_id, dict(new.options or {}), len(players))
        game = GAMES[game_id]
        content = packs.content_for(game, resolved, self.settings.packs_dir)
        secret = lifecycle.SeedSecret.new(new.seed, new.seed_known_to_creator)
        bots = list(new.bots) if new.bots else [None] * len(players)
        for seat, spec in enumerate(bots):
            if spec:
                _check_bot(game, spec, f"players.{seat}")
        player_ids = list(new.player_ids) if new.player_ids else [None] * len(players)
        for seat, player in enumerate(player_ids):
            _check_player(new.platform, player, f"players.{seat}.player", bots[seat])
        clock = new.clock
        policy, allowed = clock["on_timeout"] if clock else "bot", game.timeouts(resolved)
        if policy != "bot" and policy not in allowed:
            options_say = " with these options" if policy in game.timeout_actions else ""
            raise InvalidOptions(
                "on_timeout",
                f"{game.info.name} has no {policy} move{options_say}: use "
                + " or ".join(["bot", *sorted(allowed)]),
            )
        match_id = uuid.uuid4().hex
        address = "" if new.platform else budgets.budget_address(new.client)
        bots_only = self._admit_bots_only(new.platform, address, bots, match_id)
        try:
            step = lifecycle.begin(
                game_id,
                resolved,
                players,
                secret,
                now(),
                content,
                list(new.record),
                new.seed_known_to_creator,
                bots,
                new.undo,
                clock,
                player_ids,
                match_id,
            )
            tokens = [
                new_token() if name is not None else None for name in players
            ]  # open seats: when joined
            hashes = tuple(token_hash(t) if t else "" for t in tokens)  # a bot's token is made and forgotten
            tokens = [None if bot else token for token, bot in zip(tokens, bots)]
            creator = None if new.platform else new_token()
            self._repository.add(
                match_id,
                Meta(game_id, secret, hashes, new.platform, token_hash(creator) if creator else "", address),
                step,
            )
            self._listings.add(
                match_id,
                game_id,
                projections.status_of(step.state),
                new.platform,
                new.platform is None if public is None else public,
                time.time() * 1000,
            )
            if not step.state.finished:
                self._active(match_id)
            elif bots_only:  # played to its end by its record: over already
                self._budgets.unplace(bots_only, match_id)
            return Created(match_id, step.state, tokens, creator)
        except BaseException:
            if bots_only:  # refused or failed: it takes none of its creator's budget
                self._budgets.unplace(bots_only, match_id)
            raise

    def _bot_matches_cap(self, platform: str | None) -> int:
        """How many matches of bots only a platform, or an anonymous address, may have not over (0: no cap)."""
        return self.settings.bot_matches_per_platform if platform else self.settings.bot_matches_per_address

    def _admit_bots_only(
        self, platform: str | None, address: str, bots: Sequence[str | None], match_id: str
    ) -> str | None:
        """For a match whose seats are all bots, take its place in its creator's budget of them.

        The budget is a platform's, or an anonymous client's address's; returns its tenant, or None for any
        other match or with no cap; TooManyBotMatches when the creator has as many not over as it may. Each
        costs the workers CPU with nobody waiting: a budget per creator keeps one from filling the bot
        workers (a bot's reply to a person goes first anyway). A match that becomes one of bots only later
        takes its place then (``_left_to_bots``)."""
        cap = self._bot_matches_cap(platform)
        tenant = budgets.tenant(platform, address)
        if not bots or not all(bots) or cap <= 0 or tenant is None:
            return None
        if not self._budgets.place(tenant, match_id, cap):
            self._budgets.unplace(tenant, match_id)
            raise TooManyBotMatches(cap, "platform" if platform else "address")
        return tenant

    def join(
        self,
        match_id: str,
        seat: int,
        name: str,
        idempotency_key: str | None = None,
        player: str | None = None,
    ) -> dict[str, Any]:
        """Take an open seat: the answer with its token, shown only now (and again to a retry with the same
        ``idempotency_key``, name and player: a join has no caller, so the key is the client's secret).
        SeatTaken if someone else has it (of two racing joins exactly one gets the seat); the join that fills
        the last seat starts the match."""
        return self.once(
            match_id,
            f"join:{seat}",
            ANYONE,
            idempotency_key,
            [name, player],
            lambda remember: self._join(match_id, seat, name, player, remember),
        )

    def _join(
        self, match_id: str, seat: int, name: str, player: str | None, remember: Callable
    ) -> dict[str, Any]:
        state = self.load(match_id)
        if not 0 <= seat < len(state.players):
            raise NoSuchSeat(f"the match has seats 0 to {len(state.players) - 1}")
        _still_open(state)
        _check_player(self.platform_of(match_id), player, "player")
        token = new_token()
        if state.players[seat] is not None or not self._repository.claim_seat(
            match_id, seat, token_hash(token)
        ):
            raise SeatTaken(f"seat {seat} is taken")

        def joined(
            state: MatchState,
        ) -> lifecycle.Step:  # the claim is ours; the log says so when it is our turn to append
            _still_open(state)  # unless the match was aborted meanwhile
            return lifecycle.join(state, seat, name, now(), player)

        def answer(state: MatchState) -> dict[str, Any]:
            return {
                "seat": seat,
                "name": name,
                "token": token,
                "version": state.version,
                "started": state.started,
            }

        step, prior = self._append_retrying(match_id, joined, lambda step: remember(answer(step.state)))
        if prior is not None:
            return json.loads(prior)["answer"]
        if step.state.started:
            self._listings.closed(match_id)
        return answer(step.state)

    def check_clock(self, match_id: str, version: int) -> str:
        """At a deadline: ``timed_out`` (and what ``on_timeout`` does) if the match is still at ``version``
        and a clock has run out; else nothing ("moved on"), or a later deadline ("not yet")."""
        state = self.load(match_id)
        if state.version != version:
            return "moved on"
        try:
            step = self._time_out(match_id, state)
        except VersionConflict:  # a move came in at the last moment: it stands, and the clock with it
            return "moved on"
        if step is None:
            self.schedule_deadline(match_id, state, again=int(time.time()))
            return "not yet"
        return "timed out"

    def _time_out(self, match_id: str, state: MatchState) -> lifecycle.Step | None:
        """Append ``timed_out`` (and what ``on_timeout`` does) if a clock of ``state`` has run out by now;
        VersionConflict if the log has moved on from ``state``."""
        step = lifecycle.time_out(state, self._repository.meta(match_id).secret, now())
        if step is None:
            return None
        seat, clock = step.entries[0].seat, step.state.clock
        assert seat is not None and clock is not None, "timed_out names the seat whose clock ran out"
        # to a bot, the seat's token goes with the timeout, in its append: until then its holder may still move
        # in time, and after it the rules refuse that token (seat_played_by_a_bot)
        handover = (seat, token_hash(new_token())) if clock["on_timeout"] == "bot" else None  # nobody's token
        self._repository.save(match_id, step, handover=handover)  # VersionConflict: the log moved on
        return step

    def _meet_deadline(self, match_id: str, state: MatchState, seat: int) -> lifecycle.Step | None:
        """Before ``seat`` acts on ``state``: the timeout a clock has run into by now, appended however busy
        the clock's job is (OutOfTime when it was ``seat``'s own); None when no clock has run out."""
        late = self._time_out(match_id, state) if state.clock is not None else None
        if late is not None and late.entries[0].seat == seat:
            raise OutOfTime(late.state.version)
        return late

    def schedule_deadline(self, match_id: str, state: MatchState, again: int = 0) -> None:
        """A job at the moment the first running clock of ``state`` (the latest) would run out
        (``again``: a check that came early sets another)."""
        deadline = clocks.deadline_ms(state.clock) if state.clock is not None and not state.finished else None
        if deadline is not None:
            self._jobs.enqueue_deadline(match_id, state.version, deadline, again)

    def undo(
        self, match_id: str, seat: int, idempotency_key: str | None = None, holder: str | None = None
    ) -> dict[str, Any]:
        """``seat`` takes back its last move, or asks the others to let it (the match's ``undo``)."""
        return self._command(
            match_id,
            seat,
            "undo",
            idempotency_key,
            lambda state, earlier: self._judged_undo(match_id, state, seat, earlier),
            holder,
        )

    def _judged_undo(
        self, match_id: str, state: MatchState, seat: int, earlier: Callable[[int], MatchState]
    ) -> lifecycle.Step:
        """``lifecycle.undo``, a refusal for what the span showed remembered for the state it judged: the
        judgement reads every view of every version since the move (some 15 ms of CPU against three bots),
        and asking again at the same state, at the write rate, must not cost it again."""
        judged = (match_id, state.head_hash, seat)
        if (refused := self._refused_undos.get(judged)) is not None:
            raise IllegalAction(refused.reason, refused.message)
        try:
            return lifecycle.undo(state, seat, now(), earlier)
        except IllegalAction as refusal:
            if refusal.reason == "hidden_information_revealed":
                self._refused_undos.put(judged, refusal)
            raise

    def answer_undo(
        self,
        match_id: str,
        seat: int,
        accepted: bool,
        idempotency_key: str | None = None,
        holder: str | None = None,
    ) -> dict[str, Any]:
        return self._command(
            match_id,
            seat,
            "undo/accept" if accepted else "undo/refuse",
            idempotency_key,
            lambda state, earlier: lifecycle.answer_undo(state, seat, accepted, now(), earlier),
            holder,
        )

    def _command(
        self,
        match_id: str,
        seat: int,
        command: str,
        idempotency_key: str | None,
        decide: Callable,
        holder: str | None = None,
    ) -> dict[str, Any]:
        """Append what ``decide(state, earlier)`` makes of the latest state; the answer is shaped like
        an action's, and kept under the idempotency key like an action's. ``holder``: the digest of the
        seat's token that asks (appended only while it is still the seat's)."""
        idem_key, fingerprint = self._idempotency(match_id, seat, idempotency_key, [command], holder)
        prior = self._repository.remembered(idem_key) if idem_key else None
        if prior is not None:
            return _replayed(prior, fingerprint)

        def answer(step: lifecycle.Step) -> dict[str, Any]:
            return {
                "version": step.state.version,
                "events": [
                    projections.entry_view(step.state.engine, e, seat, False, step.state.sealed_chain)
                    for e in step.entries
                ],
            }

        try:
            self._meet_deadline(match_id, self.load(match_id), seat)  # an undo does not buy back time run out
        except OutOfTime:
            raise
        except VersionConflict:
            pass  # the log moved on meanwhile: the command looks at the latest
        try:
            step, prior = self._append_retrying(
                match_id,
                lambda state: decide(state, self._repository.earlier_than(match_id, state)),
                lambda step: self._remember(idem_key, fingerprint, answer(step)) if idem_key else None,
                (seat, holder) if holder else None,
            )
        except IllegalAction:
            # a retry that raced its own first attempt is refused by what that attempt did: its answer
            prior = self._repository.remembered(idem_key) if idem_key else None
            if prior is None:
                raise
        else:
            if prior is None:
                return answer(step)
        return _replayed(prior, fingerprint)

    def _idempotency(
        self, match_id: str, seat: int, idempotency_key: str | None, request: list, holder: str | None = None
    ) -> tuple[str | None, str]:
        """The Redis key a seat's idempotency key is kept under, and the fingerprint of what a retry must
        repeat (needed only when there can be a retry). With ``holder`` (the digest of the seat's token that
        asks), the key is that holder's: a seat handed over shares no answers between its old and new
        holders, whatever keys they send."""
        if not idempotency_key:
            return None, ""
        fingerprint = hashlib.sha256(
            json.dumps(request, sort_keys=True, separators=(",", ":")).encode()
        ).hexdigest()
        scope = f"{seat}:{holder[:16]}" if holder else seat
        return self._keys.idempotency(match_id, scope, idempotency_key), fingerprint

    def _remember(self, idem_key: str | None, fingerprint: str, answer: dict[str, Any]) -> Remember | None:
        if not idem_key:
            return None
        return Remember(
            idem_key,
            json.dumps({"fingerprint": fingerprint, "answer": answer}),
            self.settings.idempotency_ttl_s,
        )

    def once(
        self,
        match_id: str | None,
        endpoint: str,
        caller: str,
        idempotency_key: str | None,
        request: Any,
        run: Callable[[Callable[[dict[str, Any]], Remember | None]], dict[str, Any]],
    ) -> dict[str, Any]:
        """``run(remember)``'s answer, once per ``idempotency_key`` of ``caller`` at ``endpoint`` (of the match
        ``match_id``, if any): a retry with the same key and ``request`` gets the first answer back, one with
        another request IdempotencyKeyReused; one that comes while the first still runs waits for its answer
        (IdempotencyKeyInProgress after ``IDEMPOTENCY_WAIT_S``). The key is claimed (a pending marker, SET NX)
        before ``run``; ``remember(answer)`` is what an append keeps under it in the same step, and whatever
        ``run`` answers is kept after it too. A request that fails leaves no answer: a retry runs again.
        Answers (tokens among them) live only in Redis, for ``idempotency_ttl_s``."""
        if not idempotency_key:
            return run(lambda answer: None)
        if caller == ANYONE and len(idempotency_key) < ANONYMOUS_KEY_MIN:
            raise GuessableIdempotencyKey(
                f"without a token or platform key, the key alone guards the answer's tokens: "
                f"at least {ANONYMOUS_KEY_MIN} random characters (a UUID)"
            )
        digest = hashlib.sha256(idempotency_key.encode()).hexdigest()
        key = self._keys.scoped_idempotency(match_id, endpoint, caller, digest)
        fingerprint = fingerprint_of([endpoint, request])
        marker = PENDING + fingerprint
        waited_until = time.monotonic() + IDEMPOTENCY_WAIT_S
        while True:
            prior = self._repository.claim(key, marker, IDEMPOTENCY_PENDING_S)
            if prior is None:
                break
            if not prior.startswith(PENDING):
                return _replayed(prior, fingerprint)
            if prior != marker:
                raise IdempotencyKeyReused()
            if time.monotonic() > waited_until:
                raise IdempotencyKeyInProgress(
                    "a request with this Idempotency-Key is still running: "
                    "send it again in a moment for its answer"
                )
            time.sleep(0.05)
        try:
            answer = run(lambda answer: self._remember(key, fingerprint, answer))
        except BaseException:
            self._repository.release(key, marker)
            raise
        self._repository.keep(
            key, json.dumps({"fingerprint": fingerprint, "answer": answer}), self.settings.idempotency_ttl_s
        )
        return answer

    def _append_retrying(
        self,
        match_id: str,
        decide: Callable[[MatchState], lifecycle.Step],
        remember: Callable[[lifecycle.Step], Remember | None] = lambda step: None,
        holder: tuple[int, str] | None = None,
        handover: tuple[int, str] | None = None,
    ) -> tuple[lifecycle.Step, str | None]:
        """Append what ``decide`` makes of the latest state, deciding again on the new latest state
        whenever another append got in first (whatever ``decide`` raises is the answer). Returns the step
        and, when ``remember``'s key already held an answer (nothing appended then), that answer.
        ``holder`` and ``handover`` as ``MatchRepository.save`` takes them."""
        for _ in range(50):
            step = decide(self.load(match_id))
            try:
                return step, self._repository.save(match_id, step, remember(step), holder, handover)
            except VersionConflict:
                continue
        raise RuntimeError(f"could not append to {match_id}: the log kept moving")

    def replace_seat(
        self,
        match_id: str,
        seat: int,
        name: str | None = None,
        bot: str | None = None,
        idempotency_key: str | None = None,
        caller: str = "platform",
        player: str | None = None,
    ) -> dict[str, Any]:
        """Hand a filled seat to a bot, or to a person (whose new token is in the answer, shown only now,
        and again to a retry of ``caller`` with the same ``idempotency_key``). The seat takes its new token
        in the append of ``seat_replaced``, so the log and the token never disagree: from then on the old
        token can no longer act, in any process (the append checks the token); its reads end within
        ``META_FRESH_S`` in other processes."""
        return self.once(
            match_id,
            f"replace:{seat}",
            caller,
            idempotency_key,
            [name, bot, player],
            lambda remember: self._replace_seat(match_id, seat, name, bot, player, remember),
        )

    def _replace_seat(
        self,
        match_id: str,
        seat: int,
        name: str | None,
        bot: str | None,
        player: str | None,
        remember: Callable,
    ) -> dict[str, Any]:
        state = self.load(match_id)
        if not 0 <= seat < len(state.players):
            raise NoSuchSeat(f"the match has seats 0 to {len(state.players) - 1}")
        if state.players[seat] is None:
            raise SeatTaken(f"seat {seat} is open: a person joins it")
        if state.finished:
            raise MatchOver("the match is over")
        if seat in state.conceded:
            raise SeatTaken(f"seat {seat} has conceded: it is out of play")
        if bot:
            _check_bot(state.engine, bot, "")
        _check_player(self.platform_of(match_id), player, "player", bot)
        token = new_token()

        def replaced(state: MatchState) -> lifecycle.Step:
            if state.finished:  # it ended meanwhile: nothing but the seed and the result follows the end
                raise MatchOver("the match is over")
            return lifecycle.replace_seat(state, seat, name or f"{bot} bot", bot, now(), player)

        def answer(state: MatchState) -> dict[str, Any]:
            shown = {"seat": seat, "name": state.players[seat], "version": state.version}
            return (
                {**shown, **shown_bot(state.bot_of(seat))}
                if state.bot_of(seat)
                else {**shown, "token": token}
            )

        step, prior = self._append_retrying(
            match_id, replaced, lambda step: remember(answer(step.state)), handover=(seat, token_hash(token))
        )
        return json.loads(prior)["answer"] if prior is not None else answer(step.state)

    def platform_of_key(self, key: str) -> dict | None:
        """The platform a key is of (``{id, name, created}``), or None for a key nobody issued."""
        return self._platforms.of_key(key)

    def signing_key(self) -> str:
        """The public key checkpoints are signed with."""
        return self._server_key.public_key

    # -- webhooks ---------------------------------------------------------------------------------

    def register_webhook(
        self, platform: str, url: str, events: list[str], secret: str | None
    ) -> dict[str, Any]:
        return self._webhooks.register(platform, url, events, secret)

    def webhooks_of(self, platform: str) -> list[dict[str, Any]]:
        return self._webhooks.of_platform(platform)

    def webhook(self, hook_id: str) -> dict[str, Any] | None:
        return self._webhooks.get(hook_id)

    def remove_webhook(self, hook_id: str, platform: str) -> None:
        self._webhooks.remove(hook_id, platform)

    def enable_webhook(self, hook_id: str) -> None:
        self._webhooks.enable(hook_id)

    def webhook_deliveries(
        self,
        hook_id: str,
        cursor: str | None = None,
        limit: int = 100,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of the webhook's delivery attempts, newest first, and the next page's cursor."""
        return self._webhooks.deliveries(hook_id, cursor, limit)

    def record_delivery(self, hook_id: str, attempt: dict[str, Any], last: bool = False) -> bool:
        """Keep an attempt; True when it disabled the webhook (``Webhooks.record``)."""
        return self._webhooks.record(hook_id, attempt, last)

    def delivery_body(self, shared: str) -> str | None:
        return self._webhooks.body(shared)

    def delivery_slot(self, platform: str, holder: str):
        """One of the platform's delivery slots, for as long as an attempt may take (``Webhooks.slot``)."""
        lease_s = self.settings.webhook_connect_s + self.settings.webhook_deadline_s + 5
        return self._webhooks.slot(platform, holder, self.settings.webhook_slots_per_platform, lease_s)

    def defer_delivery(self, job_id: str, args: tuple, retries_left: int) -> None:
        """The delivery job ``job_id`` again in a few seconds, with the retries it has left: its platform's
        slots were all taken."""
        self._jobs.defer_delivery(job_id, args, retries_left)

    def platform_of(self, match_id: str) -> str | None:
        return self._repository.meta(match_id).platform

    def deliver(self, match_id: str, version: int, types: tuple[str, ...]) -> None:
        """Enqueue a delivery to each webhook of the match's platform that wants one of the entry types
        one append brought (up to ``version``): the entries as a spectator sees them."""
        platform = self.platform_of(match_id)
        hooks = (
            [h for h in self._webhooks.of_platform(platform) if set(h["events"]) & set(types)]
            if platform
            else []
        )
        if not hooks:
            return
        _, entries = self._repository.read(match_id, after=version - len(types), until=version)
        state = self.load(match_id, version)
        shared: dict[tuple[str, ...], str] = {}  # the part of the body hooks asking for the same types share
        for hook in hooks:
            if hook["status"] != "enabled":
                continue
            delivery_id = f"{hook['id']}-{match_id}-v{version}"
            previous = self._webhooks.previous_version(
                hook["id"], match_id, version
            )  # in version order: the feed's
            wanted = tuple(sorted(set(hook["events"]) & set(types)))
            if wanted not in shared:
                shown = [e for e in entries if e.type in wanted]
                shared[wanted] = self._webhooks.keep_body(
                    _compact(
                        {
                            "game": state.engine.info.id,
                            "match": match_id,
                            "version": version,
                            "entries": projections.entries_view(state, shown, None),
                            "to_act": state.to_act(),  # after the append: what a receiver does next
                            "status": projections.status_of(state),
                        }
                    )
                )
            own = {"delivery": delivery_id, "webhook": hook["id"], "previous_version": previous}
            self._jobs.enqueue_delivery(delivery_id, hook["id"], _compact(own), shared[wanted])

    def deliver_event(self, platform: str, event: str, delivery_id: str, body: dict[str, Any]) -> None:
        """Enqueue a delivery of an event that is no log entry (``rating_changed``) to each webhook of the
        platform that asked for it."""
        hooks = [
            h
            for h in self._webhooks.of_platform(platform)
            if event in h["events"] and h["status"] == "enabled"
        ]
        shared = self._webhooks.keep_body(_compact({"event": event, **body})) if hooks else None
        for hook in hooks:
            delivery = f"{hook['id']}-{delivery_id}"
            self._jobs.enqueue_delivery(
                delivery, hook["id"], _compact({"delivery": delivery, "webhook": hook["id"]}), shared
            )

    def request_analysis(self, match_id: str) -> dict[str, Any]:
        """Analyse the finished match in the background, once: a second request finds the first one's
        job, or its result. MatchNotOver before the end; NoAnalysis for a game without an analyst."""
        state = self.load(match_id)
        if not state.finished:
            raise MatchNotOver("the match has not ended: its analysis can be asked for once it has")
        if not analysis.available(state.engine):
            raise analysis.NoAnalysis(f"{state.engine.info.name} has no analysis of its matches")
        job_id = f"analyse-{match_id}-{uuid.uuid4().hex[:8]}"
        if self._analyses.claim(match_id, now(), job_id):
            self._jobs.enqueue_analysis(match_id, job_id)
        answer = self._analyses.read(match_id)
        assert answer is not None, "claimed: by this request or an earlier one"
        return answer

    def analysis(self, match_id: str) -> dict[str, Any] | None:
        """The match's analysis as the API shows it (status, progress, the result once done); None when
        nobody has asked for it."""
        return self._analyses.read(match_id)

    def analysis_status(self, match_id: str) -> str | None:
        """Where the match's analysis stands (``queued``, ``running``, ``done``, ``failed``), or None."""
        return self._analyses.status(match_id)

    def analyse(self, match_id: str) -> dict[str, Any]:
        """Run the match's analysis here (the job does), keeping its progress and its result."""
        kept = self._analyses.read(match_id)
        if kept is not None and kept["status"] == "done":  # a second run of the job: nothing to do
            return {"match": match_id, "moves": len(kept["analysis"]["moves"])}
        _, entries = self.entries(match_id)
        try:
            result = analysis.analyse(
                entries, lambda done, total: self._analyses.progress(match_id, done, total)
            )
        except Exception as error:
            self._analyses.fail(match_id, f"{type(error).__name__}: {error}")
            raise
        self._analyses.finish(match_id, result, now())
        return {"match": match_id, "moves": len(result["moves"])}

    def request_rating(self, match_id: str) -> None:
        """Rate a scored match of a platform (``service.domain.ratings``); nothing for an anonymous one."""
        if self.platform_of(match_id) is not None:
            self._jobs.enqueue_rating(match_id)

    def bot_move(self, match_id: str, seat: int, version: int) -> dict[str, Any] | None:
        """The seat's bot plays, if the match is still at ``version`` with the seat to act: through the
        same version-checked append as a person. None when the match has moved on (nothing to do)."""
        state = self.load(match_id)
        bot = state.bot_of(seat)
        if state.version != version or seat not in state.to_act() or not bot:
            return None
        action = self._thought(match_id, state, seat)
        try:
            return self.submit(match_id, seat, version, action, by=replay.by_bot(bot))
        except VersionConflict:
            return None

    def _thought(self, match_id: str, state: MatchState, seat: int) -> dict[str, Any]:
        """The bot's action, within the bot budgets: a move that has thought for ``bot_cpu_per_move_s``
        plays the cheapest move instead, and so does every move of a match of bots only past its budgets
        (``_over_budget``; a match with a person in it goes only as fast as the person's moves, which the
        rate limits bound). The moves already played stay: only how the next ones are chosen changes. CPU
        time of this thread, so other work in the process does not count."""
        per_move, per_match = self.settings.bot_cpu_per_move_s, self.settings.bot_cpu_per_match_s
        if not state.bots_only:
            per_match = 0.0
        cheapest = state.bots_only and self._over_budget(match_id, per_match)
        began = time.thread_time()
        action = lifecycle.bot_action(
            state,
            seat,
            self._secret(match_id),
            cheapest=cheapest,
            out_of_thought=lambda: per_move > 0 and time.thread_time() - began > per_move,
        )
        if per_match > 0:
            self._budgets.spend(match_id, time.thread_time() - began)
        return action

    def _over_budget(self, match_id: str, per_match: float) -> bool:
        """Whether the bots of a match of bots only play the cheapest move: its bots have thought for
        ``per_match`` CPU seconds (0: no cap), or its place in its tenant's budget of bot-only matches does
        not stand. One left to bots without its place taken (its process stopped after the handover's append,
        or a match from before handovers were counted) takes it now."""
        budget = self._budget_of(match_id)
        if per_match <= 0 and budget is None:
            return False
        spent, stands = self._budgets.of_match(match_id)
        if stands is None and budget is not None:
            stands = self._budgets.place(budget[0], match_id, budget[1])
        return stands is False or 0 < per_match <= spent

    def _budget_of(self, match_id: str) -> tuple[str, int] | None:
        """The tenant whose budget of bot-only matches the match counts in, and its cap; None with no cap, or
        for an anonymous match from before creators' addresses were kept (left as it was made)."""
        meta = self._repository.meta(match_id)
        tenant, cap = budgets.tenant(meta.platform, meta.client), self._bot_matches_cap(meta.platform)
        return (tenant, cap) if tenant is not None and cap > 0 else None

    def _left_to_bots(self, match_id: str) -> None:
        """A handover (a clock timing a seat out to a bot, a seat replaced by a bot, a concession) left only
        bots in play: the match takes a place in its tenant's budget, as one created of bots only does. Past
        the cap it is not stopped (nothing accepted is lost) but its bots play the cheapest move to its end."""
        budget = self._budget_of(match_id)
        if budget is not None:
            self._budgets.place(budget[0], match_id, budget[1])

    def bots_to_move(self, match_id: str, state: MatchState) -> None:
        """Enqueue a move for each bot seat to act at ``state`` (the match's latest state)."""
        for seat in state.to_act():
            if state.bot_of(seat):
                self._jobs.enqueue_bot_move(match_id, seat, state.version, state.bots_only)

    def abort(
        self, match_id: str, reason: str, idempotency_key: str | None = None, caller: str = "platform"
    ) -> dict[str, Any]:
        """End the match where it stands (its platform, or its creator, asks): ``match_aborted``, and the
        seed revealed. The answer is the match's summary (a retry of ``caller`` with the same
        ``idempotency_key`` and reason gets it again). MatchOver if it has ended already."""
        return self.once(
            match_id,
            "abort",
            caller,
            idempotency_key,
            [reason],
            lambda remember: self._aborted(match_id, reason, remember),
        )

    def _aborted(self, match_id: str, reason: str, remember: Callable) -> dict[str, Any]:
        answer = self._abort(match_id, reason, remember)
        assert answer is not None, "without a `still` test, only MatchOver stops an abort"
        return answer

    def _abort(
        self,
        match_id: str,
        reason: str,
        remember: Callable = lambda answer: None,
        still: Callable[[MatchState], bool] = lambda state: True,
    ) -> dict[str, Any] | None:
        """``match_aborted`` unless the match is over (MatchOver) or ``still(state)`` says otherwise (None)."""

        def decide(state: MatchState) -> lifecycle.Step:
            if state.finished:
                raise MatchOver("the match is over already")
            if not still(state):
                raise _NotNow()
            return lifecycle.abort(state, reason, self._secret(match_id), now())

        try:
            step, prior = self._append_retrying(
                match_id, decide, lambda step: remember(projections.summary(match_id, step.state, now()))
            )
        except _NotNow:
            return None
        self._listings.closed(match_id)
        return (
            json.loads(prior)["answer"]
            if prior is not None
            else projections.summary(match_id, step.state, now())
        )

    def is_creator(self, match_id: str, token: str) -> bool:
        """Whether ``token`` is the creator token of the match (one created without a platform key)."""
        digest = self._repository.meta(match_id).creator
        return bool(digest) and hmac.compare_digest(digest, token_hash(token))

    def concede(
        self, match_id: str, seat: int, idempotency_key: str | None = None, holder: str | None = None
    ) -> dict[str, Any]:
        """``seat`` gives up (``lifecycle.concede``): the answer is shaped like an action's."""
        return self._command(
            match_id,
            seat,
            "concede",
            idempotency_key,
            lambda state, earlier: lifecycle.concede(state, seat, self._secret(match_id, state), now()),
            holder,
        )

    def _active(self, match_id: str) -> None:
        """The match was appended to now (and is not over): abandonment counts from here, give or take
        ``ACTIVITY_EVERY_S``. The watch is only where to look: ``end_abandoned`` ends a match by its log's
        last entry, so a watch a minute behind the log ends nothing early; and a move spared the write
        is spared a round trip to Redis."""
        at = time.time()
        every = min(ACTIVITY_EVERY_S, self.settings.abandon_after_s / 100)
        last = self._watched.get(match_id)
        if last is not None and at - last < every:
            return
        self._redis.zadd(self._keys.activity, {match_id: at * 1000})
        self._watched.put(match_id, at)

    def end_abandoned(self, limit: int = 100) -> list[str]:
        """End the matches with nothing appended for ``abandon_after_s`` (0: never) as abandoned:
        ``match_aborted`` with reason ``abandoned``, scored as they stand, out of the open and active
        listings. Returns their ids (at most ``limit`` a call)."""
        after_s = self.settings.abandon_after_s
        if after_s <= 0:
            return []
        cutoff_ms = time.time() * 1000 - after_s * 1000
        ended = []
        for member in self._redis.zrangebyscore(self._keys.activity, "-inf", cutoff_ms, start=0, num=limit):
            match_id = member.decode()

            def idle(
                state: MatchState, match_id: str = match_id
            ) -> bool:  # an append since the listing counts
                _, last = self._repository.read(match_id, after=state.version - 1, until=state.version)
                return not last or _ms(last[-1].at) <= cutoff_ms

            try:
                if self._abort(match_id, ABANDONED, still=idle) is not None:
                    ended.append(match_id)
                    continue
            except (MatchOver, MatchNotFound):
                pass
            else:
                continue  # active again: its next append lists it anew
            self._redis.zrem(self._keys.activity, match_id)
        return ended

    def listed(
        self,
        platform: str | None,
        game_id: str | None,
        status: str | None,
        cursor: str | None,
        limit: int,
        newest_first: bool = False,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of a listing (``Listings.page``) as match summaries, and the cursor of the next page."""
        text, _, next_cursor = self.listed_rows(platform, game_id, status, cursor, limit, newest_first)
        return json.loads(b"[" + text + b"]"), next_cursor

    def listed_rows(
        self,
        platform: str | None,
        game_id: str | None,
        status: str | None,
        cursor: str | None,
        limit: int,
        newest_first: bool = False,
    ) -> tuple[bytes, int, str | None]:
        """``listed``'s rows as the answer carries them, joined by commas (``rows.Page.shown``), how many
        they are, and the cursor of the next page."""
        found, next_cursor = self._listings.page(platform, game_id, status, cursor, limit, newest_first)
        return found.shown(now()), found.rows, next_cursor

    def _relist(self, match_id: str, step: lifecycle.Step) -> None:
        """After an append: a match whose status changed moves to the listings of its new status; one that
        goes on counts as active now, one that ended leaves the abandonment watch, and one that a handover left
        to bots takes its place in its tenant's budget of them."""
        if step.state.finished:
            self._redis.zrem(self._keys.activity, match_id)
        elif step.entries:
            self._active(match_id)
            if step.base is not None and step.state.bots_only and not step.base.bots_only:
                self._left_to_bots(match_id)
        old, new = projections.status_of(step.base) if step.base else None, projections.status_of(step.state)
        if old is None or old == new:
            return
        self._listings.relist(match_id, self.platform_of(match_id), step.state.game_id, old, new)

    def index_listings(self) -> int:
        """Put every listed match in the listings narrowed to its game and status, and every listed match not
        over under the abandonment watch from its last entry (``matchlog migrate``)."""
        platforms = [p["id"] for p in self._platforms.listed()]
        listed = self._listings.index_all(platforms)
        for index in [self._keys.public_matches] + [self._keys.platform_matches(p) for p in platforms]:
            for member, _ in self._redis.zscan_iter(index):
                match_id = member.decode()
                try:
                    state = self.load(match_id)
                except MatchNotFound:
                    continue
                if not state.finished:
                    _, last = self._repository.read(match_id, after=state.version - 1, until=state.version)
                    self._redis.zadd(self._keys.activity, {match_id: _ms(last[-1].at)}, nx=True)
        return listed

    def create_from_record(
        self, mime: str, text: str, platform: str | None = None
    ) -> tuple[str, MatchState, list[str | None]]:
        """A match replayed from a game record in the format ``mime``."""
        return self.create(self.from_record(mime, text, platform))

    def from_record(self, mime: str, text: str, platform: str | None = None) -> NewMatch:
        """The new match a game record in the format ``mime`` makes (InvalidRecord when it cannot be read)."""
        game = self.record_games().get(mime)
        if game is None or game.record is None:
            raise InvalidRecord(f"no game reads {mime}")
        try:
            options, names, actions = game.record.parse(text)
        except RecursionError:  # a parser that recurses per nesting level, given thousands of levels
            raise InvalidRecord("the record is nested too deeply") from None
        for seat, name in enumerate(names):
            refusal = name_refusal(name)
            if refusal:
                raise InvalidRecord(f"the name of seat {seat} ({name[:40]!r}): {refusal}")
        return NewMatch(game.info.id, names, options, record=actions, platform=platform)

    @staticmethod
    def record_games() -> dict[str, Game]:
        """The games with a record format, by its MIME type."""
        return {game.record.mime: game for game in GAMES.values() if game.record is not None}

    # -- reading ------------------------------------------------------------------------------

    def seat_hashes(self, match_id: str, fresh: bool = False) -> tuple[str, ...]:
        """The digests of the seats' tokens: this process's copy (up to ``META_FRESH_S`` old) or, ``fresh``,
        Redis's now."""
        return self._repository.meta(match_id, fresh).seat_hashes

    def engine_of(self, match_id: str) -> Game:
        return GAMES[self._repository.meta(match_id).game_id]

    def load(self, match_id: str, version: int | None = None) -> MatchState:
        return self._repository.load(match_id, version)

    def version(self, match_id: str) -> int:
        """The match's current version, as the log has it now (0: no such match)."""
        return self._repository.version(match_id)

    def entries(
        self, match_id: str, after: int = 0, until: int | None = None, limit: int | None = None
    ) -> tuple[int, list[Recorded]]:
        """The current version and the log entries with ``after < version <= until``, whole (not a seat's
        view: ``views.entries_view`` makes that)."""
        return self._repository.read(match_id, after=after, until=until, limit=limit)

    def seat_digest(self, match_id: str, seat: int) -> str | None:
        """The digest of the seat's token as the store holds it now (no cache)."""
        return self._repository.seat_digest(match_id, seat)

    def compact(self, match_id: str) -> None:
        """Keep a finished, scored match's final state only (``MatchRepository.compact``)."""
        self._repository.compact(match_id)

    def events(
        self,
        match_id: str,
        seat: int | None,
        after: int = 0,
        limit: int | None = None,
    ) -> tuple[int, list[dict[str, Any]]]:
        """The current version, and the log entries after ``after`` as ``seat`` may see them."""
        current, entries = self._repository.read(match_id, after=after, limit=limit)
        return current, projections.entries_view(self.load(match_id), entries, seat)

    def export_record(
        self, match_id: str, accepts: Callable[[str], bool] = lambda mime: True
    ) -> tuple[str, str]:
        """The match as a game record: ``(mime, text)``; NoRecordFormat when the game has no record
        format, or one the client does not ``accepts``."""
        engine = self.engine_of(match_id)
        if engine.record is None:
            raise NoRecordFormat(f"{engine.info.name} has no game record format")
        if not accepts(engine.record.mime):
            raise NoRecordFormat(f"a {engine.info.name} record is {engine.record.mime}")
        state = self.load(match_id)
        _, entries = self._repository.read(match_id, until=state.version)
        events = projections.entries_view(state, _kept_moves(entries), None)
        names = [name or "" for name in state.players]  # an open seat has nobody's name yet
        return engine.record.mime, engine.record.export(state.options, names, events)

    # -- acting -----------------------------------------------------------------------------------

    def submit(
        self,
        match_id: str,
        seat: int,
        expected_version: int,
        action: dict[str, Any],
        idempotency_key: str | None = None,
        by: str | None = None,
        holder: str | None = None,
    ) -> dict[str, Any]:
        """Play ``action`` for ``seat`` if the match is still at ``expected_version`` (and, with ``holder``,
        the digest of the seat's token that asks, while that is still the seat's token).

        Returns the answer body ``{version, events}`` (events as ``seat`` may see them). Raises
        VersionConflict, IllegalAction, NotTheHolder, or IdempotencyKeyReused (same key, different request)."""
        idem_key, fingerprint = self._idempotency(
            match_id, seat, idempotency_key, [expected_version, action], holder
        )
        try:
            return self._submit(match_id, seat, expected_version, action, idem_key, fingerprint, by, holder)
        except VersionConflict:
            # a retry that raced its own first attempt and lost gets the first attempt's answer
            prior = self._repository.remembered(idem_key) if idem_key else None
            if prior is None:
                raise
            return _replayed(prior, fingerprint)

    def _submit(
        self,
        match_id: str,
        seat: int,
        expected_version: int,
        action: dict[str, Any],
        idem_key: str | None,
        fingerprint: str,
        by: str | None = None,
        holder: str | None = None,
    ) -> dict[str, Any]:
        if idem_key:
            prior = self._repository.remembered(idem_key)
            if prior is not None:
                return _replayed(prior, fingerprint)
        # The state this process last saw is the true state at its version; if that is the version
        # the client expects, judge the action on it without reading the log: should the log have
        # moved on, the append refuses it anyway.
        state = self._repository.head(match_id)
        if state is None or state.version != expected_version:
            state = self.load(match_id)
        for _ in range(50):
            if expected_version != state.version and not self._unconcerned(
                match_id, seat, expected_version, state
            ):
                raise VersionConflict(state.version)
            late = self._meet_deadline(match_id, state, seat)
            if late is not None:  # another seat's time ran out: the client's version is behind now
                raise VersionConflict(late.state.version)
            try:
                step = lifecycle.act(state, seat, action, self._secret(match_id, state), now(), by)
            except IllegalAction:
                latest = self._repository.version(match_id)  # refused on a copy that may be behind the log:
                if latest != state.version:  # judge it again on the latest
                    state = self.load(match_id)
                    continue
                raise
            answer = {
                "version": step.state.version,
                "events": [
                    projections.entry_view(state.engine, e, seat, False, state.sealed_chain)
                    for e in step.entries
                ],
            }
            try:
                prior = self._repository.save(
                    match_id,
                    step,
                    self._remember(idem_key, fingerprint, answer),
                    (seat, holder) if holder else None,
                )
            except (
                VersionConflict
            ):  # another seat got in first: in a step all act in, that may not concern us
                state = self.load(match_id)
                continue
            return answer if prior is None else _replayed(prior, fingerprint)
        raise VersionConflict(state.version)

    def _unconcerned(self, match_id: str, seat: int, expected_version: int, state: MatchState) -> bool:
        """Whether a seat that chose its action at ``expected_version`` may still play it on ``state``,
        a later version: in a step where several seats act at once (a secret planning phase), the others'
        actions do not change what this seat may do. So when the seat was to act then and is now, with the
        same legal actions, and every entry since was another seat's, the action is judged on the latest
        state (and appended against it, atomically) rather than refused as a conflict."""
        if not 0 < expected_version < state.version or seat not in state.to_act():
            return False
        then = self.load(match_id, expected_version)
        if len(then.to_act()) < 2 or seat not in then.to_act():
            return False
        _, since = self._repository.read(match_id, after=expected_version, until=state.version)
        if any(entry.seat is None or entry.seat == seat for entry in since):
            return False
        return then.legal_actions(seat) == state.legal_actions(seat)

    def record_result(self, match_id: str) -> dict[str, Any]:
        """Score the match. Once it is over, the result is appended as ``match_scored`` exactly once."""
        for _ in range(10):
            state = self.load(match_id)
            if state.result is not None:
                return state.result
            step = lifecycle.score(state, now())
            if not step.entries:  # not over yet: the scores so far, recorded nowhere
                return projections.provisional(state)
            try:
                self._repository.save(match_id, step)
            except VersionConflict:
                continue  # someone else appended (another scoring job?): look again
            assert step.state.result is not None, "scoring a finished match records its result"
            return step.state.result
        raise RuntimeError(f"could not record the result of {match_id}: the log kept moving")

    def checkpoint(self, match_id: str) -> dict[str, Any]:
        """The match's version and head hash, signed with the server's key: an auditor holding an
        exported log proves with it that the log is the one this server holds."""
        state = self.load(match_id)
        if projections.hashes_withheld(state):
            raise HiddenUntilRevealed(
                "this match's log was written before hidden data was sealed in its hash "
                "chain, so its hashes are shown once the seed is revealed, at the end"
            )
        signed = {"match": match_id, "version": state.version, "hash": state.head_hash}
        return {
            **signed,
            "signed_at": now(),
            "algorithm": "Ed25519",
            "public_key": self._server_key.public_key,
            "signature": self._server_key.sign(canonical_json(signed)),
        }

    def request_scoring(self, match_id: str, version: int | None = None, reuse: bool = True) -> str:
        """The job that scores the match at ``version`` (its current one by default): one per version,
        however often asked (``reuse``: a finished job of that version stands; else it is run again)."""
        version = self.load(match_id).version if version is None else version
        return self._jobs.enqueue_scoring(match_id, version, reuse=reuse)

    def move_due_jobs(self) -> int:
        """Enqueue the deadlines and delayed retries that are due (``JobQueue.enqueue_overdue``)."""
        return self._jobs.enqueue_overdue()

    def clean_job_registries(self) -> None:
        self._jobs.clean_registries()

    def scoring_job(self, job_id: str) -> tuple[str, dict[str, Any]] | None:
        """The match a scoring job is for and the job's status (None: no such scoring job)."""
        return self._jobs.scoring(job_id)

    def readiness(self) -> dict[str, Any]:
        """Whether this process can serve: Redis answers, some rule worker has renewed its partition lease
        within the lease's time (else nothing would score matches or follow the feed) and, with replicated
        durability, every master has a replica."""
        try:
            return self._repository.readiness(
                self.settings.partition_lease_ms, replicated=self.settings.durability == "replicated"
            )
        except redis.exceptions.RedisError:
            return {"redis": False, "workers": 0}


def _kept_moves(entries: list[Recorded]) -> list[Recorded]:
    """The game's entries the match's state kept: an ``undone`` goes back to the moves kept at its
    ``to_version``, as the fold does (the log keeps what it took back; a record leaves it out)."""
    kept: tuple[Recorded, ...] = ()
    kept_at: dict[int, tuple[Recorded, ...]] = {0: kept}
    for entry in entries:
        if entry.type == "undone":
            kept = kept_at[entry.data["to_version"]]
        elif entry.type not in SHELL_EVENTS:
            kept = (*kept, entry)
        kept_at[entry.version] = kept
    return list(kept)


def _check_bot(game: Game, spec: str, where: str) -> None:
    """InvalidOptions unless ``spec`` names a bot of ``game``, with a level only for the game's own."""
    name, _ = bot_name(spec)
    prefix = f"{where}." if where else ""
    if name not in bots_of(game):
        raise InvalidOptions(
            f"{prefix}bot", f"no such bot for {game.info.name}: the catalogue lists {sorted(bots_of(game))}"
        )
    if ":" in spec and name in BOTS:
        raise InvalidOptions(
            f"{prefix}level", f"the {name} bot has no levels: they are for a game's search bots"
        )


def _replayed(stored: str, fingerprint: str) -> dict[str, Any]:
    record = json.loads(stored)
    if record["fingerprint"] != fingerprint:
        raise IdempotencyKeyReused()
    return record["answer"]
