"""The hash chain of any viewer's copy of a match's log, checked with the standard library alone.
Usage:

    python examples/check_chain.py LOG.jsonl
"""

import hashlib
import json
import sys
from pathlib import Path

prev = ""
for line in Path(sys.argv[1]).read_text().splitlines():
    e = json.loads(line)
    body = (
        [e["version"], e["type"], e["seat"], e["public_data"], e["at"], e["commitment"]]
        if "commitment" in e
        else [
            e["version"],
            e["type"],
            e["seat"],
            {k: v for k, v in e["data"].items() if k != "content" or "content_sha256" not in e["data"]},
            e["at"],
        ]
    )
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert hashlib.sha256(prev.encode() + b"\n" + canonical).hexdigest() == e["hash"], e["version"]
    prev = e["hash"]
print("chain verified through", e["version"], "entries")
