"""Generate ``packs/bhk-default-generated.json``, the default Blackout: Hong Kong content pack.

THE DATA IS GENERATED, NOT THE PUBLISHER'S. The transcribed rulebook gives no map, dice faces, card
or tile values, scoring table or personal-board actions (spec 1.10, D-1 to D-16), so this script
invents a pack that is complete, playable and testable until licensed data is available (spec
Appendix B). Its balance is unknown. A licensed pack replaces it without any code change: install it
as ``$MATCHLOG_PACKS/blackout-hong-kong/<name>.json`` (the same format, checked by
``content.load_pack``) and name it in the match option ``CONTENT_PACK_ID``.

Usage::

    python -m service.games.blackout_hong_kong.packgen            # the pack on stdout
    python -m service.games.blackout_hong_kong.packgen PATH       # written to PATH
    python -m service.games.blackout_hong_kong.packgen --check    # exit 1 if the committed file differs

What is fixed by the spec, and kept: the counts (72 objective cards, 48 tiles, 16 districts,
8 starting volunteers, 4 emergency plans A-D, 4 player sets of 12), the S-10 composition of a player
set and the specialists of 4.1, the six objective-deck specialist types of 4.2, chapter 1 of 6.3, and
every value the examples of Appendix A pin down (the rondel order of 1.2.4, the scoring-table anchors
2->2, 3->3, 4->5, 7->14, the leader's 2 search icons, the doctor's 0, a blue volunteer gathering 2,
a tile "easy: 6 icons -> 2 BOOKS", the objective shapes of T-4 to T-7). Everything else is invented.

Recipe. All randomness comes from one ``random.Random("bhk-default-generated:<SEED>")``, used in the
order of ``generate``: map (jitter, colours, crisis letters), tiles, starting volunteers, emergency
plans, objective cards. Nothing else (no set or dict order, no clock) influences the output.

1. Map. A 5 x 5 lattice of points 200 apart (x, y in 100..900) has 16 square faces. The top-left
   corner point is left out and its two neighbours are joined by a diagonal, which makes that face a
   triangle. ``SUBDIVISIONS`` then puts extra points on some lattice edges: a point on an outer edge
   adds 1 to the boundary of the one face beside it, a point on an inner edge to both faces. No face
   is split, so there are still exactly 16 bounded faces (the districts), with boundaries of 3 to 7
   locations (sizes listed in ``SUBDIVISIONS``' comment). Lattice points are jittered by at most 24
   and edge points sit on their (jittered) edge with at most 8 of sideways offset, far less than the
   spacing, so the straight-line drawing has no crossings. Colours: YELLOW, BLUE and PURPLE as evenly
   as the count allows, shuffled. Crisis letters A-D: each on a pair of locations at least
   ``CRISIS_MIN_DISTANCE`` edges apart, the 8 locations distinct.
2. Dice: fixed, each die leaves out one resource and shows another twice (a different distribution
   per die, 1.3.3), and they allow the rolls of T-1 to T-3.
3. Patrol tiles ``T01..T48``: 12 with reward type POINTS and 6 per resource, shuffled. Easy challenge
   4-6 icons for 2 units (2-3 for POINTS), hard challenge 2-3 icons more for 1-2 units more. Back
   search icons 0-2. The first BOOKS tile is the T-8 tile: easy 6 icons -> 2 BOOKS.
4. Player sets: one template (``PLAYER_SET``) for all four animals, so no animal has an edge.
5. Cards: every objective draws a requirement and a reward of roughly matching value
   (``_requirement``, ``_reward``); requirement sizes stay modest so that they can be met in play
   (resources 1-3, HK$ at most 6, slot colours at most 3 cards). The cards the Appendix A examples
   need are written out (``_anchor_*``) and the rest are drawn.

The output is byte-for-byte reproducible (tests check it against the committed file): one item per
line, keys in a fixed order, UTF-8, a final newline.
"""

from __future__ import annotations

import itertools
import json
import random
import sys
from collections import deque
from pathlib import Path
from typing import Any

from service.games.kit import packgen_main

