"""``matchlog replay --checkpoint`` is right about every match and about the match it names: the genuine
log and checkpoint of a match pass the audit whichever way it ended, in every game (played out, resigned,
conceded, aborted by its creator, abandoned, timed out to a bot, forfeit on time), a finished match has no
seat to act, and a checkpoint of one match does not pass for another's. Each match is played through the
real app (fakeredis), its log exported by ``GET .../log`` and its checkpoint by ``GET .../checkpoint``."""

from __future__ import annotations

import dataclasses
import json
import random
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from service.application import entry_time
from service.application.abandonment import Abandonment
from service.application.bots import Bots
from service.application.scoring import Scoring
from service.cli import main, replay_log
from service.domain import clocks
from service.domain.chain import Recorded
from service.games import GAMES
from tests.helpers import PLAYERS, act, bearer, create, play_random_game, run_jobs

ALL_GAMES = sorted(GAMES)
TWO = PLAYERS[:2]


@pytest.fixture
def settings(settings):
    """The tests' settings with a short abandonment time: only ``end_abandoned`` (the worker's chore, which
    only the abandonment test runs) reads it."""
    return dataclasses.replace(settings, abandon_after_s=0.05)


def matchlog(client):
    return client.application.extensions["matchlog"]


def exported(client, match_id, tmp_path, name="match"):
    """The match's whole log (``GET .../log``) and a checkpoint of its head (``GET .../checkpoint``), in files."""
    log = client.get(f"/v1/matches/{match_id}/log")
    assert log.status_code == 200, log.json
    checkpoint = client.get(f"/v1/matches/{match_id}/checkpoint")
    assert checkpoint.status_code == 200, checkpoint.json
    log_path, checkpoint_path = tmp_path / f"{name}.jsonl", tmp_path / f"{name}-checkpoint.json"
    log_path.write_bytes(log.data)
    checkpoint_path.write_text(json.dumps(checkpoint.json))
    return str(log_path), str(checkpoint_path)


def audited(client, capsys, log_path, checkpoint_path):
    """``matchlog replay LOG --checkpoint CHECKPOINT --public-key KEY`` (the key pinned from the server):
    its exit status, its report (None when it printed none) and what it said on stderr."""
    key = client.get("/v1/signing-key").json["public_key"]
    code = replay_log(log_path, None, None, checkpoint_path, key)
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else None, err


def scored(client, fake_redis, settings, match_id):
    """The match ended, and its result recorded by the scoring job the worker asks for at the end."""
    app = matchlog(client)
    assert app.load(match_id).finished
    Scoring(app.stores).request_scoring(match_id)
    run_jobs(fake_redis, settings)
    assert app.load(match_id).result is not None


def _iso(ms: float) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _clocked(client, game, on_timeout):
    created = client.post(
        "/v1/matches",
        json={"game": game, "players": TWO, "clock": {"per_action_s": 30}, "on_timeout": on_timeout},
    )
    assert created.status_code == 201, created.json
    return created.json["id"]


def bots_play(client, fake_redis, settings, match_id):
    """What the worker does while a bot is to act: the rule worker asks for its move
    (``Matches.bots_to_move``) and the job plays it."""
    app = matchlog(client)
    while True:
        state = app.load(match_id)
        if not any(state.bot_of(seat) for seat in state.to_act()):
            return
        Bots(app).to_move(match_id, state)
        run_jobs(fake_redis, settings)


def _past_the_deadline(client, monkeypatch, match_id, clock_now):
    """The server's clock set past the running clock's deadline, and the deadline's check run (the clock's
    job, ``Clocks.check``): a seat times out."""
    app = matchlog(client)
    state = app.load(match_id)
    clock_now[0] = max(clock_now[0], clocks.deadline_ms(state.clock) + 1000)
    monkeypatch.setattr(entry_time, "now", lambda: _iso(clock_now[0]))
    assert app.clocks.check(match_id, state.version) == "timed out"


# -- each way a match ends, played through the test client: the match's id ------------------------------


def played_out(client, fake_redis, settings, game, monkeypatch):
    match_id, tokens = create(client, game, TWO)
    play_random_game(client, match_id, tokens, random.Random(f"{game} played out"))
    return match_id


def resigned(client, fake_redis, settings, game, monkeypatch):
    match_id, tokens = create(client, game, TWO)
    play_random_game(client, match_id, tokens, random.Random(f"{game} resigned"), max_actions=3)
    quitter = next(
        seat for seat in range(2) if seat not in client.get(f"/v1/matches/{match_id}").json["to_act"]
    )
    answer = act(
        client, match_id, tokens[quitter], matchlog(client).repository.version(match_id), {"type": "resign"}
    )
    assert answer.status_code == 201, answer.json
    return match_id


