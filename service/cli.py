"""The ``matchlog`` command.

matchlog serve    everything on one machine: the API, the workers (one per group of job queues,
                  serve_workers), and an embedded Redis (kept in --data) unless REDIS_URL names one
matchlog api      the HTTP API under gunicorn (production: run as many as needed)
matchlog worker   a rule worker: projector + RQ jobs (production: run as many as needed);
                  --queues clocks,scoring takes those kinds only, --no-rules leaves the projector to others
matchlog openapi  print the OpenAPI document the API serves (this is how openapi.yaml is made)
matchlog keys create NAME   a platform key, printed once (only its digest is kept); also
                            keys list, keys rotate PLATFORM, keys revoke PLATFORM
matchlog replay   re-run a match from its exported log, offline, and check its recorded result; or a
                  tournament's log with its matches' logs, every pairing and standing recomputed
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import signal
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from service import serving
from service.config import Settings

# Importing this module imports no networking (redis, rq, Flask: each command imports what it uses), so
# that ``matchlog api`` patches for gevent before anything imports ssl, socket or threading (``_api``).

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication
    from gunicorn.arbiter import Arbiter
    from gunicorn.workers.base import Worker

    from service.store.embedded_redis import EmbeddedRedis


def redis_url(settings: Settings) -> str:
    """REDIS_URL, or the embedded server of the data folder if one is running."""
    from service.store.embedded_redis import EmbeddedRedis

    if settings.redis_url:
        return settings.redis_url
    embedded = EmbeddedRedis(settings.data_dir)
    if embedded.answers():
        return embedded.url
    sys.exit(
        f"matchlog: set REDIS_URL, or start everything with `matchlog serve` "
        f"(no embedded Redis is running in {settings.data_dir})"
    )


def metrics_dir(settings: Settings) -> str:
    """Where the processes of this server keep their Prometheus values (multiprocess mode): the
    ``PROMETHEUS_MULTIPROC_DIR`` given, else a fresh folder in the data folder. Set before any
    process imports prometheus_client."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not folder:
        folder = str(settings.data_dir / "metrics")
        shutil.rmtree(folder, ignore_errors=True)  # values of processes that are gone
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as error:
        raise SystemExit(
            f"matchlog: cannot make {folder} for the metrics ({error.strerror}): set MATCHLOG_DATA "
            "(or PROMETHEUS_MULTIPROC_DIR) to a folder this user may write"
        ) from None
    return folder


def _worker_exited(server: Arbiter, worker: Worker) -> None:
    from service.metrics import process_gone

    process_gone(worker.pid)


def check_layout(settings: Settings, url: str) -> None:
    """Refuse to start with another number of feed partitions than the keys are tagged for."""
    from service.store.keys import Keys
    from service.store.migrate import LayoutMismatch
    from service.store.migrate import check_layout as check
    from service.store.redis_client import connect

    try:
        _unless_store_away(lambda: check(connect(url), Keys(settings.namespace, settings.feed_partitions)))
    except LayoutMismatch as error:
        sys.exit(f"matchlog: {error}")


def check_server_key(settings: Settings, url: str) -> None:
    """Refuse to start with another server secret than the deployment's (its fingerprint in Redis, recorded
    by the first API or worker to start): this one could not open the matches' sealed seeds."""
    from service.domain.serverkey import ServerKey, WrongServerKey
    from service.store.keys import Keys
    from service.store.redis_client import connect

    try:  # with Redis away, the workers check when it is back
        _unless_store_away(
            lambda: ServerKey(settings.secret_key).claim(connect(url), Keys(settings.namespace).server_key)
        )
    except WrongServerKey as error:
        sys.exit(f"matchlog api: {error}")


def _unless_store_away(check: Callable[[], None]) -> None:
    """Run a start-up ``check`` against Redis, skipped when Redis is away (the next start checks): any other
    error of the store stops the start, as it would stop every request."""
    from service.domain.errors import Unavailable
    from service.store.errors import translated

    try:
        check()
    except Exception as error:
        if not isinstance(translated(error), Unavailable):
            raise


