"""``python -m tests.faults.api --port P``: ``matchlog api`` whose Redis Cluster client reaches the nodes
through the harness's proxies, so that the harness can cut this process off from one node alone.

``FAULTS_REMAP`` (JSON, ``{"<node port>": <proxy port>}``) maps the address of every node the cluster
announces (``CLUSTER SLOTS``, and a ``MOVED`` redirection, which redis-py's ``address_remap`` does not
cover) to its proxy; ``REDIS_URL`` names a proxy too.
"""

from __future__ import annotations

import sys

from service import serving

serving.patch()  # first: gunicorn's gevent workers are forked from this process

import json  # noqa: E402
import os  # noqa: E402
from typing import Any  # noqa: E402

from redis.cluster import NodesManager, RedisCluster  # noqa: E402

from service.cli import main  # noqa: E402

REMAP = {int(port): int(proxy) for port, proxy in json.loads(os.environ.get("FAULTS_REMAP", "{}")).items()}


def remap(address: tuple[str, int]) -> tuple[str, int]:
    host, port = address
    return host, REMAP.get(int(port), int(port))


_init = RedisCluster.__init__
_move_slot = NodesManager.move_slot


def _remapped_init(self: RedisCluster, *args: Any, **kwargs: Any) -> None:
    kwargs.setdefault("address_remap", remap)
    _init(self, *args, **kwargs)


def _remapped_move(self: NodesManager, error: Any) -> Any:
    error.host, error.port = remap((error.host, error.port))
    return _move_slot(self, error)


RedisCluster.__init__ = _remapped_init
NodesManager.move_slot = _remapped_move

if __name__ == "__main__":
    port = sys.argv[sys.argv.index("--port") + 1]
    main(["api", "--host", "127.0.0.1", "--port", port, "--workers", "1"])
