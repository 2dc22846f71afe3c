"""Seeks: a player asks for a match and is paired by rating with whoever else asks for the same one.

The decisions are the pure pool's (``service.domain.pairing.seeks``): who meets whom, when a window is wide
enough, when a seek expires. This is when they are asked and what follows: a seek is filed (``post``) and
paired at once if it can be, against the open seeks of its pool read back from the store; a tick (the
workers' seek chore, ``tick``) gives the others their widened windows and expires the old ones. A meeting
becomes a match through the match commands (``Matches.open_match``), each seek then names the match and its
seat, and its owner alone reads the seat's token; the platform's webhooks hear ``seek_paired`` and
``seek_expired``. One process pairs at a time (the store's pairing lock), so a seek meets once.

Seeks meet only within their tenant (one platform's players, or the anonymous clients of a server that allows
anonymous matches): a match belongs to one platform, as its player ids do.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from service.application.deliveries import Deliveries
from service.application.matches import Matches, NewMatch, check_on_timeout, check_player
from service.domain import lifecycle, ratings, shown
from service.domain.addresses import counted_address
from service.domain.errors import NoLongerOpen, NotFound, TooManyOpen, Unavailable
from service.domain.pairing.seeks import (
    EXPIRE_MS,
    WINDOW_GROWTH,
    WINDOW_MAX,
    WINDOW_START,
    Meeting,
    Seek,
    SeekPool,
)
from service.domain.tokens import new_token, token_hash
from service.games import GAMES
from service.games.protocol import InvalidOptions
from service.store.players import PlayerStore
from service.store.seeks import SeekStore

SEEKS_PER_PLAYER = 3
"""Open seeks a platform's player may have at once (a seek per game, say)."""
SEEKS_PER_ADDRESS = 3
"""Open anonymous seeks one client address (an IPv6 one: its /64) may have at once."""
SEEKS_PER_TENANT = 10_000
"""Open seeks of one platform, or of all anonymous clients together: what a tick reads is bounded by these."""

RATING_BASE = 1500.0
POINTS_PER_MU = 40.0
"""A seek's rating, in the pool's points: ``1500 + 40 * (mu - 25)`` of the player's rating in the match's
rating pool (a newcomer, and every anonymous seek, 1500). The pool's window (100 points at once, 20 more a
second, at most 700) is then 2.5 mu at once, 17.5 at most."""

SETTLED_MS = round((WINDOW_MAX - WINDOW_START) / WINDOW_GROWTH * 1000) + 5000
"""A seek this old has had a tick's look with its widest window (ticks come every second or so): only a
newcomer can meet it now, and a newcomer looks for it on arrival."""

ARRIVAL_WAIT_S = 2.0
"""How long an arrival waits for another process's pairing to end: past it, the seek waits for the next tick."""

SEEK_PAIRED, SEEK_EXPIRED = "seek_paired", "seek_expired"
"""The webhook events of seeks (no log entries: a seek has no log)."""

ANONYMOUS = "-"
"""The scope of anonymous seeks (a platform's is its id)."""


@dataclass(frozen=True)
class NewSeek:
    """What a seek asks for. ``clock``: as the log keeps it (ms, with ``on_timeout``), or None;
    ``clock_shown``: as the client gave it (seconds), shown back. ``player``: the platform's player id
    (a platform's seek), ``address``: the client's (an anonymous one)."""

    game: str
    players: int
    name: str
    options: Mapping[str, Any]
    clock: Mapping[str, Any] | None = None
    clock_shown: Mapping[str, Any] | None = None
    rated: bool = False
    bot: bool = False
    bots_allowed: bool = False
    platform: str | None = None
    player: str | None = None
    address: str | None = None


def seek_of(record: Mapping[str, Any]) -> Seek:
    """The pool's view of a kept seek. An anonymous seek is its own player: two of one client may meet."""
    return Seek(
        record["id"],
        record["player"] or record["id"],
        record["rating"],
        record["pool"],
        record["created_ms"],
        record["players"],
        record["bot"],
        record["bots_allowed"],
    )


def _pool(scope: str, game: str, options: Mapping[str, Any], players: int, clock: Any, rated: bool) -> str:
    """The pool key: seeks meet only when all of these are equal."""
    asked = json.dumps([scope, game, options, players, clock, rated], sort_keys=True, separators=(",", ":"))
    return f"{game}:{players}p:{hashlib.sha256(asked.encode()).hexdigest()[:24]}"


