"""The live editor's write operations: the contract between the page (``bend.live.sync``, which
makes them) and the memory (``memory.web.page_writes``, which checks and writes them for
``POST /api/write``), defined once here.

An operation is an object ``{"op": <name>, "id": <card or edge id>, "was": <expected>, …}``:
``was`` is the card's text or the edge as drawn (``EDGE_VIEW``) that the page saw, ``None``
when the page made it. ``put_node`` adds ``text``; ``put_edge`` adds the ``EDGE_VIEW``
fields.

>>> OPS
('put_node', 'delete_node', 'put_edge', 'delete_edge')
>>> is_node_op(DELETE_NODE), is_node_op(PUT_EDGE)
(True, False)
"""

from __future__ import annotations

PUT_NODE = "put_node"
DELETE_NODE = "delete_node"
PUT_EDGE = "put_edge"
DELETE_EDGE = "delete_edge"
#: every operation's name
OPS = (PUT_NODE, DELETE_NODE, PUT_EDGE, DELETE_EDGE)
#: the operations on cards
NODE_OPS = (PUT_NODE, DELETE_NODE)
#: the operations on edges
EDGE_OPS = (PUT_EDGE, DELETE_EDGE)
#: an edge as the memory sees it (and as an operation's ``was`` holds it)
EDGE_VIEW = ("a", "b", "kind", "label", "strength", "polarity")
#: operations one request may carry (a whole view deleted at once: its cards and edges)
MAX_OPS = 50_000


def is_node_op(name: str) -> bool:
    """Whether the operation ``name`` is on a card (else on an edge)."""
    return name in NODE_OPS