def run_api(settings: Settings, host: str, port: int, workers: int) -> None:
    url = redis_url(settings)
    check_layout(settings, url)
    check_server_key(settings, url)
    metrics_dir(settings)

    def load() -> WSGIApplication:
        import gc

        from service.http.app import create_app

        app = create_app(dataclasses.replace(settings, redis_url=url))
        # What the app is made of (schemas, the OpenAPI document, the games' tables and packs: some
        # 90,000 objects) lives as long as the worker: out of the collector's sight, so that a full
        # collection does not walk it again and again while requests wait (one took 60 ms).
        gc.freeze()
        return app

    serving.run(load, host, port, workers, child_exit=_worker_exited)


DURATION = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*(s|m|h|d)?")
UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def duration(text: str) -> float:
    """``90``, ``90s``, ``15m``, ``2h``, ``1d`` as seconds (argparse's type for ``--grace``)."""
    found = DURATION.fullmatch(text.strip())
    if not found:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (say 90s, 15m, 2h or 1d)")
    return float(found.group(1)) * UNIT_S[found.group(2) or "s"]


def _iso(epoch_s: float) -> str:
    return datetime.fromtimestamp(epoch_s, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def manage_keys(settings: Settings, action: str, subject: str | None, grace_s: float = 0) -> None:
    """``matchlog keys create NAME | list | rotate PLATFORM [--grace D] | revoke PLATFORM``: a key is printed
    once, when it is made; only its digest is stored."""
    from service.domain.serverkey import ServerKey
    from service.store.keys import Keys
    from service.store.platforms import Platforms
    from service.store.redis_client import connect
    from service.store.webhooks import Webhooks

    if action != "list" and not subject:
        sys.exit(
            f"matchlog: keys {action} needs "
            + (
                "the platform's name"
                if action == "create"
                else "the platform's id (matchlog keys list shows them)"
            )
        )
    subject = subject or ""  # only list goes without one
    client, keys = connect(redis_url(settings)), Keys(settings.namespace)
    platforms = Platforms(client, keys)
    note = "shown only now: keep it secret, send it as Authorization: Bearer <key>"
    try:
        if action == "create":
            platform_id, key = platforms.create(subject)
            print(json.dumps({"platform": platform_id, "name": subject.strip(), "key": key, "note": note}))
        elif action == "list":
            for platform in platforms.listed():
                print(
                    json.dumps(
                        {
                            "platform": platform["id"],
                            "name": platform["name"],
                            "created": platform["created"],
                            "previous_keys_valid_until": [_iso(t) for t in platform["previous_keys"]],
                        }
                    )
                )
        elif action == "rotate":
            key = platforms.rotate(subject, grace_s)
            old = (
                f"the old key works until {_iso(time.time() + grace_s)}"
                if grace_s
                else "the old key no longer works"
            )
            print(json.dumps({"platform": subject, "key": key, "note": f"{old}; {note}"}))
        else:
            gone = platforms.revoke(subject)
            hooks = Webhooks(client, keys, ServerKey(settings.secret_key))
            removed = hooks.of_platform(gone["id"])
            for hook in removed:
                hooks.remove(hook["id"], gone["id"])
            print(
                json.dumps(
                    {
                        "platform": gone["id"],
                        "name": gone["name"],
                        "revoked": True,
                        "webhooks_removed": len(removed),
                        "note": "its matches play on; nobody can manage them as its platform",
                    }
                )
            )
    except ValueError as error:
        sys.exit(f"matchlog: {error}")


def migrate_keys(settings: Settings, source_url: str | None) -> None:
    from service.application import listings
    from service.application.stores import Stores
    from service.store.embedded_redis import EmbeddedRedis
    from service.store.keys import Keys
    from service.store.migrate import migrate
    from service.store.redis_client import connect

    embedded = None  # the data folder's own Redis, started for the migration if nothing serves it
    if not settings.redis_url and not EmbeddedRedis(settings.data_dir).answers():
        embedded = EmbeddedRedis(settings.data_dir).start()
    try:
        target = connect(redis_url(settings))
        source = connect(source_url) if source_url else target
        done = migrate(
            source, target, Keys(settings.namespace, settings.feed_partitions), same_server=source is target
        )
        # matches listed before the listings were narrowed by game and status are put in those too
        done["listed"] = listings.index_listings(Stores.connect(target, settings))
    finally:
        if embedded:
            embedded.stop()
    print(json.dumps(done))


def run_worker(settings: Settings, kinds: tuple[str, ...] | None = None, rules: bool = True) -> None:
    """A worker taking ``kinds`` of jobs (default: every kind of ``service.store.jobqueue.KINDS``)."""
    from service.store.jobqueue import KINDS
    from workers.worker import run

    kinds = kinds or KINDS
    check_layout(settings, redis_url(settings))
    run(settings, redis_url(settings), kinds=kinds, rules=rules)


def serve_workers(settings: Settings) -> dict[str, list[str]]:
    """The workers ``matchlog serve`` starts: a kind's work never waits for a slower kind's.

    The first runs the rule loop too (once for all queues), and takes clock deadlines before scoring; bot
    moves think for up to seconds, deliveries wait for their receivers, analyses take up to a minute: each
    has processes of its own (started once the API answers). Deliveries get one process more than a
    platform's delivery slots, so a platform whose receivers all stall leaves one for everyone else's."""
    from service.store.jobqueue import ANALYSES, BOT_MATCHES, BOTS, CLOCKS, SCORING, WEBHOOKS

    slots = settings.webhook_slots_per_platform
    delivering = min(slots, MAX_SERVE_DELIVERY_WORKERS - 1) + 1 if slots else 1
    return {
        "worker": ["--queues", f"{CLOCKS},{SCORING}"],
        "bot worker": ["--queues", f"{BOTS},{BOT_MATCHES}", "--no-rules"],
        **{
            f"webhook worker{'' if n == 0 else f' {n + 1}'}": ["--queues", WEBHOOKS, "--no-rules"]
            for n in range(delivering)
        },
        "analysis worker": ["--queues", ANALYSES, "--no-rules"],
    }


MAX_SERVE_DELIVERY_WORKERS = 4
"""On one machine, past this many delivery processes a larger slot count buys memory, not isolation: run
more on other machines (``matchlog worker --queues webhooks``)."""


def queue_kinds(text: str) -> tuple[str, ...]:
    """``--queues``: comma-separated kinds of ``service.store.jobqueue.KINDS``."""
    from service.store.jobqueue import KINDS

    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown or not kinds:
        raise argparse.ArgumentTypeError(f"the queues are {', '.join(KINDS)}, not {text!r}")
    return kinds


def port_refusal(host: str, port: int) -> str | None:
    """Why the API could not listen on ``host:port`` (in use, not allowed...), or None."""
    import socket

    try:
        with socket.create_server((host, port)):
            return None
    except OSError as error:
        return error.strerror or str(error)


def serve(settings: Settings, host: str, port: int, workers: int) -> None:
    """Start the embedded Redis if needed (for everything, or for the job queue beside a Redis Cluster),
    then the API and a worker as child processes, restarting either if it dies, until interrupted."""
    import threading

    from service import processes
    from service.store.embedded_redis import EmbeddedRedis
    from service.store.redis_client import is_cluster

    refusal = port_refusal(host, port)
    if refusal:
        sys.exit(f"matchlog: cannot serve on {host}:{port}: {refusal}")
    holder = _serving_folder(settings.data_dir)
    if holder:
        sys.exit(
            f"matchlog: another matchlog serve (pid {holder}) uses {settings.data_dir}: stop it, or give "
            "another --data"
        )
    embedded = None
    env = dict(
        os.environ,
        MATCHLOG_SECRET_KEY=settings.secret_key,  # the children share the server's key
        PROMETHEUS_MULTIPROC_DIR=metrics_dir(settings),
    )  # and their metrics: /metrics adds them up
    if not settings.redis_url:
        # a Redis already serving the folder was left by a serve killed outright: this one stops it in the end
        embedded = EmbeddedRedis(settings.data_dir).start(adopt=True)
        env["REDIS_URL"] = embedded.url
        print(f"matchlog: embedded Redis on {embedded.url} (data in {embedded.data_dir})", flush=True)
    elif is_cluster(settings.redis_url) and not settings.rq_redis_url:  # RQ cannot run on a cluster
        embedded = EmbeddedRedis(settings.data_dir).start(adopt=True)
        env["RQ_REDIS_URL"] = embedded.url
        print(
            f"matchlog: matches on the Redis Cluster at {settings.redis_url}; job queue on an embedded Redis "
            f"on {embedded.url} (set RQ_REDIS_URL to use another)",
            flush=True,
        )
    try:
        check_layout(settings, settings.redis_url or env["REDIS_URL"])
    except SystemExit:
        if embedded:
            embedded.stop()
        raise
    workers_started = serve_workers(settings)
    commands = {
        "api": [
            sys.executable,
            "-m",
            "service.cli",
            "api",
            "--host",
            host,
            "--port",
            str(port),
            "--workers",
            str(workers),
        ],
        **{
            name: [sys.executable, "-m", "service.cli", "worker", *arguments]
            for name, arguments in workers_started.items()
        },
    }
    # the API and the rule worker first; the others once the API answers (or a while later anyway): on a
    # small machine five Python processes starting at once keep the API from its first answer for long
    later = {name: commands[name] for name in list(workers_started)[1:]}
    children = {name: processes.start(cmd, env=env) for name, cmd in commands.items() if name not in later}
    starting = time.monotonic()
    if settings.durability == "replicated":
        print(
            "matchlog: replicated durability: an append is acknowledged once a replica has it, else 503 "
            "not_replicated (MATCHLOG_DURABILITY)",
            flush=True,
        )
    print(f"matchlog: API on http://{host}:{port}/v1 (OpenAPI at /openapi.json); Ctrl-C stops", flush=True)
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    try:
        while not stopping.is_set():
            if later and (_answers(host, port) or time.monotonic() - starting > LATER_WORKERS_S):
                children.update({name: processes.start(cmd, env=env) for name, cmd in later.items()})
                later = {}
            for name, child in children.items():
                if child.poll() is not None:
                    print(f"matchlog: {name} exited ({child.returncode}); restarting", flush=True)
                    children[name] = processes.start(commands[name], env=env)
            if embedded and not embedded.alive():
                _restart(embedded)  # the API answers 503 meanwhile, and the worker waits
            stopping.wait(1.0)
    except KeyboardInterrupt:
        pass
    finally:
        processes.stop(*children.values())
        if embedded:
            embedded.stop()
        (Path(settings.data_dir) / "serve.pid").unlink(missing_ok=True)


LATER_WORKERS_S = 30.0
"""``matchlog serve`` starts the workers other than the rule worker once the API answers, or this long after
the start whatever the API does."""


def _answers(host: str, port: int) -> bool:
    """Whether the API on ``host:port`` answers ``/healthz`` (within half a second)."""
    import http.client

    connection = http.client.HTTPConnection(
        "127.0.0.1" if host in ("0.0.0.0", "::", "") else host, port, timeout=0.5
    )
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()


def _serving_folder(data_dir: Path) -> str | None:
    """The pid of another ``matchlog serve`` holding ``data_dir``, or None: then this one holds it, by a lock
    on ``serve.pid`` that the kernel lets go of when this process ends, however it ends."""
    import fcntl

    from service.store.embedded_redis import make_private

    make_private(Path(data_dir))  # 0700: the embedded Redis's data, the server key
    fd = os.open(Path(data_dir) / "serve.pid", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        return holder
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    _HELD.append(fd)  # open, so held, as long as this process lives (children do not inherit it)
    return None


_HELD: list[int] = []


def _restart(embedded: EmbeddedRedis) -> None:
    """The embedded Redis died (its append-only file has every acknowledged action): start it again."""
    code = f" ({embedded.process.returncode})" if embedded.process else ""
    print(f"matchlog: embedded Redis exited{code}; restarting", flush=True)
    try:
        embedded.start(adopt=True)  # (one that answers again after all is joined, and still ours to stop)
    except RuntimeError as error:  # tried again in a second
        print(f"matchlog: {error}", flush=True)


OPENAPI_FLOW_MAPPING = 100
"""A mapping this short (as JSON), of scalars, lists of scalars and such mappings, is written on one line in
openapi.yaml, as lists of scalars are: the same document in fewer bytes (most of its lines were a bare
``type: integer``, an enum's item or an ``items: {type: integer}`` of their own)."""


def print_openapi() -> None:
    from service.http.app import create_app, spec
    from service.store.redis_client import connect

    class Dumper(yaml.SafeDumper):
        pass

    def text(
        dumper: yaml.SafeDumper, value: str
    ) -> yaml.ScalarNode:  # multi-line descriptions as readable blocks
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)

    def flat(value: object) -> bool:
        return not isinstance(value, (dict, list))

    def small(value: object) -> bool:  # a scalar, a list of scalars, a mapping of such: one line's worth
        if isinstance(value, dict):
            return all(map(small, value.values()))
        return all(map(flat, value)) if isinstance(value, list) else True

    def sequence(dumper: yaml.SafeDumper, value: list) -> yaml.SequenceNode:  # enums, required: [a, b]
        return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=all(map(flat, value)))

    def mapping(dumper: yaml.SafeDumper, value: dict) -> yaml.MappingNode:  # {type: integer}, {$ref: ...}
        short = small(value) and len(json.dumps(value)) <= OPENAPI_FLOW_MAPPING
        return dumper.represent_mapping("tag:yaml.org,2002:map", value.items(), flow_style=short)

    Dumper.add_representer(str, text)
    Dumper.add_representer(list, sequence)
    Dumper.add_representer(dict, mapping)
    app = create_app(Settings(), connect("redis://localhost:6379/0"))  # never used: no request is made
    sys.stdout.write(yaml.dump(spec(app), Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100))


