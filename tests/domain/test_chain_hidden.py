"""Hidden stays hidden: nothing a viewer is shown of a log entry (its data, hash, public data and
commitment) lets it test a guess of what was hidden from it, while the chain of what it is shown
still verifies, and everything verifies once the seed is revealed (``service.domain.chain``).

The attacker here is given its best case: the true hidden value among its candidates. For each
entry whose data a viewer sees only in part, it tries every recipe it could compute without the
match's secret salt: the hash of the whole entry (how logs were chained before sealing), plain
digests of the whole entry, and HMACs keyed with whatever the log shows. If any recipe reproduces
the hash or the commitment it was shown, a brute force over the candidates would find the value:
the test fails.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from dataclasses import replace

import pytest

from service.domain import lifecycle, replay
from service.domain import projections as views
from service.domain.chain import BrokenChain, Recorded, canonical_json, commitment_key, verify_chain
from service.games import GAMES
from service.store import packs

AT = "2026-11-27T12:00:00.000Z"

# every game, with the modes whose hidden information differs (simultaneous plans, private draws...)
CONFIGS = [
    ("chock-a-block", 2, {}),
    ("chock-a-block", 4, {"mode": "COOP"}),
    ("chock-a-block", 3, {"building_rules": "BUILDING_BLOCK", "neighbour_tile_source": "MARKET_OR_PILE_TOP"}),
    ("blackout-hong-kong", 4, {}),
    ("blackout-hong-kong", 2, {}),
    ("blackout-hong-kong", 1, {}),
    ("blokus", 4, {}),
    ("block-block", 2, {}),
]


def played_log(game_id: str, players: int, options: dict, seed: int, max_moves: int = 400):
    """A match played with random legal moves by whoever acts (every seat of a simultaneous step in
    turn), through the same pure steps the server stores: its entries, final state and secret."""
    rng = random.Random(seed)
    game = GAMES[game_id]
    resolved = lifecycle.check_options(game_id, options, players)
    secret = lifecycle.SeedSecret.new()
    step = lifecycle.begin(
        game_id, resolved, [f"p{i}" for i in range(players)], secret, AT, packs.content_for(game, resolved)
    )
    entries, state = list(step.entries), step.state
    for _ in range(max_moves):
        if state.finished:
            break
        seat = rng.choice(state.to_act())
        step = lifecycle.act(state, seat, rng.choice(state.legal_actions(seat)), secret, AT)
        entries += step.entries
        state = step.state
    return entries, state, secret


def shown(state, entries, viewer, revealed=False):
    return [views.entry_view(state.engine, e, viewer, revealed, state.sealed_chain) for e in entries]


def attacker_recipes(
    prev_hash: str | None, whole: Recorded, shown_entry: dict, created_hash: str
) -> dict[str, str]:
    """What a viewer can compute from a guess (``whole``) without the match's salt."""
    v1 = canonical_json([whole.version, whole.type, whole.seat, whole.without_content().data, whole.at])
    message = canonical_json([whole.version, whole.type, whole.seat, whole.without_content().data])
    recipes = {
        "v1 hash": hashlib.sha256((prev_hash or "").encode() + b"\n" + v1).hexdigest(),
        "sha256 of the entry": hashlib.sha256(message).hexdigest(),
        "sha256 of the data": hashlib.sha256(canonical_json(whole.data)).hexdigest(),
    }
    for name, key in {
        "empty key": b"",
        "match_created's hash": created_hash.encode(),
        "previous hash": (prev_hash or "").encode(),
    }.items():
        recipes[f"hmac with {name}"] = hmac.new(key, message, hashlib.sha256).hexdigest()
    return recipes


@pytest.mark.parametrize("game_id,players,options", CONFIGS)
@pytest.mark.parametrize("seed", range(3))
def test_no_viewer_can_test_a_guess_of_what_is_hidden_from_it(game_id, players, options, seed):
    entries, state, _ = played_log(game_id, players, options, seed)
    assert state.sealed_chain
    tried = 0
    for viewer in [None, *range(players)]:
        views = shown(state, entries, viewer)
        verify_chain([Recorded.from_dict(v) for v in views])  # what it is shown checks out
        for view, whole in zip(views, entries):
            if view["data"] == whole.data:
                continue
            assert view["commitment"] and view["public_data"] is not None
            exposed = {view["hash"], view["commitment"]}
            prev = entries[whole.version - 2].hash
            for recipe, value in attacker_recipes(prev, whole, view, entries[0].hash).items():
                assert value not in exposed, (
                    f"v{whole.version} {whole.type}: {recipe} gives away the hidden data"
                )
            tried += 1
    if GAMES[game_id].info.hidden_information:
        assert tried, "the match hid nothing from anyone: the test would prove nothing"


