"""The bare stack the API stands on, for ``tests.bench.throughput`` to compare against: a minimal
Flask app served by gunicorn exactly as ``matchlog api`` is (``service.serving``), on the same Redis
client settings, with the API's URLs so that the same client drives both.

Per action one version-checked append: ``XADD`` with the explicit id ``<expected_version + 1>-0``,
which Redis refuses when the stream is already there (409). A read is one ``XREVRANGE ... COUNT 1``
(the last entry). No rules, no auth, no validation: the floor under matchlog's cost. The moves
socket (``/v1/matches/{id}/moves``, flask-sock as in ``service.http.moves_socket``) does the same append per
message and answers ``{"status": 201, "version": ...}``: the floor under the socket's cost.

    REDIS_URL=redis://... python -m tests.bench.bare --port 8001 --workers 2
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    from service import serving

    serving.patch()

import argparse
import json
import os
import uuid

NAMESPACE = os.environ.get("BARE_NAMESPACE", "bare")


def create_app(url: str):
    import redis
    from flask import Flask, request
    from flask_sock import ConnectionClosed, Sock

    from service.store.redis_client import connect

    store = connect(url)
    app = Flask("bare")
    sock = Sock(app)

    def key(match_id: str) -> str:
        return f"{NAMESPACE}:{match_id}"

    @app.get("/v1/games")
    def games():  # what the benchmark polls until the server answers
        return []

    @app.post("/v1/matches")
    def create():
        body = request.get_json()
        match_id = uuid.uuid4().hex
        store.xadd(key(match_id), {"type": "created", "data": json.dumps(body)}, id="1-0")
        return {
            "id": match_id,
            "version": 1,
            "seats": [{"seat": i, "token": f"t{i}"} for i in range(len(body["players"]))],
        }, 201

    @app.get("/v1/matches/<match_id>/legal-actions")
    def read(match_id: str):
        last = store.xrevrange(key(match_id), count=1)
        if not last:
            return {"error": "match_not_found"}, 404
        return {"version": int(last[0][0].split(b"-")[0]), "actions": []}

    def append(match_id: str, body: dict) -> tuple[dict, int]:
        version = body["expected_version"] + 1
        try:
            store.xadd(
                key(match_id), {"type": "acted", "data": json.dumps(body["action"])}, id=f"{version}-0"
            )
        except redis.exceptions.ResponseError:
            return {"error": "version_conflict"}, 409
        return {"version": version}, 201

    @app.post("/v1/matches/<match_id>/actions")
    def act(match_id: str):
        return append(match_id, request.get_json())

    @sock.route("/v1/matches/<match_id>/moves")
    def moves(ws, match_id: str):
        while True:
            try:
                message = ws.receive()
            except ConnectionClosed:
                return
            answer, status = append(match_id, json.loads(message))
            ws.send(json.dumps({"status": status, **answer}))

    return app


def main() -> None:
    from service import serving

    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    url = os.environ["REDIS_URL"]
    serving.run(lambda: create_app(url), args.host, args.port, args.workers)


if __name__ == "__main__":
    sys.exit(main())
