"""A writer process for the tests that several processes write one store and lose nothing.

    python tests/support/store_writer.py LOCATION TAG COUNT [--retrieve]

Writes COUNT nodes ``TAG-i`` chained by causal edges, one transaction each, counts an
access of the node ``shared`` after each (and with ``--retrieve`` also runs a retrieval
that returns it). LOCATION is anything ``open_store`` takes.
"""

from __future__ import annotations

import sys
from pathlib import Path

T = "2026-11-30T10:00:00.000Z"


def main(argv: list[str]) -> None:
    from bendscope.memory import Memory
    from bendscope.memory.core.records import MemoryEdge, MemoryNode
    from bendscope.memory.store.opening import open_store

    location, tag, count = argv[0], argv[1], int(argv[2])
    retrieve = "--retrieve" in argv[3:]
    store = open_store(location)
    memory = Memory(store)
    for i in range(count):
        with store.transaction():
            store.put_node(MemoryNode(f"{tag}-{i}", f"text {tag} {i}", created_at=T, updated_at=T))
            if i:
                store.put_edge(MemoryEdge(f"{tag}-e{i}", f"{tag}-{i - 1}", f"{tag}-{i}", "causal", created_at=T))
        store.record_access(["shared"], T)
        if retrieve:
            memory.retrieve_context({"query": "shared text", "limit": 3})
    store.close()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "py"))
    main(sys.argv[1:])