def refused(error: Exception, path: str | None = None) -> int:
    """Say on stderr why ``matchlog replay`` refuses a log; its exit status: 1 when the log is not the server's
    (``ForgedLog``: changed or cut short), 2 when it cannot be audited (``AuditError``)."""
    from service.domain.audit import ForgedLog

    print(f"matchlog replay: {f'{path}: ' if path else ''}{error}", file=sys.stderr)
    return 1 if isinstance(error, ForgedLog) else 2


def replay_log(
    path: str,
    seed: str | None,
    salt: str | None = None,
    checkpoint: str | None = None,
    public_key: str | None = None,
    match: str | None = None,
) -> int:
    """``matchlog replay``: the audit (``service.domain.audit``) of an exported log, its report printed. Exit 0 when
    all holds, 1 when the log or its result was changed, the checkpoint is of another match than the log
    names or the log is not of ``match`` (when given), 2 when it cannot be audited (unreadable, partial, a
    checkpoint short of the end...), 3 for a viewer's copy of a running match: what it shows was checked and
    held (its report printed), the rest waits for the seed."""
    from service.domain.audit import AuditError, ForgedLog, PartialView, audit

    def of_another_match(report: dict) -> bool:
        """Whether the report is of another match than its checkpoint's, or than ``match``; said on stderr."""
        said = []
        if report.get("checkpoint_match_matches") is False:
            said.append(
                f"the checkpoint is of match {report['checkpoint_match']}, the log is of match "
                f"{report['match']}: it proves nothing of this log"
            )
        if match is not None and report["match"] != match:
            said.append(
                f"the log is of match {report['match']}, not {match}"
                if report["match"]
                else f"the log names no match (it is from before chain 3), nor does a checkpoint of it: "
                f"nothing says it is {match}'s"
            )
        for line in said:
            print(f"matchlog replay: {line}", file=sys.stderr)
        return bool(said)

    try:
        report = audit(path, seed, salt, checkpoint or None, public_key)
    except PartialView as partial:
        print(json.dumps(partial.report, indent=2))
        if of_another_match(partial.report):
            return 1
        print(f"matchlog replay: {partial}", file=sys.stderr)
        return 3
    except (ForgedLog, AuditError) as error:
        return refused(error)
    print(json.dumps(report.as_dict(), indent=2))
    return 1 if of_another_match(report.as_dict()) or not report.ok else 0


