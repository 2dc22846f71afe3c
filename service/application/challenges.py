"""Challenges and rematches: a match that starts once every player named in it has accepted.

A **challenge** is a platform's player asking others of its players, by id, for a match with the settings
it gives; each challenged player accepts or declines (the challenger declining withdraws it), and the
acceptance that completes it starts the match. A **rematch** is a finished match's seats asking for
another: the same game, options, clock and players, every seat moved one on (the first player's seat, and
its colours, pass to the next player), started when every seat a person holds has asked (a bot's seat
agrees). The tokens of the new match's seats are kept sealed beside the challenge (its platform reads them)
or the rematch (each seat reads its own).
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.application.matches import Created, Matches, NewMatch, check_on_timeout, check_player
from service.domain import lifecycle, shown
from service.domain.errors import MatchNotOver, NoLongerOpen, NotFound, NotInChallenge, TooManyOpen
from service.domain.replay import MatchState
from service.games.protocol import InvalidOptions
from service.store.challenges import ChallengeStore

CHALLENGES_PER_PLAYER = 50
"""Challenges a player may make in a day (its challenged players' lists hold as many more)."""

OPEN_FOR_MS = 24 * 3600 * 1000
"""How long a challenge, or a rematch offer, waits for its answers."""


@dataclass(frozen=True)
class NewChallenge:
    """A challenge as asked: ``clock`` as the log keeps it (ms, ``on_timeout``), ``clock_shown`` as given."""

    platform: str
    challenger: str
    challenged: Sequence[str]
    game: str
    options: Mapping[str, Any]
    names: Mapping[str, str]
    clock: Mapping[str, Any] | None = None
    clock_shown: Mapping[str, Any] | None = None
    rated: bool = True


def seat_order(key: str, players: Sequence[str]) -> list[str]:
    """The players in seat order: SHA-256 of ``key`` and each, so no one of them chooses who plays first."""
    return sorted(players, key=lambda p: hashlib.sha256(f"{key}:{p}".encode()).digest())


def asked_options(game_id: str, resolved: Mapping[str, Any], players: int) -> dict[str, Any]:
    """The fewest options a new match needs to resolve to ``resolved`` (a log keeps the options resolved,
    and a game may refuse an option spelt out where it has no say, such as a variant's default)."""
    asked = dict(resolved)
    for name in list(resolved):
        trial = {k: v for k, v in asked.items() if k != name}
        try:
            if lifecycle.check_options(game_id, trial, players) == dict(resolved):
                asked = trial
        except InvalidOptions:
            continue
    return asked


class Challenges:
    def __init__(self, matches: Matches, store: ChallengeStore):
        self.matches = matches
        self.store = store
        self.server_key = matches.stores.server_key

    # -- challenges ---------------------------------------------------------------------------------------------

    def challenge(self, new: NewChallenge) -> dict[str, Any]:
        """File a challenge: InvalidOptions for settings no match could have or a player named twice,
        TooManyOpen past the challenger's day's share."""
        players = [new.challenger, *new.challenged]
        if len(set(players)) != len(players):
            raise InvalidOptions("challenged", "each player once, and not the challenger")
        for player in players:
            check_player(new.platform, player, "challenged")
        check_on_timeout(
            new.game, lifecycle.check_options(new.game, dict(new.options), len(players)), new.clock
        )
        stray = sorted(set(new.names) - set(players))
        if stray:
            raise InvalidOptions("names", f"names of players not in the challenge: {', '.join(stray)}")
        for player in players:
            refusal = shown.name_refusal(
                new.names.get(player, player)
            )  # an id stands in for a name not given
            if refusal:
                raise InvalidOptions(f"names.{player}", f"{refusal} (the seat's name: give one)")
        now = int(time.time() * 1000)
        record: dict[str, Any] = {
            "id": uuid.uuid4().hex,
            "platform": new.platform,
            "challenger": new.challenger,
            "challenged": list(new.challenged),
            "accepted": [],
            "names": {p: new.names.get(p, p) for p in players},
            "game": new.game,
            "options": dict(new.options),
            "clock": dict(new.clock) if new.clock else None,
            "clock_shown": dict(new.clock_shown) if new.clock_shown else None,
            "rated": new.rated,
            "status": "open",
            "declined_by": None,
            "created_ms": now,
            "expires_ms": now + OPEN_FOR_MS,
            "match": None,
            "sealed_tokens": None,
        }
        if not self.store.add(record, CHALLENGES_PER_PLAYER):
            raise TooManyOpen(
                "challenge",
                CHALLENGES_PER_PLAYER,
                f"the challenger made {CHALLENGES_PER_PLAYER} challenges in the last day, as many as it may",
            )
        return record

    def get(self, platform: str, challenge_id: str) -> dict[str, Any]:
        """The challenge (``expired`` once past its time unanswered); NotFound for none of ``platform``'s."""
        record = self.store.get(challenge_id) if len(challenge_id) == 32 else None
        if record is None or record["platform"] != platform:
            raise NotFound("challenge", f"no challenge {challenge_id!r} of this platform (kept a day)")
        if record["status"] == "open" and time.time() * 1000 >= record["expires_ms"]:
            record["status"] = "expired"
        return record

    def answer(self, platform: str, challenge_id: str, player: str, accepted: bool) -> dict[str, Any]:
        """``player`` accepts or declines (the challenger: withdraws). The acceptance that completes the
        challenge starts its match. NotInChallenge, NoLongerOpen."""
        self.get(platform, challenge_id)  # NotFound before any lock
        with self.store.changing(self.store.keys.challenge(challenge_id)):
            record = self.get(platform, challenge_id)
            if player not in (record["challenger"], *record["challenged"]):
                raise NotInChallenge(player)
            if record["status"] != "open":
                raise NoLongerOpen("challenge", record["status"])
            if not accepted:
                record["status"] = "cancelled" if player == record["challenger"] else "declined"
                record["declined_by"] = player
            elif player != record["challenger"] and player not in record["accepted"]:
                record["accepted"].append(player)
            if record["status"] == "open" and len(record["accepted"]) == len(record["challenged"]):
                self._start(record)
            self.store.put(record)
        return record

    def _start(self, record: dict[str, Any]) -> None:
        seated = seat_order(record["id"], [record["challenger"], *record["challenged"]])
        created = self.matches.open_match(
            NewMatch(
                record["game"],
                [record["names"][p] for p in seated],
                record["options"],
                platform=record["platform"],
                clock=record["clock"],
                player_ids=seated if record["rated"] else None,
            )
        )
        record.update(
            status="started",
            match=created.match_id,
            sealed_tokens=self._seal(created, f"challenge:{record['id']}"),
        )

    def tokens(self, record: Mapping[str, Any], context: str) -> list[str | None]:
        """The new match's seat tokens kept sealed in ``record`` (``context``: what they were sealed for)."""
        sealed = record.get("sealed_tokens")
        if not sealed:
            return []
        opened = self.server_key.open(base64.b64decode(sealed), context.encode())
        return json.loads(opened)

    def _seal(self, created: Created, context: str) -> str:
        sealed = self.server_key.seal(json.dumps(created.tokens).encode(), context.encode())
        return base64.b64encode(sealed).decode()

    def of_player(
        self, platform: str, player: str, before: tuple[int, str] | None, limit: int
    ) -> tuple[list[dict[str, Any]], tuple[int, str] | None]:
        """A page of the player's challenges of the last day, newest first; where the next page starts."""
        rows = self.store.of_player(platform, player, before, limit + 1)
        now = time.time() * 1000
        for row in rows:
            if row["status"] == "open" and now >= row["expires_ms"]:
                row["status"] = "expired"
        page = rows[:limit]
        return page, ((page[-1]["created_ms"], page[-1]["id"]) if len(rows) > limit else None)

    # -- rematches ----------------------------------------------------------------------------------------------

    def rematch(self, match_id: str, seat: int, asks: bool, client: str | None = None) -> dict[str, Any]:
        """``seat`` of a finished match asks for a rematch (``asks``), or reads where it stands: the offer,
        started once every seat a person holds has asked. MatchNotOver before the end. ``client``: the
        asking client's address (a match without a platform counts in its budgets, as a create does)."""
        state = self.matches.load(match_id)
        if not state.finished:
            raise MatchNotOver("the match has not ended: a rematch is offered once it has")
        key = self.store.keys.rematch(match_id)
        with self.store.changing(key):
            offer = self.store.rematch(match_id) or {"accepted": [], "rematch": None, "sealed_tokens": None}
            if asks and offer["rematch"] is None:
                if seat not in offer["accepted"]:
                    offer["accepted"] = sorted([*offer["accepted"], seat])
                people = [s for s in range(len(state.players)) if not state.bot_of(s)]
                if all(s in offer["accepted"] for s in people):
                    created = self.matches.open_match(self._rotated(match_id, state, client))
                    offer.update(
                        rematch=created.match_id, sealed_tokens=self._seal(created, f"rematch:{match_id}")
                    )
                self.store.put_rematch(match_id, offer)
        seats = len(state.players)
        mine = (seat + 1) % seats
        token = self.tokens(offer, f"rematch:{match_id}")[mine] if offer["rematch"] else None
        return {
            "match": match_id,
            "seats": seats,
            "accepted": offer["accepted"],
            "status": "started" if offer["rematch"] else "open",
            "rematch": offer["rematch"],
            "seat": mine if offer["rematch"] else None,
            "token": token,
        }

    def _rotated(self, match_id: str, state: MatchState, client: str | None) -> NewMatch:
        """The match again, from its log's first entry and its seats as they ended, each seat moved one on."""
        _, entries = self.matches.repository.read(match_id)
        created = entries[0].data
        n = len(state.players)
        holders: dict[int, str | None] = {s["seat"]: s.get("player") for s in created["players"]}
        for entry in entries:
            if entry.type in ("seat_joined", "seat_replaced"):
                holders[entry.data["seat"]] = entry.data.get("player")

        def moved(values: Sequence[Any]) -> list[Any]:
            return [values[(seat - 1) % n] for seat in range(n)]  # old seat i sits at i + 1

        meta = self.matches.repository.meta(match_id)
        player_ids = [holders.get(s) for s in range(n)]
        return NewMatch(
            state.game_id,
            moved(state.players),
            asked_options(state.game_id, state.options, n),
            platform=meta.platform,
            bots=moved(state.bots) if state.bots else None,
            undo=state.undo,
            clock=created.get("clock"),
            player_ids=moved(player_ids) if meta.platform and any(player_ids) else None,
            client=client,
        )
