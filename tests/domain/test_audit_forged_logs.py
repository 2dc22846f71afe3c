"""Forged logs against ``matchlog replay --checkpoint``: a forger holds a real finished Blokus Duo match,
its seed (revealed at the end) and the server's signed checkpoints, rewrites the log and re-chains it
(anyone can recompute the hash chain). Each forgery must be refused, for the right reason; the genuine
log with a checkpoint at its last entry must still verify."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
import uuid
from dataclasses import replace

import fakeredis
import pytest

from service.application.seats import Seats
from service.cli import main
from service.config import Settings
from service.domain import lifecycle, replay
from service.domain.audit import ForgedLog, UncoveredEntries, check_covered, check_head, read_checkpoint
from service.games.protocol import IllegalAction
from service.http.app import create_app
from service.store.events import Recorded
from tests.conftest import TEST_SECRET
from tests.helpers import PLAYERS, create, play_random_game, score

AT = "2026-01-01T00:00:00.000Z"


@pytest.fixture(scope="module")
def genuine():
    """A finished, scored Blokus Duo match played through the API: its whole log, a checkpoint taken
    mid-game, one taken at the end, and the server's public key (pinned)."""
    settings = Settings(namespace=f"test-{uuid.uuid4().hex[:12]}", secret_key=TEST_SECRET)
    redis_client = fakeredis.FakeRedis()
    client = create_app(settings, redis_client).test_client()
    match_id, tokens = create(client, players=PLAYERS[:2], options={"variant": "duo"})
    play_random_game(client, match_id, tokens, random.Random(7), max_actions=12)
    mid = client.get(f"/v1/matches/{match_id}/checkpoint").json
    play_random_game(client, match_id, tokens, random.Random(8))
    score(client, redis_client, settings, match_id, tokens[0])
    events = client.get(f"/v1/matches/{match_id}/events?limit=1000").json["events"]
    final = client.get(f"/v1/matches/{match_id}/checkpoint").json
    assert events[-1]["type"] == "match_scored" and final["version"] == len(events) > mid["version"]
    return {
        "events": events,
        "mid": mid,
        "final": final,
        "public_key": client.get("/v1/signing-key").json["public_key"],
    }


def entries_of(events):
    return [Recorded.from_dict(e) for e in events]


def rechained(entries):
    """The entries numbered from 1 and hash-chained again, as a forger does after rewriting a log."""
    out, prev = [], None
    for version, entry in enumerate(entries, start=1):
        out.append(replace(entry, version=version).chained(prev))
        prev = out[-1].hash
    return [e.as_dict() for e in out]


def shell(event, at=AT):
    return Recorded(0, event["type"], event["seat"], event["data"], at)


def another_game(genuine_events, after: int, rng: random.Random):
    """Entries a forger makes up after version ``after`` of the genuine log: random legal moves from
    there, with the revealed seed, to the end, the seed revealed and a result that follows from them."""
    entries = entries_of(genuine_events)
    revealed = next(e for e in entries if e.type == "seed_revealed").data
    secret = lifecycle.SeedSecret(revealed["seed"], revealed["salt"])
    state = replay.fold(replay.start(entries[0], secret.seed, secret.salt), entries[1:after])
    step = lifecycle.Step(state)
    while not step.state.finished:
        seat = step.state.to_act()[0]
        step = step.then(
            lifecycle.act(step.state, seat, rng.choice(step.state.legal_actions(seat)), secret, AT)
        )
    step = step.then(lifecycle.score(step.state, AT))
    return list(step.entries)


def audit(tmp_path, capsys, events, checkpoint=None, public_key=None):
    """``matchlog replay`` on ``events`` (with a checkpoint, pinned to ``public_key``): exit code, stdout, stderr."""
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"events": events}))
    extra = []
    if checkpoint is not None:
        (tmp_path / "checkpoint.json").write_text(json.dumps(checkpoint))
        extra = ["--checkpoint", str(tmp_path / "checkpoint.json"), "--public-key", public_key]
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(path), *extra])
    captured = capsys.readouterr()
    return exit_.value.code, captured.out, captured.err