def tournament_log(path: str) -> list[dict] | None:
    """The entries of a tournament's log in the file at ``path`` (GET /v1/tournaments/{id}/log, or its entries,
    or several pages of it in a list), or None when it holds something else (a match's log)."""
    if path == "-":
        return None
    try:
        body = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    pages = (
        body
        if isinstance(body, list) and body and isinstance(body[0], dict) and "entries" in body[0]
        else [body]
    )
    entries: list[dict] = []
    for page in pages:
        listed = page.get("entries") if isinstance(page, dict) else page
        if not isinstance(listed, list):
            return None
        entries += listed
    if not entries or not isinstance(entries[0], dict) or entries[0].get("type") != "tournament_created":
        return None
    return entries


def replay_tournament(
    entries: list[dict],
    seed: str | None,
    match_logs: list[str],
    checkpoint: str | None = None,
    public_key: str | None = None,
) -> int:
    """``matchlog replay`` of a tournament's log: every pairing, bye and standing recomputed from it and its
    revealed seed (``service.domain.tournaments.audit``), and each match log given audited, its seats
    compared with its round's pairing and its result with the one the tournament recorded. Exit 0 when all
    holds, 1 at the first difference (said on stderr), 2 when a log cannot be read, 3 when the seed is not
    revealed yet (only the chain, the order, the results and the seats were checked). With ``checkpoint``
    (GET /v1/tournaments/{id}/checkpoint) and the server's ``public_key``: the log is the one the server
    signed, of the tournament it names, up to its end."""
    from service.domain import tournaments
    from service.domain.audit import (
        AuditError,
        ForgedLog,
        PartialView,
        audit,
        check_head,
        read_checkpoint,
        read_export,
    )
    from service.domain.chain import Recorded, bound_match
    from service.domain.errors import TournamentForged

    results: dict[str, list[int]] = {}
    seats: dict[str, list[dict]] = {}  # who each match's log seats, checked against its pairing
    for path in match_logs:
        try:
            match_entries, current = read_export(path)
            first = match_entries[0]
            named = bound_match(first) if first.type == "match_created" else None
            if named is not None:
                seats[named] = list(first.data.get("players", []))
            report = audit(match_entries, current=current)
        except PartialView:  # its chain holds (its seats are checked), its result is to come
            print(
                f"matchlog replay: {path}: the match has not ended, its result is not checked",
                file=sys.stderr,
            )
            continue
        except (ForgedLog, AuditError) as error:
            return refused(error, path)
        if not report.ok or report.match is None:
            why = "its recorded result is not the rules'" if not report.ok else "it names no match (chain 3)"
            print(f"matchlog replay: {path}: {why}", file=sys.stderr)
            return 1
        results[report.match] = list(report.scores["ranks"])
    try:
        recorded = [Recorded.from_dict(entry) for entry in entries]
    except (KeyError, TypeError, ValueError) as error:
        print(f"matchlog replay: not a tournament's log: {error!r}", file=sys.stderr)
        return 2
    verified = None
    if checkpoint and public_key:
        try:
            signed = read_checkpoint(checkpoint, public_key, "tournament")
            if signed["tournament"] != recorded[0].data.get("tournament"):
                raise ForgedLog(f"the checkpoint is of tournament {signed['tournament']}, not the log's")
            verified = check_head(signed, recorded)
        except (ForgedLog, AuditError) as error:
            return refused(error)
        if verified["version"] != len(recorded):  # what follows the signed head is anyone's
            print(
                f"matchlog replay: the checkpoint proves the log up to entry {verified['version']} only, not "
                f"the {len(recorded) - verified['version']} after it",
                file=sys.stderr,
            )
            return 2
    try:
        checked = tournaments.audit(recorded, seed, results, seats)
    except TournamentForged as forged:
        print(
            f"matchlog replay: the tournament's log was changed ({forged.reason}): {forged}", file=sys.stderr
        )
        return 1
    except (KeyError, TypeError, ValueError) as error:
        print(f"matchlog replay: not a tournament's log: {error!r}", file=sys.stderr)
        return 2
    summary = {
        "tournament": recorded[0].data.get("tournament"),
        **checked.as_dict(),
        **({"checkpoint_verified": verified} if verified else {}),
        "match_logs": len(match_logs),
        "matches_without_log": len(set(checked.matches) - set(results)),
    }
    print(json.dumps(summary, indent=2))
    if not checked.seed_known:
        print(
            "matchlog replay: the seed is not revealed yet: the chain, the order, the results and the seats "
            "hold; the pairings and standings can be recomputed once the tournament finishes (or with --seed)",
            file=sys.stderr,
        )
        return 3
    return 0


