"""Tournaments: a platform's players meet round after round, every pairing recomputable from the log.

A platform creates a tournament (round robin, Swiss, single or double elimination, of any game and mode,
``players_per_match`` to a match: two in a knockout); its players register and withdraw; the organiser (the
platform) starts each round, or its schedule does when the time comes (``start_due_round``, the job set by
each append that makes a round due; an arena's window closes by the job its opening set, ``close_window``);
``service.domain.tournaments.next_round`` decides its pairings from the log and the tournament's secret seed,
and a match is created per pod (its seats' tokens sealed beside the tournament, handed to the platform).
Each match's result comes into the tournament once it is scored (``record_results``: the scoring job calls it,
and so does every organiser's request), and the tournament finishes with its last result, revealing its seed
and writing the standings, so that anyone holding its log can recompute them (``matchlog replay``).
"""

from __future__ import annotations

import base64
import json
import secrets
import time
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from service.application import log_views
from service.application.bot_budgets import check_bot
from service.application.challenges import asked_options
from service.application.deliveries import Deliveries
from service.application.matches import Matches, NewMatch, check_player
from service.application.scoring import Scoring
from service.application.seeks import POINTS_PER_MU, RATING_BASE
from service.domain import lifecycle, ratings, shown
from service.domain import tournaments as rules
from service.domain.chain import Recorded, verify_chain
from service.domain.errors import (
    BrokenChain,
    MatchNotFound,
    MatchOver,
    NotFound,
    PairingRefused,
    TooManyOpen,
    TournamentRefused,
    VersionConflict,
)
from service.domain.tokens import new_token
from service.games import GAMES
from service.games.protocol import InvalidOptions
from service.store.players import PlayerStore
from service.store.tournaments import TournamentStore

TOURNAMENTS_PER_DAY = 100
"""Tournaments a platform may create in a day."""

KEPT_STATES = 256
"""Tournaments whose folded state a process keeps: a read folds only the entries appended since (a Swiss of
1,000 players over 5 rounds is 3,500 entries, two thirds of a second to fold whole)."""

ROUND_PAIRED_ANEW = "dropped from its tournament round"
"""The ``reason`` a match is aborted with when a round's start failed after creating it and its retry paired
the round otherwise (a player registered or withdrew in between): the round does not have it."""

STATES_PASSED = 16
"""The states a process's loads passed through last, each kept by its version (``standings_at``): a live feed's
batch can end at an entry the tournament has already moved past (results arriving while it was sent), and a
thousand players' log took a fifth of a second to fold again to it, for each such entry.

Each shares all but what its entry changed with the states around it."""

STANDINGS_KEPT = 16
"""Versions whose standings a process keeps (``standings``): the live feed keeps the events made of them,
so only the newest few are asked for again."""


@dataclass(frozen=True)
class NewTournament:
    """A tournament as asked for by its platform."""

    platform: str
    name: str
    kind: str
    game: str
    options: Mapping[str, Any]
    players_per_match: int
    rounds: int | None
    rated: bool
    bots_allowed: bool
    max_players: int
    duration_minutes: int | None = None  # an arena's window
    knockout_draws: str | None = None  # a knockout's: "higher_seed" (its default) or "replay"
    starts_at: str | None = None  # the schedule's first round, UTC "YYYY-MM-DDTHH:MM:SS"
    round_interval: int | None = None  # the schedule's seconds from a round's last result to the next round

    @property
    def schedule(self) -> dict[str, Any] | None:
        """The schedule as ``tournament_created`` records it (None: the organiser starts every round)."""
        if self.starts_at is None and self.round_interval is None:
            return None
        return {"starts_at": self.starts_at, "round_interval": self.round_interval}


def now_at() -> str:
    return time.strftime(rules.AT_FORMAT, time.gmtime())


