"""The tools that end or erase: validity ends (a new version; what was believed is kept),
deletions (every version erased)."""

from __future__ import annotations

from ...core import requests
from .spec import EFFECT_NOTE, ToolSpec, output, written

ENDING = (
    ToolSpec(
        "invalidate_node",
        "End a node's validity at `at` (now) in a new version (known_at reads the old)." + EFFECT_NOTE,
        requests.InvalidateNode,
        output(("status", "id")),
        lambda memory, asked: written(memory.invalidate_node(asked), "node"),
    ),
    ToolSpec(
        "invalidate_edge",
        "End an edge's validity at `at` (now) in a new version (known_at reads the old)." + EFFECT_NOTE,
        requests.InvalidateEdge,
        output(("status", "id")),
        lambda memory, asked: written(memory.invalidate_edge(asked), "edge"),
    ),
    ToolSpec(
        "delete_node",
        "Erase a node, its edges and all their versions (to end a fact, invalidate it)." + EFFECT_NOTE,
        requests.DeleteNode,
        output(("status", "id", "deleted_edges", "topology")),
        lambda memory, asked: memory.delete_node(asked),
    ),
    ToolSpec(
        "delete_edge",
        "Erase an edge and its versions." + EFFECT_NOTE,
        requests.DeleteEdge,
        output(("status", "id")),
        lambda memory, asked: memory.delete_edge(asked),
    ),
    ToolSpec(
        "delete_many",
        "Erase nodes (with their edges) and edges with their versions, all or nothing.",
        requests.DeleteMany,
        output(("status", "nodes", "edges", "edges_with_the_nodes")),
        lambda memory, asked: memory.delete_many(asked),
    ),
)
