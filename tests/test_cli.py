"""The ``matchlog`` command (``service.cli``): importing it does nothing, and ``matchlog replay``: an auditor
holding only an exported log re-runs the match and re-scores it."""

from __future__ import annotations

import base64
import json
import os
import random
import subprocess
import sys
from typing import Any

import pytest

from service.cli import main
from service.domain.chain import Recorded, canonical_json
from tests.helpers import create, play_random_game, score
from tests.http.test_openapi_components_typed import fits


def test_importing_the_command_patches_nothing_and_imports_no_networking():
    """Even with ``api`` as the process's command: the gevent patch is ``matchlog api``'s first step, not an
    effect of the import, and nothing the import pulls in imports ssl or socket before that step."""
    code = (
        "import sys; sys.argv = ['matchlog', 'api']; import service.cli; "
        "print(sorted(m for m in ('gevent', 'ssl', 'socket', 'redis', 'rq', 'flask') if m in sys.modules))"
    )
    # without the coverage start-up pytest-cov hands a child: coverage imports socket itself
    untraced = {k: v for k, v in os.environ.items() if not k.startswith(("COVERAGE_", "COV_CORE_"))}
    shown = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=untraced
    )
    assert shown.stdout.strip() == "[]"


@pytest.fixture
def finished_log(client, fake_redis, settings, tmp_path):
    match_id, tokens = create(client)
    play_random_game(client, match_id, tokens, random.Random(4))
    score(client, fake_redis, settings, match_id, tokens[0])
    return {**client.get(f"/v1/matches/{match_id}/events?limit=1000").json, "match_id": match_id}


def run(capsys, tmp_path, log, *extra):
    path = tmp_path / "events.json"
    path.write_text(json.dumps(log))
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(path), *extra])
    captured = capsys.readouterr()
    return exit_.value.code, captured.out, captured.err


def test_replay_confirms_seed_and_recorded_result(finished_log, capsys, tmp_path):
    assert finished_log["events"][-1]["type"] == "match_scored"
    code, out, _ = run(capsys, tmp_path, finished_log)
    report = json.loads(out)
    assert code == 0
    assert report["status"] == "finished" and report["seed_verified"] and report["recorded_result_matches"]
    assert report["scores"]["scores"] == finished_log["events"][-1]["data"]["scores"]


def rechained(log):
    """The log with every hash recomputed, as a forger who changed an entry would do."""
    entries = [Recorded.from_dict(e) for e in log["events"]]
    prev = None
    for i, entry in enumerate(entries):
        entries[i] = entry.chained(prev)
        prev = entries[i].hash
    return {**log, "events": [e.as_dict() for e in entries]}


def test_replay_names_the_first_entry_that_breaks_the_chain(finished_log, capsys, tmp_path):
    finished_log["events"][5]["data"]["cells"] = [[0, 0]]
    code, out, err = run(capsys, tmp_path, finished_log)
    assert code == 1 and out == "" and "entry 6 breaks the hash chain" in err


def test_replay_flags_a_tampered_result_even_with_a_rebuilt_chain(finished_log, capsys, tmp_path):
    finished_log["events"][-1]["data"]["scores"][0] += 1
    code, out, err = run(capsys, tmp_path, finished_log)
    assert code == 1 and f"entry {len(finished_log['events'])} breaks" in err
    code, out, _ = run(capsys, tmp_path, rechained(finished_log))
    assert code == 1 and json.loads(out)["recorded_result_matches"] is False


