"""``tests.bench.pentobi`` without Pentobi: it says how to build Pentobi when none is given, its interval
is Wilson's, and it stops on any move or pass the two programs' rules disagree about (a stand-in GTP
engine plays the disagreeing side)."""

from __future__ import annotations

import stat
import sys

import pytest

from tests.bench import pentobi

FAKE_GTP = """#!{python}
import sys

for line in sys.stdin:
    command = line.split()
    if not command:
        continue
    if command[0] == "quit":
        print("=\\n", flush=True)
        break
    if command[0] == "genmove":
        answer = "= {genmove}"
    elif command[0] == "play" and {refuse_play}:
        answer = "? illegal move"
    elif command[0] == "cputime":
        answer = "= 0"
    else:
        answer = "="
    print(answer + "\\n", flush=True)
"""


def _fake(tmp_path, genmove: str = "a1", refuse_play: bool = False) -> str:
    path = tmp_path / "pentobi-gtp"
    path.write_text(FAKE_GTP.format(python=sys.executable, genmove=genmove, refuse_play=refuse_play))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _job(path: str, index: int) -> pentobi.Job:
    return pentobi.Job(path, None, "duo", 1, index, bot_level=1, width=None, parity=False)


@pytest.fixture(autouse=True)
def _closed_processes():
    yield
    for process in pentobi._PROCESSES.values():
        process.close()
    pentobi._PROCESSES.clear()


def test_without_pentobi_it_says_how_to_build_it_and_fails(capsys):
    assert pentobi.main([]) == 2
    said = capsys.readouterr().err
    assert "-DPENTOBI_BUILD_GTP=ON" in said and "--pentobi" in said and "GPL" in said


def test_the_interval_is_wilsons():
    low, high = pentobi.wilson(50, 100)
    assert (round(low, 3), round(high, 3)) == (0.404, 0.596)
    assert pentobi.wilson(0, 10) == pytest.approx((0.0, 0.278), abs=5e-4)
    assert pentobi.wilson(10, 10) == pytest.approx((0.722, 1.0), abs=5e-4)


def test_a_move_our_engine_refuses_stops_the_run(tmp_path):
    """Game 1: Pentobi moves first, and its ``a1`` is off purple's start square."""
    with pytest.raises(pentobi.ParityError, match=r"Pentobi's move 'a1' is illegal in our engine"):
        pentobi.play_game(_job(_fake(tmp_path), 1))


def test_a_pass_while_our_engine_lists_a_placement_stops_the_run(tmp_path):
    with pytest.raises(pentobi.ParityError, match="Pentobi answered 'pass'"):
        pentobi.play_game(_job(_fake(tmp_path, genmove="pass"), 1))


def test_a_move_pentobi_refuses_stops_the_run(tmp_path):
    """Game 0: our bot moves first, and the stand-in refuses every ``play``."""
    with pytest.raises(pentobi.ParityError, match=r"our engine's move .* refused 'play B e10,"):
        pentobi.play_game(_job(_fake(tmp_path, refuse_play=True), 0))
