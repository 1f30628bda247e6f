"""The agent memory's operations: storing, retrieval with topology (the spec's retriever
integration test), the κ router, telemetry, and the tools' handling of bad arguments."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator

import pytest
from kappa_helpers import BUSINESS

from bendscope.kappa import analyze
from bendscope.memory import InvalidInput, Memory, NotFound
from bendscope.memory.core.records import new_edge
from bendscope.memory.core.telemetry import ANALYZE, ROUTE, Aggregator, Telemetry, percentile
from bendscope.memory.mcp.tools import BY_NAME, MAX_ARGUMENTS, TOOLS, call
from bendscope.memory.store.base import Store

CANONICAL_TOP = {"sccs", "dag_nodes", "routing", "max_kappa", "scc_count"}
CANONICAL_SCC = {"id", "nodes", "kappa", "approximate", "fault_line_edges", "routing", "deliberation_budget"}
BUSINESS_TEXT = {
    "market-share": "Market share: the share of the segment we win",
    "revenue": "Revenue follows market share and customer retention",
    "r-and-d": "R&D is funded from revenue",
    "product-quality": "Product quality is what R&D buys; it wins market share",
    "customer-retention": "Customer retention: churn and renewals, driven by market share",
    "company": "The company: Acme Analytics",
    "founded-2020": "The company was founded in 2020",
    "ceo-alice": "Alice is the CEO of the company",
}


def clock() -> Iterator[str]:
    for i in itertools.count():
        yield f"2026-11-30T10:{i // 60 % 60:02d}:{i % 60:02d}.000Z"


def memory_on(store: Store) -> Memory:
    ticks = clock()
    return Memory(store, clock=lambda: next(ticks))


def business(memory: Memory) -> None:
    for node_id, text in BUSINESS_TEXT.items():
        memory.store_node({"id": node_id, "content": text})
    for source, target in BUSINESS:
        memory.store_edge({"source_id": source, "target_id": target, "edge_type": "causal"})
    memory.store_edge({"source_id": "company", "target_id": "founded-2020", "edge_type": "temporal"})
    memory.store_edge({"source_id": "company", "target_id": "ceo-alice", "edge_type": "associative"})
    memory.store_edge({"source_id": "company", "target_id": "market-share", "edge_type": "associative"})


def dump(store: Store) -> str:
    nodes = store.get_nodes(store.node_ids())
    return json.dumps([n.to_dict() for n in nodes.values()] + [e.to_dict() for e in store.all_edges()])


# ---------------------------------------------------------------- storing
def test_store_node_creates_updates_and_keeps_what_is_not_given(store: Store):
    memory = memory_on(store)
    created = memory.store_node({"content": "Revenue follows share", "metadata": {"b": 1, "a": 2}})
    assert created["status"] == "created" and created["node"]["id"].startswith("node-")
    node_id = created["node"]["id"]
    again = memory.store_node({"content": "Revenue follows share", "metadata": {"a": 2, "b": 1}})
    assert again["status"] == "unchanged" and again["node"]["id"] == node_id
    updated = memory.store_node({"id": node_id, "confidence": 0.9})
    assert updated["status"] == "updated"
    node = updated["node"]
    assert (
        node["content"] == "Revenue follows share"
        and node["confidence"] == 0.9
        and node["metadata"] == {"a": 2, "b": 1}
    )
    assert node["created_at"] == created["node"]["created_at"] and node["updated_at"] > node["created_at"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "content is required"),
        ({"content": "  "}, "content must not be empty"),
        ({"content": "x", "node_type": "dream"}, "node_type must be one of"),
        ({"content": "x", "confidence": 1.5}, "confidence must be between 0 and 1"),
        ({"content": "x", "confidence": "high"}, "confidence must be a number"),
        ({"content": "x", "metadata": [1]}, "metadata must be a JSON object"),
        ({"content": "x", "metadata": {"big": "y" * 20_000}}, "the limit is 16,384"),
        ({"content": "x" * 100_001}, "the limit is 100,000"),
        ({"content": "x", "id": ""}, "id must be a non-empty string"),
        ({"content": "\ud800"}, "not valid Unicode"),
    ],
)
def test_bad_nodes_are_refused_and_nothing_changes(store: Store, args, message):
    memory = memory_on(store)
    business(memory)
    before = dump(store)
    with pytest.raises(InvalidInput, match=message):
        memory.store_node(args)
    assert dump(store) == before


def test_store_edge_needs_both_nodes_and_valid_fields(store: Store):
    memory = memory_on(store)
    business(memory)
    before = dump(store)
    with pytest.raises(NotFound, match="no node with id 'ghost'"):
        memory.store_edge({"source_id": "revenue", "target_id": "ghost"})
    with pytest.raises(InvalidInput, match="edge_type must be one of"):
        memory.store_edge({"source_id": "revenue", "target_id": "company", "edge_type": "loves"})
    with pytest.raises(InvalidInput, match="weight must be between"):
        memory.store_edge({"source_id": "revenue", "target_id": "company", "weight": -1})
    assert dump(store) == before
    first = memory.store_edge({"source_id": "revenue", "target_id": "company", "edge_type": "supports"})
    assert first["status"] == "created" and first["edge"]["weight"] == 1.0
    assert memory.store_edge({"source_id": "revenue", "target_id": "company", "edge_type": "supports"})["status"] == (
        "unchanged"
    )


def test_delete_node_and_edge(store: Store):
    memory = memory_on(store)
    business(memory)
    result = memory.delete_node("company")
    assert result["status"] == "deleted" and len(result["deleted_edges"]) == 3
    with pytest.raises(NotFound):
        memory.delete_node("company")
    edge_id = memory.query_graph({"node_ids": ["revenue", "r-and-d"]})["edges"][0]["id"]
    answer = memory.delete_edge(edge_id)
    assert {k: answer[k] for k in ("status", "id")} == {"status": "deleted", "id": edge_id}
    # revenue → r-and-d carried every cycle of the business loop
    topology = answer["topology"]
    assert topology["description"] == "breaks feedback loop" and topology["loops_after"] == []
    assert (topology["kappa_before"], topology["kappa_after"]) == (1, 0)
    with pytest.raises(NotFound):
        memory.delete_edge(edge_id)


def test_query_graph(store: Store):
    memory = memory_on(store)
    business(memory)
    page = memory.query_graph({"limit": 3, "offset": 2})
    assert [n["id"] for n in page["nodes"]] == ["customer-retention", "founded-2020", "market-share"]
    assert page["store"] == {"nodes": 8, "edges": 9}
    by_ids = memory.query_graph({"node_ids": ["revenue", "r-and-d"]})
    assert [e["edge_type"] for e in by_ids["edges"]] == ["causal"]
    by_text = memory.query_graph({"text": "company", "include_edges": False})
    assert {n["id"] for n in by_text["nodes"]} == {"company", "founded-2020", "ceo-alice"} and by_text["edges"] == []
    with pytest.raises(NotFound, match="no node with id 'x', 'y'"):
        memory.query_graph({"node_ids": ["revenue", "x", "y"]})
    with pytest.raises(InvalidInput, match="limit must be from 1 to 1000"):
        memory.query_graph({"limit": 0})


# ---------------------------------------------------------------- retrieval and topology
def test_retriever_integration_mixed_dag_and_cycle(store: Store):
    """The spec's retriever test: a store holding a DAG and a cycle; retrieval returns the
    topology of what it found, with canonical names, the loop, its κ and the fault line."""
    memory = memory_on(store)
    business(memory)
    response = memory.retrieve_context({"query": "why does market share keep rising", "limit": 10})
    assert list(response) == ["status", "retrieval_id", "query", "routing", "why", "count", "results", "loops",
                              "topology"]  # fmt: skip
    assert response["status"] == "ok" and response["count"] == len(response["results"])
    topology = response["topology"]
    assert set(topology) == CANONICAL_TOP and all(set(s) == CANONICAL_SCC for s in topology["sccs"])
    (scc,) = topology["sccs"]
    assert scc["nodes"] == ["customer-retention", "market-share", "product-quality", "r-and-d", "revenue"]
    assert scc["kappa"] == 1 and topology["routing"] == "deliberate" and response["routing"] == "deliberate"
    assert scc["fault_line_edges"] == [{"source": "product-quality", "target": "market-share"}]
    returned = {r["id"] for r in response["results"]}
    assert set(topology["dag_nodes"]) == returned - set(scc["nodes"])
    (loop,) = response["loops"]
    assert (loop["id"], loop["kappa"], loop["node_count"], loop["asked"], loop["scc"]) == (
        "customer-retention",
        1,
        5,
        True,
        "scc-0",
    )
    assert set(loop["names"]) == set(scc["nodes"]) - returned  # (members the results do not hold, named)
    assert all(r["loop"] == "customer-retention" for r in response["results"] if r["id"] in scc["nodes"])
    # the returned nodes, and the loop members named, were accessed once
    assert {n.access_count for n in store.get_nodes(returned | set(scc["nodes"])).values()} == {1}


def test_retrieval_ranking_expansion_and_filters(store: Store):
    memory = memory_on(store)
    business(memory)
    response = memory.retrieve_context({"query": "Alice", "limit": 5, "detail": "full"})
    ids = [r["id"] for r in response["results"]]
    assert ids[0] == "ceo-alice" and response["results"][0]["hop"] == 0 and response["results"][0]["via"] is None
    company = next(r for r in response["results"] if r["id"] == "company")  # one hop along the associative edge
    assert company["hop"] == 1 and company["relevance"] == pytest.approx(0.85)
    assert company["via"] == {
        "node_id": "ceo-alice",
        "edge_id": company["via"]["edge_id"],
        "edge_type": "associative",
        "direction": "in",
    }
    assert response["topology"]["routing"] == "fast" and response["routing"] == "fast"
    compact = memory.retrieve_context({"query": "Alice", "limit": 5})
    assert [r["id"] for r in compact["results"]] == ids and "stats" not in compact
    assert next(r for r in compact["results"] if r["id"] == "company")["via"] == "ceo-alice"
    with pytest.raises(InvalidInput, match="detail must be one of compact, full"):
        memory.retrieve_context({"query": "Alice", "detail": "everything"})
    no_hops = memory.retrieve_context({"query": "Alice", "expand_hops": 0})
    assert [r["id"] for r in no_hops["results"]] == ["ceo-alice"]
    memory.store_node({"id": "ceo-alice", "node_type": "episodic"})
    assert memory.retrieve_context({"query": "Alice", "node_types": ["episodic"]})["count"] == 1
    assert memory.retrieve_context({"query": "zebra unicorn"})["results"] == []
    # a low-confidence node ranks below an equally relevant one
    memory.store_node({"id": "low", "content": "quokka facts", "confidence": 0.1})
    memory.store_node({"id": "high", "content": "quokka facts!", "confidence": 0.9})
    assert [r["id"] for r in memory.retrieve_context({"query": "quokka"})["results"]] == ["high", "low"]


def test_the_same_call_gives_the_same_bytes(store: Store):
    memory = memory_on(store)
    business(memory)
    first = json.dumps(memory.retrieve_context({"query": "revenue"}))
    second = json.dumps(memory.retrieve_context({"query": "revenue"}))
    assert first == second  # access counts changed, the answer did not
    assert json.dumps(memory.analyze_topology({})) == json.dumps(memory.analyze_topology({}))


def test_analyze_topology_three_ways(store: Store):
    memory = memory_on(store)
    business(memory)
    full = memory.analyze_topology({})
    assert full["max_kappa"] == 1 and "Deliberate on the fault line" in full["recommendation"]
    assert full["dag_nodes"] == ["ceo-alice", "company", "founded-2020"]
    nodes = sorted(BUSINESS_TEXT)
    edges = [e.to_dict() for e in store.all_edges()]
    engine = analyze(
        nodes,
        [{"source": e["source_id"], "target": e["target_id"], "kind": e["edge_type"]} for e in edges],
        feedback_arc_set=True,  # (the agent's analyze_topology says what breaks every loop)
    )
    assert {k: v for k, v in full.items() if k != "recommendation"} == engine
    (scc,) = full["sccs"]
    assert scc["feedback_arc_set"]["exact"] and scc["feedback_arc_set"]["size"] >= scc["kappa"]
    assert f"Breaking every loop takes {scc['feedback_arc_set']['size']} edge" in full["recommendation"]
    part = memory.analyze_topology({"node_ids": ["company", "founded-2020", "revenue"]})
    assert part["routing"] == "fast" and part["dag_nodes"] == ["company", "founded-2020", "revenue"]
    assert part["recommendation"].startswith("This knowledge region is acyclic")
    by_query = memory.analyze_topology({"query": "revenue funded R&D"})
    assert by_query["routing"] == "deliberate"
    with pytest.raises(InvalidInput, match="not both"):
        memory.analyze_topology({"node_ids": ["revenue"], "query": "x"})
    with pytest.raises(NotFound, match="'nope'"):
        memory.analyze_topology({"node_ids": ["revenue", "nope"]})


def test_isolated_nodes_and_self_loops_follow_the_node_universe_rule(store: Store):
    memory = memory_on(store)
    for node_id in ("a", "b", "c"):
        memory.store_node({"id": node_id, "content": node_id})
    with pytest.raises(InvalidInput, match="to itself is not a feedback loop"):
        memory.store_edge({"source_id": "a", "target_id": "a", "edge_type": "causal"})
    store.put_edge(new_edge({"source_id": "a", "target_id": "a", "edge_type": "causal"}, now=memory.clock()))  # (old)
    memory.store_edge({"source_id": "a", "target_id": "b", "edge_type": "causal"})
    memory.store_edge({"source_id": "b", "target_id": "c", "edge_type": "causal"})
    memory.store_edge({"source_id": "c", "target_id": "b", "edge_type": "causal"})
    result = memory.analyze_topology({"node_ids": ["a", "b"]})  # c is outside: the loop is cut
    assert result["dag_nodes"] == ["a", "b"] and result["scc_count"] == 0
    snapshot = memory.get_metrics()["topology.analyze"]
    assert snapshot["self_loops_filtered"] == 1


# ---------------------------------------------------------------- telemetry
def test_telemetry_events_and_aggregator(store: Store):
    memory = memory_on(store)
    business(memory)
    events: list[tuple[tuple[str, ...], dict, dict]] = []
    for event in (ANALYZE, ROUTE):
        memory.telemetry.attach(f"test.{event[1]}", event, lambda e, m, meta: events.append((e, dict(m), dict(meta))))
    memory.retrieve_context({"query": "revenue"})
    memory.analyze_topology({"node_ids": ["company", "ceo-alice"]})
    analyze_events = [e for e in events if e[0] == ANALYZE]
    route_events = [e for e in events if e[0] == ROUTE]
    assert len(analyze_events) == 2 and len(route_events) == 2
    measurements, metadata = analyze_events[0][1], analyze_events[0][2]
    assert set(measurements) == {"duration_ms", "node_count", "edge_count"} and measurements["duration_ms"] >= 0
    assert set(metadata) == {"scc_count", "max_kappa", "routing", "self_loops_filtered"}
    assert [m["trigger"] for _, _, m in route_events] == ["retrieve_context", "analyze_topology"]
    assert [m["decision"] for _, _, m in route_events] == ["deliberate", "fast"]
    snapshot = memory.get_metrics()
    route = snapshot["topology.route"]
    assert (route["fast_count"], route["deliberate_count"], route["deliberate_ratio"]) == (1, 1, 0.5)
    assert route["by_trigger"]["retrieve_context"]["deliberate"] == 1
    assert snapshot["topology.analyze"]["count"] == 2 and snapshot["store"]["nodes"] == 8


def test_a_failing_handler_is_detached_and_never_breaks_the_call():
    bus = Telemetry()
    calls = []

    def broken(event, measurements, metadata):
        calls.append(1)
        raise RuntimeError("handler bug")

    bus.attach("broken", ROUTE, broken)
    bus.execute(ROUTE, {}, {"decision": "fast", "max_kappa": 0, "trigger": "analyze_topology"})
    bus.execute(ROUTE, {}, {"decision": "fast", "max_kappa": 0, "trigger": "analyze_topology"})
    assert calls == [1] and bus.detach("broken") is False
    with pytest.raises(ValueError):
        Aggregator(bus, handler_prefix="x")
        Aggregator(bus, handler_prefix="x")


def test_percentiles():
    values = sorted(float(i) for i in range(1, 101))
    assert (percentile(values, 50), percentile(values, 95), percentile(values, 99)) == (50.0, 95.0, 99.0)
    assert percentile([], 50) == 0.0


# ---------------------------------------------------------------- tool arguments
@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("nope", {}, "unknown tool 'nope'"),
        ("retrieve_context", {}, "query must be a non-empty string"),
        ("retrieve_context", {"query": "x", "limit": "ten"}, "limit must be a whole number"),
        ("retrieve_context", {"query": "x", "limit": 10_000}, "limit must be from 1 to 200"),
        ("retrieve_context", {"query": "x", "color": "red"}, "has no argument 'color'"),
        ("analyze_topology", {"node_ids": "revenue"}, "node_ids must be a list"),
        ("analyze_topology", {"node_ids": [1]}, "node_ids[0] must be a non-empty string"),
        ("analyze_topology", {"node_ids": ["ghost"]}, "no node with id 'ghost'"),
        ("analyze_topology", {"node_ids": ["x"] * 100_001}, "the limit is 100,000"),
        ("store_node", [1, 2], "the arguments must be a JSON object"),
        ("store_node", {"content": "x" * (MAX_ARGUMENTS + 1)}, "the limit is 8,388,608"),
        ("store_edge", {"source_id": "revenue"}, "target_id must be a non-empty string"),
        ("delete_node", {}, "id must be a non-empty string"),
        ("delete_edge", {"id": "ghost"}, "no edge with id 'ghost'"),
        ("get_metrics", {"x": 1}, "takes no arguments"),
    ],
)
def test_bad_tool_calls_say_why_and_change_nothing(store: Store, name, arguments, message):
    memory = memory_on(store)
    business(memory)
    before = dump(store)
    with pytest.raises(InvalidInput) as info:
        call(memory, name, arguments)
    assert message in str(info.value)
    assert dump(store) == before


def test_analyze_topology_is_worded_as_the_spec_says():
    tool = BY_NAME["analyze_topology"]
    assert tool.description.startswith(  # the spec's words, then what the memory adds
        "Compute topological structure (SCCs, κ values, routing decision) for a set of nodes in the knowledge "
        "graph. Use this to determine whether a knowledge region requires iterative deliberation (κ > 0) or can "
        "be answered with simple retrieval (κ = 0). Per loop region also feedback_arc_set"
    )
    spec = {  # the spec's two arguments, worded as it words them; limit (for query) added since
        "node_ids": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Node IDs to analyze. If omitted, analyzes the full graph.",
        },
        "query": {
            "type": "string",
            "description": "Optional query text. If provided, retrieves relevant nodes first, then analyzes "
            "their topology.",
        },
    }
    properties = tool.input_schema["properties"]
    worded = {k: {f: v for f, v in properties[k].items() if f not in ("maxItems", "maxLength")} for k in spec}
    assert tool.input_schema["type"] == "object" and worded == spec
    assert set(properties) == {*spec, "limit", "as_of", "known_at", "namespace"}
    assert [t.name for t in TOOLS] == [
        "retrieve_context",
        "analyze_topology",
        "store_node",
        "store_edge",
        "store_many",
        "append_observation",
        "query_graph",
        "list_edges",
        "history",
        "invalidate_node",
        "invalidate_edge",
        "delete_node",
        "delete_edge",
        "delete_many",
        "learn_from_outcome",
        "get_metrics",
        "consolidate",
    ]


# ---------------------------------------------------------------- review findings
def test_storing_an_edge_again_never_makes_a_second_one(store: Store):
    """{a, b} → related edge E; E changed to causal by id; {a, b} again made a second causal edge."""
    memory = memory_on(store)
    business(memory)
    first = memory.store_edge({"source_id": "ceo-alice", "target_id": "founded-2020"})["edge"]
    memory.store_edge({"id": first["id"], "source_id": "ceo-alice", "target_id": "founded-2020", "edge_type": "causal"})
    again = memory.store_edge({"source_id": "ceo-alice", "target_id": "founded-2020"})
    assert again["status"] == "unchanged" and again["edge"]["id"] == first["id"]
    between = memory.query_graph({"node_ids": ["ceo-alice", "founded-2020"]})["edges"]
    assert [e["edge_type"] for e in between] == ["causal"]


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("store_node", {"content": "x", "confidence": 10**400}, "confidence must be between 0 and 1"),
        ("store_edge", {"source_id": "revenue", "target_id": "company", "weight": 10**400}, "weight must be between"),
        ("store_node", {"id": "a\x00b", "content": "x"}, "must not contain control characters"),
        ("store_node", {"content": "x", "metadata": {"deep": [[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}}, "nested more than"),
        ("store_node", {"content": "a\x00b"}, "must not contain NUL"),
        ("store_node", {"content": "x", "source": "s\x00"}, "must not contain NUL"),
        ("query_graph", {"source": "s\x00"}, "must not contain NUL"),
        ("query_graph", {"source": "\ud800"}, "source is not valid Unicode"),
        ("query_graph", {"text": "x \udfff"}, "text is not valid Unicode"),
        ("retrieve_context", {"query": "\ud800 revenue"}, "query is not valid Unicode"),
    ],
)
def test_more_bad_values_are_refused(store: Store, name, arguments, message):
    memory = memory_on(store)
    business(memory)
    before = dump(store)
    with pytest.raises(InvalidInput, match=message):
        call(memory, name, arguments)
    assert dump(store) == before


def test_filters_apply_before_the_page_is_cut(store: Store):
    memory = memory_on(store)
    for i in range(30):
        memory.store_node({"id": f"s{i:02d}", "content": f"quarterly report number {i} report report"})
    memory.store_node({"id": "episode", "content": "a quarterly report", "node_type": "episodic"})
    found = memory.query_graph({"text": "quarterly report", "node_type": "episodic", "limit": 1})
    assert [n["id"] for n in found["nodes"]] == ["episode"]
    retrieved = memory.retrieve_context({"query": "quarterly report", "node_types": ["episodic"], "limit": 1})
    assert [r["id"] for r in retrieved["results"]] == ["episode"]


def test_analysis_by_query_only_looks(store: Store):
    memory = memory_on(store)
    business(memory)
    before = dump(store)
    memory.analyze_topology({"query": "revenue"})
    memory.export_document({"query": "revenue"})
    assert dump(store) == before  # no access counted, no edge activated


def test_seeds_keep_their_own_relevance_and_hop(store: Store):
    memory = memory_on(store)
    business(memory)
    response = memory.retrieve_context({"query": "market share revenue R&D quality", "limit": 8, "detail": "full"})
    assert all(r["hop"] == 0 for r in response["results"] if r["via"] is None)
    assert all(0 < r["relevance"] <= 1 for r in response["results"])
    assert response["stats"]["seeds"] == sum(r["hop"] == 0 for r in response["results"])


def test_the_exact_limit_reaches_retrieval(store: Store):
    """Two complete quartets joined by one arc each way: κ = 1, but past the limit no cut
    search runs and their degrees only bound it: κ ≤ 3, in [1, 3]."""
    memory = memory_on(store)
    pairs = [(f"{g}{i}", f"{g}{j}") for g in "qr" for i in range(4) for j in range(4) if i != j]
    for node in sorted({a for a, _ in pairs}):
        memory.store_node({"id": node, "content": f"quartet member {node}"})
    for source, target in [*pairs, ("q3", "r0"), ("r3", "q0")]:
        memory.store_edge({"source_id": source, "target_id": target, "edge_type": "causal"})
    memory.exact_limit = 7
    response = memory.retrieve_context({"query": "quartet member", "limit": 8})
    (scc,) = response["topology"]["sccs"]
    assert scc["approximate"] is True and scc["kappa"] == 3 and scc["kappa_range"] == [1, 3]
    memory.exact_limit = 8
    (scc,) = memory.retrieve_context({"query": "quartet member", "limit": 8})["topology"]["sccs"]
    assert scc["approximate"] is False and scc["kappa"] == 1


def test_two_memories_can_share_one_telemetry_bus(store: Store):
    bus = Telemetry()
    first, second = Memory(store, telemetry=bus), Memory(store, telemetry=bus)
    first.analyze_topology({})
    assert first.get_metrics()["topology.analyze"]["count"] == 1
    assert second.get_metrics()["topology.analyze"]["count"] == 1
