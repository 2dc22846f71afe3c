"""``python -m tests.bench.pentobi --pentobi PATH [--books DIR] [--variant duo|classic_2] [--levels 1,2,3]
[--games N] [--first I] [--bot-level L] [--width W] [--seconds-per-move S] [--parity] [--jobs J]``

The strongest Blokus bot, ``blokus-strong`` at its highest level, against Pentobi's GTP engine at
Pentobi's levels (issue 44, point 5). Pentobi is GPL and a separate program: it is not part of this
repository, of its install or of CI. Build its GTP engine (no GUI, no Qt) from its public source::

    git clone https://github.com/enz/pentobi /work/pentobi-src      # or any release's source archive
    cmake -S /work/pentobi-src -B /work/pentobi-build \\
        -DPENTOBI_BUILD_GUI=OFF -DPENTOBI_BUILD_GTP=ON -DCMAKE_BUILD_TYPE=Release
    make -C /work/pentobi-build -j2 pentobi-gtp                     # a C++20 compiler and CMake >= 3.22

then run, from the repository's root::

    nice python -m tests.bench.pentobi --pentobi /work/pentobi-build/pentobi_gtp/pentobi-gtp \\
        --books /work/pentobi-src/opening_books --variant duo --levels 1 --games 100

Pentobi runs as ``pentobi-gtp --game duo|classic_2 --level N --threads 1 --quiet --noresign`` with its
opening book (``--books``: the source's ``opening_books`` folder; its levels 1 to 3 take at most two
moves per colour from it, as its GUI does) or ``--nobook`` without one, seeded per game
(``set_random_seed``), so a game replays exactly. Each game is played in this process through the
engine (pure functions, no HTTP), the game Pentobi plays: ``scoring: advanced`` (Pentobi's points: the
squares placed, +15 for every piece placed, +20 if the monomino was last). Colours alternate: our bot
moves first in the even-numbered games. Our bot chooses as the server's bot worker does
(``tests.bench.bots.seat_view``: the seat's view, the legal actions, the state), with a generator
seeded from the game and the move number.

Both programs check each other; any disagreement stops the run with an error naming the game and
move (a parity failure of our rules against Pentobi's):

- every move Pentobi generates is played through our engine, which must accept it;
- every move our bot plays is sent with ``play``, which Pentobi refuses if its rules do (it never
  accepts an illegal move by default);
- Pentobi must not pass while our engine lists a placement for the colour;
- at the end, Pentobi must list no legal move for any colour (``all_legal``) and its ``final_score``
  must be our score difference;
- with ``--parity``, at every decision Pentobi's ``all_legal`` must be exactly our engine's placements.

Prints the machine, a table per (variant, level) -- games, wins / draws / losses, the win rate (draws
count half) with its 95 % Wilson interval, our bot's mean and max seconds of CPU per move, Pentobi's --
and, as its very last line, one JSON object with every figure. The goal (from the issue): a win rate of
at least 0.5 against level 1 in Duo at no more than ``--seconds-per-move`` (2 s) per move on one core.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import random
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.games.blokus import sgf
from service.games.blokus.bot import WIDTH, BlokusStrongBot
from service.games.blokus.engine import VARIANTS, Blokus
from service.games.protocol import IllegalAction, InvalidRecord
from tests.bench.bots import seat_view
from tests.bench.common import Figure, json_figures, machine, table

PENTOBI_GAME = {"duo": "duo", "two_player": "classic_2"}
"""Our variant -> Pentobi's ``--game``."""
VARIANT_OF = {"duo": "duo", "classic_2": "two_player"}
"""The ``--variant`` argument (Pentobi's name) -> our variant."""
BOOKS = {"duo": "book_duo.blksgf", "two_player": "book_classic_2.blksgf"}
BUILD = __doc__.split("::")[1].split("then run")[0].strip("\n")
"""How to build ``pentobi-gtp``: printed when ``--pentobi`` is missing."""


class ParityError(Exception):
    """Pentobi and our engine disagree about the rules: a move, a pass, the end or the score."""


