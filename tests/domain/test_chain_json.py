"""``chain.compact_encoder`` (the append's entry JSON and the hash chain's canonical JSON, with a C encoder
built once) writes what ``json.dumps`` writes: every entry of random games of every game (data, public
data, the canonical list the chain hashes, the states), and the odd values a log could hold (floats, NaN,
infinities, unicode, lone surrogates, int keys); what ``json.dumps`` refuses it refuses."""

from __future__ import annotations

import dataclasses
import json

import pytest

from service.domain.chain import built_once, compact_encoder
from service.games import GAMES
from tests.store.test_events_snapshots import _steps

ODD = [
    {"b": 1, "a": [1.5, float("nan"), float("inf"), float("-inf"), -0.0, 1e16, 1e-7, 2**70]},
    {"text": 'é\u2028"\\\x00\ud800', "none": None, "yes": True, "no": False},
    "a string alone",
    3,
    [],
    {},
    {1: 2, 3: [4, (5, 6)]},
]


def _both(value) -> None:
    for sort_keys in (True, False):
        assert compact_encoder(sort_keys)(value) == json.dumps(
            value, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False
        )


@pytest.mark.no_cover  # what it runs is covered by faster tests; traced, it took 3 times as long
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_logs_json_is_json_dumps(game_id):
    first, steps, _ = _steps(GAMES[game_id], 11)
    for step in [first, *steps]:
        for entry in step.entries:
            _both(entry.data)
            _both(entry.public_data)
            _both([entry.version, entry.type, entry.seat, entry.data, entry.at])
        for state in step.states:
            _both(dataclasses.asdict(state))


def test_odd_values_are_written_and_refused_as_json_dumps_does():
    for value in ODD:
        _both(value)
    assert compact_encoder(False)({1: 2, "1": 3}) == json.dumps({1: 2, "1": 3}, separators=(",", ":"))
    for bad, sort_keys in [({"x": object()}, False), ({"x": {1}}, True), ({1: 2, "1": 3}, True)]:
        with pytest.raises(TypeError):
            json.dumps(bad, sort_keys=sort_keys)
        with pytest.raises(TypeError):
            compact_encoder(sort_keys)(bad)


ENCODERS = [
    json.JSONEncoder(default=str),  # the log lines' (``manners.JsonLines``)
    json.JSONEncoder(sort_keys=True, ensure_ascii=True, allow_nan=False),
    json.JSONEncoder(separators=(",", ":"), skipkeys=True),
]


@pytest.mark.parametrize("reference", ENCODERS, ids=["log-lines", "sorted-ascii-finite", "compact-skipkeys"])
def test_an_encoder_built_once_writes_what_its_reference_writes(reference):
    """``chain.built_once`` on other settings than the compact encoders': the log lines' ``default=str``, ASCII
    escapes, keys skipped, NaN refused; odd values and the entries of a random Blokus game."""
    fast = built_once(reference)
    first, steps, _ = _steps(GAMES["blokus"], 5)
    entries = [entry.data for step in [first, *steps] for entry in step.entries]
    for value in [*ODD, {"object": object(), (1, 2): "tuple key"}, *entries]:
        try:
            expected = reference.encode(value)
        except (TypeError, ValueError) as error:
            with pytest.raises(type(error)):
                fast(value)
            continue
        assert fast(value) == expected
