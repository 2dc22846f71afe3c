"""A listing's rows come from each match's listing summary, which every append writes beside the log in its own
step: the rows are the ones a fold of the match would give (every game, every status, every kind of append),
a page folds no match, and a match without a summary (or with one behind its log) is listed right all the
same, its summary made once."""

from __future__ import annotations

import json
import random

import pytest

from service.application import listings
from service.application.matches import NewMatch
from service.application.scoring import Scoring
from service.application.seats import Seats
from service.domain import projections
from service.games import GAMES
from service.http import fastload, schemas
from service.store import rows
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.helpers import bearer, create

AT = "2030-01-01T00:00:00.000Z"


def _matches(client):
    return client.application.extensions["matchlog"]


def _kept(fake_redis, settings, match_id) -> dict | None:
    """The row the match's summary holds, its clocks as they stand at AT."""
    raw = fake_redis.get(Keys(settings.namespace, settings.feed_partitions).summary(match_id))
    kept = rows.read(raw) if raw else None
    return json.loads(kept.shown(AT)) if kept else None


def _as_json(value):
    return json.loads(json.dumps(value))


def _folded_row(matches, match_id) -> dict:
    return _as_json(projections.summary(match_id, matches.load(match_id), AT))


def _stored_row(fake_redis, settings, match_id) -> dict:
    kept = _kept(fake_redis, settings, match_id)
    assert kept is not None, f"no summary kept for {match_id}"
    return kept


def _play(matches, match_id, rng: random.Random, moves: int) -> None:
    for _ in range(moves):
        state = matches.load(match_id)
        if not state.to_act():
            return
        seat = state.to_act()[0]
        matches.submit(match_id, seat, state.version, rng.choice(state.legal_actions(seat)))


def _listed_rows(client, query: str = "") -> dict[str, dict]:
    rows, cursor = {}, None
    while True:
        answer = client.get(f"/v1/matches?limit=200{query}" + (f"&cursor={cursor}" if cursor else ""))
        assert answer.status_code == 200, answer.json
        rows.update({m["id"]: m for m in answer.json["matches"]})
        cursor = answer.json["next_cursor"]
        if cursor is None:
            return rows


def _without_clock_time(row: dict) -> dict:
    """A row with its clocks' ``as_of`` and time left dropped: a listing and a read are made at other times."""
    if "clock" in row:
        row = {**row, "clock": {k: v for k, v in row["clock"].items() if k not in ("as_of", "remaining_ms")}}
    return row


KINDS = ("open", "active", "moved", "aborted", "conceded", "clock", "clock, undo asked", "played out")


def _made(matches, game_id: str, kind: str, rng: random.Random) -> str:
    """A match of ``game_id`` in the state ``kind`` names (one of KINDS)."""
    players = ["ann", None] if kind == "open" else ["ann", "bob"]
    clock = {"initial_ms": 600_000, "increment_ms": 0, "on_timeout": "bot"} if "clock" in kind else None
    undo = "with_consent" if "undo" in kind else "none"
    match_id, _, _ = matches.create(NewMatch(game_id, players, clock=clock, undo=undo))
    if kind in ("moved", "clock", "conceded"):
        _play(matches, match_id, rng, rng.randint(1, 6))
    if kind == "clock, undo asked":
        _play(matches, match_id, rng, 1)
        state = matches.load(match_id)
        if state.in_play and state.last_action is not None:
            matches.undo(match_id, state.last_action["seat"])
    if kind == "aborted":
        matches.abort(match_id, "for the test")
    if kind == "conceded" and matches.load(match_id).in_play:
        matches.concede(match_id, matches.load(match_id).to_act()[0])
    if kind == "played out":
        _play(matches, match_id, rng, 400 if game_id != "blackout-hong-kong" else 30)
        if matches.load(match_id).finished:
            Scoring(matches.stores).record_result(match_id)
    return match_id


