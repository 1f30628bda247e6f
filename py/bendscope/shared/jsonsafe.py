"""Reading JSON nobody vouches for — a file someone opens, a line a client sends — with
limits a parser does not keep by itself: nesting (a parser recurses once per level, so a
deep enough text exhausts the stack: Pyodide's sooner than CPython's), the digits of an
integer literal (CPython refuses more than 4,300 with a bare ValueError, and converting
a long one costs quadratic time) and NaN or Infinity, which JSON does not have. Standard
library only; the editor core and the agent memory both read through it.

>>> loads('{"a": [1, 2.5, "x"]}', max_depth=2, max_digits=5)
{'a': [1, 2.5, 'x']}
>>> loads('[[[1]]]', max_depth=2, max_digits=5)
Traceback (most recent call last):
...
bendscope.shared.jsonsafe.Refused: nested more than 2 levels deep
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator
from typing import Any

_ESCAPE = re.compile(r"\\.", re.S)  # a backslash and the character it escapes
_STRING = re.compile(r'"[^"]*"')  # a string, once escapes are gone: no backtracking blow-up
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class Refused(ValueError):
    """The text is not JSON, or is JSON past a limit; the message says which, for a person."""

    def __init__(self, message: str, *, syntax: bool = False) -> None:
        super().__init__(message)
        #: True when the text is not JSON at all (a parse error), False when a limit refused it
        self.syntax = syntax


def nesting_depth(text: str) -> int:
    """The deepest bracket nesting of JSON ``text`` (brackets inside strings ignored).

    Linear for any text: escapes are removed first, so a string is ``"[^"]*"`` and an
    unclosed one costs one scan, not one per quote. Exact on valid JSON; on invalid JSON
    it counts every bracket of the prefix a parser would accept. O(len(text)).

    >>> nesting_depth('{"a": [1, {"b": "[[["}]}')
    3
    """
    return _depth(_outside_strings(text))


def _outside_strings(text: str) -> str:
    """``text`` without its escapes and strings (see :func:`nesting_depth`). O(len(text))."""
    return _STRING.sub("", _ESCAPE.sub("", text))


def _depth(outside: str) -> int:
    """The deepest bracket nesting of ``outside``, a text without strings. O(len(outside))."""
    brackets = _NOT_BRACKET.sub("", outside)
    depth = peak = 0
    for ch in brackets:
        if ch in "[{":
            depth += 1
            if depth > peak:
                peak = depth
        else:
            depth -= 1
    return peak


class _Limit(Exception):
    """Raised from inside the decoder's hooks."""


def loads(text: str, *, max_depth: int, max_digits: int) -> Any:
    """The value of JSON ``text``, or Refused: not JSON (``syntax``), nested deeper than
    ``max_depth``, an integer of more than ``max_digits`` digits, NaN or Infinity. O(len(text))."""
    steps = loads_steps(text, max_depth=max_depth, max_digits=max_digits)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def loads_steps(text: str, *, max_depth: int, max_digits: int) -> Generator[None, None, Any]:
    """:func:`loads` in three steps of about a third of its work each (a pause after the
    strings are set aside and after the nesting is counted), so that a page can read a large
    text between its frames; the same value or refusal.

    >>> steps = loads_steps('[1, {"a": "]"}]', max_depth=2, max_digits=5)
    >>> next(steps), next(steps)
    (None, None)
    >>> next(steps)
    Traceback (most recent call last):
    ...
    StopIteration: [1, {'a': ']'}]
    """
    outside = _outside_strings(text)
    yield
    if _depth(outside) > max_depth:
        raise Refused(f"nested more than {max_depth} levels deep")
    yield

    def integer(literal: str) -> int:
        if len(literal.lstrip("-")) > max_digits:
            raise _Limit(f"a number has more than {max_digits} digits")
        return int(literal)

    def constant(name: str) -> Any:
        raise _Limit(f"{name} is not a number JSON allows")

    try:
        return json.loads(text, parse_int=integer, parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise Refused(f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", syntax=True) from None
    except _Limit as exc:
        raise Refused(str(exc)) from None
    except (RecursionError, MemoryError):
        raise Refused("too large or nested too deeply") from None