PACK_ID = "bhk-default-generated"
VERSION = "1"
SEED = 1
TARGET = Path(__file__).resolve().parent / "packs" / f"{PACK_ID}.json"

RESOURCES = ["FOOD", "TOOLS", "PETROL", "WATER", "BOOKS", "MEDICINE"]
ANIMALS = ["HORSE", "TIGER", "SHEEP", "DRAGON"]
# 1.2.4: FOOD-TOOLS-PETROL consecutive and BOOKS opposite TOOLS; WATER/MEDICINE order invented.
RONDEL_ORDER = ["TOOLS", "PETROL", "WATER", "BOOKS", "MEDICINE", "FOOD"]
DICE = [
    {"colour": "RED", "faces": ["FOOD", "FOOD", "TOOLS", "PETROL", "WATER", "MEDICINE"]},  # no BOOKS
    {"colour": "YELLOW", "faces": ["FOOD", "TOOLS", "PETROL", "PETROL", "WATER", "BOOKS"]},  # no MEDICINE
    {"colour": "BLUE", "faces": ["FOOD", "TOOLS", "WATER", "BOOKS", "BOOKS", "MEDICINE"]},  # no PETROL
]
# D-10: anchors 2->2, 3->3, 4->5 (T-17), 7->14 (T-16); 1, 5 and 6 invented. Length 7 = the largest
# district and the number of patrol reward types (POINTS + 6 resources).
SCORING_TABLE = [1, 2, 3, 5, 7, 10, 14]
LOCATION_COLOURS = ["YELLOW", "BLUE", "PURPLE"]
CARD_COLOURS = ["RED", "YELLOW", "BLUE"]
LETTERS = ["A", "B", "C", "D"]
CRISIS_MIN_DISTANCE = 6

SPACING, MARGIN, JITTER, OFFSET = 200, 100, 24, 8
# Extra points on lattice edges: ("H", i, j) joins (i, j)-(i+1, j), ("V", i, j) joins (i, j)-(i, j+1),
# with the number of points. Face (i, j) has corners (i, j) and (i+1, j+1). Resulting boundary sizes
# (face (0, 0) is the triangle): row j=0: 3 4 5 6; j=1: 5 6 5 4; j=2: 4 5 6 7; j=3: 5 5 5 7.
SUBDIVISIONS = [
    ("H", 2, 0, 1),  # outer: face (2,0)
    ("V", 4, 0, 2),  # outer: face (3,0) twice
    ("V", 0, 1, 1),  # outer: face (0,1)
    ("V", 2, 1, 1),  # inner: faces (1,1) and (2,1)
    ("H", 1, 2, 1),  # inner: faces (1,1) and (1,2)
    ("V", 3, 2, 1),  # inner: faces (2,2) and (3,2)
    ("V", 4, 2, 1),  # outer: face (3,2)
    ("H", 3, 3, 1),  # inner: faces (3,2) and (3,3)
    ("V", 0, 3, 1),  # outer: face (0,3)
    ("H", 1, 4, 1),  # outer: face (1,3)
    ("H", 2, 4, 1),  # outer: face (2,3)
    ("V", 4, 3, 1),  # outer: face (3,3)
    ("H", 3, 4, 1),  # outer: face (3,3)
]

# S-10 and 4.1: (suffix, kind, colour, role, name, setupPosition, points, searchIcons, gatherCount)
PLAYER_SET = [
    ("LEADER", "SPECIALIST", "PURPLE", "LEADER", "Leader", "HOSPITAL", 2, 2, None),
    ("B1", "VOLUNTEER", "BLUE", None, None, "HOSPITAL", 1, 1, 2),
    ("Y1", "VOLUNTEER", "YELLOW", None, None, "SLOT1", 0, 1, 1),
    ("R1", "VOLUNTEER", "RED", None, None, "SLOT2_BOTTOM", 0, 1, 1),
    ("B2", "VOLUNTEER", "BLUE", None, None, "SLOT2_TOP", 0, 1, 1),
    ("Y2", "VOLUNTEER", "YELLOW", None, None, "HAND", 1, 0, 2),
    ("R2", "VOLUNTEER", "RED", None, None, "HAND", 0, 1, 1),
    ("R3", "VOLUNTEER", "RED", None, None, "HAND", 1, 0, 2),
    ("B3", "VOLUNTEER", "BLUE", None, None, "HAND", 1, 0, 3),
    ("PATROL-OFFICER", "SPECIALIST", "PURPLE", "PATROL_OFFICER", "Patrol officer", "HAND", 1, 1, None),
    ("MECHANIC", "SPECIALIST", "PURPLE", "MECHANIC", "Mechanic", "HAND", 1, 1, None),
    ("DOCTOR", "SPECIALIST", "PURPLE", "DOCTOR", "Doctor", "HAND", 1, 0, None),
]

