"""A complete matchlog client in the standard library: plays random legal actions for every seat
of a match until it ends. Usage:

    python examples/random_player.py http://127.0.0.1:8000 MATCH_ID TOKEN0 TOKEN1 TOKEN2 TOKEN3
"""

import json
import random
import sys
import urllib.request


def call(base, method, path, body=None, token=None):
    request = urllib.request.Request(
        base + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


def main(base, match_id, *tokens):
    actions = 0
    while True:
        match = call(base, "GET", f"/v1/matches/{match_id}")
        if match["status"] == "finished":
            print(f"finished at version {match['version']} after {actions} actions")
            return
        seat = match["to_act"][0]
        legal = call(base, "GET", f"/v1/matches/{match_id}/legal-actions", token=tokens[seat])
        call(
            base,
            "POST",
            f"/v1/matches/{match_id}/actions",
            {"expected_version": legal["version"], "action": random.choice(legal["actions"])},
            token=tokens[seat],
        )
        actions += 1


if __name__ == "__main__":
    main(*sys.argv[1:])
