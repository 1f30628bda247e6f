"""Two times over the real protocol, on SQLite, in memory and on PostgreSQL: valid time (when a
fact held: valid_from, valid_until, as_of) and recorded time (when the memory held a version of
it: recorded_at, recorded_until, known_at). An edit keeps the version it replaces; a back-dated
invalidation ends a fact without erasing that it was believed; a fact without valid_from held
from an unknown past; history lists the versions; merged ids read, link and credit the node they
became; learning credits what the retrieval returned."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from tests.memory.mcp.test_mcp import ok, over_stdio

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


async def refused(client: Client, name: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(name, arguments)
    assert result.is_error, result.content
    return str(result.content[0].text)


async def recorded(client: Client, item: str) -> str:
    """When the current version of node or edge ``item`` was recorded (then a moment passes)."""
    versions = (await ok(client, "history", {"id": item}))["versions"]
    await anyio.sleep(0.01)  # (the next write is recorded later)
    return str(versions[-1]["recorded_at"])


def test_an_edit_keeps_the_version_it_replaces(any_location):
    async def work(client: Client) -> None:
        await ok(client, "store_node", {"id": "co2", "content": "CO2 is about 410 ppm", "valid_from": "2019-01-01"})
        t1 = await recorded(client, "co2")
        assert (await ok(client, "store_node", {"id": "co2", "content": "CO2 is about 410 ppm"}))["status"] == (
            "unchanged"
        )
        await ok(client, "store_node", {"id": "co2", "content": "CO2 is about 420 ppm", "source": "noaa"})
        history = await ok(client, "history", {"id": "co2"})
        assert history["kind"] == "node" and history["count"] == 2
        old, new = history["versions"]
        assert (old["content"], new["content"]) == ("CO2 is about 410 ppm", "CO2 is about 420 ppm")
        assert old["recorded_at"] == t1 and old["recorded_until"] == new["recorded_at"] > t1
        assert new["recorded_until"] is None and old["valid_from"] == new["valid_from"] == "2019-01-01T00:00:00.000Z"
        now = await ok(client, "query_graph", {"node_ids": ["co2"]})
        then = await ok(client, "query_graph", {"node_ids": ["co2"], "known_at": t1})
        assert now["nodes"][0]["content"].endswith("420 ppm") and then["nodes"][0]["content"].endswith("410 ppm")
        assert then["nodes"][0]["recorded_until"] == new["recorded_at"]
        # retrieval finds a node by the text it had then, and records nothing for a reading of the past
        assert (await ok(client, "retrieve_context", {"query": "410"}))["results"] == []
        past = await ok(client, "retrieve_context", {"query": "410", "known_at": t1})
        assert [r["content"] for r in past["results"]] == ["CO2 is about 410 ppm"] and past["retrieval_id"] is None
        texts = await ok(client, "query_graph", {"text": "410", "known_at": t1})
        assert [n["id"] for n in texts["nodes"]] == ["co2"]
        # an edge's edit too; before the first recording, nothing was known
        await ok(client, "store_node", {"id": "warming", "content": "The planet warms"})
        link = {"source_id": "co2", "target_id": "warming", "edge_type": "causal", "source": "ipcc"}
        edge_id = (await ok(client, "store_edge", link))["id"]
        await ok(client, "store_edge", {**link, "weight": 0.4})
        edge = await ok(client, "history", {"id": edge_id})
        assert [(v["weight"], v["source"]) for v in edge["versions"]] == [(1.0, "ipcc"), (0.4, "ipcc")]
        before = await ok(client, "query_graph", {"known_at": "2020-01-01"})
        assert before["nodes"] == [] and before["store"] == {"nodes": 0, "edges": 0}

    over_stdio(any_location, work)


def test_a_back_dated_invalidation_leaves_what_was_believed(any_location):
    """The issue's first finding: a loop noted at t1, then one of its edges invalidated as of
    2000. Now the loop never held (as_of t1: κ 0); what the memory believed at t1 still says κ 1."""

    async def work(client: Client) -> None:
        nodes = [{"id": "ice", "content": "Sea ice melts"}, {"id": "albedo", "content": "Albedo falls"}]
        edges = [
            {"id": "melt", "source_id": "ice", "target_id": "albedo", "edge_type": "causal"},
            {"id": "warm", "source_id": "albedo", "target_id": "ice", "edge_type": "causal"},
        ]
        await ok(client, "store_many", {"nodes": nodes, "edges": edges})
        t1 = await recorded(client, "warm")
        assert (await ok(client, "analyze_topology", {}))["max_kappa"] == 1
        ended = await ok(client, "invalidate_edge", {"id": "warm", "at": "2000-01-01"})
        assert ended["topology"]["description"] == "breaks feedback loop"
        assert (await ok(client, "analyze_topology", {}))["max_kappa"] == 0
        assert (await ok(client, "analyze_topology", {"as_of": t1}))["max_kappa"] == 0  # what we now know of t1
        assert (await ok(client, "analyze_topology", {"as_of": "1999-06-01"}))["max_kappa"] == 1  # before it ended
        believed = await ok(client, "analyze_topology", {"known_at": t1})  # what it believed at t1 about t1
        assert believed["max_kappa"] == 1 and believed["sccs"][0]["nodes"] == ["albedo", "ice"]
        assert (await ok(client, "analyze_topology", {"known_at": t1, "as_of": "2030-01-01"}))["max_kappa"] == 1
        question = "why does sea ice keep melting"
        assert (await ok(client, "retrieve_context", {"query": question}))["routing"] == "fast"
        assert (await ok(client, "retrieve_context", {"query": question, "known_at": t1}))["routing"] == "deliberate"
        versions = (await ok(client, "history", {"id": "warm"}))["versions"]
        assert [v["valid_until"] for v in versions] == [None, "2000-01-01T00:00:00.000Z"]
        assert versions[0]["recorded_until"] == versions[1]["recorded_at"] > t1
        listed = await ok(client, "list_edges", {"known_at": t1})
        assert {e["id"]: e["valid_until"] for e in listed["edges"]} == {"melt": None, "warm": None}

    over_stdio(any_location, work)


def test_a_fact_without_valid_from_held_from_an_unknown_past(any_location):
    """The issue's third finding: one rule for both facts, whenever they were recorded."""

    async def work(client: Client) -> None:
        nodes = [
            {"id": "co2-now", "content": "CO2 is about 410 ppm", "valid_from": "2019-01-01"},
            {"id": "co2-pre", "content": "pre-industrial CO2 was about 280 ppm"},
        ]
        await ok(client, "store_many", {"nodes": nodes})
        t1 = await recorded(client, "co2-pre")
        both = await ok(client, "retrieve_context", {"query": "CO2 ppm", "as_of": "2020-06-01"})
        assert sorted(r["id"] for r in both["results"]) == ["co2-now", "co2-pre"]
        early = await ok(client, "retrieve_context", {"query": "CO2 ppm", "as_of": "2018-01-01"})
        assert [r["id"] for r in early["results"]] == ["co2-pre"]
        held = await ok(client, "query_graph", {"as_of": "2018-01-01"})
        assert [n["id"] for n in held["nodes"]] == ["co2-pre"]
        unknown = await ok(client, "retrieve_context", {"query": "CO2 ppm", "known_at": "2020-06-01"})
        assert unknown["results"] == []  # (recorded later: the memory knew neither then)
        known = await ok(client, "retrieve_context", {"query": "CO2 ppm", "known_at": t1, "as_of": "2020-06-01"})
        assert sorted(r["id"] for r in known["results"]) == ["co2-now", "co2-pre"]

    over_stdio(any_location, work)