CARD_KEYS = [
    "id",
    "origin",
    "kind",
    "name",
    "role",
    "colour",
    "animal",
    "setupPosition",
    "points",
    "searchIcons",
    "gatherCount",
    "actions",
    "objectives",
    "destination",
    "bonusEffects",
    "completionEffects",
    "checkAction",
    "ongoingEffect",
    "letter",
]


# -- small builders ------------------------------------------------------------------------------------------


def card(**fields: Any) -> dict:
    """A card with its keys in the fixed order of ``CARD_KEYS``, absent fields left out."""
    return {key: fields[key] for key in CARD_KEYS if fields.get(key) is not None}


def row(effects: list, cost: list | None = None) -> dict:
    return {"alternatives": [{"cost": cost or [], "effects": effects}]}


def objective(requirements: list, effects: list) -> dict:
    return {"requirements": requirements, "immediateEffects": effects}


def res(resource: str, n: int) -> dict:
    return {"type": "RESOURCE", "resource": resource, "n": n}


def hkd(n: int) -> dict:
    return {"type": "HKD", "n": n}


def points(n: int) -> dict:
    return {"type": "POINTS", "n": n}


def place(colour: str) -> dict:
    return {"type": "PLACE_CUBE", "colour": colour}


def gain(resource: str, n: int) -> dict:
    return {"type": "GAIN_RESOURCE", "resource": resource, "n": n}


# -- the map --------------------------------------------------------------------------------------------------


def _map(rng: random.Random) -> dict:
    points_at: dict[tuple, tuple[int, int]] = {}  # key -> (x, y); lattice keys ("P", i, j)
    for j in range(5):
        for i in range(5):
            if (i, j) != (0, 0):
                points_at[("P", i, j)] = (
                    MARGIN + SPACING * i + rng.randint(-JITTER, JITTER),
                    MARGIN + SPACING * j + rng.randint(-JITTER, JITTER),
                )
    # lattice edges, each as the chain of point keys along it
    chains: dict[tuple, list[tuple]] = {}
    for j in range(5):
        for i in range(4):
            chains[("H", i, j)] = [("P", i, j), ("P", i + 1, j)]
    for i in range(5):
        for j in range(4):
            chains[("V", i, j)] = [("P", i, j), ("P", i, j + 1)]
    del chains[("H", 0, 0)], chains[("V", 0, 0)]
    chains[("DIAG",)] = [("P", 1, 0), ("P", 0, 1)]
    for kind, i, j, count in SUBDIVISIONS:
        a, b = chains[(kind, i, j)]
        (ax, ay), (bx, by) = points_at[a], points_at[b]
        middle = []
        for k in range(1, count + 1):
            t = k / (count + 1)
            offset = rng.randint(-OFFSET, OFFSET)  # off the straight line, across the edge
            x, y = ax + t * (bx - ax), ay + t * (by - ay)
            x, y = (x, y + offset) if kind == "H" else (x + offset, y)
            points_at[(kind, i, j, k)] = (round(x), round(y))
            middle.append((kind, i, j, k))
        chains[(kind, i, j)] = [a, *middle, b]

    # ids in reading order (top to bottom, then left to right)
    order = sorted(points_at, key=lambda key: (points_at[key][1], points_at[key][0]))
    ids = {key: f"L{n + 1:02d}" for n, key in enumerate(order)}
    edges = sorted(
        {tuple(sorted((ids[a], ids[b]))) for chain in chains.values() for a, b in itertools.pairwise(chain)}
    )

    def side(key: tuple, start: tuple) -> list[str]:
        """The chain of an edge as location ids, walked from ``start``."""
        chain = chains[key]
        return [ids[p] for p in (chain if chain[0] == start else chain[::-1])]

    districts: list[dict[str, Any]] = []
    for j in range(4):
        for i in range(4):
            if (i, j) == (0, 0):  # the triangle: (0,1) -> (1,0) -> (1,1) -> back to (0,1)
                boundary = (
                    side(("DIAG",), ("P", 0, 1))[:-1]
                    + side(("V", 1, 0), ("P", 1, 0))[:-1]
                    + side(("H", 0, 1), ("P", 1, 1))[:-1]
                )
            else:
                # clockwise on screen: top edge left to right, right edge down, bottom right to left, left up
                boundary = (
                    side(("H", i, j), ("P", i, j))[:-1]
                    + side(("V", i + 1, j), ("P", i + 1, j))[:-1]
                    + side(("H", i, j + 1), ("P", i + 1, j + 1))[:-1]
                    + side(("V", i, j), ("P", i, j + 1))[:-1]
                )
            districts.append({"id": f"D{len(districts) + 1:02d}", "boundary": boundary})

    colours = [LOCATION_COLOURS[n % 3] for n in range(len(order))]
    rng.shuffle(colours)
    neighbours: dict[str, set[str]] = {ids[key]: set() for key in order}
    for one, other in edges:
        neighbours[one].add(other)
        neighbours[other].add(one)
    letters = _crisis_letters(rng, [ids[key] for key in order], neighbours)
    locations = []
    for n, key in enumerate(order):
        x, y = points_at[key]
        location = {"id": ids[key], "colour": colours[n]}
        if ids[key] in letters:
            location["crisisLetter"] = letters[ids[key]]
        locations.append({**location, "x": x, "y": y})
    return {"locations": locations, "edges": [list(e) for e in edges], "districts": districts}


