"""The audit of an exported log, offline: read the export, check that it is whole, check its hash chain
while folding it with the game's rules, check the seed against its commitment, recompute the result as the
server records it (``replay.result``) and, with a checkpoint, that the server signed the log's last entry
and that the checkpoint is of the match the log names. A program calls ``audit``; ``matchlog replay`` prints
its ``Report``. No Redis, no web framework: what an auditor runs needs the log and the rules only.

Errors: ``ForgedLog`` when the log (or its result) is not the server's (changed, cut short, reordered, a
broken chain, an entry the server never appends); ``AuditError`` when it cannot be audited (unreadable,
partial, a checkpoint short of the end: ``UncoveredEntries``...); ``PartialView`` for a viewer's copy of
a running match (no seed revealed, none given): what can be checked of it was, and held.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.domain.chain import BrokenChain, Recorded, bound_match, canonical_json, verify_chain
from service.domain.replay import EntryOutOfPlace, replay, result
from service.domain.serverkey import verify


class AuditError(Exception):
    """Why an exported log cannot be audited, in one line."""


class ForgedLog(Exception):
    """The log was audited and is not the server's: changed, or cut short."""


class UncoveredEntries(AuditError):
    """The checkpoint holds for the log up to its version, and says nothing of the entries after it."""


class PartialView(Exception):
    """A copy of a running match's log as a viewer has it (a seat's or a spectator's: sealed entries carry
    only what that viewer may see) or, without a seed, any log whose seed is not revealed yet: checked as far
    as it goes, and nothing found wrong. ``report`` says what was checked and what could not be."""

    def __init__(self, report: dict[str, Any]):
        self.report = report
        chain = (
            f"the chain of what is shown holds (entries 1..{report['version']})"
            if report["chain_verified"]
            else "no hash is shown yet to check the chain with (a log from before sealed chains)"
        )
        super().__init__(
            f"a partial view of a running match, verified as far as it goes: {chain}; sealed entries (their hidden "
            f"data not checkable yet): {report['sealed_entries']}, of which showing data beyond their public data "
            f"(the chain covers only the public data): {report['data_beyond_public']}, hashes not shown: "
            f"{report['hidden_hashes']}; the "
            "seed is not revealed yet, so the fold, "
            "the commitments and the result cannot be checked. Audit the whole log (GET /v1/matches/{id}/log) "
            "once the match is over, or pass --seed and --salt with a whole log"
        )


@dataclass(frozen=True)
class Report:
    """What an audit found: the match as its log folds, and what was verified."""

    version: int
    status: str
    to_act: list[int]
    chain_verified: bool
    scores: dict[str, Any]  # the result as the server records it (``replay.result``), final or not
    match: str | None = None  # the match the chain binds the log to, else the one its checkpoint names
    match_bound: bool = False  # the chain binds the log to ``match`` (chain 3 on)
    checkpoint_verified: dict[str, Any] | None = None
    checkpoint_match: str | None = None  # the match a checkpoint given names (its signature holds)
    recorded_result_matches: bool | None = None  # None: no result recorded yet

    @property
    def checkpoint_match_matches(self) -> bool | None:
        """Whether the checkpoint given is of the match the log names (``same_match``); None without one."""
        if self.checkpoint_match is None:
            return None
        return same_match(self.match if self.match_bound else None, self.checkpoint_match)

    @property
    def ok(self) -> bool:
        """False when the recorded result is not the one the rules compute, or the checkpoint is another
        match's."""
        return self.recorded_result_matches is not False and self.checkpoint_match_matches is not False

    def as_dict(self) -> dict[str, Any]:
        body = {
            "match": self.match,
            "match_bound": self.match_bound,
            "version": self.version,
            "status": self.status,
            "to_act": self.to_act,
            "seed_verified": True,
            "chain_verified": self.chain_verified,
            "scores": self.scores,
        }
        if self.checkpoint_verified is not None:
            body["checkpoint_verified"] = self.checkpoint_verified
        if self.checkpoint_match is not None:
            body.update(checkpoint_fields(self.match if self.match_bound else None, self.checkpoint_match))
        if self.recorded_result_matches is not None:
            body["recorded_result_matches"] = self.recorded_result_matches
        return body


