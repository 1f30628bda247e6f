"""Routing benchmark: does the memory deliberate only on questions about a loop's dynamics?

Each domain in ``bench/routing/`` (and ``bench/routing/heldout/``: written by another author who
never saw the routing rule; ``bench/routing/review/``: two memories of a later independent
review, each also asked in other wordings written after reading the rule; the intent words were
extended after its misses were seen, so that set is no longer held out) is a realistic memory of
40–70 facts with one to three feedback loops, facts linked to loop members by non-causal edges,
causal chains without loops, and labelled questions: ``loop`` (about a loop's dynamics:
deliberate, with the loop whole) or ``lookup`` (a fact answers it: fast, that fact among the
first five results). Every question is one ``retrieve_context`` call over the MCP tool layer
(``tools.call``), at the question's ``limit`` (10 by default), on a fresh in-memory store.

Reported per domain and in all:

* **unnecessary deliberation**: lookups routed ``deliberate`` (target ≤ 20 %);
* **missed loops**: loop questions routed ``fast`` (target ≤ 5 %), and loop questions whose
  loop is not whole in the answer (its members among the results or the topology's SCCs);
* **answer in the first 5**: lookups whose answering fact is among the first five results
  (target ≥ 90 %);
* **answer size**: characters of a lookup's answer beyond the facts' own text (median, max;
  target ≤ 2,000), and of ``tools/list``;
* the same questions under the **window rule** (what the memory did before: deliberate when
  any loop touches the answer's window) as the baseline of the same run;
* latency of the call, p50 / p95.

``python bench/bench_routing.py [--json]``; the machine's load is printed with the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

from bendscope.memory.core.embedders import EMBEDDERS, load_embedder  # noqa: E402
from bendscope.memory.core.service import Memory  # noqa: E402
from bendscope.memory.mcp.server import tool_list  # noqa: E402
from bendscope.memory.mcp.tools import call, encode  # noqa: E402
from bendscope.memory.store.inmemory import InMemoryStore  # noqa: E402

FOLDER = ROOT / "bench" / "routing"


_PAST_FORMS = (
    (r"^(why|how|when|where|what) (does|do) (.*)$", "{0} did {2}"),
    (r"^(why|how|when|where|what) is (.*)$", "{0} was {1}"),
    (r"^(why|how|when|where|what) are (.*)$", "{0} were {1}"),
    (r"^(does|do) (.*)$", "Did {1}"),
    (r"^is (.*)$", "Was {0}"),
    (r"^are (.*)$", "Were {0}"),
)


def past_tense(question: str) -> str | None:
    """The question asked about the past, when its first words make that a matter of the
    auxiliary ("Why does …" → "Why did …", "What is …" → "What was …"); else None.

    >>> past_tense("Why does the algae bloom keep coming back?"), past_tense("What is albedo?")
    ('Why did the algae bloom keep coming back?', 'What was albedo?')
    >>> past_tense("Explain the loop.") is None
    True
    """
    for pattern, form in _PAST_FORMS:
        match = re.match(pattern, question, re.I)
        if match:
            asked = form.format(*match.groups())
            return asked[0].upper() + asked[1:]
    return None


def domains(folder: Path) -> list[dict[str, Any]]:
    """The domain files of a folder, by name."""
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.json"))]


def run_domain(domain: dict[str, Any], embedder: Any = None) -> dict[str, Any]:
    """Every question of one domain on a fresh memory (with ``embedder``, if any); the counts
    and sizes."""
    memory = Memory(InMemoryStore(), embedder=embedder)
    call(memory, "store_many", {"nodes": domain["nodes"], "edges": domain["edges"]})
    tally: dict[str, Any] = {
        "domain": domain["domain"],
        "nodes": len(domain["nodes"]),
        "edges": len(domain["edges"]),
        "lookups": 0,
        "loops": 0,
        "unnecessary": 0,
        "missed": 0,
        "cut": 0,
        "top5": 0,
        "window_unnecessary": 0,
        "window_missed": 0,
        "sizes": [],
        "fast_sizes": [],
        "ms": [],
        "errors": [],
    }
    for question in domain["questions"]:
        arguments: dict[str, Any] = {"query": question["question"]}
        if question.get("limit"):
            arguments["limit"] = question["limit"]
        start = time.perf_counter()
        answer = call(memory, "retrieve_context", arguments)
        tally["ms"].append((time.perf_counter() - start) * 1000)
        ids = [r["id"] for r in answer["results"]]
        window = "deliberate" if answer["loops"] else "fast"  # (any loop the window touches)
        if question["kind"] == "lookup":
            tally["lookups"] += 1
            text = sum(len(r["content"]) for r in answer["results"])
            tally["sizes"].append(len(encode(answer)) - text)
            if answer["routing"] == "fast":
                tally["fast_sizes"].append(len(encode(answer)) - text)
            found = any(i in ids[:5] for i in question["answer"])
            tally["top5"] += found
            tally["unnecessary"] += answer["routing"] == "deliberate"
            tally["window_unnecessary"] += window == "deliberate"
            if answer["routing"] == "deliberate" or not found:
                tally["errors"].append(f"lookup {answer['routing']}{'' if found else ', answer not in 5'}: "
                                       f"{question['question']}")  # fmt: skip
        else:
            tally["loops"] += 1
            region = set(ids) | {n for scc in answer["topology"]["sccs"] for n in scc["nodes"]}
            whole = all(n in region for n in question["loop"])
            tally["missed"] += answer["routing"] == "fast"
            tally["cut"] += answer["routing"] == "deliberate" and not whole
            tally["window_missed"] += window == "fast"
            if answer["routing"] == "fast" or not whole:
                tally["errors"].append(f"loop {answer['routing']}{'' if whole else ', cut'}: {question['question']}")
    return tally


def share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def summary(tallies: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The figures of a set of domains together."""
    total = {k: sum(t[k] for t in tallies) for k in ("lookups", "loops", "unnecessary", "missed", "cut", "top5",
                                                     "window_unnecessary", "window_missed")}  # fmt: skip
    sizes = sorted(s for t in tallies for s in t["sizes"])
    ms = sorted(m for t in tallies for m in t["ms"])
    return {
        "set": name,
        **total,
        "unnecessary_ratio": share(total["unnecessary"], total["lookups"]),
        "missed_ratio": share(total["missed"], total["loops"]),
        "top5_ratio": share(total["top5"], total["lookups"]),
        "window_unnecessary_ratio": share(total["window_unnecessary"], total["lookups"]),
        "window_missed_ratio": share(total["window_missed"], total["loops"]),
        "size_median": statistics.median(sizes) if sizes else 0,
        "size_max": max(sizes, default=0),
        "fast_size_max": max((x for t in tallies for x in t["fast_sizes"]), default=0),
        "ms_p50": statistics.median(ms) if ms else 0.0,
        "ms_p95": ms[max(0, -(-len(ms) * 95 // 100) - 1)] if ms else 0.0,
    }


def tools_list_size() -> tuple[int, int]:
    """Characters of tools/list: as JSON with spaces and ASCII escapes (the larger way to count),
    and compact UTF-8 as a client receives it."""
    listed = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tool_list()]
    return len(json.dumps({"tools": listed})), len(json.dumps({"tools": listed}, separators=(",", ":"),
                                                                ensure_ascii=False))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    parser.add_argument("--embedder", choices=sorted(EMBEDDERS), help="retrieval with this embedder too")
    args = parser.parse_args()
    embedder = load_embedder(args.embedder) if args.embedder else None
    load_before = os.getloadavg()[0]
    sets = [("own", FOLDER), ("held out", FOLDER / "heldout"), ("review", FOLDER / "review")]
    rows = []
    print(f"routing benchmark, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, CPython {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores, load {load_before:.2f}, embedder {args.embedder or 'none (lexical)'}")  # fmt: skip
    print("| set | domain | nodes | edges | lookups | unnecessary deliberation | answer in first 5 | loop questions | "
          "missed (fast) | loop not whole | window rule: unnecessary / missed | lookup answer chars beyond the facts "
          "(median / max) |")  # fmt: skip
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    summaries = []
    for name, folder in sets:
        tallies = [run_domain(d, embedder) for d in domains(folder)]
        for t in tallies:
            sizes = sorted(t["sizes"])
            print(f"| {name} | {t['domain']} | {t['nodes']} | {t['edges']} | {t['lookups']} | "
                  f"{t['unnecessary']} ({share(t['unnecessary'], t['lookups']):.0%}) | "
                  f"{t['top5']} ({share(t['top5'], t['lookups']):.0%}) | {t['loops']} | "
                  f"{t['missed']} ({share(t['missed'], t['loops']):.0%}) | {t['cut']} | "
                  f"{share(t['window_unnecessary'], t['lookups']):.0%} / {share(t['window_missed'], t['loops']):.0%} | "
                  f"{statistics.median(sizes):,.0f} / {max(sizes):,} |")  # fmt: skip
            rows.append(t)
        summaries.append(summary(tallies, name))
    past = []  # the own and held-out questions asked about the past (as the tests ask them)
    for _, folder in sets[:2]:
        for d in domains(folder):
            asked = [{**q, "question": past_tense(q["question"])} for q in d["questions"]]
            past.append(run_domain({**d, "questions": [q for q in asked if q["question"] is not None]}, embedder))
            rows.append({**past[-1], "domain": f"{d['domain']} (past tense)"})
    summaries.append(summary(past, "own + held out, past tense"))
    print()
    print("| set | lookups | unnecessary deliberation (≤ 20 %) | answer in first 5 (≥ 90 %) | loop questions | "
          "missed loops (≤ 5 %) | loop not whole | window rule: unnecessary / missed | chars beyond the facts "
          "median / max (≤ 2,000) | max of those routed fast | retrieve_context p50 / p95 ms |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for s in summaries:
        print(f"| {s['set']} | {s['lookups']} | {s['unnecessary_ratio']:.1%} | {s['top5_ratio']:.1%} | {s['loops']} | "
              f"{s['missed_ratio']:.1%} | {s['cut']} | {s['window_unnecessary_ratio']:.0%} / "
              f"{s['window_missed_ratio']:.0%} | {s['size_median']:,.0f} / {s['size_max']:,} | "
              f"{s['fast_size_max']:,} | "
              f"{s['ms_p50']:.2f} / {s['ms_p95']:.2f} |")  # fmt: skip
    spaced, wire = tools_list_size()
    print(f"\ntools/list: {spaced:,} characters (JSON with spaces, ASCII escapes), {wire:,} compact UTF-8 "
          "(target ≤ 16,000)")  # fmt: skip
    print(f"load after: {os.getloadavg()[0]:.2f}")
    misses = [f"  {t['domain']}: {e}" for t in rows for e in t["errors"]]
    if misses:
        print("\nmisrouted or missed (each said):")
        print("\n".join(misses))
    if args.json:
        print(json.dumps({"summaries": summaries, "tools_list": {"spaced": spaced, "compact": wire}}))


if __name__ == "__main__":
    main()