def _distances(start: str, neighbours: dict[str, set[str]]) -> dict[str, int]:
    seen, queue = {start: 0}, deque([start])
    while queue:
        here = queue.popleft()
        for nxt in sorted(neighbours[here]):
            if nxt not in seen:
                seen[nxt] = seen[here] + 1
                queue.append(nxt)
    return seen


def _crisis_letters(rng: random.Random, ids: list[str], neighbours: dict[str, set[str]]) -> dict[str, str]:
    """Letter -> pair of far-apart locations, drawn among the pairs at least CRISIS_MIN_DISTANCE apart."""
    pairs = [
        (a, b)
        for n, a in enumerate(ids)
        for b in ids[n + 1 :]
        if _distances(a, neighbours)[b] >= CRISIS_MIN_DISTANCE
    ]
    used: dict[str, str] = {}
    for letter in LETTERS:
        free = [p for p in pairs if p[0] not in used and p[1] not in used]
        a, b = rng.choice(free)
        used[a] = used[b] = letter
    return used


# -- tiles --------------------------------------------------------------------------------------------------


def _tiles(rng: random.Random) -> list[dict]:
    types = ["POINTS"] * 12 + [r for r in RESOURCES for _ in range(6)]
    rng.shuffle(types)
    backs = [0] * 16 + [1] * 20 + [2] * 12
    rng.shuffle(backs)
    tiles = []
    t8_done = False
    for n, reward in enumerate(types):
        easy_icons = rng.randint(4, 6)
        easy_amount = rng.randint(2, 3) if reward == "POINTS" else 2
        if reward == "BOOKS" and not t8_done:  # Appendix A T-8: easy 6 icons -> 2 BOOKS
            easy_icons, easy_amount, t8_done = 6, 2, True
        hard_icons = easy_icons + rng.randint(2, 3)
        hard_amount = easy_amount + rng.randint(1, 2)
        tiles.append(
            {
                "id": f"T{n + 1:02d}",
                "backSearchIcons": backs[n],
                "rewardType": reward,
                "easy": {"requiredIcons": easy_icons, "rewardAmount": easy_amount},
                "hard": {"requiredIcons": hard_icons, "rewardAmount": hard_amount},
            }
        )
    return tiles