def test_the_genuine_log_with_a_checkpoint_at_its_end_verifies(genuine, tmp_path, capsys):
    code, out, err = audit(tmp_path, capsys, genuine["events"], genuine["final"], genuine["public_key"])
    report = json.loads(out)
    assert code == 0, err
    assert report["checkpoint_verified"]["version"] == len(genuine["events"])
    assert report["recorded_result_matches"] is True and report["status"] == "finished"


def test_a_checkpoint_short_of_the_end_proves_nothing_of_what_follows(genuine, tmp_path, capsys):
    """The genuine log itself: signed up to the mid-game checkpoint only, so not proven the server's."""
    code, out, err = audit(tmp_path, capsys, genuine["events"], genuine["mid"], genuine["public_key"])
    assert code == 2 and out == ""
    assert f"covers entries 1..{genuine['mid']['version']} of {len(genuine['events'])}" in err
    assert "take a fresh checkpoint" in err and "after the match ends" in err


def test_another_ending_after_a_mid_game_checkpoint_is_refused(genuine, tmp_path, capsys):
    """The strongest forgery: legal moves after the signed head, a valid chain, a result that follows
    from them. Only the checkpoint's coverage tells it from the server's log."""
    version = genuine["mid"]["version"]
    genuine_ranks = genuine["events"][-1]["data"]["ranks"]
    for seed in range(20):  # an ending with other ranks than the real one
        made_up = another_game(genuine["events"], version, random.Random(seed))
        if made_up[-1].data["ranks"] != genuine_ranks:
            break
    forged = rechained(entries_of(genuine["events"][:version]) + made_up)
    assert forged[version - 1]["hash"] == genuine["mid"]["hash"]  # the signed head is untouched
    code, out, _ = audit(tmp_path, capsys, forged)
    assert code == 0 and json.loads(out)["recorded_result_matches"]  # without a checkpoint, it holds together
    code, out, err = audit(tmp_path, capsys, forged, genuine["mid"], genuine["public_key"])
    assert code == 2 and out == "" and "take a fresh checkpoint" in err
    signed = check_head(read_checkpoint(genuine["mid"], genuine["public_key"]), entries_of(forged))
    with pytest.raises(UncoveredEntries):
        check_covered(signed, entries_of(forged))


def the_findings_forgery(events):
    """The review's forgery: the finished log, then ``undone`` back to version 1, the moves of another
    game, and a new ``match_scored`` (with other ranks), chained on."""
    entries = entries_of(events)
    for seed in range(20):
        made_up = another_game(events, 1, random.Random(seed))
        if made_up[-1].data["ranks"] != events[-1]["data"]["ranks"]:
            break
    again = [e for e in made_up if e.type != "seed_revealed"]
    return rechained(entries + [shell(replay.undone(0, 1))] + again)


def test_the_findings_forgery_is_refused(genuine, tmp_path, capsys):
    forged = the_findings_forgery(genuine["events"])
    after = len(genuine["events"]) + 1
    for checkpoint in (None, genuine["final"]):
        code, out, err = audit(tmp_path, capsys, forged, checkpoint, genuine["public_key"])
        assert code == 1 and out == ""
        assert f"log entry {after} (undone) follows match_scored" in err


def test_the_findings_forgery_is_refused_by_the_command(genuine, tmp_path):
    path, checkpoint = tmp_path / "log.json", tmp_path / "checkpoint.json"
    path.write_text(json.dumps({"events": the_findings_forgery(genuine["events"])}))
    checkpoint.write_text(json.dumps(genuine["final"]))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "service.cli",
            "replay",
            str(path),
            "--checkpoint",
            str(checkpoint),
            "--public-key",
            genuine["public_key"],
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1 and done.stdout == "" and "follows match_scored" in done.stderr


def ended_at(events) -> int:
    """The index of ``seed_revealed``: the entries before it end the game."""
    return next(i for i, e in enumerate(events) if e["type"] == "seed_revealed")


