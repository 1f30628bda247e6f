"""The tools that write: facts, links, many at once, observations."""

from __future__ import annotations

from ...core import requests
from .spec import EFFECT_NOTE, ToolSpec, output, written

WRITING = (
    ToolSpec(
        "store_node",
        "Store a fact as a node, or a new version of the node with the given id or key (fields left out stay).",
        requests.StoreNode,
        output(("status", "id")),
        lambda memory, asked: written(memory.store_node(asked), "node"),
    ),
    ToolSpec(
        "store_edge",
        "Connect two stored nodes, or update the edge with the given id." + EFFECT_NOTE,
        requests.StoreEdge,
        output(("status", "id")),
        lambda memory, asked: written(memory.store_edge(asked), "edge"),
    ),
    ToolSpec(
        "store_many",
        "Store many nodes, then edges (which may join them), and a conversation's turns, all or nothing; errors "
        "name each wrong item." + EFFECT_NOTE,
        requests.StoreMany,
        output(("status", "nodes", "edges")),
        lambda memory, asked: memory.store_many(asked),
    ),
    ToolSpec(
        "append_observation",
        "Append a line to a stored node's content (a new version).",
        requests.AppendObservation,
        output(("status", "id", "length")),
        lambda memory, asked: memory.append_observation(asked),
    ),
)
