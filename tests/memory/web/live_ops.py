"""The writes the live editor's state-machine tests make, defined once: the operations
(hypothesis strategies), a clock the tests move, and how each operation is applied to a memory.
``tests/memory/web/test_live_reuse.py`` and ``test_live_since.py`` draw from the same ``OPS``."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from bendscope.memory.core.service import Memory

__all__ = ["IDS", "OPS", "SPACES", "Clock", "apply_op"]


class Clock:
    """A clock the test moves: milliseconds since 2026-01-01."""

    def __init__(self) -> None:
        self.ms = 0

    def at(self, ms: int) -> str:
        return f"2026-01-01T{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}Z"

    def __call__(self) -> str:
        return self.at(self.ms)


IDS = st.sampled_from(["a", "b", "c", "d"])
SPACES = st.sampled_from(["ns", "other"])
OPS = st.one_of(
    st.tuples(st.just("store"), IDS, st.sampled_from(["A", "B!", "C c"])),
    st.tuples(st.just("store_in"), IDS, st.sampled_from(["A", "D"])),  # (through the namespace's view)
    st.tuples(st.just("ends"), IDS, st.integers(1, 5)),  # (valid until a few ticks from now)
    st.tuples(st.just("starts"), IDS, st.integers(1, 5)),  # (valid from a few ticks from now)
    st.tuples(st.just("invalidate"), IDS),
    st.tuples(st.just("move"), IDS, SPACES),
    st.tuples(st.just("delete"), IDS),
    st.tuples(st.just("edge"), IDS, IDS, st.sampled_from(["causal", "related"])),
    st.tuples(st.just("edge_ends"), IDS, IDS, st.integers(1, 5)),
    st.tuples(st.just("invalidate_edge"), IDS, IDS),
    st.tuples(st.just("unedge"), IDS, IDS),
    # (one call: nodes, then edges among them and stored ones; an edge to a missing node
    # refuses the whole call — what it read and wrote meanwhile must leave no trace)
    st.tuples(
        st.just("many"),
        st.lists(st.tuples(IDS, st.sampled_from(["A", "E e"])), max_size=3),
        st.lists(st.tuples(IDS, st.sampled_from(["a", "b", "c", "d", "z"])), max_size=3),
    ),
    st.tuples(st.just("retrieve"), st.sampled_from(["A", "C"])),
    st.tuples(st.just("tick"), st.integers(1, 4)),
    st.tuples(st.just("fetch")),
)


def apply_op(memory: Memory, clock: Clock, op: tuple[Any, ...], tag: str) -> None:
    """Apply one of ``OPS`` to ``memory`` (ids prefixed with ``tag``); a write the memory
    refuses raises ``InvalidInput`` and changes nothing."""
    kind = op[0]
    node = tag + op[1] if len(op) > 1 and isinstance(op[1], str) else ""
    if kind == "store":
        memory.store_node({"id": node, "content": op[2]})
    elif kind == "store_in":
        memory.within(tag + "ns").store_node({"id": node, "content": op[2]})
    elif kind in ("ends", "starts"):
        bound = "valid_until" if kind == "ends" else "valid_from"
        memory.store_node({"id": node, "content": "timed", bound: clock.at(clock.ms + op[2])})
    elif kind == "invalidate":
        memory.invalidate_node({"id": node})
    elif kind == "move":
        found = memory.store.get_node(node)
        if found is not None:
            memory.store_node({"id": node, "content": found.content, "metadata": {"namespace": tag + op[2]}})
    elif kind == "delete":
        if memory.store.get_node(node) is not None:
            memory.delete_node(node)
    elif kind in ("edge", "edge_ends"):
        a, b = node, tag + op[2]
        if len(memory.store.get_nodes([a, b])) == len({a, b}):
            extra = {"edge_type": op[3]} if kind == "edge" else {"valid_until": clock.at(clock.ms + op[3])}
            memory.store_edge({"id": f"{a}-{b}", "source_id": a, "target_id": b, "edge_type": "causal", **extra})
    elif kind == "invalidate_edge":
        if memory.store.get_edges([f"{node}-{tag}{op[2]}"]):
            memory.invalidate_edge({"id": f"{node}-{tag}{op[2]}"})
    elif kind == "unedge":
        if memory.store.get_edges([f"{node}-{tag}{op[2]}"]):
            memory.delete_edge(f"{node}-{tag}{op[2]}")
    elif kind == "many":
        nodes = [{"id": tag + i, "content": text} for i, text in dict(op[1]).items()]
        edges = [{"source_id": tag + a, "target_id": tag + b, "edge_type": "causal"} for a, b in op[2]]
        if nodes or edges:
            memory.store_many({"nodes": nodes, "edges": edges})
    elif kind == "retrieve":
        memory.retrieve_context({"query": op[1]})
    elif kind == "tick":
        clock.ms += op[1]
    clock.ms += 1
