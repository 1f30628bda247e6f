"""Conversation recall on LoCoMo (Maharana et al., ACL 2024): the three dev conversations of
``../shared/datasets/locomo-dev`` (the other seven are held out), scored as the dataset's README
says — each turn one episodic node ("Speaker: text", plus "[shares a photo: caption]"; valid from
its session's date), consecutive turns of a session joined by temporal edges, each question of
categories 1–4 one ``retrieve_context`` call at limit 10 (its defaults otherwise), evidence
recall@10 = the share of a question's evidence turns among the first 10 results, averaged over the
questions, per category — and the same conversations stored as a conversation (store_many's
``turns``: the memory's own shape for them) and asked alike. Okapi BM25 (k1 1.2, b 0.75,
lower-case words, no stemming) over the same turns is the baseline of the same run. Printed too:
the write rate, the calls' latency p50 / p95, and on one 700-turn conversation the latency and
the calling thread's CPU time (what the load of a shared machine does not inflate), and the load.

    python bench/bench_locomo.py [--embedder wordllama] [--kind WEIGHT] [--json]

``--kind 0`` ranks without kinds (what a question asks for: the ranking before them).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import re
import statistics
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

from bendscope.memory import Memory  # noqa: E402
from bendscope.memory.core.conversations import recall as conversation_recall  # noqa: E402
from bendscope.memory.core.embedders import EMBEDDERS, load_embedder  # noqa: E402
from bendscope.memory.store.inmemory import InMemoryStore  # noqa: E402

DATA = ROOT.parent / "shared" / "datasets" / "locomo-dev"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
K = 10


def session_date(text: str) -> str:
    """A session's "1:56 pm on 8 May, 2023" as an ISO 8601 UTC time.

    >>> session_date("1:56 pm on 8 May, 2023")
    '2023-05-08T13:56:00Z'
    """
    moment = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")
    return moment.strftime("%Y-%m-%dT%H:%M:00Z")


def turns(conversation: dict[str, Any], tag: str) -> list[dict[str, Any]]:
    """Every turn of a conversation in order: id, session, date, speaker, text (the photo's caption
    said as the README says)."""
    found = []
    sessions = sorted((int(m.group(1)), key) for key in conversation if (m := re.fullmatch(r"session_(\d+)", key)))
    for number, key in sessions:
        when = session_date(conversation[f"{key}_date_time"])
        for turn in conversation[key]:
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [shares a photo: {turn['blip_caption']}]"
            found.append({"id": f"{tag}:{turn['dia_id']}", "session": number, "date": when,
                          "speaker": turn["speaker"], "text": text})  # fmt: skip
    return found


def as_conversation(items: list[dict[str, Any]], conversation: dict[str, Any]) -> list[dict[str, Any]]:
    """The same turns as an agent gives a conversation (store_many's ``turns``): speaker, text,
    time, session, its id, and the photo's caption."""
    captions = {
        turn["dia_id"]: turn["blip_caption"]
        for key, value in conversation.items()
        if re.fullmatch(r"session_\d+", key)
        for turn in value
        if turn.get("blip_caption")
    }
    out = []
    for t in items:
        text = t["text"].split(": ", 1)[1].split(" [shares a photo: ")[0]
        turn = {"id": t["id"], "speaker": t["speaker"], "text": text, "time": t["date"], "session": t["session"]}
        caption = captions.get(t["id"].split(":", 1)[1])
        if caption:
            turn["caption"] = caption
        out.append(turn)
    return out


def questions(conversation: dict[str, Any], tag: str) -> list[dict[str, Any]]:
    return [
        {
            "question": q["question"],
            "category": q["category"],
            "evidence": [f"{tag}:{e.strip()}" for entry in q["evidence"] for e in entry.split(";") if e.strip()],
        }
        for q in conversation["qa"]
        if q["category"] in CATEGORIES and q.get("evidence")
    ]


def as_turn_nodes(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The store_many call of the README's scoring: one node per turn, temporal edges within a session."""
    nodes = [{"id": t["id"], "content": t["text"], "node_type": "episodic", "valid_from": t["date"]} for t in items]
    edges = [
        {"source_id": a["id"], "target_id": b["id"], "edge_type": "temporal"}
        for a, b in itertools.pairwise(items)
        if a["session"] == b["session"]
    ]
    return {"nodes": nodes, "edges": edges}


class BM25:
    """Okapi BM25 (k1 1.2, b 0.75) over lower-case words, no stemming: the baseline."""

    def __init__(self, docs: dict[str, str]) -> None:
        self.tf = {i: Counter(re.findall(r"\w+", text.lower())) for i, text in docs.items()}
        self.length = {i: sum(c.values()) for i, c in self.tf.items()}
        self.average = sum(self.length.values()) / max(1, len(self.length))
        df: Counter[str] = Counter()
        for counts in self.tf.values():
            df.update(counts.keys())
        n = len(docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}

    def top(self, query: str, k: int) -> list[str]:
        words = re.findall(r"\w+", query.lower())
        scores = {}
        for i, counts in self.tf.items():
            score = 0.0
            for w in words:
                f = counts.get(w)
                if f:
                    score += self.idf[w] * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * self.length[i] / self.average))
            if score:
                scores[i] = score
        return sorted(scores, key=lambda i: (-scores[i], i))[:k]