def audit(
    log: str | list[Recorded],
    seed: str | None = None,
    salt: str | None = None,
    checkpoint: str | dict | None = None,
    public_key: str | None = None,
    current: int | None = None,
) -> Report:
    """Audit ``log`` (a file holding an export, ``-`` for stdin, or its entries; ``current``: the match's
    version when they were exported, if known). ``seed`` and ``salt``: for a match still running (a
    finished log reveals them). ``checkpoint`` (a file, or its body) is checked against ``public_key``,
    the server's key pinned beforehand: a checkpoint of another match than the log names proves nothing of
    it (``checkpoint_match_matches`` false, the report not ``ok``). Raises ForgedLog or AuditError."""
    if checkpoint is not None and not public_key:
        raise AuditError(
            "a checkpoint needs the server's public key: one checked against the key it carries "
            "proves nothing"
        )
    try:
        entries, current = read_export(log) if isinstance(log, str) else (list(log), current)
        check_whole(entries, current)
        named = bound_match(entries[0])
        signed = read_checkpoint(checkpoint, public_key) if checkpoint and public_key else None
        # the checkpoint first: a log cut short before its seed_revealed is refuted by it, not "running";
        # one of another match than the log names says nothing of it: not checked against it, and said so
        verified = (
            check_head(signed, entries)
            if signed is not None and same_match(named, signed["match"]) is not False
            else None
        )
        if seed is None and not any(e.type == "seed_revealed" for e in entries):
            raise PartialView(partial_report(entries, verified, signed))
        state = replay(entries, seed, salt)
        if verified:  # after the fold: an entry the server never appends is the sharper finding
            check_covered(verified, entries)
    except (BrokenChain, EntryOutOfPlace) as error:
        raise ForgedLog(str(error)) from error
    except ValueError as error:  # no seed, or one the commitment refutes
        raise AuditError(str(error)) from error
    computed = result(state)  # the server records this very function's answer: no twin to drift apart
    return Report(
        state.version,
        "finished" if state.finished else "active",
        state.to_act(),
        any(e.hash for e in entries),
        computed,
        match_of(named, verified, signed),
        named is not None,
        verified,
        signed["match"] if signed else None,
        None if state.result is None else computed == state.result,
    )


def partial_report(entries: list[Recorded], verified: dict | None, signed: dict | None) -> dict[str, Any]:
    """What can be checked of a log whose seed is not revealed: the chain of what is shown (ForgedLog, as
    BrokenChain, where it breaks), and what stays to check once the seed is known. ``signed``: a checkpoint
    given, ``verified`` when it is of this log."""
    verify_chain(entries)
    sealed = [e for e in entries if e.commitment is not None]
    for entry in sealed:
        _agrees_with_public(entry)
    named = bound_match(entries[0])
    report: dict[str, Any] = {
        "view": "partial",
        "match": match_of(named, verified, signed),
        "match_bound": named is not None,
        "version": entries[-1].version,
        "seed_revealed": False,
        "chain_verified": any(e.hash for e in entries),
        "sealed_entries": len(sealed),
        "data_beyond_public": sum(e.data != e.public_data for e in sealed),
        "hidden_hashes": sum(e.hash is None for e in entries),
        "not_checked": ["the fold by the rules", "the commitments of sealed entries", "the result"],
    }
    if verified is not None:
        report["checkpoint_verified"] = verified
    if signed is not None:
        report.update(checkpoint_fields(named, signed["match"]))
    return report


def match_of(named: str | None, verified: dict | None, signed: dict | None) -> str | None:
    """The match a log is of: the one its chain binds it to (``named``), else the one a checkpoint of its head
    names (``signed``, when ``verified``: the server signed that match with the head's hash), else unknown."""
    if named is not None:
        return named
    return signed["match"] if verified and signed else None


def same_match(named: str | None, checkpoint_match: str) -> bool | None:
    """Whether a checkpoint of ``checkpoint_match`` is of the match the log names; None for a log that names
    none (of a chain before 3: the checkpoint names its match)."""
    return None if named is None else checkpoint_match == named


def checkpoint_fields(named: str | None, checkpoint_match: str) -> dict[str, Any]:
    """A report's ``checkpoint_match_matches`` (``same_match``) and, when false, ``checkpoint_match``: the
    match the checkpoint is of."""
    same = same_match(named, checkpoint_match)
    return {
        "checkpoint_match_matches": same,
        **({"checkpoint_match": checkpoint_match} if same is False else {}),
    }


