"""Two moves of seat 0 through the moves socket, the second stale on purpose (websocket-client). Usage:

python examples/moves_socket.py ws://localhost:8000 MATCH_ID TOKEN
"""

import json
import sys

import websocket

base, match_id, token = sys.argv[1:4]
ws = websocket.create_connection(
    f"{base}/v1/matches/{match_id}/moves", header=[f"Authorization: Bearer {token}"]
)
ws.send(json.dumps({"expected_version": 1, "action": {"type": "place", "piece": "1", "cells": [[4, 4]]}}))
print(ws.recv())
ws.send(
    json.dumps({"expected_version": 1, "action": {"type": "place", "piece": "2", "cells": [[5, 5], [5, 6]]}})
)
print(ws.recv())