class Seeks:
    def __init__(self, matches: Matches, players: PlayerStore, store: SeekStore):
        self.matches = matches
        self.players = players
        self.store = store
        self.server_key = matches.stores.server_key

    # -- a seek's own life ----------------------------------------------------------------------------------

    def post(self, new: NewSeek) -> tuple[dict[str, Any], str | None]:
        """File a seek and pair it at once if it can be: the seek as it stands, and (anonymous) the owner
        token that reads and cancels it, shown only now. InvalidOptions for settings no match could have,
        TooManyOpen past a bound."""
        if new.game not in GAMES:
            raise InvalidOptions("game", f"unknown game {new.game!r}; GET /v1/games lists them")
        resolved = lifecycle.check_options(new.game, dict(new.options), new.players)
        check_on_timeout(new.game, resolved, new.clock)
        if new.platform is None and (new.player or new.rated):
            raise InvalidOptions(
                "rated" if new.rated else "player",
                "player ids and ratings are a platform's: seek with a platform key, or unrated and without one",
            )
        if new.platform is not None and not new.player:
            raise InvalidOptions("player", "a platform seeks for one of its players: give the player's id")
        check_player(new.platform, new.player, "player")
        refusal = shown.name_refusal(new.name)  # a player id stands in for a name not given: shown to people
        if refusal:
            raise InvalidOptions("name", f"{refusal} (the seat's name: give one)")
        scope = new.platform or ANONYMOUS
        rating = RATING_BASE
        if new.rated and new.platform and new.player:
            known = self.players.rating(
                new.platform, ratings.pool_of(new.game, resolved, new.players), new.player
            )
            mu = (known or ratings.initial()).mu
            rating = round(RATING_BASE + POINTS_PER_MU * (mu - ratings.initial().mu), 1)
        owner = None if new.platform else new_token()
        record: dict[str, Any] = {
            "id": uuid.uuid4().hex,
            "scope": scope,
            # an IPv6 client by its /64, as its bot budget: by the address, one host would have 2^64 bounds
            "holder": f"player:{new.platform}:{new.player}"
            if new.platform
            else f"address:{counted_address(new.address)}",
            "platform": new.platform,
            "player": new.player,
            "name": new.name,
            "game": new.game,
            "options": dict(new.options),  # as asked: the match resolves them again (equal: see ``pool``)
            "players": new.players,
            "clock": dict(new.clock) if new.clock else None,
            "clock_shown": dict(new.clock_shown) if new.clock_shown else None,
            "rated": new.rated,
            "bot": new.bot,
            "bots_allowed": new.bots_allowed,
            "rating": rating,
            "pool": _pool(scope, new.game, resolved, new.players, new.clock, new.rated),
            "created_ms": int(time.time() * 1000),
            "status": "open",
            "reason": None,
            "match": None,
            "seat": None,
            "sealed_token": None,
            "owner": token_hash(owner) if owner else None,
            # what the match it meets counts in (its creator's budget), kept only as that: not the full address
            "address": None if new.platform else counted_address(new.address),
        }
        per_holder = SEEKS_PER_PLAYER if new.platform else SEEKS_PER_ADDRESS
        over = self.store.add(record, record["holder"], per_holder, SEEKS_PER_TENANT)
        if over is not None:
            limit, per = (
                (per_holder, "the player" if new.platform else "this address")
                if over == "holder"
                else (SEEKS_PER_TENANT, "the platform" if new.platform else "the server's anonymous seeks")
            )
            raise TooManyOpen(
                "seek", limit, f"{per} has {limit} open seeks already, as many as it may: cancel one, or wait"
            )
        with self.store.pairing(ARRIVAL_WAIT_S) as held:
            if held:  # else another process pairs now: the next tick looks at this one
                self._arrive(record["id"])
        return self.get(record["id"]), owner

    def get(self, seek_id: str) -> dict[str, Any]:
        """The seek as kept; NotFound for none (or one long gone)."""
        record = self.store.get(seek_id) if len(seek_id) == 32 else None
        if record is None:
            raise NotFound("seek", f"no seek {seek_id!r} (a seek is kept a day)")
        return record

    def token(self, record: Mapping[str, Any]) -> str | None:
        """The paired seat's token, for the seek's owner only."""
        sealed = record.get("sealed_token")
        if not sealed:
            return None
        return self.server_key.open(base64.b64decode(sealed), f"seek:{record['id']}".encode()).decode()

    def cancel(self, seek_id: str) -> dict[str, Any]:
        """Take an open seek out of its pool: the seek, ``cancelled``. NoLongerOpen once paired or expired."""
        with self.store.pairing(ARRIVAL_WAIT_S * 5) as held:  # not while a pairing may be pairing it
            if not held:  # a process that died pairing holds it until the lock's time runs out
                raise Unavailable("the seeks are being paired: cancel again shortly")
            record = self.get(seek_id)
            if record["status"] != "open":
                raise NoLongerOpen("seek", record["status"])
            record["status"] = "cancelled"
            self.store.close(record, record["holder"])
        return record

    def listed(
        self, platform: str | None, after: tuple[int, str] | None, limit: int
    ) -> tuple[list[dict[str, Any]], tuple[int, str] | None]:
        """A page of the open seeks of ``platform`` (None: the anonymous ones), oldest first, after the
        ``(created_ms, id)`` of the page before; and where the next page starts (None: no more)."""
        rows = self.store.listed(platform or ANONYMOUS, after, limit + 1)
        page = rows[:limit]
        return page, ((page[-1]["created_ms"], page[-1]["id"]) if len(rows) > limit else None)

    # -- pairing ----------------------------------------------------------------------------------------------

    def _arrive(self, seek_id: str) -> None:
        """Under the pairing lock: the seek's partners among its pool's open seeks within the widest window."""
        record = self.store.get(seek_id)
        if record is None or record["status"] != "open":
            return
        now = int(time.time() * 1000)
        pool = SeekPool()
        near = self.store.in_pool(
            record["pool"], record["rating"] - WINDOW_MAX, record["rating"] + WINDOW_MAX
        )
        kept = {r["id"]: r for r in near if r["status"] == "open"}
        for other in kept.values():
            if other["id"] != seek_id:
                pool.restore(seek_of(other))
        kept[seek_id] = record
        meeting = pool.arrive(seek_of(record), now)
        if meeting is not None:
            self._start(meeting, kept)

    def tick(self, now_ms: int | None = None) -> tuple[list[str], list[str]]:
        """Pair the open seeks whose windows have widened enough, and expire those too old: the matches
        started and the seeks expired. Does nothing while another process pairs (its tick, or an arrival)."""
        with self.store.pairing(0) as held:
            if not held:
                return [], []
            now = int(time.time() * 1000) if now_ms is None else now_ms
            kept = {r["id"]: r for r in self.store.open_records() if r["status"] == "open"}
            pool = SeekPool()
            for record in kept.values():
                pool.restore(seek_of(record), settled=now - record["created_ms"] >= SETTLED_MS)
            meetings, expired = pool.tick(now)
            started = [self._start(meeting, kept) for meeting in meetings]
            for gone in expired:
                record = kept[gone.seek.id]
                record.update(status="expired", reason=gone.reason)
                self.store.close(record, record["holder"])
                if record["platform"]:
                    Deliveries(self.matches.stores).deliver_event(
                        record["platform"],
                        SEEK_EXPIRED,
                        f"expired-{record['id']}",
                        {"seek": record["id"], "player": record["player"], "reason": gone.reason},
                    )
            return [m for m in started if m], [gone.seek.id for gone in expired]

    def _start(self, meeting: Meeting, kept: Mapping[str, dict[str, Any]]) -> str:
        """The match of seeks that met: seats in an order no one of them chooses (SHA-256 of the seeks'
        ids), each seek then paired with its seat and its sealed token. Its id."""
        met = ",".join(sorted(s.id for s in meeting.seeks))
        seated = sorted(
            (kept[s.id] for s in meeting.seeks),
            key=lambda r: hashlib.sha256(f"{met}:{r['id']}".encode()).digest(),
        )
        first = seated[0]
        created = self.matches.open_match(
            NewMatch(
                first["game"],
                [r["name"] for r in seated],
                first["options"],
                platform=first["platform"],
                clock=first["clock"],
                player_ids=[r["player"] if r["rated"] else None for r in seated]
                if first["platform"]
                else None,
                client=first["address"],
            )
        )
        for seat, record in enumerate(seated):
            token = created.tokens[seat]
            sealed = self.server_key.seal(token.encode(), f"seek:{record['id']}".encode()) if token else None
            record.update(
                status="paired",
                match=created.match_id,
                seat=seat,
                sealed_token=base64.b64encode(sealed).decode() if sealed else None,
            )
            self.store.close(record, record["holder"])
        if first["platform"]:
            Deliveries(self.matches.stores).deliver_event(
                first["platform"],
                SEEK_PAIRED,
                f"paired-{created.match_id}",
                {
                    "match": created.match_id,
                    "game": first["game"],
                    "seeks": [
                        {"seek": r["id"], "player": r["player"], "seat": r["seat"], "bot": r["bot"]}
                        for r in seated
                    ],
                },
            )
        return created.match_id


def expires_ms(record: Mapping[str, Any]) -> int:
    """When an open seek expires if nobody meets it."""
    return int(record["created_ms"]) + EXPIRE_MS
