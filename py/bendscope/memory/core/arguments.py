"""Typed requests: each operation's arguments defined once — name, type, meaning, bounds and
the check that turns a caller's JSON value into the typed value (or says what is wrong).

A request is a frozen dataclass whose fields carry an :class:`Arg` (:func:`arg`). From it
come the parsed request (:meth:`Request.parse`: unknown names refused, each argument
checked in field order, the first problem raised as ``InvalidInput``), the MCP tool's JSON
Schema and its reference page (``memory.mcp.schema``). The checks here are the ones every
request shares; the messages name the argument and what was given.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Page(Request):
...     limit: int = arg("Page size.", whole_number(1, 100), default=20, minimum=1, maximum=100)
>>> Page.parse({"limit": 5.0}).limit, Page.parse({}).limit
(5, 20)
>>> Page.parse({"limit": 0})
Traceback (most recent call last):
...
bendscope.memory.core.errors.InvalidInput: limit must be from 1 to 100, got 0
>>> Page.parse({"size": 5})
Traceback (most recent call last):
...
bendscope.memory.core.errors.InvalidInput: page has no argument 'size'; it takes limit
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, cast

from .errors import InvalidInput
from .records import check_id, check_text, kind_of, moment, whole

__all__ = [
    "UNSET",
    "Arg",
    "Request",
    "arg",
    "boolean",
    "choice",
    "id_list",
    "kind_of",
    "number_between",
    "text",
    "whole_number",
]

#: JSON types of a schema, by name
JsonType = str | list[str]
Check = Callable[[Any, str], Any]
R = TypeVar("R", bound="Request")


class _Unset:
    """An argument the caller did not give (kept apart from an explicit null)."""

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Any = _Unset()


@dataclass(frozen=True)
class Arg:
    """One argument: its JSON type, what it means (said in the schema and the reference), the
    check that reads it, whether it is required, and the schema's bounds (``minimum``, ``enum``,
    ``maxLength``, …)."""

    json_type: JsonType
    description: str
    check: Check
    required: bool = False
    schema: Mapping[str, Any] = dataclasses.field(default_factory=dict)


def arg(description: str, check: Check, *, json_type: JsonType | None = None, default: Any = UNSET,
        required: bool = False, **schema: Any) -> Any:  # fmt: skip
    """A request field: ``check(value, name)`` reads the caller's value; ``default`` is used when
    the argument is left out (``UNSET``: the request says it was not given). The JSON type comes
    from ``check`` (its ``json_type``) unless given."""
    kind = json_type if json_type is not None else getattr(check, "json_type", "string")
    meta = Arg(kind, description, check, required, dict(schema))
    if required:
        return dataclasses.field(metadata={"arg": meta})
    return dataclasses.field(default=default, metadata={"arg": meta})


class Request:
    """The base of every typed request (a frozen dataclass of :func:`arg` fields)."""

    #: the operation's name in messages (the MCP tool's name); default: the class name in snake case
    name: ClassVar[str] = ""

    @classmethod
    def tool_name(cls) -> str:
        return cls.name or re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()

    @classmethod
    def arguments(cls) -> dict[str, Arg]:
        """The arguments, in the order they are checked and listed."""
        return {f.name: f.metadata["arg"] for f in dataclasses.fields(cast(Any, cls)) if "arg" in f.metadata}

    @classmethod
    def parse(cls: type[R], arguments: Mapping[str, Any] | R) -> R:
        """The request ``arguments`` make (a request is returned as it is). Unknown names are
        refused naming what the operation takes; each given argument is checked in order (the
        first problem is raised); a required one left out is checked as null, which its check
        refuses."""
        if isinstance(arguments, cls):
            return arguments
        if not isinstance(arguments, Mapping):
            raise InvalidInput("the arguments must be a JSON object")
        known = cls.arguments()
        unknown = [key for key in arguments if key not in known]
        if unknown:
            takes = ", ".join(known) or "no arguments"
            raise InvalidInput(f"{cls.tool_name()} has no argument {unknown[0]!r}; it takes {takes}")
        values: dict[str, Any] = {}
        for name, meta in known.items():
            if name in arguments:
                values[name] = meta.check(arguments[name], name)
            elif meta.required:
                values[name] = meta.check(None, name)
        made = cls(**values)
        made.validate()
        return made

    def validate(self) -> None:
        """Rules across arguments (a subclass's); raise InvalidInput."""

    def given(self) -> dict[str, Any]:
        """The arguments the caller gave (those not ``UNSET``), by name."""
        fields = dataclasses.fields(cast(Any, self))
        return {f.name: getattr(self, f.name) for f in fields if getattr(self, f.name) is not UNSET}


def _typed(json_type: JsonType) -> Callable[[Check], Check]:
    def mark(check: Check) -> Check:
        check.json_type = json_type  # type: ignore[attr-defined]
        return check

    return mark


def whole_number(low: int, high: int) -> Check:
    """A whole number from ``low`` to ``high``; an integer-valued float (``2.0``) counts, as JSON
    Schema's "integer" does."""

    @_typed("integer")
    def check(value: Any, name: str) -> int:
        value = whole(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidInput(f"{name} must be a whole number from {low} to {high}, got {kind_of(value)}")
        if not low <= value <= high:
            raise InvalidInput(f"{name} must be from {low} to {high}, got {value}")
        return value

    return check


def number_between(low: float, high: float, *, above: bool = False) -> Check:
    """A finite number in [``low``, ``high``] (``above``: greater than ``low``)."""

    @_typed("number")
    def check(value: Any, name: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise InvalidInput(f"{name} must be a number")
        if value < low or value > high or (above and value == low):
            bound = f"above {low:g}" if above else f"at least {low:g}"
            raise InvalidInput(f"{name} must be {bound} and at most {high:g}, got {value!r:.20}")
        return float(value)

    return check


@_typed("boolean")
def boolean(value: Any, name: str) -> bool:
    """True or false."""
    if not isinstance(value, bool):
        raise InvalidInput(f"{name} must be true or false")
    return value


def choice(options: tuple[str, ...], *, nullable: bool = False) -> Check:
    """One of ``options`` (``nullable``: or null, read as None)."""

    @_typed(["string", "null"] if nullable else "string")
    def check(value: Any, name: str) -> str | None:
        if value is None and nullable:
            return None
        if value not in options:
            shown = repr(value)[:40] if isinstance(value, str) else kind_of(value)
            raise InvalidInput(f"{name} must be one of {', '.join(options)}, got {shown}")
        return str(value)

    return check


def text(limit: int, *, empty_ok: bool = False, nullable: bool = False) -> Check:
    """A string of at most ``limit`` characters, valid Unicode (``empty_ok``: blank allowed;
    ``nullable``: null read as None)."""

    @_typed(["string", "null"] if nullable else "string")
    def check(value: Any, name: str) -> str | None:
        if value is None and nullable:
            return None
        if not empty_ok and (not isinstance(value, str) or not value.strip()):
            raise InvalidInput(f"{name} must be a non-empty string")
        if isinstance(value, str) and len(value) > limit:
            raise InvalidInput(f"{name} is longer than {limit:,} characters")
        return check_text(value, name, limit)

    return check


def id_list(most: int) -> Check:
    """A list of ids (each a non-empty string), at most ``most``; repeats dropped, order kept."""

    @_typed("array")
    def check(value: Any, name: str) -> list[str]:
        if not isinstance(value, list):
            raise InvalidInput(f"{name} must be a list of node ids, got {kind_of(value)}")
        if len(value) > most:
            raise InvalidInput(f"{name} has {len(value):,} ids; the limit is {most:,}")
        return list(dict.fromkeys(check_id(v, f"{name}[{i}]") for i, v in enumerate(value)))

    return check


@_typed("string")
def an_id(value: Any, name: str) -> str:
    """A node or edge id."""
    return check_id(value, name)


@_typed("string")
def a_moment(value: Any, name: str) -> str:
    """A point in time: an ISO 8601 time (UTC, or an offset converted to it), a date, a month or a year."""
    return moment(value, name)
