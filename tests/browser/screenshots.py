"""The docs' pictures of the play page (``docs/play-*.png``) made again from the browser tests' screenshots
(``test-artifacts/``), so that the docs show the pages as they are today, not as they were drawn once.

    python -m tests.browser.screenshots          # each docs picture replaced by its test's latest one
    python -m tests.browser.screenshots --run    # the browser tests that take them run first

Each picture's test is found by its file name in the browser tests' source (a ``_shoot(page, "blokus-end")``
takes ``play-blokus-end.png``). A picture the artifacts lack is named with the test that takes it, and the
exit status is 1; a picture no test takes is an error too, since nothing could keep it current.
"""

from __future__ import annotations

import argparse
import ast
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
ARTIFACTS = ROOT / "test-artifacts"
TESTS = Path(__file__).resolve().parent


def takers() -> dict[str, str]:
    """Each picture a browser test takes (``play-blokus-end.png``) and the test that takes it, as pytest
    names it (``tests/browser/test_play.py::test_...``)."""
    found: dict[str, str] = {}
    for module in sorted(TESTS.glob("test_*.py")):
        tree = ast.parse(module.read_text(), str(module))
        for function in tree.body:
            if not isinstance(function, ast.FunctionDef) or not function.name.startswith("test_"):
                continue
            node_id = f"{module.relative_to(ROOT)}::{function.name}"
            for node in ast.walk(function):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    said = node.value  # a whole file name, or the name _shoot makes one of
                    name = said if said.endswith(".png") else f"play-{said}.png"
                    found.setdefault(name, node_id)
    return found


# A picture of a page in another script is taken only where the machine has a font for it (Chromium draws
# boxes otherwise): Debian's fonts-noto-cjk has Korean's and Japanese's.
SCRIPTS = {"-korean.png": "ko", "-japanese.png": "ja"}


def has_font(language: str) -> bool:
    """Whether fontconfig knows a font for ``language`` (``fc-list :lang=ko``)."""
    try:
        listed = subprocess.run(["fc-list", f":lang={language}"], capture_output=True, text=True, timeout=60)
    except OSError:
        return False
    return bool(listed.stdout.strip())


def refresh(pictures: list[Path], taken: dict[str, str]) -> list[str]:
    """Copies each picture's artifact over it; the problems, one a line (empty when every one was)."""
    problems = []
    for picture in pictures:
        made = ARTIFACTS / picture.name
        language = next((code for end, code in SCRIPTS.items() if picture.name.endswith(end)), None)
        if picture.name not in taken:
            problems.append(f"{picture.name}: no browser test takes it")
        elif language and not has_font(language):
            problems.append(f"{picture.name}: this machine has no font for {language} (fonts-noto-cjk): kept")
        elif not made.exists():
            problems.append(f"{picture.name}: not in {ARTIFACTS}: run {taken[picture.name]}")
        else:
            shutil.copyfile(made, picture)
            print(f"{picture.name}: replaced by {made} ({made.stat().st_size} bytes)")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.browser.screenshots", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--run", action="store_true", help="run the browser tests that take the pictures first"
    )
    arguments = parser.parse_args(argv)
    pictures = sorted(DOCS.glob("play-*.png"))
    taken = takers()
    if arguments.run:
        tests = sorted({taken[p.name] for p in pictures if p.name in taken})
        command = [sys.executable, "-m", "pytest", "-n0", "--no-cov", "-p", "no:cacheprovider", *tests]
        print(" ".join(command[1:]), flush=True)
        if subprocess.run(command, cwd=ROOT).returncode != 0:
            print("a browser test failed: no picture replaced", file=sys.stderr)
            return 1
    problems = refresh(pictures, taken)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