def forge(events, how):
    """The genuine log rewritten ``how``; the entries are chained again unless said otherwise."""
    entries, end = entries_of(events), ended_at(events)
    last_move = entries[end - 1]
    placed = next(e for e in reversed(entries[:end]) if e.type == "placed")  # a move, once more
    if how == "undone_after_the_end":
        return rechained(entries[:end] + [shell(replay.undone(last_move.seat, 1))] + entries[end:])
    if how == "undone_after_the_result":
        return rechained(entries + [shell(replay.undone(last_move.seat, 1))])
    if how == "game_event_after_the_end":
        return rechained(entries[: end + 1] + [placed] + entries[end + 1 :])
    if how == "game_event_after_the_result":
        return rechained(entries + [placed])
    if how == "second_match_scored":
        flipped = {**entries[-1].data, "ranks": entries[-1].data["ranks"][::-1]}
        return rechained(entries + [replace(entries[-1], data=flipped)])
    if how == "second_seed_revealed":
        return rechained(entries[: end + 1] + [entries[end]] + entries[end + 1 :])
    if how == "result_before_the_seed":
        return rechained(entries[:end] + [entries[-1], entries[end]])
    if how == "match_aborted_after_the_end":
        return rechained(entries[:end] + [shell(replay.match_aborted("forged"))] + entries[end:])
    raise AssertionError(how)


OUT_OF_PLACE = {  # forgery: (what the entry does, as refused, and where: an offset from seed_revealed's index)
    "undone_after_the_end": ("(undone) follows the end of the match", 1),
    "undone_after_the_result": ("(undone) follows match_scored", None),
    "game_event_after_the_end": ("(placed) follows the end of the match", 2),
    "game_event_after_the_result": ("(placed) follows match_scored", None),
    "second_match_scored": ("(match_scored) follows match_scored", None),
    "second_seed_revealed": ("(seed_revealed) reveals the seed again", 2),
    "result_before_the_seed": (
        "(match_scored) records a result before the match is over and its seed revealed",
        1,
    ),
    "match_aborted_after_the_end": ("(match_aborted) follows the end of the match", 1),
}


@pytest.mark.parametrize("how", OUT_OF_PLACE)
def test_an_entry_the_server_never_appends_is_refused(genuine, tmp_path, capsys, how):
    forged = forge(genuine["events"], how)
    text, offset = OUT_OF_PLACE[how]
    version = len(genuine["events"]) + 1 if offset is None else ended_at(genuine["events"]) + offset
    with pytest.raises(replay.EntryOutOfPlace) as refused:
        replay.replay(entries_of(forged))
    assert refused.value.version == version and isinstance(refused.value, ValueError)
    code, out, err = audit(tmp_path, capsys, forged)
    assert code == 1 and out == "" and f"log entry {version} {text}" in err, err
    # with the checkpoint at the genuine end: an entry put in before it moves the signed head; one put
    # after it is refused by the fold, which comes before the checkpoint's coverage
    code, out, err = audit(tmp_path, capsys, forged, genuine["final"], genuine["public_key"])
    expected = (
        f"log entry {version} {text}"
        if offset is None
        else f"not the one the server signed: entry {len(genuine['events'])} differs from the checkpoint"
    )
    assert code == 1 and out == "" and expected in err, err


def test_flipped_ranks_in_a_rechained_result_are_refused(genuine, tmp_path, capsys):
    entries = entries_of(genuine["events"])
    result = entries[-1].data
    assert result["ranks"] != result["ranks"][::-1], "a drawn game: pick another seed for the fixture"
    forged = rechained(entries[:-1] + [replace(entries[-1], data={**result, "ranks": result["ranks"][::-1]})])
    code, out, _ = audit(tmp_path, capsys, forged)
    assert code == 1 and json.loads(out)["recorded_result_matches"] is False
    code, out, err = audit(tmp_path, capsys, forged, genuine["final"], genuine["public_key"])
    assert code == 1 and out == "" and f"entry {len(entries)} differs from the checkpoint" in err


