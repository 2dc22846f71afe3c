"""A complete matchlog client in the standard library: plays random legal actions for every seat
of a match until it ends. Usage:

    python examples/random_player.py http://127.0.0.1:8000 MATCH_ID TOKEN0 TOKEN1 ... [--seed S] [--actions N]

With ``--seed`` the same choices are made again: a match with the same seed plays out the same way. With
``--actions`` it stops after that many, the match still running.
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


def main(base, match_id, tokens, choose, most=None):
    actions, version = 0, None
    while True:
        match = call(base, "GET", f"/v1/matches/{match_id}")
        if match["status"] == "finished":  # at the version the last action left (the worker may add to it)
            print(f"finished at version {version or match['version']} after {actions} actions")
            return
        if actions == most:
            print(f"stopped at version {match['version']} after {actions} actions")
            return
        seat = match["to_act"][0]
        legal = call(base, "GET", f"/v1/matches/{match_id}/legal-actions", token=tokens[seat])
        answer = call(
            base,
            "POST",
            f"/v1/matches/{match_id}/actions",
            {"expected_version": legal["version"], "action": choose.choice(legal["actions"])},
            token=tokens[seat],
        )
        actions, version = actions + 1, answer["version"]


def options(words):
    """``--seed S`` and ``--actions N`` wherever they are, and the rest in order (not argparse: a token
    may begin with ``-``)."""
    given, rest, words = {"--seed": None, "--actions": None}, [], iter(words)
    for word in words:
        if word in given:
            given[word] = next(words)
        else:
            rest.append(word)
    return given, rest


if __name__ == "__main__":
    given, (base, match_id, *tokens) = options(sys.argv[1:])
    most = None if given["--actions"] is None else int(given["--actions"])
    main(base, match_id, tokens, random.Random(given["--seed"]), most)
