"""The match commands: create a match, join it, act, take back, concede, abort, hand a seat over.

Each command is a thin sequence: load from the repository, let the pure lifecycle
(``service.domain.lifecycle``) decide, store the step. Rules live in the engines, decisions about a match in
the lifecycle, Redis in the stores. The other use cases have their own modules: the clocks
(``service.application.clocks``), the bots (``bots``), abandoned matches (``abandonment``), scoring
(``scoring``), webhook deliveries (``deliveries``), analysis (``analysis``), listings (``listings``), game
records (``records``), what a reader is shown of a log (``log_views``), idempotency keys (``idempotency``).
"""

from __future__ import annotations

import hmac
import json
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from service.application import entry_time, player_matches
from service.application.bot_budgets import BotBudget, check_bot
from service.application.clocks import Clocks
from service.application.idempotency import ANYONE, Idempotency, replayed
from service.application.scoring import Scoring
from service.application.stores import Stores
from service.config import Settings
from service.domain import lifecycle, projections
from service.domain.addresses import counted_address
from service.domain.errors import (
    KnownSeedRefused,
    MatchIdTaken,
    MatchNotFound,
    MatchOver,
    OutOfTime,
    VersionConflict,
)
from service.domain.replay import MatchState
from service.domain.tokens import new_token, token_hash
from service.games import GAMES
from service.games.protocol import IllegalAction, InvalidOptions
from service.games.texts import catalogue, language
from service.store import packs
from service.store.events import Remember
from service.store.redis_client import Client
from service.store.repository import Lru, Meta

_ = catalogue(__file__).gettext

__all__ = ["ANYONE", "Created", "Matches", "NewMatch", "check_on_timeout", "check_player"]


ACTIVITY_EVERY_S = 60.0
"""How often, at most, one process moves a match it appends to in the abandonment watch (``Matches._active``);
a hundredth of ``abandon_after_s`` when that is shorter (``service.application.abandonment``)."""


def _check_known_seed(players: list[str | None], public: bool | None) -> None:
    """A creator who chose the seed can compute every hand and the deck offline: such a match is only for
    people the creator seated (a test, a replayed deal), never one a stranger joins or finds listed."""
    if None in players:
        raise KnownSeedRefused(
            "open_seat",
            _(
                "seed_known_to_creator: the creator would know the hand of whoever "
                "joins; fill every seat, or let the server choose the seed"
            ),
        )
    if public:
        raise KnownSeedRefused(
            "public",
            _(
                "seed_known_to_creator: a match whose deal its creator knows is not "
                "listed for anyone; leave out public (or false)"
            ),
        )


class _NotNow(Exception):
    """A decision that finds nothing to do on the latest state."""


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
    match_id: str | None = None
    """The match's id when its creator derives it (a tournament's round: ``open_match`` is then idempotent on
    it, with ``tokens``); None for a random one."""
    tokens: Sequence[str] | None = None
    """With ``match_id``: a token per seat (a bot's too, forgotten), which a retry of the creation gives again."""
    tournament: Mapping[str, Any] | None = None
    """The tournament and round (``{id, round}``) the match is played for, which its ``match_created`` says."""


def check_player(platform: str | None, player: str | None, where: str, bot: str | None = None) -> None:
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


def check_on_timeout(game_id: str, resolved: Mapping[str, Any], clock: Mapping[str, Any] | None) -> None:
    """InvalidOptions for an ``on_timeout`` the game has no move for with these (resolved) options."""
    game = GAMES[game_id]
    policy, allowed = clock["on_timeout"] if clock else "bot", game.timeouts(dict(resolved))
    if policy != "bot" and policy not in allowed:
        options_say = " with these options" if policy in game.timeout_actions else ""
        raise InvalidOptions(
            "on_timeout",
            f"{game.info.name} has no {policy} move{options_say}: use "
            + " or ".join(["bot", *sorted(allowed)]),
        )


@dataclass(frozen=True)
class Created:
    """A match just created: its id, its state, a token per seat (None: open or a bot's) and, without a
    platform, the creator token (shown only now)."""

    match_id: str
    state: MatchState
    tokens: list[str | None]
    creator_token: str | None = None