def recall(found: list[str], evidence: list[str]) -> float:
    return sum(1 for e in evidence if e in found[:K]) / len(evidence)


def percentile(ms: list[float], share: int) -> float:
    ordered = sorted(ms)
    return ordered[max(0, -(-len(ordered) * share // 100) - 1)]


def run(embedder_name: str | None) -> dict[str, Any]:
    """Every dev conversation stored both ways on fresh in-memory stores: as turn nodes
    (``turns``, the README's scoring: the memory before conversations were a shape of their
    own) and as a conversation (``conversation``: store_many's turns); each question asked of
    both, and of BM25."""
    embedder = load_embedder(embedder_name) if embedder_name else None
    scores: dict[str, dict[int, list[float]]] = {"bm25": {}, "turns": {}, "conversation": {}}
    each: dict[str, list[tuple[int, float]]] = {}  # (each conversation's, stored as a conversation)
    ms: dict[str, list[float]] = {"turns": [], "conversation": []}
    turns_stored = 0
    write_s = {"turns": 0.0, "conversation": 0.0}
    for path in sorted(DATA.glob("*.json")):
        conversation = json.loads(path.read_text(encoding="utf-8"))
        tag = path.stem
        items = turns(conversation, tag)
        memories = {name: Memory(InMemoryStore(), embedder=embedder) for name in ms}
        start = time.perf_counter()
        memories["turns"].store_many(as_turn_nodes(items))
        write_s["turns"] += time.perf_counter() - start
        start = time.perf_counter()
        memories["conversation"].store_many({"turns": as_conversation(items, conversation)})
        write_s["conversation"] += time.perf_counter() - start
        turns_stored += len(items)
        baseline = BM25({t["id"]: t["text"] for t in items})
        for q in questions(conversation, tag):
            scores["bm25"].setdefault(q["category"], []).append(recall(baseline.top(q["question"], K), q["evidence"]))
            for name, memory in memories.items():
                start = time.perf_counter()
                answer = memory.retrieve_context({"query": q["question"], "limit": K})
                ms[name].append((time.perf_counter() - start) * 1000)
                found = [r["id"] for r in answer["results"]]
                scores[name].setdefault(q["category"], []).append(recall(found, q["evidence"]))
                if name == "conversation":
                    each.setdefault(tag, []).append((q["category"], scores[name][q["category"]][-1]))
    return {
        "scores": {
            name: {
                "all": statistics.mean(v for vs in by.values() for v in vs),
                **{CATEGORIES[c]: statistics.mean(vs) for c, vs in sorted(by.items())},
            }
            for name, by in scores.items()
        },
        "each": {
            tag: {"all": statistics.mean(v for _, v in r), "multi-hop": statistics.mean(v for c, v in r if c == 1)}
            for tag, r in each.items()
        },
        "questions": sum(len(vs) for vs in scores["turns"].values()),
        "turns": turns_stored,
        "turns_per_s": {name: turns_stored / s if s else 0.0 for name, s in write_s.items()},
        "p50_ms": {name: statistics.median(v) for name, v in ms.items()},
        "p95_ms": {name: percentile(v, 95) for name, v in ms.items()},
        "at_700": latency_at(700, embedder),
    }


def latency_at(size: int, embedder: Any) -> dict[str, Any]:
    """retrieve_context's latency on one conversation of ``size`` turns: the largest dev
    conversation, its sessions followed by another's (renumbered after them) up to ``size``;
    its questions asked."""
    loaded = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(DATA.glob("*.json"))}
    largest = max(loaded, key=lambda tag: len(turns(loaded[tag], tag)))
    items = as_conversation(turns(loaded[largest], largest), loaded[largest])
    last = max(t["session"] for t in items)
    for tag in sorted(loaded):
        if tag != largest:
            more = as_conversation(turns(loaded[tag], tag), loaded[tag])
            items += [{**t, "session": last + t["session"]} for t in more][: size - len(items)]
            break
    memory = Memory(InMemoryStore(), embedder=embedder)
    memory.store_many({"turns": items[:size]})
    ms, cpu = [], []
    for q in questions(loaded[largest], largest):
        start, started = time.perf_counter(), time.thread_time()
        memory.retrieve_context({"query": q["question"], "limit": K})
        ms.append((time.perf_counter() - start) * 1000)
        cpu.append((time.thread_time() - started) * 1000)
    return {"turns": min(size, len(items)), "questions": len(ms), "p50_ms": statistics.median(ms),
            "p95_ms": percentile(ms, 95), "cpu_p50_ms": statistics.median(cpu),
            "cpu_p95_ms": percentile(cpu, 95)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", choices=sorted(EMBEDDERS))
    parser.add_argument("--kind", type=float, default=None, help="weight of kinds (0: none); the memory's otherwise")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.kind is not None:
        conversation_recall.KIND = args.kind
    load = os.getloadavg()[0]
    result = run(args.embedder)
    when = f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, CPython {sys.version.split()[0]}, {os.cpu_count()} cores"
    print(f"LoCoMo dev (3 conversations), {when}, load {load:.2f} → {os.getloadavg()[0]:.2f}, "
          f"embedder {args.embedder or 'none'}, kinds weighed {conversation_recall.KIND}")  # fmt: skip
    print(f"{result['questions']} questions of categories 1–4, {result['turns']} turns")
    for name in ("turns", "conversation"):
        print(f"  as {name}: written at {result['turns_per_s'][name]:,.0f} turns/s; retrieve_context "
              f"p50 {result['p50_ms'][name]:.2f} ms, p95 {result['p95_ms'][name]:.2f} ms")  # fmt: skip
    at = result["at_700"]
    print(f"  a {at['turns']}-turn conversation: retrieve_context p50 {at['p50_ms']:.2f} ms, "
          f"p95 {at['p95_ms']:.2f} ms; its thread's CPU time p50 {at['cpu_p50_ms']:.2f} ms, "
          f"p95 {at['cpu_p95_ms']:.2f} ms ({at['questions']} questions)")  # fmt: skip
    names = ["all", *CATEGORIES.values()]
    print("| evidence recall@10 | " + " | ".join(names) + " |")
    print("| --- |" + " ---: |" * len(names))
    rows = (
        ("Okapi BM25 (no stemming), same turns, same run", "bm25"),
        ("Bendscope, each turn a node (before: store_many nodes + temporal edges)", "turns"),
        ("Bendscope, a conversation (store_many turns)", "conversation"),
    )
    for label, key in rows:
        row = result["scores"][key]
        print(f"| {label} | " + " | ".join(f"{row[n]:.3f}" for n in names) + " |")
    print("each conversation (as a conversation), all / multi-hop: " + ", ".join(
        f"{tag} {row['all']:.3f} / {row['multi-hop']:.3f}" for tag, row in result["each"].items()))  # fmt: skip
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
