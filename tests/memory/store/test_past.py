"""A reading of the past is the reading the memory gave then: after random writes — nodes and
edges made, edited, invalidated (some back-dated), re-validated — the memory read ``known_at``
a time equals a copy of it taken at that time (its dump then, imported into a fresh store whose
clock stops there), on every backend: the nodes and edges with every field but when a version
stopped being current, and the topology."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator

import pytest

from bendscope.memory import Memory
from bendscope.memory.core.errors import InvalidInput, NotFound
from bendscope.memory.store.base import Store
from bendscope.memory.store.inmemory import InMemoryStore

WORDS = ["ice", "albedo", "heat", "ocean", "cloud", "rain", "soil", "forest", "carbon", "methane"]


class Clock:
    """A clock that moves a second at each reading (or stays, when ``stopped``)."""

    def __init__(self) -> None:
        self.ticks = 0
        self.stopped: str | None = None

    def __call__(self) -> str:
        if self.stopped is not None:
            return self.stopped
        self.ticks += 1
        return f"2026-12-01T{self.ticks // 3600:02d}:{self.ticks // 60 % 60:02d}:{self.ticks % 60:02d}.000Z"


def _writes(rng: random.Random, count: int) -> Iterator[tuple[str, dict]]:
    nodes = [f"n{i}" for i in range(12)]
    for _ in range(count):
        kind = rng.random()
        node = rng.choice(nodes)
        if kind < 0.35:
            fact = {"id": node, "content": " ".join(rng.sample(WORDS, 3)), "confidence": rng.choice([0.3, 0.6, 0.9])}
            if rng.random() < 0.3:
                fact["valid_from"] = rng.choice(["2019-01-01", "2024-06-01", None])
            yield "store_node", fact
        elif kind < 0.7:
            a, b = rng.sample(nodes, 2)
            link = {"id": f"{a}-{b}", "source_id": a, "target_id": b, "edge_type": rng.choice(["causal", "related"])}
            yield "store_edge", {**link, "weight": rng.choice([0.5, 1.0]), "valid_until": None}
        elif kind < 0.85:
            a, b = rng.sample(nodes, 2)
            yield "invalidate_edge", {"id": f"{a}-{b}", "at": rng.choice(["2000-01-01", None])}
        else:
            yield "invalidate_node", {"id": node, "at": rng.choice(["2010-01-01", None])}


def _facts(answer: dict) -> list[dict]:
    """Nodes or edges as read, but for when their version stopped being current (a copy taken
    then cannot know it)."""
    return [{**item, "recorded_until": None} for item in answer]


@pytest.mark.parametrize("seed", range(4))
def test_a_reading_known_at_a_time_is_the_copy_taken_then(store: Store, seed: int):
    rng = random.Random(seed)
    clock = Clock()
    memory = Memory(store, clock=clock)
    copies: list[tuple[str, list[bytes]]] = []
    for step, (name, arguments) in enumerate(_writes(rng, 80)):
        # (an edge to invalidate that was never made, an end before a start: refused, nothing written)
        with contextlib.suppress(InvalidInput, NotFound):
            getattr(memory, name)({k: v for k, v in arguments.items() if not (k == "at" and v is None)})
        if step % 16 == 15:
            lines = [line.encode() for line in memory.dump_lines()]
            copies.append((clock(), lines))  # (a time after the copy's writes, before the next ones)
    now = memory.query_graph({"limit": 1000})
    differs = 0
    for when, lines in copies:
        then = Clock()
        then.stopped = when
        copy = Memory(InMemoryStore(), clock=then)
        copy.import_dump(lines)
        read = memory.query_graph({"known_at": when, "limit": 1000})
        kept = copy.query_graph({"limit": 1000})
        assert _facts(read["nodes"]) == _facts(kept["nodes"]) and _facts(read["edges"]) == _facts(kept["edges"])
        assert read["store"] == kept["store"] and read["nodes"]
        differs += _facts(read["nodes"]) != _facts(now["nodes"]) or _facts(read["edges"]) != _facts(now["edges"])
        assert memory.analyze_topology({"known_at": when}) == copy.analyze_topology({})
        assert memory.analyze_topology({"known_at": when, "as_of": "2015-01-01"}) == copy.analyze_topology(
            {"as_of": "2015-01-01"}
        )
        held = memory.query_graph({"known_at": when, "as_of": "2025-01-01", "limit": 1000})
        assert _facts(held["nodes"]) == _facts(copy.query_graph({"as_of": "2025-01-01", "limit": 1000})["nodes"])
        listed = memory.list_edges({"known_at": when})
        assert _facts(listed["edges"]) == _facts(copy.list_edges({})["edges"])
        for word in WORDS[:4]:  # (the same nodes found; their order is by today's term weights)
            found = {n["id"] for n in memory.query_graph({"text": word, "known_at": when})["nodes"]}
            assert found == {n["id"] for n in copy.query_graph({"text": word})["nodes"]}
    assert differs >= len(copies) - 1  # (the past read is not the present)