class Pentobi:
    """One ``pentobi-gtp`` process, spoken to over GTP on its stdin and stdout."""

    def __init__(self, path: str, game: str, level: int, book: str | None):
        args = [path, "--game", game, "--level", str(level), "--threads", "1", "--quiet", "--noresign"]
        args += ["--book", book] if book else ["--nobook"]
        self.process = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

    def ask(self, command: str) -> str:
        """The answer to ``command``; GtpError if Pentobi refuses it (``? ...``)."""
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise GtpError(f"pentobi-gtp ended while answering {command!r}")
            if line.strip() == "" and lines:
                break
            if line.strip() or lines:
                lines.append(line.rstrip("\n"))
        answer = "\n".join(lines)
        if answer.startswith("?"):
            raise GtpError(f"pentobi-gtp refused {command!r}: {answer[1:].strip()}")
        if not answer.startswith("="):
            raise GtpError(f"pentobi-gtp answered {command!r} with {answer!r}")
        return answer[1:].strip()

    def close(self) -> None:
        with contextlib.suppress(GtpError, OSError):
            self.ask("quit")
        self.process.wait(timeout=10)


class GtpError(Exception):
    """Pentobi refused a command or stopped answering."""


@dataclass(frozen=True)
class Job:
    pentobi: str
    books: str | None
    variant: str  # ours
    level: int  # Pentobi's
    index: int
    bot_level: int
    width: int | None
    parity: bool


_PROCESSES: dict[tuple, Pentobi] = {}
"""One Pentobi per (path, variant, level, book) in each process that plays games: a game starts with
``clear_board``, so a process serves every game of its pairing."""


def _pentobi(job: Job) -> Pentobi:
    book = str(Path(job.books) / BOOKS[job.variant]) if job.books else None
    key = (job.pentobi, job.variant, job.level, book)
    if key not in _PROCESSES:
        _PROCESSES[key] = Pentobi(job.pentobi, PENTOBI_GAME[job.variant], job.level, book)
    return _PROCESSES[key]


def _cells(cells: Sequence[Sequence[int]]) -> frozenset[tuple[int, int]]:
    return frozenset((x, y) for x, y in cells)


def play_game(job: Job) -> dict[str, Any]:
    """One game of our bot against Pentobi; raises ParityError on any disagreement."""
    from service.games import GAMES

    engine = GAMES["blokus"]
    assert isinstance(engine, Blokus)
    variant = VARIANTS[job.variant]
    width = dict.fromkeys(WIDTH, job.width) if job.width else None
    bot = BlokusStrongBot(width)
    where = f"{job.variant} vs level {job.level}, game {job.index}"
    pentobi = _pentobi(job)
    seed = f"pentobi-bench-{job.variant}-{job.level}-{job.index}"
    pentobi.ask("clear_board")
    pentobi.ask(f"set_random_seed {int.from_bytes(hashlib.sha256(seed.encode()).digest()[:4], 'big')}")
    pentobi_cpu = 0.0  # its CPU in genmove only (not in ``all_legal``)
    ours = job.index % 2  # our bot moves first in the even-numbered games
    state = engine.setup(engine.resolve_options({"variant": job.variant, "scoring": "advanced"}, 2), 2, seed)
    spent: list[float] = []
    pentobi_moves = 0
    while not engine.is_over(state):
        seat, colour = engine.to_act(state)[0], state["to_move"]
        tag = sgf.move_tag(variant, colour)
        at = f"{where}, move {state['placements'] + 1} ({variant.colours[colour]})"
        if job.parity:
            _same_legal_sets(engine, pentobi, state, colour, tag, at)
        if seat == ours:
            start = time.process_time()
            view = seat_view(engine, state, seat, job.bot_level)
            mixed = hashlib.sha256(f"{seed}:bot:{seat}:{state['placements']}".encode()).digest()
            action = bot.choose(view, random.Random(mixed))
            spent.append(time.process_time() - start)
            try:
                pentobi.ask(f"play {tag} {sgf.move_text(variant, action['cells'])}")
            except GtpError as refused:
                raise ParityError(f"{at}: our engine's move {action['cells']} -- {refused}") from None
        else:
            before = float(pentobi.ask("cputime"))
            reply = pentobi.ask(f"genmove {tag}")
            pentobi_cpu += float(pentobi.ask("cputime")) - before
            pentobi_moves += 1
            if reply in ("pass", "resign"):
                raise ParityError(f"{at}: Pentobi answered {reply!r}, but our engine lists a placement")
            try:
                action = {
                    "type": "place",
                    "colour": variant.colours[colour],
                    "cells": sgf.move_cells(variant, reply),
                }
                state = engine.play(state, seat, action).states[-1]
            except (IllegalAction, InvalidRecord) as illegal:
                raise ParityError(
                    f"{at}: Pentobi's move {reply!r} is illegal in our engine: {illegal}"
                ) from None
            continue
        state = engine.play(state, seat, action).states[-1]
    for colour in range(len(variant.colours)):
        left = pentobi.ask(f"all_legal {sgf.move_tag(variant, colour)}")
        if left:
            raise ParityError(f"{where}: the game is over in our engine, Pentobi lists moves: {left[:80]}")
    scores = engine.scores(state)["scores"]
    difference = scores[0] - scores[1]  # seat 0 is Pentobi's first colour (B, or 1 and 3)
    expected = "0" if difference == 0 else (f"B+{difference}" if difference > 0 else f"W+{-difference}")
    final = pentobi.ask("final_score")
    if final != expected:
        raise ParityError(f"{where}: Pentobi's final_score {final!r}, our engine's {expected!r} ({scores})")
    mine, theirs = scores[ours], scores[1 - ours]
    return {
        "outcome": "win" if mine > theirs else ("draw" if mine == theirs else "loss"),
        "margin": mine - theirs,
        "spent": spent,
        "pentobi_cpu": pentobi_cpu,
        "first": ours == 0,
        "pentobi_moves": pentobi_moves,
    }


