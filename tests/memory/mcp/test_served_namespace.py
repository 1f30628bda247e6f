"""A server for one namespace (``serve --namespace``): an agent given it reads and writes that
namespace alone — the tools that address a node or an edge by its id too — and a call naming
another namespace is refused; what other namespaces hold is neither seen nor changed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from bendscope.memory import Memory
from bendscope.memory.core.names import key_id, scoped_content_id
from bendscope.memory.store.opening import open_store
from tests.memory.mcp.test_mcp import env, ok, run_async


def _others(store_path: Path) -> None:
    """Bob's memory and Alice's, written by the store's owner."""
    with open_store(str(store_path)) as store:
        memory = Memory(store)
        for name, ids in (("bob", ("b1", "b2")), ("alice", ("a1", "a2"))):
            scoped = memory.within(name)
            for node_id in ids:
                scoped.store_node({"id": node_id, "content": f"{name}'s secret {node_id}"})
            if name == "bob":  # (what a probe of derived ids would look for)
                scoped.store_node({"key": "Zanzibar"})
                scoped.store_node({"content": "bob's secret b1"})
            scoped.store_edge({"id": f"{name}-edge", "source_id": ids[0], "target_id": ids[1], "edge_type": "causal"})


def _held(store_path: Path, namespace: str) -> Any:
    with open_store(str(store_path)) as store:
        scoped = Memory(store).within(namespace).store
        nodes = {i: n.to_dict() for i, n in scoped.get_nodes(scoped.node_ids()).items()}
        return nodes, sorted(repr(e.to_dict()) for e in scoped.all_edges())


async def _refused(client: Client, name: str, arguments: dict[str, Any], said: str) -> None:
    result = await client.call_tool(name, arguments)
    assert result.is_error, (name, arguments, result.content)
    assert said in result.content[0].text, (name, result.content[0].text)


def test_a_server_for_one_namespace_reaches_nothing_else(location):
    path = location
    _others(path)
    bob = _held(path, "bob")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "bendscope.memory", "serve", "--namespace", "alice"], env=env(path)
    )

    async def work(client: Client) -> None:
        # its own namespace, with or without naming it
        found = await ok(client, "query_graph", {})
        assert sorted(n["id"] for n in found["nodes"]) == ["a1", "a2"]
        assert (await ok(client, "query_graph", {"namespace": "alice"}))["count"] == 2
        await ok(client, "store_node", {"id": "a3", "content": "Alice's new fact"})
        await ok(client, "append_observation", {"id": "a1", "observation": "seen again"})
        assert (await ok(client, "history", {"id": "alice-edge"}))["kind"] == "edge"
        # another namespace, named: refused
        for name, arguments in (
            ("query_graph", {"namespace": "bob"}),
            ("retrieve_context", {"namespace": "bob", "query": "secret"}),
            ("store_node", {"namespace": "bob", "id": "x", "content": "x"}),
            ("analyze_topology", {"namespace": "bob"}),
        ):
            await _refused(client, name, arguments, "namespace 'alice''s alone")
        # another namespace's ids: as if they did not exist
        for name, arguments in (
            ("history", {"id": "b1"}),
            ("history", {"id": "bob-edge"}),
            ("append_observation", {"id": "b1", "observation": "mine now"}),
            ("invalidate_node", {"id": "b1"}),
            ("invalidate_edge", {"id": "bob-edge"}),
            ("delete_node", {"id": "b1"}),
            ("delete_edge", {"id": "bob-edge"}),
        ):
            await _refused(client, name, arguments, "no ")
        await _refused(client, "delete_many", {"node_ids": ["b1", "b2"], "edge_ids": ["bob-edge"]}, "no node")
        answer = await ok(client, "retrieve_context", {"query": "secret"})
        assert {r["id"] for r in answer["results"]} <= {"a1", "a2", "a3"}
        await _refused(client, "learn_from_outcome", {"outcome": "failure", "node_ids": ["b1", "a1"]}, "no node")
        # an id taken elsewhere: refused without a word of where; a derived id the same whether held or free
        await _refused(client, "store_node", {"id": "b1", "content": "taking Bob's id"}, "the id 'b1' is taken")
        said = set()
        for node_id in (key_id("bob", "Zanzibar"), key_id("bob", "Paris"), scoped_content_id("bob", "bob's secret b1")):
            result = await client.call_tool("store_many", {"nodes": [{"id": node_id, "content": "probe"}]})
            assert result.is_error
            said.add(result.content[0].text.replace(node_id, "ID"))
        assert len(said) == 1 and "another namespace" not in said.pop()

    async def main() -> None:
        async with Client(params, cache=None) as client:
            await work(client)

    run_async(main)
    assert _held(path, "bob") == bob  # (nothing of Bob's read, changed or removed)
    assert sorted(_held(path, "alice")[0]) == ["a1", "a2", "a3"]