def test_a_truncated_log_is_refused(genuine, tmp_path, capsys):
    for cut in (len(genuine["events"]) - 1, ended_at(genuine["events"]), genuine["mid"]["version"] + 1):
        events = genuine["events"][:cut]
        code, out, err = audit(tmp_path, capsys, events, genuine["final"], genuine["public_key"])
        assert code == 1 and out == "" and f"it ends at entry {cut}" in err
    signed = read_checkpoint(genuine["final"], genuine["public_key"])
    with pytest.raises(ForgedLog):
        check_head(signed, entries_of(genuine["events"][:-1]))


def test_reordered_entries_are_refused(genuine, tmp_path, capsys):
    events = copy.deepcopy(genuine["events"])
    i = genuine["mid"]["version"] + 1  # two moves after the mid-game checkpoint, swapped
    events[i], events[i + 1] = events[i + 1], events[i]
    code, out, err = audit(tmp_path, capsys, events, genuine["final"], genuine["public_key"])
    assert code == 1 and out == "" and f"entries out of order: entry {i + 2}" in err
    renumbered = rechained(entries_of(events))  # numbered and chained again in the new order
    code, out, err = audit(tmp_path, capsys, renumbered, genuine["final"], genuine["public_key"])
    assert code == 1 and out == "" and "not the one the server signed" in err


def test_an_undo_far_back_or_forward_is_refused(genuine, tmp_path, capsys):
    entries = entries_of(genuine["events"])
    cut = genuine["mid"]["version"]
    for to_version in (0, cut + 1, "1"):
        forged = rechained(entries[:cut] + [shell(replay.undone(0, to_version))])  # type: ignore[arg-type]
        with pytest.raises(
            replay.EntryOutOfPlace, match=f"log entry {cut + 1} .undone. undoes back to a version"
        ):
            replay.replay(entries_of(forged), *seed_of(genuine["events"]))


def seed_of(events):
    revealed = next(e for e in events if e["type"] == "seed_revealed")["data"]
    return revealed["seed"], revealed["salt"]


def test_the_server_never_answers_an_undo_after_the_end(genuine):
    """A bot's reply can end the game while an undo waits for another seat's answer: the answer is
    refused, not appended after the end."""
    entries = entries_of(genuine["events"])
    end = ended_at(genuine["events"])
    state = replay.fold(replay.start(entries[0], *seed_of(genuine["events"])), entries[1:end])
    assert state.finished
    waiting = replace(state, undo="with_consent", undo_request={"seat": 0, "to_version": 2, "accepted": []})
    with pytest.raises(IllegalAction) as refused:
        lifecycle.answer_undo(waiting, 1, True, AT, lambda version: state)
    assert refused.value.reason == "game_over"


def test_a_seat_replaced_as_the_match_ends_is_refused_not_appended(client, fake_redis, settings):
    """The match ends between the replacement's first look and its append: MatchOver, and nothing
    follows the end in the log (the fold would refuse it, and the match would no longer load)."""
    from service.application.matches import Matches
    from service.domain.errors import MatchOver

    match_id, tokens = create(client, players=PLAYERS[:2], options={"variant": "duo"})
    play_random_game(client, match_id, tokens, random.Random(3), max_actions=2)
    matches = Matches(fake_redis, settings)
    running = matches.load(match_id)
    play_random_game(client, match_id, tokens, random.Random(4))
    looks = iter([running])  # the first look sees the match running; the append sees it over
    original = matches.load
    matches.load = lambda match_id, version=None: next(looks, None) or original(match_id, version)  # type: ignore[method-assign]
    with pytest.raises(MatchOver):
        Seats(matches).replace_seat(match_id, 0, bot="random")
    assert matches.load(match_id).finished and not matches.load(match_id).result
    assert (
        client.get(f"/v1/matches/{match_id}/events?limit=1000").json["events"][-1]["type"] == "seed_revealed"
    )
