"""A marshmallow schema's ``load``, compiled once into plain checks for the hot path (the moves socket, the
action of ``POST .../actions``): the same result for what it accepts, and for anything else, None, so that
the caller loads with the schema itself and answers with its own errors, word for word.

The compiled check accepts only what the schema would accept, judged by the schema's own validators
(``OneOf``, ``Length``, ``Range``, ``Regexp``... called as marshmallow calls them) and its own
``validates_schema`` hooks; it is narrower where that is simpler: a string must be a ``str`` (not
bytes), an integer an ``int`` (not a float with no fraction), a boolean a ``bool`` (not ``"true"``). A
field of a kind it does not know (a custom field) is left to the schema whenever it is sent, and a schema
with other hooks (pre_load, post_load, a field's ``validates``), other ``unknown`` handling or renamed
fields is never compiled: ``compiled`` returns None and every load goes to the schema.

Why not fastjsonschema or msgspec: both would check the JSON Schema the API documents, which says less than
the marshmallow schema (the ``validates_schema`` rules, a custom field's own checks), so acceptance could
differ; and the output must be exactly the dict marshmallow builds (its keys in declaration order: the
engine copies actions into the log). Checks built from the schema's own fields and validators need no
new dependency and cannot drift from it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields
from marshmallow.decorators import POST_DUMP, POST_LOAD, PRE_DUMP, PRE_LOAD, VALIDATES, VALIDATES_SCHEMA
from marshmallow.utils import missing

from service import versions

_NO = object()  # "not this way": the schema decides

MARSHMALLOW = versions.written_for("marshmallow", "4.")
"""Whether the installed marshmallow keeps a schema's hooks (``Schema._hooks``, private: the only way to know
that a schema has none the compiled checks would skip) as marshmallow 4 does; if not, nothing is compiled and
every load and dump goes to the schema itself."""


def compiled(schema: Schema) -> Callable[[Any], dict | None] | None:
    """``schema.load`` as a function answering the loaded dict, or None (load it with the schema, to get
    its errors or what the fast path does not know); None when the schema cannot be compiled."""
    check = _schema(schema) if MARSHMALLOW else None
    return None if check is None else _none_for_no(check)


def _none_for_no(check: Callable[[Any], Any]) -> Callable[[Any], dict | None]:
    """``check`` answering None where it says ``_NO``: the caller's sign to go to the schema itself."""

    def checked(data: Any) -> dict | None:
        result = check(data)
        return None if result is _NO else result

    return checked


def _schema(schema: Schema) -> Callable[[Any], Any] | None:
    hooks = schema._hooks
    if (
        hooks[PRE_LOAD]
        or hooks[POST_LOAD]
        or hooks[VALIDATES]
        or schema.unknown != RAISE
        or schema.many
        or schema.partial
        or schema.only
        or schema.exclude
    ):
        return None
    for _name, pass_collection, kwargs in hooks[VALIDATES_SCHEMA]:
        if pass_collection or kwargs.get("pass_original"):
            return None
    validators = [getattr(schema, name) for name, _, _ in hooks[VALIDATES_SCHEMA]]
    plan = []
    for name, field in schema.load_fields.items():
        if (field.data_key is not None and field.data_key != name) or field.attribute not in (None, name):
            return None
        if field.load_default is not missing:
            return None
        plan.append((name, field.required, _field(field)))
    known = frozenset(name for name, _, _ in plan)

    def check(data: Any) -> Any:
        if type(data) is not dict or not known.issuperset(data):
            return _NO
        out = {}
        for name, required, load in plan:
            value = data.get(name, missing)
            if value is missing:
                if required:
                    return _NO
                continue
            if load is None:
                return _NO
            value = load(value)
            if value is _NO:
                return _NO
            out[name] = value
        try:
            for validate in validators:
                validate(out, partial=None, many=False, unknown=RAISE)
        except ValidationError:
            return _NO
        return out

    return check


