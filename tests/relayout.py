"""The move of ``service/``'s flat modules into layer packages (issue 40, point 1), as a codemod that can be
run again on any tree:

    python -m tests.relayout move      # git mv each module to its package, write the packages' __init__.py
                                       # and service/moved.py (the old paths, importable for one release)
    python -m tests.relayout rewrite   # rewrite every reference to an old path (imports, strings, docs)
    python -m tests.relayout check     # list what still names an old path (exit 1 if anything does)

``MAPPING`` is the single source of truth: old dotted module -> new dotted module. ``move`` skips what has
already moved. ``rewrite`` is idempotent: it changes only references to the old paths, and no new path
contains an old one (no module of the old layout was named ``domain``, ``store``, ``application`` or
``http``), so a second run finds nothing to change. Run it after merging a branch written against the old
layout: git's rename detection carries the branch's changes into the moved files, and ``rewrite`` fixes the
imports it added. A line holding ``relayout: keep`` is left as it is.

What is rewritten, in every file git knows (tracked or untracked, not ignored) of these kinds: ``*.py``
(``from service import a, b``, ``from service.a import x``, ``import service.a``, and ``service.a`` or
``service/a.py`` anywhere in the text: RQ job paths, mock targets, subprocess ``-m`` arguments), ``*.md``
(but the changelog and the benchmarks' history, whose entries tell what was true when they were written),
``pyproject.toml``, ``mkdocs.yml``, ``Dockerfile``, ``compose.yaml``, ``.ci/run``, everything under
``deploy/``, ``examples/`` and ``workers/``, and the games' ``contract.json`` (their ``$comment`` names the
OpenAPI assembly).

A module imported by its name (``from service import views``) whose name changes gets the new name where
it is used (``views.listed`` -> ``projections.listed``), unless the file binds either name otherwise (a
variable ``views``, a parameter ``projections``...): then the import keeps the old binding
(``from service.domain import projections as views``). The Python files changed are then sorted and
formatted by ruff (``--select I --fix``, ``format``), as CI checks them.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MAPPING: dict[str, str] = {
    # domain: pure, no I/O (the match, its log, its rules' shell, what is shown of it)
    "service.chain": "service.domain.chain",
    "service.frozen": "service.domain.immutable",
    "service.clocks": "service.domain.clocks",
    "service.replay": "service.domain.replay",
    "service.lifecycle": "service.domain.lifecycle",
    "service.views": "service.domain.projections",
    "service.analysis": "service.domain.analysis",
    "service.ratings": "service.domain.ratings",
    "service.audit": "service.domain.audit",
    "service.tokens": "service.domain.tokens",
    "service.serverkey": "service.domain.serverkey",
    # store: what is kept, and the only package that talks to Redis and RQ
    "service.keys": "service.store.keys",
    "service.redis_client": "service.store.redis_client",
    "service.embedded_redis": "service.store.embedded_redis",
    "service.events": "service.store.events",
    "service.snapshots": "service.store.snapshots",
    "service.repository": "service.store.repository",
    "service.rows": "service.store.rows",
    "service.listings": "service.store.listings",
    "service.packs": "service.store.packs",
    "service.platforms": "service.store.platforms",
    "service.players": "service.store.players",
    "service.analyses": "service.store.analyses",
    "service.webhooks": "service.store.webhooks",
    "service.budgets": "service.store.budgets",
    "service.jobqueue": "service.store.jobqueue",
    "service.migrate": "service.store.migrate",
    # application: the use cases the API, the workers and the CLI call
    "service.matches": "service.application.matches",
    "service.livefeed": "service.application.livefeed",
    # http: the only package that imports Flask
    "service.app": "service.http.app",
    "service.api": "service.http.routes",
    "service.players_api": "service.http.player_routes",
    "service.analysis_api": "service.http.analysis_routes",
    "service.errors": "service.http.errors",
    "service.auth": "service.http.auth",
    "service.schemas": "service.http.schemas",
    "service.fastload": "service.http.fastload",
    "service.contract": "service.http.openapi_components",
    "service.moves": "service.http.moves_socket",
    "service.frames": "service.http.websocket_frames",
    "service.homes": "service.http.home_workers",
    "service.guards": "service.http.middleware.guards",
    "service.ratelimits": "service.http.middleware.ratelimits",
    "service.manners": "service.http.middleware.request_hooks",
    "service.viewer": "service.http.viewer",
    "service.apidocs": "service.http.apidocs",
    # staying at the top of service/, the runtime that wires the layers: cli, config, serving, processes,
    # metrics (and moved, written here)
}

PACKAGES: dict[str, str] = {
    "service": "matchlog's server: the layers (domain, store, application, http), the games, and at the top "
    "the runtime that wires them (cli, config, serving, processes, metrics).",
    "service.domain": "The pure domain: a match's log and chain, its fold, life and clocks, what is shown of it, "
    "its analysis and ratings; no I/O, nothing but the games and pure libraries.",
    "service.store": "What is kept, and how: the event store, the repository and its snapshots, listings, "
    "platforms, players, analyses, webhooks, jobs and keys; the only package that imports redis and rq.",
    "service.application": "The use cases the API, the workers and the CLI call: the match commands and "
    "queries, and the live feed; they use the domain's decisions and the stores.",
    "service.http": "The HTTP API: the Flask app, its routes, middleware, errors, auth, the moves socket, the "
    "OpenAPI contract's assembly, the viewer and /docs; the only package that imports Flask.",
    "service.http.middleware": "What every request passes through around its route: guards, rate limits, the "
    "request hooks (request id, CORS, access log, metrics), as the steps of one pipeline.",
}

KEEP = "relayout: keep"
SKIPPED = {"tests/relayout.py", "service/moved.py", "docs/changelog.md", "docs/benchmarks-history.md"}
"""Not rewritten: this file and the aliases (they name the old paths on purpose), and the history pages,
whose entries tell what was true when they were written."""
NAMED_FILES = {"pyproject.toml", "mkdocs.yml", "Dockerfile", "compose.yaml", ".ci/run"}
FOLDERS = ("deploy/", "examples/", "workers/")

MOVED_MODULE = '''"""The modules' paths before the layer packages (0.13 and earlier), importable for one more
release: the old name of each is the module itself (``service.matches`` is ``service.application.matches``), with a
DeprecationWarning.

