"""The MCP server, on the official SDK's low-level ``Server`` (tools with explicit JSON
Schemas and structured output): stdio by default (``stdio``: every line answered),
streamable HTTP on 127.0.0.1 as an option (``http``: every client resource bounded).
Tool calls run in worker threads (the store is synchronous), so the event loop stays
responsive: one at a time on an SQLite store, up to the pool size at once on a
PostgreSQL store (each thread has its own connection and transaction); a call that
fails returns an MCP tool error (``isError``) with a clear message and writes nothing —
the server never crashes on input.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server

from ..core.errors import InvalidInput, StoreUnavailable
from ..core.service import Memory
from .stdio import stdio_transport
from .tools import BY_NAME, TOOLS, call, encode

NAME = "bendscope-memory"
VERSION = "0.1.0"
INSTRUCTIONS = (
    "A knowledge-graph memory that says whether to think or to retrieve. Store facts with store_node or store_many "
    "and link them with store_edge, always saying the edge_type: 'A causes B' is causal; causal and temporal edges "
    "are directed and form feedback loops, the other types are associations. Ask with retrieve_context and follow "
    "its `routing`, the one field that decides: 'fast' — the results answer the question in one pass; "
    "'deliberate' — the question is about a feedback loop's dynamics: reason over the loop its `loops` entry "
    "marked asked points to (in topology.sccs: members, κ, fault lines, budget) before answering; `why` says "
    "which and why. κ of a loop region is the fewest edges whose removal splits it; breaking every loop may take "
    "more (analyze_topology's feedback_arc_set says how many). After answering, report with learn_from_outcome "
    "(the retrieval_id, the outcome, whether you deliberated and the iterations spent): confidence learns from "
    "it and get_metrics measures the routing. consolidate keeps the memory tidy without ever changing a loop. "
    "Each fact has two times: when it held (valid_from, none: an unknown past; valid_until; as_of reads what held "
    "then) and when the memory held it (every write keeps the version it replaces; known_at reads what it believed "
    "then; history lists the versions). End a fact with invalidate_node or invalidate_edge; delete erases it."
)

logger = logging.getLogger(__name__)

#: the most characters of a result's JSON that are repeated as text beside its structured form
TEXT_LIMIT = 64 * 1024
#: the most bytes of JSON one answer may take (the largest budgeted answers take about 2 MB;
#: a whole-graph topology of very many nodes can take more: it is refused, saying how to ask)
MAX_ANSWER = 8 * 1024 * 1024


def tool_list(read_only: bool = False) -> list[types.Tool]:
    """The tools' descriptions; on a read-only store only those that read."""
    return [
        types.Tool(
            name=tool.name,
            description=tool.description,
            input_schema=tool.input_schema,
            output_schema=tool.output_schema,
            annotations=types.ToolAnnotations(read_only_hint=tool.read_only),
        )
        for tool in TOOLS
        if tool.reads or not read_only
    ]


def text_of(name: str, result: dict[str, Any], text: str | None = None) -> str:
    """The text a result is also sent as (for clients that read no structured content):
    its JSON (``text``, when already encoded), unless that is over TEXT_LIMIT characters —
    then a line saying where it is, so a large answer does not travel twice."""
    text = encode(result) if text is None else text
    if len(text) <= TEXT_LIMIT:
        return text
    takes = BY_NAME[name].input_schema.get("properties", {}) if name in BY_NAME else {}
    ways = [way for arg, way in (("node_ids", "fewer node_ids"), ("limit", "a smaller limit"),
            ("max_total_chars", "a smaller max_total_chars")) if arg in takes]  # fmt: skip
    hint = f"; ask with {' or '.join(ways)} to have it repeated here as text" if ways else ""
    return f"{name}: the answer is {len(text):,} characters of JSON, sent once, as structured content{hint}"


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def too_large(name: str, text: str) -> str | None:
    """Why an answer (its JSON ``text``) is too large to send, or None. O(len(text))."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= MAX_ANSWER:
        return None
    return (
        f"{name}: the answer would be {size / 1e6:.1f} MB of JSON; an answer holds at most "
        f"{MAX_ANSWER / 1e6:.0f} MB: ask for a part (node_ids, a query, a smaller limit or max_total_chars), "
        "or export the memory with the CLI (bendscope-memory export --dump)"
    )


def build_server(memory: Memory, busy: Callable[[], str | None] | None = None) -> Server[Any]:
    """An MCP server exposing ``memory``'s tools; ``busy`` (the HTTP transport's) says why a
    call must wait, checked as each call starts (after those before it have answered)."""
    tools = tool_list(memory.store.read_only)
    limiter = anyio.CapacityLimiter(max(1, memory.store.parallel_calls))

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name, arguments = params.name, params.arguments
        label = name if name in BY_NAME else repr(name)  # (a name a client made up is quoted, escaped)
        try:
            async with limiter:
                reason = None if busy is None else busy()
                if reason is not None:
                    return _error(f"{label}: {reason}")
                result = await anyio.to_thread.run_sync(lambda: call(memory, name, arguments))
                text = encode(result)
                refused = too_large(label, text)
                if refused is not None:
                    return _error(refused)
        except InvalidInput as exc:
            return _error(f"{label}: {exc}")
        except StoreUnavailable as exc:
            return _error(f"{label}: the store is unavailable: {exc}")
        except Exception as exc:  # a bug of ours: report it, never crash the session
            logger.exception("tool %s failed", name)
            return _error(f"{label}: internal error ({type(exc).__name__}: {exc}); nothing was changed")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text_of(name, result, text))], structured_content=result
        )

    return Server(
        NAME,
        version=VERSION,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(memory: Memory) -> None:
    """Serve over stdin/stdout until the client closes them."""
    server = build_server(memory)
    async with stdio_transport() as (read, write):
        await server.run(read, write, server.create_initialization_options())