class Matches:
    """The commands on matches, over the stores they keep them in (``Stores``)."""

    def __init__(
        self,
        redis_client: Client | None = None,
        settings: Settings | None = None,
        cache_size: int = 2048,
        jobs_redis: Client | None = None,
        stores: Stores | None = None,
    ):
        """Over ``stores``, or the stores of ``redis_client`` (``Stores.connect`` takes the rest)."""
        if stores is None:
            assert redis_client is not None, "a Redis client, or the stores"
            stores = Stores.connect(redis_client, settings, cache_size, jobs_redis)
        self.stores = stores
        self.settings = stores.settings
        """The configuration it was made with (a value: read it, it changes nothing)."""
        self.repository = stores.repository
        self.idempotency = Idempotency(stores.repository, stores.keys, self.settings.idempotency_ttl_s)
        self.clocks = Clocks(stores.repository, stores.jobs)
        self.budget = BotBudget(stores.repository, stores.budgets, self.settings)
        self.scoring = Scoring(stores)
        self.repository.on_saved = self._relist
        # (match, head hash, seat, language) -> the refusal (``_judged_undo``)
        self._refused_undos = Lru(1024)
        self._watched = Lru(cache_size)  # match id -> when this process last put it under the watch

    def secret(self, match_id: str, state: MatchState | None = None) -> lifecycle.SeedSecret:
        """The seed secret of a match still running (a finished match's log has revealed it: none is kept).
        With ``state``, a seat's action or concession on it: one that shows the end is refused as the rules
        refuse it (``lifecycle.refuse_after_end``), not by whether this process has heard of the seed's
        reveal yet; a state that does not show the end is behind the log, which is read for it."""
        secret = self.repository.meta(match_id).secret
        if secret is None:
            if state is not None:
                lifecycle.refuse_after_end(state if state.finished else self.load(match_id))
            raise MatchOver(_("the match is over already"))
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
                check_bot(game, spec, f"players.{seat}")
        player_ids = list(new.player_ids) if new.player_ids else [None] * len(players)
        for seat, player in enumerate(player_ids):
            check_player(new.platform, player, f"players.{seat}.player", bots[seat])
        clock = new.clock
        check_on_timeout(game_id, resolved, clock)
        match_id = new.match_id or uuid.uuid4().hex
        if new.match_id is not None:
            made = self._made_already(new, bots)
            if made is not None:
                return made
        address = "" if new.platform else counted_address(new.client)
        bots_only = self.budget.admit(new.platform, address, bots, match_id)
        try:
            step = lifecycle.begin(
                game_id,
                resolved,
                players,
                secret,
                entry_time.now(),
                content,
                list(new.record),
                new.seed_known_to_creator,
                bots,
                new.undo,
                clock,
                player_ids,
                match_id,
                new.tournament,
            )
            tokens: list[str | None] = (
                list(new.tokens)
                if new.tokens
                else [new_token() if name is not None else None for name in players]
            )  # open seats: when joined
            hashes = tuple(token_hash(t) if t else "" for t in tokens)  # a bot's token is made and forgotten
            tokens = [None if bot else token for token, bot in zip(tokens, bots)]
            creator = None if new.platform else new_token()
            self.repository.add(
                match_id,
                Meta(game_id, secret, hashes, new.platform, token_hash(creator) if creator else "", address),
                step,
            )
            self.stores.listings.add(
                match_id,
                game_id,
                projections.status_of(step.state),
                new.platform,
                new.platform is None if public is None else public,
                time.time() * 1000,
            )
            self.scoring.hold_place(match_id, step.state, step.entries)  # played to its end by its record
            player_matches.follow(self.stores, match_id, step)
            if not step.state.finished:
                self._active(match_id)
            elif bots_only:  # played to its end by its record: over already
                self.stores.budgets.unplace(bots_only, match_id)
            return Created(match_id, step.state, tokens, creator)
        except BaseException:
            if bots_only:  # refused or failed: it takes none of its creator's budget
                self.stores.budgets.unplace(bots_only, match_id)
            raise

    def _made_already(self, new: NewMatch, bots: Sequence[str | None]) -> Created | None:
        """The match of ``new.match_id`` if an earlier try created it with the same tokens; None if there is
        none (or only its meta, the earlier try cut short before its log); MatchIdTaken if another has it."""
        assert new.match_id is not None and new.tokens is not None, "a derived id comes with its tokens"
        try:
            meta = self.repository.meta(new.match_id, fresh=True)
        except MatchNotFound:
            return None
        hashes = tuple(token_hash(t) for t in new.tokens)
        if (
            meta.platform != new.platform
            or len(meta.seat_hashes) != len(hashes)
            or not all(hmac.compare_digest(a, b) for a, b in zip(meta.seat_hashes, hashes))
        ):
            raise MatchIdTaken(new.match_id)
        if not self.repository.version(new.match_id):
            return None
        tokens = [None if bot else token for token, bot in zip(new.tokens, bots)]
        return Created(new.match_id, self.load(new.match_id), tokens)

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
        idem_key, fingerprint = self.idempotency.seat_key(
            match_id, seat, idempotency_key, [expected_version, action], holder
        )
        try:
            return self._submit(match_id, seat, expected_version, action, idem_key, fingerprint, by, holder)
        except VersionConflict:
            # a retry that raced its own first attempt and lost gets the first attempt's answer
            prior = self.repository.remembered(idem_key) if idem_key else None
            if prior is None:
                raise
            return self._replayed(match_id, prior, fingerprint)

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
            prior = self.repository.remembered(idem_key)
            if prior is not None:
                return self._replayed(match_id, prior, fingerprint)
        # The state this process last saw is the true state at its version; if that is the version
        # the client expects, judge the action on it without reading the log: should the log have
        # moved on, the append refuses it anyway.
        state = self.repository.head(match_id)
        if state is None or state.version != expected_version:
            state = self.load(match_id)
        for _attempt in range(50):
            if expected_version != state.version and not self._unconcerned(
                match_id, seat, expected_version, state
            ):
                raise VersionConflict(state.version)
            late = self.clocks.meet_deadline(match_id, state, seat)
            if late is not None:  # another seat's time ran out: the client's version is behind now
                raise VersionConflict(late.state.version)
            try:
                step = lifecycle.act(state, seat, action, self.secret(match_id, state), entry_time.now(), by)
            except IllegalAction:
                latest = self.repository.version(match_id)  # refused on a copy that may be behind the log:
                if latest != state.version:  # judge it again on the latest
                    state = self.load(match_id)
                    continue
                raise
            answer = {
                "version": step.state.version,
                "events": [
                    projections.entry_view(state.engine, e, seat, False, state.sealed_chain, step.state.game)
                    for e in step.entries
                ],
            }
            try:
                prior = self.repository.save(
                    match_id,
                    step,
                    self.idempotency.remember(idem_key, fingerprint, answer),
                    (seat, holder) if holder else None,
                )
            except (
                VersionConflict
            ):  # another seat got in first: in a step all act in, that may not concern us
                state = self.load(match_id)
                continue
            return answer if prior is None else self._replayed(match_id, prior, fingerprint)
        raise VersionConflict(state.version)

    def _replayed(self, match_id: str, prior: str, fingerprint: str) -> dict[str, Any]:
        """The answer kept for a seat's retried command (``replayed``). One that ended a platform's game holds
        the game's place in its rating pool again (``Scoring.hold_place``; nothing once it is held, rated or
        released): the first request may have failed after its append and before it held the place (no
        replica confirmed the append in time, ``503 not_replicated``, or the pool's node was out of reach),
        and a game of the pool that ended later and is scored first would be rated before this one."""
        answer = replayed(prior, fingerprint)
        events = answer["events"]
        if any(event["type"] == "seed_revealed" for event in events):
            version = answer["version"]
            _, entries = self.repository.read(match_id, after=version - len(events), until=version)
            self.scoring.hold_place(match_id, self.load(match_id), entries)
        return answer

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
        _at, since = self.repository.read(match_id, after=expected_version, until=state.version)
        if any(entry.seat is None or entry.seat == seat for entry in since):
            return False
        return then.legal_actions(seat) == state.legal_actions(seat)

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
        and asking again at the same state, at the write rate, must not cost it again. Kept per language: the
        refusal's message is the asker's."""
        judged = (match_id, state.head_hash, seat, language())
        if (refused := self._refused_undos.get(judged)) is not None:
            raise IllegalAction(refused.reason, refused.message)
        try:
            return lifecycle.undo(state, seat, entry_time.now(), earlier)
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
            lambda state, earlier: lifecycle.answer_undo(state, seat, accepted, entry_time.now(), earlier),
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
        idem_key, fingerprint = self.idempotency.seat_key(match_id, seat, idempotency_key, [command], holder)
        prior = self.repository.remembered(idem_key) if idem_key else None
        if prior is not None:
            return self._replayed(match_id, prior, fingerprint)

        def answer(step: lifecycle.Step) -> dict[str, Any]:
            return {
                "version": step.state.version,
                "events": [
                    projections.entry_view(
                        step.state.engine, e, seat, False, step.state.sealed_chain, step.state.game
                    )
                    for e in step.entries
                ],
            }

        try:
            self.clocks.meet_deadline(
                match_id, self.load(match_id), seat
            )  # an undo does not buy back time run out
        except OutOfTime:
            raise
        except VersionConflict:
            pass  # the log moved on meanwhile: the command looks at the latest
        try:
            step, prior = self.append_retrying(
                match_id,
                lambda state: decide(state, self.repository.earlier_than(match_id, state)),
                lambda step: (
                    self.idempotency.remember(idem_key, fingerprint, answer(step)) if idem_key else None
                ),
                (seat, holder) if holder else None,
            )
        except IllegalAction:
            # a retry that raced its own first attempt is refused by what that attempt did: its answer
            prior = self.repository.remembered(idem_key) if idem_key else None
            if prior is None:
                raise
        else:
            if prior is None:
                return answer(step)
        return self._replayed(match_id, prior, fingerprint)

    def append_retrying(
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
        for _attempt in range(50):
            step = decide(self.load(match_id))
            try:
                return step, self.repository.save(match_id, step, remember(step), holder, handover)
            except VersionConflict:
                continue
        raise RuntimeError(f"could not append to {match_id}: the log kept moving")

    def concede(
        self, match_id: str, seat: int, idempotency_key: str | None = None, holder: str | None = None
    ) -> dict[str, Any]:
        """``seat`` gives up (``lifecycle.concede``): the answer is shaped like an action's."""
        return self._command(
            match_id,
            seat,
            "concede",
            idempotency_key,
            lambda state, earlier: lifecycle.concede(
                state, seat, self.secret(match_id, state), entry_time.now()
            ),
            holder,
        )

    def abort(
        self, match_id: str, reason: str, idempotency_key: str | None = None, caller: str = "platform"
    ) -> dict[str, Any]:
        """End the match where it stands (its platform, or its creator, asks): ``match_aborted``, and the
        seed revealed. The answer is the match's summary (a retry of ``caller`` with the same
        ``idempotency_key`` and reason gets it again). MatchOver if it has ended already."""
        return self.idempotency.once(
            match_id,
            "abort",
            caller,
            idempotency_key,
            [reason],
            lambda remember: self._aborted(match_id, reason, remember),
        )

    def _aborted(
        self, match_id: str, reason: str, remember: Callable[[dict[str, Any]], Remember | None]
    ) -> dict[str, Any]:
        answer = self.abort_while(match_id, reason, remember)
        assert answer is not None, "without a `still` test, only MatchOver stops an abort"
        return answer

    def abort_while(
        self,
        match_id: str,
        reason: str,
        remember: Callable[[dict[str, Any]], Remember | None] = lambda answer: None,
        still: Callable[[MatchState], bool] = lambda state: True,
    ) -> dict[str, Any] | None:
        """``match_aborted`` unless the match is over (MatchOver) or ``still(state)`` says otherwise (None)."""

        def decide(state: MatchState) -> lifecycle.Step:
            if state.finished:
                raise MatchOver(_("the match is over already"))
            if not still(state):
                raise _NotNow()
            return lifecycle.abort(state, reason, self.secret(match_id), entry_time.now())

        try:
            step, prior = self.append_retrying(
                match_id,
                decide,
                lambda step: remember(projections.summary(match_id, step.state, entry_time.now())),
            )
        except _NotNow:
            return None
        self.stores.listings.closed(match_id)
        return (
            json.loads(prior)["answer"]
            if prior is not None
            else projections.summary(match_id, step.state, entry_time.now())
        )

    # -- reading and after an append ---------------------------------------------------------------

    def load(self, match_id: str, version: int | None = None) -> MatchState:
        return self.repository.load(match_id, version)

    def is_creator(self, match_id: str, token: str) -> bool:
        """Whether ``token`` is the creator token of the match (one created without a platform key)."""
        digest = self.repository.meta(match_id).creator
        return bool(digest) and hmac.compare_digest(digest, token_hash(token))

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
        self.stores.watch.active(match_id, at * 1000)
        self._watched.put(match_id, at)

    def _relist(self, match_id: str, step: lifecycle.Step) -> None:
        """After an append: a platform's game that ended holds its place in its rating pool first (every save
        path comes here, a move, a concession, an abort, a clock's timeout); a match whose status changed moves
        to the listings of its new status; one that goes on counts as active now, one that ended leaves the
        abandonment watch, and one that a handover left to bots takes its place in its tenant's budget of them;
        its players' matches follow its seats and its end."""
        self.scoring.hold_place(match_id, step.state, step.entries)
        player_matches.follow(self.stores, match_id, step)
        if step.state.finished:
            self.stores.watch.forget(match_id)
        elif step.entries:
            self._active(match_id)
            if step.base is not None and step.state.bots_only and not step.base.bots_only:
                self.budget.left_to_bots(match_id)
        old, new = projections.status_of(step.base) if step.base else None, projections.status_of(step.state)
        if old is None or old == new:
            return
        self.stores.listings.relist(
            match_id, self.repository.meta(match_id).platform, step.state.game_id, old, new
        )
