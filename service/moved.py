"""The modules' paths before the layer packages (0.13 and earlier), importable for one more
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
from collections.abc import Sequence

MOVED = {
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
    "service.matches": "service.application.matches",
    "service.livefeed": "service.application.livefeed",
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
}


def new_name(name: str) -> str | None:
    """The module's name in this release, if ``name`` is (or is inside) a module that moved."""
    for old, new in MOVED.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old) :]
    return None


class OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path and hands over the module at its new one (the same module object)."""

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if new_name(name) is None:
            return None
        return importlib.machinery.ModuleSpec(name, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return types.ModuleType(spec.name)  # a placeholder: exec_module puts the real module in its place

    def exec_module(self, module: types.ModuleType) -> None:
        new = new_name(module.__name__)
        assert new is not None
        warnings.warn(f"{module.__name__} is now {new}", DeprecationWarning, stacklevel=2)
        sys.modules[module.__name__] = importlib.import_module(new)


def install() -> None:
    if not any(isinstance(finder, OldPaths) for finder in sys.meta_path):
        sys.meta_path.append(OldPaths())