# -- objectives ------------------------------------------------------------------------------------------------


def _requirement(rng: random.Random, location_letters: list[str]) -> tuple[list, int]:
    """One drawn requirement list and its rough value (about 1 per resource unit or 2 HK$)."""
    shape = rng.choices(
        ["RES", "TWO_RES", "ANY", "HKD", "SLOT", "TILES", "LINK"], weights=[6, 5, 2, 3, 3, 1, 1]
    )[0]
    if shape == "RES":
        n = rng.randint(1, 3)
        return [res(rng.choice(RESOURCES), n)], n
    if shape == "TWO_RES":
        a, b = rng.sample(RESOURCES, 2)
        na, nb = rng.randint(1, 2), 1
        return [res(a, na), res(b, nb)], na + nb
    if shape == "ANY":
        n = rng.randint(2, 3)
        return [{"type": "ANY_SINGLE_RESOURCE", "n": n}], n - 1
    if shape == "HKD":
        n = rng.randint(2, 6)
        return [hkd(n)], (n + 1) // 2
    if shape == "SLOT":
        colours = sorted(rng.choices(CARD_COLOURS, k=rng.randint(2, 3)), key=CARD_COLOURS.index)
        return [{"type": "SLOT_COLOURS", "colours": colours}], len(colours)
    if shape == "TILES":
        return [{"type": "PATROL_TILES", "rewardTypes": ["POINTS", rng.choice(RESOURCES)]}], 4
    return [{"type": "CRISIS_CENTRE_LINK", "letter": rng.choice(location_letters)}], 5


def _reward(rng: random.Random, value: int) -> list:
    """Immediate effects worth about ``value``."""
    shape = rng.choices(["POINTS", "HKD", "GAIN", "PLACE", "GPS", "TRANSPORT"], weights=[5, 2, 2, 3, 1, 1])[0]
    if shape == "POINTS":
        return [points(max(1, value))]
    if shape == "HKD":
        return [hkd(min(6, 2 * value))]
    if shape == "GAIN":
        return [gain(rng.choice(RESOURCES + ["CHOICE"]), max(1, min(3, value)))]
    if shape == "PLACE":
        extra = [points(value - 2)] if value > 2 else []
        return [place(rng.choice(LOCATION_COLOURS + ["ANY"]))] + extra
    if shape == "GPS":
        return [{"type": "GAIN_GPS", "n": 1}] + ([points(value - 1)] if value > 1 else [])
    return [{"type": "GAIN_TRANSPORT", "n": min(3, max(1, value))}]


def _drawn_objective(rng: random.Random, letters: list[str]) -> dict:
    requirements, value = _requirement(rng, letters)
    reward = _reward(rng, value)
    while requirements[0]["type"] == "HKD" and reward[0]["type"] == "HKD":  # no paying HK$ for HK$
        reward = _reward(rng, value)
    return objective(requirements, reward)


def _starting_volunteers(rng: random.Random, letters: list[str]) -> list[dict]:
    colours = ["RED", "RED", "RED", "YELLOW", "YELLOW", "YELLOW", "BLUE", "BLUE"]
    cards = []
    for n, colour in enumerate(colours):
        resource = rng.choice(RESOURCES)
        amount = rng.randint(1, 2)
        effect = rng.choice([points(amount), place(rng.choice(LOCATION_COLOURS)), hkd(2 * amount)])
        cards.append(
            card(
                id=f"SV{n + 1}",
                origin="STARTING_VOLUNTEER",
                kind="VOLUNTEER",
                colour=colour,
                points=1,
                searchIcons=rng.randint(0, 1),
                gatherCount=rng.randint(1, 2),
                objectives=[objective([res(resource, amount)], [effect])],
                destination="HAND",
            )
        )
    return cards


