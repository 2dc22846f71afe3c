"""The matchlog application: creating matches, loading their state, and turning actions into events.

Everything here is a thin sequence of (read log -> ask the engine -> append); the rules live in the
engines and the persistence in ``events``. The API and the workers call the same methods.

Loading state never replays a match from the start once it has a snapshot: ``load`` starts from the
newest state this process already holds or from the nearest snapshot, reads only the entries after
it, and leaves a snapshot behind every ``snapshot_every`` versions it folds past.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import jsonschema
import redis

from service import packs, replay
from service.auth import new_token, token_hash
from service.config import Settings
from service.events import EventStore, Recorded, Remember, VersionConflict
from service.games import GAMES
from service.games.protocol import Game, IllegalAction, InvalidOptions
from service.replay import MatchState
from service.snapshots import Snapshots


class MatchNotFound(Exception):
    pass


class VersionNotFound(Exception):
    def __init__(self, current_version: int):
        super().__init__(f"the match has versions 1 to {current_version}")
        self.current_version = current_version


class IdempotencyKeyReused(Exception):
    pass


class IllegalRecordMove(Exception):
    """Move ``number`` (1-based) of an imported game record breaks a rule."""

    def __init__(self, number: int, refusal: IllegalAction):
        super().__init__(f"move {number}: {refusal.message}")
        self.number = number
        self.refusal = refusal


class _Lru:
    """A small thread-safe LRU map; values are immutable, so sharing them is safe."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str):
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: str, value) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


@dataclass(frozen=True)
class _Meta:
    """What is fixed at creation and kept out of the log: the secret seed and the token hashes."""

    game_id: str
    seed: str
    seat_hashes: list[str]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# JSON Schema counts 4.0 as an integer; an engine slicing or indexing with it would fail at play
# time, long after the match was accepted. Options that are integers must be sent as integers.
_OptionsValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)),
)


def check_options(game_id: str, options: dict[str, Any], players: int) -> dict[str, Any]:
    """The resolved options of a new match, or InvalidOptions naming the field at fault."""
    game = GAMES.get(game_id)
    if game is None:
        raise InvalidOptions("game", f"unknown game {game_id!r}; GET /v1/games lists them")
    if players not in game.info.counts():
        raise InvalidOptions("players", f"{game.info.name} is for {game.info.counts()} players, not {players}")
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


