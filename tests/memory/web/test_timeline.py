"""The live page's time API (``memory.web.timeline``), on every backend, through the app the
server serves: which cards and edges hold in a served view (an invalidated edge is served as
ended, and leaving the ended ones out gives analyze_topology's κ), the view at a moment on
either time, when the memory changed, an item's history, the diff of two moments (the loop that
broke, and the edge that broke it), and when a loop closed and who wrote the edge that closed it."""

from __future__ import annotations

import json
from typing import Any

from bendscope.kappa.analyze import analyze_digraph
from bendscope.kappa.digraph import build_digraph
from bendscope.memory.core.service import Memory
from bendscope.memory.store.base import Store
from tests.memory.web.test_editor_site import TOKEN, _ask
from tests.memory.web.test_live import COOKIE, ORIGIN, _app

PAGE = {"cookie": COOKIE, "origin": ORIGIN}


def _loop_memory(store: Store) -> Memory:
    """x → y → x (causal), each written on its own, by an agent and by a person."""
    clock = iter(f"2026-12-01T10:00:{s:02d}.000Z" for s in range(60))
    memory = Memory(store, clock=lambda: next(clock))
    memory.store_many({"nodes": [{"id": "x", "content": "Ice melts"}, {"id": "y", "content": "Albedo falls"}]})
    memory.store_edge({"id": "xy", "source_id": "x", "target_id": "y", "edge_type": "causal", "source": "agent-a"})
    memory.store_edge({"id": "yx", "source_id": "y", "target_id": "x", "edge_type": "causal", "source": "agent-b"})
    return memory


def _get(app: Any, path: str, query: str = "") -> tuple[int, Any]:
    status, _, body = _ask(app, path, query=query, **PAGE)
    return status, json.loads(body)


def _post(app: Any, path: str, value: Any) -> tuple[int, Any]:
    status, _, body = _ask(app, path, method="POST", body=json.dumps(value).encode(), **PAGE)
    return status, json.loads(body)


def _page_kappa(document: dict[str, Any]) -> int:
    """κ as the page computes it when it leaves out what does not hold."""
    plane = document["planes"][0]
    cards = [c["id"] for c in plane["nodes"] if c["data"]["memory"]["holds"]]
    arcs = [
        {"source": e["a"], "target": e["b"]}
        for e in plane["edges"]
        if e["data"]["memory"]["holds"] and e["props"]["kind"] in ("causal", "temporal")
    ]
    return int(analyze_digraph(build_digraph(cards, arcs))["max_kappa"])


def test_a_served_view_says_what_holds_and_what_ended(store: Store):
    memory = _loop_memory(store)
    app = _app(memory)
    status, live = _get(app, "/api/graph")
    assert status == 200 and live["view"]["ended"] == 0 and _page_kappa(live["document"]) == 1
    memory.invalidate_edge({"id": "yx"})
    status, live = _get(app, "/api/graph")
    edges = {e["id"]: e["data"]["memory"] for e in live["document"]["planes"][0]["edges"]}
    assert edges["yx"]["holds"] is False and edges["yx"]["valid_until"] is not None and edges["xy"]["holds"] is True
    assert live["view"]["ended"] == 1 and live["view"]["time"] == {"as_of": None, "known_at": None}
    assert _page_kappa(live["document"]) == memory.analyze_topology({})["max_kappa"] == 0
    # an ended card: its edges end with it
    memory.invalidate_node({"id": "y"})
    (plane,) = _get(app, "/api/graph")[1]["document"]["planes"]
    assert {c["id"]: c["data"]["memory"]["holds"] for c in plane["nodes"]} == {"x": True, "y": False}
    assert [e["data"]["memory"]["holds"] for e in plane["edges"]] == [False, False]


def test_the_view_at_a_moment_on_either_time(store: Store):
    memory = _loop_memory(store)
    app = _app(memory)
    closed = memory.history({"id": "yx"})["versions"][0]["recorded_at"]  # (the loop closed then)
    memory.invalidate_edge({"id": "yx", "at": "2000-01-01"})
    believed = _post(app, "/api/view", {"node_ids": ["x", "y"], "known_at": closed})[1]  # (the page's cards, then)
    assert believed["document"] is not None and _page_kappa(believed["document"]) == 1
    assert believed["view"]["time"] == {"as_of": None, "known_at": closed} and believed["view"]["ended"] == 0
    status, graph = _get(app, "/api/graph", f"known_at={closed}")
    assert status == 200 and _page_kappa(graph["document"]) == 1
    known_now = _get(app, "/api/graph", f"as_of={closed}")[1]  # (what we now know about then: it ended in 2000)
    assert _page_kappa(known_now["document"]) == 0 and known_now["view"]["ended"] == 1
    before = _get(app, "/api/graph", "as_of=1999-06-01")[1]
    assert _page_kappa(before["document"]) == 1
    early = _get(app, "/api/graph", "known_at=2026-12-01T10:00:00.000Z")[1]  # (before anything was recorded)
    assert early["document"]["planes"][0]["nodes"] == [] and early["view"]["total"] == 0
    assert _get(app, "/api/graph", "known_at=yesterday")[0] == 400


