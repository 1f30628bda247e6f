"""``Memory`` and its parts: ``state`` (what every part holds, the limits), ``writing``,
``reading``, ``outcomes`` (learning and consolidation) and ``exchange`` (documents and dumps);
``memory`` puts them together."""

from ..requests import DETAILS, MAX_BATCH, MAX_ITERATIONS, MAX_NODE_IDS, MAX_PAGE, MAX_QUERY
from .memory import Memory
from .state import ANALYZE_LOOP_LIMIT, DEFAULT_ACYCLIC_TYPES, EMBED_BATCH, MAX_ERRORS, MAX_POOL, TYPE_REQUIRED

__all__ = [
    "ANALYZE_LOOP_LIMIT",
    "DEFAULT_ACYCLIC_TYPES",
    "DETAILS",
    "EMBED_BATCH",
    "MAX_BATCH",
    "MAX_ERRORS",
    "MAX_ITERATIONS",
    "MAX_NODE_IDS",
    "MAX_PAGE",
    "MAX_POOL",
    "MAX_QUERY",
    "TYPE_REQUIRED",
    "Memory",
]