def test_a_signed_checkpoint_proves_the_log_is_the_servers(client, finished_log, capsys, tmp_path):
    match_id = finished_log["match_id"]
    checkpoint = client.get(f"/v1/matches/{match_id}/checkpoint").json
    assert checkpoint["version"] == len(finished_log["events"]) and checkpoint["algorithm"] == "Ed25519"
    path = tmp_path / "checkpoint.json"
    path.write_text(json.dumps(checkpoint))
    pinned = client.get("/v1/signing-key").json
    assert pinned == {"algorithm": "Ed25519", "public_key": checkpoint["public_key"]}
    code, out, _ = run(
        capsys, tmp_path, finished_log, "--checkpoint", str(path), "--public-key", pinned["public_key"]
    )
    assert code == 0 and json.loads(out)["checkpoint_verified"]["version"] == checkpoint["version"]

    # a forger who rebuilds the chain after changing an entry cannot match the signed head
    forged = dict(finished_log)
    forged["events"] = [dict(e) for e in finished_log["events"]]
    forged["events"][3] = {**forged["events"][3], "at": "2020-01-01T00:00:00.000Z"}
    pin = ("--public-key", pinned["public_key"])
    code, _, err = run(capsys, tmp_path, rechained(forged), "--checkpoint", str(path), *pin)
    assert code == 1 and "not the one the server signed" in err

    # nor can a log cut short pass for the one that was signed
    cut = {"events": finished_log["events"][:-1]}  # as a /log export cut short: nothing says how long
    code, _, err = run(capsys, tmp_path, cut, "--checkpoint", str(path), *pin)
    assert code == 1 and f"it ends at entry {len(cut['events'])}" in err

    # nor can anyone sign a checkpoint without the server's key
    path.write_text(json.dumps({**checkpoint, "version": checkpoint["version"] - 1}))
    code, _, err = run(capsys, tmp_path, finished_log, "--checkpoint", str(path), *pin)
    assert code == 2 and "signature is not valid" in err


def test_a_checkpoint_is_checked_against_the_pinned_key_only(client, finished_log, capsys, tmp_path):
    """A forger who rebuilds the chain can sign its head with a key of his own: a checkpoint proves
    something only against the server's key, pinned beforehand, and is not read without it."""
    from service.domain.serverkey import ServerKey

    checkpoint = client.get(f"/v1/matches/{finished_log['match_id']}/checkpoint").json
    own = ServerKey(base64.urlsafe_b64encode(bytes(range(32))).decode())  # a forger's own secret
    path = tmp_path / "checkpoint.json"
    path.write_text(json.dumps(checkpoint))
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(tmp_path / "unused.json"), "--checkpoint", str(path)])
    assert exit_.value.code == 2 and "--checkpoint needs --public-key" in capsys.readouterr().err
    signed = {k: checkpoint[k] for k in ("hash", "match", "version")}
    path.write_text(
        json.dumps({**signed, "public_key": own.public_key, "signature": own.sign(canonical_json(signed))})
    )
    code, _, err = run(
        capsys, tmp_path, finished_log, "--checkpoint", str(path), "--public-key", checkpoint["public_key"]
    )
    assert code == 2 and "signed by another key" in err


def test_the_whole_log_as_json_lines_replays(client, finished_log, capsys, tmp_path):
    match_id = finished_log["match_id"]
    lines = client.get(f"/v1/matches/{match_id}/log")
    assert lines.status_code == 200 and lines.mimetype == "application/jsonl"
    path = tmp_path / "log.jsonl"
    path.write_bytes(lines.data)
    assert len(lines.data.splitlines()) == len(finished_log["events"])
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(path)])
    assert exit_.value.code == 0 and json.loads(capsys.readouterr().out)["chain_verified"] is True


def test_a_partial_export_is_called_partial_not_running(client, finished_log, capsys, tmp_path):
    page = client.get(f"/v1/matches/{finished_log['match_id']}/events?limit=10").json
    code, _, err = run(capsys, tmp_path, page)
    assert code == 2 and "a partial log: entries 1..10 of" in err and "/log" in err


@pytest.mark.parametrize("content", ["", "not json at all {", "[]", '{"events": [{"version": 1}]}'])
def test_unreadable_input_gets_one_line(capsys, tmp_path, content):
    path = tmp_path / "events.json"
    path.write_text(content)
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(path)])
    err = capsys.readouterr().err
    assert (
        exit_.value.code == 2 and err.startswith("matchlog replay: ") and len(err.strip().splitlines()) == 1
    )


