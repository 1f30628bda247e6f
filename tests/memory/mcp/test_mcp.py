"""Contract tests through the real protocol: the server runs as a subprocess
(``python -m bendscope.memory serve``) and the official SDK's client talks to it over stdio, and
once over streamable HTTP on 127.0.0.1 (a free port; the test stops the server)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from kappa_helpers import BUSINESS
from mcp import Client, StdioServerParameters

from tests.memory.core.test_service import BUSINESS_TEXT, CANONICAL_SCC, CANONICAL_TOP

ROOT = Path(__file__).resolve().parents[3]


def env(store: Path | str) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT / "py"), BENDSCOPE_MEMORY_STORE=str(store))


def run_async(main: Callable[[], Awaitable[None]]) -> None:
    """Run ``main`` on a fresh event loop in its own thread (a browser test's Playwright may own
    this thread's loop when the suites run in one session); its exception is raised here."""
    failure: list[BaseException] = []

    def target() -> None:
        try:
            anyio.run(main)
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout=300)
    assert not thread.is_alive(), "the MCP exchange did not finish within 300 s"
    if failure:
        raise failure[0]


def over_stdio(store: Path | str, work: Callable[[Client], Awaitable[None]]) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "bendscope.memory", "serve"], env=env(store))

    async def main() -> None:
        async with Client(params, cache=None) as client:
            await work(client)

    run_async(main)


