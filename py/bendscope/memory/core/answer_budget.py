"""The response budget: how much stored text one answer carries.

Two numbers bound the text a reading tool sends back: ``max_chars``, the characters
of any one node's content and of any one node's or edge's metadata (as JSON), and
``max_total_chars``, the characters of all of them together in one answer, counted in
the order the answer lists them (nodes, then edges). What does not fit is cut and
marked, never dropped silently:

* content is cut to what is left and ends in "…"; the node's ``truncated`` says how
  many characters were left out;
* metadata is whole or not at all (cutting JSON would change its meaning): when it does
  not fit, the item's ``metadata`` is ``{}`` and ``metadata_omitted`` says how many
  characters of JSON it had. Empty metadata costs nothing.

What remains of an item (ids, types, numbers, a source of at most 1,000 characters) is
small and of bounded size, so an answer is about ``max_total_chars`` plus a few hundred
characters per item. Asking for one node by id with larger numbers gives all of it.

>>> budget = Budget(max_chars=5, max_total=8)
>>> budget.node({"id": "a", "content": "abcdefgh", "metadata": {}})
{'id': 'a', 'content': 'abcd…', 'metadata': {}, 'truncated': 4}
>>> budget.node({"id": "b", "content": "xyz", "metadata": {"k": 1}})
{'id': 'b', 'content': 'xyz', 'metadata': {}, 'metadata_omitted': 7}
>>> budget.cut
2
"""

from __future__ import annotations

import json
from typing import Any

from .records import MAX_CONTENT

DEFAULT_MAX_CHARS = 2_000  # characters of one node's content (or one item's metadata) in an answer
DEFAULT_MAX_TOTAL_CHARS = 40_000  # characters of content and metadata in one answer
MAX_TOTAL_CHARS = 10 * MAX_CONTENT  # (an answer of at most a few MB: see the HTTP write deadline)


def metadata_size(metadata: Any) -> int:
    """Characters of ``metadata`` as compact JSON; 0 for none. O(size).

    >>> metadata_size({}), metadata_size({"tag": "é"})
    (0, 11)
    """
    if not metadata:
        return 0
    return len(json.dumps(metadata, ensure_ascii=False, separators=(",", ":")))


class Budget:
    """What is left of one answer's budget; ``cut`` counts the items cut so far. Each
    call is O(size of the item)."""

    def __init__(self, max_chars: int = DEFAULT_MAX_CHARS, max_total: int = DEFAULT_MAX_TOTAL_CHARS) -> None:
        self.max_chars = max_chars
        self.left = max_total
        self.cut = 0

    def _allowance(self) -> int:
        return max(0, min(self.max_chars, self.left))

    def node(self, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` (a node's fields) within the budget: the same object when nothing is cut."""
        out = record
        content = record.get("content")
        if isinstance(content, str):
            allowance = self._allowance()
            if len(content) > allowance:
                kept = max(0, allowance - 1)  # (the mark "…" counts as one of the characters)
                out = {**record, "content": content[:kept] + "…" if allowance else "", "truncated": len(content) - kept}
            self.left -= len(out["content"])
        return self._metadata(record, out)

    def edge(self, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` (an edge's fields) within the budget: only its metadata can be left out."""
        return self._metadata(record, record)

    def _metadata(self, record: dict[str, Any], out: dict[str, Any]) -> dict[str, Any]:
        size = metadata_size(record.get("metadata"))
        if size > self._allowance():
            out = {**out, "metadata": {}, "metadata_omitted": size}
        else:
            self.left -= size
        if out is not record:
            self.cut += 1
        return out

    def nodes(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [self.node(r) for r in records]

    def edges(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [self.edge(r) for r in records]
