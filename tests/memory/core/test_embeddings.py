"""Stored embeddings: vectors computed when a node is stored (batched for store_many
and imports), kept in the store per model, dropped when the content changes or the node goes,
backfilled for a store written without the embedder; retrieval re-ranks with the stored
vectors — no re-embedding of candidates per call — and can seed from the nearest vectors; the
built-in WordLlama embedder loads offline from its wheel."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bendscope.memory import Memory
from bendscope.memory.core.embedders import pack, unpack
from bendscope.memory.store.base import Store

ROOT = Path(__file__).resolve().parents[3]
TOPICS = {"rain": [1.0, 0.0, 0.0], "flood": [0.9, 0.1, 0.0], "sun": [0.0, 1.0, 0.0], "drought": [0.1, 0.9, 0.0]}


class Counting:
    """A stand-in embedder: a text's vector is the sum of its known words' vectors; it counts
    the texts it was given."""

    name = "counting-3"

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += list(texts)
        out = []
        for text in texts:
            vector = [0.0, 0.0, 0.001]
            for word in text.lower().split():
                for k, x in enumerate(TOPICS.get(word.strip(".,"), [0.0, 0.0, 0.0])):
                    vector[k] += x
            out.append(vector)
        return out


def test_vectors_are_kept_with_the_nodes_on_every_backend(store: Store):
    embedder = Counting()
    memory = Memory(store, embedder=embedder)
    memory.store_node({"id": "a", "content": "rain again"})
    memory.store_many({"nodes": [{"id": "b", "content": "sun"}, {"id": "c", "content": "flood warning"}]})
    assert embedder.texts == ["rain again", "sun", "flood warning"]  # (one batch for store_many)
    kept = store.get_vectors("counting-3", ["a", "b", "c"])
    assert sorted(kept) == ["a", "b", "c"] and unpack(kept["b"])[1] == pytest.approx(1.0, abs=1e-3)
    version = store.vectors_version()
    memory.store_node({"id": "a", "node_type": "episodic"})  # (same content: the vector stays, not re-made)
    assert embedder.texts[-1] == "flood warning" and "a" in store.get_vectors("counting-3", ["a"])
    memory.store_node({"id": "a", "content": "sun today"})
    assert embedder.texts[-1] == "sun today" and unpack(store.get_vectors("counting-3", ["a"])["a"])[1] > 0.9
    assert store.vectors_version() != version
    memory.delete_node("c")
    assert store.get_vectors("counting-3", ["c"]) == {} and store.missing_vectors("counting-3", 10) == []


def test_a_store_written_without_the_embedder_is_backfilled(store: Store):
    Memory(store).store_many({"nodes": [{"id": f"n{i}", "content": f"rain {i}"} for i in range(5)]})
    embedder = Counting()
    memory = Memory(store, embedder=embedder)
    seen = []
    assert memory.backfill_vectors(lambda done, total: seen.append((done, total))) == 5
    assert seen == [(5, 5)] and store.missing_vectors("counting-3", 10) == []
    assert memory.backfill_vectors() == 0


def test_retrieval_re_ranks_with_stored_vectors_and_embeds_only_the_query():
    from bendscope.memory.store.inmemory import InMemoryStore

    embedder = Counting()
    memory = Memory(InMemoryStore(), embedder=embedder, semantic_weight=0.5)
    memory.store_many(
        {
            "nodes": [
                {"id": "wet", "content": "weather report: rain"},
                {"id": "dry", "content": "weather report: sun"},
                {"id": "other", "content": "weather report"},
            ]
        }
    )
    embedder.texts.clear()
    answer = memory.retrieve_context({"query": "weather flood", "limit": 3})
    assert embedder.texts == ["weather flood"]  # (candidates read their stored vectors)
    assert answer["results"][0]["id"] == "wet"
    dense = Memory(memory.store, embedder=embedder, dense_seeds=5)
    found = dense.retrieve_context({"query": "drought", "limit": 2})  # (no word matches: the vectors seed)
    assert found["results"][0]["id"] == "dry"


def test_pack_keeps_unit_vectors():
    assert unpack(pack([0.0, 0.0])) == [0.0, 0.0]
    assert sum(x * x for x in unpack(pack([1.0, 2.0, 2.0]))) == pytest.approx(1.0)


def test_the_wordllama_embedder_loads_offline_and_the_cli_backfills(tmp_path):
    pytest.importorskip("wordllama")
    from bendscope.memory.core.embedders import load_embedder

    embedder = load_embedder("wordllama")
    rain, downpour, sunshine = embedder.embed(["heavy rain", "a downpour of rain", "bright sunshine"])
    assert len(rain) == 256
    cos = lambda a, b: sum(x * y for x, y in zip(unpack(pack(a)), unpack(pack(b)), strict=True))  # noqa: E731
    assert cos(rain, downpour) > cos(rain, sunshine)
    path = tmp_path / "m.sqlite3"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"), HF_HUB_OFFLINE="1", no_proxy="*", http_proxy="http://0.0.0.0:9")
    document = {"nodes": [{"id": f"n{i}", "text": f"fact {i}"} for i in range(3)], "edges": []}
    (tmp_path / "doc.json").write_text(json.dumps(document))
    command = [sys.executable, "-m", "bendscope.memory"]
    done = subprocess.run([*command, "import", str(tmp_path / "doc.json"), "--store", str(path)], env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = subprocess.run([*command, "retrieve", "fact", "--store", str(path), "--embedder", "wordllama"], env=env,
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["count"] == 3
    imported = subprocess.run([*command, "import", str(tmp_path / "doc.json"), "--store", str(path), "--embedder",
                               "wordllama"], env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert imported.returncode == 0 and "memory: embedding 3 nodes (wordllama-l2-supercat-256): 100%" in imported.stderr