@pytest.mark.parametrize("game_id,players,options", CONFIGS)
def test_commitments_of_equal_hidden_data_differ(game_id, players, options):
    """The version is committed to: the same card drawn twice does not give the same commitment."""
    entries, _state, _ = played_log(game_id, players, options, seed=7)
    commitments = [e.commitment for e in entries if e.commitment]
    assert len(commitments) == len(set(commitments))


@pytest.mark.parametrize("game_id,players,options", CONFIGS)
def test_a_finished_sealed_log_checks_whole_once_the_seed_is_revealed(game_id, players, options):
    entries, state, secret = played_log(game_id, players, options, seed=1, max_moves=5000)
    assert state.finished and state.seed == secret.seed
    assert replay.replay(entries).game == state.game  # the chain, every commitment, the fold
    for viewer in [None, *range(players)]:  # every viewer's copy is then the whole log
        whole = [Recorded.from_dict(v) for v in shown(state, entries, viewer, revealed=True)]
        assert replay.replay(whole).game == state.game


def test_changing_a_hidden_card_of_a_sealed_log_is_found_once_revealed():
    entries, _state, _ = played_log("chock-a-block", 2, {}, seed=3, max_moves=5000)
    drawn = next(i for i, e in enumerate(entries) if e.commitment and "card" in e.data)
    other = next(card for card in entries[0].data["content"]["cards"] if card != entries[drawn].data["card"])
    forged = list(entries)
    forged[drawn] = replace(entries[drawn], data={**entries[drawn].data, "card": other})
    verify_chain(forged)  # the chain covers the public data and the commitment only...
    with pytest.raises(BrokenChain, match=f"entry {drawn + 1} has a commitment"):
        replay.replay(forged)  # ...and the commitment gives the change away once the key is known


def test_a_commitment_added_to_a_public_entry_is_found_once_revealed():
    entries, _state, secret = played_log("chock-a-block", 2, {}, seed=4, max_moves=5000)
    public = next(
        i for i, e in enumerate(entries) if i > 1 and not e.commitment and e.type not in replay.SHELL_EVENTS
    )
    forged = list(entries)
    key = commitment_key(secret.seed, secret.salt)
    forged[public] = entries[public].sealed(key, {"changed": True})
    prev = entries[public - 1].hash
    for i in range(public, len(forged)):
        forged[i] = forged[i].chained(prev)
        prev = forged[i].hash
    with pytest.raises(BrokenChain, match=f"entry {public + 1} has a commitment"):
        replay.replay(forged)


def test_a_log_from_before_sealing_still_verifies_and_its_hashes_wait_for_the_reveal():
    """A legacy log (no ``chain`` in match_created: hidden data hashed whole) replays as before; while
    its match runs, no viewer is shown a hash, since each would give hidden data away."""
    entries, state, secret = played_log("chock-a-block", 2, {}, seed=5, max_moves=30)
    created = entries[0]
    legacy_created = replace(created, data={k: v for k, v in created.data.items() if k != "chain"}).chained(
        None
    )
    legacy = [legacy_created]
    for entry in entries[1:]:
        legacy.append(replace(entry, public_data=None, commitment=None).chained(legacy[-1].hash))
    running = replay.fold(replay.start(legacy[0], secret.seed, secret.salt), legacy[1:])
    assert not running.sealed_chain and running.game == state.game
    for viewer in (None, 0, 1):
        assert {v["hash"] for v in shown(running, legacy, viewer)} == {None}
    assert views.hashes_withheld(running)
    verify_chain(legacy)


def test_a_sealed_log_from_an_earlier_version_of_a_games_views_still_audits(monkeypatch):
    """A game whose event_view changes raises ``views_version``: its older sealed logs are still proved
    by their commitments and chain, not refused because today's view of an event differs."""
    from service.games.protocol import GameInfo

    entries, state, _ = played_log("chock-a-block", 2, {}, seed=6, max_moves=5000)
    engine = GAMES["chock-a-block"]
    later = GameInfo(**{**engine.info.__dict__, "views_version": "2"})
    monkeypatch.setattr(engine, "info", later)
    monkeypatch.setattr(
        engine, "event_view", lambda event, seat: {**event, "data": {}}
    )  # views changed since
    assert replay.replay(entries).game == state.game
    monkeypatch.undo()
    with pytest.raises(BrokenChain):  # with the same version, a view that does not match is refused
        monkeypatch.setattr(engine, "event_view", lambda event, seat: {**event, "data": {}})
        replay.replay(entries)