def _agrees_with_public(entry: Recorded) -> None:
    """A sealed entry's shown data may hold more than its public data (a seat's copy shows the seat's own
    draw), which the chain does not cover until the seed checks it against the commitment; but it must hold
    the public data as it is (ForgedLog otherwise): that is what the chain covers."""
    shown, public = entry.data, entry.public_data
    if shown == public:
        return
    if not (isinstance(shown, dict) and isinstance(public, dict)) or any(
        key not in shown or shown[key] != value for key, value in public.items()
    ):
        raise ForgedLog(
            f"entry {entry.version}'s data does not hold its public data, which the hash chain covers"
        )


def read_export(path: str) -> tuple[list[Recorded], int | None]:
    """The entries of an exported log and, for a page of ``/events``, the match's version then.
    Reads the answer of ``GET .../events``, a JSON list of entries, or the JSON Lines of ``GET .../log``."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise AuditError(f"cannot read {path}: {error}") from None
    try:
        body = json.loads(text)
    except ValueError:
        try:
            body = [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError:
            raise AuditError(f"{path} is neither JSON nor JSON Lines") from None
    current = body.get("version") if isinstance(body, dict) else None
    raw = body.get("events") if isinstance(body, dict) else body
    if not isinstance(raw, list) or not raw:
        raise AuditError(f"{path} holds no log entries")
    try:
        return [Recorded.from_dict(e) for e in raw], current
    except (KeyError, TypeError, AttributeError) as error:
        raise AuditError(f"{path}: an entry is not a log entry ({error!r})") from None


def check_whole(entries: list[Recorded], current: int | None) -> None:
    """AuditError unless the entries are the whole log from its start (ForgedLog for the server's entries
    out of the order it writes them in)."""
    versions = [e.version for e in entries]
    if sorted(versions) == list(range(1, len(entries) + 1)) != versions:  # the server exports in order
        raise ForgedLog(
            f"entries out of order: entry {next(v for i, v in enumerate(versions, 1) if v != i)} "
            "is not where the server writes it"
        )
    if versions != list(range(1, len(entries) + 1)):
        raise AuditError(
            f"a partial log: entries {versions[0]}..{versions[-1]} with gaps or without the "
            "start; export the whole log with GET /v1/matches/{id}/log"
        )
    if current is not None and current > versions[-1]:
        raise AuditError(
            f"a partial log: entries 1..{versions[-1]} of {current}; export the whole log with "
            "GET /v1/matches/{id}/log"
        )


def read_checkpoint(checkpoint: str | dict, public_key: str, subject: str = "match") -> dict:
    """What the checkpoint signs (its ``match``, or ``subject``: ``tournament``, ``version`` and ``hash``) and
    its key, once its signature by ``public_key`` holds (AuditError otherwise). ``checkpoint``: a file holding
    it, or its body."""
    where = checkpoint if isinstance(checkpoint, str) else "given"
    try:
        body = (
            json.loads(Path(checkpoint).read_text(encoding="utf-8"))
            if isinstance(checkpoint, str)
            else checkpoint
        )
        signed = {k: body[k] for k in ("hash", subject, "version")}
        key, signature = body["public_key"], body["signature"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise AuditError(f"cannot read the checkpoint {where}: {error!r}") from None
    if public_key != key:
        raise AuditError("the checkpoint is signed by another key than the one given")
    if not verify(key, canonical_json(signed), signature):
        raise AuditError("the checkpoint's signature is not valid")
    return {**signed, "public_key": key}


def check_head(signed: dict, entries: list[Recorded]) -> dict:
    """The checkpoint's version and key, once the log's entry at its version has the hash it signs
    (ForgedLog otherwise). ``signed``: a checkpoint as ``read_checkpoint`` gives it."""
    version = signed["version"]
    if version > len(entries):
        raise ForgedLog(
            f"the log is not the one the server signed: it ends at entry {len(entries)}, "
            f"the checkpoint is at {version}"
        )
    if entries[version - 1].hash != signed["hash"]:
        raise ForgedLog(
            f"the log is not the one the server signed: entry {version} differs from the checkpoint"
        )
    return {"version": version, "public_key": signed["public_key"]}


def check_covered(signed: dict, entries: list[Recorded]) -> None:
    """A checkpoint proves the log only up to its version: what follows the signed head is anyone's,
    and a forger extends a signed log there (undo back to the start, play again, score again)."""
    version = signed["version"]
    if version < len(entries):
        raise UncoveredEntries(
            f"the checkpoint covers entries 1..{version} of {len(entries)}: nothing proves "
            f"entries {version + 1}..{len(entries)} are the server's; take a fresh checkpoint "
            "(GET /v1/matches/{id}/checkpoint) after the match ends"
        )
