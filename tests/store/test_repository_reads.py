"""Reading a long match costs what reading a short one does: a cold load reads the snapshot due at
its version directly (never the list of every snapshot kept), and a load that lands exactly on a
snapshot leaves the state cached as the head, like any other."""

from __future__ import annotations

from service.application.matches import Matches, NewMatch
from service.store.keys import Keys


def _grown(matches: Matches, version: int) -> str:
    match_id, state, _ = matches.create(
        NewMatch("blokus", ["purple", "white"], {"variant": "duo"}, undo="with_consent")
    )
    seat = state.to_act()[0]
    matches.submit(match_id, seat, state.version, state.legal_actions(seat)[0])
    state = matches.load(match_id)
    while state.version < version:  # asked and refused, again and again: one entry each
        if state.undo_request is None:
            matches.undo(match_id, seat)
        else:
            matches.answer_undo(match_id, 1 - seat, False)
        state = matches.load(match_id)
    return match_id


class _Counting:
    """A Redis client that counts HKEYS calls (pipelines included) and passes everything on."""

    def __init__(self, inner):
        self.inner = inner
        self.hkeys_calls = 0

    def hkeys(self, *args, **kwargs):
        self.hkeys_calls += 1
        return self.inner.hkeys(*args, **kwargs)

    def pipeline(self, *args, **kwargs):
        pipe = self.inner.pipeline(*args, **kwargs)
        queue = pipe.hkeys

        def hkeys(*a, **k):
            self.hkeys_calls += 1
            return queue(*a, **k)

        pipe.hkeys = hkeys
        return pipe

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_a_cold_load_reads_the_due_snapshot_directly(fake_redis, settings):
    match_id = _grown(Matches(fake_redis, settings), 16 * 7 + 5)
    counting = _Counting(fake_redis)
    fresh = Matches(counting, settings)  # a new process: nothing cached
    state = fresh.load(match_id)
    assert state.version == 16 * 7 + 5
    assert counting.hkeys_calls == 0
    assert state == Matches(fake_redis, settings).load(match_id)


def test_a_load_that_lands_on_a_snapshot_caches_the_head(fake_redis, settings):
    match_id = _grown(Matches(fake_redis, settings), 16 * 4)
    fresh = Matches(fake_redis, settings)
    assert fresh.repository.head(match_id) is None  # the cache itself
    state = fresh.load(match_id)
    assert state.version == 64
    assert fresh.repository.head(match_id) == state


def test_a_compacted_match_still_loads_from_its_one_snapshot(fake_redis, settings):
    matches = Matches(fake_redis, settings)
    match_id = _grown(matches, 16 * 3 + 3)
    matches.repository.compact(match_id)  # keeps one snapshot, at a version no interval names
    assert fake_redis.hkeys(Keys(settings.namespace).snapshots(match_id)) == [b"51"]
    counting = _Counting(fake_redis)
    assert Matches(counting, settings).load(match_id).version == 51
    assert counting.hkeys_calls == 1  # the due snapshot (48) is gone: the list says which one is left


def test_a_scored_match_folded_again_keeps_its_one_snapshot(client, fake_redis, settings):
    """A snapshot taken by an earlier fold (another rules or shell version) is not used: the match is folded
    from its log again. A scored, compacted match must not grow its snapshots back by the way."""
    import random

    from service.store import snapshots
    from tests.helpers import create, play_random_game, score

    match_id, tokens = create(client, players=[{"name": "a"}, {"name": "b"}])
    play_random_game(client, match_id, tokens, random.Random(4))
    score(client, fake_redis, settings, match_id, tokens[0])
    matches = Matches(fake_redis, settings)
    matches.repository.compact(match_id)
    key = Keys(settings.namespace).snapshots(match_id)
    ((version, raw),) = fake_redis.hgetall(key).items()
    stored = snapshots.decode(raw)
    fake_redis.hset(key, version, snapshots.encode({**stored, "rules": "blokus@0+shell1"}))  # an older fold's
    state = Matches(fake_redis, settings).load(match_id)
    assert state.result is not None and fake_redis.hkeys(key) == [version]
    assert snapshots.decode(fake_redis.hget(key, version))["rules"].endswith(
        "+shell2"
    )  # taken again, in its place