def _field(field: fields.Field) -> Callable[[Any], Any] | None:
    """The check of one field's value (not missing): the value loaded, or _NO; None for a field it does not
    know."""
    inner: Callable[[Any], Any] | None
    if type(field) is fields.String:
        inner = _typed(str)
    elif type(field) is fields.Integer and field.strict:
        inner = _typed(int)
    elif type(field) is fields.Boolean:
        inner = _typed(bool)
    elif type(field) is fields.List:
        item = _field(field.inner)
        if item is None:
            return None
        inner = _list(item)
    elif type(field) is fields.Dict:
        key = _field(field.key_field) if field.key_field is not None else _typed(str)
        value = _field(field.value_field) if field.value_field is not None else _ANY
        if key is None or value is None:
            return None
        inner = _dict(key, value)
    elif (
        type(field) is fields.Nested
        and not field.many
        and field.unknown in (None, RAISE)
        and isinstance(field.schema, Schema)
    ):
        inner = _schema(field.schema)
    else:
        return None
    if inner is None:
        return None
    check = inner
    validators = tuple(field.validators)
    allow_none = field.allow_none
    if not validators and not allow_none:
        return check  # each check answers _NO for None, as the field does

    def load(value: Any) -> Any:
        if value is None:
            return None if allow_none else _NO
        value = check(value)
        if value is _NO:
            return _NO
        try:
            for validate in validators:
                if validate(value) is False:
                    return _NO
        except ValidationError:
            return _NO
        return value

    return load


def _typed(kind: type) -> Callable[[Any], Any]:
    return lambda value: value if type(value) is kind else _NO


def _ANY(value: Any) -> Any:
    return value


def _list(item: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def load(value: Any) -> Any:
        if type(value) is not list:
            return _NO
        out = [item(v) for v in value]
        return _NO if _NO in out else out  # nothing loaded equals _NO but itself

    return load


def _dict(key: Callable[[Any], Any], value: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def load(data: Any) -> Any:
        if type(data) is not dict:
            return _NO
        out = {}
        for k, v in data.items():
            k, v = key(k), value(v)
            if k is _NO or v is _NO:
                return _NO
            out[k] = v
        return out

    return load


def compiled_dump(schema: Schema) -> Callable[[Any], dict | None] | None:
    """``schema.dump`` of one dict, compiled as ``compiled`` compiles a load: the same dict, its keys in the
    same order, for values of the kinds it knows (strings, integers, dicts, lists and nested schemas of
    them, booleans, None); None for anything else, which the caller dumps with the schema itself. None when the
    schema cannot be compiled (dump hooks, renamed or defaulted fields, other field kinds)."""
    dump = _dump_schema(schema) if MARSHMALLOW else None
    return None if dump is None else _none_for_no(dump)


_DICT_NAMES = frozenset(dir(dict))  # a key missing from a dict is looked up as its attribute by marshmallow


def _dump_schema(schema: Schema) -> Callable[[Any], Any] | None:
    hooks = schema._hooks
    if (
        hooks[PRE_DUMP]
        or hooks[POST_DUMP]
        or schema.many
        or schema.only
        or schema.exclude
        or type(schema).get_attribute is not Schema.get_attribute
    ):
        return None
    plan = []
    for name, field in schema.dump_fields.items():
        if field.attribute not in (None, name) or field.dump_default is not missing or name in _DICT_NAMES:
            return None
        dump = _dump_field(field)
        if dump is None:
            return None
        plan.append((name, field.data_key or name, dump))

    def dump_one(obj: Any) -> Any:
        if type(obj) is not dict:
            return _NO
        out = {}
        for name, key, dump in plan:
            value = obj.get(name, missing)
            if value is missing:
                continue
            value = dump(value) if value is not None else None
            if value is _NO:
                return _NO
            out[key] = value
        return out

    return dump_one


def _dump_field(field: fields.Field) -> Callable[[Any], Any] | None:
    """The dump of one field's value (not None), or _NO; None for a field it does not know."""
    if type(field) is fields.String:
        return _typed(str)
    if type(field) is fields.Integer and not field.as_string:
        return _typed(int)
    if type(field) is fields.Boolean:
        return _typed(bool)  # marshmallow dumps a bool as itself
    if type(field) is fields.Dict and field.key_field is None and field.value_field is None:
        return lambda value: dict(value) if type(value) is dict else _NO
    if type(field) is fields.List:
        item = _dump_field(field.inner)
        return _dump_list(item) if item is not None else None
    if type(field) is fields.Nested and not field.many and isinstance(field.schema, Schema):
        return _dump_schema(field.schema)
    return None


def _dump_list(item: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def dump(value: Any) -> Any:
        if type(value) is not list:
            return _NO
        out = [v if v is None else item(v) for v in value]
        return _NO if _NO in out else out

    return dump
