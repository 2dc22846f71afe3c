"""``replaced``: ``dataclasses.replace`` for the shell's frozen dataclasses (a ``MatchState``, a log entry),
made several times per move. ``dataclasses.replace`` looks every field up, builds the keyword arguments and
runs ``__init__``, which sets each field through ``object.__setattr__``: some 10 µs for a ``MatchState``.
Copying the instance's ``__dict__`` makes the same object (equal, same fields, same values) where that is
all ``__init__`` would do: no ``__post_init__``, no ``InitVar`` or ``init=False`` field, no ``__slots__``.
Other classes, and unknown field names (``replace``'s TypeError), go to ``dataclasses.replace``."""

from __future__ import annotations

import dataclasses
import functools
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")


@functools.cache
def _plain_fields(cls: type) -> frozenset[str] | None:
    """The field names of ``cls`` when a copy of the instance's ``__dict__`` is what ``replace`` makes."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__") or hasattr(cls, "__slots__"):
        return None
    fields = dataclasses.fields(cls)
    if any(not f.init for f in fields) or any(isinstance(v, dataclasses.InitVar) for v in vars(cls).values()):
        return None
    names = frozenset(f.name for f in fields)
    return names if names == frozenset(cls.__dataclass_fields__) else None


def replaced(obj: T, **changes: Any) -> T:
    cls: type = type(obj)
    names = _plain_fields(cls)
    if names is None or not names.issuperset(changes):
        return dataclasses.replace(obj, **changes)
    new: T = object.__new__(cls)
    state = new.__dict__
    state.update(obj.__dict__)
    state.update(changes)
    return new
