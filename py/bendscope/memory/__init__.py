"""Agent memory: a knowledge-graph store whose retrieval says "think or retrieve".

Server side only (the page never loads it, and it never imports the editor). Its parts:

* ``core`` — what the memory is and does, whatever keeps it or serves it: ``records`` (nodes,
  edges and their rules, with both times), ``requests`` and ``arguments`` (each tool's arguments,
  typed and defined once), ``service`` (``Memory``: the operations every face shares),
  ``retrieval`` (``retrieve_context``), ``routing`` (``intent`` and ``router``: think or
  retrieve), ``analysis`` (the κ engine on a node set), ``loop_index`` (every loop with its κ,
  kept by every write), ``write_effect``, ``learning``, ``consolidation``, ``telemetry``,
  ``text`` (words and stems), ``embedders``, ``answer_budget``, ``errors``;
* ``store`` — where it is kept: ``base`` (the interface), ``sql`` (what the SQL stores share),
  ``sqlite`` (with its ``sqlite_schema``, ``sqlite_damage`` and ``sqlite_wal``), ``postgres``
  (with ``postgres_schema``, ``postgres_search`` and ``postgres_url``), ``inmemory``, ``past``
  (readings at a past time) and ``opening`` (a path or URL to a store);
* ``io`` — Bendscope documents and JSON Lines dumps in and out;
* ``mcp`` — the tools (one module per group), their schemas, the MCP server and its stdio
  transport;
* ``web`` — streamable HTTP, the editor's site, the page's writes, the change feed and the page's
  time line;
* ``cli`` — ``bendscope-memory`` (``python -m bendscope.memory``).
"""

from .core.errors import InvalidInput, NotFound
from .core.records import EDGE_TYPES, NODE_TYPES, MemoryEdge, MemoryNode
from .core.service import Memory
from .core.telemetry import Aggregator, Telemetry
from .store.base import Store
from .store.opening import open_store

__all__ = [
    "EDGE_TYPES",
    "NODE_TYPES",
    "Aggregator",
    "InvalidInput",
    "Memory",
    "MemoryEdge",
    "MemoryNode",
    "NotFound",
    "Store",
    "Telemetry",
    "open_store",
]