def test_a_missing_file_gets_one_line(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(tmp_path / "nothing.json")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "cannot read" in err and len(err.strip().splitlines()) == 1


def test_replay_refuses_a_seed_that_breaks_the_commitment(finished_log, capsys, tmp_path):
    code, _, err = run(capsys, tmp_path, finished_log, "--seed", "not-the-seed")
    assert code == 2 and "commitment" in err


# -- what the chain does not cover: a sealed entry's data, and a pack referenced by its digest --------


@pytest.fixture
def finished_sealed_log(client, fake_redis, settings):
    """A finished Chock-a-Block log: private deck draws are sealed entries (their data is covered by their
    commitment, not by the chain), and the pack is covered by ``content_sha256``, not by the chain."""
    match_id, tokens = create(client, "chock-a-block", [{"name": "ann"}, {"name": "bob"}])
    play_random_game(client, match_id, tokens, random.Random(2))
    log = client.get(f"/v1/matches/{match_id}/events?limit=1000").json
    assert any("commitment" in e for e in log["events"])
    return log


@pytest.mark.parametrize("data", ["x", [], None, 5, {}, {"source": "DECK"}])
def test_a_sealed_entry_whose_data_is_anything_is_refused_at_that_entry_in_one_line(
    finished_sealed_log, capsys, tmp_path, data
):
    """The chain holds whatever stands in a sealed entry's data: the audit must say which entry was
    changed, not fail inside the game's rules with a traceback."""
    code, _, _ = run(capsys, tmp_path, finished_sealed_log)
    assert code == 0
    sealed = next(e for e in finished_sealed_log["events"] if "commitment" in e)
    sealed["data"] = data
    code, out, err = run(capsys, tmp_path, finished_sealed_log)
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
    assert f"entry {sealed['version']} has a commitment that does not follow from its data" in err


@pytest.mark.parametrize("change", ["dropped", "changed"])
def test_a_pack_dropped_or_changed_in_match_created_is_a_changed_log(
    finished_sealed_log, capsys, tmp_path, change
):
    created = finished_sealed_log["events"][0]["data"]
    if change == "dropped":
        del created["content"]
    else:
        created["content"]["features"] = list(reversed(created["content"]["features"]))
    code, out, err = run(capsys, tmp_path, finished_sealed_log)
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
    assert "entry 1 has a content pack that does not match its content_sha256" in err


def _hidden_match(client, game, rng, moves=None):
    """A two-seat match of a hidden-information game, ``moves`` actions in (None: to the end)."""
    from tests.helpers import bearer

    match_id, tokens = create(client, game=game)
    play_random_game(client, match_id, tokens, rng, max_actions=moves)
    return match_id, tokens, bearer


def _export(client, match_id, headers, tmp_path, name):
    lines = client.get(f"/v1/matches/{match_id}/log", headers=headers)
    assert lines.status_code == 200, lines.json
    path = tmp_path / name
    path.write_bytes(lines.data)
    return path, [json.loads(line) for line in lines.data.splitlines()]


def _replay(capsys, path):
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(path)])
    captured = capsys.readouterr()
    return exit_.value.code, captured.out, captured.err


