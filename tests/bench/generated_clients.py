"""What a contract costs a client: ``python -m tests.bench.generated_clients [--ref REF | --contract PATH]``.

Sizes the contract (``openapi.yaml``'s bytes, the compact UTF-8 JSON that ``/openapi.json`` serves, its
schemas), then generates a client from it with each of the three pinned generators and counts the files and
bytes each writes, then times compiling each (the median of ``--runs`` runs, 3 by default):

- openapi-typescript 7.4.4: ``tsc --strict --noEmit`` of the generated ``.d.ts`` and a small openapi-fetch
  program (``GET /v1/games``);
- @hey-api/openapi-ts 0.95.0 (its fetch client): ``tsc --strict --noEmit`` of a small program importing its
  SDK and types;
- openapi-python-client 0.29.1 (``tests/clients/python/config.yaml``): ``mypy --strict --no-incremental``
  of the generated package.

The contract is the working tree's ``openapi.yaml`` by default; ``--ref`` reads ``git show REF:openapi.yaml``
(a contract of an earlier commit), ``--contract`` a file. The TypeScript tools are those that ``npm ci`` in
``tests/clients/ts`` installs; the Python generator is the one beside this interpreter. A generator's
warnings and a compiler's errors are counted, not fatal: an older contract may not go through today's
generators cleanly. Times are wall-clock seconds (and the compilers' CPU seconds beside them: the machine
may be shared). Prints a table and, as the last line, one JSON object with every figure."""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from tests.bench.common import Figure, json_figures, machine, table

ROOT = Path(__file__).resolve().parents[2]
TS_TOOLS = ROOT / "tests" / "clients" / "ts"
PYTHON_CONFIG = ROOT / "tests" / "clients" / "python" / "config.yaml"

FETCH_PROGRAM = """\
import createClient from "openapi-fetch";
import type { paths } from "./matchlog";
const client = createClient<paths>({ baseUrl: "http://localhost:8000" });
export async function games(): Promise<number> {
  const listed = await client.GET("/v1/games");
  return listed.response.status;
}
"""

HEY_PROGRAM = """\
import * as sdk from "./hey/sdk.gen";
import type * as types from "./hey/types.gen";
export const operations: number = Object.keys(sdk).length;
export type Types = keyof typeof types;
"""


def contract_text(ref: str | None, path: Path | None) -> str:
    """The contract's text: ``REF:openapi.yaml``, a file, or the working tree's ``openapi.yaml``."""
    if ref is not None:
        shown = subprocess.run(
            ["git", "show", f"{ref}:openapi.yaml"], cwd=ROOT, capture_output=True, text=True, check=True
        )
        return shown.stdout
    return (path or ROOT / "openapi.yaml").read_text(encoding="utf-8")


def tree_size(folder: Path, suffixes: tuple[str, ...]) -> tuple[int, int]:
    """(files, bytes) of the files under ``folder`` whose names end with one of ``suffixes``."""
    files = [p for p in folder.rglob("*") if p.is_file() and p.name.endswith(suffixes)]
    return len(files), sum(p.stat().st_size for p in files)


def ran(command: list[str], folder: Path) -> tuple[subprocess.CompletedProcess, float, float]:
    """A command's result, its wall-clock seconds and the CPU seconds its processes used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done, wall, cpu


def timed(command: list[str], folder: Path, runs: int) -> tuple[float, float, subprocess.CompletedProcess]:
    """The median wall-clock and CPU seconds of ``runs`` runs of ``command``, and the last run's result."""
    walls, cpus = [], []
    for _ in range(runs):
        done, wall, cpu = ran(command, folder)
        walls.append(wall)
        cpus.append(cpu)
    return statistics.median(walls), statistics.median(cpus), done


def noise(output: str, said: tuple[str, ...]) -> int:
    """How many lines of a generator's output are not the banner it prints on a clean run (warnings)."""
    plain = re.sub(r"\x1b\[[0-9;]*m", "", output)
    return sum(1 for line in plain.splitlines() if line.strip() and not line.strip().startswith(said))


def errors_in(output: str, pattern: str) -> int:
    return len(re.findall(pattern, output, flags=re.MULTILINE))


def tsc(folder: Path, *files: str) -> list[str]:
    return [
        str(folder / "node_modules" / ".bin" / "tsc"),
        "--strict",
        "--noEmit",
        "--target",
        "es2022",
        "--module",
        "nodenext",
        "--moduleResolution",
        "nodenext",
        *files,
    ]


def measure(text: str, runs: int) -> list[Figure]:
    """Every figure of one contract."""
    document = yaml.safe_load(text)
    served = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
    figures = [
        Figure("contract.yaml_bytes", "openapi.yaml", len(text.encode()), "bytes"),
        Figure("contract.json_bytes", "/openapi.json (compact, as served)", len(served), "bytes"),
        Figure("contract.schemas", "schemas", len(document.get("components", {}).get("schemas", {}))),
        Figure("contract.operations", "operations", sum(len(item) for item in document["paths"].values())),
    ]
    tools = TS_TOOLS / "node_modules"
    if not tools.is_dir():
        sys.exit(f"run `npm ci` in {TS_TOOLS} first: the TypeScript generators and tsc come from there")
    with tempfile.TemporaryDirectory(prefix="bench-clients-") as work:
        folder = Path(work)
        (folder / "openapi.yaml").write_text(text, encoding="utf-8")
        (folder / "node_modules").symlink_to(tools)
        figures += openapi_typescript(folder, runs)
        figures += hey_api(folder, runs)
        figures += python_client(folder, runs)
    return figures


