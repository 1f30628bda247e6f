"""JSON Schemas and the reference page, generated from the typed requests
(``memory.core.requests``): what a tool takes is defined once.

>>> from bendscope.memory.core.requests import DeleteNode
>>> input_schema(DeleteNode)["required"], input_schema(DeleteNode)["additionalProperties"]
(['id'], False)
"""

from __future__ import annotations

from typing import Any

from ..core.arguments import Request


def input_schema(request: type[Request]) -> dict[str, Any]:
    """The input schema of a tool taking ``request``: each argument's type, description and
    bounds, in order; those required; and no others (unknown arguments are refused)."""
    properties = {
        name: {"type": meta.json_type, "description": meta.description, **meta.schema}
        for name, meta in request.arguments().items()
    }
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    required = [name for name, meta in request.arguments().items() if meta.required]
    if required:
        schema["required"] = required
    return schema


def _type_words(json_type: str | list[str]) -> str:
    return json_type if isinstance(json_type, str) else " or ".join(json_type)


def _bounds(schema: dict[str, Any]) -> str:
    """An argument's bounds in words.

    >>> _bounds({"minimum": 1, "maximum": 200}), _bounds({"enum": ["a", "b"]}), _bounds({"maxLength": 2000})
    ('1 to 200', 'a, b', 'at most 2,000 characters')
    """
    said = []
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    above = "exclusiveMinimum" in schema
    if low is not None and "maximum" in schema:
        said.append(f"{'above ' if above else ''}{low:,} to {schema['maximum']:,}")
    elif low is not None:
        said.append(f"{'above' if above else 'at least'} {low:,}")
    elif "maximum" in schema:
        said.append(f"at most {schema['maximum']:,}")
    if "enum" in schema:
        said.append(", ".join(str(v) for v in schema["enum"]))
    if "maxLength" in schema:
        said.append(f"at most {schema['maxLength']:,} characters")
    if "maxItems" in schema:
        said.append(f"at most {schema['maxItems']:,} items")
    items = schema.get("items", {})
    if "enum" in items:
        said.append("each one of " + ", ".join(str(v) for v in items["enum"]))
    return "; ".join(said)


#: what a tool takes that its description (sent at every tools/list, on a budget) leaves out:
#: on this page only
NOTES = {
    "store_many": (
        "A turn's `time` is when it was said: an ISO 8601 time (its offset is the speaker's local day: "
        "`2023-05-08T23:30:00-07:00`), a time in UTC or a date (`2023-05-08`), a month (`2023-05`) or a year "
        "(`2023`); a time word finer than that is not resolved. From that day a turn's time words are "
        'resolved into `metadata.dates`: days ("yesterday", "last Saturday", "on Friday" told in '
        'the past or ahead, "this morning", "in two weeks"), weeks and weekends ("last week", '
        '"this weekend", "two weekends ago"), months and years ("last month", "earlier this '
        'year", "two years ago"), a month or a day of one without a year ("in May", "since May '
        '5th", "the fifth of May": in the year its words or its clause\'s tense say), seasons ("over '
        'the summer") and holidays after a word that places them ("at Christmas", "on '
        "Thanksgiving\", Easter, Mother's Day, …). See [conversations](conversations.md)."
    ),
}


def reference(tools: Any) -> str:
    """The tools' reference page (Markdown): each tool's description, its arguments (name,
    type, required, bounds, meaning) and the fields every answer has."""
    lines = [
        "# The memory's tools",
        "",
        "Generated from the tools' typed definitions (`bendscope.memory.core.requests`,",
        "`bendscope.memory.mcp.tools`) by `python -m bendscope.memory.mcp.schema`; a test keeps this page",
        "equal to what the code says. Every tool refuses an argument it does not take.",
        "",
    ]
    for tool in tools:
        lines += [f"## `{tool.name}`", "", tool.description, ""]
        if tool.name in NOTES:
            lines += [NOTES[tool.name], ""]
        marks = []
        if tool.read_only:
            marks.append("read-only (`readOnlyHint`)")
        if tool.counts:
            marks.append("counts accesses")
        if marks:
            lines += [f"*{', '.join(marks)}*", ""]
        arguments = tool.request.arguments()
        if arguments:
            lines += ["| argument | type | | meaning | bounds |", "| --- | --- | --- | --- | --- |"]
            for name, meta in arguments.items():
                bounds = _bounds(dict(meta.schema))
                required = "required" if meta.required else ""
                lines.append(
                    f"| `{name}` | {_type_words(meta.json_type)} | {required} | {meta.description} | {bounds} |"
                )
            lines.append("")
        else:
            lines += ["No arguments.", ""]
        answer = tool.output_schema.get("required", [])
        if answer:
            lines += [f"Answer: {', '.join(f'`{field}`' for field in answer)}.", ""]
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":  # pragma: no cover - the docs build runs it
    import sys

    from .tools import TOOLS

    text = reference(TOOLS)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
