"""The log and the live feed's routes (``service/http/feed_routes.py``): what the routes themselves decide."""

from __future__ import annotations

import json

from tests.helpers import act, create


def test_the_log_reads_as_one_json_array_when_json_is_asked_for(client):
    match_id, tokens = create(client)
    assert (
        act(client, match_id, tokens[0], 1, {"type": "place", "cells": [[0, 0], [1, 0]]}).status_code == 201
    )
    lines = client.get(f"/v1/matches/{match_id}/log")
    assert lines.mimetype == "application/jsonl"  # without Accept: JSON Lines, as before
    entries = [json.loads(line) for line in lines.get_data(as_text=True).splitlines()]
    array = client.get(f"/v1/matches/{match_id}/log", headers={"Accept": "application/json"})
    assert array.status_code == 200 and array.mimetype == "application/json"
    assert array.json == entries and [e["version"] for e in entries] == [1, 2]