def conceded(client, fake_redis, settings, game, monkeypatch, seats=2):
    match_id, tokens = create(client, game, PLAYERS[:seats])
    rng = random.Random(f"{game} conceded by one of {seats}")
    play_random_game(client, match_id, tokens, rng, max_actions=2)
    quitter = client.get(f"/v1/matches/{match_id}").json["to_act"][0]
    answer = client.post(f"/v1/matches/{match_id}/concede", headers=bearer(tokens[quitter]))
    assert answer.status_code == 201, answer.json
    play_random_game(client, match_id, tokens, rng)  # with three seats the others play on
    return match_id


def conceded_by_one_of_three(client, fake_redis, settings, game, monkeypatch):
    return conceded(client, fake_redis, settings, game, monkeypatch, seats=3)


def aborted_by_its_creator(client, fake_redis, settings, game, monkeypatch):
    created = client.post("/v1/matches", json={"game": game, "players": TWO}).json
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    play_random_game(client, match_id, tokens, random.Random(f"{game} aborted"), max_actions=2)
    answer = client.post(
        f"/v1/matches/{match_id}/abort",
        json={"reason": "we stopped"},
        headers=bearer(created["creator_token"]),
    )
    assert answer.status_code == 200 and answer.json["status"] == "aborted", answer.json
    return match_id


def abandoned(client, fake_redis, settings, game, monkeypatch):
    match_id, tokens = create(client, game, TWO)
    play_random_game(client, match_id, tokens, random.Random(f"{game} abandoned"), max_actions=2)
    time.sleep(2 * settings.abandon_after_s)  # idle for longer than the setting says
    assert Abandonment(matchlog(client)).end_abandoned() == [match_id]
    return match_id


def timed_out_to_a_bot(client, fake_redis, settings, game, monkeypatch):
    """Both seats run out of time, one after the other, and their bots play the match out."""
    match_id = _clocked(client, game, "bot")
    clock_now = [time.time() * 1000]
    for _ in range(2):
        bots_play(client, fake_redis, settings, match_id)
        _past_the_deadline(client, monkeypatch, match_id, clock_now)
    bots_play(client, fake_redis, settings, match_id)
    assert client.get(f"/v1/matches/{match_id}").json["status"] == "finished"
    return match_id


def forfeit_on_time(client, fake_redis, settings, game, monkeypatch):
    match_id = _clocked(client, game, "forfeit")
    _past_the_deadline(client, monkeypatch, match_id, [0])
    return match_id


ENDINGS = [
    *((played_out, game) for game in ALL_GAMES),
    (resigned, "block-block"),  # the only game with a resignation
    *((conceded, game) for game in ALL_GAMES),
    *((conceded_by_one_of_three, game) for game in ALL_GAMES if GAMES[game].info.max_players >= 3),
    *((aborted_by_its_creator, game) for game in ALL_GAMES),
    *((abandoned, game) for game in ALL_GAMES),
    *((timed_out_to_a_bot, game) for game in ALL_GAMES),
    *((forfeit_on_time, game) for game in ALL_GAMES if "forfeit" in GAMES[game].timeout_actions),
]


@pytest.mark.parametrize(
    "ending,game", ENDINGS, ids=[f"{ending.__name__}-{game}" for ending, game in ENDINGS]
)
def test_a_genuine_log_and_checkpoint_pass_the_audit_however_the_match_ended(
    client, fake_redis, settings, capsys, tmp_path, monkeypatch, ending, game
):
    match_id = ending(client, fake_redis, settings, game, monkeypatch)
    scored(client, fake_redis, settings, match_id)
    code, report, err = audited(client, capsys, *exported(client, match_id, tmp_path))
    assert code == 0, (err, report)
    assert report["recorded_result_matches"] is True and report["status"] == "finished"
    assert report["to_act"] == []  # a finished match has no seat to act
    assert report["match"] == match_id and report["match_bound"] is True
    assert report["checkpoint_match_matches"] is True
    recorded = client.get(f"/v1/matches/{match_id}").json["result"]
    assert report["scores"] == recorded  # the result the server records is the one the audit computes