async def ok(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    assert result.structured_content == json.loads(result.content[0].text)
    return result.structured_content


async def store_business(client: Client) -> None:
    for node_id, text in BUSINESS_TEXT.items():
        await ok(client, "store_node", {"id": node_id, "content": text})
    for source, target in BUSINESS:
        await ok(client, "store_edge", {"source_id": source, "target_id": target, "edge_type": "causal"})
    await ok(client, "store_edge", {"source_id": "company", "target_id": "founded-2020", "edge_type": "temporal"})
    await ok(client, "store_edge", {"source_id": "company", "target_id": "ceo-alice", "edge_type": "associative"})


def test_tools_and_schemas(tmp_path):
    async def work(client: Client) -> None:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert set(listed) == {
            "analyze_topology",
            "retrieve_context",
            "store_node",
            "store_edge",
            "query_graph",
            "delete_node",
            "delete_edge",
            "store_many",
            "append_observation",
            "delete_many",
            "list_edges",
            "get_metrics",
            "learn_from_outcome",
            "consolidate",
            "invalidate_node",
            "invalidate_edge",
            "history",
        }
        analyze = listed["analyze_topology"]
        assert analyze.description.startswith("Compute topological structure (SCCs, κ values, routing decision)")
        spec_and_ours = {"node_ids", "query", "limit", "as_of", "known_at", "namespace"}
        assert set(analyze.input_schema["properties"]) == spec_and_ours
        assert analyze.input_schema["properties"]["node_ids"]["items"] == {"type": "string"}
        assert "recommendation" in analyze.output_schema["properties"]
        assert listed["retrieve_context"].input_schema["required"] == ["query"]
        assert all(tool.output_schema for tool in listed.values())
        assert listed["query_graph"].annotations.read_only_hint is True
        # a reading that counts accesses is still read-only for the client: knowledge does not change
        assert listed["retrieve_context"].annotations.read_only_hint is True
        assert listed["store_edge"].annotations.read_only_hint is False
        assert listed["store_edge"].input_schema["properties"]["edge_type"]["description"].startswith("Required")
        for tool in listed.values():  # every argument described; unknown arguments refused, and said so
            assert tool.input_schema.get("additionalProperties") is False, tool.name
            for name, schema in tool.input_schema["properties"].items():
                assert schema.get("description"), (tool.name, name)
        # counted as bench_routing counts it: the answer's JSON with spaces and ASCII escapes
        answer = {"tools": [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed.values()]}
        size = len(json.dumps(answer))
        assert size <= 16_000, size
        assert "think or to retrieve" in (client.instructions or "")

    over_stdio(tmp_path / "m.sqlite3", work)


def test_the_business_example_end_to_end(location):
    async def work(client: Client) -> None:
        await store_business(client)
        response = await ok(client, "retrieve_context", {"query": "market share revenue"})
        topology = response["topology"]
        assert set(topology) == CANONICAL_TOP
        (scc,) = topology["sccs"]
        assert set(scc) == CANONICAL_SCC
        assert scc["kappa"] == 1 and topology["routing"] == "deliberate"
        assert scc["fault_line_edges"] == [{"source": "product-quality", "target": "market-share"}]
        by_ids = await ok(client, "analyze_topology", {"node_ids": list(BUSINESS_TEXT)})
        assert by_ids["max_kappa"] == 1 and "product-quality→market-share." in by_ids["recommendation"]
        arcset = by_ids["sccs"][0]["feedback_arc_set"]  # what breaks every loop, not only the weakest cut
        assert arcset["exact"] and arcset["size"] == len(arcset["edges"]) >= by_ids["sccs"][0]["kappa"]
        by_query = await ok(client, "analyze_topology", {"query": "R&D funded from revenue"})
        assert by_query["routing"] == "deliberate"
        dag = await ok(client, "analyze_topology", {"node_ids": ["company", "founded-2020", "ceo-alice"]})
        assert (dag["routing"], dag["max_kappa"], dag["scc_count"]) == ("fast", 0, 0)
        metrics = await ok(client, "get_metrics", {})
        route = metrics["topology.route"]
        assert route["by_trigger"]["retrieve_context"]["deliberate"] >= 1
        assert route["by_trigger"]["analyze_topology"]["fast"] == 1
        assert metrics["topology.analyze"]["duration_ms"]["p95"] >= 0
        listed = await ok(client, "query_graph", {"node_ids": ["revenue", "r-and-d"]})
        assert [e["edge_type"] for e in listed["edges"]] == ["causal"]
        deleted = await ok(client, "delete_edge", {"id": listed["edges"][0]["id"]})
        assert deleted["status"] == "deleted"
        # κ on every write: the answer says what the write did, over the protocol
        assert deleted["topology"]["description"] == "breaks feedback loop"
        assert deleted["topology"]["loops_before"][0]["node_count"] == 5
        again = await ok(client, "store_edge", {"source_id": "revenue", "target_id": "r-and-d", "edge_type": "causal"})
        assert again["topology"]["description"] == "creates feedback loop"
        assert (again["topology"]["kappa_before"], again["topology"]["kappa_after"]) == (0, 1)
        deleted = await ok(client, "delete_edge", {"id": again["id"]})
        gone = await ok(client, "analyze_topology", {})
        assert (gone["routing"], gone["max_kappa"]) == ("fast", 0)  # revenue → R&D closed both loops

    over_stdio(location, work)


def test_the_same_call_gives_the_same_bytes(location):
    async def work(client: Client) -> None:
        await store_business(client)
        for name, arguments in (
            ("retrieve_context", {"query": "customer retention"}),
            ("analyze_topology", {}),
            ("query_graph", {"text": "company"}),
        ):
            first = await client.call_tool(name, arguments)
            second = await client.call_tool(name, arguments)
            assert first.content[0].text == second.content[0].text

    over_stdio(location, work)


def test_bad_input_is_a_tool_error_and_writes_nothing(tmp_path):
    async def work(client: Client) -> None:
        await store_business(client)
        before = await ok(client, "query_graph", {"limit": 1000})
        for name, arguments, message in (
            (
                "store_edge",
                {"source_id": "revenue", "target_id": "ghost", "edge_type": "causal"},
                "no node with id 'ghost'",
            ),
            ("store_edge", {"source_id": "revenue", "target_id": "company"}, "edge_type is required for a new edge"),
            (
                "store_edge",
                {"source_id": "revenue", "target_id": "revenue", "edge_type": "causal"},
                "to itself is not a feedback loop",
            ),
            ("retrieve_context", {"query": "revenue", "limt": 3}, "retrieve_context has no argument 'limt'"),
            ("analyze_topology", {"node_ids": ["revenue", 7]}, "node_ids[1] must be a non-empty string"),
            ("analyze_topology", {"node_ids": ["x"] * 100_001}, "the limit is 100,000"),
            ("store_node", {"content": "x", "confidence": 3}, "confidence must be between 0 and 1"),
            ("retrieve_context", {"query": ""}, "query must be a non-empty string"),
            ("delete_node", {"id": "ghost"}, "no node with id 'ghost'"),
            ("no_such_tool", {}, "unknown tool"),
        ):
            result = await client.call_tool(name, arguments)
            assert result.is_error, (name, arguments)
            assert message in result.content[0].text
        after = await ok(client, "query_graph", {"limit": 1000})
        assert after == before
        assert (await ok(client, "get_metrics", {}))["store"]["nodes"] == 8  # the server is still there

    over_stdio(tmp_path / "m.sqlite3", work)


def test_over_streamable_http(tmp_path):
    store = tmp_path / "http.sqlite3"
    proc = subprocess.Popen(
        [sys.executable, "-m", "bendscope.memory", "serve", "--http", "0"],
        env=env(store),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        assert first.startswith("memory: the store is ") and str(store) in first  # (where it is, said first)
        line = proc.stderr.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", line)
        assert match, line
        url = match.group(0)

        async def main() -> None:
            async with Client(url, cache=None) as client:
                await store_business(client)
                topology = await ok(client, "analyze_topology", {})
                assert topology["max_kappa"] == 1
                result = await client.call_tool("store_node", {"content": 5})
                assert result.is_error

        run_async(main)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert proc.returncode is not None


@pytest.mark.parametrize("command", [["serve", "--http", "99999"], ["serve", "--store", "postgresql://x/y"]])
def test_serve_refuses_bad_options(tmp_path, command):
    proc = subprocess.run(
        [sys.executable, "-m", "bendscope.memory", *command],
        env=env(tmp_path / "m.sqlite3"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stderr.startswith("memory: error:") and "Traceback" not in proc.stderr
    assert "the store is" not in proc.stderr  # (said only once the server starts)


def test_one_server_serves_calls_at_once_on_postgresql(postgres_url):
    """A PostgreSQL store serves --pool-size calls at once (threads, a connection each):
    60 calls in flight from one client — writes, retrievals, analyses — all succeed, and
    the access counts add up to exactly the results returned."""
    from bendscope.memory.store.postgres import PostgresStore

    returned: list[int] = []

    async def work(client: Client) -> None:
        await store_business(client)

        async def one(k: int) -> None:
            if k % 3 == 0:
                await ok(client, "store_node", {"id": f"extra-{k}", "content": f"market note {k}"})
            elif k % 3 == 1:
                topology = (await ok(client, "retrieve_context", {"query": "market share"}))["topology"]
                returned.append(len(topology["dag_nodes"]) + sum(len(s["nodes"]) for s in topology["sccs"]))
            else:
                await ok(client, "analyze_topology", {"query": "revenue"})

        async with anyio.create_task_group() as group:
            for k in range(60):
                group.start_soon(one, k)
        import psycopg

        with psycopg.connect(postgres_url) as conn:  # the pool grew: calls really ran side by side
            (connections,) = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
        assert 2 <= connections <= 4

    over_stdio(postgres_url + "?pool_size=4", work)
    with PostgresStore(postgres_url) as store:
        nodes = store.get_nodes(store.node_ids())
        assert sum(n.access_count for n in nodes.values()) == sum(returned) > 0
        assert len([i for i in nodes if i.startswith("extra-")]) == 20


def test_the_agent_loop_end_to_end(any_location):
    """The worked example over the real protocol: retrieve → route → deliberate →
    learn_from_outcome → confidence and metrics change → consolidate without losing a loop
    (and, on a store that persists, the metrics are there after a restart)."""
    seen: dict[str, Any] = {}

    async def work(client: Client) -> None:
        await store_business(client)
        answer = await ok(client, "retrieve_context", {"query": "why does market share keep growing", "limit": 6})
        assert answer["routing"] == "deliberate" and answer["retrieval_id"].startswith("retrieval-")
        (loop,) = [entry for entry in answer["loops"] if entry["asked"]]
        (scc,) = [s for s in answer["topology"]["sccs"] if s["id"] == loop["scc"]]
        assert loop["kappa"] == scc["kappa"] == 1 and scc["deliberation_budget"]["max_iterations"] == 2
        region = answer["topology"]["dag_nodes"] + scc["nodes"]
        learned = await ok(
            client,
            "learn_from_outcome",
            {"retrieval_id": answer["retrieval_id"], "outcome": "success", "deliberated": True, "iterations": 2},
        )
        assert learned["decision"] == "deliberate" and {n["id"] for n in learned["nodes"]} == set(region)
        assert all(n["confidence_after"] > n["confidence_before"] for n in learned["nodes"])
        after = await ok(client, "query_graph", {"node_ids": [n["id"] for n in learned["nodes"]]})
        assert {n["id"]: n["confidence"] for n in after["nodes"]} == {
            n["id"]: n["confidence_after"] for n in learned["nodes"]
        }
        metrics = (await ok(client, "get_metrics", {}))["outcomes"]
        assert metrics["by_decision"]["deliberate"]["outcomes"]["success"] == 1
        assert metrics["unnecessary_deliberation"]["count"] == 0 and metrics["iterations"]["p50"] == 2.0
        # a smaller window: the loop's other members are only named; a success credits the results
        narrow = await ok(client, "retrieve_context", {"query": "why does market share keep growing", "limit": 2})
        (named,) = [entry["names"] for entry in narrow["loops"] if entry["asked"]]
        results = [r["id"] for r in narrow["results"]]
        assert len(results) == 2 and len(named) == 3
        success = {"retrieval_id": narrow["retrieval_id"], "outcome": "success"}
        credited = await ok(client, "learn_from_outcome", success)
        assert [n["id"] for n in credited["nodes"]] == sorted(results)
        member = sorted(named)[0]  # (a named member the agent says it used is credited too)
        used = {"retrieval_id": narrow["retrieval_id"], "outcome": "partial", "node_ids": [results[0], member]}
        assert {n["id"] for n in (await ok(client, "learn_from_outcome", used))["nodes"]} == {results[0], member}
        before = await ok(client, "query_graph", {"node_ids": ["ceo-alice"]})
        wrong = await client.call_tool("learn_from_outcome", {**used, "node_ids": [results[0], "ceo-alice"]})
        assert wrong.is_error and "did not return 'ceo-alice'" in wrong.content[0].text
        assert await ok(client, "query_graph", {"node_ids": ["ceo-alice"]}) == before  # (nothing was written)
        dry = await ok(client, "consolidate", {"dry_run": True, "idle_days": 0, "prune_below": 0.9})
        assert dry["kept_for_loops"]["count"] == 5 and dry["topology_before"] == dry["topology_after"]
        real = await ok(client, "consolidate", {"idle_days": 0, "prune_below": 0.9})
        pruned = [item["id"] for item in real["pruned"]["items"]]
        assert pruned == [item["id"] for item in dry["pruned"]["items"]] == ["ceo-alice", "company", "founded-2020"]
        topology = await ok(client, "analyze_topology", {})
        assert topology["max_kappa"] == 1 and len(topology["sccs"][0]["nodes"]) == 5
        seen["metrics"] = (await ok(client, "get_metrics", {}))["outcomes"]

    over_stdio(any_location, work)
    if any_location == ":memory:":
        return

    async def again(client: Client) -> None:
        assert (await ok(client, "get_metrics", {}))["outcomes"] == seen["metrics"]

    over_stdio(any_location, again)


def test_kappa_as_of_a_date_over_the_protocol(location):
    """A causal link invalidated today no longer forms today's loop, and the
    topology as of an earlier time still has it — over MCP, on SQLite and PostgreSQL."""

    async def work(client: Client) -> None:
        await store_business(client)
        today = await ok(client, "analyze_topology", {})
        assert today["max_kappa"] == 1
        listed = await ok(client, "list_edges", {"node_ids": ["revenue"], "edge_type": "causal"})
        funding = next(e for e in listed["edges"] if e["target_id"] == "r-and-d")
        ended = await ok(client, "invalidate_edge", {"id": funding["id"]})
        assert ended["status"] == "invalidated" and ended["topology"]["description"] == "breaks feedback loop"
        now = await ok(client, "analyze_topology", {})
        end = datetime.fromisoformat(ended["valid_until"].replace("Z", "+00:00"))
        earlier = (end - timedelta(milliseconds=1)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        before = await ok(client, "analyze_topology", {"as_of": earlier})
        assert (now["max_kappa"], before["max_kappa"]) == (0, 1)  # (a millisecond earlier: the loop held)
        assert before["sccs"][0]["fault_line_edges"] == [{"source": "product-quality", "target": "market-share"}]
        retrieved = await ok(client, "retrieve_context", {"query": "why does R&D funding keep growing", "limit": 6})
        assert retrieved["routing"] == "fast" and retrieved["topology"]["routing"] == "fast"  # (no loop now)
        past = await ok(client, "retrieve_context", {"query": "why does R&D funding keep growing", "as_of": earlier})
        assert past["routing"] == "deliberate" and past["topology"]["max_kappa"] == 1
        bad = await client.call_tool("analyze_topology", {"as_of": "yesterday"})
        assert bad.is_error and "as_of must be" in bad.content[0].text

    over_stdio(location, work)


def test_the_climate_trap_over_the_protocol(tmp_path):
    """A new agent developer's climate memory, written with one store_many: a lookup whose answer
    is linked to a loop member by a related edge is answered fast, that fact first, the loop only
    named; a question about the loop's dynamics past the window (limit 3) is deliberated with the
    whole loop; a write answers with its id and κ change, not the record."""
    domain = json.loads((ROOT / "bench" / "routing" / "climate.json").read_text(encoding="utf-8"))

    async def work(client: Client) -> None:
        stored = await ok(client, "store_many", {"nodes": domain["nodes"], "edges": domain["edges"]})
        assert stored["topology"]["kappa_after"] == 1 and len(stored["edges"]) == len(domain["edges"])
        lookup = await ok(client, "retrieve_context", {"query": "When was the Paris Agreement adopted?"})
        assert lookup["routing"] == "fast" and lookup["results"][0]["id"] == "paris-2015"
        assert lookup["why"].startswith("fast: the question asks for a fact")
        assert [loop["asked"] for loop in lookup["loops"]] == [False] * len(lookup["loops"])
        assert "global-warming" in [r["id"] for r in lookup["results"]]  # (the related edge's far end, a loop member)
        text = sum(len(r["content"]) for r in lookup["results"])
        result = await client.call_tool("retrieve_context", {"query": "When was the Paris Agreement adopted?"})
        assert len(result.content[0].text) - text <= 2_000
        dynamics = await ok(client, "retrieve_context", {"query": "How does melting sea ice feed back on warming?",
                                                          "limit": 3})  # fmt: skip
        assert dynamics["routing"] == "deliberate" and len(dynamics["results"]) <= 3
        (asked,) = [loop for loop in dynamics["loops"] if loop["asked"]]
        (scc,) = [s for s in dynamics["topology"]["sccs"] if s["id"] == asked["scc"]]
        assert set(scc["nodes"]) == {"global-warming", "arctic-sea-ice", "surface-albedo", "solar-absorption",
                                     "arctic-ocean-heat"}  # fmt: skip
        assert set(asked["names"]) == set(scc["nodes"]) - {r["id"] for r in dynamics["results"]}
        edge = await ok(client, "store_edge", {"source_id": "heatwaves", "target_id": "global-warming",
                                               "edge_type": "causal"})  # fmt: skip
        assert set(edge) == {"status", "id", "topology"} and edge["topology"]["description"] == "enlarges loop"
        node = await ok(client, "store_node", {"id": "co2-2023", "confidence": 0.9})
        assert node == {"status": "updated", "id": "co2-2023"}
        metrics = await ok(client, "get_metrics", {})
        assert metrics["store"]["location"] == str(tmp_path / "m.sqlite3")

    over_stdio(tmp_path / "m.sqlite3", work)