def generated(
    key: str,
    name: str,
    checker: str,
    warnings: int,
    wall: float,
    output: tuple[int, int],
    checked: tuple[float, float, int],
) -> list[Figure]:
    """One generator's figures, named alike for all three: its warnings and time, the ``output``'s files and
    bytes, and the ``checked`` compile (``checker``: tsc or mypy) median, CPU and errors."""
    files, size = output
    median, cpu, errors = checked
    return [
        Figure(f"{key}.warnings", f"{name}: warnings", warnings),
        Figure(f"{key}.generate_s", f"{name}: generate", wall, "s"),
        Figure(f"{key}.files", f"{name}: files", files),
        Figure(f"{key}.bytes", f"{name}: bytes", size, "bytes"),
        Figure(f"{key}.{checker}_s", f"{name}: {checker} --strict, median", median, "s"),
        Figure(f"{key}.{checker}_cpu_s", f"{name}: {checker} CPU, median", cpu, "s"),
        Figure(f"{key}.{checker}_errors", f"{name}: {checker} errors", errors),
    ]


def openapi_typescript(folder: Path, runs: int) -> list[Figure]:
    done, wall, _ = ran(
        [str(folder / "node_modules" / ".bin" / "openapi-typescript"), "openapi.yaml", "-o", "matchlog.d.ts"],
        folder,
    )
    if done.returncode != 0:
        return [Figure("openapi_typescript.failed", "openapi-typescript: failed", done.returncode)]
    (folder / "fetch.ts").write_text(FETCH_PROGRAM, encoding="utf-8")
    median, cpu, compiled = timed(tsc(folder, "fetch.ts", "matchlog.d.ts"), folder, runs)
    size = (folder / "matchlog.d.ts").stat().st_size
    return generated(
        "openapi_typescript",
        "openapi-typescript",
        "tsc",
        noise(done.stdout + done.stderr, ("✨ openapi-typescript", "🚀")),
        wall,
        (1, size),
        (median, cpu, errors_in(compiled.stdout, r"error TS\d+")),
    )


def hey_api(folder: Path, runs: int) -> list[Figure]:
    done, wall, _ = ran(
        [
            str(folder / "node_modules" / ".bin" / "openapi-ts"),
            "--input",
            "openapi.yaml",
            "--output",
            "hey",
            "--client",
            "@hey-api/client-fetch",
        ],
        folder,
    )
    if done.returncode != 0:
        return [Figure("hey_api.failed", "@hey-api/openapi-ts: failed", done.returncode)]
    (folder / "hey_program.ts").write_text(HEY_PROGRAM, encoding="utf-8")
    median, cpu, compiled = timed(tsc(folder, "hey_program.ts"), folder, runs)
    files, size = tree_size(folder / "hey", (".ts",))
    return generated(
        "hey_api",
        "@hey-api/openapi-ts",
        "tsc",
        noise(done.stdout + done.stderr, ("@hey-api/openapi-ts v", "[Job 1]")),
        wall,
        (files, size),
        (median, cpu, errors_in(compiled.stdout, r"error TS\d+")),
    )


def python_client(folder: Path, runs: int) -> list[Figure]:
    generator = Path(sys.executable).with_name("openapi-python-client")
    done, wall, _ = ran(
        [
            str(generator),
            "generate",
            "--path",
            "openapi.yaml",
            "--output-path",
            "matchlog_client",
            "--meta",
            "none",
            "--config",
            str(PYTHON_CONFIG),
        ],
        folder,
    )
    package = folder / "matchlog_client"
    if done.returncode != 0 or not package.is_dir():
        return [Figure("python.failed", "openapi-python-client: failed", done.returncode)]
    checked = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.devnull]
    median, cpu, compiled = timed([*checked, "matchlog_client"], folder, runs)
    files, size = tree_size(package, (".py",))
    return generated(
        "python",
        "openapi-python-client",
        "mypy",
        noise(done.stdout + done.stderr, ("Generating ",)),
        wall,
        (files, size),
        (median, cpu, errors_in(compiled.stdout, r": error: ")),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench.generated_clients",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--ref", help="the openapi.yaml of this git commit (git show REF:openapi.yaml)")
    which.add_argument("--contract", type=Path, help="an openapi.yaml file (default: the working tree's)")
    parser.add_argument("--runs", type=int, default=3, help="compile runs, of which the median (default 3)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    source = f"git show {args.ref}:openapi.yaml" if args.ref else str(args.contract or "openapi.yaml")
    figures = [*machine(), Figure("contract.source", "contract", source)]
    figures += measure(contract_text(args.ref, args.contract), args.runs)
    print(table(figures))
    print(json.dumps(json_figures(figures)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