def _emergency_plans(rng: random.Random, letters: list[str]) -> list[dict]:
    plans = []
    for letter in LETTERS:
        objectives = [_drawn_objective(rng, letters) for _ in range(3)]
        if letter == "A":  # T-6: the first objective gives 5 HK$
            objectives[0] = objective([res("WATER", 2)], [hkd(5)])
        plans.append(
            card(
                id=f"EP-{letter}",
                origin="EMERGENCY_PLAN",
                kind="EMERGENCY_PLAN",
                points=0,
                searchIcons=0,
                objectives=objectives,
                destination="CHECK_AREA",
                bonusEffects=[points(4)],
                completionEffects=[place("ANY")],
                letter=letter,
            )
        )
    return plans


def _specialist(n: int, role: str, actions: list, rng: random.Random, letters: list[str]) -> dict:
    return card(
        id=f"OC{n}",
        origin="OBJECTIVE_DECK",
        kind="SPECIALIST",
        role=role,
        colour="PURPLE",
        points=rng.randint(1, 3),
        searchIcons=rng.randint(0, 2),
        actions=actions,
        objectives=[_drawn_objective(rng, letters)],
        destination="HAND",
    )


def _objective_cards(rng: random.Random, letters: list[str]) -> list[dict]:
    cards: list[dict] = []

    # 24 volunteers: 8 per colour
    for k in range(24):
        n = len(cards) + 1
        colour = CARD_COLOURS[k % 3]
        if k == 0:  # T-4
            target = objective(
                [{"type": "SLOT_COLOURS", "colours": ["YELLOW", "RED", "RED"]}, hkd(4)], [place("YELLOW")]
            )
            colour = "YELLOW"
        else:
            target = _drawn_objective(rng, letters)
        cards.append(
            card(
                id=f"OC{n}",
                origin="OBJECTIVE_DECK",
                kind="VOLUNTEER",
                colour=colour,
                points=rng.randint(1, 3),
                searchIcons=rng.randint(0, 2),
                gatherCount=rng.choices([1, 2, 3], weights=[3, 3, 1])[0],
                objectives=[target],
                destination="HAND",
            )
        )

    # 12 specialists: OD-1 .. OD-6 twice each (spec 4.2)
    for copy in range(2):
        n = len(cards) + 1
        cards.append(
            _specialist(
                n,
                "OD-1",
                [row([{"type": "REVEAL_HAND_GAIN_HKD_PER_ICON", "perIcon": 1}]), row([hkd(5)])],
                rng,
                letters,
            )
        )
        cards.append(
            _specialist(
                n + 1,
                "OD-2",
                [row([place("ANY" if copy == 0 else rng.choice(LOCATION_COLOURS))], [res("FOOD", 1)])],
                rng,
                letters,
            )
        )
        cards.append(_specialist(n + 2, "OD-3", [row([gain("CHOICE", 3)], [hkd(3 + copy)])], rng, letters))
        cards.append(
            _specialist(
                n + 3, "OD-4", [row([hkd(4 + copy)], [res("TOOLS", 1)]), row([hkd(2 + copy)])], rng, letters
            )
        )
        cards.append(
            _specialist(
                n + 4,
                "OD-5",
                [
                    {
                        "alternatives": [
                            {
                                "cost": [{"type": "RESOURCE_ONE_OF", "options": ["PETROL", "BOOKS"], "n": 1}],
                                "effects": [{"type": "GAIN_GPS", "n": 1}],
                            },
                            {
                                "cost": [res("PETROL", 1), res("BOOKS", 1)],
                                "effects": [{"type": "GAIN_GPS", "n": 2}],
                            },
                        ]
                    }
                ],
                rng,
                letters,
            )
        )
        cards.append(
            _specialist(n + 5, "OD-6", [row([points(2)], [res("TOOLS", 1)]), row([points(2)])], rng, letters)
        )

    # 36 crisis plans: 10 with one objective, 16 with two, 10 with three
    sizes = [1] * 10 + [2] * 16 + [3] * 10
    rng.shuffle(sizes)
    # the anchors need 2+ objectives: move them to the front
    sizes.sort(key=lambda size: size < 2)
    ongoing_at = set(range(8, 36, 7))  # 4 plans with an ongoing effect
    check_at = set(range(3, 36, 3)) - ongoing_at
    for k, size in enumerate(sizes):
        n = len(cards) + 1
        objectives = [_drawn_objective(rng, letters) for _ in range(size)]
        bonus = [points(size + rng.randint(1, 3))]
        if k == 0:  # T-5: an objective giving 6 HK$
            objectives[0] = objective([res("BOOKS", 2)], [hkd(6)])
        if k == 1:  # T-7: the last objective gives 2 VP, the bonus 5 VP
            objectives[-1] = objective([res("FOOD", 1), res("MEDICINE", 1)], [points(2)])
            bonus = [points(5)]
        if k == 2:  # a PATROL_TILES requirement {POINTS, BOOKS}
            objectives[0] = objective(
                [{"type": "PATROL_TILES", "rewardTypes": ["POINTS", "BOOKS"]}], [points(4)]
            )
        if k in (3, 4):  # crisis-centre links, one named and one ANY
            letter = letters[k - 3] if k == 3 else "ANY"
            objectives[-1] = objective([{"type": "CRISIS_CENTRE_LINK", "letter": letter}], [points(5)])
        completion = [place(rng.choice(LOCATION_COLOURS + ["ANY"]))] if rng.random() < 0.7 else [points(1)]
        check_action = None
        if k in check_at:
            check_action = rng.choice(
                [
                    [gain(rng.choice(RESOURCES), 1)],
                    [hkd(2)],
                    [{"type": "GAIN_TRANSPORT", "n": 1}],
                    [{"type": "GAIN_BATTERY", "n": 1}],
                ]
            )
        ongoing = None
        if k in ongoing_at:
            effect = rng.choice(
                [
                    points(1),
                    hkd(2),
                    gain(rng.choice(RESOURCES), 1),
                    {"type": "GAIN_TRANSPORT", "n": 1},
                    {"type": "GAIN_GPS", "n": 1},
                    {"type": "GAIN_BATTERY", "n": 1},
                ]
            )
            ongoing = {"phase": rng.choice(["PATROL", "CLEANUP"]), "effect": effect}
        cards.append(
            card(
                id=f"OC{n}",
                origin="OBJECTIVE_DECK",
                kind="CRISIS_PLAN",
                points=0,
                searchIcons=rng.choices([0, 1], weights=[2, 1])[0],
                objectives=objectives,
                destination="CHECK_AREA",
                bonusEffects=bonus,
                completionEffects=completion,
                checkAction=check_action,
                ongoingEffect=ongoing,
            )
        )
    return cards


