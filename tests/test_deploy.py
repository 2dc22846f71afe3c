"""The deployment files, read as the tools that use them would (docker cannot run in the tests)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_the_image_runs_as_a_user_with_a_data_folder_it_may_write():
    """The API writes each process's Prometheus values under MATCHLOG_DATA: the default, ./matchlog-data
    under /app, belongs to root, and an API that cannot write there does not start."""
    dockerfile = (REPO / "Dockerfile").read_text()
    user = re.search(r"^USER (\S+)", dockerfile, re.M).group(1)
    data = re.search(r"^ENV MATCHLOG_DATA=(\S+)", dockerfile, re.M).group(1)
    assert user != "root" and f"chown {user} {data}" in dockerfile
    assert dockerfile.index("ENV MATCHLOG_DATA") < dockerfile.index(f"USER {user}")
    assert "MATCHLOG_DATA" not in (REPO / "compose.yaml").read_text()  # nothing overrides it


def test_the_compose_redis_refuses_writes_before_it_runs_out_of_memory():
    """``503 storage_full`` needs a limit: with noeviction and no maxmemory Redis grows until it is killed."""
    settings = dict(
        line.split(None, 1)
        for line in (REPO / "deploy/redis.conf").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    )
    assert settings["maxmemory-policy"] == "noeviction" and settings["maxmemory"].strip() != "0"
    assert settings["appendonly"] == "yes" and settings["appendfsync"] == "always"