def _answered_before(app, body: dict) -> bytes:
    """The listing's answer as it was made before rows were kept encoded: the page's rows, decoded from their
    summaries, dumped by the schema's compiled dump and encoded whole by the app's JSON."""
    dumped = fastload.compiled_dump(schemas.LobbySchema())(body)
    assert dumped is not None and dumped == schemas.LobbySchema().dump(body)
    with app.app_context():
        return app.json.response(dumped).get_data()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_listing_answers_the_bytes_it_answered_before_on_random_matches_of_every_status(
    client, settings, game_id, monkeypatch
):
    matches = _matches(client)
    rng = random.Random(f"bytes {game_id}")
    made = [_made(matches, game_id, kind, rng) for kind in KINDS for _ in range(2)]
    monkeypatch.setattr("service.application.entry_time.now", lambda: AT)
    statuses = {_folded_row(matches, m)["status"] for m in made}
    assert {"open", "active", "aborted", "finished"} <= statuses
    for query in ["", "&order=newest", "&limit=3"] + [f"&status={s}" for s in sorted(statuses)]:
        cursor, pages = None, 0
        while True:
            answer = client.get(
                f"/v1/matches?game={game_id}{query}" + (f"&cursor={cursor}" if cursor else "")
            )
            assert answer.status_code == 200, answer.json
            listed = answer.json
            body = {
                "matches": [_folded_row(matches, row["id"]) for row in listed["matches"]],
                "next_cursor": listed["next_cursor"],
            }
            assert answer.get_data() == _answered_before(client.application, body), query
            cursor, pages = listed["next_cursor"], pages + 1
            if cursor is None:
                break
        assert pages > 1 or query != "&limit=3"


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_rows_kept_are_the_rows_a_fold_gives_on_random_matches_of_every_status(
    client, fake_redis, settings, game_id
):
    matches = _matches(client)
    rng = random.Random(game_id)
    made = []
    for kind in KINDS:
        match_id = _made(matches, game_id, kind, rng)
        made.append(match_id)
    statuses = set()
    for match_id in made:
        assert _stored_row(fake_redis, settings, match_id) == _folded_row(matches, match_id)
        statuses.add(_folded_row(matches, match_id)["status"])
    assert {"open", "active", "aborted"} <= statuses
    listed = _listed_rows(client)
    for match_id in made:  # over HTTP too: a listing's row is the match's own read, but for the time
        read = client.get(f"/v1/matches/{match_id}").json
        read.pop("analysis", None)
        assert _without_clock_time(listed[match_id]) == _without_clock_time(read)


def test_every_kind_of_append_writes_the_summary_of_the_state_it_leads_to(client, fake_redis, settings):
    matches = _matches(client)
    rng = random.Random(7)

    def current(match_id):
        assert _stored_row(fake_redis, settings, match_id) == _folded_row(matches, match_id)

    lobby, _, _ = matches.create(NewMatch("blokus", ["ann", None], undo="with_consent"))
    current(lobby)
    assert _kept(fake_redis, settings, lobby)["status"] == "open"
    Seats(matches).join(lobby, 1, "bob")  # the join, and the start it leads to
    current(lobby)
    assert _kept(fake_redis, settings, lobby)["status"] == "active"
    _play(matches, lobby, rng, 1)  # a move
    current(lobby)
    mover = 1 - matches.load(lobby).to_act()[0]
    matches.undo(lobby, mover)  # an undo asked for, waiting for consent
    current(lobby)
    assert "undo_request" in _kept(fake_redis, settings, lobby)
    matches.answer_undo(lobby, 1 - mover, False)
    current(lobby)
    Seats(matches).replace_seat(lobby, 0, bot="random")  # a seat handed to a bot
    current(lobby)
    assert _kept(fake_redis, settings, lobby)["players"][0]["bot"] == "random"
    matches.abort(lobby, "for the test")  # the end
    current(lobby)
    assert _kept(fake_redis, settings, lobby)["status"] == "aborted"

    small, _, _ = matches.create(
        NewMatch("block-block", ["ann", "bob"], {"board_size": [2, 2], "max_height": 1})
    )
    _play(matches, small, rng, 100)  # played out: the last move reveals the seed
    current(small)
    assert _kept(fake_redis, settings, small)["status"] == "finished"
    Scoring(matches.stores).record_result(small)  # scored
    current(small)
    assert _kept(fake_redis, settings, small)["result"] == matches.load(small).result


def test_a_page_of_200_folds_no_match(client, monkeypatch):
    matches = _matches(client)
    for i in range(200):
        matches.create(NewMatch(sorted(GAMES)[i % len(GAMES)], ["ann", "bob" if i % 3 else None]))
    fresh = type(matches)(matches.repository.redis, matches.settings)  # another worker: nothing cached
    loads = []
    load = fresh.load
    monkeypatch.setattr(fresh, "load", lambda *args, **kwargs: loads.append(args[0]) or load(*args, **kwargs))
    found, _ = listings.listed(fresh.stores.listings, None, None, None, None, 200)
    assert len(found) == 200 and loads == []
    opened, _ = listings.listed(fresh.stores.listings, None, None, "open", None, 200)
    assert len(opened) == 67 and loads == []


def test_a_match_without_a_summary_or_with_one_behind_its_log_is_listed_right_and_summarised_once(
    client, fake_redis, settings, monkeypatch
):
    matches = _matches(client)
    keys = Keys(settings.namespace, settings.feed_partitions)
    old, _, _ = matches.create(NewMatch("blokus", ["ann", "bob"]))
    behind, _, _ = matches.create(NewMatch("chock-a-block", ["ann", "bob"]))
    stale = fake_redis.get(keys.summary(behind))
    _play(matches, behind, random.Random(1), 2)
    fake_redis.set(keys.summary(behind), stale)  # as an append by an earlier version leaves it
    fake_redis.delete(keys.summary(old))  # as a match from before summaries has none
    loads = []
    load = matches.repository.load
    monkeypatch.setattr(
        matches.repository, "load", lambda *args, **kwargs: loads.append(args[0]) or load(*args, **kwargs)
    )
    rows = _listed_rows(client)
    assert sorted(loads) == sorted([old, behind])
    for match_id in (old, behind):
        assert _without_clock_time(rows[match_id]) == _without_clock_time(_folded_row(matches, match_id))
        assert _stored_row(fake_redis, settings, match_id) == _folded_row(matches, match_id)
    loads.clear()
    _listed_rows(client)
    assert loads == []  # made once