def _same_legal_sets(engine: Blokus, pentobi: Pentobi, state: dict, colour: int, tag: str, at: str) -> None:
    variant = VARIANTS[state["variant"]]
    listed = pentobi.ask(f"all_legal {tag}").split()
    theirs = {_cells(sgf.move_cells(variant, move)) for move in listed}
    mine = {_cells(variant.board.placement_cells(o, a)) for _, o, a in engine.placements(state, colour)}
    if theirs != mine or len(listed) != len(theirs):
        raise ParityError(
            f"{at}: legal sets differ: {len(mine - theirs)} only ours, {len(theirs - mine)} only Pentobi's "
            f"(e.g. {sorted(mine - theirs, key=sorted)[:1]} / {sorted(theirs - mine, key=sorted)[:1]})"
        )


def wilson(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion ``successes / n``."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def pairing_figures(
    variant: str, level: int, results: list[dict[str, Any]], elapsed: float, bound: float, bot: str
) -> list[Figure]:
    """The figures of one (variant, level) pairing."""
    games = len(results)
    wins = sum(r["outcome"] == "win" for r in results)
    draws = sum(r["outcome"] == "draw" for r in results)
    rate = (wins + draws / 2) / games
    low, high = wilson(wins + draws / 2, games)
    first = [r for r in results if r["first"]]
    first_score = sum((r["outcome"] == "win") + (r["outcome"] == "draw") / 2 for r in first)
    second_score = wins + draws / 2 - first_score
    spent = [s for r in results for s in r["spent"]]
    mean = sum(spent) / len(spent)
    worst = max(spent)
    pentobi_moves = sum(r["pentobi_moves"] for r in results)
    pentobi = sum(r["pentobi_cpu"] for r in results) / max(1, pentobi_moves)
    name = PENTOBI_GAME[variant]
    key, label = f"pentobi.{name}.level{level}", f"{name} vs Pentobi level {level}"
    goal = ""
    if name == "duo" and level == 1:
        met = rate >= 0.5 and worst <= bound
        goal = f" (goal >= 0.50 at <= {bound:g} s a move: {'met' if met else 'NOT met'})"
    return [
        Figure(f"{key}.games", f"{label}: games", games, f"{bot}, half moving first"),
        Figure(f"{key}.wins", f"{label}: wins", wins, "games"),
        Figure(f"{key}.draws", f"{label}: draws", draws, "games"),
        Figure(f"{key}.losses", f"{label}: losses", games - wins - draws, "games"),
        Figure(f"{key}.win_rate", f"{label}: win rate", rate, f"draws count half{goal}"),
        Figure(f"{key}.win_rate_low", f"{label}: win rate, 95 % Wilson low", low, ""),
        Figure(f"{key}.win_rate_high", f"{label}: win rate, 95 % Wilson high", high, ""),
        Figure(f"{key}.first_score", f"{label}: points moving first", first_score, f"of {len(first)} games"),
        Figure(
            f"{key}.second_score",
            f"{label}: points moving second",
            second_score,
            f"of {games - len(first)} games",
        ),
        Figure(f"{key}.margin", f"{label}: mean margin", sum(r["margin"] for r in results) / games, "points"),
        Figure(
            f"{key}.bot_s_per_move", f"{label}: our bot, mean CPU per move", mean, f"s ({len(spent)} moves)"
        ),
        Figure(f"{key}.bot_max_s_per_move", f"{label}: our bot, max CPU per move", worst, "s"),
        Figure(f"{key}.pentobi_s_per_move", f"{label}: Pentobi, mean CPU per move", pentobi, "s"),
        Figure(f"{key}.seconds", f"{label}: wall time", elapsed, "s"),
    ]


