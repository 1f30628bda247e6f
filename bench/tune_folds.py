"""One setting of conversation retrieval chosen leaving one LoCoMo dev conversation out: a
module attribute (``NEAR`` of ``bendscope.memory.core.conversations.recall``, …) set to each
value given, the first being the memory's own. For each conversation left out, the value that
scores best on the other two (evidence recall@10 over categories 1–4, the pair's questions
together; between equals the memory's own, then the smaller) among those that lower neither
single-hop nor temporal recall on the pair (the no-regression rule), and what it scores on the
one left out beside the memory's own value — per category.

    python bench/tune_folds.py bendscope.memory.core.conversations.recall NEAR 8,12,16
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "bench"))

import bench_locomo as locomo  # noqa: E402

from bendscope.memory import Memory  # noqa: E402
from bendscope.memory.store.inmemory import InMemoryStore  # noqa: E402

Rows = list[tuple[int, float]]
NAMES = ["all", *locomo.CATEGORIES.values()]


def scored(module: object, attribute: str, values: list[float]) -> dict[str, dict[float, Rows]]:
    """Each conversation's questions at each value: (category, recall@10)."""
    found: dict[str, dict[float, Rows]] = {}
    for path in sorted(locomo.DATA.glob("*.json")):
        conversation = json.loads(path.read_text(encoding="utf-8"))
        tag = path.stem
        memory = Memory(InMemoryStore())
        memory.store_many({"turns": locomo.as_conversation(locomo.turns(conversation, tag), conversation)})
        for value in values:
            setattr(module, attribute, value)
            for cached in vars(module).values():  # (a cache keyed by the words, not the setting)
                if isinstance(cached, functools._lru_cache_wrapper):
                    cached.cache_clear()
            rows = found.setdefault(tag, {}).setdefault(value, [])
            for q in locomo.questions(conversation, tag):
                answer = memory.retrieve_context({"query": q["question"], "limit": locomo.K})
                rows.append((q["category"], locomo.recall([r["id"] for r in answer["results"]], q["evidence"])))
    setattr(module, attribute, values[0])
    return found


def summary(rows: Rows) -> dict[str, float]:
    out = {"all": statistics.mean(r for _, r in rows)}
    for number, name in locomo.CATEGORIES.items():
        of = [r for c, r in rows if c == number]
        out[name] = statistics.mean(of) if of else float("nan")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("module")
    parser.add_argument("attribute")
    parser.add_argument("values", help="comma-separated, the memory's own first")
    args = parser.parse_args()
    number = float if "." in args.values else int
    values = [number(v) for v in args.values.split(",")]
    found = scored(importlib.import_module(args.module), args.attribute, values)
    print(f"| {args.attribute} | conversation | " + " | ".join(NAMES) + " |")
    for value in values:
        for tag, by in found.items():
            got = summary(by[value])
            print(f"| {value} | {tag} | " + " | ".join(f"{got[n]:.3f}" for n in NAMES) + " |")
    print("leaving one out (chosen on the other two; held out: chosen vs the memory's own):")
    own = values[0]
    for held in found:
        pair = [t for t in found if t != held]
        base = summary([row for t in pair for row in found[t][own]])

        def holds(value: float, pair: list[str] = pair, base: dict[str, float] = base) -> bool:
            got = summary([row for t in pair for row in found[t][value]])
            return all(got[n] >= base[n] - 1e-12 for n in ("single-hop", "temporal"))

        def rank(value: float, pair: list[str] = pair) -> tuple[float, bool, float]:
            return (-summary([row for t in pair for row in found[t][value]])["all"], value != own, value)

        chosen = min((v for v in values if holds(v)), key=rank)
        got, before = summary(found[held][chosen]), summary(found[held][own])
        print(f"  {held}: chosen {chosen} on {'+'.join(pair)}; held out " + ", ".join(
            f"{n} {before[n]:.3f} → {got[n]:.3f}" for n in NAMES))  # fmt: skip


if __name__ == "__main__":
    main()
