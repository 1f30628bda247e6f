"""The live editor's whole-memory view made again from the records served before
(``graph_view`` with a ``ViewLog``): on every store, after any writes, deletions, retrievals
and with facts ending as the clock passes, it answers exactly what making the view afresh
answers, and the changes since a version are exactly a whole-document diff's."""

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
from bendscope.memory.web.editor_site import graph_view, versioned
from bendscope.memory.web.timeline import Moment


class Clock:
    """A clock the test moves: milliseconds since 2026-01-01."""

    def __init__(self) -> None:
        self.ms = 0

    def at(self, ms: int) -> str:
        return f"2026-01-01T{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}Z"

    def __call__(self) -> str:
        return self.at(self.ms)


IDS = st.sampled_from(["a", "b", "c", "d"])
OPS = st.one_of(
    st.tuples(st.just("store"), IDS, st.sampled_from(["A", "B!", "C c"])),
    st.tuples(st.just("ends"), IDS, st.integers(1, 5)),  # (valid until a few ticks from now)
    st.tuples(st.just("delete"), IDS),
    st.tuples(st.just("edge"), IDS, IDS, st.sampled_from(["causal", "related"])),
    st.tuples(st.just("edge_ends"), IDS, IDS, st.integers(1, 5)),
    st.tuples(st.just("unedge"), IDS, IDS),
    st.tuples(st.just("retrieve"), st.sampled_from(["A", "C"])),
    st.tuples(st.just("tick"), st.integers(1, 4)),
    st.tuples(st.just("fetch")),
)


def _apply(memory: Memory, clock: Clock, op: tuple[Any, ...], tag: str) -> None:
    kind = op[0]
    if kind == "store":
        memory.store_node({"id": tag + op[1], "content": op[2]})
    elif kind == "ends":
        memory.store_node({"id": tag + op[1], "content": "ending", "valid_until": clock.at(clock.ms + op[2])})
    elif kind == "delete":
        if memory.store.get_node(tag + op[1]) is not None:
            memory.delete_node(tag + op[1])
    elif kind in ("edge", "edge_ends"):
        a, b = tag + op[1], tag + op[2]
        if len(memory.store.get_nodes([a, b])) == len({a, b}):
            extra = {"edge_type": op[3]} if kind == "edge" else {"valid_until": clock.at(clock.ms + op[3])}
            memory.store_edge({"id": f"{a}-{b}", "source_id": a, "target_id": b, "edge_type": "causal", **extra})
    elif kind == "unedge":
        if memory.store.get_edges([f"{tag}{op[1]}-{tag}{op[2]}"]):
            memory.delete_edge(f"{tag}{op[1]}-{tag}{op[2]}")
    elif kind == "retrieve":
        memory.retrieve_context({"query": op[1]})
    elif kind == "tick":
        clock.ms += op[1]
    clock.ms += 1


def _whole(memory: Memory, log: ViewLog | None = None) -> dict[str, Any]:
    status, answer = graph_view(memory, None, None, None, Moment(), log)
    assert status == 200
    return answer


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(OPS, max_size=30), tag=st.uuids().map(lambda u: u.hex[:6]))
def test_the_view_made_again_is_the_view_made_afresh_and_its_changes_a_whole_diff(store: Store, ops, tag):
    clock = Clock()
    memory = Memory(store, clock=clock)
    log = ViewLog(keep=4)
    first = versioned(_whole(memory, log), log, None)
    remote = Remote.of_document(json.loads(json.dumps(first["document"])), first["version"])
    for op in [*ops, ("fetch",)]:
        with contextlib.suppress(InvalidInput):  # (a write the memory refuses changes nothing)
            _apply(memory, clock, op, tag)
        if op[0] != "fetch":
            continue
        fresh = _whole(memory)
        again = _whole(memory, log)
        assert again == fresh  # (the same clock: the same answer, records made again or not)
        answer = json.loads(json.dumps(versioned(again, log, remote.version)))
        assert "changes" in answer
        remote = apply_to(remote, answer["changes"], answer["version"])
        plane = fresh["document"]["planes"][0]
        assert remote.nodes == {n["id"]: n for n in plane["nodes"]}
        assert remote.edges == {e["id"]: e for e in plane["edges"]}