def rebuild_ratings(settings: Settings, here: bool) -> None:
    """``matchlog ratings rebuild``: every rating computed again from the logs, one job per platform and
    pool (workers share them; ``--here`` runs them in this process)."""
    from service.application.matches import Matches
    from service.store.embedded_redis import EmbeddedRedis
    from service.store.jobqueue import ANALYSES, JobQueue
    from service.store.keys import Keys
    from service.store.platforms import Platforms
    from service.store.players import plan_rebuild
    from service.store.redis_client import connect, for_jobs
    from workers.jobs import run_here

    embedded = None
    if not settings.redis_url and not EmbeddedRedis(settings.data_dir).answers():
        embedded = EmbeddedRedis(settings.data_dir).start()
    try:
        client = connect(redis_url(settings))
        jobs_redis = for_jobs(settings.rq_redis_url, client)
        keys = Keys(settings.namespace, settings.feed_partitions)
        matches = Matches(client, settings, jobs_redis=jobs_redis)
        plan = plan_rebuild(client, matches.repository, [p["id"] for p in Platforms(client, keys).listed()])
        queue = JobQueue(jobs_redis, keys)
        started = time.monotonic()
        ids = [
            queue.enqueue_rebuild(platform, pool, match_ids)
            for (platform, pool), match_ids in sorted(plan.items())
        ]
        if here:
            run_here(matches, jobs_redis, client)
            queue.work_through((ANALYSES,))
        print(
            json.dumps(
                {
                    "pools": len(plan),
                    "matches": sum(map(len, plan.values())),
                    "jobs": ids,
                    "ran_here": here,
                    "seconds": round(time.monotonic() - started, 2),
                },
                indent=2,
            )
        )
    finally:
        if embedded is not None:
            embedded.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="matchlog", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("serve", "api"):
        sub = commands.add_parser(name)
        sub.add_argument("--host", default="127.0.0.1")
        sub.add_argument("--port", type=int, default=8000)
        sub.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
        sub.add_argument(
            "--data", help="folder of the embedded Redis (default: $MATCHLOG_DATA or ./matchlog-data)"
        )
    worker = commands.add_parser("worker")
    worker.add_argument("--data", help="folder of the embedded Redis to join when REDIS_URL is unset")
    worker.add_argument(
        "--queues",
        type=queue_kinds,
        help="the kinds of jobs this worker takes, in its order of priority (default: all, as listed in "
        "service/store/jobqueue.py: clocks first); "
        "the queue of older releases is drained by every worker",
    )
    worker.add_argument(
        "--no-rules",
        dest="rules",
        action="store_false",
        help="run jobs only: the projector (and the moving of due deadlines) runs in other workers",
    )
    commands.add_parser("openapi")
    keys = commands.add_parser(
        "keys", help="platform keys: create NAME, list, rotate PLATFORM, revoke PLATFORM"
    )
    keys.add_argument("action", choices=["create", "list", "rotate", "revoke"])
    keys.add_argument(
        "subject",
        nargs="?",
        metavar="NAME|PLATFORM",
        help="create: the platform's name (its site, say); rotate, revoke: the platform's id",
    )
    keys.add_argument(
        "--grace",
        type=duration,
        default=0,
        metavar="DURATION",
        help="rotate: keep the old key working this long (e.g. 30m, 2h, 1d; default 0: it stops at "
        "once), so that every server of the platform can take the new key first",
    )
    keys.add_argument("--data", help="folder of the embedded Redis to use when REDIS_URL is unset")
    move = commands.add_parser(
        "migrate",
        help="move keys to this version's layout: hash-tagged by feed "
        "partition (stop the API and workers first)",
    )
    move.add_argument(
        "--from",
        dest="source",
        help="copy from this Redis (e.g. the single Redis a cluster at "
        "REDIS_URL replaces); default: migrate REDIS_URL in place",
    )
    move.add_argument("--data", help="folder of the embedded Redis to use when REDIS_URL is unset")
    audit = commands.add_parser("replay", help="re-run an exported log: matchlog replay events.json")
    audit.add_argument(
        "log", help="a file holding GET /v1/matches/{id}/log (or a whole /events page), - for stdin"
    )
    audit.add_argument("--seed", help="the seed, for a match still running (a finished log reveals it)")
    audit.add_argument("--salt", help="the seed's salt, with --seed")
    audit.add_argument(
        "--checkpoint",
        help="a file holding GET /v1/matches/{id}/checkpoint (or /v1/tournaments/{id}/checkpoint): prove the "
        "log is the one the server signed (taken at its last entry: after the match ends), of the match (or "
        "tournament) it names",
    )
    audit.add_argument(
        "--public-key",
        help="the server's public key the checkpoint must be signed with (needed with --checkpoint)",
    )
    audit.add_argument(
        "--match", help="the id of the match the log must be of (exit 1 when it is of another, or names none)"
    )
    audit.add_argument(
        "--matches",
        nargs="*",
        default=[],
        metavar="MATCH_LOG",
        help="with a tournament's log (GET /v1/tournaments/{id}/log): its matches' logs, each audited and its "
        "result compared with the one the tournament recorded",
    )
    rated = commands.add_parser("ratings", help="ratings rebuild: compute every rating again from the logs")
    rated.add_argument("action", choices=["rebuild"])
    rated.add_argument(
        "--here",
        action="store_true",
        help="run the rebuild's jobs in this process too (else the workers share them)",
    )
    rated.add_argument("--data", help="folder of the embedded Redis to use when REDIS_URL is unset")
    for name, sub in commands.choices.items():
        sub.set_defaults(run=RUN[name], parser=sub)
    args = parser.parse_args(argv)
    args.run(args)