def _levels(text: str) -> list[int]:
    levels = [int(part) for part in text.split(",") if part.strip()]
    if not levels or any(not 1 <= level <= 9 for level in levels):
        raise argparse.ArgumentTypeError("levels are Pentobi's, 1 to 9, comma-separated: 1,2,3")
    return levels


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench.pentobi",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--pentobi", help="the pentobi-gtp binary (built as above; required)")
    parser.add_argument("--books", help="Pentobi's opening_books folder (default: --nobook)")
    parser.add_argument("--variant", choices=sorted(VARIANT_OF), default="duo", help="default duo")
    parser.add_argument("--levels", type=_levels, default=[1], help="Pentobi's levels (default 1)")
    parser.add_argument("--games", type=int, default=100, help="games per level (default 100)")
    parser.add_argument(
        "--first",
        type=int,
        default=0,
        help="the first game's number (default 0): a later run continues a series",
    )
    parser.add_argument(
        "--bot-level",
        type=int,
        choices=sorted(WIDTH),
        default=max(WIDTH),
        help="our bot's level (default: its highest)",
    )
    parser.add_argument("--width", type=int, help="override the bot's search width at every level")
    parser.add_argument(
        "--seconds-per-move",
        type=float,
        default=2.0,
        help="the goal's bound on our bot's CPU per move (default 2)",
    )
    parser.add_argument("--parity", action="store_true", help="compare the full legal sets at every decision")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1: in this process)")
    args = parser.parse_args(argv)
    if not args.pentobi:
        print(
            "this benchmark plays against Pentobi's GTP engine, a separate GPL program that is not part of "
            f"matchlog: build it from its public source,\n\n{BUILD}\n\nand pass --pentobi "
            "/work/pentobi-build/pentobi_gtp/pentobi-gtp (and --books /work/pentobi-src/opening_books)",
            file=sys.stderr,
        )
        return 2
    if not Path(args.pentobi).is_file():
        parser.error(f"--pentobi {args.pentobi}: no such file")
    if args.books and not Path(args.books, BOOKS[VARIANT_OF[args.variant]]).is_file():
        parser.error(f"--books {args.books}: no {BOOKS[VARIANT_OF[args.variant]]} there")
    if args.games < 1 or args.first < 0:
        parser.error("--games must be at least 1, --first at least 0")
    variant = VARIANT_OF[args.variant]
    bot = f"blokus-strong:{args.bot_level}" + (f" width {args.width}" if args.width else "")
    about = machine()
    for f in about:
        print(f"{f.label}: {f.value}")
    print(flush=True)
    version = Pentobi(args.pentobi, args.variant, 1, None)
    figures = list(about) + [
        Figure("pentobi.version", "Pentobi", version.ask("version"), "pentobi-gtp --threads 1"),
        Figure("pentobi.book", "Pentobi's opening book", "yes" if args.books else "no", ""),
        Figure("pentobi.bot", "our bot", bot, ""),
    ]
    version.close()
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    try:
        for level in args.levels:
            print(
                f"{args.variant} vs Pentobi level {level}, {args.games} games ...",
                file=sys.stderr,
                flush=True,
            )
            jobs = [
                Job(args.pentobi, args.books, variant, level, i, args.bot_level, args.width, args.parity)
                for i in range(args.first, args.first + args.games)
            ]
            start = time.perf_counter()
            results = []
            for i, result in enumerate(pool.map(play_game, jobs) if pool else map(play_game, jobs)):
                results.append(result)
                print(
                    f"  game {args.first + i}: {result['outcome']} by {result['margin']}",
                    file=sys.stderr,
                    flush=True,
                )
            figures += pairing_figures(
                variant, level, results, time.perf_counter() - start, args.seconds_per_move, bot
            )
    finally:
        if pool:
            pool.shutdown()
        for process in _PROCESSES.values():
            process.close()
    print(table([f for f in figures if not f.key.startswith("machine.")]))
    print(json.dumps(json_figures(figures), separators=(", ", ": ")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
