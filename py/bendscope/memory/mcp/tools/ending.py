"""The tools that end or erase: validity ends (the fact kept), deletions."""

from __future__ import annotations

from ...core import requests
from .spec import EFFECT_NOTE, ToolSpec, output, written

ENDING = (
    ToolSpec(
        "invalidate_node",
        "End a node's validity (at `at`, now by default) without erasing it: as_of an earlier time still sees "
        "it." + EFFECT_NOTE,
        requests.InvalidateNode,
        output(("status", "id")),
        lambda memory, asked: written(memory.invalidate_node(asked), "node"),
    ),
    ToolSpec(
        "invalidate_edge",
        "End an edge's validity (at `at`, now by default) without erasing it: as_of an earlier time still sees "
        "it." + EFFECT_NOTE,
        requests.InvalidateEdge,
        output(("status", "id")),
        lambda memory, asked: written(memory.invalidate_edge(asked), "edge"),
    ),
    ToolSpec(
        "delete_node",
        "Delete a node and every edge touching it." + EFFECT_NOTE,
        requests.DeleteNode,
        output(("status", "id", "deleted_edges", "topology")),
        lambda memory, asked: memory.delete_node(asked),
    ),
    ToolSpec(
        "delete_edge",
        "Delete an edge." + EFFECT_NOTE,
        requests.DeleteEdge,
        output(("status", "id")),
        lambda memory, asked: memory.delete_edge(asked),
    ),
    ToolSpec(
        "delete_many",
        "Delete nodes (with their edges) and edges, all or nothing.",
        requests.DeleteMany,
        output(("status", "nodes", "edges", "edges_with_the_nodes")),
        lambda memory, asked: memory.delete_many(asked),
    ),
)