RQ jobs name ``workers.jobs.*`` functions and carry plain arguments, so the jobs an older release enqueued run
as they are; this is for what else may name an old path: a job's pickled result, a gunicorn command line, a
program importing the service. Written from ``tests/relayout.py``'s ``MAPPING`` by ``python -m tests.relayout
move``; remove it in the release after 0.14 (docs/reference/naming.md, Deprecations).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings

MOVED = {
%s}


def new_name(name: str) -> str | None:
    """The module's name in this release, if ``name`` is (or is inside) a module that moved."""
    for old, new in MOVED.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old) :]
    return None


class OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path and hands over the module at its new one (the same module object)."""

    def find_spec(self, name, path=None, target=None):
        if new_name(name) is None:
            return None
        return importlib.machinery.ModuleSpec(name, self)

    def create_module(self, spec):
        return types.ModuleType(spec.name)  # a placeholder: exec_module puts the real module in its place

    def exec_module(self, module):
        new = new_name(module.__name__)
        assert new is not None
        warnings.warn(f"{module.__name__} is now {new}", DeprecationWarning, stacklevel=2)
        sys.modules[module.__name__] = importlib.import_module(new)


def install() -> None:
    if not any(isinstance(finder, OldPaths) for finder in sys.meta_path):
        sys.meta_path.append(OldPaths())
'''

INIT_MODULE = '''"""%s"""

from service import moved as _moved

_moved.install()
'''


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout


def path_of(module: str, package: bool = False) -> Path:
    return (
        ROOT.joinpath(*module.split(".")) if package else ROOT.joinpath(*module.split(".")).with_suffix(".py")
    )


# -- move ------------------------------------------------------------------------------------------------


def move() -> None:
    for package, docstring in PACKAGES.items():
        init = path_of(package, package=True) / "__init__.py"
        init.parent.mkdir(parents=True, exist_ok=True)
        wrapped = "\n".join(textwrap.wrap(docstring, 110, initial_indent='"""')).removeprefix('"""')
        if package == "service":
            init.write_text(INIT_MODULE % wrapped)
        elif not init.exists():
            init.write_text(f'"""{wrapped}"""\n')
    for old, new in MAPPING.items():
        old_file, new_file = path_of(old), path_of(new)
        old_dir, new_dir = path_of(old, package=True), path_of(new, package=True)
        if old_file.exists():
            git("mv", str(old_file.relative_to(ROOT)), str(new_file.relative_to(ROOT)))
        elif old_dir.is_dir() and (old_dir / "__init__.py").exists():
            git("mv", str(old_dir.relative_to(ROOT)), str(new_dir.relative_to(ROOT)))
        elif not (new_file.exists() or new_dir.is_dir()):
            sys.exit(f"{old}: neither it nor {new} is here")
    table = "".join(f'    "{old}": "{new}",\n' for old, new in MAPPING.items())
    (ROOT / "service" / "moved.py").write_text(MOVED_MODULE % table)
    git("add", "service")


# -- rewrite ---------------------------------------------------------------------------------------------

OLD_STEMS = {old.split(".")[1]: new for old, new in MAPPING.items()}
_STEMS = "|".join(sorted(OLD_STEMS, key=len, reverse=True))
DOTTED = re.compile(rf"(?<![\w.\-])service\.({_STEMS})(?![\w])")
SLASHED = re.compile(rf"(?<![\w.\-])service/({_STEMS})(?![\w])")


def _dotted(match: re.Match) -> str:
    return OLD_STEMS[match.group(1)]


def _slashed(match: re.Match) -> str:
    return OLD_STEMS[match.group(1)].replace(".", "/")


def rewrite_text(text: str) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(
        line if KEEP in line else SLASHED.sub(_slashed, DOTTED.sub(_dotted, line)) for line in lines
    )


def _bindings(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names the file binds by import, and those it binds any other way (assignments, parameters,
    definitions...)."""
    imported: set[str] = set()
    other: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            other.add(node.id)
        elif isinstance(node, ast.arg):
            other.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            other.add(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            other.update(node.names)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            other.add(node.name)
        elif isinstance(node, ast.alias):
            imported.add((node.asname or node.name).split(".")[0])
    return imported, other


class Source:
    """A file's text, with ast's positions (a line, and a column in UTF-8 bytes) turned into offsets."""

    def __init__(self, text: str):
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + len(self.lines[line - 1].encode()[:column].decode())

    def comment_after(self, alias: ast.alias, node: ast.ImportFrom) -> str:
        """The comment that ends an import's line after ``alias``, if no other name follows it there (the
        last line's comment stays where it is: the rewrite ends before it)."""
        line = alias.end_lineno or alias.lineno
        if line == node.end_lineno:
            return ""
        rest = self.lines[line - 1].encode()[alias.end_col_offset or 0 :].decode()
        found = re.fullmatch(r"\s*,?\s*(#.*?)\s*", rest)
        return found.group(1) if found else ""

    def kept(self, first: int, last: int) -> bool:
        return any(KEEP in self.lines[n - 1] for n in range(first, last + 1))


def rewrite_imports(text: str) -> str:
    """``from service import a, b`` -> one import per new package, renaming the uses of a renamed module."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    source = Source(text)
    imports = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module == "service"
        and node.level == 0
        and any(alias.name in OLD_STEMS for alias in node.names)
        and not source.kept(node.lineno, node.end_lineno or node.lineno)
    ]
    if not imports:
        return text
    imported, other = _bindings(tree)
    renames: dict[str, str] = {}  # old binding -> new, for modules imported by a name that changes
    for node in imports:
        for alias in node.names:
            if alias.name in OLD_STEMS and not alias.asname:
                stem = OLD_STEMS[alias.name].rpartition(".")[2]
                if (
                    stem != alias.name
                    and alias.name not in other
                    and stem not in other | imported
                    and stem not in renames.values()
                    and _renamable(tree, source, alias.name)
                ):
                    renames[alias.name] = stem
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement), offsets in characters
    for node in imports:
        by_package: dict[str, list[tuple[str, str]]] = defaultdict(list)  # package -> (name, its comment)
        for alias in node.names:
            comment = source.comment_after(alias, node)
            if alias.name not in OLD_STEMS:
                name = alias.name + (f" as {alias.asname}" if alias.asname else "")
                by_package["service"].append((name, comment))
                continue
            package, _, stem = OLD_STEMS[alias.name].rpartition(".")
            binding = alias.asname or renames.get(alias.name, alias.name)
            by_package[package].append((stem if binding == stem else f"{stem} as {binding}", comment))
        indent = " " * node.col_offset
        statements = []
        for package, names in sorted(by_package.items()):
            if any(comment for _, comment in names):  # one name a line, each with its comment
                listed = "".join(
                    f"{indent}    {name},{'  ' + comment if comment else ''}\n" for name, comment in names
                )
                statements.append(f"from {package} import (\n{listed}{indent})")
            else:
                statements.append(f"from {package} import {', '.join(name for name, _ in names)}")
        start = source.offset(node.lineno, node.col_offset)
        end = source.offset(node.end_lineno or node.lineno, node.end_col_offset or 0)
        edits.append((start, end, ("\n" + indent).join(statements)))
    for used in ast.walk(tree):
        if isinstance(used, ast.Name) and used.id in renames:
            start = source.offset(used.lineno, used.col_offset)
            edits.append((start, start + len(used.id), renames[used.id]))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _renamable(tree: ast.AST, source: Source, name: str) -> bool:
    """Whether every use of ``name`` is at its place (not so inside some f-strings before Python 3.12) and
    none is on a line kept as it is."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name:
            start = source.offset(node.lineno, node.col_offset)
            if source.text[start : start + len(name)] != name or source.kept(node.lineno, node.lineno):
                return False
    return True


def in_scope(path: str) -> bool:
    if path in SKIPPED or "node_modules/" in path or path.startswith(".venv/"):
        return False
    return (
        path.endswith((".py", ".md"))
        or path in NAMED_FILES
        or path.startswith(FOLDERS)
        or (path.startswith("service/games/") and path.endswith("/contract.json"))
    )


def files() -> list[str]:
    try:
        listed = git("ls-files", "--cached", "--others", "--exclude-standard").splitlines()
    except subprocess.CalledProcessError:  # a copy of the tree outside git (tests/test_new_game_package.py)
        listed = [
            path.relative_to(ROOT).as_posix()
            for path in ROOT.rglob("*")
            if path.is_file()
            and not {".venv", "site", "node_modules", ".git"} & set(path.relative_to(ROOT).parts)
        ]
    return sorted({path for path in listed if in_scope(path) and (ROOT / path).is_file()})


def rewrite() -> list[str]:
    changed = []
    for path in files():
        try:
            before = (ROOT / path).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        after = rewrite_imports(before) if path.endswith(".py") else before
        after = rewrite_text(after)
        if after != before:
            (ROOT / path).write_text(after, encoding="utf-8")
            changed.append(path)
    python = [path for path in changed if path.endswith(".py")]
    if python:
        ruff = [sys.executable, "-m", "ruff"]
        subprocess.run([*ruff, "check", "--select", "I", "--fix", "--quiet", *python], cwd=ROOT, check=False)
        subprocess.run([*ruff, "format", "--quiet", *python], cwd=ROOT, check=True)
    return changed


def check() -> list[str]:
    """The files that still name an old path (their lines, one per finding)."""
    found = []
    for path in files():
        try:
            text = (ROOT / path).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if path.endswith(".py") and rewrite_imports(text) != text:
            found.append(f"{path}: imports a moved module from service")
        for number, line in enumerate(text.splitlines(), 1):
            if KEEP not in line and (DOTTED.search(line) or SLASHED.search(line)):
                found.append(f"{path}:{number}: {line.strip()}")
    return found


def main() -> None:
    step = sys.argv[1] if len(sys.argv) > 1 else ""
    if step == "move":
        move()
    elif step == "rewrite":
        for path in rewrite():
            print("rewrote", path)
    elif step == "check":
        found = check()
        print("\n".join(found) or "nothing names an old path")
        sys.exit(1 if found else 0)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
