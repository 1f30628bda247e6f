"""Retrieval quality: the project's own ``retrieve_context`` on BEIR's SciFact
corpus (5,183 abstracts) with the SciFact *training* claims as queries (505 claims with
evidence documents; ``../shared/datasets/scifact-train``, see its README: CC BY-NC 2.0).
Tune here only (the test claims, which BEIR reports on, are not in the set).

    python bench/bench_retrieval.py                    # every variant, all 505 claims (minutes)
    python bench/bench_retrieval.py --quick            # 60 claims, lexical variants only
    python bench/bench_retrieval.py --variants lexical,expanded-1
    python bench/bench_retrieval.py --claims 20 --documents 300 --variants lexical   # a smoke test

Reported per variant, with BEIR's definitions (trec_eval's nDCG with linear gains; a
document whose id equals the query id is ignored): nDCG@10, Recall@10, Recall@100, and the
latency of the whole ``retrieve_context`` call (limit 100) p50/p95 in this process.

Variants:
  lexical      — BM25 seeds only (expand_hops 0)
  expanded-1/2 — the same with 1 or 2 hops of expansion over a document-similarity graph:
                 each document linked (``related``) to the 3 documents its title retrieves best
  wordllama    — lexical, re-ranked with stored WordLlama vectors (only when the [semantic]
                 extra is installed: ``pip install '.[semantic]'``), at each --weights
  wordllama-dense — the same, with the 100 nearest stored vectors joining the candidates
Each variant runs on its own store (SQLite, in a temporary folder), built the same way.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py"))

from bendscope.memory import Memory
from bendscope.memory.core.records import MemoryEdge, MemoryNode
from bendscope.memory.core.retrieval import SEMANTIC_WEIGHT
from bendscope.memory.store.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT.parent / "shared" / "datasets" / "scifact-train"
T = "2026-12-01T00:00:00.000Z"
LIMIT = 100
SIMILAR = 3


def load(folder: Path) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, int]]]:
    """The corpus (id → title and text), the queries (id → text) and the judgements."""
    corpus = {}
    with open(folder / "corpus.jsonl", encoding="utf-8") as lines:
        for line in lines:
            doc = json.loads(line)
            corpus[doc["_id"]] = f"{doc.get('title', '')}\n{doc['text']}".strip()
    queries = {}
    with open(folder / "queries.jsonl", encoding="utf-8") as lines:
        for line in lines:
            item = json.loads(line)
            queries[item["_id"]] = item["text"]
    qrels: dict[str, dict[str, int]] = {}
    with open(folder / "qrels" / "train.tsv", encoding="utf-8") as lines:
        next(lines)
        for line in lines:
            query, doc, score = line.rstrip("\n").split("\t")
            if int(score) > 0:
                qrels.setdefault(query, {})[doc] = int(score)
    return corpus, {q: t for q, t in queries.items() if q in qrels}, qrels


def ndcg(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    """trec_eval's nDCG@k with linear gains."""
    dcg = sum(relevant.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(gain / math.log2(i + 2) for i, gain in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall(ranked: list[str], relevant: dict[str, int], k: int) -> float:
    return len(set(ranked[:k]) & set(relevant)) / len(relevant) if relevant else 0.0


def build(path: Path, corpus: dict[str, str], similar: bool) -> SQLiteStore:
    store = SQLiteStore(path, durable=False)
    with store.transaction():
        for doc, text in corpus.items():
            store.put_node(MemoryNode(f"doc-{doc}", text, created_at=T, updated_at=T))
    if similar:
        edges = []
        for doc, text in corpus.items():
            title = text.split("\n", 1)[0]
            hits = [i for i, _ in store.search(title, SIMILAR + 1) if i != f"doc-{doc}"][:SIMILAR]
            edges += [
                MemoryEdge(f"sim-{doc}-{k}", f"doc-{doc}", hit, "related", created_at=T) for k, hit in enumerate(hits)
            ]
        with store.transaction():
            for edge in edges:
                store.put_edge(edge)
    return store


def evaluate(
    memory: Memory, queries: dict[str, str], qrels: dict[str, dict[str, int]], arguments: dict[str, Any]
) -> dict[str, float]:
    scores: dict[str, list[float]] = {"ndcg@10": [], "recall@10": [], "recall@100": []}
    latencies = []
    for query_id, text in queries.items():
        t0 = time.perf_counter()
        answer = memory.retrieve_context({"query": text, "limit": LIMIT, **arguments})
        latencies.append((time.perf_counter() - t0) * 1000)
        ranked = [r["id"].removeprefix("doc-") for r in answer["results"]]
        ranked = [doc for doc in ranked if doc != query_id]
        relevant = qrels[query_id]
        scores["ndcg@10"].append(ndcg(ranked, relevant))
        scores["recall@10"].append(recall(ranked, relevant, 10))
        scores["recall@100"].append(recall(ranked, relevant, 100))
    latencies.sort()
    result = {name: statistics.fmean(values) for name, values in scores.items()}
    result["p50"] = statistics.median(latencies)
    result["p95"] = latencies[max(0, math.ceil(len(latencies) * 0.95) - 1)]
    return result


def wordllama_embedder() -> Any | None:
    """The built-in WordLlama embedder, or None without the [semantic] extra."""
    from bendscope.memory.core.embedders import load_embedder
    from bendscope.memory.core.errors import InvalidInput

    try:
        return load_embedder("wordllama")
    except InvalidInput:
        return None


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--quick", action="store_true", help="60 claims, lexical variants")
    parser.add_argument("--variants", default=None, help="lexical,expanded-1,expanded-2,wordllama,wordllama-dense")
    parser.add_argument("--weights", default=None, help="semantic weights to try (the default only: SEMANTIC_WEIGHT)")
    parser.add_argument("--claims", type=int, default=None, help="only the first N claims (a smoke test)")
    parser.add_argument("--documents", type=int, default=None, help="only their evidence and N other documents")
    args = parser.parse_args(argv)
    corpus, queries, qrels = load(args.dataset)
    if args.quick or args.claims:
        queries = dict(list(queries.items())[: args.claims or 60])
    if args.documents is not None:
        evidence = {doc for q in queries for doc in qrels[q]}
        others = [doc for doc in corpus if doc not in evidence][: args.documents]
        kept = set(others)
        corpus = {doc: text for doc, text in corpus.items() if doc in evidence or doc in kept}
    default = "lexical,expanded-1" if args.quick else "lexical,expanded-1,expanded-2,wordllama,wordllama-dense"
    variants = (args.variants or default).split(",")
    weights = [float(w) for w in args.weights.split(",")] if args.weights else [SEMANTIC_WEIGHT]
    load_avg = os.getloadavg()
    print(f"retrieve_context on SciFact (train claims): {len(corpus):,} documents, {len(queries)} claims, "
          f"limit {LIMIT}; CPython {sys.version.split()[0]}, {os.cpu_count()} cores")  # fmt: skip
    print(f"machine load before: {load_avg[0]:.2f} {load_avg[1]:.2f} {load_avg[2]:.2f} (1/5/15 min)")
    print("| variant | nDCG@10 | Recall@10 | Recall@100 | call p50 ms | p95 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        plain = build(Path(tmp) / "plain.sqlite3", corpus, similar=False)
        graph = None
        for variant in variants:
            arguments: dict[str, Any] = {"expand_hops": 0}
            if variant.startswith("expanded-"):
                if graph is None:
                    graph = build(Path(tmp) / "graph.sqlite3", corpus, similar=True)
                arguments = {"expand_hops": int(variant.split("-")[1])}
                runs = [(variant, Memory(graph))]
            elif variant.startswith("wordllama"):
                embedder = wordllama_embedder()
                if embedder is None:
                    print(f"| {variant} | (the [semantic] extra is not installed) | | | | |")
                    continue
                dense = 100 if variant == "wordllama-dense" else 0
                runs = [(f"{variant} w={w:g}", Memory(plain, embedder=embedder, semantic_weight=w, dense_seeds=dense))
                        for w in weights]  # fmt: skip
                t0 = time.perf_counter()
                count = runs[0][1].backfill_vectors()
                if count:
                    print(f"(stored {count:,} vectors in {time.perf_counter() - t0:.1f} s)")
            elif variant == "lexical":
                runs = [(variant, Memory(plain))]
            else:
                raise SystemExit(f"unknown variant {variant!r}")
            for name, memory in runs:
                r = evaluate(memory, queries, qrels, arguments)
                results[name] = r
                print(f"| {name} | {r['ndcg@10']:.3f} | {r['recall@10']:.3f} | {r['recall@100']:.3f} | "
                      f"{r['p50']:.1f} | {r['p95']:.1f} |", flush=True)  # fmt: skip
        plain.close()
        if graph is not None:
            graph.close()
    load_avg = os.getloadavg()
    print(f"machine load after: {load_avg[0]:.2f} {load_avg[1]:.2f} {load_avg[2]:.2f}")
    return results


if __name__ == "__main__":
    main()