def _player_sets() -> dict:
    sets = {}
    for animal in ANIMALS:
        cards = []
        for suffix, kind, colour, role, name, position, pts, icons, gather in PLAYER_SET:
            by_role = {
                "LEADER": [row([{"type": "ACTIVATE_CHECK_ACTION"}]), row([{"type": "GAIN_BATTERY", "n": 1}])],
                "PATROL_OFFICER": [
                    row(
                        [{"type": "GAIN_GPS", "n": 1}],
                        [{"type": "RESOURCE_ONE_OF", "options": ["PETROL", "BOOKS"], "n": 1}],
                    ),
                    row([hkd(2)]),
                ],
                "MECHANIC": [row([hkd(3)], [res("TOOLS", 1)]), row([hkd(3)])],
                "DOCTOR": [
                    row([{"type": "RETRIEVE_FROM_HOSPITAL", "scorePoints": True}], [res("MEDICINE", 1)])
                ],
            }
            actions = by_role[role] if role is not None else None  # a volunteer has no role, and no rows
            cards.append(
                card(
                    id=f"{animal}-{suffix}",
                    origin="PLAYER_SET",
                    kind=kind,
                    name=name,
                    role=role,
                    colour=colour,
                    animal=animal,
                    setupPosition=position,
                    points=pts,
                    searchIcons=icons,
                    gatherCount=gather,
                    actions=actions,
                )
            )
        sets[animal] = cards
    return sets