def test_history_lists_versions_and_delete_erases_them(any_location):
    async def work(client: Client) -> None:
        await ok(client, "store_node", {"id": "fact", "content": "first"})
        await anyio.sleep(0.01)
        await ok(client, "append_observation", {"id": "fact", "observation": "second"})
        await anyio.sleep(0.01)
        await ok(client, "invalidate_node", {"id": "fact", "at": "2025-01-01"})
        versions = (await ok(client, "history", {"id": "fact"}))["versions"]
        assert [(v["content"], v["valid_until"]) for v in versions] == [
            ("first", None),
            ("first\nsecond", None),
            ("first\nsecond", "2025-01-01T00:00:00.000Z"),
        ]
        assert [v["recorded_until"] for v in versions[:2]] == [versions[1]["recorded_at"], versions[2]["recorded_at"]]
        assert await refused(client, "history", {"id": "nothing"}) == (
            "history: no node or edge with id 'nothing' (nor any version of one: deleted ones are erased)"
        )
        await ok(client, "delete_node", {"id": "fact"})
        assert "no node or edge with id 'fact'" in await refused(client, "history", {"id": "fact"})
        earlier = await ok(client, "query_graph", {"known_at": versions[0]["recorded_at"]})
        assert earlier["nodes"] == []  # (erased: no version is left to read)

    over_stdio(any_location, work)


