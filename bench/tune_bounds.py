"""The weight of a question's time bound (``bounds.BOUND``: "before the parade", "after June
2023"), chosen leaving one LoCoMo dev conversation out: for each conversation, the weight that
scores best on the other two (evidence recall@10 over categories 1–4; between equals, recall@5;
then the smaller),
and what that weight scores on the one left out — per category, beside the weight 0 (no bound).

    python bench/tune_bounds.py [--weights 0,0.05,0.1,0.2,0.3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "bench"))

import bench_locomo as locomo  # noqa: E402

from bendscope.memory import Memory  # noqa: E402
from bendscope.memory.core.conversations import bounds  # noqa: E402
from bendscope.memory.store.inmemory import InMemoryStore  # noqa: E402

Row = tuple[int, float, bool, float]


def scored(weights: list[float]) -> dict[str, dict[float, list[Row]]]:
    """Each conversation's questions at each weight: (category, recall@10, bound asked, recall@5)."""
    found: dict[str, dict[float, list[Row]]] = {}
    for path in sorted(locomo.DATA.glob("*.json")):
        conversation = locomo.json.loads(path.read_text(encoding="utf-8"))
        tag = path.stem
        memory = Memory(InMemoryStore())
        memory.store_many({"turns": locomo.as_conversation(locomo.turns(conversation, tag), conversation)})
        for weight in weights:
            bounds.BOUND = weight
            rows = found.setdefault(tag, {}).setdefault(weight, [])
            for q in locomo.questions(conversation, tag):
                answer = memory.retrieve_context({"query": q["question"], "limit": locomo.K})
                ids = [r["id"] for r in answer["results"]]
                asked = bounds.asked_bound(q["question"]) is not None
                rows.append(
                    (q["category"], locomo.recall(ids, q["evidence"]), asked, locomo.recall(ids[:5], q["evidence"]))
                )
    return found


def summary(rows: list[Row]) -> dict[str, Any]:
    out: dict[str, Any] = {"all": statistics.mean(r for _, r, _, _ in rows), "R@5": statistics.mean(r[3] for r in rows)}
    for number, name in locomo.CATEGORIES.items():
        of = [r for c, r, _, _ in rows if c == number]
        out[name] = statistics.mean(of) if of else float("nan")
    bound = [r for _, r, b, _ in rows if b]
    out["bound"] = statistics.mean(bound) if bound else float("nan")
    out["bound_n"] = len(bound)
    out["bound R@5"] = statistics.mean(r[3] for r in rows if r[2]) if bound else float("nan")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weights", default="0,0.05,0.1,0.2,0.3")
    weights = [float(w) for w in parser.parse_args().weights.split(",")]
    found = scored(weights)
    names = ["all", *locomo.CATEGORIES.values(), "bound", "R@5", "bound R@5"]
    print("| weight | conversation | " + " | ".join(names) + " | bound questions |")
    for weight in weights:
        for tag, by in found.items():
            got = summary(by[weight])
            print(f"| {weight} | {tag} | " + " | ".join(f"{got[n]:.3f}" for n in names) + f" | {got['bound_n']} |")
    print("leaving one out (weight chosen on the other two; held-out score vs weight 0):")
    for held in found:
        others = [t for t in found if t != held]

        def score(w: float, others: list[str] = others) -> tuple[float, float, float]:
            rows = [row for t in others for row in found[t][w]]
            return statistics.mean(r[1] for r in rows), statistics.mean(r[3] for r in rows), -w

        best = max(weights, key=score)
        got, zero = summary(found[held][best]), summary(found[held][weights[0]])
        print(f"  {held}: weight {best}: " + ", ".join(f"{n} {got[n]:.3f} ({zero[n]:.3f})" for n in names))


if __name__ == "__main__":
    main()