def _settings(args: argparse.Namespace) -> Settings:
    """For the long-running and administrative commands: their logging, and the settings of the environment
    (with ``--data``), or the exit that says what is wrong with them."""
    from service.http.middleware.request_hooks import configure_logging
    from service.store.redis_client import is_cluster

    configure_logging()  # one JSON object per log line
    env = dict(os.environ)
    if getattr(args, "data", None):
        env["MATCHLOG_DATA"] = args.data
    try:
        settings = Settings.from_env(env)
    except (RuntimeError, ValueError) as error:  # no secret and nowhere to keep one; a setting out of range
        sys.exit(f"matchlog: {error}")
    if (
        args.command in ("api", "worker")
        and settings.redis_url
        and is_cluster(settings.redis_url)
        and not settings.rq_redis_url
    ):
        sys.exit(
            "matchlog: RQ cannot run on a Redis Cluster: set RQ_REDIS_URL to a single Redis for the job queue "
            "(matchlog serve starts an embedded one)"
        )
    return settings


def _api(args: argparse.Namespace) -> None:
    # gunicorn's gevent workers are forked from this process: patch before anything imports ssl, socket or
    # threading (this module imports none of them; ``_settings`` is the first)
    serving.patch()
    run_api(_settings(args), args.host, args.port, args.workers)


