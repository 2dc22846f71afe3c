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


class FrozenDict(dict):
    """A ``dict`` that refuses every change: part of a content pack that every state of every match on the same
    pack shares (``packs.shared``). It reads, compares and encodes as JSON as the ``dict`` it was made from; a
    deep copy is the object itself (nothing in it can change), a shallow copy a plain ``dict``."""

    __slots__ = ("__weakref__",)

    def _refused(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a shared content pack cannot change: copy the part to change")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _refused

    def __copy__(self) -> dict:
        return dict(self)

    def __deepcopy__(self, memo: dict) -> FrozenDict:
        return self

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict]]:
        return (FrozenDict, (dict(self),))


class FrozenList(list):
    """A ``list`` that refuses every change (``FrozenDict``'s, for the lists in a shared pack)."""

    __slots__ = ()

    def _refused(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a shared content pack cannot change: copy the part to change")

    __setitem__ = __delitem__ = append = extend = insert = pop = remove = clear = sort = reverse = _refused
    __iadd__ = __imul__ = _refused

    def __copy__(self) -> list:
        return list(self)

    def __deepcopy__(self, memo: dict) -> FrozenList:
        return self

    def __reduce__(self) -> tuple[type[FrozenList], tuple[list]]:
        return (FrozenList, (list(self),))


def frozen(value: Any) -> Any:
    """``value`` (JSON: dicts, lists, strings, numbers) with every dict and list in it frozen, as a new tree."""
    if type(value) is dict or type(value) is FrozenDict:
        return FrozenDict({k: frozen(v) for k, v in value.items()})
    if type(value) is list or type(value) is FrozenList or type(value) is tuple:
        return FrozenList(frozen(v) for v in value)
    return value


class Pack(FrozenDict):
    """A frozen content pack with the SHA-256 of its canonical JSON (``match_created``'s ``content_sha256``),
    worked out once when it was frozen: it cannot change since."""

    __slots__ = ("sha256",)
    sha256: str
