"""One setting of conversation retrieval chosen leaving one LoCoMo dev conversation out: a
module attribute (``NEAR`` of ``bendscope.memory.core.conversations.recall``, ``BOUND`` of
``…bounds``, …) set to each value given, the first being the memory's own. For each
conversation left out, the value that scores best on the other two (evidence recall@10 over
categories 1–4, the pair's questions together; between equals recall@5, then the memory's own,
then the smaller) among those that lower neither single-hop nor temporal recall@10 on the pair
(the no-regression rule), and what it scores on the one left out beside the memory's own value
— per category, with recall@5, and on the questions a predicate picks (``--asked``: a function
of the question's text, true or not None for those it asks about, e.g. the time-bound questions).

    python bench/tune_folds.py bendscope.memory.core.conversations.recall NEAR 8,12,16
    python bench/tune_folds.py bendscope.memory.core.conversations.bounds BOUND 0.2,0,0.05,0.1,0.3 \\
        --asked bendscope.memory.core.conversations.bounds.asked_bound
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import math
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(ROOT / "bench"))

import bench_locomo as locomo  # noqa: E402

from bendscope.memory import Memory  # noqa: E402
from bendscope.memory.store.inmemory import InMemoryStore  # noqa: E402

NAMES = ["all", *locomo.CATEGORIES.values(), "R@5"]


class Row(NamedTuple):
    """One question's figures at one value."""

    category: int
    at10: float
    at5: float
    asked: bool


Rows = list[Row]


def scored(
    module: object, attribute: str, values: list[float], asked: Callable[[str], object] | None = None
) -> dict[str, dict[float, Rows]]:
    """Each conversation's questions at each value (the attribute set back to the first after)."""
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
                ids = [r["id"] for r in answer["results"]]
                picked = asked is not None and asked(q["question"]) not in (None, False)
                rows.append(Row(q["category"], locomo.recall(ids, q["evidence"]),
                                locomo.recall(ids[:5], q["evidence"]), picked))  # fmt: skip
    setattr(module, attribute, values[0])
    return found


def _mean(values: list[float]) -> float:
    return statistics.mean(values) if values else math.nan


def summary(rows: Rows) -> dict[str, float]:
    """Recall@10 over all the questions and per category, recall@5, and recall@10 and the
    number of the questions ``asked`` picks."""
    out = {"all": _mean([r.at10 for r in rows]), "R@5": _mean([r.at5 for r in rows])}
    for number, name in locomo.CATEGORIES.items():
        out[name] = _mean([r.at10 for r in rows if r.category == number])
    out["asked"] = _mean([r.at10 for r in rows if r.asked])
    out["asked_n"] = sum(r.asked for r in rows)
    return out


def choose(found: dict[str, dict[float, Rows]], values: list[float], held: str) -> float:
    """The value chosen on every conversation but ``held``: the best recall@10 (then recall@5,
    then the memory's own, then the smaller) of those keeping single-hop and temporal recall."""
    own = values[0]
    pair = [t for t in found if t != held]

    def together(value: float) -> dict[str, float]:
        return summary([row for t in pair for row in found[t][value]])

    base = together(own)
    keeps = [v for v in values if all(together(v)[n] >= base[n] - 1e-12 for n in ("single-hop", "temporal"))]
    return min(keeps, key=lambda v: (-together(v)["all"], -together(v)["R@5"], v != own, v))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("module")
    parser.add_argument("attribute")
    parser.add_argument("values", help="comma-separated, the memory's own first")
    parser.add_argument("--asked", help="module.function: the questions also scored on their own")
    args = parser.parse_args()
    number = float if "." in args.values else int
    values = [number(v) for v in args.values.split(",")]
    asked = None
    if args.asked:
        where, _, name = args.asked.rpartition(".")
        asked = getattr(importlib.import_module(where), name)
    found = scored(importlib.import_module(args.module), args.attribute, values, asked)
    names = [*NAMES, "asked"] if asked else NAMES
    print(f"| {args.attribute} | conversation | " + " | ".join(names) + " |")
    for value in values:
        for tag, by in found.items():
            got = summary(by[value])
            print(f"| {value} | {tag} | " + " | ".join(f"{got[n]:.3f}" for n in names) + " |")
    if asked:
        print("questions asked about: " + ", ".join(f"{t} {summary(by[values[0]])['asked_n']:.0f}"
                                                    for t, by in found.items()))  # fmt: skip
    print("leaving one out (chosen on the other two; held out: the memory's own → chosen):")
    for held in found:
        chosen = choose(found, values, held)
        got, before = summary(found[held][chosen]), summary(found[held][values[0]])
        pair = "+".join(t for t in found if t != held)
        print(f"  {held}: chosen {chosen} on {pair}; held out " + ", ".join(
            f"{n} {before[n]:.3f} → {got[n]:.3f}" for n in names))  # fmt: skip


if __name__ == "__main__":
    main()
