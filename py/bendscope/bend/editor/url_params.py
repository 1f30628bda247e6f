"""URL parameters of the page, validated: a bad value is ignored with a message, never
a failed start.

>>> p = parse_params({"seed": "7", "still": "1", "exact_limit": "-1"})
>>> p.seed, p.still, p.exact_limit
(7, True, None)
>>> p.problems
['exact_limit=-1 ignored: must be a whole number from 0 to 20000.']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bendscope.bend.model.document import MAX_NODES, MAX_SEED

KNOWN = ("seed", "still", "exact_limit", "fresh", "layout")
#: the page's layout engine: d3-force in a worker; the same on the main thread, or the pure-Python
#: one (both kept to compare with in the same benchmark run)
LAYOUTS = ("worker", "d3", "python")


@dataclass(frozen=True)
class Params:
    seed: int | None = None
    still: bool = False
    exact_limit: int | None = None
    fresh: bool = False
    layout: str = "worker"
    problems: list[str] = field(default_factory=list)


def _int(name: str, raw: str, low: int, high: int, problems: list[str]) -> int | None:
    text = raw.strip()
    if len(text) <= 20 and text.lstrip("+-").isdigit():
        value = int(text)
        if low <= value <= high:
            return value
    problems.append(f"{name}={raw[:20]} ignored: must be a whole number from {low} to {high}.")
    return None


def _flag(name: str, raw: str, problems: list[str]) -> bool:
    if raw in ("1", "true", ""):
        return True
    if raw in ("0", "false"):
        return False
    problems.append(f"{name}={raw[:20]} ignored: use {name}=1.")
    return False


def parse_params(raw: Mapping[str, str]) -> Params:
    """Validate the page's query parameters (``?seed=N&still=1&exact_limit=N&fresh=1&layout=python``).

    >>> parse_params({"layout": "python"}).layout, parse_params({"layout": "<b>"}).problems
    ('python', ['layout=<b> ignored: use worker, d3 or python.'])
    """
    problems: list[str] = []
    seed = _int("seed", raw["seed"], -MAX_SEED, MAX_SEED, problems) if "seed" in raw else None
    limit = _int("exact_limit", raw["exact_limit"], 0, MAX_NODES, problems) if "exact_limit" in raw else None
    still = _flag("still", raw["still"], problems) if "still" in raw else False
    fresh = _flag("fresh", raw["fresh"], problems) if "fresh" in raw else False
    layout = raw.get("layout", "worker")
    if layout not in LAYOUTS:
        problems.append(f"layout={layout[:20]} ignored: use worker, d3 or python.")
        layout = "worker"
    return Params(seed, still, limit, fresh, layout, problems)
