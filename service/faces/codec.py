"""The faces' action codec: an engine's action as a fixed sequence of token decisions.

An engine's actions are JSON objects (``{"type": "place", "piece": "L4", "cells": [[0, 0], ...]}``), far
too many to number one by one in most games. The codec numbers *tokens* instead: an action is written as
the tokens of its canonical JSON (a dict's ``type`` first, then its keys sorted; ``{``/``}`` and ``[``/``]``
around dicts and lists), and a seat picks an action by picking its tokens in order, from those that
continue at least one legal action. A token's number is fixed for a game and mode (``Vocabulary``), so the
same number always means the same token: the structure marks, then ``WAIT`` (a seat that has nothing to
choose at a simultaneous node), then ``null``, ``false``, ``true``, then the integers ``-INT_RANGE ..
INT_RANGE``, then the game's strings, sorted. Those strings are every key and every string value of the
action schema (its field names, ``OneOf`` choices and documented enums) and every string of the state a
match of that mode starts with (which holds every card, tile, location and piece name of its pack), of
at most 100 characters and without white space.
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import marshmallow

Token = tuple[str, Any]
"""``("mark", "{")``, ``("null", None)``, ``("bool", True)``, ``("int", 3)`` or ``("str", "L4")``."""

MARKS = ("{", "}", "[", "]")
WAIT = ("mark", "wait")
INT_RANGE = 1024
"""Integers of an action lie in ``-INT_RANGE .. INT_RANGE``: the action schemas' widest range is
room coordinates of -1000..1000 and heights of 0..1023."""
IGNORED_KEYS = frozenset({"choices"})
"""Keys a listed action carries for people that the engine ignores when the action is posted (one game's
``choices``, the other ways an entry may be completed): not part of the action's tokens."""


def tokens(action: Any) -> list[Token]:
    """The canonical tokens of an action: the same action always gives the same tokens."""
    out: list[Token] = []
    _write(action, out, top=True)
    return out


def _write(value: Any, out: list[Token], top: bool = False) -> None:
    if isinstance(value, dict):
        keys = sorted(k for k in value if not (top and k in IGNORED_KEYS))
        if "type" in value:
            keys.remove("type")
            keys.insert(0, "type")
        out.append(("mark", "{"))
        for key in keys:
            out.append(("str", str(key)))
            _write(value[key], out)
        out.append(("mark", "}"))
    elif isinstance(value, list | tuple):
        out.append(("mark", "["))
        for item in value:
            _write(item, out)
        out.append(("mark", "]"))
    elif value is None:
        out.append(("null", None))
    elif isinstance(value, bool):
        out.append(("bool", value))
    elif isinstance(value, int):
        out.append(("int", value))
    elif isinstance(value, str):
        out.append(("str", value))
    else:
        raise ValueError(f"an action holds {value!r}, which the codec has no token for")


def strings_of(value: Any) -> Iterator[str]:
    """Every string in a JSON value, its keys included."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings_of(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_of(item)
    elif isinstance(value, str):
        yield value


def schema_strings(schema: type[marshmallow.Schema]) -> Iterator[str]:
    """The field names, choices and documented enums of an action schema, nested schemas' included."""
    for name, field in schema().fields.items():
        yield field.data_key or name
        inner = getattr(field, "inner", None)  # a List's items
        for part in (field, inner) if inner is not None else (field,):
            for validator in part.validators:
                if isinstance(validator, marshmallow.validate.OneOf):
                    yield from (c for c in validator.choices if isinstance(c, str))
            yield from strings_of(part.metadata)
            if isinstance(part, marshmallow.fields.Nested) and isinstance(part.nested, type):
                yield from schema_strings(part.nested)


def _a_name(text: str) -> bool:
    return 0 < len(text) <= 100 and not any(c.isspace() for c in text)


@dataclass(frozen=True)
class Vocabulary:
    """The numbered tokens of one game and mode: token <-> action id, fixed once made."""

    strings: tuple[str, ...]

    @classmethod
    def of(cls, schema: type[marshmallow.Schema], initial_state: Any) -> Vocabulary:
        found = set(schema_strings(schema)) | set(strings_of(initial_state))
        return cls(tuple(sorted(s for s in found if _a_name(s))))

    @cached_property
    def _fixed(self) -> list[Token]:
        return (
            [("mark", m) for m in MARKS]
            + [WAIT, ("null", None), ("bool", False), ("bool", True)]
            + [("int", i) for i in range(-INT_RANGE, INT_RANGE + 1)]
        )

    @cached_property
    def _ids(self) -> dict[Token, int]:
        ids = {token: n for n, token in enumerate(self._fixed)}
        ids.update((("str", s), len(self._fixed) + n) for n, s in enumerate(self.strings))
        return ids

    def __len__(self) -> int:
        return len(self._fixed) + len(self.strings)

    def id_of(self, token: Token) -> int:
        try:
            return self._ids[token]
        except KeyError:
            raise ValueError(f"the token {token!r} is not in this game's vocabulary") from None

    def token(self, action_id: int) -> Token:
        if not 0 <= action_id < len(self):
            raise ValueError(f"no token has the id {action_id}")
        fixed = self._fixed
        return fixed[action_id] if action_id < len(fixed) else ("str", self.strings[action_id - len(fixed)])

    def ids(self, action: Any) -> list[int]:
        return [self.id_of(t) for t in tokens(action)]

    def text(self, action_id: int) -> str:
        """A token as people read it: ``{``, ``wait``, ``null``, ``true``, ``3``, ``"L4"``."""
        kind, value = self.token(action_id)
        if kind == "mark":
            return str(value)
        if kind == "str":
            return f'"{value}"'
        return (
            {None: "null", True: "true", False: "false"}.get(value, str(value))
            if kind != "int"
            else str(value)
        )


def continuations(encoded: Sequence[tuple[int, ...]], prefix: Sequence[int]) -> list[int]:
    """The token ids that continue ``prefix`` towards at least one of the encoded actions (``encoded``
    sorted), sorted."""
    start = tuple(prefix)
    n = len(start)
    low = bisect.bisect_left(encoded, start)
    high = bisect.bisect_left(encoded, (*start, sys.maxsize), low)
    return sorted({ids[n] for ids in encoded[low:high] if len(ids) > n})