@pytest.mark.parametrize("game", ["chock-a-block", "blackout-hong-kong"])
def test_a_viewers_copy_of_a_running_match_is_a_partial_view_checked_as_far_as_it_goes(
    client, capsys, tmp_path, game
):
    match_id, tokens, bearer = _hidden_match(client, game, random.Random(7), moves=12)
    for who, headers in (("spectator", {}), ("seat", bearer(tokens[0]))):
        path, entries = _export(client, match_id, headers, tmp_path, f"{who}.jsonl")
        assert any(e.get("commitment") for e in entries), (
            who
        )  # sealed entries, shown as this viewer may see them
        code, out, err = _replay(capsys, path)
        report = json.loads(out)
        assert code == 3, (who, err)
        assert report["view"] == "partial" and report["chain_verified"] and not report["seed_revealed"]
        sealed = [i for i, e in enumerate(entries) if e.get("commitment")]
        assert report["sealed_entries"] == len(sealed)
        beyond = sum(entries[i]["data"] != entries[i]["public_data"] for i in sealed)
        assert report["data_beyond_public"] == beyond and (beyond == 0 or who == "seat"), (who, report)
        assert "verified as far as it goes" in err and "the seed is not revealed yet" in err
        assert "forged" not in err and "changed" not in err
        # a sealed entry's data beyond its public data is not the chain's: counted, never passed as checked
        added = [dict(e) for e in entries]
        target = next((i for i in sealed if entries[i]["data"] == entries[i]["public_data"]), sealed[0])
        was_beyond = entries[target]["data"] != entries[target]["public_data"]
        added[target] = {**added[target], "data": {**added[target]["data"], "forged": "C1"}}
        path.write_text("\n".join(json.dumps(e) for e in added))
        code, out, err = _replay(capsys, path)
        assert code == 3 and json.loads(out)["data_beyond_public"] == beyond + (not was_beyond), (who, out)
        # and it must hold the public data as it is: changed, left out, or not an object at all
        public = entries[target]["public_data"]
        forged_data = [{"card": "C1"}, ["C1"]]
        if public:
            key = next(iter(public))
            forged_data.append({**entries[target]["data"], key: "not what the chain covers"})
        for data in forged_data:
            if data == {} or (isinstance(data, dict) and not public):
                continue  # holds an empty public data: beyond it, not against it
            forged = [dict(e) for e in entries]
            forged[target] = {**forged[target], "data": data}
            path.write_text("\n".join(json.dumps(e) for e in forged))
            code, out, err = _replay(capsys, path)
            assert code == 1 and f"entry {target + 1}'s data does not hold its public data" in err, (who, err)
        # what it shows is checked: an entry changed in a viewer's copy is still a forgery
        changed = [dict(e) for e in entries]
        public = next(i for i, e in enumerate(changed) if e["seat"] is not None and not e.get("commitment"))
        changed[public] = {**changed[public], "at": "2000-01-01T00:00:00.000Z"}
        path.write_text("\n".join(json.dumps(e) for e in changed))
        code, out, err = _replay(capsys, path)
        assert code == 1 and out == "" and f"entry {public + 1} breaks the hash chain" in err, (who, err)


@pytest.mark.parametrize("game", ["chock-a-block", "blackout-hong-kong"])
def test_a_viewers_copy_of_a_finished_match_is_audited_in_full(client, capsys, tmp_path, game):
    match_id, tokens, bearer = _hidden_match(client, game, random.Random(8))
    for who, headers in (("spectator", {}), ("seat", bearer(tokens[1]))):
        path, entries = _export(client, match_id, headers, tmp_path, f"{who}.jsonl")
        assert any(e["type"] == "seed_revealed" for e in entries)
        code, out, err = _replay(capsys, path)
        assert code == 0, (who, err)
        report = json.loads(out)
        assert report["status"] == "finished" and report["chain_verified"] and report["seed_verified"]


