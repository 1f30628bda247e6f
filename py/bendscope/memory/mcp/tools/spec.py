"""What a tool is: its name, what it says to the agent, the typed request it takes (its input
schema is generated from it), the fields of its answer, and what it runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...core.arguments import Request
from ...core.service import Memory
from ..schema import input_schema


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool. ``read_only``: it changes no knowledge (clients may run it without
    asking; a read-only store serves it); ``counts``: it records access counts and the
    retrieval (bookkeeping a read-only store skips)."""

    name: str
    description: str
    request: type[Request]
    output_schema: dict[str, Any]
    run: Callable[[Memory, Any], dict[str, Any]]
    read_only: bool = False
    counts: bool = False

    @property
    def input_schema(self) -> dict[str, Any]:
        """The input schema, from the typed request."""
        return input_schema(self.request)

    @property
    def reads(self) -> bool:
        """Served by a read-only store too (where it records nothing)."""
        return self.read_only


def output(fields: tuple[str, ...], typed: dict[str, Any] | None = None) -> dict[str, Any]:
    """An output schema: the fields every answer has (and, ``typed``, the type of some of them;
    the tool's description says what they mean). Kept short: every client reads every schema."""
    schema: dict[str, Any] = {"type": "object"}
    if typed:
        schema["properties"] = typed
    schema["required"] = list(fields)
    return schema


ROUTING = {"type": "string", "enum": ["fast", "deliberate"]}
#: the canonical topology's top-level fields (spec §A.1)
TOPOLOGY_FIELDS = ("sccs", "dag_nodes", "routing", "max_kappa", "scc_count")
#: what every tool says once about κ
KAPPA_NOTE = (
    " κ of a loop region (a strongly connected component of causal/temporal edges): the fewest edges whose "
    "removal splits it (its fault lines)."
)
#: what a write's answer says about the loops it touched
EFFECT_NOTE = " The answer says its effect on loops (topology)."


def written(answer: dict[str, Any], key: str) -> dict[str, Any]:
    """A write's answer to a client: status, id and what it did to the loops, not the record."""
    short = {"status": answer["status"], "id": answer[key]["id"]}
    if answer[key].get("valid_until") is not None and answer["status"] == "invalidated":
        short["valid_until"] = answer[key]["valid_until"]
    if "topology" in answer:
        short["topology"] = answer["topology"]
    if "merged_into" in answer:
        short["merged_into"] = answer["merged_into"]
    return short
