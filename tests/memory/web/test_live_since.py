"""The live editor's changes since a version, read from the store's change numbers
(``since.answer_since``): on every store, after writes, deletions, invalidations, retrievals,
validity ends passing as the clock moves and nodes moving between namespaces, they are exactly
the changes the whole document compared with that version gives — for the whole memory and for
one namespace — and the page's copy with them applied is the whole document."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.bend.live.delta import Remote, apply_to
from bendscope.memory.core.errors import InvalidInput
from bendscope.memory.core.service import Memory
from bendscope.memory.store.base import Store
from bendscope.memory.web.deltas import ViewLog
from bendscope.memory.web.editor_site import LIVE_MAX_NODES, graph_answer, graph_view, versioned
from bendscope.memory.web.since import answer_since
from bendscope.memory.web.timeline import Moment

from .test_live_reuse import Clock

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
    st.tuples(st.just("retrieve"), st.sampled_from(["A", "C"])),
    st.tuples(st.just("tick"), st.integers(1, 4)),
    st.tuples(st.just("fetch")),
)


def _apply(memory: Memory, clock: Clock, op: tuple[Any, ...], tag: str) -> None:
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
    elif kind == "retrieve":
        memory.retrieve_context({"query": op[1]})
    elif kind == "tick":
        clock.ms += op[1]
    clock.ms += 1


class Page:
    """One page of a view (the whole memory, or a namespace): its copy, kept by the changes
    read from the change numbers; and a log answering the same versions from whole documents."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.log, self.whole_log = ViewLog(keep=4), ViewLog(keep=4)
        status, first = graph_answer(memory, None, Moment(), self.log, None)
        compared = versioned(_whole(memory, self.whole_log), self.whole_log, None)
        assert status == 200 and first["document"] == compared["document"]
        self.remote = Remote.of_document(json.loads(json.dumps(first["document"])), first["version"])
        self.compared = compared["version"]

    def fetch(self) -> None:
        with self.log.making:
            answer = answer_since(self.memory, self.log, self.remote.version, LIVE_MAX_NODES)
        assert answer is not None  # (every store numbers its changes)
        whole = versioned(_whole(self.memory, self.whole_log), self.whole_log, self.compared)
        self.compared = whole["version"]
        assert answer["view"] == whole["view"] and answer["at"] == whole["at"]
        assert answer["version"] == whole["version"]
        assert answer["changes"] == whole["changes"]
        answer = json.loads(json.dumps(answer))
        self.remote = apply_to(self.remote, answer["changes"], answer["version"])
        plane = _whole(self.memory)["document"]["planes"][0]
        assert self.remote.nodes == {n["id"]: n for n in plane["nodes"]}
        assert self.remote.edges == {e["id"]: e for e in plane["edges"]}


def _whole(memory: Memory, log: ViewLog | None = None) -> dict[str, Any]:
    status, answer = graph_view(memory, None, None, None, Moment(), log)
    assert status == 200
    return answer


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(OPS, max_size=30), tag=st.uuids().map(lambda u: u.hex[:6]))
def test_changes_read_from_the_change_numbers_are_the_whole_documents_diff(store: Store, ops, tag):
    clock = Clock()
    memory = Memory(store, clock=clock)
    pages = [Page(memory), Page(memory.within(tag + "ns"))]
    for op in [*ops, ("fetch",)]:
        with contextlib.suppress(InvalidInput):  # (a write the memory refuses changes nothing)
            _apply(memory, clock, op, tag)
        if op[0] == "fetch":
            for page in pages:
                page.fetch()