def test_when_the_memory_changed_and_an_edges_history(store: Store):
    memory = _loop_memory(store)
    app = _app(memory)
    memory.invalidate_edge({"id": "yx", "at": "2000-01-01"})
    status, found = _get(app, "/api/history")
    assert status == 200 and found["more"] is False and found["valid"] == ["2000-01-01T00:00:00.000Z"]
    times = [m["at"] for m in found["moments"]]
    assert times == sorted(times) and len(times) == found["total"] >= 4
    history = memory.history({"id": "yx"})["versions"]
    assert {history[0]["recorded_at"], history[1]["recorded_at"]} <= set(times)
    assert _get(app, "/api/history", "limit=2")[1]["moments"] == found["moments"][-2:]
    earlier = _get(app, "/api/history", f"before={times[-1]}")[1]
    assert earlier["moments"] == found["moments"][:-1]
    status, edge = _get(app, "/api/history", "id=yx")
    assert status == 200 and edge["kind"] == "edge"
    assert [(v["source"], v["valid_until"]) for v in edge["versions"]] == [
        ("agent-b", None),
        ("agent-b", "2000-01-01T00:00:00.000Z"),
    ]
    assert _get(app, "/api/history", "id=nothing")[0] == 404
    assert _get(app, "/api/history", "limit=0")[0] == 400
    assert _get(app, "/api/history", "since=now")[0] == 400
    assert _ask(app, "/api/history", method="POST", body=b"{}", authorization=f"Bearer {TOKEN}")[0] == 405
    assert _ask(app, "/api/history", method="POST", body=b"{}", **PAGE)[0] == 401  # (the cookie posts nothing here)


def test_the_diff_of_two_moments_names_the_loop_that_broke_and_the_edge_that_broke_it(store: Store):
    memory = _loop_memory(store)
    app = _app(memory)
    closed = memory.history({"id": "yx"})["versions"][0]["recorded_at"]
    memory.store_node({"id": "x", "content": "Sea ice melts"})
    memory.store_node({"id": "z", "content": "Heat waves"})
    memory.invalidate_edge({"id": "yx"})
    status, changed = _post(app, "/api/diff", {"since": {"known_at": closed}, "until": {}})
    assert status == 200
    assert changed["nodes"] == {
        "added": {"count": 1, "ids": ["z"]},
        "ended": {"count": 0, "ids": []},
        "changed": {"count": 1, "ids": ["x"]},
    }
    assert changed["edges"]["ended"] == {"count": 1, "ids": ["yx"]} and changed["edges"]["added"]["count"] == 0
    (broke,) = changed["loops"]["broke"]
    assert broke["nodes"] == ["x", "y"] and broke["kappa"] == 1 and changed["loops"]["closed"] == []
    assert [(e["id"], e["source"], e["recorded_at"]) for e in broke["broken_by"]] == [("yx", "agent-b", closed)]
    back = _post(app, "/api/diff", {"since": {}, "until": {"known_at": closed}, "node_ids": ["x", "y"]})[1]
    (again,) = back["loops"]["closed"]
    assert again["nodes"] == ["x", "y"] and [e["id"] for e in again["closed_by"]] == ["yx"]
    assert _post(app, "/api/diff", {"until": {}})[0] == 400
    assert _post(app, "/api/diff", {"since": {"at": "now"}})[0] == 400


def test_when_a_loop_closed_and_who_wrote_the_edge_that_closed_it(store: Store):
    memory = _loop_memory(store)
    app = _app(memory)
    closed = memory.history({"id": "yx"})["versions"][0]["recorded_at"]
    status, loop = _post(app, "/api/loop", {"node_ids": ["y", "x"]})
    assert status == 200 and loop["nodes"] == ["x", "y"] and loop["closed_at"] == closed
    assert [(e["id"], e["source"], e["source_id"], e["target_id"]) for e in loop["closed_by"]] == [
        ("yx", "agent-b", "y", "x")
    ]
    memory.invalidate_edge({"id": "yx"})  # broken now, so it must be asked about a moment it held
    memory.store_edge({"id": "yx", "source_id": "y", "target_id": "x", "valid_until": None, "source": "editor"})
    reopened = _post(app, "/api/loop", {"node_ids": ["x", "y"]})[1]
    assert reopened["closed_at"] > closed and [e["source"] for e in reopened["closed_by"]] == ["editor"]
    then = _post(app, "/api/loop", {"node_ids": ["x", "y"], "at": {"known_at": closed}})[1]
    assert then["closed_at"] == closed and then["at"] == {"as_of": None, "known_at": closed}
    memory.invalidate_edge({"id": "xy"})
    status, refused = _post(app, "/api/loop", {"node_ids": ["x", "y"]})
    assert status == 400 and "do not form one loop" in refused["error"]
    assert _post(app, "/api/loop", {"node_ids": ["x"]})[0] == 400


def test_a_namespaces_moments_are_its_own(store: Store):
    clock = iter(f"2026-12-01T10:00:{s:02d}.000Z" for s in range(60))
    memory = Memory(store, clock=lambda: next(clock))
    alice_memory, bob_memory = memory.within("alice"), memory.within("bob")
    alice_memory.store_many({"nodes": [{"id": "a", "content": "Ice melts"}, {"id": "b", "content": "Sea rises"}]})
    alice_memory.store_edge({"id": "ab", "source_id": "a", "target_id": "b", "edge_type": "causal"})
    alice_memory.store_node({"id": "a", "content": "Ice melts faster"})
    said = bob_memory.store_node({"id": "c", "content": "Chess club on Monday"})["node"]["recorded_at"]
    app = _app(memory)
    whole = {m["at"]: m["changes"] for m in _get(app, "/api/history")[1]["moments"]}
    alice = {m["at"]: m["changes"] for m in _get(app, "/api/history", "namespace=alice")[1]["moments"]}
    bob = {m["at"]: m["changes"] for m in _get(app, "/api/history", "namespace=bob")[1]["moments"]}
    assert bob == {said: 1}
    assert alice and not set(alice) & set(bob)
    assert {**alice, **bob} == whole
    # a namespace's versions in a dump are its own too (the edge's among them)
    nodes, edges = memory.within("bob").store.all_versions()
    assert {n.id for n in nodes} <= {"c"} and edges == []
    assert {e.id for e in memory.within("alice").store.all_versions()[1]} <= {"ab"}
