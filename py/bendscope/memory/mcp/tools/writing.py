"""The tools that write: facts, links, many at once, observations."""

from __future__ import annotations

from ...core import requests
from .spec import EFFECT_NOTE, ToolSpec, output, written

WRITING = (
    ToolSpec(
        "store_node",
        "Store a fact as a node, or update the node with the given id (fields left out keep their values). "
        "Without an id the id derives from the content: the same content finds the same node.",
        requests.StoreNode,
        output(("status", "id")),
        lambda memory, asked: written(memory.store_node(asked), "node"),
    ),
    ToolSpec(
        "store_edge",
        "Connect two stored nodes, or update the edge with the given id. Say its edge_type: 'A causes B' is causal; "
        "only causal and temporal edges are directed and form loops." + EFFECT_NOTE,
        requests.StoreEdge,
        output(("status", "id")),
        lambda memory, asked: written(memory.store_edge(asked), "edge"),
    ),
    ToolSpec(
        "store_many",
        "Store many nodes, then edges (which may join them), all or nothing: a wrong item stores nothing and "
        "the error names every wrong item." + EFFECT_NOTE,
        requests.StoreMany,
        output(("status", "nodes", "edges")),
        lambda memory, asked: memory.store_many(asked),
    ),
    ToolSpec(
        "append_observation",
        "Add an observation to the end of a stored node's content, on a new line.",
        requests.AppendObservation,
        output(("status", "id", "length")),
        lambda memory, asked: memory.append_observation(asked),
    ),
)
