"""The MCP tools, one module per group — ``reading``, ``writing``, ``ending``, ``learning`` —
each tool defined once (``spec.ToolSpec``) over a typed request (``core.requests``), and the
dispatch of a call to ``Memory``. Independent of the MCP SDK, so it is tested directly too.

``analyze_topology`` keeps the κ implementation prompt's name, description (the memory adds a
sentence after it) and arguments; its result is the canonical topology plus ``recommendation``.
A call's arguments are checked by its request (unknown names refused, each argument's type and
bounds, the rules across them) and a bad one answers ``InvalidInput`` naming the problem;
nothing is written then.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ...core.errors import InvalidInput
from ...core.service import Memory
from .ending import ENDING
from .learning import LEARNING
from .reading import ANALYZE_DESCRIPTION, READING
from .spec import KAPPA_NOTE, TOPOLOGY_FIELDS, ToolSpec
from .writing import WRITING

__all__ = [
    "ANALYZE_DESCRIPTION",
    "BY_NAME",
    "KAPPA_NOTE",
    "MAX_ARGUMENTS",
    "TOOLS",
    "TOPOLOGY_FIELDS",
    "ToolSpec",
    "call",
    "encode",
]

#: the most characters a call's arguments may take as JSON
MAX_ARGUMENTS = 8 * 1024 * 1024

TOOLS: tuple[ToolSpec, ...] = (*READING[:2], *WRITING, *READING[2:5], *ENDING, LEARNING[0], READING[5], LEARNING[1])
BY_NAME = {tool.name: tool for tool in TOOLS}


def call(memory: Memory, name: str, arguments: Any) -> dict[str, Any]:
    """Run tool ``name``; raises InvalidInput for an unknown tool or bad arguments."""
    tool = BY_NAME.get(name)
    if tool is None:
        raise InvalidInput(f"unknown tool {name!r}; the tools are {', '.join(BY_NAME)}")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise InvalidInput("the arguments must be a JSON object")
    allowed = tool.request.arguments()
    unknown = [key for key in arguments if key not in allowed]
    if unknown:
        raise InvalidInput(f"{name} has no argument {unknown[0]!r}; it takes {', '.join(allowed) or 'no arguments'}")
    try:
        size = len(json.dumps(arguments, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError):
        raise InvalidInput("the arguments must be plain JSON values") from None
    if size > MAX_ARGUMENTS:
        raise InvalidInput(f"the arguments are {size:,} characters as JSON; the limit is {MAX_ARGUMENTS:,}")
    asked = tool.request.parse(dict(arguments))
    return tool.run(memory.within(getattr(asked, "namespace", None)), asked)


def encode(result: Mapping[str, Any]) -> str:
    """The text form of a result: compact JSON, keys in the order the result has them."""
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
