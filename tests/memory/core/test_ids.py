"""Ids derived from content never merge two facts: 128 bits, a node or edge
already on a derived id with other content is a Conflict naming both, and the ids older
stores made (40 bits) stay valid and keep finding their nodes — on every backend."""

from __future__ import annotations

import pytest

from bendscope.memory import InvalidInput, MemoryEdge, MemoryNode
from bendscope.memory.core.errors import Conflict
from bendscope.memory.core.records import edge_id_for, legacy_id_of, node_id_for
from tests.memory.core.test_service import memory_on

#: two facts whose 40-bit ids (the old derivation) were the same: node-8f072ecaa0
FIRST = "Customer 28300 prefers email contact"
SECOND = "Customer 1873347 prefers email contact"
T = "2026-11-30T09:00:00.000Z"


def test_the_two_facts_of_the_report_are_two_nodes(store):
    memory = memory_on(store)
    first = memory.store_node({"content": FIRST})
    second = memory.store_node({"content": SECOND})
    assert first["status"] == second["status"] == "created"
    assert first["node"]["id"] != second["node"]["id"]
    kept = store.get_nodes([first["node"]["id"], second["node"]["id"]])
    assert sorted(n.content for n in kept.values()) == sorted([FIRST, SECOND])
    assert legacy_id_of(first["node"]["id"]) == legacy_id_of(second["node"]["id"]) == "node-8f072ecaa0"


def test_derived_ids_have_128_bits():
    assert len(node_id_for(FIRST)) == len("node-") + 32 and len(edge_id_for("a", "b", "causal")) == len("edge-") + 32


def test_a_different_fact_on_a_derived_id_is_a_conflict_naming_both(store):
    memory = memory_on(store)
    squatter = memory.store_node({"id": node_id_for(SECOND), "content": FIRST})["node"]
    before = store.get_nodes(store.node_ids())
    with pytest.raises(Conflict) as caught:
        memory.store_node({"content": SECOND})
    message = str(caught.value)
    assert FIRST in message and SECOND in message and squatter["id"] in message
    assert isinstance(caught.value, InvalidInput)
    assert store.get_nodes(store.node_ids()) == before  # nothing was changed


def test_storing_the_same_fact_again_changes_nothing(store):
    memory = memory_on(store)
    made = memory.store_node({"content": FIRST})
    again = memory.store_node({"content": FIRST})
    assert again["status"] == "unchanged" and again["node"]["id"] == made["node"]["id"]
    assert memory.store_node({"content": FIRST, "confidence": 0.9})["status"] == "updated"
    assert store.counts() == (1, 0)


def test_a_node_an_older_store_made_is_found_by_its_content(store):
    legacy = legacy_id_of(node_id_for(FIRST))
    with store.transaction():
        store.put_node(MemoryNode(legacy, FIRST, access_count=4, created_at=T, updated_at=T))
    memory = memory_on(store)
    again = memory.store_node({"content": FIRST})
    assert again["status"] == "unchanged" and again["node"]["id"] == legacy
    updated = memory.store_node({"content": FIRST, "confidence": 0.8})
    assert updated["status"] == "updated" and updated["node"]["id"] == legacy
    assert updated["node"]["access_count"] == 4 and updated["node"]["created_at"] == T
    assert store.counts() == (1, 0)


def test_an_old_40_bit_collision_keeps_both_facts(store):
    """An older store holds FIRST on the 40-bit id SECOND also derived: storing SECOND now
    makes a node of its own; FIRST stays as it was."""
    legacy = legacy_id_of(node_id_for(SECOND))
    with store.transaction():
        store.put_node(MemoryNode(legacy, FIRST, created_at=T, updated_at=T))
    memory = memory_on(store)
    made = memory.store_node({"content": SECOND})
    assert made["status"] == "created" and made["node"]["id"] == node_id_for(SECOND)
    assert store.get_node(legacy).content == FIRST and store.counts() == (2, 0)


def test_edges_derived_ids_conflict_and_legacy_edges_are_found(store):
    memory = memory_on(store)
    for name in "abcd":
        memory.store_node({"id": name, "content": f"node {name}"})
    # another edge sits on the id a → b causal derives: a conflict, not an update of c → d
    memory.store_edge({"id": edge_id_for("a", "b", "causal"), "source_id": "c", "target_id": "d"})
    with pytest.raises(Conflict, match="'c' → 'd'"):
        memory.store_edge({"source_id": "a", "target_id": "b", "edge_type": "causal"})
    assert store.get_edge(edge_id_for("a", "b", "causal")).source_id == "c"
    # an edge an older store made for b → c causal is that edge
    legacy = legacy_id_of(edge_id_for("b", "c", "causal"))
    with store.transaction():
        store.put_edge(MemoryEdge(legacy, "b", "c", "causal", 0.5, {}, T))
    again = memory.store_edge({"source_id": "b", "target_id": "c", "edge_type": "causal"})
    assert again["status"] == "unchanged" and again["edge"]["id"] == legacy
    heavier = memory.store_edge({"source_id": "b", "target_id": "c", "edge_type": "causal", "weight": 0.9})
    assert heavier["status"] == "updated" and heavier["edge"]["id"] == legacy
    assert store.counts() == (4, 2)


def test_the_report_over_mcp_tools(store):
    """The same through the tool layer an agent calls: two 'created', both facts found."""
    from bendscope.memory.mcp.tools import call

    memory = memory_on(store)
    answers = [call(memory, "store_node", {"content": text}) for text in (FIRST, SECOND)]
    assert [a["status"] for a in answers] == ["created", "created"]
    found = call(memory, "retrieve_context", {"query": "prefers email contact"})
    assert {r["content"] for r in found["results"]} >= {FIRST, SECOND}