def _personal_board() -> dict:
    return {
        # 4.3.1: the source names "petrol reward" and "tools reward"; the other three are invented.
        "checkActions": [
            {"id": "petrol-reward", "label": "Petrol reward", "effects": [gain("PETROL", 1)]},
            {"id": "tools-reward", "label": "Tools reward", "effects": [gain("TOOLS", 1)]},
            {"id": "cash-reward", "label": "Cash reward", "effects": [hkd(2)]},
            {
                "id": "transport-reward",
                "label": "Transport reward",
                "effects": [{"type": "GAIN_TRANSPORT", "n": 1}],
            },
            {
                "id": "battery-reward",
                "label": "Battery reward",
                "effects": [{"type": "GAIN_BATTERY", "n": 1}],
            },
        ],
        # D-11: requirements invented; the rewards (+10 VP and the marker moves) are the rules'.
        "powerRestoration": {
            "A": objective([res("FOOD", 2), res("WATER", 2), res("MEDICINE", 2)], []),
            "B": objective([res("TOOLS", 2), res("PETROL", 2), hkd(5)], []),
        },
        "refillThreshold": {"base": 4, "upgraded": 6},
    }


def _campaign() -> dict:
    return {
        "chapters": [
            {
                "number": 1,
                "title": "48 hours without power",
                "reserveSize": {"1": 33, "2": 24, "3": 18, "4": 12},
                "emergencyPlans": {"1": ["A"], "2": ["A"], "3": ["A", "D"], "4": ["A", "D"]},
                "victoryConditions": [
                    {"type": "ALL_OBJECTIVES_OF_ONE_SHARED_PLAN"},
                    {"type": "MIN_VP", "n": None},
                ],
                "flowerThresholds": None,
            }
        ]
    }


def generate(seed: int = SEED) -> dict:
    rng = random.Random(f"{PACK_ID}:{seed}")
    board_map = _map(rng)
    letters = sorted({loc["crisisLetter"] for loc in board_map["locations"] if "crisisLetter" in loc})
    tiles = _tiles(rng)
    starting = _starting_volunteers(rng, letters)
    plans = _emergency_plans(rng, letters)
    objective_cards = _objective_cards(rng, letters)
    return {
        "id": PACK_ID,
        "version": VERSION,
        "provenance": (
            f"GENERATED by service/games/blackout_hong_kong/packgen.py (seed {seed}); not the publisher's data: "
            "the map, dice, cards, tiles, scoring table and personal board are invented so that the game can be "
            "played and tested. Replace this pack with licensed data when it is available."
        ),
        "rondelOrder": RONDEL_ORDER,
        "dice": DICE,
        "map": board_map,
        "scoringTable": SCORING_TABLE,
        "patrolTiles": tiles,
        "playerSets": _player_sets(),
        "startingVolunteers": starting,
        "emergencyPlans": plans,
        "objectiveCards": objective_cards,
        "personalBoard": _personal_board(),
        "campaign": _campaign(),
    }


def dumps(pack: dict) -> str:
    """The pack as committed: top-level keys one per line; the sections' keys and items one per line
    down to the level of single items (a card, a tile, a location, an edge), which stay on one line."""

    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))

    def expandable(value: Any, depth: int) -> bool:
        if isinstance(value, dict):
            return depth <= 1
        return isinstance(value, list) and depth <= 2 and bool(value) and isinstance(value[0], (dict, list))

    def block(value: dict[str, Any] | list[Any], depth: int) -> list[str]:
        pad = "  " * (depth + 1)
        if isinstance(value, dict):
            items = [(f"{one(k)}: ", v) for k, v in value.items()]
            opening, closing = "{", "}"
        else:
            items = [("", v) for v in value]
            opening, closing = "[", "]"
        lines = [opening]
        for n, (label, item) in enumerate(items):
            comma = "," if n < len(items) - 1 else ""
            if expandable(item, depth + 1):
                inner = block(item, depth + 1)
                lines.append(f"{pad}{label}{inner[0]}")
                lines += inner[1:-1]
                lines.append(f"{pad}{inner[-1]}{comma}")
            else:
                lines.append(f"{pad}{label}{one(item)}{comma}")
        lines.append(closing)
        return lines

    return "\n".join(block(pack, 0)) + "\n"


def main(argv: list[str] | None = None) -> int:
    return packgen_main(
        "service.games.blackout_hong_kong.packgen", __doc__, TARGET, lambda: dumps(generate()), argv
    )


if __name__ == "__main__":
    sys.exit(main())