def test_merged_ids_read_link_and_credit_the_node_they_became(any_location):
    """The issue's last finding: after consolidate merges dup-albedo into def-albedo, naming the
    merged id reaches the survivor and says so; a read naming both never fails whole."""

    async def work(client: Client) -> None:
        nodes = [
            {"id": "def-albedo", "content": "Albedo is the share of sunlight a surface reflects.", "confidence": 0.9},
            {"id": "dup-albedo", "content": "albedo is the share of sunlight a surface reflects"},
            {"id": "ice", "content": "Sea ice reflects sunlight"},
        ]
        await ok(client, "store_many", {"nodes": nodes})
        asked = await ok(client, "retrieve_context", {"query": "albedo share sunlight", "limit": 2})
        assert {r["id"] for r in asked["results"]} == {"def-albedo", "dup-albedo"}
        before = await recorded(client, "dup-albedo")
        merged = await ok(client, "consolidate", {"idle_days": 0, "half_life_days": 3650})
        assert merged["merged"]["items"] == [{"into": "def-albedo", "merged": ["dup-albedo"], "by": "content"}]
        read = await ok(client, "query_graph", {"node_ids": ["def-albedo", "dup-albedo"]})
        assert [n["id"] for n in read["nodes"]] == ["def-albedo"]
        assert read["merged_into"] == {"dup-albedo": "def-albedo"}
        topology = await ok(client, "analyze_topology", {"node_ids": ["dup-albedo", "ice"]})
        assert topology["dag_nodes"] == ["def-albedo", "ice"] and topology["merged_into"] == {
            "dup-albedo": "def-albedo"
        }
        link = {"source_id": "ice", "target_id": "dup-albedo", "edge_type": "supports"}
        linked = await ok(client, "store_edge", link)
        assert linked["merged_into"] == {"dup-albedo": "def-albedo"}
        edges = (await ok(client, "list_edges", {"node_ids": ["dup-albedo"]}))["edges"]
        assert [(e["source_id"], e["target_id"]) for e in edges] == [("ice", "def-albedo")]
        credited = await ok(client, "learn_from_outcome", {"retrieval_id": asked["retrieval_id"], "outcome": "success"})
        assert [n["id"] for n in credited["nodes"]] == ["def-albedo"] and credited["merged_into"] == {
            "dup-albedo": "def-albedo"
        }
        named = await ok(client, "learn_from_outcome", {"node_ids": ["dup-albedo"], "outcome": "partial"})
        assert [n["id"] for n in named["nodes"]] == ["def-albedo"]
        history = await ok(client, "history", {"id": "dup-albedo"})
        assert history["merged_into"]["id"] == "def-albedo" and history["versions"][-1]["recorded_until"] is not None
        then = await ok(client, "query_graph", {"node_ids": ["dup-albedo"], "known_at": before})
        assert [n["id"] for n in then["nodes"]] == ["dup-albedo"] and "merged_into" not in then
        said = await refused(client, "invalidate_node", {"id": "dup-albedo"})
        assert "consolidate merged it into 'def-albedo'" in said
        # a write naming the merged id never makes a second node under it: the id keeps its meaning
        said = await refused(client, "store_node", {"id": "dup-albedo", "content": "Albedo ranges from 0 to 1."})
        assert "merged into 'def-albedo'" in said
        said = await refused(client, "store_many", {"nodes": [{"id": "dup-albedo", "content": "x"}]})
        assert "merged into 'def-albedo'" in said
        again = await ok(client, "query_graph", {"node_ids": ["def-albedo", "dup-albedo"]})
        assert [n["id"] for n in again["nodes"]] == ["def-albedo"] and again["merged_into"] == {
            "dup-albedo": "def-albedo"
        }
        # erasing the merged id erases its versions, not where it leads: a read naming it still forwards
        erased = await ok(client, "delete_node", {"id": "dup-albedo"})
        assert erased["status"] == "deleted"
        assert (await ok(client, "history", {"id": "dup-albedo"}))["versions"] == []
        after = await ok(client, "query_graph", {"node_ids": ["def-albedo", "dup-albedo"]})
        assert after["merged_into"] == {"dup-albedo": "def-albedo"}
        said = await refused(client, "delete_many", {"node_ids": ["dup-albedo"]})
        assert "consolidate merged it into 'def-albedo'" in said  # (nothing left to erase: it says where it went)
        await ok(client, "delete_node", {"id": "def-albedo"})  # (the survivor erased: nothing to lead to)
        gone = await refused(client, "query_graph", {"node_ids": ["dup-albedo"]})
        assert "no node with id 'dup-albedo'" in gone

    over_stdio(any_location, work)
