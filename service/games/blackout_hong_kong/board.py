"""What the content pack's components mean to the rules, derived once per pack: cards and tiles by id,
the map's adjacency and distances (R-3.12), crisis-centre pairs (R-3.13), the rondel ring (R-2.4) and
the scoring table (A-07, A-08)."""

from __future__ import annotations

from collections import deque
from functools import cached_property
from typing import Any

RESOURCES = ("FOOD", "TOOLS", "PETROL", "WATER", "BOOKS", "MEDICINE")
DICE = ("RED", "YELLOW", "BLUE")

_BOARDS: dict[int, Board] = {}


def board_of(content: dict[str, Any]) -> Board:
    """The Board of a pack; kept while the same pack object is in use (states share it)."""
    board = _BOARDS.get(id(content))
    if board is None or board.content is not content:
        if len(_BOARDS) > 16:
            _BOARDS.clear()
        board = _BOARDS[id(content)] = Board(content)
    return board


class Board:
    def __init__(self, content: dict[str, Any]):
        self.content = content
        self.cards: dict[str, dict] = {}
        for cards in (
            *content["playerSets"].values(),
            content["startingVolunteers"],
            content["emergencyPlans"],
            content["objectiveCards"],
        ):
            for card in cards:
                self.cards[card["id"]] = card
        self.tiles = {tile["id"]: tile for tile in content["patrolTiles"]}
        self.locations = {loc["id"]: loc for loc in content["map"]["locations"]}
        self.neighbours: dict[str, set[str]] = {loc: set() for loc in self.locations}
        for a, b in content["map"]["edges"]:
            self.neighbours[a].add(b)
            self.neighbours[b].add(a)
        self.districts = {d["id"]: d for d in content["map"]["districts"]}
        self.letters: dict[str, list[str]] = {}
        for loc in content["map"]["locations"]:
            if loc.get("crisisLetter"):
                self.letters.setdefault(loc["crisisLetter"], []).append(loc["id"])
        self.ring = list(content["rondelOrder"])
        self.check_actions = {a["id"]: a for a in content["personalBoard"]["checkActions"]}
        self.plans_by_letter = {p["letter"]: p for p in content["emergencyPlans"]}
        self._distances: dict[str | None, dict[str, dict[str, int]]] = {}

    def ring_distance(self, a: str, b: str) -> int:
        step = abs(self.ring.index(a) - self.ring.index(b))
        return min(step, len(self.ring) - step)

    def distances(self, passable_colour_excluded: str | None = None) -> dict[str, dict[str, int]]:
        """Shortest path lengths between locations; with a colour, paths may not pass over locations of
        that colour (SKIP_RULE OTHER_COLOUR_ONLY), though they may end on one."""
        table = self._distances.get(passable_colour_excluded)
        if table is None:
            table = {start: self._bfs(start, passable_colour_excluded) for start in self.locations}
            self._distances[passable_colour_excluded] = table
        return table

    def _bfs(self, start: str, blocked_colour: str | None) -> dict[str, int]:
        seen = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            if here != start and blocked_colour and self.locations[here]["colour"] == blocked_colour:
                continue  # one may arrive here, not pass over it
            for nxt in self.neighbours[here]:
                if nxt not in seen:
                    seen[nxt] = seen[here] + 1
                    queue.append(nxt)
        return seen

    @cached_property
    def colours(self) -> set[str]:
        return {loc["colour"] for loc in self.locations.values()}

    def linked(self, cubes: set[str], a: str, b: str) -> bool:
        """R-3.13: a and b joined by a chain of locations that all hold this player's cube."""
        if a not in cubes or b not in cubes:
            return False
        seen, queue = {a}, deque([a])
        while queue:
            here = queue.popleft()
            if here == b:
                return True
            for nxt in self.neighbours[here] & cubes:
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        return False


def table_value(table: list[int], k: int) -> int:
    """scoringTable[k-1] for k >= 1, 0 for k = 0; a count beyond the table takes its last entry (A-08 CLAMP)."""
    if k <= 0:
        return 0
    return table[min(k, len(table)) - 1]