def test_an_old_read_of_a_compacted_match_leaves_its_snapshots_sparse(client, fake_redis, settings):
    """Reading an early version of a scored, compacted match folds it from the log's start (no snapshot at or
    below it is kept) and writes none back: the match keeps its final state only, as compaction left it."""
    import random

    from service.domain.chain import Recorded
    from tests.helpers import create, full_log, play_random_game, score

    match_id, tokens = create(client, players=[{"name": "a"}, {"name": "b"}])
    play_random_game(client, match_id, tokens, random.Random(4))
    score(client, fake_redis, settings, match_id, tokens[0])
    old = Matches(fake_redis, settings).load(match_id).version - 5
    assert old > 2 * settings.snapshot_every  # a version with snapshots due below it
    before = Matches(fake_redis, settings).load(match_id, old)  # the match at that version, uncompacted
    Matches(fake_redis, settings).repository.compact(match_id)
    key = Keys(settings.namespace).snapshots(match_id)
    kept = fake_redis.hkeys(key)
    assert len(kept) == 1

    state = Matches(fake_redis, settings).load(match_id, old)  # a new process: nothing cached

    assert fake_redis.hkeys(key) == kept
    assert state == before
    assert state.head_hash == Recorded.from_dict(full_log(client, match_id)[old - 1]).hash


def _undated(fake_redis, keys: Keys, match_id: str) -> int:
    """Rewrite the match's snapshots as a release before states kept their times wrote them; returns how many."""
    from service.store import snapshots

    kept = fake_redis.hgetall(keys.snapshots(match_id))
    for version, raw in kept.items():
        stored = snapshots.decode(raw)
        for name in ("created_at", "updated_at", "ended_at"):
            del stored["state"][name]
        fake_redis.hset(keys.snapshots(match_id), version, snapshots.encode(stored))
    return len(kept)


def test_a_snapshot_from_before_states_kept_times_is_dated_from_the_log_once(fake_redis, settings):
    from service.application.scoring import Scoring

    matches = Matches(fake_redis, settings)
    running = _grown(matches, 16 * 2 + 3)
    ended = _grown(matches, 16 + 2)
    matches.abort(ended, "enough")
    Scoring(matches.stores).record_result(ended)
    matches.repository.compact(ended)  # its final state only: the one a finished match is read from
    keys = Keys(settings.namespace)
    for match_id in (running, ended):
        _, log = matches.repository.read(match_id)
        truth = matches.load(match_id)
        assert (truth.created_at, truth.updated_at) == (log[0].at, log[-1].at)
        assert truth.ended_at == next((e.at for e in log if e.type == "seed_revealed"), None)
        assert _undated(fake_redis, keys, match_id) > 0
        for _ in range(2):
            fresh = Matches(fake_redis, settings).load(match_id)  # a new process: nothing cached
            assert fresh == truth
        stored = Matches(fake_redis, settings).repository.snapshots
        versions = [int(v) for v in fake_redis.hkeys(keys.snapshots(match_id))]
        assert stored.get(match_id, max(versions)).created_at == log[0].at  # kept dated: read once
    assert Matches(fake_redis, settings).load(ended).ended_at is not None


class _MoveAfterPipeline:
    """A Redis client on which, right after the next pipeline runs, another process makes a move."""

    def __init__(self, inner, move):
        self.inner = inner
        self.move = move

    def pipeline(self, *args, **kwargs):
        pipe = self.inner.pipeline(*args, **kwargs)
        execute = pipe.execute

        def executed(*a, **k):
            answer = execute(*a, **k)
            if self.move is not None:
                move, self.move = self.move, None
                move()
            return answer

        pipe.execute = executed
        return pipe

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_a_read_gives_no_entry_past_the_version_it_answers(fake_redis, settings):
    """A move appended while a page is read waits for the next page: a client that asks again after the
    version it was given must neither see an entry twice nor miss one (the MCTS example did both)."""
    other = Matches(fake_redis, settings)
    match_id, state, _ = other.create(NewMatch("blokus", ["purple", "white"], {"variant": "duo"}))
    seat = state.to_act()[0]

    def move() -> None:
        other.submit(match_id, seat, state.version, state.legal_actions(seat)[0])

    reader = Matches(_MoveAfterPipeline(fake_redis, move), settings)
    current, entries = reader.repository.read(match_id)
    assert [e.version for e in entries] == list(range(1, current + 1))
    later, rest = reader.repository.read(match_id, after=current)
    assert later > current
    assert [e.version for e in rest] == list(range(current + 1, later + 1))
