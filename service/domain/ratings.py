"""Ratings as a projection of the logs: pure. What a scored match's log says about its players
(``rated_match``), which pool it is rated in (``pool_of``) and the new ratings it makes (``rate``).

No Redis and no clock: the live job (``workers.jobs.rate_match``) and ``matchlog ratings rebuild`` both
fold the same logs through these functions in the same order, so they get the same numbers to the last
digit (floats are kept as ``repr``, which reads back exactly).

The model is openskill's Plackett-Luce (``openskill.models.PlackettLuce``, its defaults: mu 25,
sigma 25/3), which rates any number of players by rank with ties. The policies
(docs/howto/players-and-ratings.md):

* pool: a game with its variant (or mode) and its number of seats (``<game>:<variant>:2p`` is not
  ``<game>:<other variant>:4p``);
* rated: a finished, scored match of a platform with at least two rated seats; a seat's player is the
  platform's player id of whoever held it last (``seat_replaced`` hands the seat and its result on), a
  bot's seat is ``bot:<bot>`` (with its level, ``bot:mcts:2``), or ``bot:<bot>@<name>`` when the platform
  named the bot (``bot_player``); a seat without a player id is left out;
* not rated: aborted matches, anonymous ones, games with fewer than two rated seats, and matches of
  co-operative modes (``COOPERATIVE``: everyone wins or loses together, no ranking between them);
* the same player on two seats of one match (a platform seating one account twice): not rated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
"""The one model every rating comes from: its defaults, never tuned in place (a change is a rebuild)."""

COOPERATIVE: dict[str, set[str]] = {}
"""Per game, the variants (or modes) whose seats play together against the game: not rated. None of the
games here has one yet; a game that adds one lists it here."""


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    games: int = 0

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: what the leaderboards order by (a new player starts at 0)."""
        return self.mu - 3 * self.sigma


def initial() -> Rating:
    fresh = MODEL.rating()
    return Rating(fresh.mu, fresh.sigma, 0)


@dataclass(frozen=True)
class Seat:
    seat: int
    player: str
    rank: int  # 1 is best; equal ranks are a tie


@dataclass(frozen=True)
class RatedMatch:
    """What a scored match brings to the ratings."""

    match_id: str
    game: str
    pool: str
    ended_ms: int  # when the game ended (its ``seed_revealed``): the pool's order, then the match id
    version: int  # the log's version of its ``match_scored``
    seats: tuple[Seat, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "match": self.match_id,
            "game": self.game,
            "pool": self.pool,
            "ended_ms": self.ended_ms,
            "version": self.version,
            "seats": [[s.seat, s.player, s.rank] for s in self.seats],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RatedMatch:
        return cls(
            data["match"],
            data["game"],
            data["pool"],
            data["ended_ms"],
            data["version"],
            tuple(Seat(*seat) for seat in data["seats"]),
        )

    @property
    def order(self) -> tuple[int, str]:
        return self.ended_ms, self.match_id


def pool_of(game: str, options: Mapping[str, Any], seats: int) -> str:
    """The rating pool: the game, its variant or mode when its options name one, and its seats."""
    parts = [game] + [str(options[name]) for name in ("variant", "mode") if name in options] + [f"{seats}p"]
    return ":".join(parts)


def epoch_ms(at: str) -> int:
    """An entry's ``at`` (ISO 8601, milliseconds, Z) as milliseconds since the epoch."""
    return round(datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() * 1000)


def bot_player(bot: str, name: str | None = None) -> str:
    """A bot seat's player: ``bot:<bot>`` (with its level: ``bot:mcts:2``), or ``bot:<bot>@<name>`` for a
    bot the platform named (a persona of its own: two named random bots are two players)."""
    return f"bot:{bot}" if not name or name == f"{bot} bot" else f"bot:{bot}@{name.replace('/', '_')}"


def rated_match(match_id: str, entries: Iterable[Any]) -> tuple[RatedMatch | None, str]:
    """The match as the ratings see it from its log (entries with ``type``, ``data``, ``at``,
    ``version``), or None and why it is not rated."""
    holders: dict[int, str | None] = {}
    game = pool = ""
    ended_ms, scored = 0, None
    for entry in entries:
        data = entry.data
        if entry.type == "match_created":
            game = data["game"]
            if data["options"].get("variant") in COOPERATIVE.get(game, ()) or data["options"].get(
                "mode"
            ) in COOPERATIVE.get(game, ()):
                return None, "co-operative"
            pool = pool_of(game, data["options"], len(data["players"]))
            for seat in data["players"]:
                holders[seat["seat"]] = (
                    bot_player(seat["bot"], seat.get("name")) if seat.get("bot") else seat.get("player")
                )
        elif entry.type in ("seat_joined", "seat_replaced"):
            holders[data["seat"]] = (
                bot_player(data["bot"], data.get("name")) if data.get("bot") else data.get("player")
            )
        elif entry.type == "match_aborted":
            return None, "aborted"
        elif entry.type == "seed_revealed":
            ended_ms = epoch_ms(entry.at)
        elif entry.type == "match_scored":
            scored = entry
    if scored is None:
        return None, "not scored"
    if scored.data.get("aborted") or not scored.data.get("final"):
        return None, "aborted"
    ranks = scored.data.get("ranks")
    if not ranks or len(ranks) != len(holders):
        return None, "no ranking"
    seats = tuple(Seat(seat, holder, int(ranks[seat])) for seat, holder in sorted(holders.items()) if holder)
    if len(seats) < 2:
        return None, "fewer than two rated seats"
    if len({s.player for s in seats}) != len(seats):
        return None, "a player on two seats"
    return RatedMatch(match_id, game, pool, ended_ms, scored.version, seats), "rated"


def pool_of_log(entries: Iterable[Any]) -> str | None:
    """The pool of a match from its ``match_created`` (the first entry), whatever its end."""
    for entry in entries:
        if entry.type == "match_created":
            data = entry.data
            return pool_of(data["game"], data["options"], len(data["players"]))
    return None


def rate(current: Mapping[str, Rating], match: RatedMatch) -> dict[str, Rating]:
    """The new ratings of the match's players, from their ``current`` ones (absent: a new player)."""
    before = [current.get(seat.player) or initial() for seat in match.seats]
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = MODEL.rate(teams, ranks=[seat.rank for seat in match.seats])
    return {
        seat.player: Rating(team[0].mu, team[0].sigma, old.games + 1)
        for seat, team, old in zip(match.seats, after, before)
    }


def replay_pool(matches: Sequence[RatedMatch]) -> dict[str, Rating]:
    """Every rating of a pool from its rated matches, in the order they ended."""
    ratings: dict[str, Rating] = {}
    for match in sorted(matches, key=lambda m: m.order):
        ratings.update(rate(ratings, match))
    return ratings
