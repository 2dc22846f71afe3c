"""A data folder as matchlog left it before keys were hash-tagged (``<ns>:match:<id>:...`` and one
``<ns>:feed``), for ``matchlog migrate`` to move. ``python -m tests.old_layout --data FOLDER`` makes, with
this version and its seeds counted (tests/doc_seeds.py), a Blokus Duo match in progress (ann placed a
piece, bob is to play) and a Duo match played at random to its end in the folder's embedded Redis, then
renames their keys to the old layout and prints the matches' ids and bob's token. For
docs/operations/scaling.md and tests/store/test_migrate.py."""

from __future__ import annotations

import argparse
import json
import os
import random
from pathlib import Path

import redis

from service.store.embedded_redis import EmbeddedRedis
from service.store.keys import Keys

DUO = {"players": [{"name": "ann"}, {"name": "bob"}], "options": {"variant": "duo"}}


def to_legacy_layout(redis_client: redis.Redis, keys: Keys) -> int:
    """Rename every match key to ``<ns>:match:<id>:<part>`` and the feed to one stream: the old layout."""
    renamed = 0
    for raw in list(redis_client.scan_iter(match=f"{keys.namespace}:*", count=1000)):
        name = raw.decode()
        found = keys.match_id_of(name)
        if found:
            redis_client.rename(name, f"{keys.namespace}:match:{found[0]}:{found[1]}")
            renamed += 1
        elif name.endswith(":feed") or ":{feed}:" in name or name == keys.layout:
            redis_client.delete(name)
    redis_client.xadd(keys.legacy_feed, {"match": "gone", "version": 1, "types": ""})
    return renamed


def main() -> None:
    from service.config import Settings
    from service.http.app import create_app
    from tests import doc_seeds
    from tests.helpers import act, bearer, create, play_random_game

    parser = argparse.ArgumentParser(prog="python -m tests.old_layout")
    parser.add_argument("--data", required=True, help="the data folder to write (its Redis not running)")
    settings = Settings.from_env({**os.environ, "MATCHLOG_DATA": parser.parse_args().data})
    doc_seeds.install()
    embedded = EmbeddedRedis(Path(settings.data_dir)).start()
    try:
        client = redis.Redis.from_url(embedded.url)
        api = create_app(settings, client).test_client()
        finished, finished_tokens = create(api, **DUO)
        play_random_game(api, finished, finished_tokens, random.Random(3))
        running, (ann, bob) = create(api, **DUO)
        legal = api.get(f"/v1/matches/{running}/legal-actions", headers=bearer(ann)).json
        act(api, running, ann, legal["version"], legal["actions"][0])
        to_legacy_layout(client, Keys(settings.namespace))
    finally:
        embedded.stop()
    print(json.dumps({"running": running, "bob": bob, "finished": finished}))


if __name__ == "__main__":
    main()
