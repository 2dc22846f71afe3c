"""The shape of the code, as figures: the largest modules, the longest functions, and how many of the
project's own modules each module imports. For a maintainer's before and after (issue notes, reviews):

    python -m tests.structure              # the working tree
    python -m tests.structure --rev 1a2b3c # a commit, read from git without checking it out

Prints a table, then one JSON line. Counts lines as the files hold them (docstrings and comments included).
"""

from __future__ import annotations

import argparse
import ast
import json
import statistics
import subprocess
import sys
from pathlib import Path

PACKAGES = ("service", "workers")
ROOT = Path(__file__).resolve().parent.parent


def sources(rev: str | None) -> dict[str, str]:
    """The project's Python files (``service/``, ``workers/``) by path, in the tree or at ``rev``."""
    if rev is None:
        return {
            str(path.relative_to(ROOT)): path.read_text()
            for package in PACKAGES
            for path in sorted((ROOT / package).rglob("*.py"))
        }
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-tree", "-r", "--name-only", rev, *PACKAGES],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return {
        path: subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{rev}:{path}"], check=True, capture_output=True, text=True
        ).stdout
        for path in listed
        if path.endswith(".py")
    }


def module_name(path: str) -> str:
    parts = path[: -len(".py")].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def own_imports(tree: ast.Module, name: str) -> set[str]:
    """The project's modules that ``name`` imports (``from service import a, b`` counts a and b)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] in PACKAGES)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PACKAGES:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found - {name}


def figures(files: dict[str, str]) -> dict:
    modules = {module_name(path): path for path in files}
    lengths = {path: text.count("\n") + 1 for path, text in files.items()}
    functions = []
    imports = {}
    for path, text in files.items():
        tree = ast.parse(text)
        name = module_name(path)
        imports[name] = len(own_imports(tree, name) & modules.keys())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                functions.append((node.end_lineno - node.lineno + 1, f"{path}:{node.lineno} {node.name}"))
    functions.sort(reverse=True)
    largest = max(lengths, key=lambda path: lengths[path])
    return {
        "modules": len(files),
        "lines": sum(lengths.values()),
        "largest_module": [largest, lengths[largest]],
        "longest_functions": [[where, length] for length, where in functions[:10]],
        "functions_over_40_lines": sum(1 for length, _ in functions if length > 40),
        "imports_per_module_mean": round(statistics.mean(imports.values()), 2),
        "imports_per_module_max": max(imports.items(), key=lambda item: item[1]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", help="a git commit (default: the working tree)")
    args = parser.parse_args()
    found = figures(sources(args.rev))
    print(f"structure of {args.rev or 'the working tree'}")
    print(f"| modules | {found['modules']} |\n| lines | {found['lines']} |")
    print(f"| largest module | {found['largest_module'][0]} ({found['largest_module'][1]} lines) |")
    print(f"| functions over 40 lines | {found['functions_over_40_lines']} |")
    most = found["imports_per_module_max"]
    print(
        f"| own modules imported per module | mean {found['imports_per_module_mean']}, most {most[1]} ({most[0]}) |"
    )
    print("| ten longest functions | lines |")
    for where, length in found["longest_functions"]:
        print(f"| {where} | {length} |")
    print(json.dumps({"structure": args.rev or "tree", **found}), file=sys.stdout)


if __name__ == "__main__":
    main()
