"""Agent memory: a knowledge-graph store whose retrieval says "think or retrieve".

Server side only (the page never loads it). The pieces, one module each:

* ``records`` — nodes and edges, their fields and validation;
* ``store`` — the store interface; ``sqlite_store`` (the embedded default) and
  ``inmemory_store`` (tests) implement it;
* ``retrieval`` — ``retrieve_context``: lexical top-K, one-hop expansion, ranking, and
  the ``topology`` of what was retrieved (``topology`` wraps the κ engine);
* ``router`` — the κ router: DAG context in topological order, deliberation tasks;
* ``telemetry`` — an in-process event bus and its aggregator;
* ``service`` — ``Memory``, the operations the CLI and the MCP server share;
* ``interop`` — Bendscope documents in and out (the editor opens the memory);
* ``tools`` and ``server`` — the MCP tools and the server (stdio or streamable HTTP);
* ``cli`` — ``python -m memory``.
"""

from .errors import InvalidInput, NotFound
from .opening import open_store
from .records import EDGE_TYPES, NODE_TYPES, MemoryEdge, MemoryNode
from .service import Memory
from .store import Store
from .telemetry import Aggregator, Telemetry

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