class Matches:
    def __init__(self, redis_client: redis.Redis, settings: Settings | None = None, cache_size: int = 2048):
        self.settings = settings or Settings()
        self.redis = redis_client
        self.store = EventStore(redis_client, self.settings.namespace)
        self.snapshots = Snapshots(redis_client, lambda m: self.store.key(m, "snapshots"),
                                   self.settings.snapshot_every)
        self._heads = _Lru(cache_size)  # match id -> newest MatchState this process has seen
        self._metas = _Lru(cache_size)

    # -- creation ---------------------------------------------------------------------------

    def create(self, game_id: str, players: list[str], options: dict[str, Any] | None = None,
               seed: str | None = None, actions: list[dict[str, Any]] = ()) -> tuple[str, MatchState, list[str]]:
        """A new match: its id, its latest state and one token per seat (shown only now).

        ``actions`` (an imported game record) are played through the rules in order, each by the
        seat to act; the first illegal one raises IllegalRecordMove and nothing is stored."""
        resolved = check_options(game_id, options or {}, len(players))
        game = GAMES[game_id]
        content = packs.load(game, resolved["pack"], self.settings.packs_dir, resolved) if packs.uses_packs(game) else None
        seed = seed if seed is not None else secrets.token_hex(16)
        created = replay.created_event(game_id, resolved, players, seed, content)
        at = now()
        entries = [Recorded(1, created["type"], None, created["data"], at)]
        state = replay.start(entries[0], seed)
        if state.finished:  # a game can be over before anyone acts (a first player who cannot move)
            entries += self._entries_for(state, [], at, seed)
            state = replay.fold(state, entries[1:])
        for number, action in enumerate(actions, start=1):
            to_act = game.to_act(state.game)
            try:
                if not to_act:
                    raise IllegalAction("game_over", "the game is already over")
                played = self._entries_for(state, game.play(state.game, to_act[0], action), at, seed)
            except IllegalAction as error:
                raise IllegalRecordMove(number, error) from error
            state = replay.fold(state, played)
            entries += played
        match_id = uuid.uuid4().hex
        tokens = [new_token() for _ in players]
        meta = {"game": game_id, "seed": seed}
        meta.update({f"seat:{i}": token_hash(t) for i, t in enumerate(tokens)})
        # The meta hash goes first: a log without its meta would be a match nobody can play, while
        # meta without a log (a crash in between) is invisible and harmless.
        self.redis.hset(self.store.key(match_id, "meta"), mapping=meta)
        self.store.append(match_id, 0, [e.event() for e in entries], at)
        self._advance(match_id, replay.start(entries[0], seed), entries[1:], remember=True)
        return match_id, state, tokens

    @staticmethod
    def _entries_for(state: MatchState, events: list[dict[str, Any]], at: str, seed: str) -> list[Recorded]:
        """The log entries an action's events become; when they end the game, the seed is revealed
        in the same step, so anyone can re-run the match from the log."""
        entries = [Recorded(state.version + i, e["type"], e.get("seat"), e["data"], at)
                   for i, e in enumerate(events, start=1)]
        ended = replay.fold(state, entries)
        if ended.finished:
            entries.append(Recorded(ended.version + 1, "seed_revealed", None, {"seed": seed}, at))
        return entries

    # -- secrets kept beside the log -----------------------------------------------------------

    def _meta(self, match_id: str) -> _Meta:
        meta = self._metas.get(match_id)
        if meta is None:
            raw = self.redis.hgetall(self.store.key(match_id, "meta"))
            if not raw:
                raise MatchNotFound(match_id)
            fields = {k.decode(): v.decode() for k, v in raw.items()}
            seats = sorted((int(k.split(":")[1]), v) for k, v in fields.items() if k.startswith("seat:"))
            meta = _Meta(game_id=fields["game"], seed=fields["seed"], seat_hashes=[h for _, h in seats])
            self._metas.put(match_id, meta)
        return meta

    def seat_hashes(self, match_id: str) -> list[str]:
        return self._meta(match_id).seat_hashes

    def engine_of(self, match_id: str) -> Game:
        return GAMES[self._meta(match_id).game_id]

    # -- reading state ----------------------------------------------------------------------------

    def load(self, match_id: str, version: int | None = None) -> MatchState:
        """The match at ``version`` (the latest when None)."""
        head = self._heads.get(match_id)
        if head is not None and (version is None or version >= head.version):
            if version == head.version:
                return head
            tail = self.store.read(match_id, after=head.version, until=version)
            if version is not None and head.version + len(tail) < version:
                raise VersionNotFound(head.version + len(tail))
            return self._advance(match_id, head, tail, remember=True)

        key = self.snapshots.key(match_id)
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.xlen(self.store.key(match_id, "log"))
            pipe.hkeys(key)
            current, snapshot_versions = pipe.execute()
        if current == 0:
            raise MatchNotFound(match_id)
        target = current if version is None else version
        if not 1 <= target <= current:
            raise VersionNotFound(current)
        base_version = self.snapshots.best(snapshot_versions, target)
        base = self.snapshots.get(match_id, base_version) if base_version else None
        if base is None:
            entries = self.store.read(match_id, after=0, until=target)
            base = replay.start(entries[0], self._meta(match_id).seed)
            entries = entries[1:]
        else:
            entries = self.store.read(match_id, after=base.version, until=target)
        return self._advance(match_id, base, entries, remember=version is None or version == current)

    def _advance(self, match_id: str, state: MatchState, entries: list[Recorded], remember: bool) -> MatchState:
        """Fold ``entries`` (already in the log) into ``state``, keeping the snapshots that fall due."""
        due = []
        for entry in entries:
            state = replay.advance(state, entry)
            if self.snapshots.due(state.version):
                due.append(state)
        self.snapshots.save(match_id, due)
        if remember:
            head = self._heads.get(match_id)
            if head is None or head.version < state.version:
                self._heads.put(match_id, state)
        return state

    def events(self, match_id: str, after: int, limit: int) -> tuple[int, list[Recorded]]:
        current = self.store.version(match_id)
        if current == 0:
            raise MatchNotFound(match_id)
        return current, self.store.read(match_id, after=after, limit=limit)

    # -- acting -----------------------------------------------------------------------------------

    def submit(self, match_id: str, seat: int, expected_version: int, action: dict[str, Any],
               idempotency_key: str | None = None) -> dict[str, Any]:
        """Play ``action`` for ``seat`` if the match is still at ``expected_version``.

        Returns the answer body ``{version, events}`` (events as ``seat`` may see them). Raises
        VersionConflict, IllegalAction, or IdempotencyKeyReused (same key, different request)."""
        fingerprint = hashlib.sha256(
            json.dumps([expected_version, action], sort_keys=True, separators=(",", ":")).encode()
        ).hexdigest()
        idem_key = self.store.key(match_id, f"idempotency:{seat}:{idempotency_key}") if idempotency_key else None
        try:
            return self._submit(match_id, seat, expected_version, action, idem_key, fingerprint)
        except VersionConflict:
            # a retry that raced its own first attempt and lost gets the first attempt's answer
            prior = self.redis.get(idem_key) if idem_key else None
            if prior is None:
                raise
            return self._replayed(prior.decode(), fingerprint)

    def _submit(self, match_id: str, seat: int, expected_version: int, action: dict[str, Any],
                idem_key: str | None, fingerprint: str) -> dict[str, Any]:
        if idem_key:
            prior = self.redis.get(idem_key)
            if prior is not None:
                return self._replayed(prior.decode(), fingerprint)
        # The state this process last saw is the true state at its version; if that is the version
        # the client expects, judge the action on it without reading the log: should the log have
        # moved on, the append refuses it anyway.
        state = self._heads.get(match_id)
        if state is None or state.version != expected_version:
            state = self.load(match_id)
            if expected_version != state.version:
                raise VersionConflict(state.version)
        engine = state.engine
        at = now()
        entries = self._entries_for(state, engine.play(state.game, seat, action), at, self._meta(match_id).seed)
        answer = {"version": state.version + len(entries),
                  "events": [self.entry_view(engine, e, seat) for e in entries]}
        remember = None
        if idem_key:
            remember = Remember(idem_key, json.dumps({"fingerprint": fingerprint, "answer": answer}),
                                self.settings.idempotency_ttl_s)
        _, prior = self.store.append(match_id, expected_version, [e.event() for e in entries], at, remember)
        if prior is not None:
            return self._replayed(prior, fingerprint)
        # only now that the entries are in the log may they reach the cache and the snapshots
        self._advance(match_id, state, entries, remember=True)
        return answer

    @staticmethod
    def _replayed(stored: str, fingerprint: str) -> dict[str, Any]:
        record = json.loads(stored)
        if record["fingerprint"] != fingerprint:
            raise IdempotencyKeyReused()
        return record["answer"]

    def record_result(self, match_id: str) -> dict[str, Any]:
        """Score the match. Once it is over, the result is appended as ``match_scored`` exactly once."""
        for _ in range(10):
            state = self.load(match_id)
            if state.result is not None:
                return state.result
            result = {"final": state.finished, **state.engine.scores(state.game)}
            if not state.finished:
                return result
            event = {"type": "match_scored", "seat": None, "data": result}
            try:
                at = now()
                self.store.append(match_id, state.version, [event], at)
            except VersionConflict:
                continue  # someone else appended (another scoring job?): look again
            self._advance(match_id, state, [Recorded(state.version + 1, event["type"], None, result, at)],
                          remember=True)
            return result
        raise RuntimeError(f"could not record the result of {match_id}: the log kept moving")

    # -- what a seat may see ---------------------------------------------------------------------

    @staticmethod
    def entry_view(engine: Game, entry: Recorded, seat: int | None) -> dict[str, Any]:
        """A log entry as ``seat`` may see it: the game's ``event_view`` is the only gate."""
        body = entry.as_dict()
        if entry.type not in replay.SHELL_EVENTS:
            seen = engine.event_view({"type": entry.type, "seat": entry.seat, "data": entry.data}, seat)
            body.update(type=seen["type"], seat=seen["seat"], data=seen["data"])
        return body

    def summary(self, match_id: str, state: MatchState) -> dict[str, Any]:
        body = {
            "id": match_id,
            "game": state.game_id,
            "status": "finished" if state.finished else "active",
            "version": state.version,
            "players": [{"seat": i, "name": name} for i, name in enumerate(state.players)],
            "options": state.options,
            "to_act": state.engine.to_act(state.game),
        }
        if state.result is not None:
            body["result"] = state.result
        return body


__all__ = ["Matches", "MatchNotFound", "VersionNotFound", "IdempotencyKeyReused", "IllegalAction",
           "InvalidOptions", "VersionConflict", "check_options"]