def test_replay_recomputes_a_tournament_from_its_log_and_its_matches_logs(
    client, fake_redis, settings, tmp_path, capsys
):
    from service.store.keys import Keys
    from service.store.platforms import Platforms
    from tests.helpers import bearer

    key = Platforms(fake_redis, Keys(settings.namespace)).create("club")[1]
    body = {"name": "Cup", "kind": "swiss", "game": "block-block", "rounds": 2}
    made = client.post("/v1/tournaments", json=body, headers=bearer(key)).json
    url = f"/v1/tournaments/{made['id']}"
    for i in range(4):
        client.post(f"{url}/players", json={"player": f"u-{i}"}, headers=bearer(key))
    logs = []
    for _ in range(2):
        current = client.post(f"{url}/rounds", headers=bearer(key)).json["current_round"]
        for game in current["matches"]:
            token = game["seats"][1]["token"]
            assert (
                client.post(f"/v1/matches/{game['match']}/concede", headers=bearer(token)).status_code == 201
            )
            path = tmp_path / f"{game['match']}.jsonl"
            logs.append(path)
        assert client.get(url, headers=bearer(key)).json["current_round"]["complete"]
    for path in logs:
        path.write_bytes(client.get(f"/v1/matches/{path.stem}/log").data)
    log = client.get(f"{url}/log").json
    tournament = tmp_path / "tournament.json"
    tournament.write_text(json.dumps(log))
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(tournament), "--matches", *map(str, logs)])
    report = json.loads(capsys.readouterr().out)
    assert exit_.value.code == 0, report
    assert report["finished"] and report["rounds"] == 2 and report["results_checked"] == 4
    assert report["seats_checked"] == 4 and report["matches_without_log"] == 0

    def reseated(change: Any) -> int:
        """The first match's log with ``change`` made to its seats and its chain rebuilt, replayed with the
        tournament's: the exit code (its own audit still holds: who sits is not the rules' business)."""
        kept = logs[0].read_bytes()
        lines = [json.loads(line) for line in kept.decode().splitlines() if line.strip()]
        entries = [Recorded.from_dict(e) for e in lines]
        change(entries[0].data["players"])
        prev = None
        for i, entry in enumerate(entries):
            entries[i] = Recorded.from_dict({**entry.as_dict(), "hash": None}).chained(prev)
            prev = entries[i].hash
        logs[0].write_text("\n".join(json.dumps(e.as_dict()) for e in entries) + "\n")
        try:
            with pytest.raises(SystemExit) as exit_:
                main(["replay", str(tournament), "--matches", *map(str, logs)])
        finally:
            logs[0].write_bytes(kept)
        return int(exit_.value.code or 0)

    def swapped(players: list[dict[str, Any]]) -> None:  # the pairing's players, in the other seats
        first, second = players[0], players[1]
        players[0] = {**second, "seat": 0}
        players[1] = {**first, "seat": 1}

    def stranger(players: list[dict[str, Any]]) -> None:  # someone not paired sits in
        players[1] = {**players[1], "player": "u-stranger"}

    def renamed(players: list[dict[str, Any]]) -> None:
        players[0] = {**players[0], "name": "someone else"}

    for change in (swapped, stranger, renamed):
        assert reseated(change) == 1, change.__name__
        assert "(seats)" in capsys.readouterr().err

    def forged(change: Any) -> int:
        """The log with ``change`` made to its entries and the chain rebuilt over it, replayed: the exit code."""
        entries = [Recorded.from_dict(e) for e in json.loads(json.dumps(log["entries"]))]
        change(entries)
        prev = None
        for i, entry in enumerate(entries):
            entries[i] = Recorded.from_dict({**entry.as_dict(), "hash": None}).chained(prev)
            prev = entries[i].hash
        tournament.write_text(json.dumps({**log, "entries": [e.as_dict() for e in entries]}))
        with pytest.raises(SystemExit) as exit_:
            main(["replay", str(tournament), "--matches", *map(str, logs)])
        return int(exit_.value.code or 0)

    def standing(entries: list[Recorded]) -> None:
        rows = entries[-1].data["standings"]
        rows[0]["points"], rows[-1]["points"] = rows[-1]["points"], rows[0]["points"]

    assert forged(standing) == 1 and "(standings)" in capsys.readouterr().err

    def result(entries: list[Recorded]) -> None:
        game = next(e for e in entries if e.type == "game_finished")
        game.data["ranks"] = list(reversed(game.data["ranks"]))

    assert forged(result) == 1 and "(result)" in capsys.readouterr().err

    # a checkpoint of the tournament's head, signed with the server's pinned key, proves the log is its
    tournament.write_text(json.dumps(log))
    signed = tmp_path / "checkpoint.json"
    signed.write_text(json.dumps(fits("TournamentCheckpoint", client.get(f"{url}/checkpoint").json)))
    pinned = client.get("/v1/signing-key").json["public_key"]
    proving = ["--checkpoint", str(signed), "--public-key", pinned]
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(tournament), *proving])
    assert exit_.value.code == 0 and json.loads(capsys.readouterr().out)["checkpoint_verified"] == {
        "version": len(log["entries"]),
        "public_key": pinned,
    }
    changed = [Recorded.from_dict(e) for e in json.loads(json.dumps(log["entries"]))]
    first_game = next(e for e in changed if e.type == "game_finished")
    first_game.data["ranks"] = list(reversed(first_game.data["ranks"]))
    prev = None
    for i, entry in enumerate(changed):
        changed[i] = Recorded.from_dict({**entry.as_dict(), "hash": None}).chained(prev)
        prev = changed[i].hash
    tournament.write_text(json.dumps({**log, "entries": [e.as_dict() for e in changed]}))
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(tournament), *proving])
    assert exit_.value.code == 1 and "not the one the server signed" in capsys.readouterr().err
    tournament.write_text(json.dumps({**log, "entries": log["entries"][:-1]}))
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(tournament), *proving])
    assert exit_.value.code == 1 and "not the one the server signed" in capsys.readouterr().err