def test_migrate_keeps_a_summary_for_every_listed_match(client, fake_redis, settings):
    matches = _matches(client)
    keys = Keys(settings.namespace, settings.feed_partitions)
    ids = [matches.create(NewMatch("blokus", ["ann", "bob"]))[0] for _ in range(3)]
    for match_id in ids:
        fake_redis.delete(keys.summary(match_id))
    listings.index_listings(matches.stores)
    for match_id in ids:
        assert _stored_row(fake_redis, settings, match_id) == _folded_row(matches, match_id)


def test_a_summary_is_not_kept_over_an_append_that_got_in_first(client, fake_redis, settings):
    matches = _matches(client)
    keys = Keys(settings.namespace, settings.feed_partitions)
    match_id, state, _ = matches.create(NewMatch("blokus", ["ann", "bob"]))
    _play(matches, match_id, random.Random(2), 1)
    matches.stores.listings.keep_summary(match_id, state)  # a listing that folded the match before the move
    assert rows.read(fake_redis.get(keys.summary(match_id))).version == state.version + 1


def test_a_page_encodes_no_row_but_the_clocks_it_shows(client, monkeypatch):
    matches = _matches(client)
    for i in range(30):
        clock = {"initial_ms": 600_000, "increment_ms": 0, "on_timeout": "bot"} if i < 3 else None
        matches.create(NewMatch(sorted(GAMES)[i % len(GAMES)], ["ann", "bob"], clock=clock))
    encoded = []
    encode = rows.encoded
    monkeypatch.setattr(rows, "encoded", lambda value: encoded.append(value) or encode(value))
    answer = client.get("/v1/matches?limit=30")
    assert answer.status_code == 200 and len(answer.json["matches"]) == 30
    assert sorted(map(str, encoded)) == sorted(
        map(
            str,
            [row["clock"] for row in answer.json["matches"] if "clock" in row],
        )
    )


def test_a_platform_and_anyone_are_answered_the_same_rows_bytes(client, settings, fake_redis, monkeypatch):
    matches = _matches(client)
    platform, key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")
    made = [
        matches.create(
            NewMatch(game_id, ["ann", "bob"], platform=platform, public=True, player_ids=["p-ann", "p-bob"])
        )[0]
        for game_id in sorted(GAMES)
    ]
    monkeypatch.setattr("service.application.entry_time.now", lambda: AT)
    body = {"matches": [_folded_row(matches, m) for m in made], "next_cursor": None}
    before = _answered_before(client.application, body)
    assert b"p-ann" not in before  # a platform's player ids are not in a row
    for headers in ({}, bearer(key)):
        answer = client.get("/v1/matches", headers=headers)
        assert answer.status_code == 200 and answer.get_data() == before


def test_a_page_joined_from_its_records_is_the_page_of_its_rows_read_one_by_one():
    """``rows.joined`` (the records as one Redis's script returns them) cuts a page around its clocks as
    ``rows.page`` does from rows read one by one: clocks first, last, side by side and absent."""
    rng = random.Random("joined")
    for _ in range(200):
        records = [
            b'%d open blokus %s\n{"id":"m%d"' % (i, rows.ENCODING.encode(), i)
            + b"\n"
            + (
                b'{"initial_ms":%d,"remaining_ms":[5,5],"since":0,"running":[]}' % i
                if rng.random() < 0.4
                else b""
            )
            + b"\n}"
            for i in range(rng.randint(0, 6))
        ]
        found = [rows.read(record) for record in records]
        assert rows.joined(records) == rows.page(found)
        assert rows.joined(records).shown(AT) == b",".join(row.shown(AT) for row in found)


def test_a_page_s_cursor_is_written_as_before_and_an_old_cursor_still_pages_on(
    real_client, real_redis, settings
):
    """The page script reads the last score raw; the cursor is still ``repr`` of it as a float, so the cursors
    clients hold page on as they did."""
    made = [create(real_client)[0] for _ in range(5)]
    keys = Keys(settings.namespace, settings.feed_partitions)
    # scores whose text from Redis (%.17g: 1700000000001.0999) is not their repr (1700000000001.1)
    real_redis.zadd(keys.public_matches, {m: 1_700_000_000_000.1 + i for i, m in enumerate(made)})
    first = real_client.get("/v1/matches?limit=2").json
    assert first["next_cursor"] == "1700000000001.1"
    score = real_redis.zscore(keys.public_matches, first["matches"][-1]["id"])
    assert first["next_cursor"] == repr(score)
    rest = real_client.get(f"/v1/matches?limit=200&cursor={first['next_cursor']}").json
    assert [m["id"] for m in first["matches"] + rest["matches"]] == made