class Tournaments:
    def __init__(self, matches: Matches, players: PlayerStore, store: TournamentStore):
        self.matches = matches
        self.players = players
        self.store = store
        self.server_key = matches.stores.server_key
        self._states: OrderedDict[str, rules.TournamentState] = OrderedDict()
        self._standings: OrderedDict[tuple[str, int], list[dict[str, Any]]] = OrderedDict()
        self._passed: OrderedDict[tuple[str, int], rules.TournamentState] = OrderedDict()

    @classmethod
    def of(cls, matches: Matches, players: PlayerStore) -> Tournaments:
        """The tournaments of ``matches``' stores (its Redis, its keys and durability)."""
        stores = matches.stores
        redis_client = stores.repository.redis
        store = TournamentStore(
            redis_client, stores.keys, stores.settings.durability, stores.settings.replica_wait_ms
        )
        return cls(matches, players, store)

    # -- the log ----------------------------------------------------------------------------------------------

    def create(self, new: NewTournament) -> rules.TournamentState:
        """A new tournament's log, its seed drawn now and sealed: InvalidOptions for settings no match or
        tournament could have, TooManyOpen past the platform's day's share."""
        if new.kind not in rules.KINDS:
            raise InvalidOptions("kind", f"a tournament is one of {', '.join(rules.KINDS)}")
        if new.game not in GAMES:
            raise InvalidOptions("game", f"unknown game {new.game!r}; GET /v1/games lists them")
        size = new.players_per_match
        resolved = lifecycle.check_options(new.game, dict(new.options), size)
        if new.kind == "swiss" and not new.rounds:
            raise InvalidOptions("rounds", "a Swiss plays the rounds it is created with: give them")
        if new.kind == "round_robin" and new.rounds is not None:
            raise InvalidOptions("rounds", "a round robin plays as many rounds as its schedule: give none")
        if new.kind in rules.ELIMINATION and new.rounds is not None:
            raise InvalidOptions("rounds", "a knockout plays until its bracket has a champion: give none")
        if new.kind in rules.ELIMINATION and size != 2:
            raise InvalidOptions("players_per_match", "a knockout's meetings are of two players: give 2")
        if new.kind == "arena" and (new.rounds is not None or size != 2):
            raise InvalidOptions("kind", "an arena pairs two players a game, over its window: no rounds")
        if (new.kind == "arena") != (new.duration_minutes is not None):
            raise InvalidOptions(
                "duration_minutes", "an arena, and only an arena, has a window: give its minutes"
            )
        if new.duration_minutes is not None and not 1 <= new.duration_minutes <= rules.MAX_ARENA_MINUTES:
            raise InvalidOptions("duration_minutes", f"from 1 to {rules.MAX_ARENA_MINUTES} minutes")
        if new.knockout_draws is not None and new.kind not in rules.ELIMINATION:
            raise InvalidOptions("knockout_draws", "only a knockout's meetings need a winner: give none")
        if new.knockout_draws is not None and new.knockout_draws not in rules.KNOCKOUT_DRAWS:
            raise InvalidOptions("knockout_draws", f"one of {', '.join(rules.KNOCKOUT_DRAWS)}")
        self._check_schedule(new)
        refusal = shown.name_refusal(new.name)
        if refusal:
            raise InvalidOptions("name", refusal)
        if self.store.created_today(new.platform) >= TOURNAMENTS_PER_DAY:
            raise TooManyOpen(
                "tournament",
                TOURNAMENTS_PER_DAY,
                f"the platform created {TOURNAMENTS_PER_DAY} tournaments in the last day, as many as it may",
            )
        tournament_id = uuid.uuid4().hex
        seed = secrets.token_hex(16)
        data = {
            "chain": rules.TOURNAMENT_CHAIN,
            "tournament": tournament_id,
            "platform": new.platform,
            "name": new.name,
            "kind": new.kind,
            "game": new.game,
            "options": resolved,
            "players_per_match": size,
            "rounds": new.rounds,
            "rated": new.rated,
            "bots_allowed": new.bots_allowed,
            "max_players": rules.most_players(new.kind, size, new.max_players),
            "seed_commitment": rules.seed_commitment(seed),
        }
        if new.kind == "arena":
            data["duration_minutes"] = new.duration_minutes
        if new.kind in rules.ELIMINATION:
            data["knockout_draws"] = new.knockout_draws or "higher_seed"
        if new.schedule is not None:
            data["schedule"] = new.schedule
        sealed = self.server_key.seal(seed.encode(), f"tournament:{tournament_id}".encode())
        entry = Recorded(1, "tournament_created", None, data, now_at())
        self.store.create(tournament_id, new.platform, entry, sealed)
        state = self.load(tournament_id)
        self._schedule(state, state)
        return state

    @staticmethod
    def _check_schedule(new: NewTournament) -> None:
        """InvalidOptions for a schedule no tournament director would mean: a first round in the past or
        more than ``rules.MAX_LEAD_DAYS`` ahead, a pause out of range, rounds spaced in an arena."""
        if new.round_interval is not None and new.kind == "arena":
            raise InvalidOptions(
                "round_interval", "an arena pairs its players as their games end: it has no rounds to space"
            )
        if new.round_interval is not None and not 0 <= new.round_interval <= rules.MAX_ROUND_INTERVAL:
            raise InvalidOptions("round_interval", f"from 0 to {rules.MAX_ROUND_INTERVAL} seconds (a week)")
        if new.starts_at is None:
            return
        try:
            starts = rules.epoch_s(new.starts_at)
        except ValueError:
            raise InvalidOptions("starts_at", "a time in UTC, YYYY-MM-DDTHH:MM:SS") from None
        now = now_at()
        if starts <= rules.epoch_s(now):
            raise InvalidOptions("starts_at", "the first round must start later than now")
        if starts > rules.epoch_s(now) + rules.MAX_LEAD_DAYS * 86400:
            raise InvalidOptions("starts_at", f"at most {rules.MAX_LEAD_DAYS} days ahead")

    def load(self, tournament_id: str) -> rules.TournamentState:
        """The tournament as its log leaves it; NotFound for none. The state this process folded last is
        carried on with the entries appended since, if they follow from it in the chain (else folded anew)."""
        if len(tournament_id) != 32:
            raise NotFound("tournament", f"no tournament {tournament_id!r}")
        known = self._states.get(tournament_id)
        state: rules.TournamentState | None = None
        newer = self.store.read_since(tournament_id, known.version, known.head_hash) if known else None
        if known is not None and newer is not None:
            try:
                state = known
                passed = []
                for entry in newer:
                    state = rules.apply(state, entry)
                    passed.append(state)
                verify_chain(newer, known.head_hash)
                self._pass(passed)
            except (BrokenChain, TournamentRefused):
                state = None  # not the log that state was folded from (restored, replaced): fold it whole
        if state is None:
            entries = self.store.read(tournament_id)
            if not entries:
                raise NotFound("tournament", f"no tournament {tournament_id!r}")
            state = rules.fold(entries)
        self._states[tournament_id] = state
        self._states.move_to_end(tournament_id)
        while len(self._states) > KEPT_STATES:
            self._states.popitem(last=False)
        return state

    def owned(self, platform: str, tournament_id: str) -> rules.TournamentState:
        """The tournament, if ``platform`` created it: NotFound otherwise (another's is not told apart)."""
        state = self.load(tournament_id)
        if state.platform != platform:
            raise NotFound("tournament", f"no tournament {tournament_id!r} of this platform")
        return state

    def checkpoint(self, tournament_id: str) -> dict[str, Any]:
        """The tournament's version and head hash, signed with the server's key (as a match's checkpoint):
        what proves an exported log is the one this server holds."""
        state = self.load(tournament_id)
        signed = {"tournament": state.id, "version": state.version, "hash": state.head_hash}
        return log_views.signed_head(self.server_key, signed)

    def standings_at(self, tournament_id: str, version: int) -> list[dict[str, Any]]:
        """The standings as anyone sees them once the log is at ``version`` (``standings``), from the state
        this process keeps, else folded to that version (the log moved on since it was read)."""
        state = self.load(tournament_id)
        rows = self._standings.get((tournament_id, version))
        if rows is not None:
            return rows
        if state.version != version:
            passed = self._passed.get((tournament_id, version))
            state = passed if passed is not None else rules.fold(self.store.read(tournament_id, 0, version))
        return self.standings(state)

    def _pass(self, states: list[rules.TournamentState]) -> None:
        """Keep the states a load passed through on its way to the head (``STATES_PASSED``)."""
        for state in states:
            self._passed[(state.id, state.version)] = state
        while len(self._passed) > STATES_PASSED:
            self._passed.popitem(last=False)

    def standings(self, state: rules.TournamentState) -> list[dict[str, Any]]:
        """The standings as anyone sees them in ``state`` (``rules.shown_standings``): computed once per
        version in this process, however many read them (a thousand players' take a tenth of a second)."""
        key = (state.id, state.version)
        rows = self._standings.get(key)
        if rows is None:
            rows = rules.shown_standings(state)
            self._standings[key] = rows
            while len(self._standings) > STANDINGS_KEPT:
                self._standings.popitem(last=False)
        return rows

    def log(self, tournament_id: str, after: int, limit: int) -> tuple[list[Recorded], int]:
        """A page of the log's entries after version ``after``, and the log's version."""
        version = self.store.version(tournament_id) if len(tournament_id) == 32 else 0
        if not version:
            raise NotFound("tournament", f"no tournament {tournament_id!r}")
        return self.store.read(tournament_id, after, limit), version

    def _seed(self, tournament_id: str) -> str:
        sealed = self.store.sealed_seed(tournament_id)
        assert sealed is not None, "a tournament's seed is kept beside its log"
        return self.server_key.open(sealed, f"tournament:{tournament_id}".encode()).decode()

    def _append(self, state: rules.TournamentState, entries: list[tuple[str, dict[str, Any]]]) -> None:
        records = []
        for offset, (kind, data) in enumerate(entries, start=1):
            records.append(Recorded(state.version + offset, kind, None, data, now_at()))
        self.store.append(state.id, state.version, state.head_hash, records)
        after = None  # folded only when a schedule, an arena's window or a webhook needs it
        if state.starts_at is not None or state.round_interval is not None or state.kind == "arena":
            after = _applied(state, records)
            self._schedule(state, after)
        self._push(state, records, after)

    def _schedule(self, before: rules.TournamentState, after: rules.TournamentState) -> None:
        """The job that starts the next round at its time, if the schedule has it due (a time passed: now,
        and a round that could not be paired then is tried again at each append, a registration), and the
        one that closes an arena's window, set as the window opens."""
        jobs = self.matches.stores.jobs
        due = rules.next_round_at(after)
        if due is not None:
            jobs.enqueue_round_start(after.id, len(after.played) + 1, rules.epoch_s(due))
        if before.closes is None and after.closes is not None:
            jobs.enqueue_window_close(after.id, rules.epoch_s(after.closes))

    def _push(
        self, state: rules.TournamentState, records: list[Recorded], after: rules.TournamentState | None
    ) -> None:
        """The platform's webhooks that asked for them hear of the rounds started, the games finished and the
        end, with the standings after the append (``after``, if folded already; computed only if a webhook
        wants them)."""
        events = {rules.PUSHED[r.type] for r in records if r.type in rules.PUSHED}
        deliveries = Deliveries(self.matches.stores)
        hooks = deliveries.webhooks.of_platform(state.platform) if events and state.platform else []
        if not any(events & set(h["events"]) and h["status"] == "enabled" for h in hooks):
            return
        standings_now = self.standings(after or _applied(state, records))
        for record in records:
            if record.type in rules.PUSHED:
                assert state.platform is not None
                deliveries.deliver_event(
                    state.platform,
                    rules.PUSHED[record.type],
                    f"tournament-{state.id}-v{record.version}",
                    rules.pushed(record, standings_now, state.id),
                )

    # -- players ----------------------------------------------------------------------------------------------

    def register(
        self, platform: str, tournament_id: str, player: str, name: str | None, bot: str | None
    ) -> rules.TournamentState:
        """``player`` of the platform enters (a late entry in a Swiss under way); with ``bot``, a bot plays it."""
        state = self.owned(platform, tournament_id)
        if bot:
            check_bot(GAMES[state.game], bot, "")
        else:
            check_player(platform, player, "player")
        shown_name = name or player
        refusal = shown.name_refusal(shown_name)
        if refusal:
            raise InvalidOptions("name", f"{refusal} (the seat's name: give one)")
        rating = RATING_BASE
        if state.rated and not bot:
            pool = ratings.pool_of(state.game, state.options, state.size)
            known = self.players.rating(platform, pool, player)
            mu = (known or ratings.initial()).mu
            rating = round(RATING_BASE + POINTS_PER_MU * (mu - ratings.initial().mu), 1)
        data = {"player": player, "name": shown_name, "rating": rating, "bot": bot}
        return self._changed(tournament_id, "player_registered", data)

    def withdraw(self, platform: str, tournament_id: str, player: str) -> rules.TournamentState:
        """``player`` leaves: it is paired no more and keeps its place in the standings with what it scored."""
        self.owned(platform, tournament_id)
        return self._changed(tournament_id, "player_withdrew", {"player": player})

    def _changed(self, tournament_id: str, kind: str, data: dict[str, Any]) -> rules.TournamentState:
        with self.store.changing(tournament_id):
            state = self.load(tournament_id)
            rules.admissible(state, kind, data)
            self._append(state, [(kind, data)])
            return self.load(tournament_id)

    # -- rounds ------------------------------------------------------------------------------------------------

    def start_round(self, platform: str, tournament_id: str) -> rules.TournamentState:
        """The organiser starts the next round: its pairings decided from the log, a match created for each
        pod (bots on their players' seats), the round appended. TournamentRefused while a game of the round
        is not finished, after the last round, for a field too small to pair. An arena's first opens its
        window; a later one pairs its waiting players now (as taking in results does)."""
        before = self.owned(platform, tournament_id)
        after = self.record_results(tournament_id)
        if after.kind == "arena" and len(after.played) > len(before.played):
            return after  # an open arena paired its waiting players as it took in the results
        self._start(tournament_id, None, None)
        return self.record_results(tournament_id)

    def start_due_round(self, tournament_id: str, number: int) -> str:
        """The schedule starts round ``number`` (the job set for its time calls this): ``started``, exactly as
        the organiser's start would have it but for ``started_by``; ``moved on`` when that round is not the
        one due any more (the organiser, or another worker, started it); ``not yet`` before its time (a job
        set again for it); ``not started`` when it cannot start now (a field too small: a registration tries
        again)."""
        state = self.load(tournament_id)
        due = rules.next_round_at(state)
        if due is None or len(state.played) + 1 != number:
            return "moved on"
        if now_at() < due:
            self.matches.stores.jobs.enqueue_round_start(
                state.id, number, rules.epoch_s(due), int(time.time())
            )
            return "not yet"
        try:
            started = self._start(tournament_id, rules.SCHEDULE, number)
        except TournamentRefused:
            return "not started"
        self.record_results(tournament_id)
        return "started" if started else "moved on"

    def close_window(self, tournament_id: str) -> str:
        """An arena's window closes (the job set for ``closes`` calls this), doing with no read what the
        organiser's read would: ``finished`` when no game runs; ``closed`` when games still run (no more
        pairing, and the last one's result finishes it as it comes in); ``moved on`` when it had finished
        already (a read, or another worker, got there first); ``not yet`` before its time (a job set again)."""
        state = self.load(tournament_id)
        if state.finished or state.closes is None:
            return "moved on"
        if now_at() < state.closes:
            self.matches.stores.jobs.enqueue_window_close(
                state.id, rules.epoch_s(state.closes), int(time.time())
            )
            return "not yet"
        return "finished" if self.record_results(tournament_id).finished else "closed"

    def _start(self, tournament_id: str, started_by: str | None, number: int | None) -> bool:
        """The next round started under the tournament's lock (``number``: only if it is that round, else
        False); TournamentRefused when it cannot start."""
        with self.store.changing(tournament_id):
            state = self.load(tournament_id)
            if number is not None and len(state.played) + 1 != number:
                return False
            seed = self._seed(tournament_id)
            try:
                paired = rules.next_round(state, seed, now_at())
            except PairingRefused as refused:  # the field as it stands cannot be paired
                raise TournamentRefused("too_few_players", str(refused)) from refused
            if state.kind == "arena" and not paired.pods:
                raise TournamentRefused(
                    "too_few_players", "no two of the arena's waiting players can meet now"
                )
            self._open_round(state, paired, seed, started_by)
            return True

    def _open_round(
        self, state: rules.TournamentState, paired: Any, seed: str, started_by: str | None = None
    ) -> None:
        """A match created for each pod of ``paired`` (bots on their players' seats), the round appended;
        called with the tournament's lock held.

        Each match's id is derived from the seed, the round and the pod (``rules.match_ids``) and its seat
        tokens are kept sealed (``put_opening``) before any match is created: a start that fails midway is
        retried by creating only the matches missing, and the round is appended once. A match of an earlier
        try that the round, paired anew, no longer has is aborted, never left running."""
        number = len(state.played) + 1
        by_player = {e.player: e for e in state.entrants}
        ids = rules.match_ids(seed, state.id, number, paired.pods)
        tried = self._opening(state.id, number)
        planned = {
            match_id: tried.get(match_id) or [new_token() for _ in pod]
            for match_id, pod in zip(ids, paired.pods, strict=True)
        }
        sealed = self.server_key.seal(json.dumps(planned).encode(), f"tournament:{state.id}".encode())
        self.store.put_opening(state.id, number, base64.b64encode(sealed))
        for stale in tried.keys() - planned.keys():
            with suppress(MatchNotFound, MatchOver):
                self.matches.abort_while(stale, ROUND_PAIRED_ANEW)
        tokens = []
        options = asked_options(state.game, state.options, state.size)  # as a match is asked for them
        for match_id, pod in zip(ids, paired.pods, strict=True):
            entrants = [by_player[p] for p in pod]
            self.store.mark_match(match_id, state.id)
            created = self.matches.open_match(
                NewMatch(
                    state.game,
                    [e.name for e in entrants],
                    options,
                    platform=state.platform,
                    bots=[e.bot for e in entrants] if any(e.bot for e in entrants) else None,
                    player_ids=[None if e.bot else e.player for e in entrants] if state.rated else None,
                    match_id=match_id,
                    tokens=planned[match_id],
                    tournament={"id": state.id, "round": number},
                )
            )
            tokens.append(created.tokens)
        sealed = self.server_key.seal(json.dumps(tokens).encode(), f"tournament:{state.id}".encode())
        self.store.put_tokens(state.id, number, base64.b64encode(sealed))
        self._append(state, [("round_started", rules.round_started(number, paired, ids, started_by))])
        self.store.opened(state.id, number)

    def _opening(self, tournament_id: str, round_number: int) -> dict[str, list[str]]:
        """The match ids and seat tokens an earlier, failed try of the round's start planned (none: {})."""
        sealed = self.store.opening(tournament_id, round_number)
        if sealed is None:
            return {}
        opened = self.server_key.open(base64.b64decode(sealed), f"tournament:{tournament_id}".encode())
        return json.loads(opened)

    def tokens(self, tournament_id: str, round_number: int) -> list[list[str | None]]:
        """The seat tokens of each match of a round, in the round's order (None: a bot's seat)."""
        sealed = self.store.tokens(tournament_id, round_number)
        if sealed is None:
            return []
        opened = self.server_key.open(base64.b64decode(sealed), f"tournament:{tournament_id}".encode())
        return json.loads(opened)

    def record_results(self, tournament_id: str) -> rules.TournamentState:
        """Every match of the current round that has ended comes into the tournament (its recorded result's
        ranks; a match ended but not scored yet is scored now), and the tournament finishes after its last
        round's last result, its seed revealed and its standings written. An arena's waiting players are
        then paired, while its window is open, and it finishes once the window has closed and no game runs."""
        state = self._take_results(tournament_id)
        if state.kind != "arena" or state.finished or state.closes is None:
            return state
        with self.store.changing(tournament_id):
            state = self.load(tournament_id)
            seed, now = self._seed(tournament_id), now_at()
            if rules.is_over(state, seed, now):
                self._append(state, [("tournament_finished", rules.finished_entry(state, seed, now))])
            elif state.closes is not None and now < state.closes and len(rules.waiting(state)) >= 2:
                paired = rules.next_round(state, seed, now)
                if paired.pods:
                    self._open_round(state, paired, seed)
        return self.load(tournament_id)

    def _take_results(self, tournament_id: str) -> rules.TournamentState:
        state = self.load(tournament_id)
        if state.finished or state.current is None:
            return state
        rounds = state.played if state.kind == "arena" else state.played[-1:]
        waiting = [p for r in rounds for p in r.pairings if p.ranks is None]
        ended: list[tuple[str, list[int]]] = []
        for pairing in waiting:
            match = self.matches.load(pairing.match)
            if not match.finished:
                continue
            result = match.result or Scoring(self.matches.stores).record_result(pairing.match)
            ended.append((pairing.match, list(result["ranks"])))
        if waiting and not ended:
            return state
        for _ in range(5):
            with self.store.changing(tournament_id):
                state = self.load(tournament_id)
                if state.finished or state.current is None:
                    return state
                entries: list[tuple[str, dict[str, Any]]] = []
                after = state
                for match_id, ranks in ended:
                    recorded = after.match_of(match_id)
                    if recorded is None or recorded.ranks is not None:
                        continue
                    data = {"round": after.round_of(match_id), "match": match_id, "ranks": ranks}
                    entries.append(("game_finished", data))
                    after = rules.apply(after, Recorded(after.version + 1, "game_finished", None, data, ""))
                seed = self._seed(tournament_id)
                if after.kind != "arena" and rules.is_over(after, seed):
                    entries.append(("tournament_finished", rules.finished_entry(after, seed)))
                if not entries:
                    return state
                try:
                    self._append(state, entries)
                except VersionConflict:
                    continue
                return self.load(tournament_id)
        raise TournamentRefused("round_in_play", "the tournament's log kept moving: ask again")

    def tournament_of(self, match_id: str) -> str | None:
        return self.store.tournament_of(match_id)


def _applied(state: rules.TournamentState, records: list[Recorded]) -> rules.TournamentState:
    """``state`` with the ``records`` just appended to it."""
    for record in records:
        state = rules.apply(state, record)
    return state