def test_a_checkpoint_of_another_match_does_not_pass_for_this_ones(
    client, fake_redis, settings, capsys, tmp_path, monkeypatch
):
    """Two matches with the same players, each ended by the other seat resigning: the log and checkpoint of
    match B pass as B's, never as A's, and a checkpoint of B presented with A's log fails."""
    a, b = (resigned(client, fake_redis, settings, "block-block", monkeypatch) for _ in range(2))
    for match_id in (a, b):
        scored(client, fake_redis, settings, match_id)
    a_log, a_checkpoint = exported(client, a, tmp_path, "a")
    b_log, b_checkpoint = exported(client, b, tmp_path, "b")
    for log, checkpoint, match_id in ((a_log, a_checkpoint, a), (b_log, b_checkpoint, b)):
        code, report, _ = audited(client, capsys, log, checkpoint)
        assert code == 0 and report["match"] == match_id  # each log says whose it is
    # and B's, presented as A's, is refused where the auditor says which match it must be
    key = client.get("/v1/signing-key").json["public_key"]
    for expected, status in ((b, 0), (a, 1)):
        with pytest.raises(SystemExit) as exit_:
            main(["replay", b_log, "--checkpoint", b_checkpoint, "--public-key", key, "--match", expected])
        assert exit_.value.code == status
    assert f"the log is of match {b}, not {a}" in capsys.readouterr().err

    code, report, err = audited(client, capsys, a_log, b_checkpoint)
    assert code == 1, (err, report)
    assert report["match"] == a and report["checkpoint_match_matches"] is False
    assert f"the checkpoint is of match {b}" in err and f"the log is of match {a}" in err
    assert report["checkpoint_match"] == b and "checkpoint_verified" not in report  # nothing of this log

    # nor does B's log rewritten to name A, chained again as a forger would: A's checkpoint refutes the
    # rewritten chain, and B's is of another match than the log now names
    entries = [Recorded.from_dict(json.loads(line)) for line in Path(b_log).read_text().splitlines()]
    named_a = rechained([dataclasses.replace(entries[0], data={**entries[0].data, "match": a}), *entries[1:]])
    for checkpoint, said in ((a_checkpoint, "differs from the checkpoint"), (b_checkpoint, f"of match {b}")):
        Path(b_log).write_text(named_a)
        code, _, err = audited(client, capsys, b_log, checkpoint)
        assert code == 1 and said in err, err
    # and a log of chain 3 names its match: one that names none is not the server's
    unnamed = {k: v for k, v in entries[0].data.items() if k != "match"}
    Path(b_log).write_text(rechained([dataclasses.replace(entries[0], data=unnamed), *entries[1:]]))
    assert replay_log(b_log, None) == 1 and "names no match" in capsys.readouterr().err


def rechained(entries) -> str:
    """The entries chained again (as anyone can), as the JSON Lines of an export."""
    out, prev = [], None
    for entry in entries:
        out.append(entry.chained(prev))
        prev = out[-1].hash
    return "\n".join(json.dumps(e.as_dict()) for e in out)


def test_a_log_from_before_chain_3_names_no_match_and_a_checkpoint_of_its_head_names_it(
    client, capsys, tmp_path
):
    """A log written before the chain bound the match (chain 2: ``match_created`` without ``match``) still
    audits as it did. It names no match (``match: null``, ``match_bound: false``); a checkpoint of its head
    names the one the server signed with that head, still unbound by the chain, and nothing to compare."""
    from service.domain import lifecycle, replay
    from service.domain.chain import canonical_json
    from service.domain.serverkey import ServerKey
    from tests.conftest import TEST_SECRET
    from tests.engines import bot_match_log

    entries = bot_match_log("block-block", ["random", "random"])
    entries += lifecycle.score(replay.replay(entries), entries[-1].at).entries
    assert entries[0].data["chain"] == 2 and "match" not in entries[0].data
    log = tmp_path / "old.jsonl"
    log.write_text("\n".join(json.dumps(e.as_dict()) for e in entries))
    key = ServerKey(TEST_SECRET)
    signed = {"match": "an-old-match", "version": len(entries), "hash": entries[-1].hash}
    checkpoint = tmp_path / "old-checkpoint.json"
    checkpoint.write_text(
        json.dumps({**signed, "public_key": key.public_key, "signature": key.sign(canonical_json(signed))})
    )
    code = replay_log(str(log), None)
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["match"] is None and report["match_bound"] is False
    assert report["recorded_result_matches"] is True
    code = replay_log(str(log), None, None, str(checkpoint), key.public_key)
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["match"] == "an-old-match" and report["match_bound"] is False
    assert replay_log(str(log), None, None, str(checkpoint), key.public_key, "an-old-match") == 0
    capsys.readouterr()
    assert replay_log(str(log), None, None, None, None, "an-old-match") == 1  # nothing names it
    assert "the log names no match" in capsys.readouterr().err
    assert report["checkpoint_match_matches"] is None and report["checkpoint_verified"]["version"] == len(
        entries
    )