def _replay(args: argparse.Namespace) -> None:
    if (
        args.checkpoint and not args.public_key
    ):  # whoever rebuilds a chain can sign its head with a key of his own
        args.parser.error(
            "--checkpoint needs --public-key: the server's key, pinned from GET /v1/signing-key; "
            "a checkpoint checked against the key it carries proves nothing"
        )
    tournament = tournament_log(args.log)
    if tournament is not None:
        sys.exit(replay_tournament(tournament, args.seed, args.matches, args.checkpoint, args.public_key))
    if args.matches:
        args.parser.error("--matches goes with a tournament's log")
    sys.exit(replay_log(args.log, args.seed, args.salt, args.checkpoint, args.public_key, args.match))


RUN = {
    "serve": lambda args: serve(_settings(args), args.host, args.port, args.workers),
    "api": lambda args: _api(args),
    "worker": lambda args: run_worker(_settings(args), args.queues, args.rules),
    "openapi": lambda args: print_openapi(),
    "keys": lambda args: manage_keys(_settings(args), args.action, args.subject, args.grace),
    "migrate": lambda args: migrate_keys(_settings(args), args.source),
    "replay": _replay,
    "ratings": lambda args: rebuild_ratings(_settings(args), args.here),
}
"""What each ``matchlog`` command runs, given its parsed arguments."""


if __name__ == "__main__":
    main()
